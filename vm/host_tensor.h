// A tensor in host memory: how inputs arrive and results leave the VM.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/element_type.h"

namespace kiln::vm {

struct HostTensor {
  ElementType type = ElementType::kInvalid;
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;  // storage encoding, row-major
  bool is_token = false;
  std::vector<HostTensor> tuple_elements;  // set for a tuple
  bool is_tuple = false;

  int64_t NumElements() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
};

// "2x3xf32=1,2,3,4,5,6" style text of a tensor (vm-run's output format).
std::string FormatTensor(const HostTensor& t);

}  // namespace kiln::vm

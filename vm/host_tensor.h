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

// "2x3xf32=1,2,3,4,5,6" style text of a tensor (vm-run's output format,
// which --input reads back): floats with the significant digits that read
// back to the same value (up to 17 for f64, 9 for f32, 5 for f16, 4 for
// bf16), NaN as "nan" whatever its sign, complex values as "(re,im)",
// booleans as 1/0. With max_elements >= 0, a tensor of more elements shows
// only the first max_elements, then "... (N elements)".
std::string FormatTensor(const HostTensor& t, int64_t max_elements = -1);
// Element i of t in that form.
std::string FormatElement(const HostTensor& t, int64_t i);

}  // namespace kiln::vm

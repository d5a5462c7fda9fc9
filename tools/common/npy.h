// .npy files: reading inputs (--input=@x.npy) and writing results (--output).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/common/element_type.h"
#include "kernels/common/status.h"
#include "vm/host_tensor.h"

namespace kiln::tools {

// The header of a .npy file: a Python dict literal with exactly the keys
// 'descr' (a dtype string), 'fortran_order' (True/False) and 'shape' (a
// tuple of integers), in any order, quoted with ' or ", with whitespace
// anywhere and an optional trailing comma, as numpy reads it.
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};
// Errors say what is wrong ("no 'shape' key", "structured dtypes ... are
// not supported").
StatusOr<NpyHeader> ParseNpyHeader(std::string_view text);

// Decodes a whole .npy file (format versions 1 to 3): little- and
// big-endian dtypes, Fortran-order arrays (transposed to row-major), and no
// bytes after the array's data. `expected`: the element type the caller
// wants, where known. Types numpy lacks (bf16, f8*, f4/f6, i2/i4, ui2/ui4)
// are read from raw bits of the same width: '<u2' or '|V2' (ml_dtypes'
// form) for bf16, '|u1' or '|V1' for the one-byte types, the form WriteNpy
// writes them in; sub-byte values must be stored as vm-run writes them
// (integers sign- or zero-extended, floats in the low bits).
StatusOr<vm::HostTensor> DecodeNpy(std::string_view bytes, ElementType expected = ElementType::kInvalid);
StatusOr<vm::HostTensor> ReadNpy(const std::string& path, ElementType expected = ElementType::kInvalid);

// Types numpy lacks are written as raw bits of the same width (uint8 or
// uint16). A tuple or token result is refused (.npy holds one array); a
// failed write (a full disk, /dev/full) is an error.
StatusOr<std::string> EncodeNpy(const vm::HostTensor& t);
Status WriteNpy(const std::string& path, const vm::HostTensor& t);

}  // namespace kiln::tools

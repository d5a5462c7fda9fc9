// Small index helpers shared by the reference kernels: row-major strides,
// multi-index iteration and linearisation, plus the storage and argument
// checks every kernel needs. Header-only and deliberately plain.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/common/kernel.h"
#include "kernels/scalar/scalar.h"

namespace kiln::ref {

// Row-major strides in elements: the last dimension has stride 1.
inline std::vector<int64_t> RowMajorStrides(std::span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
  return strides;
}

// Advances `idx` to the next multi-index in row-major order within `dims`.
// Returns false (and leaves idx all zeros) once every index was visited.
// Typical loop, which also handles rank 0 (one element) and zero-sized
// shapes (callers check NumElements() == 0 first):
//   std::vector<int64_t> idx(dims.size(), 0);
//   do { ... } while (NextIndex(dims, idx));
inline bool NextIndex(std::span<const int64_t> dims, std::vector<int64_t>& idx) {
  for (size_t d = dims.size(); d-- > 0;) {
    if (++idx[d] < dims[d]) return true;
    idx[d] = 0;
  }
  return false;
}

// Linear (row-major) position of multi-index `idx` given `strides`.
inline int64_t LinearIndex(std::span<const int64_t> idx, std::span<const int64_t> strides) {
  int64_t linear = 0;
  for (size_t d = 0; d < idx.size(); ++d) linear += idx[d] * strides[d];
  return linear;
}

// Number of elements of a shape (1 for rank 0).
inline int64_t NumElementsOf(std::span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Checks that a tensor a kernel relies on is well formed: a valid element
// type, non-negative dims, and storage covering every element. `what` names
// the tensor in the error ("stablehlo.pad operand").
inline Status CheckStorage(const TensorRef& t, std::string_view what) {
  if (t.type == ElementType::kInvalid) return InvalidArgument(std::string(what) + ": invalid element type");
  int64_t n = 1;
  for (int64_t d : t.dims) {
    if (d < 0) return InvalidArgument(std::string(what) + ": negative dimension");
    if (__builtin_mul_overflow(n, d, &n)) return InvalidArgument(std::string(what) + ": too many elements");
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(n, static_cast<int64_t>(StorageBytes(t.type)), &bytes) ||
      static_cast<uint64_t>(bytes) > t.byte_size || (bytes > 0 && t.data == nullptr))
    return InvalidArgument(std::string(what) + ": storage smaller than its " + std::to_string(n) +
                           " elements");
  return Status::Ok();
}

// Reads an index-like integer tensor (any integer type; all its elements, row
// major) as int64s. ui64 values above INT64_MAX saturate to INT64_MAX, so
// clamping them still gives the largest valid start.
inline Status ReadIntegerTensor(const TensorRef& t, std::string_view what, std::vector<int64_t>* out) {
  KILN_RETURN_IF_ERROR(CheckStorage(t, what));
  if (!IsInteger(t.type)) return InvalidArgument(std::string(what) + ": must have an integer type");
  out->resize(static_cast<size_t>(t.NumElements()));
  for (size_t i = 0; i < out->size(); ++i) {
    int64_t v = LoadScalar(t.type, t.At(static_cast<int64_t>(i))).i;
    if (t.type == ElementType::kUI64 && v < 0) v = INT64_MAX;
    (*out)[i] = v;
  }
  return Status::Ok();
}

// Writes every element of `out` (row major) from the `in` element whose linear
// index `source(result_multi_index)` returns; a negative index writes `fill`
// (one element of out.type) instead. Callers validate that sources are in
// bounds. Zero-sized results copy nothing.
template <typename SourceFn>
void CopyByIndex(const TensorRef& in, const TensorRef& out, SourceFn source,
                 const uint8_t* fill = nullptr) {
  if (out.NumElements() == 0) return;
  const size_t eb = StorageBytes(out.type);
  std::vector<int64_t> idx(out.dims.size(), 0);
  int64_t linear = 0;
  do {
    const int64_t src = source(std::span<const int64_t>(idx));
    std::memcpy(out.At(linear), src >= 0 ? in.At(src) : fill, eb);
    ++linear;
  } while (NextIndex(out.dims, idx));
}

// The common checks of a one-result op whose operand 0 and result share an
// element type: `num_inputs` inputs, one output, valid storage for both.
inline Status CheckUnary(const KernelCall& call, std::string_view op, size_t num_inputs) {
  if (call.inputs.size() != num_inputs || call.outputs.size() != 1)
    return InvalidArgument(std::string(op) + ": expects " + std::to_string(num_inputs) +
                           " inputs and 1 output");
  KILN_RETURN_IF_ERROR(CheckStorage(call.inputs[0], std::string(op) + " operand"));
  KILN_RETURN_IF_ERROR(CheckStorage(call.outputs[0], std::string(op) + " result"));
  if (call.inputs[0].type != call.outputs[0].type)
    return InvalidArgument(std::string(op) + ": operand and result element types differ");
  return Status::Ok();
}

// Checks a shape operand (output_dimensions / output_shape of the dynamic
// ops) against the result the caller allocated: one entry per result dim,
// equal to it.
inline Status CheckShapeOperand(const TensorRef& shape, const TensorRef& result, std::string_view op) {
  std::vector<int64_t> dims;
  KILN_RETURN_IF_ERROR(ReadIntegerTensor(shape, std::string(op) + " shape operand", &dims));
  if (shape.rank() != 1 || !std::equal(dims.begin(), dims.end(), result.dims.begin(), result.dims.end()))
    return InvalidArgument(std::string(op) + ": shape operand differs from the result dims");
  return Status::Ok();
}

}  // namespace kiln::ref

// Reference kernels: stablehlo.sort (variadic, comparator program) and
// chlo.top_k. Both sort index permutations of each 1-D slice with a plain
// stable merge sort (merge_sort.h): stable sorting is also a valid unstable
// sort, and a hand-written merge never misbehaves if a comparator is not a
// strict weak ordering (std::stable_sort would be undefined behaviour then).
#include <cstring>
#include <string>
#include <vector>

#include "kernels/reference/kernels.h"
#include "kernels/reference/merge_sort.h"
#include "kernels/scalar/scalar.h"
#include "kernels/reference/tensor_index.h"

namespace kiln::ref {


namespace {

// Calls fn(base_linear_index) for every 1-D slice along `dim` of `dims`; the
// slice's elements are at base + j * stride(dim).
template <typename Fn>
void ForEachSlice(std::span<const int64_t> dims, int64_t dim, Fn fn) {
  if (NumElementsOf(dims) == 0) return;
  std::vector<int64_t> outer(dims.begin(), dims.end());
  outer[dim] = 1;
  auto strides = RowMajorStrides(dims);
  std::vector<int64_t> idx(outer.size(), 0);
  do fn(LinearIndex(idx, strides));
  while (NextIndex(outer, idx));
}

Status Sort(const KernelCall& call) {
  const char* op = "stablehlo.sort";
  const size_t num = call.inputs.size();
  if (num == 0 || call.outputs.size() != num)
    return InvalidArgument(std::string(op) + ": expects N > 0 inputs and N results");
  const ScalarProgram* cmp = call.params.Program("comparator");
  if (cmp == nullptr) return InvalidArgument(std::string(op) + ": missing comparator");
  KILN_RETURN_IF_ERROR(VerifyScalarProgram(*cmp));
  if (cmp->param_types.size() != 2 * num || cmp->results.size() != 1 ||
      cmp->ValueType(cmp->results[0]) != ElementType::kI1)
    return InvalidArgument(std::string(op) + ": comparator must take 2N params and return one i1");
  const TensorRef& in0 = call.inputs[0];
  for (size_t i = 0; i < num; ++i) {
    const TensorRef& in = call.inputs[i];
    const TensorRef& out = call.outputs[i];
    KILN_RETURN_IF_ERROR(CheckStorage(in, std::string(op) + " input"));
    KILN_RETURN_IF_ERROR(CheckStorage(out, std::string(op) + " result"));
    if (!std::equal(in.dims.begin(), in.dims.end(), in0.dims.begin(), in0.dims.end()) ||
        !std::equal(out.dims.begin(), out.dims.end(), in0.dims.begin(), in0.dims.end()))
      return InvalidArgument(std::string(op) + ": inputs and results must share one shape");
    if (out.type != in.type || cmp->param_types[2 * i] != in.type || cmp->param_types[2 * i + 1] != in.type)
      return InvalidArgument(std::string(op) + ": input, result and comparator types differ");
  }
  // The op's default dimension is -1 (the last axis).
  int64_t dim = call.params.Int("dimension", -1);
  if (dim < 0) dim += in0.rank();
  if (dim < 0 || dim >= in0.rank()) return InvalidArgument(std::string(op) + ": dimension out of range");

  const int64_t len = in0.dims[dim];
  const int64_t stride = RowMajorStrides(in0.dims)[dim];
  std::vector<Scalar> params(2 * num), scratch(cmp->num_values()), result(1);
  ForEachSlice(in0.dims, dim, [&](int64_t base) {
    // comparator(lhs0, rhs0, lhs1, rhs1, ...) says "lhs < rhs".
    auto less = [&](int64_t a, int64_t b) {
      for (size_t i = 0; i < num; ++i) {
        const TensorRef& in = call.inputs[i];
        params[2 * i] = LoadScalar(in.type, in.At(base + a * stride));
        params[2 * i + 1] = LoadScalar(in.type, in.At(base + b * stride));
      }
      RunScalarProgram(*cmp, params.data(), scratch.data(), result.data());
      return result[0].i != 0;
    };
    std::vector<int64_t> perm(len);
    for (int64_t j = 0; j < len; ++j) perm[j] = j;
    std::vector<int64_t> tmp;
    MergeSort(perm, tmp, less);
    for (size_t i = 0; i < num; ++i) {
      const TensorRef& in = call.inputs[i];
      const TensorRef& out = call.outputs[i];
      const size_t eb = StorageBytes(in.type);
      // Results may alias inputs: read the slice before writing it.
      std::vector<uint8_t> slice(static_cast<size_t>(len) * eb);
      for (int64_t j = 0; j < len; ++j) std::memcpy(&slice[j * eb], in.At(base + j * stride), eb);
      for (int64_t j = 0; j < len; ++j) std::memcpy(out.At(base + j * stride), &slice[perm[j] * eb], eb);
    }
  });
  return Status::Ok();
}

// chlo.top_k: along the last dimension, the k largest values (descending)
// and their indices; ties keep the lower index first. Floats compare in the
// total order (NaN above +inf, like XLA's TopK), integers by value.
Status TopK(const KernelCall& call) {
  const char* op = "chlo.top_k";
  if (call.inputs.size() != 1 || call.outputs.size() != 2)
    return InvalidArgument(std::string(op) + ": expects 1 input and 2 outputs");
  const TensorRef& in = call.inputs[0];
  const TensorRef& values = call.outputs[0];
  const TensorRef& indices = call.outputs[1];
  KILN_RETURN_IF_ERROR(CheckStorage(in, std::string(op) + " operand"));
  KILN_RETURN_IF_ERROR(CheckStorage(values, std::string(op) + " values"));
  KILN_RETURN_IF_ERROR(CheckStorage(indices, std::string(op) + " indices"));
  if (in.rank() < 1) return InvalidArgument(std::string(op) + ": operand must have rank >= 1");
  if (values.type != in.type || IsComplex(in.type))
    return InvalidArgument(std::string(op) + ": values must have the operand's (non-complex) type");
  if (!IsInteger(indices.type)) return InvalidArgument(std::string(op) + ": indices must be integers");
  const int64_t k = call.params.Int("k", -1);
  const int64_t last = in.rank() - 1;
  const int64_t n = in.dims[last];
  if (k < 0 || k > n) return InvalidArgument(std::string(op) + ": need 0 <= k <= last dimension");
  for (const TensorRef* out : {&values, &indices}) {
    if (out->rank() != in.rank() || !std::equal(in.dims.begin(), in.dims.end() - 1, out->dims.begin()) ||
        out->dims[last] != k)
      return InvalidArgument(std::string(op) + ": outputs must have the operand's dims with k last");
  }
  const ScalarInstr gt = GreaterThanInstr(in.type);
  const ElementType types[2] = {in.type, in.type};
  const size_t eb = StorageBytes(in.type);
  const int64_t rows = n == 0 ? 0 : in.NumElements() / n;
  for (int64_t r = 0; r < rows; ++r) {
    // "a before b" when a > b: the merge keeps equal values in index order.
    auto greater = [&](int64_t a, int64_t b) {
      const Scalar ops[2] = {LoadScalar(in.type, in.At(r * n + a)), LoadScalar(in.type, in.At(r * n + b))};
      return EvalScalarInstr(gt, types, ops).i != 0;
    };
    std::vector<int64_t> perm(n);
    for (int64_t j = 0; j < n; ++j) perm[j] = j;
    std::vector<int64_t> tmp;
    MergeSort(perm, tmp, greater);
    for (int64_t j = 0; j < k; ++j) {
      std::memcpy(values.At(r * k + j), in.At(r * n + perm[j]), eb);
      Scalar idx;
      idx.i = perm[j];
      StoreScalar(indices.type, ConvertScalar(ElementType::kSI64, indices.type, idx), indices.At(r * k + j));
    }
  }
  return Status::Ok();
}

}  // namespace

// This file's kernels of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::TopK(const KernelCall& call) { return ref::TopK(call); }
Status kernel::Sort(const KernelCall& call) { return ref::Sort(call); }

}  // namespace kiln::ref

// chlo.scan: a prefix scan along one dimension. Inputs are N tensors of one
// shape, then M initial carries whose shape is the input shape without the
// scan dimension; outputs are N tensors of the input shape, then the M
// final carries. The body (program "body") maps (N input elements, M
// carries) to (N output elements, M new carries) and is elementwise, so
// every lane (an index of the non-scan dimensions) scans independently.
// `is_reverse` runs from the last position to the first.
#include <algorithm>
#include <vector>

#include "kernels/reference/kernels.h"
#include "kernels/scalar/scalar.h"
#include "kernels/reference/tensor_index.h"

namespace kiln::ref {
namespace {

Status ScanKernel(const KernelCall& call) {
  const ScalarProgram* body = call.params.Program("body");
  if (!body) return InvalidArgument("missing the body program");
  size_t total_in = call.inputs.size(), total_out = call.outputs.size();
  if (total_in != total_out || total_in < 2) return InvalidArgument("expects N inputs, M inits and N+M results");
  // Parameters: N input elements then M carries; results: N outputs then M carries.
  size_t params = body->param_types.size();
  if (params != total_in || body->results.size() != total_out) return InvalidArgument("body signature mismatch");
  // N is the number of inputs: those with the same rank as output 0.
  const TensorRef& first = call.inputs[0];
  size_t n = 0;
  while (n < total_in && call.inputs[n].rank() == first.rank()) ++n;
  size_t m = total_in - n;
  if (n == 0 || m == 0) return InvalidArgument("needs at least one input and one init");
  int64_t rank = first.rank();
  int64_t dim = call.params.Int("dimension", 0);
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) return InvalidArgument("dimension out of range");
  bool reverse = call.params.Int("is_reverse", 0) != 0;
  for (size_t k = 0; k < total_in; ++k) {
    KILN_RETURN_IF_ERROR(CheckStorage(call.inputs[k], "input"));
    KILN_RETURN_IF_ERROR(CheckStorage(call.outputs[k], "output"));
    if (call.inputs[k].type != body->param_types[k]) return InvalidArgument("operand type does not match the body");
  }
  std::vector<int64_t> lane_dims;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim) lane_dims.push_back(first.dims[d]);
  for (size_t k = 0; k < n; ++k)
    if (!std::equal(call.inputs[k].dims.begin(), call.inputs[k].dims.end(), first.dims.begin(), first.dims.end()) ||
        !std::equal(call.outputs[k].dims.begin(), call.outputs[k].dims.end(), first.dims.begin(), first.dims.end()))
      return InvalidArgument("inputs and outputs must share one shape");
  for (size_t k = n; k < total_in; ++k)
    if (!std::equal(call.inputs[k].dims.begin(), call.inputs[k].dims.end(), lane_dims.begin(), lane_dims.end()) ||
        !std::equal(call.outputs[k].dims.begin(), call.outputs[k].dims.end(), lane_dims.begin(), lane_dims.end()))
      return InvalidArgument("carries must have the input shape without the scan dimension");
  for (size_t r = 0; r < total_out; ++r)
    if (call.outputs[r].type != body->ValueType(body->results[r])) return InvalidArgument("result type mismatch");

  auto full_strides = RowMajorStrides(first.dims);
  auto lane_strides = RowMajorStrides(lane_dims);
  std::vector<Scalar> in(params), out(total_out), scratch(body->num_values());
  std::vector<int64_t> lane(lane_dims.size(), 0);
  if (NumElementsOf(lane_dims) == 0) return Status::Ok();
  do {
    int64_t lane_offset = LinearIndex(lane, lane_strides);
    std::vector<Scalar> carry(m);
    for (size_t c = 0; c < m; ++c)
      carry[c] = LoadScalar(call.inputs[n + c].type, call.inputs[n + c].At(lane_offset));
    int64_t base = 0;  // linear offset of this lane with the scan index at 0
    for (int64_t d = 0, l = 0; d < rank; ++d)
      if (d != dim) base += lane[l++] * full_strides[d];
    int64_t len = first.dims[dim];
    for (int64_t step = 0; step < len; ++step) {
      int64_t pos = reverse ? len - 1 - step : step;
      int64_t at = base + pos * full_strides[dim];
      for (size_t k = 0; k < n; ++k) in[k] = LoadScalar(call.inputs[k].type, call.inputs[k].At(at));
      for (size_t c = 0; c < m; ++c) in[n + c] = carry[c];
      RunScalarProgram(*body, in.data(), scratch.data(), out.data());
      for (size_t k = 0; k < n; ++k) StoreScalar(call.outputs[k].type, out[k], call.outputs[k].At(at));
      for (size_t c = 0; c < m; ++c) carry[c] = out[n + c];
    }
    for (size_t c = 0; c < m; ++c) StoreScalar(call.outputs[n + c].type, carry[c], call.outputs[n + c].At(lane_offset));
  } while (NextIndex(lane_dims, lane));
  return Status::Ok();
}

}  // namespace

// This file's kernels of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::Scan(const KernelCall& call) { return ref::ScanKernel(call); }

}  // namespace kiln::ref

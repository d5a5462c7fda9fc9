// Reference indexing kernels: dynamic_slice, dynamic_update_slice, gather,
// dynamic_gather and scatter. Index operands may have any integer type.
// Start indices are clamped as the spec says (dynamic slices, gather);
// scatter skips update elements whose result index is out of bounds.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/reference/kernels.h"
#include "kernels/scalar/scalar.h"
#include "kernels/reference/tensor_index.h"

namespace kiln::ref {


namespace {

std::string Err(const char* op, const std::string& msg) { return std::string(op) + ": " + msg; }

bool Contains(std::span<const int64_t> v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Checks a list of axes: each in [0, bound), no repeats.
bool UniqueAxes(std::span<const int64_t> axes, int64_t bound) {
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(bound, 0)), false);
  for (int64_t a : axes) {
    if (a < 0 || a >= bound || seen[a]) return false;
    seen[a] = true;
  }
  return true;
}

// Reads the variadic rank-0 start index operands inputs[first, first + n).
Status ReadStartScalars(const char* op, const KernelCall& call, size_t first, size_t n,
                        std::vector<int64_t>* starts) {
  if (call.inputs.size() != first + n)
    return InvalidArgument(Err(op, "expects one start index operand per operand dimension"));
  starts->resize(n);
  for (size_t d = 0; d < n; ++d) {
    const TensorRef& t = call.inputs[first + d];
    if (t.rank() != 0) return InvalidArgument(Err(op, "start indices must be rank-0 tensors"));
    std::vector<int64_t> v;
    KILN_RETURN_IF_ERROR(ReadIntegerTensor(t, Err(op, "start index"), &v));
    (*starts)[d] = v[0];
  }
  return Status::Ok();
}

// dynamic_slice: operand_index = clamp(0, start, dim - size) + result_index.
Status DynamicSlice(const KernelCall& call) {
  const char* op = "stablehlo.dynamic_slice";
  if (call.inputs.empty() || call.outputs.size() != 1) return InvalidArgument(Err(op, "bad arity"));
  const TensorRef& in = call.inputs[0];
  const TensorRef& out = call.outputs[0];
  KILN_RETURN_IF_ERROR(CheckStorage(in, Err(op, "operand")));
  KILN_RETURN_IF_ERROR(CheckStorage(out, Err(op, "result")));
  if (in.type != out.type) return InvalidArgument(Err(op, "operand and result element types differ"));
  std::vector<int64_t> starts;
  KILN_RETURN_IF_ERROR(ReadStartScalars(op, call, 1, in.dims.size(), &starts));
  auto sizes = call.params.Ints("slice_sizes");
  if (sizes.size() != in.dims.size() || out.dims.size() != in.dims.size())
    return InvalidArgument(Err(op, "slice_sizes size must equal operand and result rank"));
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0 || sizes[d] > in.dims[d] || out.dims[d] != sizes[d])
      return InvalidArgument(Err(op, "need 0 <= slice_sizes <= operand dims and result dims = slice_sizes"));
    starts[d] = std::clamp<int64_t>(starts[d], 0, in.dims[d] - sizes[d]);
  }
  auto strides = RowMajorStrides(in.dims);
  CopyByIndex(in, out, [&](std::span<const int64_t> ri) {
    int64_t src = 0;
    for (size_t d = 0; d < ri.size(); ++d) src += (starts[d] + ri[d]) * strides[d];
    return src;
  });
  return Status::Ok();
}

// dynamic_update_slice: result = operand with update written at the clamped
// start.
Status DynamicUpdateSlice(const KernelCall& call) {
  const char* op = "stablehlo.dynamic_update_slice";
  if (call.inputs.size() < 2 || call.outputs.size() != 1) return InvalidArgument(Err(op, "bad arity"));
  const TensorRef& in = call.inputs[0];
  const TensorRef& upd = call.inputs[1];
  const TensorRef& out = call.outputs[0];
  KILN_RETURN_IF_ERROR(CheckStorage(in, Err(op, "operand")));
  KILN_RETURN_IF_ERROR(CheckStorage(upd, Err(op, "update")));
  KILN_RETURN_IF_ERROR(CheckStorage(out, Err(op, "result")));
  if (in.type != out.type || upd.type != in.type)
    return InvalidArgument(Err(op, "operand, update and result element types differ"));
  if (!std::equal(in.dims.begin(), in.dims.end(), out.dims.begin(), out.dims.end()))
    return InvalidArgument(Err(op, "operand and result dims differ"));
  if (upd.rank() != in.rank()) return InvalidArgument(Err(op, "update rank differs from operand rank"));
  std::vector<int64_t> starts;
  KILN_RETURN_IF_ERROR(ReadStartScalars(op, call, 2, in.dims.size(), &starts));
  for (size_t d = 0; d < starts.size(); ++d) {
    if (upd.dims[d] > in.dims[d]) return InvalidArgument(Err(op, "update larger than operand"));
    starts[d] = std::clamp<int64_t>(starts[d], 0, in.dims[d] - upd.dims[d]);
  }
  const size_t eb = StorageBytes(in.type);
  const size_t bytes = static_cast<size_t>(in.NumElements()) * eb;
  if (bytes > 0) std::memmove(out.data, in.data, bytes);
  if (upd.NumElements() == 0) return Status::Ok();
  auto strides = RowMajorStrides(out.dims);
  std::vector<int64_t> ui(upd.dims.size(), 0);
  int64_t linear = 0;
  do {
    int64_t dst = 0;
    for (size_t d = 0; d < ui.size(); ++d) dst += (starts[d] + ui[d]) * strides[d];
    std::memcpy(out.At(dst), upd.At(linear), eb);
    ++linear;
  } while (NextIndex(upd.dims, ui));
  return Status::Ok();
}

// The dimension numbers gather and scatter share. For scatter, "offset" means
// update_window_dims, "collapsed" inserted_window_dims, "start_index_map"
// scatter_dims_to_operand_dims.
struct IndexDims {
  std::span<const int64_t> offset_dims, collapsed, operand_batching, indices_batching, start_index_map;
  int64_t index_vector_dim = 0;
};

// Validates the constraints gather and scatter share, given the operand,
// the indices tensor and the window sizes (gather: slice_sizes; scatter: the
// operand dims, as update windows only need to fit inside the operand).
Status CheckIndexDims(const char* op, const IndexDims& n, const TensorRef& operand,
                      const TensorRef& indices) {
  const int64_t r = operand.rank();
  if (static_cast<int64_t>(n.offset_dims.size() + n.collapsed.size() + n.operand_batching.size()) != r)
    return InvalidArgument(Err(op, "window dims + collapsed/inserted dims + batching dims must equal operand rank"));
  if (n.index_vector_dim < 0 || n.index_vector_dim > indices.rank())
    return InvalidArgument(Err(op, "index_vector_dim out of range"));
  const int64_t index_len = n.index_vector_dim < indices.rank() ? indices.dims[n.index_vector_dim] : 1;
  if (static_cast<int64_t>(n.start_index_map.size()) != index_len)
    return InvalidArgument(Err(op, "start_index_map / scatter_dims_to_operand_dims size must match the index vector"));
  std::vector<int64_t> dropped(n.collapsed.begin(), n.collapsed.end());
  dropped.insert(dropped.end(), n.operand_batching.begin(), n.operand_batching.end());
  if (!UniqueAxes(dropped, r)) return InvalidArgument(Err(op, "collapsed/inserted and batching dims must be unique operand axes"));
  std::vector<int64_t> mapped(n.start_index_map.begin(), n.start_index_map.end());
  mapped.insert(mapped.end(), n.operand_batching.begin(), n.operand_batching.end());
  if (!UniqueAxes(mapped, r)) return InvalidArgument(Err(op, "index map and batching dims must be unique operand axes"));
  if (n.operand_batching.size() != n.indices_batching.size())
    return InvalidArgument(Err(op, "operand and indices batching dims differ in count"));
  if (!UniqueAxes(n.indices_batching, indices.rank()) || Contains(n.indices_batching, n.index_vector_dim))
    return InvalidArgument(Err(op, "indices batching dims must be unique axes other than index_vector_dim"));
  for (size_t i = 0; i < n.operand_batching.size(); ++i)
    if (operand.dims[n.operand_batching[i]] != indices.dims[n.indices_batching[i]])
      return InvalidArgument(Err(op, "operand and indices batching dim sizes differ"));
  return Status::Ok();
}

// The index-space walk both ops do: for a result (gather) or update
// (scatter) multi-index `idx`, the operand index before adding the window
// offset is full_start_index + full_batching_index; `batch_axes` are the
// axes of idx not in offset_dims. Gather clamps the start, scatter does not.
class IndexMapper {
 public:
  IndexMapper(const IndexDims& n, const TensorRef& operand, const TensorRef& indices,
              std::vector<int64_t> index_values, std::span<const int64_t> idx_dims)
      : n_(n), operand_(operand), indices_(indices), values_(std::move(index_values)),
        index_strides_(RowMajorStrides(indices.dims)) {
    for (int64_t d = 0; d < static_cast<int64_t>(idx_dims.size()); ++d)
      if (!Contains(n.offset_dims, d)) batch_axes_.push_back(d);
    for (int64_t d = 0; d < operand.rank(); ++d)
      if (!Contains(n.collapsed, d) && !Contains(n.operand_batching, d)) window_axes_.push_back(d);
  }
  size_t num_batch_axes() const { return batch_axes_.size(); }
  std::span<const int64_t> batch_axes() const { return batch_axes_; }

  // Operand index of `idx`. With `clamp_sizes`, start indices are clamped to
  // [0, dim - size] (gather); otherwise they are used as they are (scatter),
  // and a sum past the int64 range saturates: it lies out of bounds either
  // way, and scatter skips it.
  void OperandIndex(std::span<const int64_t> idx, const std::vector<int64_t>* clamp_sizes,
                    std::vector<int64_t>& operand_index) const {
    const int64_t ivd = n_.index_vector_dim;
    std::vector<int64_t> batch_index;
    for (int64_t a : batch_axes_) batch_index.push_back(idx[a]);
    operand_index.assign(operand_.dims.size(), 0);
    // full_start_index: the index vector at batch_index, with ':' at ivd.
    std::vector<int64_t> at(indices_.dims.size(), 0);
    for (size_t k = 0; k < n_.start_index_map.size(); ++k) {
      for (int64_t d = 0, b = 0; d < indices_.rank(); ++d) at[d] = d == ivd ? int64_t(k) : batch_index[b++];
      int64_t start = values_[LinearIndex(at, index_strides_)];
      const int64_t od = n_.start_index_map[k];
      if (clamp_sizes) start = std::clamp<int64_t>(start, 0, operand_.dims[od] - (*clamp_sizes)[od]);
      Accumulate(operand_index[od], start);
    }
    // full_batching_index.
    for (size_t i = 0; i < n_.operand_batching.size(); ++i) {
      const int64_t ds = n_.indices_batching[i];
      Accumulate(operand_index[n_.operand_batching[i]], batch_index[ds - (ds < ivd ? 0 : 1)]);
    }
    // full_window_index: the offset dims of idx, in order, on the window axes.
    for (size_t w = 0; w < window_axes_.size(); ++w) Accumulate(operand_index[window_axes_[w]], idx[n_.offset_dims[w]]);
  }

 private:
  static void Accumulate(int64_t& sum, int64_t term) {
    if (__builtin_add_overflow(sum, term, &sum)) sum = term > 0 ? INT64_MAX : INT64_MIN;
  }

  const IndexDims& n_;
  const TensorRef& operand_;
  const TensorRef& indices_;
  std::vector<int64_t> values_;
  std::vector<int64_t> index_strides_;
  std::vector<int64_t> batch_axes_, window_axes_;
};

// Checks the batch axes of a result/updates shape against the indices shape
// (the indices dims without index_vector_dim, in order).
Status CheckBatchDims(const char* op, const IndexMapper& m, std::span<const int64_t> dims,
                      const TensorRef& indices, int64_t ivd) {
  std::vector<int64_t> expect;
  for (int64_t d = 0; d < indices.rank(); ++d)
    if (d != ivd) expect.push_back(indices.dims[d]);
  if (expect.size() != m.num_batch_axes()) return InvalidArgument(Err(op, "wrong number of batch/scatter dims"));
  for (size_t i = 0; i < expect.size(); ++i)
    if (dims[m.batch_axes()[i]] != expect[i])
      return InvalidArgument(Err(op, "batch/scatter dim sizes differ from the indices dims"));
  return Status::Ok();
}

IndexDims GatherDims(const KernelParams& p) {
  return {p.Ints("offset_dims"), p.Ints("collapsed_slice_dims"), p.Ints("operand_batching_dims"),
          p.Ints("start_indices_batching_dims"), p.Ints("start_index_map"), p.Int("index_vector_dim", -1)};
}

Status GatherImpl(const char* op, const KernelCall& call, std::vector<int64_t> slice_sizes) {
  const TensorRef& operand = call.inputs[0];
  const TensorRef& indices = call.inputs[1];
  const TensorRef& out = call.outputs[0];
  KILN_RETURN_IF_ERROR(CheckStorage(operand, Err(op, "operand")));
  KILN_RETURN_IF_ERROR(CheckStorage(out, Err(op, "result")));
  if (operand.type != out.type) return InvalidArgument(Err(op, "operand and result element types differ"));
  const IndexDims n = GatherDims(call.params);
  KILN_RETURN_IF_ERROR(CheckIndexDims(op, n, operand, indices));
  std::vector<int64_t> values;
  KILN_RETURN_IF_ERROR(ReadIntegerTensor(indices, Err(op, "start_indices"), &values));
  if (slice_sizes.size() != operand.dims.size())
    return InvalidArgument(Err(op, "slice_sizes size must equal operand rank"));
  for (size_t d = 0; d < slice_sizes.size(); ++d) {
    if (slice_sizes[d] < 0 || slice_sizes[d] > operand.dims[d])
      return InvalidArgument(Err(op, "need 0 <= slice_sizes <= operand dims"));
    if ((Contains(n.collapsed, d) || Contains(n.operand_batching, d)) && slice_sizes[d] > 1)
      return InvalidArgument(Err(op, "collapsed and batching dims need slice size <= 1"));
  }
  if (!UniqueAxes(n.offset_dims, out.rank()) || !std::is_sorted(n.offset_dims.begin(), n.offset_dims.end()))
    return InvalidArgument(Err(op, "offset_dims must be sorted unique result axes"));
  IndexMapper m(n, operand, indices, std::move(values), out.dims);
  KILN_RETURN_IF_ERROR(CheckBatchDims(op, m, out.dims, indices, n.index_vector_dim));
  // Offset dims sizes: slice_sizes without collapsed and batching dims.
  for (int64_t d = 0, w = 0; d < operand.rank(); ++d) {
    if (Contains(n.collapsed, d) || Contains(n.operand_batching, d)) continue;
    if (out.dims[n.offset_dims[w++]] != slice_sizes[d])
      return InvalidArgument(Err(op, "offset dim sizes must equal slice_sizes"));
  }
  auto strides = RowMajorStrides(operand.dims);
  std::vector<int64_t> oi;
  bool out_of_bounds = false;  // only possible for size-0 collapsed slices
  const std::vector<uint8_t> zero(StorageBytes(out.type), 0);
  CopyByIndex(
      operand, out,
      [&](std::span<const int64_t> ri) -> int64_t {
    m.OperandIndex(ri, &slice_sizes, oi);
    for (size_t d = 0; d < oi.size(); ++d)
      if (oi[d] < 0 || oi[d] >= operand.dims[d]) {
        out_of_bounds = true;
        return -1;
      }
    return LinearIndex(oi, strides);
  },
      zero.data());
  if (out_of_bounds) return InvalidArgument(Err(op, "a gathered index is outside the operand"));
  return Status::Ok();
}

Status Gather(const KernelCall& call) {
  if (call.inputs.size() != 2 || call.outputs.size() != 1)
    return InvalidArgument("stablehlo.gather: expects 2 inputs and 1 output");
  auto s = call.params.Ints("slice_sizes");
  return GatherImpl("stablehlo.gather", call, std::vector<int64_t>(s.begin(), s.end()));
}

Status DynamicGather(const KernelCall& call) {
  const char* op = "stablehlo.dynamic_gather";
  if (call.inputs.size() != 3 || call.outputs.size() != 1)
    return InvalidArgument(Err(op, "expects 3 inputs and 1 output"));
  std::vector<int64_t> sizes;
  KILN_RETURN_IF_ERROR(ReadIntegerTensor(call.inputs[2], Err(op, "slice_sizes"), &sizes));
  return GatherImpl(op, call, std::move(sizes));
}

// scatter: results start as the inputs (converted to the result types);
// then, for each update index in row-major order (the schedule is
// implementation-defined), results[result_index] = update_computation(
// results[result_index]..., updates[update_index]...) where result_index is
// in bounds; out-of-bounds update elements are skipped.
Status Scatter(const KernelCall& call) {
  const char* op = "stablehlo.scatter";
  const size_t num = call.outputs.size();
  if (num == 0 || call.inputs.size() != 2 * num + 1)
    return InvalidArgument(Err(op, "expects N inputs, scatter_indices, N updates and N results"));
  const ScalarProgram* prog = call.params.Program("update_computation");
  if (prog == nullptr) return InvalidArgument(Err(op, "missing update_computation"));
  KILN_RETURN_IF_ERROR(VerifyScalarProgram(*prog));
  if (prog->param_types.size() != 2 * num || prog->results.size() != num)
    return InvalidArgument(Err(op, "update_computation must take 2N params and return N results"));
  std::span<const TensorRef> inputs = call.inputs.subspan(0, num);
  const TensorRef& indices = call.inputs[num];
  std::span<const TensorRef> updates = call.inputs.subspan(num + 1, num);
  const TensorRef& in0 = inputs[0];
  const TensorRef& upd0 = updates[0];
  for (size_t i = 0; i < num; ++i) {
    KILN_RETURN_IF_ERROR(CheckStorage(inputs[i], Err(op, "input")));
    KILN_RETURN_IF_ERROR(CheckStorage(updates[i], Err(op, "update")));
    KILN_RETURN_IF_ERROR(CheckStorage(call.outputs[i], Err(op, "result")));
    auto same = [](const TensorRef& a, const TensorRef& b) {
      return std::equal(a.dims.begin(), a.dims.end(), b.dims.begin(), b.dims.end());
    };
    if (!same(inputs[i], in0) || !same(call.outputs[i], in0) || !same(updates[i], upd0))
      return InvalidArgument(Err(op, "inputs/results or updates differ in shape"));
    if (updates[i].type != inputs[i].type) return InvalidArgument(Err(op, "update and input types differ"));
    if (call.outputs[i].type != prog->param_types[i] || call.outputs[i].type != prog->param_types[num + i] ||
        prog->ValueType(prog->results[i]) != call.outputs[i].type)
      return InvalidArgument(Err(op, "result types must match update_computation's types"));
  }
  IndexDims n{call.params.Ints("update_window_dims"), call.params.Ints("inserted_window_dims"),
              call.params.Ints("input_batching_dims"), call.params.Ints("scatter_indices_batching_dims"),
              call.params.Ints("scatter_dims_to_operand_dims"), call.params.Int("index_vector_dim", -1)};
  KILN_RETURN_IF_ERROR(CheckIndexDims(op, n, in0, indices));
  std::vector<int64_t> values;
  KILN_RETURN_IF_ERROR(ReadIntegerTensor(indices, Err(op, "scatter_indices"), &values));
  if (!UniqueAxes(n.offset_dims, upd0.rank()) || !std::is_sorted(n.offset_dims.begin(), n.offset_dims.end()))
    return InvalidArgument(Err(op, "update_window_dims must be sorted unique update axes"));
  IndexMapper m(n, in0, indices, std::move(values), upd0.dims);
  KILN_RETURN_IF_ERROR(CheckBatchDims(op, m, upd0.dims, indices, n.index_vector_dim));
  for (int64_t d = 0, w = 0; d < in0.rank(); ++d) {
    if (Contains(n.collapsed, d) || Contains(n.operand_batching, d)) continue;
    if (upd0.dims[n.offset_dims[w++]] > in0.dims[d])
      return InvalidArgument(Err(op, "update window larger than the input"));
  }

  // results = inputs, converted to the result element types.
  for (size_t i = 0; i < num; ++i) {
    const TensorRef& in = inputs[i];
    const TensorRef& out = call.outputs[i];
    for (int64_t e = 0; e < in.NumElements(); ++e)
      StoreScalar(out.type, ConvertScalar(in.type, out.type, LoadScalar(in.type, in.At(e))), out.At(e));
  }
  if (upd0.NumElements() == 0) return Status::Ok();
  auto strides = RowMajorStrides(in0.dims);
  std::vector<Scalar> params(2 * num), scratch(prog->num_values()), results(num);
  std::vector<int64_t> ui(upd0.dims.size(), 0), ri;
  int64_t linear = 0;
  do {
    m.OperandIndex(ui, nullptr, ri);
    bool in_bounds = true;
    for (size_t d = 0; d < ri.size(); ++d) in_bounds = in_bounds && ri[d] >= 0 && ri[d] < in0.dims[d];
    if (in_bounds) {
      const int64_t dst = LinearIndex(ri, strides);
      for (size_t i = 0; i < num; ++i) {
        const TensorRef& out = call.outputs[i];
        params[i] = LoadScalar(out.type, out.At(dst));
        const TensorRef& u = updates[i];
        params[num + i] = ConvertScalar(u.type, prog->param_types[num + i], LoadScalar(u.type, u.At(linear)));
      }
      RunScalarProgram(*prog, params.data(), scratch.data(), results.data());
      for (size_t i = 0; i < num; ++i) StoreScalar(call.outputs[i].type, results[i], call.outputs[i].At(dst));
    }
    ++linear;
  } while (NextIndex(upd0.dims, ui));
  return Status::Ok();
}

}  // namespace

// This file's kernels of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::DynamicGather(const KernelCall& call) { return ref::DynamicGather(call); }
Status kernel::DynamicSlice(const KernelCall& call) { return ref::DynamicSlice(call); }
Status kernel::DynamicUpdateSlice(const KernelCall& call) { return ref::DynamicUpdateSlice(call); }
Status kernel::Gather(const KernelCall& call) { return ref::Gather(call); }
Status kernel::Scatter(const KernelCall& call) { return ref::Scatter(call); }

}  // namespace kiln::ref

// Reference data-movement kernels that rearrange elements without computing
// on them: kiln.copy, broadcast_in_dim, transpose, reshape, slice,
// concatenate, reverse (pad, iota and bitcast_convert live in
// data_movement_pad.cc; gather, scatter and dynamic slices in indexing.cc).
// Every kernel walks the result's index space and copies the element bytes of
// the operand element the spec maps to it.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/reference/kernels.h"
#include "kernels/reference/tensor_index.h"

namespace kiln::ref {

namespace {

// broadcast_in_dim: operand_index[d] = dim(operand, d) == 1 ? 0
//                                      : result_index[broadcast_dimensions[d]].
Status BroadcastImpl(const char* op, const TensorRef& in, const TensorRef& out,
                     std::span<const int64_t> bdims) {
  if (static_cast<int64_t>(bdims.size()) != in.rank())
    return InvalidArgument(std::string(op) + ": broadcast_dimensions size must equal operand rank");
  std::vector<bool> used(out.dims.size(), false);
  for (int64_t d = 0; d < in.rank(); ++d) {
    int64_t b = bdims[d];
    if (b < 0 || b >= out.rank() || used[b])
      return InvalidArgument(std::string(op) + ": broadcast_dimensions out of range or repeated");
    used[b] = true;
    if (in.dims[d] != 1 && in.dims[d] != out.dims[b])
      return InvalidArgument(std::string(op) + ": operand dim " + std::to_string(d) +
                             " is neither 1 nor the result dim");
  }
  auto in_strides = RowMajorStrides(in.dims);
  CopyByIndex(in, out, [&](std::span<const int64_t> ri) {
    int64_t src = 0;
    for (int64_t d = 0; d < in.rank(); ++d)
      src += (in.dims[d] == 1 ? 0 : ri[bdims[d]]) * in_strides[d];
    return src;
  });
  return Status::Ok();
}

Status BroadcastInDim(const KernelCall& call) {
  KILN_RETURN_IF_ERROR(CheckUnary(call, "stablehlo.broadcast_in_dim", 1));
  return BroadcastImpl("stablehlo.broadcast_in_dim", call.inputs[0], call.outputs[0],
                       call.params.Ints("broadcast_dimensions"));
}

Status DynamicBroadcastInDim(const KernelCall& call) {
  const char* op = "stablehlo.dynamic_broadcast_in_dim";
  KILN_RETURN_IF_ERROR(CheckUnary(call, op, 2));
  KILN_RETURN_IF_ERROR(CheckShapeOperand(call.inputs[1], call.outputs[0], op));
  return BroadcastImpl(op, call.inputs[0], call.outputs[0], call.params.Ints("broadcast_dimensions"));
}

// transpose: result_index[d] = operand_index[permutation[d]].
Status Transpose(const KernelCall& call) {
  const char* op = "stablehlo.transpose";
  KILN_RETURN_IF_ERROR(CheckUnary(call, op, 1));
  const TensorRef& in = call.inputs[0];
  const TensorRef& out = call.outputs[0];
  auto perm = call.params.Ints("permutation");
  if (static_cast<int64_t>(perm.size()) != in.rank() || out.rank() != in.rank())
    return InvalidArgument(std::string(op) + ": permutation size must equal operand and result rank");
  std::vector<bool> used(perm.size(), false);
  for (size_t d = 0; d < perm.size(); ++d) {
    if (perm[d] < 0 || perm[d] >= in.rank() || used[perm[d]])
      return InvalidArgument(std::string(op) + ": permutation is not a permutation of the axes");
    used[perm[d]] = true;
    if (out.dims[d] != in.dims[perm[d]])
      return InvalidArgument(std::string(op) + ": result dims must be the permuted operand dims");
  }
  auto in_strides = RowMajorStrides(in.dims);
  CopyByIndex(in, out, [&](std::span<const int64_t> ri) {
    int64_t src = 0;
    for (size_t d = 0; d < perm.size(); ++d) src += ri[d] * in_strides[perm[d]];
    return src;
  });
  return Status::Ok();
}

// reshape keeps the row-major order: a plain byte copy.
Status ReshapeImpl(const char* op, const TensorRef& in, const TensorRef& out) {
  if (in.NumElements() != out.NumElements())
    return InvalidArgument(std::string(op) + ": operand and result element counts differ");
  const size_t bytes = static_cast<size_t>(in.NumElements()) * StorageBytes(in.type);
  if (bytes > 0) std::memmove(out.data, in.data, bytes);
  return Status::Ok();
}

Status Reshape(const KernelCall& call) {
  KILN_RETURN_IF_ERROR(CheckUnary(call, "stablehlo.reshape", 1));
  return ReshapeImpl("stablehlo.reshape", call.inputs[0], call.outputs[0]);
}

Status DynamicReshape(const KernelCall& call) {
  const char* op = "stablehlo.dynamic_reshape";
  KILN_RETURN_IF_ERROR(CheckUnary(call, op, 2));
  KILN_RETURN_IF_ERROR(CheckShapeOperand(call.inputs[1], call.outputs[0], op));
  return ReshapeImpl(op, call.inputs[0], call.outputs[0]);
}

// slice: operand_index = start + result_index * stride.
Status SliceImpl(const char* op, const TensorRef& in, const TensorRef& out,
                 std::span<const int64_t> start, std::span<const int64_t> limit,
                 std::span<const int64_t> strides) {
  const size_t rank = in.dims.size();
  if (start.size() != rank || limit.size() != rank || strides.size() != rank || out.dims.size() != rank)
    return InvalidArgument(std::string(op) +
                           ": start, limit and strides sizes must equal operand and result rank");
  for (size_t d = 0; d < rank; ++d) {
    if (!(0 <= start[d] && start[d] <= limit[d] && limit[d] <= in.dims[d]))
      return InvalidArgument(std::string(op) + ": need 0 <= start <= limit <= dim in dimension " +
                             std::to_string(d));
    if (strides[d] <= 0) return InvalidArgument(std::string(op) + ": strides must be positive");
    if (out.dims[d] != SliceExtent(start[d], limit[d], strides[d]))
      return InvalidArgument(std::string(op) + ": result dim " + std::to_string(d) +
                             " must be ceil((limit - start) / stride)");
  }
  auto in_strides = RowMajorStrides(in.dims);
  CopyByIndex(in, out, [&](std::span<const int64_t> ri) {
    int64_t src = 0;
    for (size_t d = 0; d < rank; ++d) src += (start[d] + ri[d] * strides[d]) * in_strides[d];
    return src;
  });
  return Status::Ok();
}

Status Slice(const KernelCall& call) {
  const char* op = "stablehlo.slice";
  KILN_RETURN_IF_ERROR(CheckUnary(call, op, 1));
  const TensorRef& in = call.inputs[0];
  // strides may be omitted by the pretty syntax: default all ones.
  std::vector<int64_t> strides(in.dims.size(), 1);
  if (call.params.Has("strides")) {
    auto s = call.params.Ints("strides");
    strides.assign(s.begin(), s.end());
  }
  return SliceImpl(op, in, call.outputs[0], call.params.Ints("start_indices"),
                   call.params.Ints("limit_indices"), strides);
}

Status RealDynamicSlice(const KernelCall& call) {
  const char* op = "stablehlo.real_dynamic_slice";
  KILN_RETURN_IF_ERROR(CheckUnary(call, op, 4));
  std::vector<int64_t> start, limit, strides;
  KILN_RETURN_IF_ERROR(ReadIntegerTensor(call.inputs[1], "stablehlo.real_dynamic_slice start_indices", &start));
  KILN_RETURN_IF_ERROR(ReadIntegerTensor(call.inputs[2], "stablehlo.real_dynamic_slice limit_indices", &limit));
  KILN_RETURN_IF_ERROR(ReadIntegerTensor(call.inputs[3], "stablehlo.real_dynamic_slice strides", &strides));
  return SliceImpl(op, call.inputs[0], call.outputs[0], start, limit, strides);
}

// concatenate: result[..., id, ...] = inputs[k][..., id - (d0 + ... + dk-1), ...].
Status Concatenate(const KernelCall& call) {
  const char* op = "stablehlo.concatenate";
  if (call.inputs.empty() || call.outputs.size() != 1)
    return InvalidArgument(std::string(op) + ": expects at least 1 input and 1 output");
  const TensorRef& out = call.outputs[0];
  KILN_RETURN_IF_ERROR(CheckStorage(out, "stablehlo.concatenate result"));
  const int64_t dim = call.params.Int("dimension", -1);
  if (dim < 0 || dim >= out.rank())
    return InvalidArgument(std::string(op) + ": dimension out of range");
  int64_t total = 0;
  for (const TensorRef& in : call.inputs) {
    KILN_RETURN_IF_ERROR(CheckStorage(in, "stablehlo.concatenate input"));
    if (in.type != out.type) return InvalidArgument(std::string(op) + ": element types differ");
    if (in.rank() != out.rank()) return InvalidArgument(std::string(op) + ": ranks differ");
    for (int64_t d = 0; d < out.rank(); ++d)
      if (d != dim && in.dims[d] != out.dims[d])
        return InvalidArgument(std::string(op) + ": dims differ outside the concatenated dimension");
    total += in.dims[dim];
  }
  if (total != out.dims[dim])
    return InvalidArgument(std::string(op) + ": result dim must be the sum of the input dims");
  // Copy each input into its band of the result.
  const size_t eb = StorageBytes(out.type);
  auto out_strides = RowMajorStrides(out.dims);
  int64_t offset = 0;
  for (const TensorRef& in : call.inputs) {
    if (in.NumElements() > 0) {
      std::vector<int64_t> idx(in.dims.size(), 0);
      int64_t linear = 0;
      do {
        std::vector<int64_t> oi = idx;
        oi[dim] += offset;
        std::memcpy(out.At(LinearIndex(oi, out_strides)), in.At(linear), eb);
        ++linear;
      } while (NextIndex(in.dims, idx));
    }
    offset += in.dims[dim];
  }
  return Status::Ok();
}

// reverse: operand_index[d] = dim(d) - result_index[d] - 1 for d in dimensions.
Status Reverse(const KernelCall& call) {
  const char* op = "stablehlo.reverse";
  KILN_RETURN_IF_ERROR(CheckUnary(call, op, 1));
  const TensorRef& in = call.inputs[0];
  const TensorRef& out = call.outputs[0];
  if (!std::equal(in.dims.begin(), in.dims.end(), out.dims.begin(), out.dims.end()))
    return InvalidArgument(std::string(op) + ": operand and result dims differ");
  std::vector<bool> rev(in.dims.size(), false);
  for (int64_t d : call.params.Ints("dimensions")) {
    if (d < 0 || d >= in.rank() || rev[d])
      return InvalidArgument(std::string(op) + ": dimensions out of range or repeated");
    rev[d] = true;
  }
  auto strides = RowMajorStrides(in.dims);
  CopyByIndex(in, out, [&](std::span<const int64_t> ri) {
    int64_t src = 0;
    for (size_t d = 0; d < rev.size(); ++d) src += (rev[d] ? in.dims[d] - 1 - ri[d] : ri[d]) * strides[d];
    return src;
  });
  return Status::Ok();
}

// kiln.copy: byte copy of input 0 into output 0 (reshape, views).
Status Copy(const KernelCall& call) {
  if (call.inputs.size() != 1 || call.outputs.size() != 1)
    return InvalidArgument("kiln.copy: expects 1 input and 1 output");
  const TensorRef& in = call.inputs[0];
  const TensorRef& out = call.outputs[0];
  KILN_RETURN_IF_ERROR(CheckStorage(in, "kiln.copy input"));
  KILN_RETURN_IF_ERROR(CheckStorage(out, "kiln.copy output"));
  if (in.type != out.type) return InvalidArgument("kiln.copy: element types differ");
  if (in.NumElements() != out.NumElements())
    return InvalidArgument("kiln.copy: element counts differ");
  const size_t bytes = static_cast<size_t>(in.NumElements()) * StorageBytes(in.type);
  if (bytes > 0) std::memmove(out.data, in.data, bytes);
  return Status::Ok();
}

}  // namespace

// This file's kernels of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::Copy(const KernelCall& call) { return ref::Copy(call); }
Status kernel::BroadcastInDim(const KernelCall& call) { return ref::BroadcastInDim(call); }
Status kernel::Concatenate(const KernelCall& call) { return ref::Concatenate(call); }
Status kernel::DynamicBroadcastInDim(const KernelCall& call) { return ref::DynamicBroadcastInDim(call); }
Status kernel::DynamicReshape(const KernelCall& call) { return ref::DynamicReshape(call); }
Status kernel::RealDynamicSlice(const KernelCall& call) { return ref::RealDynamicSlice(call); }
Status kernel::Reshape(const KernelCall& call) { return ref::Reshape(call); }
Status kernel::Reverse(const KernelCall& call) { return ref::Reverse(call); }
Status kernel::Slice(const KernelCall& call) { return ref::Slice(call); }
Status kernel::Transpose(const KernelCall& call) { return ref::Transpose(call); }

}  // namespace kiln::ref

// Fast stablehlo.scatter for the row scatter that JAX's x.at[ids].set(u) /
// .add(u) and torch's index_copy_ / index_add_ lower to: one operand,
// scatter_dims_to_operand_dims = inserted_window_dims = the operand's
// leading k axes, the update windows whole rows of the remaining axes,
// placed last in the updates, no batching dims, the index vector the
// indices' last axis (or implicit, for k = 1), and an update computation
// that replaces (returns the update) or adds. The result is the operand
// with each update row, in the updates' order, written over or added to
// the operand row its indices name; a row whose indices fall outside the
// operand is skipped, as the reference skips each of its elements. Rows
// are applied one after another, so repeated indices give the reference's
// bits. Any other scatter, or a call whose shapes don't have this form,
// runs the reference kernel.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/cpu/kernels.h"
#include "kernels/cpu/row_indexing.h"
#include "kernels/reference/registry.h"
#include "kernels/reference/tensor_index.h"

namespace kiln::cpu {
namespace {

enum class RowUpdate { kNone, kReplace, kAdd };

// What the update computation does to a row: returns its update param, or
// adds the two (operand value + update), of one type.
RowUpdate UpdateKind(const ScalarProgram* prog) {
  if (prog == nullptr || prog->param_types.size() != 2 || prog->results.size() != 1 ||
      prog->param_types[0] != prog->param_types[1])
    return RowUpdate::kNone;
  if (prog->results[0] == 1) return RowUpdate::kReplace;
  if (prog->instrs.size() == 1 && prog->results[0] == 2) {
    const ScalarInstr& in = prog->instrs[0];
    const ElementType t = prog->param_types[0];
    const bool add_type = t == ElementType::kF32 || t == ElementType::kF64 || t == ElementType::kSI32 ||
                          t == ElementType::kUI32 || t == ElementType::kSI64 || t == ElementType::kUI64;
    if (in.op == ScalarOp::kAdd && in.type == t && in.num_operands == 2 && in.operands[0] == 0 &&
        in.operands[1] == 1 && add_type)
      return RowUpdate::kAdd;
  }
  return RowUpdate::kNone;
}

// The row-scatter form, checked against the call's shapes: k (the number of
// indexed leading axes), or 0 when the call has another form.
int64_t RowScatterAxes(const KernelCall& call) {
  const KernelParams& p = call.params;
  if (call.inputs.size() != 3 || call.outputs.size() != 1) return 0;
  const TensorRef& operand = call.inputs[0];
  const TensorRef& indices = call.inputs[1];
  const TensorRef& updates = call.inputs[2];
  const TensorRef& out = call.outputs[0];
  const auto map = p.Ints("scatter_dims_to_operand_dims");
  const int64_t k = static_cast<int64_t>(map.size());
  const int64_t ivd = p.Int("index_vector_dim", -1);
  const ScalarProgram* prog = p.Program("update_computation");
  if (k == 0 || k > operand.rank() || !IsIota(map, 0) || !IsIota(p.Ints("inserted_window_dims"), 0) ||
      p.Ints("inserted_window_dims").size() != map.size() || !p.Ints("input_batching_dims").empty() ||
      !p.Ints("scatter_indices_batching_dims").empty() || operand.type != out.type ||
      updates.type != operand.type || prog == nullptr || prog->param_types[0] != operand.type ||
      !std::equal(out.dims.begin(), out.dims.end(), operand.dims.begin(), operand.dims.end()))
    return 0;
  const int64_t batch_rank = RowIndexBatchRank(indices, ivd, k);
  if (batch_rank < 0) return 0;
  const int64_t row_rank = operand.rank() - k;
  if (updates.rank() != batch_rank + row_rank || !IsIota(p.Ints("update_window_dims"), batch_rank) ||
      static_cast<int64_t>(p.Ints("update_window_dims").size()) != row_rank)
    return 0;
  for (int64_t d = 0; d < batch_rank; ++d)
    if (updates.dims[d] != indices.dims[d]) return 0;
  for (int64_t d = 0; d < row_rank; ++d)
    if (updates.dims[batch_rank + d] != operand.dims[k + d]) return 0;
  return k;
}

template <typename T>
void AddRow(uint8_t* dst, const uint8_t* src, int64_t n) {
  T* d = reinterpret_cast<T*>(dst);
  const T* s = reinterpret_cast<const T*>(src);
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;  // wrapping, as the reference's integer add
      d[i] = static_cast<T>(static_cast<U>(d[i]) + static_cast<U>(s[i]));
    } else {
      d[i] = d[i] + s[i];
    }
  }
}

}  // namespace

bool ScatterApplies(const KernelParams& params) {
  return UpdateKind(params.Program("update_computation")) != RowUpdate::kNone;
}

Status Scatter(const KernelCall& call) {
  auto reference = [&] { return ref::FindReferenceKernel("stablehlo.scatter")(call); };
  const RowUpdate kind = UpdateKind(call.params.Program("update_computation"));
  const int64_t k = kind == RowUpdate::kNone ? 0 : RowScatterAxes(call);
  if (k == 0) return reference();
  const TensorRef& operand = call.inputs[0];
  const TensorRef& indices = call.inputs[1];
  const TensorRef& updates = call.inputs[2];
  const TensorRef& out = call.outputs[0];
  for (const TensorRef* t : {&operand, &indices, &updates, &out})
    if (!ref::CheckStorage(*t, "stablehlo.scatter").ok()) return reference();  // its error
  const size_t es = StorageBytes(out.type);
  int64_t row = 1;
  for (int64_t d = k; d < operand.rank(); ++d) row *= operand.dims[d];
  const size_t row_bytes = static_cast<size_t>(row) * es;
  const int64_t rows = indices.NumElements() / k;
  if (out.data != operand.data) std::memcpy(out.data, operand.data, static_cast<size_t>(operand.NumElements()) * es);
  auto apply = [&](auto index_type) {
    using I = decltype(index_type);
    const I* idx = reinterpret_cast<const I*>(indices.data);
    for (int64_t r = 0; r < rows; ++r) {
      int64_t start = 0;  // in rows of the operand
      bool inside = true;
      for (int64_t j = 0; j < k && inside; ++j) {
        const I v = idx[r * k + j];
        if constexpr (std::is_signed_v<I>) inside = v >= 0;
        inside = inside && static_cast<uint64_t>(v) < static_cast<uint64_t>(operand.dims[j]);
        start = start * operand.dims[j] + static_cast<int64_t>(v);
      }
      if (!inside) continue;
      uint8_t* dst = out.data + static_cast<size_t>(start) * row_bytes;
      const uint8_t* src = updates.data + static_cast<size_t>(r) * row_bytes;
      if (kind == RowUpdate::kReplace) {
        std::memmove(dst, src, row_bytes);
        continue;
      }
      switch (out.type) {
        case ElementType::kF32: AddRow<float>(dst, src, row); break;
        case ElementType::kF64: AddRow<double>(dst, src, row); break;
        case ElementType::kSI32: AddRow<int32_t>(dst, src, row); break;
        case ElementType::kUI32: AddRow<uint32_t>(dst, src, row); break;
        case ElementType::kSI64: AddRow<int64_t>(dst, src, row); break;
        default: AddRow<uint64_t>(dst, src, row); break;  // kUI64 (UpdateKind admits no other)
      }
    }
  };
  if (!WithIndexType(indices.type, apply)) return reference();  // i1 and sub-byte indices: the reference reads them
  return Status::Ok();
}

}  // namespace kiln::cpu

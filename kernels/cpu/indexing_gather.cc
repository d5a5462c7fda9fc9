// Fast stablehlo.gather for the row gather that an embedding lookup lowers
// to (JAX's table[ids], torch's Embedding): start_index_map = the operand's
// leading k axes, those axes collapsed with slice size 1, the remaining axes
// taken whole and placed last in the result, no batching dims, the index
// vector the indices' last axis (or implicit, for k = 1). Each gathered
// slice is then one contiguous run of the operand, copied with memcpy; the
// starts are clamped into the operand as the spec (and the reference) do.
// Any other gather, or a call whose shapes don't have this form, runs the
// reference kernel. The reference builds the operand index element by
// element, with allocations per element: about 200 ns an element.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/common/parallel.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cpu/row_indexing.h"
#include "kernels/reference/registry.h"
#include "kernels/reference/tensor_index.h"

namespace kiln::cpu {
namespace {

// The row-gather form, checked against the call's shapes: k (the number of
// indexed leading axes), or 0 when the call has another form.
int64_t RowGatherAxes(const KernelCall& call) {
  const KernelParams& p = call.params;
  const TensorRef& operand = call.inputs[0];
  const TensorRef& indices = call.inputs[1];
  const TensorRef& out = call.outputs[0];
  const auto map = p.Ints("start_index_map");
  const int64_t k = static_cast<int64_t>(map.size());
  const auto sizes = p.Ints("slice_sizes");
  const int64_t ivd = p.Int("index_vector_dim", -1);
  if (k == 0 || k > operand.rank() || !IsIota(map, 0) || !IsIota(p.Ints("collapsed_slice_dims"), 0) ||
      p.Ints("collapsed_slice_dims").size() != map.size() || !p.Ints("operand_batching_dims").empty() ||
      !p.Ints("start_indices_batching_dims").empty() || operand.type != out.type ||
      static_cast<int64_t>(sizes.size()) != operand.rank())
    return 0;
  for (int64_t d = 0; d < operand.rank(); ++d)
    if (sizes[d] != (d < k ? 1 : operand.dims[d]) || operand.dims[d] < 1) return 0;
  // The indices' batch axes: all but the index vector (last, or implicit for k = 1).
  const int64_t batch_rank = RowIndexBatchRank(indices, ivd, k);
  if (batch_rank < 0) return 0;
  const int64_t row_rank = operand.rank() - k;
  if (out.rank() != batch_rank + row_rank || !IsIota(p.Ints("offset_dims"), batch_rank) ||
      static_cast<int64_t>(p.Ints("offset_dims").size()) != row_rank)
    return 0;
  for (int64_t d = 0; d < batch_rank; ++d)
    if (out.dims[d] != indices.dims[d]) return 0;
  for (int64_t d = 0; d < row_rank; ++d)
    if (out.dims[batch_rank + d] != operand.dims[k + d]) return 0;
  return k;
}

}  // namespace

Status Gather(const KernelCall& call) {
  if (call.inputs.size() != 2 || call.outputs.size() != 1)
    return InvalidArgument("stablehlo.gather: expects 2 inputs and 1 output");
  const TensorRef& operand = call.inputs[0];
  const TensorRef& out = call.outputs[0];
  KILN_RETURN_IF_ERROR(ref::CheckStorage(operand, "stablehlo.gather operand"));
  KILN_RETURN_IF_ERROR(ref::CheckStorage(out, "stablehlo.gather result"));
  const int64_t k = RowGatherAxes(call);
  if (k == 0) return ref::FindReferenceKernel("stablehlo.gather")(call);
  const TensorRef& indices = call.inputs[1];
  KILN_RETURN_IF_ERROR(ref::CheckStorage(indices, "stablehlo.gather start_indices"));
  if (!IsInteger(indices.type)) return InvalidArgument("stablehlo.gather start_indices: must have an integer type");
  // A row: the operand's axes after the k indexed ones (k = 1: one row of the table).
  int64_t row = 1;
  for (int64_t d = k; d < operand.rank(); ++d) row *= operand.dims[d];
  const size_t row_bytes = static_cast<size_t>(row) * StorageBytes(out.type);
  const int64_t rows = indices.NumElements() / k;
  // Rows per task: about 256 KB of copying each. (64 KB tasks split an
  // embedding bag's 256 KB gather over two cores, and the reduce after it
  // then read half its input from the other core's cache: at two threads
  // the pair took 23 us instead of 13.)
  const int64_t per_task = std::max<int64_t>(1, int64_t{1 << 18} / std::max<int64_t>(1, static_cast<int64_t>(row_bytes)));
  // The indices read in their own type (a generic per-element load cost
  // more than copying an embedding row); ui64 values above INT64_MAX
  // saturate, so clamping still gives the last row, as in the reference.
  auto copy_rows = [&](auto index_type) {
    using I = decltype(index_type);
    const I* idx = reinterpret_cast<const I*>(indices.data);
    ParallelFor(call.runner, (rows + per_task - 1) / per_task, [&](int64_t t, int) {
      for (int64_t r = t * per_task; r < std::min(rows, (t + 1) * per_task); ++r) {
        int64_t start = 0;  // in rows of the operand
        for (int64_t j = 0; j < k; ++j) {
          const I v = idx[r * k + j];
          int64_t i = static_cast<int64_t>(v);
          if constexpr (std::is_same_v<I, uint64_t>) i = v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : i;
          start = start * operand.dims[j] + std::clamp<int64_t>(i, 0, operand.dims[j] - 1);
        }
        std::memcpy(out.data + r * row_bytes, operand.data + start * row_bytes, row_bytes);
      }
    });
  };
  if (!WithIndexType(indices.type, copy_rows))
    return ref::FindReferenceKernel("stablehlo.gather")(call);  // i1, i2, i4 ...: the reference reads them
  return Status::Ok();
}

}  // namespace kiln::cpu

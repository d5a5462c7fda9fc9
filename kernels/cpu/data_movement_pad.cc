// stablehlo.pad with non-negative edge padding and no interior padding (a
// convolution's zero point moved in front of it, a framework's explicit
// padding): the result filled with the padding value, then the operand
// copied into it as runs of contiguous memory (the trailing axes without
// padding merge into one run). Negative or interior padding runs the
// reference kernel.
#include <algorithm>
#include <cstring>

#include "kernels/common/parallel.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cpu/slice_runs.h"

namespace kiln::cpu {

Status Pad(const KernelCall& call) {
  if (call.inputs.size() != 2 || call.outputs.size() != 1) return RunReference(call);
  const TensorRef& in = call.inputs[0];
  const TensorRef& value = call.inputs[1];
  const TensorRef& out = call.outputs[0];
  const int64_t rank = in.rank();
  if (in.type != out.type || value.type != out.type || value.NumElements() != 1 || out.rank() != rank ||
      rank > kMaxSliceRank || !StorageOk(in) || !StorageOk(out) || !StorageOk(value))
    return RunReference(call);
  const auto lo = call.params.Ints("edge_padding_low"), hi = call.params.Ints("edge_padding_high");
  const auto interior = call.params.Ints("interior_padding");
  if (lo.size() != static_cast<size_t>(rank) || hi.size() != lo.size() || interior.size() != lo.size())
    return RunReference(call);
  for (int64_t d = 0; d < rank; ++d) {
    // Overflow-checked: a hostile module's attributes may pass int64 (the
    // reference then reports the mismatch).
    int64_t size = 0;
    if (lo[d] < 0 || hi[d] < 0 || interior[d] != 0 || __builtin_add_overflow(lo[d], in.dims[d], &size) ||
        __builtin_add_overflow(size, hi[d], &size) || out.dims[d] != size)
      return RunReference(call);
  }
  const size_t eb = StorageBytes(out.type);
  const size_t out_bytes = static_cast<size_t>(out.NumElements()) * eb;
  if (out_bytes == 0) return Status::Ok();
  // The padding value everywhere: one element, then doubling copies.
  std::memcpy(out.data, value.data, eb);
  for (size_t filled = eb; filled < out_bytes; filled *= 2)
    std::memcpy(out.data + filled, out.data, std::min(filled, out_bytes - filled));
  if (in.NumElements() == 0) return Status::Ok();
  int64_t ostride[kMaxSliceRank];
  for (int64_t d = rank, s = 1; d-- > 0;) {
    ostride[d] = s;
    s *= out.dims[d];
  }
  // p: the last padded axis; the operand's axes p.. are one run in the result.
  int64_t p = rank > 0 ? rank - 1 : 0;
  while (p > 0 && lo[p] == 0 && hi[p] == 0) --p;
  int64_t run = 1, rows = 1;
  for (int64_t d = p; d < rank; ++d) run *= in.dims[d];
  for (int64_t d = 0; d < p; ++d) rows *= in.dims[d];
  const size_t run_bytes = static_cast<size_t>(run) * eb;
  auto copy_rows = [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t dst = rank > 0 ? lo[p] * ostride[p] : 0, i = r;
      for (int64_t d = p; d-- > 0;) {
        dst += (lo[d] + i % in.dims[d]) * ostride[d];
        i /= in.dims[d];
      }
      std::memcpy(out.data + static_cast<size_t>(dst) * eb, in.data + static_cast<size_t>(r) * run_bytes, run_bytes);
    }
  };
  const int64_t per_task = std::max<int64_t>(1, static_cast<int64_t>((size_t{1} << 16) / std::max<size_t>(1, run_bytes)));
  if (rows <= per_task) {
    copy_rows(0, rows);
  } else {
    ParallelFor(call.runner, (rows + per_task - 1) / per_task,
                [&](int64_t t, int) { copy_rows(t * per_task, std::min(rows, (t + 1) * per_task)); });
  }
  return Status::Ok();
}

}  // namespace kiln::cpu

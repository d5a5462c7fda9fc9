// A unit-stride slice of a row-major operand copied as runs of contiguous
// memory, without allocating: the trailing axes the slice takes whole merge
// with the last axis it cuts into one run, copied with memcpy; one run per
// position of the axes before it. Shared by slice (unit strides) and
// dynamic_slice (indexing_dynamic_slice.cc), whose per-dispatch cost inside
// a `while` (a scan's step, a GRU's gate vectors) is then the copy itself.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/common/kernel.h"
#include "kernels/common/parallel.h"

namespace kiln::cpu {

constexpr int64_t kMaxSliceRank = 16;

// out = in[start[d] .. start[d] + out.dims[d]) along every axis d. The caller
// has checked: same element type and rank (<= kMaxSliceRank), storage for
// both, 0 <= start[d] and start[d] + out.dims[d] <= in.dims[d].
inline void CopySliceRuns(const TensorRef& in, const TensorRef& out, const int64_t* start, TaskRunner* runner) {
  if (out.NumElements() == 0) return;
  const int64_t rank = in.rank();
  const size_t eb = StorageBytes(out.type);
  int64_t stride[kMaxSliceRank];  // the operand's, in elements
  for (int64_t d = rank, s = 1; d-- > 0;) {
    stride[d] = s;
    s *= in.dims[d];
  }
  // p: the last axis the slice cuts (0 when it cuts none after axis 0);
  // axes after p are whole, so axes p.. form one run.
  int64_t p = rank > 0 ? rank - 1 : 0;
  while (p > 0 && out.dims[p] == in.dims[p]) --p;
  int64_t run = 1, base = 0, rows = 1;
  for (int64_t d = p; d < rank; ++d) {
    run *= out.dims[d];
    base += start[d] * stride[d];
  }
  for (int64_t d = 0; d < p; ++d) rows *= out.dims[d];
  const size_t run_bytes = static_cast<size_t>(run) * eb;
  constexpr size_t kTaskBytes = size_t{1} << 16;  // about 64 KB of copying per task
  const int64_t per_task = std::max<int64_t>(1, static_cast<int64_t>(kTaskBytes / std::max<size_t>(1, run_bytes)));
  auto copy_rows = [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t src = base, o = r;
      for (int64_t d = p; d-- > 0;) {
        src += (start[d] + o % out.dims[d]) * stride[d];
        o /= out.dims[d];
      }
      std::memcpy(out.data + static_cast<size_t>(r) * run_bytes, in.data + static_cast<size_t>(src) * eb, run_bytes);
    }
  };
  if (rows <= per_task) {  // one task's worth: no trip through the pool
    copy_rows(0, rows);
    return;
  }
  ParallelFor(runner, (rows + per_task - 1) / per_task,
              [&](int64_t t, int) { copy_rows(t * per_task, std::min(rows, (t + 1) * per_task)); });
}

}  // namespace kiln::cpu

// How the packed GEMMs (gemm_int8.cc, gemm_bf16.cc) spread their
// micro-tiles over the pool: tasks of row_panels x col_panels micro-panels,
// so that an A panel stays in L1 across its task's B panels and those stay
// in L2. Tasks are numbered column group by column group (all row groups
// of one group of B panels, then the next): consecutive tasks, on one
// thread or on neighbouring ones, reuse the B panels in L2 while A streams,
// where row groups first streamed every B panel once per row group (a
// 1024^3 bf16 product 0.94x the time at one thread, 0.95x at two; the
// int8 one 0.92x at two, 1.02x at one).
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/common/parallel.h"

namespace kiln::cpu {

struct NoTaskBegin {
  void operator()() const {}
};

// Runs fn(batch, row panel ip, first column panel, end column panel) for
// every row panel of every task over a batch of mp x np micro-panels, and
// begin() before a worker's first task of the call (the AMX tile
// configuration: a worker is one thread, and between its tasks of one call
// no other code runs on it).
//
// With several workers a task also takes at least 1 / (kTasksPerWorker x
// workers) of the row panels: each thread then works through a few long
// runs of consecutive rows rather than every other short one, so the rows
// of A it reads (a convolution's padded input, written by both threads
// just before) and the rows of C it writes stay mostly in its own core's
// caches. A bf16 convolution 56x56x64 -> 64 at two threads: 49 tasks of
// two panels 0.160 ms, 8 to 16 longer ones 0.125-0.131 ms.
constexpr int64_t kTasksPerWorker = 4;
template <class F, class Begin = NoTaskBegin>
void ForEachPanelRow(TaskRunner* runner, int64_t batch, int64_t mp, int64_t np, int64_t row_panels,
                     int64_t col_panels, const F& fn, const Begin& begin = {}) {
  const int64_t col_groups = (np + col_panels - 1) / col_panels;
  if (const int64_t workers = NumWorkers(runner); workers > 1) {
    row_panels = std::max(row_panels, (mp + kTasksPerWorker * workers - 1) / (kTasksPerWorker * workers));
    // At least a task per worker where the rows allow: a batch-1 1x1
    // convolution over 16x16 positions has 8 row panels, one group, and
    // ran on one thread with its requantize (13 us of an int8 block's 39).
    const int64_t per_row_group = std::max<int64_t>(1, batch * col_groups);
    const int64_t want_row_groups = (workers + per_row_group - 1) / per_row_group;
    row_panels = std::min(row_panels, std::max<int64_t>(1, (mp + want_row_groups - 1) / want_row_groups));
  }
  const int64_t row_groups = (mp + row_panels - 1) / row_panels;
  constexpr int kMaxTracked = 256;  // more workers than this: begin() before every task
  constexpr bool kBegin = !std::is_same_v<Begin, NoTaskBegin>;
  bool began[kBegin ? kMaxTracked : 1] = {};
  ParallelFor(runner, batch * row_groups * col_groups, [&](int64_t t, int worker) {
    if constexpr (kBegin) {
      if (worker >= kMaxTracked || !began[worker]) {
        begin();
        if (worker < kMaxTracked) began[worker] = true;
      }
    }
    const int64_t b = t / (row_groups * col_groups), rest = t % (row_groups * col_groups);
    const int64_t cg = rest / row_groups, rg = rest % row_groups;
    const int64_t jp_begin = cg * col_panels, jp_end = std::min(np, jp_begin + col_panels);
    for (int64_t ip = rg * row_panels; ip < std::min(mp, (rg + 1) * row_panels); ++ip) fn(b, ip, jp_begin, jp_end);
  });
}

}  // namespace kiln::cpu

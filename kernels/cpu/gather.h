// Reading a tensor through per-output-axis element strides: the common core
// of broadcast_in_dim, transpose and the broadcast inputs of fused
// elementwise programs. Plain C++ (no SIMD): the runs it finds along the
// innermost axis become memcpy, fill or a strided loop.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/common/kernel_selection.h"

namespace kiln::cpu {

// dst[i] = in[offset of output element (start + i)] for i < count, where the
// output has `dims` (rank <= 16) and output axis a advances the input by
// strides[a] elements (0 where the input is broadcast). Adjacent axes that
// step through the input as one (strides[a] == strides[a + 1] * dims[a + 1]:
// both broadcast, or both contiguous) are merged first, so the runs are as
// long as the input allows (an NCHW per-channel vector is one fill per
// H x W plane, not one per row).
// dst[0..run) = the run at positions q.. of a row whose element p is
// row[(p / kRep) * step] (kRep = 1: row[p * step]).
template <size_t kRep, typename T>
inline void CopyRepeatedRun(const T* row, int64_t step, size_t q, size_t run, T* dst) {
  if constexpr (kRep == 1) {
    if (step == 1) {
      std::memcpy(dst, row + q, run * sizeof(T));
    } else if (step == 0) {
      std::fill(dst, dst + run, row[0]);
    } else {
      const T* s = row + static_cast<int64_t>(q) * step;
      for (size_t j = 0; j < run; ++j) dst[j] = s[static_cast<int64_t>(j) * step];
    }
  } else {
    size_t p = q, i = 0;
    for (; p % kRep != 0 && i < run; ++p, ++i) dst[i] = row[static_cast<int64_t>(p / kRep) * step];
    const size_t whole = (run - i) / kRep;
    const T* s = row + static_cast<int64_t>(p / kRep) * step;
    T* d = dst + i;
    for (size_t j = 0; j < whole; ++j) {  // each element kRep times
      const T v = s[static_cast<int64_t>(j) * step];
      for (size_t t = 0; t < kRep; ++t) d[j * kRep + t] = v;
    }
    p += whole * kRep, i += whole * kRep;
    for (; i < run; ++p, ++i) dst[i] = row[static_cast<int64_t>(p / kRep) * step];
  }
}

// dst[i] = in[offset of output element (start + i)] for i < count, where the
// output has `dims` (rank <= 16) and output axis a advances the input by
// strides[a] elements (0 where the input is broadcast). Adjacent axes that
// step through the input as one (strides[a] == strides[a + 1] * dims[a + 1]:
// both broadcast, or both contiguous) are merged first, so the runs are as
// long as the input allows (an NCHW per-channel vector is one fill per
// H x W plane, not one per row). An innermost broadcast axis of 2 to 4
// under a stepping one (nearest-neighbour upsampling: each element
// repeated) is merged into it as a repeat, so its runs are rows too, not
// pairs.
template <typename T>
void GatherBlock(const T* in, const std::vector<int64_t>& strides, const std::vector<int64_t>& out_dims, size_t start,
                 size_t count, T* dst) {
  const size_t full_rank = out_dims.size();
  if (full_rank == 0) {
    std::fill(dst, dst + count, in[0]);
    return;
  }
  int64_t dims[16], steps[16];
  size_t rank = 0;
  for (size_t a = 0; a < full_rank; ++a) {
    if (rank > 0 && steps[rank - 1] == strides[a] * out_dims[a]) {
      dims[rank - 1] *= out_dims[a];
      steps[rank - 1] = strides[a];
    } else {
      dims[rank] = out_dims[a];
      steps[rank] = strides[a];
      ++rank;
    }
  }
  size_t rep = 1;  // the innermost axis repeats each element of the row
  if (!KILN_SELECTIVE_BUILD && rank >= 2 && steps[rank - 1] == 0 && dims[rank - 1] >= 2 && dims[rank - 1] <= 4 && steps[rank - 2] != 0) {
    rep = static_cast<size_t>(dims[rank - 1]);
    --rank;
    dims[rank - 1] *= static_cast<int64_t>(rep);
  }
  // idx: the multi-index of the current element; row: the input offset of
  // its innermost row's element 0.
  int64_t idx[16];
  int64_t row = 0;
  size_t rest = start;
  for (size_t a = rank; a-- > 0;) {
    idx[a] = static_cast<int64_t>(rest % static_cast<size_t>(dims[a]));
    rest /= static_cast<size_t>(dims[a]);
    if (a + 1 < rank) row += idx[a] * steps[a];
  }
  const int64_t inner = dims[rank - 1], step = steps[rank - 1];
  for (size_t i = 0; i < count;) {
    const size_t q = static_cast<size_t>(idx[rank - 1]);
    const size_t run = std::min(count - i, static_cast<size_t>(inner) - q);
    if constexpr (KILN_SELECTIVE_BUILD) {  // (held to their size: no repeats)
      CopyRepeatedRun<1>(in + row, step, q, run, dst + i);
    } else {
      switch (rep) {
        case 2: CopyRepeatedRun<2>(in + row, step, q, run, dst + i); break;
        case 3: CopyRepeatedRun<3>(in + row, step, q, run, dst + i); break;
        case 4: CopyRepeatedRun<4>(in + row, step, q, run, dst + i); break;
        default: CopyRepeatedRun<1>(in + row, step, q, run, dst + i); break;
      }
    }
    i += run;
    idx[rank - 1] += static_cast<int64_t>(run);
    if (idx[rank - 1] < inner) continue;
    // The next row, carrying outwards.
    idx[rank - 1] = 0;
    for (size_t a = rank - 1; a-- > 0;) {
      row += steps[a];
      if (++idx[a] < dims[a]) break;
      row -= dims[a] * steps[a];
      idx[a] = 0;
    }
  }
}

// The multi-index of an output element, advanced block by block without
// divisions: a block of a row-local program then finds its broadcast
// operands' elements (InnermostRun) in a few multiplies.
struct OutputIndex {
  int64_t idx[16] = {};
  size_t rank = 0;
  void Start(const std::vector<int64_t>& dims, size_t start) {
    rank = dims.size();
    for (size_t a = rank; a-- > 0;) {
      idx[a] = static_cast<int64_t>(start % static_cast<size_t>(dims[a]));
      start /= static_cast<size_t>(dims[a]);
    }
  }
  void Advance(const std::vector<int64_t>& dims, size_t count) {
    if (rank == 0) return;
    idx[rank - 1] += static_cast<int64_t>(count);
    for (size_t a = rank; a-- > 1 && idx[a] >= dims[a];) {
      idx[a - 1] += idx[a] / dims[a];  // more than one row when rows are short
      idx[a] %= dims[a];
    }
  }
};

// When the `count` output elements from `at` lie in one run along the
// innermost axis, the input element of the first (the run continues from
// it by strides.back()), else null: a block of a row-local program then
// reads a broadcast operand in place or as one splat instead of gathering.
template <typename T>
const T* InnermostRun(const T* in, const std::vector<int64_t>& strides, const std::vector<int64_t>& dims,
                      const OutputIndex& at, size_t count) {
  if (at.rank == 0 || at.idx[at.rank - 1] + static_cast<int64_t>(count) > dims[at.rank - 1]) return nullptr;
  int64_t off = 0;
  for (size_t a = 0; a < at.rank; ++a) off += at.idx[a] * strides[a];
  return in + off;
}

}  // namespace kiln::cpu

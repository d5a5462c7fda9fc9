// The A side of Kiln's AMX GEMMs (the int8 one in gemm_int8_x86.h, the
// bf16 one in gemm_bf16.cc): where each 16-row half of a 32-row panel of A
// is read from, in steps of 64 bytes of the contraction (one tile row: 64
// int8 or 32 bf16 elements).
//
// A tile load takes 16 rows at one stride, so a half is read in place where
// its rows are evenly spaced in memory (a row-major A; a channel-last
// convolution's output pixels along one output row) and every step is 64
// contiguous bytes; other halves are gathered per task into a small buffer.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/gemm.h"
#include "kernels/cpu/offset_runs.h"

namespace kiln::cpu::amx {

constexpr int64_t kStepBytes = 64;
constexpr int64_t kHalfRows = 16;

// Step s of half h starts at base[h] + (koff[h] ? koff[h][s] : step * s)
// elements; the half's 16 rows lie stride[h] bytes apart. A packed panel
// leaves koff null (row-major halves step by kStep, step-major panels by a
// whole step of the panel); A read in place points it at the steps'
// offsets.
template <class T>
struct PanelRows {
  static constexpr int64_t kStep = kStepBytes / static_cast<int64_t>(sizeof(T));
  const T* base[2] = {nullptr, nullptr};
  int64_t stride[2] = {0, 0};
  const int64_t* koff[2] = {nullptr, nullptr};
  int64_t step = kStep;
  const T* At(int h, int64_t s) const { return base[h] + (koff[h] != nullptr ? koff[h][s] : step * s); }
};

// A's offset (elements) of contraction element k within a row.
inline int64_t AOffset(const GemmProblem& p, int64_t k) {
  return p.a_k.empty() || p.a_k_contiguous ? k : p.a_k[k];
}

// The runs of A's contraction offsets (offset_runs.h).
inline OffsetRuns ARuns(const GemmProblem& p) {
  return p.a_k.empty() || p.a_k_contiguous ? OffsetRuns(p.k) : OffsetRuns(p.a_k.data(), p.k);
}

// Row i of A (a_batch: the batch entry's first element), its K
// contraction elements gathered into dst in order: run by run (`runs`, as
// ARuns gives them), element by element where the runs are many and short.
template <class T>
void GatherRow(const GemmProblem& p, const T* a_batch, int64_t i, const OffsetRuns& runs, T* dst) {
  const T* row = a_batch + p.a_m[i];
  if (runs.valid()) {
    runs.Gather(row, dst);
  } else {
    for (int64_t k = 0; k < p.k; ++k) dst[k] = row[AOffset(p, k)];
  }
}

// Whether A's rows are distinct runs of memory (a row-major A) longer than
// kInPlaceMaxK elements: its 32-row panels are then packed before the
// tiles read them. A panel's tiles each read all of it beside a B panel
// as large, and rows read in place lie a whole row apart (16 rows of a
// step in few of L1's sets), so that long rows streamed from L2 tile by
// tile: an int8 1024^3 product with constant weights 0.66x the time
// packed (1.16 -> 0.77 ms at one thread), a bf16 one 0.90x; at K = 512
// both forms ran alike. A convolution's windows overlap (a panel's rows
// are the same few input rows) and stay in place at any length.
constexpr int64_t kInPlaceMaxK = 512;
inline bool LongDistinctRows(const GemmProblem& p) {
  return (p.a_k.empty() || p.a_k_contiguous) && p.k > kInPlaceMaxK;
}

// Fills koff[s] (K / kStep entries) with the offset of step s when every
// step is kStep contiguous elements of A (so K is a multiple of kStep);
// false otherwise (A is then packed). kStep defaults to a whole tile row;
// the narrow int8 form (amx.h NarrowKConfig) steps by 32.
template <class T>
bool ContiguousSteps(const GemmProblem& p, int64_t* koff, int64_t kStep = PanelRows<T>::kStep) {
  if (p.k == 0 || p.k % kStep != 0) return false;
  for (int64_t s = 0; s < p.k / kStep; ++s) {
    const int64_t o = AOffset(p, kStep * s);
    if (!(p.a_k.empty() || p.a_k_contiguous))
      for (int64_t j = 1; j < kStep; ++j)
        if (p.a_k[kStep * s + j] != o + j) return false;
    koff[s] = o;
  }
  return true;
}

// Points `a` at the panel of A whose first row is i0 (batch base a_batch,
// steps at koff as ContiguousSteps gave them): each half of evenly spaced
// rows in place, any other half gathered into `halves` (2 x 16 x K
// elements; rows past the last are zeros, which add nothing). `runs`
// describes a_k (OffsetRuns of K or of a_k).
template <class T>
void PlacePanel(const GemmProblem& p, const T* a_batch, const int64_t* koff, const OffsetRuns& runs, int64_t i0,
                T* halves, PanelRows<T>& a) {
  const int64_t rows = std::min<int64_t>(2 * kHalfRows, p.m - i0);
  for (int h = 0; h < 2 && kHalfRows * h < rows; ++h) {
    const int64_t r0 = i0 + kHalfRows * h, n = std::min<int64_t>(kHalfRows, p.m - r0);
    const int64_t stride = n > 1 ? p.a_m[r0 + 1] - p.a_m[r0] : 0;
    bool even = n == kHalfRows && stride > 0;
    for (int64_t r = 2; even && r < kHalfRows; ++r) even = p.a_m[r0 + r] - p.a_m[r0] == r * stride;
    if (even) {
      a.base[h] = a_batch + p.a_m[r0];
      a.stride[h] = stride * static_cast<int64_t>(sizeof(T));
      a.koff[h] = koff;
      continue;
    }
    T* buf = halves + h * kHalfRows * p.k;
    for (int64_t r = 0; r < kHalfRows; ++r) {
      T* dst = buf + r * p.k;
      if (r >= n) {
        std::memset(dst, 0, static_cast<size_t>(p.k) * sizeof(T));
      } else {
        GatherRow(p, a_batch, r0 + r, runs, dst);
      }
    }
    a.base[h] = buf;
    a.stride[h] = p.k * static_cast<int64_t>(sizeof(T));
    a.koff[h] = nullptr;
  }
}

}  // namespace kiln::cpu::amx

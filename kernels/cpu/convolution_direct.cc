// The direct grouped/depthwise CPU convolution of convolution_direct.h.
//
// Shapes are canonicalised to three spatial dims (missing ones of size 1).
// The kernel reads padded input rows laid out [P2][k_in][Cp] (P2: the padded
// last spatial size, Cp: the output features rounded up to 64 bytes), where
// element (i, o) is input feature group(o) * k_in + i: every output feature
// then reads its own lane, so one vector of output features multiplies one
// vector of inputs by one vector of weights ([K0][K1][K2][k_in][Cp], window
// reversal applied). An NHWC depthwise input with a multiplier of 1 is
// already that layout and is read in place (its padding implicit: rows of
// zeros, border columns loaded only where they are real); otherwise
// each task packs the input rows its output rows need into a slab of at
// most kSlabBytes (cache-sized, the task's own, reused across calls), one
// output-row chunk at a time, so the input is read once from memory and
// the packed copy never leaves the cache. The result row is written
// channel-last ([Q2][Cp]) into the output itself when that is its layout,
// else into a row buffer scattered to the output right away.
//
// Every output element is summed by the same code in the same order (taps
// row-major, then the group's inputs; fused multiply-adds where the target
// has them) whatever the row range, the chunking or the thread count, so
// results are bit-identical at any number of threads.
#include <algorithm>
#include <cstring>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/convolution_direct.cc"
#include "kernels/cpu/hwy_targets.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#ifndef KILN_CPU_CONV_DIRECT_SHARED
#define KILN_CPU_CONV_DIRECT_SHARED
#include "kernels/common/parallel.h"
#include "kernels/cpu/convolution_direct.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/thread_scratch.h"

namespace kiln::cpu {

// One output row's problem, sizes in elements.
struct DirectArgs {
  const void* w = nullptr;  // [K0][K1][K2][k_in][cp]
  int64_t k_in = 0, cp = 0;
  int64_t k[3] = {1, 1, 1};
  int64_t q2 = 1, stride2 = 1, dil2 = 1;
  // The tap rows' last spatial dim: column j of the padded row is element
  // j - col_lo of a row of in_cols pixels, zero outside it. A packed slab
  // row is padded already (col_lo 0, in_cols its padded width); an input
  // row read in place is not, and DepthwiseRow loads only its real pixels.
  int64_t col_lo = 0, in_cols = 1;
};

}  // namespace kiln::cpu
#endif  // KILN_CPU_CONV_DIRECT_SHARED

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Output columns (q2) per register block: four accumulators share each
// weight vector load.
constexpr int64_t kCols = 4;

// Taps of a window up to which DepthwiseRow keeps their input pointers.
constexpr int64_t kMaxDepthwiseTaps = 64;

// DepthwiseRow's kCols (at most 8) output columns from q2, every vector of
// features: each weight vector is loaded once for the kCols columns, and
// each column sums its taps in order.
template <int kCols, class D, class T>
HWY_INLINE void DepthwiseColumns(D d, const T* const* rows, const int64_t* toff, const T* HWY_RESTRICT w,
                                 int64_t taps, int64_t cp, int64_t col_step, int64_t q2, T* HWY_RESTRICT out_row) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t c = 0; c < cp; c += N) {
    const auto z = hn::Zero(d);
    auto acc0 = z, acc1 = z, acc2 = z, acc3 = z, acc4 = z, acc5 = z, acc6 = z, acc7 = z;
    const int64_t at = q2 * col_step + c;
    for (int64_t t = 0; t < taps; ++t) {
      const auto wv = hn::LoadU(d, w + t * cp + c);
      const T* x = rows[t] + (toff[t] + at);
#define KILN_COLUMN(i) \
  if constexpr (kCols > i) acc##i = hn::MulAdd(hn::LoadU(d, x + i * col_step), wv, acc##i);
      KILN_COLUMN(0) KILN_COLUMN(1) KILN_COLUMN(2) KILN_COLUMN(3)
      KILN_COLUMN(4) KILN_COLUMN(5) KILN_COLUMN(6) KILN_COLUMN(7)
#undef KILN_COLUMN
    }
    T* o = out_row + q2 * cp + c;
#define KILN_STORE(i) \
  if constexpr (kCols > i) hn::StoreU(acc##i, d, o + i * cp);
    KILN_STORE(0) KILN_STORE(1) KILN_STORE(2) KILN_STORE(3) KILN_STORE(4) KILN_STORE(5) KILN_STORE(6) KILN_STORE(7)
#undef KILN_STORE
  }
}

// DirectRow for one input per output feature (depthwise, k_in == 1) and
// whole vectors of features: the taps' rows and offsets computed once per
// row, blocks of eight, four or one output columns (DepthwiseColumns).
// Every element is summed over the taps in the same order as DirectRow's,
// so the results are the same bits.
template <class T>
void DepthwiseRow(const DirectArgs& a, const void* const* tap_rows, T* HWY_RESTRICT out_row) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const T* w = static_cast<const T*>(a.w);
  const int64_t cp = a.cp, col_step = a.stride2 * cp;
  const int64_t k2 = a.k[2], taps = a.k[0] * a.k[1] * k2;
  // Tap t reads row rows[t] at pixel q2 * stride2 + t2 * dil2 - col_lo; the
  // offsets are summed as integers before a pointer is formed, so none
  // points outside its row.
  const T* rows[kMaxDepthwiseTaps];
  int64_t toff[kMaxDepthwiseTaps];
  for (int64_t t01 = 0; t01 < a.k[0] * a.k[1]; ++t01)
    for (int64_t t2 = 0; t2 < k2; ++t2) {
      rows[t01 * k2 + t2] = static_cast<const T*>(tap_rows[t01]);
      toff[t01 * k2 + t2] = (t2 * a.dil2 - a.col_lo) * cp;
    }
  // Columns [qa, qb) read a real pixel at every tap; the others (a border
  // of an input read in place) take zero for the pixels outside, multiplied
  // like the padded slab's zeros, so the results are the same bits.
  const int64_t last_tap = (k2 - 1) * a.dil2;
  const int64_t qa = std::min(a.q2, (std::max<int64_t>(a.col_lo, 0) + a.stride2 - 1) / a.stride2);
  const int64_t span = a.in_cols - 1 + a.col_lo - last_tap;
  const int64_t qb = std::clamp<int64_t>(span < 0 ? 0 : span / a.stride2 + 1, qa, a.q2);
  // A border column sums in its output row, tap by tap, every vector of
  // features at once (independent multiply-adds, not one chain per vector).
  auto border_column = [&](int64_t q2) {
    T* o = out_row + q2 * cp;
    for (int64_t c = 0; c < cp; c += N) hn::StoreU(hn::Zero(d), d, o + c);
    for (int64_t t = 0; t < taps; ++t) {
      const int64_t x = q2 * a.stride2 + (t % k2) * a.dil2 - a.col_lo;
      const bool real = x >= 0 && x < a.in_cols;
      for (int64_t c = 0; c < cp; c += N) {
        V v = hn::Zero(d);
        if (real) v = hn::LoadU(d, rows[t] + (x * cp + c));
        hn::StoreU(hn::MulAdd(v, hn::LoadU(d, w + t * cp + c), hn::LoadU(d, o + c)), d, o + c);
      }
    }
  };
  for (int64_t q2 = 0; q2 < qa; ++q2) border_column(q2);
  for (int64_t q2 = qb; q2 < a.q2; ++q2) border_column(q2);
  // Column blocks outside, feature vectors inside: a block's pixels (its
  // columns of every tap row) stay in L1 while each vector of features
  // reads its lanes of them. Eight columns at a time, then four, then one
  // (a column alone is one chain of dependent multiply-adds).
  int64_t q2 = qa;
  for (; q2 + 8 <= qb; q2 += 8) DepthwiseColumns<8>(d, rows, toff, w, taps, cp, col_step, q2, out_row);
  for (; q2 + 4 <= qb; q2 += 4) DepthwiseColumns<4>(d, rows, toff, w, taps, cp, col_step, q2, out_row);
  for (; q2 < qb; ++q2) DepthwiseColumns<1>(d, rows, toff, w, taps, cp, col_step, q2, out_row);
}

// Whether DirectRow hands these rows to DepthwiseRow (the only row kernel
// that reads an input row in place with its padding implicit).
template <class T>
bool DepthwiseRowTakes(const DirectArgs& a) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(hn::ScalableTag<T>()));
  return a.k_in == 1 && a.k[0] * a.k[1] * a.k[2] <= kMaxDepthwiseTaps && a.cp % N == 0;
}

template <class T>
void DirectRow(const DirectArgs& a, const void* const* tap_rows, void* out_row_v) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const T* w = static_cast<const T*>(a.w);
  T* out_row = static_cast<T*>(out_row_v);
  if (DepthwiseRowTakes<T>(a)) {
    DepthwiseRow<T>(a, tap_rows, out_row);
    return;
  }
  const int64_t ko = a.k_in * a.cp;  // elements per packed input pixel
  const int64_t col_step = a.stride2 * ko;
  const int64_t k01 = a.k[0] * a.k[1];
  // The input of tap (t01, t2) for output column 0; t01 = t0 * K1 + t1.
  auto tap_base = [&](int64_t t01, int64_t t2) {
    return static_cast<const T*>(tap_rows[t01]) + t2 * a.dil2 * ko;
  };
  int64_t c = 0;
  for (; c + N <= a.cp; c += N) {
    int64_t q2 = 0;
    for (; q2 + kCols <= a.q2; q2 += kCols) {
      V acc0 = hn::Zero(d), acc1 = hn::Zero(d), acc2 = hn::Zero(d), acc3 = hn::Zero(d);
      const T* wt = w + c;
      for (int64_t t01 = 0; t01 < k01; ++t01)
        for (int64_t t2 = 0; t2 < a.k[2]; ++t2) {
          const T* x = tap_base(t01, t2) + q2 * col_step + c;
          for (int64_t i = 0; i < a.k_in; ++i, wt += a.cp, x += a.cp) {
            const V wv = hn::LoadU(d, wt);
            acc0 = hn::MulAdd(hn::LoadU(d, x), wv, acc0);
            acc1 = hn::MulAdd(hn::LoadU(d, x + col_step), wv, acc1);
            acc2 = hn::MulAdd(hn::LoadU(d, x + 2 * col_step), wv, acc2);
            acc3 = hn::MulAdd(hn::LoadU(d, x + 3 * col_step), wv, acc3);
          }
        }
      T* o = out_row + q2 * a.cp + c;
      hn::StoreU(acc0, d, o);
      hn::StoreU(acc1, d, o + a.cp);
      hn::StoreU(acc2, d, o + 2 * a.cp);
      hn::StoreU(acc3, d, o + 3 * a.cp);
    }
    for (; q2 < a.q2; ++q2) {
      V acc = hn::Zero(d);
      const T* wt = w + c;
      for (int64_t t01 = 0; t01 < k01; ++t01)
        for (int64_t t2 = 0; t2 < a.k[2]; ++t2) {
          const T* x = tap_base(t01, t2) + q2 * col_step + c;
          for (int64_t i = 0; i < a.k_in; ++i, wt += a.cp, x += a.cp)
            acc = hn::MulAdd(hn::LoadU(d, x), hn::LoadU(d, wt), acc);
        }
      hn::StoreU(acc, d, out_row + q2 * a.cp + c);
    }
  }
  // Features past the last whole vector (only where a vector is wider than
  // the 64-byte feature padding, e.g. long SVE vectors): one lane at a time,
  // always for the same features, so still thread-independent.
  for (; c < a.cp; ++c)
    for (int64_t q2 = 0; q2 < a.q2; ++q2) {
      T acc = 0;
      const T* wt = w + c;
      for (int64_t t01 = 0; t01 < k01; ++t01)
        for (int64_t t2 = 0; t2 < a.k[2]; ++t2) {
          const T* x = tap_base(t01, t2) + q2 * col_step + c;
          for (int64_t i = 0; i < a.k_in; ++i, wt += a.cp, x += a.cp) acc += *x * *wt;
        }
      out_row[q2 * a.cp + c] = acc;
    }
}

void DirectF32(const DirectArgs& a, const void* const* taps, void* out) { DirectRow<float>(a, taps, out); }
void DirectF64(const DirectArgs& a, const void* const* taps, void* out) { DirectRow<double>(a, taps, out); }
bool DepthwiseRowTakesF32(const DirectArgs& a) { return DepthwiseRowTakes<float>(a); }
bool DepthwiseRowTakesF64(const DirectArgs& a) { return DepthwiseRowTakes<double>(a); }

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(DirectF32);
HWY_EXPORT(DirectF64);
HWY_EXPORT(DepthwiseRowTakesF32);
HWY_EXPORT(DepthwiseRowTakesF64);

namespace {

// Multiply-adds of one task at least (fewer rows per task cost more in
// hand-offs than they gain; the split does not change any result).
constexpr int64_t kMinMacsPerTask = 1 << 16;

// The most bytes of packed input rows a task holds at once: well inside a
// core's L2, so the packed rows are still cached when the taps read them.
// A chunk always takes at least one output row's window.
constexpr size_t kSlabBytes = 256 << 10;

// Spatial dim s of `ns` in canonical position (the missing leading ones are
// size 1).
inline int64_t Canon(size_t ns, size_t s) { return static_cast<int64_t>(3 - ns + s); }

// A task's scratch (thread_scratch.h): the packed input slab, the result
// row (when the output is not channel-last) and the tap row pointers; and
// the caller's, kept for the call: the packed weights, the padding's row of
// zeros and the input feature offsets (no heap allocation per dispatch).
struct DirectSlabScratch;
struct DirectRowScratch;
struct DirectTapScratch;
struct DirectWeightScratch;
struct DirectZeroRowScratch;
struct DirectChannelScratch;

// The geometry of the input and output as the driver walks them.
struct DirectLayout {
  int64_t batch = 0, k_out = 0;
  int64_t p[3] = {1, 1, 1}, lo[3] = {0, 0, 0}, q[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, dil[3] = {1, 1, 1};
  int64_t in_size[3] = {1, 1, 1}, in_step[3] = {0, 0, 0}, in_batch_step = 0;
  int64_t out_step[3] = {0, 0, 0}, out_batch_step = 0, out_feat_step = 1;
};

// Packs padded input row (b, p0, p1) -- P2 pixels of [k_in][cp] -- into dst.
template <class T>
void PackRow(const DirectLayout& l, const DirectArgs& a, const T* src, const int64_t* chan_off,
             bool chan_contiguous, int64_t b, int64_t p0, int64_t p1, T* dst) {
  const int64_t ko = a.k_in * a.cp;
  const int64_t s0 = p0 - l.lo[0], s1 = p1 - l.lo[1];
  if (s0 < 0 || s0 >= l.in_size[0] || s1 < 0 || s1 >= l.in_size[1]) {
    std::fill(dst, dst + l.p[2] * ko, T(0));
    return;
  }
  const T* src_row = src + b * l.in_batch_step + s0 * l.in_step[0] + s1 * l.in_step[1];
  if (chan_contiguous && a.k_in == 1 && a.cp == l.k_out && l.in_step[2] == l.k_out) {
    // Pixels of whole feature vectors back to back (NHWC depthwise): the
    // row's input pixels in one copy, zeros for the padding around them
    // (a copy per pixel cost more than the convolution's arithmetic).
    const int64_t first = std::clamp<int64_t>(l.lo[2], 0, l.p[2]);
    const int64_t last = std::clamp<int64_t>(l.lo[2] + l.in_size[2], first, l.p[2]);  // padded pixels [first, last) read input
    std::fill(dst, dst + first * ko, T(0));
    std::memcpy(dst + first * ko, src_row + (first - l.lo[2]) * l.k_out,
                static_cast<size_t>((last - first) * ko) * sizeof(T));
    std::fill(dst + last * ko, dst + l.p[2] * ko, T(0));
    return;
  }
  for (int64_t p2 = 0; p2 < l.p[2]; ++p2) {
    T* px = dst + p2 * ko;
    const int64_t s2 = p2 - l.lo[2];
    if (s2 < 0 || s2 >= l.in_size[2]) {
      std::fill(px, px + ko, T(0));
      continue;
    }
    const T* sp = src_row + s2 * l.in_step[2];
    for (int64_t i = 0; i < a.k_in; ++i) {
      T* dsti = px + i * a.cp;
      if (chan_contiguous) {
        std::memcpy(dsti, sp, static_cast<size_t>(l.k_out) * sizeof(T));
      } else {
        const int64_t* off = chan_off + i * l.k_out;
        for (int64_t o = 0; o < l.k_out; ++o) dsti[o] = sp[off[o]];
      }
      std::fill(dsti + l.k_out, dsti + a.cp, T(0));
    }
  }
}

template <class T>
void PackWeights(const ConvGeometry& g, const TensorRef& rhs, const DirectArgs& a, T* dst) {
  const size_t ns = g.ksp.size();
  const auto rs = Strides(rhs.dims);
  int64_t step[3] = {0, 0, 0}, rev[3] = {0, 0, 0};
  for (size_t s = 0; s < ns; ++s) {
    step[Canon(ns, s)] = rs[g.ksp[s]];
    rev[Canon(ns, s)] = g.reversal[s];
  }
  const T* src = reinterpret_cast<const T*>(rhs.data);
  std::fill(dst, dst + a.k[0] * a.k[1] * a.k[2] * a.k_in * a.cp, T(0));
  for (int64_t t0 = 0; t0 < a.k[0]; ++t0)
    for (int64_t t1 = 0; t1 < a.k[1]; ++t1)
      for (int64_t t2 = 0; t2 < a.k[2]; ++t2) {
        // The packed tap t meets the input at offset t; a reversed window
        // pairs it with kernel tap k - 1 - t.
        const int64_t u0 = rev[0] ? a.k[0] - 1 - t0 : t0, u1 = rev[1] ? a.k[1] - 1 - t1 : t1,
                      u2 = rev[2] ? a.k[2] - 1 - t2 : t2;
        const T* s = src + u0 * step[0] + u1 * step[1] + u2 * step[2];
        T* d = dst + ((t0 * a.k[1] + t1) * a.k[2] + t2) * a.k_in * a.cp;
        for (int64_t i = 0; i < a.k_in; ++i)
          for (int64_t o = 0; o < g.k_out; ++o) d[i * a.cp + o] = s[i * rs[g.kif] + o * rs[g.kof]];
      }
}

// Writes one channel-last result row ([Q2][cp]) of output row (b, q0, q1)
// to an output of any layout.
template <class T>
void ScatterRow(const DirectLayout& l, const DirectArgs& a, const T* src, int64_t b, int64_t q0, int64_t q1, T* dst) {
  T* base = dst + b * l.out_batch_step + q0 * l.out_step[0] + q1 * l.out_step[1];
  for (int64_t q2 = 0; q2 < a.q2; ++q2, src += a.cp) {
    T* o = base + q2 * l.out_step[2];
    if (l.out_feat_step == 1) {
      std::memcpy(o, src, static_cast<size_t>(l.k_out) * sizeof(T));
    } else {
      for (int64_t f = 0; f < l.k_out; ++f) o[f * l.out_feat_step] = src[f];
    }
  }
}

template <class T>
void Run(const ConvGeometry& g, const TensorRef& lhs, const TensorRef& rhs, const TensorRef& out,
         TaskRunner* runner, const ElementwiseProblem* epilogue) {
  const size_t ns = g.isp.size();
  DirectArgs a;
  DirectLayout l;
  a.k_in = g.k_in;
  l.batch = g.batch;
  l.k_out = g.k_out;
  constexpr int64_t kPad = 64 / sizeof(T);  // features rounded up to 64 bytes
  a.cp = (g.k_out + kPad - 1) / kPad * kPad;
  const auto ls = Strides(lhs.dims), os = Strides(out.dims);
  bool any_padding = false;
  for (size_t s = 0; s < ns; ++s) {
    const int64_t c = Canon(ns, s);
    l.lo[c] = g.padding[2 * s];
    l.p[c] = lhs.dims[g.isp[s]] + g.padding[2 * s] + g.padding[2 * s + 1];
    l.q[c] = g.spatial_out[s];
    l.in_size[c] = lhs.dims[g.isp[s]];
    l.in_step[c] = ls[g.isp[s]];
    l.out_step[c] = os[g.osp[s]];
    a.k[c] = g.kdims[s];
    l.stride[c] = g.strides[s];
    l.dil[c] = g.rhs_dil[s];
    any_padding |= g.padding[2 * s] != 0 || g.padding[2 * s + 1] != 0;
  }
  l.in_batch_step = ls[g.ib];
  l.out_batch_step = os[g.ob];
  l.out_feat_step = os[g.ofd];
  a.q2 = l.q[2];
  a.stride2 = l.stride[2];
  a.dil2 = l.dil[2];
  // The input feature each packed (i, o) lane reads, as an element offset.
  const int64_t opg = g.k_out / g.fgc;
  ScratchLease<DirectChannelScratch, int64_t> chan_lease(static_cast<size_t>(g.k_in * g.k_out));
  int64_t* chan_off = chan_lease.get();
  bool chan_contiguous = true;
  for (int64_t i = 0; i < g.k_in; ++i)
    for (int64_t o = 0; o < g.k_out; ++o) {
      chan_off[i * g.k_out + o] = ((o / opg) * g.k_in + i) * ls[g.ifd];
      chan_contiguous &= chan_off[i * g.k_out + o] == o;
    }
  auto canonical = [&](int64_t b, int64_t f, const std::vector<int64_t>& sp) {
    if (b != 0 || f != g.rank - 1) return false;
    for (size_t s = 0; s < ns; ++s)
      if (sp[s] != static_cast<int64_t>(s + 1)) return false;
    return true;
  };
  // NHWC, depthwise with multiplier 1: the input rows are already the
  // packed layout. With padding, only DepthwiseRow reads them in place (the
  // padding's rows point at a row of zeros, its columns are left out of
  // the loads); copying the input into padded rows took a third of a 3x3
  // over 56x56x144 (kiln-kernel-bench BM_CpuConv56x56Threads/2).
  auto depthwise_row_takes = [&] {
    if constexpr (sizeof(T) == 4) {
      return HWY_DYNAMIC_DISPATCH(DepthwiseRowTakesF32)(a);
    } else {
      return HWY_DYNAMIC_DISPATCH(DepthwiseRowTakesF64)(a);
    }
  };
  const bool in_place = chan_contiguous && a.cp == g.k_out && canonical(g.ib, g.ifd, g.isp) &&
                        (!any_padding || depthwise_row_takes());
  if (in_place) {
    a.col_lo = l.lo[2];
    a.in_cols = l.in_size[2];
  } else {
    a.col_lo = 0;
    a.in_cols = l.p[2];
  }
  // The padding's rows, read in place: one row of zeros.
  const size_t zero_elems = in_place && any_padding ? static_cast<size_t>(l.in_size[2] * a.cp) : 0;
  ScratchLease<DirectZeroRowScratch, T> zero_lease(zero_elems);
  const T* zero_row = zero_lease.get();
  std::fill(zero_lease.get(), zero_lease.get() + zero_elems, T(0));
  ScratchLease<DirectWeightScratch, T> w_lease(static_cast<size_t>(a.k[0] * a.k[1] * a.k[2] * a.k_in * a.cp));
  PackWeights<T>(g, rhs, a, w_lease.get());
  a.w = w_lease.get();
  const bool direct_out = a.cp == g.k_out && canonical(g.ob, g.ofd, g.osp);

  const T* src = reinterpret_cast<const T*>(lhs.data);
  T* dst = reinterpret_cast<T*>(out.data);
  const int64_t ko = a.k_in * a.cp;
  const int64_t in_row = l.p[2] * ko;  // elements per padded input row
  const int64_t k01 = a.k[0] * a.k[1];
  // Input rows (per t0) a chunk of n output rows reads.
  auto span_of = [&](int64_t n) { return (n - 1) * l.stride[1] + (a.k[1] - 1) * l.dil[1] + 1; };
  const int64_t rows = l.batch * l.q[0] * l.q[1];
  const int64_t macs_per_row = l.q[2] * a.cp * a.k[0] * a.k[1] * a.k[2] * a.k_in;
  const int64_t rows_per_task = std::max<int64_t>(1, kMinMacsPerTask / std::max<int64_t>(1, macs_per_row));
  const int64_t tasks = std::min<int64_t>((rows + rows_per_task - 1) / rows_per_task, 8 * NumWorkers(runner));
  const size_t out_row = static_cast<size_t>(l.q[2] * a.cp);
  auto row_kernel = [&](const void* const* taps, void* o) {
    if constexpr (sizeof(T) == 4) {
      HWY_DYNAMIC_DISPATCH(DirectF32)(a, taps, o);
    } else {
      HWY_DYNAMIC_DISPATCH(DirectF64)(a, taps, o);
    }
  };
  // Output rows per slab chunk: as many as fit kSlabBytes, at least one.
  const int64_t fit_rows = static_cast<int64_t>(kSlabBytes / sizeof(T)) / std::max<int64_t>(1, a.k[0] * in_row);
  const int64_t chunk_rows =
      std::clamp<int64_t>((fit_rows - (a.k[1] - 1) * l.dil[1] - 1) / l.stride[1] + 1, 1, std::max<int64_t>(1, l.q[1]));
  const size_t slab_elems = in_place ? 0 : static_cast<size_t>(a.k[0] * span_of(chunk_rows) * in_row);
  ParallelFor(runner, tasks, [&](int64_t t, int) {
    const int64_t begin = rows * t / tasks, end = rows * (t + 1) / tasks;
    ScratchLease<DirectSlabScratch, T> slab_lease(slab_elems);
    ScratchLease<DirectRowScratch, T> row_lease(direct_out ? 0 : out_row);
    ScratchLease<DirectTapScratch, const void*> tap_lease(static_cast<size_t>(k01));
    T* slab = slab_lease.get();
    T* row_buf = row_lease.get();
    const void** taps = tap_lease.get();
    for (int64_t r = begin; r < end;) {
      // A chunk of output rows with one (b, q0): rows q1 .. q1 + n - 1.
      const int64_t q1 = r % l.q[1], q0 = (r / l.q[1]) % l.q[0], b = r / (l.q[1] * l.q[0]);
      const int64_t n = in_place ? std::min(end - r, l.q[1] - q1) : std::min({end - r, l.q[1] - q1, chunk_rows});
      const int64_t span = span_of(n);
      if (!in_place) {
        for (int64_t t0 = 0; t0 < a.k[0]; ++t0)
          for (int64_t j = 0; j < span; ++j)
            PackRow<T>(l, a, src, chan_off, chan_contiguous, b, q0 * l.stride[0] + t0 * l.dil[0],
                       q1 * l.stride[1] + j, slab + (t0 * span + j) * in_row);
      }
      for (int64_t k = 0; k < n; ++k) {
        for (int64_t t0 = 0; t0 < a.k[0]; ++t0)
          for (int64_t t1 = 0; t1 < a.k[1]; ++t1) {
            const int64_t j = k * l.stride[1] + t1 * l.dil[1];  // row within the chunk's span
            if (in_place) {
              const int64_t i0 = q0 * l.stride[0] + t0 * l.dil[0] - l.lo[0], i1 = q1 * l.stride[1] + j - l.lo[1];
              taps[t0 * a.k[1] + t1] = i0 >= 0 && i0 < l.in_size[0] && i1 >= 0 && i1 < l.in_size[1]
                                           ? src + b * l.in_batch_step + i0 * l.in_step[0] + i1 * l.in_step[1]
                                           : zero_row;
            } else {
              taps[t0 * a.k[1] + t1] = slab + (t0 * span + j) * in_row;
            }
          }
        const int64_t rr = r + k;
        if (direct_out) {
          row_kernel(taps, dst + rr * static_cast<int64_t>(out_row));
        } else {
          row_kernel(taps, row_buf);
          ScatterRow<T>(l, a, row_buf, b, q0, q1 + k, dst);
        }
      }
      // Rows [r, r + n) are output elements [r, r + n) * out_row here,
      // still in cache: the epilogue runs on them now.
      if (direct_out && epilogue != nullptr)
        RunElementwiseRange(*epilogue, static_cast<size_t>(r) * out_row, static_cast<size_t>(r + n) * out_row);
      r += n;
    }
  });
  if (!direct_out && epilogue != nullptr) RunElementwiseRangeParallel(*epilogue, 0, epilogue->n, runner);
}

}  // namespace

bool DirectConvolutionApplies(const ConvGeometry& g) {
  if (g.fgc <= 1 || g.isp.size() > 3) return false;
  // A group with many inputs and many outputs is a real GEMM; the packed
  // input grows by the outputs per group, so keep that small too.
  const int64_t opg = g.k_out / g.fgc;
  return std::min(g.k_in, opg) < 16 && g.k_in * opg <= 64;
}

void DirectConvolution(const ConvGeometry& g, const TensorRef& lhs, const TensorRef& rhs, const TensorRef& out,
                       TaskRunner* runner, const ElementwiseProblem* epilogue) {
  if (PlanarDepthwiseApplies(g)) return PlanarDepthwise(g, lhs, rhs, out, runner, epilogue);
  if (out.type == ElementType::kF32) {
    Run<float>(g, lhs, rhs, out, runner, epilogue);
  } else {
    Run<double>(g, lhs, rhs, out, runner, epilogue);
  }
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE

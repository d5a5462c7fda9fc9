// Fast stablehlo.reduce for one f32, f64, f16 or bf16 operand whose body is
// a single add, maximum or minimum of its two parameters, over axes that
// form one contiguous block of the operand's dims, axes of size 1 aside
// (what softmax, layer norms, means and pooling heads use), or, for f32 and
// f64 without a producer, two blocks with a kept one between them (a batch
// norm's statistics: ReduceSplitRows); anything else runs the reference
// kernel. f16/bf16 operands are widened exactly to f32 a block at a time,
// folded in f32 with each add rounded to their type (RoundTo16: the
// reference's rounding of the exact sum), and the results narrowed back.
//
// The operand is viewed as [outer, R, inner] (R = the reduced block). Each
// result gets exactly the reference's bits:
//  - inner > 1: SIMD across `inner` (neighbouring results), each result
//    folding its R inputs in increasing order from the init value;
//  - inner == 1, maximum/minimum: SIMD across R (these are associative and
//    commutative, NaN and signed zeros included), then across lanes;
//  - inner == 1, add: the 16-lane tree order of kernels/reference/
//    reduction_order.h, as 4 vectors of 4 f32 (8 of 2 f64) lanes.
// Work is split over the thread pool by result rows; a result is never
// split, so the thread count cannot change a bit.
//
// A fused producer (the "input" program, compiler/passes/fuse_elementwise.h)
// runs through the elementwise interpreter (elementwise.h) into a scratch
// block of at most kChunk elements (L2-resident) that is folded right away:
// the operand (the exp of softmax, the squared deviation of a norm) never
// reaches memory. Blocks are whole rows when rows fit, else pieces of one
// row whose lengths are multiples of 16, so the order stays the same.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/reduction.cc"
#include "kernels/cpu/aligned_scratch.h"
#include "kernels/cpu/hwy_targets.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "hwy/aligned_allocator.h"
#include "kernels/cpu/float_ops-inl.h"

#ifndef KILN_CPU_REDUCTION_SHARED
#define KILN_CPU_REDUCTION_SHARED
#include "kernels/common/kernel_selection.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/elementwise_lanes32.h"
#include "kernels/cpu/reduction_select.h"
#include "kernels/cpu/half_float.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cpu/reduce_body.h"
#include "kernels/cpu/reduction.h"
#include "kernels/reference/reduction_order.h"

namespace kiln::cpu {
// The 16-bit type f32 values stand for: each add's result is rounded to it.
enum class Half { kNone, kBF16, kF16 };

// RoundTo16's scalar twin, for the tree order's scalar steps (the codec's
// own rounding).
template <Half H>
struct ScalarRound {
  float operator()(float v) const {
    if constexpr (H == Half::kBF16) return BF16ToF32(F32ToBF16(v));
    if constexpr (H == Half::kF16) return F16ToF32(F32ToF16(v));
    return v;
  }
  double operator()(double v) const { return v; }
};
}  // namespace kiln::cpu

#endif  // KILN_CPU_REDUCTION_SHARED

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// f32 values rounded to the 16-bit type H as the codec rounds (half_float.h:
// to nearest even; f16 into subnormals and past 65504 to infinity), kept as
// f32; a NaN (the quiet result of an add) keeps its sign and the payload
// bits the type holds. Identity for H == kNone.
template <Half H, class D, class V = hn::Vec<D>>
HWY_INLINE V RoundTo16(D d, V v) {
  if constexpr (H == Half::kNone) {
    return v;
  } else {
    const hn::RebindToSigned<D> di;
    const auto b = hn::BitCast(di, v);
    const auto nan = hn::RebindMask(di, hn::IsNaN(v));
    const auto one = hn::Set(di, 1);
    if constexpr (H == Half::kBF16) {
      const auto keep = hn::Set(di, static_cast<int32_t>(0xFFFF0000u));
      const auto r = hn::And(hn::Add(hn::Add(b, hn::Set(di, 0x7FFF)), hn::And(hn::ShiftRight<16>(b), one)), keep);
      return hn::BitCast(d, hn::IfThenElse(nan, hn::And(b, keep), r));
    } else {
      const auto sign = hn::And(b, hn::Set(di, static_cast<int32_t>(0x80000000u)));
      const auto mag = hn::Xor(b, sign);
      // Normal f16 magnitudes: 13 bits dropped, to nearest even; past the
      // largest finite value (65504), infinity.
      auto r = hn::And(hn::Add(hn::Add(mag, hn::Set(di, 0xFFF)), hn::And(hn::ShiftRight<13>(mag), one)),
                       hn::Set(di, static_cast<int32_t>(0xFFFFE000u)));
      r = hn::IfThenElse(hn::Gt(r, hn::Set(di, 0x477FE000)), hn::Set(di, 0x7F800000), r);
      // Below 2^-14 (f16's subnormals): to a multiple of 2^-24, by the
      // hardware's own rounding of |v| + 0.5 (whose ulp is 2^-24).
      const auto half = hn::Set(d, 0.5f);
      const auto tiny = hn::BitCast(di, hn::Sub(hn::Add(hn::BitCast(d, mag), half), half));
      r = hn::IfThenElse(hn::Lt(mag, hn::Set(di, 0x38800000)), tiny, r);
      const auto nan_bits = hn::And(b, hn::Set(di, static_cast<int32_t>(0xFFFFE000u)));
      return hn::BitCast(d, hn::IfThenElse(nan, nan_bits, hn::Or(r, sign)));
    }
  }
}

// Adds x[0..16 * blocks) to the 16 tree lanes (reduction_order.h).
template <Half H>
HWY_INLINE void FeedLanes(const float* HWY_RESTRICT x, size_t blocks, float* HWY_RESTRICT lanes) {
  const hn::CappedTag<float, 4> d;  // 4 lanes (FoldInto checks)
  auto a0 = hn::LoadU(d, lanes), a1 = hn::LoadU(d, lanes + 4);
  auto a2 = hn::LoadU(d, lanes + 8), a3 = hn::LoadU(d, lanes + 12);
  for (size_t b = 0; b < blocks; ++b, x += 16) {
    a0 = RoundTo16<H>(d, hn::Add(a0, hn::LoadU(d, x)));
    a1 = RoundTo16<H>(d, hn::Add(a1, hn::LoadU(d, x + 4)));
    a2 = RoundTo16<H>(d, hn::Add(a2, hn::LoadU(d, x + 8)));
    a3 = RoundTo16<H>(d, hn::Add(a3, hn::LoadU(d, x + 12)));
  }
  hn::StoreU(a0, d, lanes);
  hn::StoreU(a1, d, lanes + 4);
  hn::StoreU(a2, d, lanes + 8);
  hn::StoreU(a3, d, lanes + 12);
}

template <Half H>
HWY_INLINE void FeedLanes(const double* HWY_RESTRICT x, size_t blocks, double* HWY_RESTRICT lanes) {
  const hn::CappedTag<double, 2> d;  // 2 lanes (FoldInto checks)
  auto a0 = hn::LoadU(d, lanes), a1 = hn::LoadU(d, lanes + 2), a2 = hn::LoadU(d, lanes + 4);
  auto a3 = hn::LoadU(d, lanes + 6), a4 = hn::LoadU(d, lanes + 8), a5 = hn::LoadU(d, lanes + 10);
  auto a6 = hn::LoadU(d, lanes + 12), a7 = hn::LoadU(d, lanes + 14);
  for (size_t b = 0; b < blocks; ++b, x += 16) {
    a0 = hn::Add(a0, hn::LoadU(d, x));
    a1 = hn::Add(a1, hn::LoadU(d, x + 2));
    a2 = hn::Add(a2, hn::LoadU(d, x + 4));
    a3 = hn::Add(a3, hn::LoadU(d, x + 6));
    a4 = hn::Add(a4, hn::LoadU(d, x + 8));
    a5 = hn::Add(a5, hn::LoadU(d, x + 10));
    a6 = hn::Add(a6, hn::LoadU(d, x + 12));
    a7 = hn::Add(a7, hn::LoadU(d, x + 14));
  }
  hn::StoreU(a0, d, lanes);
  hn::StoreU(a1, d, lanes + 2);
  hn::StoreU(a2, d, lanes + 4);
  hn::StoreU(a3, d, lanes + 6);
  hn::StoreU(a4, d, lanes + 8);
  hn::StoreU(a5, d, lanes + 10);
  hn::StoreU(a6, d, lanes + 12);
  hn::StoreU(a7, d, lanes + 14);
}

// The 16 tree lanes of four rows at once (x, x + stride, ...; 16 * blocks
// elements each), from -0, into lanes[16 * row + j]: each lane is one chain
// of dependent adds, and a single row's 16 chains wait on the add latency;
// four rows' chains fill the pipeline. Runs where 16 lanes are one or two
// vectors (AVX3, AVX2; f64 on AVX3), else returns false and the caller
// feeds each row alone.
template <Half H, typename T>
HWY_INLINE bool FeedFourRows(const T* HWY_RESTRICT x, size_t stride, size_t blocks, T* HWY_RESTRICT lanes) {
  const hn::CappedTag<T, ref::kReduceLanes> d;
  const size_t N = hn::Lanes(d);
  if (N != ref::kReduceLanes && 2 * N != ref::kReduceLanes) return false;
  const T* HWY_RESTRICT x0 = x;
  const T* HWY_RESTRICT x1 = x + stride;
  const T* HWY_RESTRICT x2 = x + 2 * stride;
  const T* HWY_RESTRICT x3 = x + 3 * stride;
  const auto z = hn::Set(d, T(-0.0));
  auto a0 = z, a1 = z, a2 = z, a3 = z;  // lanes [0, N) of each row
  auto b0 = z, b1 = z, b2 = z, b3 = z;  // lanes [N, 16) when N == 8
  const size_t end = blocks * ref::kReduceLanes;
  if (N == ref::kReduceLanes) {
    for (size_t i = 0; i < end; i += ref::kReduceLanes) {
      a0 = RoundTo16<H>(d, hn::Add(a0, hn::LoadU(d, x0 + i)));
      a1 = RoundTo16<H>(d, hn::Add(a1, hn::LoadU(d, x1 + i)));
      a2 = RoundTo16<H>(d, hn::Add(a2, hn::LoadU(d, x2 + i)));
      a3 = RoundTo16<H>(d, hn::Add(a3, hn::LoadU(d, x3 + i)));
    }
  } else {
    for (size_t i = 0; i < end; i += ref::kReduceLanes) {
      a0 = RoundTo16<H>(d, hn::Add(a0, hn::LoadU(d, x0 + i)));
      b0 = RoundTo16<H>(d, hn::Add(b0, hn::LoadU(d, x0 + i + N)));
      a1 = RoundTo16<H>(d, hn::Add(a1, hn::LoadU(d, x1 + i)));
      b1 = RoundTo16<H>(d, hn::Add(b1, hn::LoadU(d, x1 + i + N)));
      a2 = RoundTo16<H>(d, hn::Add(a2, hn::LoadU(d, x2 + i)));
      b2 = RoundTo16<H>(d, hn::Add(b2, hn::LoadU(d, x2 + i + N)));
      a3 = RoundTo16<H>(d, hn::Add(a3, hn::LoadU(d, x3 + i)));
      b3 = RoundTo16<H>(d, hn::Add(b3, hn::LoadU(d, x3 + i + N)));
    }
    hn::StoreU(b0, d, lanes + N);
    hn::StoreU(b1, d, lanes + 16 + N);
    hn::StoreU(b2, d, lanes + 32 + N);
    hn::StoreU(b3, d, lanes + 48 + N);
  }
  hn::StoreU(a0, d, lanes);
  hn::StoreU(a1, d, lanes + 16);
  hn::StoreU(a2, d, lanes + 32);
  hn::StoreU(a3, d, lanes + 48);
  return true;
}

#if (HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3) && !KILN_SELECTIVE_BUILD  // (selective: held to their size)
// The tree's pairwise fold (s[j] += s[j + half], half = 8, 4, 2, 1) of one
// vector's lanes, in registers: each step adds the upper half to the lower.
template <Half H, class D>
HWY_INLINE hn::TFromD<D> FoldVector(D d, hn::VFromD<D> v) {
  if constexpr (hn::MaxLanes(d) == 1) {
    return hn::GetLane(v);
  } else {
    const hn::Half<D> dh;
    return FoldVector<H>(dh, RoundTo16<H>(dh, hn::Add(hn::LowerHalf(dh, v), hn::UpperHalf(dh, v))));
  }
}

// Tree lanes [base, base + N) of a row's tail (its last rem < 16 elements,
// which go to lanes 0 .. rem - 1): the row's elements where the tail covers
// the whole vector, else the row's last N elements rotated into place with
// -0 (the exact identity: x + -0 == x for every x) in the lanes past it.
// Reads only inside the row (r >= 16).
template <class D, typename T = hn::TFromD<D>>
HWY_INLINE hn::VFromD<D> TailLanes(D d, const T* HWY_RESTRICT row, size_t r, size_t rem, size_t base) {
  const size_t N = hn::Lanes(d);
  const size_t c = std::min(rem - base, N);  // the callers have rem > base
  if (c == N) return hn::LoadU(d, row + (r - rem) + base);
  const hn::RebindToSigned<D> di;
  using TI = hn::TFromD<decltype(di)>;
  const auto idx = hn::And(hn::Add(hn::Iota(di, 0), hn::Set(di, static_cast<TI>(N - c))), hn::Set(di, static_cast<TI>(N - 1)));
  const auto rotated = hn::TableLookupLanes(hn::LoadU(d, row + r - N), hn::IndicesFromVec(d, idx));
  return hn::IfThenElse(hn::FirstN(d, c), rotated, hn::Set(d, T(-0.0)));
}

// Four rows' sums (x, x + stride, ...; r >= 16 elements each) in the tree
// order, in registers from the first load to the result: the 16 lanes as one
// or two vectors, the tail, the pairwise fold, init + s[0]. On AVX2 and
// AVX-512 (16 lanes of f32 or f64 as one or two vectors); false elsewhere.
// Short rows (a pooling head's 7 x 7) were dominated by the lanes' trips
// through memory, whose narrow stores stall the wide loads after them.
template <Half H, typename T>
HWY_INLINE bool SumFourRows(const T* HWY_RESTRICT x, size_t stride, size_t r, T init, T* HWY_RESTRICT out) {
  const hn::CappedTag<T, ref::kReduceLanes> d;
  constexpr size_t N = hn::MaxLanes(d);
  if constexpr (N != ref::kReduceLanes && 2 * N != ref::kReduceLanes) {
    return false;
  } else {
    const size_t fed = r / ref::kReduceLanes * ref::kReduceLanes, rem = r - fed;
    const auto z = hn::Set(d, T(-0.0));
    hn::VFromD<decltype(d)> a[4] = {z, z, z, z}, b[4] = {z, z, z, z};  // lanes [0, N) and [N, 16)
    for (size_t i = 0; i < fed; i += ref::kReduceLanes)
      for (size_t k = 0; k < 4; ++k) {
        a[k] = RoundTo16<H>(d, hn::Add(a[k], hn::LoadU(d, x + k * stride + i)));
        if constexpr (N < ref::kReduceLanes) b[k] = RoundTo16<H>(d, hn::Add(b[k], hn::LoadU(d, x + k * stride + i + N)));
      }
    const ScalarRound<H> round;
    for (size_t k = 0; k < 4; ++k) {
      const T* row = x + k * stride;
      auto v = a[k];
      if (rem > 0) v = RoundTo16<H>(d, hn::Add(v, TailLanes(d, row, r, rem, 0)));
      if constexpr (N < ref::kReduceLanes) {
        auto w = b[k];
        if (rem > N) w = RoundTo16<H>(d, hn::Add(w, TailLanes(d, row, r, rem, N)));
        v = RoundTo16<H>(d, hn::Add(v, w));  // s[j] += s[j + 8]
      }
      out[k] = round(init + FoldVector<H>(d, v));
    }
    return true;
  }
}
#else
template <Half H, typename T>
HWY_INLINE bool SumFourRows(const T*, size_t, size_t, T, T*) {
  return false;
}
#endif

// maximum/minimum of dst[0] and x[0..r) with the plain SIMD max/min (one op
// per vector instead of MaxLikeReference's chain), noting NaNs on the way:
// without NaN, and with a result other than zero, it is the reference's
// value (only NaN payloads and the sign of zero depend on the order and on
// how max/min treat them). Stores it and returns true then; false leaves
// dst alone for the exact fold (a NaN, a zero result: a row of relu
// outputs, say).
template <class D, typename T = hn::TFromD<D>>
HWY_INLINE bool NumericMinMax(D d, ReduceOp op, const T* HWY_RESTRICT x, size_t r, T* dst) {
  const size_t N = hn::Lanes(d);
  if (std::isnan(dst[0])) return false;
  const bool max = op == ReduceOp::kMax;
#if HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR && !KILN_SELECTIVE_BUILD
  if (r > 0 && r < N) {
    // A row shorter than a vector (a classifier's ten logits): one vector,
    // the lanes past the row holding dst[0]; the same test as below. The
    // masked loads of AVX2 and AVX-512 read nothing past the row (on other
    // targets Highway's may load the whole vector: through a copy there).
    const auto in_row = hn::FirstN(d, r);
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
    const auto v = hn::IfThenElse(in_row, hn::MaskedLoad(in_row, d, x), hn::Set(d, dst[0]));
#else
    HWY_ALIGN T row[HWY_MAX_BYTES / sizeof(T)] = {};
    std::memcpy(row, x, r * sizeof(T));
    const auto v = hn::IfThenElse(in_row, hn::Load(d, row), hn::Set(d, dst[0]));
#endif
    if (!hn::AllFalse(d, hn::IsNaN(v))) return false;
    const T m = hn::GetLane(max ? hn::MaxOfLanes(d, v) : hn::MinOfLanes(d, v));
    if (m == T(0)) return false;
    dst[0] = m;
    return true;
  }
#endif
  if (r < 4 * N) return false;
  auto m0 = hn::LoadU(d, x), m1 = hn::LoadU(d, x + N), m2 = hn::LoadU(d, x + 2 * N), m3 = hn::LoadU(d, x + 3 * N);
  auto nan = hn::Or(hn::Or(hn::IsNaN(m0), hn::IsNaN(m1)), hn::Or(hn::IsNaN(m2), hn::IsNaN(m3)));
  size_t k = 4 * N;
  for (; k + 4 * N <= r; k += 4 * N) {
    const auto v0 = hn::LoadU(d, x + k), v1 = hn::LoadU(d, x + k + N);
    const auto v2 = hn::LoadU(d, x + k + 2 * N), v3 = hn::LoadU(d, x + k + 3 * N);
    nan = hn::Or(nan, hn::Or(hn::Or(hn::IsNaN(v0), hn::IsNaN(v1)), hn::Or(hn::IsNaN(v2), hn::IsNaN(v3))));
    m0 = max ? hn::Max(m0, v0) : hn::Min(m0, v0);
    m1 = max ? hn::Max(m1, v1) : hn::Min(m1, v1);
    m2 = max ? hn::Max(m2, v2) : hn::Min(m2, v2);
    m3 = max ? hn::Max(m3, v3) : hn::Min(m3, v3);
  }
  // The last (overlapping) four vectors: max/min may see an element twice.
  if (k < r) {
    const size_t e = r - 4 * N;
    const auto v0 = hn::LoadU(d, x + e), v1 = hn::LoadU(d, x + e + N);
    const auto v2 = hn::LoadU(d, x + e + 2 * N), v3 = hn::LoadU(d, x + e + 3 * N);
    nan = hn::Or(nan, hn::Or(hn::Or(hn::IsNaN(v0), hn::IsNaN(v1)), hn::Or(hn::IsNaN(v2), hn::IsNaN(v3))));
    m0 = max ? hn::Max(m0, v0) : hn::Min(m0, v0);
    m1 = max ? hn::Max(m1, v1) : hn::Min(m1, v1);
    m2 = max ? hn::Max(m2, v2) : hn::Min(m2, v2);
    m3 = max ? hn::Max(m3, v3) : hn::Min(m3, v3);
  }
  if (!hn::AllFalse(d, nan)) return false;
  const auto m = max ? hn::Max(hn::Max(m0, m1), hn::Max(m2, m3)) : hn::Min(hn::Min(m0, m1), hn::Min(m2, m3));
#if HWY_TARGET == HWY_EMU128
  // Highway 1.0.3's portable MaxOfLanes/MinOfLanes start from the type's
  // lowest/highest finite value, so lanes all -inf (+inf) reduce to
  // -FLT_MAX (FLT_MAX); the lanes are folded here instead. (GCC 12.2 builds
  // HWY_SCALAR in its place; clang builds this target.)
  T v = hn::GetLane(m);
  for (size_t lane = 1; lane < N; ++lane) {
    const T e = hn::ExtractLane(m, lane);
    v = max ? std::max(v, e) : std::min(v, e);
  }
#else
  T v = hn::GetLane(max ? hn::MaxOfLanes(d, m) : hn::MinOfLanes(d, m));
#endif
  v = max ? std::max(v, dst[0]) : std::min(v, dst[0]);
  if (v == T(0)) return false;
  dst[0] = v;
  return true;
}

// Rows of at least this many bytes are folded a row at a time (FoldInto),
// over chunks of this many columns.
constexpr size_t kStreamRowsMinBytes = 1024;
constexpr size_t kStreamRowsCols = 2048;

// Wide rows (a reduce over a leading axis: column sums): r rows of `width`
// values, `stride` apart, streamed in order into the accumulators
// dst[0..width), a chunk of columns at a time (in L1). Each result combines
// its values in the same order as FoldInto's column walk, so the bits are
// the same; but the operand is read sequentially, where walking down each
// column vector by vector read one cache line per row and crossed a page
// every row or few (a column sum of 4096x1024 f32 at 9 GB/s: the
// prefetcher stops at pages). Speed only: not in selective builds.
template <Half H, typename T>
void StreamRowsInto(ReduceOp op, const T* HWY_RESTRICT x, size_t r, size_t width, size_t stride,
                    T* HWY_RESTRICT dst) {
  const hn::ScalableTag<T> d;
  const hn::CappedTag<T, 1> d1;
  const size_t N = hn::Lanes(d);
  for (size_t c0 = 0; c0 < width; c0 += kStreamRowsCols) {
    const size_t c1 = std::min(width, c0 + kStreamRowsCols);
    for (size_t k = 0; k < r; ++k) {
      const T* HWY_RESTRICT row = x + k * stride;
      size_t i = c0;
      for (; i + N <= c1; i += N)
        hn::StoreU(RoundTo16<H>(d, Combine(d, op, hn::LoadU(d, dst + i), hn::LoadU(d, row + i))), d, dst + i);
      for (; i < c1; ++i)
        dst[i] = hn::GetLane(RoundTo16<H>(d1, Combine(d1, op, hn::Set(d1, dst[i]), hn::Set(d1, row[i]))));
    }
  }
}

// Folds x[0..r * inner) (r rows of `inner` values) into the running
// accumulators: dst[0..inner) for inner > 1 or maximum/minimum, `lanes`
// (16 tree lanes, `first` elements fed before, a multiple of 16 unless
// this is the row's last piece) for an inner == 1 add. Adds round to H
// (maximum and minimum of values of H are values of H).
template <Half H, typename T>
void FoldInto(ReduceOp op, const T* HWY_RESTRICT x, size_t r, size_t inner, T* HWY_RESTRICT dst, T* lanes,
              size_t first) {
  const hn::ScalableTag<T> d;
  const hn::CappedTag<T, 1> d1;
  const size_t N = hn::Lanes(d);
  if constexpr (!KILN_SELECTIVE_BUILD) {
    if (inner * sizeof(T) >= kStreamRowsMinBytes) return StreamRowsInto<H>(op, x, r, inner, inner, dst);
  }
  if (inner > 1) {
    size_t i = 0;
    for (; i + N <= inner; i += N) {
      auto acc = hn::LoadU(d, dst + i);
      for (size_t k = 0; k < r; ++k) acc = RoundTo16<H>(d, Combine(d, op, acc, hn::LoadU(d, x + k * inner + i)));
      hn::StoreU(acc, d, dst + i);
    }
    for (; i < inner; ++i) {
      auto acc = hn::Set(d1, dst[i]);
      for (size_t k = 0; k < r; ++k) acc = RoundTo16<H>(d1, Combine(d1, op, acc, hn::Set(d1, x[k * inner + i])));
      dst[i] = hn::GetLane(acc);
    }
  } else if (op == ReduceOp::kAdd) {
    size_t done = 0;
    // (HWY_SCALAR has 1-lane vectors: it feeds the lanes one by one.)
    const hn::CappedTag<T, 16 / sizeof(T)> d128;
    if (first % ref::kReduceLanes == 0 && hn::Lanes(d128) == 16 / sizeof(T)) {
      FeedLanes<H>(x, r / ref::kReduceLanes, lanes);
      done = r / ref::kReduceLanes * ref::kReduceLanes;
    }
    ref::TreeSumFeed(x + done, r - done, first + done, lanes, ScalarRound<H>());
  } else {
    if (NumericMinMax(d, op, x, r, dst)) return;
    auto one = hn::Set(d1, dst[0]);
    size_t k = 0;
    // A row shorter than a vector (a classifier's ten logits) skips the
    // vector stage: there every lane would hold dst[0], and folding a value
    // with itself gives its own bits back (MaxLikeReference,
    // MinLikeReference), so the lane walk would change nothing.
    if (r >= N) {
      // Four independent accumulators: MaxLikeReference is a chain of ~5
      // dependent ops, and one accumulator would wait on it for every vector.
      auto acc = hn::Set(d, dst[0]);
      auto acc1 = acc, acc2 = acc, acc3 = acc;
      for (; k + 4 * N <= r; k += 4 * N) {
        acc = Combine(d, op, acc, hn::LoadU(d, x + k));
        acc1 = Combine(d, op, acc1, hn::LoadU(d, x + k + N));
        acc2 = Combine(d, op, acc2, hn::LoadU(d, x + k + 2 * N));
        acc3 = Combine(d, op, acc3, hn::LoadU(d, x + k + 3 * N));
      }
      acc = Combine(d, op, Combine(d, op, acc, acc1), Combine(d, op, acc2, acc3));
      for (; k + N <= r; k += N) acc = Combine(d, op, acc, hn::LoadU(d, x + k));
      for (size_t lane = 0; lane < N; ++lane) one = Combine(d1, op, one, hn::Set(d1, hn::ExtractLane(acc, lane)));
    }
    for (; k < r; ++k) one = Combine(d1, op, one, hn::Set(d1, x[k]));
    dst[0] = hn::GetLane(one);
  }
}

// Per-thread scratch, kept between dispatches (as the elementwise kernel's);
// `kSlot` tells blocks needed at once apart.
template <typename T, int kSlot = 0>
T* ThreadScratch(size_t need) {
  thread_local hwy::AlignedFreeUniquePtr<T[]> scratch;
  thread_local size_t scratch_size = 0;
  if (scratch_size < need) {
    scratch = AllocateAlignedOrThrow<T>(need);
    scratch_size = need;
  }
  return scratch.get();
}

// Results [row_begin, row_end) of `p`. H != kNone: p's operand, init and
// results are f16/bf16 bits, T is float.
template <Half H, typename T>
void ReduceRows(const ReduceProblem& p) {
  constexpr bool kHalf = H != Half::kNone;
  constexpr bool kBF16 = H == Half::kBF16;
  T init;
  if constexpr (kHalf) {
    WidenToF32(static_cast<const uint16_t*>(p.init), kBF16, 1, &init);
  } else {
    std::memcpy(&init, p.init, sizeof(T));
  }
  const bool tree = p.inner == 1 && p.op == ReduceOp::kAdd;
  const size_t row = p.r * p.inner;  // operand elements per outer row
  // 16-bit results are computed as f32 into a scratch block of this task's
  // results, then narrowed.
  T* out = static_cast<T*>(p.out);
  float* half_out = nullptr;
  if constexpr (kHalf) {
    half_out = ThreadScratch<float, 1>((p.row_end - p.row_begin) * p.inner);
    out = half_out - p.row_begin * p.inner;
  }
  auto narrow = [&] {
    if constexpr (kHalf)
      NarrowFromF32(half_out, kBF16, static_cast<int64_t>((p.row_end - p.row_begin) * p.inner),
                    static_cast<uint16_t*>(p.out) + p.row_begin * p.inner);
  };
  T lanes[ref::kReduceLanes];
  // Rows [o, o + rows) of operand values at x: fold each from its init.
  auto fold_rows = [&](const T* x, size_t o, size_t rows) {
    size_t k = 0;
    const size_t blocks = p.r / ref::kReduceLanes, fed = blocks * ref::kReduceLanes;
    if (tree && blocks > 0) {
      while (k + 4 <= rows && SumFourRows<H>(x + k * row, row, p.r, init, out + o + k)) k += 4;
      T four[4 * ref::kReduceLanes];
      for (; k + 4 <= rows && FeedFourRows<H>(x + k * row, row, blocks, four); k += 4) {
        for (size_t j = 0; j < 4; ++j) {
          T* l = four + j * ref::kReduceLanes;
          ref::TreeSumFeed(x + (k + j) * row + fed, p.r - fed, fed, l, ScalarRound<H>());
          out[o + k + j] = ref::TreeSumFinish(l, init, ScalarRound<H>());
        }
      }
    }
    for (; k < rows; ++k) {
      T* dst = out + (o + k) * p.inner;
      if (tree) {
        for (T& l : lanes) l = T(-0.0);
        FoldInto<H>(p.op, x + k * row, p.r, 1, dst, lanes, 0);
        dst[0] = ref::TreeSumFinish(lanes, init, ScalarRound<H>());
      } else {
        std::fill(dst, dst + p.inner, init);
        FoldInto<H>(p.op, x + k * row, p.r, p.inner, dst, lanes, 0);
      }
    }
  };
  if (p.producer == nullptr && !kHalf) {
    fold_rows(static_cast<const T*>(p.in) + p.row_begin * row, p.row_begin, p.row_end - p.row_begin);
    return;
  }
  // The operand a block at a time: computed by the producer, or widened.
  T* scratch = ThreadScratch<T>(std::max(kChunk, p.inner));
  // The producer's problem writing into the scratch: a per-thread copy,
  // whose vectors keep their storage from call to call (a fresh copy was
  // heap traffic on every dispatch).
  thread_local ElementwiseProblem e;
  if (p.producer != nullptr) {
    e = *p.producer;
    e.outputs = {reinterpret_cast<uint8_t*>(scratch)};
    e.stream = false;
  }
  auto produce = [&](size_t begin, size_t count) {
    if constexpr (kHalf) {
      WidenToF32(static_cast<const uint16_t*>(p.in) + begin, kBF16, static_cast<int64_t>(count),
                 reinterpret_cast<float*>(scratch));
    } else {
      e.out_base = begin;
      RunElementwiseRange(e, begin, begin + count);
    }
  };
  if (row <= kChunk) {
    const size_t rows_per_chunk = std::max<size_t>(1, kChunk / std::max<size_t>(1, row));
    for (size_t o = p.row_begin; o < p.row_end; o += rows_per_chunk) {
      const size_t rows = std::min(rows_per_chunk, p.row_end - o);
      produce(o * row, rows * row);
      fold_rows(scratch, o, rows);
    }
    narrow();
    return;
  }
  // Rows longer than the scratch: pieces of `step` reduced positions.
  const size_t step = std::max<size_t>(1, kChunk / p.inner);  // a multiple of 16 when inner == 1
  for (size_t o = p.row_begin; o < p.row_end; ++o) {
    T* dst = out + o * p.inner;
    std::fill(dst, dst + p.inner, init);
    for (T& l : lanes) l = T(-0.0);
    for (size_t k = 0; k < p.r; k += step) {
      const size_t n = std::min(step, p.r - k);
      produce(o * row + k * p.inner, n * p.inner);
      FoldInto<H>(p.op, scratch, n, p.inner, dst, lanes, k);
    }
    if (tree) dst[0] = ref::TreeSumFinish(lanes, init, ScalarRound<H>());
  }
  narrow();
}

// Reduced axes in two blocks with a kept block between them: the operand
// as [k0, r0, k1, r1, k2] (k0 and k2 kept, either of size 1; a batch
// norm's statistics over N, H and W of NCHW are [1, N, C, H*W, 1]). The
// reference folds each result's elements in row-major order (the tree
// order is for one contiguous block only), so each result runs one
// sequential fold over r0 then r1: SIMD across k2 where it is a vector or
// more, else across k1 with gathers (r1 apart), else one result at a time.
// Results [begin, end) of the k0 * k1 (result rows of k2) are computed.
#if !KILN_SELECTIVE_BUILD  // (selective builds, held to their size: the reference)
template <typename T>
void ReduceSplitRows(const SplitReduceProblem& p) {
  const hn::ScalableTag<T> d;
  const hn::CappedTag<T, 1> d1;
  const size_t N = hn::Lanes(d);
  const T* in = static_cast<const T*>(p.in);
  T* out = static_cast<T*>(p.out);
  T init;
  std::memcpy(&init, p.init, sizeof(T));
  const size_t s_r1 = p.k2, s_k1 = p.r1 * p.k2, s_r0 = p.k1 * s_k1, s_k0 = p.r0 * s_r0;
  auto fold_one = [&](const T* x) {  // one result: x[r0 * s_r0 + r1 * s_r1]
    auto acc = hn::Set(d1, init);
    for (size_t a = 0; a < p.r0; ++a)
      for (size_t b = 0; b < p.r1; ++b) acc = Combine(d1, p.op, acc, hn::Set(d1, x[a * s_r0 + b * s_r1]));
    return hn::GetLane(acc);
  };
  size_t row = p.begin;
  while (row < p.end) {
    const size_t i0 = row / p.k1, i1 = row % p.k1;
    const T* x = in + i0 * s_k0 + i1 * s_k1;
    T* y = out + row * p.k2;
    if (p.k2 > 1) {  // lanes along k2
      size_t c = 0;
      for (; c + N <= p.k2; c += N) {
        auto acc = hn::Set(d, init);
        for (size_t a = 0; a < p.r0; ++a)
          for (size_t b = 0; b < p.r1; ++b) acc = Combine(d, p.op, acc, hn::LoadU(d, x + a * s_r0 + b * s_r1 + c));
        hn::StoreU(acc, d, y + c);
      }
      for (; c < p.k2; ++c) y[c] = fold_one(x + c);
      ++row;
      continue;
    }
    // k2 == 1: lanes across k1, r1 * ... apart, while a whole vector of
    // results is left in this k1 row.
    if (i1 + N <= p.k1 && s_k1 <= (size_t{1} << 30) / N) {
      const hn::RebindToSigned<decltype(d)> di;
      using TI = hn::TFromD<decltype(di)>;
      const auto idx = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<TI>(s_k1)));
      auto acc = hn::Set(d, init);
      for (size_t a = 0; a < p.r0; ++a)
        for (size_t b = 0; b < p.r1; ++b) acc = Combine(d, p.op, acc, hn::GatherIndex(d, x + a * s_r0 + b * s_r1, idx));
      const size_t take = std::min(N, p.end - row);
      if (take == N) {
        hn::StoreU(acc, d, y);
      } else {
        HWY_ALIGN T lanes[HWY_MAX_BYTES / sizeof(T)];
        hn::StoreU(acc, d, lanes);
        std::memcpy(y, lanes, take * sizeof(T));
      }
      row += take;
      continue;
    }
    y[0] = fold_one(x);
    ++row;
  }
}
void ReduceSplitF32(const SplitReduceProblem& p) { ReduceSplitRows<float>(p); }
void ReduceSplitF64(const SplitReduceProblem& p) { ReduceSplitRows<double>(p); }
#endif

#if !KILN_SELECTIVE_BUILD
// Results [c0, c1) of each of the outer rows [row_begin, row_end) of `p`
// (no producer, f32 or f64): one wide row's columns split between tasks.
template <typename T>
void ReduceColumns(const ReduceProblem& p, size_t c0, size_t c1) {
  T init;
  std::memcpy(&init, p.init, sizeof(T));
  const T* in = static_cast<const T*>(p.in);
  T* out = static_cast<T*>(p.out);
  for (size_t o = p.row_begin; o < p.row_end; ++o) {
    T* dst = out + o * p.inner + c0;
    std::fill(dst, dst + (c1 - c0), init);
    StreamRowsInto<Half::kNone>(p.op, in + o * p.r * p.inner + c0, p.r, c1 - c0, p.inner, dst);
  }
}
void ReduceColumnsF32(const ReduceProblem& p, size_t c0, size_t c1) { ReduceColumns<float>(p, c0, c1); }
void ReduceColumnsF64(const ReduceProblem& p, size_t c0, size_t c1) { ReduceColumns<double>(p, c0, c1); }
#endif

void ReduceF32(const ReduceProblem& p) { ReduceRows<Half::kNone, float>(p); }
void ReduceF64(const ReduceProblem& p) { ReduceRows<Half::kNone, double>(p); }
#if !KILN_SELECTIVE_BUILD  // (selective builds: the reference reduces 16-bit values)
void ReduceBF16(const ReduceProblem& p) { ReduceRows<Half::kBF16, float>(p); }
void ReduceF16(const ReduceProblem& p) { ReduceRows<Half::kF16, float>(p); }
#endif

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(ReduceF32);
HWY_EXPORT(ReduceF64);
#if !KILN_SELECTIVE_BUILD
HWY_EXPORT(ReduceSplitF32);
HWY_EXPORT(ReduceSplitF64);
HWY_EXPORT(ReduceColumnsF32);
HWY_EXPORT(ReduceColumnsF64);
#endif
#if !KILN_SELECTIVE_BUILD
HWY_EXPORT(ReduceBF16);
HWY_EXPORT(ReduceF16);
#endif

void RunReduceRows(const ReduceProblem& p, ElementType type) {
  switch (type) {
    case ElementType::kF32: return HWY_DYNAMIC_DISPATCH(ReduceF32)(p);
    case ElementType::kF64: return HWY_DYNAMIC_DISPATCH(ReduceF64)(p);
#if !KILN_SELECTIVE_BUILD
    case ElementType::kBF16: return HWY_DYNAMIC_DISPATCH(ReduceBF16)(p);
    case ElementType::kF16: return HWY_DYNAMIC_DISPATCH(ReduceF16)(p);
#endif
    default: return;  // (not reached: BodyOp takes no other type)
  }
}

namespace {
// ReduceBodyOp, `half`: bodies over f16/bf16 too (which only this kernel
// takes: it widens them).
bool BodyOp(const ScalarProgram& prog, bool half, ReduceOp* op, ElementType* type) {
  const ElementType t = prog.param_types.empty() ? ElementType::kInvalid : prog.param_types[0];
  const bool is_half = t == ElementType::kF16 || t == ElementType::kBF16;
  if (t != ElementType::kF32 && t != ElementType::kF64 && !(half && is_half && !KILN_SELECTIVE_BUILD)) return false;
  switch (prog.AsStandardReduction()) {
    case ScalarOp::kAdd: *op = ReduceOp::kAdd; break;
    case ScalarOp::kMaximum: *op = ReduceOp::kMax; break;
    case ScalarOp::kMinimum: *op = ReduceOp::kMin; break;
    default: return false;
  }
  *type = t;
  return true;
}
}  // namespace

bool ReduceBodyOp(const ScalarProgram& prog, ReduceOp* op, ElementType* type) {
  return BodyOp(prog, false, op, type);
}

bool ReduceApplies(const KernelParams& params) {
  const ScalarProgram* body = params.Program("body");
  ReduceOp op;
  ElementType t;
  if (body == nullptr) return false;
  if (BodyOp(*body, true, &op, &t)) return true;
  // Other bodies of 32-bit lane types (argmax, integer reduces) fold on
  // lanes (elementwise_lanes32.h), argmax-like ones with 64-bit indices
  // along rows (reduction_select.h); not in selective builds.
#if KILN_SELECTIVE_BUILD
  return false;
#else
  SelectFoldTable select;
  return params.Program("input") == nullptr && (IsReduceLanes32Body(*body) || AnalyzeSelectFold(*body, &select));
#endif
}

// A reduce over two blocks of axes (ReduceSplitRows), f32 or f64 operand
// without a producer: run_size[0, runs) alternate kept and reduced axes
// (the first reduced where first_reduced), two of them reduced.
Status ReduceSplitAxes(const KernelCall& call, const size_t* run_size, size_t runs, bool first_reduced, ReduceOp op,
                       ElementType t) {
#if KILN_SELECTIVE_BUILD
  return RunReference(call);
#else
  SplitReduceProblem p;
  size_t* slots[5] = {&p.k0, &p.r0, &p.k1, &p.r1, &p.k2};
  for (size_t k = 0, slot = first_reduced ? 1 : 0; k < runs; ++k) *slots[slot++] = run_size[k];
  p.in = call.inputs[0].data;
  p.out = call.outputs[0].data;
  p.init = call.inputs[1].data;
  p.op = op;
  const size_t rows = p.k0 * p.k1, per_row = std::max<size_t>(1, p.r0 * p.r1 * p.k2);
  const size_t rows_per_task = std::max<size_t>(16, (size_t{1} << 16) / per_row);
  ParallelRanges(call.runner, rows, rows_per_task, p,
                 t == ElementType::kF32 ? HWY_DYNAMIC_DISPATCH(ReduceSplitF32) : HWY_DYNAMIC_DISPATCH(ReduceSplitF64));
  return Status::Ok();
#endif
}

Status Reduce(const KernelCall& call) {
  const ScalarProgram* body = call.params.Program("body");
  const ScalarProgram* input = call.params.Program("input");
  ReduceOp op;
  ElementType t;
  const size_t num_params = input ? input->param_types.size() : 1;
#if !KILN_SELECTIVE_BUILD
  if (body != nullptr && !BodyOp(*body, true, &op, &t) && input == nullptr) {
    // argmax and argmin along rows (reduction_select.h), else lane by lane.
    if (RunSelectFold(call)) return Status::Ok();
    if (IsReduceLanes32Body(*body)) return RunReduceLanes32(call);
  }
#endif
  if (body == nullptr || !BodyOp(*body, true, &op, &t) || call.inputs.size() != num_params + 1 ||
      call.outputs.size() != 1)
    return RunReference(call);
  // The operand's shape and, with a producer, how to compute it.
  std::span<const int64_t> in_dims = call.inputs[0].dims;
  ElementwiseProblem producer;
  [[maybe_unused]] const bool half = t == ElementType::kF16 || t == ElementType::kBF16;
  // A 16-bit operand's fused producer is materialised first, by the f16/bf16
  // elementwise kernel (bit-identical to the reference's evaluation).
  std::vector<uint16_t> half_operand;
  TensorRef half_ref;
#if !KILN_SELECTIVE_BUILD  // (where BodyOp takes no 16-bit body)
  if (input != nullptr && half) {
    in_dims = call.params.Ints("input_dims");
    int64_t count = 1;
    for (int64_t dim : in_dims)
      if (dim < 0 || __builtin_mul_overflow(count, dim, &count)) return RunReference(call);
    if (input->results.size() != 1 || input->ValueType(input->results[0]) != t || !IsFloat16Elementwise(*input))
      return RunReference(call);
    half_operand.resize(static_cast<size_t>(count));
    half_ref = TensorRef{t, in_dims, reinterpret_cast<uint8_t*>(half_operand.data()), half_operand.size() * 2};
    const KernelCall produce{call.params, call.inputs.first(num_params), {&half_ref, 1}, call.runner};
    KILN_RETURN_IF_ERROR(RunFloat16Elementwise(produce, *input, call.params.Find("input_broadcast")));
    input = nullptr;
  }
#endif
  if (input != nullptr) {
    in_dims = call.params.Ints("input_dims");
    int64_t count = 1;  // from the module file: the reference gives the error
    for (int64_t dim : in_dims)
      if (dim < 0 || __builtin_mul_overflow(count, dim, &count)) return RunReference(call);
    const KernelCall params{call.params, call.inputs.first(num_params), {}, call.runner};
    if (input->results.size() != 1 || input->ValueType(input->results[0]) != t ||
        !MakeElementwiseProblem(params, input, call.params.Find("input_broadcast"), in_dims, &producer))
      return RunReference(call);
  } else if (half_ref.data == nullptr && !StorageOk(call.inputs[0], t)) {
    return RunReference(call);
  }
  const TensorRef& init = call.inputs[num_params];
  const TensorRef& out = call.outputs[0];
  if (!StorageOk(init, t) || init.rank() != 0 || !StorageOk(out, t)) return RunReference(call);
  // The reduced axes: valid, distinct, and one contiguous block.
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t a : call.params.Ints("dimensions")) {
    if (a < 0 || a >= rank || reduced[a]) return RunReference(call);
    reduced[a] = true;
  }
  std::vector<int64_t> out_dims;
  for (int64_t a = 0; a < rank; ++a)
    if (!reduced[a]) out_dims.push_back(in_dims[a]);
  if (!std::equal(out_dims.begin(), out_dims.end(), out.dims.begin(), out.dims.end())) return RunReference(call);
  if (out.NumElements() == 0) return Status::Ok();
  // The axes as runs of reduced and kept ones, axes of size 1 left out (as
  // the reference's test for its tree order leaves them out).
  // Runs alternate kept and reduced: at most 5 of interest (two reduced).
  size_t run_size[5] = {1, 1, 1, 1, 1}, runs = 0;
  bool first_reduced = false, last_reduced = false;
  for (int64_t a = 0; a < rank; ++a) {
    if (in_dims[a] == 1) continue;
    if (runs == 0 || last_reduced != reduced[a]) {
      if (runs == 5) return RunReference(call);
      if (runs++ == 0) first_reduced = reduced[a];
      last_reduced = reduced[a];
    }
    run_size[runs - 1] *= static_cast<size_t>(in_dims[a]);
  }
  // Runs alternate from the first's kind: runs 0, 2, 4 are reduced where
  // first_reduced, else runs 1 and 3.
  const size_t reduced_runs = (runs + (first_reduced ? 1 : 0)) / 2;
  if (!KILN_SELECTIVE_BUILD && reduced_runs == 2 && input == nullptr && !half)
    return ReduceSplitAxes(call, run_size, runs, first_reduced, op, t);
  if (reduced_runs > 1) return RunReference(call);
  size_t outer = 1, r = 1, inner = 1;
  for (size_t k = 0; k < runs; ++k) {
    const bool is_reduced = (k % 2 == 0) == first_reduced;
    (is_reduced ? r : (k == 0 ? outer : inner)) *= run_size[k];
  }
  ReduceProblem p;
  p.in = input ? nullptr : half_ref.data != nullptr ? half_ref.data : call.inputs[0].data;
  p.producer = input ? &producer : nullptr;
  p.out = out.data;
  p.init = init.data;
  p.outer = outer;
  p.r = r;
  p.inner = inner;
  p.op = op;
  // About 64K inputs per task.
  const size_t per_row = std::max<size_t>(1, r * inner);
  // Fewer result rows than workers, each wide (a column sum): the rows'
  // columns split between tasks instead, in runs of whole cache lines (each
  // result is still one sequential fold: the same bits).
#if !KILN_SELECTIVE_BUILD  // (speed only: not in selective builds)
  const size_t workers = static_cast<size_t>(NumWorkers(call.runner));
  if (input == nullptr && !half && outer < workers && inner >= 64 && per_row >= (size_t{1} << 17)) {
    const size_t parts = std::min({workers, inner / 32, per_row >> 16});
    const size_t width = (inner / parts + 15) / 16 * 16;
    const size_t col_tasks = (inner + width - 1) / width;
    ParallelFor(call.runner, static_cast<int64_t>(outer * col_tasks), [&](int64_t task, int) {
      ReduceProblem q = p;
      q.row_begin = static_cast<size_t>(task) / col_tasks;
      q.row_end = q.row_begin + 1;
      const size_t c0 = static_cast<size_t>(task) % col_tasks * width;
      (t == ElementType::kF32 ? HWY_DYNAMIC_DISPATCH(ReduceColumnsF32) : HWY_DYNAMIC_DISPATCH(ReduceColumnsF64))(
          q, c0, std::min(inner, c0 + width));
    });
    return Status::Ok();
  }
#endif
  const size_t rows_per_task = std::max<size_t>(1, (size_t{1} << 16) / per_row);
  const int64_t tasks = static_cast<int64_t>((outer + rows_per_task - 1) / rows_per_task);
  ParallelFor(call.runner, tasks, [&](int64_t task, int) {
    ReduceProblem q = p;
    q.row_begin = static_cast<size_t>(task) * rows_per_task;
    q.row_end = std::min(outer, q.row_begin + rows_per_task);
    RunReduceRows(q, t);
  });
  return Status::Ok();
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE

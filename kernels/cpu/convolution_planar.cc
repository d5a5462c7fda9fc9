// The planar depthwise CPU convolution of convolution_direct.h: for layouts
// whose innermost dim is the last spatial dim (NCHW, torch's export), each
// output plane (batch, feature) is its own small convolution of one input
// plane, vectorised along the output row. The input plane is copied
// zero-padded into a per-task scratch (a few KiB, in cache), so the taps
// read it without bounds checks -- with a stride along the row, each row in
// that many phases, so a tap's reads stay contiguous; the weights are
// scalars broadcast per tap.
//
// Each output element is summed over the taps in row-major order by the
// same vector code whatever the task split (the row's last partial vector
// stored through a mask), so results are bit-identical at any thread count.
#include <algorithm>
#include <cstring>
#include <span>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/convolution_planar.cc"
#include "kernels/cpu/hwy_targets.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#ifndef KILN_CPU_CONV_PLANAR_SHARED
#define KILN_CPU_CONV_PLANAR_SHARED
#include "kernels/common/parallel.h"
#include "kernels/cpu/convolution_direct.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/thread_scratch.h"

namespace kiln::cpu {

// Elements of slack after each input plane, read (never used) by the last
// partial vector of a row: at least the widest vector's lanes.
constexpr int64_t kPlaneSlack = 256;

// Taps along the row at most (wider windows take the channel-last path).
constexpr int64_t kMaxRowTaps = 64;

// One plane's problem, sizes in elements (canonical three spatial dims).
// With a stride s along the row, each padded input row is stored as s
// phases of `phase_len` elements (element m of phase q is padded column
// m * s + q), so that the row's results x .. x + N - 1 read one contiguous
// run per tap; p[2] is then the stored row's length, s * phase_len.
struct PlanarArgs {
  const void* plane = nullptr;  // [P0][P1][P2], zero-padded input plane
  const void* w = nullptr;      // [K0][K1][K2] weights of this output feature
  void* out = nullptr;          // the output plane's first element
  int64_t p[3] = {1, 1, 1}, k[3] = {1, 1, 1}, q[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, dil[3] = {1, 1, 1};
  int64_t phase_len = 1;
  int64_t out_step[2] = {0, 0};  // output element steps of q0, q1 (q2's is 1)
};

}  // namespace kiln::cpu
#endif  // KILN_CPU_CONV_PLANAR_SHARED

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class T>
void PlanarPlane(const PlanarArgs& a) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const T* plane = static_cast<const T*>(a.plane);
  const T* w = static_cast<const T*>(a.w);
  T* out = static_cast<T*>(a.out);
  const int64_t vec_end = a.q[2] / N * N;
  // Where tap t2 of result x is read, less x: its phase and place in it.
  int64_t tap2[kMaxRowTaps];
  for (int64_t t2 = 0; t2 < a.k[2]; ++t2) {
    const int64_t e = t2 * a.dil[2];
    tap2[t2] = (e % a.stride[2]) * a.phase_len + e / a.stride[2];
  }
  for (int64_t q0 = 0; q0 < a.q[0]; ++q0)
    for (int64_t q1 = 0; q1 < a.q[1]; ++q1) {
      T* orow = out + q0 * a.out_step[0] + q1 * a.out_step[1];
      auto row_of = [&](int64_t t0, int64_t t1) {
        return plane + ((q0 * a.stride[0] + t0 * a.dil[0]) * a.p[1] + q1 * a.stride[1] + t1 * a.dil[1]) * a.p[2];
      };
      int64_t x = 0;
      for (; x + 2 * N <= vec_end; x += 2 * N) {
        V acc0 = hn::Zero(d), acc1 = hn::Zero(d);
        const T* wt = w;
        for (int64_t t0 = 0; t0 < a.k[0]; ++t0)
          for (int64_t t1 = 0; t1 < a.k[1]; ++t1) {
            const T* r = row_of(t0, t1) + x;
            for (int64_t t2 = 0; t2 < a.k[2]; ++t2, ++wt) {
              const V wv = hn::Set(d, *wt);
              acc0 = hn::MulAdd(hn::LoadU(d, r + tap2[t2]), wv, acc0);
              acc1 = hn::MulAdd(hn::LoadU(d, r + tap2[t2] + N), wv, acc1);
            }
          }
        hn::StoreU(acc0, d, orow + x);
        hn::StoreU(acc1, d, orow + x + N);
      }
      for (; x < vec_end; x += N) {
        V acc = hn::Zero(d);
        const T* wt = w;
        for (int64_t t0 = 0; t0 < a.k[0]; ++t0)
          for (int64_t t1 = 0; t1 < a.k[1]; ++t1) {
            const T* r = row_of(t0, t1) + x;
            for (int64_t t2 = 0; t2 < a.k[2]; ++t2, ++wt)
              acc = hn::MulAdd(hn::LoadU(d, r + tap2[t2]), hn::Set(d, *wt), acc);
          }
        hn::StoreU(acc, d, orow + x);
      }
      if (x < a.q[2]) {
        // The row's last partial vector: whole-vector loads (the plane has
        // kPlaneSlack elements of slack past its end; lanes past the row
        // read the next row's values and are not stored).
        V acc = hn::Zero(d);
        const T* wt = w;
        for (int64_t t0 = 0; t0 < a.k[0]; ++t0)
          for (int64_t t1 = 0; t1 < a.k[1]; ++t1) {
            const T* r = row_of(t0, t1) + x;
            for (int64_t t2 = 0; t2 < a.k[2]; ++t2, ++wt)
              acc = hn::MulAdd(hn::LoadU(d, r + tap2[t2]), hn::Set(d, *wt), acc);
          }
        hn::BlendedStore(acc, hn::FirstN(d, static_cast<size_t>(a.q[2] - x)), d, orow + x);
      }
    }
}

// even[i] = src[2 i], odd[i] = src[2 i + 1] for i < pairs: a row of a
// stride-2 plane split into its two phases.
template <class T>
void SplitPairs(const T* HWY_RESTRICT src, int64_t pairs, T* HWY_RESTRICT even, T* HWY_RESTRICT odd) {
  const hn::ScalableTag<T> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + N <= pairs; i += N) {
    hn::Vec<decltype(d)> e, o;
    hn::LoadInterleaved2(d, src + 2 * i, e, o);
    hn::StoreU(e, d, even + i);
    hn::StoreU(o, d, odd + i);
  }
  // The rest four pairs at a time where vectors have four lanes or more
  // (a 112-wide row leaves 8 of its 56 pairs past 16-lane vectors).
  const hn::CappedTag<T, 4> d4;
  const int64_t N4 = static_cast<int64_t>(hn::Lanes(d4));
  if (N4 == 4)
    for (; i + 4 <= pairs; i += 4) {
      hn::Vec<decltype(d4)> e, o;
      hn::LoadInterleaved2(d4, src + 2 * i, e, o);
      hn::StoreU(e, d4, even + i);
      hn::StoreU(o, d4, odd + i);
    }
  for (; i < pairs; ++i) {
    even[i] = src[2 * i];
    odd[i] = src[2 * i + 1];
  }
}

void PlanarF32(const PlanarArgs& a) { PlanarPlane<float>(a); }
void PlanarF64(const PlanarArgs& a) { PlanarPlane<double>(a); }
void SplitPairsF32(const void* src, int64_t pairs, void* even, void* odd) {
  SplitPairs(static_cast<const float*>(src), pairs, static_cast<float*>(even), static_cast<float*>(odd));
}
void SplitPairsF64(const void* src, int64_t pairs, void* even, void* odd) {
  SplitPairs(static_cast<const double*>(src), pairs, static_cast<double*>(even), static_cast<double*>(odd));
}

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(PlanarF32);
HWY_EXPORT(PlanarF64);
HWY_EXPORT(SplitPairsF32);
HWY_EXPORT(SplitPairsF64);

namespace {

inline int64_t Canon(size_t ns, size_t s) { return static_cast<int64_t>(3 - ns + s); }

struct PlanarPlaneScratch;  // thread_scratch.h's tag of a task's padded plane

template <class T>
void Run(const ConvGeometry& g, const TensorRef& lhs, const TensorRef& rhs, const TensorRef& out,
         TaskRunner* runner, const ElementwiseProblem* epilogue) {
  const size_t ns = g.isp.size();
  const auto ls = Strides(lhs.dims), rs = Strides(rhs.dims), os = Strides(out.dims);
  PlanarArgs base;
  int64_t lo[3] = {0, 0, 0}, in_size[3] = {1, 1, 1}, in_step[3] = {0, 0, 0}, w_step[3] = {0, 0, 0};
  int64_t rev[3] = {0, 0, 0}, out_step[3] = {0, 0, 0}, stride[3] = {1, 1, 1};
  for (size_t s = 0; s < ns; ++s) {
    const int64_t c = Canon(ns, s);
    lo[c] = g.padding[2 * s];
    in_size[c] = lhs.dims[g.isp[s]];
    in_step[c] = ls[g.isp[s]];
    base.p[c] = in_size[c] + g.padding[2 * s] + g.padding[2 * s + 1];
    base.k[c] = g.kdims[s];
    base.q[c] = g.spatial_out[s];
    base.dil[c] = g.rhs_dil[s];
    stride[c] = g.strides[s];
    w_step[c] = rs[g.ksp[s]];
    rev[c] = g.reversal[s];
    out_step[c] = os[g.osp[s]];
  }
  base.stride[0] = stride[0], base.stride[1] = stride[1], base.stride[2] = stride[2];
  // The padded row in stride[2] phases (PlanarArgs).
  base.phase_len = (base.p[2] + stride[2] - 1) / stride[2];
  base.p[2] = stride[2] * base.phase_len;
  base.out_step[0] = out_step[0], base.out_step[1] = out_step[1];
  // Weights [k_out][K0][K1][K2], window reversal applied.
  const int64_t taps = base.k[0] * base.k[1] * base.k[2];
  std::vector<T> w(static_cast<size_t>(g.k_out * taps));
  const T* wsrc = reinterpret_cast<const T*>(rhs.data);
  for (int64_t o = 0; o < g.k_out; ++o)
    for (int64_t t0 = 0; t0 < base.k[0]; ++t0)
      for (int64_t t1 = 0; t1 < base.k[1]; ++t1)
        for (int64_t t2 = 0; t2 < base.k[2]; ++t2) {
          const int64_t u0 = rev[0] ? base.k[0] - 1 - t0 : t0, u1 = rev[1] ? base.k[1] - 1 - t1 : t1,
                        u2 = rev[2] ? base.k[2] - 1 - t2 : t2;
          w[static_cast<size_t>(((o * base.k[0] + t0) * base.k[1] + t1) * base.k[2] + t2)] =
              wsrc[o * rs[g.kof] + u0 * w_step[0] + u1 * w_step[1] + u2 * w_step[2]];
        }
  // Per phase q of a padded row, the elements [first[q], last[q]) that
  // hold input columns (the others stay zero padding).
  std::vector<int64_t> first(static_cast<size_t>(stride[2])), last(static_cast<size_t>(stride[2]));
  for (int64_t q = 0; q < stride[2]; ++q) {
    auto ceil_div = [&](int64_t a) { return a <= 0 ? 0 : (a + stride[2] - 1) / stride[2]; };
    first[q] = std::min(ceil_div(lo[2] - q), base.phase_len);
    last[q] = std::clamp(ceil_div(in_size[2] + lo[2] - q), first[q], base.phase_len);
  }
  const int64_t opg = g.k_out / g.fgc;  // the channel multiplier
  const int64_t planes = g.batch * g.k_out;
  const int64_t plane_in = base.p[0] * base.p[1] * base.p[2];
  const int64_t plane_out = base.q[0] * base.q[1] * base.q[2];
  // A feature-major dense result: plane (b, o) is elements
  // [(b * k_out + o) * plane_out, ...), so a task's planes are one range.
  bool dense = g.ob == 0 && g.ofd == 1;
  for (size_t s = 0; s < ns && dense; ++s) dense = g.osp[s] == static_cast<int64_t>(s + 2);
  const int64_t per_task = std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(1, plane_out * taps));
  const int64_t tasks = std::min<int64_t>((planes + per_task - 1) / per_task, 8 * NumWorkers(runner));
  const T* in = reinterpret_cast<const T*>(lhs.data);
  T* dst = reinterpret_cast<T*>(out.data);
  ParallelFor(runner, tasks, [&](int64_t task, int) {
    // The task's padded plane (the thread's, kept between dispatches),
    // zeroed once: the planes below rewrite only its interior.
    ScratchLease<PlanarPlaneScratch, T> plane_lease(static_cast<size_t>(plane_in + kPlaneSlack));
    const std::span<T> plane(plane_lease.get(), static_cast<size_t>(plane_in + kPlaneSlack));
    std::fill(plane.begin(), plane.end(), T(0));
    const int64_t begin = planes * task / tasks, end = planes * (task + 1) / tasks;
    for (int64_t pl = begin; pl < end; ++pl) {
      const int64_t b = pl / g.k_out, o = pl % g.k_out;
      // The zero-padded input plane of input feature o / opg (borders stay
      // zero from the first fill: only the interior is rewritten).
      const T* src = in + b * ls[g.ib] + (o / opg) * ls[g.ifd];
      for (int64_t i0 = 0; i0 < in_size[0]; ++i0)
        for (int64_t i1 = 0; i1 < in_size[1]; ++i1) {
          T* prow = plane.data() + ((i0 + lo[0]) * base.p[1] + i1 + lo[1]) * base.p[2];
          const T* srow = src + i0 * in_step[0] + i1 * in_step[1];
          if (stride[2] == 1 && in_step[2] == 1) {
            std::memcpy(prow + lo[2], srow, static_cast<size_t>(in_size[2]) * sizeof(T));
          } else if (stride[2] == 2 && in_step[2] == 1) {
            // Padded column j = c + lo[2] is element j / 2 of phase j % 2:
            // the columns from the first with j even in pairs, the odd
            // ones out at either end one by one.
            T* ph[2] = {prow, prow + base.phase_len};
            const int64_t c0 = std::min<int64_t>(lo[2] % 2, in_size[2]), pairs = (in_size[2] - c0) / 2;
            for (int64_t c = 0; c < c0; ++c) ph[(c + lo[2]) % 2][(c + lo[2]) / 2] = srow[c];
            const int64_t m0 = (c0 + lo[2]) / 2;
            if constexpr (sizeof(T) == 4) {
              HWY_DYNAMIC_DISPATCH(SplitPairsF32)(srow + c0, pairs, ph[0] + m0, ph[1] + m0);
            } else {
              HWY_DYNAMIC_DISPATCH(SplitPairsF64)(srow + c0, pairs, ph[0] + m0, ph[1] + m0);
            }
            for (int64_t c = c0 + 2 * pairs; c < in_size[2]; ++c) ph[(c + lo[2]) % 2][(c + lo[2]) / 2] = srow[c];
          } else {
            // Element m of phase q is padded column m * s + q, input column
            // m * s + q - lo[2]: for m in [first[q], last[q]).
            for (int64_t q = 0; q < stride[2]; ++q) {
              T* ph = prow + q * base.phase_len;
              const T* from = srow + (q - lo[2]) * in_step[2];
              const int64_t step = stride[2] * in_step[2];
              for (int64_t m = first[q]; m < last[q]; ++m) ph[m] = from[m * step];
            }
          }
        }
      PlanarArgs a = base;
      a.plane = plane.data();
      a.w = w.data() + o * taps;
      a.out = dst + b * os[g.ob] + o * os[g.ofd];
      if constexpr (sizeof(T) == 4) {
        HWY_DYNAMIC_DISPATCH(PlanarF32)(a);
      } else {
        HWY_DYNAMIC_DISPATCH(PlanarF64)(a);
      }
    }
    if (dense && epilogue != nullptr)
      RunElementwiseRange(*epilogue, static_cast<size_t>(begin * plane_out), static_cast<size_t>(end * plane_out));
  });
  if (!dense && epilogue != nullptr) {
    RunElementwiseRangeParallel(*epilogue, 0, epilogue->n, runner);
  }
}

}  // namespace

bool PlanarDepthwiseApplies(const ConvGeometry& g) {
  const size_t ns = g.isp.size();
  if (g.fgc <= 1 || g.k_in != 1 || ns == 0 || ns > 3) return false;
  // The last spatial dim innermost in the input and the output, long
  // enough to fill vectors, with a small stride along it (its phases) and
  // at most kMaxRowTaps taps.
  return g.isp[ns - 1] == g.rank - 1 && g.osp[ns - 1] == g.rank - 1 && g.strides[ns - 1] <= 4 &&
         g.kdims[ns - 1] <= kMaxRowTaps && g.spatial_out[ns - 1] >= 8;
}

void PlanarDepthwise(const ConvGeometry& g, const TensorRef& lhs, const TensorRef& rhs, const TensorRef& out,
                     TaskRunner* runner, const ElementwiseProblem* epilogue) {
  if (out.type == ElementType::kF32) {
    Run<float>(g, lhs, rhs, out, runner, epilogue);
  } else {
    Run<double>(g, lhs, rhs, out, runner, epilogue);
  }
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE

// The direct grouped/depthwise CPU convolution of convolution_direct.h.
//
// Shapes are canonicalised to three spatial dims (missing ones of size 1).
// The input is packed as [batch][P0][P1][P2][k_in][Cp] (P: padded spatial
// sizes, Cp: the output features rounded up to 64 bytes), where element
// (i, o) is input feature group(o) * k_in + i: every output feature then
// reads its own lane, so one vector of output features multiplies one
// vector of inputs by one vector of weights ([K0][K1][K2][k_in][Cp], window
// reversal applied). An NHWC depthwise input with no padding and a
// multiplier of 1 is already that layout and is read in place. The result
// is written channel-last ([batch][Q0][Q1][Q2][Cp]), into the output itself
// when that is its layout, else into scratch scattered to the output after.
//
// Each task is a range of output rows (batch, q0, q1); every output element
// is summed by the same code in the same order (taps row-major, then the
// group's inputs; fused multiply-adds where the target has them) whatever
// the row range or the thread count, so results are bit-identical at any
// number of threads.
#include <algorithm>
#include <cstring>
#include <memory>
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

namespace kiln::cpu {

// The packed problem, sizes in elements.
struct DirectArgs {
  const void* in = nullptr;  // [batch][P0][P1][P2][k_in][cp]
  const void* w = nullptr;   // [K0][K1][K2][k_in][cp]
  void* out = nullptr;       // [batch][Q0][Q1][Q2][cp]
  int64_t batch = 0, k_in = 0, cp = 0;
  int64_t p[3] = {1, 1, 1}, k[3] = {1, 1, 1}, q[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, dil[3] = {1, 1, 1};
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

template <class T>
void DirectRows(const DirectArgs& a, int64_t row_begin, int64_t row_end) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const T* in = static_cast<const T*>(a.in);
  const T* w = static_cast<const T*>(a.w);
  T* out = static_cast<T*>(a.out);
  const int64_t ko = a.k_in * a.cp;  // elements per packed input pixel
  const int64_t col_step = a.stride[2] * ko;
  for (int64_t r = row_begin; r < row_end; ++r) {
    const int64_t q1 = r % a.q[1], q0 = (r / a.q[1]) % a.q[0], b = r / (a.q[1] * a.q[0]);
    const T* in_b = in + b * a.p[0] * a.p[1] * a.p[2] * ko;
    T* out_row = out + r * a.q[2] * a.cp;
    // The input of tap (t0, t1, t2) for output column 0.
    auto tap_base = [&](int64_t t0, int64_t t1, int64_t t2) {
      return in_b + ((q0 * a.stride[0] + t0 * a.dil[0]) * a.p[1] + q1 * a.stride[1] + t1 * a.dil[1]) * a.p[2] * ko +
             t2 * a.dil[2] * ko;
    };
    int64_t c = 0;
    for (; c + N <= a.cp; c += N) {
      int64_t q2 = 0;
      for (; q2 + kCols <= a.q[2]; q2 += kCols) {
        V acc0 = hn::Zero(d), acc1 = hn::Zero(d), acc2 = hn::Zero(d), acc3 = hn::Zero(d);
        const T* wt = w + c;
        for (int64_t t0 = 0; t0 < a.k[0]; ++t0)
          for (int64_t t1 = 0; t1 < a.k[1]; ++t1)
            for (int64_t t2 = 0; t2 < a.k[2]; ++t2) {
              const T* x = tap_base(t0, t1, t2) + q2 * col_step + c;
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
      for (; q2 < a.q[2]; ++q2) {
        V acc = hn::Zero(d);
        const T* wt = w + c;
        for (int64_t t0 = 0; t0 < a.k[0]; ++t0)
          for (int64_t t1 = 0; t1 < a.k[1]; ++t1)
            for (int64_t t2 = 0; t2 < a.k[2]; ++t2) {
              const T* x = tap_base(t0, t1, t2) + q2 * col_step + c;
              for (int64_t i = 0; i < a.k_in; ++i, wt += a.cp, x += a.cp)
                acc = hn::MulAdd(hn::LoadU(d, x), hn::LoadU(d, wt), acc);
            }
        hn::StoreU(acc, d, out_row + q2 * a.cp + c);
      }
    }
    // Features past the last whole vector (only where a vector is wider
    // than the 64-byte feature padding, e.g. long SVE vectors): one lane at
    // a time, always for the same features, so still thread-independent.
    for (; c < a.cp; ++c)
      for (int64_t q2 = 0; q2 < a.q[2]; ++q2) {
        T acc = 0;
        const T* wt = w + c;
        for (int64_t t0 = 0; t0 < a.k[0]; ++t0)
          for (int64_t t1 = 0; t1 < a.k[1]; ++t1)
            for (int64_t t2 = 0; t2 < a.k[2]; ++t2) {
              const T* x = tap_base(t0, t1, t2) + q2 * col_step + c;
              for (int64_t i = 0; i < a.k_in; ++i, wt += a.cp, x += a.cp) acc += *x * *wt;
            }
        out_row[q2 * a.cp + c] = acc;
      }
  }
}

void DirectF32(const DirectArgs& a, int64_t begin, int64_t end) { DirectRows<float>(a, begin, end); }
void DirectF64(const DirectArgs& a, int64_t begin, int64_t end) { DirectRows<double>(a, begin, end); }

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(DirectF32);
HWY_EXPORT(DirectF64);

namespace {

// Multiply-adds of one task at least (fewer rows per task cost more in
// hand-offs than they gain; the split does not change any result).
constexpr int64_t kMinMacsPerTask = 1 << 16;

// Spatial dim s of `ns` in canonical position (the missing leading ones are
// size 1).
inline int64_t Canon(size_t ns, size_t s) { return static_cast<int64_t>(3 - ns + s); }

template <class T>
void PackInput(const ConvGeometry& g, const TensorRef& lhs, const DirectArgs& a, const int64_t lo[3],
               const std::vector<int64_t>& chan_off, bool chan_contiguous, T* dst, TaskRunner* runner) {
  const size_t ns = g.isp.size();
  const auto ls = Strides(lhs.dims);
  int64_t in_step[3] = {0, 0, 0}, in_size[3] = {1, 1, 1};
  for (size_t s = 0; s < ns; ++s) {
    in_step[Canon(ns, s)] = ls[g.isp[s]];
    in_size[Canon(ns, s)] = lhs.dims[g.isp[s]];
  }
  const T* src = reinterpret_cast<const T*>(lhs.data);
  const int64_t ko = a.k_in * a.cp, out_feat = g.k_out;
  const int64_t rows = a.batch * a.p[0] * a.p[1];
  const int64_t tasks = std::min<int64_t>(rows, 4 * NumWorkers(runner));
  ParallelFor(runner, tasks, [&](int64_t task, int) {
    for (int64_t r = rows * task / tasks; r < rows * (task + 1) / tasks; ++r) {
      const int64_t p1 = r % a.p[1], p0 = (r / a.p[1]) % a.p[0], b = r / (a.p[1] * a.p[0]);
      T* row = dst + r * a.p[2] * ko;
      const int64_t s0 = p0 - lo[0], s1 = p1 - lo[1];
      if (s0 < 0 || s0 >= in_size[0] || s1 < 0 || s1 >= in_size[1]) {
        std::fill(row, row + a.p[2] * ko, T(0));
        continue;
      }
      const T* src_row = src + b * ls[g.ib] + s0 * in_step[0] + s1 * in_step[1];
      for (int64_t p2 = 0; p2 < a.p[2]; ++p2) {
        T* px = row + p2 * ko;
        const int64_t s2 = p2 - lo[2];
        if (s2 < 0 || s2 >= in_size[2]) {
          std::fill(px, px + ko, T(0));
          continue;
        }
        const T* sp = src_row + s2 * in_step[2];
        for (int64_t i = 0; i < a.k_in; ++i) {
          T* dsti = px + i * a.cp;
          if (chan_contiguous) {
            std::memcpy(dsti, sp, static_cast<size_t>(out_feat) * sizeof(T));
          } else {
            const int64_t* off = chan_off.data() + i * out_feat;
            for (int64_t o = 0; o < out_feat; ++o) dsti[o] = sp[off[o]];
          }
          std::fill(dsti + out_feat, dsti + a.cp, T(0));
        }
      }
    }
  });
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

template <class T>
void ScatterOutput(const ConvGeometry& g, const DirectArgs& a, const T* scratch, const TensorRef& out,
                   TaskRunner* runner) {
  const size_t ns = g.osp.size();
  const auto os = Strides(out.dims);
  int64_t step[3] = {0, 0, 0};
  for (size_t s = 0; s < ns; ++s) step[Canon(ns, s)] = os[g.osp[s]];
  T* dst = reinterpret_cast<T*>(out.data);
  const int64_t rows = a.batch * a.q[0] * a.q[1], fstep = os[g.ofd];
  const int64_t tasks = std::min<int64_t>(rows, 4 * NumWorkers(runner));
  ParallelFor(runner, tasks, [&](int64_t task, int) {
    for (int64_t r = rows * task / tasks; r < rows * (task + 1) / tasks; ++r) {
      const int64_t q1 = r % a.q[1], q0 = (r / a.q[1]) % a.q[0], b = r / (a.q[1] * a.q[0]);
      T* base = dst + b * os[g.ob] + q0 * step[0] + q1 * step[1];
      const T* src = scratch + r * a.q[2] * a.cp;
      for (int64_t q2 = 0; q2 < a.q[2]; ++q2, src += a.cp) {
        T* o = base + q2 * step[2];
        if (fstep == 1) {
          std::memcpy(o, src, static_cast<size_t>(g.k_out) * sizeof(T));
        } else {
          for (int64_t f = 0; f < g.k_out; ++f) o[f * fstep] = src[f];
        }
      }
    }
  });
}

template <class T>
void Run(const ConvGeometry& g, const TensorRef& lhs, const TensorRef& rhs, const TensorRef& out,
         TaskRunner* runner, const ElementwiseProblem* epilogue) {
  const size_t ns = g.isp.size();
  DirectArgs a;
  a.batch = g.batch;
  a.k_in = g.k_in;
  constexpr int64_t kPad = 64 / sizeof(T);  // features rounded up to 64 bytes
  a.cp = (g.k_out + kPad - 1) / kPad * kPad;
  int64_t lo[3] = {0, 0, 0};
  bool any_padding = false;
  for (size_t s = 0; s < ns; ++s) {
    const int64_t c = Canon(ns, s);
    lo[c] = g.padding[2 * s];
    a.p[c] = lhs.dims[g.isp[s]] + g.padding[2 * s] + g.padding[2 * s + 1];
    a.k[c] = g.kdims[s];
    a.q[c] = g.spatial_out[s];
    a.stride[c] = g.strides[s];
    a.dil[c] = g.rhs_dil[s];
    any_padding |= g.padding[2 * s] != 0 || g.padding[2 * s + 1] != 0;
  }
  // The input feature each packed (i, o) lane reads, as an element offset.
  const auto ls = Strides(lhs.dims);
  const int64_t opg = g.k_out / g.fgc;
  std::vector<int64_t> chan_off(static_cast<size_t>(g.k_in * g.k_out));
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
  // The packed input and the scratch output are written whole before they
  // are read: left uninitialised (zeroing them cost as much as packing).
  std::unique_ptr<T[]> in_storage;
  std::vector<T> w_storage(static_cast<size_t>(a.k[0] * a.k[1] * a.k[2] * a.k_in * a.cp));
  if (!any_padding && chan_contiguous && a.cp == g.k_out && canonical(g.ib, g.ifd, g.isp)) {
    a.in = lhs.data;  // NHWC, depthwise with multiplier 1: read in place
  } else {
    in_storage.reset(new T[static_cast<size_t>(a.batch * a.p[0] * a.p[1] * a.p[2] * a.k_in * a.cp)]);
    PackInput<T>(g, lhs, a, lo, chan_off, chan_contiguous, in_storage.get(), runner);
    a.in = in_storage.get();
  }
  PackWeights<T>(g, rhs, a, w_storage.data());
  a.w = w_storage.data();
  const bool direct_out = a.cp == g.k_out && canonical(g.ob, g.ofd, g.osp);
  std::unique_ptr<T[]> out_storage;
  if (direct_out) {
    a.out = out.data;
  } else {
    out_storage.reset(new T[static_cast<size_t>(a.batch * a.q[0] * a.q[1] * a.q[2] * a.cp)]);
    a.out = out_storage.get();
  }
  const int64_t rows = a.batch * a.q[0] * a.q[1];
  const int64_t macs_per_row = a.q[2] * a.cp * a.k[0] * a.k[1] * a.k[2] * a.k_in;
  const int64_t rows_per_task = std::max<int64_t>(1, kMinMacsPerTask / std::max<int64_t>(1, macs_per_row));
  const int64_t tasks = std::min<int64_t>((rows + rows_per_task - 1) / rows_per_task, 8 * NumWorkers(runner));
  const size_t row_elems = static_cast<size_t>(a.q[2] * a.cp);
  ParallelFor(runner, tasks, [&](int64_t t, int) {
    const int64_t begin = rows * t / tasks, end = rows * (t + 1) / tasks;
    if constexpr (sizeof(T) == 4) {
      HWY_DYNAMIC_DISPATCH(DirectF32)(a, begin, end);
    } else {
      HWY_DYNAMIC_DISPATCH(DirectF64)(a, begin, end);
    }
    // Rows [begin, end) are output elements [begin, end) * row_elems here.
    if (direct_out && epilogue != nullptr)
      RunElementwiseRange(*epilogue, static_cast<size_t>(begin) * row_elems, static_cast<size_t>(end) * row_elems);
  });
  if (!direct_out) ScatterOutput<T>(g, a, out_storage.get(), out, runner);
  if (!direct_out && epilogue != nullptr) {
    RunElementwiseRangeParallel(*epilogue, 0, epilogue->n, runner);
  }
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

// Fast stablehlo.reduce_window (pooling) for one f32 or f64 operand whose
// body is add, maximum or minimum (reduce_body.h), with any window sizes,
// strides, window dilations and padding (base dilation runs the reference).
//
// Each result element folds its window's taps in row-major tap order from
// the init value, a tap on padding contributing the init value, exactly as
// the reference does, so results are bit-identical. When the innermost axis
// is not windowed (size-1 window, stride 1, no padding: the channels of an
// NHWC pooling), neighbouring results along it are computed together with
// SIMD; when it is (NCHW pooling), neighbouring results along the row are,
// from phased copies of the input rows they read (WindowRowsAlongX). Tap offsets are computed once per
// result position. A cumulative window (cumsum, cummax) runs as a running
// fold (WindowCumulative), the same bits in linear time. Work is split
// over the thread pool by result positions.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/reduction_window.cc"
#include "kernels/cpu/hwy_targets.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/cpu/float_ops-inl.h"

#ifndef KILN_CPU_REDUCTION_WINDOW_SHARED
#define KILN_CPU_REDUCTION_WINDOW_SHARED
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cpu/reduce_body.h"

namespace kiln::cpu {

struct WindowProblem {
  const void* in = nullptr;
  void* out = nullptr;
  const void* init = nullptr;
  ReduceOp op = ReduceOp::kAdd;
  // Over the "position" axes: every axis, or every axis but the last when
  // the last is carried as a vector of `lanes` results.
  std::vector<int64_t> in_dims, out_dims, wdims, strides, wdil, pad_lo, in_strides;
  size_t lanes = 1;           // results per position (the unwindowed last axis), 1 otherwise
  size_t begin = 0, end = 0;  // positions of this task
};

// oi[0, axes) = the indices of position `pos` over p.out_dims[0, axes).
inline void PositionIndices(const WindowProblem& p, size_t axes, size_t pos, int64_t* oi) {
  for (size_t a = axes; a-- > 0;) {
    oi[a] = static_cast<int64_t>(pos % static_cast<size_t>(p.out_dims[a]));
    pos /= static_cast<size_t>(p.out_dims[a]);
  }
}

// The input offset that tap wi[0, axes) of the result at oi reads over
// axes [0, axes), or -1 where it lies on padding; then wi steps to the next
// tap in row-major order.
inline int64_t TapOffsetThenNext(const WindowProblem& p, size_t axes, const int64_t* oi, int64_t* wi) {
  int64_t off = 0;
  for (size_t a = 0; a < axes && off >= 0; ++a) {
    const int64_t x = oi[a] * p.strides[a] + wi[a] * p.wdil[a] - p.pad_lo[a];
    off = (x < 0 || x >= p.in_dims[a]) ? -1 : off + x * p.in_strides[a];
  }
  for (size_t a = axes; a-- > 0;) {
    if (++wi[a] < p.wdims[a]) break;
    wi[a] = 0;
  }
  return off;
}

}  // namespace kiln::cpu
#endif  // KILN_CPU_REDUCTION_WINDOW_SHARED

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <typename T>
void WindowRows(const WindowProblem& p) {
  const hn::ScalableTag<T> d;
  const hn::CappedTag<T, 1> d1;
  const size_t N = hn::Lanes(d);
  const T* in = static_cast<const T*>(p.in);
  T* out = static_cast<T*>(p.out);
  T init;
  std::memcpy(&init, p.init, sizeof(T));
  const size_t r = p.out_dims.size();
  size_t taps = 1;
  for (int64_t w : p.wdims) taps *= static_cast<size_t>(w);
  std::vector<int64_t> tap_off(taps);  // input offset of each tap, -1 on padding
  std::vector<int64_t> oi(r), wi(r);
  for (size_t pos = p.begin; pos < p.end; ++pos) {
    PositionIndices(p, r, pos, oi.data());
    std::fill(wi.begin(), wi.end(), 0);
    for (size_t t = 0; t < taps; ++t) tap_off[t] = TapOffsetThenNext(p, r, oi.data(), wi.data());
    T* dst = out + pos * p.lanes;
    size_t c = 0;
    for (; c + N <= p.lanes; c += N) {
      auto acc = hn::Set(d, init);
      for (size_t t = 0; t < taps; ++t)
        acc = Combine(d, p.op, acc, tap_off[t] < 0 ? hn::Set(d, init) : hn::LoadU(d, in + tap_off[t] * p.lanes + c));
      hn::StoreU(acc, d, dst + c);
    }
    for (; c < p.lanes; ++c) {
      auto acc = hn::Set(d1, init);
      for (size_t t = 0; t < taps; ++t)
        acc = Combine(d1, p.op, acc, hn::Set(d1, tap_off[t] < 0 ? init : in[tap_off[t] * p.lanes + c]));
      dst[c] = hn::GetLane(acc);
    }
  }
}

// Output rows [p.begin, p.end) (every axis but the last, which is windowed:
// NCHW pooling) with SIMD along the row. For each tap of the other axes, the
// input row it reads is laid out once with the init value on its padding
// and split into `stride` phases (element j of phase q is padded element
// j * stride + q), so that tap kx of results x .. x + N - 1 is one
// contiguous load: padded[x * stride + kx * dil] is phase (kx * dil) %
// stride at x + (kx * dil) / stride. The taps fold in row-major order from
// the init value, a padding tap contributing the init value, as in
// WindowRows and the reference: the same bits.
template <typename T>
void WindowRowsAlongX(const WindowProblem& p) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const T* in = static_cast<const T*>(p.in);
  T* out = static_cast<T*>(p.out);
  T init;
  std::memcpy(&init, p.init, sizeof(T));
  const size_t r = p.out_dims.size(), x_axis = r - 1;
  const int64_t ow = p.out_dims[x_axis], iw = p.in_dims[x_axis], kw = p.wdims[x_axis];
  const int64_t sx = p.strides[x_axis], dx = p.wdil[x_axis], px = p.pad_lo[x_axis];
  // Padded elements a row's results read, and per phase (with a vector of
  // slack for the last partial block).
  const int64_t phase_len = ((ow - 1) * sx + (kw - 1) * dx) / sx + 1 + static_cast<int64_t>(N);
  const int64_t row_len = sx * phase_len;
  size_t outer_taps = 1;
  for (size_t a = 0; a < x_axis; ++a) outer_taps *= static_cast<size_t>(p.wdims[a]);
  thread_local std::vector<T> rows;
  rows.resize(outer_taps * static_cast<size_t>(row_len));
  std::vector<int64_t> oi(r), wi(r);
  std::vector<int64_t> row_at(outer_taps);  // the tap's input row offset, -1 on padding
  T tail[HWY_MAX_BYTES / sizeof(T)];
  for (size_t row = p.begin; row < p.end; ++row) {
    PositionIndices(p, x_axis, row, oi.data());
    std::fill(wi.begin(), wi.end(), 0);
    for (size_t t = 0; t < outer_taps; ++t) {
      const int64_t off = TapOffsetThenNext(p, x_axis, oi.data(), wi.data());
      row_at[t] = off;
      if (off >= 0) {
        // Padded element j is input column j - px (init outside the row).
        T* phases = rows.data() + t * static_cast<size_t>(row_len);
        const T* src = in + off;
        for (int64_t q = 0; q < sx; ++q) {
          // Phase q's elements m in [m0, m1) read input columns m * sx + q - px.
          T* ph = phases + q * phase_len;
          const int64_t m0 = std::clamp<int64_t>(px - q <= 0 ? 0 : (px - q + sx - 1) / sx, 0, phase_len);
          const int64_t m1 = std::clamp<int64_t>(iw + px - q <= 0 ? 0 : (iw + px - q + sx - 1) / sx, m0, phase_len);
          std::fill(ph, ph + m0, init);
          if (sx == 1) {
            std::memcpy(ph + m0, src + m0 + q - px, static_cast<size_t>(m1 - m0) * sizeof(T));
          } else {
            for (int64_t m = m0; m < m1; ++m) ph[m] = src[m * sx + q - px];
          }
          std::fill(ph + m1, ph + phase_len, init);
        }
      }
    }
    T* dst = out + row * static_cast<size_t>(ow);
    for (int64_t x = 0; x < ow; x += static_cast<int64_t>(N)) {
      auto acc = hn::Set(d, init);
      for (size_t t = 0; t < outer_taps; ++t) {
        if (row_at[t] < 0) {
          for (int64_t k = 0; k < kw; ++k) acc = Combine(d, p.op, acc, hn::Set(d, init));
          continue;
        }
        const T* phases = rows.data() + t * static_cast<size_t>(row_len);
        for (int64_t k = 0; k < kw; ++k) {
          const int64_t e = k * dx;
          acc = Combine(d, p.op, acc, hn::LoadU(d, phases + (e % sx) * phase_len + x + e / sx));
        }
      }
      if (x + static_cast<int64_t>(N) <= ow) {
        hn::StoreU(acc, d, dst + x);
      } else {
        hn::StoreU(acc, d, tail);
        std::memcpy(dst + x, tail, static_cast<size_t>(ow - x) * sizeof(T));
      }
    }
  }
}

// A cumulative window (cumsum, cummax: one axis windowed over its whole
// length n, stride 1, padding (n - 1, 0); what torch_xla and reduce_window
// lowerings of a cumulative reduction write): result i along the axis folds
// n - 1 - i padding taps (the init value) and then x[0..i] in order. With
// op(init, init) == init (maximum, minimum, and add of a zero init) the
// padding taps leave the accumulator at init, so result i is the running
// fold s(i) = op(s(i - 1), x[i]) from s(-1) = init: the reference's bits in
// n ops a result instead of (n + 1) / 2 on average. Here p.in_dims is
// {outer, n}, p.lanes the elements after the axis (inner), and positions
// [p.begin, p.end) index `outer`; SIMD across inner, or eight rows' chains
// side by side when inner is 1.
template <typename T>
void WindowCumulative(const WindowProblem& p) {
  const hn::ScalableTag<T> d;
  const hn::CappedTag<T, 1> d1;
  const size_t N = hn::Lanes(d);
  const T* in = static_cast<const T*>(p.in);
  T* out = static_cast<T*>(p.out);
  T init;
  std::memcpy(&init, p.init, sizeof(T));
  const size_t n = static_cast<size_t>(p.in_dims[1]), inner = p.lanes;
  if (inner == 1) {
    constexpr size_t kRows = 8;
    for (size_t o = p.begin; o < p.end; o += kRows) {
      const size_t rows = std::min(kRows, p.end - o);
      T acc[kRows];  // (scalars: SVE vectors cannot be array elements)
      for (size_t g = 0; g < kRows; ++g) acc[g] = init;
      const T* x = in + o * n;
      T* y = out + o * n;
      for (size_t i = 0; i < n; ++i)
        for (size_t g = 0; g < rows; ++g) {
          acc[g] = hn::GetLane(Combine(d1, p.op, hn::Set(d1, acc[g]), hn::Set(d1, x[g * n + i])));
          y[g * n + i] = acc[g];
        }
    }
    return;
  }
  for (size_t o = p.begin; o < p.end; ++o) {
    const T* x = in + o * n * inner;
    T* y = out + o * n * inner;
    size_t c = 0;
    for (; c + N <= inner; c += N) {
      auto acc = hn::Set(d, init);
      for (size_t i = 0; i < n; ++i) {
        acc = Combine(d, p.op, acc, hn::LoadU(d, x + i * inner + c));
        hn::StoreU(acc, d, y + i * inner + c);
      }
    }
    for (; c < inner; ++c) {
      auto acc = hn::Set(d1, init);
      for (size_t i = 0; i < n; ++i) {
        acc = Combine(d1, p.op, acc, hn::Set(d1, x[i * inner + c]));
        y[i * inner + c] = hn::GetLane(acc);
      }
    }
  }
}

void WindowF32(const WindowProblem& p) { WindowRows<float>(p); }
void WindowF64(const WindowProblem& p) { WindowRows<double>(p); }
void WindowAlongXF32(const WindowProblem& p) { WindowRowsAlongX<float>(p); }
void WindowAlongXF64(const WindowProblem& p) { WindowRowsAlongX<double>(p); }
void WindowCumulativeF32(const WindowProblem& p) { WindowCumulative<float>(p); }
void WindowCumulativeF64(const WindowProblem& p) { WindowCumulative<double>(p); }

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(WindowF32);
HWY_EXPORT(WindowF64);
HWY_EXPORT(WindowAlongXF32);
HWY_EXPORT(WindowAlongXF64);
HWY_EXPORT(WindowCumulativeF32);
HWY_EXPORT(WindowCumulativeF64);

bool ReduceWindowApplies(const KernelParams& params) {
  const ScalarProgram* body = params.Program("body");
  ReduceOp op;
  ElementType t;
  return body != nullptr && ReduceBodyOp(*body, &op, &t);
}

Status ReduceWindow(const KernelCall& call) {
  const ScalarProgram* body = call.params.Program("body");
  ReduceOp op;
  ElementType t;
  if (body == nullptr || !ReduceBodyOp(*body, &op, &t) || call.inputs.size() != 2 || call.outputs.size() != 1)
    return RunReference(call);
  const TensorRef& in = call.inputs[0];
  const TensorRef& init = call.inputs[1];
  const TensorRef& out = call.outputs[0];
  if (!StorageOk(in, t) || !StorageOk(init, t) || init.rank() != 0 || !StorageOk(out, t)) return RunReference(call);
  const size_t r = in.dims.size();
  std::vector<int64_t> wdims, strides, base_dil, wdil, padding;
  auto wd = call.params.Ints("window_dimensions");
  wdims.assign(wd.begin(), wd.end());
  if (wdims.size() != r || r == 0 || out.dims.size() != r || !IntsOr(call.params, "window_strides", r, 1, &strides) ||
      !IntsOr(call.params, "base_dilations", r, 1, &base_dil) ||
      !IntsOr(call.params, "window_dilations", r, 1, &wdil) || !IntsOr(call.params, "padding", 2 * r, 0, &padding))
    return RunReference(call);
  for (size_t a = 0; a < r; ++a) {
    if (wdims[a] <= 0 || strides[a] <= 0 || base_dil[a] != 1 || wdil[a] <= 0 || wdims[a] > (int64_t{1} << 20) ||
        wdil[a] > (int64_t{1} << 20) || std::abs(padding[2 * a]) > (int64_t{1} << 40) ||
        std::abs(padding[2 * a + 1]) > (int64_t{1} << 40))
      return RunReference(call);
    // The reference's result shape; anything else is its error to report.
    const int64_t padded = padding[2 * a] + in.dims[a] + padding[2 * a + 1];
    const int64_t win = (wdims[a] - 1) * wdil[a] + 1;
    if (out.dims[a] != (padded < win ? 0 : (padded - win) / strides[a] + 1)) return RunReference(call);
  }
  if (out.NumElements() == 0) return Status::Ok();
  int64_t window_taps = 1;
  for (int64_t w : wdims)
    if (__builtin_mul_overflow(window_taps, w, &window_taps) || window_taps > (int64_t{1} << 24))
      return RunReference(call);
  WindowProblem p;
  p.in = in.data;
  p.out = out.data;
  p.init = init.data;
  p.op = op;
  // A cumulative window (see WindowCumulative) along axis c: every other
  // axis untouched.
  int c = -1;
  bool cumulative = true;
  for (size_t a = 0; a < r && cumulative; ++a) {
    const bool plain = strides[a] == 1 && wdil[a] == 1;
    if (wdims[a] == 1) {
      cumulative = plain && padding[2 * a] == 0 && padding[2 * a + 1] == 0;
    } else {
      cumulative = c < 0 && plain && wdims[a] == in.dims[a] && padding[2 * a] == in.dims[a] - 1 &&
                   padding[2 * a + 1] == 0;
      c = static_cast<int>(a);
    }
  }
  if (cumulative && c >= 0 && op == ReduceOp::kAdd) {  // the padding taps must leave init alone: 0 + 0 == 0
    float f = 1;
    double v = 1;
    if (t == ElementType::kF32) std::memcpy(&f, init.data, sizeof f), v = f;
    else std::memcpy(&v, init.data, sizeof v);
    cumulative = v == 0;
  }
  if (cumulative && c >= 0) {
    size_t outer = 1, inner = 1;
    for (int a = 0; a < c; ++a) outer *= static_cast<size_t>(in.dims[a]);
    for (size_t a = static_cast<size_t>(c) + 1; a < r; ++a) inner *= static_cast<size_t>(in.dims[a]);
    const size_t n = static_cast<size_t>(in.dims[c]);
    p.in_dims = {static_cast<int64_t>(outer), static_cast<int64_t>(n)};
    p.lanes = inner;
    const size_t per_task = std::max<size_t>(8, (size_t{1} << 16) / std::max<size_t>(1, n * inner)) / 8 * 8;
    ParallelRanges(call.runner, outer, per_task, p,
                   t == ElementType::kF32 ? HWY_DYNAMIC_DISPATCH(WindowCumulativeF32)
                                          : HWY_DYNAMIC_DISPATCH(WindowCumulativeF64));
    return Status::Ok();
  }
  // The innermost axis rides along as SIMD lanes when it is not windowed.
  const bool lanes = r >= 2 && wdims[r - 1] == 1 && strides[r - 1] == 1 && padding[2 * r - 2] == 0 &&
                     padding[2 * r - 1] == 0;
  const size_t pr = lanes ? r - 1 : r;
  p.lanes = lanes ? static_cast<size_t>(in.dims[r - 1]) : 1;
  std::vector<int64_t> is(r, 1);
  for (size_t a = r; a-- > 1;) is[a - 1] = is[a] * in.dims[a];
  for (size_t a = 0; a < pr; ++a) {
    p.in_dims.push_back(in.dims[a]);
    p.out_dims.push_back(out.dims[a]);
    p.wdims.push_back(wdims[a]);
    p.strides.push_back(strides[a]);
    p.wdil.push_back(wdil[a]);
    p.pad_lo.push_back(padding[2 * a]);
    p.in_strides.push_back(lanes ? is[a] / in.dims[r - 1] : is[a]);  // in units of `lanes` elements
  }
  size_t positions = 1, taps = 1;
  for (int64_t d : p.out_dims) positions *= static_cast<size_t>(d);
  for (int64_t w : p.wdims) taps *= static_cast<size_t>(w);
  // A windowed innermost axis with rows of results at least half a vector
  // long (NCHW pooling): SIMD along the rows (WindowRowsAlongX), its
  // positions whole rows, where the rows' phased copies stay small.
  const int64_t row_out = p.out_dims.back();
  const bool along_x = !lanes && row_out >= 4 &&
                       static_cast<double>(taps / static_cast<size_t>(p.wdims.back())) *
                               static_cast<double>((row_out - 1) * p.strides.back() +
                                                   (p.wdims.back() - 1) * p.wdil.back() + 64 * p.strides.back()) <=
                           double(1 << 22);
  if (along_x) {
    const size_t rows = positions / static_cast<size_t>(row_out);
    const size_t rows_per_task =
        std::max<size_t>(1, (size_t{1} << 16) / std::max<size_t>(1, taps * static_cast<size_t>(row_out)));
    ParallelRanges(call.runner, rows, rows_per_task, p,
                   t == ElementType::kF32 ? HWY_DYNAMIC_DISPATCH(WindowAlongXF32) : HWY_DYNAMIC_DISPATCH(WindowAlongXF64));
    return Status::Ok();
  }
  const size_t per_task = std::max<size_t>(1, (size_t{1} << 16) / std::max<size_t>(1, taps * p.lanes));
  ParallelRanges(call.runner, positions, per_task, p,
                 t == ElementType::kF32 ? HWY_DYNAMIC_DISPATCH(WindowF32) : HWY_DYNAMIC_DISPATCH(WindowF64));
  return Status::Ok();
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE

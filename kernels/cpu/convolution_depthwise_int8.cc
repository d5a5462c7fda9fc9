// The depthwise convolution of the quantized 8-bit form (i8/ui8 input and
// weights into i32), where a GEMM per feature would be one column wide.
// With the features innermost in the input and the result (NHWC and its
// relatives), each output position's features are a vector of i32 sums:
// per tap, 8-bit inputs widened to i32 times the weights widened once per
// call. In the planar form (NCHW, stride 1 along the rows), each output
// row is a vector run: per tap, a run of the input row times the tap's
// weight. Sums wrap in 32 bits, the same as the reference's integer
// multiply-add in any order.
#include <algorithm>
#include <cstdint>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/convolution_depthwise_int8.cc"
#include "kernels/cpu/hwy_targets.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#ifndef KILN_CPU_CONV_DEPTHWISE_INT8_SHARED
#define KILN_CPU_CONV_DEPTHWISE_INT8_SHARED
#include "kernels/common/parallel.h"
#include "kernels/cpu/convolution_depthwise_int8.h"

namespace kiln::cpu {
namespace dw8 {

// Output positions per task (about 64 KiB of result at 256 features).
constexpr int64_t kPositionsPerTask = 64;

}  // namespace dw8
}  // namespace kiln::cpu
#endif  // KILN_CPU_CONV_DEPTHWISE_INT8_SHARED

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Positions [p0, p1) of `a`, the input of 8-bit type T.
template <class T>
void DepthwisePositions(const DepthwiseInt8Args& a, const int32_t* w, int64_t p0, int64_t p1) {
  const hn::ScalableTag<int32_t> d32;
  const hn::Rebind<T, decltype(d32)> d8;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d32));
  const auto* in = static_cast<const T*>(a.input);
  const int64_t c_vec = a.features / N * N;
  for (int64_t p = p0; p < p1; ++p) {
    const T* x = in + a.position_in[p];
    int32_t* o = a.output + a.position_out[p];
    for (int64_t c = 0; c < c_vec; c += N) {
      auto acc = hn::Zero(d32);
      for (int64_t t = 0; t < a.taps; ++t)
        acc = hn::Add(acc, hn::Mul(hn::PromoteTo(d32, hn::LoadU(d8, x + a.tap_offsets[t] + c)),
                                   hn::LoadU(d32, w + t * a.features + c)));
      hn::StoreU(acc, d32, o + c);
    }
    for (int64_t c = c_vec; c < a.features; ++c) {
      uint32_t acc = 0;
      for (int64_t t = 0; t < a.taps; ++t)
        acc += static_cast<uint32_t>(static_cast<int32_t>(x[a.tap_offsets[t] + c])) *
               static_cast<uint32_t>(w[t * a.features + c]);
      o[c] = static_cast<int32_t>(acc);
    }
  }
}

// Planes [p0, p1) of the planar form, input of 8-bit type T.
template <class T>
void PlanarPlanes(const PlanarDepthwiseInt8Args& a, int64_t p0, int64_t p1) {
  const hn::ScalableTag<int32_t> d32;
  const hn::Rebind<T, decltype(d32)> d8;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d32));
  const auto* in = static_cast<const T*>(a.input);
  for (int64_t p = p0; p < p1; ++p) {
    int32_t w[64];  // the plane's weights (taps <= 64: checked by the caller)
    for (int64_t t = 0; t < a.taps; ++t) {
      const uint8_t b = a.weights[a.weight_plane[p] + a.weight_tap_offsets[t]];
      w[t] = a.weights_signed ? static_cast<int8_t>(b) : b;
    }
    for (int64_t y = 0; y < a.rows; ++y) {
      const T* row = in + a.in_plane[p] + y * a.in_row_step;
      int32_t* o = a.output + a.out_plane[p] + y * a.out_row_step;
      auto vector_at = [&](int64_t x) {
        auto acc = hn::Zero(d32);
        for (int64_t t = 0; t < a.taps; ++t)
          acc = hn::Add(acc, hn::Mul(hn::PromoteTo(d32, hn::LoadU(d8, row + a.tap_offsets[t] + x)), hn::Set(d32, w[t])));
        hn::StoreU(acc, d32, o + x);
      };
      int64_t x = 0;
      for (; x + N <= a.cols; x += N) vector_at(x);
      // A row's last partial vector: the last N columns again (the same
      // sums stored twice), where the row has N.
      if (x < a.cols && a.cols >= N) {
        vector_at(a.cols - N);
        x = a.cols;
      }
      for (; x < a.cols; ++x) {
        uint32_t acc = 0;
        for (int64_t t = 0; t < a.taps; ++t)
          acc += static_cast<uint32_t>(static_cast<int32_t>(row[a.tap_offsets[t] + x])) * static_cast<uint32_t>(w[t]);
        o[x] = static_cast<int32_t>(acc);
      }
    }
  }
}

void PlanarDepthwiseInt8T(const PlanarDepthwiseInt8Args& a, int64_t p0, int64_t p1) {
  if (a.input_signed) {
    PlanarPlanes<int8_t>(a, p0, p1);
  } else {
    PlanarPlanes<uint8_t>(a, p0, p1);
  }
}

void DepthwiseInt8T(const DepthwiseInt8Args& a, const int32_t* w, int64_t p0, int64_t p1) {
  if (a.input_signed) {
    DepthwisePositions<int8_t>(a, w, p0, p1);
  } else {
    DepthwisePositions<uint8_t>(a, w, p0, p1);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(DepthwiseInt8T);
HWY_EXPORT(PlanarDepthwiseInt8T);

void PlanarDepthwiseInt8(const PlanarDepthwiseInt8Args& a, TaskRunner* runner) {
  auto fn = HWY_DYNAMIC_DISPATCH(PlanarDepthwiseInt8T);
  ParallelFor(a.planes * a.rows * a.cols * a.taps >= (1 << 16) ? runner : nullptr, a.planes,
              [&](int64_t p, int) { fn(a, p, p + 1); });
}

void DepthwiseInt8(const DepthwiseInt8Args& a, TaskRunner* runner) {
  // The weights widened to i32, [tap][feature], once per call (taps x
  // features: a few KiB).
  std::vector<int32_t> w(static_cast<size_t>(a.taps * a.features));
  for (int64_t t = 0; t < a.taps; ++t)
    for (int64_t c = 0; c < a.features; ++c) {
      const uint8_t b = a.weights[a.weight_tap_offsets[t] + c * a.weight_feature_step];
      w[static_cast<size_t>(t * a.features + c)] = a.weights_signed ? static_cast<int8_t>(b) : b;
    }
  const int64_t tasks = (a.positions + dw8::kPositionsPerTask - 1) / dw8::kPositionsPerTask;
  auto fn = HWY_DYNAMIC_DISPATCH(DepthwiseInt8T);
  ParallelFor(a.positions * a.taps * a.features >= (1 << 16) ? runner : nullptr, tasks, [&](int64_t task, int) {
    const int64_t p0 = task * dw8::kPositionsPerTask;
    fn(a, w.data(), p0, std::min(a.positions, p0 + dw8::kPositionsPerTask));
  });
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE

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

#if HWY_ARCH_X86_64 && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace kiln::cpu {
namespace dw8 {

// Output positions per task (about 64 KiB of result at 256 features).
constexpr int64_t kPositionsPerTask = 64;

#if HWY_ARCH_X86_64 && defined(__GNUC__)
// The NHWC form on x86 with AVX2 (the Highway AVX2 and AVX-512 targets
// call it): two taps per vpmaddwd. Per block of 16 features, the two taps'
// inputs widened to i16 are interleaved within each 128-bit half
// (unpacklo/unpackhi), multiplied by weight pairs interleaved the same way
// (`pairs`: per tap pair and block, 2 x 16 i16, built by PairWeights), and
// the two halves' sums put back in feature order at the store. A lone last
// tap is paired with a zero weight. Products of 8-bit values and their pair
// sums are exact in i32; the sums wrap as the reference's do.
inline void PairWeights(const DepthwiseInt8Args& a, const int32_t* w, std::vector<int16_t>* pairs) {
  const int64_t blocks = a.features / 16, npairs = (a.taps + 1) / 2;
  pairs->assign(static_cast<size_t>(npairs * blocks * 32), 0);
  for (int64_t tp = 0; tp < npairs; ++tp)
    for (int64_t cb = 0; cb < blocks; ++cb) {
      int16_t* dst = pairs->data() + (tp * blocks + cb) * 32;
      auto weight = [&](int64_t t, int64_t c) -> int16_t {
        return t < a.taps ? static_cast<int16_t>(w[t * a.features + 16 * cb + c]) : int16_t{0};
      };
      for (int half = 0; half < 2; ++half)      // unpacklo (features 0-3 of each 8), then unpackhi (4-7)
        for (int lane = 0; lane < 2; ++lane)    // the 128-bit halves: features 0-7, 8-15
          for (int j = 0; j < 4; ++j) {
            const int64_t c = 8 * lane + 4 * half + j;
            dst[16 * half + 8 * lane + 2 * j] = weight(2 * tp, c);
            dst[16 * half + 8 * lane + 2 * j + 1] = weight(2 * tp + 1, c);
          }
    }
}

// NB blocks of 16 features of one position, from block cb: the taps' input
// pointers computed once per pair for all NB blocks.
template <int NB>
__attribute__((target("avx2"))) inline void PairBlocksAvx2(const DepthwiseInt8Args& a, const int16_t* pairs,
                                                          const uint8_t* x, int64_t cb, int32_t* o) {
  const int64_t blocks = a.features / 16, npairs = (a.taps + 1) / 2;
  __m256i lo[NB], hi[NB];
  for (int k = 0; k < NB; ++k) lo[k] = hi[k] = _mm256_setzero_si256();
  const auto* wv = reinterpret_cast<const __m256i*>(pairs + cb * 32);
  for (int64_t tp = 0; tp < npairs; ++tp, wv += 2 * blocks) {
    const uint8_t* x0 = x + a.tap_offsets[2 * tp] + 16 * cb;
    const uint8_t* x1 = x + a.tap_offsets[std::min(2 * tp + 1, a.taps - 1)] + 16 * cb;
    for (int k = 0; k < NB; ++k) {
      const __m128i b0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x0 + 16 * k));
      const __m128i b1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x1 + 16 * k));
      const __m256i v0 = a.input_signed ? _mm256_cvtepi8_epi16(b0) : _mm256_cvtepu8_epi16(b0);
      const __m256i v1 = a.input_signed ? _mm256_cvtepi8_epi16(b1) : _mm256_cvtepu8_epi16(b1);
      lo[k] = _mm256_add_epi32(lo[k], _mm256_madd_epi16(_mm256_unpacklo_epi16(v0, v1), _mm256_loadu_si256(wv + 2 * k)));
      hi[k] = _mm256_add_epi32(hi[k], _mm256_madd_epi16(_mm256_unpackhi_epi16(v0, v1), _mm256_loadu_si256(wv + 2 * k + 1)));
    }
  }
  for (int k = 0; k < NB; ++k) {
    int32_t* ok = o + 16 * (cb + k);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ok), _mm256_permute2x128_si256(lo[k], hi[k], 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ok + 8), _mm256_permute2x128_si256(lo[k], hi[k], 0x31));
  }
}

__attribute__((target("avx2"))) inline void DepthwisePairsAvx2(const DepthwiseInt8Args& a, const int16_t* pairs,
                                                              int64_t p0, int64_t p1) {
  const int64_t blocks = a.features / 16;
  const auto* in = static_cast<const uint8_t*>(a.input);
  for (int64_t p = p0; p < p1; ++p) {
    const uint8_t* x = in + a.position_in[p];
    int32_t* o = a.output + a.position_out[p];
    int64_t cb = 0;
    for (; cb + 4 <= blocks; cb += 4) PairBlocksAvx2<4>(a, pairs, x, cb, o);
    for (; cb + 2 <= blocks; cb += 2) PairBlocksAvx2<2>(a, pairs, x, cb, o);
    for (; cb < blocks; ++cb) PairBlocksAvx2<1>(a, pairs, x, cb, o);
  }
}
#endif

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

void DepthwiseInt8T(const DepthwiseInt8Args& a, const int32_t* w, const int16_t* pairs, int64_t p0, int64_t p1) {
#if HWY_ARCH_X86_64 && defined(__GNUC__) && HWY_TARGET <= HWY_AVX2
  if (pairs != nullptr && a.features % 16 == 0) {
    dw8::DepthwisePairsAvx2(a, pairs, p0, p1);
    return;
  }
#else
  (void)pairs;
#endif
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
  // The AVX2 form's weight pairs (x86; the Highway targets from AVX2 up
  // use them, the others the widened weights).
  std::vector<int16_t> pairs;
#if HWY_ARCH_X86_64 && defined(__GNUC__)
  if (a.features % 16 == 0) dw8::PairWeights(a, w.data(), &pairs);
#endif
  const int64_t tasks = (a.positions + dw8::kPositionsPerTask - 1) / dw8::kPositionsPerTask;
  auto fn = HWY_DYNAMIC_DISPATCH(DepthwiseInt8T);
  ParallelFor(a.positions * a.taps * a.features >= (1 << 16) ? runner : nullptr, tasks, [&](int64_t task, int) {
    const int64_t p0 = task * dw8::kPositionsPerTask;
    fn(a, w.data(), pairs.empty() ? nullptr : pairs.data(), p0, std::min(a.positions, p0 + dw8::kPositionsPerTask));
  });
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE

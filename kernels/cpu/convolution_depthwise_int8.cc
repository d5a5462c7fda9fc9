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
#include "kernels/cpu/gemm_int8.h"
#include "kernels/cpu/requantize.h"
#include "kernels/cpu/thread_scratch.h"

#if HWY_ARCH_X86_64 && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace kiln::cpu {
namespace dw8 {

// Output positions per task (about 64 KiB of result at 256 features).
constexpr int64_t kPositionsPerTask = 64;

// The VNNI form's weights (QuadWeights, below; x86 only).
struct QuadForm {
  CacheLineVector<uint8_t> quads;        // (on cache lines: read by vector loads)
  CacheLineVector<int32_t> correction;  // per feature: 0, or -128 * sum of its weights
  bool flip_input = false;          // i8 input read as u8
  bool weights_unsigned_side = false;
};

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

// The NHWC form with AVX-512 VNNI (vpdpbusd on 256-bit vectors): four
// taps per instruction. Per quad of taps and block of 32 features, the four
// taps' input bytes are interleaved (unpack bytes, then words, within each
// 128-bit half) into dwords of four taps of one feature, and multiplied by
// the quad's weights laid out the same way (`quads`: per quad and block,
// 4 x 32 bytes, built by QuadWeights): vector k of a block holds features
// 16 h + 4 k + i in its half h, dword i. vpdpbusd multiplies unsigned
// bytes by signed ones, so an i8 input is read as u8 (x ^ 0x80 = x + 128)
// and each feature's sum less 128 * its weight sum (`correction`); an i8
// input with u8 weights takes the weights as the unsigned side. A lone last
// feature block of 16 runs on the pairs (PairBlocksAvx2). Sums wrap in 32
// bits as the reference's do.
inline bool QuadWeights(const DepthwiseInt8Args& a, const int32_t* w, QuadForm* f) {
  if (a.features < 32 || a.features % 16 != 0) return false;
  if (!a.input_signed && !a.weights_signed) return false;  // u8 x u8: neither side is signed
  f->weights_unsigned_side = a.input_signed && !a.weights_signed;
  f->flip_input = a.input_signed && a.weights_signed;
  const int64_t blocks = a.features / 32, nquads = (a.taps + 3) / 4;
  f->quads.assign(static_cast<size_t>(nquads * blocks * 128), 0);
  for (int64_t tq = 0; tq < nquads; ++tq)
    for (int64_t cb = 0; cb < blocks; ++cb) {
      uint8_t* dst = f->quads.data() + (tq * blocks + cb) * 128;
      for (int k = 0; k < 4; ++k)
        for (int h = 0; h < 2; ++h)
          for (int i = 0; i < 4; ++i)
            for (int b = 0; b < 4; ++b) {
              const int64_t t = 4 * tq + b, c = 32 * cb + 16 * h + 4 * k + i;
              dst[32 * k + 16 * h + 4 * i + b] = t < a.taps ? static_cast<uint8_t>(w[t * a.features + c]) : 0;
            }
    }
  f->correction.assign(static_cast<size_t>(a.features), 0);
  if (f->flip_input)
    for (int64_t c = 0; c < a.features; ++c) {
      uint32_t sum = 0;
      for (int64_t t = 0; t < a.taps; ++t) sum += static_cast<uint32_t>(w[t * a.features + c]);
      f->correction[static_cast<size_t>(c)] = static_cast<int32_t>(sum * static_cast<uint32_t>(-128));
    }
  return true;
}

// NB blocks of 32 features of one position, from block cb.
template <int NB>
__attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512vnni"))) inline void QuadBlocksVnni(
    const DepthwiseInt8Args& a, const QuadForm& f, const uint8_t* x, int64_t cb, int32_t* o) {
  const int64_t blocks = a.features / 32, nquads = (a.taps + 3) / 4;
  __m256i acc[NB][4];
  for (int k = 0; k < NB; ++k)
    for (int j = 0; j < 4; ++j) acc[k][j] = _mm256_setzero_si256();
  const __m256i flip = _mm256_set1_epi8(f.flip_input ? static_cast<char>(0x80) : 0);
  const auto* wv = reinterpret_cast<const __m256i*>(f.quads.data() + cb * 128);
  for (int64_t tq = 0; tq < nquads; ++tq, wv += 4 * blocks) {
    const uint8_t* xt[4];
    for (int b = 0; b < 4; ++b) xt[b] = x + a.tap_offsets[std::min(4 * tq + b, a.taps - 1)] + 32 * cb;
    for (int k = 0; k < NB; ++k) {
      __m256i v[4];
      for (int b = 0; b < 4; ++b)
        v[b] = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(xt[b] + 32 * k)), flip);
      const __m256i l01 = _mm256_unpacklo_epi8(v[0], v[1]), h01 = _mm256_unpackhi_epi8(v[0], v[1]);
      const __m256i l23 = _mm256_unpacklo_epi8(v[2], v[3]), h23 = _mm256_unpackhi_epi8(v[2], v[3]);
      const __m256i q[4] = {_mm256_unpacklo_epi16(l01, l23), _mm256_unpackhi_epi16(l01, l23),
                            _mm256_unpacklo_epi16(h01, h23), _mm256_unpackhi_epi16(h01, h23)};
      for (int j = 0; j < 4; ++j) {
        const __m256i wj = _mm256_loadu_si256(wv + 4 * k + j);
        acc[k][j] = f.weights_unsigned_side ? _mm256_dpbusd_epi32(acc[k][j], wj, q[j])
                                            : _mm256_dpbusd_epi32(acc[k][j], q[j], wj);
      }
    }
  }
  for (int k = 0; k < NB; ++k) {
    const int64_t c0 = 32 * (cb + k);
    int32_t* ok = o + c0;
    const int32_t* corr = f.correction.data() + c0;
    // Features 0-7, 8-15, 16-23, 24-31 of the block (a lambda would not
    // inherit this function's target).
    const __m256i r[4] = {_mm256_permute2x128_si256(acc[k][0], acc[k][1], 0x20),
                          _mm256_permute2x128_si256(acc[k][2], acc[k][3], 0x20),
                          _mm256_permute2x128_si256(acc[k][0], acc[k][1], 0x31),
                          _mm256_permute2x128_si256(acc[k][2], acc[k][3], 0x31)};
    for (int j = 0; j < 4; ++j)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(ok + 8 * j),
                          _mm256_add_epi32(r[j], _mm256_loadu_si256(reinterpret_cast<const __m256i*>(corr + 8 * j))));
  }
}

__attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512vnni"))) inline void DepthwiseQuadsVnni(
    const DepthwiseInt8Args& a, const QuadForm& f, const int16_t* pairs, int64_t p0, int64_t p1) {
  const int64_t blocks = a.features / 32;
  const auto* in = static_cast<const uint8_t*>(a.input);
  for (int64_t p = p0; p < p1; ++p) {
    const uint8_t* x = in + a.position_in[p];
    int32_t* o = a.output + (a.position_out[p] - a.out_base);
    int64_t cb = 0;
    for (; cb + 2 <= blocks; cb += 2) QuadBlocksVnni<2>(a, f, x, cb, o);
    for (; cb < blocks; ++cb) QuadBlocksVnni<1>(a, f, x, cb, o);
    if (a.features % 32 != 0) PairBlocksAvx2<1>(a, pairs, x, 2 * blocks, o);
  }
}

inline bool CpuHasVnni() { return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl"); }

__attribute__((target("avx2"))) inline void DepthwisePairsAvx2(const DepthwiseInt8Args& a, const int16_t* pairs,
                                                              int64_t p0, int64_t p1) {
  const int64_t blocks = a.features / 16;
  const auto* in = static_cast<const uint8_t*>(a.input);
  for (int64_t p = p0; p < p1; ++p) {
    const uint8_t* x = in + a.position_in[p];
    int32_t* o = a.output + (a.position_out[p] - a.out_base);
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
    int32_t* o = a.output + (a.position_out[p] - a.out_base);
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

// Whether the dispatch chose the target the VNNI forms run from.
bool VnniTargetT() { return HWY_ARCH_X86_64 && HWY_TARGET == HWY_AVX3; }

void DepthwiseInt8T(const DepthwiseInt8Args& a, const int32_t* w, const int16_t* pairs, const void* quads, int64_t p0,
                    int64_t p1) {
#if HWY_ARCH_X86_64 && defined(__GNUC__) && HWY_TARGET == HWY_AVX3
  if (quads != nullptr && pairs != nullptr) {
    dw8::DepthwiseQuadsVnni(a, *static_cast<const dw8::QuadForm*>(quads), pairs, p0, p1);
    return;
  }
#else
  (void)quads;
#endif
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

struct DepthwiseRequantizeScratch;

HWY_EXPORT(DepthwiseInt8T);
HWY_EXPORT(PlanarDepthwiseInt8T);
HWY_EXPORT(VnniTargetT);

bool DepthwiseInt8RowsApplies(const DepthwiseInt8Args& a, const DepthwiseRowGeometry& g, bool requantized) {
#if HWY_ARCH_X86_64 && defined(__GNUC__)
  if (!HWY_DYNAMIC_DISPATCH(VnniTargetT)() || !dw8::CpuHasVnni() || !Int8DotProductEnabled()) return false;
  if (!a.input_signed && !a.weights_signed) return false;  // u8 x u8: neither side is signed
  if (a.features < 8 || g.kw < 2 || g.kh < 1 || g.kh > 64 || g.out_w < 1 || g.dil_y < 1 || g.stride_y < 1) return false;
  if (requantized && g.out_col_step != a.features) return false;
  // The ring of interleaved rows in each thread's scratch: at most 16 MiB.
  const double ring_bytes = (static_cast<double>(g.kh - 1) * static_cast<double>(g.dil_y) + 1.0) * static_cast<double>(g.out_w) *
                            static_cast<double>((g.kw + 3) / 4) * static_cast<double>((a.features + 7) / 8 * 8) * 4.0;
  return ring_bytes <= double(16 << 20);
#else
  (void)a, (void)g, (void)requantized;
  return false;
#endif
}

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
  // The VNNI form's weight quads where the CPU has AVX-512 VNNI (the form
  // runs from the AVX-512 target only; the others ignore them).
  dw8::QuadForm quads;
  bool use_quads = false;
#if HWY_ARCH_X86_64 && defined(__GNUC__)
  if (a.features % 16 == 0) dw8::PairWeights(a, w.data(), &pairs);
  if (!pairs.empty() && dw8::CpuHasVnni() && Int8DotProductEnabled()) use_quads = dw8::QuadWeights(a, w.data(), &quads);
#endif
  const int64_t tasks = (a.positions + dw8::kPositionsPerTask - 1) / dw8::kPositionsPerTask;
  auto fn = HWY_DYNAMIC_DISPATCH(DepthwiseInt8T);
  ParallelFor(a.positions * a.taps * a.features >= (1 << 16) ? runner : nullptr, tasks, [&](int64_t task, int) {
    const int64_t p0 = task * dw8::kPositionsPerTask, p1 = std::min(a.positions, p0 + dw8::kPositionsPerTask);
    const int16_t* pp = pairs.empty() ? nullptr : pairs.data();
    if (a.requantize == nullptr) {
      fn(a, w.data(), pp, use_quads ? &quads : nullptr, p0, p1);
      return;
    }
    // The task's accumulators in the thread's scratch, requantized at once.
    ScratchLease<DepthwiseRequantizeScratch, int32_t> acc(static_cast<size_t>((p1 - p0) * a.features));
    DepthwiseInt8Args t = a;
    t.output = acc.get(), t.out_base = a.position_out[p0];
    fn(t, w.data(), pp, use_quads ? &quads : nullptr, p0, p1);
    const int64_t begin = a.position_out[p0];
    a.requantize->Run(acc.get(), begin, begin + (p1 - p0) * a.features, a.requantized_out + begin, a.q_bound);
  });
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE

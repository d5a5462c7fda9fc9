// f16 and bf16 bits to and from f32 on the CPU fast paths, with the
// reference codec's results (kernels/scalar/codec.cc): widening is exact
// (subnormals, infinities, NaN payloads kept); narrowing rounds to nearest
// even, and a NaN keeps its sign and the top bits of its payload (the quiet
// bit set where those are all zero).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/common/parallel.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#endif
#if defined(__aarch64__) && defined(__GNUC__)
#include <arm_neon.h>
#endif

namespace kiln::cpu {

inline float BitsToF32(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

inline uint32_t F32ToBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

inline float BF16ToF32(uint16_t h) { return BitsToF32(static_cast<uint32_t>(h) << 16); }

inline float F16ToF32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
  if (exp == 0x1F) return BitsToF32(sign | 0x7F800000u | (mant << 13));  // infinity or NaN
  if (exp != 0) return BitsToF32(sign | ((exp + (127 - 15)) << 23) | (mant << 13));
  return BitsToF32(sign | F32ToBits(static_cast<float>(mant) * 0x1p-24f));  // zero or subnormal: exact
}

inline uint16_t F32ToBF16(float f) {
  const uint32_t bits = F32ToBits(f);
  if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x7FFFFFu) != 0) {
    const uint32_t top = bits >> 16;
    return static_cast<uint16_t>((top & 0x7Fu) != 0 ? top : top | 0x40u);
  }
  // Round to nearest even on the dropped 16 bits; a carry out of the
  // mantissa steps the exponent (up to infinity), as rounding should.
  return static_cast<uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

// f32 to f16 bits as the reference codec rounds: to nearest even, into
// subnormals, past 65504 to infinity; a NaN keeps its sign and the top 10
// bits of its payload (the quiet bit set where those are all zero).
inline uint16_t F32ToF16(float f) {
  const uint32_t bits = F32ToBits(f);
  const uint32_t sign = (bits >> 16) & 0x8000u, abs = bits & 0x7FFFFFFFu;
  uint32_t h = 0;
  if (abs > 0x7F800000u) {
    const uint32_t m = (abs >> 13) & 0x3FFu;
    h = 0x7C00u | (m != 0 ? m : 0x200u);
  } else if (abs >= 0x477FF000u) {  // 65520 and up round past 65504
    h = 0x7C00u;
  } else if (abs >= 0x38800000u) {  // a normal f16: 2^-14 and up
    // The exponent rebiased from 127 to 15, then rounded on the 13 dropped
    // bits; a carry out of the mantissa steps the exponent.
    const uint32_t v = abs - 0x38000000u;
    h = (v + 0xFFFu + ((v >> 13) & 1u)) >> 13;
  } else if (abs >= 0x33000000u) {  // a subnormal f16: 2^-25 up to 2^-14
    // In units of 2^-24: the f32 mantissa shifted right by 126 - exponent
    // (14 to 24 bits), rounded to nearest even (a result of 0x400 is the
    // smallest normal, encoded the same).
    const uint32_t shift = 126 - (abs >> 23), m = (abs & 0x7FFFFFu) | 0x800000u;
    const uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    h = q + ((rem > half || (rem == half && (q & 1u) != 0)) ? 1u : 0u);
  }
  return static_cast<uint16_t>(sign | h);
}

#if defined(__x86_64__) && defined(__GNUC__)
// f16 <-> f32 eight at a time with F16C (vcvtph2ps / vcvtps2ph, rounding
// to nearest even whatever the MXCSR says): the same values as the scalar
// forms, except that the instructions quiet a NaN. A block holding a NaN
// goes element by element instead.
inline bool CpuHasF16c() {
  // cpuid leaf 1, ecx bit 29 (clang's __builtin_cpu_supports has no "f16c").
  static const bool has = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __builtin_cpu_supports("avx2") && __get_cpuid(1, &a, &b, &c, &d) != 0 && (c & bit_F16C) != 0;
  }();
  return has;
}

__attribute__((target("avx2,f16c"))) inline void WidenF16F16c(const uint16_t* src, int64_t n, float* dst) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m128i nan = _mm_cmpgt_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7FFF)), _mm_set1_epi16(0x7C00));
    if (!_mm_testz_si128(nan, nan)) {
      for (int64_t k = i; k < i + 8; ++k) dst[k] = F16ToF32(src[k]);
      continue;
    }
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) dst[i] = F16ToF32(src[i]);
}

__attribute__((target("avx2,f16c"))) inline void NarrowF16F16c(const float* src, int64_t n, uint16_t* dst) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(src + i);
    if (_mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q)) != 0) {
      for (int64_t k = i; k < i + 8; ++k) dst[k] = F32ToF16(src[k]);
      continue;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT));
  }
  for (; i < n; ++i) dst[i] = F32ToF16(src[i]);
}
// F32ToBF16 eight at a time: round to nearest even on the dropped 16
// bits, in integers; a block holding a NaN element by element.
__attribute__((target("avx2"))) inline void NarrowBF16Avx2(const float* src, int64_t n, uint16_t* dst) {
  const __m256i bias = _mm256_set1_epi32(0x7FFF), one = _mm256_set1_epi32(1);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(src + i);
    if (_mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q)) != 0) {
      for (int64_t k = i; k < i + 8; ++k) dst[k] = F32ToBF16(src[k]);
      continue;
    }
    const __m256i b = _mm256_castps_si256(x);
    const __m256i r = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_add_epi32(b, bias), _mm256_and_si256(_mm256_srli_epi32(b, 16), one)), 16);
    // Pack the eight 32-bit lanes' low halves (each < 2^16) in order.
    const __m128i packed = _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), packed);
  }
  for (; i < n; ++i) dst[i] = F32ToBF16(src[i]);
}

// The same sixteen at a time on AVX-512 CPUs (vpmovdw keeps each lane's
// low half; vcvtps2ph rounds to nearest even): a bf16 convolution's result
// narrowed in 11% of its time with eight lanes.
inline bool CpuHasAvx512() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return has;
}

// Sixteen lanes narrowed into *h (`bf16`: to bf16 in integers, as
// NarrowBF16Avx2; else to f16), or false, *h untouched, where a lane is
// NaN (the caller then narrows element by element, which keeps the
// payload as F32ToBF16 / F32ToF16 do).
template <bool kBf16>
__attribute__((target("avx512f,avx512bw"), always_inline)) inline bool Narrow16Avx512(__m512 x, __m256i* h) {
  if (_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q) != 0) return false;
  // (The zero-masked forms of the intrinsics, all lanes kept: GCC 12's
  // unmasked ones pass an undefined vector that -Wmaybe-uninitialized
  // reports.)
  constexpr __mmask16 kAll = 0xFFFF;
  if constexpr (kBf16) {
    const __m512i b = _mm512_castps_si512(x);
    const __m512i odd = _mm512_and_si512(_mm512_maskz_srli_epi32(kAll, b, 16), _mm512_set1_epi32(1));
    const __m512i rounded = _mm512_add_epi32(_mm512_add_epi32(b, _mm512_set1_epi32(0x7FFF)), odd);
    *h = _mm512_maskz_cvtepi32_epi16(kAll, _mm512_maskz_srli_epi32(kAll, rounded, 16));
  } else {
    *h = _mm512_maskz_cvtps_ph(kAll, x, _MM_FROUND_TO_NEAREST_INT);
  }
  return true;
}

// `bf16`: to bf16 (in integers, as NarrowBF16Avx2), else to f16.
template <bool kBf16>
__attribute__((target("avx512f,avx512bw"))) inline void NarrowAvx512(const float* src, int64_t n, uint16_t* dst) {
  auto scalar = [](float x) { return kBf16 ? F32ToBF16(x) : F32ToF16(x); };
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i h;
    if (!Narrow16Avx512<kBf16>(_mm512_loadu_ps(src + i), &h)) {
      for (int64_t k = i; k < i + 16; ++k) dst[k] = scalar(src[k]);
      continue;
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), h);
  }
  for (; i < n; ++i) dst[i] = scalar(src[i]);
}
#endif

#if defined(__aarch64__) && defined(__GNUC__)
// The same on every arm64 CPU, four at a time: fcvtl / fcvtn convert
// between f16 and f32 in the base instruction set (rounding as FPCR says:
// to nearest even, no flushing, IEEE half precision, Linux's defaults for a
// thread), quieting a NaN, so a block holding a NaN goes element by
// element; bf16 in integers, as on AVX2.
inline bool HasNaNF16x4(uint16x4_t h) {
  return vmaxv_u16(vcgt_u16(vand_u16(h, vdup_n_u16(0x7FFF)), vdup_n_u16(0x7C00))) != 0;
}
inline bool HasNaNF32x4(float32x4_t x) { return vminvq_u32(vceqq_f32(x, x)) == 0; }

inline void WidenF16Neon(const uint16_t* src, int64_t n, float* dst) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint16x4_t h = vld1_u16(src + i);
    if (HasNaNF16x4(h)) {
      for (int64_t k = i; k < i + 4; ++k) dst[k] = F16ToF32(src[k]);
      continue;
    }
    vst1q_f32(dst + i, vcvt_f32_f16(vreinterpret_f16_u16(h)));
  }
  for (; i < n; ++i) dst[i] = F16ToF32(src[i]);
}

// dst[i] = scalar(src[i]) for n elements, four at a time by `vec` (four
// f32 lanes to four 16-bit ones) where the block holds no NaN.
template <class Vec, class Scalar>
inline void NarrowBy4Neon(const float* src, int64_t n, uint16_t* dst, Vec vec, Scalar scalar) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const float32x4_t x = vld1q_f32(src + i);
    if (HasNaNF32x4(x)) {
      for (int64_t k = i; k < i + 4; ++k) dst[k] = scalar(src[k]);
      continue;
    }
    vst1_u16(dst + i, vec(x));
  }
  for (; i < n; ++i) dst[i] = scalar(src[i]);
}

inline void NarrowF16Neon(const float* src, int64_t n, uint16_t* dst) {
  NarrowBy4Neon(
      src, n, dst, [](float32x4_t x) { return vreinterpret_u16_f16(vcvt_f16_f32(x)); }, &F32ToF16);
}

inline void NarrowBF16Neon(const float* src, int64_t n, uint16_t* dst) {
  // To nearest even on the dropped 16 bits, in integers.
  NarrowBy4Neon(
      src, n, dst,
      [](float32x4_t x) {
        const uint32x4_t b = vreinterpretq_u32_f32(x);
        return vshrn_n_u32(vaddq_u32(vaddq_u32(b, vdupq_n_u32(0x7FFF)), vandq_u32(vshrq_n_u32(b, 16), vdupq_n_u32(1))),
                           16);
      },
      &F32ToBF16);
}

inline void WidenBF16Neon(const uint16_t* src, int64_t n, float* dst) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(dst + i, vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(src + i), 16)));
  for (; i < n; ++i) dst[i] = BF16ToF32(src[i]);
}
#endif

// dst[i] = src[i] narrowed to f16 (`bf16` false) or bf16 bits, for n elements.
inline void NarrowFromF32(const float* src, bool bf16, int64_t n, uint16_t* dst) {
  if (bf16) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (CpuHasAvx512()) return NarrowAvx512<true>(src, n, dst);
    if (CpuHasF16c()) return NarrowBF16Avx2(src, n, dst);
#elif defined(__aarch64__) && defined(__GNUC__)
    return NarrowBF16Neon(src, n, dst);
#endif
    for (int64_t i = 0; i < n; ++i) dst[i] = F32ToBF16(src[i]);
    return;
  }
#if defined(__x86_64__) && defined(__GNUC__)
  if (CpuHasAvx512()) return NarrowAvx512<false>(src, n, dst);
  if (CpuHasF16c()) return NarrowF16F16c(src, n, dst);
#elif defined(__aarch64__) && defined(__GNUC__)
  return NarrowF16Neon(src, n, dst);
#endif
  for (int64_t i = 0; i < n; ++i) dst[i] = F32ToF16(src[i]);
}

// NarrowFromF32 over the runner's threads, in tasks of 64 Ki elements
// (fewer than two tasks' worth on the calling thread).
inline void NarrowFromF32Parallel(const float* src, bool bf16, int64_t n, uint16_t* dst, TaskRunner* runner) {
  constexpr int64_t kPerTask = int64_t{1} << 16;
  ParallelFor(n >= 2 * kPerTask ? runner : nullptr, (n + kPerTask - 1) / kPerTask, [&](int64_t k, int) {
    const int64_t i0 = k * kPerTask, i1 = std::min(n, i0 + kPerTask);
    NarrowFromF32(src + i0, bf16, i1 - i0, dst + i0);
  });
}

// dst[i] = src[i] widened to f32, for n elements of f16 (`bf16` false) or
// bf16 bits.
inline void WidenToF32(const uint16_t* src, bool bf16, int64_t n, float* dst) {
  if (bf16) {
#if defined(__aarch64__) && defined(__GNUC__)
    return WidenBF16Neon(src, n, dst);
#endif
    for (int64_t i = 0; i < n; ++i) dst[i] = BF16ToF32(src[i]);
    return;
  }
#if defined(__x86_64__) && defined(__GNUC__)
  if (CpuHasF16c()) return WidenF16F16c(src, n, dst);
#elif defined(__aarch64__) && defined(__GNUC__)
  return WidenF16Neon(src, n, dst);
#endif
  for (int64_t i = 0; i < n; ++i) dst[i] = F16ToF32(src[i]);
}

// WidenToF32 over the runner's threads, in tasks of 64 Ki elements (fewer
// than two tasks' worth on the calling thread), as NarrowFromF32Parallel.
inline void WidenToF32Parallel(const uint16_t* src, bool bf16, int64_t n, float* dst, TaskRunner* runner) {
  constexpr int64_t kPerTask = int64_t{1} << 16;
  ParallelFor(n >= 2 * kPerTask ? runner : nullptr, (n + kPerTask - 1) / kPerTask, [&](int64_t k, int) {
    const int64_t i0 = k * kPerTask, i1 = std::min(n, i0 + kPerTask);
    WidenToF32(src + i0, bf16, i1 - i0, dst + i0);
  });
}

}  // namespace kiln::cpu

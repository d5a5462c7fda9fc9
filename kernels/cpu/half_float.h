// f16 and bf16 bits to and from f32 on the CPU fast paths, with the
// reference codec's results (kernels/scalar/codec.cc): widening is exact
// (subnormals, infinities, NaN payloads kept); narrowing to bf16 rounds to
// nearest even, and a NaN keeps its sign and the top 7 bits of its payload
// (the quiet bit set where those are all zero).
#pragma once
#include <cstdint>
#include <cstring>

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

// dst[i] = src[i] widened to f32, for n elements of f16 (`bf16` false) or
// bf16 bits.
inline void WidenToF32(const uint16_t* src, bool bf16, int64_t n, float* dst) {
  if (bf16) {
    for (int64_t i = 0; i < n; ++i) dst[i] = BF16ToF32(src[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = F16ToF32(src[i]);
  }
}

}  // namespace kiln::cpu

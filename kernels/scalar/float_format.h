// The encodings of the float types narrower than f64 (kernels/scalar/codec.cc
// decodes, rounds and encodes them all through one generic codec; the
// Vulkan target's minifloat helpers take the same description as
// arguments: compiler/vulkan/scalar.cc).
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/common/element_type.h"

namespace kiln::ref {

enum class NanKind : uint8_t {
  kNone = 0,  // no NaN (f4/f6); the values are kernels/vulkan/minifloat.glsl's `nan` argument
  kIeee = 1,  // exponent all ones, mantissa nonzero (inf: mantissa zero)
  kAllOnes = 2,  // only S.1111.111 (f8E4M3FN)
  kNegZero = 3,  // only 1.0000.000 = 0x80 (FNUZ)
  kMax = 4,  // only the all-ones unsigned pattern 0xFF (f8E8M0FNU)
};

struct FloatFormat {
  int ebits;
  int mbits;
  int bias;
  bool has_inf;
  NanKind nan;
  bool has_sign;
  bool has_neg_zero;
  bool has_zero;
  bool subnormals;
  int total_bits() const { return (has_sign ? 1 : 0) + ebits + mbits; }
  int emin() const { return subnormals ? 1 - bias : -bias; }
  int max_biased_exp() const {
    int all = (1 << ebits) - 1;
    return (nan == NanKind::kIeee || nan == NanKind::kMax) ? all - 1 : all;
  }
  uint32_t max_mant() const {
    uint32_t all = (1u << mbits) - 1;
    return nan == NanKind::kAllOnes ? all - 1 : all;
  }
  double max_finite() const {
    double sig = 1.0 + std::ldexp(static_cast<double>(max_mant()), -mbits);
    return std::ldexp(sig, max_biased_exp() - bias);
  }
};

constexpr FloatFormat kIeeeLike(int e, int m, int bias) {
  return FloatFormat{e, m, bias, true, NanKind::kIeee, true, true, true, true};
}

// The format of float type `t` narrower than f64 (f32 included, so that
// its bits decode and encode too); false for every other type.
inline bool FormatOf(ElementType t, FloatFormat* f) {
  switch (t) {
    case ElementType::kF4E2M1FN: *f = {2, 1, 1, false, NanKind::kNone, true, true, true, true}; return true;
    case ElementType::kF6E2M3FN: *f = {2, 3, 1, false, NanKind::kNone, true, true, true, true}; return true;
    case ElementType::kF6E3M2FN: *f = {3, 2, 3, false, NanKind::kNone, true, true, true, true}; return true;
    case ElementType::kF8E3M4: *f = kIeeeLike(3, 4, 3); return true;
    case ElementType::kF8E4M3: *f = kIeeeLike(4, 3, 7); return true;
    case ElementType::kF8E4M3FN: *f = {4, 3, 7, false, NanKind::kAllOnes, true, true, true, true}; return true;
    case ElementType::kF8E4M3FNUZ: *f = {4, 3, 8, false, NanKind::kNegZero, true, false, true, true}; return true;
    case ElementType::kF8E4M3B11FNUZ: *f = {4, 3, 11, false, NanKind::kNegZero, true, false, true, true}; return true;
    case ElementType::kF8E5M2: *f = kIeeeLike(5, 2, 15); return true;
    case ElementType::kF8E5M2FNUZ: *f = {5, 2, 16, false, NanKind::kNegZero, true, false, true, true}; return true;
    case ElementType::kF8E8M0FNU: *f = {8, 0, 127, false, NanKind::kMax, false, false, false, false}; return true;
    case ElementType::kBF16: *f = kIeeeLike(8, 7, 127); return true;
    case ElementType::kF16: *f = kIeeeLike(5, 10, 15); return true;
    case ElementType::kF32: *f = kIeeeLike(8, 23, 127); return true;
    default: return false;
  }
}

}  // namespace kiln::ref

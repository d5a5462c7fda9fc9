// Reference element codecs: loading and storing every element type, rounding
// doubles to every float type, `convert` between types and integer wrapping.
//
// All float types narrower than f64 share one generic codec parameterized by
// FloatFormat (kernels/scalar/float_format.h: exponent bits, mantissa bits,
// bias, infinities, NaN encoding,
// sign, subnormals). Values travel as doubles (Scalar::re), which hold every
// value of every such type exactly.
//
// Choices where the spec leaves behaviour open (documented in the report):
//  - Overflow when rounding to a float type: IEEE-like types (f16, bf16, f32,
//    f8E3M4, f8E4M3, f8E5M2) give +-inf; types with NaN but no infinity
//    (f8E4M3FN, *FNUZ, f8E8M0FNU) give NaN (as LLVM APFloat does); types with
//    neither (f4E2M1FN, f6E2M3FN, f6E3M2FN) saturate to +-max finite, and
//    infinities saturate too; NaN converted to them gives +0.
//  - *FNUZ types: -0 becomes +0; their single NaN (0x80) loads as +NaN.
//  - f8E8M0FNU: no sign, no zero. Negative values (and -inf) give NaN; zero
//    and values that round below 2^-127 give 2^-127 (the smallest value).
//  - float -> integer: truncation toward zero, saturating to the type's range;
//    NaN gives 0 (LLVM APFloat::convertToInteger / XLA semantics).
//  - integer -> integer: two's complement wrap to the destination width.
//  - anything -> i1: nonzero is true (NaN is true); complex uses the real part
//    only (convert.mlir: (0, 1) -> false).
//  - integer -> float: rounded once, directly from the integer (no double
//    rounding through double for 64-bit integers).
//  - NaN payloads: f16/bf16/f32 and IEEE-like f8 keep the top bits of the
//    payload and the sign, so bitcast_convert round trips every bit pattern.
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/scalar/float_format.h"
#include "kernels/scalar/scalar.h"

namespace kiln::ref {
namespace {

constexpr uint64_t kF64MantMask = (uint64_t{1} << 52) - 1;
constexpr uint64_t kF64Quiet = uint64_t{1} << 51;

double MakeNaN(bool negative, uint64_t mant52 = kF64Quiet) {
  uint64_t bits = (negative ? uint64_t{1} << 63 : 0) | (uint64_t{0x7FF} << 52) | (mant52 & kF64MantMask);
  if ((bits & kF64MantMask) == 0) bits |= kF64Quiet;
  return std::bit_cast<double>(bits);
}

// Keeps the top `mbits` bits of a NaN's payload (nonzero), and its sign.
double TruncateNaN(double v, int mbits) {
  uint64_t bits = std::bit_cast<uint64_t>(v);
  uint64_t mant = bits & kF64MantMask;
  int drop = 52 - mbits;
  mant = (mant >> drop) << drop;
  return MakeNaN((bits >> 63) != 0, mant);
}

// Decodes the low total_bits() of `bits`.
double Decode(const FloatFormat& f, uint64_t bits) {
  uint64_t mant = bits & ((uint64_t{1} << f.mbits) - 1);
  uint64_t exp = (bits >> f.mbits) & ((uint64_t{1} << f.ebits) - 1);
  bool neg = f.has_sign && ((bits >> (f.ebits + f.mbits)) & 1);
  uint64_t all_exp = (uint64_t{1} << f.ebits) - 1;
  switch (f.nan) {
    case NanKind::kIeee:
      if (exp == all_exp) {
        if (mant == 0) return neg ? -INFINITY : INFINITY;
        return MakeNaN(neg, mant << (52 - f.mbits));
      }
      break;
    case NanKind::kAllOnes:
      if (exp == all_exp && mant == (uint64_t{1} << f.mbits) - 1) return MakeNaN(neg);
      break;
    case NanKind::kNegZero:
      if (neg && exp == 0 && mant == 0) return MakeNaN(false);
      break;
    case NanKind::kMax:
      if (exp == all_exp) return MakeNaN(false);
      break;
    case NanKind::kNone:
      break;
  }
  double mag;
  if (exp == 0 && f.subnormals) {
    mag = std::ldexp(static_cast<double>(mant), f.emin() - f.mbits);
  } else {
    mag = std::ldexp(static_cast<double>(mant | (uint64_t{1} << f.mbits)),
                     static_cast<int>(exp) - f.bias - f.mbits);
  }
  return neg ? -mag : mag;
}

// Rounds `v` to format `f` (RNE), with the format's special-value rules.
double RoundTo(const FloatFormat& f, double v) {
  if (std::isnan(v)) {
    switch (f.nan) {
      case NanKind::kIeee: return TruncateNaN(v, f.mbits);
      case NanKind::kAllOnes: return MakeNaN(std::signbit(v));
      case NanKind::kNegZero:
      case NanKind::kMax: return MakeNaN(false);
      case NanKind::kNone: return 0.0;
    }
  }
  bool neg = std::signbit(v);
  if (neg && !f.has_sign) {
    if (v == 0) return std::ldexp(1.0, f.emin());  // -0 is zero: smallest value
    return MakeNaN(false);
  }
  double a = std::fabs(v);
  double r;
  if (std::isinf(a)) {
    r = a;
  } else if (a == 0) {
    r = 0;
  } else {
    int e = std::ilogb(a);
    if (e < f.emin()) e = f.emin();
    int qexp = e - f.mbits;             // exponent of one unit in the last place
    double scaled = std::ldexp(a, -qexp);  // exact: power-of-two scaling
    r = std::ldexp(std::nearbyint(scaled), qexp);  // default rounding mode is RNE
  }
  if (r > f.max_finite()) {
    if (f.has_inf) {
      r = INFINITY;
    } else if (f.nan == NanKind::kNone) {
      r = f.max_finite();
    } else {
      return MakeNaN(f.nan == NanKind::kAllOnes ? neg : false);
    }
  }
  if (r == 0) {
    if (!f.has_zero) return std::ldexp(1.0, f.emin());
    if (!f.has_neg_zero) return 0.0;
  }
  return neg ? -r : r;
}

// Encodes a value exactly representable in `f` (as produced by RoundTo).
uint64_t Encode(const FloatFormat& f, double v) {
  int sign_shift = f.ebits + f.mbits;
  uint64_t all_exp = (uint64_t{1} << f.ebits) - 1;
  uint64_t all_mant = (uint64_t{1} << f.mbits) - 1;
  if (std::isnan(v)) {
    bool neg = std::signbit(v);
    switch (f.nan) {
      case NanKind::kIeee: {
        uint64_t mant = (std::bit_cast<uint64_t>(v) & kF64MantMask) >> (52 - f.mbits);
        if (mant == 0) mant = uint64_t{1} << (f.mbits - 1);
        return (uint64_t{neg} << sign_shift) | (all_exp << f.mbits) | mant;
      }
      case NanKind::kAllOnes:
        return (uint64_t{neg} << sign_shift) | (all_exp << f.mbits) | all_mant;
      case NanKind::kNegZero: return uint64_t{1} << sign_shift;
      case NanKind::kMax: return all_exp;
      case NanKind::kNone: return 0;
    }
  }
  bool neg = f.has_sign && std::signbit(v) && !(v == 0 && !f.has_neg_zero);
  uint64_t sign = f.has_sign ? uint64_t{neg} << sign_shift : 0;
  double a = std::fabs(v);
  if (std::isinf(a)) {
    if (f.has_inf) return sign | (all_exp << f.mbits);
    return Encode(f, RoundTo(f, v));
  }
  if (a == 0) {
    if (!f.has_zero) return 0;
    return sign;
  }
  int e = std::ilogb(a);
  if (e < f.emin()) {
    if (!f.subnormals) return 0;
    uint64_t mant = static_cast<uint64_t>(std::ldexp(a, f.mbits - f.emin()));
    return sign | mant;
  }
  uint64_t biased = static_cast<uint64_t>(e + f.bias);
  uint64_t mant = static_cast<uint64_t>(std::ldexp(a, f.mbits - e)) & all_mant;
  if (f.subnormals && biased == 0) biased = 0;  // cannot happen: e >= emin
  return sign | (biased << f.mbits) | mant;
}

template <typename T>
T ReadRaw(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T>
void WriteRaw(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

double LoadF32(const uint8_t* p) {
  uint32_t bits = ReadRaw<uint32_t>(p);
  if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x7FFFFFu) != 0)
    return MakeNaN((bits >> 31) != 0, uint64_t{bits & 0x7FFFFFu} << 29);
  return static_cast<double>(std::bit_cast<float>(bits));
}

void StoreF32(double v, uint8_t* p) {
  uint32_t bits;
  if (std::isnan(v)) {
    uint64_t b = std::bit_cast<uint64_t>(v);
    uint32_t mant = static_cast<uint32_t>((b & kF64MantMask) >> 29);
    if (mant == 0) mant = 0x400000u;
    bits = (static_cast<uint32_t>(b >> 63) << 31) | 0x7F800000u | mant;
  } else {
    bits = std::bit_cast<uint32_t>(static_cast<float>(v));
  }
  WriteRaw(p, bits);
}

// Rounds a nonnegative integer magnitude to `p` significant bits (RNE); the
// result is exact in double for p <= 53.
double RoundMagnitude(uint64_t m, int p) {
  int len = 64 - std::countl_zero(m);
  if (len <= p) return static_cast<double>(m);
  int shift = len - p;
  uint64_t q = m >> shift;
  uint64_t rem = m & ((uint64_t{1} << shift) - 1);
  uint64_t half = uint64_t{1} << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) ++q;
  return std::ldexp(static_cast<double>(q), shift);
}

int Precision(ElementType t) {
  if (t == ElementType::kF64 || t == ElementType::kC128) return 53;
  FloatFormat f;
  if (FormatOf(ComplexPartType(t), &f)) return f.mbits + 1;
  return 53;
}

// Integer (given as value + signedness) to a float type's value.
double IntToFloat(ElementType to, int64_t v, bool is_unsigned) {
  ElementType part = ComplexPartType(to);
  bool neg = !is_unsigned && v < 0;
  uint64_t mag = neg ? (~static_cast<uint64_t>(v) + 1) : static_cast<uint64_t>(v);
  double r = RoundMagnitude(mag, Precision(part));
  return RoundToFloatType(part, neg ? -r : r);
}

// Float value to integer type, truncating and saturating; NaN -> 0.
int64_t FloatToInt(ElementType to, double v) {
  if (std::isnan(v)) return 0;
  if (IsBool(to)) return v != 0 ? 1 : 0;
  int w = BitWidth(to);
  double t = std::trunc(v);
  if (KindOf(to) == ElementKind::kSigned) {
    double lo = -std::ldexp(1.0, w - 1);  // exact
    double hi = std::ldexp(1.0, w - 1);   // exclusive
    if (t <= lo) return w == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (w - 1));
    if (t >= hi) return w == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (w - 1)) - 1;
    return static_cast<int64_t>(t);
  }
  if (t <= 0) return 0;
  double hi = std::ldexp(1.0, w);
  if (t >= hi) return w == 64 ? static_cast<int64_t>(~uint64_t{0}) : static_cast<int64_t>((uint64_t{1} << w) - 1);
  return static_cast<int64_t>(static_cast<uint64_t>(t));
}

}  // namespace

int64_t WrapInteger(ElementType type, int64_t v) {
  switch (KindOf(type)) {
    case ElementKind::kBool: return v & 1;
    case ElementKind::kSigned: {
      int w = BitWidth(type);
      if (w >= 64) return v;
      int s = 64 - w;
      return static_cast<int64_t>(static_cast<uint64_t>(v) << s) >> s;
    }
    case ElementKind::kUnsigned: {
      int w = BitWidth(type);
      if (w >= 64) return v;
      return static_cast<int64_t>(static_cast<uint64_t>(v) & ((uint64_t{1} << w) - 1));
    }
    default: return v;
  }
}

double RoundToFloatType(ElementType type, double v) {
  type = ComplexPartType(type);
  if (type == ElementType::kF64) return v;
  if (type == ElementType::kF32) {
    if (std::isnan(v)) return TruncateNaN(v, 23);
    return static_cast<double>(static_cast<float>(v));  // correctly rounded, RNE
  }
  FloatFormat f;
  if (!FormatOf(type, &f)) return v;
  return RoundTo(f, v);
}

Scalar LoadScalar(ElementType type, const uint8_t* p) {
  Scalar s;
  switch (type) {
    case ElementType::kI1: s.i = p[0] != 0 ? 1 : 0; return s;
    case ElementType::kSI2:
    case ElementType::kSI4:
    case ElementType::kSI8:
    case ElementType::kUI2:
    case ElementType::kUI4:
    case ElementType::kUI8: s.i = WrapInteger(type, p[0]); return s;
    case ElementType::kSI16: s.i = ReadRaw<int16_t>(p); return s;
    case ElementType::kUI16: s.i = ReadRaw<uint16_t>(p); return s;
    case ElementType::kSI32: s.i = ReadRaw<int32_t>(p); return s;
    case ElementType::kUI32: s.i = ReadRaw<uint32_t>(p); return s;
    case ElementType::kSI64:
    case ElementType::kUI64: s.i = ReadRaw<int64_t>(p); return s;
    case ElementType::kF32: s.re = LoadF32(p); return s;
    case ElementType::kF64: s.re = ReadRaw<double>(p); return s;
    case ElementType::kC64:
      s.re = LoadF32(p);
      s.im = LoadF32(p + 4);
      return s;
    case ElementType::kC128:
      s.re = ReadRaw<double>(p);
      s.im = ReadRaw<double>(p + 8);
      return s;
    case ElementType::kBF16:
    case ElementType::kF16: {
      FloatFormat f;
      FormatOf(type, &f);
      s.re = Decode(f, ReadRaw<uint16_t>(p));
      return s;
    }
    default: {
      FloatFormat f;
      if (FormatOf(type, &f)) s.re = Decode(f, p[0] & ((1u << f.total_bits()) - 1));
      return s;
    }
  }
}

void StoreScalar(ElementType type, const Scalar& s, uint8_t* p) {
  switch (type) {
    case ElementType::kI1: p[0] = (s.i & 1) ? 1 : 0; return;
    case ElementType::kSI2:
    case ElementType::kSI4:
    case ElementType::kSI8:
    case ElementType::kUI2:
    case ElementType::kUI4:
    case ElementType::kUI8: p[0] = static_cast<uint8_t>(WrapInteger(type, s.i)); return;
    case ElementType::kSI16:
    case ElementType::kUI16: WriteRaw(p, static_cast<uint16_t>(s.i)); return;
    case ElementType::kSI32:
    case ElementType::kUI32: WriteRaw(p, static_cast<uint32_t>(s.i)); return;
    case ElementType::kSI64:
    case ElementType::kUI64: WriteRaw(p, s.i); return;
    case ElementType::kF32: StoreF32(s.re, p); return;
    case ElementType::kF64: WriteRaw(p, s.re); return;
    case ElementType::kC64:
      StoreF32(s.re, p);
      StoreF32(s.im, p + 4);
      return;
    case ElementType::kC128:
      WriteRaw(p, s.re);
      WriteRaw(p + 8, s.im);
      return;
    case ElementType::kBF16:
    case ElementType::kF16: {
      FloatFormat f;
      FormatOf(type, &f);
      WriteRaw(p, static_cast<uint16_t>(Encode(f, RoundTo(f, s.re))));
      return;
    }
    default: {
      FloatFormat f;
      if (FormatOf(type, &f)) p[0] = static_cast<uint8_t>(Encode(f, RoundTo(f, s.re)));
      return;
    }
  }
}

Scalar ConvertScalar(ElementType from, ElementType to, const Scalar& s) {
  Scalar r;
  ElementKind fk = KindOf(from);
  ElementKind tk = KindOf(to);
  if (fk == ElementKind::kBool || fk == ElementKind::kSigned || fk == ElementKind::kUnsigned) {
    int64_t v = s.i;
    if (fk == ElementKind::kBool) v = (v & 1) ? 1 : 0;
    switch (tk) {
      case ElementKind::kBool: r.i = v != 0 ? 1 : 0; break;
      case ElementKind::kSigned:
      case ElementKind::kUnsigned: r.i = WrapInteger(to, v); break;
      case ElementKind::kFloat:
      case ElementKind::kComplex: r.re = IntToFloat(to, v, fk == ElementKind::kUnsigned); break;
      default: break;
    }
    return r;
  }
  // Float or complex source: the real part (imaginary ignored unless complex->complex).
  double re = s.re;
  switch (tk) {
    case ElementKind::kBool: r.i = re != 0 ? 1 : 0; break;
    case ElementKind::kSigned:
    case ElementKind::kUnsigned: r.i = FloatToInt(to, re); break;
    case ElementKind::kFloat: r.re = RoundToFloatType(to, re); break;
    case ElementKind::kComplex:
      r.re = RoundToFloatType(to, re);
      r.im = fk == ElementKind::kComplex ? RoundToFloatType(to, s.im) : 0.0;
      break;
    default: break;
  }
  return r;
}

}  // namespace kiln::ref

// Reference evaluation of scalar-expression programs: every op of
// scalar_ops.def for every element type the spec allows it (the table's
// classes column; program_verifier.cc refuses the rest before anything runs).
//
// Conventions (see scalar_program.h): integers travel in Scalar::i sign- or
// zero-extended to 64 bits, floats in Scalar::re (exactly representable in
// their type), complex numbers in re/im. Integer ops wrap at the type's bit
// width; float ops are computed in double and rounded once to the result type
// (exact for add/subtract/multiply/divide/sqrt on types of <= 24 significant
// bits; f64 uses native double ops).
//
// Choices where the spec leaves behaviour open (also in the report):
//  - integer divide by zero: -1 for signed (all ones), all ones for unsigned;
//    remainder by zero: the dividend; INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0
//    (XLA semantics).
//  - shifts: the amount is read as an unsigned number of the operand type;
//    amounts >= bit width give 0 (shift_left, shift_right_logical) or the sign
//    fill (shift_right_arithmetic).
//  - integer power with negative exponent: 1 for base 1, +-1 for base -1
//    (by parity), 0 otherwise (power.mlir).
//  - maximum/minimum on floats: IEEE-754 2019 maximum/minimum (NaN
//    propagates, -0 < +0); complex: lexicographic.
//  - compare TOTALORDER: IEEE totalOrder on the value widened to double (NaN
//    sign and payload kept by the codec), EQ means identical; NOTYPE picks
//    SIGNED/UNSIGNED/FLOAT by element type; complex compares (re, im)
//    lexicographically, EQ/NE componentwise.
//  - reduce_precision: XLA's bit-level algorithm applied to the operand's
//    own encoding for f16/bf16/f32/f64 (to f32's encoding for the f8/f6/f4
//    types, then rounded back).
//  - remainder on complex numbers (spec: TBD): lhs - rhs * trunc(lhs / rhs),
//    truncating each component of the quotient.
#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

#include "kernels/scalar/scalar.h"
#include "kernels/scalar/special_functions.h"

namespace kiln::ref {
namespace {

using Cx = std::complex<double>;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

bool IsIntOrBool(ElementType t) { return IsInteger(t) || IsBool(t); }
bool IsUnsignedLike(ElementType t) { return KindOf(t) == ElementKind::kUnsigned || IsBool(t); }

uint64_t Mask(int w) { return w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1; }

Scalar Int(ElementType t, int64_t v) {
  Scalar s;
  s.i = WrapInteger(t, v);
  return s;
}
Scalar Bool(bool b) {
  Scalar s;
  s.i = b ? 1 : 0;
  return s;
}
Scalar Real(ElementType t, double v) {
  Scalar s;
  s.re = RoundToFloatType(t, v);
  return s;
}
Scalar Complex(ElementType t, Cx z) {
  Scalar s;
  s.re = RoundToFloatType(t, z.real());
  s.im = RoundToFloatType(t, z.imag());
  return s;
}
Cx C(const Scalar& s) { return Cx(s.re, s.im); }

// ----- complex helpers --------------------------------------------------------

Cx CLog1p(Cx z) {
  double x = z.real(), y = z.imag();
  double re = 0.5 * std::log1p(2 * x + x * x + y * y);
  if (std::fabs(x) > 0.5 || !std::isfinite(x) || !std::isfinite(y)) re = std::log(std::abs(Cx(1 + x, y)));
  return Cx(re, std::atan2(y, 1 + x));
}

Cx CExpm1(Cx z) {
  double x = z.real(), y = z.imag();
  double s = std::sin(y / 2);
  double re = std::expm1(x) * std::cos(y) - 2 * s * s;
  double im = std::exp(x) * std::sin(y);
  return Cx(re, im);
}

Cx CSign(Cx z) {
  if (std::isnan(z.real()) || std::isnan(z.imag())) return Cx(kNaN, kNaN);
  if (z.real() == 0 && z.imag() == 0) return Cx(0, 0);
  return z / std::abs(z);
}

Cx CAtan2(Cx y, Cx x) {
  // atan2(y, x) = -i log((x + i y) / sqrt(x^2 + y^2)).
  const Cx i(0, 1);
  return -i * std::log((x + i * y) / std::sqrt(x * x + y * y));
}

// ----- float helpers ----------------------------------------------------------

double FMax(double a, double b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
double FMin(double a, double b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

double Sign(double x) {
  if (std::isnan(x)) return x;
  if (x == 0) return x;
  return x < 0 ? -1.0 : 1.0;
}

double Logistic(double x) { return 1 / (1 + std::exp(-x)); }

double RoundHalfEven(double x) {
  double r = std::round(x);  // ties away from zero
  if (std::fabs(x - std::trunc(x)) == 0.5) r = 2 * std::round(x / 2);
  return r;
}



bool CompareFloat(ComparisonDirection d, ComparisonType ct, double a, double b) {
  if (ct == ComparisonType::kTotalOrder) return ApplyDirection(d, TotalOrderKey(a), TotalOrderKey(b));
  return ApplyDirection(d, a, b);  // IEEE quiet comparisons (NaN: only NE true)
}

bool CompareComplex(ComparisonDirection d, ComparisonType ct, Cx a, Cx b) {
  auto eq = [&](double x, double y) { return CompareFloat(ComparisonDirection::kEQ, ct, x, y); };
  auto lt = [&](double x, double y) { return CompareFloat(ComparisonDirection::kLT, ct, x, y); };
  bool re_eq = eq(a.real(), b.real());
  bool is_eq = re_eq && eq(a.imag(), b.imag());
  switch (d) {
    case ComparisonDirection::kEQ: return is_eq;
    case ComparisonDirection::kNE: return !is_eq;
    case ComparisonDirection::kLT: return lt(a.real(), b.real()) || (re_eq && lt(a.imag(), b.imag()));
    case ComparisonDirection::kGT: return lt(b.real(), a.real()) || (re_eq && lt(b.imag(), a.imag()));
    case ComparisonDirection::kLE:
      return lt(a.real(), b.real()) || (re_eq && (lt(a.imag(), b.imag()) || eq(a.imag(), b.imag())));
    case ComparisonDirection::kGE:
      return lt(b.real(), a.real()) || (re_eq && (lt(b.imag(), a.imag()) || eq(a.imag(), b.imag())));
  }
  return false;
}

Scalar Compare(const ScalarInstr& in, ElementType t, const Scalar& a, const Scalar& b) {
  auto d = static_cast<ComparisonDirection>(in.attr0);
  auto ct = static_cast<ComparisonType>(in.attr1);
  if (IsComplex(t)) {
    if (ct == ComparisonType::kNotype) ct = ComparisonType::kFloat;
    return Bool(CompareComplex(d, ct, C(a), C(b)));
  }
  if (IsFloat(t)) {
    if (ct == ComparisonType::kNotype || ct == ComparisonType::kSigned || ct == ComparisonType::kUnsigned)
      ct = ComparisonType::kFloat;
    return Bool(CompareFloat(d, ct, a.re, b.re));
  }
  if (ct == ComparisonType::kNotype || ct == ComparisonType::kFloat || ct == ComparisonType::kTotalOrder)
    ct = IsUnsignedLike(t) ? ComparisonType::kUnsigned : ComparisonType::kSigned;
  if (ct == ComparisonType::kUnsigned) {
    uint64_t m = Mask(BitWidth(t));
    return Bool(ApplyDirection(d, static_cast<uint64_t>(a.i) & m, static_cast<uint64_t>(b.i) & m));
  }
  int w = BitWidth(t);
  int64_t x = a.i, y = b.i;
  if (w < 64) {
    int s = 64 - w;
    x = static_cast<int64_t>(static_cast<uint64_t>(x) << s) >> s;
    y = static_cast<int64_t>(static_cast<uint64_t>(y) << s) >> s;
  }
  return Bool(ApplyDirection(d, x, y));
}

// XLA's ReducePrecision on a float encoded in `total` bits with `src_e`
// exponent and `src_m` mantissa bits (IEEE layout).
uint64_t ReducePrecisionBits(uint64_t x, int total, int src_e, int src_m, int ebits, int mbits) {
  uint64_t all = Mask(total);
  if (mbits < src_m) {
    int shift = src_m - mbits;
    uint64_t last = uint64_t{1} << shift;
    uint64_t x_last = (x & last) >> shift;
    uint64_t bias = x_last + (last >> 1) - 1;
    x = ((x + bias) & ~(last - 1)) & all;
  }
  if (ebits < src_e) {
    uint64_t sign_mask = uint64_t{1} << (total - 1);
    uint64_t exp_mask = Mask(src_e) << src_m;
    uint64_t src_bias = (uint64_t{1} << (src_e - 1)) - 1;
    uint64_t red_bias = (uint64_t{1} << (ebits - 1)) - 1;
    uint64_t max_e = src_bias + red_bias;
    uint64_t min_e = src_bias - red_bias;
    uint64_t xe = x & exp_mask;
    bool overflow = xe > (max_e << src_m);
    bool underflow = xe <= (min_e << src_m);
    uint64_t signed_zero = x & sign_mask;
    uint64_t signed_inf = signed_zero | exp_mask;
    x = overflow ? signed_inf : (underflow ? signed_zero : x);
  }
  return x;
}

double ReducePrecision(ElementType t, double v, int64_t ebits64, int64_t mbits64) {
  int ebits = static_cast<int>(std::clamp<int64_t>(ebits64, 1, 64));
  int mbits = static_cast<int>(std::clamp<int64_t>(mbits64, 0, 64));
  if (std::isnan(v)) return mbits > 0 ? v : kInf;
  ElementType enc = t;
  int total, se, sm;
  switch (t) {
    case ElementType::kF64: total = 64, se = 11, sm = 52; break;
    case ElementType::kF32: total = 32, se = 8, sm = 23; break;
    case ElementType::kF16: total = 16, se = 5, sm = 10; break;
    case ElementType::kBF16: total = 16, se = 8, sm = 7; break;
    default: enc = ElementType::kF32, total = 32, se = 8, sm = 23; break;
  }
  uint8_t buf[8] = {};
  Scalar s;
  s.re = v;
  StoreScalar(enc, s, buf);
  uint64_t bits = 0;
  std::memcpy(&bits, buf, StorageBytes(enc));
  bits = ReducePrecisionBits(bits, total, se, sm, ebits, mbits);
  std::memcpy(buf, &bits, StorageBytes(enc));
  double r = LoadScalar(enc, buf).re;
  return RoundToFloatType(t, r);
}

// next_after in `t`'s own encoding.
double NextAfter(ElementType t, double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return kNaN;
  if (x == y) return y;
  if (t == ElementType::kF64) return std::nextafter(x, y);
  if (t == ElementType::kF32) return std::nextafter(static_cast<float>(x), static_cast<float>(y));
  // Small floats: step the sign-magnitude encoding.
  uint8_t buf[8] = {};
  Scalar s;
  s.re = x;
  StoreScalar(t, s, buf);
  uint64_t bits = 0;
  std::memcpy(&bits, buf, StorageBytes(t));
  int w = BitWidth(t);
  bool has_sign = t != ElementType::kF8E8M0FNU;
  uint64_t sign_bit = has_sign ? uint64_t{1} << (w - 1) : 0;
  uint64_t mag = bits & ~sign_bit;
  bool up = y > x;
  if (x == 0) {
    bits = (y < 0 ? sign_bit : 0) | 1;
  } else if (up == (x > 0)) {
    bits = (bits & sign_bit) | (mag + 1);
  } else {
    bits = (bits & sign_bit) | (mag - 1);
    if (mag - 1 == 0) bits = (std::signbit(x) ? sign_bit : 0);  // +-0
  }
  std::memcpy(buf, &bits, StorageBytes(t));
  if (bits == sign_bit && sign_bit != 0) {
    // -0: types without negative zero encode NaN there; RoundToFloatType
    // gives +0 for them.
    return RoundToFloatType(t, -0.0);
  }
  return LoadScalar(t, buf).re;
}

Scalar BitcastConvert(ElementType from, ElementType to, const Scalar& s) {
  if (BitWidth(from) != BitWidth(to)) return Scalar{};
  uint8_t buf[16] = {};
  StoreScalar(from, s, buf);
  return LoadScalar(to, buf);
}

// ----- integer helpers --------------------------------------------------------

int64_t IntPower(ElementType t, int64_t base, int64_t exp) {
  bool is_unsigned = IsUnsignedLike(t);
  if (!is_unsigned && exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exp & 1) ? -1 : 1;
    return 0;
  }
  uint64_t e = static_cast<uint64_t>(exp) & Mask(BitWidth(t));
  uint64_t b = static_cast<uint64_t>(base), r = 1;
  while (e) {
    if (e & 1) r *= b;
    b *= b;
    e >>= 1;
  }
  return WrapInteger(t, static_cast<int64_t>(r));
}

int64_t IntDivide(ElementType t, int64_t a, int64_t b) {
  if (IsUnsignedLike(t)) {
    uint64_t m = Mask(BitWidth(t));
    uint64_t x = static_cast<uint64_t>(a) & m, y = static_cast<uint64_t>(b) & m;
    if (y == 0) return WrapInteger(t, -1);
    return static_cast<int64_t>(x / y);
  }
  if (b == 0) return WrapInteger(t, -1);
  if (b == -1) return WrapInteger(t, static_cast<int64_t>(0 - static_cast<uint64_t>(a)));
  return WrapInteger(t, a / b);
}

int64_t IntRemainder(ElementType t, int64_t a, int64_t b) {
  if (IsUnsignedLike(t)) {
    uint64_t m = Mask(BitWidth(t));
    uint64_t x = static_cast<uint64_t>(a) & m, y = static_cast<uint64_t>(b) & m;
    if (y == 0) return static_cast<int64_t>(x);
    return static_cast<int64_t>(x % y);
  }
  if (b == 0) return a;
  if (b == -1) return 0;
  return a % b;
}

int64_t Shift(ScalarOp op, ElementType t, int64_t a, int64_t b) {
  int w = BitWidth(t);
  uint64_t m = Mask(w);
  uint64_t amount = static_cast<uint64_t>(b) & m;
  uint64_t ua = static_cast<uint64_t>(a) & m;
  switch (op) {
    case ScalarOp::kShiftLeft:
      if (amount >= static_cast<uint64_t>(w)) return 0;
      return WrapInteger(t, static_cast<int64_t>(ua << amount));
    case ScalarOp::kShiftRightLogical:
      if (amount >= static_cast<uint64_t>(w)) return 0;
      return WrapInteger(t, static_cast<int64_t>(ua >> amount));
    default: {  // arithmetic: shift the sign-extended value
      int s = 64 - w;
      int64_t sa = s > 0 ? static_cast<int64_t>(ua << s) >> s : static_cast<int64_t>(ua);
      if (amount >= static_cast<uint64_t>(w)) amount = w - 1;
      return WrapInteger(t, sa >> amount);
    }
  }
}

int64_t MulHi(ElementType t, int64_t a, int64_t b) {
  int w = BitWidth(t);
  if (IsUnsignedLike(t)) {
    unsigned __int128 p = static_cast<unsigned __int128>(static_cast<uint64_t>(a) & Mask(w)) *
                          static_cast<unsigned __int128>(static_cast<uint64_t>(b) & Mask(w));
    return WrapInteger(t, static_cast<int64_t>(static_cast<uint64_t>(p >> w)));
  }
  __int128 p = static_cast<__int128>(a) * static_cast<__int128>(b);
  return WrapInteger(t, static_cast<int64_t>(p >> w));
}

// Signed view of a (possibly unsigned) integer for ordering.
bool IntLess(ElementType t, int64_t a, int64_t b) {
  if (IsUnsignedLike(t)) return static_cast<uint64_t>(a) < static_cast<uint64_t>(b);
  return a < b;
}

bool CxLess(Cx a, Cx b) { return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag()); }

Scalar MaxMin(bool is_max, ElementType t, const Scalar& a, const Scalar& b) {
  if (IsComplex(t)) {
    Cx x = C(a), y = C(b);
    if (std::isnan(x.real()) || std::isnan(x.imag())) return a;
    if (std::isnan(y.real()) || std::isnan(y.imag())) return b;
    bool a_less = CxLess(x, y);
    return is_max ? (a_less ? b : a) : (a_less ? a : b);
  }
  if (IsFloat(t)) return Real(t, is_max ? FMax(a.re, b.re) : FMin(a.re, b.re));
  bool a_less = IntLess(t, a.i, b.i);
  return is_max ? (a_less ? b : a) : (a_less ? a : b);
}

using RealFn = double (*)(double);
using CxFn = Cx (*)(Cx);

Scalar Unary(ElementType t, const Scalar& a, RealFn rf, CxFn cf) {
  if (IsComplex(t)) {
    if (!cf) return Complex(t, Cx(kNaN, kNaN));
    return Complex(t, cf(C(a)));
  }
  if (!rf) return Real(t, kNaN);
  return Real(t, rf(a.re));
}

}  // namespace

Scalar EvalScalarInstr(const ScalarInstr& instr, const ElementType* operand_types, const Scalar* operands) {
  const ElementType rt = instr.type;
  const ElementType t0 = instr.num_operands > 0 ? operand_types[0] : rt;
  const Scalar& a = instr.num_operands > 0 ? operands[0] : instr.constant;
  const Scalar& b = instr.num_operands > 1 ? operands[1] : instr.constant;
  const bool cx = IsComplex(t0);
  const bool in = IsIntOrBool(t0);

  switch (instr.op) {
    case ScalarOp::kConstant: return instr.constant;

    // ----- arithmetic -----------------------------------------------------
    case ScalarOp::kAdd:
      if (IsBool(rt)) return Bool((a.i | b.i) & 1);
      if (in) return Int(rt, static_cast<int64_t>(static_cast<uint64_t>(a.i) + static_cast<uint64_t>(b.i)));
      if (cx) return Complex(rt, C(a) + C(b));
      return Real(rt, a.re + b.re);
    case ScalarOp::kSubtract:
      if (IsBool(rt)) return Bool((a.i ^ b.i) & 1);
      if (in) return Int(rt, static_cast<int64_t>(static_cast<uint64_t>(a.i) - static_cast<uint64_t>(b.i)));
      if (cx) return Complex(rt, C(a) - C(b));
      return Real(rt, a.re - b.re);
    case ScalarOp::kMultiply:
      if (IsBool(rt)) return Bool((a.i & b.i) & 1);
      if (in) return Int(rt, static_cast<int64_t>(static_cast<uint64_t>(a.i) * static_cast<uint64_t>(b.i)));
      if (cx) return Complex(rt, C(a) * C(b));
      return Real(rt, a.re * b.re);
    case ScalarOp::kDivide:
      if (in) return Int(rt, IntDivide(rt, a.i, b.i));
      if (cx) return Complex(rt, C(a) / C(b));
      return Real(rt, a.re / b.re);
    case ScalarOp::kRemainder:
      if (in) return Int(rt, IntRemainder(rt, a.i, b.i));
      if (cx) {
        Cx q = C(a) / C(b);
        Cx d(std::trunc(q.real()), std::trunc(q.imag()));
        return Complex(rt, C(a) - d * C(b));
      }
      return Real(rt, std::fmod(a.re, b.re));
    case ScalarOp::kNegate:
      if (in) return Int(rt, static_cast<int64_t>(0 - static_cast<uint64_t>(a.i)));
      if (cx) return Complex(rt, -C(a));
      return Real(rt, -a.re);
    case ScalarOp::kAbs:
      if (in) {
        if (IsUnsignedLike(t0)) return a;
        return Int(rt, a.i < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(a.i)) : a.i);
      }
      if (cx) return Real(rt, std::hypot(a.re, a.im));
      return Real(rt, std::fabs(a.re));
    case ScalarOp::kSquare:
      if (in) return Int(rt, static_cast<int64_t>(static_cast<uint64_t>(a.i) * static_cast<uint64_t>(a.i)));
      if (cx) return Complex(rt, C(a) * C(a));
      return Real(rt, a.re * a.re);
    case ScalarOp::kPower:
      if (in) return Int(rt, IntPower(rt, a.i, b.i));
      if (cx) return Complex(rt, std::pow(C(a), C(b)));
      return Real(rt, std::pow(a.re, b.re));
    case ScalarOp::kMaximum: return MaxMin(true, t0, a, b);
    case ScalarOp::kMinimum: return MaxMin(false, t0, a, b);
    case ScalarOp::kClamp: {
      // clamp(min, operand, max) = minimum(maximum(operand, min), max)
      const Scalar& mn = operands[0];
      const Scalar& x = operands[1];
      const Scalar& mx = operands[2];
      ElementType t = operand_types[1];
      return MaxMin(false, t, MaxMin(true, t, x, mn), mx);
    }
    case ScalarOp::kSign:
      if (in) {
        if (IsUnsignedLike(t0)) return Int(rt, a.i != 0 ? 1 : 0);
        return Int(rt, a.i < 0 ? -1 : (a.i == 0 ? 0 : 1));
      }
      if (cx) return Complex(rt, CSign(C(a)));
      return Real(rt, Sign(a.re));
    case ScalarOp::kMulhi: return Int(rt, MulHi(rt, a.i, b.i));

    // ----- bitwise ----------------------------------------------------------
    case ScalarOp::kAnd: return Int(rt, a.i & b.i);
    case ScalarOp::kOr: return Int(rt, a.i | b.i);
    case ScalarOp::kXor: return Int(rt, a.i ^ b.i);
    case ScalarOp::kNot:
      if (IsBool(rt)) return Bool(!(a.i & 1));
      return Int(rt, ~a.i);
    case ScalarOp::kShiftLeft:
    case ScalarOp::kShiftRightArithmetic:
    case ScalarOp::kShiftRightLogical: return Int(rt, Shift(instr.op, rt, a.i, b.i));
    case ScalarOp::kPopcnt:
      return Int(rt, std::popcount(static_cast<uint64_t>(a.i) & Mask(BitWidth(t0))));
    case ScalarOp::kCountLeadingZeros: {
      int w = BitWidth(t0);
      uint64_t v = static_cast<uint64_t>(a.i) & Mask(w);
      return Int(rt, std::countl_zero(v) - (64 - w));
    }

    // ----- comparison and selection -------------------------------------------
    case ScalarOp::kCompare: return Compare(instr, t0, a, b);
    case ScalarOp::kSelect: return (operands[0].i & 1) ? operands[1] : operands[2];

    // ----- type changes -----------------------------------------------------
    case ScalarOp::kConvert: return ConvertScalar(t0, rt, a);
    case ScalarOp::kBitcastConvert: return BitcastConvert(t0, rt, a);
    case ScalarOp::kComplex: {
      Scalar s;
      s.re = RoundToFloatType(rt, a.re);
      s.im = RoundToFloatType(rt, b.re);
      return s;
    }
    case ScalarOp::kReal: return Real(rt, a.re);
    case ScalarOp::kImag: return Real(rt, cx ? a.im : 0.0);

    // ----- rounding -----------------------------------------------------------
    case ScalarOp::kCeil: return Real(rt, std::ceil(a.re));
    case ScalarOp::kFloor: return Real(rt, std::floor(a.re));
    case ScalarOp::kRoundNearestAfz: return Real(rt, std::round(a.re));
    case ScalarOp::kRoundNearestEven: return Real(rt, RoundHalfEven(a.re));
    case ScalarOp::kReducePrecision: return Real(rt, ReducePrecision(t0, a.re, instr.attr0, instr.attr1));

    // ----- classification -----------------------------------------------------
    case ScalarOp::kIsFinite: return Bool(std::isfinite(a.re));
    case ScalarOp::kIsInf: return Bool(std::isinf(a.re));
    case ScalarOp::kIsPosInf: return Bool(a.re == kInf);
    case ScalarOp::kIsNegInf: return Bool(a.re == -kInf);

    // ----- transcendental ------------------------------------------------------
    case ScalarOp::kExponential:
      return Unary(t0, a, [](double x) { return std::exp(x); }, [](Cx z) { return std::exp(z); });
    case ScalarOp::kExponentialMinusOne:
      return Unary(t0, a, [](double x) { return std::expm1(x); }, CExpm1);
    case ScalarOp::kLog: return Unary(t0, a, [](double x) { return std::log(x); }, [](Cx z) { return std::log(z); });
    case ScalarOp::kLogPlusOne: return Unary(t0, a, [](double x) { return std::log1p(x); }, CLog1p);
    case ScalarOp::kLogistic:
      return Unary(t0, a, Logistic, [](Cx z) { return 1.0 / (1.0 + std::exp(-z)); });
    case ScalarOp::kSqrt: return Unary(t0, a, [](double x) { return std::sqrt(x); }, [](Cx z) { return std::sqrt(z); });
    case ScalarOp::kRsqrt:
      return Unary(t0, a, [](double x) { return 1 / std::sqrt(x); }, [](Cx z) { return 1.0 / std::sqrt(z); });
    case ScalarOp::kCbrt:
      return Unary(t0, a, [](double x) { return std::cbrt(x); },
                   [](Cx z) { return std::pow(z, Cx(1.0 / 3.0, 0)); });
    case ScalarOp::kSine: return Unary(t0, a, [](double x) { return std::sin(x); }, [](Cx z) { return std::sin(z); });
    case ScalarOp::kCosine: return Unary(t0, a, [](double x) { return std::cos(x); }, [](Cx z) { return std::cos(z); });
    case ScalarOp::kTan:
    case ScalarOp::kTanChlo:
      return Unary(t0, a, [](double x) { return std::tan(x); }, [](Cx z) { return std::tan(z); });
    case ScalarOp::kTanh: return Unary(t0, a, [](double x) { return std::tanh(x); }, [](Cx z) { return std::tanh(z); });
    case ScalarOp::kAtan2:
      if (cx) return Complex(rt, CAtan2(C(a), C(b)));
      return Real(rt, std::atan2(a.re, b.re));
    case ScalarOp::kAcos: return Unary(t0, a, [](double x) { return std::acos(x); }, [](Cx z) { return std::acos(z); });
    case ScalarOp::kAcosh:
      return Unary(t0, a, [](double x) { return std::acosh(x); }, [](Cx z) { return std::acosh(z); });
    case ScalarOp::kAsin: return Unary(t0, a, [](double x) { return std::asin(x); }, [](Cx z) { return std::asin(z); });
    case ScalarOp::kAsinh:
      return Unary(t0, a, [](double x) { return std::asinh(x); }, [](Cx z) { return std::asinh(z); });
    case ScalarOp::kAtan: return Unary(t0, a, [](double x) { return std::atan(x); }, [](Cx z) { return std::atan(z); });
    case ScalarOp::kAtanh:
      return Unary(t0, a, [](double x) { return std::atanh(x); }, [](Cx z) { return std::atanh(z); });
    case ScalarOp::kCosh: return Unary(t0, a, [](double x) { return std::cosh(x); }, [](Cx z) { return std::cosh(z); });
    case ScalarOp::kSinh: return Unary(t0, a, [](double x) { return std::sinh(x); }, [](Cx z) { return std::sinh(z); });
    case ScalarOp::kErf: return Unary(t0, a, [](double x) { return std::erf(x); }, nullptr);
    // f64 results: Kiln's own erfc, to about half an ulp (C's can be 2 ulp
    // off; special_functions.h); narrower types round C's once.
    case ScalarOp::kErfc:
      return Unary(t0, a, t0 == ElementType::kF64 ? Erfc : [](double x) { return std::erfc(x); }, nullptr);
    case ScalarOp::kErfInv: return Unary(t0, a, t0 == ElementType::kF64 ? ErfInvF64 : ErfInv, nullptr);
    case ScalarOp::kLgamma: return Unary(t0, a, [](double x) { return std::lgamma(x); }, nullptr);
    case ScalarOp::kDigamma: return Unary(t0, a, Digamma, nullptr);
    case ScalarOp::kBesselI1e: return Unary(t0, a, BesselI1e, nullptr);
    case ScalarOp::kPolygamma: return Real(rt, Polygamma(a.re, b.re));
    case ScalarOp::kZeta: return Real(rt, HurwitzZeta(a.re, b.re));
    case ScalarOp::kNextAfter: return Real(rt, NextAfter(rt, a.re, b.re));

    case ScalarOp::kInvalid: break;
  }
  return Scalar{};
}

void RunScalarProgram(const ScalarProgram& program, const Scalar* params, Scalar* scratch, Scalar* results) {
  size_t p = program.param_types.size();
  for (size_t i = 0; i < p; ++i) scratch[i] = params[i];
  for (size_t k = 0; k < program.instrs.size(); ++k) {
    const ScalarInstr& in = program.instrs[k];
    ElementType types[3] = {ElementType::kInvalid, ElementType::kInvalid, ElementType::kInvalid};
    Scalar ops[3];
    for (int j = 0; j < in.num_operands && j < 3; ++j) {
      types[j] = program.ValueType(in.operands[j]);
      ops[j] = scratch[in.operands[j]];
    }
    scratch[p + k] = EvalScalarInstr(in, types, ops);
  }
  for (size_t r = 0; r < program.results.size(); ++r) results[r] = scratch[program.results[r]];
}

}  // namespace kiln::ref

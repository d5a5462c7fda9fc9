// Scalar-expression programs to GLSL. Each value becomes one GLSL variable
// of its type's compute form (GType); integer results narrower than 32 bits
// are wrapped back to their width after every op, and f16/bf16 results are
// rounded back to their precision, so every value is exactly what
// kernels/reference computes (floats: transcendental functions within a few
// ulp, from Kiln's own kernels/vulkan/math32.glsl and math64.glsl).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "compiler/vulkan/codegen.h"
#include "kernels/scalar/float_format.h"

namespace kiln::compiler::vulkan {
namespace {

using C = GType::Class;

std::string U(uint64_t v) { return std::to_string(v) + "u"; }

std::string Mask(int bits) { return bits >= 32 ? "0xffffffffu" : U((uint64_t{1} << bits) - 1); }

// Wraps an integer expression of type `t` to its width.
std::string Wrap(const GType& t, const std::string& e) {
  if (t.cls == C::kBool) return e;
  if (t.bits >= 32) return t.name + "(" + e + ")";
  if (t.cls == C::kSigned) return "bitfieldExtract(int(" + e + "), 0, " + std::to_string(t.bits) + ")";
  return "(uint(" + e + ") & " + Mask(t.bits) + ")";
}

// Rounds a float expression of type `t` to its precision.
std::string Round(const GType& t, const std::string& e) {
  if (t.type == ElementType::kF16) return "kiln_round_f16(" + e + ")";
  if (t.type == ElementType::kBF16) return "kiln_round_bf16(" + e + ")";
  if (IsMinifloat(t.type)) return MinifloatCall("round", t.type, e);
  return e;
}

std::string Fix(const GType& t, const std::string& e) {
  if (t.cls == C::kFloat) return Round(t, e);
  return Wrap(t, e);
}

std::string FloatLiteral(const GType& t, double v) {
  if (t.name == "double") {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return "packDouble2x32(uvec2(" + U(b & 0xffffffffu) + ", " + U(b >> 32) + "))";
  }
  float f = static_cast<float>(v);
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return "uintBitsToFloat(" + U(b) + ")";
}

std::string IntLiteral(const GType& t, int64_t v) {
  if (t.cls == C::kBool) return (v & 1) ? "true" : "false";
  if (t.name == "int64_t") {
    if (v == INT64_MIN) return "(-9223372036854775807l - 1l)";
    return "int64_t(" + std::to_string(v) + "l)";
  }
  if (t.name == "uint64_t") return "uint64_t(" + std::to_string(static_cast<uint64_t>(v)) + "ul)";
  if (t.cls == C::kUnsigned) return U(static_cast<uint64_t>(v) & 0xffffffffu);
  if (v == INT32_MIN) return "int(0x80000000u)";
  return "int(" + std::to_string(v) + ")";
}

GType PartOf(const GType& t) {
  GType p;
  p.type = t.type == ElementType::kC64 ? ElementType::kF32 : ElementType::kF64;
  p.cls = C::kFloat;
  p.name = t.part;
  p.bits = t.bits / 2;
  p.storage = t.storage / 2;
  return p;
}

std::string Literal(const GType& t, const Scalar& s) {
  if (t.cls == C::kComplex)
    return t.name + "(" + FloatLiteral(PartOf(t), s.re) + ", " + FloatLiteral(PartOf(t), s.im) + ")";
  return t.cls == C::kFloat ? FloatLiteral(t, s.re) : IntLiteral(t, s.i);
}

// The raw bits of a value as a uint (≤ 32 bits) or uint64_t.
std::string BitsOf(const GType& t, const std::string& v) {
  switch (t.type) {
    case ElementType::kF16: return "kiln_f32_to_f16(" + v + ")";
    case ElementType::kBF16: return "kiln_f32_to_bf16(" + v + ")";
    case ElementType::kF32: return "floatBitsToUint(" + v + ")";
    case ElementType::kF64: return "packUint2x32(unpackDouble2x32(" + v + "))";
    default: break;
  }
  if (IsMinifloat(t.type)) return MinifloatCall("encode", t.type, v);
  if (t.is_64()) return "uint64_t(" + v + ")";
  if (t.cls == C::kBool) return "(" + v + " ? 1u : 0u)";
  return "(uint(" + v + ") & " + Mask(t.bits) + ")";
}

std::string FromBitsOf(const GType& t, const std::string& bits) {
  switch (t.type) {
    case ElementType::kF16: return "kiln_f16_to_f32(" + bits + ")";
    case ElementType::kBF16: return "kiln_bf16_to_f32(" + bits + ")";
    case ElementType::kF32: return "uintBitsToFloat(" + bits + ")";
    case ElementType::kF64: return "packDouble2x32(unpackUint2x32(" + bits + "))";
    default: break;
  }
  if (IsMinifloat(t.type)) return MinifloatCall("decode", t.type, bits);
  if (t.is_64()) return t.name + "(" + bits + ")";
  if (t.cls == C::kBool) return "((" + bits + ") != 0u)";
  return Wrap(t, bits);
}

// A math function of kernels/vulkan/math32.glsl (kiln_NAME) or
// math64.glsl (kiln_NAME_d), rounded to the result's precision.
std::string Math(const GType& rt, const std::string& name, bool dbl, const std::string& args) {
  return Round(rt, "kiln_" + name + (dbl ? "_d(" : "(") + args + ")");
}

// The unsigned integer type that holds a float type's encoding.
std::string BitsType(const GType& t) { return t.type == ElementType::kF64 ? "uint64_t" : "uint"; }
std::string BitsLiteral(const GType& t, uint64_t v) {
  return t.type == ElementType::kF64 ? "uint64_t(" + std::to_string(v) + "ul)" : U(v & 0xffffffffu);
}
std::string IsNan(const GType& t, const std::string& v) {
  return (t.type == ElementType::kF64 ? "kiln_isnan_d(" : "kiln_isnan(") + v + ")";
}

// chlo.next_after in the type's own encoding (as kernels/scalar/eval.cc):
// one step of the sign-magnitude bits towards y.
std::string NextAfter(const GType& t, const std::string& r, const std::string& x, const std::string& y) {
  const std::string ut = BitsType(t);
  const uint64_t sign = uint64_t{1} << (t.bits - 1);
  std::string s = "  " + t.name + " " + r + ";\n  {\n";
  s += "    " + ut + " b_ = " + BitsOf(t, x) + ";\n";
  s += "    if (" + IsNan(t, x) + " || " + IsNan(t, y) + ") b_ = " + BitsOf(t, FloatLiteral(t, NAN)) + ";\n";
  s += "    else if (" + x + " == " + y + ") b_ = " + BitsOf(t, y) + ";\n";
  s += "    else if (" + x + " == " + FloatLiteral(t, 0) + ") b_ = (" + y + " < " + FloatLiteral(t, 0) + " ? " +
       BitsLiteral(t, sign) + " : " + BitsLiteral(t, 0) + ") | " + BitsLiteral(t, 1) + ";\n";
  s += "    else if ((" + y + " > " + x + ") == (" + x + " > " + FloatLiteral(t, 0) + ")) b_ += " + BitsLiteral(t, 1) + ";\n";
  s += "    else b_ -= " + BitsLiteral(t, 1) + ";\n";
  // A step down to -0 in a type without negative zero (whose encoding is
  // its NaN there) gives +0; a NaN operand's NaN stays. f8E8M0FNU has no
  // sign (nor zero): its values step up and down the exponent, past the
  // largest or the smallest to NaN (0xff), as the reference's encoding does.
  ref::FloatFormat f;
  if (ref::FormatOf(t.type, &f) && !f.has_neg_zero && t.type != ElementType::kF8E8M0FNU)
    s += "    if (b_ == " + BitsLiteral(t, sign) + " && !" + IsNan(t, x) + " && !" + IsNan(t, y) + ") b_ = 0u;\n";
  s += "    " + r + " = " + FromBitsOf(t, "b_") + ";\n  }\n";
  return s;
}

// stablehlo.reduce_precision on the type's encoding, as XLA (and
// kernels/scalar/eval.cc) do: round the mantissa to nearest even, then
// flush what the smaller exponent cannot hold to +-0 or +-inf.
// Types narrower than 16 bits work on their value's f32 encoding and round
// the result back, as the reference does.
std::string ReducePrecision(const GType& vt, const std::string& r, const std::string& x, int64_t e64, int64_t m64) {
  GType t = vt;
  if (IsMinifloat(vt.type)) t.type = ElementType::kF32, t.bits = 32, t.storage = 4;
  const int ebits = static_cast<int>(std::clamp<int64_t>(e64, 1, 64));
  const int mbits = static_cast<int>(std::clamp<int64_t>(m64, 0, 64));
  int total = 32, se = 8, sm = 23;
  if (t.type == ElementType::kF64) total = 64, se = 11, sm = 52;
  if (t.type == ElementType::kF16) total = 16, se = 5, sm = 10;
  if (t.type == ElementType::kBF16) total = 16, se = 8, sm = 7;
  auto mask = [](int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; };
  auto L = [&](uint64_t v) { return BitsLiteral(t, v); };
  const std::string ut = BitsType(t);
  std::string s = "  " + t.name + " " + r + ";\n  {\n";
  s += "    " + ut + " b_ = " + BitsOf(t, x) + ";\n";
  if (mbits < sm) {
    const int shift = sm - mbits;
    const uint64_t last = uint64_t{1} << shift;
    s += "    " + ut + " bias_ = ((b_ & " + L(last) + ") >> " + std::to_string(shift) + ") + " + L((last >> 1) - 1) + ";\n";
    s += "    b_ = ((b_ + bias_) & " + L(~(last - 1) & mask(total)) + ") & " + L(mask(total)) + ";\n";
  }
  if (ebits < se) {
    const uint64_t sign = uint64_t{1} << (total - 1), exp_mask = mask(se) << sm;
    const uint64_t src_bias = (uint64_t{1} << (se - 1)) - 1, red_bias = (uint64_t{1} << (ebits - 1)) - 1;
    const uint64_t max_e = src_bias + red_bias, min_e = src_bias - red_bias;
    s += "    " + ut + " e_ = b_ & " + L(exp_mask) + ";\n";
    s += "    if (e_ > " + L(max_e << sm) + ") b_ = (b_ & " + L(sign) + ") | " + L(exp_mask) + ";\n";
    s += "    else if (e_ <= " + L(min_e << sm) + ") b_ = b_ & " + L(sign) + ";\n";
  }
  s += "    " + r + " = " + IsNan(t, x) + " ? " + (mbits > 0 ? x : FloatLiteral(t, INFINITY)) + " : " +
       FromBitsOf(t, "b_") + ";\n";
  if (IsMinifloat(vt.type)) s += "    " + r + " = " + Round(vt, r) + ";\n";
  return s + "  }\n";
}

Status Refuse(ScalarOp op, const GType& t, const std::string& why) {
  return Unimplemented(std::string(ScalarOpName(op)) + " (" + std::string(Name(t.type)) +
                       ") is not supported by the vulkan target: " + why);
}

// Ops with complex operands (or results): helpers kiln_c* of the preludes,
// overloaded for vec2 and dvec2 (kernels/vulkan/prelude.glsl, prelude64.glsl,
// math64.glsl).
template <typename Def>
Status EmitComplex(const ScalarInstr& in, const GType& t0, const GType& rt, const std::string& a,
                   const std::string& b, const std::string& c, Def def, uint32_t* features) {
  switch (in.op) {
    case ScalarOp::kConstant: def(Literal(rt, in.constant)); return Status::Ok();
    case ScalarOp::kComplex: def(rt.name + "(" + a + ", " + b + ")"); return Status::Ok();
    case ScalarOp::kSelect: def("(" + a + " ? " + b + " : " + c + ")"); return Status::Ok();
    case ScalarOp::kAdd: def(a + " + " + b); return Status::Ok();
    case ScalarOp::kSubtract: def(a + " - " + b); return Status::Ok();
    case ScalarOp::kNegate: def("-" + a); return Status::Ok();
    case ScalarOp::kMultiply: def("kiln_cmul(" + a + ", " + b + ")"); return Status::Ok();
    case ScalarOp::kSquare: def("kiln_cmul(" + a + ", " + a + ")"); return Status::Ok();
    case ScalarOp::kDivide: def("kiln_cdiv(" + a + ", " + b + ")"); return Status::Ok();
    case ScalarOp::kReal: def(a + ".x"); return Status::Ok();
    case ScalarOp::kImag: def(a + ".y"); return Status::Ok();
    case ScalarOp::kAbs: def("kiln_cabs(" + a + ")"); return Status::Ok();
    case ScalarOp::kMaximum: def("kiln_cmax(" + a + ", " + b + ")"); return Status::Ok();
    case ScalarOp::kMinimum: def("kiln_cmin(" + a + ", " + b + ")"); return Status::Ok();
    case ScalarOp::kSign: def("kiln_csign(" + a + ")"); return Status::Ok();
    case ScalarOp::kConvert: {
      KILN_ASSIGN_OR_RETURN(std::string e, ConvertExpr(t0, rt, a));
      def(e);
      return Status::Ok();
    }
    case ScalarOp::kCompare: {
      // Lexicographic on (real, imaginary), as the spec and the reference
      // (kernels/scalar/eval.cc, CompareComplex): each part compared as a
      // float (the verifier allows no TOTALORDER on complex operands).
      const auto d = static_cast<ComparisonDirection>(in.attr0);
      auto eq = [](const std::string& x, const std::string& y) { return "(" + x + " == " + y + ")"; };
      auto lt = [](const std::string& x, const std::string& y) { return "(" + x + " < " + y + ")"; };
      const std::string ax = a + ".x", ay = a + ".y", bx = b + ".x", by = b + ".y";
      const std::string re_eq = eq(ax, bx), is_eq = "(" + re_eq + " && " + eq(ay, by) + ")";
      switch (d) {
        case ComparisonDirection::kEQ: def(is_eq); break;
        case ComparisonDirection::kNE: def("!" + is_eq); break;
        case ComparisonDirection::kLT: def("(" + lt(ax, bx) + " || (" + re_eq + " && " + lt(ay, by) + "))"); break;
        case ComparisonDirection::kGT: def("(" + lt(bx, ax) + " || (" + re_eq + " && " + lt(by, ay) + "))"); break;
        case ComparisonDirection::kLE:
          def("(" + lt(ax, bx) + " || (" + re_eq + " && (" + lt(ay, by) + " || " + eq(ay, by) + ")))");
          break;
        case ComparisonDirection::kGE:
          def("(" + lt(bx, ax) + " || (" + re_eq + " && (" + lt(by, ay) + " || " + eq(ay, by) + ")))");
          break;
        default: return Refuse(in.op, t0, "bad comparison direction");
      }
      return Status::Ok();
    }
    case ScalarOp::kSqrt: def("kiln_csqrt(" + a + ")"); return Status::Ok();
    case ScalarOp::kRsqrt: def("kiln_cdiv(" + rt.name + "(1, 0), kiln_csqrt(" + a + "))"); return Status::Ok();
    case ScalarOp::kExponential: def("kiln_cexp(" + a + ")"); return Status::Ok();
    case ScalarOp::kExponentialMinusOne:
      def("kiln_cexpm1(" + a + ")");
      return Status::Ok();
    case ScalarOp::kLog: def("kiln_clog(" + a + ")"); return Status::Ok();
    case ScalarOp::kLogPlusOne:
      def("kiln_clog1p(" + a + ")");
      return Status::Ok();
    case ScalarOp::kSine: def("kiln_csin(" + a + ")"); return Status::Ok();
    case ScalarOp::kCosine: def("kiln_ccos(" + a + ")"); return Status::Ok();
    case ScalarOp::kTanh: def("kiln_ctanh(" + a + ")"); return Status::Ok();
    case ScalarOp::kTan:
    case ScalarOp::kTanChlo: def("kiln_ctan(" + a + ")"); return Status::Ok();
    case ScalarOp::kLogistic:
      def("kiln_cdiv(" + rt.name + "(1, 0), " + rt.name + "(1, 0) + kiln_cexp(-" + a + "))");
      return Status::Ok();
    case ScalarOp::kPower:
      def("kiln_cpow(" + a + ", " + b + ")");
      return Status::Ok();
    case ScalarOp::kAtan2: def("kiln_catan2(" + a + ", " + b + ")"); return Status::Ok();
    // cosh and sinh of complex<f32> in f64, rounded once: cosh x and sinh x
    // pass FLT_MAX while cos y and sin y bring the product back (the CPU
    // computes them in f64 too). complex<f64> past |x| = 709.75 carries
    // e^|x| / 2 in two factors (math64.glsl), as the CPU's ccosh does.
    case ScalarOp::kCosh:
    case ScalarOp::kSinh: {
      *features |= hal::kShaderFloat64 | hal::kShaderInt64;
      const std::string fn = in.op == ScalarOp::kCosh ? "kiln_ccosh(" : "kiln_csinh(";
      def(rt.name == "dvec2" ? fn + a + ")" : "vec2(" + fn + "dvec2(" + a + ")))");
      return Status::Ok();
    }
    // The inverse functions (math64.glsl: Hull et al.'s asin and acos,
    // Kahan's atanh, the others by rotation) in f64; complex<f32> rounds
    // once, as the CPU computes them in f64 too.
    case ScalarOp::kAsin:
    case ScalarOp::kAcos:
    case ScalarOp::kAtan:
    case ScalarOp::kAsinh:
    case ScalarOp::kAcosh:
    case ScalarOp::kAtanh: {
      *features |= hal::kShaderFloat64 | hal::kShaderInt64;
      const std::string fn = in.op == ScalarOp::kAsin    ? "kiln_casin("
                             : in.op == ScalarOp::kAcos  ? "kiln_cacos("
                             : in.op == ScalarOp::kAtan  ? "kiln_catan("
                             : in.op == ScalarOp::kAsinh ? "kiln_casinh("
                             : in.op == ScalarOp::kAcosh ? "kiln_cacosh("
                                                         : "kiln_catanh(";
      def(rt.name == "dvec2" ? fn + a + ")" : "vec2(" + fn + "dvec2(" + a + ")))");
      return Status::Ok();
    }
    case ScalarOp::kCbrt:  // the principal cube root, z^(1/3) as the reference's std::pow
      def("kiln_cpow(" + a + ", " + rt.name + "(" + FloatLiteral(PartOf(rt), 1.0 / 3.0) + ", " +
          FloatLiteral(PartOf(rt), 0) + "))");
      return Status::Ok();
    default: return Refuse(in.op, t0, "no GLSL translation for complex operands yet");
  }
}

}  // namespace

bool IsMinifloat(ElementType t) {
  ref::FloatFormat f;
  return KindOf(t) == ElementKind::kFloat && BitWidth(t) < 16 && ref::FormatOf(t, &f);
}

std::string MinifloatCall(const std::string& fn, ElementType t, const std::string& arg) {
  ref::FloatFormat f{};
  ref::FormatOf(t, &f);
  auto b = [](bool v) { return std::string(v ? "true" : "false"); };
  return "kiln_mf_" + fn + "(" + arg + ", " + std::to_string(f.ebits) + ", " + std::to_string(f.mbits) + ", " +
         std::to_string(f.bias) + ", " + std::to_string(static_cast<int>(f.nan)) + ", " + b(f.has_inf) + ", " +
         b(f.has_sign) + ", " + b(f.has_neg_zero) + ", " + b(f.has_zero) + ", " + b(f.subnormals) + ")";
}

std::string ValueFromBits(const GType& t, const std::string& bits) { return FromBitsOf(t, bits); }

std::string FloatConst(const GType& t, double v) { return Round(t, FloatLiteral(t, v)); }
std::string RoundTo(const GType& t, const std::string& e) { return Round(t, e); }

StatusOr<GType> GlslType(ElementType t) {
  GType g;
  g.type = t;
  g.bits = BitWidth(t);
  g.storage = static_cast<int>(StorageBytes(t));
  switch (KindOf(t)) {
    case ElementKind::kBool: g.cls = C::kBool; g.name = "bool"; return g;
    case ElementKind::kSigned:
      g.cls = C::kSigned;
      g.name = g.bits == 64 ? "int64_t" : "int";
      if (g.bits == 64) g.features = hal::kShaderInt64;
      return g;
    case ElementKind::kUnsigned:
      g.cls = C::kUnsigned;
      g.name = g.bits == 64 ? "uint64_t" : "uint";
      if (g.bits == 64) g.features = hal::kShaderInt64;
      return g;
    case ElementKind::kFloat:
      g.cls = C::kFloat;
      if (t == ElementType::kF16 || t == ElementType::kBF16 || t == ElementType::kF32 || IsMinifloat(t)) {
        g.name = "float";
        return g;
      }
      if (t == ElementType::kF64) {
        g.name = "double";
        g.features = hal::kShaderFloat64 | hal::kShaderInt64;
        return g;
      }
      break;
    case ElementKind::kComplex:
      // complex<f32> as vec2, complex<f64> as dvec2: (real, imaginary).
      g.cls = C::kComplex;
      g.name = t == ElementType::kC64 ? "vec2" : "dvec2";
      g.part = t == ElementType::kC64 ? "float" : "double";
      if (t == ElementType::kC128) g.features = hal::kShaderFloat64 | hal::kShaderInt64;
      return g;
    default: break;
  }
  return Unimplemented("element type " + std::string(Name(t)) + " is not supported by the vulkan target yet");
}

StatusOr<std::string> ConvertExpr(const GType& from, const GType& to, const std::string& v) {
  if (from.type == to.type) return v;
  if (to.cls == C::kComplex) {
    if (from.cls == C::kComplex) return to.name + "(" + v + ")";
    KILN_ASSIGN_OR_RETURN(std::string re, ConvertExpr(from, PartOf(to), v));
    return to.name + "(" + re + ", " + FloatLiteral(PartOf(to), 0) + ")";
  }
  if (from.cls == C::kComplex) {  // the real part, as the reference does
    if (to.cls == C::kBool) return "(" + v + ".x != " + FloatLiteral(PartOf(from), 0) + ")";
    return ConvertExpr(PartOf(from), to, "(" + v + ").x");
  }
  if (to.cls == C::kBool) {
    if (from.cls == C::kBool) return v;
    if (from.cls == C::kFloat) return "(" + v + " != " + FloatLiteral(from, 0) + ")";
    return "(" + v + " != " + IntLiteral(from, 0) + ")";
  }
  if (from.cls == C::kBool) {
    if (to.cls == C::kFloat) return "(" + v + " ? " + FloatLiteral(to, 1) + " : " + FloatLiteral(to, 0) + ")";
    return "(" + v + " ? " + IntLiteral(to, 1) + " : " + IntLiteral(to, 0) + ")";
  }
  if (from.cls != C::kFloat && to.cls != C::kFloat) {
    // Integer to integer: sign- or zero-extend the source, wrap to the target.
    return Wrap(to, to.name + "(" + v + ")");
  }
  if (from.cls != C::kFloat) {  // integer -> float
    return Round(to, to.name + "(" + v + ")");
  }
  if (to.cls == C::kFloat) {  // float -> float
    if (to.name == from.name) return Round(to, v);
    return Round(to, to.name + "(" + v + ")");
  }
  // float -> integer, saturating, NaN -> 0
  if (to.is_64() && from.name != "double")
    return std::string(to.cls == C::kSigned ? "kiln_f2i64(" : "kiln_f2u64(") + v + ")";
  if (from.name == "double") {
    std::string d = from.name == "double" ? v : "double(" + v + ")";
    if (to.is_64()) return std::string(to.cls == C::kSigned ? "kiln_d2i64(" : "kiln_d2u64(") + d + ")";
    // double -> narrow integer: saturate in double, then narrow
    std::string wide = to.cls == C::kSigned ? "kiln_d2i64(" + d + ")" : "kiln_d2u64(" + d + ")";
    std::string lo = to.cls == C::kSigned ? "-" + std::to_string(int64_t{1} << (to.bits - 1)) + "l" : "0ul";
    std::string hi = to.cls == C::kSigned ? std::to_string((int64_t{1} << (to.bits - 1)) - 1) + "l"
                                          : std::to_string((uint64_t{1} << to.bits) - 1) + "ul";
    return to.name + "(clamp(" + wide + ", " + lo + ", " + hi + "))";
  }
  if (to.cls == C::kSigned) return "kiln_f2i(" + v + ", " + std::to_string(to.bits) + ")";
  return "kiln_f2u(" + v + ", " + std::to_string(to.bits) + ")";
}

Status EmitScalarProgram(const ScalarProgram& prog, const std::vector<std::string>& params,
                         const std::string& prefix, std::string* code, std::vector<std::string>* results,
                         uint32_t* features) {
  const size_t np = prog.param_types.size();
  std::vector<GType> vt(prog.num_values());
  std::vector<std::string> name(prog.num_values());
  for (size_t v = 0; v < prog.num_values(); ++v) {
    KILN_ASSIGN_OR_RETURN(vt[v], GlslType(prog.ValueType(v)));
    *features |= vt[v].features;
  }
  for (size_t i = 0; i < np; ++i) name[i] = "(" + params[i] + ")";
  std::string& out = *code;
  for (size_t k = 0; k < prog.instrs.size(); ++k) {
    const ScalarInstr& in = prog.instrs[k];
    const size_t v = np + k;
    const GType& rt = vt[v];
    name[v] = prefix + std::to_string(v);
    const std::string& r = name[v];
    const GType& t0 = in.num_operands > 0 ? vt[in.operands[0]] : rt;
    std::string a = in.num_operands > 0 ? name[in.operands[0]] : "";
    std::string b = in.num_operands > 1 ? name[in.operands[1]] : "";
    std::string c = in.num_operands > 2 ? name[in.operands[2]] : "";
    const bool fl = t0.cls == C::kFloat, dbl = t0.name == "double";
    const bool boolean = t0.cls == C::kBool, sgn = t0.cls == C::kSigned;
    const std::string d = dbl ? "_d" : "";
    // Float values are `precise` (SPIR-V NoContraction, NIR's exact): each
    // op rounds once as on the CPU, with no fused multiply-add and no
    // division turned into a multiplication by a rounded reciprocal.
    const std::string qual = rt.cls == C::kFloat ? "precise " : "";
    auto def = [&](const std::string& e) { out += "  " + qual + rt.name + " " + r + " = " + e + ";\n"; };
    if (t0.cls == C::kComplex || (in.op == ScalarOp::kComplex) ||
        (in.op == ScalarOp::kSelect && rt.cls == C::kComplex)) {
      KILN_RETURN_IF_ERROR(EmitComplex(in, t0, rt, a, b, c, def, features));
      continue;
    }
    switch (in.op) {
      case ScalarOp::kConstant: def(Literal(rt, in.constant)); break;
      case ScalarOp::kAdd:
        if (boolean) def("(" + a + " || " + b + ")");
        else def(Fix(rt, a + " + " + b));
        break;
      case ScalarOp::kSubtract:
        if (boolean) def("(" + a + " != " + b + ")");
        else def(Fix(rt, a + " - " + b));
        break;
      case ScalarOp::kMultiply:
        if (boolean) def("(" + a + " && " + b + ")");
        else def(Fix(rt, a + " * " + b));
        break;
      case ScalarOp::kSquare:
        if (boolean) def(a);
        else def(Fix(rt, a + " * " + a));
        break;
      case ScalarOp::kDivide:
        if (fl) def(Round(rt, a + " / " + b));
        else if (boolean) return Refuse(in.op, t0, "division of booleans");
        else if (sgn)
          def("(" + b + " == " + IntLiteral(t0, 0) + " ? " + IntLiteral(t0, -1) + " : (" + b + " == " +
              IntLiteral(t0, -1) + " ? " + Wrap(rt, "-" + a) + " : " + Wrap(rt, a + " / " + b) + "))");
        else
          def("(" + b + " == " + IntLiteral(t0, 0) + " ? " + Wrap(rt, IntLiteral(t0, -1)) + " : " + a + " / " + b + ")");
        break;
      case ScalarOp::kRemainder:
        if (fl) {
          def(Round(rt, std::string(dbl ? "kiln_fmod_d(" : "kiln_fmod(") + a + ", " + b + ")"));
        } else if (boolean) {
          return Refuse(in.op, t0, "remainder of booleans");
        } else if (sgn) {
          def("(" + b + " == " + IntLiteral(t0, 0) + " ? " + a + " : (" + b + " == " + IntLiteral(t0, -1) +
              " ? " + IntLiteral(t0, 0) + " : " + a + " - (" + a + " / " + b + ") * " + b + "))");
        } else {
          def("(" + b + " == " + IntLiteral(t0, 0) + " ? " + a + " : " + a + " % " + b + ")");
        }
        break;
      case ScalarOp::kNegate:
        if (boolean) def(a);
        else def(Fix(rt, "-" + a));
        break;
      case ScalarOp::kAbs:
        if (fl) def("abs(" + a + ")");
        else if (sgn) def(Wrap(rt, "(" + a + " < " + IntLiteral(t0, 0) + " ? -" + a + " : " + a + ")"));
        else def(a);
        break;
      case ScalarOp::kMaximum:
      case ScalarOp::kMinimum: {
        bool mx = in.op == ScalarOp::kMaximum;
        if (fl) def(std::string(mx ? "kiln_fmax" : "kiln_fmin") + d + "(" + a + ", " + b + ")");
        else if (boolean) def(mx ? "(" + a + " || " + b + ")" : "(" + a + " && " + b + ")");
        else def(std::string(mx ? "max(" : "min(") + a + ", " + b + ")");
        break;
      }
      case ScalarOp::kClamp: {
        const GType& tx = vt[in.operands[1]];
        if (tx.cls == C::kFloat) {
          std::string dd = tx.name == "double" ? "_d" : "";
          def("kiln_fmin" + dd + "(kiln_fmax" + dd + "(" + b + ", " + a + "), " + c + ")");
        } else if (tx.cls == C::kBool) {
          def("((" + b + " || " + a + ") && " + c + ")");
        } else {
          def("min(max(" + b + ", " + a + "), " + c + ")");
        }
        break;
      }
      case ScalarOp::kSign:
        if (fl) def("kiln_sign" + d + "(" + a + ")");
        else if (boolean) def(a);
        else if (sgn) def(Wrap(rt, "(" + a + " < " + IntLiteral(t0, 0) + " ? " + IntLiteral(t0, -1) + " : (" + a +
                                       " == " + IntLiteral(t0, 0) + " ? " + IntLiteral(t0, 0) + " : " +
                                       IntLiteral(t0, 1) + "))"));
        else def("(" + a + " != " + IntLiteral(t0, 0) + " ? " + IntLiteral(t0, 1) + " : " + IntLiteral(t0, 0) + ")");
        break;
      case ScalarOp::kAnd:
        def(boolean ? "(" + a + " && " + b + ")" : a + " & " + b);
        break;
      case ScalarOp::kOr:
        def(boolean ? "(" + a + " || " + b + ")" : a + " | " + b);
        break;
      case ScalarOp::kXor:
        def(boolean ? "(" + a + " != " + b + ")" : a + " ^ " + b);
        break;
      case ScalarOp::kNot:
        def(boolean ? "!" + a : Wrap(rt, "~" + a));
        break;
      case ScalarOp::kShiftLeft:
      case ScalarOp::kShiftRightLogical:
      case ScalarOp::kShiftRightArithmetic: {
        if (boolean) return Refuse(in.op, t0, "shifts of booleans");
        // The amount is read as an unsigned number of the operand's width;
        // amounts >= the width give 0 (or the sign for arithmetic shifts).
        std::string w = std::to_string(t0.bits);
        std::string ut = t0.is_64() ? "uint64_t" : "uint";
        std::string amount = t0.is_64() ? "uint64_t(" + b + ")" : "(uint(" + b + ") & " + Mask(t0.bits) + ")";
        std::string bits = t0.is_64() ? "uint64_t(" + a + ")" : "(uint(" + a + ") & " + Mask(t0.bits) + ")";
        std::string big = amount + " >= " + ut + "(" + w + ")";
        std::string sa = t0.is_64() ? "int(" + amount + ")" : "int(" + amount + ")";
        if (in.op == ScalarOp::kShiftLeft)
          def("(" + big + " ? " + IntLiteral(rt, 0) + " : " + Wrap(rt, rt.name + "(" + bits + " << " + sa + ")") + ")");
        else if (in.op == ScalarOp::kShiftRightLogical)
          def("(" + big + " ? " + IntLiteral(rt, 0) + " : " + Wrap(rt, rt.name + "(" + bits + " >> " + sa + ")") + ")");
        else {
          // arithmetic: shift the sign-extended value (a signed GLSL value)
          std::string st = t0.is_64() ? "int64_t" : "int";
          std::string sv = t0.is_64() ? "int64_t(" + a + ")"
                                      : "bitfieldExtract(int(" + bits + "), 0, " + w + ")";
          def(Wrap(rt, rt.name + "(" + sv + " >> (" + big + " ? " + std::to_string(t0.bits - 1) + " : " + sa + "))"));
        }
        break;
      }
      case ScalarOp::kPopcnt:
        if (t0.is_64()) def(rt.name + "(bitCount(unpackUint2x32(uint64_t(" + a + "))).x + bitCount(unpackUint2x32(uint64_t(" + a + "))).y)");
        else def(rt.name + "(bitCount(uint(" + a + ") & " + Mask(t0.bits) + "))");
        break;
      case ScalarOp::kCountLeadingZeros:
        if (t0.is_64()) {
          std::string h = "unpackUint2x32(uint64_t(" + a + "))";
          def(rt.name + "(" + h + ".y != 0u ? 31 - findMSB(" + h + ".y) : 63 - findMSB(" + h + ".x))");
        } else {
          def(rt.name + "(" + std::to_string(t0.bits - 1) + " - findMSB(uint(" + a + ") & " + Mask(t0.bits) + "))");
        }
        break;
      case ScalarOp::kCompare: {
        static const char* ops[] = {"==", "!=", ">=", ">", "<=", "<"};
        if (in.attr0 < 0 || in.attr0 > 5) return Refuse(in.op, t0, "bad comparison direction");
        std::string o = ops[in.attr0];
        auto ct = static_cast<ComparisonType>(in.attr1);
        std::string x = a, y = b;
        if (fl && ct == ComparisonType::kTotalOrder) {
          x = "kiln_total_key" + d + "(" + a + ")";
          y = "kiln_total_key" + d + "(" + b + ")";
        } else if (boolean) {
          x = "int(" + a + ")";
          y = "int(" + b + ")";
        }
        // NE on floats: GLSL's != may be ordered; !(==) is true for NaN.
        if (o == "!=") def("!(" + x + " == " + y + ")");
        else def("(" + x + " " + o + " " + y + ")");
        break;
      }
      case ScalarOp::kSelect: def("(" + a + " ? " + b + " : " + c + ")"); break;
      case ScalarOp::kConvert: {
        KILN_ASSIGN_OR_RETURN(std::string e, ConvertExpr(t0, rt, a));
        def(e);
        break;
      }
      case ScalarOp::kBitcastConvert: {
        if (t0.bits != rt.bits || t0.storage != rt.storage) return Refuse(in.op, t0, "bitcasts that change the width");
        if (t0.cls == C::kBool || rt.cls == C::kBool) {
          def(FromBitsOf(rt, BitsOf(t0, a)));
        } else {
          def(FromBitsOf(rt, BitsOf(t0, a)));
        }
        break;
      }
      case ScalarOp::kMulhi:
        if (boolean || fl) return Refuse(in.op, t0, "mulhi of non-integers");
        if (t0.is_64()) {
          def(std::string(sgn ? "kiln_mulhi_s64(" : "kiln_mulhi_u64(") + a + ", " + b + ")");
        } else if (t0.bits == 32) {
          out += "  " + rt.name + " " + r + ", " + r + "_lo;\n  " + (sgn ? "imulExtended(" : "umulExtended(") + a + ", " +
                 b + ", " + r + ", " + r + "_lo);\n";
        } else {
          def(Wrap(rt, "(" + a + " * " + b + ") >> " + std::to_string(t0.bits)));
        }
        break;
      case ScalarOp::kPower:
        if (fl) {
          // pow() is undefined for x < 0 in GLSL: integer exponents keep the sign.
          def(Round(rt, std::string(dbl ? "kiln_pow_d(" : "kiln_pow(") + a + ", " + b + ")"));
        } else if (boolean) {
          return Refuse(in.op, t0, "power of booleans");
        } else {
          // Exponentiation by squaring over the operand's bits (as kernels/reference).
          std::string ut = t0.is_64() ? "uint64_t" : "uint";
          out += "  " + rt.name + " " + r + " = " + IntLiteral(rt, 1) + ";\n  {\n";
          out += "    " + rt.name + " base_ = " + a + ";\n";
          out += "    " + ut + " e_ = " + (t0.is_64() ? ut + "(" + b + ")" : "(uint(" + b + ") & " + Mask(t0.bits) + ")") + ";\n";
          if (sgn)
            out += "    if (" + b + " < " + IntLiteral(t0, 0) + ") { e_ = " + ut + "(0); " + r + " = (" + a + " == " +
                   IntLiteral(t0, 1) + ") ? " + IntLiteral(rt, 1) + " : ((" + a + " == " + IntLiteral(t0, -1) +
                   ") ? ((" + b + " & " + IntLiteral(t0, 1) + ") != " + IntLiteral(t0, 0) + " ? " +
                   IntLiteral(rt, -1) + " : " + IntLiteral(rt, 1) + ") : " + IntLiteral(rt, 0) + "); }\n";
          out += "    for (; e_ != " + ut + "(0); e_ >>= 1) {\n";
          out += "      if ((e_ & " + ut + "(1)) != " + ut + "(0)) " + r + " = " + Wrap(rt, r + " * base_") + ";\n";
          out += "      base_ = " + Wrap(rt, "base_ * base_") + ";\n    }\n  }\n";
        }
        break;
      case ScalarOp::kReal: def(a); break;
      case ScalarOp::kImag: def(FloatLiteral(rt, 0)); break;
      case ScalarOp::kCeil: def("ceil(" + a + ")"); break;
      case ScalarOp::kFloor: def("floor(" + a + ")"); break;
      case ScalarOp::kRoundNearestEven: def((dbl ? "kiln_round_even_d(" : "roundEven(") + a + ")"); break;
      case ScalarOp::kRoundNearestAfz: def("kiln_round_afz" + d + "(" + a + ")"); break;
      case ScalarOp::kIsFinite:
        def(dbl ? "!(kiln_isnan_d(" + a + ") || kiln_isinf_d(" + a + "))" : "kiln_isfinite(" + a + ")");
        break;
      case ScalarOp::kIsInf: def("kiln_isinf" + d + "(" + a + ")"); break;
      case ScalarOp::kIsPosInf: def("(kiln_isinf" + d + "(" + a + ") && " + a + " > " + FloatLiteral(t0, 0) + ")"); break;
      case ScalarOp::kIsNegInf: def("(kiln_isinf" + d + "(" + a + ") && " + a + " < " + FloatLiteral(t0, 0) + ")"); break;
      // Kiln's own functions, never the driver's built-ins (whose precision
      // Vulkan leaves loose): f32 from kernels/vulkan/math32.glsl, f64 from
      // kernels/vulkan/math64.glsl. f16/bf16 compute in f32 and round.
      case ScalarOp::kSqrt: def(Round(rt, std::string(dbl ? "sqrt(" : "kiln_sqrt(") + a + ")")); break;
      case ScalarOp::kRsqrt:
        def(Round(rt, dbl ? "1.0lf / sqrt(" + a + ")" : "kiln_rsqrt(" + a + ")"));
        break;
      case ScalarOp::kExponential: def(Math(rt, "exp", dbl, a)); break;
      case ScalarOp::kExponentialMinusOne: def(Math(rt, "expm1", dbl, a)); break;
      case ScalarOp::kLog: def(Math(rt, "log", dbl, a)); break;
      case ScalarOp::kLogPlusOne: def(Math(rt, "log1p", dbl, a)); break;
      case ScalarOp::kLogistic: def(Math(rt, "logistic", dbl, a)); break;
      case ScalarOp::kSine: def(Math(rt, "sin", dbl, a)); break;
      case ScalarOp::kCosine: def(Math(rt, "cos", dbl, a)); break;
      case ScalarOp::kTan:
      case ScalarOp::kTanChlo: def(Math(rt, "tan", dbl, a)); break;
      case ScalarOp::kTanh: def(Math(rt, "tanh", dbl, a)); break;
      case ScalarOp::kAtan2: def(Math(rt, "atan2", dbl, a + ", " + b)); break;
      case ScalarOp::kCbrt: def(Math(rt, "cbrt", dbl, a)); break;
      case ScalarOp::kAcos: def(Math(rt, "acos", dbl, a)); break;
      case ScalarOp::kAsin: def(Math(rt, "asin", dbl, a)); break;
      case ScalarOp::kAtan: def(Math(rt, "atan", dbl, a)); break;
      case ScalarOp::kSinh: def(Math(rt, "sinh", dbl, a)); break;
      case ScalarOp::kCosh: def(Math(rt, "cosh", dbl, a)); break;
      case ScalarOp::kAsinh: def(Math(rt, "asinh", dbl, a)); break;
      case ScalarOp::kAcosh: def(Math(rt, "acosh", dbl, a)); break;
      case ScalarOp::kAtanh: def(Math(rt, "atanh", dbl, a)); break;
      case ScalarOp::kErf:
      case ScalarOp::kErfc:
        def(Round(rt, std::string(in.op == ScalarOp::kErf ? "kiln_erf" : "kiln_erfc") + (dbl ? "_d(" : "(") + a + ")"));
        break;
      case ScalarOp::kErfInv: def(Round(rt, std::string(dbl ? "kiln_erf_inv_d(" : "kiln_erf_inv(") + a + ")")); break;
      // The special functions of kernels/vulkan/special64.glsl compute in
      // f64 for every float type and round once, as the reference does.
      case ScalarOp::kLgamma:
      case ScalarOp::kDigamma:
      case ScalarOp::kBesselI1e:
      case ScalarOp::kPolygamma:
      case ScalarOp::kZeta: {
        if (!fl) return Refuse(in.op, t0, "special functions of non-floats");
        *features |= hal::kShaderFloat64 | hal::kShaderInt64;
        static const char* const kNames[] = {"lgamma", "digamma", "bessel_i1e", "polygamma", "zeta"};
        const ScalarOp kOps[] = {ScalarOp::kLgamma, ScalarOp::kDigamma, ScalarOp::kBesselI1e, ScalarOp::kPolygamma,
                                 ScalarOp::kZeta};
        const size_t f = static_cast<size_t>(std::find(std::begin(kOps), std::end(kOps), in.op) - std::begin(kOps));
        const auto widen = [dbl](const std::string& v) { return dbl ? v : "double(" + v + ")"; };
        std::string call = std::string("kiln_") + kNames[f] + "_d(" + widen(a);
        if (in.num_operands > 1) call += ", " + widen(b);
        call += ")";
        def(dbl ? call : Round(rt, "float(" + call + ")"));
        break;
      }
      case ScalarOp::kNextAfter:
        out += NextAfter(t0, r, a, b);
        break;
      case ScalarOp::kReducePrecision: out += ReducePrecision(t0, r, a, in.attr0, in.attr1); break;
      default:
        return Refuse(in.op, t0, "no GLSL translation yet");
    }
  }
  for (uint16_t res : prog.results) results->push_back(name[res]);
  return Status::Ok();
}

}  // namespace kiln::compiler::vulkan

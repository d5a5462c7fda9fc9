// The vulkan target's shaders, part: linear algebra (kernels/kernels.def):
// triangular_solve, cholesky, kiln.lu, kiln.geqrf / kiln.orgqr, kiln.gehrd, kiln.gtsv, kiln.sytrd,
// kiln.syevd, kiln.geqp3, kiln.gesdd / kiln.gesvd.
// Shared helpers: compiler/vulkan/kernels.h.
#include "compiler/vulkan/kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <type_traits>
#include <vector>

namespace kiln::compiler::vulkan {

using C = GType::Class;

namespace {

// The batch count of a [batch..., rows, cols] tensor t, as a GLSL expression.
std::string Batches(const ShaderWriter& w, size_t t) {
  std::string batches = "1u";
  for (int d = 0; d < w.rank(t) - 2; ++d) batches += " * " + w.Dim(t, d);
  return batches;
}

// The factorizations read back what they wrote, so they work in the element
// type itself: f32, f64, complex<f32> or complex<f64> (a narrower float
// would round every partial result; the reference works in f32 for those).
Status FactorType(const DispatchUse& u, const ShaderWriter& w, size_t t) {
  const GType& g = w.type(t);
  if (g.cls == C::kComplex) return Status::Ok();
  if (g.cls != C::kFloat || (g.name != "double" && g.type != ElementType::kF32))
    return Refuse(u, "element types other than f32, f64 and complex");
  return Status::Ok();
}

// The real type of factor type `t`: float or double.
std::string RealOf(const GType& t) { return t.cls == C::kComplex ? t.part : t.name; }

// The element operations the factorization templates call, for t (real or
// complex) over R = RealOf(t): re, im, conj, abs2 (|x|^2), mag (|x|), cabs1
// (|re| + |im|, LAPACK's pivot magnitude), mul, div, recip, over (x / a
// real) and from_re. Real ones are `precise`, complex ones the preludes'
// kiln_c* helpers.
std::string FactorHelpers(const GType& t) {
  const std::string T = t.name, R = RealOf(t);
  auto fn = [](const std::string& type, const std::string& sig, const std::string& body) {
    return type + " " + sig + " { " + body + " }\n";
  };
  std::string f;
  if (t.cls == C::kComplex) {
    f += fn(R, "re(" + T + " x)", "return x.x;") + fn(R, "im(" + T + " x)", "return x.y;");
    f += fn(T, "conj(" + T + " x)", "return " + T + "(x.x, -x.y);");
    f += fn(R, "abs2(" + T + " x)", "precise " + R + " r = x.x * x.x + x.y * x.y; return r;");
    f += fn(R, "mag(" + T + " x)", "return kiln_cabs(x);") + fn(R, "cabs1(" + T + " x)", "return abs(x.x) + abs(x.y);");
    f += fn(T, "mul(" + T + " a, " + T + " b)", "return kiln_cmul(a, b);");
    f += fn(T, "div(" + T + " a, " + T + " b)", "return kiln_cdiv(a, b);");
    f += fn(T, "recip(" + T + " x)", "return kiln_cdiv(" + T + "(1, 0), x);");
    f += fn(T, "over(" + T + " x, " + R + " r)", "return x / r;") + fn(T, "from_re(" + R + " r)", "return " + T + "(r, 0);");
  } else {
    f += fn(R, "re(" + T + " x)", "return x;") + fn(R, "im(" + T + " x)", "return " + R + "(0);");
    f += fn(T, "conj(" + T + " x)", "return x;") + fn(R, "abs2(" + T + " x)", "precise " + R + " r = x * x; return r;");
    f += fn(R, "mag(" + T + " x)", "return abs(x);") + fn(R, "cabs1(" + T + " x)", "return abs(x);");
    f += fn(T, "mul(" + T + " a, " + T + " b)", "precise " + T + " r = a * b; return r;");
    f += fn(T, "div(" + T + " a, " + T + " b)", "precise " + T + " r = a / b; return r;");
    f += fn(T, "recip(" + T + " x)", "precise " + T + " r = " + T + "(1) / x; return r;");
    f += fn(T, "over(" + T + " x, " + R + " r)", "precise " + T + " q = x / r; return q;");
    f += fn(T, "from_re(" + R + " r)", "return r;");
  }
  return f;
}

}  // namespace

// triangular_solve (real and complex types): see
// kernels/vulkan/triangular_solve.glsl.
StatusOr<ShaderSource> TriangularSolve(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 2 || u.out_types.size() != 1) return Refuse(u, "expected two operands and one result");
  const int r = w.rank(0);
  if (r < 2 || w.rank(1) != r || w.rank(2) != r) return Refuse(u, "bad ranks");
  const bool complex = w.type(0).cls == C::kComplex;
  for (size_t t = 0; t < 3; ++t) {
    if ((w.type(t).cls == C::kComplex) != complex) return Refuse(u, "real and complex operands together");
    if (w.type(t).cls != C::kFloat && w.type(t).cls != C::kComplex)
      return Refuse(u, "operands that are not floating-point or complex");
  }
  std::string ta(kp.Str("transpose_a"));
  if (ta.empty()) ta = "NO_TRANSPOSE";
  if (ta != "NO_TRANSPOSE" && ta != "TRANSPOSE" && ta != "ADJOINT") return Refuse(u, "unknown transpose_a");
  // The compute type: f32 (complex: vec2) for every float up to 32 bits,
  // f64 (dvec2) for f64 and complex<f64>.
  bool wide = false;
  for (size_t t = 0; t < 3; ++t) wide = wide || w.type(t).name == "double" || w.type(t).name == "dvec2";
  const ElementType compute = complex ? (wide ? ElementType::kC128 : ElementType::kC64)
                                      : (wide ? ElementType::kF64 : ElementType::kF32);
  KILN_ASSIGN_OR_RETURN(GType ct, GlslType(compute));
  w.features |= ct.features;
  KILN_ASSIGN_OR_RETURN(std::string ca, ConvertExpr(w.type(0), ct, w.Load(0, "i")));
  KILN_ASSIGN_OR_RETURN(std::string cb, ConvertExpr(w.type(1), ct, w.Load(1, "i")));
  KILN_ASSIGN_OR_RETURN(std::string cy, ConvertExpr(w.type(2), ct, w.Load(2, "i")));
  KILN_ASSIGN_OR_RETURN(std::string cv, ConvertExpr(ct, w.type(2), "v"));
  // ADJOINT conjugates op(a)'s elements (a real type has nothing to conjugate).
  if (complex && ta == "ADJOINT") ca = ct.name + "((" + ca + ").x, -(" + ca + ").y)";
  // The output buffer is read back (y_at) after this invocation wrote it.
  std::string fns = ct.name + " a_at(uint i) { return " + ca + "; }\n" + ct.name + " b_at(uint i) { return " + cb +
                    "; }\n" + ct.name + " y_at(uint i) { return " + cy + "; }\nvoid put(uint i, " + ct.name +
                    " v) { " + w.Store(2, "i", cv) + " }\n";
  if (!complex) {
    fns += ct.name + " real_mul(" + ct.name + " a, " + ct.name + " b) { return a * b; }\n" + ct.name + " real_div(" +
           ct.name + " a, " + ct.name + " b) { return a / b; }\n";
  }
  const std::string one = complex ? ct.name + "(1, 0)" : ct.name + "(1)";
  const std::string zero = complex ? ct.name + "(0, 0)" : ct.name + "(0)";
  auto flag = [&](const char* n) { return kp.Int(n) != 0 ? std::string("true") : std::string("false"); };
  std::string body = Fill(Template("triangular_solve.glsl"),
                          {{"FUNCTIONS", fns},
                           {"T", ct.name},
                           {"ONE", one},
                           {"ZERO", zero},
                           {"MUL", complex ? "kiln_cmul" : "real_mul"},
                           {"DIV", complex ? "kiln_cdiv" : "real_div"},
                           {"LEFT", flag("left_side")},
                           {"LOWER", flag("lower")},
                           {"UNIT", flag("unit_diagonal")},
                           {"TRANSPOSED", ta != "NO_TRANSPOSE" ? "true" : "false"},
                           {"M", w.Dim(0, r - 1)},
                           {"ROWS", w.Dim(1, r - 2)},
                           {"COLS", w.Dim(1, r - 1)},
                           {"BATCHES", Batches(w, 2)}});
  return w.Finish(body, 64);
}


// cholesky (f32, f64, complex<f32>, complex<f64>): see kernels/vulkan/cholesky.glsl.
StatusOr<ShaderSource> Cholesky(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 1 || u.out_types.size() != 1) return Refuse(u, "expected one operand and one result");
  const int r = w.rank(0);
  if (r < 2 || w.rank(1) != r) return Refuse(u, "bad ranks");
  if (w.type(0).type != w.type(1).type) return Refuse(u, "an operand and result of different types");
  KILN_RETURN_IF_ERROR(FactorType(u, w, 0));
  const GType& t = w.type(0);
  w.features |= t.features;
  const std::string R = RealOf(t), T = t.name;
  const bool dbl = R == "double";
  std::string fns = T + " a_at(uint i) { return " + w.Load(0, "i") + "; }\n" + T + " l_at(uint i) { return " +
                    w.Load(1, "i") + "; }\nvoid put(uint i, " + T + " v) { " + w.Store(1, "i", "v") + " }\n";
  fns += R + " sqrt_or_nan(" + R + " d) { " +
         (dbl ? "return d >= 0.0lf ? sqrt(d) : kiln_nan_d();" : "return kiln_sqrt(d);") + " }\n";
  fns += FactorHelpers(t);
  std::string body = Fill(Template("cholesky.glsl"), {{"FUNCTIONS", fns},
                                                     {"T", T},
                                                     {"R", R},
                                                     {"SQRT", "sqrt_or_nan"},
                                                     {"LOWER", kp.Int("lower") != 0 ? "true" : "false"},
                                                     {"N", w.Dim(0, r - 1)},
                                                     {"BATCHES", Batches(w, 0)}});
  return w.Finish(body, 64);
}

// kiln.lu (f32, f64, complex<f32>, complex<f64>): see kernels/vulkan/lu.glsl.
StatusOr<ShaderSource> Lu(const KernelParams&, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 1 || u.out_types.size() != 3) return Refuse(u, "expected one operand and three results");
  const int r = w.rank(0);
  if (r < 2 || w.rank(1) != r) return Refuse(u, "bad ranks");
  KILN_RETURN_IF_ERROR(FactorType(u, w, 0));
  if (w.type(1).type != w.type(0).type) return Refuse(u, "factors of another type than the operand");
  if (w.type(2).type != ElementType::kSI32 || w.type(3).type != ElementType::kSI32)
    return Refuse(u, "pivots and info that are not si32");
  const GType& t = w.type(0);
  w.features |= t.features;
  std::string fns = t.name + " a_at(uint i) { return " + w.Load(0, "i") + "; }\n" + t.name + " x_at(uint i) { return " +
                    w.Load(1, "i") + "; }\nvoid put(uint i, " + t.name + " v) { " + w.Store(1, "i", "v") +
                    " }\nvoid put_ipiv(uint i, int v) { " + w.Store(2, "i", "v") + " }\nvoid put_info(uint i, int v) { " +
                    w.Store(3, "i", "v") + " }\n";
  const std::string T = t.name, R = RealOf(t);
  fns += FactorHelpers(t);
  KILN_ASSIGN_OR_RETURN(GType real, GlslType(R == "double" ? ElementType::kF64 : ElementType::kF32));
  const double min_normal = R == "double" ? 2.2250738585072014e-308 : 1.1754943508222875e-38;
  std::string body = Fill(Template("lu.glsl"), {{"FUNCTIONS", fns},
                                               {"T", T},
                                               {"R", R},
                                               {"MIN_NORMAL", FloatConst(real, min_normal)},
                                               {"M", w.Dim(0, r - 2)},
                                               {"N", w.Dim(0, r - 1)},
                                               {"BATCHES", Batches(w, 0)}});
  // Over the largest output: empty matrices still have pivots' info.
  ShaderSource src = w.Finish(body, 64);
  src.grid_args = {1};
  return src;
}

// kiln.gtsv (f32, f64, complex<f32>, complex<f64>): see kernels/vulkan/gtsv.glsl.
StatusOr<ShaderSource> Gtsv(const KernelParams&, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 4 || u.out_types.size() != 5) return Refuse(u, "expected four operands and five results");
  const int r = w.rank(3);
  if (r < 2) return Refuse(u, "b must be (batches of) n x nrhs matrices");
  KILN_RETURN_IF_ERROR(FactorType(u, w, 3));
  for (size_t k = 0; k < 3; ++k)
    if (w.rank(k) != r - 1 || w.type(k).type != w.type(3).type || w.type(w.Out(k)).type != w.type(3).type)
      return Refuse(u, "diagonals of another rank or type than b");
  if (w.type(w.Out(3)).type != w.type(3).type) return Refuse(u, "a solution of another type than b");
  if (w.type(w.Out(4)).type != ElementType::kSI32) return Refuse(u, "info that is not si32");
  const GType& t = w.type(3);
  w.features |= t.features;
  const std::string T = t.name;
  std::string fns;
  const char* names[] = {"dl", "d", "du"};
  for (size_t k = 0; k < 3; ++k) {
    const std::string nm = names[k];
    fns += T + " " + nm + "_in(uint i) { return " + w.Load(k, "i") + "; }\n";
    fns += T + " " + nm + "_get(uint i) { return " + w.Load(w.Out(k), "i") + "; }\n";
    fns += "void " + nm + "_put(uint i, " + T + " v) { " + w.Store(w.Out(k), "i", "v") + " }\n";
  }
  fns += T + " b_in(uint i) { return " + w.Load(3, "i") + "; }\n";
  fns += T + " x_get(uint i) { return " + w.Load(w.Out(3), "i") + "; }\n";
  fns += "void x_put(uint i, " + T + " v) { " + w.Store(w.Out(3), "i", "v") + " }\n";
  fns += "void put_info(uint i, int v) { " + w.Store(w.Out(4), "i", "v") + " }\n";
  fns += FactorHelpers(t);
  std::string body = Fill(Template("gtsv.glsl"), {{"FUNCTIONS", fns},
                                                 {"T", T},
                                                 {"N", w.Dim(3, r - 2)},
                                                 {"NRHS", w.Dim(3, r - 1)},
                                                 {"BATCHES", Batches(w, 3)}});
  // Over the largest output: systems of no equations still have their info.
  ShaderSource src = w.Finish(body, 64);
  src.grid_args = {1};
  return src;
}

// `name`(): zeros into results `outputs`, which the invocation of matrix 0
// writes.
StatusOr<std::string> ZeroResults(const DispatchUse& u, const ShaderWriter& w, const std::string& name,
                                  const std::vector<size_t>& outputs) {
  std::string zero = "void " + name + "() {\n";
  for (size_t o : outputs) {
    const size_t ti = w.Out(o);
    std::string count = "1u";
    for (int d = 0; d < w.rank(ti); ++d) count += " * " + w.Dim(ti, static_cast<size_t>(d));
    KILN_ASSIGN_OR_RETURN(GType from, GlslType(ElementType::kSI32));
    KILN_ASSIGN_OR_RETURN(std::string z, ConvertExpr(from, w.type(ti), "0"));
    zero += "  for (uint i = 0u; i < " + count + "; ++i) " + w.Store(ti, "i", z) + "\n";
  }
  return zero + "}\n";
}

// zero_rest(): zeros into results `first`.. (LAPACK's info and JAX's
// workspaces), which the invocation of matrix 0 writes.
StatusOr<std::string> ZeroRest(const DispatchUse& u, const ShaderWriter& w, size_t first) {
  std::vector<size_t> outputs;
  for (size_t o = first; o < u.out_types.size(); ++o) outputs.push_back(o);
  return ZeroResults(u, w, "zero_rest", outputs);
}

// larfg's safmin (R's smallest normal over its epsilon), as the reference's.
double LarfgSafmin(bool dbl) {
  return dbl ? 2.2250738585072014e-308 / 2.220446049250313e-16 : 1.1754943508222875e-38 / 1.1920928955078125e-07;
}

// What larfg needs for factor type t: hypot3 (|(a, b, c)|, scaled),
// sign_bit, the element operations (FactorHelpers), signed_norm (beta =
// -sign(re alpha) |(alpha, xnorm)|) and make_tau, as the reference's larfg.
std::string LarfgHelpers(const GType& t) {
  const std::string T = t.name, R = RealOf(t);
  const bool dbl = R == "double", complex = t.cls == C::kComplex;
  std::string fns;
  // |(a, b, c)| (c = 0 for a real alpha), scaled in f64, in f64 for f32.
  if (dbl) {
    fns += "double hypot3(double a, double b, double c) {\n  double x = abs(a), y = abs(b), z = abs(c);\n"
           "  double hi = max(x, max(y, z));\n  if (hi == 0.0lf) return 0.0lf;\n"
           "  precise double p = x / hi, q = y / hi, s = z / hi;\n  precise double sum = p * p + q * q + s * s;\n"
           "  return hi * sqrt(sum);\n}\n";
    fns += "bool sign_bit(double v) { return (unpackDouble2x32(v).y >> 31) != 0u; }\n";
  } else {
    fns += "float hypot3(float a, float b, float c) {\n  return float(sqrt(double(a) * double(a) + double(b) * double(b) + "
           "double(c) * double(c)));\n}\n";
    fns += "bool sign_bit(float v) { return (floatBitsToUint(v) >> 31) != 0u; }\n";
  }
  fns += FactorHelpers(t);
  // beta = -sign(re alpha) |(alpha, xnorm)| and tau, as the reference's larfg.
  fns += R + " signed_norm(" + T + " a, " + R + " xnorm) {\n  " + R + " n = hypot3(re(a), im(a), xnorm);\n" +
         "  return sign_bit(re(a)) ? n : -n;\n}\n";
  if (complex) {
    fns += T + " make_tau(" + T + " a, " + R + " beta) {\n  precise " + R +
           " r = (beta - a.x) / beta, i = -a.y / beta;\n  return " + T + "(r, i);\n}\n";
  } else {
    fns += T + " make_tau(" + T + " a, " + R + " beta) { precise " + T + " t = (beta - a) / beta; return t; }\n";
  }
  return fns;
}

// kernels/vulkan/larfg.glsl for factor type t over accessor type `acc`
// with element functions get(a, r, c) / set(a, r, c, v), as functions
// named `norm` and `larfg` (after LarfgHelpers and the accessor).
std::string LarfgFunctions(const GType& t, const std::string& acc, const std::string& get, const std::string& set,
                           const std::string& norm, const std::string& larfg) {
  const std::string R = RealOf(t);
  const bool dbl = R == "double";
  const GType real = *GlslType(dbl ? ElementType::kF64 : ElementType::kF32);
  return Fill(Template("larfg.glsl"), {{"T", t.name},
                                       {"R", R},
                                       {"SAFMIN", FloatConst(real, LarfgSafmin(dbl))},
                                       {"ACC", acc},
                                       {"GET", get},
                                       {"SET", set},
                                       {"NORM", norm},
                                       {"LARFG", larfg}});
}

// What householder.glsl needs for factor type t on an m x n matrix (GLSL
// expressions): LarfgHelpers, then the template itself.
std::string HouseholderFunctions(const GType& t, const std::string& m, const std::string& n) {
  const std::string R = RealOf(t);
  return LarfgHelpers(t) +
         Fill(Template("householder.glsl"),
              {{"LARFG_FUNCTIONS", LarfgFunctions(t, "uint", "x", "set_x", "norm2_range", "larfg_range")},
               {"T", t.name},
               {"R", R},
               {"M", m},
               {"N", n}});
}

// What tridiagonal.glsl needs (LOWER, householder.glsl over the n x n
// matrix) and the template itself; the includer defines keep_d, keep_e and
// keep_tau.
std::string TridiagonalFunctions(const GType& t, const std::string& n, bool lower) {
  return std::string("const bool LOWER = ") + (lower ? "true" : "false") + ";\n" + HouseholderFunctions(t, n, n) +
         Fill(Template("tridiagonal.glsl"), {{"T", t.name}, {"R", RealOf(t)}, {"N", n}});
}

// kiln.geqrf and kiln.orgqr (f32, f64, complex<f32>, complex<f64>): see
// kernels/vulkan/qr.glsl.
StatusOr<ShaderSource> Qr(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const bool geqrf = kp.kernel == "kiln.geqrf";
  const size_t inputs = geqrf ? 1 : 2;
  const size_t first_rest = geqrf ? 2 : 1;  // info, then the workspace
  if (u.in_types.size() != inputs || u.out_types.size() < first_rest || u.out_types.size() > first_rest + 2)
    return Refuse(u, "unexpected operands");
  const int r = w.rank(0);
  if (r < 2 || w.rank(w.Out(0)) != r) return Refuse(u, "bad ranks");
  KILN_RETURN_IF_ERROR(FactorType(u, w, 0));
  const GType& t = w.type(0);
  if (w.type(w.Out(0)).type != w.type(0).type) return Refuse(u, "a result of another type than the operand");
  const size_t tau = geqrf ? w.Out(1) : 1;
  if (w.type(tau).type != w.type(0).type || w.rank(tau) != r - 1) return Refuse(u, "bad tau");
  const std::string T = t.name, R = RealOf(t);
  w.features |= t.features | hal::kShaderFloat64 | hal::kShaderInt64;  // norms accumulate in f64
  const size_t out = w.Out(0);
  std::string fns = t.name + " a_at(uint i) { return " + w.Load(0, "i") + "; }\n" + t.name + " x_at(uint i) { return " +
                    w.Load(out, "i") + "; }\nvoid put(uint i, " + t.name + " v) { " + w.Store(out, "i", "v") + " }\n";
  fns += t.name + " tau_at(uint i) { return " + (geqrf ? t.name + "(0)" : w.Load(1, "i")) + "; }\n";
  fns += "void put_tau(uint i, " + t.name + " v) { " + (geqrf ? w.Store(w.Out(1), "i", "v") : std::string()) + " }\n";
  KILN_ASSIGN_OR_RETURN(std::string zero, ZeroRest(u, w, first_rest));  // info and the workspace
  fns += zero + HouseholderFunctions(t, "(" + w.Dim(0, r - 2) + ")", "(" + w.Dim(0, r - 1) + ")");
  const std::string k = geqrf ? "min(" + w.Dim(0, r - 2) + ", " + w.Dim(0, r - 1) + ")" : w.Dim(1, r - 2);
  std::string body = Fill(Template("qr.glsl"), {{"FUNCTIONS", fns},
                                               {"T", T},
                                               {"R", R},
                                               {"GEQRF", geqrf ? "true" : "false"},
                                               {"M", "(" + w.Dim(0, r - 2) + ")"},
                                               {"N", "(" + w.Dim(0, r - 1) + ")"},
                                               {"K", "(" + k + ")"},
                                               {"BATCHES", Batches(w, 0)}});
  ShaderSource src = w.Finish(body, 64);
  src.grid_args = {1};
  return src;
}

// kiln.gehrd (f32, f64, complex<f32>, complex<f64>): see
// kernels/vulkan/hessenberg.glsl. low and high (LAPACK's ilo, ihi) are the
// kernel's attributes, so they are constants of the shader.
StatusOr<ShaderSource> Gehrd(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 1 || u.out_types.size() != 3) return Refuse(u, "expected one operand and three results");
  const int r = w.rank(0);
  if (r < 2 || w.rank(w.Out(0)) != r || w.rank(w.Out(1)) != r - 1) return Refuse(u, "bad ranks");
  KILN_RETURN_IF_ERROR(FactorType(u, w, 0));
  const GType& t = w.type(0);
  if (w.type(w.Out(0)).type != t.type || w.type(w.Out(1)).type != t.type)
    return Refuse(u, "results of another type than the operand");
  const std::string n = "(" + w.Dim(0, r - 1) + ")";
  const int64_t low = kp.Int("low", 1), high = kp.Int("high", -1);
  if (low < 1 || high < 0) return Refuse(u, "no low and high attributes");
  w.features |= t.features | hal::kShaderFloat64 | hal::kShaderInt64;  // norms accumulate in f64
  const size_t out = w.Out(0);
  std::string fns = t.name + " a_at(uint i) { return " + w.Load(0, "i") + "; }\n" + t.name + " x_at(uint i) { return " +
                    w.Load(out, "i") + "; }\nvoid put(uint i, " + t.name + " v) { " + w.Store(out, "i", "v") + " }\n";
  fns += "void put_tau(uint i, " + t.name + " v) { " + w.Store(w.Out(1), "i", "v") + " }\n";
  KILN_ASSIGN_OR_RETURN(std::string zero, ZeroRest(u, w, 2));  // info
  // The reflectors span rows up to high (householder.glsl's M), never past
  // n (the compiler checked high <= n; a module's parameters could disagree).
  const std::string hi = "min(" + std::to_string(high) + "u, " + n + ")";
  fns += zero + HouseholderFunctions(t, hi, n);
  std::string body = Fill(Template("hessenberg.glsl"), {{"FUNCTIONS", fns},
                                                       {"T", t.name},
                                                       {"R", RealOf(t)},
                                                       {"N", n},
                                                       {"LOW", std::to_string(low) + "u"},
                                                       {"HIGH", hi},
                                                       {"BATCHES", Batches(w, 0)}});
  ShaderSource src = w.Finish(body, 64);
  src.grid_args = {1};
  return src;
}

// kiln.sytrd (f32, f64, complex<f32>, complex<f64>): see
// kernels/vulkan/sytrd.glsl. The triangle (attr lower) is a constant of the
// shader.
StatusOr<ShaderSource> Sytrd(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 1 || u.out_types.size() != 5) return Refuse(u, "expected one operand and five results");
  const int r = w.rank(0);
  if (r < 2 || w.rank(w.Out(0)) != r || w.rank(w.Out(1)) != r - 1 || w.rank(w.Out(2)) != r - 1 ||
      w.rank(w.Out(3)) != r - 1)
    return Refuse(u, "bad ranks");
  KILN_RETURN_IF_ERROR(FactorType(u, w, 0));
  const GType& t = w.type(0);
  const std::string T = t.name, R = RealOf(t);
  KILN_ASSIGN_OR_RETURN(GType real, GlslType(R == "double" ? ElementType::kF64 : ElementType::kF32));
  if (w.type(w.Out(0)).type != t.type || w.type(w.Out(3)).type != t.type || w.type(w.Out(1)).type != real.type ||
      w.type(w.Out(2)).type != real.type)
    return Refuse(u, "results of other types than LAPACK's");
  w.features |= t.features | hal::kShaderFloat64 | hal::kShaderInt64;  // norms accumulate in f64
  const std::string n = "(" + w.Dim(0, r - 1) + ")";
  const size_t out = w.Out(0);
  std::string fns = T + " a_at(uint i) { return " + w.Load(0, "i") + "; }\n" + T + " x_at(uint i) { return " +
                    w.Load(out, "i") + "; }\nvoid put(uint i, " + T + " v) { " + w.Store(out, "i", "v") + " }\n";
  const std::string nt = "(" + n + " - 1u)";  // keep_e and keep_tau run for n >= 2 only
  fns += "void keep_d(uint id, uint i, " + R + " v) { " + w.Store(w.Out(1), "id * " + n + " + i", "v") + " }\n";
  fns += R + " get_d(uint i) { return " + w.Load(w.Out(1), "i") + "; }\n";
  fns += "void keep_e(uint id, uint i, " + R + " v) { " + w.Store(w.Out(2), "id * " + nt + " + i", "v") + " }\n";
  fns += R + " get_e(uint i) { return " + w.Load(w.Out(2), "i") + "; }\n";
  fns += "void keep_tau(uint id, uint i, " + T + " v) { " + w.Store(w.Out(3), "id * " + nt + " + i", "v") + " }\n";
  KILN_ASSIGN_OR_RETURN(std::string zero, ZeroRest(u, w, 4));  // info
  fns += zero + TridiagonalFunctions(t, n, kp.Int("lower", 1) != 0);
  std::string body =
      Fill(Template("sytrd.glsl"), {{"FUNCTIONS", fns}, {"T", T}, {"R", R}, {"N", n}, {"BATCHES", Batches(w, 0)}});
  ShaderSource src = w.Finish(body, 64);
  src.grid_args = {1};
  return src;
}

// The shaders that keep per-matrix working vectors in private arrays
// (syevd.glsl, geqp3.glsl) size them for matrices of up to kPrivateOrder
// rows or columns: a static last dim of operand 0 past it is refused.
constexpr int64_t kPrivateOrder = 1024;
Status FitsPrivateArrays(const DispatchUse& u, int rank, const std::string& what) {
  if (!u.in_dims.empty() && static_cast<int>(u.in_dims[0].size()) == rank && u.in_dims[0][rank - 1] > kPrivateOrder)
    return Refuse(u, what);
  return Status::Ok();
}
// KMAX (the arrays' size), rsqrt_ (R's correctly rounded square root: the
// driver's may be a few ulp off for f32) and nan_r, for real type R.
std::string ScratchHelpers(const std::string& R) {
  const bool dbl = R == "double";
  return "const int KMAX = " + std::to_string(kPrivateOrder) + ";\n" + R + " rsqrt_(" + R + " x) { return " +
         (dbl ? "sqrt(x)" : "kiln_sqrt(x)") + "; }\n" + R + " nan_r() { return " +
         (dbl ? "kiln_nan_d()" : "uintBitsToFloat(0x7fc00000u)") + "; }\n";
}

// The limits steqr and syevd work with, in R's own arithmetic (float or
// double), as GLSL constants of type `real`.
template <typename R>
std::map<std::string, std::string> EigenLimits(const GType& real) {
  const R eps = std::numeric_limits<R>::epsilon() / 2, safmin = std::numeric_limits<R>::min();
  const R safmax = 1 / safmin, eps2 = eps * eps;
  const R smlnum = safmin / std::numeric_limits<R>::epsilon(), bignum = 1 / smlnum;
  auto c = [&](R v) { return FloatConst(real, static_cast<double>(v)); };
  return {{"EPS", c(eps)},
          {"SAFMIN_N", c(safmin)},
          {"RTMIN_N", c(std::sqrt(safmin))},
          {"RTMAX_N", c(std::sqrt(safmax / 2))},
          {"SSFMAX", c(std::sqrt(safmax) / 3)},
          {"SSFMIN", c(std::sqrt(safmin) / eps2)},
          {"RMIN", c(std::sqrt(smlnum))},
          {"RMAX", c(std::sqrt(bignum))}};
}

// lartg.glsl (lartg, lapy2, copysign_r) for real type R with `limits`
// (EigenLimits).
std::string LartgFunctions(std::map<std::string, std::string> limits, const std::string& R) {
  limits["R"] = R;
  return Fill(Template("lartg.glsl"), limits);
}

// kiln.syevd (f32, f64, complex<f32>, complex<f64>): see
// kernels/vulkan/syevd.glsl. The triangle (attr lower) and whether
// vectors are computed (attr compute_v) are constants of the shader.
StatusOr<ShaderSource> Syevd(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 1 || u.out_types.size() < 3) return Refuse(u, "expected one operand and (v, w, info, ...)");
  const int r = w.rank(0);
  if (r < 2 || w.rank(w.Out(0)) != r || w.rank(w.Out(1)) != r - 1 || w.rank(w.Out(2)) != r - 2)
    return Refuse(u, "bad ranks");
  KILN_RETURN_IF_ERROR(FactorType(u, w, 0));
  const GType& t = w.type(0);
  const std::string T = t.name, R = RealOf(t);
  const bool dbl = R == "double";
  KILN_ASSIGN_OR_RETURN(GType real, GlslType(dbl ? ElementType::kF64 : ElementType::kF32));
  if (w.type(w.Out(0)).type != t.type || w.type(w.Out(1)).type != real.type)
    return Refuse(u, "results of other types than LAPACK's");
  if (w.type(w.Out(2)).type != ElementType::kSI32) return Refuse(u, "info that is not si32");
  // The tridiagonal's off-diagonal and tau live in private arrays.
  KILN_RETURN_IF_ERROR(FitsPrivateArrays(u, r, "matrices larger than 1024 x 1024"));
  w.features |= t.features | hal::kShaderFloat64 | hal::kShaderInt64;  // norms accumulate in f64
  const std::string n = "(" + w.Dim(0, r - 1) + ")";
  const size_t out = w.Out(0);
  std::string fns = T + " a_at(uint i) { return " + w.Load(0, "i") + "; }\n" + T + " x_at(uint i) { return " + w.Load(out, "i") +
         "; }\nvoid put(uint i, " + T + " v) { " + w.Store(out, "i", "v") + " }\n";
  fns += R + " get_w(uint i) { return " + w.Load(w.Out(1), "i") + "; }\n";
  fns += "void set_w(uint i, " + R + " v) { " + w.Store(w.Out(1), "i", "v") + " }\n";
  fns += "void put_info(uint i, int v) { " + w.Store(w.Out(2), "i", "v") + " }\n";
  fns += ScratchHelpers(R);
  KILN_ASSIGN_OR_RETURN(std::string zero, ZeroRest(u, w, 3));  // the workspaces
  fns += zero + TridiagonalFunctions(t, n, kp.Int("lower", 1) != 0);
  std::map<std::string, std::string> values = dbl ? EigenLimits<double>(real) : EigenLimits<float>(real);
  fns += LartgFunctions(values, R);
  values.insert({{"FUNCTIONS", fns},
                 {"T", T},
                 {"R", R},
                 {"N", n},
                 {"VECTORS", kp.Int("compute_v", 1) != 0 ? "true" : "false"},
                 {"BATCHES", Batches(w, 0)}});
  std::string body = Fill(Template("syevd.glsl"), values);
  ShaderSource src = w.Finish(body, 64);
  src.grid_args = {1};  // over w: empty matrices still have their info
  return src;
}

// The limits gesdd / gesvd and bdsqr work with, in R's own arithmetic, as
// GLSL constants of type `real` (besides EigenLimits'): bdsqr's tolerance
// (tolmul times eps), R(0.01), the range outside which the matrix is
// scaled, and larfg's safmin.
template <typename R>
std::map<std::string, std::string> SvdLimits(const GType& real) {
  const R eps = std::numeric_limits<R>::epsilon() / 2;
  const R tolmul = std::max(R(10), std::min(R(100), std::pow(eps, R(-0.125))));
  const R smlnum = std::sqrt(std::numeric_limits<R>::min()) / eps, bignum = 1 / smlnum;
  auto c = [&](R v) { return FloatConst(real, static_cast<double>(v)); };
  std::map<std::string, std::string> limits = EigenLimits<R>(real);
  limits.insert({{"TOL", c(tolmul * eps)},
                 {"P01", c(R(0.01))},
                 {"SMLNUM", c(smlnum)},
                 {"BIGNUM", c(bignum)},
                 {"SAFMIN", FloatConst(real, LarfgSafmin(std::is_same_v<R, double>))}});
  return limits;
}

// kiln.gesdd and kiln.gesvd (f32, f64, complex<f32>, complex<f64>): see
// kernels/vulkan/gesdd.glsl. The mode (attr mode: 'A', 'S' or 'N') and
// the routine (gesdd or gesvd) are constants of the shader.
StatusOr<ShaderSource> Svd(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 1 || u.out_types.size() < 5)
    return Refuse(u, "expected one operand and (a, s, u, vt, info, ...)");
  const int r = w.rank(0);
  if (r < 2 || w.rank(w.Out(0)) != r || w.rank(w.Out(1)) != r - 1 || w.rank(w.Out(2)) != r ||
      w.rank(w.Out(3)) != r || w.rank(w.Out(4)) != r - 2)
    return Refuse(u, "bad ranks");
  KILN_RETURN_IF_ERROR(FactorType(u, w, 0));
  const GType& t = w.type(0);
  const std::string T = t.name, R = RealOf(t);
  const bool dbl = R == "double", complex = t.cls == C::kComplex;
  KILN_ASSIGN_OR_RETURN(GType real, GlslType(dbl ? ElementType::kF64 : ElementType::kF32));
  if (w.type(w.Out(0)).type != t.type || w.type(w.Out(2)).type != t.type || w.type(w.Out(3)).type != t.type ||
      w.type(w.Out(1)).type != real.type)
    return Refuse(u, "results of other types than LAPACK's");
  if (w.type(w.Out(4)).type != ElementType::kSI32) return Refuse(u, "info that is not si32");
  const int64_t mode = kp.Int("mode", 'S');
  if (mode != 'A' && mode != 'S' && mode != 'N') return Refuse(u, "a mode other than 'A', 'S' and 'N'");
  // The bidiagonal lives in private arrays of min(m, n) entries.
  if (!u.in_dims.empty() && static_cast<int>(u.in_dims[0].size()) == r &&
      std::min(u.in_dims[0][r - 2], u.in_dims[0][r - 1]) > kPrivateOrder)
    return Refuse(u, "matrices whose smaller side is larger than 1024");
  w.features |= t.features | hal::kShaderFloat64 | hal::kShaderInt64;  // norms accumulate in f64
  const std::string m = "(" + w.Dim(0, r - 2) + ")", n = "(" + w.Dim(0, r - 1) + ")";
  std::string fns = T + " a_at(uint i) { return " + w.Load(0, "i") + "; }\n";
  fns += T + " x_at(uint i) { return " + w.Load(w.Out(0), "i") + "; }\nvoid put(uint i, " + T + " v) { " +
         w.Store(w.Out(0), "i", "v") + " }\n";
  fns += "void set_s(uint i, " + R + " v) { " + w.Store(w.Out(1), "i", "v") + " }\n";
  fns += T + " u_at(uint i) { return " + w.Load(w.Out(2), "i") + "; }\nvoid put_u(uint i, " + T + " v) { " +
         w.Store(w.Out(2), "i", "v") + " }\n";
  fns += T + " vt_at(uint i) { return " + w.Load(w.Out(3), "i") + "; }\nvoid put_vt(uint i, " + T + " v) { " +
         w.Store(w.Out(3), "i", "v") + " }\n";
  fns += "void put_info(uint i, int v) { " + w.Store(w.Out(4), "i", "v") + " }\n";
  KILN_ASSIGN_OR_RETURN(std::string zero, ZeroRest(u, w, 5));  // the workspaces
  KILN_ASSIGN_OR_RETURN(std::string zero_uv, ZeroResults(u, w, "zero_uv", {2, 3}));  // u and vt, values only
  fns += zero + zero_uv + ScratchHelpers(R) + LarfgHelpers(t);
  std::map<std::string, std::string> values = dbl ? SvdLimits<double>(real) : SvdLimits<float>(real);
  fns += LartgFunctions(values, R);
  const bool divide = IsKernel(kp, KernelId::kGesdd);
  KILN_ASSIGN_OR_RETURN(GType f64, GlslType(ElementType::kF64));
  values.insert({{"FUNCTIONS", fns},
                 {"LARFG_FUNCTIONS", LarfgFunctions(t, "View", "vg", "vs", "vnorm", "vlarfg")},
                 {"T", T},
                 {"R", R},
                 {"M", m},
                 {"N", n},
                 {"VECTORS", mode != 'N' ? "true" : "false"},
                 {"FULL", mode == 'A' ? "true" : "false"},
                 {"DIVIDE", divide ? "true" : "false"},
                 {"QR_RATIO", FloatConst(f64, complex ? 17.0 / 9.0 : 11.0 / 6.0)},
                 {"BATCHES", Batches(w, 0)}});
  std::string body = Fill(Template("gesdd.glsl"), values);
  ShaderSource src = w.Finish(body, 64);
  src.grid_args = {1};  // over the largest result: empty matrices still have their info
  // Unoptimized SPIR-V: spirv-opt's passes (performance and size alike)
  // miscompile bdsqr's loop for llvmpipe (values only: a 2 x 2 block's
  // larger singular value lost); the driver optimizes the shader itself.
  src.optimize = false;
  return src;
}

// kiln.geqp3 (f32, f64, complex<f32>, complex<f64>): see
// kernels/vulkan/geqp3.glsl.
StatusOr<ShaderSource> Geqp3(const KernelParams&, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 2 || u.out_types.size() != 3) return Refuse(u, "expected (a, jpvt) -> (a, jpvt, tau)");
  const int r = w.rank(0);
  if (r < 2 || w.rank(1) != r - 1 || w.rank(w.Out(0)) != r || w.rank(w.Out(1)) != r - 1 || w.rank(w.Out(2)) != r - 1)
    return Refuse(u, "bad ranks");
  KILN_RETURN_IF_ERROR(FactorType(u, w, 0));
  const GType& t = w.type(0);
  const std::string T = t.name, R = RealOf(t);
  if (w.type(w.Out(0)).type != t.type || w.type(w.Out(2)).type != t.type) return Refuse(u, "results of another type");
  if (w.type(1).type != ElementType::kSI32 || w.type(w.Out(1)).type != ElementType::kSI32)
    return Refuse(u, "pivots that are not si32");
  // The column norms live in private arrays.
  KILN_RETURN_IF_ERROR(FitsPrivateArrays(u, r, "matrices of more than 1024 columns"));
  w.features |= t.features | hal::kShaderFloat64 | hal::kShaderInt64;  // norms accumulate in f64
  const std::string m = "(" + w.Dim(0, r - 2) + ")", n = "(" + w.Dim(0, r - 1) + ")";
  const size_t out = w.Out(0);
  std::string fns = T + " a_at(uint i) { return " + w.Load(0, "i") + "; }\n" + T + " x_at(uint i) { return " +
                    w.Load(out, "i") + "; }\nvoid put(uint i, " + T + " v) { " + w.Store(out, "i", "v") + " }\n";
  fns += "int jpvt_in(uint i) { return " + w.Load(1, "i") + "; }\n";
  fns += "int get_jpvt(uint i) { return " + w.Load(w.Out(1), "i") + "; }\n";
  fns += "void put_jpvt(uint i, int v) { " + w.Store(w.Out(1), "i", "v") + " }\n";
  fns += "void put_tau(uint i, " + T + " v) { " + w.Store(w.Out(2), "i", "v") + " }\n";
  fns += ScratchHelpers(R) + HouseholderFunctions(t, m, n);
  const bool dbl = R == "double";
  KILN_ASSIGN_OR_RETURN(GType real, GlslType(dbl ? ElementType::kF64 : ElementType::kF32));
  const double tol3z = dbl ? std::sqrt(std::numeric_limits<double>::epsilon() / 2)
                           : static_cast<double>(std::sqrt(std::numeric_limits<float>::epsilon() / 2));
  std::string body = Fill(Template("geqp3.glsl"), {{"FUNCTIONS", fns},
                                                  {"T", T},
                                                  {"R", R},
                                                  {"M", m},
                                                  {"N", n},
                                                  {"K", "min(" + m + ", " + n + ")"},
                                                  {"TOL3Z", FloatConst(real, tol3z)},
                                                  {"BATCHES", Batches(w, 0)}});
  ShaderSource src = w.Finish(body, 64);
  src.grid_args = {1};  // over the largest result: a batch of empty matrices has no work
  return src;
}

}  // namespace kiln::compiler::vulkan

// Verifier checks of the elementwise families: unary and binary arithmetic,
// logical and bitwise ops, compare, select, clamp, complex/real/imag,
// is_finite, reduce_precision, and the chlo elementwise ops. Arity, element
// type classes, same-type and quantized-ok are the op table's
// (kernels/common/scalar_ops.def); the rules written here are the ones that
// are more than a table fact.
#include <set>

#include "compiler/verify/verify_util.h"
#include "compiler/op_names.h"
#include "kernels/common/scalar_program.h"

namespace kiln::compiler::verify {
namespace {

// What an operand may be: the table's TypeClass bits, plus quantized.
constexpr unsigned kQuantT = 32;

unsigned AllowedFor(ScalarOp op) {
  return ScalarOpClasses(op) | (HasScalarOpFact(op, kQuantizedOk) ? kQuantT : 0);
}

bool ElementAllowed(const ir::Type& t, unsigned allowed) {
  if (t.is_quantized()) return (allowed & kQuantT) != 0;
  return (TypeClassOf(t.element) & allowed) != 0;
}

std::string AllowedStr(unsigned a) {
  std::vector<std::string> parts;
  if ((a & kIntClass) == kIntClass) parts.push_back("integer");
  else if (a & kSignedClass) parts.push_back("signed integer");
  else if (a & kUnsignedClass) parts.push_back("unsigned integer");
  if (a & kBoolClass) parts.push_back("boolean");
  if (a & kFloatClass) parts.push_back("floating-point");
  if (a & kComplexClass) parts.push_back("complex");
  if (a & kQuantT) parts.push_back("quantized");
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? (i + 1 == parts.size() ? " or " : ", ") : "") + parts[i];
  return s;
}

std::string Arity(const ir::Operation& op, size_t operands, size_t results = 1) {
  if (op.operands.size() != operands || op.results.size() != results)
    return Msg(op, "expects " + Num(operands) + " operand(s) and " + Num(results) + " result(s), got " +
                       Num(op.operands.size()) + " and " + Num(op.results.size()));
  if (!AllTensors(op)) return Msg(op, "operands and results must be tensors");
  return "";
}

std::string CheckKind(const ir::Operation& op, const ir::Type& t, unsigned allowed, std::string_view what) {
  if (ElementAllowed(t, allowed)) return "";
  return Msg(op, std::string(what) + " type " + TypeStr(t) + " must be a tensor of " + AllowedStr(allowed) +
                     " elements");
}

// Ops with one type for operands and result (the table's kSameType). Where
// the op accepts quantized tensors the baseline type must agree (quantization
// parameters may differ), elsewhere the exact type.
std::string SameType(const ir::Operation& op, const Context&) {
  const ScalarOp sop = ScalarOpFromName(op.name);
  KILN_VERIFY_TRY(Arity(op, static_cast<size_t>(ScalarOpArity(sop))));
  const bool baseline = HasScalarOpFact(sop, kQuantizedOk);
  const ir::Type& rt = op.result()->type;
  const char* c = "C1";
  bool any_quant = rt.is_quantized();
  for (auto* v : op.operands) any_quant |= v->type.is_quantized();
  if (sop == ScalarOp::kAdd && any_quant) {
    for (auto* v : op.operands)
      if (!v->type.is_quantized())
        return Msg(op, "operand type " + TypeStr(v->type) + " must be quantized when the result type " +
                           TypeStr(rt) + " is", "C2");
    if (!rt.is_quantized()) return Msg(op, "result type " + TypeStr(rt) + " must be quantized", "C2");
    for (auto* v : op.operands) {
      if (v->type.element != rt.element)
        return Msg(op, "operand " + TypeStr(v->type) + " and result " + TypeStr(rt) +
                           " must have the same storage type", "C3");
      if (v->type.quant->expressed != rt.quant->expressed)
        return Msg(op, "operand " + TypeStr(v->type) + " and result " + TypeStr(rt) +
                           " must have the same expressed type", "C4");
      if (!ShapesCompatible(v->type, rt))
        return Msg(op, "operand type " + TypeStr(v->type) + " and result type " + TypeStr(rt) +
                           " must have the same shape", "C1");
    }
    return "";
  }
  for (auto* v : op.operands) {
    const ir::Type& t = v->type;
    if (!ShapesCompatible(t, rt))
      return Msg(op, "operand type " + TypeStr(t) + " and result type " + TypeStr(rt) + " must have the same shape",
                 c);
    bool same = baseline ? SameBaselineElement(t, rt) : SameElement(t, rt);
    if (!same)
      return Msg(op, "operand type " + TypeStr(t) + " and result type " + TypeStr(rt) +
                         " must have the same element type", c);
  }
  return CheckKind(op, rt, AllowedFor(sop), "result");
}

std::string Abs(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(Arity(op, 1));
  const ir::Type& t = op.operands[0]->type;
  const ir::Type& rt = op.result()->type;
  if (!ShapesCompatible(t, rt))
    return Msg(op, "operand type " + TypeStr(t) + " and result type " + TypeStr(rt) + " must have the same shape",
               "C1");
  KILN_VERIFY_TRY(CheckKind(op, t, AllowedFor(ScalarOp::kAbs), "operand"));
  if (IsComplex(t.element) && !t.is_quantized()) {
    if (rt.element != ComplexPartType(t.element) || rt.is_quantized())
      return Msg(op, "result element type of " + TypeStr(rt) + " must be " +
                         std::string(Name(ComplexPartType(t.element))) + " for operand " + TypeStr(t), "C2");
  } else if (!SameBaselineElement(t, rt)) {
    return Msg(op, "operand type " + TypeStr(t) + " and result type " + TypeStr(rt) +
                       " must have the same element type", "C2");
  }
  return "";
}

std::string ReducePrecision(const ir::Operation& op, const Context& ctx) {
  KILN_VERIFY_TRY(SameType(op, ctx));
  if (auto e = Int(op, "exponent_bits"); e && *e < 1)
    return Msg(op, "exponent_bits = " + Num(*e) + " must be at least 1", "C2");
  if (auto m = Int(op, "mantissa_bits"); m && *m < 0)
    return Msg(op, "mantissa_bits = " + Num(*m) + " must be non-negative", "C3");
  return "";
}

std::string Compare(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(Arity(op, 2));
  const ir::Type& l = op.operands[0]->type;
  const ir::Type& r = op.operands[1]->type;
  const ir::Type& rt = op.result()->type;
  if (!SameBaselineElement(l, r))
    return Msg(op, "operand types " + TypeStr(l) + " and " + TypeStr(r) + " must have the same element type", "C1");
  if (!ShapesCompatible(l, r) || !ShapesCompatible(l, rt))
    return Msg(op, "operand types " + TypeStr(l) + ", " + TypeStr(r) + " and result type " + TypeStr(rt) +
                       " must have the same shape", "C2");
  if (rt.element != ElementType::kI1 || rt.is_quantized())
    return Msg(op, "result type " + TypeStr(rt) + " must be a tensor of i1");
  std::string dir = EnumStr(op, "comparison_direction");
  static const std::set<std::string_view> kDirs = {"EQ", "NE", "GE", "GT", "LE", "LT"};
  if (op.GetAttr("comparison_direction") && !kDirs.count(dir))
    return Msg(op, "comparison_direction '" + dir + "' must be one of EQ, NE, GE, GT, LE, LT");
  std::string ct = EnumStr(op, "compare_type");
  if (!ct.empty() && ct != "NOTYPE" && !l.is_quantized()) {
    ElementType e = l.element;
    bool ok = (ct == "SIGNED" && IsSignedInt(e)) || (ct == "UNSIGNED" && (IsUnsignedInt(e) || IsBool(e))) ||
              (ct == "FLOAT" && (IsFloat(e) || IsComplex(e))) || (ct == "TOTALORDER" && IsFloat(e));
    if (!ok) return Msg(op, "compare_type " + ct + " does not fit operand type " + TypeStr(l), "C3");
  }
  return "";
}

std::string Select(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(Arity(op, 3));
  const ir::Type& p = op.operands[0]->type;
  const ir::Type& t = op.operands[1]->type;
  const ir::Type& f = op.operands[2]->type;
  const ir::Type& rt = op.result()->type;
  if (p.element != ElementType::kI1) return Msg(op, "pred type " + TypeStr(p) + " must be a tensor of i1");
  if (p.rank() != 0 && !ShapesCompatible(p, t))
    return Msg(op, "pred type " + TypeStr(p) + " must be rank 0 or have the shape of on_true " + TypeStr(t), "C1");
  if (!BaselineCompatible(t, f) || !BaselineCompatible(t, rt))
    return Msg(op, "on_true " + TypeStr(t) + ", on_false " + TypeStr(f) + " and result " + TypeStr(rt) +
                       " must have the same type", "C2");
  return "";
}

std::string Clamp(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(Arity(op, 3));
  const ir::Type& mn = op.operands[0]->type;
  const ir::Type& x = op.operands[1]->type;
  const ir::Type& mx = op.operands[2]->type;
  const ir::Type& rt = op.result()->type;
  if (mn.rank() != 0 && !ShapesCompatible(mn, x))
    return Msg(op, "min type " + TypeStr(mn) + " must be rank 0 or have the shape of operand " + TypeStr(x), "C1");
  if (mx.rank() != 0 && !ShapesCompatible(mx, x))
    return Msg(op, "max type " + TypeStr(mx) + " must be rank 0 or have the shape of operand " + TypeStr(x), "C2");
  if (!SameBaselineElement(mn, x) || !SameBaselineElement(mx, x))
    return Msg(op, "min " + TypeStr(mn) + ", operand " + TypeStr(x) + " and max " + TypeStr(mx) +
                       " must have the same element type", "C3");
  if (!BaselineCompatible(x, rt))
    return Msg(op, "operand type " + TypeStr(x) + " and result type " + TypeStr(rt) + " must be the same", "C4");
  return "";
}

std::string Complex(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(Arity(op, 2));
  const ir::Type& l = op.operands[0]->type;
  const ir::Type& r = op.operands[1]->type;
  const ir::Type& rt = op.result()->type;
  if (!TypesCompatible(l, r)) return Msg(op, "lhs " + TypeStr(l) + " and rhs " + TypeStr(r) + " must have the same type", "C1");
  if (l.element != ElementType::kF32 && l.element != ElementType::kF64)
    return Msg(op, "lhs type " + TypeStr(l) + " must be a tensor of f32 or f64");
  if (!ShapesCompatible(rt, l))
    return Msg(op, "result type " + TypeStr(rt) + " must have the shape of lhs " + TypeStr(l), "C2");
  if (!IsComplex(rt.element) || ComplexPartType(rt.element) != l.element)
    return Msg(op, "result type " + TypeStr(rt) + " must be a tensor of complex<" + std::string(Name(l.element)) + ">",
               "C3");
  return "";
}

std::string RealImag(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(Arity(op, 1));
  const ir::Type& t = op.operands[0]->type;
  const ir::Type& rt = op.result()->type;
  KILN_VERIFY_TRY(CheckKind(op, t, AllowedFor(ScalarOpFromName(op.name)), "operand"));
  if (!ShapesCompatible(t, rt))
    return Msg(op, "operand type " + TypeStr(t) + " and result type " + TypeStr(rt) + " must have the same shape",
               "C1");
  ElementType want = IsComplex(t.element) ? ComplexPartType(t.element) : t.element;
  if (rt.element != want)
    return Msg(op, "result type " + TypeStr(rt) + " must have element type " + std::string(Name(want)), "C2");
  return "";
}

std::string IsFiniteOp(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(Arity(op, 1));
  const ir::Type& t = op.operands[0]->type;
  const ir::Type& rt = op.result()->type;
  KILN_VERIFY_TRY(CheckKind(op, t, AllowedFor(ScalarOp::kIsFinite), "operand"));
  if (!ShapesCompatible(t, rt))
    return Msg(op, "operand type " + TypeStr(t) + " and result type " + TypeStr(rt) + " must have the same shape",
               "C1");
  if (rt.element != ElementType::kI1) return Msg(op, "result type " + TypeStr(rt) + " must be a tensor of i1");
  return "";
}

// chlo elementwise ops: the result has the operands' shape (binary ops may
// broadcast, numpy-style) and element type (i1 for the is_inf family).
bool BroadcastCompatible(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                         const std::vector<int64_t>& r) {
  size_t n = std::max(a.size(), b.size());
  if (r.size() != n) return false;
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    int64_t dr = r[i];
    for (int64_t d : {da, db})
      if (d != 1 && !DimsCompatible(d, dr)) return false;
  }
  return true;
}

std::string Chlo(const ir::Operation& op, const Context&) {
  const ScalarOp sop = ScalarOpFromName(op.name);
  const size_t arity = static_cast<size_t>(ScalarOpArity(sop));
  KILN_VERIFY_TRY(Arity(op, arity));
  const ir::Type& rt = op.result()->type;
  const ir::Type& a = op.operands[0]->type;
  if (arity == 2) {
    const ir::Type& b = op.operands[1]->type;
    if (!SameBaselineElement(a, b))
      return Msg(op, "operand types " + TypeStr(a) + " and " + TypeStr(b) + " must have the same element type");
    if (!BroadcastCompatible(a.dims, b.dims, rt.dims))
      return Msg(op, "operand types " + TypeStr(a) + " and " + TypeStr(b) + " do not broadcast to result type " +
                         TypeStr(rt));
  } else if (!ShapesCompatible(a, rt)) {
    return Msg(op, "operand type " + TypeStr(a) + " and result type " + TypeStr(rt) + " must have the same shape");
  }
  if (HasScalarOpFact(sop, kPredicate)) {
    if (rt.element != ElementType::kI1) return Msg(op, "result type " + TypeStr(rt) + " must be a tensor of i1");
  } else if (!SameBaselineElement(a, rt)) {
    return Msg(op, "operand type " + TypeStr(a) + " and result type " + TypeStr(rt) +
                       " must have the same element type");
  }
  return CheckKind(op, a, AllowedFor(sop), "operand");
}

}  // namespace

void RegisterElementwise(Registry* r) {
  // Every chlo row of the op table, and every other same-type row, by the
  // generic rules; then the ops whose rules are their own.
  for (int c = 1; c <= kMaxScalarOpCode; ++c) {
    const ScalarOp sop = static_cast<ScalarOp>(c);
    const std::string_view name = ScalarOpName(sop);
    if (name.starts_with(compiler::op_names::kChloPrefix)) (*r)[std::string(name)] = &Chlo;
    else if (HasScalarOpFact(sop, kSameType)) (*r)[std::string(name)] = &SameType;
  }
  (*r)["stablehlo.reduce_precision"] = &ReducePrecision;
  (*r)["stablehlo.abs"] = &Abs;
  (*r)["stablehlo.compare"] = &Compare;
  (*r)["stablehlo.select"] = &Select;
  (*r)["stablehlo.clamp"] = &Clamp;
  (*r)["stablehlo.complex"] = &Complex;
  (*r)["stablehlo.real"] = &RealImag;
  (*r)["stablehlo.imag"] = &RealImag;
  (*r)["stablehlo.is_finite"] = &IsFiniteOp;
}

}  // namespace kiln::compiler::verify

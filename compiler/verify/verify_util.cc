// Shared helpers of the verifier's per-family checks.
#include <algorithm>
#include <set>

#include "compiler/verify/verify_util.h"
#include "compiler/op_names.h"

namespace kiln::compiler::verify {

std::string DimStr(int64_t d) { return d == kDyn ? std::string("?") : std::to_string(d); }

std::string IntsStr(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string ShapeStr(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + DimStr(v[i]);
  return s + "]";
}

std::string Msg(const ir::Operation& op, const std::string& msg, std::string_view c) {
  std::string s = op.name + ": " + msg;
  if (!c.empty()) s += " (" + std::string(c) + ")";
  return s;
}

bool ShapesCompatible(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!DimsCompatible(a[i], b[i])) return false;
  return true;
}

bool ShapesCompatible(const ir::Type& a, const ir::Type& b) { return ShapesCompatible(a.dims, b.dims); }

bool SameElement(const ir::Type& a, const ir::Type& b) {
  if (a.element != b.element) return false;
  if ((a.quant == nullptr) != (b.quant == nullptr)) return false;
  return a.quant == nullptr || *a.quant == *b.quant;
}

bool SameBaselineElement(const ir::Type& a, const ir::Type& b) {
  if (a.element != b.element) return false;
  if ((a.quant == nullptr) != (b.quant == nullptr)) return false;
  if (!a.quant) return true;
  return a.quant->expressed == b.quant->expressed && a.quant->storage_min == b.quant->storage_min &&
         a.quant->storage_max == b.quant->storage_max;
}

bool TypesCompatible(const ir::Type& a, const ir::Type& b) {
  if (a.kind != b.kind) return false;
  if (a.is_token()) return true;
  if (a.is_tuple()) {
    if (a.tuple_elements.size() != b.tuple_elements.size()) return false;
    for (size_t i = 0; i < a.tuple_elements.size(); ++i)
      if (!TypesCompatible(a.tuple_elements[i], b.tuple_elements[i])) return false;
    return true;
  }
  return SameElement(a, b) && ShapesCompatible(a, b);
}

bool BaselineCompatible(const ir::Type& a, const ir::Type& b) {
  if (a.kind != b.kind) return false;
  if (!a.is_tensor()) return TypesCompatible(a, b);
  return SameBaselineElement(a, b) && ShapesCompatible(a, b);
}

bool IsSignedInt(ElementType e) { return KindOf(e) == ElementKind::kSigned; }
bool IsUnsignedInt(ElementType e) { return KindOf(e) == ElementKind::kUnsigned; }

ElementType ExpressedOrElement(const ir::Type& t) {
  return t.quant && t.quant->expressed != ElementType::kInvalid ? t.quant->expressed : t.element;
}

bool IsPromotable(const ir::Type& from, const ir::Type& to) {
  if (from.is_quantized() || to.is_quantized()) {
    // Quantized reductions may compute in the quantized or the expressed type.
    return ExpressedOrElement(from) == ExpressedOrElement(to) || from.element == to.element ||
           IsFloat(ExpressedOrElement(to));
  }
  if (from.element == to.element) return true;
  ElementKind a = KindOf(from.element), b = KindOf(to.element);
  if (a != b) return false;
  if (a == ElementKind::kBool) return true;
  return BitWidth(to.element) >= BitWidth(from.element);
}

std::string CheckResultShape(const ir::Operation& op, const ir::Type& result, const std::vector<int64_t>& inferred,
                             std::string_view c, std::string_view what) {
  if (ShapesCompatible(result.dims, inferred)) return "";
  return Msg(op, std::string(what) + " type " + TypeStr(result) + " does not match the inferred shape " +
                     ShapeStr(inferred),
             c);
}

std::optional<std::vector<int64_t>> Ints(const ir::Operation& op, std::string_view name) {
  const ir::Attribute* a = op.GetAttr(name);
  if (!a) return std::nullopt;
  if (auto v = a->AsInts()) return v;
  if (a->kind == ir::Attribute::Kind::kArray) {  // nested: flatten
    std::vector<int64_t> out;
    for (const auto& e : a->elements) {
      auto v = e.AsInts();
      if (!v) return std::nullopt;
      out.insert(out.end(), v->begin(), v->end());
    }
    return out;
  }
  return std::nullopt;
}

std::optional<int64_t> Int(const ir::Operation& op, std::string_view name) {
  const ir::Attribute* a = op.GetAttr(name);
  if (!a) return std::nullopt;
  if (a->kind == ir::Attribute::Kind::kInt) return a->i;
  if (a->kind == ir::Attribute::Kind::kBool) return a->b ? 1 : 0;
  auto v = a->AsInts();
  if (v && v->size() == 1) return (*v)[0];
  return std::nullopt;
}

std::optional<bool> Bool(const ir::Operation& op, std::string_view name) {
  const ir::Attribute* a = op.GetAttr(name);
  if (!a) return std::nullopt;
  if (a->kind == ir::Attribute::Kind::kBool) return a->b;
  if (a->kind == ir::Attribute::Kind::kUnit) return true;
  if (a->kind == ir::Attribute::Kind::kInt) return a->i != 0;
  return std::nullopt;
}

std::string EnumStr(const ir::Operation& op, std::string_view name) {
  const ir::Attribute* a = op.GetAttr(name);
  if (!a) return "";
  if (a->kind == ir::Attribute::Kind::kEnum || a->kind == ir::Attribute::Kind::kString) return a->str;
  return "";
}

std::optional<Matrix> Matrix2D(const ir::Operation& op, std::string_view name) {
  const ir::Attribute* a = op.GetAttr(name);
  if (!a) return std::nullopt;
  Matrix m;
  if (a->kind == ir::Attribute::Kind::kDense) {
    auto v = a->AsInts();
    if (!v || a->type.rank() != 2) return std::nullopt;
    m.rows = a->type.dims[0];
    m.cols = a->type.dims[1];
    m.v = *v;
    if (static_cast<int64_t>(m.v.size()) != m.rows * m.cols) return std::nullopt;
    return m;
  }
  if (a->kind == ir::Attribute::Kind::kArray) {
    m.rows = static_cast<int64_t>(a->elements.size());
    for (const auto& e : a->elements) {
      auto v = e.AsInts();
      if (!v) return std::nullopt;
      if (&e == &a->elements[0]) m.cols = static_cast<int64_t>(v->size());
      if (static_cast<int64_t>(v->size()) != m.cols) return std::nullopt;
      m.v.insert(m.v.end(), v->begin(), v->end());
    }
    return m;
  }
  return std::nullopt;
}

std::string CheckRange(const ir::Operation& op, const std::vector<int64_t>& dims, int64_t bound,
                       std::string_view what, std::string_view c) {
  for (int64_t d : dims)
    if (d < 0 || d >= bound)
      return Msg(op, std::string(what) + " " + IntsStr(dims) + " has " + Num(d) + ", out of range [0, " +
                         Num(bound) + ")",
                 c);
  return "";
}

std::string CheckUnique(const ir::Operation& op, const std::vector<int64_t>& dims, std::string_view what,
                        std::string_view c) {
  std::set<int64_t> seen;
  for (int64_t d : dims)
    if (!seen.insert(d).second)
      return Msg(op, std::string(what) + " " + IntsStr(dims) + " repeats " + Num(d), c);
  return "";
}

std::string CheckSorted(const ir::Operation& op, const std::vector<int64_t>& dims, std::string_view what,
                        std::string_view c) {
  if (!std::is_sorted(dims.begin(), dims.end()))
    return Msg(op, std::string(what) + " " + IntsStr(dims) + " is not sorted", c);
  return "";
}

std::string CheckSize(const ir::Operation& op, const std::vector<int64_t>& v, int64_t n, std::string_view what,
                      std::string_view c, std::string_view n_what) {
  if (static_cast<int64_t>(v.size()) != n)
    return Msg(op, std::string(what) + " " + IntsStr(v) + " has " + Num(static_cast<int64_t>(v.size())) +
                       " elements, expected " + Num(n) + " (" + std::string(n_what) + ")",
               c);
  return "";
}

RegionSig Signature(const ir::Region& r) {
  RegionSig s;
  if (r.blocks.empty()) return s;
  const ir::Block& b = *r.blocks[0];
  for (const auto& a : b.args) s.inputs.push_back(&a->type);
  if (b.ops.empty()) return s;
  const ir::Operation& t = *b.ops.back();
  if (!op_names::IsReturn(t.name)) return s;
  for (const auto* v : t.operands) s.outputs.push_back(&v->type);
  s.ok = true;
  return s;
}

std::string TypesStr(const std::vector<const ir::Type*>& ts) {
  std::string s = "(";
  for (size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + ts[i]->ToString();
  return s + ")";
}

}  // namespace kiln::compiler::verify

namespace kiln::compiler::verify {

std::string CheckReducerBody(const ir::Operation& op, const ir::Region& region, std::string_view region_name,
                             const std::vector<const ir::Type*>& inputs, std::string_view c,
                             std::vector<ir::Type>* body_types) {
  RegionSig s = Signature(region);
  std::string rn(region_name);
  if (!s.ok) return Msg(op, rn + " must be one block ending in stablehlo.return", c);
  size_t n = inputs.size();
  if (s.inputs.size() != 2 * n || s.outputs.size() != n)
    return Msg(op, rn + " has type " + TypesStr(s.inputs) + " -> " + TypesStr(s.outputs) + ", expected " +
                       Num(2 * n) + " arguments and " + Num(n) + " results",
               c);
  for (size_t i = 0; i < n; ++i) {
    const ir::Type& a = *s.inputs[i];
    const ir::Type& b = *s.inputs[n + i];
    const ir::Type& r = *s.outputs[i];
    if (!a.is_tensor() || a.rank() != 0 || !TypesCompatible(a, b) || !TypesCompatible(a, r))
      return Msg(op, rn + " has type " + TypesStr(s.inputs) + " -> " + TypesStr(s.outputs) + "; arguments " +
                         Num(i) + " and " + Num(n + i) + " and result " + Num(i) +
                         " must be the same rank-0 tensor type",
                 c);
    if (inputs[i]->is_tensor() && !IsPromotable(*inputs[i], a))
      return Msg(op, "element type of " + TypeStr(*inputs[i]) + " is not promotable to " + rn + " argument type " +
                         TypeStr(a),
                 c);
    if (body_types) body_types->push_back(a);
  }
  return "";
}

std::string Unary(const ir::Operation& op) {
  if (op.operands.size() != 1 || op.results.size() != 1 || !AllTensors(op))
    return Msg(op, "expects one tensor operand and one tensor result");
  return "";
}

}  // namespace kiln::compiler::verify

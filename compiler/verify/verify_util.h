// Shared helpers of the verifier's per-family checks (verify_*.cc).
//
// Each family registers, per op name, a check that returns an empty string
// when the op is valid and otherwise the message (op name first, the spec's
// constraint number last); the driver (verifier.cc) adds the location.
// Dynamic dimensions (ir::Type::kDynamic) are compatible with any size.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir.h"

namespace kiln::compiler::verify {

struct Context {
  const ir::Module* module = nullptr;
};

using Check = std::string (*)(const ir::Operation& op, const Context& ctx);
using Registry = std::map<std::string, Check, std::less<>>;

void RegisterElementwise(Registry* r);
void RegisterDataMovement(Registry* r);
void RegisterIndexing(Registry* r);
void RegisterContraction(Registry* r);
void RegisterReduction(Registry* r);
void RegisterNumeric(Registry* r);
void RegisterLinalg(Registry* r);
void RegisterCollectives(Registry* r);
void RegisterStructural(Registry* r);

constexpr int64_t kDyn = ir::Type::kDynamic;

// --- spelling ---------------------------------------------------------------
std::string DimStr(int64_t d);                         // "?" for dynamic
std::string IntsStr(const std::vector<int64_t>& v);    // "[0, 2]"
std::string ShapeStr(const std::vector<int64_t>& v);   // "[2, ?]"
inline std::string TypeStr(const ir::Type& t) { return t.ToString(); }
inline std::string Num(int64_t v) { return std::to_string(v); }
// "<op>: <msg> (<c>)"
std::string Msg(const ir::Operation& op, const std::string& msg, std::string_view c = {});
// "" if op has one tensor operand and one tensor result, else the error.
std::string Unary(const ir::Operation& op);

// --- dimensions and types ---------------------------------------------------
inline bool DimsCompatible(int64_t a, int64_t b) { return a == b || a == kDyn || b == kDyn; }
bool ShapesCompatible(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
bool ShapesCompatible(const ir::Type& a, const ir::Type& b);
// Element types equal, including quantization parameters.
bool SameElement(const ir::Type& a, const ir::Type& b);
// Element types equal up to quantization scales/zero points/axis (the spec's
// baseline_element_type): storage and expressed types and quantized-ness.
bool SameBaselineElement(const ir::Type& a, const ir::Type& b);
// Compatible shapes and equal element types (kind, tuples, tokens too).
bool TypesCompatible(const ir::Type& a, const ir::Type& b);
// Compatible shapes and equal baseline element types.
bool BaselineCompatible(const ir::Type& a, const ir::Type& b);
// The spec's is_promotable(from, to): same kind, `to` at least as wide.
bool IsPromotable(const ir::Type& from, const ir::Type& to);
// The element type a quantized type expresses, else the element type.
ElementType ExpressedOrElement(const ir::Type& t);
bool IsSignedInt(ElementType e);
bool IsUnsignedInt(ElementType e);
inline bool IsTensor(const ir::Value* v) { return v && v->type.is_tensor(); }
inline bool AllTensors(const ir::Operation& op) {
  for (auto* v : op.operands)
    if (!IsTensor(v)) return false;
  for (auto& r : op.results)
    if (!r->type.is_tensor()) return false;
  return true;
}
// Tensor operands (at least one) and one tensor result; "" or the message.
inline std::string OneToOne(const ir::Operation& op) {
  if (op.operands.empty() || op.results.size() != 1 || !AllTensors(op))
    return Msg(op, "expects tensor operands and one tensor result");
  return "";
}
// Shape-checks the result against an inferred shape (dims may be dynamic).
std::string CheckResultShape(const ir::Operation& op, const ir::Type& result, const std::vector<int64_t>& inferred,
                             std::string_view c, std::string_view what = "result");

// --- attributes -------------------------------------------------------------
std::optional<std::vector<int64_t>> Ints(const ir::Operation& op, std::string_view name);
std::optional<int64_t> Int(const ir::Operation& op, std::string_view name);
std::optional<bool> Bool(const ir::Operation& op, std::string_view name);
std::string EnumStr(const ir::Operation& op, std::string_view name);  // "" if absent
// A 2-D integer attribute (dense<..> : tensor<AxBxi64> or [[..], [..]]):
// rows x cols with values flattened row-major. nullopt if not 2-D.
struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<int64_t> v;
  int64_t at(int64_t r, int64_t c) const { return v[r * cols + c]; }
};
std::optional<Matrix> Matrix2D(const ir::Operation& op, std::string_view name);

// Checks each of `dims` is in [0, bound): "<what> [..] ... out of range [0, bound)".
// Returns an empty string when fine.
std::string CheckRange(const ir::Operation& op, const std::vector<int64_t>& dims, int64_t bound,
                       std::string_view what, std::string_view c);
std::string CheckUnique(const ir::Operation& op, const std::vector<int64_t>& dims, std::string_view what,
                        std::string_view c);
std::string CheckSorted(const ir::Operation& op, const std::vector<int64_t>& dims, std::string_view what,
                        std::string_view c);
std::string CheckSize(const ir::Operation& op, const std::vector<int64_t>& v, int64_t n, std::string_view what,
                      std::string_view c, std::string_view n_what);

// --- regions ----------------------------------------------------------------
// The block arguments' and terminator operands' types of a one-block region.
struct RegionSig {
  std::vector<const ir::Type*> inputs, outputs;
  bool ok = false;  // false: no block or no terminator
};
RegionSig Signature(const ir::Region& r);
std::string TypesStr(const std::vector<const ir::Type*>& ts);
// A reducer region (reduce, reduce_window, scatter, all_reduce, ...): type
// (tensor<E0>, ..., tensor<EN-1>, tensor<E0>, ..., tensor<EN-1>) ->
// (tensor<E0>, ..., tensor<EN-1>) with is_promotable(inputs[i], Ei). On
// success fills `body_types` with the Ei (as rank-0 types).
std::string CheckReducerBody(const ir::Operation& op, const ir::Region& region, std::string_view region_name,
                             const std::vector<const ir::Type*>& inputs, std::string_view c,
                             std::vector<ir::Type>* body_types);

#define KILN_VERIFY_TRY(expr)              \
  do {                                     \
    std::string kiln_verify_e_ = (expr);   \
    if (!kiln_verify_e_.empty()) return kiln_verify_e_; \
  } while (0)

}  // namespace kiln::compiler::verify

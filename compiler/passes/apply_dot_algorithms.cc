// dot_general's `algorithm` (spec: "lhs_precision_type and
// rhs_precision_type, the precisions that the LHS and RHS of the operation
// are rounded to ... accumulation_type, the precision used for
// accumulation"), as JAX emits it for lax.DotAlgorithmPreset: each float
// operand is rounded to its precision type when that is narrower than its
// own (a convert there and back; tf32, which is no element type, by
// reduce_precision to 8 exponent and 10 mantissa bits), and a float
// accumulation type wider than the result's makes the product run in that
// type (converts around it). Operands split into several components
// (component counts above 1: XLA's BF16_BF16_F32_X3 and the like, which
// approximate f32 with several bf16 products) keep their own precision,
// which those presets approach; integer, complex and quantized operands
// and an accumulation type no wider than the result's are left as they
// are. The attribute is dropped once applied.
#include <optional>
#include <string>
#include <vector>

#include "compiler/op_names.h"
#include "compiler/passes/legalize.h"
#include "compiler/passes/rewrite_util.h"
#include "kernels/scalar/float_format.h"

namespace kiln::compiler {
namespace {

// The exponent and mantissa bits of float type `t`.
std::pair<int, int> Bits(ElementType t) {
  ref::FloatFormat f;
  if (ref::FormatOf(t, &f)) return {f.ebits, f.mbits};
  return {11, 52};  // f64
}

// A precision type of the algorithm: an element type, or tf32.
struct Precision {
  std::optional<ElementType> type;  // none: tf32
  int exponent_bits = 0, mantissa_bits = 0;
};

std::optional<Precision> PrecisionOf(const ir::Attribute* a) {
  if (a == nullptr) return std::nullopt;
  // By name (`bf16` in the pretty form) or as a type attribute.
  const std::string name = a->kind == ir::Attribute::Kind::kType ? std::string(Name(a->type.element)) : a->str;
  if (name == "tf32") return Precision{std::nullopt, 8, 10};
  std::optional<ElementType> t = ElementTypeFromName(name);
  if (!t || !IsFloat(*t)) return std::nullopt;
  const auto [e, m] = Bits(*t);
  return Precision{t, e, m};
}

bool IsPlainFloat(const ir::Type& t) { return t.quant == nullptr && IsFloat(t.element); }

// Whether rounding a value of `t` to `p` can change it.
bool Narrower(const Precision& p, ElementType t) {
  const auto [e, m] = Bits(t);
  return p.mantissa_bits < m || p.exponent_bits < e;
}

ir::Value* Convert(Ops* ops, const ir::Operation& at, ir::Block* block, ir::Value* v, ElementType to) {
  ir::Type t = v->type;
  t.element = to;
  return NewOp(ops, at, block, ScalarOpName(ScalarOp::kConvert), {v}, t)->result();
}

// `v` rounded to `p` (its type unchanged).
ir::Value* Round(Ops* ops, const ir::Operation& at, ir::Block* block, ir::Value* v, const Precision& p) {
  const ElementType own = v->type.element;
  if (p.type) return Convert(ops, at, block, Convert(ops, at, block, v, *p.type), own);
  ir::Operation* r = NewOp(ops, at, block, ScalarOpName(ScalarOp::kReducePrecision), {v}, v->type);
  r->attrs.emplace_back("exponent_bits", ir::IntAttr(p.exponent_bits));
  r->attrs.emplace_back("mantissa_bits", ir::IntAttr(p.mantissa_bits));
  return r->result();
}

int64_t IntField(const ir::Attribute& a, std::string_view name, int64_t otherwise) {
  const ir::Attribute* f = a.Field(name);
  return f != nullptr && f->kind == ir::Attribute::Kind::kInt ? f->i : otherwise;
}

// Rewrites block->ops[at] (a dot_general with an algorithm); returns how
// many ops stand where it stood.
size_t Apply(ir::Block* block, size_t at) {
  ir::Operation& op = *block->ops[at];
  const ir::Attribute algorithm = *op.GetAttr("algorithm");
  std::erase_if(op.attrs, [](const auto& a) { return a.first == "algorithm"; });
  if (algorithm.kind != ir::Attribute::Kind::kStruct || op.operands.size() != 2 || op.results.size() != 1) return 1;
  Ops before;
  const char* precision_fields[2] = {"lhs_precision_type", "rhs_precision_type"};
  const char* component_fields[2] = {"lhs_component_count", "rhs_component_count"};
  for (int k = 0; k < 2; ++k) {
    ir::Value* v = op.operands[k];
    const std::optional<Precision> p = PrecisionOf(algorithm.Field(precision_fields[k]));
    if (!p || !IsPlainFloat(v->type) || IntField(algorithm, component_fields[k], 1) != 1) continue;
    if (Narrower(*p, v->type.element)) op.operands[k] = Round(&before, op, block, v, *p);
  }
  ir::Value* result = op.results[0].get();
  const std::optional<Precision> acc = PrecisionOf(algorithm.Field("accumulation_type"));
  const bool widen = acc && acc->type && IsPlainFloat(result->type) && IsPlainFloat(op.operands[0]->type) &&
                     IsPlainFloat(op.operands[1]->type) &&
                     StorageBytes(*acc->type) > StorageBytes(result->type.element);
  Ops after;
  if (widen) {
    for (int k = 0; k < 2; ++k)
      if (op.operands[k]->type.element != *acc->type)
        op.operands[k] = Convert(&before, op, block, op.operands[k], *acc->type);
    // The product now yields the accumulation type; a convert after it takes
    // over the old result.
    ir::Type wide = result->type;
    wide.element = *acc->type;
    std::unique_ptr<ir::Value> old = ReplaceResult(&op, 0, wide);
    const ir::Type narrow = old->type;
    TakeOver(NewOp(&after, op, block, ScalarOpName(ScalarOp::kConvert), {op.results[0].get()}, narrow), std::move(old));
  }
  return SpliceAround(block, at, std::move(before), std::move(after));
}

}  // namespace

void ApplyDotAlgorithms(ir::Module* module) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks)
      RewriteEachOp(b.get(), [](ir::Block* block, size_t i) -> size_t {
        const ir::Operation& op = *block->ops[i];
        const bool with = op.name == KernelName(KernelId::kDotGeneral) && op.GetAttr("algorithm") != nullptr;
        return with ? Apply(block, i) : 1;
      });
}

}  // namespace kiln::compiler

// MHLO's ops that StableHLO has no op for, as custom calls
// (compiler/passes/legalize.h). CHLO's legalization to StableHLO, which
// jax.export and other exporters run before they serialize a portable
// artifact, leaves chlo.top_k as `stablehlo.custom_call @mhlo.topk(%x)
// {mhlo.attributes = {k, largest}, mhlo.version = 1}`; MHLO's round trip
// through StableHLO does the same for mhlo.erf; and JAX's top_k with a
// symbolic k (shape polymorphism) is `@stablehlo.dynamic_top_k(%x, %k)`.
// Each becomes the CHLO op Kiln runs (chlo.top_k, chlo.erf), keeping the
// op's results and location. A form the CHLO op cannot express (smallest
// k, a k only known at run time) is refused at the op.
#include <optional>
#include <string>
#include <vector>

#include "compiler/op_names.h"
#include "compiler/passes/legalize.h"
#include "compiler/passes/rewrite_util.h"
#include "kernels/kernel_table.h"
#include "kernels/scalar/scalar.h"

namespace kiln::compiler {
namespace {

// The value of a rank-0 integer stablehlo.constant, or nothing.
std::optional<int64_t> ConstantInteger(const ir::Value* v) {
  if (!v->def || v->def->name != ScalarOpName(ScalarOp::kConstant)) return std::nullopt;
  const ir::Attribute* a = v->def->GetAttr("value");
  if (!a || a->kind != ir::Attribute::Kind::kDense || a->DenseElementCount() != 1) return std::nullopt;
  const ElementKind kind = KindOf(v->type.element);
  if (kind != ElementKind::kSigned && kind != ElementKind::kUnsigned) return std::nullopt;
  return ref::LoadScalar(v->type.element, a->DenseElement(0)).i;
}

// The op, renamed to `name`, with only `keep` of its attributes.
void Rename(ir::Operation* op, std::string_view name, std::vector<ir::NamedAttr> keep) {
  op->name = std::string(name);
  op->attrs = std::move(keep);
}

// top_k's operand and results: values [..., k] of the operand's type and
// indices [..., k] of si32, k at most the last dimension where it is known.
Status CheckTopK(const ir::Operation& op, const std::string& what, int64_t k, const ErrorFormatter& format) {
  const ir::Type& x = op.operands[0]->type;
  if (!x.is_tensor() || x.rank() < 1 || x.is_quantized())
    return InvalidArgument(format(op.loc, what + "the operand must be a tensor of rank >= 1, not " + x.ToString()));
  const int64_t last = x.dims.back();
  if (k < 0 || (last >= 0 && k > last))
    return InvalidArgument(format(op.loc, what + "k = " + std::to_string(k) + " must lie in [0, " +
                                              (last >= 0 ? std::to_string(last) : std::string("the last dimension")) +
                                              "]"));
  std::vector<int64_t> dims = x.dims;
  dims.back() = k;
  const ir::Type& values = op.results[0]->type;
  const ir::Type& indices = op.results[1]->type;
  auto matches = [&](const ir::Type& t, ElementType e) {
    if (!t.is_tensor() || t.element != e || t.rank() != x.rank()) return false;
    for (size_t i = 0; i < dims.size(); ++i)
      if (t.dims[i] != dims[i] && t.dims[i] >= 0 && dims[i] >= 0) return false;
    return true;
  };
  if (!matches(values, x.element) || !matches(indices, ElementType::kSI32))
    return InvalidArgument(format(op.loc, what + "the results must be the top k values (" + x.ToString() +
                                              " with its last dimension k) and their si32 indices, not " +
                                              values.ToString() + " and " + indices.ToString()));
  return Status::Ok();
}

// @mhlo.topk(%x) {mhlo.attributes = {k, largest}}: chlo.top_k(%x, k) when
// largest (what chlo.top_k legalizes to; JAX's lax.top_k).
Status RewriteMhloTopK(ir::Operation* op, const ErrorFormatter& format) {
  const std::string what = "stablehlo.custom_call @mhlo.topk (top_k): ";
  if (op->operands.size() != 1 || op->results.size() != 2)
    return InvalidArgument(format(op->loc, what + "expects one operand and two results (values, indices)"));
  const ir::Attribute* attrs = op->GetAttr("mhlo.attributes");
  const ir::Attribute* k = attrs && attrs->kind == ir::Attribute::Kind::kDict ? attrs->Field("k") : nullptr;
  if (!k || k->kind != ir::Attribute::Kind::kInt)
    return InvalidArgument(format(op->loc, what + "needs mhlo.attributes = {k = <integer>}"));
  const ir::Attribute* largest = attrs->Field("largest");
  if (largest && !(largest->kind == ir::Attribute::Kind::kBool && largest->b))
    return Unimplemented(format(op->loc, what + "largest = false (the k smallest) is not supported"));
  KILN_RETURN_IF_ERROR(CheckTopK(*op, what, k->i, format));
  Rename(op, KernelName(KernelId::kTopK), {{"k", Int(k->i)}});
  return Status::Ok();
}

// @stablehlo.dynamic_top_k(%x, %k): chlo.top_k(%x, k) for a constant k.
Status RewriteDynamicTopK(ir::Operation* op, const ErrorFormatter& format) {
  const std::string what = "stablehlo.custom_call @stablehlo.dynamic_top_k (top_k): ";
  if (op->operands.size() != 2 || op->results.size() != 2)
    return InvalidArgument(format(op->loc, what + "expects (operand, k) and two results (values, indices)"));
  const std::optional<int64_t> k = ConstantInteger(op->operands[1]);
  if (!k)
    return Unimplemented(format(op->loc, what + "k must be a constant (a k known only at run time is not supported)"));
  KILN_RETURN_IF_ERROR(CheckTopK(*op, what, *k, format));
  op->operands.resize(1);
  Rename(op, KernelName(KernelId::kTopK), {{"k", Int(*k)}});
  return Status::Ok();
}

// @mhlo.erf(%x): chlo.erf(%x).
Status RewriteMhloErf(ir::Operation* op, const ErrorFormatter& format) {
  if (op->operands.size() != 1 || op->results.size() != 1 || op->operands[0]->type != op->result()->type)
    return InvalidArgument(format(op->loc, "stablehlo.custom_call @mhlo.erf: expects one operand and one result of "
                                           "its type"));
  Rename(op, "chlo.erf", {});
  return Status::Ok();
}

Status LegalizeBlock(ir::Block* block, const ErrorFormatter& format) {
  for (auto& owned : block->ops) {
    ir::Operation* op = owned.get();
    for (auto& region : op->regions)
      for (auto& b : region->blocks) KILN_RETURN_IF_ERROR(LegalizeBlock(b.get(), format));
    if (op->name != op_names::kCustomCall) continue;
    const ir::Attribute* t = op->GetAttr("call_target_name");
    if (!t) continue;
    const std::string target = t->str;  // a copy: the rewrite replaces the attributes
    if (target == "mhlo.topk") KILN_RETURN_IF_ERROR(RewriteMhloTopK(op, format));
    else if (target == "stablehlo.dynamic_top_k") KILN_RETURN_IF_ERROR(RewriteDynamicTopK(op, format));
    else if (target == "mhlo.erf") KILN_RETURN_IF_ERROR(RewriteMhloErf(op, format));
  }
  return Status::Ok();
}

}  // namespace

Status LegalizeMhloCustomCalls(ir::Module* module, const ErrorFormatter& format_error) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) KILN_RETURN_IF_ERROR(LegalizeBlock(b.get(), format_error));
  return Status::Ok();
}

}  // namespace kiln::compiler

// MHLO's ops that StableHLO has no op for, as custom calls
// (compiler/passes/legalize.h). CHLO's legalization to StableHLO, which
// jax.export and other exporters run before they serialize a portable
// artifact, leaves chlo.top_k as `stablehlo.custom_call @mhlo.topk(%x)
// {mhlo.attributes = {k, largest}, mhlo.version = 1}`; MHLO's round trip
// through StableHLO does the same for mhlo.erf; and JAX's top_k with a
// symbolic k (shape polymorphism) is `@stablehlo.dynamic_top_k(%x, %k)`.
// Each becomes the CHLO op Kiln runs (chlo.top_k, chlo.erf), keeping the
// op's results and location. A form the CHLO op cannot express (smallest
// k, a k only known at run time) is refused at the op. Also XLA's
// @ApproxTopK, which JAX's approx_max_k / approx_min_k emit on every
// platform but the TPU with is_fallback set: XLA's CPU fallback sorts along
// the reduction dimension with the call's comparator and keeps the leading
// entries, so here it becomes that stablehlo.sort (its body a call of the
// comparator, which InlineCallsInBodies inlines: this pass runs before it)
// and slices.
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

// @ApproxTopK(%x, %iota, %init_value, %init_index) {called_computations =
// [@comparator], mhlo.backend_config = {reduction_dim, top_k,
// aggregate_to_topk, is_fallback, ...}} -> (values, indices): XLA's
// fallback (ApproxTopKFallback): the results' size n' along the reduction
// dimension (k, or with aggregate_to_topk = false the size XLA's
// ApproxTopKReductionOutputSize gives, which JAX put in the result types);
// n' = n returns the operands as they are, else a stable sort of (x, iota)
// by the comparator and the first n' entries.
Status RewriteApproxTopK(ir::Block* block, size_t at, const ErrorFormatter& format, size_t* n) {
  ir::Operation& op = *block->ops[at];
  const std::string what = "stablehlo.custom_call @ApproxTopK (approx_max_k / approx_min_k): ";
  if (op.operands.size() != 4 || op.results.size() != 2)
    return InvalidArgument(format(op.loc, what + "expects (operand, iota, init value, init index) and two results"));
  const ir::Attribute* config = op.GetAttr("mhlo.backend_config");
  const ir::Attribute* dim_attr =
      config && config->kind == ir::Attribute::Kind::kDict ? config->Field("reduction_dim") : nullptr;
  const ir::Attribute* called = op.GetAttr("called_computations");
  const ir::Attribute* comparator = nullptr;
  if (called && called->kind == ir::Attribute::Kind::kArray && called->elements.size() == 1)
    comparator = &called->elements[0];
  if (!dim_attr || dim_attr->kind != ir::Attribute::Kind::kInt || !comparator ||
      (comparator->kind != ir::Attribute::Kind::kSymbol && comparator->kind != ir::Attribute::Kind::kString))
    return InvalidArgument(format(op.loc, what + "needs mhlo.backend_config = {reduction_dim, ...} and "
                                                 "called_computations = [@comparator]"));
  const ir::Type& x = op.operands[0]->type;
  const ir::Type& iota = op.operands[1]->type;
  const int64_t dim = dim_attr->i;
  if (!x.is_tensor() || !x.HasStaticShape() || x.is_quantized() || dim < 0 || dim >= x.rank() ||
      !iota.is_tensor() || iota.dims != x.dims || iota.element != ElementType::kSI32)
    return InvalidArgument(format(op.loc, what + "the operand must be a tensor of static shape with reduction_dim "
                                                 "among its dimensions, the iota si32 of its shape"));
  const ir::Type& values = op.results[0]->type;
  const ir::Type& indices = op.results[1]->type;
  bool ok = values.is_tensor() && indices.is_tensor() && values.element == x.element &&
            indices.element == ElementType::kSI32 && values.dims == indices.dims && values.rank() == x.rank();
  for (int64_t d = 0; ok && d < x.rank(); ++d)
    ok = d == dim ? values.dims[d] >= 0 && values.dims[d] <= x.dims[d] : values.dims[d] == x.dims[d];
  if (!ok)
    return InvalidArgument(format(op.loc, what + "the results must be the operand's and the iota's types, at most "
                                                 "as long along reduction_dim"));
  const int64_t keep = values.dims[dim];
  Ops ops;
  if (keep == x.dims[dim]) {  // XLA returns the operands unsorted
    ir::Operation* v = NewOp(&ops, op, block, ScalarOpName(ScalarOp::kConvert), {op.operands[0]}, values);
    ir::Operation* i = NewOp(&ops, op, block, ScalarOpName(ScalarOp::kConvert), {op.operands[1]}, indices);
    *n = SpliceTakingOver(block, at, std::move(ops), {v, i});
    return Status::Ok();
  }
  ir::Operation* sort = NewOp(&ops, op, block, KernelName(KernelId::kSort), {op.operands[0], op.operands[1]}, x);
  auto second = std::make_unique<ir::Value>();
  second->type = iota;
  second->def = sort;
  second->index = 1;
  sort->results.push_back(std::move(second));
  sort->attrs.emplace_back("dimension", Int(dim));
  ir::Attribute stable;
  stable.kind = ir::Attribute::Kind::kBool;
  stable.b = true;
  sort->attrs.emplace_back("is_stable", std::move(stable));
  auto region = std::make_unique<ir::Region>();
  region->parent = sort;
  auto body = std::make_unique<ir::Block>();
  body->parent = region.get();
  for (int k = 0; k < 4; ++k) {
    auto a = std::make_unique<ir::Value>();
    a->type = ir::Type::Tensor(k < 2 ? x.element : ElementType::kSI32, {});
    a->index = k;
    a->owner_block = body.get();
    body->args.push_back(std::move(a));
  }
  Ops body_ops;
  ir::Operation* call = NewOp(&body_ops, op, body.get(), op_names::kFuncCall,
                              {body->args[0].get(), body->args[1].get(), body->args[2].get(), body->args[3].get()},
                              ir::Type::Tensor(ElementType::kI1, {}));
  ir::Attribute callee;
  callee.kind = ir::Attribute::Kind::kSymbol;
  callee.str = comparator->str;
  call->attrs.emplace_back("callee", std::move(callee));
  auto ret = std::make_unique<ir::Operation>();
  ret->name = std::string(op_names::kReturn);
  ret->loc = op.loc;
  ret->parent = body.get();
  ret->operands = {call->result()};
  body->ops = std::move(body_ops);
  body->ops.push_back(std::move(ret));
  region->blocks.push_back(std::move(body));
  sort->regions.push_back(std::move(region));
  std::vector<int64_t> start(static_cast<size_t>(x.rank()), 0), limit = x.dims, strides(start.size(), 1);
  limit[static_cast<size_t>(dim)] = keep;
  std::vector<ir::Operation*> takers;
  for (int r = 0; r < 2; ++r) {
    ir::Operation* s = NewOp(&ops, op, block, KernelName(KernelId::kSlice), {sort->results[r].get()},
                             r == 0 ? values : indices);
    s->attrs.emplace_back("start_indices", IntArray(start));
    s->attrs.emplace_back("limit_indices", IntArray(limit));
    s->attrs.emplace_back("strides", IntArray(strides));
    takers.push_back(s);
  }
  *n = SpliceTakingOver(block, at, std::move(ops), takers);
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
  for (size_t i = 0; i < block->ops.size();) {
    ir::Operation* op = block->ops[i].get();
    for (auto& region : op->regions)
      for (auto& b : region->blocks) KILN_RETURN_IF_ERROR(LegalizeBlock(b.get(), format));
    size_t n = 1;
    const ir::Attribute* t = op->name == op_names::kCustomCall ? op->GetAttr("call_target_name") : nullptr;
    const std::string target = t ? t->str : "";  // a copy: the rewrites replace the attributes
    if (target == "mhlo.topk") KILN_RETURN_IF_ERROR(RewriteMhloTopK(op, format));
    else if (target == "stablehlo.dynamic_top_k") KILN_RETURN_IF_ERROR(RewriteDynamicTopK(op, format));
    else if (target == "mhlo.erf") KILN_RETURN_IF_ERROR(RewriteMhloErf(op, format));
    else if (target == "ApproxTopK") KILN_RETURN_IF_ERROR(RewriteApproxTopK(block, i, format, &n));
    else if (target == "stablehlo.dynamic_approx_top_k")
      return Unimplemented(format(op->loc, "stablehlo.custom_call @stablehlo.dynamic_approx_top_k (approx_max_k / "
                                           "approx_min_k with a symbolic k) is not supported"));
    i += n;
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

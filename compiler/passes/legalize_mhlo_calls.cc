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
// and slices. And JAX's `@stablehlo.dynamic_reduce_window`, which a
// reduce_window (max_pool, avg_pool, ...) becomes when its result has a
// symbolic dimension (shape polymorphism): with constant window
// parameters it is stablehlo.reduce_window, whose run-time shape rule
// sizes the result. Likewise `@stablehlo.dynamic_rng_bit_generator` with a
// constant output shape is stablehlo.rng_bit_generator.
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
  Rename(op, KernelName(KernelId::kTopK), {{"k", ir::IntAttr(k->i)}});
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
  Rename(op, KernelName(KernelId::kTopK), {{"k", ir::IntAttr(*k)}});
  return Status::Ok();
}

// The values of a 1-D integer stablehlo.constant, or nothing.
std::optional<std::vector<int64_t>> ConstantIntegers(const ir::Value* v) {
  if (!v->def || v->def->name != ScalarOpName(ScalarOp::kConstant) || !v->type.is_tensor() || v->type.rank() != 1)
    return std::nullopt;
  const ir::Attribute* a = v->def->GetAttr("value");
  const ElementKind kind = KindOf(v->type.element);
  if (!a || a->kind != ir::Attribute::Kind::kDense || (kind != ElementKind::kSigned && kind != ElementKind::kUnsigned))
    return std::nullopt;
  std::vector<int64_t> ints;
  for (size_t e = 0; e < a->DenseElementCount(); ++e) ints.push_back(ref::LoadScalar(v->type.element, a->DenseElement(e)).i);
  return ints;
}

// @stablehlo.dynamic_rng_bit_generator(%state, %shape) {rng_algorithm}:
// JAX's rng_bit_generator (the rbg and unsafe_rbg PRNGs) when the output
// has a symbolic dimension. With a constant shape it is
// stablehlo.rng_bit_generator, its output typed by that shape.
Status RewriteDynamicRngBitGenerator(ir::Operation* op, const ErrorFormatter& format) {
  const std::string what = "stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator (rng_bit_generator): ";
  if (op->operands.size() != 2 || op->results.size() != 2)
    return InvalidArgument(format(op->loc, what + "expects (initial_state, output_shape) and two results (output_state, "
                                                  "output)"));
  const std::optional<std::vector<int64_t>> shape = ConstantIntegers(op->operands[1]);
  if (!shape)
    return Unimplemented(format(op->loc, what + "output_shape must be a constant (a shape known only at run time is "
                                                "not supported)"));
  ir::Type& out = op->results[1]->type;
  if (!out.is_tensor() || out.rank() != static_cast<int64_t>(shape->size()))
    return InvalidArgument(format(op->loc, what + "the output " + out.ToString() + " must have rank " +
                                              std::to_string(shape->size()) + ", output_shape's length"));
  for (size_t d = 0; d < shape->size(); ++d) {
    const int64_t n = (*shape)[d];
    if (n < 0 || (out.dims[d] >= 0 && out.dims[d] != n))
      return InvalidArgument(format(op->loc, what + "output_shape dimension " + std::to_string(d) + " is " +
                                                std::to_string(n) + ", the output " + out.ToString() + " disagrees"));
    out.dims[d] = n;
  }
  std::vector<ir::NamedAttr> keep;
  if (const ir::Attribute* alg = op->GetAttr("rng_algorithm")) keep.emplace_back("rng_algorithm", *alg);
  op->operands.resize(1);
  Rename(op, KernelName(KernelId::kRngBitGenerator), std::move(keep));
  return Status::Ok();
}

// The callee of `op`'s called_computations = [@f], or null.
const ir::Attribute* CalledComputation(const ir::Operation& op) {
  const ir::Attribute* called = op.GetAttr("called_computations");
  if (!called || called->kind != ir::Attribute::Kind::kArray || called->elements.size() != 1) return nullptr;
  const ir::Attribute* f = &called->elements[0];
  return f->kind == ir::Attribute::Kind::kSymbol || f->kind == ir::Attribute::Kind::kString ? f : nullptr;
}

// A body for `owner` (arguments of `args`' types) that calls @callee on
// its arguments and returns the call's results (of `results`' types);
// InlineCallsInBodies puts the callee's ops in the call's place.
void AddCallingBody(ir::Operation* owner, const ir::Operation& at, const std::vector<ir::Type>& args,
                    const std::vector<ir::Type>& results, const std::string& callee) {
  auto region = std::make_unique<ir::Region>();
  region->parent = owner;
  auto body = std::make_unique<ir::Block>();
  body->parent = region.get();
  std::vector<ir::Value*> operands;
  for (size_t k = 0; k < args.size(); ++k) {
    auto a = std::make_unique<ir::Value>();
    a->type = args[k];
    a->index = static_cast<int>(k);
    a->owner_block = body.get();
    operands.push_back(a.get());
    body->args.push_back(std::move(a));
  }
  Ops body_ops;
  ir::Operation* call = NewOp(&body_ops, at, body.get(), op_names::kFuncCall, operands, results.at(0));
  for (size_t r = 1; r < results.size(); ++r) {
    auto v = std::make_unique<ir::Value>();
    v->type = results[r];
    v->def = call;
    v->index = static_cast<int>(r);
    call->results.push_back(std::move(v));
  }
  ir::Attribute name;
  name.kind = ir::Attribute::Kind::kSymbol;
  name.str = callee;
  call->attrs.emplace_back("callee", std::move(name));
  auto ret = std::make_unique<ir::Operation>();
  ret->name = std::string(op_names::kReturn);
  ret->loc = at.loc;
  ret->parent = body.get();
  for (auto& r : call->results) ret->operands.push_back(r.get());
  body->ops = std::move(body_ops);
  body->ops.push_back(std::move(ret));
  region->blocks.push_back(std::move(body));
  owner->regions.push_back(std::move(region));
}

// @stablehlo.dynamic_reduce_window(inputs..., init_values...,
// window_dimensions, window_strides, base_dilations, window_dilations,
// padding) {called_computations = [@body]}: stablehlo.reduce_window with
// those (constant) parameters as its attributes and a body calling @body.
Status RewriteDynamicReduceWindow(ir::Operation* op, const ErrorFormatter& format) {
  const std::string what = "stablehlo.custom_call @stablehlo.dynamic_reduce_window (reduce_window): ";
  const size_t params = 5;
  if (op->operands.size() < params + 2 || (op->operands.size() - params) % 2 != 0 ||
      op->results.size() != (op->operands.size() - params) / 2)
    return InvalidArgument(format(op->loc, what + "expects (inputs..., init values..., window_dimensions, "
                                                  "window_strides, base_dilations, window_dilations, padding) and "
                                                  "a result per input"));
  const ir::Attribute* callee = CalledComputation(*op);
  if (!callee) return InvalidArgument(format(op->loc, what + "needs called_computations = [@body]"));
  const size_t n = op->results.size();
  static constexpr const char* kNames[] = {"window_dimensions", "window_strides", "base_dilations",
                                           "window_dilations", "padding"};
  std::vector<ir::NamedAttr> attrs;
  for (size_t k = 0; k < params; ++k) {
    const ir::Value* v = op->operands[2 * n + k];
    const ir::Attribute* value =
        v->def && v->def->name == ScalarOpName(ScalarOp::kConstant) ? v->def->GetAttr("value") : nullptr;
    const ElementKind kind = v->type.is_tensor() ? KindOf(v->type.element) : ElementKind::kFloat;
    if (!value || value->kind != ir::Attribute::Kind::kDense ||
        (kind != ElementKind::kSigned && kind != ElementKind::kUnsigned))
      return Unimplemented(format(op->loc, what + std::string(kNames[k]) + " must be a constant (window parameters "
                                                  "known only at run time are not supported)"));
    if (k + 1 < params) {
      std::vector<int64_t> ints;
      for (size_t e = 0; e < value->DenseElementCount(); ++e)
        ints.push_back(ref::LoadScalar(v->type.element, value->DenseElement(e)).i);
      attrs.emplace_back(kNames[k], ir::IntArrayAttr(std::move(ints)));
    } else {
      attrs.emplace_back(kNames[k], *value);  // [rank, 2], as reduce_window's padding
    }
  }
  std::vector<ir::Type> args, results;
  for (size_t i = 0; i < n; ++i) args.push_back(ir::Type::Tensor(op->operands[n + i]->type.element, {}));
  for (size_t i = 0; i < n; ++i) args.push_back(ir::Type::Tensor(op->operands[i]->type.element, {}));
  for (size_t i = 0; i < n; ++i) results.push_back(args[i]);
  const std::string body = callee->str;
  op->operands.resize(2 * n);
  Rename(op, "stablehlo.reduce_window", std::move(attrs));
  AddCallingBody(op, *op, args, results, body);
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
  const ir::Attribute* comparator = CalledComputation(op);
  if (!dim_attr || dim_attr->kind != ir::Attribute::Kind::kInt || !comparator)
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
  sort->attrs.emplace_back("dimension", ir::IntAttr(dim));
  sort->attrs.emplace_back("is_stable", ir::BoolAttr(true));
  const ir::Type value = ir::Type::Tensor(x.element, {}), index = ir::Type::Tensor(ElementType::kSI32, {});
  AddCallingBody(sort, op, {value, value, index, index}, {ir::Type::Tensor(ElementType::kI1, {})}, comparator->str);
  std::vector<int64_t> start(static_cast<size_t>(x.rank()), 0), limit = x.dims, strides(start.size(), 1);
  limit[static_cast<size_t>(dim)] = keep;
  std::vector<ir::Operation*> takers;
  for (int r = 0; r < 2; ++r) {
    ir::Operation* s = NewOp(&ops, op, block, KernelName(KernelId::kSlice), {sort->results[r].get()},
                             r == 0 ? values : indices);
    s->attrs.emplace_back("start_indices", ir::IntArrayAttr(start));
    s->attrs.emplace_back("limit_indices", ir::IntArrayAttr(limit));
    s->attrs.emplace_back("strides", ir::IntArrayAttr(strides));
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

Status LegalizeBlock(ir::Block* block, const ErrorFormatter& format, bool* changed) {
  for (size_t i = 0; i < block->ops.size();) {
    ir::Operation* op = block->ops[i].get();
    for (auto& region : op->regions)
      for (auto& b : region->blocks) KILN_RETURN_IF_ERROR(LegalizeBlock(b.get(), format, changed));
    size_t n = 1;
    const ir::Attribute* t = op->name == op_names::kCustomCall ? op->GetAttr("call_target_name") : nullptr;
    const std::string target = t ? t->str : "";  // a copy: the rewrites replace the attributes
    if (target == "mhlo.topk" || target == "stablehlo.dynamic_top_k" || target == "mhlo.erf" ||
        target == "ApproxTopK" || target == "stablehlo.dynamic_reduce_window" ||
        target == "stablehlo.dynamic_rng_bit_generator")
      *changed = true;
    if (target == "mhlo.topk") KILN_RETURN_IF_ERROR(RewriteMhloTopK(op, format));
    else if (target == "stablehlo.dynamic_top_k") KILN_RETURN_IF_ERROR(RewriteDynamicTopK(op, format));
    else if (target == "mhlo.erf") KILN_RETURN_IF_ERROR(RewriteMhloErf(op, format));
    else if (target == "ApproxTopK") KILN_RETURN_IF_ERROR(RewriteApproxTopK(block, i, format, &n));
    else if (target == "stablehlo.dynamic_reduce_window") KILN_RETURN_IF_ERROR(RewriteDynamicReduceWindow(op, format));
    else if (target == "stablehlo.dynamic_rng_bit_generator")
      KILN_RETURN_IF_ERROR(RewriteDynamicRngBitGenerator(op, format));
    else if (target == "stablehlo.dynamic_approx_top_k")
      return Unimplemented(format(op->loc, "stablehlo.custom_call @stablehlo.dynamic_approx_top_k (approx_max_k / "
                                           "approx_min_k with a symbolic k) is not supported"));
    i += n;
  }
  return Status::Ok();
}

}  // namespace

Status LegalizeMhloCustomCalls(ir::Module* module, const ErrorFormatter& format_error, bool* changed) {
  *changed = false;
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) KILN_RETURN_IF_ERROR(LegalizeBlock(b.get(), format_error, changed));
  return Status::Ok();
}

}  // namespace kiln::compiler

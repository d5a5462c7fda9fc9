// CHLO's constants (compiler/passes/legalize.h): chlo.constant is
// stablehlo.constant; chlo.constant_like(x) {value} is a splat of value in
// x's shape (static shapes), a rank-0 stablehlo.constant broadcast with
// broadcast_in_dim.
#include <string>
#include <vector>

#include "compiler/passes/legalize.h"
#include "compiler/passes/rewrite_util.h"

namespace kiln::compiler {
namespace {

Status RewriteConstantLike(ir::Block* block, size_t at, const ErrorFormatter& format, size_t* n) {
  const ir::Operation& op = *block->ops[at];
  if (op.operands.size() != 1 || op.results.size() != 1)
    return InvalidArgument(format(op.loc, "chlo.constant_like takes one operand and returns one result"));
  const ir::Attribute* value = op.GetAttr("value");
  const ir::Type& type = op.result()->type;
  if (!type.is_tensor() || !type.HasStaticShape() || type.is_quantized())
    return Unimplemented(format(op.loc, "chlo.constant_like of type " + type.ToString() +
                                            " is not supported yet (a static, unquantized shape is)"));
  if (!value || (value->kind != ir::Attribute::Kind::kFloat && value->kind != ir::Attribute::Kind::kInt &&
                 value->kind != ir::Attribute::Kind::kBool))
    return InvalidArgument(format(op.loc, "chlo.constant_like needs an integer, float or boolean attribute value"));
  const ElementType e = type.element;
  Scalar s;
  if (value->kind == ir::Attribute::Kind::kFloat) {
    s.re = ref::RoundToFloatType(IsFloat(e) ? e : ElementType::kF64, value->f);
    s.i = static_cast<int64_t>(value->f);
  } else {
    s.i = value->kind == ir::Attribute::Kind::kBool ? value->b : value->i;
    s.re = static_cast<double>(s.i);
  }
  if (IsComplex(e)) s.re = ref::RoundToFloatType(ComplexPartType(e), s.re);
  ir::Attribute dense;
  dense.kind = ir::Attribute::Kind::kDense;
  dense.type = ir::Type::Tensor(e, {});
  dense.dense_bytes.resize(StorageBytes(e));
  ref::StoreScalar(e, s, dense.dense_bytes.data());
  Ops ops;
  ir::Operation* c = NewOp(&ops, op, block, ScalarOpName(ScalarOp::kConstant), {}, ir::Type::Tensor(e, {}));
  c->attrs.emplace_back("value", std::move(dense));
  ir::Operation* b = NewOp(&ops, op, block, KernelName(KernelId::kBroadcastInDim), {c->result()}, type);
  b->attrs.emplace_back("broadcast_dimensions", ir::IntArrayAttr({}));
  *n = Splice(block, at, std::move(ops));
  return Status::Ok();
}

Status LegalizeBlock(ir::Block* block, const ErrorFormatter& format) {
  for (size_t i = 0; i < block->ops.size();) {
    ir::Operation& op = *block->ops[i];
    for (auto& region : op.regions)
      for (auto& b : region->blocks) KILN_RETURN_IF_ERROR(LegalizeBlock(b.get(), format));
    size_t n = 1;
    if (op.name == "chlo.constant") {
      const ir::Attribute* v = op.GetAttr("value");
      if (!op.operands.empty() || op.results.size() != 1 || !v || v->kind != ir::Attribute::Kind::kDense ||
          v->type != op.result()->type)
        return InvalidArgument(format(op.loc, "chlo.constant takes no operands and a dense value of its result's type"));
      op.name = std::string(ScalarOpName(ScalarOp::kConstant));
    }
    else if (op.name == "chlo.constant_like") KILN_RETURN_IF_ERROR(RewriteConstantLike(block, i, format, &n));
    i += n;
  }
  return Status::Ok();
}

}  // namespace

Status LegalizeChloConstants(ir::Module* module, const ErrorFormatter& format_error) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) KILN_RETURN_IF_ERROR(LegalizeBlock(b.get(), format_error));
  return Status::Ok();
}

}  // namespace kiln::compiler

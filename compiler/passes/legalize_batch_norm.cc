// batch_norm_inference as the elementwise ops that define it
// (compiler/passes/legalize.h), so that fusion folds it into one
// per-feature dispatch (the scale) and the epilogue of the convolution or
// dot before it, instead of a kernel of its own reading and writing the
// whole tensor once more:
//   factor = scale / sqrt(variance + epsilon)              (per feature)
//   result = (operand - mean) * factor + offset            (broadcast along
//                                                           feature_index)
// the form torch and ONNX Runtime fold batch norm into. The rounding differs
// from the reference kernel's (double throughout, one rounding) by a few
// ulps; f16/bf16 operands, where that would be a visible loss, keep the op.
#include <memory>
#include <vector>

#include "compiler/passes/ir_builder.h"
#include "compiler/passes/legalize.h"
#include "kernels/common/scalar_program.h"
#include "kernels/kernel_table.h"
#include "kernels/scalar/scalar.h"

namespace kiln::compiler {
namespace {

bool Applies(const ir::Operation& op) {
  if (op.name != KernelName(KernelId::kBatchNormInference) || op.operands.size() != 5 || op.results.size() != 1)
    return false;
  const ir::Type& x = op.operands[0]->type;
  if (!x.is_tensor() || x.is_quantized() || !x.HasStaticShape()) return false;
  if (x.element != ElementType::kF32 && x.element != ElementType::kF64) return false;
  const ir::Attribute* eps = op.GetAttr("epsilon");
  const ir::Attribute* fi = op.GetAttr("feature_index");
  if (eps == nullptr || eps->kind != ir::Attribute::Kind::kFloat || fi == nullptr ||
      fi->kind != ir::Attribute::Kind::kInt || fi->i < 0 || fi->i >= x.rank())
    return false;
  for (size_t i = 1; i < 5; ++i) {
    const ir::Type& t = op.operands[i]->type;
    if (!t.is_tensor() || t.element != x.element || t.dims != std::vector<int64_t>{x.dims[fi->i]}) return false;
  }
  return op.result()->type.element == x.element && op.result()->type.dims == x.dims;
}

// Rewrites block->ops[at]; returns how many ops stand in its place.
size_t Rewrite(ir::Block* block, size_t at) {
  ir::Operation& op = *block->ops[at];
  std::vector<std::unique_ptr<ir::Operation>> ops;
  IrBuilder b(op, block, &ops);
  ir::Value* x = op.operands[0];
  ir::Value *scale = op.operands[1], *offset = op.operands[2], *mean = op.operands[3], *var = op.operands[4];
  const int64_t fi = op.GetAttr("feature_index")->i;
  const ElementType e = x->type.element;
  const std::vector<int64_t> features = {x->type.dims[fi]};
  ir::Value* eps = b.Splat(e, features, op.GetAttr("epsilon")->f);
  ir::Value* factor = b.Scalar2(ScalarOp::kDivide, scale,
                               b.Scalar1(ScalarOp::kSqrt, b.Scalar2(ScalarOp::kAdd, var, eps)));
  const auto& dims = x->type.dims;
  ir::Value* y = b.Scalar2(ScalarOp::kSubtract, x, b.Broadcast(mean, {fi}, dims));
  y = b.Scalar2(ScalarOp::kMultiply, y, b.Broadcast(factor, {fi}, dims));
  // The last op takes over the batch norm's result value, so its uses stay
  // valid.
  ir::Value* shift = b.Broadcast(offset, {fi}, dims);
  auto add = std::make_unique<ir::Operation>();
  add->name = std::string(ScalarOpName(ScalarOp::kAdd));
  add->loc = op.loc;
  add->parent = block;
  add->operands = {y, shift};
  add->results = std::move(op.results);
  for (auto& r : add->results) r->def = add.get();
  ops.push_back(std::move(add));
  const size_t n = ops.size();
  block->ops[at] = std::move(ops.back());
  ops.pop_back();
  block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at), std::make_move_iterator(ops.begin()),
                    std::make_move_iterator(ops.end()));
  return n;
}

void LegalizeBlock(ir::Block* block) {
  for (size_t i = 0; i < block->ops.size();) {
    ir::Operation& op = *block->ops[i];
    for (auto& region : op.regions)
      for (auto& b : region->blocks) LegalizeBlock(b.get());
    i += Applies(op) ? Rewrite(block, i) : 1;
  }
}

}  // namespace

Status LegalizeBatchNormInference(ir::Module* module) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) LegalizeBlock(b.get());
  return Status::Ok();
}

}  // namespace kiln::compiler

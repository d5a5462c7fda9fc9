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

#include "compiler/passes/legalize.h"
#include "kernels/common/scalar_program.h"
#include "kernels/kernel_table.h"
#include "kernels/scalar/scalar.h"

namespace kiln::compiler {
namespace {

class Builder {
 public:
  Builder(const ir::Operation& at, ir::Block* block) : at_(at), block_(block) {}

  ir::Value* Op(std::string_view name, std::vector<ir::Value*> operands, ir::Type type) {
    auto op = NewOp(name);
    op->operands = std::move(operands);
    return Result(std::move(op), std::move(type));
  }
  // `values` broadcast into `dims` along `map` (broadcast_in_dim).
  ir::Value* Broadcast(ir::Value* v, std::vector<int64_t> map, const std::vector<int64_t>& dims) {
    auto b = NewOp(KernelName(KernelId::kBroadcastInDim));
    b->operands.push_back(v);
    ir::Attribute a;
    a.kind = ir::Attribute::Kind::kIntArray;
    a.type.element = ElementType::kSI64;
    a.ints = std::move(map);
    b->attrs.emplace_back("broadcast_dimensions", std::move(a));
    return Result(std::move(b), ir::Type::Tensor(v->type.element, dims));
  }
  // `v` rounded to `e`, as a rank-0 constant broadcast to `dims`.
  ir::Value* Splat(ElementType e, const std::vector<int64_t>& dims, double v) {
    auto op = NewOp(ScalarOpName(ScalarOp::kConstant));
    ir::Attribute a;
    a.kind = ir::Attribute::Kind::kDense;
    a.type = ir::Type::Tensor(e, {});
    Scalar s;
    s.re = ref::RoundToFloatType(e, v);
    a.dense_bytes.resize(StorageBytes(e));
    ref::StoreScalar(e, s, a.dense_bytes.data());
    op->attrs.emplace_back("value", std::move(a));
    return Broadcast(Result(std::move(op), ir::Type::Tensor(e, {})), {}, dims);
  }
  ir::Value* Binary(ScalarOp s, ir::Value* a, ir::Value* b) { return Op(ScalarOpName(s), {a, b}, a->type); }

  std::vector<std::unique_ptr<ir::Operation>> ops;

 private:
  std::unique_ptr<ir::Operation> NewOp(std::string_view name) {
    auto op = std::make_unique<ir::Operation>();
    op->name = std::string(name);
    op->loc = at_.loc;
    op->parent = block_;
    return op;
  }
  ir::Value* Result(std::unique_ptr<ir::Operation> op, ir::Type type) {
    auto r = std::make_unique<ir::Value>();
    r->type = std::move(type);
    r->def = op.get();
    ir::Value* v = r.get();
    op->results.push_back(std::move(r));
    ops.push_back(std::move(op));
    return v;
  }

  const ir::Operation& at_;
  ir::Block* block_;
};

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
  Builder b(op, block);
  ir::Value* x = op.operands[0];
  ir::Value *scale = op.operands[1], *offset = op.operands[2], *mean = op.operands[3], *var = op.operands[4];
  const int64_t fi = op.GetAttr("feature_index")->i;
  const ElementType e = x->type.element;
  const std::vector<int64_t> features = {x->type.dims[fi]};
  ir::Value* eps = b.Splat(e, features, op.GetAttr("epsilon")->f);
  ir::Value* factor = b.Binary(ScalarOp::kDivide, scale,
                               b.Op(ScalarOpName(ScalarOp::kSqrt), {b.Binary(ScalarOp::kAdd, var, eps)}, var->type));
  const auto& dims = x->type.dims;
  ir::Value* y = b.Binary(ScalarOp::kSubtract, x, b.Broadcast(mean, {fi}, dims));
  y = b.Binary(ScalarOp::kMultiply, y, b.Broadcast(factor, {fi}, dims));
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
  b.ops.push_back(std::move(add));
  const size_t n = b.ops.size();
  block->ops[at] = std::move(b.ops.back());
  b.ops.pop_back();
  block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at), std::make_move_iterator(b.ops.begin()),
                    std::make_move_iterator(b.ops.end()));
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

// The quantized elementwise legalization (compiler/passes/legalize.h):
// an elementwise op on per-tensor quantized values becomes, in place, the
// plain ops the spec defines it by, in the steps lowering's scalar program
// for it takes (compiler/lower/lower_quantized.cc). A bitcast_convert between
// a quantized tensor and its storage type (a reinterpretation of the stored
// integers, as the spec defines bitcast_convert on quantized types) bridges
// the quantized values in and out; fusion (compiler/passes/fuse_elementwise.cc)
// reads it as the same value, so the rewrite fuses back into one
// kiln.elementwise dispatch computing the same scalar steps.
//
// Only ops that fusion takes whole are rewritten (static shapes, per-tensor
// parameters, quantized operands of the result's shape); the others, and all
// of them when fusion is off, stay for lowering, which builds the same
// program directly.
#include "compiler/passes/legalize.h"

#include <memory>
#include <vector>

#include "compiler/lower/kernel_params.h"
#include "compiler/op_names.h"
#include "compiler/passes/ir_builder.h"
#include "kernels/scalar/scalar.h"

namespace kiln::compiler {
namespace {

bool PerTensor(const ir::Type& t) {
  return !t.is_quantized() || (t.quant->scales.size() == 1 && t.quant->zero_points.size() == 1);
}

bool Applies(const ir::Operation& op) {
  const ScalarOp sop = ElementwiseScalarOp(op.name);
  if (sop == ScalarOp::kInvalid || sop == ScalarOp::kBitcastConvert || op.results.size() != 1 || !op.regions.empty())
    return false;
  const ir::Type& rt = op.result()->type;
  if (!rt.is_tensor() || !rt.HasStaticShape() || !PerTensor(rt)) return false;
  bool quantized = rt.is_quantized();
  for (const ir::Value* v : op.operands) {
    if (!v->type.is_tensor() || !v->type.HasStaticShape() || !PerTensor(v->type)) return false;
    if (v->type.is_quantized() && v->type.dims != rt.dims) return false;
    quantized = quantized || v->type.is_quantized();
  }
  return quantized;
}

ir::Type Plain(const ir::Type& t, ElementType e) { return ir::Type::Tensor(e, t.dims); }

// Rewrites `block->ops[at]`; returns how many ops now stand in its place.
size_t Rewrite(ir::Block* block, size_t at) {
  ir::Operation& op = *block->ops[at];
  std::vector<std::unique_ptr<ir::Operation>> inserted;
  IrBuilder b(op, block, &inserted);
  const std::string bitcast(KernelName(KernelId::kBitcastConvert));
  std::vector<ir::Value*> args;
  for (ir::Value* v : op.operands) {
    if (!v->type.is_quantized()) {
      args.push_back(v);
      continue;
    }
    const ir::QuantType& q = *v->type.quant;
    const ElementType e = q.expressed;
    ir::Value* stored = b.Op(bitcast, {v}, Plain(v->type, v->type.element));
    ir::Value* x = b.Op(ScalarOpName(ScalarOp::kConvert), {stored}, Plain(v->type, e));
    ir::Value* zp = b.Splat(e, v->type.dims, static_cast<double>(q.zero_points[0]));
    ir::Value* sc = b.Splat(e, v->type.dims, q.scales[0]);
    args.push_back(b.Scalar2(ScalarOp::kMultiply, b.Scalar2(ScalarOp::kSubtract, x, zp), sc));
  }
  const ir::Type rt = op.result()->type;
  auto plain = std::make_unique<ir::Operation>();
  plain->name = op.name;
  plain->loc = op.loc;
  plain->parent = block;
  plain->attrs = op.attrs;
  plain->operands = std::move(args);
  if (!rt.is_quantized()) {
    // The op's own result value moves to the plain op, so its uses stay valid.
    plain->results = std::move(op.results);
    for (auto& r : plain->results) r->def = plain.get();
    inserted.push_back(std::move(plain));
  } else {
    const ir::QuantType& q = *rt.quant;
    const ElementType e = q.expressed;
    auto r = std::make_unique<ir::Value>();
    r->type = Plain(rt, e);
    r->def = plain.get();
    ir::Value* y = r.get();
    plain->results.push_back(std::move(r));
    inserted.push_back(std::move(plain));
    // The spec's quantize: divide, add the zero point, clamp, round.
    ir::Value* v = b.Scalar2(ScalarOp::kDivide, y, b.Splat(e, rt.dims, q.scales[0]));
    v = b.Scalar2(ScalarOp::kAdd, v, b.Splat(e, rt.dims, static_cast<double>(q.zero_points[0])));
    ir::Value* lo = b.Splat(e, rt.dims, static_cast<double>(q.storage_min));
    ir::Value* hi = b.Splat(e, rt.dims, static_cast<double>(q.storage_max));
    v = b.Op(ScalarOpName(ScalarOp::kClamp), {lo, v, hi}, v->type);
    v = b.Scalar1(ScalarOp::kRoundNearestEven, v);
    ir::Value* stored = b.Op(ScalarOpName(ScalarOp::kConvert), {v}, Plain(rt, rt.element));
    // The last op takes over the original result value (and its uses).
    auto back = std::make_unique<ir::Operation>();
    back->name = bitcast;
    back->loc = op.loc;
    back->parent = block;
    back->operands = {stored};
    back->results = std::move(op.results);
    for (auto& res : back->results) res->def = back.get();
    inserted.push_back(std::move(back));
  }
  const size_t n = inserted.size();
  block->ops[at] = std::move(inserted.back());
  inserted.pop_back();
  block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at), std::make_move_iterator(inserted.begin()),
                    std::make_move_iterator(inserted.end()));
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

Status LegalizeQuantized(ir::Module* module, const ErrorFormatter&) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) LegalizeBlock(b.get());
  return Status::Ok();
}

}  // namespace kiln::compiler

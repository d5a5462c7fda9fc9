// stablehlo.iota of rank >= 2 as the iota of its counting axis alone,
// broadcast along the others (compiler/passes/legalize.h). The values are
// the same; what changes is that fusion reads a broadcast_in_dim through its
// axis map, so a mask built from iotas and compares (a causal mask, a
// one-hot, a band) reads a row and a column of indices in place instead of
// two full-size index tensors written by their own dispatches first.
#include <memory>
#include <vector>

#include "compiler/passes/legalize.h"
#include "compiler/passes/rewrite_util.h"
#include "kernels/kernel_table.h"

namespace kiln::compiler {
namespace {

// The counting axis of a static, unquantized iota of rank >= 2 with some
// other axis longer than 1, or -1.
int64_t ExpandableAxis(const ir::Operation& op) {
  if (op.name != KernelName(KernelId::kIota) || !op.operands.empty() || op.results.size() != 1) return -1;
  const ir::Type& t = op.result()->type;
  if (!t.is_tensor() || t.is_quantized() || !t.HasStaticShape() || t.rank() < 2) return -1;
  const ir::Attribute* d = op.GetAttr("iota_dimension");
  if (d == nullptr || d->kind != ir::Attribute::Kind::kInt || d->i < 0 || d->i >= t.rank()) return -1;
  int64_t others = 1;
  for (int64_t a = 0; a < t.rank(); ++a)
    if (a != d->i) others *= t.dims[a];
  return others > 1 ? d->i : -1;
}

void ExpandBlock(ir::Block* block) {
  for (size_t i = 0; i < block->ops.size();) {
    ir::Operation& op = *block->ops[i];
    for (auto& region : op.regions)
      for (auto& b : region->blocks) ExpandBlock(b.get());
    const int64_t axis = ExpandableAxis(op);
    if (axis < 0) {
      ++i;
      continue;
    }
    const ir::Type& t = op.result()->type;
    Ops ops;
    ir::Operation* line =
        NewOp(&ops, op, block, KernelName(KernelId::kIota), {}, ir::Type::Tensor(t.element, {t.dims[axis]}));
    line->attrs.emplace_back("iota_dimension", ir::IntAttr(0));
    ir::Operation* b = NewOp(&ops, op, block, KernelName(KernelId::kBroadcastInDim), {line->result()}, t);
    b->attrs.emplace_back("broadcast_dimensions", ir::IntArrayAttr({axis}));
    i += Splice(block, i, std::move(ops));
  }
}

}  // namespace

void ExpandIotas(ir::Module* module) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) ExpandBlock(b.get());
}

}  // namespace kiln::compiler

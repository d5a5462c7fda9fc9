// The 16-bit factorization widening (compiler/passes/widen_narrow_factorizations.h).
#include "compiler/passes/widen_narrow_factorizations.h"

#include <iterator>
#include <memory>

#include "compiler/passes/rewrite_util.h"

namespace kiln::compiler {
namespace {

bool NarrowFloatMatrices(const ir::Type& t) {
  return t.is_tensor() && !t.is_quantized() && (t.element == ElementType::kF16 || t.element == ElementType::kBF16);
}

void WidenBlock(ir::Block* block) {
  for (size_t at = 0; at < block->ops.size(); ++at) {
    ir::Operation& op = *block->ops[at];
    for (auto& r : op.regions)
      for (auto& b : r->blocks) WidenBlock(b.get());
    const bool factorization = op.name == KernelName(KernelId::kCholesky) || op.name == KernelName(KernelId::kLu);
    if (!factorization || op.operands.size() != 1 || op.results.empty() ||
        !NarrowFloatMatrices(op.operands[0]->type) || op.results[0]->type != op.operands[0]->type)
      continue;
    ir::Type wide = op.operands[0]->type;
    wide.element = ElementType::kF32;
    const std::string convert(ScalarOpName(ScalarOp::kConvert));
    Ops before, after;
    op.operands[0] = NewOp(&before, op, block, convert, {op.operands[0]}, wide)->result();
    // The old first result (what its users read) moves to the narrowing
    // convert; the factorization gets a fresh f32 one.
    NarrowResultAfter(&after, op, block, wide);
    block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at + 1), std::make_move_iterator(after.begin()),
                      std::make_move_iterator(after.end()));
    block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at), std::make_move_iterator(before.begin()),
                      std::make_move_iterator(before.end()));
    at += 2;  // past the factorization and its narrowing convert
  }
}

}  // namespace

void WidenNarrowFactorizations(ir::Module* module) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) WidenBlock(b.get());
}

}  // namespace kiln::compiler

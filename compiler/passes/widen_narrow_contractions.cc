// The Vulkan target's 16-bit contractions computed in f32
// (compiler/passes/widen_narrow_contractions.h).
#include "compiler/passes/widen_narrow_contractions.h"

#include <iterator>
#include <memory>

#include "compiler/passes/rewrite_util.h"

namespace kiln::compiler {
namespace {

bool Narrow(ElementType t) { return t == ElementType::kF16 || t == ElementType::kBF16; }

bool FloatTensor(const ir::Type& t) {
  return t.is_tensor() && !t.is_quantized() && (Narrow(t.element) || t.element == ElementType::kF32);
}

void WidenBlock(ir::Block* block) {
  for (size_t at = 0; at < block->ops.size(); ++at) {
    ir::Operation& op = *block->ops[at];
    for (auto& r : op.regions)
      for (auto& b : r->blocks) WidenBlock(b.get());
    if ((op.name != "stablehlo.dot_general" && op.name != "stablehlo.convolution") || op.operands.size() != 2 ||
        op.results.size() != 1)
      continue;
    const ir::Type& lhs = op.operands[0]->type;
    const ir::Type& rhs = op.operands[1]->type;
    if (!FloatTensor(lhs) || !FloatTensor(rhs) || !FloatTensor(op.results[0]->type)) continue;
    if (!Narrow(lhs.element) && !Narrow(rhs.element)) continue;
    const std::string convert(ScalarOpName(ScalarOp::kConvert));
    Ops before, after;
    for (int i = 0; i < 2; ++i) {
      if (!Narrow(op.operands[i]->type.element)) continue;
      ir::Type wide = op.operands[i]->type;
      wide.element = ElementType::kF32;
      op.operands[i] = NewOp(&before, op, block, convert, {op.operands[i]}, wide)->result();
    }
    if (Narrow(op.results[0]->type.element)) {
      // The old result (what its users read) moves to the narrowing
      // convert; the op gets a fresh f32 one.
      ir::Type wide = op.results[0]->type;
      wide.element = ElementType::kF32;
      NarrowResultAfter(&after, op, block, wide);
    }
    const size_t n_before = before.size(), n_after = after.size();
    block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at + 1), std::make_move_iterator(after.begin()),
                      std::make_move_iterator(after.end()));
    block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at), std::make_move_iterator(before.begin()),
                      std::make_move_iterator(before.end()));
    at += n_before + n_after;  // past the op and its narrowing convert
  }
}

}  // namespace

void WidenNarrowContractions(ir::Module* module) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) WidenBlock(b.get());
}

}  // namespace kiln::compiler

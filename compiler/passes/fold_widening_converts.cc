// The widening-convert fold (compiler/passes/fold_widening_converts.h).
#include "compiler/passes/fold_widening_converts.h"
#include "compiler/passes/rewrite_util.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string_view>

namespace kiln::compiler {
namespace {

bool IsContraction(std::string_view name) {
  return name == "stablehlo.dot_general" || name == "stablehlo.dot" || name == "stablehlo.convolution";
}

bool Is16BitFloat(const ir::Type& t) {
  return t.is_tensor() && !t.is_quantized() && (t.element == ElementType::kF16 || t.element == ElementType::kBF16);
}

bool IsF32(const ir::Type& t) { return t.is_tensor() && !t.is_quantized() && t.element == ElementType::kF32; }

// Folds the widening converts feeding this block's contractions (and those
// of nested blocks, which may read this block's converts); true if any was
// folded here or below.
bool FoldBlock(ir::Block* block, const std::map<const ir::Value*, int>& before) {
  bool folded = false;
  for (auto& op : block->ops) {
    for (auto& r : op->regions)
      for (auto& b : r->blocks) folded |= FoldBlock(b.get(), before);
    if (!IsContraction(op->name) || op->operands.size() != 2 || op->results.size() != 1 ||
        !IsF32(op->result()->type))
      continue;
    for (ir::Value*& x : op->operands) {
      const ir::Operation* c = x->def;
      if (c == nullptr || c->name != "stablehlo.convert" || c->operands.size() != 1 || !IsF32(x->type) ||
          !Is16BitFloat(c->operands[0]->type) || c->operands[0]->type.dims != x->type.dims)
        continue;
      x = c->operands[0];
      folded = true;
    }
  }
  if (!folded) return false;
  // Drop the converts no op reads any more (they had users before: a
  // convert unused in the source stays as written).
  std::map<const ir::Value*, int> now;
  CountUses(*block, &now);
  std::erase_if(block->ops, [&](const std::unique_ptr<ir::Operation>& op) {
    if (op->name != "stablehlo.convert" || op->results.size() != 1) return false;
    const ir::Value* v = op->result();
    return before.count(v) && !now.count(v);
  });
  return true;
}

}  // namespace

void FoldWideningConvertsIntoContractions(ir::Module* module) {
  for (auto& f : module->functions) {
    std::map<const ir::Value*, int> before;
    for (const auto& b : f->body.blocks) CountUses(*b, &before);
    for (auto& b : f->body.blocks) FoldBlock(b.get(), before);
  }
}

}  // namespace kiln::compiler

// Loads of immutable module globals become constants (compiler/passes/
// legalize.h): such a global never changes, so each load is its initial
// value, and as a stablehlo.constant it takes the constants' paths (packed
// weights, fusion, the Vulkan device's uploads) instead of a VM instruction.
#include "compiler/passes/legalize.h"

namespace kiln::compiler {
namespace {

void FoldBlock(const ir::Module& module, ir::Block* block) {
  for (auto& op : block->ops) {
    for (auto& region : op->regions)
      for (auto& b : region->blocks) FoldBlock(module, b.get());
    if (op->name != "ml_program.global_load") continue;
    const ir::Attribute* name = op->GetAttr("global");
    const ir::Global* g = name ? module.FindGlobal(name->str) : nullptr;
    if (!g || g->is_mutable) continue;
    op->name = "stablehlo.constant";
    op->attrs.clear();
    op->attrs.emplace_back("value", g->InitialValue());
  }
}

}  // namespace

void FoldImmutableGlobals(ir::Module* module) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) FoldBlock(*module, b.get());
}

}  // namespace kiln::compiler

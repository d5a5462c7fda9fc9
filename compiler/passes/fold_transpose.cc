// The transpose-into-dot fold (compiler/passes/fold_transpose.h). Batching
// and contracting dims come in lhs/rhs pairs, so any permutation of them is
// expressible by renaming; free dims are not named by the dot (the result
// takes them in operand order), so their order must survive the fold.
#include "compiler/passes/fold_transpose.h"

#include <algorithm>
#include <map>
#include <vector>

namespace kiln::compiler {
namespace {

constexpr const char* kDimFields[2][2] = {{"lhs_batching_dimensions", "lhs_contracting_dimensions"},
                                          {"rhs_batching_dimensions", "rhs_contracting_dimensions"}};

ir::Attribute* DimField(ir::Operation* dot, const char* name) {
  for (auto& [an, a] : dot->attrs)
    if (an == "dot_dimension_numbers" && a.kind == ir::Attribute::Kind::kStruct)
      for (auto& [fn, f] : a.fields)
        if (fn == name && f.kind == ir::Attribute::Kind::kIntArray) return &f;
  return nullptr;
}

// Folds operand `side` (0 lhs, 1 rhs) of `dot` if it is a transpose whose
// fold keeps the result; true if it did.
bool FoldOperand(ir::Operation* dot, int side) {
  ir::Value* x = dot->operands[side];
  ir::Operation* t = x->def;
  if (!t || t->name != "stablehlo.transpose" || t->operands.size() != 1) return false;
  const ir::Attribute* pa = t->GetAttr("permutation");
  auto perm = pa ? pa->AsInts() : std::nullopt;
  const int64_t rank = x->type.rank();
  if (!perm || static_cast<int64_t>(perm->size()) != rank || t->operands[0]->type.rank() != rank) return false;
  ir::Attribute* batch = DimField(dot, kDimFields[side][0]);
  ir::Attribute* contract = DimField(dot, kDimFields[side][1]);
  if (!batch || !contract) return false;
  std::vector<bool> named(static_cast<size_t>(rank), false);
  for (const ir::Attribute* f : {batch, contract})
    for (int64_t d : f->ints) {
      if (d < 0 || d >= rank || named[d]) return false;  // the verifier's to report
      named[d] = true;
    }
  int64_t last = -1;
  for (int64_t d = 0; d < rank; ++d) {
    if (named[d]) continue;
    const int64_t to = (*perm)[d];
    if (to < 0 || to >= rank || to < last) return false;
    last = to;
  }
  for (ir::Attribute* f : {batch, contract})
    for (int64_t& d : f->ints) d = (*perm)[d];
  dot->operands[side] = t->operands[0];
  return true;
}

void CountUses(const ir::Block& block, std::map<const ir::Value*, int>* uses) {
  for (const auto& op : block.ops) {
    for (const ir::Value* v : op->operands) ++(*uses)[v];
    for (const auto& r : op->regions)
      for (const auto& b : r->blocks) CountUses(*b, uses);
  }
}

void FoldBlock(ir::Block* block, const std::map<const ir::Value*, int>& before) {
  bool folded = false;
  for (auto& op : block->ops) {
    for (auto& r : op->regions)
      for (auto& b : r->blocks) FoldBlock(b.get(), before);
    if (op->name != "stablehlo.dot_general" || op->operands.size() != 2) continue;
    for (int side = 0; side < 2; ++side) folded |= FoldOperand(op.get(), side);
  }
  if (!folded) return;
  // Drop the transposes of this block that no op reads any more (they had
  // users before the fold: a transpose unused in the source stays as written).
  std::map<const ir::Value*, int> now;
  CountUses(*block, &now);
  std::erase_if(block->ops, [&](const std::unique_ptr<ir::Operation>& op) {
    if (op->name != "stablehlo.transpose" || op->results.size() != 1) return false;
    const ir::Value* v = op->result();
    return before.count(v) && !now.count(v);
  });
}

}  // namespace

Status FoldTransposesIntoDots(ir::Module* module) {
  for (auto& f : module->functions) {
    std::map<const ir::Value*, int> before;
    for (const auto& b : f->body.blocks) CountUses(*b, &before);
    for (auto& b : f->body.blocks) FoldBlock(b.get(), before);
  }
  return Status::Ok();
}

}  // namespace kiln::compiler

// The deprecated-op legalization (compiler/passes/legalize.h): ops that VHLO
// still carries but the StableHLO spec dropped become the spec ops that
// define them, in place, so that lowering and every device meet only spec
// ops. Each rewrite keeps the op's result values (their uses stay valid) and
// its location (errors and dispatch records still point at the source).
#include <numeric>
#include <string>
#include <vector>

#include "compiler/passes/legalize.h"
#include "kernels/kernel_table.h"

namespace kiln::compiler {
namespace {

// stablehlo.broadcast(x) {broadcast_sizes = [a0..aN]} is broadcast_in_dim
// with the operand's dimensions after the N+1 new leading ones (XLA's
// Broadcast: output[i0..iN, j0..jM] = operand[j0..jM]).
void RewriteBroadcast(ir::Operation* op) {
  const int64_t added = static_cast<int64_t>(op->GetAttr("broadcast_sizes")->AsInts()->size());
  ir::Attribute dims;
  dims.kind = ir::Attribute::Kind::kIntArray;
  dims.type.element = ElementType::kSI64;
  dims.ints.resize(static_cast<size_t>(op->operands[0]->type.rank()));
  std::iota(dims.ints.begin(), dims.ints.end(), added);
  op->name = std::string(KernelName(KernelId::kBroadcastInDim));
  std::erase_if(op->attrs, [](const auto& a) { return a.first == "broadcast_sizes"; });
  op->attrs.emplace_back("broadcast_dimensions", std::move(dims));
}

// One row per deprecated op: its name and the rewrite (the verifier has
// checked the op's attributes and types before this pass runs).
struct Rewrite {
  std::string_view op;
  void (*rewrite)(ir::Operation*);
};
constexpr Rewrite kRewrites[] = {
    {"stablehlo.broadcast", &RewriteBroadcast},
};

void LegalizeBlock(ir::Block* block) {
  for (auto& op : block->ops) {
    for (auto& region : op->regions)
      for (auto& b : region->blocks) LegalizeBlock(b.get());
    for (const Rewrite& r : kRewrites)
      if (op->name == r.op) r.rewrite(op.get());
  }
}

}  // namespace

Status LegalizeDeprecatedOps(ir::Module* module) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) LegalizeBlock(b.get());
  return Status::Ok();
}

}  // namespace kiln::compiler

// Elementwise fusion, planned before lowering: chains (DAGs) of elementwise
// ops of one block (converts, compares and selects included), with the
// broadcast_in_dim ops that feed them and splat constants, become one
// `kiln.elementwise` dispatch whose scalar program holds the whole chain. No
// intermediate tensor exists; only the group's last op (its root) is
// materialised. A splat constant becomes a constant of the program; a
// broadcast of a rank-0 operand is a rank-0 input; a broadcast of a
// lower-rank operand (a bias, a per-row maximum) is an input read in place
// through the dispatch's "input_broadcast" axis map (kernels/reference/
// elementwise_inputs.h), so no broadcast tensor is materialised either.
//
// A value joins its consumers' group only if every use of it is in that
// group (uses in nested regions, by non-elementwise ops, by the function's
// return or by two different groups all keep it materialised), so nothing
// is computed twice and values used elsewhere still exist in memory.
//
// Producer fusion into reductions (fuse_reductions, on for every target:
// both the CPU and the vulkan target run them): a single-operand
// stablehlo.reduce whose operand an elementwise chain of its block computes
// (the exp of softmax, the squared deviation of a norm) gets the chain as
// its "input" program and reads the chain's inputs instead (the "input",
// "input_broadcast" and "input_dims" attributes of docs/kernels.md); the
// operand is not materialised. Chain members other ops still read are
// computed there as well (recomputed inside their consumers' group), so
// softmax's `exp(x - max)` feeds both the sum and the divide without
// existing in memory.
//
// Row blocks (with fuse_reductions; planned in plan_row_blocks.cc): an elementwise group over [..., N]
// whose per-row inputs come from reduces of the innermost axis, per-row
// elementwise ops and [R] -> [R, 1] reshapes that only it reads becomes one
// kiln.row_block dispatch whose units are those dispatches, in block order
// (kernels/reference/row_block.h): softmax and layer/RMS norms are one
// dispatch each, and the CPU kernel reads their input from memory once.
//
// The program holds the same scalar ops, with the same types, in the same
// order as the unfused dispatches, and every scalar op rounds to its result
// type, so fused and unfused programs give identical results.
#pragma once
#include <map>
#include <set>
#include <vector>

#include "compiler/ir.h"
#include "kernels/common/kernel.h"
#include "kernels/common/status.h"

namespace kiln::compiler {

struct FusedGroup {
  const ir::Operation* root = nullptr;
  std::vector<const ir::Value*> inputs;  // the dispatch's inputs = the program's params
  KernelParams params;                   // kiln.elementwise with the fused "body"
  int num_ops = 0;                       // ops of the source program it replaces
};

class ElementwiseFusion {
 public:
  // Plans fusion over every block of `fn` (nested regions included).
  static StatusOr<ElementwiseFusion> Plan(const ir::Function& fn, bool fuse_reductions = true);

  // A member of a group other than its root: lowering emits nothing for it.
  bool FusedAway(const ir::Operation* op) const { return fused_away_.count(op) != 0; }
  // The group rooted at `op` (two or more ops; for a reduce, the reduce
  // with its fused chain), or null.
  const FusedGroup* GroupAt(const ir::Operation* op) const {
    auto it = groups_.find(op);
    return it == groups_.end() ? nullptr : &it->second;
  }

 private:
  std::set<const ir::Operation*> fused_away_;
  std::map<const ir::Operation*, FusedGroup> groups_;
};

}  // namespace kiln::compiler

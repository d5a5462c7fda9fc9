// Internal to elementwise fusion (compiler/passes/fuse_elementwise.h): what
// the group planner (fuse_elementwise.cc) shares with the row-block planner
// (plan_row_blocks.cc).
#pragma once
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "compiler/ir.h"
#include "compiler/passes/fuse_elementwise.h"

namespace kiln::compiler::fusion_internal {

// Every op of a block (nested regions included) reading each value.
using Users = std::map<const ir::Value*, std::vector<const ir::Operation*>>;

// kReinterpret: a bitcast_convert between a per-tensor quantized tensor and
// its storage type (compiler/passes/legalize_quantized.cc), the same stored
// integers under another type: no step, its result is its operand's value
// (as lowering aliases it when it stands alone).
enum class Kind { kNone, kElementwise, kBroadcast, kReinterpret };

// Whether `op` can be one step of a fused program, mirroring what lowering
// would emit as a one-instruction kiln.elementwise dispatch.
Kind Classify(const ir::Operation& op);

// A stablehlo.slice that may be a member of an elementwise group: static,
// a proper slice of an f32 or f64 tensor, in bounds. Its
// "input_slices" entry (start indices, then strides), or nullopt.
std::optional<std::vector<int64_t>> FusibleSlice(const ir::Operation& op);

// Builds the fused program of `members` (block order, root last); false if
// some step cannot be expressed (the ops are then lowered one by one).
bool BuildGroup(const std::vector<const ir::Operation*>& members, FusedGroup* g);

// Row blocks (kernels/reference/row_block.h) over `block` and its nested
// blocks: turns an elementwise group (the tail) and the per-row dispatches
// only it reads into one kiln.row_block group; `root_of` maps a group member
// to its root.
void PlanRowBlocks(const ir::Block& block, const Users& users,
                   const std::map<const ir::Operation*, const ir::Operation*>& root_of,
                   std::map<const ir::Operation*, FusedGroup>* groups, std::set<const ir::Operation*>* fused_away);

}  // namespace kiln::compiler::fusion_internal

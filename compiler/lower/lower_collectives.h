// Lowering of the collectives (all_gather, all_reduce, reduce_scatter,
// all_to_all, collective_permute, collective_broadcast, collective_reduce,
// send, recv, infeed, outfeed) and of interpreter.run_parallel: what the
// VM's collective and run_parallel instructions carry (docs/collectives.md).
#pragma once
#include <map>
#include <optional>
#include <string>

#include "compiler/ir.h"
#include "kernels/common/kernel.h"
#include "kernels/common/status.h"

namespace kiln::compiler {

struct CollectiveLowering {
  std::string descriptor;                // vm::CollectiveDesc, serialized
  std::optional<KernelParams> reduction;  // kiln.elementwise of the body, if the op reduces
};

// Refuses, naming op, type and reason, what the runtime cannot run.
StatusOr<CollectiveLowering> DescribeCollective(const ir::Operation& op);

// "grid=RxP;programs=f,...;infeed=q,...", after checking that the programs
// exist and that their arguments and results add up to the op's.
StatusOr<std::string> DescribeRunParallel(const ir::Operation& op, const ir::Module& module);

}  // namespace kiln::compiler

// A runtime built with -DKILN_WITH_COLLECTIVES=OFF (a minimal, single-process
// build; docs/deploying.md): collectives and interpreter.run_parallel grids
// are refused by name instead of linking vm/collectives/context_collectives.cc and the
// transports behind it.
#include "vm/context.h"

namespace kiln::vm {

Status Context::RunCollective(const Instruction& ins, Frame& frame) {
  return Unimplemented("this runtime was built without collectives (KILN_WITH_COLLECTIVES=OFF)");
}

Status Context::RunParallel(const Instruction& ins, Frame& frame, int depth) {
  return Unimplemented("this runtime was built without process grids (KILN_WITH_COLLECTIVES=OFF)");
}

}  // namespace kiln::vm

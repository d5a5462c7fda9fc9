// Standard reductions (add, multiply; integer maximum and minimum) between
// buffers in host memory, in group order: element i of every result is
// in[0][i] op in[1][i] op ..., as the reduction body folds them on the
// general path, so results are bit-identical to it. Floating maximum and
// minimum (NaN and signed-zero rules) are not handled here.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/common/element_type.h"
#include "vm/collectives/collectives.h"

namespace kiln::vm {

bool HostReduceSupported(StandardReduction op, ElementType type);

// Elements [begin, end) of every `ins` reduced into every `outs` (an output
// may be one of the inputs). Returns false where HostReduceSupported does.
bool HostReduce(StandardReduction op, ElementType type, const std::vector<const void*>& ins,
                const std::vector<void*>& outs, int64_t begin, int64_t end);

}  // namespace kiln::vm

// How kiln.elementwise reads its inputs (shared by the reference kernel and
// the fast CPU kernel, so both accept exactly the same calls), and the
// reference kernel itself.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/common/kernel.h"

namespace kiln::ref {

// For each input, its element stride along every output axis (0 where the
// input is broadcast): output-shaped inputs, rank-0 inputs, or, with an axis
// map (`map`, the attribute "input_broadcast": per input rank r, then r
// output axes, as in broadcast_in_dim; may be null), lower-rank inputs and
// size-1 dims. With `offsets`, also inputs read through a static slice
// (the attribute "input_slices", elementwise.cc): their element strides and
// the offset (in elements) of their first element read; without, such a
// call is refused (Unimplemented), so a kernel that does not apply offsets
// hands it to one that does. Checks each input's storage and shape; errors
// name the input.
Status ElementwiseInputStrides(const KernelCall& call, const KernelAttr* map,
                               std::vector<std::vector<int64_t>>* strides, std::vector<int64_t>* offsets = nullptr);

// The reference kiln.elementwise with its program and axis map given rather
// than read from call.params ("body", "input_broadcast"): what a fused
// epilogue (epilogue.h) runs.
Status RunElementwiseProgram(const KernelCall& call, const ScalarProgram* program, const KernelAttr* map);

}  // namespace kiln::ref

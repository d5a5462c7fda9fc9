// From IR ops to the kernel parameters a dispatch carries (kernels/common/
// kernel.h): attribute flattening, region bodies as scalar-expression
// programs, and the one way to build a kiln.elementwise executable.
#pragma once
#include <string>
#include <vector>

#include "compiler/ir.h"
#include "kernels/common/kernel.h"
#include "kernels/common/status.h"

namespace kiln::compiler {

// Converts a region (reduce body, sort comparator, ...) into a scalar
// program: block arguments become parameters, the terminator's operands the
// results. Fails, naming the op, if the body is not elementwise on scalars.
StatusOr<ScalarProgram> RegionToScalarProgram(const ir::Region& region);

// The kernel attributes of an op: its attributes flattened under the spec's
// names (see kernels/common/kernel.h), with regions as scalar programs.
StatusOr<KernelParams> KernelParamsForOp(const ir::Operation& op);

// The one instruction of an elementwise op, reading `operands` (value
// indices of the program it goes into); attributes from the op.
StatusOr<ScalarInstr> ScalarInstrForOp(const ir::Operation& op, const std::vector<uint16_t>& operands);

// The scalar op an elementwise IR op computes (chlo.tan is stablehlo.tan),
// or kInvalid for an op that is not elementwise.
ScalarOp ElementwiseScalarOp(const std::string& op_name);

// A kiln.elementwise executable whose "body" attribute is `body`; `extra`
// attributes (e.g. a fused chain's input_broadcast) follow it.
KernelParams ElementwiseKernel(ScalarProgram body, std::vector<KernelAttr> extra = {});

}  // namespace kiln::compiler

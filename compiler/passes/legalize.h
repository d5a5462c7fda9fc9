// IR -> IR rewrites that compile.cc runs after verification and before
// lowering, so that lowering meets fewer op forms.
#pragma once
#include "compiler/diagnostics.h"
#include "compiler/ir.h"
#include "kernels/common/status.h"

namespace kiln::compiler {

// chlo.broadcast_<op>(a, b) -> stablehlo.broadcast_in_dim of each operand
// whose shape is not the result's (numpy-style trailing alignment, or the
// op's broadcast_dimensions), then the elementwise <op> on equal shapes (which
// the fusion pass may then fuse). Refuses, at the op, a chlo.broadcast_<op>
// with no elementwise <op> or with a result of dynamic shape. Ops on quantized
// values are left for lowering to refuse.
Status LegalizeChloBroadcast(ir::Module* module, const ErrorFormatter& format_error);

// Deprecated ops that VHLO still carries (stablehlo.broadcast, ...) -> the
// spec ops that define them (compiler/passes/legalize_deprecated.cc keeps
// the list). Runs after the verifier, which checks the deprecated forms.
Status LegalizeDeprecatedOps(ir::Module* module);

}  // namespace kiln::compiler

// The quantized elementwise legalization: an IR -> IR rewrite that
// compile.cc runs before lowering when fusion is on (its output is meant to
// fuse back into one dispatch; see legalize_quantized.cc).
#pragma once
#include "compiler/diagnostics.h"
#include "compiler/ir.h"
#include "kernels/common/status.h"

namespace kiln::compiler {

// Each elementwise op on per-tensor quantized values of static shape whose
// quantized operands have the result's shape becomes: per quantized operand,
// bitcast_convert to the storage type, convert to the expressed type,
// subtract the zero point, multiply by the scale; the op in the expressed
// type; for a quantized result, divide by the scale, round_nearest_even, add
// the zero point, clamp to the storage range, convert to the storage type and
// bitcast_convert to the quantized type. Other ops are left unchanged.
Status LegalizeQuantized(ir::Module* module, const ErrorFormatter& format_error);

}  // namespace kiln::compiler

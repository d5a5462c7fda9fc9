// The spec's dequantize_op_quantize of one elementwise op, as scalar-program
// steps: used for elementwise ops on quantized tensors
// (compiler/lower/lower_quantized.cc) and for the quantized ops inside the
// region bodies of reduce, sort, scatter, ... (compiler/lower/kernel_params.cc).
// The steps are the ones compiler/passes/legalize_quantized.cc writes as IR
// ops, so fused and unfused programs compute the same values:
//   dequantize(q) = (convert(q, E) - zero_point) * scale
//   quantize(x)   = convert(round_nearest_even(clamp(min, x / scale + zero_point, max)), storage)
// each step rounded in the expressed type E.
#pragma once
#include <vector>

#include "compiler/ir.h"
#include "kernels/common/scalar_program.h"
#include "kernels/common/status.h"

namespace kiln::compiler {

// Appends the steps of elementwise `op` to `prog`, reading `args` (value
// indices of `prog`; a quantized operand's value holds its storage integer).
// Returns the index of the result (the storage integer for a quantized
// result). Per-tensor parameters only: the spec defines elementwise ops and
// region bodies on per-tensor quantized values; per-axis operands are
// rewritten by compiler/passes/legalize_quantized_ops.cc before lowering.
StatusOr<uint16_t> AppendQuantizedOp(ScalarProgram* prog, const ir::Operation& op, const std::vector<uint16_t>& args);

}  // namespace kiln::compiler

// Elementwise ops on per-tensor quantized values, as the spec defines them:
// dequantize the quantized operands, apply the op in the expressed type,
// quantize the result, all in one kiln.elementwise program
// (compiler/lower/quantized_scalar.h builds the steps). When fusion is on,
// compiler/passes/legalize_quantized.cc has already rewritten the ops fusion
// can take whole into plain ops with these same steps; this builds the
// program for the rest (fusion off, dynamic shapes, quantized operands
// broadcast from rank 0). Per-axis operands never get here: the quantized
// legalization (compiler/passes/legalize_quantized_ops.cc) rewrites them
// into uniform_dequantize -> op -> uniform_quantize. Part of
// FunctionLowering (compiler/lower/function_lowering.h).
#include "compiler/lower/function_lowering.h"
#include "compiler/lower/kernel_params.h"
#include "compiler/lower/quantized_scalar.h"

namespace kiln::compiler {

Status FunctionLowering::LowerQuantizedElementwise(const ir::Operation& op) {
  ScalarProgram prog;
  std::vector<uint16_t> params;
  for (const auto* v : op.operands) {
    params.push_back(static_cast<uint16_t>(prog.param_types.size()));
    prog.param_types.push_back(v->type.element);
  }
  KILN_ASSIGN_OR_RETURN(uint16_t r, AppendQuantizedOp(&prog, op, params));
  prog.results.push_back(r);
  return EmitDispatch(op, ElementwiseKernel(std::move(prog)));
}

}  // namespace kiln::compiler

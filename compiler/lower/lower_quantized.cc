// Elementwise ops on per-tensor quantized values, as the spec defines them:
// dequantize the quantized operands, apply the op in the expressed type,
// quantize the result, all in one kiln.elementwise program. When fusion is
// on, compiler/passes/legalize_quantized.cc has already rewritten the ops
// fusion can take whole into plain ops with these same steps; this builds
// the program for the rest (fusion off, dynamic shapes, quantized operands
// broadcast from rank 0). Part of FunctionLowering
// (compiler/lower/function_lowering.h).
#include "compiler/lower/function_lowering.h"
#include "compiler/lower/kernel_params.h"
#include "kernels/scalar/scalar.h"

namespace kiln::compiler {

Status FunctionLowering::LowerQuantizedElementwise(const ir::Operation& op) {
  ScalarProgram prog;
  auto emit = [&](ScalarOp sop, ElementType type, std::vector<uint16_t> operands) {
    ScalarInstr in;
    in.op = sop;
    in.type = type;
    in.num_operands = static_cast<uint8_t>(operands.size());
    for (size_t i = 0; i < operands.size(); ++i) in.operands[i] = operands[i];
    prog.instrs.push_back(in);
    return static_cast<uint16_t>(prog.num_values() - 1);
  };
  auto constant = [&](ElementType type, double v) {
    ScalarInstr in;
    in.op = ScalarOp::kConstant;
    in.type = type;
    in.constant.re = ref::RoundToFloatType(type, v);  // a value of `type`, as Scalar requires
    prog.instrs.push_back(in);
    return static_cast<uint16_t>(prog.num_values() - 1);
  };
  auto per_tensor = [&](const ir::Type& t) {
    return !t.is_quantized() || (t.quant->scales.size() == 1 && t.quant->zero_points.size() == 1);
  };
  for (const auto* v : op.operands)
    if (!per_tensor(v->type)) return Unimplemented(op.name + " on per-axis quantized operands is not supported yet");
  if (!per_tensor(op.result()->type)) return Unimplemented(op.name + " with a per-axis quantized result is not supported yet");
  for (const auto* v : op.operands) prog.param_types.push_back(v->type.element);
  std::vector<uint16_t> args;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const ir::Type& t = op.operands[i]->type;
    uint16_t p = static_cast<uint16_t>(i);
    if (!t.is_quantized()) {
      args.push_back(p);
      continue;
    }
    ElementType e = t.quant->expressed;
    uint16_t x = emit(ScalarOp::kConvert, e, {p});
    uint16_t zp = constant(e, static_cast<double>(t.quant->zero_points[0]));
    uint16_t sc = constant(e, t.quant->scales[0]);
    args.push_back(emit(ScalarOp::kMultiply, e, {emit(ScalarOp::kSubtract, e, {x, zp}), sc}));
  }
  const ir::Type& rt = op.result()->type;
  KILN_ASSIGN_OR_RETURN(ScalarInstr in, ScalarInstrForOp(op, args));
  if (rt.is_quantized()) in.type = rt.quant->expressed;
  prog.instrs.push_back(in);
  uint16_t r = static_cast<uint16_t>(prog.num_values() - 1);
  if (rt.is_quantized()) {
    ElementType e = rt.quant->expressed;
    uint16_t q = emit(ScalarOp::kDivide, e, {r, constant(e, rt.quant->scales[0])});
    q = emit(ScalarOp::kRoundNearestEven, e, {q});
    q = emit(ScalarOp::kAdd, e, {q, constant(e, static_cast<double>(rt.quant->zero_points[0]))});
    q = emit(ScalarOp::kClamp, e, {constant(e, static_cast<double>(rt.quant->storage_min)), q,
                                   constant(e, static_cast<double>(rt.quant->storage_max))});
    r = emit(ScalarOp::kConvert, rt.element, {q});
  }
  prog.results.push_back(r);
  return EmitDispatch(op, ElementwiseKernel(std::move(prog)));
}

}  // namespace kiln::compiler

#include "compiler/lower/quantized_scalar.h"

#include "compiler/lower/kernel_params.h"
#include "compiler/quantized_ops.h"
#include "kernels/scalar/scalar.h"

namespace kiln::compiler {

StatusOr<uint16_t> AppendQuantizedOp(ScalarProgram* prog, const ir::Operation& op, const std::vector<uint16_t>& args) {
  auto emit = [&](ScalarOp sop, ElementType type, std::vector<uint16_t> operands) {
    ScalarInstr in;
    in.op = sop;
    in.type = type;
    in.num_operands = static_cast<uint8_t>(operands.size());
    for (size_t i = 0; i < operands.size(); ++i) in.operands[i] = operands[i];
    prog->instrs.push_back(in);
    return static_cast<uint16_t>(prog->num_values() - 1);
  };
  auto constant = [&](ElementType type, double v) {
    ScalarInstr in;
    in.op = ScalarOp::kConstant;
    in.type = type;
    in.constant.re = ref::RoundToFloatType(type, v);  // a value of `type`, as Scalar requires
    prog->instrs.push_back(in);
    return static_cast<uint16_t>(prog->num_values() - 1);
  };
  for (const auto* v : op.operands)
    if (!IsPerTensor(v->type)) return Unimplemented(op.name + " on per-axis quantized operands is not supported here");
  if (op.results.size() != 1 || !IsPerTensor(op.result()->type))
    return Unimplemented(op.name + " with a per-axis quantized result is not supported here");
  if (args.size() != op.operands.size()) return InvalidArgument(op.name + ": operand count mismatch");
  std::vector<uint16_t> xs;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const ir::Type& t = op.operands[i]->type;
    if (!t.is_quantized()) {
      xs.push_back(args[i]);
      continue;
    }
    ElementType e = t.quant->expressed;
    uint16_t x = emit(ScalarOp::kConvert, e, {args[i]});
    uint16_t zp = constant(e, static_cast<double>(t.quant->zero_points[0]));
    uint16_t sc = constant(e, t.quant->scales[0]);
    xs.push_back(emit(ScalarOp::kMultiply, e, {emit(ScalarOp::kSubtract, e, {x, zp}), sc}));
  }
  const ir::Type& rt = op.result()->type;
  KILN_ASSIGN_OR_RETURN(ScalarInstr in, ScalarInstrForOp(op, xs));
  if (rt.is_quantized()) in.type = rt.quant->expressed;
  prog->instrs.push_back(in);
  uint16_t r = static_cast<uint16_t>(prog->num_values() - 1);
  if (!rt.is_quantized()) return r;
  const ir::QuantType& q = *rt.quant;
  ElementType e = q.expressed;
  // The spec's order: the zero point is added before rounding (with an odd
  // zero point, round(x / scale) + zp can differ from round(x / scale + zp)
  // on a tie).
  uint16_t y = emit(ScalarOp::kDivide, e, {r, constant(e, q.scales[0])});
  y = emit(ScalarOp::kAdd, e, {y, constant(e, static_cast<double>(q.zero_points[0]))});
  y = emit(ScalarOp::kClamp, e, {constant(e, static_cast<double>(q.storage_min)), y,
                                 constant(e, static_cast<double>(q.storage_max))});
  y = emit(ScalarOp::kRoundNearestEven, e, {y});
  return emit(ScalarOp::kConvert, rt.element, {y});
}

}  // namespace kiln::compiler

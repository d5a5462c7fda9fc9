// The quantized legalization (compiler/passes/legalize.h): every op the spec
// defines on quantized tensors by dequantize_op_quantize (or, with a float
// lhs, hybrid_dequantize_then_op) and that no kernel runs on quantized
// values itself becomes, in place,
//   uniform_dequantize of each quantized operand
//   -> the op on the expressed type
//   -> uniform_quantize of each quantized result into its own type,
// per-tensor and per-axis parameters alike (the quantize kernels read either
// from the types, kernels/reference/elementwise_quantization.cc). Which ops
// that is comes from compiler/quantized_ops.h: the ops that move stored
// values, and the ones whose region bodies compute on quantized scalars,
// keep their quantized operands; elementwise ops on per-tensor values keep
// them too (their scalar program holds the same steps); elementwise ops on
// per-axis values are rewritten here.
#include <memory>
#include <vector>

#include "compiler/op_names.h"
#include "compiler/passes/ir_builder.h"
#include "compiler/passes/legalize.h"
#include "compiler/quantized_ops.h"

namespace kiln::compiler {
namespace {

bool Applies(const ir::Operation& op) {
  if (op.results.empty() || !op.regions.empty() || !TouchesQuantized(op)) return false;
  // Only the spec's ops: calls, test ops (check.*, interpreter.run_parallel)
  // and the compiler's own pass quantized values through as they are.
  if (op.name.rfind(op_names::kStablehloPrefix, 0) != 0 && op.name.rfind(op_names::kChloPrefix, 0) != 0) return false;
  if (op_names::IsKernelOp(op.name, KernelId::kUniformQuantize) ||
      op_names::IsKernelOp(op.name, KernelId::kUniformDequantize) || op.name == op_names::kCustomCall ||
      op.name.rfind(op_names::kKilnPrefix, 0) == 0 || op_names::IsConstant(op.name) ||
      op_names::IsScalarOp(op.name, ScalarOp::kBitcastConvert))
    return false;
  for (const auto& r : op.results)
    if (!r->type.is_tensor()) return false;
  switch (QuantizedFormOf(op.name)) {
    case QuantizedForm::kDequantizeOpQuantize: return true;
    case QuantizedForm::kElementwise: {
      bool per_axis = false;
      for (const ir::Value* v : op.operands) per_axis |= !IsPerTensor(v->type);
      for (const auto& r : op.results) per_axis |= !IsPerTensor(r->type);
      return per_axis;
    }
    default: return false;
  }
}

// Rewrites `block->ops[at]`; returns how many ops now stand in its place.
size_t Rewrite(ir::Block* block, size_t at) {
  ir::Operation& op = *block->ops[at];
  std::vector<std::unique_ptr<ir::Operation>> before, after;
  IrBuilder b(op, block, &before);
  const std::string dequantize(KernelName(KernelId::kUniformDequantize));
  const std::string quantize(KernelName(KernelId::kUniformQuantize));
  for (ir::Value*& v : op.operands)
    if (v->type.is_quantized()) v = b.Op(dequantize, {v}, ir::Type::Tensor(v->type.quant->expressed, v->type.dims));
  for (size_t i = 0; i < op.results.size(); ++i) {
    if (!op.results[i]->type.is_quantized()) continue;
    // The op now makes a value of the expressed type; a uniform_quantize
    // takes over the quantized result value (and its uses).
    auto plain = std::make_unique<ir::Value>();
    plain->type = ir::Type::Tensor(op.results[i]->type.quant->expressed, op.results[i]->type.dims);
    plain->def = &op;
    plain->index = static_cast<int>(i);
    auto q = std::make_unique<ir::Operation>();
    q->name = quantize;
    q->loc = op.loc;
    q->parent = block;
    q->operands = {plain.get()};
    std::swap(plain, op.results[i]);
    plain->def = q.get();
    plain->index = 0;
    q->results.push_back(std::move(plain));
    after.push_back(std::move(q));
  }
  const size_t n = before.size() + 1 + after.size();
  auto pos = block->ops.begin() + static_cast<std::ptrdiff_t>(at);
  pos = block->ops.insert(pos + 1, std::make_move_iterator(after.begin()), std::make_move_iterator(after.end()));
  pos = block->ops.begin() + static_cast<std::ptrdiff_t>(at);
  block->ops.insert(pos, std::make_move_iterator(before.begin()), std::make_move_iterator(before.end()));
  return n;
}

void LegalizeBlock(ir::Block* block) {
  for (size_t i = 0; i < block->ops.size();) {
    ir::Operation& op = *block->ops[i];
    for (auto& region : op.regions)
      for (auto& b : region->blocks) LegalizeBlock(b.get());
    i += Applies(op) ? Rewrite(block, i) : 1;
  }
}

}  // namespace

Status LegalizeQuantizedOps(ir::Module* module) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) LegalizeBlock(b.get());
  return Status::Ok();
}

}  // namespace kiln::compiler

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
// per-axis values are rewritten here. Two refinements: a contraction into
// its accumulation type computes in integers
// (compiler/passes/quantized_integer_contraction.h), and an operand of an op
// that keeps quantized operands is requantized first when its parameters
// are not the ones the kernel reads (StorageTarget). docs/quantization.md.
#include <memory>
#include <optional>
#include <vector>

#include "compiler/op_names.h"
#include "compiler/passes/ir_builder.h"
#include "compiler/passes/legalize.h"
#include "compiler/passes/quantized_integer_contraction.h"
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

bool SameQuantized(const ir::Type& a, const ir::Type& b) {
  return a.element == b.element && a.quant && b.quant && *a.quant == *b.quant;
}

// The block argument of `op`'s body that operand j flows into, or null.
const ir::Value* BodyArgOf(const ir::Operation& op, size_t j) {
  auto arg = [&](size_t region, size_t k) -> const ir::Value* {
    if (region >= op.regions.size() || op.regions[region]->blocks.empty()) return nullptr;
    const auto& args = op.regions[region]->blocks[0]->args;
    return k < args.size() ? args[k].get() : nullptr;
  };
  const size_t n = op.operands.size();
  if (op_names::IsKernelOp(op.name, KernelId::kReduce) || op_names::IsKernelOp(op.name, KernelId::kReduceWindow))
    return arg(0, j);  // inputs, then init_values: the body's arguments in the same order
  if (op_names::IsKernelOp(op.name, KernelId::kScatter)) {
    const size_t inputs = (n - 1) / 2;
    return j < inputs ? arg(0, j) : (j > inputs ? arg(0, j - 1) : nullptr);
  }
  if (op_names::IsKernelOp(op.name, KernelId::kSelectAndScatter))
    return j == 0 ? arg(0, 0) : (j == 1 ? arg(1, 1) : arg(1, 0));
  if (op_names::IsKernelOp(op.name, KernelId::kSort)) return arg(0, 2 * j);
  if (op_names::IsKernelOp(op.name, KernelId::kMap)) return arg(0, j);
  return nullptr;
}

// The type operand j of a storage or region-body op must have for the
// kernel to run on its stored integers, when that is not its own type: the
// result's for an op that moves values (the spec requires them equal; a
// program that differs is requantized rather than misread), the body
// argument's for a reduction body (the spec's promotion, e.g. i8 values
// into an i32 accumulator, applies to the storage type).
std::optional<ir::Type> StorageTarget(const ir::Operation& op, size_t j) {
  const ir::Type& t = op.operands[j]->type;
  if (!t.is_quantized() || !IsPerTensor(t)) return std::nullopt;
  const QuantizedForm form = QuantizedFormOf(op.name);
  const ir::Type* want = nullptr;
  if (form == QuantizedForm::kRegionBody) {
    const ir::Value* a = BodyArgOf(op, j);
    if (a) want = &a->type;
  } else if (form == QuantizedForm::kStorage && !op_names::HasVmRegions(op.name) && op.results.size() == 1 &&
             op.name.rfind(op_names::kStablehloPrefix, 0) == 0) {
    want = &op.result()->type;
  }
  if (!want || !want->is_quantized() || !IsPerTensor(*want) || SameQuantized(t, *want)) return std::nullopt;
  ir::Type r = *want;
  r.dims = t.dims;
  r.bounds = t.bounds;
  return r;
}

// Requantizes the operands StorageTarget names, in place (uniform_quantize
// from a quantized type is the spec's requantization); returns how many
// ops now stand in op's place.
size_t RequantizeOperands(ir::Block* block, size_t at) {
  ir::Operation& op = *block->ops[at];
  std::vector<std::unique_ptr<ir::Operation>> before;
  IrBuilder b(op, block, &before);
  for (size_t j = 0; j < op.operands.size(); ++j)
    if (auto target = StorageTarget(op, j))
      op.operands[j] = b.Op(KernelName(KernelId::kUniformQuantize), {op.operands[j]}, *target);
  const size_t n = before.size() + 1;
  block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at), std::make_move_iterator(before.begin()),
                    std::make_move_iterator(before.end()));
  return n;
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
    if (size_t n = RewriteIntegerContraction(block, i)) {
      i += n;
    } else if (Applies(op)) {
      i += Rewrite(block, i);
    } else if (TouchesQuantized(op) && op.name.rfind(op_names::kStablehloPrefix, 0) == 0) {
      i += RequantizeOperands(block, i);
    } else {
      ++i;
    }
  }  FoldZeroPointCorrections(block);
}

}  // namespace

Status LegalizeQuantizedOps(ir::Module* module) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) LegalizeBlock(b.get());
  return Status::Ok();
}

}  // namespace kiln::compiler

#include "compiler/passes/quantized_integer_contraction.h"

#include <cstring>
#include <memory>
#include <vector>

#include "compiler/op_names.h"
#include "compiler/passes/ir_builder.h"
#include "compiler/quantized_ops.h"
#include "kernels/scalar/scalar.h"

namespace kiln::compiler {
namespace {

bool IsContraction(const std::string& n) {
  return op_names::IsKernelOp(n, KernelId::kDotGeneral) || op_names::IsKernelOp(n, KernelId::kDot) ||
         op_names::IsKernelOp(n, KernelId::kConvolution) || op_names::IsKernelOp(n, KernelId::kDynamicConv);
}

bool IntegerStorage(const ir::Type& t, size_t max_bytes) {
  return t.is_quantized() && IsInteger(t.element) && StorageBytes(t.element) <= max_bytes;
}

// Whether the result's scales are the products of lhs and rhs scales,
// rounded as the expressed type holds them, with all zero points 0 but the
// lhs's (which the integer form subtracts).
bool ExactScales(const ir::Type& l, const ir::Type& r, const ir::Type& rt) {
  const ir::QuantType &lq = *l.quant, &rq = *r.quant, &oq = *rt.quant;
  const ElementType e = oq.expressed;
  if (!IsFloat(e) || lq.expressed != e || rq.expressed != e || !IsPerTensor(l)) return false;
  if ((rq.quantized_dimension >= 0) != (oq.quantized_dimension >= 0) || rq.scales.size() != oq.scales.size())
    return false;
  for (int64_t z : rq.zero_points)
    if (z != 0) return false;
  for (int64_t z : oq.zero_points)
    if (z != 0) return false;
  const double ls = ref::RoundToFloatType(e, lq.scales[0]);
  for (size_t k = 0; k < oq.scales.size(); ++k) {
    const double product = ref::RoundToFloatType(e, ls * ref::RoundToFloatType(e, rq.scales[k]));
    if (ref::RoundToFloatType(e, oq.scales[k]) != product) return false;
  }
  return true;
}

// A rank-0 f64 constant holding integer `v`.
ir::Value* F64(IrBuilder& b, int64_t v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kDense;
  a.type = ir::Type::Tensor(ElementType::kF64, {});
  const double x = static_cast<double>(v);
  a.dense_bytes.resize(8);
  std::memcpy(a.dense_bytes.data(), &x, 8);
  ir::Value* c = b.Op(ScalarOpName(ScalarOp::kConstant), {}, ir::Type::Tensor(ElementType::kF64, {}));
  c->def->attrs.emplace_back("value", std::move(a));
  return c;
}

}  // namespace

size_t RewriteIntegerContraction(ir::Block* block, size_t at) {
  ir::Operation& op = *block->ops[at];
  if (!IsContraction(op.name) || op.operands.size() < 2 || op.results.size() != 1) return 0;
  const ir::Type l = op.operands[0]->type, r = op.operands[1]->type, rt = op.result()->type;
  // Operands of at most 16 bits: each product is below 2^32, so f64 sums
  // them exactly up to 2^21 terms.
  if (!IntegerStorage(l, 2) || !IntegerStorage(r, 2) || !IntegerStorage(rt, 4) || !ExactScales(l, r, rt)) return 0;
  std::vector<std::unique_ptr<ir::Operation>> before;
  IrBuilder b(op, block, &before);
  const std::string bitcast(KernelName(KernelId::kBitcastConvert));
  const std::string convert(ScalarOpName(ScalarOp::kConvert));
  auto widen = [&](ir::Value* v) {
    ir::Value* stored = b.Op(bitcast, {v}, ir::Type::Tensor(v->type.element, v->type.dims));
    return b.Op(convert, {stored}, ir::Type::Tensor(ElementType::kF64, v->type.dims));
  };
  ir::Value* lhs = widen(op.operands[0]);
  if (const int64_t zp = l.quant->zero_points[0]; zp != 0) {
    ir::Value* z = F64(b, zp);
    // Of static shape, broadcast (fusion reads it back as one constant);
    // of dynamic shape, rank 0, which the elementwise kernels broadcast.
    if (l.HasStaticShape()) z = b.Broadcast(z, {}, l.dims);
    lhs = b.Op(ScalarOpName(ScalarOp::kSubtract), {lhs, z}, lhs->type);
  }
  op.operands[0] = lhs;
  op.operands[1] = widen(op.operands[1]);
  // The op now sums in f64; the quantized result value moves to the last op.
  auto acc = std::make_unique<ir::Value>();
  acc->type = ir::Type::Tensor(ElementType::kF64, rt.dims);
  acc->def = &op;
  std::unique_ptr<ir::Value> result = std::move(op.results[0]);
  op.results[0] = std::move(acc);
  std::vector<std::unique_ptr<ir::Operation>> after;
  IrBuilder a(op, block, &after);
  ir::Value* v = op.result();
  // The spec's quantize clamps to the storage range (rank-0 bounds, as
  // clamp allows); the clamped sum is an integer the storage type holds.
  v = a.Op(ScalarOpName(ScalarOp::kClamp), {F64(a, rt.quant->storage_min), v, F64(a, rt.quant->storage_max)}, v->type);
  v = a.Op(convert, {v}, ir::Type::Tensor(rt.element, rt.dims));
  auto back = std::make_unique<ir::Operation>();
  back->name = bitcast;
  back->loc = op.loc;
  back->parent = block;
  back->operands = {v};
  result->def = back.get();
  result->index = 0;
  back->results.push_back(std::move(result));
  after.push_back(std::move(back));
  const size_t n = before.size() + 1 + after.size();
  block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at) + 1, std::make_move_iterator(after.begin()),
                    std::make_move_iterator(after.end()));
  block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at), std::make_move_iterator(before.begin()),
                    std::make_move_iterator(before.end()));
  return n;
}

}  // namespace kiln::compiler

// Dynamic shapes: a `?` dimension of a result is computed at run time, in
// i64 registers, from the operands' dimensions (`dim`) and, for the dynamic
// ops, from the values of their shape operands. Each rule follows the op's
// shape inference in the spec. Part of FunctionLowering
// (compiler/lower/function_lowering.h).
#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "compiler/lower/function_lowering.h"
#include "compiler/op_names.h"
#include "compiler/lower/kernel_params.h"
#include "kernels/scalar/scalar.h"

namespace kiln::compiler {

using vm::Opcode;

// An i64 register holding dimension d of `v`.
uint32_t FunctionLowering::OperandDim(const ir::Value* v, int64_t d) {
  if (v->type.dims[d] != ir::Type::kDynamic) return ConstI64(v->type.dims[d]);
  uint32_t r = next_i64_++;
  body_.Emit(Opcode::kDim, r, Ref(v), static_cast<uint32_t>(d));
  return r;
}

uint32_t FunctionLowering::BinaryI64(Opcode code, uint32_t a, uint32_t b) {
  uint32_t r = next_i64_++;
  body_.Emit(code, r, a, b);
  return r;
}

// Element k of a 1-D integer tensor held in register `tensor`: a one-element
// slice on the device, then a load (which waits for it).
uint32_t FunctionLowering::LoadElement(uint32_t tensor, ElementType type, int64_t k) {
  KernelParams p;
  p.kernel = KernelName(KernelId::kSlice);
  p.attrs.push_back(KernelAttr{"start_indices", {k}, {}, "", false, {}});
  p.attrs.push_back(KernelAttr{"limit_indices", {k + 1}, {}, "", false, {}});
  p.attrs.push_back(KernelAttr{"strides", {1}, {}, "", false, {}});
  uint32_t exe = mb_->AddExecutable(std::move(p));
  uint32_t one = NewRef();
  body_.Emit(Opcode::kAlloc, one, static_cast<uint32_t>(type), std::vector<uint32_t>{ConstI64(1)});
  NoteDispatch(exe, std::string(KernelName(KernelId::kSlice)), {{type, 1}}, {{type, 1}});
  body_.Emit(Opcode::kDispatch, exe, std::vector<uint32_t>{tensor}, std::vector<uint32_t>{one});
  uint32_t r = next_i64_++;
  body_.Emit(Opcode::kLoadI64, r, one);
  return r;
}

uint32_t FunctionLowering::ShapeOperandElement(const ir::Value* shape, int64_t k) {
  return LoadElement(Ref(shape), shape->type.element, k);
}

// ceil((limit - start) / stride) per dimension of real_dynamic_slice, as an
// elementwise program on the device over its three index tensors.
StatusOr<uint32_t> FunctionLowering::SliceSizes(const ir::Operation& op) {
  ElementType t = op.operands.at(1)->type.element;
  auto instr = [&](ScalarOp op, uint16_t a, uint16_t b) {
    ScalarInstr in;
    in.op = op;
    in.type = t;
    in.num_operands = 2;
    in.operands[0] = a;
    in.operands[1] = b;
    return in;
  };
  ScalarProgram prog;
  prog.param_types = {t, t, t};                                  // 0 start, 1 limit, 2 strides
  prog.instrs.push_back(instr(ScalarOp::kSubtract, 1, 0)); // 3 = limit - start
  prog.instrs.push_back(instr(ScalarOp::kAdd, 3, 2)); // 4 = 3 + stride
  ScalarInstr one;
  one.op = ScalarOp::kConstant;
  one.type = t;
  one.constant.i = 1;
  one.constant.re = 1;
  prog.instrs.push_back(one);                                    // 5 = 1
  prog.instrs.push_back(instr(ScalarOp::kSubtract, 4, 5)); // 6 = 4 - 1
  prog.instrs.push_back(instr(ScalarOp::kDivide, 6, 2)); // 7 = 6 / stride
  prog.results.push_back(7);
  for (const auto& in : prog.instrs)
    if (in.op == ScalarOp::kInvalid) return Unimplemented("real_dynamic_slice: shape arithmetic is missing an op");
  uint32_t exe = mb_->AddExecutable(ElementwiseKernel(std::move(prog)));
  uint32_t sizes = NewRef();
  body_.Emit(Opcode::kAlloc, sizes, static_cast<uint32_t>(t), std::vector<uint32_t>{OperandDim(op.operands[1], 0)});
  NoteDispatch(exe, op.name, {{t, 1}, {t, 1}, {t, 1}}, {{t, 1}});
  body_.Emit(Opcode::kDispatch, exe, std::vector<uint32_t>{Ref(op.operands[1]), Ref(op.operands[2]), Ref(op.operands[3])}, std::vector<uint32_t>{sizes});
  return sizes;
}

namespace {

// Which run-time rule gives the `?` dimensions of an op's result: one row per
// op (the elementwise ops of kernels/common/scalar_ops.def and chlo's ops
// follow kSameShape without a row).
enum class DimRule {
  kShapeOperand0,  // element d of the shape operand 0
  kShapeOperand1,  // element d of the shape operand 1
  kSliceSizes,     // real_dynamic_slice: ceil((limit - start) / stride)
  kPad,
  kTranspose,
  kBroadcastInDim,
  kConcatenate,
  kReduce,  // the operand's dimensions that are not reduced
  kDotGeneral,
  kDot,
  kSameShape,  // an operand of the result's rank has the result's shape
};

DimRule RuleOf(const std::string& op_name, bool* found) {
  static const std::unordered_map<std::string_view, DimRule> kRules = {
      {"stablehlo.dynamic_broadcast_in_dim", DimRule::kShapeOperand1},
      {"stablehlo.dynamic_reshape", DimRule::kShapeOperand1},
      {"stablehlo.dynamic_iota", DimRule::kShapeOperand0},
      {"stablehlo.real_dynamic_slice", DimRule::kSliceSizes},
      {"stablehlo.dynamic_pad", DimRule::kPad},
      {"stablehlo.transpose", DimRule::kTranspose},
      {"stablehlo.broadcast_in_dim", DimRule::kBroadcastInDim},
      {"stablehlo.concatenate", DimRule::kConcatenate},
      {"stablehlo.reduce", DimRule::kReduce},
      {"stablehlo.argmax", DimRule::kReduce},
      {"stablehlo.dot_general", DimRule::kDotGeneral},
      {"stablehlo.dot", DimRule::kDot},
      {"stablehlo.sort", DimRule::kSameShape},
      {"stablehlo.reverse", DimRule::kSameShape},
      {"stablehlo.map", DimRule::kSameShape},
      {"stablehlo.cholesky", DimRule::kSameShape},
      {"stablehlo.uniform_quantize", DimRule::kSameShape},
      {"stablehlo.uniform_dequantize", DimRule::kSameShape},
      {"stablehlo.dynamic_update_slice", DimRule::kSameShape},
  };
  auto it = kRules.find(op_name);
  *found = it != kRules.end() || ElementwiseScalarOp(op_name) != ScalarOp::kInvalid || op_name.rfind(op_names::kChloPrefix, 0) == 0;
  return it != kRules.end() ? it->second : DimRule::kSameShape;
}

}  // namespace

StatusOr<uint32_t> FunctionLowering::DynamicResultDim(const ir::Operation& op, int64_t d,
                                                      const std::vector<const ir::Value*>* inputs) {
  const std::string& n = op.name;
  auto ints = [&](const char* name) {
    const ir::Attribute* a = op.GetAttr(name);
    auto v = a ? a->AsInts() : std::nullopt;
    return v ? *v : std::vector<int64_t>{};
  };
  auto unsupported = [&]() -> Status {
    return Unimplemented(n + ": a result of dynamic shape " + op.results.at(0)->type.ToString() +
                         " is not supported yet (no run-time shape rule for this op)");
  };
  bool found = false;
  const DimRule rule = RuleOf(n, &found);
  if (!found) return unsupported();
  switch (rule) {
  case DimRule::kShapeOperand0: return ShapeOperandElement(op.operands.at(0), d);
  case DimRule::kShapeOperand1: return ShapeOperandElement(op.operands.at(1), d);
  case DimRule::kSliceSizes: {
    KILN_ASSIGN_OR_RETURN(uint32_t sizes, SliceSizes(op));
    return LoadElement(sizes, op.operands[1]->type.element, d);
  }
  case DimRule::kPad: {
    // lo + hi + dim + interior * max(dim - 1, 0)
    const ir::Value* x = op.operands.at(0);
    uint32_t dim = OperandDim(x, d);
    uint32_t lo = ShapeOperandElement(op.operands.at(2), d);
    uint32_t hi = ShapeOperandElement(op.operands.at(3), d);
    uint32_t interior = ShapeOperandElement(op.operands.at(4), d);
    uint32_t dm1 = BinaryI64(Opcode::kSubI64, dim, ConstI64(1));
    uint32_t neg = BinaryI64(Opcode::kCmpLtI64, dm1, ConstI64(0));
    uint32_t gaps = next_i64_++;
    body_.Emit(Opcode::kSelectI64, gaps, neg, ConstI64(0), dm1);
    uint32_t r = BinaryI64(Opcode::kAddI64, BinaryI64(Opcode::kAddI64, lo, hi), dim);
    return BinaryI64(Opcode::kAddI64, r, BinaryI64(Opcode::kMulI64, interior, gaps));
  }
  case DimRule::kTranspose: {
    auto perm = ints("permutation");
    if (d >= static_cast<int64_t>(perm.size())) return unsupported();
    return OperandDim(op.operands.at(0), perm[d]);
  }
  case DimRule::kBroadcastInDim: {
    auto bd = ints("broadcast_dimensions");
    const ir::Value* x = op.operands.at(0);
    for (size_t i = 0; i < bd.size(); ++i)
      if (bd[i] == d && x->type.dims[i] != 1) return OperandDim(x, static_cast<int64_t>(i));
    return unsupported();
  }
  case DimRule::kConcatenate: {
    int64_t axis = ints("dimension").empty() ? 0 : ints("dimension")[0];
    if (d != axis) return OperandDim(op.operands.at(0), d);
    uint32_t sum = ConstI64(0);
    for (const auto* v : op.operands) sum = BinaryI64(Opcode::kAddI64, sum, OperandDim(v, d));
    return sum;
  }
  case DimRule::kReduce: {
    auto reduced = ints("dimensions");
    const ir::Value* x = op.operands.at(0);
    int64_t k = -1;
    for (int64_t i = 0; i < x->type.rank(); ++i) {
      if (std::find(reduced.begin(), reduced.end(), i) != reduced.end()) continue;
      if (++k == d) return OperandDim(x, i);
    }
    return unsupported();
  }
  case DimRule::kDotGeneral:
  case DimRule::kDot: {
    const ir::Value* lhs = op.operands.at(0);
    const ir::Value* rhs = op.operands.at(1);
    auto lb = ints("lhs_batching_dimensions"), lc = ints("lhs_contracting_dimensions");
    auto rb = ints("rhs_batching_dimensions"), rc = ints("rhs_contracting_dimensions");
    if (rule == DimRule::kDot) {
      lc = {lhs->type.rank() - 1};
      rc = {0};
    }
    std::vector<std::pair<const ir::Value*, int64_t>> order;
    for (int64_t b : lb) order.push_back({lhs, b});
    auto in = [](const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); };
    for (int64_t i = 0; i < lhs->type.rank(); ++i)
      if (!in(lb, i) && !in(lc, i)) order.push_back({lhs, i});
    for (int64_t i = 0; i < rhs->type.rank(); ++i)
      if (!in(rb, i) && !in(rc, i)) order.push_back({rhs, i});
    if (d >= static_cast<int64_t>(order.size())) return unsupported();
    return OperandDim(order[d].first, order[d].second);
  }
  case DimRule::kSameShape: {
    const ir::Type& rt = op.results.at(0)->type;
    std::vector<const ir::Value*> read(op.operands.begin(), op.operands.end());
    if (inputs) read = *inputs;  // a fused chain: only its inputs are in registers
    for (const auto* v : read)
      if (v->type.is_tensor() && v->type.rank() == rt.rank() &&
          (ElementwiseScalarOp(n) != ScalarOp::kBitcastConvert ||
           StorageBytes(v->type.element) == StorageBytes(rt.element)))
        return OperandDim(v, d);
  }
  }
  return unsupported();
}

}  // namespace kiln::compiler

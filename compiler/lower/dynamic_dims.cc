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
  kOperandOfResult,  // result i has operand i's shape (scatter, all_reduce, ...)
  kOperand1,         // operand 1's shape (triangular_solve: b)
  kGather,           // start_indices' batch dimensions and slice_sizes
  kDynamicGather,    // the same, with slice_sizes from operand 2
  kReduceWindow,     // the number of windows per dimension
  kConvolution,      // batch / batch_group_count, windows, kernel output features
  kStaticPad,        // pad: lo + hi + dim + interior * max(dim - 1, 0)
  kSlice,            // ceil((limit - start) / stride), from the attributes
  kDynamicSlice,     // slice_sizes
  kReshape,          // the one `?`: the operand's element count over the rest
  kBatchNorm,        // result 0: the operand; the others: its feature dimension
  kFft,              // the operand's, with the last dimensions from fft_length
  kShapeOperand2,    // rng: element d of the shape operand 2
  kCollectiveResize, // all_gather, reduce_scatter, all_to_all: one dimension times or over the group size
  kTopK,             // chlo.top_k: the operand's, the last dimension k
  kLeadingBatch,     // the LAPACK kernels (kiln.lu, geqrf, ...): a batch dimension is the matrices' (each matrix static)
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
      {"stablehlo.select_and_scatter", DimRule::kSameShape},
      {"stablehlo.reduce_precision", DimRule::kSameShape},
      {"stablehlo.scatter", DimRule::kOperandOfResult},
      {"stablehlo.all_reduce", DimRule::kOperandOfResult},
      {"stablehlo.collective_permute", DimRule::kOperandOfResult},
      {"stablehlo.collective_broadcast", DimRule::kOperandOfResult},
      {"stablehlo.optimization_barrier", DimRule::kOperandOfResult},
      {"stablehlo.triangular_solve", DimRule::kOperand1},
      {"stablehlo.gather", DimRule::kGather},
      {"stablehlo.dynamic_gather", DimRule::kDynamicGather},
      {"stablehlo.reduce_window", DimRule::kReduceWindow},
      {"stablehlo.convolution", DimRule::kConvolution},
      {"stablehlo.dynamic_conv", DimRule::kConvolution},
      {"stablehlo.collective_reduce", DimRule::kOperandOfResult},
      {"stablehlo.pad", DimRule::kStaticPad},
      {"stablehlo.slice", DimRule::kSlice},
      {"stablehlo.dynamic_slice", DimRule::kDynamicSlice},
      {"stablehlo.reshape", DimRule::kReshape},
      {"stablehlo.batch_norm_inference", DimRule::kBatchNorm},
      {"stablehlo.batch_norm_training", DimRule::kBatchNorm},
      {"stablehlo.batch_norm_grad", DimRule::kBatchNorm},
      {"stablehlo.fft", DimRule::kFft},
      {"stablehlo.rng", DimRule::kShapeOperand2},
      {"stablehlo.all_gather", DimRule::kCollectiveResize},
      {"stablehlo.reduce_scatter", DimRule::kCollectiveResize},
      {"stablehlo.all_to_all", DimRule::kCollectiveResize},
      {"chlo.top_k", DimRule::kTopK},
      {"kiln.lu", DimRule::kLeadingBatch},
      {"kiln.geqrf", DimRule::kLeadingBatch},
      {"kiln.orgqr", DimRule::kLeadingBatch},
      {"kiln.syevd", DimRule::kLeadingBatch},
      {"kiln.gesdd", DimRule::kLeadingBatch},
      {"kiln.gesvd", DimRule::kLeadingBatch},
      {"kiln.geev", DimRule::kLeadingBatch},
      {"kiln.gees", DimRule::kLeadingBatch},
      {"kiln.gehrd", DimRule::kLeadingBatch},
      {"kiln.sytrd", DimRule::kLeadingBatch},
      {"kiln.gtsv", DimRule::kLeadingBatch},
      {"kiln.geqp3", DimRule::kLeadingBatch},
  };
  auto it = kRules.find(op_name);
  *found = it != kRules.end() || ElementwiseScalarOp(op_name) != ScalarOp::kInvalid || op_name.rfind(op_names::kChloPrefix, 0) == 0;
  return it != kRules.end() ? it->second : DimRule::kSameShape;
}

}  // namespace

StatusOr<uint32_t> FunctionLowering::DynamicResultDim(const ir::Operation& op, int64_t d,
                                                      const std::vector<const ir::Value*>* inputs, int result_index) {
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
  case DimRule::kOperandOfResult: {
    if (result_index >= static_cast<int>(op.operands.size())) return unsupported();
    return OperandDim(op.operands[result_index], d);
  }
  case DimRule::kOperand1: return OperandDim(op.operands.at(1), d);
  case DimRule::kShapeOperand2: return ShapeOperandElement(op.operands.at(2), d);
  case DimRule::kGather:
  case DimRule::kDynamicGather: {
    // The spec's shape: offset_dims take slice_sizes without the collapsed
    // and operand-batching dimensions, in order; the other dimensions take
    // start_indices' dimensions without index_vector_dim, in order.
    auto offset = ints("offset_dims"), collapsed = ints("collapsed_slice_dims");
    auto batching = ints("operand_batching_dims");
    const ir::Value* x = op.operands.at(0);
    const ir::Value* idx = op.operands.at(1);
    const ir::Attribute* ivd_attr = op.GetAttr("index_vector_dim");
    const int64_t ivd = ivd_attr ? ivd_attr->i : idx->type.rank();
    auto in = [](const std::vector<int64_t>& v, int64_t e) { return std::find(v.begin(), v.end(), e) != v.end(); };
    auto pos = std::find(offset.begin(), offset.end(), d);
    if (pos != offset.end()) {
      int64_t k = pos - offset.begin(), seen = -1;
      for (int64_t i = 0; i < x->type.rank(); ++i) {
        if (in(collapsed, i) || in(batching, i) || ++seen != k) continue;
        if (rule == DimRule::kDynamicGather) return ShapeOperandElement(op.operands.at(2), i);
        auto sizes = ints("slice_sizes");
        if (i >= static_cast<int64_t>(sizes.size())) return unsupported();
        return ConstI64(sizes[i]);
      }
      return unsupported();
    }
    int64_t k = 0;
    for (int64_t i = 0; i < d; ++i) k += in(offset, i) ? 0 : 1;
    for (int64_t i = 0, seen = -1; i < idx->type.rank(); ++i)
      if (i != ivd && ++seen == k) return OperandDim(idx, i);
    return unsupported();
  }
  case DimRule::kReduceWindow:
  case DimRule::kConvolution: {
    // num_windows: 0 for an empty padded input or a window wider than it,
    // else floor((padded - dilated_window) / stride) + 1, where
    // dilated(n, k) = n == 0 ? 0 : (n - 1) * k + 1.
    auto sel = [&](uint32_t c, uint32_t a, uint32_t b) {
      uint32_t r = next_i64_++;
      body_.Emit(Opcode::kSelectI64, r, c, a, b);
      return r;
    };
    auto dilated = [&](uint32_t n, int64_t k) {
      uint32_t zero = BinaryI64(Opcode::kCmpEqI64, n, ConstI64(0));
      uint32_t v = BinaryI64(Opcode::kAddI64, BinaryI64(Opcode::kMulI64, BinaryI64(Opcode::kSubI64, n, ConstI64(1)),
                                                        ConstI64(k)), ConstI64(1));
      return sel(zero, ConstI64(0), v);
    };
    auto windows = [&](uint32_t n, uint32_t lo, uint32_t hi, int64_t base_dilation, uint32_t window,
                       int64_t window_dilation, int64_t stride) {
      uint32_t padded = BinaryI64(Opcode::kAddI64, BinaryI64(Opcode::kAddI64, dilated(n, base_dilation), lo), hi);
      uint32_t w = dilated(window, window_dilation);
      uint32_t empty = BinaryI64(Opcode::kOrI64, BinaryI64(Opcode::kCmpLeI64, padded, ConstI64(0)),
                                 BinaryI64(Opcode::kCmpLtI64, padded, w));
      uint32_t count = BinaryI64(Opcode::kAddI64,
                                 BinaryI64(Opcode::kDivI64, BinaryI64(Opcode::kSubI64, padded, w), ConstI64(stride)),
                                 ConstI64(1));
      return sel(empty, ConstI64(0), count);
    };
    auto at = [](const std::vector<int64_t>& v, size_t i, int64_t dflt) { return i < v.size() ? v[i] : dflt; };
    auto padding = ints("padding");
    // dynamic_conv's padding is its operand 2 ([spatial, 2]), read at run
    // time through a 1-D view.
    uint32_t pad_values = 0;
    const bool dynamic_conv = n == "stablehlo.dynamic_conv";
    if (dynamic_conv) {
      const ir::Value* pv = op.operands.at(2);
      if (pv->type.rank() != 2) return unsupported();
      pad_values = NewRef();
      body_.Emit(Opcode::kReshape, pad_values, Ref(pv),
                 std::vector<uint32_t>{BinaryI64(Opcode::kMulI64, OperandDim(pv, 0), ConstI64(2))});
    }
    auto pad = [&](size_t k) {
      return dynamic_conv ? LoadElement(pad_values, op.operands[2]->type.element, static_cast<int64_t>(k))
                          : ConstI64(k < padding.size() ? padding[k] : 0);
    };
    const ir::Value* x = op.operands.at(0);
    if (rule == DimRule::kReduceWindow) {
      auto window = ints("window_dimensions");
      auto strides = ints("window_strides"), base = ints("base_dilations"), wdil = ints("window_dilations");
      size_t i = static_cast<size_t>(d);
      if (i >= window.size()) return unsupported();
      return windows(OperandDim(x, d), pad(2 * i), pad(2 * i + 1), at(base, i, 1), ConstI64(window[i]),
                     at(wdil, i, 1), at(strides, i, 1));
    }
    const ir::Value* k = op.operands.at(1);
    auto num = [&](const char* name) -> int64_t {
      const ir::Attribute* a = op.GetAttr(name);
      return a ? a->i : -1;
    };
    if (d == num("output_batch_dimension")) {
      const int64_t groups = num("batch_group_count") > 0 ? num("batch_group_count") : 1;
      return BinaryI64(Opcode::kDivI64, OperandDim(x, num("input_batch_dimension")), ConstI64(groups));
    }
    if (d == num("output_feature_dimension")) return OperandDim(k, num("kernel_output_feature_dimension"));
    auto os = ints("output_spatial_dimensions"), is = ints("input_spatial_dimensions");
    auto ks = ints("kernel_spatial_dimensions");
    auto strides = ints("window_strides"), ldil = ints("lhs_dilation"), rdil = ints("rhs_dilation");
    for (size_t i = 0; i < os.size() && i < is.size() && i < ks.size(); ++i)
      if (os[i] == d)
        return windows(OperandDim(x, is[i]), pad(2 * i), pad(2 * i + 1), at(ldil, i, 1), OperandDim(k, ks[i]),
                       at(rdil, i, 1), at(strides, i, 1));
    return unsupported();
  }
  case DimRule::kStaticPad: {
    auto lo = ints("edge_padding_low"), hi = ints("edge_padding_high"), interior = ints("interior_padding");
    size_t i = static_cast<size_t>(d);
    if (i >= lo.size() || i >= hi.size() || i >= interior.size()) return unsupported();
    uint32_t dim = OperandDim(op.operands.at(0), d);
    uint32_t gaps = BinaryI64(Opcode::kMaxI64, BinaryI64(Opcode::kSubI64, dim, ConstI64(1)), ConstI64(0));
    uint32_t r = BinaryI64(Opcode::kAddI64, dim, ConstI64(lo[i] + hi[i]));
    return BinaryI64(Opcode::kAddI64, r, BinaryI64(Opcode::kMulI64, gaps, ConstI64(interior[i])));
  }
  case DimRule::kSlice: {
    auto start = ints("start_indices"), limit = ints("limit_indices"), strides = ints("strides");
    size_t i = static_cast<size_t>(d);
    if (i >= start.size() || i >= limit.size()) return unsupported();
    const int64_t stride = i < strides.size() && strides[i] > 0 ? strides[i] : 1;
    return ConstI64(SliceExtent(start[i], limit[i], stride));
  }
  case DimRule::kDynamicSlice: {
    auto sizes = ints("slice_sizes");
    if (d >= static_cast<int64_t>(sizes.size())) return unsupported();
    return ConstI64(sizes[d]);
  }
  case DimRule::kReshape: {
    // Only one `?` can be inferred: the element count over the static dims.
    const ir::Type& rt = op.results.at(0)->type;
    int64_t known = 1;
    for (int64_t i = 0; i < rt.rank(); ++i) {
      if (i == d) continue;
      if (rt.dims[i] == ir::Type::kDynamic) return unsupported();
      known *= rt.dims[i];
    }
    const ir::Value* x = op.operands.at(0);
    uint32_t count = ConstI64(1);
    for (int64_t i = 0; i < x->type.rank(); ++i) count = BinaryI64(Opcode::kMulI64, count, OperandDim(x, i));
    if (known == 0) return ConstI64(0);
    return BinaryI64(Opcode::kDivI64, count, ConstI64(known));
  }
  case DimRule::kBatchNorm: {
    const ir::Value* x = op.operands.at(0);
    if (result_index == 0) return OperandDim(x, d);
    const ir::Attribute* f = op.GetAttr("feature_index");
    if (!f || f->i < 0 || f->i >= x->type.rank()) return unsupported();
    return OperandDim(x, f->i);
  }
  case DimRule::kFft: {
    const ir::Value* x = op.operands.at(0);
    auto lengths = ints("fft_length");
    const int64_t first = x->type.rank() - static_cast<int64_t>(lengths.size());
    if (d < first) return OperandDim(x, d);
    const ir::Attribute* t = op.GetAttr("fft_type");
    const int64_t n = lengths.at(d - first);
    if (t && t->str == "RFFT" && d == x->type.rank() - 1) return ConstI64(n / 2 + 1);
    return ConstI64(n);
  }
  case DimRule::kCollectiveResize: {
    if (result_index >= static_cast<int>(op.operands.size())) return unsupported();
    const ir::Value* x = op.operands[result_index];
    auto num = [&](const char* name) -> int64_t {
      const ir::Attribute* a = op.GetAttr(name);
      return a ? a->i : -1;
    };
    if (n == "stablehlo.all_to_all") {
      const int64_t count = num("split_count");
      if (count <= 0) return unsupported();
      uint32_t r = OperandDim(x, d);
      if (d == num("split_dimension")) r = BinaryI64(Opcode::kDivI64, r, ConstI64(count));
      if (d == num("concat_dimension")) r = BinaryI64(Opcode::kMulI64, r, ConstI64(count));
      return r;
    }
    const bool gather = n == "stablehlo.all_gather";
    if (d != num(gather ? "all_gather_dim" : "scatter_dimension")) return OperandDim(x, d);
    // The group size: the second dimension of replica_groups, unless a
    // channel without use_global_device_ids makes each group span every
    // partition too (cross_replica_and_partition: a size known only from
    // the grid, as the verifier notes).
    const ir::Attribute* groups = op.GetAttr("replica_groups");
    const ir::Attribute* global_ids = op.GetAttr("use_global_device_ids");
    const bool global = global_ids && (global_ids->kind == ir::Attribute::Kind::kUnit ||
                                       (global_ids->kind == ir::Attribute::Kind::kBool && global_ids->b));
    const bool cross_partition = num("handle") > 0 && !global;
    if (!groups || groups->type.rank() != 2 || groups->type.dims[1] <= 0 || cross_partition) return unsupported();
    return BinaryI64(gather ? Opcode::kMulI64 : Opcode::kDivI64, OperandDim(x, d), ConstI64(groups->type.dims[1]));
  }
  case DimRule::kTopK: {
    const ir::Value* x = op.operands.at(0);
    if (d != x->type.rank() - 1) return OperandDim(x, d);
    const ir::Attribute* k = op.GetAttr("k");
    if (!k) return unsupported();
    return ConstI64(k->i);
  }
  case DimRule::kLeadingBatch: {
    // jnp.linalg under vmap: the batch is symbolic, each matrix static; the
    // batch dimensions lead the matrices (the operand of highest rank: all
    // but its last two dimensions) and every other operand and result.
    const ir::Value* x = op.operands.at(0);
    for (const ir::Value* v : op.operands)
      if (v->type.rank() > x->type.rank()) x = v;
    if (d < x->type.rank() - 2) return OperandDim(x, d);
    return unsupported();
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

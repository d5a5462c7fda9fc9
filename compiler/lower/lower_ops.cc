// The op table of function lowering: op name -> handler, for the ops that
// are not a dispatch of the kernel named like the op; LowerDefault takes the
// rest (elementwise ops as one-instruction kiln.elementwise programs, every
// other op as a dispatch of its kernel with its attributes flattened). Part
// of FunctionLowering (compiler/lower/function_lowering.h).
#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "compiler/lower/function_lowering.h"
#include "compiler/lower/kernel_params.h"
#include "compiler/op_names.h"
#include "compiler/quantized_ops.h"
#include "kernels/scalar/scalar.h"

namespace kiln::compiler {

namespace {
// Splat constants of at least this many bytes are written by a dispatch
// rather than stored (LowerConstant); smaller ones cost less as a constant
// than a dispatch per use.
constexpr size_t kSplatDispatchBytes = 64 * 1024;

// Whether `bytes` repeats one element of `width` bytes; its value in *value.
bool IsSplat(const std::vector<uint8_t>& bytes, size_t width, Scalar* value, ElementType type) {
  if (width == 0 || bytes.size() < width || bytes.size() % width != 0) return false;
  for (size_t i = width; i < bytes.size(); i += width)
    if (std::memcmp(bytes.data(), bytes.data() + i, width) != 0) return false;
  *value = ref::LoadScalar(type, bytes.data());
  return true;
}
}  // namespace

using vm::Opcode;

Status FunctionLowering::LowerOp(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc) {
  using L = FunctionLowering;
  static const std::unordered_map<std::string_view, Handler> kHandlers = {
      {"func.return", &L::LowerReturn},
      {"stablehlo.return", &L::LowerReturn},
      {"stablehlo.constant", &L::LowerConstant},
      {"kiln.parameter", &L::LowerParameter},
      {"ml_program.global_load", &L::LowerGlobalLoad},
      {"ml_program.global_store", &L::LowerGlobalStore},
      {"func.call", &L::LowerCall},
      {"call", &L::LowerCall},
      {"stablehlo.composite", &L::LowerComposite},
      {"stablehlo.while", &L::LowerWhileOp},
      {"stablehlo.if", &L::LowerIf},
      {"stablehlo.case", &L::LowerCase},
      {"stablehlo.get_dimension_size", &L::LowerGetDimensionSize},
      {"stablehlo.reshape", &L::LowerReshape},
      {"stablehlo.slice", &L::LowerSlice},
      {"stablehlo.dynamic_slice", &L::LowerDynamicSlice},
      {"stablehlo.async_start", &L::LowerAsyncStart},
      {"stablehlo.async_done", &L::LowerAsyncDone},
      {"stablehlo.tuple", &L::LowerTuple},
      {"stablehlo.get_tuple_element", &L::LowerGetTupleElement},
      {"stablehlo.optimization_barrier", &L::LowerOptimizationBarrier},
      {"stablehlo.after_all", &L::LowerMakeToken},
      {"stablehlo.create_token", &L::LowerMakeToken},
      {"stablehlo.replica_id", &L::LowerReplicaId},
      {"stablehlo.partition_id", &L::LowerPartitionId},
      {"stablehlo.bitcast_convert", &L::LowerBitcastConvert},
      {"stablehlo.custom_call", &L::LowerCustomCallOp},
      {"stablehlo.all_gather", &L::LowerCollectiveOp},
      {"stablehlo.all_reduce", &L::LowerCollectiveOp},
      {"stablehlo.reduce_scatter", &L::LowerCollectiveOp},
      {"stablehlo.all_to_all", &L::LowerCollectiveOp},
      {"stablehlo.collective_permute", &L::LowerCollectiveOp},
      {"stablehlo.collective_broadcast", &L::LowerCollectiveOp},
      {"stablehlo.collective_reduce", &L::LowerCollectiveOp},
      {"stablehlo.send", &L::LowerCollectiveOp},
      {"stablehlo.recv", &L::LowerCollectiveOp},
      {"stablehlo.infeed", &L::LowerCollectiveOp},
      {"stablehlo.outfeed", &L::LowerCollectiveOp},
      {"interpreter.run_parallel", &L::LowerRunParallelOp},
      {"check.expect_eq", &L::LowerExpectEq},
      {"check.expect_eq_const", &L::LowerExpectEqConst},
      {"check.expect_almost_eq", &L::LowerExpectAlmostEq},
      {"check.expect_almost_eq_const", &L::LowerExpectAlmostEqConst},
      {"check.expect_close", &L::LowerExpectClose},
      {"check.expect_serialized_eq", &L::LowerExpectSerializedEq},
      {"check.expect_all_true", &L::LowerExpectAllTrue},
      {"interpreter.probe", &L::LowerProbe},
      {"interpreter.print", &L::LowerPrint},
  };
  const std::string& n = op.name;
  // The test dialects are not checked by the verifier: every op of them
  // reads its first operand, and interpreter.probe forwards it as its result.
  if (n.rfind("check.", 0) == 0 || (n.rfind("interpreter.", 0) == 0 && n != "interpreter.run_parallel")) {
    if (op.operands.empty()) return InvalidArgument(n + " needs an operand");
    // Only probe defines a value; a result on any other would be a value
    // that no instruction writes.
    const size_t results = n == "interpreter.probe" ? 1 : 0;
    if (op.results.size() != results)
      return InvalidArgument(n + " has " + std::to_string(results) + " result" + (results == 1 ? "" : "s") +
                             ", not " + std::to_string(op.results.size()));
    for (const ir::Value* v : op.operands)
      if (!v->type.is_tensor()) return InvalidArgument(n + " reads tensors, not " + v->type.ToString());
    if (n == "interpreter.probe" && op.result()->type != op.operands[0]->type)
      return InvalidArgument(n + " returns its operand's type " + op.operands[0]->type.ToString() + ", not " +
                             op.result()->type.ToString());
  }
  auto it = kHandlers.find(n);
  if (it != kHandlers.end()) return (this->*(it->second))(op, yield, error_loc);
  return LowerDefault(op);
}

Status FunctionLowering::LowerReturn(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location*) {
  if (yield) {
    if (op.operands.size() != yield->size()) return InvalidArgument(op.name + " yields the wrong number of values");
    std::vector<Slot> to = *yield, from;
    for (size_t k = 0; k < op.operands.size(); ++k) {
      from.push_back(to[k].i64 ? Slot{true, I64(op.operands[k])} : Slot{false, Ref(op.operands[k])});
      if (to[k].i64 && to[k].reg == kYieldInPlace) to[k].reg = yielded_in_place_ = from[k].reg;
    }
    EmitMoves(to, from);
    return Status::Ok();
  }
  body_.Emit(Opcode::kReturn, Refs(op.operands));
  return Status::Ok();
}

Status FunctionLowering::LowerConstant(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  const ir::Attribute* v = op.GetAttr("value");
  if (!v || v->kind != ir::Attribute::Kind::kDense) return Unimplemented(op.name + " needs a dense value");
  if (plan_.IsScalar(op.result()) && !v->dense_splat && v->dense_bytes.size() == StorageBytes(v->type.element)) {
    // On the scalar path: an i64 constant; the tensor only where a use needs it.
    i64_of_[op.result()] = ConstI64(ref::LoadScalar(v->type.element, v->dense_bytes.data()).i);
    scalar_constants_[op.result()] = v;
    return Status::Ok();
  }
  // A large splat (`dense<0.5> : tensor<16777216xf32>`, as the StableHLO
  // tools print a broadcast scalar) that fusion did not absorb into its
  // consumers' programs becomes a dispatch of a one-step program writing
  // that value everywhere: the module stores no 64 MB of copies, and loading
  // it allocates nothing for them (docs/architecture.md, "Splat constants").
  Scalar splat;
  const bool compact_splat = v->dense_splat && !v->dense_bytes.empty();  // the parser kept one element
  if (compact_splat) splat = ref::LoadScalar(v->type.element, v->dense_bytes.data());
  // (Only for a static result: a constant of dynamic type, IREE's
  // flow.tensor.dynamic_constant, is stored with its shape.)
  if (!v->type.is_quantized() && op.result()->type.HasStaticShape() &&
      (compact_splat || (v->dense_bytes.size() >= kSplatDispatchBytes &&
                         IsSplat(v->dense_bytes, StorageBytes(v->type.element), &splat, v->type.element)))) {
    ScalarProgram prog;
    ScalarInstr c;
    c.op = ScalarOp::kConstant;
    c.type = v->type.element;
    c.constant = splat;
    prog.instrs.push_back(c);
    prog.results.push_back(0);
    const std::vector<const ir::Value*> no_inputs;
    return EmitDispatch(op, ElementwiseKernel(std::move(prog)), &no_inputs);
  }
  ref_of_[op.result()] = ConstantFromDense(*v);
  return Status::Ok();
}

Status FunctionLowering::LowerCall(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  const ir::Attribute* callee = op.GetAttr("callee");
  auto it = callee ? function_index_.find(callee->str) : function_index_.end();
  if (it == function_index_.end()) return InvalidArgument("call to an unknown function");
  std::vector<uint32_t> results = DefineResults(op);
  mb_->call_uses.push_back(it->second);
  body_.Emit(Opcode::kCall, it->second, Refs(op.operands), results);
  return Status::Ok();
}

// The decomposition function is the composite's meaning.
Status FunctionLowering::LowerComposite(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  const ir::Attribute* d = op.GetAttr("decomposition");
  auto it = d ? function_index_.find(d->str) : function_index_.end();
  if (it == function_index_.end()) return InvalidArgument(op.name + " names an unknown decomposition");
  std::vector<uint32_t> results = DefineResults(op);
  mb_->call_uses.push_back(it->second);
  body_.Emit(Opcode::kCall, it->second, Refs(op.operands), results);
  return Status::Ok();
}

Status FunctionLowering::LowerWhileOp(const ir::Operation& op, const std::vector<Slot>*, ir::Location* error_loc) {
  return LowerWhile(op, error_loc);
}

// Branch 0 is the true branch: index 0 when the predicate is true.
Status FunctionLowering::LowerIf(const ir::Operation& op, const std::vector<Slot>*, ir::Location* error_loc) {
  uint32_t p = LoadPredicate(op.operands.at(0));
  uint32_t idx = next_i64_++;
  body_.Emit(Opcode::kSelectI64, idx, p, ConstI64(0), ConstI64(1));
  return LowerBranches(op, idx, error_loc);
}

Status FunctionLowering::LowerCase(const ir::Operation& op, const std::vector<Slot>*, ir::Location* error_loc) {
  return LowerBranches(op, LoadPredicate(op.operands.at(0)), error_loc);
}

Status FunctionLowering::LowerGetDimensionSize(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  const ir::Attribute* d = op.GetAttr("dimension");
  if (!d || d->i < 0 || d->i >= op.operands.at(0)->type.rank())
    return InvalidArgument(op.name + ": dimension out of range");
  uint32_t size = next_i64_++;
  body_.Emit(Opcode::kDim, size, Ref(op.operands[0]), static_cast<uint32_t>(d->i));
  // On the scalar path (compiler/passes/scalar_plan.h) the register is the
  // value; a tensor is written only where one is read.
  if (plan_.IsScalar(op.result())) {
    i64_of_[op.result()] = size;
    return Status::Ok();
  }
  body_.Emit(Opcode::kTensorFromI64, Define(op.result()), size, static_cast<uint32_t>(op.result()->type.element));
  return Status::Ok();
}

// A static reshape is a VM view change; any other is a kernel dispatch.
Status FunctionLowering::LowerReshape(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  if (!op.result()->type.HasStaticShape() || !op.operands[0]->type.is_tensor())
    return LowerDefault(op);
  std::vector<uint32_t> dims;
  for (int64_t d : op.result()->type.dims) dims.push_back(ConstI64(d));
  uint32_t r = Define(op.result());
  body_.Emit(Opcode::kReshape, r, Ref(op.operands[0]), dims);
  return Status::Ok();
}

// A static slice that is one contiguous run of its operand's bytes (unit
// dims, then one dim sliced with stride 1, then whole dims: a GRU's gate
// columns at batch 1, a batch element, a block of rows) starting at a
// multiple of 64 bytes is a VM view (subview); any other is a kernel
// dispatch that copies.
Status FunctionLowering::LowerSlice(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  const ir::Value* in = op.operands.empty() ? nullptr : op.operands[0];
  if (in == nullptr || op.results.size() != 1 || !in->type.is_tensor() || !in->type.HasStaticShape() ||
      !op.result()->type.HasStaticShape() || in->type.rank() == 0 || plan_.IsScalar(in) || plan_.IsScalar(op.result()))
    return LowerDefault(op);
  auto ints = [&](const char* name) {
    const ir::Attribute* a = op.GetAttr(name);
    return a ? a->AsInts() : std::nullopt;
  };
  const auto start = ints("start_indices"), limit = ints("limit_indices"), strides = ints("strides");
  const auto& dims = in->type.dims;
  const auto& out = op.result()->type.dims;
  const size_t rank = dims.size();
  if (!start || !limit || !strides || start->size() != rank || limit->size() != rank || strides->size() != rank ||
      out.size() != rank)
    return LowerDefault(op);
  // k: the first dim the result does not take one element of.
  size_t k = 0;
  while (k + 1 < rank && out[k] == 1) ++k;
  int64_t offset = 0, row = 1;
  for (size_t i = rank; i-- > 0;) {
    if (out[i] <= 0) return LowerDefault(op);
    if (i > k && (out[i] != dims[i] || (*start)[i] != 0 || (*strides)[i] != 1)) return LowerDefault(op);
    if (i == k && (*strides)[i] != 1 && out[i] != 1) return LowerDefault(op);
    offset += (*start)[i] * row;
    row *= dims[i];
  }
  const int64_t byte_offset = offset * static_cast<int64_t>(StorageBytes(in->type.element));
  if (byte_offset % 64 != 0) return LowerDefault(op);
  std::vector<uint32_t> result_dims;
  for (int64_t d : out) result_dims.push_back(ConstI64(d));
  const uint32_t src = Ref(in);
  body_.Emit(Opcode::kSubview, Define(op.result()), src, byte_offset, result_dims);
  return Status::Ok();
}

// A dynamic_slice whose result is one contiguous run of its operand (as
// LowerSlice's: a scan reading step i of [1, T, F], a batch element), with
// every start index that can move it on the scalar path (a loop counter) and
// each step of the run a multiple of 64 bytes, is a view (subview.at) at the
// offset of the spec's clamped starts: clamp(0, start, dim - size) times the
// step, summed. Indices whose values might not fit an i64 (ui64) take the
// dispatch.
std::optional<FunctionLowering::DynamicView> FunctionLowering::DynamicSliceView(const ir::Operation& op) const {
  if (op.operands.empty() || op.results.size() != 1) return std::nullopt;
  const ir::Value* in = op.operands[0];
  const ir::Type& out_type = op.result()->type;
  if (!in->type.is_tensor() || !in->type.HasStaticShape() || !out_type.HasStaticShape() || in->type.rank() == 0 ||
      in->type.is_quantized() || out_type.element != in->type.element || plan_.IsScalar(in) ||
      plan_.IsScalar(op.result()))
    return std::nullopt;
  const auto& dims = in->type.dims;
  const auto& out = out_type.dims;
  const size_t rank = dims.size();
  if (out.size() != rank || op.operands.size() != rank + 1) return std::nullopt;
  size_t k = 0;  // the first dim the result does not take one element of
  while (k + 1 < rank && out[k] == 1) ++k;
  for (size_t i = k + 1; i < rank; ++i)
    if (out[i] != dims[i]) return std::nullopt;
  DynamicView view;
  int64_t step = static_cast<int64_t>(StorageBytes(in->type.element));
  for (size_t i = rank; i-- > 0;) {
    if (out[i] <= 0 || out[i] > dims[i]) return std::nullopt;
    if (i <= k && out[i] < dims[i]) {
      const ir::Value* start = op.operands[i + 1];
      const ElementType t = start->type.element;
      if (!i64_of_.count(start) || !start->type.is_tensor() || start->type.rank() != 0 ||
          !(KindOf(t) == ElementKind::kSigned || (KindOf(t) == ElementKind::kUnsigned && BitWidth(t) <= 32)) || step % 64 != 0)
        return std::nullopt;
      view.terms.push_back({i + 1, dims[i] - out[i], step});
    }
    step *= dims[i];
  }
  return view;
}

Status FunctionLowering::LowerDynamicSlice(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  const std::optional<DynamicView> view = DynamicSliceView(op);
  if (!view) return LowerDefault(op);
  std::optional<uint32_t> offset;  // none yet: 0
  for (const DynamicView::Term& t : view->terms) {
    const uint32_t clamped = next_i64_++, scaled = next_i64_++;
    body_.Emit(Opcode::kMaxI64, clamped, I64(op.operands[t.operand]), ConstI64(0));
    body_.Emit(Opcode::kMinI64, clamped, clamped, ConstI64(t.max_start));
    body_.Emit(Opcode::kMulI64, scaled, clamped, ConstI64(t.step_bytes));
    if (offset) {
      const uint32_t sum = next_i64_++;
      body_.Emit(Opcode::kAddI64, sum, *offset, scaled);
      offset = sum;
    } else {
      offset = scaled;
    }
  }
  std::vector<uint32_t> result_dims;
  for (int64_t d : op.result()->type.dims) result_dims.push_back(ConstI64(d));
  const uint32_t src = Ref(op.operands[0]);
  body_.Emit(Opcode::kSubviewAt, Define(op.result()), src, offset.value_or(ConstI64(0)), result_dims);
  return Status::Ok();
}

// Kiln runs the body's op in order (the spec allows it: asynchrony is not
// guaranteed); the future holds its results as a list.
Status FunctionLowering::LowerAsyncStart(const ir::Operation& op, const std::vector<Slot>*, ir::Location* error_loc) {
  std::vector<uint32_t> values;
  for (size_t i = 0; i < op.result()->type.tuple_elements.size(); ++i) values.push_back(NewRef());
  KILN_RETURN_IF_ERROR(LowerRegionInto(*op.regions.at(0), {}, RefSlots(values), error_loc));
  body_.Emit(Opcode::kMakeList, Define(op.result()), values);
  return Status::Ok();
}

Status FunctionLowering::LowerAsyncDone(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  for (size_t i = 0; i < op.results.size(); ++i) {
    uint32_t r = Define(op.result(static_cast<int>(i)));
    body_.Emit(Opcode::kListGet, r, Ref(op.operands.at(0)), static_cast<uint32_t>(i));
  }
  return Status::Ok();
}

Status FunctionLowering::LowerTuple(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  uint32_t r = Define(op.result());
  body_.Emit(Opcode::kMakeList, r, Refs(op.operands));
  return Status::Ok();
}

Status FunctionLowering::LowerGetTupleElement(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  const ir::Attribute* idx = op.GetAttr("index");
  uint32_t r = Define(op.result());
  body_.Emit(Opcode::kListGet, r, Ref(op.operands.at(0)), static_cast<uint32_t>(idx ? idx->i : 0));
  return Status::Ok();
}

Status FunctionLowering::LowerOptimizationBarrier(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  for (size_t i = 0; i < op.results.size(); ++i) ref_of_[op.result(i)] = Ref(op.operands.at(i));
  return Status::Ok();
}

Status FunctionLowering::LowerMakeToken(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  body_.Emit(Opcode::kMakeToken, Define(op.result()));
  return Status::Ok();
}

Status FunctionLowering::LowerReplicaId(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  body_.Emit(Opcode::kReplicaId, Define(op.result()));
  return Status::Ok();
}

Status FunctionLowering::LowerPartitionId(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  body_.Emit(Opcode::kPartitionId, Define(op.result()));
  return Status::Ok();
}

// Between a quantized type and its own storage type: the same bits; any
// other bitcast is an elementwise op or a kernel.
Status FunctionLowering::LowerBitcastConvert(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  const ir::Type& rt = op.result()->type;
  const ir::Type& xt = op.operands.at(0)->type;
  if ((rt.is_quantized() || xt.is_quantized()) && rt.element == xt.element && rt.dims == xt.dims) {
    ref_of_[op.result()] = Ref(op.operands[0]);
    return Status::Ok();
  }
  return LowerDefault(op);
}

Status FunctionLowering::LowerCollectiveOp(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  return LowerCollective(op);
}

Status FunctionLowering::LowerRunParallelOp(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  return LowerRunParallel(op);
}

Status FunctionLowering::LowerDefault(const ir::Operation& op) {
  const std::string& n = op.name;
  const bool bitcast = ScalarOpFromName(n) == ScalarOp::kBitcastConvert;
  if (ScalarOpFromName(n) != ScalarOp::kInvalid && !bitcast &&
      (op.result()->type.is_quantized() ||
       std::any_of(op.operands.begin(), op.operands.end(), [](const ir::Value* v) { return v->type.is_quantized(); })))
    return LowerQuantizedElementwise(op);
  // Besides the quantize ops, only the ops that move stored values or apply a
  // region body to them run on quantized values (compiler/quantized_ops.h);
  // the quantized legalization has rewritten the others.
  const QuantizedForm form = QuantizedFormOf(n);
  const bool storage = form == QuantizedForm::kStorage || form == QuantizedForm::kRegionBody;
  // A requantizing producer (FuseRequantizeIntoContractions) stores its
  // result quantized.
  const bool quantize = storage || op_names::IsKernelOp(n, KernelId::kUniformQuantize) ||
                        op.GetAttr("product_type") != nullptr,
             dequantize = storage || op_names::IsKernelOp(n, KernelId::kUniformDequantize);
  for (const auto* v : op.operands)
    if (v->type.is_quantized() && !dequantize && !quantize)
      return Unimplemented(n + " on quantized operands (" + v->type.ToString() + ") is not supported yet");
  for (const auto& r : op.results)
    if (r->type.is_quantized() && !quantize)
      return Unimplemented(n + " with a quantized result (" + r->type.ToString() + ") is not supported yet");
  // Elementwise ops: a one-instruction scalar program.
  const ScalarOp sop = ElementwiseScalarOp(n);
  const bool same_width_bitcast = bitcast &&
                                  StorageBytes(op.operands.at(0)->type.element) == StorageBytes(op.result()->type.element) &&
                                  op.operands[0]->type.rank() == op.result()->type.rank();
  if (sop != ScalarOp::kInvalid && (!bitcast || same_width_bitcast)) {
    ScalarProgram prog;
    std::vector<uint16_t> params;
    for (const auto* v : op.operands) {
      params.push_back(static_cast<uint16_t>(prog.param_types.size()));
      prog.param_types.push_back(v->type.element);
    }
    KILN_ASSIGN_OR_RETURN(ScalarInstr in, ScalarInstrForOp(op, params));
    prog.instrs.push_back(in);
    prog.results.push_back(static_cast<uint16_t>(params.size()));
    return EmitDispatch(op, ElementwiseKernel(std::move(prog)));
  }
  KILN_ASSIGN_OR_RETURN(KernelParams p, KernelParamsForOp(op));
  return EmitDispatch(op, std::move(p));
}

}  // namespace kiln::compiler

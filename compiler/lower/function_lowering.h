// The lowering of one function to bytecode (compiler/lower/lowering.h runs
// it for every function). Its parts live in one file each:
//   function_lowering.cc  registers, blocks, control flow, dispatches
//   lower_ops.cc          the op name -> handler table and the handlers
//   lower_quantized.cc    elementwise ops on quantized values
//   dynamic_dims.cc       run-time sizes of `?` result dimensions
//   lower_checks.cc       the test dialects (check.*, interpreter.*)
//   lower_collectives.cc  collectives and run_parallel
// Each IR value lives in a ref register, except the rank-0 integer values of
// the scalar path (compiler/passes/scalar_plan.h), which live in i64
// registers; static dimensions are i64 registers loaded once in the
// function's prologue. Nothing is evaluated at compile time.
// Internal to compiler/lower/.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/ir.h"
#include "compiler/module_builder.h"
#include "compiler/passes/fuse_elementwise.h"
#include "compiler/passes/scalar_plan.h"
#include "kernels/common/status.h"
#include "vm/bytecode.h"

namespace kiln::compiler {

class FunctionLowering {
 public:
  FunctionLowering(const ir::Module& m, const ir::Function& f, ModuleBuilder* mb,
                   const std::map<std::string, uint32_t>& function_index)
      : module_(m), fn_(f), mb_(mb), function_index_(function_index) {}

  // Chains planned by the fusion pass (compiler/passes/fuse_elementwise.h), or null.
  void UseFusion(const ElementwiseFusion* fusion) { fusion_ = fusion; }

  StatusOr<FunctionOut> Lower(ir::Location* error_loc);

 private:
  using Opcode = vm::Opcode;
  uint32_t ConstI64(int64_t v) {
    auto it = const_i64_.find(v);
    if (it != const_i64_.end()) return it->second;
    return const_i64_[v] = next_i64_++;
  }
  uint32_t NewRef() { return next_ref_++; }
  uint32_t Define(const ir::Value* v) { return ref_of_[v] = NewRef(); }
  // A register of either bank: where a value lives, or where a block
  // argument or a region's result goes.
  struct Slot {
    bool i64 = false;
    uint32_t reg = 0;
  };
  // A yield slot that takes the yielded register as it is (yielded_in_place_).
  static constexpr uint32_t kYieldInPlace = UINT32_MAX;
  uint32_t LoadPredicate(const ir::Value* v) { return I64(v); }
  // A branch (br, br.if): its target is recorded for the shift applied when
  // the prologue is prepended. Returns where the target is stored, for
  // PatchTarget when it is not known yet.
  template <typename... Args>
  uint32_t EmitBranch(Opcode code, const Args&... args) {
    uint32_t at = body_.Emit(code, args...);
    jump_fixups_.push_back(at);
    return at;
  }
  static constexpr vm::BytecodeTarget kPatchedLater{0};
  // Records a dispatch's signature for the vulkan target (compiler/vulkan/target.cc).
  void NoteDispatch(uint32_t exe, const std::string& op, std::vector<std::pair<ElementType, size_t>> ins,
                    std::vector<std::pair<ElementType, size_t>> outs);
  template <typename In, typename Out>
  void NoteDispatch(uint32_t exe, const std::string& op, const In& ins, const Out& outs) {
    std::vector<std::pair<ElementType, size_t>> i, o;
    for (const auto& v : ins) i.push_back({v->type.element, static_cast<size_t>(v->type.rank())});
    for (const auto& v : outs) o.push_back({v->type.element, static_cast<size_t>(v->type.rank())});
    NoteDispatch(exe, op, std::move(i), std::move(o));
    for (const auto& v : ins) mb_->dispatch_uses.back().in_dims.push_back(v->type.dims);
  }

  // --- registers, blocks, control flow, dispatches (function_lowering.cc) ---
  uint32_t I64Load(uint32_t ref);
  // The ref register holding `v`. A scalar-path value is written into a
  // rank-0 tensor here, where it is needed; that tensor is reused by later
  // uses in the same block and the blocks nested in it (which it dominates).
  uint32_t Ref(const ir::Value* v);
  // Writes the tensors of the scalar-path operands that `op` reads as
  // tensors before any of op's own instructions, which then find them in
  // registers (an instruction's operands cannot be emitted inside it).
  void MaterializeOperands(const ir::Operation& op, const std::vector<Slot>* yield);
  // The i64 register holding scalar-path value `v`; a value that has none
  // here (an argument not loaded on entry) is read from its tensor.
  uint32_t I64(const ir::Value* v);
  std::vector<Slot> RefSlots(const std::vector<uint32_t>& regs);
  std::vector<uint32_t> Refs(const std::vector<ir::Value*>& vs);
  std::vector<uint32_t> DefineResults(const ir::Operation& op);
  // Allocates the result tensor of `v` into its register.
  // `inputs`: the values the dispatch reads, when they are not op's operands
  // (a fused chain); a dynamic dimension is taken from them.
  Status EmitAlloc(const ir::Value* v, uint32_t reg, const ir::Operation& op,
                   const std::vector<const ir::Value*>* inputs = nullptr);
  // `inputs`: the dispatch's inputs when they are not the op's operands (a
  // fused chain rooted at `op`).
  Status EmitDispatch(const ir::Operation& op, KernelParams params,
                      const std::vector<const ir::Value*>* inputs = nullptr);
  uint32_t ConstantFromDense(const ir::Attribute& a);
  // Lowers a block. If `yield` is set, the block's terminator
  // (stablehlo.return) moves its operands into those registers instead of
  // returning from the function.
  Status LowerBlock(const ir::Block& block, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerRegionInto(const ir::Region& region, const std::vector<Slot>& arg_slots,
                         const std::vector<Slot>& yield, ir::Location* error_loc);
  // Moves values into slots as if all at once (sources and destinations may
  // overlap): a move goes first when no pending move still reads its
  // destination; a cycle is broken through a temporary.
  void EmitMoves(const std::vector<Slot>& to, const std::vector<Slot>& from);
  Status LowerWhile(const ir::Operation& op, ir::Location* error_loc);
  // if and case: `index` selects a branch (case clamps out-of-range to the last).
  Status LowerBranches(const ir::Operation& op, uint32_t index_reg, ir::Location* error_loc);

  // --- the op table and its handlers (lower_ops.cc) ---
  // Every handler has this signature; `yield` is set inside a region whose
  // terminator moves its operands into those slots.
  using Handler = Status (FunctionLowering::*)(const ir::Operation& op, const std::vector<Slot>* yield,
                                               ir::Location* error_loc);
  Status LowerOp(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerReturn(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerConstant(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  // kiln.parameter (--params-from-args; compiler/lower/lower_parameter.cc).
  Status LowerParameter(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  // ml_program.global_load / global_store of mutable globals (lower_globals.cc).
  Status LowerGlobalLoad(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerGlobalStore(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerCall(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerComposite(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerWhileOp(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerIf(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerCase(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerGetDimensionSize(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerReshape(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerSlice(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerDynamicSlice(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  // A dynamic_slice that is a view of its operand (subview.at): per start
  // index that can move the view, its operand number, the largest start the
  // spec's clamp allows and the bytes one step moves. nullopt: a dispatch.
  struct DynamicView {
    struct Term {
      size_t operand;
      int64_t max_start, step_bytes;
    };
    std::vector<Term> terms;
  };
  std::optional<DynamicView> DynamicSliceView(const ir::Operation& op) const;
  Status LowerAsyncStart(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerAsyncDone(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerTuple(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerGetTupleElement(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerOptimizationBarrier(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerMakeToken(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerReplicaId(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerPartitionId(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerBitcastConvert(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerCollectiveOp(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerRunParallelOp(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  // What no handler claims: quantized refusals, elementwise ops as a
  // one-instruction program, every other op as a dispatch of its kernel.
  Status LowerDefault(const ir::Operation& op);
  // An elementwise op on per-tensor quantized values, as the spec defines
  // it: dequantize the quantized operands, apply the op in the expressed
  // type, quantize the result. One fused scalar program.
  Status LowerQuantizedElementwise(const ir::Operation& op);

  // --- dynamic shapes (dynamic_dims.cc) ---
  // An i64 register holding dimension d of `v`.
  uint32_t OperandDim(const ir::Value* v, int64_t d);
  uint32_t BinaryI64(Opcode code, uint32_t a, uint32_t b);
  // Element k of a 1-D integer tensor held in register `tensor`: a one-element
  // slice on the device, then a load (which waits for it).
  uint32_t LoadElement(uint32_t tensor, ElementType type, int64_t k);
  uint32_t ShapeOperandElement(const ir::Value* shape, int64_t k);
  // ceil((limit - start) / stride) per dimension of real_dynamic_slice, as an
  // elementwise program on the device over its three index tensors.
  StatusOr<uint32_t> SliceSizes(const ir::Operation& op);
  // Dimension d of result `result_index` of `op`, at run time.
  StatusOr<uint32_t> DynamicResultDim(const ir::Operation& op, int64_t d,
                                      const std::vector<const ir::Value*>* inputs, int result_index = 0);

  // --- test dialects and custom_call (lower_checks.cc) ---
  Status LowerCustomCallOp(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerExpectEq(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerExpectEqConst(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerExpectAlmostEq(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerExpectAlmostEqConst(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerExpectClose(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerExpectAllTrue(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerExpectSerializedEq(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerProbe(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerPrint(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc);
  Status LowerCheck(const ir::Operation& op, std::string_view kind, bool against_const);
  Status LowerCustomCall(const ir::Operation& op);
  Status LowerUserCall(const ir::Operation& op, const std::string& name);
  Status LowerShapeAssertion(const ir::Operation& op);  // JAX's @shape_assertion

  // --- collectives (lower_collectives.cc) ---
  // A collective (compiler/lower/lower_collectives.cc): tensor operands in,
  // preallocated tensor results out; tokens are VM tokens.
  Status LowerCollective(const ir::Operation& op);
  Status LowerRunParallel(const ir::Operation& op);

  const ir::Module& module_;
  const ir::Function& fn_;
  ModuleBuilder* mb_;
  const std::map<std::string, uint32_t>& function_index_;
  vm::BytecodeWriter body_;
  std::map<const ir::Value*, uint32_t> ref_of_;
  ScalarPlan plan_;
  uint32_t yielded_in_place_ = 0;
  std::map<const ir::Value*, uint32_t> i64_of_;                    // scalar-path values
  std::map<const ir::Value*, uint32_t> materialized_;              // their tensors, where in scope
  std::map<const ir::Value*, const ir::Attribute*> scalar_constants_;
  std::map<int64_t, uint32_t> const_i64_;
  std::vector<uint32_t> jump_fixups_;
  std::vector<FunctionOut::Loc> locations_;
  // The op being lowered (innermost), for the dispatches it records.
  ir::Location op_loc_;
  uint32_t next_i64_ = 0, next_ref_ = 0;
  const ElementwiseFusion* fusion_ = nullptr;
};

}  // namespace kiln::compiler

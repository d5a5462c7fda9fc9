// Function lowering: registers, blocks, control flow (while/if/case become
// branches, loops rotated with the condition at the bottom) and dispatches;
// and LowerModule, which runs it for every function
// (compiler/lower/function_lowering.h lists the other parts).
#include "compiler/lower/function_lowering.h"
#include "compiler/op_names.h"

#include <algorithm>
#include <cstring>

#include "compiler/lower/kernel_params.h"
#include "compiler/lower/lowering.h"
#include "compiler/lower/value_names.h"
#include "compiler/passes/memory_plan.h"
#include "kernels/kernel_table.h"

namespace kiln::compiler {
namespace {

SigOut SigOf(const ir::Type& t) {
  SigOut s;
  if (t.is_token()) s.kind = 1;
  else if (t.is_tuple()) s.kind = 2;
  else {
    s.type = t.element;
    for (int64_t d : t.dims) s.dims.push_back(d == ir::Type::kDynamic ? -1 : d);
  }
  return s;
}

// Refuses at compile time what the CPU runtime has no kernel for. The one
// place lowering asks whether a kernel exists.
Status CheckCpuKernelExists(const ir::Operation& op, const std::string& kernel) {
  if (FindKernelId(kernel)) return Status::Ok();
  std::string type = op.results.empty() ? (op.operands.empty() ? "" : op.operands[0]->type.ToString())
                                        : op.result()->type.ToString();
  return Unimplemented(op.name + " (" + type + ") is not supported by the cpu target yet");
}

// The donations an entry function's argument attributes declare:
// `tf.aliasing_output = N` (the argument's buffer may become result N) and
// `jax.buffer_donor = true` (it may become any result of its type). An
// index outside the results, or a donated token or tuple, is an error.
Status ReadDonations(const ir::Function& fn, std::vector<FunctionOut::Donation>* out) {
  const ir::Attribute* attrs = nullptr;
  for (const auto& na : fn.attrs)
    if (na.first == "arg_attrs" && na.second.kind == ir::Attribute::Kind::kArray) attrs = &na.second;
  if (!attrs) return Status::Ok();
  for (size_t i = 0; i < attrs->elements.size() && i < fn.arg_types.size(); ++i) {
    const ir::Attribute& a = attrs->elements[i];
    const ir::Attribute* alias = a.Field("tf.aliasing_output");
    const ir::Attribute* donor = a.Field("jax.buffer_donor");
    const bool is_donor = donor && (donor->kind == ir::Attribute::Kind::kUnit ||
                                    (donor->kind == ir::Attribute::Kind::kBool && donor->b));
    if (!alias && !is_donor) continue;
    const std::string where = "argument " + std::to_string(i) + " of @" + fn.name;
    if (fn.arg_types[i].is_token() || fn.arg_types[i].is_tuple())
      return InvalidArgument(where + " is donated but is not a tensor");
    int32_t output = -1;
    if (alias) {
      if (alias->kind != ir::Attribute::Kind::kInt || alias->i < 0 ||
          alias->i >= static_cast<int64_t>(fn.result_types.size()))
        return InvalidArgument(where + ": tf.aliasing_output must be a result index below " +
                               std::to_string(fn.result_types.size()));
      output = static_cast<int32_t>(alias->i);
    }
    out->push_back(FunctionOut::Donation{static_cast<uint32_t>(i), output});
  }
  return Status::Ok();
}

}  // namespace

using vm::Opcode;

StatusOr<FunctionOut> FunctionLowering::Lower(ir::Location* error_loc) {
  FunctionOut out;
  out.name = fn_.name;
  out.is_public = fn_.is_public;
  for (size_t i = 0; i < fn_.arg_types.size(); ++i) {
    out.args.push_back(SigOf(fn_.arg_types[i]));
    out.args.back().name = ArgumentSourceName(fn_, i);
  }
  for (size_t i = 0; i < fn_.result_types.size(); ++i) {
    out.results.push_back(SigOf(fn_.result_types[i]));
    out.results.back().name = ResultSourceName(fn_, i);
  }
  if (fn_.is_public) KILN_RETURN_IF_ERROR(ReadDonations(fn_, &out.donations));
  // Arguments arrive in r0..rN-1 (the VM's calling convention).
  const ir::Block& entry = *fn_.body.blocks.at(0);
  for (const auto& a : entry.args) ref_of_[a.get()] = next_ref_++;
  // Results leave through r0..; the registers are reused, so reserve enough.
  next_ref_ = std::max<uint32_t>(next_ref_, static_cast<uint32_t>(fn_.result_types.size()));
  plan_ = PlanScalars(fn_);
  for (const auto& a : entry.args)
    if (plan_.entry_loads.count(a.get())) {
      uint32_t r = i64_of_[a.get()] = next_i64_++;
      body_.Emit(Opcode::kLoadI64, r, Ref(a.get()));
    }
  Status s = LowerBlock(entry, nullptr, error_loc);
  if (!s.ok()) return s;
  if (!body_.error().empty()) return Internal(fn_.name + ": " + body_.error());
  // Prologue: constant i64 registers, then the body with shifted targets.
  vm::BytecodeWriter prologue;
  for (const auto& [value, reg] : const_i64_) prologue.Emit(Opcode::kConstI64, reg, value);
  uint32_t shift = prologue.pc();
  for (uint32_t at : jump_fixups_) {
    uint32_t t;
    std::memcpy(&t, body_.bytes().data() + at, 4);
    body_.PatchTarget(at, t + shift);
  }
  out.bytecode = prologue.bytes();
  out.bytecode.insert(out.bytecode.end(), body_.bytes().begin(), body_.bytes().end());
  for (auto l : locations_) out.locations.push_back({l.pc + shift, l.line, l.col});
  out.num_i64_registers = next_i64_;
  out.num_ref_registers = std::max<uint32_t>(next_ref_, 1);
  return out;
}

uint32_t FunctionLowering::I64Load(uint32_t ref) {
  uint32_t r = next_i64_++;
  body_.Emit(Opcode::kLoadI64, r, ref);
  return r;
}

// The ref register holding `v`. A scalar-path value is written into a
// rank-0 tensor here, where it is needed; that tensor is reused by later
// uses in the same block and the blocks nested in it (which it dominates).
uint32_t FunctionLowering::Ref(const ir::Value* v) {
  auto it = ref_of_.find(v);
  if (it != ref_of_.end()) return it->second;
  auto m = materialized_.find(v);
  if (m != materialized_.end()) return m->second;
  auto c = scalar_constants_.find(v);
  if (c != scalar_constants_.end()) return materialized_[v] = ConstantFromDense(*c->second);
  uint32_t reg = NewRef();
  body_.Emit(Opcode::kTensorFromI64, reg, i64_of_.at(v), static_cast<uint32_t>(v->type.element));
  return materialized_[v] = reg;
}

// Writes the tensors of the scalar-path operands that `op` reads as
// tensors before any of op's own instructions, which then find them in
// registers (an instruction's operands cannot be emitted inside it).
void FunctionLowering::MaterializeOperands(const ir::Operation& op, const std::vector<Slot>* yield) {
  // A shape assertion reads its operands in registers (lower_checks.cc).
  if (op.name == op_names::kCustomCall)
    if (const ir::Attribute* t = op.GetAttr("call_target_name");
        t && (t->str == "shape_assertion" || t->str == "stablehlo.shape_assertion"))
      return;
  // A dynamic_slice taken as a view (not a fused group's dispatch) reads its
  // start indices in registers.
  const bool starts_in_registers = op.name == "stablehlo.dynamic_slice" && !(fusion_ && fusion_->GroupAt(&op)) &&
                                   DynamicSliceView(op).has_value();
  for (size_t k = 0; k < op.operands.size(); ++k) {
    const ir::Value* v = op.operands[k];
    if (ref_of_.count(v) || (!i64_of_.count(v) && !scalar_constants_.count(v))) continue;
    if (starts_in_registers && k > 0) continue;
    if (op.name == op_names::kWhile && k < op.results.size() && plan_.IsScalar(op.result(static_cast<int>(k))))
      continue;
    if ((op.name == op_names::kIf || op.name == op_names::kCase) && k == 0) continue;
    if (yield && op_names::IsReturn(op.name) && k < yield->size() && (*yield)[k].i64)
      continue;
    (void)Ref(v);
  }
}

// The i64 register holding scalar-path value `v`; a value that has none
// here (an argument not loaded on entry) is read from its tensor.
uint32_t FunctionLowering::I64(const ir::Value* v) {
  auto it = i64_of_.find(v);
  if (it != i64_of_.end()) return it->second;
  return I64Load(Ref(v));
}

std::vector<FunctionLowering::Slot> FunctionLowering::RefSlots(const std::vector<uint32_t>& regs) {
  std::vector<Slot> slots;
  for (uint32_t r : regs) slots.push_back(Slot{false, r});
  return slots;
}

std::vector<uint32_t> FunctionLowering::Refs(const std::vector<ir::Value*>& vs) {
  std::vector<uint32_t> r;
  for (auto* v : vs) r.push_back(Ref(v));
  return r;
}

std::vector<uint32_t> FunctionLowering::DefineResults(const ir::Operation& op) {
  std::vector<uint32_t> regs;
  for (const auto& r : op.results) regs.push_back(Define(r.get()));
  return regs;
}

// Allocates the result tensor of `v` into its register.
// `inputs`: the values the dispatch reads, when they are not op's operands
// (a fused chain); a dynamic dimension is taken from them.
Status FunctionLowering::EmitAlloc(const ir::Value* v, uint32_t reg, const ir::Operation& op,
                                   const std::vector<const ir::Value*>* inputs) {
  const ir::Type& t = v->type;
  if (!t.is_tensor()) return Unimplemented(op.name + ": results of type " + t.ToString() + " are not supported yet");
  std::vector<uint32_t> dims;
  for (int64_t d = 0; d < t.rank(); ++d) {
    if (t.dims[d] != ir::Type::kDynamic) {
      dims.push_back(ConstI64(t.dims[d]));
      continue;
    }
    KILN_ASSIGN_OR_RETURN(uint32_t reg_d, DynamicResultDim(op, d, inputs, v->def == &op ? v->index : 0));
    dims.push_back(reg_d);
  }
  body_.Emit(Opcode::kAlloc, reg, static_cast<uint32_t>(t.element), dims);
  return Status::Ok();
}

// Records a dispatch's signature for the vulkan target (compiler/vulkan/target.cc).
void FunctionLowering::NoteDispatch(uint32_t exe, const std::string& op,
                                    std::vector<std::pair<ElementType, size_t>> ins,
                                    std::vector<std::pair<ElementType, size_t>> outs) {
  DispatchUse u;
  u.executable = exe;
  u.op = op;
  u.loc = op_loc_;
  for (auto& [t, r] : ins) u.in_types.push_back(t), u.in_ranks.push_back(static_cast<uint8_t>(r));
  for (auto& [t, r] : outs) u.out_types.push_back(t), u.out_ranks.push_back(static_cast<uint8_t>(r));
  mb_->dispatch_uses.push_back(std::move(u));
}

// `inputs`: the dispatch's inputs when they are not the op's operands (a
// fused chain rooted at `op`).
Status FunctionLowering::EmitDispatch(const ir::Operation& op, KernelParams params,
                                      const std::vector<const ir::Value*>* inputs) {
  KILN_RETURN_IF_ERROR(CheckCpuKernelExists(op, params.kernel));
  uint32_t exe = mb_->AddExecutable(std::move(params));
  std::vector<const ir::Value*> in_values(op.operands.begin(), op.operands.end());
  if (inputs) in_values = *inputs;
  std::vector<uint32_t> outs;
  for (const auto& r : op.results) {
    uint32_t reg = Define(r.get());
    KILN_RETURN_IF_ERROR(EmitAlloc(r.get(), reg, op, &in_values));
    outs.push_back(reg);
  }
  std::vector<uint32_t> ins;
  for (const auto* v : in_values) ins.push_back(Ref(v));
  for (const auto* v : in_values)
    if (!v->type.is_tensor()) return Unimplemented(op.name + ": operands of type " + v->type.ToString() + " are not supported");
  NoteDispatch(exe, op.name, in_values, op.results);
  body_.Emit(Opcode::kDispatch, exe, ins, outs);
  return Status::Ok();
}

uint32_t FunctionLowering::ConstantFromDense(const ir::Attribute& a) {
  ConstantOut c;
  c.type = a.type.element;
  c.dims = a.type.dims;
  c.data = a.ExpandedDenseBytes();  // a quantized compact splat is stored whole
  uint32_t index = mb_->AddConstant(std::move(c));
  uint32_t reg = NewRef();
  body_.Emit(Opcode::kConstRef, reg, index);
  return reg;
}

// Lowers a block. If `yield` is set, the block's terminator
// (stablehlo.return) moves its operands into those registers instead of
// returning from the function.
Status FunctionLowering::LowerBlock(const ir::Block& block, const std::vector<Slot>* yield, ir::Location* error_loc) {
  // Tensors written from scalars in this block do not dominate what follows it.
  auto materialized_outside = materialized_;
  const ir::Location enclosing_op_loc = op_loc_;
  for (const auto& opp : block.ops) {
    const ir::Operation& op = *opp;
    op_loc_ = op.loc;
    // An op that emitted nothing (fused into a later dispatch, a constant
    // folded into a program) leaves no record: the runtime takes the last
    // record at or before a pc, so the op that emits at this pc replaces it.
    FunctionOut::Loc here{body_.pc(), static_cast<uint32_t>(op.loc.line), static_cast<uint32_t>(op.loc.col)};
    if (!locations_.empty() && locations_.back().pc == here.pc)
      locations_.back() = here;
    else
      locations_.push_back(here);
    Status s;
    if (op.results.size() == 1 && plan_.IsScalar(op.result()) && IsScalarOp(op, plan_)) {
      std::vector<uint32_t> regs;
      for (const ir::Value* v : op.operands) regs.push_back(I64(v));
      uint32_t dst = i64_of_[op.result()] = next_i64_++;
      s = EmitScalarOp(op, dst, regs, &body_);
    } else if (fusion_ && fusion_->FusedAway(&op)) {
      continue;  // computed inside its group's dispatch
    } else {
      const FusedGroup* group = fusion_ ? fusion_->GroupAt(&op) : nullptr;
      MaterializeOperands(op, yield);
      s = group ? EmitDispatch(op, group->params, &group->inputs) : LowerOp(op, yield, error_loc);
    }
    if (!s.ok()) {
      if (error_loc->line == 0) *error_loc = op.loc;
      return s;
    }
  }
  op_loc_ = enclosing_op_loc;
  materialized_ = std::move(materialized_outside);
  return Status::Ok();
}

Status FunctionLowering::LowerRegionInto(const ir::Region& region, const std::vector<Slot>& arg_slots,
                                         const std::vector<Slot>& yield, ir::Location* error_loc) {
  if (region.blocks.size() != 1) return Unimplemented("regions with several blocks are not supported");
  const ir::Block& b = *region.blocks[0];
  for (size_t i = 0; i < b.args.size() && i < arg_slots.size(); ++i)
    (arg_slots[i].i64 ? i64_of_ : ref_of_)[b.args[i].get()] = arg_slots[i].reg;
  return LowerBlock(b, &yield, error_loc);
}

// Moves values into slots as if all at once (sources and destinations may
// overlap): a move goes first when no pending move still reads its
// destination; a cycle is broken through a temporary.
void FunctionLowering::EmitMoves(const std::vector<Slot>& to, const std::vector<Slot>& from) {
  for (bool i64 : {false, true}) {
    std::vector<std::pair<uint32_t, uint32_t>> pending;  // (to, from)
    for (size_t k = 0; k < to.size(); ++k)
      if (to[k].i64 == i64 && to[k].reg != from[k].reg) pending.push_back({to[k].reg, from[k].reg});
    const Opcode mov = i64 ? Opcode::kMovI64 : Opcode::kMovRef;
    auto emit = [&](uint32_t d, uint32_t s) {
      body_.Emit(mov, d, s);
    };
    while (!pending.empty()) {
      auto ready = std::find_if(pending.begin(), pending.end(), [&](const auto& m) {
        return std::none_of(pending.begin(), pending.end(), [&](const auto& o) { return o.second == m.first; });
      });
      if (ready != pending.end()) {
        emit(ready->first, ready->second);
        pending.erase(ready);
        continue;
      }
      uint32_t tmp = i64 ? next_i64_++ : NewRef();
      uint32_t src = pending.front().second;
      emit(tmp, src);
      for (auto& m : pending)
        if (m.second == src) m.second = tmp;
    }
  }
}

Status FunctionLowering::LowerWhile(const ir::Operation& op, ir::Location* error_loc) {
  if (op.regions.size() != 2 || op.regions[0]->blocks.size() != 1 || op.regions[0]->blocks[0]->ops.empty())
    return Unimplemented("stablehlo.while needs cond and body regions");
  // Loop-carried values live in the registers of the loop's results: i64
  // registers for those on the scalar path.
  std::vector<Slot> iter, init;
  for (size_t k = 0; k < op.results.size(); ++k) {
    const ir::Value* r = op.result(static_cast<int>(k));
    iter.push_back(plan_.IsScalar(r) ? Slot{true, i64_of_[r] = next_i64_++} : Slot{false, Define(r)});
  }
  for (size_t k = 0; k < op.operands.size() && k < iter.size(); ++k)
    init.push_back(iter[k].i64 ? Slot{true, I64(op.operands[k])} : Slot{false, Ref(op.operands[k])});
  EmitMoves(iter, init);
  // Rotated: the body first, the condition at the bottom, so an iteration
  // runs one branch. The loop is entered at the condition.
  uint32_t to_cond = EmitBranch(Opcode::kBr, kPatchedLater);
  uint32_t body_pc = body_.pc();
  KILN_RETURN_IF_ERROR(LowerRegionInto(*op.regions[1], iter, iter, error_loc));
  body_.PatchTarget(to_cond, body_.pc());
  // The predicate: on the scalar path, the register the condition computed
  // it in (kYieldInPlace); otherwise a tensor read back from the device.
  const ir::Operation& cond_yield = *op.regions[0]->blocks[0]->ops.back();
  bool scalar_pred = cond_yield.operands.size() == 1 && plan_.IsScalar(cond_yield.operands[0]);
  Slot pred = scalar_pred ? Slot{true, kYieldInPlace} : Slot{false, NewRef()};
  KILN_RETURN_IF_ERROR(LowerRegionInto(*op.regions[0], iter, {pred}, error_loc));
  uint32_t p = scalar_pred ? yielded_in_place_ : I64Load(pred.reg);
  EmitBranch(Opcode::kBrIf, p, vm::BytecodeTarget{body_pc});
  return Status::Ok();
}

// if and case: `index` selects a branch (case clamps out-of-range to the last).
Status FunctionLowering::LowerBranches(const ir::Operation& op, uint32_t index_reg, ir::Location* error_loc) {
  std::vector<uint32_t> results = DefineResults(op);
  size_t n = op.regions.size();
  std::vector<uint32_t> to_branch, to_end;
  for (size_t k = 0; k + 1 < n; ++k) {
    uint32_t eq = next_i64_++;
    body_.Emit(Opcode::kCmpEqI64, eq, index_reg, ConstI64(static_cast<int64_t>(k)));
    to_branch.push_back(EmitBranch(Opcode::kBrIf, eq, kPatchedLater));
  }
  // Fall through: the last branch (also taken for an out-of-range index).
  KILN_RETURN_IF_ERROR(LowerRegionInto(*op.regions[n - 1], {}, RefSlots(results), error_loc));
  to_end.push_back(EmitBranch(Opcode::kBr, kPatchedLater));
  for (size_t k = 0; k + 1 < n; ++k) {
    body_.PatchTarget(to_branch[k], body_.pc());
    KILN_RETURN_IF_ERROR(LowerRegionInto(*op.regions[k], {}, RefSlots(results), error_loc));
    to_end.push_back(EmitBranch(Opcode::kBr, kPatchedLater));
  }
  for (uint32_t at : to_end) body_.PatchTarget(at, body_.pc());
  return Status::Ok();
}

Status LowerModule(const ir::Module& module, const CompileOptions& options, const ErrorFormatter& format_error,
                   ModuleBuilder* out) {
  out->name = module.name;
  out->source_file = module.file_name;
  for (const auto& [name, a] : module.attrs) {
    if (name == "mhlo.num_replicas" && a.kind == ir::Attribute::Kind::kInt) out->num_replicas = static_cast<uint32_t>(a.i);
    if (name == "mhlo.num_partitions" && a.kind == ir::Attribute::Kind::kInt) out->num_partitions = static_cast<uint32_t>(a.i);
  }
  // Mutable globals, each with its initial value as a constant (loads of
  // the others are constants already).
  for (const ir::Global& g : module.globals) {
    if (!g.is_mutable) continue;
    const ir::Attribute initial = g.InitialValue();
    ConstantOut c;
    c.type = g.type.element;
    c.dims = g.type.dims;
    c.data = initial.ExpandedDenseBytes();
    out->globals.push_back(GlobalOut{g.name, out->AddConstant(std::move(c)), true});
  }
  std::map<std::string, uint32_t> function_index;
  for (size_t i = 0; i < module.functions.size(); ++i) function_index[module.functions[i]->name] = static_cast<uint32_t>(i);
  for (const auto& f : module.functions) {
    FunctionUses u{out->dispatch_uses.size(), 0, out->call_uses.size(), 0};
    ir::Location loc;
    FunctionLowering lowering(module, *f, out, function_index);
    // Both targets run fused reduces and row blocks (the vulkan shaders:
    // compiler/vulkan/kernels_reduction.cc, kernels_row_block.cc).
    KILN_ASSIGN_OR_RETURN(ElementwiseFusion fusion, ElementwiseFusion::Plan(*f));
    if (options.fuse) lowering.UseFusion(&fusion);
    auto fo = lowering.Lower(&loc);
    if (!fo.ok()) return Status(fo.status().code(), format_error(loc, fo.status().message()));
    u.dispatch_end = out->dispatch_uses.size();
    u.call_end = out->call_uses.size();
    out->function_uses.push_back(u);
    out->functions.push_back(std::move(fo.value()));
  }
  // After every function is lowered: a call's planning needs its callee's
  // summary (compiler/passes/memory_plan.h).
  KILN_ASSIGN_OR_RETURN(std::vector<bool> returns_argument, FunctionsReturningArguments(out->functions));
  // Only for the CPU: the Vulkan shaders declare every tensor binding
  // `restrict`, which an output over its own input would break.
  const std::vector<bool> in_place =
      options.target == "cpu" ? InPlaceExecutables(out->executables) : std::vector<bool>{};
  for (auto& f : out->functions)
    KILN_RETURN_IF_ERROR(PlanFunctionMemory(&f, options.plan_memory, returns_argument, in_place));
  return Status::Ok();
}

}  // namespace kiln::compiler

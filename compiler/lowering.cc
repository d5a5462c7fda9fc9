// Function lowering: each IR value lives in a ref register, except the
// rank-0 integer values of the scalar path (compiler/scalar_plan.h), which
// live in i64 registers; static dimensions are i64 registers loaded once in
// the function's prologue; while/if/case become branches; every other op
// becomes a dispatch or a VM instruction. Nothing is evaluated at compile
// time.
#include "compiler/lowering.h"
#include "compiler/vulkan_target.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <set>

#include "compiler/fuse_elementwise.h"
#include "compiler/lower_collectives.h"
#include "compiler/scalar_plan.h"
#include "kernels/reference/registry.h"
#include "kernels/scalar/scalar.h"
#include "vm/bytecode.h"

namespace kiln::compiler {

StatusOr<ScalarInstr> ScalarInstrForOp(const ir::Operation& op, const std::vector<uint16_t>& operands);

namespace {

using vm::Opcode;

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

class FunctionLowering {
 public:
  FunctionLowering(const ir::Module& m, const ir::Function& f, ModuleBuilder* mb,
                   const std::map<std::string, uint32_t>& function_index)
      : module_(m), fn_(f), mb_(mb), function_index_(function_index) {}

  // Chains planned by the fusion pass (compiler/fuse_elementwise.h), or null.
  void UseFusion(const ElementwiseFusion* fusion) { fusion_ = fusion; }

  StatusOr<FunctionOut> Lower(ir::Location* error_loc) {
    FunctionOut out;
    out.name = fn_.name;
    out.is_public = fn_.is_public;
    for (const auto& t : fn_.arg_types) out.args.push_back(SigOf(t));
    for (const auto& t : fn_.result_types) out.results.push_back(SigOf(t));
    // Arguments arrive in r0..rN-1 (the VM's calling convention).
    const ir::Block& entry = *fn_.body.blocks.at(0);
    for (const auto& a : entry.args) ref_of_[a.get()] = next_ref_++;
    // Results leave through r0..; the registers are reused, so reserve enough.
    next_ref_ = std::max<uint32_t>(next_ref_, static_cast<uint32_t>(fn_.result_types.size()));
    plan_ = PlanScalars(fn_);
    for (const auto& a : entry.args)
      if (plan_.entry_loads.count(a.get())) {
        uint32_t r = i64_of_[a.get()] = next_i64_++;
        body_.Op(Opcode::kLoadI64);
        body_.U32(r);
        body_.U32(Ref(a.get()));
      }
    Status s = LowerBlock(entry, nullptr, error_loc);
    if (!s.ok()) return s;
    // Prologue: constant i64 registers, then the body with shifted targets.
    vm::BytecodeWriter prologue;
    for (const auto& [value, reg] : const_i64_) {
      prologue.Op(Opcode::kConstI64);
      prologue.U32(reg);
      prologue.I64(value);
    }
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

 private:
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
  uint32_t I64Load(uint32_t ref) {
    uint32_t r = next_i64_++;
    body_.Op(Opcode::kLoadI64);
    body_.U32(r);
    body_.U32(ref);
    return r;
  }

  // The ref register holding `v`. A scalar-path value is written into a
  // rank-0 tensor here, where it is needed; that tensor is reused by later
  // uses in the same block and the blocks nested in it (which it dominates).
  uint32_t Ref(const ir::Value* v) {
    auto it = ref_of_.find(v);
    if (it != ref_of_.end()) return it->second;
    auto m = materialized_.find(v);
    if (m != materialized_.end()) return m->second;
    auto c = scalar_constants_.find(v);
    if (c != scalar_constants_.end()) return materialized_[v] = ConstantFromDense(*c->second);
    uint32_t reg = NewRef();
    body_.Op(Opcode::kTensorFromI64);
    body_.U32(reg);
    body_.U32(i64_of_.at(v));
    body_.U32(static_cast<uint32_t>(v->type.element));
    return materialized_[v] = reg;
  }
  // Writes the tensors of the scalar-path operands that `op` reads as
  // tensors before any of op's own instructions, which then find them in
  // registers (an instruction's operands cannot be emitted inside it).
  void MaterializeOperands(const ir::Operation& op, const std::vector<Slot>* yield) {
    for (size_t k = 0; k < op.operands.size(); ++k) {
      const ir::Value* v = op.operands[k];
      if (ref_of_.count(v) || (!i64_of_.count(v) && !scalar_constants_.count(v))) continue;
      if (op.name == "stablehlo.while" && k < op.results.size() && plan_.IsScalar(op.result(static_cast<int>(k))))
        continue;
      if ((op.name == "stablehlo.if" || op.name == "stablehlo.case") && k == 0) continue;
      if (yield && (op.name == "stablehlo.return" || op.name == "func.return") && k < yield->size() && (*yield)[k].i64)
        continue;
      (void)Ref(v);
    }
  }
  // The i64 register holding scalar-path value `v`; a value that has none
  // here (an argument not loaded on entry) is read from its tensor.
  uint32_t I64(const ir::Value* v) {
    auto it = i64_of_.find(v);
    if (it != i64_of_.end()) return it->second;
    return I64Load(Ref(v));
  }
  std::vector<Slot> RefSlots(const std::vector<uint32_t>& regs) {
    std::vector<Slot> slots;
    for (uint32_t r : regs) slots.push_back(Slot{false, r});
    return slots;
  }

  void EmitTarget(uint32_t target) {
    jump_fixups_.push_back(body_.pc());
    body_.U32(target);
  }
  uint32_t EmitPlaceholder() {
    jump_fixups_.push_back(body_.pc());
    return body_.PlaceholderTarget();
  }
  std::vector<uint32_t> Refs(const std::vector<ir::Value*>& vs) {
    std::vector<uint32_t> r;
    for (auto* v : vs) r.push_back(Ref(v));
    return r;
  }

  // Allocates the result tensor of `v` into its register.
  // `inputs`: the values the dispatch reads, when they are not op's operands
  // (a fused chain); a dynamic dimension is taken from them.
  Status EmitAlloc(const ir::Value* v, uint32_t reg, const ir::Operation& op,
                   const std::vector<const ir::Value*>* inputs = nullptr) {
    const ir::Type& t = v->type;
    if (!t.is_tensor()) return Unimplemented(op.name + ": results of type " + t.ToString() + " are not supported yet");
    std::vector<uint32_t> dims;
    for (int64_t d = 0; d < t.rank(); ++d) {
      if (t.dims[d] != ir::Type::kDynamic) {
        dims.push_back(ConstI64(t.dims[d]));
        continue;
      }
      KILN_ASSIGN_OR_RETURN(uint32_t reg_d, DynamicResultDim(op, d, inputs));
      dims.push_back(reg_d);
    }
    body_.Op(Opcode::kAlloc);
    body_.U32(reg);
    body_.U32(static_cast<uint32_t>(t.element));
    body_.List(dims);
    return Status::Ok();
  }

  // --- dynamic shapes ---------------------------------------------------
  // A `?` dimension of a result is computed at run time, in i64 registers,
  // from the operands' dimensions (`dim`) and, for the dynamic ops, from the
  // values of their shape operands. Each rule follows the op's shape
  // inference in the spec.

  // An i64 register holding dimension d of `v`.
  uint32_t OperandDim(const ir::Value* v, int64_t d) {
    if (v->type.dims[d] != ir::Type::kDynamic) return ConstI64(v->type.dims[d]);
    uint32_t r = next_i64_++;
    body_.Op(Opcode::kDim);
    body_.U32(r);
    body_.U32(Ref(v));
    body_.U32(static_cast<uint32_t>(d));
    return r;
  }
  uint32_t BinaryI64(Opcode code, uint32_t a, uint32_t b) {
    uint32_t r = next_i64_++;
    body_.Op(code);
    body_.U32(r);
    body_.U32(a);
    body_.U32(b);
    return r;
  }
  // Element k of a 1-D integer tensor held in register `tensor`: a one-element
  // slice on the device, then a load (which waits for it).
  uint32_t LoadElement(uint32_t tensor, ElementType type, int64_t k) {
    KernelParams p;
    p.kernel = "stablehlo.slice";
    p.attrs.push_back(KernelAttr{"start_indices", {k}, {}, "", false, {}});
    p.attrs.push_back(KernelAttr{"limit_indices", {k + 1}, {}, "", false, {}});
    p.attrs.push_back(KernelAttr{"strides", {1}, {}, "", false, {}});
    uint32_t exe = mb_->AddExecutable(std::move(p));
    uint32_t one = NewRef();
    body_.Op(Opcode::kAlloc);
    body_.U32(one);
    body_.U32(static_cast<uint32_t>(type));
    body_.List(std::vector<uint32_t>{ConstI64(1)});
    NoteDispatch(exe, "stablehlo.slice", {{type, 1}}, {{type, 1}});
    body_.Op(Opcode::kDispatch);
    body_.U32(exe);
    body_.List(std::vector<uint32_t>{tensor});
    body_.List(std::vector<uint32_t>{one});
    uint32_t r = next_i64_++;
    body_.Op(Opcode::kLoadI64);
    body_.U32(r);
    body_.U32(one);
    return r;
  }
  uint32_t ShapeOperandElement(const ir::Value* shape, int64_t k) {
    return LoadElement(Ref(shape), shape->type.element, k);
  }
  // ceil((limit - start) / stride) per dimension of real_dynamic_slice, as an
  // elementwise program on the device over its three index tensors.
  StatusOr<uint32_t> SliceSizes(const ir::Operation& op) {
    ElementType t = op.operands.at(1)->type.element;
    auto instr = [&](const char* name, uint16_t a, uint16_t b) {
      ScalarInstr in;
      in.op = ScalarOpFromName(name);
      in.type = t;
      in.num_operands = 2;
      in.operands[0] = a;
      in.operands[1] = b;
      return in;
    };
    ScalarProgram prog;
    prog.param_types = {t, t, t};                                  // 0 start, 1 limit, 2 strides
    prog.instrs.push_back(instr("stablehlo.subtract", 1, 0));      // 3 = limit - start
    prog.instrs.push_back(instr("stablehlo.add", 3, 2));           // 4 = 3 + stride
    ScalarInstr one;
    one.op = ScalarOpFromName("stablehlo.constant");
    one.type = t;
    one.constant.i = 1;
    one.constant.re = 1;
    prog.instrs.push_back(one);                                    // 5 = 1
    prog.instrs.push_back(instr("stablehlo.subtract", 4, 5));      // 6 = 4 - 1
    prog.instrs.push_back(instr("stablehlo.divide", 6, 2));        // 7 = 6 / stride
    prog.results.push_back(7);
    for (const auto& in : prog.instrs)
      if (in.op == ScalarOp::kInvalid) return Unimplemented("real_dynamic_slice: shape arithmetic is missing an op");
    KernelParams p;
    p.kernel = "kiln.elementwise";
    KernelAttr body;
    body.name = "body";
    body.has_program = true;
    body.program = std::move(prog);
    p.attrs.push_back(std::move(body));
    uint32_t exe = mb_->AddExecutable(std::move(p));
    uint32_t sizes = NewRef();
    body_.Op(Opcode::kAlloc);
    body_.U32(sizes);
    body_.U32(static_cast<uint32_t>(t));
    body_.List(std::vector<uint32_t>{OperandDim(op.operands[1], 0)});
    NoteDispatch(exe, op.name, {{t, 1}, {t, 1}, {t, 1}}, {{t, 1}});
    body_.Op(Opcode::kDispatch);
    body_.U32(exe);
    body_.List(std::vector<uint32_t>{Ref(op.operands[1]), Ref(op.operands[2]), Ref(op.operands[3])});
    body_.List(std::vector<uint32_t>{sizes});
    return sizes;
  }

  StatusOr<uint32_t> DynamicResultDim(const ir::Operation& op, int64_t d,
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
    if (n == "stablehlo.dynamic_broadcast_in_dim") return ShapeOperandElement(op.operands.at(1), d);
    if (n == "stablehlo.dynamic_reshape") return ShapeOperandElement(op.operands.at(1), d);
    if (n == "stablehlo.dynamic_iota") return ShapeOperandElement(op.operands.at(0), d);
    if (n == "stablehlo.real_dynamic_slice") {
      KILN_ASSIGN_OR_RETURN(uint32_t sizes, SliceSizes(op));
      return LoadElement(sizes, op.operands[1]->type.element, d);
    }
    if (n == "stablehlo.dynamic_pad") {
      // lo + hi + dim + interior * max(dim - 1, 0)
      const ir::Value* x = op.operands.at(0);
      uint32_t dim = OperandDim(x, d);
      uint32_t lo = ShapeOperandElement(op.operands.at(2), d);
      uint32_t hi = ShapeOperandElement(op.operands.at(3), d);
      uint32_t interior = ShapeOperandElement(op.operands.at(4), d);
      uint32_t dm1 = BinaryI64(Opcode::kSubI64, dim, ConstI64(1));
      uint32_t neg = BinaryI64(Opcode::kCmpLtI64, dm1, ConstI64(0));
      uint32_t gaps = next_i64_++;
      body_.Op(Opcode::kSelectI64);
      body_.U32(gaps);
      body_.U32(neg);
      body_.U32(ConstI64(0));
      body_.U32(dm1);
      uint32_t r = BinaryI64(Opcode::kAddI64, BinaryI64(Opcode::kAddI64, lo, hi), dim);
      return BinaryI64(Opcode::kAddI64, r, BinaryI64(Opcode::kMulI64, interior, gaps));
    }
    if (n == "stablehlo.transpose") {
      auto perm = ints("permutation");
      if (d >= static_cast<int64_t>(perm.size())) return unsupported();
      return OperandDim(op.operands.at(0), perm[d]);
    }
    if (n == "stablehlo.broadcast_in_dim") {
      auto bd = ints("broadcast_dimensions");
      const ir::Value* x = op.operands.at(0);
      for (size_t i = 0; i < bd.size(); ++i)
        if (bd[i] == d && x->type.dims[i] != 1) return OperandDim(x, static_cast<int64_t>(i));
      return unsupported();
    }
    if (n == "stablehlo.concatenate") {
      int64_t axis = ints("dimension").empty() ? 0 : ints("dimension")[0];
      if (d != axis) return OperandDim(op.operands.at(0), d);
      uint32_t sum = ConstI64(0);
      for (const auto* v : op.operands) sum = BinaryI64(Opcode::kAddI64, sum, OperandDim(v, d));
      return sum;
    }
    if (n == "stablehlo.reduce" || n == "stablehlo.argmax") {
      auto reduced = ints("dimensions");
      const ir::Value* x = op.operands.at(0);
      int64_t k = -1;
      for (int64_t i = 0; i < x->type.rank(); ++i) {
        if (std::find(reduced.begin(), reduced.end(), i) != reduced.end()) continue;
        if (++k == d) return OperandDim(x, i);
      }
      return unsupported();
    }
    if (n == "stablehlo.dot_general" || n == "stablehlo.dot") {
      const ir::Value* lhs = op.operands.at(0);
      const ir::Value* rhs = op.operands.at(1);
      auto lb = ints("lhs_batching_dimensions"), lc = ints("lhs_contracting_dimensions");
      auto rb = ints("rhs_batching_dimensions"), rc = ints("rhs_contracting_dimensions");
      if (n == "stablehlo.dot") {
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
    // Ops whose results have the shape of an operand of the same rank:
    // elementwise ops (select and clamp may take scalars), converts, sort,
    // reverse, map, and the like.
    static const std::set<std::string> kSameShape = {
        "stablehlo.convert", "stablehlo.select", "stablehlo.clamp", "stablehlo.sort", "stablehlo.reverse",
        "stablehlo.map", "stablehlo.reduce_precision", "stablehlo.bitcast_convert", "stablehlo.is_finite",
        "stablehlo.compare", "stablehlo.uniform_quantize", "stablehlo.uniform_dequantize", "stablehlo.cholesky",
        "stablehlo.real", "stablehlo.imag", "stablehlo.complex", "stablehlo.dynamic_update_slice"};
    if (kSameShape.count(n) || ScalarOpFromName(n == "chlo.tan" ? "stablehlo.tan" : n) != ScalarOp::kInvalid ||
        n.rfind("chlo.", 0) == 0) {
      const ir::Type& rt = op.results.at(0)->type;
      std::vector<const ir::Value*> read(op.operands.begin(), op.operands.end());
      if (inputs) read = *inputs;  // a fused chain: only its inputs are in registers
      for (const auto* v : read)
        if (v->type.is_tensor() && v->type.rank() == rt.rank() &&
            (n != "stablehlo.bitcast_convert" || StorageBytes(v->type.element) == StorageBytes(rt.element)))
          return OperandDim(v, d);
    }
    return unsupported();
  }

  // Records a dispatch's signature for the vulkan target (compiler/vulkan_target.cc).
  void NoteDispatch(uint32_t exe, const std::string& op, std::vector<std::pair<ElementType, size_t>> ins,
                    std::vector<std::pair<ElementType, size_t>> outs) {
    DispatchUse u;
    u.executable = exe;
    u.op = op;
    for (auto& [t, r] : ins) u.in_types.push_back(t), u.in_ranks.push_back(static_cast<uint8_t>(r));
    for (auto& [t, r] : outs) u.out_types.push_back(t), u.out_ranks.push_back(static_cast<uint8_t>(r));
    mb_->dispatch_uses.push_back(std::move(u));
  }
  template <typename In, typename Out>
  void NoteDispatch(uint32_t exe, const std::string& op, const In& ins, const Out& outs) {
    std::vector<std::pair<ElementType, size_t>> i, o;
    for (const auto& v : ins) i.push_back({v->type.element, static_cast<size_t>(v->type.rank())});
    for (const auto& v : outs) o.push_back({v->type.element, static_cast<size_t>(v->type.rank())});
    NoteDispatch(exe, op, std::move(i), std::move(o));
    for (const auto& v : ins) mb_->dispatch_uses.back().in_dims.push_back(v->type.dims);
  }

  // `inputs`: the dispatch's inputs when they are not the op's operands (a
  // fused chain rooted at `op`).
  Status EmitDispatch(const ir::Operation& op, KernelParams params,
                      const std::vector<const ir::Value*>* inputs = nullptr) {
    // Refuse at compile time what the CPU runtime has no kernel for.
    if (!ref::FindReferenceKernel(params.kernel)) {
      std::string type = op.results.empty() ? (op.operands.empty() ? "" : op.operands[0]->type.ToString())
                                            : op.result()->type.ToString();
      return Unimplemented(op.name + " (" + type + ") is not supported by the cpu target yet");
    }
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
    body_.Op(Opcode::kDispatch);
    body_.U32(exe);
    body_.List(ins);
    body_.List(outs);
    return Status::Ok();
  }

  uint32_t ConstantFromDense(const ir::Attribute& a) {
    ConstantOut c;
    c.type = a.type.element;
    c.dims = a.type.dims;
    c.data = a.dense_bytes;
    uint32_t index = mb_->AddConstant(std::move(c));
    uint32_t reg = NewRef();
    body_.Op(Opcode::kConstRef);
    body_.U32(reg);
    body_.U32(index);
    return reg;
  }

  // Lowers a block. If `yield` is set, the block's terminator
  // (stablehlo.return) moves its operands into those registers instead of
  // returning from the function.
  Status LowerBlock(const ir::Block& block, const std::vector<Slot>* yield, ir::Location* error_loc) {
    // Tensors written from scalars in this block do not dominate what follows it.
    auto materialized_outside = materialized_;
    for (const auto& opp : block.ops) {
      const ir::Operation& op = *opp;
      locations_.push_back({body_.pc(), static_cast<uint32_t>(op.loc.line), static_cast<uint32_t>(op.loc.col)});
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
    materialized_ = std::move(materialized_outside);
    return Status::Ok();
  }

  Status LowerRegionInto(const ir::Region& region, const std::vector<Slot>& arg_slots,
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
  void EmitMoves(const std::vector<Slot>& to, const std::vector<Slot>& from) {
    for (bool i64 : {false, true}) {
      std::vector<std::pair<uint32_t, uint32_t>> pending;  // (to, from)
      for (size_t k = 0; k < to.size(); ++k)
        if (to[k].i64 == i64 && to[k].reg != from[k].reg) pending.push_back({to[k].reg, from[k].reg});
      const Opcode mov = i64 ? Opcode::kMovI64 : Opcode::kMovRef;
      auto emit = [&](uint32_t d, uint32_t s) {
        body_.Op(mov);
        body_.U32(d);
        body_.U32(s);
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

  uint32_t LoadPredicate(const ir::Value* v) { return I64(v); }

  std::vector<uint32_t> DefineResults(const ir::Operation& op) {
    std::vector<uint32_t> regs;
    for (const auto& r : op.results) regs.push_back(Define(r.get()));
    return regs;
  }

  Status LowerWhile(const ir::Operation& op, ir::Location* error_loc) {
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
    body_.Op(Opcode::kBr);
    uint32_t to_cond = EmitPlaceholder();
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
    body_.Op(Opcode::kBrIf);
    body_.U32(p);
    EmitTarget(body_pc);
    return Status::Ok();
  }

  // if and case: `index` selects a branch (case clamps out-of-range to the last).
  Status LowerBranches(const ir::Operation& op, uint32_t index_reg, ir::Location* error_loc) {
    std::vector<uint32_t> results = DefineResults(op);
    size_t n = op.regions.size();
    std::vector<uint32_t> to_branch, to_end;
    for (size_t k = 0; k + 1 < n; ++k) {
      uint32_t eq = next_i64_++;
      body_.Op(Opcode::kCmpEqI64);
      body_.U32(eq);
      body_.U32(index_reg);
      body_.U32(ConstI64(static_cast<int64_t>(k)));
      body_.Op(Opcode::kBrIf);
      body_.U32(eq);
      to_branch.push_back(EmitPlaceholder());
    }
    // Fall through: the last branch (also taken for an out-of-range index).
    KILN_RETURN_IF_ERROR(LowerRegionInto(*op.regions[n - 1], {}, RefSlots(results), error_loc));
    body_.Op(Opcode::kBr);
    to_end.push_back(EmitPlaceholder());
    for (size_t k = 0; k + 1 < n; ++k) {
      body_.PatchTarget(to_branch[k], body_.pc());
      KILN_RETURN_IF_ERROR(LowerRegionInto(*op.regions[k], {}, RefSlots(results), error_loc));
      body_.Op(Opcode::kBr);
      to_end.push_back(EmitPlaceholder());
    }
    for (uint32_t at : to_end) body_.PatchTarget(at, body_.pc());
    return Status::Ok();
  }

  Status LowerCheck(const ir::Operation& op, std::string_view kind, bool against_const) {
    if (op.operands.empty()) return InvalidArgument(op.name + " needs an operand");
    uint32_t a = Ref(op.operands[0]);
    uint32_t b;
    if (against_const) {
      const ir::Attribute* v = op.GetAttr("value");
      if (!v || v->kind != ir::Attribute::Kind::kDense) return Unimplemented(op.name + " needs a dense value");
      b = ConstantFromDense(*v);
    } else {
      if (op.operands.size() < 2) return Unimplemented(op.name + " needs two operands");
      b = Ref(op.operands[1]);
    }
    if (kind == "eq") {
      body_.Op(Opcode::kCheckEq);
      body_.U32(a);
      body_.U32(b);
    } else if (kind == "almost_eq") {
      const ir::Attribute* t = op.GetAttr("tolerance");
      double tol = t ? (t->kind == ir::Attribute::Kind::kFloat ? t->f : static_cast<double>(t->i)) : 1e-4;
      if (op.name == "stablehlo.custom_call") tol = 1e-3;
      body_.Op(Opcode::kCheckAlmostEq);
      body_.U32(a);
      body_.U32(b);
      body_.I64(std::bit_cast<int64_t>(tol));
    } else {  // close
      const ir::Attribute* mx = op.GetAttr("max_ulp_difference");
      const ir::Attribute* mn = op.GetAttr("min_ulp_difference");
      body_.Op(Opcode::kCheckClose);
      body_.U32(a);
      body_.U32(b);
      body_.I64(mx ? mx->i : 3);
      body_.I64(mn ? mn->i : 0);
    }
    return Status::Ok();
  }

  Status LowerCustomCall(const ir::Operation& op) {
    const ir::Attribute* target = op.GetAttr("call_target_name");
    std::string name = target ? target->str : "";
    if (name == "check.expect_eq") return LowerCheck(op, "eq", false);
    if (name == "check.expect_almost_eq") return LowerCheck(op, "almost_eq", false);
    if (name == "check.expect_close") return LowerCheck(op, "close", false);
    if (name == "check.eq") {
      if (op.operands.size() != 2 || op.results.size() != 1) return Unimplemented("@check.eq takes two operands and returns one result");
      uint32_t r = Define(op.result());
      body_.Op(Opcode::kCheckEqResult);
      body_.U32(r);
      body_.U32(Ref(op.operands[0]));
      body_.U32(Ref(op.operands[1]));
      return Status::Ok();
    }
    if (name.rfind("check.", 0) == 0) return InvalidArgument("unknown check target @" + name);
    // Sharding annotations that JAX exports: on one device they are the
    // identity.
    if ((name == "Sharding" || name == "SPMDFullToShardShape" || name == "SPMDShardToFullShape") &&
        op.operands.size() == 1 && op.results.size() == 1 && op.operands[0]->type == op.result()->type) {
      ref_of_[op.result()] = Ref(op.operands[0]);
      return Status::Ok();
    }
    return Unimplemented("stablehlo.custom_call @" + name + " is not supported");
  }

  // An elementwise op on per-tensor quantized values, as the spec defines
  // it: dequantize the quantized operands, apply the op in the expressed
  // type, quantize the result. One fused scalar program.
  Status LowerQuantizedElementwise(const ir::Operation& op) {
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
    KernelParams p;
    p.kernel = "kiln.elementwise";
    KernelAttr body;
    body.name = "body";
    body.has_program = true;
    body.program = std::move(prog);
    p.attrs.push_back(std::move(body));
    return EmitDispatch(op, std::move(p));
  }

  // chlo.broadcast_<op>: numpy-style (or broadcast_dimensions) broadcasting
  // of each operand to the result shape, then the elementwise op.
  Status LowerChloBroadcast(const ir::Operation& op) {
    std::string base = op.name.substr(std::string("chlo.broadcast_").size());
    std::string scalar_name = (base == "next_after" || base == "polygamma" || base == "zeta" ? "chlo." : "stablehlo.") + base;
    ScalarOp sop = ScalarOpFromName(scalar_name);
    if (sop == ScalarOp::kInvalid || op.results.size() != 1) return Unimplemented(op.name + " is not supported");
    const ir::Type& rt = op.result()->type;
    if (!rt.HasStaticShape()) return Unimplemented(op.name + ": a result of dynamic shape is not supported yet");
    const ir::Attribute* bdims = op.GetAttr("broadcast_dimensions");
    std::vector<uint32_t> ins;
    ScalarProgram prog;
    std::vector<uint16_t> params;
    for (const auto* v : op.operands) {
      const ir::Type& t = v->type;
      params.push_back(static_cast<uint16_t>(prog.param_types.size()));
      prog.param_types.push_back(t.element);
      if (t.dims == rt.dims) {
        ins.push_back(Ref(v));
        continue;
      }
      std::vector<int64_t> map;
      if (bdims && t.rank() < rt.rank() && bdims->AsInts() && static_cast<int64_t>(bdims->AsInts()->size()) == t.rank())
        map = *bdims->AsInts();
      else
        for (int64_t i = 0; i < t.rank(); ++i) map.push_back(rt.rank() - t.rank() + i);
      KernelParams bp;
      bp.kernel = "stablehlo.broadcast_in_dim";
      bp.attrs.push_back(KernelAttr{"broadcast_dimensions", map, {}, "", false, {}});
      uint32_t exe = mb_->AddExecutable(std::move(bp));
      uint32_t reg = NewRef();
      std::vector<uint32_t> dims;
      for (int64_t d : rt.dims) dims.push_back(ConstI64(d));
      body_.Op(Opcode::kAlloc);
      body_.U32(reg);
      body_.U32(static_cast<uint32_t>(t.element));
      body_.List(dims);
      NoteDispatch(exe, op.name, {{t.element, static_cast<size_t>(t.rank())}},
                   {{t.element, static_cast<size_t>(rt.rank())}});
      body_.Op(Opcode::kDispatch);
      body_.U32(exe);
      body_.List(std::vector<uint32_t>{Ref(v)});
      body_.List(std::vector<uint32_t>{reg});
      ins.push_back(reg);
    }
    ir::Operation like;  // the equivalent elementwise op, for its attributes
    like.name = scalar_name;
    like.attrs = op.attrs;
    auto result = std::make_unique<ir::Value>();
    result->type = rt;
    like.results.push_back(std::move(result));
    KILN_ASSIGN_OR_RETURN(ScalarInstr in, ScalarInstrForOp(like, params));
    prog.instrs.push_back(in);
    prog.results.push_back(static_cast<uint16_t>(params.size()));
    KernelParams p;
    p.kernel = "kiln.elementwise";
    KernelAttr body;
    body.name = "body";
    body.has_program = true;
    body.program = std::move(prog);
    p.attrs.push_back(std::move(body));
    uint32_t exe = mb_->AddExecutable(std::move(p));
    uint32_t out = Define(op.result());
    KILN_RETURN_IF_ERROR(EmitAlloc(op.result(), out, op));
    {
      std::vector<std::pair<ElementType, size_t>> sig;
      for (const auto* v : op.operands) sig.push_back({v->type.element, static_cast<size_t>(rt.rank())});
      NoteDispatch(exe, op.name, std::move(sig), {{rt.element, static_cast<size_t>(rt.rank())}});
    }
    body_.Op(Opcode::kDispatch);
    body_.U32(exe);
    body_.List(ins);
    body_.List(std::vector<uint32_t>{out});
    return Status::Ok();
  }

  // A collective (compiler/lower_collectives.cc): tensor operands in,
  // preallocated tensor results out; tokens are VM tokens.
  Status LowerCollective(const ir::Operation& op) {
    KILN_ASSIGN_OR_RETURN(CollectiveLowering c, DescribeCollective(op));
    std::vector<uint32_t> ins, outs;
    for (const auto* v : op.operands)
      if (!v->type.is_token()) ins.push_back(Ref(v));
    for (const auto& r : op.results) {
      uint32_t reg = Define(r.get());
      if (r->type.is_token()) {
        body_.Op(Opcode::kMakeToken);
        body_.U32(reg);
        continue;
      }
      KILN_RETURN_IF_ERROR(EmitAlloc(r.get(), reg, op));
      outs.push_back(reg);
    }
    uint32_t reduction = 0;
    if (c.reduction) {
      // The body combines two tensors shaped like each result, on the device.
      reduction = mb_->AddExecutable(std::move(*c.reduction));
      for (const auto& r : op.results)
        if (r->type.is_tensor()) {
          std::pair<ElementType, size_t> sig{r->type.element, static_cast<size_t>(r->type.rank())};
          NoteDispatch(reduction, op.name, {sig, sig}, {sig});
        }
    }
    body_.Op(c.reduction ? Opcode::kCollectiveReduce : Opcode::kCollective);
    body_.U32(mb_->AddString(c.descriptor));
    if (c.reduction) body_.U32(reduction);
    body_.List(ins);
    body_.List(outs);
    return Status::Ok();
  }

  Status LowerRunParallel(const ir::Operation& op) {
    KILN_ASSIGN_OR_RETURN(std::string desc, DescribeRunParallel(op, module_));
    std::vector<uint32_t> results = DefineResults(op);
    body_.Op(Opcode::kRunParallel);
    body_.U32(mb_->AddString(desc));
    body_.List(Refs(op.operands));
    body_.List(results);
    return Status::Ok();
  }

  Status LowerOp(const ir::Operation& op, const std::vector<Slot>* yield, ir::Location* error_loc) {
    const std::string& n = op.name;
    if (n == "func.return" || n == "stablehlo.return") {
      if (yield) {
        if (op.operands.size() != yield->size()) return InvalidArgument(n + " yields the wrong number of values");
        std::vector<Slot> to = *yield, from;
        for (size_t k = 0; k < op.operands.size(); ++k) {
          from.push_back(to[k].i64 ? Slot{true, I64(op.operands[k])} : Slot{false, Ref(op.operands[k])});
          if (to[k].i64 && to[k].reg == kYieldInPlace) to[k].reg = yielded_in_place_ = from[k].reg;
        }
        EmitMoves(to, from);
        return Status::Ok();
      }
      body_.Op(Opcode::kReturn);
      body_.List(Refs(op.operands));
      return Status::Ok();
    }
    if (n == "stablehlo.constant") {
      const ir::Attribute* v = op.GetAttr("value");
      if (!v || v->kind != ir::Attribute::Kind::kDense) return Unimplemented("stablehlo.constant needs a dense value");
      if (plan_.IsScalar(op.result()) && v->dense_bytes.size() == StorageBytes(v->type.element)) {
        // On the scalar path: an i64 constant; the tensor only where a use needs it.
        i64_of_[op.result()] = ConstI64(ref::LoadScalar(v->type.element, v->dense_bytes.data()).i);
        scalar_constants_[op.result()] = v;
        return Status::Ok();
      }
      ref_of_[op.result()] = ConstantFromDense(*v);
      return Status::Ok();
    }
    if (n == "func.call" || n == "call") {
      const ir::Attribute* callee = op.GetAttr("callee");
      auto it = callee ? function_index_.find(callee->str) : function_index_.end();
      if (it == function_index_.end()) return InvalidArgument("call to an unknown function");
      std::vector<uint32_t> results = DefineResults(op);
      mb_->call_uses.push_back(it->second);
      body_.Op(Opcode::kCall);
      body_.U32(it->second);
      body_.List(Refs(op.operands));
      body_.List(results);
      return Status::Ok();
    }
    if (n == "stablehlo.while") return LowerWhile(op, error_loc);
    if (n == "stablehlo.composite") {
      // The decomposition function is the composite's meaning.
      const ir::Attribute* d = op.GetAttr("decomposition");
      auto it = d ? function_index_.find(d->str) : function_index_.end();
      if (it == function_index_.end()) return InvalidArgument("stablehlo.composite names an unknown decomposition");
      std::vector<uint32_t> results = DefineResults(op);
      mb_->call_uses.push_back(it->second);
      body_.Op(Opcode::kCall);
      body_.U32(it->second);
      body_.List(Refs(op.operands));
      body_.List(results);
      return Status::Ok();
    }
    if (n == "stablehlo.get_dimension_size") {
      const ir::Attribute* d = op.GetAttr("dimension");
      if (!d || d->i < 0 || d->i >= op.operands.at(0)->type.rank())
        return InvalidArgument("stablehlo.get_dimension_size: dimension out of range");
      uint32_t size = next_i64_++;
      body_.Op(Opcode::kDim);
      body_.U32(size);
      body_.U32(Ref(op.operands[0]));
      body_.U32(static_cast<uint32_t>(d->i));
      body_.Op(Opcode::kTensorFromI64);
      body_.U32(Define(op.result()));
      body_.U32(size);
      body_.U32(static_cast<uint32_t>(op.result()->type.element));
      return Status::Ok();
    }
    if (n == "stablehlo.if") {
      // Branch 0 is the true branch: index 0 when the predicate is true.
      uint32_t p = LoadPredicate(op.operands.at(0));
      uint32_t idx = next_i64_++;
      body_.Op(Opcode::kSelectI64);
      body_.U32(idx);
      body_.U32(p);
      body_.U32(ConstI64(0));
      body_.U32(ConstI64(1));
      return LowerBranches(op, idx, error_loc);
    }
    if (n == "stablehlo.case") return LowerBranches(op, LoadPredicate(op.operands.at(0)), error_loc);
    if (n == "stablehlo.reshape" && op.result()->type.HasStaticShape() && op.operands[0]->type.is_tensor() &&
        !op.result()->type.is_quantized()) {
      std::vector<uint32_t> dims;
      for (int64_t d : op.result()->type.dims) dims.push_back(ConstI64(d));
      uint32_t r = Define(op.result());
      body_.Op(Opcode::kReshape);
      body_.U32(r);
      body_.U32(Ref(op.operands[0]));
      body_.List(dims);
      return Status::Ok();
    }
    if (n == "stablehlo.async_start") {
      // Kiln runs the body's op in order (the spec allows it: asynchrony is
      // not guaranteed); the future holds its results as a list.
      std::vector<uint32_t> values;
      for (size_t i = 0; i < op.result()->type.tuple_elements.size(); ++i) values.push_back(NewRef());
      KILN_RETURN_IF_ERROR(LowerRegionInto(*op.regions.at(0), {}, RefSlots(values), error_loc));
      body_.Op(Opcode::kMakeList);
      body_.U32(Define(op.result()));
      body_.List(values);
      return Status::Ok();
    }
    if (n == "stablehlo.async_done") {
      for (size_t i = 0; i < op.results.size(); ++i) {
        body_.Op(Opcode::kListGet);
        body_.U32(Define(op.result(static_cast<int>(i))));
        body_.U32(Ref(op.operands.at(0)));
        body_.U32(static_cast<uint32_t>(i));
      }
      return Status::Ok();
    }
    if (n == "stablehlo.tuple") {
      uint32_t r = Define(op.result());
      body_.Op(Opcode::kMakeList);
      body_.U32(r);
      body_.List(Refs(op.operands));
      return Status::Ok();
    }
    if (n == "stablehlo.get_tuple_element") {
      const ir::Attribute* idx = op.GetAttr("index");
      uint32_t r = Define(op.result());
      body_.Op(Opcode::kListGet);
      body_.U32(r);
      body_.U32(Ref(op.operands.at(0)));
      body_.U32(static_cast<uint32_t>(idx ? idx->i : 0));
      return Status::Ok();
    }
    if (n == "stablehlo.optimization_barrier") {
      for (size_t i = 0; i < op.results.size(); ++i) ref_of_[op.result(i)] = Ref(op.operands.at(i));
      return Status::Ok();
    }
    if (n == "stablehlo.after_all" || n == "stablehlo.create_token") {
      body_.Op(Opcode::kMakeToken);
      body_.U32(Define(op.result()));
      return Status::Ok();
    }
    if (n == "stablehlo.replica_id" || n == "stablehlo.partition_id") {
      body_.Op(n == "stablehlo.replica_id" ? Opcode::kReplicaId : Opcode::kPartitionId);
      body_.U32(Define(op.result()));
      return Status::Ok();
    }
    if (IsCollectiveOp(n)) return LowerCollective(op);
    if (n == "interpreter.run_parallel") return LowerRunParallel(op);
    // The test dialects are not checked by the verifier: every op of them
    // reads its first operand, and interpreter.probe forwards it as its result.
    if (n.rfind("check.", 0) == 0 || n.rfind("interpreter.", 0) == 0) {
      if (n != "interpreter.run_parallel" && op.operands.empty()) return InvalidArgument(n + " needs an operand");
      if (n == "interpreter.probe" && op.results.size() != 1) return InvalidArgument(n + " needs one result");
    }
    if (n == "check.expect_eq") return LowerCheck(op, "eq", false);
    if (n == "check.expect_eq_const") return LowerCheck(op, "eq", true);
    if (n == "check.expect_almost_eq") return LowerCheck(op, "almost_eq", false);
    if (n == "check.expect_almost_eq_const") return LowerCheck(op, "almost_eq", true);
    if (n == "check.expect_close") return LowerCheck(op, "close", false);
    if (n == "check.expect_serialized_eq") {
      const ir::Attribute* id = op.GetAttr("probe_id");
      const ir::Attribute* iter = op.GetAttr("iter");
      body_.Op(Opcode::kCheckSerializedEq);
      body_.U32(Ref(op.operands.at(0)));
      body_.U32(mb_->AddString(id ? id->str : ""));
      body_.U32(static_cast<uint32_t>(iter ? iter->i : 0));
      return Status::Ok();
    }
    if (n == "interpreter.probe") {
      const ir::Attribute* id = op.GetAttr("probe_id");
      body_.Op(Opcode::kProbe);
      body_.U32(Ref(op.operands.at(0)));
      body_.U32(mb_->AddString(id ? id->str : ""));
      ref_of_[op.result()] = Ref(op.operands.at(0));
      return Status::Ok();
    }
    if (n == "interpreter.print") {
      body_.Op(Opcode::kPrint);
      body_.U32(Ref(op.operands.at(0)));
      return Status::Ok();
    }
    if (n == "stablehlo.custom_call") return LowerCustomCall(op);
    if (n == "stablehlo.bitcast_convert" && (op.result()->type.is_quantized() || op.operands.at(0)->type.is_quantized()) &&
        op.result()->type.element == op.operands[0]->type.element && op.result()->type.dims == op.operands[0]->type.dims) {
      // Between a quantized type and its own storage type: the same bits.
      ref_of_[op.result()] = Ref(op.operands[0]);
      return Status::Ok();
    }
    if (ScalarOpFromName(n) != ScalarOp::kInvalid && n != "stablehlo.bitcast_convert" &&
        (op.result()->type.is_quantized() ||
         std::any_of(op.operands.begin(), op.operands.end(), [](const ir::Value* v) { return v->type.is_quantized(); })))
      return LowerQuantizedElementwise(op);
    for (const auto* v : op.operands)
      if (v->type.is_quantized() && n != "stablehlo.uniform_dequantize" && n != "stablehlo.uniform_quantize")
        return Unimplemented(n + " on quantized operands (" + v->type.ToString() + ") is not supported yet");
    for (const auto& r : op.results)
      if (r->type.is_quantized() && n != "stablehlo.uniform_quantize")
        return Unimplemented(n + " with a quantized result (" + r->type.ToString() + ") is not supported yet");
    if (n.rfind("chlo.broadcast_", 0) == 0) return LowerChloBroadcast(op);
    // Elementwise ops: a one-instruction scalar program.
    std::string scalar_name = n == "chlo.tan" ? "stablehlo.tan" : n;
    bool same_width_bitcast = n == "stablehlo.bitcast_convert" &&
                              StorageBytes(op.operands.at(0)->type.element) == StorageBytes(op.result()->type.element) &&
                              op.operands[0]->type.rank() == op.result()->type.rank();
    if (ScalarOpFromName(scalar_name) != ScalarOp::kInvalid &&
        (n != "stablehlo.bitcast_convert" || same_width_bitcast)) {
      ScalarProgram prog;
      std::vector<uint16_t> params;
      for (const auto* v : op.operands) {
        params.push_back(static_cast<uint16_t>(prog.param_types.size()));
        prog.param_types.push_back(v->type.element);
      }
      KILN_ASSIGN_OR_RETURN(ScalarInstr in, ScalarInstrForOp(op, params));
      prog.instrs.push_back(in);
      prog.results.push_back(static_cast<uint16_t>(params.size()));
      KernelParams p;
      p.kernel = "kiln.elementwise";
      KernelAttr body;
      body.name = "body";
      body.has_program = true;
      body.program = std::move(prog);
      p.attrs.push_back(std::move(body));
      return EmitDispatch(op, std::move(p));
    }
    KILN_ASSIGN_OR_RETURN(KernelParams p, KernelParamsForOp(op));
    return EmitDispatch(op, std::move(p));
  }

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
  uint32_t next_i64_ = 0, next_ref_ = 0;
  const ElementwiseFusion* fusion_ = nullptr;
};

}  // namespace

Status LowerModule(const ir::Module& module, const CompileOptions& options, const ErrorFormatter& format_error,
                   ModuleBuilder* out, std::vector<std::string>* warnings) {
  if (options.target != "cpu" && options.target != "vulkan" && options.target != "all")
    return InvalidArgument("unknown target '" + options.target + "' (expected cpu, vulkan or all)");
  out->name = module.name;
  out->source_file = module.file_name;
  for (const auto& [name, a] : module.attrs) {
    if (name == "mhlo.num_replicas" && a.kind == ir::Attribute::Kind::kInt) out->num_replicas = static_cast<uint32_t>(a.i);
    if (name == "mhlo.num_partitions" && a.kind == ir::Attribute::Kind::kInt) out->num_partitions = static_cast<uint32_t>(a.i);
  }
  std::map<std::string, uint32_t> function_index;
  for (size_t i = 0; i < module.functions.size(); ++i) function_index[module.functions[i]->name] = static_cast<uint32_t>(i);
  std::vector<FunctionUses> uses;
  for (const auto& f : module.functions) {
    FunctionUses u{out->dispatch_uses.size(), 0, out->call_uses.size(), 0};
    ir::Location loc;
    FunctionLowering lowering(module, *f, out, function_index);
    KILN_ASSIGN_OR_RETURN(ElementwiseFusion fusion, ElementwiseFusion::Plan(*f));
    if (options.fuse) lowering.UseFusion(&fusion);
    auto fo = lowering.Lower(&loc);
    if (!fo.ok()) return Status(fo.status().code(), format_error(loc, fo.status().message()));
    u.dispatch_end = out->dispatch_uses.size();
    u.call_end = out->call_uses.size();
    uses.push_back(u);
    out->functions.push_back(std::move(fo.value()));
  }
  if (options.target != "cpu") return AddVulkanTarget(module, options, format_error, uses, out, warnings);
  return Status::Ok();
}

}  // namespace kiln::compiler

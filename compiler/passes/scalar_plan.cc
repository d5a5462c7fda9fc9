// The scalar path: which rank-0 integer values live in the VM's i64
// registers instead of tensors (PlanScalars), and the bytecode of an op on
// them (EmitScalarOp: a native i64 instruction where one matches exactly,
// else the table-driven scalar.op).
#include "compiler/passes/scalar_plan.h"
#include "compiler/op_names.h"

#include <span>
#include <string_view>
#include <utility>

namespace kiln::compiler {

StatusOr<ScalarInstr> ScalarInstrForOp(const ir::Operation& op, const std::vector<uint16_t>& operands);

namespace {

using vm::Opcode;

// The elementwise ops the VM's scalar.op evaluates (scalar_ops.def's
// kVmInteger): only they can take the scalar path.
bool IsScalarOpName(std::string_view n) { return HasScalarOpFact(ScalarOpFromName(n), kVmInteger); }

// Regions the VM runs itself (as branches), rather than kernels as scalar
// programs: only ops in these blocks can take the scalar path.
using op_names::HasVmRegions;

const ir::Block* SingleBlock(const ir::Region& r) { return r.blocks.size() == 1 ? r.blocks[0].get() : nullptr; }

class Planner {
 public:
  explicit Planner(const ir::Function& f) : fn_(f) {}

  ScalarPlan Run() {
    const ir::Block* entry = SingleBlock(fn_.body);
    if (!entry) return {};
    // Demoting a loop-carried value can demote others; repeat until stable.
    // Each round demotes at least one value, so this ends.
    for (;;) {
      plan_ = ScalarPlan();
      changed_ = false;
      for (const auto& a : entry->args)
        if (IsScalarType(a->type)) plan_.scalar.insert(a.get());
      WalkBlock(*entry);
      if (!changed_) break;
    }
    for (const auto& a : entry->args) args_.insert(a.get());
    NoteEntryLoads(*entry);
    return std::move(plan_);
  }

 private:
  void WalkBlock(const ir::Block& b) {
    for (const auto& op : b.ops) WalkOp(*op);
  }

  void WalkOp(const ir::Operation& op) {
    if (op_names::IsConstant(op.name)) {
      if (op.results.size() == 1 && IsScalarType(op.result()->type)) plan_.scalar.insert(op.result());
      return;
    }
    if (op.name == op_names::kWhile) {
      WalkWhile(op);
      return;
    }
    if (HasVmRegions(op.name)) {
      for (const auto& r : op.regions)
        if (const ir::Block* b = SingleBlock(*r)) WalkBlock(*b);
      return;
    }
    // A dimension size is read into a register by the VM (dim): JAX's shape
    // checks compute on it without a dispatch or a device wait.
    if (op.name == op_names::kGetDimensionSize && op.results.size() == 1 && IsScalarType(op.result()->type)) {
      plan_.scalar.insert(op.result());
      return;
    }
    if (IsScalarOp(op, plan_)) plan_.scalar.insert(op.result());
  }

  void WalkWhile(const ir::Operation& op) {
    if (op.regions.size() != 2) return;
    const ir::Block* cond = SingleBlock(*op.regions[0]);
    const ir::Block* body = SingleBlock(*op.regions[1]);
    if (!cond || !body || body->ops.empty()) return;
    std::vector<size_t> carried;
    for (size_t k = 0; k < op.results.size() && k < op.operands.size(); ++k) {
      if (!IsScalarType(op.result(static_cast<int>(k))->type) || !plan_.IsScalar(op.operands[k]) ||
          demoted_.count({&op, k}) || k >= cond->args.size() || k >= body->args.size())
        continue;
      carried.push_back(k);
      plan_.scalar.insert(cond->args[k].get());
      plan_.scalar.insert(body->args[k].get());
      plan_.scalar.insert(op.result(static_cast<int>(k)));
    }
    WalkBlock(*cond);
    WalkBlock(*body);
    const ir::Operation& yield = *body->ops.back();
    for (size_t k : carried) {
      if (k < yield.operands.size() && plan_.IsScalar(yield.operands[k])) continue;
      demoted_.insert({&op, k});
      changed_ = true;
    }
  }

  // Arguments are read into registers on entry only when a scalar consumer
  // (a scalar op, or a loop's initial value) reads them.
  void NoteEntryLoads(const ir::Block& b) {
    for (const auto& opp : b.ops) {
      const ir::Operation& op = *opp;
      bool scalar_consumer = op.results.size() == 1 && plan_.IsScalar(op.result()) && IsScalarOp(op, plan_);
      for (size_t k = 0; k < op.operands.size(); ++k) {
        const ir::Value* v = op.operands[k];
        if (!args_.count(v)) continue;
        bool carried = op.name == op_names::kWhile && k < op.results.size() &&
                       plan_.IsScalar(op.result(static_cast<int>(k)));
        if (scalar_consumer || carried) plan_.entry_loads.insert(v);
      }
      if (HasVmRegions(op.name))
        for (const auto& r : op.regions)
          if (const ir::Block* inner = SingleBlock(*r)) NoteEntryLoads(*inner);
    }
  }

  const ir::Function& fn_;
  ScalarPlan plan_;
  std::set<std::pair<const ir::Operation*, size_t>> demoted_;
  std::set<const ir::Value*> args_;
  bool changed_ = false;
};

}  // namespace

bool IsScalarType(const ir::Type& t) {
  return t.is_tensor() && t.rank() == 0 && !t.is_quantized() && (IsInteger(t.element) || IsBool(t.element));
}

bool IsScalarOp(const ir::Operation& op, const ScalarPlan& plan) {
  if (!IsScalarOpName(op.name) || op.results.size() != 1 || !IsScalarType(op.result()->type)) return false;
  for (const ir::Value* v : op.operands)
    if (!IsScalarType(v->type) || !plan.IsScalar(v)) return false;
  return true;
}

ScalarPlan PlanScalars(const ir::Function& f) { return Planner(f).Run(); }

Status EmitScalarOp(const ir::Operation& op, uint32_t dst, const std::vector<uint32_t>& regs,
                    vm::BytecodeWriter* out) {
  std::vector<uint16_t> params;
  for (size_t k = 0; k < regs.size(); ++k) params.push_back(static_cast<uint16_t>(k));
  KILN_ASSIGN_OR_RETURN(ScalarInstr in, ScalarInstrForOp(op, params));
  const ElementType rt = in.type;
  const ElementType t = op.operands.at(in.op == ScalarOp::kSelect ? 1 : 0)->type.element;
  const bool is_signed = KindOf(t) == ElementKind::kSigned;
  // Registers hold sign-extended signed values and zero-extended unsigned
  // ones, so 64-bit signed order is the type's order except for ui64.
  const bool ordered_as_i64 = is_signed || BitWidth(t) < 64;
  switch (in.op) {
    case ScalarOp::kAdd:
    case ScalarOp::kSubtract:
    case ScalarOp::kMultiply:
      if (BitWidth(rt) != 64) break;  // narrower types wrap at their width
      out->Emit(in.op == ScalarOp::kAdd ? Opcode::kAddI64 : in.op == ScalarOp::kSubtract ? Opcode::kSubI64 : Opcode::kMulI64,
            dst, regs[0], regs[1]);
      return Status::Ok();
    case ScalarOp::kAnd:
    case ScalarOp::kOr:
    case ScalarOp::kXor:  // bitwise ops keep the normalization of every width
      out->Emit(in.op == ScalarOp::kAnd ? Opcode::kAndI64 : in.op == ScalarOp::kOr ? Opcode::kOrI64 : Opcode::kXorI64,
            dst, regs[0], regs[1]);
      return Status::Ok();
    case ScalarOp::kDivide:
    case ScalarOp::kRemainder:
      if (rt != ElementType::kSI64) break;
      out->Emit(in.op == ScalarOp::kDivide ? Opcode::kDivI64 : Opcode::kRemI64, dst, regs[0], regs[1]);
      return Status::Ok();
    case ScalarOp::kMaximum:
    case ScalarOp::kMinimum:
      if (!ordered_as_i64) break;
      out->Emit(in.op == ScalarOp::kMaximum ? Opcode::kMaxI64 : Opcode::kMinI64, dst, regs[0], regs[1]);
      return Status::Ok();
    case ScalarOp::kSelect:
      out->Emit(Opcode::kSelectI64, dst, regs.at(0), regs.at(1), regs.at(2));
      return Status::Ok();
    case ScalarOp::kCompare: {
      auto dir = static_cast<ComparisonDirection>(in.attr0);
      if (dir == ComparisonDirection::kEQ || dir == ComparisonDirection::kNE) {
        out->Emit(dir == ComparisonDirection::kEQ ? Opcode::kCmpEqI64 : Opcode::kCmpNeI64, dst, regs[0], regs[1]);
        return Status::Ok();
      }
      auto ct = static_cast<ComparisonType>(in.attr1);
      bool as_signed = ct == ComparisonType::kSigned ||
                       ((ct == ComparisonType::kNotype || ct == ComparisonType::kFloat || ct == ComparisonType::kTotalOrder) &&
                        is_signed);
      // The stored order matches the requested one: signed values compared
      // as signed, or unsigned (and i1) values narrower than 64 bits.
      if (as_signed ? !is_signed : !(!is_signed && BitWidth(t) < 64)) break;
      bool lt = dir == ComparisonDirection::kLT || dir == ComparisonDirection::kGT;
      bool swap = dir == ComparisonDirection::kGT || dir == ComparisonDirection::kGE;
      out->Emit(lt ? Opcode::kCmpLtI64 : Opcode::kCmpLeI64, dst, swap ? regs[1] : regs[0], swap ? regs[0] : regs[1]);
      return Status::Ok();
    }
    default:
      break;
  }
  const auto attrs = static_cast<int64_t>((static_cast<uint64_t>(static_cast<uint32_t>(in.attr1)) << 32) |
                                         static_cast<uint32_t>(in.attr0));
  out->Emit(Opcode::kScalarOp, dst, static_cast<uint32_t>(in.op), static_cast<uint32_t>(rt), static_cast<uint32_t>(t), attrs,
            std::span<const uint32_t>(regs));
  return Status::Ok();
}

}  // namespace kiln::compiler

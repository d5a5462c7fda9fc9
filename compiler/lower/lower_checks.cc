// The test dialects (check.*, interpreter.*: not checked by the verifier)
// and stablehlo.custom_call's check and sharding targets, as VM check
// instructions. Part of FunctionLowering (compiler/lower/function_lowering.h).
#include <bit>

#include "compiler/lower/function_lowering.h"
#include "compiler/op_names.h"

namespace kiln::compiler {

using vm::Opcode;

Status FunctionLowering::LowerCheck(const ir::Operation& op, std::string_view kind, bool against_const) {
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
    body_.Emit(Opcode::kCheckEq, a, b);
  } else if (kind == "almost_eq") {
    const ir::Attribute* t = op.GetAttr("tolerance");
    double tol = t ? (t->kind == ir::Attribute::Kind::kFloat ? t->f : static_cast<double>(t->i)) : 1e-4;
    if (op.name == op_names::kCustomCall) tol = 1e-3;
    body_.Emit(Opcode::kCheckAlmostEq, a, b, std::bit_cast<int64_t>(tol));
  } else {  // close
    const ir::Attribute* mx = op.GetAttr("max_ulp_difference");
    const ir::Attribute* mn = op.GetAttr("min_ulp_difference");
    body_.Emit(Opcode::kCheckClose, a, b, mx ? mx->i : 3, mn ? mn->i : 0);
  }
  return Status::Ok();
}

Status FunctionLowering::LowerCustomCall(const ir::Operation& op) {
  const ir::Attribute* target = op.GetAttr("call_target_name");
  std::string name = target ? target->str : "";
  if (name == "check.expect_eq") return LowerCheck(op, "eq", false);
  if (name == "check.expect_almost_eq") return LowerCheck(op, "almost_eq", false);
  if (name == "check.expect_close") return LowerCheck(op, "close", false);
  if (name == "check.eq") {
    if (op.operands.size() != 2 || op.results.size() != 1) return Unimplemented("@check.eq takes two operands and returns one result");
    uint32_t r = Define(op.result());
    body_.Emit(Opcode::kCheckEqResult, r, Ref(op.operands[0]), Ref(op.operands[1]));
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


// The handlers of the op table (lower_ops.cc) for the test dialects.
Status FunctionLowering::LowerCustomCallOp(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  return LowerCustomCall(op);
}
Status FunctionLowering::LowerExpectEq(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  return LowerCheck(op, "eq", false);
}
Status FunctionLowering::LowerExpectEqConst(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  return LowerCheck(op, "eq", true);
}
Status FunctionLowering::LowerExpectAlmostEq(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  return LowerCheck(op, "almost_eq", false);
}
Status FunctionLowering::LowerExpectAlmostEqConst(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  return LowerCheck(op, "almost_eq", true);
}
Status FunctionLowering::LowerExpectClose(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  return LowerCheck(op, "close", false);
}

Status FunctionLowering::LowerExpectSerializedEq(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  const ir::Attribute* id = op.GetAttr("probe_id");
  const ir::Attribute* iter = op.GetAttr("iter");
  body_.Emit(Opcode::kCheckSerializedEq, Ref(op.operands.at(0)), mb_->AddString(id ? id->str : ""),
             static_cast<uint32_t>(iter ? iter->i : 0));
  return Status::Ok();
}

// interpreter.probe forwards its operand as its result.
Status FunctionLowering::LowerProbe(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  const ir::Attribute* id = op.GetAttr("probe_id");
  body_.Emit(Opcode::kProbe, Ref(op.operands.at(0)), mb_->AddString(id ? id->str : ""));
  ref_of_[op.result()] = Ref(op.operands.at(0));
  return Status::Ok();
}

Status FunctionLowering::LowerPrint(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  body_.Emit(Opcode::kPrint, Ref(op.operands.at(0)));
  return Status::Ok();
}

}  // namespace kiln::compiler

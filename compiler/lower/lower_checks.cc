// The test dialects (check.*, interpreter.*: not checked by the verifier)
// and stablehlo.custom_call's check and sharding targets, as VM check
// instructions. Part of FunctionLowering (compiler/lower/function_lowering.h).
#include <bit>

#include "compiler/lower/function_lowering.h"
#include "compiler/op_names.h"

namespace kiln::compiler {

using vm::Opcode;

namespace {
// The number attribute `name` of a check op (a float, or an integer from
// other readers), or `fallback` where it has none.
double NumberAttr(const ir::Operation& op, const char* name, double fallback) {
  const ir::Attribute* t = op.GetAttr(name);
  return t ? (t->kind == ir::Attribute::Kind::kFloat ? t->f : static_cast<double>(t->i)) : fallback;
}
}  // namespace

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
  } else if (kind == "almost_eq" && (op.GetAttr("atol") || op.GetAttr("rtol"))) {
    // IREE's form: NumPy's isclose with IREE's defaults (atol 1e-4, rtol 0).
    body_.Emit(Opcode::kCheckNear, a, b, std::bit_cast<int64_t>(NumberAttr(op, "atol", 1e-4)),
               std::bit_cast<int64_t>(NumberAttr(op, "rtol", 0.0)));
  } else if (kind == "almost_eq") {
    const double tol = op.name == op_names::kCustomCall ? 1e-3 : NumberAttr(op, "tolerance", 1e-4);
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
  if (name == "shape_assertion" || name == "stablehlo.shape_assertion") return LowerShapeAssertion(op);
  // Sharding and memory-placement annotations that JAX exports: on one
  // device (and one memory) they are the identity.
  if ((name == "Sharding" || name == "SPMDFullToShardShape" || name == "SPMDShardToFullShape" ||
       name == "annotate_device_placement" || name == "MoveToHost" || name == "MoveToDevice") &&
      op.operands.size() == 1 && op.results.size() == 1 && op.operands[0]->type == op.result()->type) {
    ref_of_[op.result()] = Ref(op.operands[0]);
    return Status::Ok();
  }
  return LowerUserCall(op, name);
}

// Any other target is a user op (kernels/common/user_ops.h): a dispatch of
// kiln.custom_call naming it, resolved when a session is made against the
// host functions the application registered (kiln_register_custom_call).
// Tensor operands and results of static shape; a string backend_config is
// passed along.
Status FunctionLowering::LowerUserCall(const ir::Operation& op, const std::string& name) {
  const std::string what = "stablehlo.custom_call @" + name + ": ";
  if (name.empty()) return InvalidArgument("stablehlo.custom_call needs a call_target_name");
  for (const auto& r : op.results)
    if (!r->type.is_tensor() || !r->type.HasStaticShape())
      return Unimplemented(what + "a user op's results must be tensors of static shape, not " + r->type.ToString());
  for (const ir::Value* v : op.operands)
    if (!v->type.is_tensor())
      return Unimplemented(what + "a user op's operands must be tensors, not " + v->type.ToString());
  KernelParams params;
  params.kernel = std::string(KernelName(KernelId::kCustomCall));
  KernelAttr target;
  target.name = "call_target_name";
  target.str = name;
  params.attrs.push_back(std::move(target));
  if (const ir::Attribute* config = op.GetAttr("backend_config");
      config != nullptr && config->kind == ir::Attribute::Kind::kString) {
    KernelAttr c;
    c.name = "backend_config";
    c.str = config->str;
    params.attrs.push_back(std::move(c));
  }
  return EmitDispatch(op, std::move(params));
}

// JAX's shape assertion: custom_call @shape_assertion(%pred, %v0, ...)
// {error_message = "... {0} ..."} fails the call with the message, its
// placeholders replaced by the values, when %pred is false. Checked as XLA's
// shape-refinement pass checks it (xla/python/refine_polymorphic_shapes.cc):
// no results, a rank-0 i1 predicate, at most 32 rank-0 i32/i64 values, a
// string error_message whose placeholders name values that exist. The
// values are read before the branch, so the passing path has them too.
Status FunctionLowering::LowerShapeAssertion(const ir::Operation& op) {
  constexpr size_t kMaxInputs = 32;
  const std::string what = "stablehlo.custom_call @" + op.GetAttr("call_target_name")->str + ": ";
  if (!op.results.empty()) return InvalidArgument(what + "a shape assertion has no results");
  if (op.operands.empty() || op.operands.size() > 1 + kMaxInputs)
    return InvalidArgument(what + "expects a predicate and at most " + std::to_string(kMaxInputs) + " values, got " +
                           std::to_string(op.operands.size()) + " operands");
  const ir::Type& p = op.operands[0]->type;
  if (!p.is_tensor() || p.rank() != 0 || p.element != ElementType::kI1)
    return InvalidArgument(what + "the predicate (operand 0) must be tensor<i1>, not " + p.ToString());
  for (size_t k = 1; k < op.operands.size(); ++k) {
    const ir::Type& t = op.operands[k]->type;
    if (!t.is_tensor() || t.rank() != 0 || (t.element != ElementType::kSI32 && t.element != ElementType::kSI64))
      return InvalidArgument(what + "operand " + std::to_string(k) + " must be tensor<i32> or tensor<i64>, not " +
                             t.ToString());
  }
  const ir::Attribute* message = op.GetAttr("error_message");
  if (!message || message->kind != ir::Attribute::Kind::kString)
    return InvalidArgument(what + "needs a string attribute error_message");
  // Every {N} must name a value (XLA refuses the module otherwise).
  const std::string& m = message->str;
  for (size_t i = 0; i < m.size(); ++i) {
    if (m[i] != '{') continue;
    if (i + 1 < m.size() && m[i + 1] == '{') {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < m.size() && m[j] >= '0' && m[j] <= '9') ++j;
    if (j == i + 1 || j >= m.size() || (m[j] != '}' && m[j] != ',' && m[j] != ':')) continue;
    const std::string index = m.substr(i + 1, j - i - 1);
    if (index.size() > 2 || std::stoul(index) >= op.operands.size() - 1)
      return InvalidArgument(what + "error_message's placeholder {" + index + "} names value " + index +
                             ", but the assertion has " + std::to_string(op.operands.size() - 1) +
                             " values after its predicate");
  }
  std::vector<uint32_t> values;
  for (size_t k = 1; k < op.operands.size(); ++k) values.push_back(I64(op.operands[k]));
  uint32_t pred = I64(op.operands[0]);
  uint32_t to_pass = EmitBranch(Opcode::kBrIf, pred, kPatchedLater);
  body_.Emit(Opcode::kFailFormat, mb_->AddString(m), values);
  body_.PatchTarget(to_pass, body_.pc());
  return Status::Ok();
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

// IREE's check.expect_all_true: every element of an integer tensor nonzero.
Status FunctionLowering::LowerExpectAllTrue(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  if (op.operands.size() != 1) return InvalidArgument(op.name + " takes one operand");
  body_.Emit(Opcode::kCheckAllTrue, Ref(op.operands[0]));
  return Status::Ok();
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

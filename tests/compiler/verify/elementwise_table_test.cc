// The StableHLO verifier's elementwise rules against the scalar-op table
// (kernels/common/scalar_ops.def): for every op verified by the generic rules
// and a sample of element types (quantized included), the verifier accepts
// exactly what the table's classes and quantized-ok columns allow, and agrees
// with the scalar program verifier that checks the same op at load time.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/parse/parser.h"
#include "compiler/verify/verifier.h"
#include "kernels/scalar/scalar.h"

namespace kiln::compiler {
namespace {

std::string Fmt(ir::Location, const std::string& m) { return m; }

Status ParseAndVerify(const std::string& src) {
  auto m = ir::ParseModule(src, "t.mlir");
  if (!m.ok()) return Status(StatusCode::kInternal, "PARSE: " + m.status().message());
  return VerifyModule(*m.value(), Fmt);
}

// Ops whose verifier rule is their own (attributes, mixed operand roles).
bool HasOwnRule(ScalarOp op) {
  switch (op) {
    case ScalarOp::kConstant:
    case ScalarOp::kConvert:
    case ScalarOp::kBitcastConvert:
    case ScalarOp::kCompare:
    case ScalarOp::kSelect:
    case ScalarOp::kClamp:
    case ScalarOp::kComplex: return true;
    default: return false;
  }
}

const ElementType kSampleTypes[] = {ElementType::kI1,  ElementType::kSI8, ElementType::kSI32, ElementType::kUI8,
                                    ElementType::kUI64, ElementType::kF16, ElementType::kBF16, ElementType::kF32,
                                    ElementType::kF64,  ElementType::kC64};
const char kQuantized[] = "!quant.uniform<i8:f32, 0.5:0>";

// `name` applied to arity operands of element type `elem` (spelled), with
// result element `result`, as a generic-form program.
std::string Program(std::string_view name, int arity, const std::string& elem, const std::string& result) {
  std::string t = "tensor<2x" + elem + ">", args, operands, types;
  for (int k = 0; k < arity; ++k) {
    std::string a = "%a" + std::to_string(k);
    args += (k ? ", " : "") + a + ": " + t;
    operands += (k ? ", " : "") + a;
    types += (k ? ", " : "") + t;
  }
  return "func.func @main(" + args + ") {\n  %r = \"" + std::string(name) + "\"(" + operands + ") : (" + types +
         ") -> tensor<2x" + result + ">\n  func.return\n}\n";
}

TEST(ElementwiseTable, VerifierAcceptsWhatTheTableAllows) {
  int checked = 0;
  for (int c = 1; c <= kMaxScalarOpCode; ++c) {
    const ScalarOp op = static_cast<ScalarOp>(c);
    if (HasOwnRule(op)) continue;
    const std::string_view name = ScalarOpName(op);
    const int arity = ScalarOpArity(op);
    const bool predicate = HasScalarOpFact(op, kPredicate);
    for (ElementType t : kSampleTypes) {
      ElementType rt = predicate ? ElementType::kI1 : t;
      if (op == ScalarOp::kAbs || op == ScalarOp::kReal || op == ScalarOp::kImag) rt = ComplexPartType(t);
      const bool want = (TypeClassOf(t) & ScalarOpClasses(op)) != 0;
      Status s = ParseAndVerify(Program(name, arity, std::string(Name(t)), std::string(Name(rt))));
      EXPECT_EQ(s.ok(), want) << name << " on " << Name(t) << ": " << s.message();
      // The same op as a one-instruction scalar program.
      ScalarProgram p;
      p.param_types.assign(arity, t);
      ScalarInstr in;
      in.op = op;
      in.type = rt;
      in.num_operands = static_cast<uint8_t>(arity);
      for (int k = 0; k < arity; ++k) in.operands[k] = static_cast<uint16_t>(k);
      in.attr0 = op == ScalarOp::kReducePrecision ? 5 : 0;
      p.instrs.push_back(in);
      p.results = {static_cast<uint16_t>(arity)};
      EXPECT_EQ(ref::VerifyScalarProgram(p).ok(), s.ok()) << name << " on " << Name(t);
      ++checked;
    }
    // Quantized operands (and result, unless the result is i1).
    const bool want_q = HasScalarOpFact(op, kQuantizedOk);
    const std::string rq = predicate ? "i1" : op == ScalarOp::kReal || op == ScalarOp::kImag ? "f32" : kQuantized;
    Status s = ParseAndVerify(Program(name, arity, kQuantized, rq));
    EXPECT_EQ(s.ok(), want_q) << name << " on quantized: " << s.message();
  }
  EXPECT_GT(checked, 500);
}

}  // namespace
}  // namespace kiln::compiler

// VerifyScalarProgram: the load-time check of every scalar program a module
// carries, after which the evaluator and the kernels trust it. Arity, operand
// classes and same-type come from the op table (scalar_ops.def); the rules
// that are more than a table fact (compare's attributes, select's predicate,
// complex/real/imag/abs result types, bitcast widths) are written out below.
#include <string>

#include "kernels/scalar/scalar.h"

namespace kiln::ref {
namespace {

bool ValidType(ElementType t) { return KindOf(t) != ElementKind::kInvalid; }

// The operand the classes column describes (scalar_ops.def): select's
// first operand is its predicate, the branches carry the type.
int ClassedOperand(ScalarOp op) { return op == ScalarOp::kSelect ? 1 : 0; }

}  // namespace

Status VerifyScalarProgram(const ScalarProgram& program) {
  const size_t p = program.param_types.size();
  if (program.num_values() > 65536) return InvalidArgument("scalar program: too many values");
  for (size_t i = 0; i < p; ++i)
    if (!ValidType(program.param_types[i]))
      return InvalidArgument("scalar program: parameter " + std::to_string(i) + " has an invalid type");
  for (size_t k = 0; k < program.instrs.size(); ++k) {
    const ScalarInstr& in = program.instrs[k];
    std::string where = "scalar program: instruction " + std::to_string(k);
    int arity = ScalarOpArity(in.op);
    if (arity < 0) return InvalidArgument(where + ": unknown op");
    where += " (" + std::string(ScalarOpName(in.op)) + ")";
    if (in.num_operands != arity || arity > 3)
      return InvalidArgument(where + ": expects " + std::to_string(arity) + " operands, has " +
                             std::to_string(in.num_operands));
    if (!ValidType(in.type)) return InvalidArgument(where + ": invalid result type");
    ElementType ot[3] = {};
    for (int j = 0; j < arity; ++j) {
      if (in.operands[j] >= p + k)
        return InvalidArgument(where + ": operand " + std::to_string(j) + " uses value " +
                               std::to_string(in.operands[j]) + " before it is defined");
      ot[j] = program.ValueType(in.operands[j]);
    }
    const ElementType rt = in.type;
    if (arity > 0) {
      ElementType t = ot[ClassedOperand(in.op)];
      if (!(TypeClassOf(t) & ScalarOpClasses(in.op)))
        return InvalidArgument(where + ": operand type " + std::string(Name(t)) + " not allowed");
    }
    if (HasScalarOpFact(in.op, kSameType))
      for (int j = 0; j < arity; ++j)
        if (ot[j] != rt) return InvalidArgument(where + ": operand and result types differ");
    if (HasScalarOpFact(in.op, kPredicate) && rt != ElementType::kI1)
      return InvalidArgument(where + ": result must be i1");
    switch (in.op) {
      case ScalarOp::kCompare:
        if (ot[0] != ot[1]) return InvalidArgument(where + ": operand types differ");
        if (in.attr0 < 0 || in.attr0 > 5) return InvalidArgument(where + ": bad comparison direction");
        if (in.attr1 < 0 || in.attr1 > 4) return InvalidArgument(where + ": bad comparison type");
        break;
      case ScalarOp::kSelect:
        if (ot[0] != ElementType::kI1) return InvalidArgument(where + ": predicate must be i1");
        if (ot[1] != rt || ot[2] != rt) return InvalidArgument(where + ": branch types differ from result");
        break;
      case ScalarOp::kReducePrecision:
        if (in.attr0 < 1 || in.attr1 < 0) return InvalidArgument(where + ": bad exponent/mantissa bits");
        break;
      case ScalarOp::kBitcastConvert:
        if (BitWidth(ot[0]) != BitWidth(rt)) return InvalidArgument(where + ": bit widths differ");
        break;
      case ScalarOp::kComplex:
        if (ot[0] != ot[1] || !IsComplex(rt) || ComplexPartType(rt) != ot[0])
          return InvalidArgument(where + ": complex(re, im) types do not match");
        break;
      case ScalarOp::kReal:
      case ScalarOp::kImag:
      case ScalarOp::kAbs:
        if (ComplexPartType(ot[0]) != rt) return InvalidArgument(where + ": result type mismatch");
        break;
      default: break;
    }
  }
  for (size_t r = 0; r < program.results.size(); ++r)
    if (program.results[r] >= program.num_values())
      return InvalidArgument("scalar program: result " + std::to_string(r) + " is not a defined value");
  return Status::Ok();
}

}  // namespace kiln::ref

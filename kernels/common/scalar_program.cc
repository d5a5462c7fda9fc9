// The scalar-op table (scalar_ops.def) as a constexpr array indexed by code,
// and the queries every layer asks of it.
#include "kernels/common/scalar_program.h"

namespace kiln {
namespace {

// The classes column: one letter per element kind (b, s, u, f, c).
constexpr unsigned ParseClasses(std::string_view letters) {
  unsigned mask = 0;
  for (char c : letters) {
    switch (c) {
      case 'b': mask |= kBoolClass; break;
      case 's': mask |= kSignedClass; break;
      case 'u': mask |= kUnsignedClass; break;
      case 'f': mask |= kFloatClass; break;
      case 'c': mask |= kComplexClass; break;
      default: throw "scalar_ops.def: unknown type class letter";  // a compile error: kTable is constexpr
    }
  }
  return mask;
}

struct Row {
  std::string_view name;
  int arity;
  unsigned classes;
  unsigned facts;
};
struct Table {
  Row rows[kMaxScalarOpCode + 1];
  constexpr Table() : rows{} {
    for (auto& r : rows) r = Row{"", -1, 0, 0};
#define KILN_SCALAR_OP(name, code, op_name, arity, classes, facts) \
  rows[code] = Row{op_name, arity, ParseClasses(classes), static_cast<unsigned>(facts)};
#include "kernels/common/scalar_ops.def"
#undef KILN_SCALAR_OP
  }
};
constexpr Table kTable;

const Row* Find(ScalarOp op) {
  auto c = static_cast<unsigned>(op);
  return c <= kMaxScalarOpCode && kTable.rows[c].arity >= 0 ? &kTable.rows[c] : nullptr;
}

}  // namespace

unsigned TypeClassOf(ElementType t) {
  switch (KindOf(t)) {
    case ElementKind::kBool: return kBoolClass;
    case ElementKind::kSigned: return kSignedClass;
    case ElementKind::kUnsigned: return kUnsignedClass;
    case ElementKind::kFloat: return kFloatClass;
    case ElementKind::kComplex: return kComplexClass;
    default: return 0;
  }
}

int ScalarOpArity(ScalarOp op) {
  const Row* r = Find(op);
  return r ? r->arity : -1;
}
std::string_view ScalarOpName(ScalarOp op) {
  const Row* r = Find(op);
  return r ? r->name : std::string_view();
}
unsigned ScalarOpClasses(ScalarOp op) {
  const Row* r = Find(op);
  return r ? r->classes : 0;
}
bool HasScalarOpFact(ScalarOp op, ScalarOpFact f) {
  const Row* r = Find(op);
  return r && (r->facts & f) != 0;
}
ScalarOp ScalarOpFromName(std::string_view op_name) {
  for (int c = 1; c <= kMaxScalarOpCode; ++c)
    if (kTable.rows[c].arity >= 0 && kTable.rows[c].name == op_name) return static_cast<ScalarOp>(c);
  return ScalarOp::kInvalid;
}
bool ScalarOpFromCode(uint32_t code, ScalarOp* out) {
  if (code == 0 || code > kMaxScalarOpCode || kTable.rows[code].arity < 0) return false;
  *out = static_cast<ScalarOp>(code);
  return true;
}

ScalarOp ScalarProgram::AsStandardReduction() const {
  if (param_types.size() != 2 || instrs.size() != 1 || results.size() != 1 || results[0] != 2) return ScalarOp::kInvalid;
  const ElementType t = param_types[0];
  const ScalarInstr& in = instrs[0];
  if (param_types[1] != t || in.type != t || in.num_operands != 2) return ScalarOp::kInvalid;
  if (!((in.operands[0] == 0 && in.operands[1] == 1) || (in.operands[0] == 1 && in.operands[1] == 0)))
    return ScalarOp::kInvalid;
  switch (in.op) {
    case ScalarOp::kAdd:
    case ScalarOp::kMultiply:
    case ScalarOp::kMaximum:
    case ScalarOp::kMinimum:
    case ScalarOp::kAnd:
    case ScalarOp::kOr: return in.op;
    default: return ScalarOp::kInvalid;
  }
}

}  // namespace kiln

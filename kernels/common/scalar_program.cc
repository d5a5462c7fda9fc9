#include "kernels/common/scalar_program.h"

namespace kiln {
namespace {
struct Row { std::string_view name; int arity; };
struct Table {
  Row rows[kMaxScalarOpCode + 1];
  constexpr Table() : rows{} {
    for (auto& r : rows) r = Row{"", -1};
#define KILN_SCALAR_OP(name, code, op_name, arity) rows[code] = Row{op_name, arity};
#include "kernels/common/scalar_ops.def"
#undef KILN_SCALAR_OP
  }
};
constexpr Table kTable;
}  // namespace

int ScalarOpArity(ScalarOp op) {
  auto c = static_cast<unsigned>(op);
  return c <= kMaxScalarOpCode ? kTable.rows[c].arity : -1;
}
std::string_view ScalarOpName(ScalarOp op) {
  auto c = static_cast<unsigned>(op);
  return c <= kMaxScalarOpCode ? kTable.rows[c].name : std::string_view();
}
ScalarOp ScalarOpFromName(std::string_view op_name) {
  for (int c = 1; c <= kMaxScalarOpCode; ++c)
    if (kTable.rows[c].name == op_name) return static_cast<ScalarOp>(c);
  return ScalarOp::kInvalid;
}
bool ScalarOpFromCode(uint32_t code, ScalarOp* out) {
  if (code == 0 || code > kMaxScalarOpCode || kTable.rows[code].arity < 0) return false;
  *out = static_cast<ScalarOp>(code);
  return true;
}

}  // namespace kiln

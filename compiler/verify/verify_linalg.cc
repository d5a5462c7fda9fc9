// Verifier checks of the linear-algebra ops: cholesky and triangular_solve.
#include "compiler/verify/verify_util.h"

namespace kiln::compiler::verify {
namespace {

std::string Cholesky(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(Unary(op));
  const ir::Type& a = op.operands[0]->type;
  const ir::Type& rt = op.result()->type;
  if (!BaselineCompatible(a, rt))
    return Msg(op, "a " + TypeStr(a) + " and result " + TypeStr(rt) + " must have the same type", "C1");
  if (a.rank() < 2) return Msg(op, "a " + TypeStr(a) + " must have rank at least 2", "C2");
  if (!DimsCompatible(a.dims[a.rank() - 2], a.dims[a.rank() - 1]))
    return Msg(op, "a " + TypeStr(a) + " must be square in its last two dimensions", "C3");
  return "";
}

std::string TriangularSolve(const ir::Operation& op, const Context&) {
  if (op.operands.size() != 2 || op.results.size() != 1 || !AllTensors(op))
    return Msg(op, "expects a and b tensors and one tensor result");
  const ir::Type& a = op.operands[0]->type;
  const ir::Type& b = op.operands[1]->type;
  const ir::Type& rt = op.result()->type;
  if (!SameBaselineElement(a, b))
    return Msg(op, "a " + TypeStr(a) + " and b " + TypeStr(b) + " must have the same element type", "C1");
  if (a.rank() < 2 || a.rank() != b.rank())
    return Msg(op, "a " + TypeStr(a) + " and b " + TypeStr(b) + " must have the same rank, at least 2", "C2");
  int64_t r = a.rank();
  for (int64_t i = 0; i < r - 2; ++i)
    if (!DimsCompatible(a.dims[i], b.dims[i]))
      return Msg(op, "batch dimensions of a " + TypeStr(a) + " and b " + TypeStr(b) + " differ", "C3");
  bool left = Bool(op, "left_side").value_or(false);
  int64_t bd = b.dims[left ? r - 2 : r - 1];
  if (!DimsCompatible(a.dims[r - 2], a.dims[r - 1]) || !DimsCompatible(a.dims[r - 1], bd))
    return Msg(op, "a " + TypeStr(a) + " must be square and match dimension " + Num(left ? r - 2 : r - 1) + " of b " +
                       TypeStr(b), "C3");
  if (!BaselineCompatible(b, rt))
    return Msg(op, "b " + TypeStr(b) + " and result " + TypeStr(rt) + " must have the same type", "C4");
  return "";
}

}  // namespace

void RegisterLinalg(Registry* r) {
  (*r)["stablehlo.cholesky"] = &Cholesky;
  (*r)["stablehlo.triangular_solve"] = &TriangularSolve;
}

}  // namespace kiln::compiler::verify

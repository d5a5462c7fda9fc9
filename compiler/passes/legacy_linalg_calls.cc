// jaxlib's LAPACK and BLAS calls before the typed FFI -> their _ffi forms
// (compiler/passes/legacy_linalg_calls.h). The legacy operand lists, as
// jaxlib's lowerings built them (leading rank-0 i32 or i64 operands):
//   potrf  (lower, batch, n, a)                       -> (a, info)
//   getrf  (batch, m, n, a)                           -> (a, ipiv, info)
//   geqrf  (batch, m, n, lwork, a)                    -> (a, tau, info, work)
//   orgqr / ungqr (batch, m, n, k, lwork, a, tau)     -> (a, info, work)
//   syevd / heevd (lower, batch, n, a)                -> (v, w, info, workspaces...)
//   gesdd  (full_matrices, compute_uv, batch, m, n, lwork, a)
//                                                     -> (a, s, u, vt, info, workspaces...)
//   trsm   (left_side, lower, trans (0 N, 1 T, 2 C), unit_diagonal, m, n,
//           batch, alpha, a, b)                       -> b
//   geev   (batch, n, jobvl, jobvr ('V' or 'N'), a)   -> real: (3 workspaces,
//           wr, wi, vl, vr, info); complex: (work, rwork, w, vl, vr, info),
//           the workspaces moving behind info as the _ffi form has them
//   gees   (batch, n, jobvs, sort, a)                 -> real: (t, wr, wi, vs,
//           sdim, info); complex: (t, rwork, w, vs, sdim, info), put in the
//           _ffi order by legalize_linalg_calls.cc
// each result list either as one tuple or as several results. Calls with
// no leading integer operands (jaxlib's first FFI calls kept the old names)
// only take the _ffi name.
#include "compiler/passes/legacy_linalg_calls.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/op_names.h"
#include "kernels/scalar/scalar.h"

namespace kiln::compiler {
namespace {

struct LegacyRoutine {
  std::string_view name;
  size_t scalars;  // leading rank-0 integer operands of the legacy form
};
constexpr LegacyRoutine kLegacyRoutines[] = {{"potrf", 3}, {"getrf", 3}, {"geqrf", 4}, {"orgqr", 5}, {"ungqr", 5},
                                             {"syevd", 3}, {"heevd", 3}, {"gesdd", 6}, {"trsm", 7},
                                             {"geev", 4},  {"gees", 4}};

// The routine of a legacy target, lapack_<s|d|c|z><routine> or
// blas_<s|d|c|z>trsm (no _ffi suffix), or "".
std::string_view RoutineOf(std::string_view target) {
  for (std::string_view prefix : {std::string_view("lapack_"), std::string_view("blas_")}) {
    if (target.size() < prefix.size() + 2 || target.substr(0, prefix.size()) != prefix) continue;
    const std::string_view rest = target.substr(prefix.size());
    if (std::string_view("sdcz").find(rest[0]) == std::string_view::npos) return "";
    if (rest.size() >= 4 && rest.substr(rest.size() - 4) == "_ffi") return "";
    const std::string_view routine = rest.substr(1);
    if ((prefix == "blas_") != (routine == "trsm")) return "";
    return routine;
  }
  return "";
}

bool IsRankZeroInteger(const ir::Value* v) {
  return v->type.is_tensor() && v->type.rank() == 0 && !v->type.is_quantized() &&
         (KindOf(v->type.element) == ElementKind::kSigned || KindOf(v->type.element) == ElementKind::kUnsigned);
}

// The value of a rank-0 integer stablehlo.constant, or nothing.
std::optional<int64_t> ConstantInteger(const ir::Value* v) {
  if (!v->def || v->def->name != ScalarOpName(ScalarOp::kConstant)) return std::nullopt;
  const ir::Attribute* a = v->def->GetAttr("value");
  if (!a || a->kind != ir::Attribute::Kind::kDense || a->DenseElementCount() != 1) return std::nullopt;
  return ref::LoadScalar(v->type.element, a->DenseElement(0)).i;
}

// A LAPACK character as mhlo.backend_config holds it (`76 : ui8`).
ir::NamedAttr Character(std::string name, char c) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInt;
  a.i = c;
  a.type = ir::Type::Tensor(ElementType::kUI8, {});
  return {std::move(name), std::move(a)};
}

// The backend_config fields the _ffi form reads, from the legacy flags.
std::vector<ir::NamedAttr> ConfigFromFlags(std::string_view routine, const std::vector<int64_t>& f) {
  std::vector<ir::NamedAttr> c;
  if (routine == "potrf") c.push_back(Character("uplo", f[0] ? 'L' : 'U'));
  if (routine == "syevd" || routine == "heevd") {
    c.push_back(Character("mode", 'V'));  // the legacy form always computed the vectors
    c.push_back(Character("uplo", f[0] ? 'L' : 'U'));
  }
  if (routine == "geev") {
    c.push_back(Character("compute_left", f[2] == 'V' ? 'V' : 'N'));
    c.push_back(Character("compute_right", f[3] == 'V' ? 'V' : 'N'));
  }
  if (routine == "gesdd") c.push_back(Character("mode", f[1] == 0 ? 'N' : f[0] ? 'A' : 'S'));
  if (routine == "gees") {
    c.push_back(Character("mode", f[2] == 'V' ? 'V' : 'N'));
    c.push_back(Character("sort", f[3] == 'S' ? 'S' : 'N'));
  }
  if (routine == "trsm") {
    c.push_back(Character("side", f[0] ? 'L' : 'R'));
    c.push_back(Character("uplo", f[1] ? 'L' : 'U'));
    c.push_back(Character("trans_x", f[2] == 0 ? 'N' : f[2] == 1 ? 'T' : 'C'));
    c.push_back(Character("diag", f[3] ? 'U' : 'N'));
  }
  return c;
}

// Replaces op's one tuple result by the tuple's elements and inserts, after
// op, a stablehlo.tuple of them that takes over the tuple value.
void SplitTupleResult(ir::Block* block, size_t at) {
  ir::Operation& op = *block->ops[at];
  std::unique_ptr<ir::Value> tuple = std::move(op.results[0]);
  op.results.clear();
  auto pack = std::make_unique<ir::Operation>();
  pack->name = std::string(op_names::kTuple);
  pack->loc = op.loc;
  pack->parent = block;
  for (const ir::Type& e : tuple->type.tuple_elements) {
    auto r = std::make_unique<ir::Value>();
    r->type = e;
    r->def = &op;
    r->index = static_cast<int>(op.results.size());
    pack->operands.push_back(r.get());
    op.results.push_back(std::move(r));
  }
  tuple->def = pack.get();
  tuple->index = 0;
  pack->results.push_back(std::move(tuple));
  block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at) + 1, std::move(pack));
}

}  // namespace

Status UpgradeLegacyLinalgCall(ir::Block* block, size_t at, const ErrorFormatter& format, size_t* inserted) {
  *inserted = 0;
  ir::Operation& op = *block->ops[at];
  if (op.name != op_names::kCustomCall) return Status::Ok();
  const ir::Attribute* name_attr = op.GetAttr("call_target_name");
  if (!name_attr) return Status::Ok();
  // A copy: SetAttr below may grow the attribute vector that name_attr points into.
  const ir::Attribute name = *name_attr;
  const std::string target = name.str;
  const std::string_view routine = RoutineOf(target);
  if (routine.empty()) return Status::Ok();
  const std::string what = "stablehlo.custom_call @" + target + " (jaxlib's form before the FFI): ";
  size_t k = 0;
  while (k < op.operands.size() && IsRankZeroInteger(op.operands[k])) ++k;
  const auto* known = std::find_if(std::begin(kLegacyRoutines), std::end(kLegacyRoutines),
                                   [&](const LegacyRoutine& r) { return r.name == routine; });
  if (known == std::end(kLegacyRoutines)) return Status::Ok();  // refused by name (legalize_linalg_calls.cc)
  if (k > 0) {
    if (k != known->scalars)
      return InvalidArgument(format(op.loc, what + "expects " + std::to_string(known->scalars) +
                                                " leading rank-0 integer operands (dims and flags), got " +
                                                std::to_string(k)));
    std::vector<int64_t> flags;
    for (size_t i = 0; i < k; ++i) {
      const std::optional<int64_t> v = ConstantInteger(op.operands[i]);
      if (!v)
        return InvalidArgument(format(op.loc, what + "operand " + std::to_string(i) +
                                                  " (a dim or flag) must be a stablehlo.constant"));
      flags.push_back(*v);
    }
    op.operands.erase(op.operands.begin(), op.operands.begin() + static_cast<std::ptrdiff_t>(k));
    if (routine == "trsm") {
      if (op.operands.size() != 3)
        return InvalidArgument(format(op.loc, what + "expects (alpha, a, b) after the dims and flags"));
      std::rotate(op.operands.begin(), op.operands.begin() + 1, op.operands.end());  // (a, b, alpha)
    }
    ir::Attribute config;
    config.kind = ir::Attribute::Kind::kDict;
    config.fields = ConfigFromFlags(routine, flags);
    op.SetAttr("mhlo.backend_config", std::move(config));
  }
  ir::Attribute renamed = name;
  renamed.str = target + "_ffi";
  op.SetAttr("call_target_name", std::move(renamed));
  if (op.results.size() == 1 && op.results[0]->type.is_tuple()) {
    SplitTupleResult(block, at);
    *inserted = 1;
  }
  if (routine == "geev" && k > 0) {  // the leading workspaces move behind info
    const size_t workspaces = IsComplex(op.operands[0]->type.element) ? 2 : 3;
    if (op.results.size() > workspaces) {
      std::rotate(op.results.begin(), op.results.begin() + static_cast<std::ptrdiff_t>(workspaces), op.results.end());
      for (size_t i = 0; i < op.results.size(); ++i) op.results[i]->index = static_cast<int>(i);
    }
  }
  return Status::Ok();
}

}  // namespace kiln::compiler

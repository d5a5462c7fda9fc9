// The op set of the input language (compiler/op_names.h): which names are
// StableHLO, CHLO, func or the conformance suite's test ops. Names Kiln
// implements come from its own tables too (kernels.def, scalar_ops.def), so
// an op added there is known without a second edit here; the lists below
// add the ops those tables do not name (structure, control flow,
// collectives, ops lowered without a kernel of their own, and the ops of
// the dialects that Kiln does not run, so that those are refused as
// unsupported rather than unknown).
#include <algorithm>
#include <array>

#include "compiler/op_names.h"

namespace kiln::compiler::op_names {
namespace {

// StableHLO's ops without a kernel or scalar op of the same name, plus the
// ones VHLO still carries that the spec dropped.
constexpr std::string_view kStablehloOps[] = {
    "after_all", "all_gather", "all_reduce", "all_to_all", "async_done", "async_start", "broadcast",
    "case", "collective_broadcast", "collective_permute", "collective_reduce", "composite",
    "compute_reshape_shape", "create_token", "cross-replica-sum", "cstr_reshapable", "custom_call",
    "einsum", "get_dimension_size", "get_tuple_element", "if", "infeed", "optimization_barrier",
    "outfeed", "partition_id", "recv", "reduce_scatter", "replica_id", "return", "send", "set_dimension_size",
    "torch_index_select", "trace", "tuple", "unary_einsum", "while",
};

// CHLO's ops without a kernel or scalar op of the same name.
// chlo.broadcast_<op> is known through its elementwise op (IsKnownOp).
constexpr std::string_view kChloOps[] = {
    "conj", "constant", "constant_like", "minimum_broadcast_shapes", "rank_specialization_cluster",
    "rank_specialization_cluster_yield", "dynamic_reshape",
};

// func, and the test dialects of the StableHLO interpreter's conformance
// suite (check.*, interpreter.*) and of IREE's tests (check.expect_all_true).
constexpr std::string_view kOtherOps[] = {
    "func.call", "func.return",
    "check.expect_almost_eq", "check.expect_almost_eq_const", "check.expect_close", "check.expect_eq",
    "check.expect_eq_const", "check.expect_serialized_eq", "check.expect_all_true",
    "interpreter.print", "interpreter.probe", "interpreter.run_parallel",
    "ml_program.global_load", "ml_program.global_store",
};

template <size_t N>
bool In(const std::string_view (&list)[N], std::string_view name) {
  return std::find(std::begin(list), std::end(list), name) != std::end(list);
}

bool HasPrefix(std::string_view name, std::string_view prefix) { return name.substr(0, prefix.size()) == prefix; }

}  // namespace

bool IsKnownOp(std::string_view name) {
  // kiln.* kernels are the compiler's own dispatches, never source ops.
  if (HasPrefix(name, kKilnPrefix)) return false;
  if (FindKernelId(name) || ScalarOpFromName(name) != ScalarOp::kInvalid) return true;
  if (HasPrefix(name, kStablehloPrefix)) return In(kStablehloOps, name.substr(kStablehloPrefix.size()));
  if (HasPrefix(name, kChloPrefix)) {
    std::string_view op = name.substr(kChloPrefix.size());
    if (In(kChloOps, op)) return true;
    // chlo.broadcast_<op> applies stablehlo.<op> (chlo.<op> for the few
    // stablehlo lacks) with numpy-style broadcasting.
    constexpr std::string_view kBroadcast = "broadcast_";
    if (!HasPrefix(op, kBroadcast)) return false;
    std::string base(op.substr(kBroadcast.size()));
    return ScalarOpFromName(std::string(kStablehloPrefix) + base) != ScalarOp::kInvalid ||
           ScalarOpFromName(std::string(kChloPrefix) + base) != ScalarOp::kInvalid;
  }
  return In(kOtherOps, name);
}

std::string UnknownOpMessage(std::string_view name) {
  std::string m = "unknown operation '" + std::string(name) + "'";
  if (!HasPrefix(name, kStablehloPrefix) && !HasPrefix(name, kChloPrefix))
    m += " (Kiln reads StableHLO programs: the stablehlo, chlo and func dialects)";
  return m;
}

}  // namespace kiln::compiler::op_names

// Verifier checks of the structural ops, which move no element: tuples,
// tokens (after_all, infeed, send, recv, outfeed), async_start/async_done,
// optimization_barrier, replica_id/partition_id, func.call, composite, and the
// loads and stores of module globals.
#include <algorithm>
#include <set>

#include "compiler/verify/verify_util.h"
#include "compiler/op_names.h"

namespace kiln::compiler::verify {
namespace {

// --- tuples, tokens, barriers ------------------------------------------------

std::string Tuple(const ir::Operation& op, const Context&) {
  if (op.results.size() != 1 || !op.result()->type.is_tuple()) return Msg(op, "result must be a tuple");
  const auto& el = op.result()->type.tuple_elements;
  bool ok = el.size() == op.operands.size();
  for (size_t i = 0; ok && i < el.size(); ++i) ok = TypesCompatible(el[i], op.operands[i]->type);
  if (!ok) return Msg(op, "result type " + TypeStr(op.result()->type) + " must be the tuple of the operand types", "C1");
  return "";
}

std::string GetTupleElement(const ir::Operation& op, const Context&) {
  if (op.operands.size() != 1 || !op.operands[0]->type.is_tuple() || op.results.size() != 1)
    return Msg(op, "expects one tuple operand and one result");
  const auto& el = op.operands[0]->type.tuple_elements;
  auto idx = Int(op, "index");
  if (!idx) return Msg(op, "needs an index attribute");
  if (*idx < 0 || *idx >= static_cast<int64_t>(el.size()))
    return Msg(op, "index " + Num(*idx) + " is out of range [0, " + Num(el.size()) + ")", "C1");
  if (!TypesCompatible(el[*idx], op.result()->type))
    return Msg(op, "result type " + TypeStr(op.result()->type) + " must be tuple element " + Num(*idx) + " type " +
                       TypeStr(el[*idx]), "C2");
  return "";
}

// --- async_start / async_done ------------------------------------------------

std::string AsyncStart(const ir::Operation& op, const Context&) {
  if (op.regions.size() != 1 || op.regions[0]->blocks.size() != 1)
    return Msg(op, "body must be one region of one block", "C1");
  const auto& ops = op.regions[0]->blocks[0]->ops;
  if (ops.size() != 2 || ops[1]->name != compiler::op_names::kReturn)
    return Msg(op, "body must hold a single operation and a return", "C1");
  const ir::Operation& inner = *ops[0];
  static const std::set<std::string> kAllowed = {
      "stablehlo.all_reduce", "stablehlo.all_gather", "stablehlo.all_to_all", "stablehlo.collective_permute",
      "stablehlo.reduce_scatter", "stablehlo.collective_broadcast", "stablehlo.slice", "stablehlo.dynamic_slice",
      "stablehlo.dynamic_update_slice"};
  if (!kAllowed.count(inner.name))
    return Msg(op, "the operation in body must be a collective or a slice, not " + inner.name, "C2");
  if (inner.operands != op.operands)
    return Msg(op, "operands must be the ones passed to the operation in body", "C3");
  if (op.results.size() != 1 || !op.result()->type.is_future())
    return Msg(op, "result must be a !stablehlo.future", "C4");
  const auto& el = op.result()->type.tuple_elements;
  bool ok = el.size() == inner.results.size();
  for (size_t i = 0; ok && i < el.size(); ++i) ok = TypesCompatible(el[i], inner.results[i]->type);
  if (!ok) return Msg(op, "result " + TypeStr(op.result()->type) + " must be the future of the body's result types", "C4");
  return "";
}

std::string AsyncDone(const ir::Operation& op, const Context&) {
  if (op.operands.size() != 1 || !op.operands[0]->type.is_future())
    return Msg(op, "operand must be a !stablehlo.future", "C1");
  const auto& el = op.operands[0]->type.tuple_elements;
  bool ok = el.size() == op.results.size();
  for (size_t i = 0; ok && i < el.size(); ++i) ok = TypesCompatible(el[i], op.result(static_cast<int>(i))->type);
  if (!ok) return Msg(op, "results must be the types of its operand " + TypeStr(op.operands[0]->type), "C1");
  return "";
}

std::string OptimizationBarrier(const ir::Operation& op, const Context&) {
  bool ok = op.operands.size() == op.results.size();
  for (size_t i = 0; ok && i < op.operands.size(); ++i)
    ok = TypesCompatible(op.operands[i]->type, op.result(static_cast<int>(i))->type);
  if (!ok) return Msg(op, "result types must be the operand types", "C1");
  return "";
}

std::string AfterAll(const ir::Operation& op, const Context&) {
  for (auto* v : op.operands)
    if (!v->type.is_token()) return Msg(op, "operand type " + TypeStr(v->type) + " must be !stablehlo.token");
  if (op.results.size() != 1 || !op.result()->type.is_token()) return Msg(op, "must return one !stablehlo.token");
  return "";
}

std::string Infeed(const ir::Operation& op, const Context&) {
  if (op.results.empty()) return Msg(op, "needs at least one result", "C1");
  if (!op.results.back()->type.is_token()) return Msg(op, "last result must be !stablehlo.token", "C3");
  return "";
}

std::string TokenResult(const ir::Operation& op, const Context&) {
  if (op.results.empty() || !op.results.back()->type.is_token())
    return Msg(op, "last result must be !stablehlo.token");
  return "";
}

std::string IdOp(const ir::Operation& op, const Context&) {
  if (op.results.size() != 1 || !op.result()->type.is_tensor() || op.result()->type.rank() != 0 ||
      op.result()->type.element != ElementType::kUI32)
    return Msg(op, "must return tensor<ui32>");
  return "";
}

// --- calls -------------------------------------------------------------------

std::string CheckCallTypes(const ir::Operation& op, const ir::Function& f, std::string_view c_in,
                           std::string_view c_out) {
  if (op.operands.size() != f.arg_types.size())
    return Msg(op, "passes " + Num(op.operands.size()) + " operands, but @" + f.name + " takes " +
                       Num(f.arg_types.size()), c_in);
  for (size_t i = 0; i < op.operands.size(); ++i)
    if (!TypesCompatible(op.operands[i]->type, f.arg_types[i]))
      return Msg(op, "operand " + Num(i) + " has type " + TypeStr(op.operands[i]->type) + ", but @" + f.name +
                         " takes " + TypeStr(f.arg_types[i]), c_in);
  if (op.results.size() != f.result_types.size())
    return Msg(op, "has " + Num(op.results.size()) + " results, but @" + f.name + " returns " +
                       Num(f.result_types.size()), c_out);
  for (size_t i = 0; i < op.results.size(); ++i)
    if (!TypesCompatible(op.result(static_cast<int>(i))->type, f.result_types[i]))
      return Msg(op, "result " + Num(i) + " has type " + TypeStr(op.result(static_cast<int>(i))->type) + ", but @" +
                         f.name + " returns " + TypeStr(f.result_types[i]), c_out);
  return "";
}

std::string Call(const ir::Operation& op, const Context& ctx) {
  const ir::Attribute* callee = op.GetAttr("callee");
  if (!callee) return Msg(op, "needs a callee");
  if (!ctx.module) return "";
  const ir::Function* f = ctx.module->FindFunction(callee->str);
  if (!f) return Msg(op, "calls undefined function @" + callee->str);
  return CheckCallTypes(op, *f, "", "");
}

std::string Composite(const ir::Operation& op, const Context& ctx) {
  std::string name = EnumStr(op, "name");
  if (op.GetAttr("name") && name.find('.') == std::string::npos)
    return Msg(op, "name '" + name + "' must be namespaced (dialect.op)", "C1");
  const ir::Attribute* dec = op.GetAttr("decomposition");
  if (!dec || !ctx.module) return "";
  const ir::Function* f = ctx.module->FindFunction(dec->str);
  if (!f) return Msg(op, "decomposition @" + dec->str + " is not defined", "C2");
  return CheckCallTypes(op, *f, "C3", "C4");
}

// --- module globals (ir::Global; docs/jax.md, "Module globals") -------------

// The global an ml_program.global_load/store names, or an error in *error.
const ir::Global* GlobalOf(const ir::Operation& op, const Context& ctx, std::string* error) {
  const ir::Attribute* g = op.GetAttr("global");
  if (!g || g->kind != ir::Attribute::Kind::kSymbol) {
    *error = Msg(op, "needs a global = @name attribute");
    return nullptr;
  }
  if (!ctx.module) return nullptr;
  const ir::Global* global = ctx.module->FindGlobal(g->str);
  if (!global) *error = Msg(op, "names undefined global @" + g->str);
  return global;
}

std::string GlobalLoad(const ir::Operation& op, const Context& ctx) {
  if (!op.operands.empty() || op.results.size() != 1) return Msg(op, "takes no operands and has one result");
  std::string error;
  const ir::Global* g = GlobalOf(op, ctx, &error);
  if (g && op.result()->type != g->type)
    return Msg(op, "result type " + TypeStr(op.result()->type) + " must be global @" + g->name + "'s type " +
                       TypeStr(g->type));
  return error;
}

std::string GlobalStore(const ir::Operation& op, const Context& ctx) {
  if (op.operands.size() != 1 || !op.results.empty()) return Msg(op, "takes one operand and has no results");
  std::string error;
  const ir::Global* g = GlobalOf(op, ctx, &error);
  if (!g) return error;
  if (!g->is_mutable) return Msg(op, "stores to global @" + g->name + ", which is not mutable");
  if (op.operands[0]->type != g->type)
    return Msg(op, "stores a value of type " + TypeStr(op.operands[0]->type) + " to global @" + g->name +
                       " of type " + TypeStr(g->type));
  return "";
}

}  // namespace

void RegisterStructural(Registry* r) {
  (*r)["ml_program.global_load"] = &GlobalLoad;
  (*r)["ml_program.global_store"] = &GlobalStore;
  (*r)["stablehlo.tuple"] = &Tuple;
  (*r)["stablehlo.get_tuple_element"] = &GetTupleElement;
  (*r)["stablehlo.optimization_barrier"] = &OptimizationBarrier;
  (*r)["stablehlo.async_start"] = &AsyncStart;
  (*r)["stablehlo.async_done"] = &AsyncDone;
  (*r)["stablehlo.after_all"] = &AfterAll;
  (*r)["stablehlo.infeed"] = &Infeed;
  (*r)["stablehlo.recv"] = &TokenResult;
  (*r)["stablehlo.send"] = &TokenResult;
  (*r)["stablehlo.outfeed"] = &TokenResult;
  (*r)["stablehlo.partition_id"] = &IdOp;
  (*r)["stablehlo.replica_id"] = &IdOp;
  (*r)["func.call"] = &Call;
  (*r)["stablehlo.composite"] = &Composite;
}

}  // namespace kiln::compiler::verify

// The IR verifier's driver: walks functions, blocks and regions, checks
// func.return against the signature, and runs each op's per-family check
// (verify_*.cc) of the spec's constraints. An op outside the input
// language (op_names::IsKnownOp) is an unknown operation; known ops no
// family registers (check.*, interpreter.*, ...) pass through.
#include "compiler/verify/verifier.h"
#include "compiler/op_names.h"

#include <set>

#include "compiler/verify/verify_util.h"

namespace kiln::compiler {
namespace {

const verify::Registry& Checks() {
  static const verify::Registry* r = [] {
    auto* reg = new verify::Registry;
    verify::RegisterElementwise(reg);
    verify::RegisterDataMovement(reg);
    verify::RegisterIndexing(reg);
    verify::RegisterContraction(reg);
    verify::RegisterReduction(reg);
    verify::RegisterNumeric(reg);
    verify::RegisterLinalg(reg);
    verify::RegisterCollectives(reg);
    verify::RegisterStructural(reg);
    return reg;
  }();
  return *r;
}

class Verifier {
 public:
  Verifier(const ir::Module& m, const ErrorFormatter& f) : format_(f) { ctx_.module = &m; }

  Status Function(const ir::Function& f) {
    if (f.body.blocks.size() != 1) return Error(f.loc, "function '" + f.name + "' must have one block");
    const ir::Block& b = *f.body.blocks[0];
    if (b.args.size() != f.arg_types.size()) return Error(f.loc, "function '" + f.name + "' argument count mismatch");
    for (size_t i = 0; i < b.args.size(); ++i)
      if (!verify::TypesCompatible(b.args[i]->type, f.arg_types[i]))
        return Error(f.loc, "function '" + f.name + "' argument " + std::to_string(i) + " has type " +
                                b.args[i]->type.ToString() + ", but the signature says " + f.arg_types[i].ToString());
    if (b.ops.empty()) return Error(f.loc, "function '" + f.name + "' has no return");
    const ir::Operation& ret = *b.ops.back();
    if (!op_names::IsReturn(ret.name))
      return Error(ret.loc, "function '" + f.name + "' must end with func.return");
    if (ret.operands.size() != f.result_types.size())
      return Error(ret.loc, "func.return has " + std::to_string(ret.operands.size()) + " operands, but '" + f.name +
                                "' returns " + std::to_string(f.result_types.size()) + " values");
    for (size_t i = 0; i < ret.operands.size(); ++i)
      if (!verify::TypesCompatible(ret.operands[i]->type, f.result_types[i]))
        return Error(ret.loc, "func.return operand " + std::to_string(i) + " has type " +
                                  ret.operands[i]->type.ToString() + ", but the function returns " +
                                  f.result_types[i].ToString());
    return Block(b);
  }

 private:
  Status Error(ir::Location loc, const std::string& m) { return InvalidArgument(format_(loc, m)); }

  // A return (func.return, stablehlo.return) terminates its block: it
  // defines no value and nothing follows it. Without this a stray
  // `%1 = stablehlo.return ...` mid-function would define a value that no
  // later stage can give a register.
  Status Block(const ir::Block& b) {
    for (const auto& op : b.ops) {
      if (op_names::IsReturn(op->name)) {
        if (!op->results.empty()) return Error(op->loc, op->name + " is a terminator and defines no results");
        if (op.get() != b.ops.back().get())
          return Error(op->loc, op->name + " must be the last operation of its block");
      }
      KILN_RETURN_IF_ERROR(Op(*op));
      for (const auto& r : op->regions)
        for (const auto& blk : r->blocks) KILN_RETURN_IF_ERROR(Block(*blk));
    }
    return Status::Ok();
  }

  Status Op(const ir::Operation& op) {
    const auto& checks = Checks();
    auto it = checks.find(op.name);
    if (it == checks.end() && !op_names::IsKnownOp(op.name)) return Error(op.loc, op_names::UnknownOpMessage(op.name));
    for (const auto& r : op.results)
      if (r->type.is_tensor() && r->type.element == ElementType::kInvalid)
        return Error(op.loc, op.name + ": result has no element type");
    if (it == checks.end()) return Status::Ok();
    std::string m = it->second(op, ctx_);
    if (!m.empty()) return Error(op.loc, m);
    return Status::Ok();
  }

  const ErrorFormatter& format_;
  verify::Context ctx_;
};

}  // namespace

Status VerifyModule(const ir::Module& module, const ErrorFormatter& format_error) {
  Verifier v(module, format_error);
  std::set<std::string> names;
  for (const auto& g : module.globals) {
    if (!names.insert(g.name).second)
      return InvalidArgument(format_error(g.loc, "symbol '@" + g.name + "' is defined twice"));
    if (!g.type.is_tensor() || !g.type.HasStaticShape())
      return InvalidArgument(format_error(g.loc, "global '@" + g.name + "' needs a tensor type of static shape"));
    if (g.initial.kind != ir::Attribute::Kind::kUnit &&
        (g.initial.kind != ir::Attribute::Kind::kDense || g.initial.type != g.type))
      return InvalidArgument(format_error(g.loc, "global '@" + g.name + "''s initial value must be dense<...> : " +
                                                     g.type.ToString()));
  }
  for (const auto& f : module.functions) {
    if (!names.insert(f->name).second)
      return InvalidArgument(format_error(f->loc, "symbol '@" + f->name + "' is defined twice"));
    KILN_RETURN_IF_ERROR(v.Function(*f));
  }
  return Status::Ok();
}

}  // namespace kiln::compiler

// Verifier v0: structural checks every lowering relies on, and the type
// rules of the elementwise families. Per-op constraints of the spec (C1,
// C2, ...) for the structured ops are checked by their kernels at run time
// for now; docs/architecture.md tracks what moves here.
#include "compiler/verifier.h"

#include <set>

namespace kiln::compiler {
namespace {

bool SameShape(const ir::Type& a, const ir::Type& b) {
  if (a.dims.size() != b.dims.size()) return false;
  for (size_t i = 0; i < a.dims.size(); ++i)
    if (a.dims[i] != b.dims[i] && a.dims[i] != ir::Type::kDynamic && b.dims[i] != ir::Type::kDynamic) return false;
  return true;
}

// Ops whose operands and result all share one shape and element type.
const std::set<std::string_view> kSameTypeElementwise = {
    "stablehlo.abs",      "stablehlo.add",        "stablehlo.and",     "stablehlo.atan2",
    "stablehlo.cbrt",     "stablehlo.ceil",       "stablehlo.cosine",  "stablehlo.count_leading_zeros",
    "stablehlo.divide",   "stablehlo.exponential", "stablehlo.exponential_minus_one", "stablehlo.floor",
    "stablehlo.log",      "stablehlo.log_plus_one", "stablehlo.logistic", "stablehlo.maximum",
    "stablehlo.minimum",  "stablehlo.multiply",   "stablehlo.negate",  "stablehlo.not",
    "stablehlo.or",       "stablehlo.popcnt",     "stablehlo.power",   "stablehlo.remainder",
    "stablehlo.round_nearest_afz", "stablehlo.round_nearest_even", "stablehlo.rsqrt", "stablehlo.shift_left",
    "stablehlo.shift_right_arithmetic", "stablehlo.shift_right_logical", "stablehlo.sign", "stablehlo.sine",
    "stablehlo.sqrt",     "stablehlo.subtract",   "stablehlo.tan",     "stablehlo.tanh",
    "stablehlo.xor"};

class Verifier {
 public:
  explicit Verifier(const ErrorFormatter& f) : format_(f) {}

  Status Function(const ir::Function& f) {
    if (f.body.blocks.size() != 1) return Error(f.loc, "function '" + f.name + "' must have one block");
    const ir::Block& b = *f.body.blocks[0];
    if (b.args.size() != f.arg_types.size()) return Error(f.loc, "function '" + f.name + "' argument count mismatch");
    if (b.ops.empty()) return Error(f.loc, "function '" + f.name + "' has no return");
    const ir::Operation& ret = *b.ops.back();
    if (ret.name != "func.return" && ret.name != "stablehlo.return")
      return Error(ret.loc, "function '" + f.name + "' must end with func.return");
    if (ret.operands.size() != f.result_types.size())
      return Error(ret.loc, "func.return has " + std::to_string(ret.operands.size()) + " operands, but '" + f.name +
                                "' returns " + std::to_string(f.result_types.size()) + " values");
    for (size_t i = 0; i < ret.operands.size(); ++i)
      if (!Compatible(ret.operands[i]->type, f.result_types[i]))
        return Error(ret.loc, "func.return operand " + std::to_string(i) + " has type " +
                                  ret.operands[i]->type.ToString() + ", but the function returns " +
                                  f.result_types[i].ToString());
    return Block(b);
  }

 private:
  Status Error(ir::Location loc, const std::string& m) { return InvalidArgument(format_(loc, m)); }

  static bool Compatible(const ir::Type& a, const ir::Type& b) {
    if (a.kind != b.kind) return false;
    if (!a.is_tensor()) return true;
    return a.element == b.element && SameShape(a, b) && (a.quant == nullptr) == (b.quant == nullptr);
  }

  Status Block(const ir::Block& b) {
    for (const auto& op : b.ops) {
      KILN_RETURN_IF_ERROR(Op(*op));
      for (const auto& r : op->regions)
        for (const auto& blk : r->blocks) KILN_RETURN_IF_ERROR(Block(*blk));
    }
    return Status::Ok();
  }

  Status Op(const ir::Operation& op) {
    for (const auto& r : op.results)
      if (r->type.is_tensor() && r->type.element == ElementType::kInvalid)
        return Error(op.loc, op.name + ": result has no element type");
    if (kSameTypeElementwise.count(op.name)) {
      if (op.results.size() != 1) return Error(op.loc, op.name + " must have one result");
      const ir::Type& rt = op.result()->type;
      for (const auto* v : op.operands) {
        if (!v->type.is_tensor() || !SameShape(v->type, rt))
          return Error(op.loc, op.name + ": operand type " + v->type.ToString() + " and result type " + rt.ToString() +
                                   " must have the same shape");
        if (v->type.element != rt.element && !rt.is_quantized() && !v->type.is_quantized() &&
            !(op.name == "stablehlo.abs" && IsComplex(v->type.element)))
          return Error(op.loc, op.name + ": operand type " + v->type.ToString() + " and result type " + rt.ToString() +
                                   " must have the same element type");
      }
    }
    if (op.name == "stablehlo.compare" || op.name == "stablehlo.select" || op.name == "stablehlo.clamp") {
      if (op.results.size() != 1) return Error(op.loc, op.name + " must have one result");
      for (const auto* v : op.operands)
        if (v->type.rank() != 0 && !SameShape(v->type, op.result()->type))
          return Error(op.loc, op.name + ": operand type " + v->type.ToString() + " does not match result type " +
                                   op.result()->type.ToString());
    }
    if (op.name == "stablehlo.compare" && op.result()->type.element != ElementType::kI1)
      return Error(op.loc, "stablehlo.compare must return a tensor of i1");
    if (op.name == "stablehlo.constant") {
      const ir::Attribute* v = op.GetAttr("value");
      if (!v || v->kind != ir::Attribute::Kind::kDense) return Error(op.loc, "stablehlo.constant needs a dense value");
      if (op.results.size() != 1 || !Compatible(v->type, op.result()->type))
        return Error(op.loc, "stablehlo.constant: value type " + v->type.ToString() + " does not match result type");
    }
    if (op.name == "stablehlo.reshape" && op.results.size() == 1 && op.operands.size() == 1) {
      int64_t a = op.operands[0]->type.NumElements(), r = op.result()->type.NumElements();
      if (a >= 0 && r >= 0 && a != r)
        return Error(op.loc, "stablehlo.reshape: operand has " + std::to_string(a) + " elements, result " +
                                 std::to_string(r));
    }
    return Status::Ok();
  }

  const ErrorFormatter& format_;
};

}  // namespace

Status VerifyModule(const ir::Module& module, const ErrorFormatter& format_error) {
  Verifier v(format_error);
  std::set<std::string> names;
  for (const auto& f : module.functions) {
    if (!names.insert(f->name).second)
      return InvalidArgument(format_error(f->loc, "function '" + f->name + "' is defined twice"));
    KILN_RETURN_IF_ERROR(v.Function(*f));
  }
  return Status::Ok();
}

}  // namespace kiln::compiler

#include "compiler/passes/params_from_args.h"

#include <functional>
#include <set>

namespace kiln::compiler {
namespace {

ir::Attribute* FunctionAttr(ir::Function& fn, std::string_view name) {
  for (auto& na : fn.attrs)
    if (na.first == name) return &na.second;
  return nullptr;
}

const ir::Attribute* ArgAttrs(const ir::Function& fn, size_t index) {
  for (const auto& na : fn.attrs)
    if (na.first == "arg_attrs" && na.second.kind == ir::Attribute::Kind::kArray && index < na.second.elements.size())
      return &na.second.elements[index];
  return nullptr;
}

// Every op of a region tree, outer first.
void ForEachOp(ir::Block& block, const std::function<void(ir::Operation&)>& f) {
  for (auto& op : block.ops) {
    f(*op);
    for (auto& region : op->regions)
      for (auto& b : region->blocks) ForEachOp(*b, f);
  }
}

ir::Attribute StringAttr(std::string s) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kString;
  a.str = std::move(s);
  return a;
}

}  // namespace

std::string ArgumentName(const ir::Function& fn, size_t index) {
  const ir::Attribute* attrs = ArgAttrs(fn, index);
  if (!attrs) return "";
  const ir::Attribute* info = attrs->Field("jax.arg_info");
  return info && info->kind == ir::Attribute::Kind::kString ? info->str : "";
}

bool ArgumentSelected(const std::string& name, const std::vector<std::string>& selectors) {
  if (name.empty()) return false;
  for (const auto& s : selectors) {
    if (s == "all" || s == name) return true;
    if (name.size() > s.size() && name.compare(0, s.size(), s) == 0 && (name[s.size()] == '[' || name[s.size()] == '.'))
      return true;
  }
  return false;
}

Status ParamsFromArgs(ir::Module* module, const std::vector<std::string>& selectors, const std::string& scope,
                      const ErrorFormatter& format_error) {
  if (selectors.empty()) return Status::Ok();
  std::set<std::string> called;
  for (auto& fn : module->functions)
    if (!fn->body.blocks.empty())
      ForEachOp(*fn->body.blocks[0], [&](ir::Operation& op) {
        if (op.name == "func.call" || op.name == "call")
          if (const ir::Attribute* callee = op.GetAttr("callee")) called.insert(callee->str);
      });
  std::set<std::string> used_selectors, keys;
  std::string names;  // the named arguments there are, for a selector that matches none
  for (auto& fn : module->functions) {
    if (!fn->is_public || fn->body.blocks.empty()) continue;
    ir::Block& entry = *fn->body.blocks[0];
    std::vector<size_t> chosen;
    for (size_t i = 0; i < fn->arg_types.size() && i < entry.args.size(); ++i) {
      std::string name = ArgumentName(*fn, i);
      if (!name.empty()) names += (names.empty() ? "'" : ", '") + name + "'";
      if (!ArgumentSelected(name, selectors)) continue;
      for (const auto& s : selectors)
        if (ArgumentSelected(name, {s})) used_selectors.insert(s);
      const ir::Type& t = fn->arg_types[i];
      if (!t.is_tensor() || !t.HasStaticShape() || t.is_quantized())
        return InvalidArgument(format_error(fn->loc, "argument '" + name + "' of @" + fn->name + " is " +
                                                         t.ToString() +
                                                         ": only a tensor of static shape can be a parameter"));
      if (called.count(fn->name))
        return InvalidArgument(format_error(fn->loc, "argument '" + name + "' of @" + fn->name +
                                                         " cannot be a parameter: @" + fn->name +
                                                         " is called by another function, which passes it"));
      if (!keys.insert(name).second)
        return InvalidArgument(format_error(fn->loc, "two arguments are named '" + name +
                                                         "': a parameter's key must be unique"));
      chosen.push_back(i);
    }
    if (chosen.empty()) continue;
    // Each chosen argument: a kiln.parameter op at the top of the body
    // takes its uses, then the argument leaves the signature.
    std::vector<std::unique_ptr<ir::Operation>> params;
    for (size_t i : chosen) {
      ir::Value* arg = entry.args[i].get();
      auto op = std::make_unique<ir::Operation>();
      op->name = "kiln.parameter";
      op->loc = fn->loc;
      op->parent = &entry;
      op->attrs.emplace_back("key", StringAttr(ArgumentName(*fn, i)));
      op->attrs.emplace_back("scope", StringAttr(scope));
      auto result = std::make_unique<ir::Value>();
      result->type = arg->type;
      result->def = op.get();
      ir::Value* replacement = result.get();
      op->results.push_back(std::move(result));
      ForEachOp(entry, [&](ir::Operation& user) {
        for (auto*& operand : user.operands)
          if (operand == arg) operand = replacement;
      });
      params.push_back(std::move(op));
    }
    entry.ops.insert(entry.ops.begin(), std::make_move_iterator(params.begin()),
                     std::make_move_iterator(params.end()));
    ir::Attribute* arg_attrs = FunctionAttr(*fn, "arg_attrs");
    for (auto it = chosen.rbegin(); it != chosen.rend(); ++it) {
      entry.args.erase(entry.args.begin() + static_cast<std::ptrdiff_t>(*it));
      fn->arg_types.erase(fn->arg_types.begin() + static_cast<std::ptrdiff_t>(*it));
      if (arg_attrs && *it < arg_attrs->elements.size())
        arg_attrs->elements.erase(arg_attrs->elements.begin() + static_cast<std::ptrdiff_t>(*it));
    }
    for (size_t i = 0; i < entry.args.size(); ++i) entry.args[i]->index = static_cast<int>(i);
  }
  for (const auto& s : selectors)
    if (!used_selectors.count(s))
      return InvalidArgument(format_error(ir::Location{}, "--params-from-args: no argument of a public function is named '" +
                                                              s + "'" +
                                                              (names.empty() ? " (no argument has a jax.arg_info name)"
                                                                             : " (named arguments: " + names + ")")));
  return Status::Ok();
}

}  // namespace kiln::compiler

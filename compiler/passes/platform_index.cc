#include "compiler/passes/platform_index.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <set>

#include "compiler/op_names.h"
#include "kernels/scalar/scalar.h"

namespace kiln::compiler {
namespace {

bool IsPlatformIndex(const ir::Function& fn, size_t index) {
  for (const auto& na : fn.attrs) {
    if (na.first != "arg_attrs" || na.second.kind != ir::Attribute::Kind::kArray ||
        index >= na.second.elements.size())
      continue;
    const ir::Attribute* g = na.second.elements[index].Field("jax.global_constant");
    return g && g->kind == ir::Attribute::Kind::kString && g->str == "_platform_index";
  }
  return false;
}

void ForEachOp(ir::Block& block, const std::function<void(ir::Operation&)>& f) {
  for (auto& op : block.ops) {
    f(*op);
    for (auto& region : op->regions)
      for (auto& b : region->blocks) ForEachOp(*b, f);
  }
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string Joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& p : v) s += (s.empty() ? "" : ", ") + p;
  return s;
}

// stablehlo.constant dense<value> : type (a rank-0 integer tensor).
std::unique_ptr<ir::Operation> IndexConstant(const ir::Type& type, int64_t value, ir::Block* block, ir::Location loc,
                                             ir::Value** result) {
  auto op = std::make_unique<ir::Operation>();
  op->name = std::string(ScalarOpName(ScalarOp::kConstant));
  op->loc = loc;
  op->parent = block;
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kDense;
  a.type = type;
  a.dense_bytes.resize(StorageBytes(type.element));
  ref::StoreScalar(type.element, Scalar{value, 0, 0}, a.dense_bytes.data());
  op->attrs.emplace_back("value", std::move(a));
  auto r = std::make_unique<ir::Value>();
  r->type = type;
  r->def = op.get();
  *result = r.get();
  op->results.push_back(std::move(r));
  return op;
}

}  // namespace

Status BindPlatformIndex(ir::Module* module, const std::vector<std::string>& platforms,
                         const ErrorFormatter& format_error, const ErrorFormatter& format_warning,
                         std::vector<std::string>* warnings) {
  std::set<std::string> called;
  for (auto& fn : module->functions)
    if (!fn->body.blocks.empty())
      ForEachOp(*fn->body.blocks[0], [&](ir::Operation& op) {
        if (const ir::Attribute* callee = op.GetAttr(op.name == "stablehlo.composite" ? "decomposition" : "callee"))
          called.insert(callee->str);
      });
  int64_t cpu = -1;
  for (size_t i = 0; i < platforms.size(); ++i)
    if (Lower(platforms[i]) == "cpu" && cpu < 0) cpu = static_cast<int64_t>(i);
  for (auto& fn : module->functions) {
    if (!fn->is_public || fn->body.blocks.empty()) continue;
    ir::Block& entry = *fn->body.blocks[0];
    for (size_t i = 0; i < entry.args.size() && i < fn->arg_types.size(); ++i) {
      if (!IsPlatformIndex(*fn, i)) continue;
      const ir::Type& t = fn->arg_types[i];
      const std::string what = "argument " + std::to_string(i) + " of @" + fn->name + " (JAX's platform index)";
      if (!t.is_tensor() || t.rank() != 0 || (t.element != ElementType::kSI32 && t.element != ElementType::kSI64))
        return InvalidArgument(format_error(fn->loc, what + " is " + t.ToString() + ", not tensor<i32> or tensor<i64>"));
      if (platforms.empty()) {
        if (warnings)
          warnings->push_back(format_warning(
              fn->loc, what + " stays an argument: pass the export's platforms (jax.export's Exported.platforms) "
                              "with --platforms=cpu,... to bind it to the cpu lowering's index"));
        continue;
      }
      if (cpu < 0)
        return InvalidArgument(format_error(fn->loc, "the export's platforms (" + Joined(platforms) +
                                                         ") do not include cpu: Kiln runs the cpu lowering"));
      if (called.count(fn->name))
        return InvalidArgument(format_error(
            fn->loc, what + " cannot be bound: @" + fn->name + " is called by another function, which passes it"));
      ir::Value* arg = entry.args[i].get();
      ir::Value* constant = nullptr;
      auto op = IndexConstant(t, cpu, &entry, fn->loc, &constant);
      ForEachOp(entry, [&](ir::Operation& user) {
        for (auto*& operand : user.operands)
          if (operand == arg) operand = constant;
      });
      entry.ops.insert(entry.ops.begin(), std::move(op));
      entry.args.erase(entry.args.begin() + static_cast<std::ptrdiff_t>(i));
      fn->arg_types.erase(fn->arg_types.begin() + static_cast<std::ptrdiff_t>(i));
      for (auto& na : fn->attrs)
        if (na.first == "arg_attrs" && na.second.kind == ir::Attribute::Kind::kArray &&
            i < na.second.elements.size())
          na.second.elements.erase(na.second.elements.begin() + static_cast<std::ptrdiff_t>(i));
      for (size_t k = 0; k < entry.args.size(); ++k) entry.args[k]->index = static_cast<int>(k);
      --i;
    }
  }
  return Status::Ok();
}

}  // namespace kiln::compiler

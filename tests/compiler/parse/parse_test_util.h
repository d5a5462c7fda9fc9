// Shared by the front-end tests (tests/compiler/parse): parsing that must
// succeed or fail, the ops of a parsed function and their attributes, and a
// structural comparison of two modules (for parse -> print -> parse round
// trips).
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compiler/ir.h"
#include "compiler/parse/parser.h"

namespace kiln::ir {

// The module, or a test failure.
inline std::unique_ptr<Module> MustParse(std::string_view src) {
  auto m = ParseModule(src, "test.mlir");
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (!m.ok()) return nullptr;
  return std::move(m.value());
}

// The error message; a test failure if the source parses.
inline std::string ParseError(std::string_view src) {
  auto m = ParseModule(src, "test.mlir");
  EXPECT_FALSE(m.ok()) << "expected an error for:\n" << src;
  return m.ok() ? "" : m.status().message();
}

// The first op of the first function.
inline const Operation& FirstOp(const Module& m, size_t index = 0) {
  return *m.functions.at(0)->body.blocks.at(0)->ops.at(index);
}

// The integer array attribute `name` of op.
inline std::vector<int64_t> Ints(const Operation& op, std::string_view name) {
  const Attribute* a = op.GetAttr(name);
  EXPECT_NE(a, nullptr) << name;
  if (!a) return {};
  auto v = a->AsInts();
  EXPECT_TRUE(v.has_value()) << name;
  return v ? *v : std::vector<int64_t>{};
}

// Structural equality of two modules; `diff` names the first difference.
class IrComparer {
 public:
  std::string diff;
  bool Modules(const Module& a, const Module& b) {
    if (a.name != b.name) return Fail("module name");
    if (a.attrs != b.attrs) return Fail("module attrs");
    if (a.functions.size() != b.functions.size()) return Fail("function count");
    for (size_t i = 0; i < a.functions.size(); ++i) {
      const Function& f = *a.functions[i];
      const Function& g = *b.functions[i];
      if (f.name != g.name || f.is_public != g.is_public || f.arg_types != g.arg_types ||
          f.result_types != g.result_types || f.attrs != g.attrs)
        return Fail("function " + f.name);
      ids_a_.clear();
      ids_b_.clear();
      if (!Regions(f.body, g.body)) return false;
    }
    return true;
  }

 private:
  std::unordered_map<const Value*, int> ids_a_, ids_b_;
  bool Fail(std::string what) {
    diff = what;
    return false;
  }
  void Number(const Value* a, const Value* b) {
    int id = static_cast<int>(ids_a_.size());
    ids_a_[a] = id;
    ids_b_[b] = id;
  }
  bool Regions(const Region& a, const Region& b) {
    if (a.blocks.size() != b.blocks.size()) return Fail("block count");
    for (size_t i = 0; i < a.blocks.size(); ++i) {
      const Block& x = *a.blocks[i];
      const Block& y = *b.blocks[i];
      if (x.args.size() != y.args.size()) return Fail("block args");
      for (size_t k = 0; k < x.args.size(); ++k) {
        if (x.args[k]->type != y.args[k]->type) return Fail("block arg type");
        Number(x.args[k].get(), y.args[k].get());
      }
      if (x.ops.size() != y.ops.size()) return Fail("op count");
      for (size_t k = 0; k < x.ops.size(); ++k)
        if (!Ops(*x.ops[k], *y.ops[k])) return false;
    }
    return true;
  }
  bool Ops(const Operation& a, const Operation& b) {
    if (a.name != b.name) return Fail("op name " + a.name + " vs " + b.name);
    if (!(a.attrs == b.attrs)) return Fail("attrs of " + a.name);
    if (a.operands.size() != b.operands.size()) return Fail("operand count of " + a.name);
    for (size_t i = 0; i < a.operands.size(); ++i) {
      auto x = ids_a_.find(a.operands[i]);
      auto y = ids_b_.find(b.operands[i]);
      if (x == ids_a_.end() || y == ids_b_.end() || x->second != y->second)
        return Fail("operand of " + a.name);
    }
    if (a.regions.size() != b.regions.size()) return Fail("region count of " + a.name);
    for (size_t i = 0; i < a.regions.size(); ++i)
      if (!Regions(*a.regions[i], *b.regions[i])) return false;
    if (a.results.size() != b.results.size()) return Fail("result count of " + a.name);
    for (size_t i = 0; i < a.results.size(); ++i) {
      if (a.results[i]->type != b.results[i]->type) return Fail("result type of " + a.name);
      Number(a.results[i].get(), b.results[i].get());
    }
    return true;
  }
};

}  // namespace kiln::ir

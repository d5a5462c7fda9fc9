#include "tests/conformance/op_status.h"

#include <functional>

#include "compiler/parse/parser.h"

namespace kiln::conformance {
namespace {

// The element-type family an op instance runs on: that of its first tensor
// operand (else its first result), e.g. compare of f32 is "float".
std::string ElementFamily(const ir::Operation& op) {
  const ir::Type* t = nullptr;
  for (const auto* v : op.operands)
    if (v->type.is_tensor()) { t = &v->type; break; }
  if (!t)
    for (const auto& r : op.results)
      if (r->type.is_tensor()) { t = &r->type; break; }
  if (!t) return "none";
  if (t->is_quantized()) return "quantized";
  ElementType e = t->element;
  if (e == ElementType::kI1) return "i1";
  if (KindOf(e) == ElementKind::kSigned) return "signed int";
  if (KindOf(e) == ElementKind::kUnsigned) return "unsigned int";
  if (KindOf(e) == ElementKind::kComplex) return "complex";
  if (e == ElementType::kF16 || e == ElementType::kBF16) return "f16/bf16";
  if (e == ElementType::kF32) return "f32";
  if (e == ElementType::kF64) return "f64";
  if (IsFloat(e)) return "f8/f6/f4";
  return "other";
}

// The family, with ", dynamic" when an operand or result has a `?`
// dimension (its shape is known only at run time).
std::string Family(const ir::Operation& op) {
  auto dynamic = [](const ir::Type& t) { return t.is_tensor() && !t.HasStaticShape(); };
  bool any = false;
  for (const auto* v : op.operands) any |= dynamic(v->type);
  for (const auto& r : op.results) any |= dynamic(r->type);
  return ElementFamily(op) + (any ? ", dynamic" : "");
}

bool Counted(const std::string& name) {
  return name.rfind("stablehlo.", 0) == 0 || name.rfind("chlo.", 0) == 0;
}

}  // namespace

void OpStatus::Record(const std::string& chunk_text, Outcome outcome, const std::string& reason) {
  auto module = ir::ParseModule(chunk_text, "chunk");
  if (!module.ok()) return;
  std::set<std::pair<std::string, std::string>> ops;
  std::function<void(const ir::Region&)> walk = [&](const ir::Region& region) {
    for (const auto& block : region.blocks)
      for (const auto& op : block->ops) {
        if (Counted(op->name) && op->name != "stablehlo.constant" && op->name != "stablehlo.return")
          ops.insert({op->name, Family(*op)});
        for (const auto& r : op->regions) walk(*r);
      }
  };
  for (const auto& f : (*module)->functions) walk(f->body);
  bool named = false;
  if (outcome == Outcome::kUnsupported)
    for (const auto& key : ops) named |= reason.find(key.first + " ") != std::string::npos;
  for (const auto& key : ops) {
    Counts& c = by_op_[key];
    switch (outcome) {
      case Outcome::kPassed: ++c.passed; break;
      case Outcome::kFailed: ++c.failed; break;
      case Outcome::kUnsupported:
        if (named && reason.find(key.first + " ") == std::string::npos) break;
        ++c.unsupported;
        if (c.reason.empty()) c.reason = reason.substr(0, reason.find('\n'));
        break;
    }
  }
}

void OpStatus::Write(std::ostream& out) const {
  for (const auto& [key, c] : by_op_)
    out << key.first << '\t' << key.second << '\t' << c.passed << '\t' << c.failed << '\t' << c.unsupported << '\t'
        << c.reason << '\n';
}

}  // namespace kiln::conformance

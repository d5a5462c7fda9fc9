// Lazy decoding of attribute/type entries by index (attr_types.h).
#include "compiler/parse/bytecode/attr_types.h"

#include <cstdio>

namespace kiln::ir::bytecode {
namespace {

// Attributes and types nest (arrays of arrays, tensors of tuples); a hostile
// file could nest them without end or make one refer to itself.
constexpr int kMaxNesting = 64;

}  // namespace

std::string QuoteString(std::string_view s) {
  std::string out = "\"";
  for (unsigned char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += static_cast<char>(ch);
    } else if (ch < 0x20 || ch >= 0x7F) {
      char buf[4];
      snprintf(buf, sizeof buf, "\\%02X", ch);
      out += buf;
    } else {
      out += static_cast<char>(ch);
    }
  }
  return out + "\"";
}

AttrTypeTable::AttrTypeTable(const BytecodeFile& f)
    : file_(f),
      attrs_(f.attrs.size()),
      types_(f.types.size()),
      attr_state_(f.attrs.size(), State::kUnread),
      type_state_(f.types.size(), State::kUnread) {}

const AttrInfo& AttrTypeTable::Attr(uint64_t index, size_t offset) {
  if (index >= attrs_.size()) Fail(offset, "attribute index " + std::to_string(index) + " out of range");
  if (attr_state_[index] == State::kDone) return *attrs_[index];
  if (attr_state_[index] == State::kReading) Fail(offset, "attribute " + std::to_string(index) + " refers to itself");
  if (depth_ >= kMaxNesting) Fail(offset, "attributes nested too deeply");
  attr_state_[index] = State::kReading;
  ++depth_;
  const auto& e = file_.attrs[index];
  auto a = std::make_unique<AttrInfo>();
  Cursor c(e.data);
  std::string_view dialect = file_.dialects[e.dialect].name;
  if (!e.custom) {
    a->kind = AttrInfo::Kind::kText;
    a->str = std::string(c.CString());
  } else if (dialect == "builtin") {
    DecodeBuiltinAttr(*this, c, a.get());
  } else if (dialect == "vhlo") {
    DecodeVhloAttr(*this, c, a.get());
  } else {
    c.Error("attributes of dialect '" + std::string(dialect) + "' in its own bytecode encoding are not read");
  }
  if (!c.empty()) c.Error("unexpected trailing bytes after an attribute");
  --depth_;
  attrs_[index] = std::move(a);
  attr_state_[index] = State::kDone;
  return *attrs_[index];
}

const TypeInfo& AttrTypeTable::Type(uint64_t index, size_t offset) {
  if (index >= types_.size()) Fail(offset, "type index " + std::to_string(index) + " out of range");
  if (type_state_[index] == State::kDone) return *types_[index];
  if (type_state_[index] == State::kReading) Fail(offset, "type " + std::to_string(index) + " refers to itself");
  if (depth_ >= kMaxNesting) Fail(offset, "types nested too deeply");
  type_state_[index] = State::kReading;
  ++depth_;
  const auto& e = file_.types[index];
  auto t = std::make_unique<TypeInfo>();
  Cursor c(e.data);
  std::string_view dialect = file_.dialects[e.dialect].name;
  if (!e.custom) {
    t->kind = TypeInfo::Kind::kOther;
    t->text = std::string(c.CString());
  } else if (dialect == "builtin") {
    DecodeBuiltinType(*this, c, t.get());
  } else if (dialect == "vhlo") {
    DecodeVhloType(*this, c, t.get());
  } else {
    c.Error("types of dialect '" + std::string(dialect) + "' in its own bytecode encoding are not read");
  }
  if (!c.empty()) c.Error("unexpected trailing bytes after a type");
  --depth_;
  types_[index] = std::move(t);
  type_state_[index] = State::kDone;
  return *types_[index];
}

namespace {

std::string Dim(int64_t d) { return d == INT64_MIN ? "?" : std::to_string(d); }

std::string List(AttrTypeTable& t, const std::vector<uint64_t>& v) {
  std::string s;
  for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + TypeText(t, v[k]);
  return s;
}

}  // namespace

namespace {
std::string TypeTextAt(AttrTypeTable& t, uint64_t index);
}  // namespace

std::string TypeText(AttrTypeTable& t, uint64_t index) {
  // Types decoded one by one can chain into deep nests (a tuple of a tuple
  // of ...); the spelling recursion is bounded like the decoder's.
  thread_local int depth = 0;
  if (depth >= kMaxNesting) Fail(t.file().types.empty() ? 0 : t.file().types[0].data.offset, "types nested too deeply");
  ++depth;
  std::string s;
  try {
    s = TypeTextAt(t, index);
  } catch (...) {
    --depth;
    throw;
  }
  --depth;
  return s;
}

namespace {
std::string TypeTextAt(AttrTypeTable& t, uint64_t index) {
  const TypeInfo& ty = t.Type(index, 0);
  switch (ty.kind) {
    case TypeInfo::Kind::kInt:
      return (ty.is_unsigned ? "ui" : "i") + std::to_string(ty.bits);
    case TypeInfo::Kind::kIndex:
      return "index";
    case TypeInfo::Kind::kFloat:
      return ty.name;
    case TypeInfo::Kind::kComplex:
      return "complex<" + TypeText(t, ty.element) + ">";
    case TypeInfo::Kind::kTensor: {
      std::string s = "tensor<";
      for (int64_t d : ty.shape) s += Dim(d) + "x";
      s += TypeText(t, ty.element);
      if (ty.has_bounds) {
        s += ", #stablehlo.bounds<";
        for (size_t k = 0; k < ty.bounds.size(); ++k) s += (k ? ", " : "") + Dim(ty.bounds[k]);
        s += ">";
      }
      return s + ">";
    }
    case TypeInfo::Kind::kUnranked:
      return "tensor<*x" + TypeText(t, ty.element) + ">";
    case TypeInfo::Kind::kTuple:
      return "tuple<" + List(t, ty.elements) + ">";
    case TypeInfo::Kind::kToken:
      return "!stablehlo.token";
    case TypeInfo::Kind::kFunction: {
      std::string r = List(t, ty.results);
      return "(" + List(t, ty.elements) + ") -> " + (ty.results.size() == 1 ? r : "(" + r + ")");
    }
    case TypeInfo::Kind::kNone:
      return "none";
    case TypeInfo::Kind::kFuture:
      return "!stablehlo.future<" + List(t, ty.elements) + ">";
    case TypeInfo::Kind::kQuant:
    case TypeInfo::Kind::kOther:
      return ty.text;
  }
  return ty.text;
}
}  // namespace

}  // namespace kiln::ir::bytecode

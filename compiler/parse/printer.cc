// Writes a module back as MLIR text: `module`/`func.func` in their usual
// syntax, every op in the generic form ("name"(operands) ({regions}) {attrs}
// : (types) -> types). ParseModule reads the output back to an equal IR.
#include <charconv>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "compiler/parse/parser.h"
#include "compiler/op_names.h"
#include "kernels/scalar/scalar.h"

namespace kiln::ir {
namespace {

bool IsBareName(std::string_view s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(s[0])) return false;
  for (char c : s)
    if (!alpha(c) && !(c >= '0' && c <= '9') && c != '$' && c != '.') return false;
  return true;
}

void AppendQuoted(std::string& out, std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 32 || c >= 127) {
      out += '\\';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

void AppendSymbol(std::string& out, std::string_view s) {
  out += '@';
  bool bare = !s.empty();
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_' || c == '$' || c == '.' || c == '-'))
      bare = false;
  if (bare)
    out += s;
  else
    AppendQuoted(out, s);
}

// A float literal MLIR reads back exactly: shortest round-trip digits, with
// a '.' so that it lexes as a float.
void AppendFloatDigits(std::string& out, const char* b, const char* e) {
  std::string_view s(b, e - b);
  size_t epos = s.find_first_of("eE");
  if (s.find('.') == std::string_view::npos) {
    if (epos == std::string_view::npos) {
      out += s;
      out += ".0";
    } else {
      out += s.substr(0, epos);
      out += ".0";
      out += s.substr(epos);
    }
  } else {
    out += s;
  }
}

void AppendDouble(std::string& out, double d) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  AppendFloatDigits(out, buf, r.ptr);
}

void AppendFloatValue(std::string& out, float f) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, f);
  AppendFloatDigits(out, buf, r.ptr);
}

void AppendHexBits(std::string& out, const uint8_t* p, size_t w) {
  static const char* hex = "0123456789ABCDEF";
  out += "0x";
  for (size_t i = w; i-- > 0;) {  // little-endian storage, most significant first
    out += hex[p[i] >> 4];
    out += hex[p[i] & 15];
  }
}

// One element of a dense attribute in `et`'s storage encoding.
void AppendElement(std::string& out, ElementType et, const uint8_t* p) {
  const size_t w = StorageBytes(et);
  switch (KindOf(et)) {
    case ElementKind::kBool:
      out += p[0] ? "true" : "false";
      return;
    case ElementKind::kSigned: {
      uint64_t u = 0;
      memcpy(&u, p, w);
      if (w < 8 && ((u >> (8 * w - 1)) & 1)) u |= ~uint64_t(0) << (8 * w);
      out += std::to_string(static_cast<int64_t>(u));
      return;
    }
    case ElementKind::kUnsigned: {
      uint64_t u = 0;
      memcpy(&u, p, w);
      out += std::to_string(u);
      return;
    }
    case ElementKind::kComplex: {
      ElementType part = ComplexPartType(et);
      out += '(';
      AppendElement(out, part, p);
      out += ", ";
      AppendElement(out, part, p + StorageBytes(part));
      out += ')';
      return;
    }
    case ElementKind::kFloat: {
      if (et == ElementType::kF32) {
        float f;
        memcpy(&f, p, 4);
        if (std::isfinite(f)) return AppendFloatValue(out, f);
      } else if (et == ElementType::kF64) {
        double d;
        memcpy(&d, p, 8);
        if (std::isfinite(d)) return AppendDouble(out, d);
      } else {
        double d = ref::LoadScalar(et, p).re;
        if (std::isfinite(d)) return AppendDouble(out, d);
      }
      AppendHexBits(out, p, w);  // inf / nan: the exact bit pattern
      return;
    }
    default:
      out += "0";
  }
}

class Printer {
 public:
  std::string out;

  void PrintModule(const Module& m) {
    out += "module";
    if (!m.name.empty()) {
      out += ' ';
      AppendSymbol(out, m.name);
    }
    if (!m.attrs.empty()) {
      out += " attributes ";
      PrintDict(m.attrs, "");
    }
    out += " {\n";
    for (const auto& g : m.globals) PrintGlobal(g);
    for (const auto& f : m.functions) PrintFunction(*f);
    out += "}\n";
  }

 private:
  // ml_program.global private [mutable] @name[(initial)] : type
  void PrintGlobal(const Global& g) {
    out += "  ml_program.global private ";
    if (g.is_mutable) out += "mutable ";
    AppendSymbol(out, g.name);
    if (g.initial.kind == Attribute::Kind::kDense) {
      out += '(';
      PrintAttr(g.initial, "");
      out += ')';
    }
    out += " : " + g.type.ToString() + "\n";
  }

  std::unordered_map<const Value*, std::string> names_;
  int next_value_ = 0;
  int next_arg_ = 0;
  int next_block_ = 0;
  std::string_view op_name_;  // for enum spellings

  void Indent(int n) { out.append(static_cast<size_t>(n) * 2, ' '); }

  const std::string& NameOf(const Value* v) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    static const std::string unknown = "%<unknown>";
    return unknown;
  }

  void PrintFunction(const Function& f) {
    names_.clear();
    next_value_ = next_arg_ = next_block_ = 0;
    op_name_ = "func.func";
    const Attribute* arg_attrs = nullptr;
    const Attribute* res_attrs = nullptr;
    std::vector<NamedAttr> rest;
    for (const auto& na : f.attrs) {
      if (na.first == "arg_attrs" && na.second.kind == Attribute::Kind::kArray &&
          na.second.elements.size() == f.arg_types.size())
        arg_attrs = &na.second;
      else if (na.first == "res_attrs" && na.second.kind == Attribute::Kind::kArray &&
               na.second.elements.size() == f.result_types.size())
        res_attrs = &na.second;
      else
        rest.push_back(na);
    }
    Indent(1);
    out += "func.func ";
    if (!f.is_public) out += "private ";
    AppendSymbol(out, f.name);
    out += '(';
    const Block* entry = f.body.blocks.empty() ? nullptr : f.body.blocks[0].get();
    for (size_t i = 0; i < f.arg_types.size(); ++i) {
      if (i) out += ", ";
      if (entry && i < entry->args.size()) {
        std::string n = "%arg" + std::to_string(next_arg_++);
        names_[entry->args[i].get()] = n;
        out += n;
        out += ": ";
      }
      out += f.arg_types[i].ToString();
      if (arg_attrs && !arg_attrs->elements[i].fields.empty()) {
        out += ' ';
        PrintDict(arg_attrs->elements[i].fields, "");
      }
    }
    out += ')';
    if (!f.result_types.empty()) {
      out += " -> (";
      for (size_t i = 0; i < f.result_types.size(); ++i) {
        if (i) out += ", ";
        out += f.result_types[i].ToString();
        if (res_attrs && !res_attrs->elements[i].fields.empty()) {
          out += ' ';
          PrintDict(res_attrs->elements[i].fields, "");
        }
      }
      out += ')';
    }
    if (!rest.empty()) {
      out += " attributes ";
      PrintDict(rest, "");
    }
    if (entry) {
      out += " {\n";
      for (const auto& op : entry->ops) PrintOp(*op, 2);
      Indent(1);
      out += "}";
    }
    out += '\n';
  }

  void PrintOp(const Operation& op, int indent) {
    Indent(indent);
    std::string base;
    if (!op.results.empty()) {
      base = "%" + std::to_string(next_value_++);
      out += base;
      if (op.results.size() > 1) out += ":" + std::to_string(op.results.size());
      out += " = ";
      for (size_t i = 0; i < op.results.size(); ++i)
        names_[op.results[i].get()] = op.results.size() == 1 ? base : base + "#" + std::to_string(i);
    }
    AppendQuoted(out, op.name);
    out += '(';
    for (size_t i = 0; i < op.operands.size(); ++i) {
      if (i) out += ", ";
      out += NameOf(op.operands[i]);
    }
    out += ')';
    if (!op.regions.empty()) {
      out += " (";
      for (size_t r = 0; r < op.regions.size(); ++r) {
        if (r) out += ", ";
        PrintRegion(*op.regions[r], indent);
      }
      out += ')';
    }
    if (!op.attrs.empty()) {
      out += ' ';
      std::string_view saved = op_name_;
      op_name_ = op.name;
      PrintDict(op.attrs, "");
      op_name_ = saved;
    }
    out += " : (";
    for (size_t i = 0; i < op.operands.size(); ++i) {
      if (i) out += ", ";
      out += op.operands[i]->type.ToString();
    }
    out += ") -> ";
    if (op.results.size() == 1) {
      out += op.results[0]->type.ToString();
    } else {
      out += '(';
      for (size_t i = 0; i < op.results.size(); ++i) {
        if (i) out += ", ";
        out += op.results[i]->type.ToString();
      }
      out += ')';
    }
    out += '\n';
  }

  void PrintRegion(const Region& r, int indent) {
    out += "{\n";
    for (size_t b = 0; b < r.blocks.size(); ++b) {
      const Block& block = *r.blocks[b];
      if (b > 0 || !block.args.empty()) {
        Indent(indent);
        out += "^bb" + std::to_string(next_block_++);
        if (!block.args.empty()) {
          out += '(';
          for (size_t i = 0; i < block.args.size(); ++i) {
            if (i) out += ", ";
            std::string n = "%arg" + std::to_string(next_arg_++);
            names_[block.args[i].get()] = n;
            out += n + ": " + block.args[i]->type.ToString();
          }
          out += ')';
        }
        out += ":\n";
      }
      for (const auto& op : block.ops) PrintOp(*op, indent + 1);
    }
    Indent(indent);
    out += '}';
  }

  void PrintDict(const std::vector<NamedAttr>& attrs, std::string_view) {
    out += '{';
    for (size_t i = 0; i < attrs.size(); ++i) {
      if (i) out += ", ";
      const auto& [n, a] = attrs[i];
      if (IsBareName(n))
        out += n;
      else
        AppendQuoted(out, n);
      if (a.kind == Attribute::Kind::kUnit) continue;
      out += " = ";
      PrintAttr(a, n);
    }
    out += '}';
  }

  // The `#dialect<kind VALUE>` spelling of an enum, from the attribute name.
  std::string EnumKind(std::string_view attr_name) {
    if (attr_name == "compare_type") return "comparison_type";
    if (attr_name == "precision_config") return "precision";
    if (attr_name == "transpose_a") return "transpose";
    return std::string(attr_name);
  }

  void PrintAttr(const Attribute& a, std::string_view attr_name) {
    switch (a.kind) {
      case Attribute::Kind::kUnit: out += "unit"; return;
      case Attribute::Kind::kBool: out += a.b ? "true" : "false"; return;
      case Attribute::Kind::kInt:
        out += std::to_string(a.i) + " : ";
        out += Name(a.type.element == ElementType::kInvalid ? ElementType::kSI64 : a.type.element);
        return;
      case Attribute::Kind::kFloat: {
        ElementType et = a.type.element == ElementType::kInvalid ? ElementType::kF64 : a.type.element;
        if (std::isfinite(a.f)) {
          if (et == ElementType::kF32)
            AppendFloatValue(out, static_cast<float>(a.f));
          else
            AppendDouble(out, a.f);
        } else if (et == ElementType::kF32) {
          float f = static_cast<float>(a.f);
          uint8_t b[4];
          memcpy(b, &f, 4);
          AppendHexBits(out, b, 4);
        } else if (et == ElementType::kF64) {
          uint8_t b[8];
          memcpy(b, &a.f, 8);
          AppendHexBits(out, b, 8);
        } else {
          uint8_t b[16] = {0};
          Scalar s;
          s.re = a.f;
          ref::StoreScalar(et, s, b);
          AppendHexBits(out, b, StorageBytes(et));
        }
        out += " : ";
        out += Name(et);
        return;
      }
      case Attribute::Kind::kString: AppendQuoted(out, a.str); return;
      case Attribute::Kind::kSymbol: AppendSymbol(out, a.str); return;
      case Attribute::Kind::kEnum:
        out += op_name_.substr(0, compiler::op_names::kChloPrefix.size()) == compiler::op_names::kChloPrefix ? "#chlo<" : "#stablehlo<";
        out += EnumKind(attr_name) + " " + a.str + ">";
        return;
      case Attribute::Kind::kIntArray: {
        ElementType et = a.type.element == ElementType::kInvalid ? ElementType::kSI64 : a.type.element;
        out += "array<";
        out += Name(et);
        for (size_t i = 0; i < a.ints.size(); ++i) {
          out += i ? ", " : ": ";
          if (IsBool(et))
            out += a.ints[i] ? "true" : "false";
          else
            out += std::to_string(a.ints[i]);
        }
        out += '>';
        return;
      }
      case Attribute::Kind::kDense: PrintDense(a); return;
      case Attribute::Kind::kArray:
        out += '[';
        for (size_t i = 0; i < a.elements.size(); ++i) {
          if (i) out += ", ";
          PrintAttr(a.elements[i], attr_name);
        }
        out += ']';
        return;
      case Attribute::Kind::kDict: PrintDict(a.fields, ""); return;
      case Attribute::Kind::kStruct:
        out += a.str;
        if (a.str == "#stablehlo.conv") out += "<raw ";
        else out += '<';
        for (size_t i = 0; i < a.fields.size(); ++i) {
          if (i) out += ", ";
          if (!a.fields[i].first.empty()) out += a.fields[i].first + " = ";
          PrintLoose(a.fields[i].second);
        }
        out += '>';
        return;
      case Attribute::Kind::kType: out += a.type.ToString(); return;
    }
  }

  // Values inside dialect attribute bodies: [1, 2], bare keywords, untyped numbers.
  void PrintLoose(const Attribute& a) {
    switch (a.kind) {
      case Attribute::Kind::kInt: out += std::to_string(a.i); return;
      case Attribute::Kind::kFloat:
        if (std::isfinite(a.f)) {
          AppendDouble(out, a.f);
          return;
        }
        break;
      case Attribute::Kind::kEnum: out += a.str; return;
      case Attribute::Kind::kIntArray:
        if (a.type.element == ElementType::kSI64 || a.type.element == ElementType::kInvalid) {
          out += '[';
          for (size_t i = 0; i < a.ints.size(); ++i) {
            if (i) out += ", ";
            out += std::to_string(a.ints[i]);
          }
          out += ']';
          return;
        }
        break;
      case Attribute::Kind::kArray:
        out += '[';
        for (size_t i = 0; i < a.elements.size(); ++i) {
          if (i) out += ", ";
          PrintLoose(a.elements[i]);
        }
        out += ']';
        return;
      case Attribute::Kind::kStruct:
        if (a.str.empty()) {
          out += '<';
          for (size_t i = 0; i < a.fields.size(); ++i) {
            if (i) out += ", ";
            if (!a.fields[i].first.empty()) out += a.fields[i].first + " = ";
            PrintLoose(a.fields[i].second);
          }
          out += '>';
          return;
        }
        break;
      default:
        break;
    }
    PrintAttr(a, "");
  }

  void PrintDense(const Attribute& a) {
    const Type& t = a.type;
    const ElementType et = t.element;
    const size_t w = StorageBytes(et);
    const size_t n = w ? a.dense_bytes.size() / w : 0;
    out += "dense<";
    bool splat = n > 0;  // a compact splat (dense_splat) holds its one element
    for (size_t k = 1; k < n && splat; ++k)
      splat = memcmp(a.dense_bytes.data(), a.dense_bytes.data() + k * w, w) == 0;
    if (splat) {
      AppendElement(out, et, a.dense_bytes.data());
    } else if (n > 0) {
      size_t index = 0;
      PrintNested(a, 0, &index);
    }
    out += "> : " + t.ToString();
  }

  void PrintNested(const Attribute& a, size_t d, size_t* index) {
    const size_t w = StorageBytes(a.type.element);
    out += '[';
    for (int64_t i = 0; i < a.type.dims[d]; ++i) {
      if (i) out += ", ";
      if (d + 1 == a.type.dims.size()) {
        AppendElement(out, a.type.element, a.dense_bytes.data() + (*index) * w);
        ++*index;
      } else {
        PrintNested(a, d + 1, index);
      }
    }
    out += ']';
  }
};

}  // namespace

std::string PrintModule(const Module& module) {
  Printer p;
  p.PrintModule(module);
  return std::move(p.out);
}

}  // namespace kiln::ir

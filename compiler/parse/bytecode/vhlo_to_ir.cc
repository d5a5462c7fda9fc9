// VHLO -> StableHLO (read_bytecode.h): each vhlo.<op>_vN becomes
// stablehlo.<op>, its attributes the StableHLO spelling of their values
// (dense int arrays as array<i64: ...>, the split dimension-number
// attributes regrouped as #stablehlo.dot/gather/scatter/conv, enums as
// #stablehlo<kind VALUE>), and attributes that only restate StableHLO's
// defaults are dropped, as upstream's VHLO-to-StableHLO legalization does.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "compiler/parse/bytecode/attr_types.h"
#include "compiler/parse/bytecode/read_bytecode.h"
#include "compiler/parse/bytecode/vhlo_ops.h"
#include "compiler/parse/parser.h"

namespace kiln::ir {
namespace bytecode {
namespace {

using Named = std::vector<std::pair<std::string, const AttrInfo*>>;


std::string FloatText(const TypeInfo& ty, uint64_t bits) {
  char buf[48];
  if (ty.bits == 32) {
    uint32_t b = static_cast<uint32_t>(bits);
    float f;
    memcpy(&f, &b, 4);
    snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
  } else if (ty.bits == 64) {
    double d;
    memcpy(&d, &bits, 8);
    snprintf(buf, sizeof buf, "%.17g", d);
  } else {
    snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(bits));
    return buf;
  }
  std::string s = buf;
  if (s == "inf" || s == "-inf" || s == "nan" || s == "-nan") {
    snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(bits));
    return buf;
  }
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// A double as a float literal that reads back to the same value.
std::string Double(double d) {
  char buf[40];
  snprintf(buf, sizeof buf, "%.17g", d);
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string NewestVersion() {
  const int* k = kNewestStableHloVersion;
  return std::to_string(k[0]) + "." + std::to_string(k[1]) + "." + std::to_string(k[2]);
}

class Converter {
 public:
  Converter(const BytecodeFile& f, AttrTypeTable& t) : f_(f), t_(t) {}

  std::vector<BytecodeFunction> Functions() {
    const RawOp* module = nullptr;
    for (const auto& op : f_.top.ops)
      if (f_.op_names[op.name].full == "builtin.module") module = &op;
    if (!module) Fail(0, "no builtin.module op at the top level");
    if (module->regions.size() != 1 || module->regions[0].blocks.size() != 1)
      Fail(module->offset, "the module needs one region with one block");
    std::vector<BytecodeFunction> out;
    for (const auto& op : module->regions[0].blocks[0].ops) {
      const std::string& name = f_.op_names[op.name].full;
      if (name != "vhlo.func_v1") Fail(op.offset, "unexpected op '" + name + "' in the module body");
      BytecodeFunction fn;
      fn.text = Function(op, &fn.name);
      out.push_back(std::move(fn));
    }
    module_attrs_ = ModuleAttrs(*module);
    return out;
  }

  const std::string& module_attrs() const { return module_attrs_; }

 private:
  Named Attrs(const RawOp& op) {
    Named out;
    if (op.has_attrs) {
      const AttrInfo& d = t_.Attr(op.attrs, op.offset);
      if (d.kind != AttrInfo::Kind::kDict) Fail(op.offset, "an op's attributes must be a dictionary");
      for (auto [k, v] : d.pairs) {
        const AttrInfo& key = t_.Attr(k, op.offset);
        if (key.kind != AttrInfo::Kind::kString) Fail(op.offset, "an attribute name must be a string");
        out.emplace_back(key.str, &t_.Attr(v, op.offset));
      }
    }
    const std::string& name = f_.op_names[op.name].full;
    // The module's properties are its optional symbol name and visibility,
    // which Kiln does not use.
    if (op.has_properties && op.properties.data && name != "builtin.module") {
      const std::vector<const char*>* names = VhloPropertyNames(name);
      Cursor c(op.properties);
      size_t k = 0;
      while (!c.empty()) {
        const AttrInfo& a = t_.ReadAttr(c);
        std::string n = names && k < names->size() ? (*names)[k] : "prop" + std::to_string(k);
        ++k;
        out.emplace_back(n, &a);
      }
      if (!names) Fail(op.offset, "op '" + name + "' has properties Kiln cannot name (written by a newer StableHLO?)");
      if (k != names->size())
        Fail(op.offset, "op '" + name + "' has " + std::to_string(k) + " properties, expected " +
                            std::to_string(names->size()));
    }
    return out;
  }

  std::string ModuleAttrs(const RawOp& module) {
    Named attrs = Attrs(module);
    std::string s;
    for (auto& [n, a] : attrs) {
      if (n == "sym_name") {
        if (a->kind == AttrInfo::Kind::kString) module_name_ = a->str;
        continue;
      }
      if (n == "sym_visibility") continue;
      s += (s.empty() ? "" : ", ") + n + " = " + Render("", n, *a);
    }
    // From bytecode version 5 the name is a property: two optional
    // attributes, sym_name and sym_visibility, each (index << 1) | present.
    if (module.has_properties && module.properties.data) {
      Cursor c(module.properties);
      bool present;
      size_t at = c.offset();
      uint64_t index = c.VarIntWithFlag(&present);
      if (present) {
        const AttrInfo& a = t_.Attr(index, at);
        if (a.kind == AttrInfo::Kind::kString) module_name_ = a.str;
      }
    }
    return s;
  }

 public:
  const std::string& module_name() const { return module_name_; }

 private:

  std::string Function(const RawOp& op, std::string* fn_name) {
    Named attrs = Attrs(op);
    const AttrInfo *sym = nullptr, *type = nullptr, *vis = nullptr, *arg_attrs = nullptr, *res_attrs = nullptr;
    std::string extra;
    for (auto& [n, a] : attrs) {
      if (n == "sym_name") sym = a;
      else if (n == "function_type") type = a;
      else if (n == "sym_visibility") vis = a;
      else if (n == "arg_attrs") arg_attrs = a;
      else if (n == "res_attrs") res_attrs = a;
      else extra += (extra.empty() ? "" : ", ") + n + " = " + Render("", n, *a);
    }
    if (!sym || sym->kind != AttrInfo::Kind::kString || !type || type->kind != AttrInfo::Kind::kType)
      Fail(op.offset, "vhlo.func_v1 needs sym_name and function_type");
    *fn_name = sym->str;
    const TypeInfo& ft = t_.Type(type->type, op.offset);
    if (ft.kind != TypeInfo::Kind::kFunction) Fail(op.offset, "function_type must be a function type");
    std::string s = "func.func ";
    if (vis && vis->kind == AttrInfo::Kind::kString && !vis->str.empty() && vis->str != "public") s += vis->str + " ";
    s += "@" + sym->str + "(";
    auto entry_attrs = [&](const AttrInfo* list, size_t k) -> std::string {
      if (!list || list->kind != AttrInfo::Kind::kArray || k >= list->elements.size()) return "";
      const AttrInfo& d = t_.Attr(list->elements[k], op.offset);
      if (d.kind != AttrInfo::Kind::kDict || d.pairs.empty()) return "";
      return " " + Render("", "", d);
    };
    const RawBlock* body = op.regions.size() == 1 && !op.regions[0].blocks.empty() ? &op.regions[0].blocks[0] : nullptr;
    if (body && body->args.size() != ft.elements.size())
      Fail(op.offset, "the function's block arguments do not match its type");
    for (size_t k = 0; k < ft.elements.size(); ++k) {
      std::string ty = TypeText(t_, ft.elements[k]);
      if (body) {
        SetType(body->args[k].value, ty);
        s += (k ? ", " : "") + Value(body->args[k].value) + ": " + ty + entry_attrs(arg_attrs, k);
      } else {
        s += (k ? ", " : "") + std::string("%arg") + std::to_string(k) + ": " + ty + entry_attrs(arg_attrs, k);
      }
    }
    s += ")";
    if (!ft.results.empty()) {
      s += " -> (";
      for (size_t k = 0; k < ft.results.size(); ++k)
        s += (k ? ", " : "") + TypeText(t_, ft.results[k]) + entry_attrs(res_attrs, k);
      s += ")";
    }
    if (!extra.empty()) s += " attributes {" + extra + "}";
    if (!body) return s + "\n";
    if (op.regions[0].blocks.size() != 1) Fail(op.offset, "a function body must be one block");
    s += " {\n";
    for (const auto& inner : body->ops) s += Op(inner, 1, /*in_function=*/true);
    return s + "}\n";
  }

  std::string Value(uint32_t id) { return "%v" + std::to_string(id); }

  void SetType(uint32_t id, const std::string& ty) {
    if (id >= types_.size()) types_.resize(id + 1);
    types_[id] = ty;
  }

  std::string Op(const RawOp& op, int depth, bool in_function) {
    const std::string& full = f_.op_names[op.name].full;
    std::string indent(2 * depth, ' ');
    if (full.rfind("vhlo.", 0) != 0) Fail(op.offset, "op '" + full + "' is not a VHLO op");
    std::string base = full.substr(5);
    size_t v = base.rfind("_v");
    if (v == std::string::npos) Fail(op.offset, "op '" + full + "' has no version suffix");
    std::string version = base.substr(v + 2);
    base = base.substr(0, v);
    std::string name;
    if (base == "return") name = in_function ? "func.return" : "stablehlo.return";
    else if (base == "call") name = "func.call";
    else if (base == "func") Fail(op.offset, "nested functions are not supported");
    else name = "stablehlo." + base;
    if (!VhloOpKnown(full))
      Fail(op.offset, "op '" + full + "' is not known to Kiln (the artifact is " + std::string(f_.producer) +
                          "; Kiln knows StableHLO 0.9.0 to " + NewestVersion() + ")");
    std::string s = indent;
    for (size_t k = 0; k < op.results.size(); ++k) s += (k ? ", " : "") + Value(op.results[k]);
    if (!op.results.empty()) s += " = ";
    s += "\"" + name + "\"(";
    std::string operand_types;
    for (size_t k = 0; k < op.operands.size(); ++k) {
      uint32_t id = op.operands[k];
      if (id >= types_.size() || types_[id].empty())
        Fail(op.offset, "an operand of '" + full + "' is used before its definition");
      s += (k ? ", " : "") + Value(id);
      operand_types += (k ? ", " : "") + types_[id];
    }
    s += ")";
    std::vector<std::string> result_types;
    for (size_t k = 0; k < op.result_types.size(); ++k) {
      result_types.push_back(TypeText(t_, op.result_types[k]));
      if (k < op.results.size()) SetType(op.results[k], result_types.back());
    }
    if (!op.regions.empty()) {
      s += " (";
      for (size_t r = 0; r < op.regions.size(); ++r) {
        s += r ? ", {\n" : "{\n";
        for (const auto& b : op.regions[r].blocks) {
          if (!b.args.empty()) {
            s += indent + "^bb0(";
            for (size_t k = 0; k < b.args.size(); ++k) {
              std::string ty = TypeText(t_, b.args[k].type);
              SetType(b.args[k].value, ty);
              s += (k ? ", " : "") + Value(b.args[k].value) + ": " + ty;
            }
            s += "):\n";
          }
          for (const auto& inner : b.ops) s += Op(inner, depth + 1, false);
        }
        s += indent + "}";
      }
      s += ")";
    }
    std::string attrs = ConvertAttrs(base, version, Attrs(op), op.offset);
    if (!attrs.empty()) s += " {" + attrs + "}";
    s += " : (" + operand_types + ") -> ";
    if (result_types.size() == 1) {
      s += result_types[0];
    } else {
      s += "(";
      for (size_t k = 0; k < result_types.size(); ++k) s += (k ? ", " : "") + result_types[k];
      s += ")";
    }
    // The op's debug location, for the text parser to keep (its origin).
    std::string loc = LocationText(t_, op.location);
    if (loc != "unknown") s += " loc(" + loc + ")";
    return s + "\n";
  }


  std::string ConvertAttrs(const std::string& op, const std::string& version, const Named& attrs, size_t at) {
    std::vector<std::pair<std::string, std::string>> out;
    ConvertVhloAttrs(op, version, attrs, at, [&](const std::string& n, const AttrInfo& a) { return Render(op, n, a); },
                     &out, t_);
    std::string s;
    for (auto& [n, v] : out) s += (s.empty() ? "" : ", ") + n + " = " + v;
    return s;
  }

 public:
  std::string Render(const std::string& op, const std::string& name, const AttrInfo& a) {
    // Entries decoded one by one can still chain into deep nests; the
    // recursion below is bounded like the decoder's.
    if (render_depth_ >= kMaxRenderDepth) Fail(a.data.offset, "attributes nested too deeply");
    ++render_depth_;
    std::string s = RenderOne(op, name, a);
    --render_depth_;
    return s;
  }

  std::string RenderOne(const std::string& op, const std::string& name, const AttrInfo& a) {
    using K = AttrInfo::Kind;
    switch (a.kind) {
      case K::kArray: {
        std::string s = "[";
        for (size_t k = 0; k < a.elements.size(); ++k)
          s += (k ? ", " : "") + Render(op, name, t_.Attr(a.elements[k], a.data.offset));
        return s + "]";
      }
      case K::kBool:
        return a.b ? "true" : "false";
      case K::kEnum:
        if (a.name == "api_version") return std::to_string(a.i) + " : i32";
        if (a.name == "result_accuracy_mode") return "#stablehlo.result_accuracy_mode<" + a.str + ">";
        return "#stablehlo<" + a.name + " " + a.str + ">";
      case K::kDict: {
        std::string s = "{";
        bool first = true;
        for (auto [k, v] : a.pairs) {
          const AttrInfo& key = t_.Attr(k, 0);
          if (key.kind != K::kString) Fail(0, "a dictionary key must be a string");
          s += (first ? "" : ", ") + QuoteString(key.str) + " = " + Render(op, key.str, t_.Attr(v, 0));
          first = false;
        }
        return s + "}";
      }
      case K::kFloat: {
        const TypeInfo& ty = t_.Type(a.type, 0);
        return FloatText(ty, a.bits) + " : " + TypeText(t_, a.type);
      }
      case K::kInt:
        return std::to_string(a.i) + " : " + TypeText(t_, a.type);
      case K::kString:
        if (IsSymbolAttr(name)) return "@" + a.str;
        return QuoteString(a.str);
      case K::kTensor:
        return Tensor(name, a);
      case K::kType:
        return TypeText(t_, a.type);
      case K::kTypeExtensions: {
        std::string s = "#stablehlo.bounds<";
        for (size_t k = 0; k < a.ints.size(); ++k)
          s += (k ? ", " : "") + (a.ints[k] == INT64_MIN ? std::string("?") : std::to_string(a.ints[k]));
        return s + ">";
      }
      case K::kOutputOperandAlias: {
        auto list = [](const std::vector<int64_t>& v) {
          std::string s = "[";
          for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
          return s + "]";
        };
        return "#stablehlo.output_operand_alias<output_tuple_indices = " + list(a.ints) +
               ", operand_index = " + std::to_string(a.i) + ", operand_tuple_indices = " + list(a.ints2) + ">";
      }
      case K::kResultAccuracy: {
        return "#stablehlo.result_accuracy<atol = " + Double(a.f1) + ", rtol = " + Double(a.f2) +
               ", ulps = " + std::to_string(a.i) + ", mode = " + Render(op, name, t_.Attr(a.elements[0], 0)) + ">";
      }
      case K::kUnit:
        return "unit";
      case K::kSymbolRef:
        return "@" + a.str;
      case K::kLocation:
        return "unit";
      case K::kText:
        return a.str;
      case K::kDenseArray:
        Fail(a.data.offset, "builtin dense arrays are not expected in VHLO");
      case K::kSubAxisInfo:
        return "(" + std::to_string(a.ints[0]) + ")" + std::to_string(a.ints[1]);
      case K::kAxisRef: {
        std::string s = "#stablehlo.axis_ref<name = " + Render(op, "", t_.Attr(a.elements[0], 0));
        if (a.elements.size() > 1) s += ", sub_axis_info = " + Render(op, "", t_.Attr(a.elements[1], 0));
        return s + ">";
      }
      case K::kMeshAxes:
        return "#stablehlo.replica_group_mesh_axes<mesh = " + Render(op, "callee", t_.Attr(a.elements[0], 0)) +
               ", axes = " + Render(op, "", t_.Attr(a.elements[1], 0)) + ">";
    }
    return "unit";
  }

 private:
  std::string Tensor(const std::string& name, const AttrInfo& a) {
    const TypeInfo& ty = t_.Type(a.type, a.data.offset);
    if (ty.kind != TypeInfo::Kind::kTensor) Fail(a.data.offset, "a tensor attribute needs a ranked tensor type");
    const TypeInfo& el = t_.Type(ty.element, a.data.offset);
    uint64_t n = 1;
    for (int64_t d : ty.shape) {
      if (d < 0) Fail(a.data.offset, "a tensor attribute needs a static shape");
      if (d && n > (uint64_t{1} << 40) / static_cast<uint64_t>(d)) Fail(a.data.offset, "tensor attribute too large");
      n *= static_cast<uint64_t>(d);
    }
    bool is_bool = el.kind == TypeInfo::Kind::kInt && el.bits == 1;
    std::vector<uint8_t> bytes(a.data.data, a.data.data + a.data.size);
    if (is_bool && n > 1 && bytes.size() == (n + 7) / 8 && bytes.size() != n) {  // bit-packed i1
      std::vector<uint8_t> unpacked(n);
      for (uint64_t k = 0; k < n; ++k) unpacked[k] = (bytes[k / 8] >> (k % 8)) & 1;
      bytes = std::move(unpacked);
    } else if (is_bool && n > 1 && bytes.size() == 1) {  // a packed splat: 0x00 or 0xFF
      bytes[0] = bytes[0] ? 1 : 0;
    }
    if (IsIntArrayAttr(name) && ty.shape.size() == 1 &&
        (el.kind == TypeInfo::Kind::kInt && (el.bits == 64 || el.bits == 1))) {
      size_t w = el.bits == 64 ? 8 : 1;
      // A splat is spelled out element by element: only for short arrays.
      if (bytes.size() != n * w && !(bytes.size() == w && n > 0 && n <= 4096))
        Fail(a.data.offset, "tensor data has the wrong size for " + TypeText(t_, a.type));
      std::string s = el.bits == 64 ? "array<i64" : "array<i1";
      for (uint64_t k = 0; k < n; ++k) {
        const uint8_t* p = bytes.data() + (bytes.size() == w ? 0 : k * w);
        if (w == 8) {
          int64_t v;
          memcpy(&v, p, 8);
          s += (k ? ", " : ": ") + std::to_string(v);
        } else {
          s += std::string(k ? ", " : ": ") + (*p ? "true" : "false");
        }
      }
      return s + ">";
    }
    static const char kHex[] = "0123456789ABCDEF";
    std::string s = "dense<\"0x";
    s.reserve(s.size() + bytes.size() * 2 + 32);
    for (uint8_t b : bytes) {
      s += kHex[b >> 4];
      s += kHex[b & 15];
    }
    return s + "\"> : " + TypeText(t_, a.type);
  }

  const BytecodeFile& f_;
  AttrTypeTable& t_;
  static constexpr int kMaxRenderDepth = 64;
  int render_depth_ = 0;
  std::vector<std::string> types_;
  std::string module_attrs_;
  std::string module_name_;
};

void CheckVersion(const BytecodeFile& f) {
  std::string_view p = f.producer;
  constexpr std::string_view kPrefix = "StableHLO_v";
  if (p.substr(0, kPrefix.size()) != kPrefix) return;  // not stamped: ops are checked one by one
  int v[3] = {0, 0, 0};
  if (sscanf(std::string(p.substr(kPrefix.size())).c_str(), "%d.%d.%d", &v[0], &v[1], &v[2]) < 2) return;
  const int* k = kNewestStableHloVersion;
  char have[64], newest[64];
  snprintf(have, sizeof have, "%d.%d.%d", v[0], v[1], v[2]);
  snprintf(newest, sizeof newest, "%d.%d.%d", k[0], k[1], k[2]);
  if (v[0] > k[0])
    Fail(4, std::string("StableHLO version ") + have + " is newer than the newest Kiln reads (" + newest + ")");
  if (v[0] == 0 && v[1] < 9)
    Fail(4, std::string("StableHLO version ") + have + " is older than the oldest Kiln reads (0.9.0)");
}

std::string Located(std::string_view file, const BytecodeError& e) {
  return std::string(file) + ": error: " + e.message + " (at byte " + std::to_string(e.offset) + ")";
}

}  // namespace
}  // namespace bytecode

StatusOr<std::vector<BytecodeFunction>> ReadBytecodeFunctions(std::string_view bytes, std::string_view file_name) {
  try {
    bytecode::BytecodeFile f = bytecode::ReadContainer(bytes);
    bytecode::CheckVersion(f);
    bytecode::AttrTypeTable table(f);
    bytecode::Converter conv(f, table);
    return conv.Functions();
  } catch (const bytecode::BytecodeError& e) {
    return InvalidArgument(bytecode::Located(file_name, e));
  }
}

StatusOr<std::unique_ptr<Module>> ReadBytecodeModule(std::string_view bytes, std::string_view file_name) {
  std::string text;
  std::vector<std::pair<int, std::string>> starts;  // first line of each function in `text`
  try {
    bytecode::BytecodeFile f = bytecode::ReadContainer(bytes);
    bytecode::CheckVersion(f);
    bytecode::AttrTypeTable table(f);
    bytecode::Converter conv(f, table);
    std::vector<BytecodeFunction> fns = conv.Functions();
    // A module name is an MLIR identifier; anything else is left out.
    std::string name = conv.module_name();
    bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
      return isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '$' || ch == '-';
    });
    text = plain ? "module @" + name : "module";
    text += conv.module_attrs().empty() ? " {\n" : " attributes {" + conv.module_attrs() + "} {\n";
    int line = 2;
    for (const auto& fn : fns) {
      starts.emplace_back(line, fn.name);
      text += fn.text;
      line += static_cast<int>(std::count(fn.text.begin(), fn.text.end(), '\n'));
    }
    text += "}\n";
  } catch (const bytecode::BytecodeError& e) {
    return InvalidArgument(bytecode::Located(file_name, e));
  }
  auto m = ParseModule(text, std::string(file_name) + " (as StableHLO text)");
  if (!m.ok()) {
    // The message names a line of the generated text: say which function
    // of the file it is in instead.
    std::string msg = m.status().message();
    size_t nl = msg.find('\n');
    size_t err = msg.find("error: ");
    std::string core = msg.substr(err == std::string::npos ? 0 : err + 7,
                                  nl == std::string::npos ? std::string::npos : nl - (err + 7));
    std::string where;
    const std::string tag = " (as StableHLO text):";
    size_t t = msg.find(tag);
    if (t != std::string::npos && t < err) {
      int line = atoi(msg.c_str() + t + tag.size());
      for (const auto& [start, name] : starts)
        if (line >= start) where = "in function @" + name + ": ";
    }
    return InvalidArgument(std::string(file_name) + ": error: " + where + core);
  }
  std::unique_ptr<Module> module = std::move(*m);
  module->file_name = std::string(file_name);
  // Line and column point into the generated text, not the file: drop them
  // (an op's origin, from the file's own debug locations, stays).
  auto clear = [](auto&& self, Block& b) -> void {
    for (auto& op : b.ops) {
      op->loc.line = op->loc.col = 0;
      for (auto& r : op->regions)
        for (auto& blk : r->blocks) self(self, *blk);
    }
  };
  for (auto& fn : module->functions) {
    fn->loc = Location{};
    for (auto& b : fn->body.blocks) clear(clear, *b);
  }
  return module;
}

}  // namespace kiln::ir

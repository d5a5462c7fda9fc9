// Attributes: builtin literals, arrays, dictionaries, `array<i64: ...>`, and
// dialect attributes (#stablehlo<enum X>, #stablehlo.dot<...>, the compact
// and raw #stablehlo.conv<...> forms), normalized as ir.h describes.
#include <charconv>
#include <cmath>
#include <cstring>

#include "compiler/parse/parser_impl.h"
#include "kernels/scalar/scalar.h"

namespace kiln::ir::detail {
namespace {

// Field layouts of the structured attributes that consumers read by name.
struct StructLayout {
  const char* name;
  std::vector<const char*> arrays;  // kIntArray fields, default []
  std::vector<const char*> ints;    // kInt fields, default 0
  bool ints_first = false;
};

const std::vector<StructLayout>& Layouts() {
  static const std::vector<StructLayout> layouts = {
      {"#stablehlo.dot",
       {"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
        "rhs_contracting_dimensions"},
       {}},
      {"#stablehlo.gather",
       {"offset_dims", "collapsed_slice_dims", "operand_batching_dims",
        "start_indices_batching_dims", "start_index_map"},
       {"index_vector_dim"}},
      {"#stablehlo.scatter",
       {"update_window_dims", "inserted_window_dims", "input_batching_dims",
        "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"},
       {"index_vector_dim"}},
      {"#chlo.ragged_dot",
       {"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
        "rhs_contracting_dimensions", "lhs_ragged_dimensions", "rhs_group_dimensions"},
       {}},
      {"#stablehlo.channel_handle", {}, {"handle", "type"}, true},
  };
  return layouts;
}

const char* const kConvFields[] = {
    "input_batch_dimension",          "input_feature_dimension",
    "input_spatial_dimensions",       "kernel_input_feature_dimension",
    "kernel_output_feature_dimension", "kernel_spatial_dimensions",
    "output_batch_dimension",         "output_feature_dimension",
    "output_spatial_dimensions"};
bool ConvFieldIsArray(int i) { return i == 2 || i == 5 || i == 8; }

}  // namespace

std::string Parser::ParseAttrName() {
  std::string name;
  if (cur_.is(Tok::kIdent)) {
    name = std::string(cur_.text);
  } else if (cur_.is(Tok::kString)) {
    if (!DecodeStringToken(cur_.text, &name)) Fail(cur_, "invalid escape in string");
  } else {
    FailExpected("attribute name");
  }
  Advance();
  return name;
}

std::vector<NamedAttr> Parser::ParseAttrDict() {
  Nest nest(this);
  Expect(Tok::kLBrace, "to open an attribute dictionary");
  std::vector<NamedAttr> out;
  if (!cur_.is(Tok::kRBrace)) {
    for (;;) {
      Token at = cur_;
      std::string name = ParseAttrName();
      for (const auto& [n, a] : out)
        if (n == name) Fail(at, "duplicate attribute '" + name + "'");
      Attribute a;  // bare name: unit
      if (Consume(Tok::kEqual)) a = ParseAttribute();
      if (IsShardyAnnotation(a)) {  // sharding metadata: dropped (parse_shardy.cc)
        if (!Consume(Tok::kComma)) break;
        continue;
      }
      if (a.kind == Attribute::Kind::kStruct && !a.str.empty()) a = NormalizeStruct(a, at);
      out.emplace_back(std::move(name), std::move(a));
      if (!Consume(Tok::kComma)) break;
    }
  }
  Expect(Tok::kRBrace, "to close the attribute dictionary");
  return out;
}

void Parser::MergeAttrs(Operation* op, std::vector<NamedAttr> attrs) {
  for (auto& [n, a] : attrs) {
    for (const auto& e : op->attrs)
      if (e.first == n) Fail(cur_, "attribute '" + n + "' given twice");
    op->attrs.emplace_back(std::move(n), std::move(a));
  }
}

Attribute Parser::ParseAttribute() {
  Nest nest(this);
  Attribute a;
  switch (cur_.kind) {
    case Tok::kIdent: {
      std::string_view w = cur_.text;
      if (w == "dense") return ParseDense();
      if (w == "array") return ParseArrayAttr();
      if (w == "unit") {
        Advance();
        return a;
      }
      if (w == "true" || w == "false") {
        a.kind = Attribute::Kind::kBool;
        a.b = w == "true";
        Advance();
        return a;
      }
      if (w == "tensor" || w == "tuple") {
        a.kind = Attribute::Kind::kType;
        a.type = ParseType();
        return a;
      }
      if (w == "dense_resource") return ParseDenseResource();
      if (w == "affine_map") return ParseAffineMap();
      // A builtin type as an attribute value (`attr = f32`, as the VHLO
      // tests write it); tf32 and none, types no tensor of Kiln's holds,
      // are kept by name (only discardable attributes carry them).
      if (w == "tf32" || w == "none") {
        a.kind = Attribute::Kind::kEnum;
        a.str = std::string(w);
        Advance();
        return a;
      }
      if (ElementTypeFromName(w)) {
        a.kind = Attribute::Kind::kType;
        a.type = Type::Tensor(ParseScalarTypeName(), {});
        return a;
      }
      if (w == "sparse" || w == "opaque")
        Fail(cur_, "unsupported attribute '" + std::string(w) + "'");
      FailExpected("attribute value");
    }
    case Tok::kBangId:
      a.kind = Attribute::Kind::kType;
      a.type = ParseType();
      return a;
    case Tok::kString: {
      a.kind = Attribute::Kind::kString;
      if (!DecodeStringToken(cur_.text, &a.str)) Fail(cur_, "invalid escape in string");
      Advance();
      return a;
    }
    case Tok::kSymbolId:
      a.kind = Attribute::Kind::kSymbol;
      a.str = ParseSymbolName();
      return a;
    case Tok::kLSquare: {
      a.kind = Attribute::Kind::kArray;
      Advance();
      if (!cur_.is(Tok::kRSquare)) {
        a.elements.push_back(ParseAttribute());
        while (Consume(Tok::kComma)) a.elements.push_back(ParseAttribute());
      }
      Expect(Tok::kRSquare, "to close the array");
      return a;
    }
    case Tok::kLBrace:
      a.kind = Attribute::Kind::kDict;
      a.fields = ParseAttrDict();
      return a;
    case Tok::kHashId:
      return ParseHashAttribute();
    case Tok::kMinus:
    case Tok::kInteger:
    case Tok::kFloat: {
      bool neg = Consume(Tok::kMinus);
      Token num = cur_;
      if (!num.is(Tok::kInteger) && !num.is(Tok::kFloat)) FailExpected("number");
      Advance();
      ElementType et = ElementType::kInvalid;
      if (Consume(Tok::kColon)) et = ParseScalarTypeName();
      bool is_float = num.is(Tok::kFloat) || (et != ElementType::kInvalid && IsFloat(et));
      if (is_float) {
        if (et == ElementType::kInvalid) et = ElementType::kF64;
        if (!IsFloat(et)) Fail(num, "float literal needs a float type");
        uint8_t bytes[16] = {0};
        StoreFloatToken(et, num, neg, bytes);
        a.kind = Attribute::Kind::kFloat;
        if (et == ElementType::kF64) {
          memcpy(&a.f, bytes, 8);
        } else if (et == ElementType::kF32) {
          float f;
          memcpy(&f, bytes, 4);
          a.f = f;
        } else {
          a.f = ref::LoadScalar(et, bytes).re;
        }
        a.type = Type::Tensor(et, {});
        return a;
      }
      if (et == ElementType::kInvalid) et = ElementType::kSI64;
      if (IsComplex(et)) Fail(num, "complex attributes are not supported");
      std::string_view t = num.text;
      bool hex = t.size() > 2 && t[1] == 'x';
      uint64_t mag = 0;
      for (size_t i = hex ? 2 : 0; i < t.size(); ++i) {
        unsigned d = t[i] <= '9' ? t[i] - '0' : (t[i] | 32) - 'a' + 10;
        if (mag > (UINT64_MAX - d) / (hex ? 16 : 10)) Fail(num, "integer literal out of range");
        mag = mag * (hex ? 16 : 10) + d;
      }
      uint8_t bytes[8] = {0};
      StoreInt(et, num, neg, mag, bytes);
      uint64_t u = 0;
      size_t w = StorageBytes(et);
      memcpy(&u, bytes, w);
      if (KindOf(et) == ElementKind::kSigned && w < 8 && ((u >> (8 * w - 1)) & 1))
        u |= ~uint64_t(0) << (8 * w);
      return IntAttr(static_cast<int64_t>(u), et);
    }
    default:
      FailExpected("attribute value");
  }
}

Attribute Parser::ParseArrayAttr() {
  Token at = cur_;
  Advance();  // array
  Expect(Tok::kLess, "after 'array'");
  ElementType et = ParseScalarTypeName();
  if (!IsInteger(et) && !IsBool(et)) Fail(at, "only integer and i1 arrays are supported");
  std::vector<int64_t> v;
  if (Consume(Tok::kColon)) {
    for (;;) {
      if (IsBool(et) && (cur_.IsIdent("true") || cur_.IsIdent("false"))) {
        v.push_back(cur_.text == "true");
        Advance();
      } else {
        Token n = cur_;
        int64_t x = ParseIntLiteral(true);
        if (IsBool(et) && x != 0 && x != 1) Fail(n, "i1 array element must be true or false");
        v.push_back(x);
      }
      if (!Consume(Tok::kComma)) break;
    }
  }
  Expect(Tok::kGreater, "to close 'array<'");
  return IntArrayAttr(std::move(v), et);
}

std::vector<int64_t> Parser::ParseIntList() {
  Expect(Tok::kLSquare);
  std::vector<int64_t> v;
  if (!cur_.is(Tok::kRSquare)) {
    v.push_back(ParseIntLiteral(true));
    while (Consume(Tok::kComma)) v.push_back(ParseIntLiteral(true));
  }
  Expect(Tok::kRSquare, "to close the list");
  return v;
}

Attribute Parser::ParseHashAttribute() {
  Token t = cur_;
  // MHLO's attributes are StableHLO's (#mhlo.scatter<...>, #mhlo<...>).
  std::string mhlo_as_stablehlo;
  if (t.text.rfind("#mhlo.", 0) == 0 || t.text == "#mhlo") {
    mhlo_as_stablehlo = "#stablehlo" + std::string(t.text.substr(5));
    t.text = mhlo_as_stablehlo;
  }
  Advance();
  if (!cur_.is(Tok::kLess)) {
    auto it = attr_aliases_.find(t.text);
    if (it == attr_aliases_.end())
      Fail(t, "undefined attribute alias '" + std::string(t.text) + "'");
    return it->second;
  }
  if (t.text.rfind("#sdy.", 0) == 0) return SkipShardyAttribute(t);
  Advance();  // '<'
  if (t.text.find('.') == std::string_view::npos) {
    // Enum: #stablehlo<comparison_direction LT>, or MHLO's older quoted
    // #mhlo<"comparison_direction LT">.
    if (cur_.is(Tok::kString) && !mhlo_as_stablehlo.empty()) {
      std::string text;
      if (!DecodeStringToken(cur_.text, &text)) Fail(cur_, "invalid string");
      const size_t space = text.find(' ');
      if (space == std::string::npos || space + 1 == text.size()) FailExpected("\"kind VALUE\"");
      Attribute a;
      a.kind = Attribute::Kind::kEnum;
      a.str = text.substr(space + 1);
      Advance();
      Expect(Tok::kGreater, "to close the enum attribute");
      return a;
    }
    if (!cur_.is(Tok::kIdent)) FailExpected("enum kind");
    Advance();
    if (!cur_.is(Tok::kIdent)) FailExpected("enum value");
    Attribute a;
    a.kind = Attribute::Kind::kEnum;
    a.str = std::string(cur_.text);
    Advance();
    Expect(Tok::kGreater, "to close the enum attribute");
    return a;
  }
  if (t.text == "#stablehlo.conv") return ParseConvDimensionNumbers();
  return NormalizeStruct(ParseStructBody(std::string(t.text)), t);
}

Attribute Parser::ParseStructBody(std::string name) {
  Nest nest(this);
  Attribute a;
  a.kind = Attribute::Kind::kStruct;
  a.str = std::move(name);
  if (Consume(Tok::kGreater)) return a;
  for (;;) {
    std::string key;
    if ((cur_.is(Tok::kIdent) || cur_.is(Tok::kString)) && Peek().is(Tok::kEqual)) {
      Token at = cur_;
      key = ParseAttrName();
      for (const auto& [n, v] : a.fields)
        if (n == key) Fail(at, "duplicate field '" + key + "'");
      Advance();  // '='
    }
    a.fields.emplace_back(std::move(key), ParseLooseValue());
    // StableHLO's struct parser accepts a comma before the closing '>'.
    if (!Consume(Tok::kComma) || cur_.is(Tok::kGreater)) break;
  }
  Expect(Tok::kGreater, "to close the attribute");
  return a;
}

Attribute Parser::ParseLooseValue() {
  Nest nest(this);
  Attribute a;
  switch (cur_.kind) {
    case Tok::kMinus:
    case Tok::kInteger:
    case Tok::kFloat: {
      bool neg = cur_.is(Tok::kMinus);
      Token num = neg ? Peek() : cur_;
      if (num.is(Tok::kFloat)) {
        if (neg) Advance();
        std::string s(num.text);
        a.kind = Attribute::Kind::kFloat;
        a.f = strtod(s.c_str(), nullptr);
        if (neg) a.f = -a.f;
        a.type = Type::Tensor(ElementType::kF64, {});
        Advance();
        return a;
      }
      return IntAttr(ParseIntLiteral(true));
    }
    case Tok::kLSquare: {
      Advance();
      std::vector<Attribute> elems;
      if (!cur_.is(Tok::kRSquare)) {
        elems.push_back(ParseLooseValue());
        while (Consume(Tok::kComma)) elems.push_back(ParseLooseValue());
      }
      Expect(Tok::kRSquare, "to close the list");
      bool all_int = true;
      for (const auto& e : elems) all_int = all_int && e.kind == Attribute::Kind::kInt;
      if (all_int) {
        std::vector<int64_t> v;
        for (const auto& e : elems) v.push_back(e.i);
        return IntArrayAttr(std::move(v));
      }
      a.kind = Attribute::Kind::kArray;
      a.elements = std::move(elems);
      return a;
    }
    case Tok::kLess:
      Advance();
      return ParseStructBody("");
    case Tok::kLParen: {
      // Shardy's sub-axis `(pre_size)size` (#stablehlo.axis_ref<...,
      // sub_axis_info = (1)2>): the two sizes as an integer array.
      Advance();
      int64_t pre = ParseIntLiteral(false);
      Expect(Tok::kRParen, "after the sub-axis pre-size");
      int64_t size = ParseIntLiteral(false);
      return IntArrayAttr({pre, size});
    }
    case Tok::kIdent: {
      std::string_view w = cur_.text;
      if (w == "true" || w == "false" || w == "dense" || w == "array" || w == "unit" ||
          w == "tensor" || w == "tuple")
        return ParseAttribute();
      a.kind = Attribute::Kind::kEnum;
      a.str = std::string(w);
      Advance();
      return a;
    }
    default:
      return ParseAttribute();
  }
}

Attribute Parser::NormalizeStruct(Attribute a, const Token& at) {
  for (const StructLayout& l : Layouts()) {
    if (a.str != l.name) continue;
    std::vector<NamedAttr> out;
    std::vector<bool> used(a.fields.size(), false);
    auto take = [&](const char* name, bool is_array) {
      for (size_t i = 0; i < a.fields.size(); ++i) {
        if (a.fields[i].first != name) continue;
        used[i] = true;
        Attribute v = std::move(a.fields[i].second);
        if (is_array && v.kind == Attribute::Kind::kArray && v.elements.empty())
          v = IntArrayAttr({});
        if (is_array && v.kind != Attribute::Kind::kIntArray)
          Fail(at, std::string("field '") + name + "' of " + l.name + " must be an integer list");
        if (!is_array && v.kind != Attribute::Kind::kInt)
          Fail(at, std::string("field '") + name + "' of " + l.name + " must be an integer");
        out.emplace_back(name, std::move(v));
        return;
      }
      out.emplace_back(name, is_array ? IntArrayAttr({}) : IntAttr(0));
    };
    if (l.ints_first)
      for (const char* n : l.ints) take(n, false);
    for (const char* n : l.arrays) take(n, true);
    if (!l.ints_first)
      for (const char* n : l.ints) take(n, false);
    for (size_t i = 0; i < used.size(); ++i)
      if (!used[i])
        Fail(at, "unknown field '" + a.fields[i].first + "' in " + l.name);
    a.fields = std::move(out);
    return a;
  }
  return a;
}

// #stablehlo.conv from its nine fields by name (the `raw` form, MHLO's dict).
Attribute Parser::ConvFromFields(const Attribute& body, const Token& at) {
  Attribute a;
  a.kind = Attribute::Kind::kStruct;
  a.str = "#stablehlo.conv";
  std::vector<bool> used(body.fields.size(), false);
  for (int f = 0; f < 9; ++f) {
    bool found = false;
    for (size_t i = 0; i < body.fields.size(); ++i) {
      if (body.fields[i].first != kConvFields[f]) continue;
      Attribute v = body.fields[i].second;
      if (ConvFieldIsArray(f) ? v.kind != Attribute::Kind::kIntArray : v.kind != Attribute::Kind::kInt)
        Fail(at, std::string("bad value for '") + kConvFields[f] + "'");
      a.fields.emplace_back(kConvFields[f], std::move(v));
      used[i] = found = true;
      break;
    }
    if (!found) Fail(at, std::string("missing field '") + kConvFields[f] + "' in #stablehlo.conv");
  }
  for (size_t i = 0; i < used.size(); ++i)
    if (!used[i]) Fail(at, "unknown field '" + body.fields[i].first + "' in #stablehlo.conv");
  return a;
}

// MHLO's older generic form writes dimension numbers as a dictionary of
// dense integer vectors and integers,
//   dot_dimension_numbers = {lhs_contracting_dimensions = dense<1> : tensor<1xi64>, ...}
// (also gather's and convolution's dimension_numbers, scatter's
// scatter_dimension_numbers): read as the struct attribute of the same fields.
void Parser::ReadDimensionDictionaries(Operation* op, const Token& at) {
  for (auto& [name, a] : op->attrs) {
    if (a.kind != Attribute::Kind::kDict) continue;
    std::string kind;
    if (name == "dot_dimension_numbers") kind = "#stablehlo.dot";
    if (name == "scatter_dimension_numbers") kind = "#stablehlo.scatter";
    if (name == "dimension_numbers" && (op->name == "stablehlo.gather" || op->name == "stablehlo.dynamic_gather"))
      kind = "#stablehlo.gather";
    if (name == "dimension_numbers" && (op->name == "stablehlo.convolution" || op->name == "stablehlo.dynamic_conv"))
      kind = "#stablehlo.conv";
    if (kind.empty()) continue;
    Attribute body;
    body.kind = Attribute::Kind::kStruct;
    body.str = kind;
    for (auto& [field, v] : a.fields) {
      Attribute value = v;
      if (value.kind == Attribute::Kind::kDense) {  // a vector: the integer list
        auto ints = value.AsInts();
        if (!ints || value.type.rank() != 1) Fail(at, "field '" + field + "' of " + name + " must be a vector of integers");
        value = IntArrayAttr(*ints);
      }
      body.fields.emplace_back(field, std::move(value));
    }
    a = kind == "#stablehlo.conv" ? ConvFromFields(body, at) : NormalizeStruct(std::move(body), at);
  }
}

// After '#stablehlo.conv<': `raw name = value, ...>` or the compact form.
Attribute Parser::ParseConvDimensionNumbers() {
  Token at = cur_;
  if (ConsumeIdent("raw")) return ConvFromFields(ParseStructBody("#stablehlo.conv"), at);
  Attribute a = ParseConvCompact();
  Expect(Tok::kGreater, "to close '#stablehlo.conv<'");
  return a;
}

// [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]
Attribute Parser::ParseConvCompact() {
  struct Group {
    int64_t a = -1, b = -1;         // batch/feature or input/output feature positions
    std::vector<int64_t> spatial;   // position of spatial dim k
  };
  auto parse_group = [&](char first, char second) {
    Group g;
    Token open = cur_;
    Expect(Tok::kLSquare, "in convolution dimension numbers");
    std::vector<std::pair<int64_t, int64_t>> sp;  // (k, position)
    int64_t pos = 0;
    if (!cur_.is(Tok::kRSquare)) {
      for (;;) {
        Token item = cur_;
        if (cur_.is(Tok::kInteger)) {
          int64_t k = ParseIntLiteral(false);
          sp.emplace_back(k, pos);
        } else if (cur_.is(Tok::kIdent) && cur_.text.size() == 1 &&
                   (cur_.text[0] == first || cur_.text[0] == second)) {
          int64_t& slot = cur_.text[0] == first ? g.a : g.b;
          if (slot >= 0) Fail(item, "dimension '" + std::string(item.text) + "' given twice");
          slot = pos;
          Advance();
        } else {
          std::string what = std::string("'") + first + "', '" + second + "' or a spatial index";
          FailExpected(what.c_str());
        }
        ++pos;
        if (!Consume(Tok::kComma)) break;
      }
    }
    Expect(Tok::kRSquare, "in convolution dimension numbers");
    if (g.a < 0 || g.b < 0)
      Fail(open, std::string("missing '") + (g.a < 0 ? first : second) + "' dimension");
    g.spatial.assign(sp.size(), -1);
    for (auto [k, p] : sp) {
      if (k < 0 || k >= static_cast<int64_t>(sp.size()) || g.spatial[k] >= 0)
        Fail(open, "spatial dimensions must be 0.." + std::to_string(sp.size() - 1) +
                       ", each once");
      g.spatial[k] = p;
    }
    return g;
  };
  Token at = cur_;
  Group in = parse_group('b', 'f');
  ExpectIdent("x");
  Group ker = parse_group('i', 'o');
  Expect(Tok::kArrow, "in convolution dimension numbers");
  Group out = parse_group('b', 'f');
  if (in.spatial.size() != ker.spatial.size() || in.spatial.size() != out.spatial.size())
    Fail(at, "input, kernel and output must have the same number of spatial dimensions");
  Attribute a;
  a.kind = Attribute::Kind::kStruct;
  a.str = "#stablehlo.conv";
  a.fields.emplace_back(kConvFields[0], IntAttr(in.a));
  a.fields.emplace_back(kConvFields[1], IntAttr(in.b));
  a.fields.emplace_back(kConvFields[2], IntArrayAttr(in.spatial));
  a.fields.emplace_back(kConvFields[3], IntAttr(ker.a));
  a.fields.emplace_back(kConvFields[4], IntAttr(ker.b));
  a.fields.emplace_back(kConvFields[5], IntArrayAttr(ker.spatial));
  a.fields.emplace_back(kConvFields[6], IntAttr(out.a));
  a.fields.emplace_back(kConvFields[7], IntAttr(out.b));
  a.fields.emplace_back(kConvFields[8], IntArrayAttr(out.spatial));
  return a;
}

}  // namespace kiln::ir::detail

// Types: tensor<2x?xf32[, #stablehlo.bounds<...>]>, !stablehlo.token,
// tuple<...>, complex<f32>, !quant.uniform<...>, and function types in op
// signatures.
#include <cmath>
#include <tuple>

#include "compiler/parse/parser_impl.h"

namespace kiln::ir::detail {

bool Parser::AtType() const {
  if (cur_.is(Tok::kBangId)) return true;
  return cur_.IsIdent("tensor") || cur_.IsIdent("tuple");
}

Type Parser::ParseType() {
  Nest nest(this);
  if (cur_.IsIdent("tensor")) return ParseTensorTypeAfterKeyword();
  if (cur_.IsIdent("tuple")) {
    Advance();
    Expect(Tok::kLess, "after 'tuple'");
    Type t;
    t.kind = Type::Kind::kTuple;
    if (!cur_.is(Tok::kGreater)) {
      t.tuple_elements.push_back(ParseType());
      while (Consume(Tok::kComma)) t.tuple_elements.push_back(ParseType());
    }
    Expect(Tok::kGreater, "to close 'tuple<'");
    return t;
  }
  if (cur_.is(Tok::kBangId)) {
    if (cur_.text == "!stablehlo.token") {
      Advance();
      return Type::Token();
    }
    if (cur_.text == "!stablehlo.future") {  // !stablehlo.future<T, ...> (async_start's result)
      Advance();
      Expect(Tok::kLess, "after '!stablehlo.future'");
      Type t;
      t.kind = Type::Kind::kFuture;
      t.tuple_elements.push_back(ParseType());
      while (Consume(Tok::kComma)) t.tuple_elements.push_back(ParseType());
      Expect(Tok::kGreater, "to close '!stablehlo.future<'");
      return t;
    }
    auto it = type_aliases_.find(cur_.text);
    if (it != type_aliases_.end()) {
      Advance();
      return it->second;
    }
    Fail(cur_, "unsupported or undefined type '" + std::string(cur_.text) + "'");
  }
  // A scalar type (i32, f32, index, complex<f32>) as a value's type is the
  // rank-0 tensor of it: the values IREE's tests and linalg bodies compute
  // with (docs/jax.md, "IREE's test forms").
  if (cur_.is(Tok::kIdent) &&
      (ElementTypeFromName(cur_.text) || cur_.text == "complex" || cur_.text == "index")) {
    std::shared_ptr<const QuantType> quant;
    ElementType e = ParseElementType(&quant);
    return Type::Tensor(e, {});
  }
  FailExpected("type");
}

Type Parser::ParseTensorTypeAfterKeyword() {
  Token kw = cur_;
  Advance();  // 'tensor'; cur_ is now '<' and the lexer sits right after it
  if (!cur_.is(Tok::kLess)) FailExpected("'<' after 'tensor'");
  Type t;
  lex_.SkipTrivia();
  int64_t dim;
  bool overflow;
  uint64_t elements = 1;
  while (true) {
    int line = lex_.line(), col = lex_.col();
    if (!lex_.LexDimension(&dim, &overflow)) break;
    if (overflow) Fail(Token{Tok::kInteger, {}, line, col}, "dimension size too large");
    if (dim != Type::kDynamic) {
      if (dim != 0 && elements > (uint64_t(1) << 62) / uint64_t(dim))
        Fail(Token{Tok::kInteger, {}, line, col}, "tensor type has too many elements");
      elements *= uint64_t(dim);
    }
    t.dims.push_back(dim);
    if (t.dims.size() > 1024) Fail(kw, "tensor rank too large");
  }
  Advance();
  if (cur_.is(Tok::kStar)) Fail(cur_, "unranked tensors are not supported");
  if (cur_.is(Tok::kInteger) || cur_.is(Tok::kQuestion))
    FailExpected("dimension followed by 'x'");
  t.element = ParseElementType(&t.quant);
  if (Consume(Tok::kComma)) {
    // Encoding: bounds of the dynamic dimensions.
    Token enc = cur_;
    if (!cur_.is(Tok::kHashId)) FailExpected("tensor encoding attribute");
    std::string_view name = cur_.text;
    Advance();
    if (name != "#stablehlo.bounds" && name != "#stablehlo.type_extensions")
      Fail(enc, "unsupported tensor encoding '" + std::string(name) + "'");
    Expect(Tok::kLess);
    if (name == "#stablehlo.type_extensions") {
      ExpectIdent("bounds");
      Expect(Tok::kEqual);
      Expect(Tok::kLSquare);
    }
    Tok close = name == "#stablehlo.bounds" ? Tok::kGreater : Tok::kRSquare;
    if (!cur_.is(close)) {
      for (;;) {
        if (Consume(Tok::kQuestion)) {
          t.bounds.push_back(Type::kDynamic);
        } else {
          t.bounds.push_back(ParseIntLiteral(false));
        }
        if (!Consume(Tok::kComma)) break;
      }
    }
    Expect(close);
    if (close == Tok::kRSquare) Expect(Tok::kGreater);
    if (t.bounds.size() != t.dims.size())
      Fail(enc, "bounds must have one entry per dimension (" + std::to_string(t.dims.size()) +
                    ")");
    for (size_t i = 0; i < t.dims.size(); ++i)
      if (t.dims[i] != Type::kDynamic && t.bounds[i] != Type::kDynamic)
        Fail(enc, "a static dimension cannot have a bound (use '?')");
  }
  Expect(Tok::kGreater, "to close 'tensor<'");
  return t;
}

ElementType Parser::ParseElementType(std::shared_ptr<const QuantType>* quant) {
  if (cur_.is(Tok::kBangId) && cur_.text == "!quant.uniform") {
    *quant = ParseQuantType();
    return (*quant)->storage;
  }
  if (!cur_.is(Tok::kIdent)) FailExpected("element type");
  if (cur_.text == "complex") {
    Token at = cur_;
    Advance();
    Expect(Tok::kLess, "after 'complex'");
    if (!cur_.is(Tok::kIdent)) FailExpected("f32 or f64");
    std::string_view part = cur_.text;
    Advance();
    Expect(Tok::kGreater, "to close 'complex<'");
    if (part == "f32") return ElementType::kC64;
    if (part == "f64") return ElementType::kC128;
    Fail(at, "unsupported complex element type complex<" + std::string(part) + ">");
  }
  if (cur_.text == "index") {
    // MLIR's index type: in attributes (custom_call's operand_layouts,
    // dense<[0, 1]> : tensor<2xindex>) and in the shape operands the
    // StableHLO dialect accepts (rng's tensor<0xindex>). It is 64 bits wide
    // on every target Kiln has, so it reads as i64 (as a typed literal's
    // `: index` does).
    Advance();
    return ElementType::kSI64;
  }
  auto et = ElementTypeFromName(cur_.text);
  if (!et) Fail(cur_, "unknown element type '" + std::string(cur_.text) + "'");
  if (IsComplex(*et)) Fail(cur_, "unknown element type");
  Advance();
  return *et;
}

// Scalar types written after typed attribute literals (`3 : i32`).
ElementType Parser::ParseScalarTypeName() {
  std::shared_ptr<const QuantType> q;
  ElementType et = ParseElementType(&q);
  if (q) Fail(cur_, "quantized type not allowed here");
  return et;
}

namespace {
// Storage types in quant types: i8, u8 (unsigned), ui8, si8.
std::optional<ElementType> QuantStorageFromName(std::string_view n) {
  if (n.size() > 1 && n[0] == 'u' && n[1] != 'i') {
    std::string s = "ui";
    s += n.substr(1);
    return ElementTypeFromName(s);
  }
  return ElementTypeFromName(n);
}
}  // namespace

std::shared_ptr<const QuantType> Parser::ParseQuantType() {
  Token start = cur_;
  Advance();  // !quant.uniform
  Expect(Tok::kLess, "after '!quant.uniform'");
  auto q = std::make_shared<QuantType>();
  if (!cur_.is(Tok::kIdent)) FailExpected("quantized storage type");
  auto st = QuantStorageFromName(cur_.text);
  if (!st || !IsInteger(*st)) Fail(cur_, "invalid quantized storage type");
  q->storage = *st;
  Advance();
  int bits = BitWidth(q->storage);
  bool is_signed = KindOf(q->storage) == ElementKind::kSigned;
  std::tie(q->storage_min, q->storage_max) = IntegerStorageRange(bits, is_signed);
  if (Consume(Tok::kLess)) {
    Token at = cur_;
    int64_t lo = ParseIntLiteral(true);
    Expect(Tok::kColon, "in storage range");
    int64_t hi = ParseIntLiteral(true);
    Expect(Tok::kGreater, "to close the storage range");
    if (lo > hi || lo < q->storage_min || hi > q->storage_max)
      Fail(at, "invalid storage range for the quantized type");
    q->storage_min = lo;
    q->storage_max = hi;
  }
  Expect(Tok::kColon, "after the storage type");
  {
    std::shared_ptr<const QuantType> inner;
    Token at = cur_;
    q->expressed = ParseElementType(&inner);
    if (inner || !IsFloat(q->expressed)) Fail(at, "expressed type must be a float type");
  }
  if (Consume(Tok::kColon)) {
    Token at = cur_;
    int64_t axis = ParseIntLiteral(false);
    if (axis > INT32_MAX) Fail(at, "quantized dimension out of range");
    q->quantized_dimension = static_cast<int32_t>(axis);
  }
  Expect(Tok::kComma, "before the quantization parameters");
  auto parse_scale_zp = [&] {
    Token at = cur_;
    double scale;
    if (cur_.is(Tok::kFloat) || cur_.is(Tok::kInteger)) {
      std::string s(cur_.text);
      scale = strtod(s.c_str(), nullptr);
      Advance();
    } else {
      FailExpected("scale");
    }
    if (!(scale > 0) || !std::isfinite(scale)) Fail(at, "scale must be positive and finite");
    int64_t zp = 0;
    if (Consume(Tok::kColon)) {
      Token zat = cur_;
      zp = ParseIntLiteral(true);
      if (zp < q->storage_min || zp > q->storage_max) Fail(zat, "zero point out of range");
    }
    q->scales.push_back(scale);
    q->zero_points.push_back(zp);
  };
  if (Consume(Tok::kLBrace)) {
    if (q->quantized_dimension < 0) Fail(start, "per-axis parameters need a quantized dimension");
    parse_scale_zp();
    while (Consume(Tok::kComma)) parse_scale_zp();
    Expect(Tok::kRBrace, "to close the per-axis parameters");
  } else {
    if (q->quantized_dimension >= 0) FailExpected("'{' with per-axis scales");
    parse_scale_zp();
  }
  Expect(Tok::kGreater, "to close '!quant.uniform<'");
  return q;
}

std::vector<Type> Parser::ParseTypeList() {
  std::vector<Type> out;
  out.push_back(ParseType());
  while (cur_.is(Tok::kComma) && (Peek().is(Tok::kBangId) || Peek().IsIdent("tensor") ||
                                  Peek().IsIdent("tuple"))) {
    Advance();
    out.push_back(ParseType());
  }
  return out;
}

bool Parser::ParseFunctionType(std::vector<Type>* ins, std::vector<Type>* outs) {
  if (!cur_.is(Tok::kLParen)) return false;
  Advance();
  if (!cur_.is(Tok::kRParen)) {
    ins->push_back(ParseType());
    while (Consume(Tok::kComma)) ins->push_back(ParseType());
  }
  Expect(Tok::kRParen, "to close the operand types");
  Expect(Tok::kArrow, "in function type");
  if (Consume(Tok::kLParen)) {
    if (!cur_.is(Tok::kRParen)) {
      outs->push_back(ParseType());
      while (Consume(Tok::kComma)) outs->push_back(ParseType());
    }
    Expect(Tok::kRParen, "to close the result types");
  } else {
    outs->push_back(ParseType());
  }
  return true;
}

}  // namespace kiln::ir::detail

// Dense elements attributes: dense<...> : tensor<...> in every spelling
// (nested lists, splats, "0x..." hex data, complex pairs, true/false,
// inf/nan, hex bit patterns for floats), written straight into the storage
// encoding of element_types.def.
//
// The element type follows the literal, so the literal is first skipped to
// read the type, then parsed again with the type known (two linear passes,
// no intermediate token list).
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/parse/parser_impl.h"
#include "kernels/scalar/scalar.h"

namespace kiln::ir::detail {
namespace {

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int HexDigit(char c) { return c <= '9' ? c - '0' : (c | 32) - 'a' + 10; }

bool IsHexToken(const Token& t) { return t.text.size() > 2 && t.text[0] == '0' && t.text[1] == 'x'; }

}  // namespace

Attribute Parser::ParseDense() {
  Token at = cur_;
  Advance();  // dense
  if (!cur_.is(Tok::kLess)) FailExpected("'<' after 'dense'");
  State body = Save();
  // Pass 1: skip the literal (it holds no '<' or '>') to reach the type.
  Advance();
  while (!cur_.is(Tok::kGreater)) {
    if (cur_.is(Tok::kEof) || cur_.is(Tok::kLess) || cur_.is(Tok::kLBrace))
      FailExpected("'>' to close 'dense<'");
    Advance();
  }
  Advance();
  if (!cur_.is(Tok::kColon)) FailExpected("':' and the tensor type of the dense attribute");
  Advance();
  Token type_at = cur_;
  Type t = ParseType();
  if (!t.is_tensor() || !t.HasStaticShape())
    Fail(type_at, "a dense attribute needs a statically shaped tensor type");
  State after = Save();

  // Pass 2: the elements, now that the type is known.
  Restore(body);
  Advance();
  const ElementType et = t.element;
  const size_t w = StorageBytes(et);
  const uint64_t n = static_cast<uint64_t>(t.NumElements());
  if (n > kMaxDenseBytes / w) Fail(at, "dense attribute too large");
  Attribute a;
  a.kind = Attribute::Kind::kDense;
  a.type = t;
  std::vector<uint8_t>& out = a.dense_bytes;
  if (cur_.is(Tok::kGreater)) {
    if (n != 0) Fail(cur_, "expected " + std::to_string(n) + " elements, got none");
  } else if (cur_.is(Tok::kString)) {
    ParseDenseHex(cur_, t, &a);
    Advance();
  } else if (cur_.is(Tok::kLSquare)) {
    if (t.dims.empty()) Fail(cur_, "a rank-0 dense attribute takes one value, not a list");
    // Each element takes a character of the list at least: a type declaring
    // more than the rest of the source holds is refused before its bytes
    // are allocated (a short list under tensor<1x530074259xi64> would
    // otherwise allocate 4 GB first; found by parser_fuzzer).
    if (n > lex_.source().size() - lex_.pos())
      Fail(cur_, "the list holds fewer elements than " + t.ToString() + " declares (" + std::to_string(n) + ")");
    out.assign(n * w, 0);
    size_t index = 0;
    ParseDenseNested(t, 0, et, w, &out, &index);
  } else {
    // Splat: one value repeated (kept as one element when large).
    uint8_t one[16] = {0};
    ParseDenseScalar(et, one);
    FillDenseSplat(&a, one, w, n);
  }
  if (!cur_.is(Tok::kGreater)) FailExpected("'>' to close 'dense<'");
  Restore(after);
  return a;
}

void Parser::ParseDenseNested(const Type& t, size_t d, ElementType et, size_t w,
                              std::vector<uint8_t>* out, size_t* index) {
  Nest nest(this);
  Token open = cur_;
  Expect(Tok::kLSquare);
  const int64_t want = t.dims[d];
  const bool leaf = d + 1 == t.dims.size();
  int64_t count = 0;
  if (!cur_.is(Tok::kRSquare)) {
    for (;;) {
      if (count >= want)
        Fail(cur_, "too many elements in dimension " + std::to_string(d) + " (expected " +
                       std::to_string(want) + ")");
      if (leaf) {
        if (cur_.is(Tok::kLSquare)) Fail(cur_, "too many nested lists for " + t.ToString());
        ParseDenseScalar(et, out->data() + (*index) * w);
        ++*index;
      } else {
        if (!cur_.is(Tok::kLSquare)) FailExpected("'[' (nested list)");
        ParseDenseNested(t, d + 1, et, w, out, index);
      }
      ++count;
      if (!Consume(Tok::kComma)) break;
    }
  }
  Expect(Tok::kRSquare, "to close the list");
  if (count != want)
    Fail(open, "expected " + std::to_string(want) + " elements in dimension " +
                   std::to_string(d) + ", got " + std::to_string(count));
}

void Parser::ParseDenseScalar(ElementType et, uint8_t* p) {
  if (IsComplex(et)) {
    ElementType part = ComplexPartType(et);
    size_t pw = StorageBytes(part);
    Expect(Tok::kLParen, "to open a complex value (re, im)");
    ParseDenseScalar(part, p);
    Expect(Tok::kComma, "between the parts of a complex value");
    ParseDenseScalar(part, p + pw);
    Expect(Tok::kRParen, "to close a complex value");
    return;
  }
  if (IsBool(et) && (cur_.IsIdent("true") || cur_.IsIdent("false"))) {
    p[0] = cur_.text == "true";
    Advance();
    return;
  }
  bool neg = false;
  if (Consume(Tok::kMinus)) neg = true;
  else if (IsFloat(et)) Consume(Tok::kPlus);
  Token tok = cur_;
  if (IsFloat(et)) {
    if (!(tok.is(Tok::kFloat) || tok.is(Tok::kInteger) || tok.IsIdent("inf") ||
          tok.IsIdent("nan")))
      FailExpected("float value");
    StoreFloatToken(et, tok, neg, p);
    Advance();
    return;
  }
  if (tok.is(Tok::kFloat)) Fail(tok, "float value for integer type " + std::string(Name(et)));
  if (!tok.is(Tok::kInteger)) FailExpected("integer value");
  std::string_view t = tok.text;
  bool hex = IsHexToken(tok);
  uint64_t mag = 0;
  for (size_t i = hex ? 2 : 0; i < t.size(); ++i) {
    unsigned d = HexDigit(t[i]);
    if (mag > (UINT64_MAX - d) / (hex ? 16 : 10)) Fail(tok, "integer literal out of range");
    mag = mag * (hex ? 16 : 10) + d;
  }
  StoreInt(et, tok, neg, mag, p);
  Advance();
}

// Range-checks an integer literal for `et` and writes it sign- or
// zero-extended to the type's storage width.
void Parser::StoreInt(ElementType et, const Token& at, bool negative, uint64_t mag, uint8_t* p) {
  const int bits = BitWidth(et);
  const size_t w = StorageBytes(et);
  const auto kind = KindOf(et);
  if (kind == ElementKind::kBool) {
    if (negative || mag > 1) Fail(at, "i1 value must be 0, 1, true or false");
    p[0] = static_cast<uint8_t>(mag);
    return;
  }
  if (kind != ElementKind::kSigned && kind != ElementKind::kUnsigned)
    Fail(at, "integer value for non-integer type " + std::string(Name(et)));
  const uint64_t umax = bits >= 64 ? UINT64_MAX : (uint64_t(1) << bits) - 1;
  const std::string range_msg = "integer value out of range for " + std::string(Name(et));
  if (kind == ElementKind::kUnsigned) {
    if (negative && mag != 0) Fail(at, "negative value for unsigned type " + std::string(Name(et)));
    if (mag > umax) Fail(at, range_msg);
  } else if (negative) {
    if (mag > (uint64_t(1) << (bits - 1))) Fail(at, range_msg);
  } else if (mag > umax) {  // signless: the unsigned range is accepted too
    Fail(at, range_msg);
  }
  uint64_t v = negative ? 0 - mag : mag;
  if (bits < 64) {
    v &= umax;
    if (kind == ElementKind::kSigned && ((v >> (bits - 1)) & 1)) v |= ~umax;
  }
  memcpy(p, &v, w);  // little-endian host
}

void Parser::StoreFloatToken(ElementType et, const Token& tok, bool negative, uint8_t* p) {
  const size_t w = StorageBytes(et);
  if (tok.is(Tok::kInteger) && IsHexToken(tok)) {
    // A hex integer for a float type is the bit pattern.
    if (negative) Fail(tok, "a hex bit pattern cannot be negated");
    std::string_view t = tok.text.substr(2);
    uint64_t bitsv = 0;
    if (t.size() > 16) Fail(tok, "bit pattern too wide for " + std::string(Name(et)));
    for (char c : t) bitsv = bitsv * 16 + HexDigit(c);
    int bits = BitWidth(et);
    if (bits < 64 && bitsv >> bits) Fail(tok, "bit pattern too wide for " + std::string(Name(et)));
    memcpy(p, &bitsv, w);
    return;
  }
  double v;
  if (tok.IsIdent("inf")) {
    v = std::numeric_limits<double>::infinity();
  } else if (tok.IsIdent("nan")) {
    v = std::numeric_limits<double>::quiet_NaN();
  } else if (et == ElementType::kF32) {
    float f;
    auto r = std::from_chars(tok.text.data(), tok.text.data() + tok.text.size(), f);
    if (r.ec != std::errc() || r.ptr != tok.text.data() + tok.text.size())
      f = strtof(std::string(tok.text).c_str(), nullptr);  // out of range: inf or 0
    if (negative) f = -f;
    memcpy(p, &f, 4);
    return;
  } else {
    auto r = std::from_chars(tok.text.data(), tok.text.data() + tok.text.size(), v);
    if (r.ec != std::errc() || r.ptr != tok.text.data() + tok.text.size())
      v = strtod(std::string(tok.text).c_str(), nullptr);
  }
  if (negative) v = -v;
  if (et == ElementType::kF64) {
    memcpy(p, &v, 8);
  } else if (et == ElementType::kF32) {
    float f = static_cast<float>(v);
    memcpy(p, &f, 4);
  } else {
    Scalar s;
    s.re = ref::RoundToFloatType(et, v);
    ref::StoreScalar(et, s, p);
  }
}

void Parser::ParseDenseHex(const Token& tok, const Type& t, Attribute* out) {
  std::string_view s = tok.text.substr(1, tok.text.size() - 2);
  if (s.size() < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
    Fail(tok, "dense string data must be hex: \"0x...\"");
  StoreElementBytes(tok, t, DecodeHex(tok, s.substr(2)), /*allow_splat=*/true, out);
}

std::vector<uint8_t> Parser::DecodeHex(const Token& tok, std::string_view s) {
  if (s.size() % 2) Fail(tok, "odd number of hex digits");
  std::vector<uint8_t> raw(s.size() / 2);
  for (size_t i = 0; i < raw.size(); ++i) {
    char hi = s[2 * i], lo = s[2 * i + 1];
    if (!IsHexDigit(hi) || !IsHexDigit(lo)) Fail(tok, "invalid hex digit");
    raw[i] = static_cast<uint8_t>(HexDigit(hi) * 16 + HexDigit(lo));
  }
  return raw;
}

void Parser::StoreElementBytes(const Token& tok, const Type& t, std::vector<uint8_t> raw, bool allow_splat,
                               Attribute* attr) {
  std::vector<uint8_t>* out = &attr->dense_bytes;
  const ElementType et = t.element;
  const size_t w = StorageBytes(et);
  const uint64_t n = static_cast<uint64_t>(t.NumElements());
  const size_t nbytes = raw.size();
  if (nbytes != n * w && !(allow_splat && nbytes == w))
    Fail(tok, "hex data has " + std::to_string(nbytes) + " bytes; " + t.ToString() + " needs " +
                  std::to_string(n * w));
  // Normalize one-byte storage of narrow integers (MLIR keeps the value in
  // the low bits): i1 -> 0/1, i2/i4 sign-extended, ui2/ui4 zero-extended.
  const int bits = BitWidth(et);
  if (IsBool(et)) {
    for (auto& b : raw) b = b != 0;
  } else if (IsInteger(et) && bits < 8) {
    const uint8_t mask = static_cast<uint8_t>((1u << bits) - 1);
    for (auto& b : raw) {
      b &= mask;
      if (KindOf(et) == ElementKind::kSigned && ((b >> (bits - 1)) & 1)) b |= ~mask;
    }
  }
  if (nbytes == n * w) {
    *out = std::move(raw);
  } else {
    FillDenseSplat(attr, raw.data(), w, n);
  }
}


}  // namespace kiln::ir::detail

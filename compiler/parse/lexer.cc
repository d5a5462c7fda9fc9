// MLIR lexer: one pass over the source, tokens are views into it.
#include "compiler/parse/lexer.h"

namespace kiln::ir {
namespace {

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int HexVal(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}
// Characters that may continue a bare identifier (MLIR: letter, digit, _ $ .).
bool IsIdentChar(char c) { return IsAlpha(c) || IsDigit(c) || c == '_' || c == '$' || c == '.'; }
// Characters of a suffix id after % @ ^ # ! (MLIR also allows '-').
bool IsSuffixChar(char c) { return IsIdentChar(c) || c == '-'; }

}  // namespace

const char* TokName(Tok t) {
  switch (t) {
    case Tok::kEof: return "end of input";
    case Tok::kError: return "invalid token";
    case Tok::kIdent: return "identifier";
    case Tok::kValueId: return "SSA value";
    case Tok::kSymbolId: return "symbol";
    case Tok::kBlockId: return "block label";
    case Tok::kHashId: return "'#' identifier";
    case Tok::kBangId: return "'!' identifier";
    case Tok::kString: return "string";
    case Tok::kInteger: return "integer";
    case Tok::kFloat: return "float";
    case Tok::kLParen: return "'('";
    case Tok::kRParen: return "')'";
    case Tok::kLSquare: return "'['";
    case Tok::kRSquare: return "']'";
    case Tok::kLBrace: return "'{'";
    case Tok::kRBrace: return "'}'";
    case Tok::kLess: return "'<'";
    case Tok::kGreater: return "'>'";
    case Tok::kComma: return "','";
    case Tok::kColon: return "':'";
    case Tok::kEqual: return "'='";
    case Tok::kArrow: return "'->'";
    case Tok::kQuestion: return "'?'";
    case Tok::kStar: return "'*'";
    case Tok::kPlus: return "'+'";
    case Tok::kMinus: return "'-'";
    case Tok::kVerticalBar: return "'|'";
    case Tok::kFileMetadataBegin: return "'{-#'";
    case Tok::kFileMetadataEnd: return "'#-}'";
  }
  return "token";
}

void Lexer::SkipTrivia() {
  while (pos_ < src_.size()) {
    char c = src_[pos_];
    if (c == '\n') {
      ++pos_;
      ++line_;
      line_start_ = pos_;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '/') {
      while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
    } else {
      break;
    }
  }
}

void Lexer::LexSuffixId() {
  while (pos_ < src_.size() && IsSuffixChar(src_[pos_])) ++pos_;
}

Token Lexer::Next() {
  SkipTrivia();
  const size_t start = pos_;
  const int line = line_, col = static_cast<int>(pos_ - line_start_) + 1;
  if (pos_ >= src_.size()) return Token{Tok::kEof, src_.substr(src_.size()), line, col};
  const char c = src_[pos_++];
  auto single = [&](Tok k) { return Make(k, start, line, col); };
  // The file metadata's brackets (MLIR's {-# ... #-}, after the module).
  auto followed_by = [&](std::string_view two) { return src_.substr(pos_, 2) == two; };
  if (c == '{' && followed_by("-#")) {
    pos_ += 2;
    return single(Tok::kFileMetadataBegin);
  }
  if (c == '#' && followed_by("-}")) {
    pos_ += 2;
    return single(Tok::kFileMetadataEnd);
  }
  switch (c) {
    case '(': return single(Tok::kLParen);
    case ')': return single(Tok::kRParen);
    case '[': return single(Tok::kLSquare);
    case ']': return single(Tok::kRSquare);
    case '{': return single(Tok::kLBrace);
    case '}': return single(Tok::kRBrace);
    case '<': return single(Tok::kLess);
    case '>': return single(Tok::kGreater);
    case ',': return single(Tok::kComma);
    case ':': return single(Tok::kColon);
    case '=': return single(Tok::kEqual);
    case '?': return single(Tok::kQuestion);
    case '*': return single(Tok::kStar);
    case '+': return single(Tok::kPlus);
    case '|': return single(Tok::kVerticalBar);
    case '-':
      if (pos_ < src_.size() && src_[pos_] == '>') {
        ++pos_;
        return single(Tok::kArrow);
      }
      return single(Tok::kMinus);
    case '"': return LexString(start, line, col);
    case '%': case '^': case '#': case '!': {
      if (pos_ >= src_.size() || !IsSuffixChar(src_[pos_])) {
        error_ = std::string("expected an identifier after '") + c + "'";
        return single(Tok::kError);
      }
      LexSuffixId();
      Tok k = c == '%' ? Tok::kValueId : c == '^' ? Tok::kBlockId : c == '#' ? Tok::kHashId
                                                                       : Tok::kBangId;
      return single(k);
    }
    case '@': {
      if (pos_ < src_.size() && src_[pos_] == '"') {
        Token s = LexString(start, line, col);
        if (s.kind == Tok::kError) return s;
        return single(Tok::kSymbolId);
      }
      if (pos_ >= src_.size() || !(IsIdentChar(src_[pos_]) || src_[pos_] == '-')) {
        error_ = "expected a symbol name after '@'";
        return single(Tok::kError);
      }
      LexSuffixId();
      return single(Tok::kSymbolId);
    }
    default:
      break;
  }
  if (IsDigit(c)) return LexNumber(start, line, col);
  if (IsAlpha(c) || c == '_') {
    while (pos_ < src_.size() && IsIdentChar(src_[pos_])) ++pos_;
    return single(Tok::kIdent);
  }
  error_ = "unexpected character";
  if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) >= 127)
    error_ += " (byte " + std::to_string(static_cast<unsigned char>(c)) + ")";
  else
    error_ += std::string(" '") + c + "'";
  return single(Tok::kError);
}

Token Lexer::LexNumber(size_t start, int line, int col) {
  // Hex integer: 0x...
  if (src_[start] == '0' && pos_ < src_.size() && src_[pos_] == 'x' && pos_ + 1 < src_.size() &&
      IsHex(src_[pos_ + 1])) {
    ++pos_;
    while (pos_ < src_.size() && IsHex(src_[pos_])) ++pos_;
    return Make(Tok::kInteger, start, line, col);
  }
  while (pos_ < src_.size() && IsDigit(src_[pos_])) ++pos_;
  bool is_float = false;
  if (pos_ < src_.size() && src_[pos_] == '.') {
    is_float = true;
    ++pos_;
    while (pos_ < src_.size() && IsDigit(src_[pos_])) ++pos_;
  }
  // Exponent (MLIR wants a '.' before it; we also accept 1e5).
  if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
    size_t p = pos_ + 1;
    if (p < src_.size() && (src_[p] == '+' || src_[p] == '-')) ++p;
    if (p < src_.size() && IsDigit(src_[p])) {
      while (p < src_.size() && IsDigit(src_[p])) ++p;
      pos_ = p;
      is_float = true;
    }
  }
  return Make(is_float ? Tok::kFloat : Tok::kInteger, start, line, col);
}

Token Lexer::LexString(size_t start, int line, int col) {
  // pos_ is just after the opening quote (or at it, for @"...").
  if (pos_ < src_.size() && src_[pos_] == '"' && src_[start] == '@') ++pos_;
  while (pos_ < src_.size()) {
    char c = src_[pos_++];
    if (c == '"') return Make(Tok::kString, start, line, col);
    if (c == '\n') break;
    if (c == '\\') {
      if (pos_ >= src_.size()) break;
      ++pos_;  // validated when decoded
    }
  }
  error_ = "unterminated string";
  return Make(Tok::kError, start, line, col);
}

bool Lexer::LexDimension(int64_t* dim, bool* overflow) {
  *overflow = false;
  size_t p = pos_;
  if (p < src_.size() && src_[p] == '?') {
    if (p + 1 < src_.size() && src_[p + 1] == 'x') {
      *dim = INT64_MIN;
      pos_ = p + 2;
      return true;
    }
    return false;
  }
  if (p >= src_.size() || !IsDigit(src_[p])) return false;
  uint64_t v = 0;
  while (p < src_.size() && IsDigit(src_[p])) {
    if (v > (uint64_t(INT64_MAX) - 9) / 10) *overflow = true;
    v = v * 10 + uint64_t(src_[p] - '0');
    ++p;
  }
  if (p >= src_.size() || src_[p] != 'x') return false;
  *dim = *overflow ? 0 : static_cast<int64_t>(v);
  pos_ = p + 1;
  return true;
}

bool DecodeStringToken(std::string_view t, std::string* out) {
  out->clear();
  if (!t.empty() && t[0] == '@') t.remove_prefix(1);
  if (t.size() < 2 || t.front() != '"' || t.back() != '"') return false;
  t = t.substr(1, t.size() - 2);
  out->reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (c != '\\') {
      out->push_back(c);
      continue;
    }
    if (++i >= t.size()) return false;
    char e = t[i];
    switch (e) {
      case '"': case '\\': out->push_back(e); break;
      case 'n': out->push_back('\n'); break;
      case 't': out->push_back('\t'); break;
      default:
        if (i + 1 < t.size() && IsHex(e) && IsHex(t[i + 1])) {
          out->push_back(static_cast<char>(HexVal(e) * 16 + HexVal(t[i + 1])));
          ++i;
        } else {
          return false;
        }
    }
  }
  return true;
}

}  // namespace kiln::ir

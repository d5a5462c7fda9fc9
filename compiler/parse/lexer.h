// MLIR tokens for the StableHLO text front end.
//
// The lexer works on the fly over a string_view: each Next() call produces one
// token whose text is a view into the source (no copies), with its 1-based
// line and column. Tensor dimension lists ("2x?x3x") cannot be tokenized in
// the usual way ("0x2" would read as a hex number), so the type parser asks
// for them explicitly through LexDimension().
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kiln::ir {

enum class Tok : uint8_t {
  kEof,
  kError,       // text = the offending characters; Lexer::error() says why
  kIdent,       // bare identifier, may contain dots: func.func, stablehlo.add, f32, x
  kValueId,     // %name or %0 (text includes '%')
  kSymbolId,    // @name or @"quoted" (text includes '@')
  kBlockId,     // ^bb0
  kHashId,      // #name, #dialect.name, #0 (as in %r#0)
  kBangId,      // !dialect.type
  kString,      // "..." including the quotes, escapes not decoded
  kInteger,     // 123 or 0x1F (no sign)
  kFloat,       // 1.5, 1.0e-5, 2.e3 (no sign)
  kLParen, kRParen, kLSquare, kRSquare, kLBrace, kRBrace, kLess, kGreater,
  kComma, kColon, kEqual, kArrow, kQuestion, kStar, kPlus, kMinus, kVerticalBar,
  kFileMetadataBegin,  // {-#  (opens the file's metadata: dialect_resources)
  kFileMetadataEnd,    // #-}
};

const char* TokName(Tok t);

struct Token {
  Tok kind = Tok::kEof;
  std::string_view text;
  int line = 0;
  int col = 0;
  bool is(Tok k) const { return kind == k; }
  bool IsIdent(std::string_view s) const { return kind == Tok::kIdent && text == s; }
};

class Lexer {
 public:
  Lexer(std::string_view source, int first_line) : src_(source), line_(first_line) {}

  // The next token; kEof at the end (repeatedly), kError on a bad character.
  Token Next();

  // Reads one "<digits>x" or "?x" dimension at the current position (no
  // whitespace skipped inside). Returns false, leaving the position
  // unchanged, when the text there is not a dimension. Sets *overflow when
  // the digits do not fit in int64.
  bool LexDimension(int64_t* dim, bool* overflow);

  // Skips whitespace and comments so that the position is at the next token.
  void SkipTrivia();

  size_t pos() const { return pos_; }
  int line() const { return line_; }
  int col() const { return static_cast<int>(pos_ - line_start_) + 1; }
  const std::string& error() const { return error_; }
  std::string_view source() const { return src_; }

 private:
  Token Make(Tok k, size_t start, int line, int col) const {
    return Token{k, src_.substr(start, pos_ - start), line, col};
  }
  Token LexNumber(size_t start, int line, int col);
  Token LexString(size_t start, int line, int col);
  void LexSuffixId();

  std::string_view src_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
  std::string error_;
};

// Decodes the escapes of a string token ("a\"b\0A" -> a"b<newline>).
// Returns false on a malformed escape.
bool DecodeStringToken(std::string_view token_text, std::string* out);

}  // namespace kiln::ir

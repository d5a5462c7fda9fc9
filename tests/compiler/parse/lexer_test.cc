// Tests of the MLIR lexer (compiler/parse/lexer.cc): tokens with their positions,
// errors, and dimension lists.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/ir.h"
#include "compiler/parse/lexer.h"
#include "compiler/parse/parser.h"
#include "tests/compiler/parse/parse_test_util.h"

namespace kiln::ir {
namespace {

TEST(Lexer, TokensWithPositions) {
  Lexer lex("%r#1 = \"x\\n\" @f ^bb0 #a.b !t.u 12 0x1F 1.5e-3 -> // c\n  [", 1);
  struct E {
    Tok k;
    const char* text;
    int line, col;
  };
  std::vector<E> want = {{Tok::kValueId, "%r", 1, 1},   {Tok::kHashId, "#1", 1, 3},
                         {Tok::kEqual, "=", 1, 6},      {Tok::kString, "\"x\\n\"", 1, 8},
                         {Tok::kSymbolId, "@f", 1, 14}, {Tok::kBlockId, "^bb0", 1, 17},
                         {Tok::kHashId, "#a.b", 1, 22}, {Tok::kBangId, "!t.u", 1, 27},
                         {Tok::kInteger, "12", 1, 32},  {Tok::kInteger, "0x1F", 1, 35},
                         {Tok::kFloat, "1.5e-3", 1, 40}, {Tok::kArrow, "->", 1, 47},
                         {Tok::kLSquare, "[", 2, 3},    {Tok::kEof, "", 2, 4}};
  for (const E& e : want) {
    Token t = lex.Next();
    EXPECT_EQ(t.kind, e.k) << e.text;
    EXPECT_EQ(t.text, e.text);
    EXPECT_EQ(t.line, e.line) << e.text;
    EXPECT_EQ(t.col, e.col) << e.text;
  }
  std::string s;
  EXPECT_TRUE(DecodeStringToken("\"a\\\"b\\0A\"", &s));
  EXPECT_EQ(s, "a\"b\n");
}

TEST(Lexer, Errors) {
  Lexer a("\"unterminated", 1);
  EXPECT_EQ(a.Next().kind, Tok::kError);
  Lexer b("`", 1);
  EXPECT_EQ(b.Next().kind, Tok::kError);
  Lexer c("% x", 1);
  EXPECT_EQ(c.Next().kind, Tok::kError);
}

TEST(Lexer, Dimensions) {
  Lexer lex("2x?x0x3xf32", 1);
  int64_t d;
  bool overflow;
  std::vector<int64_t> dims;
  while (lex.LexDimension(&d, &overflow)) dims.push_back(d);
  EXPECT_EQ(dims, (std::vector<int64_t>{2, Type::kDynamic, 0, 3}));
  EXPECT_EQ(lex.Next().text, "f32");
  Lexer big("99999999999999999999x", 1);
  EXPECT_TRUE(big.LexDimension(&d, &overflow));
  EXPECT_TRUE(overflow);
}

}  // namespace
}  // namespace kiln::ir

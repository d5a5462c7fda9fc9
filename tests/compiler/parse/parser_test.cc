// Tests of the MLIR parser as a whole (compiler/parse/parser.cc): error messages
// with their locations, deep nesting, truncated input, splitting into
// chunks, and the whole conformance suite parsing and round-tripping. The
// syntax forms are tested in lexer_test.cc, types_test.cc, dense_test.cc,
// ops_test.cc and printer_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/ir.h"
#include "compiler/parse/lexer.h"
#include "compiler/parse/parser.h"
#include "tests/compiler/parse/parse_test_util.h"

namespace kiln::ir {
namespace {

TEST(ParserErrors, LocationsAndMessages) {
  std::string e = ParseError("func.func @f() {\n  %0 = stablehlo.add %x, %x : tensor<f32>\n}");
  EXPECT_EQ(e,
            "test.mlir:2:22: error: use of undefined value '%x'\n"
            "  %0 = stablehlo.add %x, %x : tensor<f32>\n"
            "                     ^");
  e = ParseError("func.func @f(%a: tensor<f32>) {\n  %a = stablehlo.add %a, %a : tensor<f32>\n}");
  EXPECT_NE(e.find("test.mlir:2:3: error: redefinition of SSA value '%a'"), std::string::npos) << e;
  e = ParseError(
      "func.func @f(%a: tensor<f32>) {\n  %0, %1 = stablehlo.add %a, %a : tensor<f32>\n}");
  EXPECT_NE(e.find("test.mlir:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("result"), std::string::npos) << e;
  e = ParseError("func.func @f(%a: tensor<f32>) {\n  %0 = \"stablehlo.add\"(%a, %a) : (tensor<f32>) -> tensor<f32>\n}");
  EXPECT_NE(e.find("2 operands"), std::string::npos) << e;
  e = ParseError("func.func @f(%a: tensor<f32>) {\n  %0 = stablehlo.add %a, %a : tensor<f32>\n");
  EXPECT_NE(e.find("end of input"), std::string::npos) << e;
  e = ParseError("func.func @f() {\n  %0 = stablehlo.constant dense<1> : tensor<f33>\n}");
  EXPECT_NE(e.find("test.mlir:2:45: error: unknown element type 'f33'"), std::string::npos) << e;
  e = ParseError("func.func @f() {\n  %0 = stablehlo.constant dense<1> : tensor<f32> `\n}");
  EXPECT_NE(e.find("test.mlir:2:50: error: unexpected character '`'"), std::string::npos) << e;
  e = ParseError("func.func @f(%a: tensor<f32>) {\n  %0:2 = \"x.y\"(%a) : (tensor<f32>) -> (tensor<f32>, tensor<f32>)\n  %1 = stablehlo.add %0, %0 : tensor<f32>\n}");
  EXPECT_NE(e.find("use %0#N"), std::string::npos) << e;
  e = ParseError("func.func @f(%a: tensor<f32>) {\n  %0 = stablehlo.add %a, %a : tensor<f64>\n}");
  EXPECT_NE(e.find("type of operand"), std::string::npos) << e;
  ParseError("func.func @f() {\n  %0 = \"x\"() : () -> tensor<f32>\n  %1 = \"y\"(%0#3) : (tensor<f32>) -> ()\n}");
  ParseError("func.func @f() {");
  ParseError("func.func @f(");
  ParseError("module {");
  ParseError("func.func @f() { %0 = stablehlo.constant dense<[1, 2> : tensor<2xi32> }");
  ParseError("func.func @f() { \"x\"() {a = \"unterminated} : () -> () }");
  ParseError("garbage");
  ParseError("func.func @f() {}\nfunc.func @f() {}");
  // Chunk offsets: errors name the line in the whole file.
  auto m = ParseModule("func.func @f() {\n  bad\n}", "file.mlir", 10);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message().rfind("file.mlir:11:", 0), 0u) << m.status().message();
}

TEST(ParserErrors, DeepNestingIsAnError) {
  std::string deep = "func.func @f() {\n  \"x\"() {a = ";
  for (int i = 0; i < 100000; ++i) deep += '[';
  deep += "} : () -> ()\n}";
  EXPECT_NE(ParseError(deep).find("nesting too deep"), std::string::npos);
  std::string regions = "func.func @f() {\n";
  for (int i = 0; i < 1000; ++i) regions += "\"x\"() ({\n";
  EXPECT_NE(ParseError(regions).find("nesting too deep"), std::string::npos);
  std::string types = "func.func @f(%a: ";
  for (int i = 0; i < 5000; ++i) types += "tuple<";
  EXPECT_NE(ParseError(types).find("nesting too deep"), std::string::npos);
}

TEST(ParserErrors, TruncatedInputNeverCrashes) {
  const char* src = R"(
module @m {
  func.func @main(%arg0: tensor<2x!quant.uniform<i8:f32, 0.1:3>>) -> tensor<2xf32> {
    %c = stablehlo.constant dense<[(1.0, 2.0), (3.0, 4.0)]> : tensor<2xcomplex<f32>>
    %0 = stablehlo.convolution(%arg0, %arg0) dim_numbers = [b, f]x[i, o]->[b, f], window = {stride = []} {feature_group_count = 1 : i64} : (tensor<2x!quant.uniform<i8:f32, 0.1:3>>, tensor<2x!quant.uniform<i8:f32, 0.1:3>>) -> tensor<2xf32>
    %1 = stablehlo.reduce(%0 init: %0) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %2:2 = stablehlo.while(%a = %1, %b = %1) : tensor<2xf32>, tensor<2xf32> cond { stablehlo.return %a : tensor<2xf32> } do { stablehlo.return %a, %b : tensor<2xf32>, tensor<2xf32> }
    "func.return"(%2#1) : (tensor<2xf32>) -> ()
  }
})";
  std::string s(src);
  for (size_t n = 0; n < s.size(); ++n) {
    auto m = ParseModule(std::string_view(s).substr(0, n), "t.mlir");
    (void)m;  // must return (ok or error) without crashing
  }
}

std::vector<std::filesystem::path> ConformanceFiles() {
  std::vector<std::filesystem::path> files;
  std::filesystem::path root = std::filesystem::path(KILN_SHARED_DIR) / "conformance" / "stablehlo-interpret";
  for (const auto& dir : {root, root / "chlo"}) {
    if (!std::filesystem::exists(dir)) continue;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".mlir") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Conformance, EveryChunkParsesAndRoundTrips) {
  auto files = ConformanceFiles();
  ASSERT_EQ(files.size(), 104u) << "conformance suite not found under " << KILN_SHARED_DIR;
  int chunks = 0, parsed = 0, round_tripped = 0, functions = 0;
  for (const auto& path : files) {
    std::string src = ReadFile(path);
    for (const SourceChunk& c : SplitChunks(src)) {
      ++chunks;
      auto m = ParseModule(c.text, path.string(), c.first_line);
      if (!m.ok()) {
        ADD_FAILURE() << m.status().message();
        continue;
      }
      ++parsed;
      functions += static_cast<int>(m.value()->functions.size());
      std::string p1 = PrintModule(*m.value());
      auto m2 = ParseModule(p1, "printed.mlir");
      if (!m2.ok()) {
        ADD_FAILURE() << path << ":" << c.first_line << ": printed form does not parse: "
                      << m2.status().message();
        continue;
      }
      std::string p2 = PrintModule(*m2.value());
      EXPECT_EQ(p1, p2) << path << ":" << c.first_line;
      IrComparer cmp;
      bool same = cmp.Modules(*m.value(), *m2.value());
      EXPECT_TRUE(same) << path << ":" << c.first_line << ": " << cmp.diff;
      if (p1 == p2 && same) ++round_tripped;
    }
  }
  EXPECT_EQ(chunks, 523);
  EXPECT_EQ(parsed, chunks);
  EXPECT_EQ(round_tripped, chunks);
  std::printf("conformance: %d chunks, %d parsed, %d round-tripped, %d functions\n", chunks,
              parsed, round_tripped, functions);
}

TEST(SplitChunks, LinesAndSeparators) {
  auto c = SplitChunks("a\n// -----\nb\nc\n// // -----\n// -----\n");
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].text, "a\n");
  EXPECT_EQ(c[0].first_line, 1);
  EXPECT_EQ(c[1].text, "b\nc\n// // -----\n");
  EXPECT_EQ(c[1].first_line, 3);
  EXPECT_EQ(c[2].first_line, 7);
}

}  // namespace
}  // namespace kiln::ir

// Tests of what the front end does with a file that is not plain MLIR text
// (compiler/parse/source_format.cc): MLIR bytecode, a Kiln module and other
// binary files are refused by what they are (judged by their bytes, whatever
// their name), without echoing their bytes; a UTF-8 byte-order mark is
// skipped.
#include <gtest/gtest.h>

#include <string>

#include "compiler/compile.h"
#include "compiler/parse/source_format.h"
#include "tests/compiler/parse/parse_test_util.h"

namespace kiln::ir {
namespace {

const char* kProgram =
    "func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {\n"
    "  %0 = stablehlo.add %a, %a : tensor<3xf32>\n"
    "  return %0 : tensor<3xf32>\n"
    "}\n";

// A string of every byte of a literal, NULs included.
template <size_t N>
std::string Bytes(const char (&s)[N]) {
  return std::string(s, N - 1);
}

std::string CompileMessage(const std::string& src, const char* name = "in.mlir") {
  compiler::CompileOptions options;
  options.target = "cpu";
  auto bytes = compiler::Compile(src, name, options, nullptr);
  EXPECT_FALSE(bytes.ok()) << "compiled";
  return bytes.ok() ? "" : bytes.status().message();
}

TEST(SourceFormat, MlirBytecodeIsRecognizedByItsMagic) {
  // The first bytes of a StableHLO portable artifact (jax.export writes the same).
  std::string bc = Bytes("ML\xEFR\x0DStableHLO_v1.9.0\x00\x01\x02");
  EXPECT_EQ(DetectSourceKind(bc), SourceKind::kMlirBytecode);
  // The name does not matter, only the bytes: this cut-off artifact goes to
  // the bytecode reader (compiler/parse/bytecode), which says where it ends.
  std::string m = CompileMessage(bc, "model.mlir");
  EXPECT_EQ(m.rfind("model.mlir: error: ", 0), 0u) << m;
  EXPECT_NE(m.find("(at byte "), std::string::npos) << m;
  EXPECT_EQ(m.find("reads MLIR text"), std::string::npos) << m;
}

TEST(SourceFormat, KilnModuleIsRecognizedByItsIdentifier) {
  compiler::CompileOptions options;
  options.target = "cpu";
  auto module = compiler::Compile(kProgram, "in.mlir", options, nullptr);
  ASSERT_TRUE(module.ok()) << module.status().message();
  std::string bytes(module->begin(), module->end());
  EXPECT_EQ(DetectSourceKind(bytes), SourceKind::kKilnModule);
  std::string m = CompileMessage(bytes, "out.kiln");
  EXPECT_EQ(m, "out.kiln: error: this looks like a Kiln module (kiln-compile's output), not MLIR text");
}

TEST(SourceFormat, BinaryFileIsRefusedWithoutItsBytes) {
  std::string elf = Bytes("\x7F" "ELF\x02\x01\x01\x00\x00\x00\x1B[2J");  // with a terminal escape
  EXPECT_EQ(DetectSourceKind(elf), SourceKind::kBinary);
  std::string m = CompileMessage(elf, "a.out");
  EXPECT_EQ(m, "a.out: error: binary file, not MLIR text");
  // Text stays text, whatever bytes above 127 its comments hold.
  EXPECT_EQ(DetectSourceKind(std::string("// caf\xE9\n") + kProgram), SourceKind::kMlirText);
}

// A control byte past the probe reaches the lexer, whose error echoes the
// line with '?' in its place, never the raw byte.
TEST(SourceFormat, EchoedLineHasNoControlBytes) {
  std::string src = std::string(9000, ' ') + "\n\x1B[2J\x01 module";
  std::string m = ParseError(src);
  EXPECT_EQ(m, "test.mlir:2:1: error: unexpected character (byte 27)\n?[2J? module\n^");
  EXPECT_EQ(m.find('\x1B'), std::string::npos);
}

TEST(SourceFormat, ByteOrderMarkIsSkipped) {
  const std::string bom = "\xEF\xBB\xBF";
  EXPECT_TRUE(MustParse(bom + kProgram));
  // Columns count from the character after the mark, and the echo leaves it out.
  std::string m = ParseError(bom + "func.func @f() { %0 = }");
  EXPECT_NE(m.find("test.mlir:1:23: error: expected operation, got '}'\nfunc.func @f() { %0 = }\n"
                   "                      ^"),
            std::string::npos)
      << m;
  EXPECT_EQ(StripByteOrderMark(bom + "x"), "x");
  EXPECT_EQ(StripByteOrderMark("x"), "x");
}

}  // namespace
}  // namespace kiln::ir

// Tests of how a diagnostic shows its source line (ir::FormatDiagnostic in
// compiler/parse/parser.cc): the line and a caret under the column, clipped
// to a window around the caret when the line is long (a program printed on
// one line must not echo all of itself), and no position for a diagnostic
// about the whole file; and the note naming where the producer says the op
// came from (its debug location, compiler/parse/parse_location.cc).
#include <gtest/gtest.h>

#include <string>

#include "compiler/compile.h"
#include "compiler/parse/parser.h"

namespace kiln::ir {
namespace {

// The echoed line and the caret line of a diagnostic.
struct Echo {
  std::string line, caret;
};
Echo EchoOf(const std::string& diagnostic) {
  size_t a = diagnostic.find('\n');
  size_t b = diagnostic.find('\n', a + 1);
  EXPECT_NE(b, std::string::npos) << diagnostic;
  if (b == std::string::npos) return {};
  return {diagnostic.substr(a + 1, b - a - 1), diagnostic.substr(b + 1)};
}

TEST(Diagnostic, ShortLineIsEchoedWhole) {
  std::string d = FormatDiagnostic("f.mlir", "a\n  %0 = bad\n", 1, Location{2, 8}, "error", "msg");
  EXPECT_EQ(d, "f.mlir:2:8: error: msg\n  %0 = bad\n       ^");
}

TEST(Diagnostic, LongLineIsClippedAroundTheCaret) {
  std::string line;
  for (int i = 0; i < 3000; ++i) line += static_cast<char>('a' + i % 26);
  for (int col : {1, 40, 1500, 2990, 3001}) {
    std::string d = FormatDiagnostic("f.mlir", line, 1, Location{1, col}, "error", "msg");
    Echo e = EchoOf(d);
    EXPECT_LE(e.line.size(), 106u) << col;
    EXPECT_EQ(e.line.rfind("...", 0) == 0, col > 50) << col << ": " << e.line;
    EXPECT_EQ(e.line.size() >= 3 && e.line.substr(e.line.size() - 3) == "...", col < 2950) << col << ": " << e.line;
    // The caret stands under the character at `col`.
    ASSERT_EQ(e.caret.back(), '^');
    size_t at = e.caret.size() - 1;
    if (col <= 3000) {
      ASSERT_LT(at, e.line.size()) << col;
      EXPECT_EQ(e.line[at], line[col - 1]) << col;
    } else {
      EXPECT_EQ(at, e.line.size()) << col;  // just past the end of the line
    }
  }
}

// One column per character: the caret is not pushed right by the
// continuation bytes of a UTF-8 character before it.
TEST(Diagnostic, CaretCountsUtf8Characters) {
  std::string d = FormatDiagnostic("f.mlir", "// \xC3\xA9t\xC3\xA9 x", 1, Location{1, 10}, "error", "msg");
  EXPECT_EQ(EchoOf(d).caret, "       ^");
}

TEST(Diagnostic, WholeFileDiagnosticHasNoPosition) {
  EXPECT_EQ(FormatDiagnostic("f.mlir", "x", 1, Location{}, "warning", "msg"), "f.mlir: warning: msg");
}

// A whole program on one line (about 100 KB): the error stays short.
TEST(Diagnostic, OneLineProgramErrorStaysShort) {
  std::string src = "func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {";
  for (int i = 0; i < 2000; ++i) src += " %v" + std::to_string(i) + " = stablehlo.add %a, %a : tensor<3xf32>";
  src += " %bad = stablehlo.add %a, %nope : tensor<3xf32> return %a : tensor<3xf32> }";
  ASSERT_GT(src.size(), 90000u);
  compiler::CompileOptions options;
  options.target = "cpu";
  auto bytes = compiler::Compile(src, "one_line.mlir", options, nullptr);
  ASSERT_FALSE(bytes.ok());
  const std::string& m = bytes.status().message();
  EXPECT_LT(m.size(), 400u) << m;
  EXPECT_NE(m.find("use of undefined value '%nope'"), std::string::npos) << m;
  EXPECT_NE(m.find("%nope"), m.rfind("%nope")) << "the echo shows the offending value: " << m;
}

// JAX's debug locations: aliases printed after the module, a name scope
// around a file position, a call site (its callee's position wins), a
// fused location (its first position). The error points into the file and
// its note at the Python line.
std::string CompileError(const std::string& src) {
  compiler::CompileOptions options;
  options.target = "cpu";
  auto bytes = compiler::Compile(src, "f.mlir", options, nullptr);
  EXPECT_FALSE(bytes.ok());
  return bytes.ok() ? "" : bytes.status().message();
}

std::string SineOnIntegers(const std::string& loc, const std::string& aliases) {
  return "module @jit_f {\n"
         "  func.func public @main(%arg0: tensor<4xi32> loc(\"x\")) -> (tensor<4xi32>) {\n"
         "    %0 = stablehlo.sine %arg0 : tensor<4xi32> loc(" + loc + ")\n"
         "    return %0 : tensor<4xi32> loc(#loc)\n"
         "  } loc(#loc)\n"
         "} loc(#loc)\n"
         "#loc = loc(unknown)\n" + aliases;
}

TEST(Diagnostic, NoteNamesTheOpsDebugLocation) {
  const std::string aliases =
      "#loc1 = loc(\"/src/model.py\":12:8)\n"
      "#loc2 = loc(\"/src/model.py\":13:4)\n"
      "#loc3 = loc(\"jit(f)/jit(main)/sin\"(#loc2))\n"
      "#loc4 = loc(callsite(#loc3 at #loc1))\n";
  std::string m = CompileError(SineOnIntegers("#loc4", aliases));
  EXPECT_EQ(m.rfind("f.mlir:3:10: error: stablehlo.sine: ", 0), 0u) << m;
  const std::string note = "\nnote: the op comes from /src/model.py:13:4 (\"jit(f)/jit(main)/sin\")";
  EXPECT_EQ(m.size() - m.rfind(note), note.size()) << "the note closes the message: " << m;

  m = CompileError(SineOnIntegers("fused<\"meta\">[\"a\", callsite(\"b\" at \"m.py\":3:1)]", ""));
  EXPECT_NE(m.find("\nnote: the op comes from m.py:3:1"), std::string::npos) << m;
  m = CompileError(SineOnIntegers("\"only_a_name\"", ""));
  EXPECT_NE(m.find("\nnote: the op comes from \"only_a_name\""), std::string::npos) << m;
  // Unknown, an undefined alias, or a form not read here: no note, no error of its own.
  for (const char* loc : {"unknown", "#nowhere", "future_form<1>(2)"}) {
    m = CompileError(SineOnIntegers(loc, ""));
    EXPECT_NE(m.find("stablehlo.sine: "), std::string::npos) << loc << ": " << m;
    EXPECT_EQ(m.find("note:"), std::string::npos) << loc << ": " << m;
  }
}

}  // namespace
}  // namespace kiln::ir

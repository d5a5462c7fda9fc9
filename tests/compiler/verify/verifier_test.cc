// Tests of the IR verifier as a whole (compiler/verify/verifier.cc): a return
// against the function's signature, valid programs of every family (dynamic
// dimensions included), and every chunk of the conformance suite verifying.
// The malformed programs of each op family are in <family>_test.cc.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/parse/parser.h"
#include "compiler/verify/verifier.h"
#include "tests/compiler/verify/verify_test_util.h"

namespace kiln::compiler {
namespace {

TEST(Verifier, ReturnAgainstSignature) {
  Status s = ParseAndVerify("func.func @main(%a: tensor<2xf32>) -> tensor<2xi32> {\n  func.return %a : tensor<2xf32>\n}\n");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("t.mlir:2:3: error: func.return operand 0 has type tensor<2xf32>, but the function "
                             "returns tensor<2xi32>"),
            std::string::npos)
      << s.message();
}

// A return is a terminator: it defines no value and ends its block (a parser
// fuzzer found `%1 = stablehlo.return` mid-function passing to the lowering).
TEST(Verifier, ReturnTerminatesItsBlock) {
  Status s = ParseAndVerify(
      "func.func @main() {\n"
      "  %0 = stablehlo.constant dense<[0, 8, 15]> : tensor<3xui4>\n"
      "  %1 = stablehlo.return %0 : tensor<3xui4>\n"
      "  check.expect_eq_const %1, dense<[0, 8, 1]> : tensor<3xui4>\n"
      "  func.return\n"
      "}\n");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("t.mlir:3:8: error: stablehlo.return is a terminator and defines no results"),
            std::string::npos)
      << s.message();
  s = ParseAndVerify(
      "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n"
      "  %0 = stablehlo.abs %a : tensor<f32>\n"
      "  stablehlo.return %0 : tensor<f32>\n"
      "  func.return %0 : tensor<f32>\n"
      "}\n");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("t.mlir:3:3: error: stablehlo.return must be the last operation of its block"),
            std::string::npos)
      << s.message();
}

// Valid programs: every family, with dynamic dimensions where the spec allows them.
TEST(Verifier, AcceptsValidPrograms) {
  const char* programs[] = {
      "func.func @main(%a: tensor<?x3xf32>, %b: tensor<2x?xf32>) -> tensor<2x3xf32> {\n"
      "  %r = \"stablehlo.add\"(%a, %b) : (tensor<?x3xf32>, tensor<2x?xf32>) -> tensor<2x3xf32>\n"
      "  func.return %r : tensor<2x3xf32>\n}\n",
      "func.func @main(%a: tensor<?x3xf32>) -> tensor<3x?xf32> {\n"
      "  %r = \"stablehlo.transpose\"(%a) {permutation = array<i64: 1, 0>} : (tensor<?x3xf32>) -> tensor<3x?xf32>\n"
      "  func.return %r : tensor<3x?xf32>\n}\n",
      "func.func @main(%a: tensor<1x?xf32>) -> tensor<4x2x5xf32> {\n"
      "  %r = \"stablehlo.broadcast_in_dim\"(%a) {broadcast_dimensions = array<i64: 1, 2>} : (tensor<1x?xf32>) -> "
      "tensor<4x2x5xf32>\n  func.return %r : tensor<4x2x5xf32>\n}\n",
      "func.func @main(%a: tensor<3x4xf32>, %b: tensor<4x?xf32>) -> tensor<3x?xf32> {\n"
      "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x?xf32>) -> "
      "tensor<3x?xf32>\n  func.return %r : tensor<3x?xf32>\n}\n",
      "func.func @main(%a: tensor<?x3xf32>, %c: tensor<f32>) -> tensor<?xf32> {\n"
      "  %r = \"stablehlo.reduce\"(%a, %c) ({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
      "    %s = stablehlo.add %x, %y : tensor<f32>\n    stablehlo.return %s : tensor<f32>\n"
      "  }) {dimensions = array<i64: 1>} : (tensor<?x3xf32>, tensor<f32>) -> tensor<?xf32>\n"
      "  func.return %r : tensor<?xf32>\n}\n",
      "func.func @main(%a: tensor<2xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {\n"
      "  %r = \"stablehlo.concatenate\"(%a, %b) {dimension = 0 : i64} : (tensor<2xf32>, tensor<?xf32>) -> "
      "tensor<?xf32>\n  func.return %r : tensor<?xf32>\n}\n",
      "func.func @main(%a: tensor<2x3xi8>) -> tensor<2x3xi1> {\n"
      "  %r = stablehlo.compare LT, %a, %a, SIGNED : (tensor<2x3xi8>, tensor<2x3xi8>) -> tensor<2x3xi1>\n"
      "  func.return %r : tensor<2x3xi1>\n}\n",
      "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %r = func.call @f(%a) : (tensor<2xf32>) -> tensor<2xf32>\n  func.return %r : tensor<2xf32>\n}\n"
      "func.func private @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n  func.return %x : tensor<2xf32>\n}\n",
      "func.func @main(%a: tensor<4xf32>) -> tensor<2xf32> {\n"
      "  %r = \"stablehlo.slice\"(%a) {start_indices = array<i64: 1>, limit_indices = array<i64: 4>, strides = "
      "array<i64: 2>} : (tensor<4xf32>) -> tensor<2xf32>\n  func.return %r : tensor<2xf32>\n}\n",
      "func.func @main(%a: tensor<2xf32>) -> tensor<2x4xi8> {\n"
      "  %r = \"stablehlo.bitcast_convert\"(%a) : (tensor<2xf32>) -> tensor<2x4xi8>\n"
      "  func.return %r : tensor<2x4xi8>\n}\n",
      "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %r = \"interpreter.probe\"(%a) {probe_id = \"p\"} : (tensor<2xf32>) -> tensor<2xf32>\n"
      "  func.return %r : tensor<2xf32>\n}\n",
  };
  for (const char* p : programs) {
    Status s = ParseAndVerify(p);
    EXPECT_TRUE(s.ok()) << s.message() << "\n" << p;
  }
}

// Every chunk of the conformance suite (collectives' chunks included, which
// the runner defers) parses and verifies.
TEST(Verifier, AcceptsEveryConformanceChunk) {
  namespace fs = std::filesystem;
  fs::path root = fs::path(KILN_SHARED_DIR) / "conformance" / "stablehlo-interpret";
  if (!fs::exists(root)) GTEST_SKIP() << "no conformance suite at " << root;
  int verified = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().extension() != ".mlir") continue;
    std::ifstream in(e.path());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const auto& chunk : ir::SplitChunks(text)) {
      auto m = ir::ParseModule(chunk.text, e.path().string(), chunk.first_line);
      if (!m.ok()) continue;  // the parser's tests own parse failures
      Status s = VerifyModule(*m.value(), [&](ir::Location l, const std::string& msg) {
        return e.path().string() + ":" + std::to_string(l.line) + ":" + std::to_string(l.col) + ": " + msg;
      });
      EXPECT_TRUE(s.ok()) << s.message();
      ++verified;
    }
  }
  EXPECT_GT(verified, 400);
}

}  // namespace
}  // namespace kiln::compiler

// Tests of the MLIR printer (compiler/parse/printer.cc): parse -> print -> parse
// gives the same text and the same IR (the whole conformance suite is
// round-tripped in parser_test.cc).
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

TEST(Printer, RoundTripSmall) {
  auto m = MustParse(R"(
func.func @f(%a: tensor<3xf32>, %b: tensor<2xbf16>) -> tensor<3xf32> {
  %0 = stablehlo.constant dense<[0x7FC00000, -0.0, 1.0e-40]> : tensor<3xf32>
  %1 = stablehlo.constant dense<[-8, 7]> : tensor<2xi4>
  %2 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xui64>
  %3 = stablehlo.constant dense<[(1.5, -2.0)]> : tensor<1xcomplex<f64>>
  %4 = "x.y"(%a) {f = 0.1 : f32, g = 0x7FF0000000000000 : f64, h = -3 : i8, s = "a\"\n", sym = @"odd name", arr = [1 : i64, unit], r = array<i1: true, false>, t = tensor<2xf32>} : (tensor<3xf32>) -> tensor<3xf32>
  %5 = stablehlo.add %0, %4 : tensor<3xf32>
  func.return %5 : tensor<3xf32>
})");
  ASSERT_TRUE(m);
  std::string p1 = PrintModule(*m);
  auto m2 = MustParse(p1);
  ASSERT_TRUE(m2) << p1;
  EXPECT_EQ(PrintModule(*m2), p1);
  IrComparer cmp;
  EXPECT_TRUE(cmp.Modules(*m, *m2)) << cmp.diff << "\n" << p1;
}

}  // namespace
}  // namespace kiln::ir

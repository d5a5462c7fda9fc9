// Tests of dense attributes (compiler/parse/parse_dense.cc): every spelling of
// dense values, small float types, and their errors.
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

template <typename T>
std::vector<T> DenseAs(const Attribute& a) {
  std::vector<T> v(a.dense_bytes.size() / sizeof(T));
  memcpy(v.data(), a.dense_bytes.data(), v.size() * sizeof(T));
  return v;
}

const Attribute& ConstValue(const Module& m, size_t i) { return *FirstOp(m, i).GetAttr("value"); }

TEST(Parser, DenseSpellings) {
  auto m = MustParse(R"(
func.func @f() {
  %0 = stablehlo.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>
  %1 = stablehlo.constant dense<7> : tensor<3xi16>
  %2 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
  %3 = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
  %4 = stablehlo.constant dense<[(1.0, 2.0), (3.0, -4.0)]> : tensor<2xcomplex<f32>>
  %5 = stablehlo.constant dense<[0x7F800000, -1.5, inf, -inf]> : tensor<4xf32>
  %6 = stablehlo.constant dense<[-8, 7]> : tensor<2xi4>
  %7 = stablehlo.constant dense<> : tensor<0x2xi8>
  %8 = stablehlo.constant dense<[255, 0]> : tensor<2xui8>
  %9 = stablehlo.constant dense<"0x0100"> : tensor<2xi1>
  %10 = stablehlo.constant dense<1.0e-5> : tensor<f64>
  %11 = stablehlo.constant dense<[[], []]> : tensor<2x0xf32>
  %12 = stablehlo.constant dense<"0x01"> : tensor<3xi8>
  %13 = stablehlo.constant dense<-9223372036854775808> : tensor<i64>
  func.return
})");
  ASSERT_TRUE(m);
  EXPECT_EQ(DenseAs<int32_t>(ConstValue(*m, 0)), (std::vector<int32_t>{1, -2, 3, 4}));
  EXPECT_EQ(DenseAs<int16_t>(ConstValue(*m, 1)), (std::vector<int16_t>{7, 7, 7}));
  EXPECT_EQ(DenseAs<float>(ConstValue(*m, 2)), (std::vector<float>{1.0f, 2.0f}));
  EXPECT_EQ(ConstValue(*m, 3).dense_bytes, (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(DenseAs<float>(ConstValue(*m, 4)), (std::vector<float>{1, 2, 3, -4}));
  auto f = DenseAs<float>(ConstValue(*m, 5));
  EXPECT_TRUE(std::isinf(f[0]) && f[0] > 0);
  EXPECT_EQ(f[1], -1.5f);
  EXPECT_TRUE(std::isinf(f[2]) && f[2] > 0);
  EXPECT_TRUE(std::isinf(f[3]) && f[3] < 0);
  EXPECT_EQ(ConstValue(*m, 6).dense_bytes, (std::vector<uint8_t>{0xF8, 0x07}));
  EXPECT_TRUE(ConstValue(*m, 7).dense_bytes.empty());
  EXPECT_EQ(ConstValue(*m, 8).dense_bytes, (std::vector<uint8_t>{255, 0}));
  EXPECT_EQ(ConstValue(*m, 9).dense_bytes, (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(DenseAs<double>(ConstValue(*m, 10)), (std::vector<double>{1.0e-5}));
  EXPECT_TRUE(ConstValue(*m, 11).dense_bytes.empty());
  EXPECT_EQ(ConstValue(*m, 12).dense_bytes, (std::vector<uint8_t>{1, 1, 1}));
  EXPECT_EQ(DenseAs<int64_t>(ConstValue(*m, 13)), (std::vector<int64_t>{INT64_MIN}));
  EXPECT_EQ(FirstOp(*m, 0).result()->type.ToString(), "tensor<2x2xi32>");
}

// A large splat keeps its one element (Attribute::dense_splat): a 4 GiB
// `dense<0.5>` parses in no memory to speak of, in both spellings, reads as
// every element, prints back as a splat and reparses to the same attribute;
// small splats are still expanded.
TEST(Parser, LargeSplatsStayCompact) {
  auto m = MustParse(R"(
func.func @f() {
  %0 = stablehlo.constant dense<0.5> : tensor<1073741824xf32>
  %1 = stablehlo.constant dense<"0x0000C03F"> : tensor<2x536870912xf32>
  %2 = stablehlo.constant dense<-3> : tensor<16384xi32>
  %3 = stablehlo.constant dense<-3> : tensor<16383xi32>
  func.return
})");
  ASSERT_TRUE(m);
  const Attribute& a = ConstValue(*m, 0);
  EXPECT_TRUE(a.dense_splat);
  EXPECT_EQ(a.dense_bytes.size(), 4u);
  EXPECT_EQ(a.DenseElementCount(), size_t{1} << 30);
  float f;
  memcpy(&f, a.DenseElement((size_t{1} << 30) - 1), 4);
  EXPECT_EQ(f, 0.5f);
  const Attribute& h = ConstValue(*m, 1);
  EXPECT_TRUE(h.dense_splat);
  memcpy(&f, h.DenseElement(12345), 4);
  EXPECT_EQ(f, 1.5f);
  // 64 KiB of i32 is compact, one element less is expanded.
  const Attribute& at_bound = ConstValue(*m, 2);
  EXPECT_TRUE(at_bound.dense_splat);
  EXPECT_EQ(at_bound.ExpandedDenseBytes().size(), 16384u * 4);
  EXPECT_EQ(at_bound.AsInts()->size(), 16384u);
  EXPECT_EQ(at_bound.AsInts()->back(), -3);
  const Attribute& below = ConstValue(*m, 3);
  EXPECT_FALSE(below.dense_splat);
  EXPECT_EQ(below.dense_bytes.size(), 16383u * 4);
  EXPECT_EQ(DenseAs<int32_t>(below).back(), -3);
  // Printed as a splat; parsed again, the same attributes.
  const std::string printed = PrintModule(*m);
  EXPECT_NE(printed.find("dense<0.5> : tensor<1073741824xf32>"), std::string::npos) << printed;
  auto again = MustParse(printed);
  ASSERT_TRUE(again);
  for (size_t i = 0; i < 4; ++i) EXPECT_TRUE(ConstValue(*again, i) == ConstValue(*m, i)) << i;
}

TEST(Parser, DenseSmallFloats) {
  // Needs the reference scalar codec (kernels/scalar/codec.cc).
  auto m = MustParse(R"(
func.func @f() {
  %0 = stablehlo.constant dense<[1.0, -2.0]> : tensor<2xbf16>
  %1 = stablehlo.constant dense<[1.0, 0.5]> : tensor<2xf16>
  func.return
})");
  ASSERT_TRUE(m);
  EXPECT_EQ(DenseAs<uint16_t>(ConstValue(*m, 0)), (std::vector<uint16_t>{0x3F80, 0xC000}));
  EXPECT_EQ(DenseAs<uint16_t>(ConstValue(*m, 1)), (std::vector<uint16_t>{0x3C00, 0x3800}));
}

TEST(Parser, DenseErrors) {
  EXPECT_NE(ParseError("func.func @f() {\n  %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<2xi32>\n}")
                .find("test.mlir:2:"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f() {\n %0 = stablehlo.constant dense<[1]> : tensor<2xi32>\n}")
                .find("expected 2 elements"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f() {\n %0 = stablehlo.constant dense<300> : tensor<i8>\n}")
                .find("out of range"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f() {\n %0 = stablehlo.constant dense<-1> : tensor<ui8>\n}")
                .find("negative"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f() {\n %0 = stablehlo.constant dense<1.5> : tensor<i32>\n}")
                .find("float value"),
            std::string::npos);
  ParseError("func.func @f() {\n %0 = stablehlo.constant dense<\"0x01\"> : tensor<3xi16>\n}");
  ParseError("func.func @f() {\n %0 = stablehlo.constant dense<1> : tensor<?xi32>\n}");
  ParseError("func.func @f() {\n %0 = stablehlo.constant dense<[[1]]> : tensor<1xi32>\n}");
  ParseError("func.func @f() {\n %0 = stablehlo.constant dense<[1]> : tensor<i32>\n}");
  // A short list under a type of half a billion elements is refused before
  // 4 GB are allocated for it (parser_fuzzer's out-of-memory finding).
  EXPECT_NE(ParseError("func.func @f() {\n %0 = stablehlo.constant dense<[[0, 1]]> : tensor<1x530074259xi64>\n}")
                .find("the list holds fewer elements than tensor<1x530074259xi64> declares"),
            std::string::npos);
  // Element count overflow and too-large constants are errors, not crashes.
  EXPECT_NE(ParseError("func.func @f(%a: tensor<4294967296x4294967296x4294967296xf32>) {\n}")
                .find("too many elements"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f(%a: tensor<99999999999999999999xf32>) {\n}").find("too large"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f() {\n %0 = stablehlo.constant dense<1> : tensor<4294967296x8xf32>\n}")
                .find("too large"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::ir

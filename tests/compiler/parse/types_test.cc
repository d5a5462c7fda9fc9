// Tests of type parsing (compiler/parse/parse_types.cc): every element type,
// tensor, tuple, token and quantized types, and their errors.
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

TEST(Parser, Types) {
  auto m = MustParse(R"(
func.func @f(%a: tensor<2x?x3xf32>, %b: tensor<f32>, %c: tensor<?xf32, #stablehlo.bounds<4>>,
             %d: !stablehlo.token, %e: tuple<tensor<i1>, tuple<>>, %f: tensor<2xcomplex<f64>>,
             %g: tensor<2x!quant.uniform<i8:f32, 0.1:3>>,
             %h: tensor<2x!quant.uniform<i8<-127:127>:f32:1, {0.1:-1, 0.2:2}>>,
             %i: tensor<4xf8E4M3FN>, %j: tensor<0x2xui4>) {
  func.return
})");
  ASSERT_TRUE(m);
  const auto& t = m->functions[0]->arg_types;
  EXPECT_EQ(t[0].dims, (std::vector<int64_t>{2, Type::kDynamic, 3}));
  EXPECT_EQ(t[0].element, ElementType::kF32);
  EXPECT_FALSE(t[0].HasStaticShape());
  EXPECT_EQ(t[1].rank(), 0);
  EXPECT_EQ(t[1].NumElements(), 1);
  EXPECT_EQ(t[2].bounds, (std::vector<int64_t>{4}));
  EXPECT_TRUE(t[3].is_token());
  EXPECT_TRUE(t[4].is_tuple());
  EXPECT_EQ(t[4].tuple_elements.size(), 2u);
  EXPECT_EQ(t[5].element, ElementType::kC128);
  ASSERT_TRUE(t[6].is_quantized());
  EXPECT_EQ(t[6].element, ElementType::kSI8);
  EXPECT_EQ(t[6].quant->expressed, ElementType::kF32);
  EXPECT_EQ(t[6].quant->scales, (std::vector<double>{0.1}));
  EXPECT_EQ(t[6].quant->zero_points, (std::vector<int64_t>{3}));
  ASSERT_TRUE(t[7].is_quantized());
  EXPECT_EQ(t[7].quant->storage_min, -127);
  EXPECT_EQ(t[7].quant->quantized_dimension, 1);
  EXPECT_EQ(t[7].quant->zero_points, (std::vector<int64_t>{-1, 2}));
  EXPECT_EQ(t[8].element, ElementType::kF8E4M3FN);
  EXPECT_EQ(t[9].NumElements(), 0);
  EXPECT_EQ(t[0].ToString(), "tensor<2x?x3xf32>");
  EXPECT_EQ(t[2].ToString(), "tensor<?xf32, #stablehlo.bounds<4>>");
  EXPECT_EQ(t[6].ToString(), "tensor<2x!quant.uniform<i8:f32, 0.1:3>>");
  EXPECT_EQ(t[7].ToString(), "tensor<2x!quant.uniform<i8<-127:127>:f32:1, {0.1:-1, 0.2:2}>>");
  EXPECT_EQ(t[4].ToString(), "tuple<tensor<i1>, tuple<>>");
}

// i64 and ui64 storage take the whole 64-bit range (computing it by shifts
// overflowed for i64 under UBSan: found by parser_fuzzer).
// A builtin type as an attribute value (`attr = f32`, as the VHLO tests
// and discardable attributes write it); tf32 and none kept by name.
TEST(Parser, TypesAsAttributeValues) {
  auto m = MustParse(R"(
func.func @f() attributes {x.a = f32, x.b = tf32, x.c = none, x.d = bf16} {
  func.return
})");
  ASSERT_TRUE(m);
  const auto& attrs = m->functions[0]->attrs;
  ASSERT_EQ(attrs.size(), 4u);
  EXPECT_EQ(attrs[0].second.kind, Attribute::Kind::kType);
  EXPECT_EQ(attrs[0].second.type.element, ElementType::kF32);
  EXPECT_EQ(attrs[1].second.kind, Attribute::Kind::kEnum);
  EXPECT_EQ(attrs[1].second.str, "tf32");
  EXPECT_EQ(attrs[2].second.str, "none");
  EXPECT_EQ(attrs[3].second.type.element, ElementType::kBF16);
}

TEST(Parser, QuantTypesWith64BitStorage) {
  auto m = MustParse(R"(
func.func @f(%a: tensor<2x!quant.uniform<i64:f32, 0.5>>, %b: tensor<2x!quant.uniform<ui64:f32, 0.5>>,
             %c: tensor<2x!quant.uniform<i64<-9223372036854775808:9223372036854775807>:f32, 0.5>>) {
  func.return
})");
  ASSERT_TRUE(m);
  const auto& t = m->functions[0]->arg_types;
  ASSERT_TRUE(t[0].is_quantized() && t[1].is_quantized() && t[2].is_quantized());
  EXPECT_EQ(t[0].quant->storage_min, INT64_MIN);
  EXPECT_EQ(t[0].quant->storage_max, INT64_MAX);
  EXPECT_EQ(t[1].quant->storage_min, 0);
  EXPECT_EQ(t[1].quant->storage_max, INT64_MAX);
  EXPECT_EQ(t[2].quant->storage_min, INT64_MIN);
  EXPECT_EQ(t[2].quant->storage_max, INT64_MAX);
}

// The default range of every storage width both readers of quantized
// types (text and bytecode) take from IntegerStorageRange, against 128-bit
// arithmetic; under UBSan a shift that overflows at 64 bits fails too.
TEST(Types, IntegerStorageRangeOfEveryWidth) {
  for (int bits = 1; bits <= 64; ++bits) {
    const __int128 one = 1;
    const __int128 smin = -(one << (bits - 1)), smax = (one << (bits - 1)) - 1;
    const __int128 umax = std::min<__int128>((one << bits) - 1, INT64_MAX);
    const auto [lo, hi] = IntegerStorageRange(bits, true);
    EXPECT_TRUE(lo == smin && hi == smax) << "i" << bits;
    const auto [ulo, uhi] = IntegerStorageRange(bits, false);
    EXPECT_TRUE(ulo == 0 && uhi == umax) << "ui" << bits;
  }
}

}  // namespace
}  // namespace kiln::ir

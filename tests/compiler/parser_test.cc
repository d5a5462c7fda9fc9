// Tests of the MLIR front end: lexer, every syntax form, normalization of
// attributes, error messages with their locations, the whole conformance
// suite, and parse -> print -> parse round trips.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "compiler/ir.h"
#include "compiler/lexer.h"
#include "compiler/parser.h"

namespace kiln::ir {
namespace {

std::unique_ptr<Module> MustParse(std::string_view src) {
  auto m = ParseModule(src, "test.mlir");
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (!m.ok()) return nullptr;
  return std::move(m.value());
}

std::string ParseError(std::string_view src) {
  auto m = ParseModule(src, "test.mlir");
  EXPECT_FALSE(m.ok()) << "expected an error for:\n" << src;
  return m.ok() ? "" : m.status().message();
}

// The first op of the first function.
const Operation& FirstOp(const Module& m, size_t index = 0) {
  return *m.functions.at(0)->body.blocks.at(0)->ops.at(index);
}

std::vector<int64_t> Ints(const Operation& op, std::string_view name) {
  const Attribute* a = op.GetAttr(name);
  EXPECT_NE(a, nullptr) << name;
  if (!a) return {};
  auto v = a->AsInts();
  EXPECT_TRUE(v.has_value()) << name;
  return v ? *v : std::vector<int64_t>{};
}

// ---------------------------------------------------------------- lexer ----

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

// ---------------------------------------------------------------- types ----

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

// ---------------------------------------------------------------- dense ----

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

// ------------------------------------------------------------ op forms ----

TEST(Parser, GenericForm) {
  auto m = MustParse(R"(
func.func @f(%a: tensor<4xf32>) -> tensor<f32> {
  %init = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %r:2 = "stablehlo.foo"(%a, %init) <{p = 1 : i32}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }, {
    "stablehlo.return"(%a) : (tensor<4xf32>) -> ()
  }) {dimensions = array<i64: 0>, flag, s = "hi", e = #stablehlo<comparison_direction LT>}
      : (tensor<4xf32>, tensor<f32>) -> (tensor<f32>, tensor<4xf32>) loc(#loc1)
  "func.return"(%r#0) : (tensor<f32>) -> ()
}
)");
  ASSERT_TRUE(m);
  const Operation& op = FirstOp(*m, 1);
  EXPECT_EQ(op.name, "stablehlo.foo");
  EXPECT_EQ(op.results.size(), 2u);
  EXPECT_EQ(op.regions.size(), 2u);
  EXPECT_EQ(op.regions[0]->blocks[0]->args.size(), 2u);
  EXPECT_EQ(op.regions[1]->blocks[0]->ops[0]->operands[0], m->functions[0]->body.blocks[0]->args[0].get());
  EXPECT_EQ(op.GetAttr("p")->i, 1);
  EXPECT_EQ(op.GetAttr("p")->type.element, ElementType::kSI32);
  EXPECT_EQ(Ints(op, "dimensions"), (std::vector<int64_t>{0}));
  EXPECT_EQ(op.GetAttr("flag")->kind, Attribute::Kind::kUnit);
  EXPECT_EQ(op.GetAttr("s")->str, "hi");
  EXPECT_EQ(op.GetAttr("e")->kind, Attribute::Kind::kEnum);
  EXPECT_EQ(op.GetAttr("e")->str, "LT");
  const Operation& ret = FirstOp(*m, 2);
  EXPECT_EQ(ret.operands[0], op.result(0));
}

TEST(Parser, ElementwiseAndFunctionalTypes) {
  auto m = MustParse(R"(
func.func @f(%a: tensor<4xi32>, %b: tensor<2xcomplex<f64>>, %p: tensor<i1>) {
  %0 = stablehlo.add %a, %a : tensor<4xi32>
  %1 = stablehlo.convert %a : (tensor<4xi32>) -> tensor<4xf32>
  %2 = stablehlo.real %b : (tensor<2xcomplex<f64>>) -> tensor<2xf64>
  %3 = stablehlo.imag %b : tensor<2xcomplex<f64>>
  %4 = stablehlo.complex %2, %3 : tensor<2xcomplex<f64>>
  %5 = stablehlo.select %p, %a, %a : tensor<i1>, tensor<4xi32>
  %6, %7 = stablehlo.optimization_barrier %a, %p : tensor<4xi32>, tensor<i1>
  return
})");
  ASSERT_TRUE(m);
  EXPECT_EQ(FirstOp(*m, 0).result()->type.ToString(), "tensor<4xi32>");
  EXPECT_EQ(FirstOp(*m, 1).result()->type.ToString(), "tensor<4xf32>");
  EXPECT_EQ(FirstOp(*m, 3).result()->type.ToString(), "tensor<2xf64>");
  EXPECT_EQ(FirstOp(*m, 4).result()->type.ToString(), "tensor<2xcomplex<f64>>");
  EXPECT_EQ(FirstOp(*m, 5).result()->type.ToString(), "tensor<4xi32>");
  EXPECT_EQ(FirstOp(*m, 6).results.size(), 2u);
  EXPECT_EQ(FirstOp(*m, 7).name, "func.return");
}

TEST(Parser, CompareIotaAndFriends) {
  auto m = MustParse(R"(
func.func @f(%a: tensor<2x3xf32>, %t: tuple<tensor<i64>>, %s: tensor<2xi64>) {
  %0 = stablehlo.compare LT, %a, %a, FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %1 = stablehlo.compare  EQ, %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %2 = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %3 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %4 = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = stablehlo.slice %a [0:2, 1:3:1] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %6 = stablehlo.get_tuple_element %t[0] : (tuple<tensor<i64>>) -> tensor<i64>
  %7 = stablehlo.fft %a, type = RFFT, length = [3] : (tensor<2x3xf32>) -> tensor<2x2xcomplex<f32>>
  %8 = stablehlo.reduce_precision %a, format = e5m10 : tensor<2x3xf32>
  %9 = stablehlo.pad %a, %6, low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<2x3xf32>, tensor<i64>) -> tensor<3x4xf32>
  %10 = stablehlo.concatenate %a, %a, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %11 = stablehlo.reverse %a, dims = [1] : tensor<2x3xf32>
  %12 = stablehlo.dynamic_slice %a, %6, %6, sizes = [1, 2] : (tensor<2x3xf32>, tensor<i64>, tensor<i64>) -> tensor<1x2xf32>
  %13 = stablehlo.get_dimension_size %a, dim = 0 : (tensor<2x3xf32>) -> tensor<i32>
  %14 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<2xi64>) -> tensor<2x3xi64>
  %15 = stablehlo.tuple %6 : tuple<tensor<i64>>
  %16 = stablehlo.after_all : !stablehlo.token
  %17 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<6xf32>
  %18 = stablehlo.clamp %a, %a, %a : tensor<2x3xf32>
  func.return
})");
  ASSERT_TRUE(m);
  EXPECT_EQ(FirstOp(*m, 0).GetAttr("comparison_direction")->str, "LT");
  EXPECT_EQ(FirstOp(*m, 0).GetAttr("compare_type")->str, "FLOAT");
  EXPECT_EQ(FirstOp(*m, 1).GetAttr("compare_type"), nullptr);
  EXPECT_EQ(FirstOp(*m, 2).GetAttr("iota_dimension")->i, 1);
  EXPECT_EQ(Ints(FirstOp(*m, 3), "permutation"), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(Ints(FirstOp(*m, 4), "broadcast_dimensions"), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(Ints(FirstOp(*m, 5), "start_indices"), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(Ints(FirstOp(*m, 5), "limit_indices"), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Ints(FirstOp(*m, 5), "strides"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(FirstOp(*m, 6).GetAttr("index")->i, 0);
  EXPECT_EQ(FirstOp(*m, 7).GetAttr("fft_type")->str, "RFFT");
  EXPECT_EQ(Ints(FirstOp(*m, 7), "fft_length"), (std::vector<int64_t>{3}));
  EXPECT_EQ(FirstOp(*m, 8).GetAttr("exponent_bits")->i, 5);
  EXPECT_EQ(FirstOp(*m, 8).GetAttr("mantissa_bits")->i, 10);
  EXPECT_EQ(Ints(FirstOp(*m, 9), "edge_padding_low"), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(Ints(FirstOp(*m, 9), "edge_padding_high"), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(Ints(FirstOp(*m, 9), "interior_padding"), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(FirstOp(*m, 10).GetAttr("dimension")->i, 0);
  EXPECT_EQ(Ints(FirstOp(*m, 11), "dimensions"), (std::vector<int64_t>{1}));
  EXPECT_EQ(Ints(FirstOp(*m, 12), "slice_sizes"), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(FirstOp(*m, 13).GetAttr("dimension")->i, 0);
  EXPECT_EQ(FirstOp(*m, 14).GetAttr("iota_dimension")->i, 0);
  EXPECT_TRUE(FirstOp(*m, 16).result()->type.is_token());
}

TEST(Parser, PrettyAndGenericGiveTheSameIR) {
  auto pretty = MustParse(R"(
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  %0 = stablehlo.compare LT, %a, %a, FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %1 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %2 = stablehlo.iota dim = 0 : tensor<4xi64>
  func.return
})");
  auto generic = MustParse(R"(
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  %0 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %1 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %2 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<4xi64>
  "func.return"() : () -> ()
})");
  ASSERT_TRUE(pretty && generic);
  EXPECT_EQ(PrintModule(*pretty), PrintModule(*generic));
  const Operation& dot = FirstOp(*pretty, 1);
  EXPECT_EQ(Ints(dot, "lhs_contracting_dimensions"), (std::vector<int64_t>{1}));
  EXPECT_EQ(Ints(dot, "rhs_batching_dimensions"), (std::vector<int64_t>{}));
  EXPECT_EQ(dot.GetAttr("precision_config")->elements.at(1).str, "HIGHEST");
}

TEST(Parser, Convolution) {
  const char* pretty = R"(
func.func @f(%lhs: tensor<1x4x4x1xi64>, %rhs: tensor<3x3x1x1xi64>) {
  %0 = stablehlo.convolution(%lhs, %rhs)
    dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
    window = {stride = [4, 4], pad = [[0, 0], [1, 2]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, true]}
    {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
    : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>
  func.return
})";
  auto m = MustParse(pretty);
  ASSERT_TRUE(m);
  const Operation& op = FirstOp(*m);
  EXPECT_EQ(Ints(op, "window_strides"), (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(Ints(op, "padding"), (std::vector<int64_t>{0, 0, 1, 2}));
  EXPECT_EQ(op.GetAttr("padding")->type.ToString(), "tensor<2x2xi64>");
  EXPECT_EQ(Ints(op, "lhs_dilation"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Ints(op, "window_reversal"), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(op.GetAttr("input_batch_dimension")->i, 0);
  EXPECT_EQ(op.GetAttr("input_feature_dimension")->i, 3);
  EXPECT_EQ(Ints(op, "input_spatial_dimensions"), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(op.GetAttr("kernel_input_feature_dimension")->i, 2);
  EXPECT_EQ(op.GetAttr("kernel_output_feature_dimension")->i, 3);
  EXPECT_EQ(Ints(op, "kernel_spatial_dimensions"), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(op.GetAttr("feature_group_count")->i, 1);
  // The generic compact and raw forms give the same struct.
  auto compact = MustParse(R"(
func.func @f(%lhs: tensor<1x4x4x1xi64>, %rhs: tensor<3x3x1x1xi64>) {
  %0 = "stablehlo.convolution"(%lhs, %rhs) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>} : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>
  func.return
})");
  auto raw = MustParse(R"(
func.func @f(%lhs: tensor<1x4x4x1xi64>, %rhs: tensor<3x3x1x1xi64>) {
  %0 = "stablehlo.convolution"(%lhs, %rhs) {dimension_numbers = #stablehlo.conv<raw
    input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2],
    kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3,
    kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0,
    output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>} : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>
  func.return
})");
  ASSERT_TRUE(compact && raw);
  EXPECT_TRUE(*FirstOp(*compact).GetAttr("dimension_numbers") == *op.GetAttr("dimension_numbers"));
  EXPECT_TRUE(*FirstOp(*raw).GetAttr("dimension_numbers") == *op.GetAttr("dimension_numbers"));
}

TEST(Parser, ReduceForms) {
  auto applies = MustParse(R"(
func.func @f(%x: tensor<2x3xf32>, %c: tensor<f32>) {
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  func.return
})");
  auto reducer = MustParse(R"(
func.func @f(%x: tensor<2x3xf32>, %c: tensor<f32>) {
  %0 = stablehlo.reduce(%x init: %c) across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }
  func.return
})");
  auto generic = MustParse(R"(
func.func @f(%x: tensor<2x3xf32>, %c: tensor<f32>) {
  %0 = "stablehlo.reduce"(%x, %c) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%1) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  func.return
})");
  ASSERT_TRUE(applies && reducer && generic);
  EXPECT_EQ(PrintModule(*applies), PrintModule(*generic));
  EXPECT_EQ(PrintModule(*reducer), PrintModule(*generic));
}

TEST(Parser, ControlFlowForms) {
  auto m = MustParse(R"(
func.func @f(%p: tensor<i1>, %i: tensor<i32>, %x: tensor<i64>) {
  %r0, %r1 = stablehlo.while(%a = %x, %b = %x) : tensor<i64>, tensor<i64>
  cond {
    %c = stablehlo.compare LT, %a, %b : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    stablehlo.return %a, %b : tensor<i64>, tensor<i64>
  }
  %y = stablehlo.if %p -> (tensor<i64>) {
    stablehlo.return %x : tensor<i64>
  } else {
    stablehlo.return %r0 : tensor<i64>
  }
  %z = stablehlo.case %i {
    stablehlo.return %x : tensor<i64>
  }, {
    stablehlo.return %y : tensor<i64>
  }
  %w = func.call @g(%z) : (tensor<i64>) -> tensor<i64>
  %v = stablehlo.custom_call @foo(%w, %x) {backend_config = ""} : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %u = stablehlo.composite "my.op" %v {decomposition = @g} : (tensor<i64>) -> tensor<i64>
  func.return
}
func.func private @g(%a: tensor<i64>) -> tensor<i64> {
  return %a : tensor<i64>
})");
  ASSERT_TRUE(m);
  const Operation& w = FirstOp(*m, 0);
  EXPECT_EQ(w.regions.size(), 2u);
  EXPECT_EQ(w.regions[0]->blocks[0]->args.size(), 2u);
  EXPECT_EQ(w.regions[1]->blocks[0]->args.size(), 2u);
  EXPECT_EQ(FirstOp(*m, 1).regions.size(), 2u);
  EXPECT_EQ(FirstOp(*m, 2).regions.size(), 2u);
  EXPECT_EQ(FirstOp(*m, 2).result()->type.ToString(), "tensor<i64>");
  EXPECT_EQ(FirstOp(*m, 3).GetAttr("callee")->str, "g");
  EXPECT_EQ(FirstOp(*m, 4).GetAttr("call_target_name")->str, "foo");
  EXPECT_EQ(FirstOp(*m, 5).GetAttr("name")->str, "my.op");
  EXPECT_FALSE(m->functions[1]->is_public);
  EXPECT_EQ(m->FindFunction("g"), m->functions[1].get());
}

TEST(Parser, CheckAndInterpreterOps) {
  auto m = MustParse(R"(
func.func @f(%a: tensor<2xf32>) {
  check.expect_eq_const %a, dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq_const %a, dense<1.0> : tensor<2xf32> {tolerance = 0.1 : f64}
  check.expect_almost_eq_const %a, dense<1.0> : tensor<2xf32>, tolerance = 0.25
  check.expect_almost_eq %a, %a, tolerance = 0.5 : tensor<2xf32>
  check.expect_close %a, %a, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<2xf32>, tensor<2xf32>
  %p = interpreter.probe %a, probe_id = "id" : tensor<2xf32>
  check.expect_serialized_eq %p, probe_id = "id", iter = 2 : tensor<2xf32>
  interpreter.print %p : tensor<2xf32>
  func.return
})");
  ASSERT_TRUE(m);
  EXPECT_EQ(FirstOp(*m, 0).GetAttr("value")->kind, Attribute::Kind::kDense);
  EXPECT_DOUBLE_EQ(FirstOp(*m, 1).GetAttr("tolerance")->f, 0.1);
  EXPECT_DOUBLE_EQ(FirstOp(*m, 2).GetAttr("tolerance")->f, 0.25);
  EXPECT_DOUBLE_EQ(FirstOp(*m, 3).GetAttr("tolerance")->f, 0.5);
  EXPECT_EQ(FirstOp(*m, 4).GetAttr("max_ulp_difference")->i, 3);
  EXPECT_EQ(FirstOp(*m, 4).GetAttr("min_ulp_difference")->i, 1);
  EXPECT_EQ(FirstOp(*m, 5).GetAttr("probe_id")->str, "id");
  EXPECT_EQ(FirstOp(*m, 6).GetAttr("iter")->i, 2);
  EXPECT_EQ(FirstOp(*m, 7).name, "interpreter.print");
}

TEST(Parser, ModuleAliasesAndLocations) {
  auto m = MustParse(R"(
#loc1 = loc("x.py":1:2)
#pair = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>
!tok = !stablehlo.token
module @m attributes {mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<f32> {jax.arg = "a"} loc(#loc1), %t: !tok) -> (tensor<f32> {jax.result_info = "r"}) attributes {foo} {
    %0 = "stablehlo.gather"(%arg0, %arg0) {dimension_numbers = #pair, slice_sizes = array<i64: 1>} : (tensor<f32>, tensor<f32>) -> tensor<f32> loc(fused["a", #loc1])
    func.return %0 : tensor<f32> loc(unknown)
  } loc(#loc1)
} loc(#loc1)
)");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "m");
  EXPECT_EQ(m->attrs.at(0).first, "mhlo.num_replicas");
  const Function& f = *m->functions[0];
  EXPECT_TRUE(f.arg_types[1].is_token());
  const Operation& g = FirstOp(*m);
  EXPECT_EQ(Ints(g, "offset_dims"), (std::vector<int64_t>{1}));
  EXPECT_EQ(Ints(g, "operand_batching_dims"), (std::vector<int64_t>{}));
  EXPECT_EQ(g.GetAttr("index_vector_dim")->i, 1);
  std::string printed = PrintModule(*m);
  EXPECT_NE(printed.find("{jax.arg = \"a\"}"), std::string::npos) << printed;
  auto again = MustParse(printed);
  ASSERT_TRUE(again);
  EXPECT_EQ(PrintModule(*again), printed);
}

// --------------------------------------------------------------- errors ----

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

// ---------------------------------------------------- structural equality ----

class IrComparer {
 public:
  std::string diff;
  bool Modules(const Module& a, const Module& b) {
    if (a.name != b.name) return Fail("module name");
    if (a.attrs != b.attrs) return Fail("module attrs");
    if (a.functions.size() != b.functions.size()) return Fail("function count");
    for (size_t i = 0; i < a.functions.size(); ++i) {
      const Function& f = *a.functions[i];
      const Function& g = *b.functions[i];
      if (f.name != g.name || f.is_public != g.is_public || f.arg_types != g.arg_types ||
          f.result_types != g.result_types || f.attrs != g.attrs)
        return Fail("function " + f.name);
      ids_a_.clear();
      ids_b_.clear();
      if (!Regions(f.body, g.body)) return false;
    }
    return true;
  }

 private:
  std::unordered_map<const Value*, int> ids_a_, ids_b_;
  bool Fail(std::string what) {
    diff = what;
    return false;
  }
  void Number(const Value* a, const Value* b) {
    int id = static_cast<int>(ids_a_.size());
    ids_a_[a] = id;
    ids_b_[b] = id;
  }
  bool Regions(const Region& a, const Region& b) {
    if (a.blocks.size() != b.blocks.size()) return Fail("block count");
    for (size_t i = 0; i < a.blocks.size(); ++i) {
      const Block& x = *a.blocks[i];
      const Block& y = *b.blocks[i];
      if (x.args.size() != y.args.size()) return Fail("block args");
      for (size_t k = 0; k < x.args.size(); ++k) {
        if (x.args[k]->type != y.args[k]->type) return Fail("block arg type");
        Number(x.args[k].get(), y.args[k].get());
      }
      if (x.ops.size() != y.ops.size()) return Fail("op count");
      for (size_t k = 0; k < x.ops.size(); ++k)
        if (!Ops(*x.ops[k], *y.ops[k])) return false;
    }
    return true;
  }
  bool Ops(const Operation& a, const Operation& b) {
    if (a.name != b.name) return Fail("op name " + a.name + " vs " + b.name);
    if (!(a.attrs == b.attrs)) return Fail("attrs of " + a.name);
    if (a.operands.size() != b.operands.size()) return Fail("operand count of " + a.name);
    for (size_t i = 0; i < a.operands.size(); ++i) {
      auto x = ids_a_.find(a.operands[i]);
      auto y = ids_b_.find(b.operands[i]);
      if (x == ids_a_.end() || y == ids_b_.end() || x->second != y->second)
        return Fail("operand of " + a.name);
    }
    if (a.regions.size() != b.regions.size()) return Fail("region count of " + a.name);
    for (size_t i = 0; i < a.regions.size(); ++i)
      if (!Regions(*a.regions[i], *b.regions[i])) return false;
    if (a.results.size() != b.results.size()) return Fail("result count of " + a.name);
    for (size_t i = 0; i < a.results.size(); ++i) {
      if (a.results[i]->type != b.results[i]->type) return Fail("result type of " + a.name);
      Number(a.results[i].get(), b.results[i].get());
    }
    return true;
  }
};

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

// ---------------------------------------------------------- conformance ----

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

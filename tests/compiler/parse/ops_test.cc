// Tests of the op forms (compiler/parse/parse_ops_pretty.cc, parse_attributes.cc):
// the generic form, the pretty forms of elementwise ops, compare, iota,
// convolution, reduce and control flow, check and interpreter ops, module
// aliases and locations; pretty and generic forms give the same IR.
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

// `pad = []` (no spatial dimension) is an empty 0x2 padding: parsed
// without copying from an empty list (UBSan: memcpy from null), found by
// the parser fuzzer.
TEST(Parser, ConvolutionWithEmptyPadding) {
  auto m = MustParse(R"(
func.func @f(%lhs: tensor<2x3xf32>, %rhs: tensor<3x4xf32>) {
  %0 = stablehlo.convolution(%lhs, %rhs)
    dim_numbers = [b, f]x[i, o]->[b, f],
    window = {stride = [], pad = []}
    {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
    : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return
})");
  ASSERT_TRUE(m);
  const Operation& op = FirstOp(*m);
  EXPECT_EQ(op.GetAttr("padding")->type.ToString(), "tensor<0x2xi64>");
  EXPECT_TRUE(Ints(op, "padding").empty());
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

}  // namespace
}  // namespace kiln::ir

// The Vulkan target's constant convolution kernels laid out with their
// output features last (compiler/passes/conv_kernel_layout.h): the values
// moved, the kernel dims renumbered, and what is left as it was.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "compiler/parse/parser.h"
#include "compiler/passes/conv_kernel_layout.h"

namespace kiln::compiler {
namespace {

std::vector<float> Floats(const ir::Attribute& a) {
  std::vector<uint8_t> bytes = a.ExpandedDenseBytes();
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

int64_t Int(const ir::Operation& op, const char* name) { return op.GetAttr(name)->i; }

TEST(MoveConstantConvKernelFeaturesLast, MovesAnOihwConstantToIhwo) {
  // O = 2, I = 2, H = 1, W = 2: element [o][i][0][w] = 1000 o + 100 i + w.
  auto m = ir::ParseModule(R"(
func.func @main(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x2xf32> {
  %w = stablehlo.constant dense<[[[[0.0, 1.0]], [[100.0, 101.0]]], [[[1000.0, 1001.0]], [[1100.0, 1101.0]]]]> : tensor<2x2x1x2xf32>
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x2x1x2xf32>) -> tensor<1x2x3x2xf32>
  return %0 : tensor<1x2x3x2xf32>
}
)", "t.mlir");
  ASSERT_TRUE(m.ok()) << m.status().message();
  MoveConstantConvKernelFeaturesLast(m->get());
  const auto& ops = (*m)->functions[0]->body.blocks[0]->ops;
  ASSERT_EQ(ops.size(), 3u);  // the old constant, unread, is gone
  const ir::Operation& w = *ops[0];
  const ir::Operation& conv = *ops[1];
  ASSERT_EQ(w.name, "stablehlo.constant");
  EXPECT_EQ(conv.operands[1], w.result());
  EXPECT_EQ(w.result()->type.dims, (std::vector<int64_t>{2, 1, 2, 2}));  // I, H, W, O
  EXPECT_EQ(w.GetAttr("value")->type.dims, (std::vector<int64_t>{2, 1, 2, 2}));
  // [i][0][w][o] = 1000 o + 100 i + w.
  EXPECT_EQ(Floats(*w.GetAttr("value")),
            (std::vector<float>{0, 1000, 1, 1001, 100, 1100, 101, 1101}));
  EXPECT_EQ(Int(conv, "kernel_input_feature_dimension"), 0);
  EXPECT_EQ(Int(conv, "kernel_output_feature_dimension"), 3);
  EXPECT_EQ(conv.GetAttr("kernel_spatial_dimensions")->ints, (std::vector<int64_t>{1, 2}));
  // The input and output dims are untouched.
  EXPECT_EQ(Int(conv, "input_feature_dimension"), 1);
  EXPECT_EQ(Int(conv, "output_feature_dimension"), 1);
}

TEST(MoveConstantConvKernelFeaturesLast, ConvolutionsOfOneKernelShareOneCopy) {
  auto m = ir::ParseModule(R"(
func.func @main(%x: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %c = stablehlo.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %0 = stablehlo.convolution(%x, %c) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %1 = stablehlo.convolution(%0, %c) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %0, %1 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}
)", "t.mlir");
  ASSERT_TRUE(m.ok()) << m.status().message();
  MoveConstantConvKernelFeaturesLast(m->get());
  const auto& ops = (*m)->functions[0]->body.blocks[0]->ops;
  ASSERT_EQ(ops.size(), 4u);  // the copy, %0, %1, return
  EXPECT_EQ(ops[1]->operands[1], ops[0]->result());
  EXPECT_EQ(ops[2]->operands[1], ops[0]->result());
  EXPECT_EQ(Int(*ops[2], "kernel_output_feature_dimension"), 3);
}

TEST(MoveConstantConvKernelFeaturesLast, LeavesOtherKernelsAsTheyAre) {
  // An argument kernel, a constant kernel already [.., o], and a constant
  // that another op also reads (it stays for that reader; the convolution
  // gets its own moved copy).
  auto m = ir::ParseModule(R"(
func.func @main(%x: tensor<1x2x3x3xf32>, %k: tensor<2x2x1x1xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x3x3x2xf32>, tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) {
  %c = stablehlo.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %d = stablehlo.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %1 = stablehlo.convolution(%x, %d) dim_numbers = [b, f, 0, 1]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<1x3x3x2xf32>
  %2 = stablehlo.convolution(%x, %c) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %0, %1, %2, %c : tensor<1x2x3x3xf32>, tensor<1x3x3x2xf32>, tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>
}
)", "t.mlir");
  ASSERT_TRUE(m.ok()) << m.status().message();
  const ir::Value* c = (*m)->functions[0]->body.blocks[0]->ops[0]->result();
  const ir::Value* d = (*m)->functions[0]->body.blocks[0]->ops[1]->result();
  MoveConstantConvKernelFeaturesLast(m->get());
  const auto& ops = (*m)->functions[0]->body.blocks[0]->ops;
  ASSERT_EQ(ops.size(), 7u);  // %c, %d, %0, %1, the moved copy of %c, %2, return
  EXPECT_EQ(ops[0]->result(), c);
  EXPECT_EQ(ops[2]->operands[1]->def, nullptr);  // the argument
  EXPECT_EQ(Int(*ops[2], "kernel_output_feature_dimension"), 0);
  EXPECT_EQ(ops[3]->operands[1], d);
  EXPECT_EQ(Int(*ops[3], "kernel_output_feature_dimension"), 3);
  EXPECT_EQ(ops[4]->name, "stablehlo.constant");
  EXPECT_EQ(ops[5]->operands[1], ops[4]->result());
  EXPECT_EQ(Int(*ops[5], "kernel_output_feature_dimension"), 3);
  EXPECT_EQ(Int(*ops[5], "kernel_input_feature_dimension"), 0);
  EXPECT_EQ(Floats(*ops[4]->GetAttr("value")), (std::vector<float>{1, 3, 2, 4}));
  EXPECT_EQ(ops[6]->operands[3], c);
}

TEST(MoveConstantConvKernelFeaturesLast, MovesKernelsThatAWeightsFunctionReturns) {
  // @weights returns two kernels: %a is read only as convolution kernels
  // (by both entry points), so it moves inside @weights; %b is also
  // returned by @main as it is, so it stays.
  auto m = ir::ParseModule(R"(
func.func private @weights() -> (tensor<2x2x1x1xf32>, tensor<2x2x1x1xf32>) {
  %a = stablehlo.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %b = stablehlo.constant dense<[[[[5.0]], [[6.0]]], [[[7.0]], [[8.0]]]]> : tensor<2x2x1x1xf32>
  func.return %a, %b : tensor<2x2x1x1xf32>, tensor<2x2x1x1xf32>
}
func.func @main(%x: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) {
  %w:2 = func.call @weights() : () -> (tensor<2x2x1x1xf32>, tensor<2x2x1x1xf32>)
  %0 = stablehlo.convolution(%x, %w#0) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %1 = stablehlo.convolution(%x, %w#1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %0, %1, %w#1 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>
}
func.func @main_b2(%x: tensor<2x2x3x3xf32>) -> tensor<2x2x3x3xf32> {
  %w:2 = func.call @weights() : () -> (tensor<2x2x1x1xf32>, tensor<2x2x1x1xf32>)
  %0 = stablehlo.convolution(%x, %w#0) dim_numbers = [b, f, 0, 1]x[i, o, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<2x2x3x3xf32>
  return %0 : tensor<2x2x3x3xf32>
}
)", "t.mlir");
  ASSERT_TRUE(m.ok()) << m.status().message();
  // With @main_b2 reading %a as [i, o, 0, 1], the output-feature dims
  // differ: nothing moves.
  {
    auto same = ir::ParseModule(R"(
func.func private @weights() -> tensor<2x2x1x1xf32> {
  %a = stablehlo.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  func.return %a : tensor<2x2x1x1xf32>
}
func.func @main(%x: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %w = func.call @weights() : () -> tensor<2x2x1x1xf32>
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %1 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[i, o, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %0, %1 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}
)", "t.mlir");
    ASSERT_TRUE(same.ok()) << same.status().message();
    MoveConstantConvKernelFeaturesLast(same->get());
    EXPECT_EQ(Int(*(*same)->functions[1]->body.blocks[0]->ops[1], "kernel_output_feature_dimension"), 0);
    EXPECT_EQ(Int(*(*same)->functions[1]->body.blocks[0]->ops[2], "kernel_output_feature_dimension"), 1);
    EXPECT_EQ((*same)->functions[0]->result_types[0].dims, (std::vector<int64_t>{2, 2, 1, 1}));
  }
  // Make @main_b2 read %a as [o, i, 0, 1] too: then %a moves.
  ir::Operation& conv_b2 = *(*m)->functions[2]->body.blocks[0]->ops[1];
  for (auto& [n, a] : conv_b2.attrs)
    if (a.kind == ir::Attribute::Kind::kStruct)
      for (auto& [fn, f] : a.fields) {
        if (fn == "kernel_input_feature_dimension") f.i = 1;
        if (fn == "kernel_output_feature_dimension") f.i = 0;
      }
  MoveConstantConvKernelFeaturesLast(m->get());
  const ir::Function& weights = *(*m)->functions[0];
  const auto& wops = weights.body.blocks[0]->ops;
  ASSERT_EQ(wops.size(), 3u);  // %b, the moved %a, the return (the old %a is gone)
  const ir::Operation& ret = *wops.back();
  EXPECT_EQ(Floats(*ret.operands[0]->def->GetAttr("value")), (std::vector<float>{1, 3, 2, 4}));
  EXPECT_EQ(Floats(*ret.operands[1]->def->GetAttr("value")), (std::vector<float>{5, 6, 7, 8}));
  EXPECT_EQ(weights.result_types[0].dims, (std::vector<int64_t>{2, 1, 1, 2}));  // I, H, W, O
  EXPECT_EQ(weights.result_types[1].dims, (std::vector<int64_t>{2, 2, 1, 1}));
  for (int f = 1; f <= 2; ++f) {
    const auto& ops = (*m)->functions[f]->body.blocks[0]->ops;
    EXPECT_EQ(ops[0]->result(0)->type.dims, (std::vector<int64_t>{2, 1, 1, 2}));
    EXPECT_EQ(Int(*ops[1], "kernel_output_feature_dimension"), 3);
    EXPECT_EQ(Int(*ops[1], "kernel_input_feature_dimension"), 0);
    EXPECT_EQ(ops[1]->GetAttr("kernel_spatial_dimensions")->ints, (std::vector<int64_t>{1, 2}));
  }
  EXPECT_EQ(Int(*(*m)->functions[1]->body.blocks[0]->ops[2], "kernel_output_feature_dimension"), 0);
}

TEST(MoveConstantConvKernelFeaturesLast, LeavesAWeightsFunctionThatOtherOpsName) {
  // A symbol reference other than a call's callee (as a composite's
  // decomposition would be) keeps the function's result types as they are.
  const char* src = R"(
func.func private @weights() -> tensor<2x2x1x1xf32> {
  %a = stablehlo.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  func.return %a : tensor<2x2x1x1xf32>
}
func.func @main(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = func.call @weights() : () -> tensor<2x2x1x1xf32>
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}
)";
  for (bool named : {false, true}) {
    auto m = ir::ParseModule(src, "t.mlir");
    ASSERT_TRUE(m.ok()) << m.status().message();
    ir::Operation& ret = *(*m)->functions[1]->body.blocks[0]->ops.back();
    if (named) ret.SetAttr("decomposition", ir::SymbolAttr("weights"));
    MoveConstantConvKernelFeaturesLast(m->get());
    EXPECT_EQ((*m)->functions[0]->result_types[0].dims,
              (named ? std::vector<int64_t>{2, 2, 1, 1} : std::vector<int64_t>{2, 1, 1, 2}));
  }
}

}  // namespace
}  // namespace kiln::compiler

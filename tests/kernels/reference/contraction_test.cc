// Tests of the reference contraction kernels (dot_general, dot, convolution,
// dynamic_conv) and chlo.ragged_dot. Expected values come from the spec's
// examples or are worked out by hand in the comments.
#include "tests/kernels/reference/numeric_test_util.h"

namespace kiln::ref::numeric_test {
namespace {

std::vector<KernelAttr> DotDims(std::vector<int64_t> lb, std::vector<int64_t> rb, std::vector<int64_t> lc,
                                std::vector<int64_t> rc) {
  return {Ints("lhs_batching_dimensions", lb), Ints("rhs_batching_dimensions", rb),
          Ints("lhs_contracting_dimensions", lc), Ints("rhs_contracting_dimensions", rc)};
}

TEST(NumericDotGeneral, SpecExampleBatchMatmul) {
  Tensor lhs = T(kI64, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor rhs = T(kI64, {2, 2, 2}, {1, 0, 0, 1, 1, 0, 0, 1});
  Tensor out = Zeros(kI64, {2, 2, 2});
  ASSERT_TRUE(Call("stablehlo.dot_general", DotDims({0}, {0}, {2}, {1}), {&lhs, &rhs}, {&out}).ok());
  EXPECT_EQ(D(out), (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(NumericDotGeneral, F32ContractingBothLastDims) {
  // [[1,2,3],[4,5,6]] x [[1,0,-1],[2,1,0]]^T = [[-2,4],[-2,13]]
  Tensor lhs = T(kF32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor rhs = T(kF32, {2, 3}, {1, 0, -1, 2, 1, 0});
  Tensor out = Zeros(kF32, {2, 2});
  ASSERT_TRUE(Call("stablehlo.dot_general", DotDims({}, {}, {1}, {1}), {&lhs, &rhs}, {&out}).ok());
  EXPECT_EQ(D(out), (std::vector<double>{-2, 4, -2, 13}));
}

TEST(NumericDotGeneral, OddSizesAndOuterProduct) {
  // No contracting dims: outer product [1,2,3] x [4,5] (result 3x2).
  Tensor lhs = T(kF64, {3}, {1, 2, 3});
  Tensor rhs = T(kF64, {2}, {4, 5});
  Tensor out = Zeros(kF64, {3, 2});
  ASSERT_TRUE(Call("stablehlo.dot_general", DotDims({}, {}, {}, {}), {&lhs, &rhs}, {&out}).ok());
  EXPECT_EQ(D(out), (std::vector<double>{4, 5, 8, 10, 12, 15}));
}

TEST(NumericDotGeneral, BatchDimNotLeading) {
  // lhs [k=2, b=2], rhs [b=2, k=2]: result[b] = sum_k lhs[k,b] * rhs[b,k]
  // b0: 1*5 + 3*6 = 23; b1: 2*7 + 4*8 = 46.
  Tensor lhs = T(kI32, {2, 2}, {1, 2, 3, 4});
  Tensor rhs = T(kI32, {2, 2}, {5, 6, 7, 8});
  Tensor out = Zeros(kI32, {2});
  ASSERT_TRUE(Call("stablehlo.dot_general", DotDims({1}, {0}, {0}, {1}), {&lhs, &rhs}, {&out}).ok());
  EXPECT_EQ(D(out), (std::vector<double>{23, 46}));
}

TEST(NumericDotGeneral, PreferredElementTypeWidensFirst) {
  // i8 operands, i32 result: 100*2 + 100*2 = 400 (no i8 wraparound).
  Tensor lhs = T(kI8, {2}, {100, 100});
  Tensor rhs = T(kI8, {2}, {2, 2});
  Tensor out = Zeros(kI32, {});
  ASSERT_TRUE(Call("stablehlo.dot_general", DotDims({}, {}, {0}, {0}), {&lhs, &rhs}, {&out}).ok());
  EXPECT_EQ(D(out), (std::vector<double>{400}));
  // i8 result wraps: 100 + 100 = 200 -> -56.
  Tensor one = T(kI8, {2}, {1, 1});
  Tensor out8 = Zeros(kI8, {});
  ASSERT_TRUE(Call("stablehlo.dot_general", DotDims({}, {}, {0}, {0}), {&lhs, &one}, {&out8}).ok());
  EXPECT_EQ(D(out8), (std::vector<double>{-56}));
}

TEST(NumericDotGeneral, Complex) {
  // (1+2i)(2-i) + (3-i)(1+i) = (4+3i) + (4+2i) = 8+5i
  Tensor lhs = TC(kC64, {2}, {{1, 2}, {3, -1}});
  Tensor rhs = TC(kC64, {2}, {{2, -1}, {1, 1}});
  Tensor out = Zeros(kC64, {});
  ASSERT_TRUE(Call("stablehlo.dot_general", DotDims({}, {}, {0}, {0}), {&lhs, &rhs}, {&out}).ok());
  ExpectNearC(C(out), {{8, 5}});
}

TEST(NumericDotGeneral, ZeroSized) {
  // Empty contraction gives zeros.
  Tensor lhs = Zeros(kF32, {2, 0});
  Tensor rhs = Zeros(kF32, {0, 3});
  Tensor out = T(kF32, {2, 3}, {9, 9, 9, 9, 9, 9});
  ASSERT_TRUE(Call("stablehlo.dot_general", DotDims({}, {}, {1}, {0}), {&lhs, &rhs}, {&out}).ok());
  EXPECT_EQ(D(out), (std::vector<double>(6, 0)));
  // Empty result.
  Tensor l2 = Zeros(kF32, {0, 3});
  Tensor r2 = T(kF32, {3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor o2 = Zeros(kF32, {0, 2});
  EXPECT_TRUE(Call("stablehlo.dot_general", DotDims({}, {}, {1}, {0}), {&l2, &r2}, {&o2}).ok());
}

TEST(NumericDotGeneral, BadArguments) {
  Tensor lhs = T(kF32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor rhs = T(kF32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor out = Zeros(kF32, {2, 2});
  // Contracting sizes differ (3 vs 2).
  EXPECT_FALSE(Call("stablehlo.dot_general", DotDims({}, {}, {1}, {0}), {&lhs, &rhs}, {&out}).ok());
  // Axis out of range / repeated.
  EXPECT_FALSE(Call("stablehlo.dot_general", DotDims({}, {}, {2}, {1}), {&lhs, &rhs}, {&out}).ok());
  EXPECT_FALSE(Call("stablehlo.dot_general", DotDims({1}, {1}, {1}, {1}), {&lhs, &rhs}, {&out}).ok());
  // Wrong result shape.
  Tensor bad = Zeros(kF32, {2, 3});
  EXPECT_FALSE(Call("stablehlo.dot_general", DotDims({}, {}, {1}, {1}), {&lhs, &rhs}, {&bad}).ok());
  // Buffer too small.
  Tensor small = Zeros(kF32, {2, 2});
  small.bytes.resize(8);
  EXPECT_FALSE(Call("stablehlo.dot_general", DotDims({}, {}, {1}, {1}), {&lhs, &rhs}, {&small}).ok());
  // Wrong input count.
  EXPECT_FALSE(Call("stablehlo.dot_general", DotDims({}, {}, {1}, {1}), {&lhs}, {&out}).ok());
}

TEST(NumericDot, VectorAndMatrix) {
  Tensor a = T(kF16, {3}, {1, 2, 3});
  Tensor b = T(kF16, {3}, {4, 5, 6});
  Tensor s = Zeros(kF16, {});
  ASSERT_TRUE(Call("stablehlo.dot", {}, {&a, &b}, {&s}).ok());
  EXPECT_EQ(D(s), (std::vector<double>{32}));
  Tensor m = T(kI32, {2, 2}, {1, 2, 3, 4});
  Tensor v = T(kI32, {2}, {1, 1});
  Tensor mv = Zeros(kI32, {2});
  ASSERT_TRUE(Call("stablehlo.dot", {}, {&m, &v}, {&mv}).ok());
  EXPECT_EQ(D(mv), (std::vector<double>{3, 7}));
  Tensor mm = Zeros(kI32, {2, 2});
  ASSERT_TRUE(Call("stablehlo.dot", {}, {&m, &m}, {&mm}).ok());
  EXPECT_EQ(D(mm), (std::vector<double>{7, 10, 15, 22}));
  Tensor r3 = Zeros(kI32, {1, 1, 1});
  EXPECT_FALSE(Call("stablehlo.dot", {}, {&r3, &m}, {&mv}).ok());
}

// 1-D convolution attrs, layout [b, f, 0] x [o, i, 0] -> [b, f, 0].
std::vector<KernelAttr> Conv1D(std::vector<KernelAttr> extra) {
  std::vector<KernelAttr> a = {Int("input_batch_dimension", 0),         Int("input_feature_dimension", 1),
                               Ints("input_spatial_dimensions", {2}),   Int("kernel_input_feature_dimension", 1),
                               Int("kernel_output_feature_dimension", 0), Ints("kernel_spatial_dimensions", {2}),
                               Int("output_batch_dimension", 0),        Int("output_feature_dimension", 1),
                               Ints("output_spatial_dimensions", {2})};
  for (auto& e : extra) a.push_back(std::move(e));
  return a;
}

TEST(NumericConvolution, SpecExample) {
  Tensor lhs = T(kI64, {1, 4, 4, 1}, {1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17});
  Tensor rhs = T(kI64, {3, 3, 1, 1}, std::vector<double>(9, 1));
  Tensor out = Zeros(kI64, {1, 2, 2, 1});
  std::vector<KernelAttr> attrs = {
      Ints("window_strides", {4, 4}), Ints("padding", {0, 0, 0, 0}), Ints("lhs_dilation", {2, 2}),
      Ints("rhs_dilation", {1, 1}), Ints("window_reversal", {0, 0}), Int("input_batch_dimension", 0),
      Int("input_feature_dimension", 3), Ints("input_spatial_dimensions", {1, 2}),
      Int("kernel_input_feature_dimension", 2), Int("kernel_output_feature_dimension", 3),
      Ints("kernel_spatial_dimensions", {0, 1}), Int("output_batch_dimension", 0), Int("output_feature_dimension", 3),
      Ints("output_spatial_dimensions", {1, 2}), Int("feature_group_count", 1), Int("batch_group_count", 1)};
  ASSERT_TRUE(Call("stablehlo.convolution", attrs, {&lhs, &rhs}, {&out}).ok());
  EXPECT_EQ(D(out), (std::vector<double>{10, 26, 46, 62}));
}

TEST(NumericConvolution, PaddingDilationReversalStride) {
  Tensor lhs = T(kF32, {1, 1, 4}, {1, 2, 3, 4});
  Tensor rhs = T(kF32, {1, 1, 2}, {1, 10});
  // padding [1,0]: padded [0,1,2,3,4] -> [10, 21, 32, 43]
  Tensor o1 = Zeros(kF32, {1, 1, 4});
  ASSERT_TRUE(Call("stablehlo.convolution", Conv1D({Ints("padding", {1, 0})}), {&lhs, &rhs}, {&o1}).ok());
  EXPECT_EQ(D(o1), (std::vector<double>{10, 21, 32, 43}));
  // + window_reversal: rhs taps pair with the window reversed -> [1, 12, 23, 34]
  Tensor o2 = Zeros(kF32, {1, 1, 4});
  ASSERT_TRUE(Call("stablehlo.convolution", Conv1D({Ints("padding", {1, 0}), Ints("window_reversal", {1})}),
                   {&lhs, &rhs}, {&o2})
                  .ok());
  EXPECT_EQ(D(o2), (std::vector<double>{1, 12, 23, 34}));
  // rhs_dilation 2: taps x[i], x[i+2] -> [31, 42]
  Tensor o3 = Zeros(kF32, {1, 1, 2});
  ASSERT_TRUE(Call("stablehlo.convolution", Conv1D({Ints("rhs_dilation", {2})}), {&lhs, &rhs}, {&o3}).ok());
  EXPECT_EQ(D(o3), (std::vector<double>{31, 42}));
  // negative padding [-1,0]: input [2,3,4] -> [32, 43]
  Tensor o4 = Zeros(kF32, {1, 1, 2});
  ASSERT_TRUE(Call("stablehlo.convolution", Conv1D({Ints("padding", {-1, 0})}), {&lhs, &rhs}, {&o4}).ok());
  EXPECT_EQ(D(o4), (std::vector<double>{32, 43}));
  // lhs_dilation 2: [1,0,2,0,3,0,4] -> [1,20,2,30,3,40]; with stride 2 -> [1,2,3]
  Tensor o5 = Zeros(kF32, {1, 1, 6});
  ASSERT_TRUE(Call("stablehlo.convolution", Conv1D({Ints("lhs_dilation", {2})}), {&lhs, &rhs}, {&o5}).ok());
  EXPECT_EQ(D(o5), (std::vector<double>{1, 20, 2, 30, 3, 40}));
  Tensor o6 = Zeros(kF32, {1, 1, 3});
  ASSERT_TRUE(Call("stablehlo.convolution", Conv1D({Ints("lhs_dilation", {2}), Ints("window_strides", {2})}),
                   {&lhs, &rhs}, {&o6})
                  .ok());
  EXPECT_EQ(D(o6), (std::vector<double>{1, 2, 3}));
}

TEST(NumericConvolution, FeatureAndBatchGroups) {
  // Feature groups: out f0 = input f0 * [1,1], out f1 = input f1 * [1,-1].
  Tensor lhs = T(kI32, {1, 2, 3}, {1, 2, 3, 10, 20, 30});
  Tensor rhs = T(kI32, {2, 1, 2}, {1, 1, 1, -1});
  Tensor out = Zeros(kI32, {1, 2, 2});
  ASSERT_TRUE(Call("stablehlo.convolution", Conv1D({Int("feature_group_count", 2)}), {&lhs, &rhs}, {&out}).ok());
  EXPECT_EQ(D(out), (std::vector<double>{3, 5, -10, -10}));
  // Batch groups: out f0 from batch 0 with kernel 0, f1 from batch 1 with kernel 1.
  Tensor lhs_b = T(kI32, {2, 1, 3}, {1, 2, 3, 10, 20, 30});
  Tensor out_b = Zeros(kI32, {1, 2, 2});
  ASSERT_TRUE(Call("stablehlo.convolution", Conv1D({Int("batch_group_count", 2)}), {&lhs_b, &rhs}, {&out_b}).ok());
  EXPECT_EQ(D(out_b), (std::vector<double>{3, 5, -10, -10}));
}

TEST(NumericConvolution, ZeroSizedAndErrors) {
  // Window larger than the input: zero output windows.
  Tensor lhs = T(kF32, {1, 1, 1}, {1});
  Tensor rhs = T(kF32, {1, 1, 2}, {1, 1});
  Tensor empty = Zeros(kF32, {1, 1, 0});
  EXPECT_TRUE(Call("stablehlo.convolution", Conv1D({}), {&lhs, &rhs}, {&empty}).ok());
  Tensor wrong = Zeros(kF32, {1, 1, 1});
  EXPECT_FALSE(Call("stablehlo.convolution", Conv1D({}), {&lhs, &rhs}, {&wrong}).ok());
  // Feature group count that does not divide the features.
  Tensor l2 = T(kF32, {1, 2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor r2 = T(kF32, {2, 1, 2}, {1, 1, 1, 1});
  Tensor o2 = Zeros(kF32, {1, 2, 2});
  EXPECT_FALSE(Call("stablehlo.convolution", Conv1D({Int("feature_group_count", 3)}), {&l2, &r2}, {&o2}).ok());
  // Zero stride.
  EXPECT_FALSE(Call("stablehlo.convolution", Conv1D({Ints("window_strides", {0})}), {&l2, &r2}, {&o2}).ok());
  // Duplicate dimension numbers.
  auto dup = Conv1D({});
  dup[1] = Int("input_feature_dimension", 0);
  EXPECT_FALSE(Call("stablehlo.convolution", dup, {&l2, &r2}, {&o2}).ok());
}

TEST(NumericDynamicConv, PaddingOperand) {
  Tensor lhs = T(kF32, {1, 1, 4}, {1, 2, 3, 4});
  Tensor rhs = T(kF32, {1, 1, 2}, {1, 10});
  Tensor pad = T(kI32, {1, 2}, {1, 0});
  Tensor out = Zeros(kF32, {1, 1, 4});
  ASSERT_TRUE(Call("stablehlo.dynamic_conv", Conv1D({}), {&lhs, &rhs, &pad}, {&out}).ok());
  EXPECT_EQ(D(out), (std::vector<double>{10, 21, 32, 43}));
  Tensor bad_pad = T(kI32, {2}, {1, 0});
  EXPECT_FALSE(Call("stablehlo.dynamic_conv", Conv1D({}), {&lhs, &rhs, &bad_pad}, {&out}).ok());
}

std::vector<KernelAttr> RaggedDims(std::vector<int64_t> lb, std::vector<int64_t> rb, std::vector<int64_t> lc,
                                   std::vector<int64_t> rc, std::vector<int64_t> lr, std::vector<int64_t> rg) {
  auto a = DotDims(lb, rb, lc, rc);
  a.push_back(Ints("lhs_ragged_dimensions", lr));
  a.push_back(Ints("rhs_group_dimensions", rg));
  return a;
}

TEST(NumericRaggedDot, RaggedNonContracting) {
  // lhs 3x2 rows [1,2],[3,4],[5,6]; groups [2,1]; rhs[0] = I, rhs[1] = 2I.
  Tensor lhs = T(kF32, {3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor rhs = T(kF32, {2, 2, 2}, {1, 0, 0, 1, 2, 0, 0, 2});
  Tensor gs = T(kI64, {2}, {2, 1});
  Tensor out = Zeros(kF32, {3, 2});
  ASSERT_TRUE(Call("chlo.ragged_dot", RaggedDims({}, {}, {1}, {1}, {0}, {0}), {&lhs, &rhs, &gs}, {&out}).ok());
  EXPECT_EQ(D(out), (std::vector<double>{1, 2, 3, 4, 10, 12}));
  // Rows past sum(group_sizes) are zero.
  Tensor gs2 = T(kI32, {2}, {1, 1});
  ASSERT_TRUE(Call("chlo.ragged_dot", RaggedDims({}, {}, {1}, {1}, {0}, {0}), {&lhs, &rhs, &gs2}, {&out}).ok());
  EXPECT_EQ(D(out), (std::vector<double>{1, 2, 6, 8, 0, 0}));
  // Group sizes that exceed the ragged dimension.
  Tensor gs3 = T(kI32, {2}, {3, 1});
  EXPECT_FALSE(Call("chlo.ragged_dot", RaggedDims({}, {}, {1}, {1}, {0}, {0}), {&lhs, &rhs, &gs3}, {&out}).ok());
}

TEST(NumericRaggedDot, RaggedContracting) {
  // lhs 1x3 [1,2,3], rhs 3x1 [1,1,1]; groups [1,2] over k -> result [2,1,1] = [1, 5].
  Tensor lhs = T(kF32, {1, 3}, {1, 2, 3});
  Tensor rhs = T(kF32, {3, 1}, {1, 1, 1});
  Tensor gs = T(kI32, {2}, {1, 2});
  Tensor out = Zeros(kF32, {2, 1, 1});
  ASSERT_TRUE(Call("chlo.ragged_dot", RaggedDims({}, {}, {1}, {0}, {1}, {}), {&lhs, &rhs, &gs}, {&out}).ok());
  EXPECT_EQ(D(out), (std::vector<double>{1, 5}));
}

}  // namespace
}  // namespace kiln::ref::numeric_test

// Tests of the reference reduction kernels: reduce, reduce_window,
// select_and_scatter, map. Expected values come from the spec's examples, the
// conformance tests, or are worked out by hand in the comments.
#include "tests/kernels/reference/numeric_test_util.h"

namespace kiln::ref::numeric_test {
namespace {

KernelAttr AddBody(ElementType t, size_t n = 1) { return Prog("body", Binary(ScalarOp::kAdd, t, n)); }

TEST(NumericReduce, SpecExample) {
  Tensor in = T(kI64, {1, 6}, {0, 1, 2, 3, 4, 5});
  Tensor init = T(kI64, {}, {0});
  Tensor out = Zeros(kI64, {1});
  ASSERT_TRUE(Call("stablehlo.reduce", {Ints("dimensions", {1}), AddBody(kI64)}, {&in, &init}, {&out}).ok());
  EXPECT_EQ(D(out), (std::vector<double>{15}));
}

TEST(NumericReduce, OddShapesAllDimsAndInit) {
  // 3x5 f32 values 1..15; reduce dim 0 with init 100 -> column sums + 100.
  std::vector<double> v;
  for (int i = 1; i <= 15; ++i) v.push_back(i);
  Tensor in = T(kF32, {3, 5}, v);
  Tensor init = T(kF32, {}, {100});
  Tensor cols = Zeros(kF32, {5});
  ASSERT_TRUE(Call("stablehlo.reduce", {Ints("dimensions", {0}), AddBody(kF32)}, {&in, &init}, {&cols}).ok());
  EXPECT_EQ(D(cols), (std::vector<double>{118, 121, 124, 127, 130}));
  Tensor all = Zeros(kF32, {});
  ASSERT_TRUE(Call("stablehlo.reduce", {Ints("dimensions", {1, 0}), AddBody(kF32)}, {&in, &init}, {&all}).ok());
  EXPECT_EQ(D(all), (std::vector<double>{220}));
  // No reduced dims: body(init, x) per element.
  Tensor same = Zeros(kF32, {3, 5});
  ASSERT_TRUE(Call("stablehlo.reduce", {Ints("dimensions", {}), AddBody(kF32)}, {&in, &init}, {&same}).ok());
  EXPECT_EQ(D(same)[0], 101);
}

TEST(NumericReduce, RowMajorOrderWithNonCommutativeBody) {
  // body(acc, x) = acc - x folds left to right: 0 - 1 - 2 - 3 = -6 per row,
  // and subtract is sensitive to which param is the accumulator.
  Tensor in = T(kI32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor init = T(kI32, {}, {0});
  Tensor out = Zeros(kI32, {2});
  ASSERT_TRUE(Call("stablehlo.reduce",
                   {Ints("dimensions", {1}), Prog("body", Binary(ScalarOp::kSubtract, kI32))}, {&in, &init}, {&out})
                  .ok());
  EXPECT_EQ(D(out), (std::vector<double>{-6, -15}));
}

TEST(NumericReduce, Variadic) {
  // (max over f32, sum over i32) in one reduce.
  ScalarProgram p;
  p.param_types = {kF32, kI32, kF32, kI32};
  ScalarInstr mx;
  mx.op = ScalarOp::kMaximum;
  mx.type = kF32;
  mx.num_operands = 2;
  mx.operands[0] = 0;
  mx.operands[1] = 2;
  ScalarInstr add;
  add.op = ScalarOp::kAdd;
  add.type = kI32;
  add.num_operands = 2;
  add.operands[0] = 1;
  add.operands[1] = 3;
  p.instrs = {mx, add};
  p.results = {4, 5};
  Tensor a = T(kF32, {3}, {1, 5, 3});
  Tensor b = T(kI32, {3}, {10, 20, 30});
  Tensor ia = T(kF32, {}, {-1e30});
  Tensor ib = T(kI32, {}, {0});
  Tensor oa = Zeros(kF32, {}), ob = Zeros(kI32, {});
  ASSERT_TRUE(Call("stablehlo.reduce", {Ints("dimensions", {0}), Prog("body", p)}, {&a, &b, &ia, &ib}, {&oa, &ob}).ok());
  EXPECT_EQ(D(oa), (std::vector<double>{5}));
  EXPECT_EQ(D(ob), (std::vector<double>{60}));
}

TEST(NumericReduce, ZeroSizedAndErrors) {
  Tensor in = Zeros(kF32, {0, 3});
  Tensor init = T(kF32, {}, {7});
  Tensor out = Zeros(kF32, {3});
  ASSERT_TRUE(Call("stablehlo.reduce", {Ints("dimensions", {0}), AddBody(kF32)}, {&in, &init}, {&out}).ok());
  EXPECT_EQ(D(out), (std::vector<double>{7, 7, 7}));
  Tensor bad = Zeros(kF32, {2});
  EXPECT_FALSE(Call("stablehlo.reduce", {Ints("dimensions", {0}), AddBody(kF32)}, {&in, &init}, {&bad}).ok());
  EXPECT_FALSE(Call("stablehlo.reduce", {Ints("dimensions", {2}), AddBody(kF32)}, {&in, &init}, {&out}).ok());
  EXPECT_FALSE(Call("stablehlo.reduce", {Ints("dimensions", {0})}, {&in, &init}, {&out}).ok());  // no body
  EXPECT_FALSE(Call("stablehlo.reduce", {Ints("dimensions", {0}), AddBody(kF32, 2)}, {&in, &init}, {&out}).ok());
  Tensor init_r1 = T(kF32, {1}, {0});
  EXPECT_FALSE(Call("stablehlo.reduce", {Ints("dimensions", {0}), AddBody(kF32)}, {&in, &init_r1}, {&out}).ok());
}

TEST(NumericReduceWindow, SpecExampleAndIssue1662) {
  Tensor in = T(kI64, {3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor init = T(kI64, {}, {0});
  Tensor out = Zeros(kI64, {2, 2});
  std::vector<KernelAttr> attrs = {Ints("window_dimensions", {2, 1}), Ints("window_strides", {4, 1}),
                                   Ints("base_dilations", {2, 1}),    Ints("window_dilations", {3, 1}),
                                   Ints("padding", {2, 1, 0, 0}),     AddBody(kI64)};
  ASSERT_TRUE(Call("stablehlo.reduce_window", attrs, {&in, &init}, {&out}).ok());
  EXPECT_EQ(D(out), (std::vector<double>{0, 0, 3, 4}));
  attrs[0] = Ints("window_dimensions", {3, 1});
  Tensor out2 = Zeros(kI64, {1, 2});
  ASSERT_TRUE(Call("stablehlo.reduce_window", attrs, {&in, &init}, {&out2}).ok());
  EXPECT_EQ(D(out2), (std::vector<double>{5, 6}));
}

TEST(NumericReduceWindow, PaddingHoldsInitAndDefaults) {
  // Sum with init 1, padding [1,1]: padded [1*,1,2,3,1*] (pads are init);
  // each window also starts from init: [3, 4, 6, 5].
  Tensor in = T(kF32, {3}, {1, 2, 3});
  Tensor init = T(kF32, {}, {1});
  Tensor out = Zeros(kF32, {4});
  ASSERT_TRUE(Call("stablehlo.reduce_window", {Ints("window_dimensions", {2}), Ints("padding", {1, 1}), AddBody(kF32)},
                   {&in, &init}, {&out})
                  .ok());
  EXPECT_EQ(D(out), (std::vector<double>{3, 4, 6, 5}));
  // Max pooling 2x2 stride 2 on a 3x3 (odd) input, default padding.
  Tensor img = T(kI32, {3, 3}, {1, 9, 2, 4, 3, 8, 7, 6, 5});
  Tensor lo = T(kI32, {}, {-1000});
  Tensor pooled = Zeros(kI32, {1, 1});
  ASSERT_TRUE(Call("stablehlo.reduce_window",
                   {Ints("window_dimensions", {2, 2}), Ints("window_strides", {2, 2}),
                    Prog("body", Binary(ScalarOp::kMaximum, kI32))},
                   {&img, &lo}, {&pooled})
                  .ok());
  EXPECT_EQ(D(pooled), (std::vector<double>{9}));
}

TEST(NumericReduceWindow, ZeroSizedAndErrors) {
  Tensor in = T(kF32, {2}, {1, 2});
  Tensor init = T(kF32, {}, {0});
  Tensor empty = Zeros(kF32, {0});
  EXPECT_TRUE(Call("stablehlo.reduce_window", {Ints("window_dimensions", {3}), AddBody(kF32)}, {&in, &init}, {&empty}).ok());
  Tensor out = Zeros(kF32, {2});
  EXPECT_FALSE(Call("stablehlo.reduce_window", {Ints("window_dimensions", {1, 1}), AddBody(kF32)}, {&in, &init}, {&out}).ok());
  EXPECT_FALSE(Call("stablehlo.reduce_window", {Ints("window_dimensions", {0}), AddBody(kF32)}, {&in, &init}, {&out}).ok());
  EXPECT_FALSE(Call("stablehlo.reduce_window", {Ints("window_dimensions", {2}), AddBody(kF32)}, {&in, &init}, {&out}).ok());
}

TEST(NumericSelectAndScatter, ConformanceExample) {
  Tensor operand = T(kI64, {4, 2}, {1, 5, 2, 5, 3, 6, 4, 4});
  Tensor source = T(kI64, {2, 2}, {5, 6, 7, 8});
  Tensor init = T(kI64, {}, {0});
  Tensor out = Zeros(kI64, {4, 2});
  std::vector<KernelAttr> attrs = {Ints("window_dimensions", {3, 1}), Ints("window_strides", {2, 1}),
                                   Ints("padding", {0, 1, 0, 0}),
                                   Prog("select", Compare(ComparisonDirection::kGE, kI64)),
                                   Prog("scatter", Binary(ScalarOp::kAdd, kI64))};
  ASSERT_TRUE(Call("stablehlo.select_and_scatter", attrs, {&operand, &source, &init}, {&out}).ok());
  EXPECT_EQ(D(out), (std::vector<double>{0, 0, 0, 0, 5, 14, 7, 0}));
  // Source shape must match the windows.
  Tensor bad_source = T(kI64, {1, 2}, {5, 6});
  EXPECT_FALSE(Call("stablehlo.select_and_scatter", attrs, {&operand, &bad_source, &init}, {&out}).ok());
  attrs.pop_back();
  EXPECT_FALSE(Call("stablehlo.select_and_scatter", attrs, {&operand, &source, &init}, {&out}).ok());
}

TEST(NumericSelectAndScatter, OverlappingWindowsFloat) {
  // Windows of 2, stride 1 on [1,3,2]: maxima at index 1 both times, so
  // result[1] = init + 10 + 20.
  Tensor operand = T(kF32, {3}, {1, 3, 2});
  Tensor source = T(kF32, {2}, {10, 20});
  Tensor init = T(kF32, {}, {0.5});
  Tensor out = Zeros(kF32, {3});
  ASSERT_TRUE(Call("stablehlo.select_and_scatter",
                   {Ints("window_dimensions", {2}), Prog("select", Compare(ComparisonDirection::kGE, kF32)),
                    Prog("scatter", Binary(ScalarOp::kAdd, kF32))},
                   {&operand, &source, &init}, {&out})
                  .ok());
  EXPECT_EQ(D(out), (std::vector<double>{0.5, 30.5, 0.5}));
}

TEST(NumericMap, SpecExampleAndErrors) {
  Tensor a = T(kI32, {2, 2}, {0, 1, 2, 3});
  Tensor b = T(kI32, {2, 2}, {0, 1, 2, 3});
  Tensor out = Zeros(kI32, {2, 2});
  ScalarProgram mul = Binary(ScalarOp::kMultiply, kI32);
  ASSERT_TRUE(Call("stablehlo.map", {Ints("dimensions", {0, 1}), Prog("computation", mul)}, {&a, &b}, {&out}).ok());
  EXPECT_EQ(D(out), (std::vector<double>{0, 1, 4, 9}));
  Tensor e1 = Zeros(kI32, {0, 2}), e2 = Zeros(kI32, {0, 2}), eo = Zeros(kI32, {0, 2});
  EXPECT_TRUE(Call("stablehlo.map", {Ints("dimensions", {0, 1}), Prog("computation", mul)}, {&e1, &e2}, {&eo}).ok());
  EXPECT_FALSE(Call("stablehlo.map", {Ints("dimensions", {1, 0}), Prog("computation", mul)}, {&a, &b}, {&out}).ok());
  EXPECT_FALSE(Call("stablehlo.map", {Ints("dimensions", {0, 1}), Prog("computation", mul)}, {&a}, {&out}).ok());
  Tensor c = T(kI32, {4}, {0, 1, 2, 3});
  EXPECT_FALSE(Call("stablehlo.map", {Prog("computation", mul)}, {&a, &c}, {&out}).ok());
}

}  // namespace
}  // namespace kiln::ref::numeric_test

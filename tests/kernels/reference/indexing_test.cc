// Tests of the reference indexing kernels (dynamic_slice,
// dynamic_update_slice, gather, dynamic_gather, scatter) and of sort and
// chlo.top_k. Expected values come from the StableHLO spec's examples or are
// worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/reference/registry.h"
#include "kernels/scalar/scalar.h"
#include "tests/kernels/tensor_test_util.h"

namespace kiln::ref {
namespace {

using namespace ::kiln::test;  // Tensor, Make, Zeros, Get, Ints, Prog, Call

// (a, b) -> a <op> b, all of type t.
ScalarProgram Binary(ScalarOp op, ElementType t) {
  ScalarProgram p;
  p.param_types = {t, t};
  ScalarInstr i;
  i.op = op;
  i.type = t;
  i.num_operands = 2;
  i.operands[0] = 0;
  i.operands[1] = 1;
  p.instrs.push_back(i);
  p.results = {2};
  return p;
}

// (a, b) -> b: scatter's "replace" computation.
ScalarProgram TakeUpdate(ElementType t) {
  ScalarProgram p;
  p.param_types = {t, t};
  p.results = {1};
  return p;
}

// Comparator over params (lhs0, rhs0, ...): compares param pair `which`.
ScalarProgram Compare(std::vector<ElementType> types, size_t which, ComparisonDirection dir,
                      ComparisonType ct) {
  ScalarProgram p;
  for (ElementType t : types) p.param_types.insert(p.param_types.end(), {t, t});
  ScalarInstr i;
  i.op = ScalarOp::kCompare;
  i.type = ElementType::kI1;
  i.num_operands = 2;
  i.operands[0] = static_cast<uint16_t>(2 * which);
  i.operands[1] = static_cast<uint16_t>(2 * which + 1);
  i.attr0 = static_cast<int64_t>(dir);
  i.attr1 = static_cast<int64_t>(ct);
  p.instrs.push_back(i);
  p.results = {static_cast<uint16_t>(p.param_types.size())};
  return p;
}

using V = std::vector<int32_t>;
using V64 = std::vector<int64_t>;
constexpr ElementType kI32 = ElementType::kSI32;
constexpr ElementType kI64 = ElementType::kSI64;

// --- dynamic_slice / dynamic_update_slice --------------------------------------

TEST(IndexingKernels, DynamicSliceSpecExampleClamps) {
  Tensor in = Make(kI32, {4, 4}, V{0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0});
  Tensor s0 = Make(kI64, {}, V64{-1});
  Tensor s1 = Make(kI64, {}, V64{3});
  Tensor out = Zeros(kI32, {2, 2});
  ASSERT_TRUE(Call("stablehlo.dynamic_slice", {Ints("slice_sizes", {2, 2})}, {&in, &s0, &s1}, {&out}).ok());
  EXPECT_EQ(Get<int32_t>(out), (V{1, 1, 1, 1}));
}

TEST(IndexingKernels, DynamicSliceIndexTypes) {
  Tensor in = Make(ElementType::kF32, {5}, std::vector<float>{0, 1, 2, 3, 4});
  Tensor s = Make(ElementType::kUI8, {}, std::vector<uint8_t>{1});
  Tensor out = Zeros(ElementType::kF32, {3});
  ASSERT_TRUE(Call("stablehlo.dynamic_slice", {Ints("slice_sizes", {3})}, {&in, &s}, {&out}).ok());
  EXPECT_EQ(Get<float>(out), (std::vector<float>{1, 2, 3}));
  // ui64 beyond INT64_MAX clamps to the last valid start.
  Tensor big = Make(ElementType::kUI64, {}, std::vector<uint64_t>{~0ull});
  ASSERT_TRUE(Call("stablehlo.dynamic_slice", {Ints("slice_sizes", {3})}, {&in, &big}, {&out}).ok());
  EXPECT_EQ(Get<float>(out), (std::vector<float>{2, 3, 4}));
  Tensor empty = Zeros(ElementType::kF32, {0});
  EXPECT_TRUE(Call("stablehlo.dynamic_slice", {Ints("slice_sizes", {0})}, {&in, &s}, {&empty}).ok());
  // Errors: slice larger than the operand, missing start index, float index.
  Tensor big_out = Zeros(ElementType::kF32, {6});
  EXPECT_FALSE(Call("stablehlo.dynamic_slice", {Ints("slice_sizes", {6})}, {&in, &s}, {&big_out}).ok());
  EXPECT_FALSE(Call("stablehlo.dynamic_slice", {Ints("slice_sizes", {3})}, {&in}, {&out}).ok());
  Tensor fidx = Make(ElementType::kF32, {}, std::vector<float>{1});
  EXPECT_FALSE(Call("stablehlo.dynamic_slice", {Ints("slice_sizes", {3})}, {&in, &fidx}, {&out}).ok());
}

TEST(IndexingKernels, DynamicUpdateSliceSpecExample) {
  Tensor in = Make(kI32, {4, 4}, V{1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1});
  Tensor upd = Make(kI32, {2, 2}, V{1, 1, 1, 1});
  Tensor s0 = Make(kI64, {}, V64{-1});
  Tensor s1 = Make(kI64, {}, V64{3});
  Tensor out = Zeros(kI32, {4, 4});
  ASSERT_TRUE(Call("stablehlo.dynamic_update_slice", {}, {&in, &upd, &s0, &s1}, {&out}).ok());
  EXPECT_EQ(Get<int32_t>(out), V(16, 1));
}

TEST(IndexingKernels, DynamicUpdateSliceMiddleAndErrors) {
  Tensor in = Make(kI32, {2, 3}, V{1, 2, 3, 4, 5, 6});
  Tensor upd = Make(kI32, {1, 2}, V{9, 8});
  Tensor s0 = Make(kI32, {}, V{1});
  Tensor s1 = Make(kI32, {}, V{1});
  Tensor out = Zeros(kI32, {2, 3});
  ASSERT_TRUE(Call("stablehlo.dynamic_update_slice", {}, {&in, &upd, &s0, &s1}, {&out}).ok());
  EXPECT_EQ(Get<int32_t>(out), (V{1, 2, 3, 4, 9, 8}));
  Tensor too_big = Zeros(kI32, {3, 1});
  EXPECT_FALSE(Call("stablehlo.dynamic_update_slice", {}, {&in, &too_big, &s0, &s1}, {&out}).ok());
  EXPECT_FALSE(Call("stablehlo.dynamic_update_slice", {}, {&in, &upd, &s0}, {&out}).ok());
}

// --- gather -------------------------------------------------------------------

std::vector<KernelAttr> SpecGatherAttrs() {
  return {Ints("offset_dims", {3, 4}),          Ints("collapsed_slice_dims", {1}),
          Ints("operand_batching_dims", {0}),   Ints("start_indices_batching_dims", {1}),
          Ints("start_index_map", {2, 1}),      Ints("index_vector_dim", {3}),
          Ints("slice_sizes", {1, 1, 2, 2}),    Ints("indices_are_sorted", {0})};
}

V64 Iota64(int64_t from, int64_t n) {
  V64 v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = from + i;
  return v;
}

TEST(IndexingKernels, GatherSpecExampleWithBatching) {
  Tensor operand = Make(kI32, {2, 3, 4, 2}, [] {
    V v(48);
    for (int i = 0; i < 48; ++i) v[i] = i + 1;
    return v;
  }());
  Tensor idx = Make(kI64, {2, 2, 3, 2},
                    V64{0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 0, 9, 0, 0, 2, 1, 2, 2, 1, 2, 0, 1, 1, 0});
  Tensor out = Zeros(kI32, {2, 2, 3, 2, 2});
  Status s = Call("stablehlo.gather", SpecGatherAttrs(), {&operand, &idx}, {&out});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Get<int32_t>(out), (V{1,  2,  3,  4,  3,  4,  5,  6,  13, 14, 15, 16,  //
                                  33, 34, 35, 36, 35, 36, 37, 38, 41, 42, 43, 44,  //
                                  1,  2,  3,  4,  13, 14, 15, 16, 21, 22, 23, 24,  //
                                  43, 44, 45, 46, 33, 34, 35, 36, 27, 28, 29, 30}));
}

TEST(IndexingKernels, DynamicGatherSpecExample) {
  Tensor operand = Make(kI64, {3, 4, 2}, Iota64(1, 24));
  Tensor idx = Make(kI64, {2, 3, 2}, V64{0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 0, 2});
  Tensor sizes = Make(kI32, {3}, V{1, 2, 2});
  Tensor out = Zeros(kI64, {2, 3, 2, 2});
  Status s = Call("stablehlo.dynamic_gather",
                  {Ints("offset_dims", {2, 3}), Ints("collapsed_slice_dims", {0}), Ints("start_index_map", {1, 0}),
                   Ints("index_vector_dim", {2}), Ints("indices_are_sorted", {0})},
                  {&operand, &idx, &sizes}, {&out});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Get<int64_t>(out), (V64{1, 2, 3, 4, 3, 4, 5, 6, 13, 14, 15, 16,  //
                                    9, 10, 11, 12, 11, 12, 13, 14, 17, 18, 19, 20}));
}

TEST(IndexingKernels, GatherRowsImplicitIndexVectorDim) {
  // Take rows [2, 0, 5(clamped to 2)] of a 3x2 matrix; index_vector_dim = rank.
  Tensor operand = Make(ElementType::kF32, {3, 2}, std::vector<float>{1, 2, 3, 4, 5, 6});
  Tensor idx = Make(ElementType::kUI8, {3}, std::vector<uint8_t>{2, 0, 5});
  Tensor out = Zeros(ElementType::kF32, {3, 2});
  std::vector<KernelAttr> attrs = {Ints("offset_dims", {1}), Ints("collapsed_slice_dims", {0}),
                                   Ints("start_index_map", {0}), Ints("index_vector_dim", {1}),
                                   Ints("slice_sizes", {1, 2})};
  Status s = Call("stablehlo.gather", attrs, {&operand, &idx}, {&out});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Get<float>(out), (std::vector<float>{5, 6, 1, 2, 5, 6}));
  // Zero indices -> empty result.
  Tensor no_idx = Zeros(ElementType::kUI8, {0});
  Tensor empty = Zeros(ElementType::kF32, {0, 2});
  EXPECT_TRUE(Call("stablehlo.gather", attrs, {&operand, &no_idx}, {&empty}).ok());
  // Errors: wrong result dims, slice bigger than operand, bad start_index_map.
  Tensor wrong = Zeros(ElementType::kF32, {3, 3});
  EXPECT_FALSE(Call("stablehlo.gather", attrs, {&operand, &idx}, {&wrong}).ok());
  attrs[4] = Ints("slice_sizes", {1, 3});
  EXPECT_FALSE(Call("stablehlo.gather", attrs, {&operand, &idx}, {&out}).ok());
  attrs[4] = Ints("slice_sizes", {1, 2});
  attrs[2] = Ints("start_index_map", {2});
  EXPECT_FALSE(Call("stablehlo.gather", attrs, {&operand, &idx}, {&out}).ok());
}

// --- scatter ------------------------------------------------------------------

TEST(IndexingKernels, ScatterSpecExampleWithBatching) {
  Tensor input = Make(kI64, {2, 3, 4, 2}, Iota64(1, 48));
  Tensor idx = Make(kI64, {2, 2, 3, 2},
                    V64{0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 0, 9, 0, 0, 2, 1, 2, 2, 1, 2, 0, 1, 1, 0});
  Tensor upd = Make(kI64, {2, 2, 3, 2, 2}, V64(48, 1));
  Tensor out = Zeros(kI64, {2, 3, 4, 2});
  Status s = Call("stablehlo.scatter",
                  {Ints("update_window_dims", {3, 4}), Ints("inserted_window_dims", {1}),
                   Ints("input_batching_dims", {0}), Ints("scatter_indices_batching_dims", {1}),
                   Ints("scatter_dims_to_operand_dims", {2, 1}), Ints("index_vector_dim", {3}),
                   Ints("indices_are_sorted", {0}), Ints("unique_indices", {0}),
                   Prog("update_computation", Binary(ScalarOp::kAdd, kI64))},
                  {&input, &idx, &upd}, {&out});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Get<int64_t>(out), (V64{3,  4,  6,  7,  6,  7,  7,  8,  9,  10, 11, 12, 15, 16, 17, 18,
                                    17, 18, 19, 20, 22, 23, 24, 25, 25, 26, 28, 29, 30, 31, 31, 32,
                                    35, 36, 38, 39, 38, 39, 39, 40, 41, 42, 44, 45, 46, 47, 47, 48}));
}

TEST(IndexingKernels, ScatterPartialWindowOutOfBoundsAndVariadic) {
  // 1-D input of 5; windows of 2 at starts [3, 4, -1]: per the spec each
  // update element is applied where its own result index is in bounds.
  Tensor in0 = Make(kI32, {5}, V{0, 0, 0, 0, 0});
  Tensor in1 = Make(ElementType::kF32, {5}, std::vector<float>{1, 1, 1, 1, 1});
  Tensor idx = Make(kI32, {3, 1}, V{3, 4, -1});
  Tensor u0 = Make(kI32, {3, 2}, V{1, 2, 3, 4, 5, 6});
  Tensor u1 = Make(ElementType::kF32, {3, 2}, std::vector<float>{7, 8, 9, 10, 11, 12});
  Tensor o0 = Zeros(kI32, {5});
  Tensor o1 = Zeros(ElementType::kF32, {5});
  // update_computation(a0, a1, b0, b1) = (a0 + b0, b1)
  ScalarProgram p;
  p.param_types = {kI32, ElementType::kF32, kI32, ElementType::kF32};
  ScalarInstr add;
  add.op = ScalarOp::kAdd;
  add.type = kI32;
  add.num_operands = 2;
  add.operands[0] = 0;
  add.operands[1] = 2;
  p.instrs.push_back(add);
  p.results = {4, 3};
  Status s = Call("stablehlo.scatter",
                  {Ints("update_window_dims", {1}), Ints("inserted_window_dims", {}),
                   Ints("scatter_dims_to_operand_dims", {0}), Ints("index_vector_dim", {1}),
                   Prog("update_computation", p)},
                  {&in0, &in1, &idx, &u0, &u1}, {&o0, &o1});
  ASSERT_TRUE(s.ok()) << s.message();
  // start 3: [3]+=1 [4]+=2; start 4: [4]+=3 ([5] skipped); start -1: [0]+=6.
  EXPECT_EQ(Get<int32_t>(o0), (V{6, 0, 0, 1, 5}));
  EXPECT_EQ(Get<float>(o1), (std::vector<float>{12, 1, 1, 7, 9}));
}

TEST(IndexingKernels, ScatterStartsNearTheInt64Limits) {
  // Start indices whose sum with the window offset leaves the int64 range
  // (a hostile module's indices; found by the module loader fuzzer): out of
  // bounds, so skipped, with no signed overflow on the way.
  Tensor in = Make(kI32, {4}, V{1, 2, 3, 4});
  Tensor idx = Make(kI64, {3, 1}, V64{INT64_MAX, INT64_MIN, 1});
  Tensor upd = Make(kI32, {3, 2}, V{5, 6, 7, 8, 9, 10});
  Tensor out = Zeros(kI32, {4});
  Status s = Call("stablehlo.scatter",
                  {Ints("update_window_dims", {1}), Ints("inserted_window_dims", {}),
                   Ints("scatter_dims_to_operand_dims", {0}), Ints("index_vector_dim", {1}),
                   Prog("update_computation", TakeUpdate(kI32))},
                  {&in, &idx, &upd}, {&out});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Get<int32_t>(out), (V{1, 9, 10, 4}));
}

TEST(IndexingKernels, ScatterReplaceAndErrors) {
  Tensor in = Make(kI32, {3, 2}, V{1, 2, 3, 4, 5, 6});
  Tensor idx = Make(kI64, {2}, V64{2, 0});
  Tensor upd = Make(kI32, {2, 2}, V{7, 8, 9, 10});
  Tensor out = Zeros(kI32, {3, 2});
  std::vector<KernelAttr> attrs = {Ints("update_window_dims", {1}), Ints("inserted_window_dims", {0}),
                                   Ints("scatter_dims_to_operand_dims", {0}), Ints("index_vector_dim", {1}),
                                   Prog("update_computation", TakeUpdate(kI32))};
  Status s = Call("stablehlo.scatter", attrs, {&in, &idx, &upd}, {&out});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Get<int32_t>(out), (V{9, 10, 3, 4, 7, 8}));
  // No updates: result = input.
  Tensor no_idx = Zeros(kI64, {0});
  Tensor no_upd = Zeros(kI32, {0, 2});
  ASSERT_TRUE(Call("stablehlo.scatter", attrs, {&in, &no_idx, &no_upd}, {&out}).ok());
  EXPECT_EQ(Get<int32_t>(out), (V{1, 2, 3, 4, 5, 6}));
  // Errors: update window too wide; program of the wrong type; missing program.
  Tensor wide = Zeros(kI32, {2, 3});
  EXPECT_FALSE(Call("stablehlo.scatter", attrs, {&in, &idx, &wide}, {&out}).ok());
  attrs[4] = Prog("update_computation", TakeUpdate(ElementType::kF32));
  EXPECT_FALSE(Call("stablehlo.scatter", attrs, {&in, &idx, &upd}, {&out}).ok());
  attrs.pop_back();
  EXPECT_FALSE(Call("stablehlo.scatter", attrs, {&in, &idx, &upd}, {&out}).ok());
}

TEST(IndexingKernels, ScatterConformanceNoBatching) {
  Tensor input = Make(kI64, {3, 4, 2}, Iota64(1, 24));
  Tensor idx = Make(kI64, {2, 3, 2}, V64{0, 2, 1, 0, 2, 1, 0, 1, 1, 0, 0, 9});
  Tensor upd = Make(kI64, {2, 3, 2, 2}, V64(24, 1));
  Tensor out = Zeros(kI64, {3, 4, 2});
  Status s = Call("stablehlo.scatter",
                  {Ints("update_window_dims", {2, 3}), Ints("inserted_window_dims", {0}),
                   Ints("scatter_dims_to_operand_dims", {1, 0}), Ints("index_vector_dim", {2}),
                   Prog("update_computation", Binary(ScalarOp::kAdd, kI64))},
                  {&input, &idx, &upd}, {&out});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Get<int64_t>(out), (V64{1, 2, 5, 6, 7, 8, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17,
                                    18, 19, 20, 21, 21, 22, 23, 24}));
  EXPECT_EQ(Get<int64_t>(input), Iota64(1, 24));  // inputs untouched
}

// --- sort ---------------------------------------------------------------------

TEST(SortKernels, ConformanceIssue2440) {
  Tensor x = Make(kI64, {5, 7}, V64{0, 1, 1, -3, -3, -2, 0, 4, -1, 3, 0, 4, 0, -3, 1, 0, 0, 0, 0, 2, 3,
                                    -3, -4, -4, -2, 0, 3, 3, 0, 5, 2, -2, 0, -2, 0});
  Tensor r = Zeros(kI64, {5, 7});
  ASSERT_TRUE(Call("stablehlo.sort",
                   {Ints("dimension", {0}), Prog("comparator", Compare({kI64}, 0, ComparisonDirection::kLT,
                                                                         ComparisonType::kSigned))},
                   {&x}, {&r})
                  .ok());
  EXPECT_EQ(Get<int64_t>(r), (V64{-3, -4, -4, -3, -3, -2, -3, 0, -1, 0, -2, 0, -2, 0, 0, 0, 1, -2, 0, 0, 0,
                                  1, 1, 2, 0, 0, 2, 3, 4, 5, 3, 0, 4, 3, 3}));
}

TEST(SortKernels, SpecExampleTwoInputsDim0) {
  Tensor a = Make(kI64, {2, 3}, V64{1, 2, 3, 3, 2, 1});
  Tensor b = Make(kI64, {2, 3}, V64{3, 2, 1, 1, 2, 3});
  Tensor ra = Zeros(kI64, {2, 3});
  Tensor rb = Zeros(kI64, {2, 3});
  Status s = Call("stablehlo.sort",
                  {Ints("dimension", {0}), Ints("is_stable", {1}),
                   Prog("comparator", Compare({kI64, kI64}, 0, ComparisonDirection::kGT, ComparisonType::kSigned))},
                  {&a, &b}, {&ra, &rb});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Get<int64_t>(ra), (V64{3, 2, 3, 1, 2, 1}));
  EXPECT_EQ(Get<int64_t>(rb), (V64{1, 2, 1, 3, 2, 3}));
}

TEST(SortKernels, StableNegativeDimensionByKey) {
  // Sort rows by key (input 0) ascending, values follow; equal keys keep order.
  Tensor k = Make(kI32, {2, 4}, V{3, 1, 3, 1, 5, 4, 4, 0});
  Tensor v = Make(ElementType::kF32, {2, 4}, std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7});
  Tensor rk = Zeros(kI32, {2, 4});
  Tensor rv = Zeros(ElementType::kF32, {2, 4});
  Status s = Call("stablehlo.sort",
                  {Ints("dimension", {-1}), Ints("is_stable", {1}),
                   Prog("comparator", Compare({kI32, ElementType::kF32}, 0, ComparisonDirection::kLT,
                                              ComparisonType::kSigned))},
                  {&k, &v}, {&rk, &rv});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Get<int32_t>(rk), (V{1, 1, 3, 3, 0, 4, 4, 5}));
  EXPECT_EQ(Get<float>(rv), (std::vector<float>{1, 3, 0, 2, 7, 5, 6, 4}));
}

TEST(SortKernels, FloatsTotalOrderEmptyAndErrors) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = Make(ElementType::kF32, {5}, std::vector<float>{2, nan, -1, 0.5f, -INFINITY});
  Tensor r = Zeros(ElementType::kF32, {5});
  auto cmp = Prog("comparator", Compare({ElementType::kF32}, 0, ComparisonDirection::kLT,
                                        ComparisonType::kTotalOrder));
  ASSERT_TRUE(Call("stablehlo.sort", {Ints("dimension", {0}), cmp}, {&x}, {&r}).ok());
  auto got = Get<float>(r);
  EXPECT_EQ(got[0], -INFINITY);
  EXPECT_EQ(got[1], -1);
  EXPECT_EQ(got[2], 0.5f);
  EXPECT_EQ(got[3], 2);
  EXPECT_TRUE(std::isnan(got[4]));
  Tensor e = Zeros(ElementType::kF32, {0, 3});
  Tensor re = Zeros(ElementType::kF32, {0, 3});
  EXPECT_TRUE(Call("stablehlo.sort", {Ints("dimension", {1}), cmp}, {&e}, {&re}).ok());
  EXPECT_FALSE(Call("stablehlo.sort", {Ints("dimension", {1}), cmp}, {&x}, {&r}).ok());
  EXPECT_FALSE(Call("stablehlo.sort", {Ints("dimension", {0})}, {&x}, {&r}).ok());
  Tensor ri = Zeros(kI32, {5});
  EXPECT_FALSE(Call("stablehlo.sort", {Ints("dimension", {0}), cmp}, {&x}, {&ri}).ok());
}

// --- top_k --------------------------------------------------------------------

TEST(SortKernels, TopK) {
  Tensor x = Make(kI32, {2, 5}, V{1, 5, 3, 5, 2, -1, -7, 0, 9, 0});
  Tensor vals = Zeros(kI32, {2, 3});
  Tensor idxs = Zeros(kI32, {2, 3});
  ASSERT_TRUE(Call("chlo.top_k", {Ints("k", {3})}, {&x}, {&vals, &idxs}).ok());
  EXPECT_EQ(Get<int32_t>(vals), (V{5, 5, 3, 9, 0, 0}));
  EXPECT_EQ(Get<int32_t>(idxs), (V{1, 3, 2, 3, 2, 4}));
  Tensor bad = Zeros(kI32, {2, 6});
  EXPECT_FALSE(Call("chlo.top_k", {Ints("k", {6})}, {&x}, {&bad, &bad}).ok());
  EXPECT_FALSE(Call("chlo.top_k", {Ints("k", {2})}, {&x}, {&vals, &idxs}).ok());
}

TEST(SortKernels, TopKFloatsWithNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = Make(ElementType::kF32, {4}, std::vector<float>{1, nan, 3, -2});
  Tensor vals = Zeros(ElementType::kF32, {2});
  Tensor idxs = Zeros(kI64, {2});
  ASSERT_TRUE(Call("chlo.top_k", {Ints("k", {2})}, {&x}, {&vals, &idxs}).ok());
  EXPECT_TRUE(std::isnan(Get<float>(vals)[0]));
  EXPECT_EQ(Get<float>(vals)[1], 3);
  EXPECT_EQ(Get<int64_t>(idxs), (V64{1, 2}));
}

}  // namespace
}  // namespace kiln::ref

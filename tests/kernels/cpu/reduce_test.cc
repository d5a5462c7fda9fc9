// The fast CPU stablehlo.reduce (kernels/cpu/reduce.cc) against the
// reference kernel: add, maximum and minimum bodies (either operand order),
// f32 and f64, reduced blocks at the front, middle and end of the dims, odd
// sizes, NaN, infinities and signed zeros, large enough to split over the
// thread pool. Results must be bit-identical (NaN payloads aside); forms the
// kernel does not handle (non-contiguous axes) must still be right.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/registry.h"
#include "kernels/reference/registry.h"
#include "tests/kernels/cpu/hwy_test_util.h"
#include "tests/kernels/cpu/reduce_test_util.h"
#include "tests/kernels/cpu/test_pool.h"

namespace kiln::cpu {
namespace {

using namespace reduce_test;  // Tensor, Random, ReduceParams, ExpectSameValues

void Check(ElementType t, ScalarOp op, std::vector<int64_t> in_dims, std::vector<int64_t> axes, double init_value,
           uint32_t seed, bool swapped = false) {
  SCOPED_TRACE(std::string(ScalarOpName(op)) + (t == ElementType::kF32 ? " f32" : " f64"));
  std::mt19937 rng(seed);
  Tensor in = Random(t, in_dims, rng);
  Tensor init = Zeros(t, {});
  init.Set(0, init_value);
  std::vector<int64_t> out_dims;
  for (int64_t a = 0; a < static_cast<int64_t>(in_dims.size()); ++a)
    if (std::find(axes.begin(), axes.end(), a) == axes.end()) out_dims.push_back(in_dims[a]);
  KernelParams p = ReduceParams(t, op, axes, swapped);
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  const size_t out_bytes = static_cast<size_t>(Count(out_dims)) * StorageBytes(t);
  Tensor got{t, out_dims, std::vector<uint8_t>(out_bytes, 0xAB)}, threaded = got, want{t, out_dims,
                                                                                   std::vector<uint8_t>(out_bytes)};
  TensorRef ins[2] = {in.ref(), init.ref()};
  TensorRef o1[1] = {got.ref()}, o2[1] = {threaded.ref()}, o3[1] = {want.ref()};
  ASSERT_TRUE(fast(KernelCall{p, ins, o1}).ok());
  ASSERT_TRUE(fast(KernelCall{p, ins, o2, TestPool()}).ok());
  ASSERT_TRUE(ref::FindReferenceKernel("stablehlo.reduce")(KernelCall{p, ins, o3}).ok());
  EXPECT_EQ(threaded.bytes, got.bytes);
  ExpectSameValues(got, want);
}

KILN_TEST_ALL_TARGETS(CpuReduce, AxesAtTheEndFrontAndMiddle) {
  for (ElementType t : {ElementType::kF32, ElementType::kF64}) {
    for (ScalarOp op : {ScalarOp::kAdd, ScalarOp::kMaximum, ScalarOp::kMinimum}) {
      const double init = op == ScalarOp::kAdd ? 0.0 : (op == ScalarOp::kMaximum ? -INFINITY : INFINITY);
      Check(t, op, {7, 13}, {1}, init, 1);
      Check(t, op, {7, 13}, {0}, init, 2);
      Check(t, op, {7, 13}, {0, 1}, init, 3);
      Check(t, op, {3, 5, 7, 9}, {2, 1}, init, 4);
      Check(t, op, {3, 5, 7, 9}, {3}, init, 5, /*swapped=*/true);
      Check(t, op, {3, 5, 7, 9}, {0}, init, 6);
      Check(t, op, {1, 1, 33}, {2}, -0.0, 7);  // -0 init against +0 inputs
    }
  }
}

KILN_TEST_ALL_TARGETS(CpuReduce, EmptyAndTrivialAxes) {
  Check(ElementType::kF32, ScalarOp::kAdd, {4, 0, 3}, {1}, 2.5, 8);  // every result is the init
  Check(ElementType::kF32, ScalarOp::kMaximum, {4, 5}, {}, 1.0, 9);  // no axes: op(init, x)
  Check(ElementType::kF32, ScalarOp::kMinimum, {0, 5}, {1}, 1.0, 10);
}

KILN_TEST_ALL_TARGETS(CpuReduce, LargeEnoughToSplitOverThePool) {
  Check(ElementType::kF32, ScalarOp::kAdd, {300, 1001}, {1}, 0.0, 11);
  Check(ElementType::kF32, ScalarOp::kMaximum, {1001, 300}, {1}, -INFINITY, 12);
  Check(ElementType::kF32, ScalarOp::kMaximum, {2000, 3, 70}, {1}, -INFINITY, 13);
}

KILN_TEST_ALL_TARGETS(CpuReduce, NonContiguousAxesAreStillRight) {
  Check(ElementType::kF32, ScalarOp::kAdd, {3, 5, 7}, {0, 2}, 0.0, 14);
}

KILN_TEST_ALL_TARGETS(CpuReduce, OtherBodiesAreNotClaimed) {
  KernelParams p = ReduceParams(ElementType::kF32, ScalarOp::kMultiply, {0}, false);
  EXPECT_EQ(FindCpuKernel(p), nullptr);
  KernelParams q = ReduceParams(ElementType::kSI32, ScalarOp::kAdd, {0}, false);
  EXPECT_EQ(FindCpuKernel(q), nullptr);
}

}  // namespace
}  // namespace kiln::cpu

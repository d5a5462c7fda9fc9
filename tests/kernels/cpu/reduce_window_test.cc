// The fast CPU stablehlo.reduce_window (kernels/cpu/reduce_window.cc)
// against the reference kernel: pooling layouts (NHWC with channels as SIMD
// lanes, NCHW windowing the innermost axis), strides, window dilation,
// positive and negative padding, inits that are no identity, f32 and f64,
// large enough to split over the thread pool. Results must be bit-identical
// (NaN payloads aside).
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

struct WindowCase {
  std::vector<int64_t> in, window, strides, wdil, padding;
};

void CheckWindow(ElementType t, ScalarOp op, const WindowCase& c, double init_value, uint32_t seed) {
  SCOPED_TRACE(std::string(ScalarOpName(op)) + (t == ElementType::kF32 ? " f32" : " f64"));
  std::mt19937 rng(seed);
  Tensor in = Random(t, c.in, rng);
  Tensor init = Zeros(t, {});
  init.Set(0, init_value);
  const size_t r = c.in.size();
  std::vector<int64_t> out_dims(r);
  for (size_t a = 0; a < r; ++a) {
    const int64_t padded = c.padding[2 * a] + c.in[a] + c.padding[2 * a + 1];
    const int64_t win = (c.window[a] - 1) * c.wdil[a] + 1;
    out_dims[a] = padded < win ? 0 : (padded - win) / c.strides[a] + 1;
  }
  KernelParams p = ReduceParams(t, op, {}, false);
  p.kernel = "stablehlo.reduce_window";
  p.attrs.erase(p.attrs.begin());  // no "dimensions"
  auto add = [&](const char* name, std::vector<int64_t> v) {
    KernelAttr a;
    a.name = name;
    a.ints = std::move(v);
    p.attrs.push_back(a);
  };
  add("window_dimensions", c.window);
  add("window_strides", c.strides);
  add("window_dilations", c.wdil);
  add("padding", c.padding);
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  const size_t bytes = static_cast<size_t>(Count(out_dims)) * StorageBytes(t);
  Tensor got{t, out_dims, std::vector<uint8_t>(bytes, 0xAB)}, threaded = got, want{t, out_dims, std::vector<uint8_t>(bytes)};
  TensorRef ins[2] = {in.ref(), init.ref()};
  TensorRef o1[1] = {got.ref()}, o2[1] = {threaded.ref()}, o3[1] = {want.ref()};
  ASSERT_TRUE(fast(KernelCall{p, ins, o1}).ok());
  ASSERT_TRUE(fast(KernelCall{p, ins, o2, TestPool()}).ok());
  Status rs = ref::FindReferenceKernel("stablehlo.reduce_window")(KernelCall{p, ins, o3});
  ASSERT_TRUE(rs.ok()) << rs.message();
  EXPECT_EQ(threaded.bytes, got.bytes);
  ExpectSameValues(got, want);
}

KILN_TEST_ALL_TARGETS(CpuReduceWindow, PoolingLayoutsPaddingAndDilation) {
  const WindowCase cases[] = {
      // NHWC 3x3 stride 2 padding 1: channels ride as SIMD lanes (odd count).
      {{2, 9, 11, 19}, {1, 3, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, {0, 0, 1, 1, 1, 1, 0, 0}},
      // NCHW 2x2 stride 2: the innermost axis is windowed.
      {{1, 3, 8, 7}, {1, 1, 2, 2}, {1, 1, 2, 2}, {1, 1, 1, 1}, {0, 0, 0, 0, 0, 0, 0, 1}},
      // window dilation and negative padding, rank 2.
      {{13, 17}, {3, 2}, {2, 3}, {2, 3}, {-1, 2, 3, -2}},
      // the whole axis, rank 1
      {{37}, {37}, {1}, {1}, {0, 0}},
  };
  for (ElementType t : {ElementType::kF32, ElementType::kF64})
    for (const auto& c : cases) {
      CheckWindow(t, ScalarOp::kMaximum, c, -INFINITY, 1);
      CheckWindow(t, ScalarOp::kMaximum, c, 0.0, 2);  // not the identity: padding counts
      CheckWindow(t, ScalarOp::kAdd, c, 0.0, 3);
      CheckWindow(t, ScalarOp::kAdd, c, 1.5, 4);      // padding adds the init again
      CheckWindow(t, ScalarOp::kMinimum, c, INFINITY, 5);
    }
}

// A windowed innermost axis with rows of results (NCHW pooling): SIMD
// along the rows from phased copies of the input rows (WindowRowsAlongX):
// strides 1 to 3, window dilation, rows that are not whole vectors, padding
// past whole rows of the outer axes (taps of init only), negative padding,
// rank 1, and a ResNet stem's max pool split over the pool.
KILN_TEST_ALL_TARGETS(CpuReduceWindow, RowsAlongTheWindowedInnermostAxis) {
  const WindowCase cases[] = {
      {{1, 5, 30, 45}, {1, 1, 3, 3}, {1, 1, 2, 2}, {1, 1, 1, 1}, {0, 0, 0, 0, 1, 1, 1, 1}},
      {{2, 3, 9, 40}, {1, 1, 2, 3}, {1, 1, 1, 3}, {1, 1, 1, 2}, {0, 0, 0, 0, 3, 3, 2, 4}},
      {{4, 33}, {3, 5}, {1, 1}, {1, 1}, {-1, 0, 2, 2}},
      {{100}, {5}, {1}, {1}, {2, 2}},
      {{19, 64}, {4, 4}, {2, 4}, {1, 1}, {0, 1, -3, 1}},
  };
  for (ElementType t : {ElementType::kF32, ElementType::kF64})
    for (const auto& c : cases) {
      CheckWindow(t, ScalarOp::kMaximum, c, -INFINITY, 11);
      CheckWindow(t, ScalarOp::kMaximum, c, 0.0, 12);
      CheckWindow(t, ScalarOp::kAdd, c, 1.5, 13);
      CheckWindow(t, ScalarOp::kMinimum, c, INFINITY, 14);
    }
  CheckWindow(ElementType::kF32, ScalarOp::kMaximum,
              {{1, 64, 112, 112}, {1, 1, 3, 3}, {1, 1, 2, 2}, {1, 1, 1, 1}, {0, 0, 0, 0, 1, 1, 1, 1}}, -INFINITY, 15);
}

// Cumulative windows (cumsum, cummax: an axis windowed over its whole
// length with padding (n - 1, 0)) run as a running fold where the padding
// taps leave the init value alone (WindowCumulative): along the last axis
// (rows in groups of eight, a ragged group), a middle one (SIMD across the
// inner elements, a ragged vector) and the first; an add whose init is not
// zero, and a window one padding tap off, take the general path; NaN,
// infinities and signed zeros are in the inputs (Random); split over the
// pool.
KILN_TEST_ALL_TARGETS(CpuReduceWindow, CumulativeWindows) {
  const WindowCase cases[] = {
      {{5, 37}, {1, 37}, {1, 1}, {1, 1}, {0, 0, 36, 0}},
      {{17, 9}, {1, 9}, {1, 1}, {1, 1}, {0, 0, 8, 0}},
      {{3, 19, 21}, {1, 19, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 18, 0, 0, 0}},
      {{11, 4}, {11, 1}, {1, 1}, {1, 1}, {10, 0, 0, 0}},
      {{6, 1}, {6, 1}, {1, 1}, {1, 1}, {5, 0, 0, 0}},
      {{4, 37}, {1, 37}, {1, 1}, {1, 1}, {0, 0, 37, 0}},  // one padding tap more: not cumulative
  };
  for (ElementType t : {ElementType::kF32, ElementType::kF64})
    for (const auto& c : cases) {
      CheckWindow(t, ScalarOp::kAdd, c, 0.0, 21);
      CheckWindow(t, ScalarOp::kAdd, c, -0.0, 22);
      CheckWindow(t, ScalarOp::kAdd, c, 1.5, 23);
      CheckWindow(t, ScalarOp::kMaximum, c, -INFINITY, 24);
      CheckWindow(t, ScalarOp::kMaximum, c, 0.0, 25);
      CheckWindow(t, ScalarOp::kMinimum, c, INFINITY, 26);
    }
  CheckWindow(ElementType::kF32, ScalarOp::kAdd, {{4200, 16}, {1, 16}, {1, 1}, {1, 1}, {0, 0, 15, 0}}, 0.0, 27);
}

KILN_TEST_ALL_TARGETS(CpuReduceWindow, LargeEnoughToSplit) {
  CheckWindow(ElementType::kF32, ScalarOp::kMaximum,
              {{1, 56, 56, 64}, {1, 3, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, {0, 0, 1, 1, 1, 1, 0, 0}}, -INFINITY, 6);
}

}  // namespace
}  // namespace kiln::cpu

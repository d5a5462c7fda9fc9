// The fast CPU stablehlo.reduce (kernels/cpu/reduce.cc) against the
// reference kernel: add, maximum and minimum bodies (either operand order),
// f32 and f64, reduced blocks at the front, middle and end of the dims, odd
// sizes, NaN, infinities and signed zeros, large enough to split over the
// thread pool. Results must be bit-identical (NaN payloads aside); forms the
// kernel does not handle (non-contiguous axes) must still be right.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/registry.h"
#include "kernels/reference/registry.h"
#include "tests/kernels/cpu/hwy_test_util.h"
#include "tests/kernels/cpu/test_pool.h"
#include "tests/kernels/tensor_test_util.h"

namespace kiln::cpu {
namespace {

using namespace ::kiln::test;  // Tensor, Count

Tensor Random(ElementType t, std::vector<int64_t> dims, std::mt19937& rng) {
  const size_t es = StorageBytes(t);
  Tensor x{t, dims, std::vector<uint8_t>(static_cast<size_t>(Count(dims)) * es)};
  std::uniform_real_distribution<double> u(-100.0, 100.0);
  const double specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e30, -1e30};
  for (int64_t i = 0; i < Count(dims); ++i) {
    double v = (i % 53 == 7) ? specials[(i / 53) % 7] : u(rng);
    if (i % 11 == 3) v = 0.0;  // equal values: signed zeros meet
    if (i % 13 == 5) v = -0.0;
    if (t == ElementType::kF32) {
      float f = static_cast<float>(v);
      std::memcpy(x.bytes.data() + i * 4, &f, 4);
    } else {
      std::memcpy(x.bytes.data() + i * 8, &v, 8);
    }
  }
  return x;
}

KernelParams ReduceParams(ElementType t, ScalarOp op, std::vector<int64_t> dims, bool swapped) {
  ScalarProgram prog;
  prog.param_types = {t, t};
  ScalarInstr in;
  in.op = op;
  in.type = t;
  in.num_operands = 2;
  in.operands[0] = swapped ? 1 : 0;
  in.operands[1] = swapped ? 0 : 1;
  prog.instrs = {in};
  prog.results = {2};
  KernelParams p;
  p.kernel = "stablehlo.reduce";
  KernelAttr d;
  d.name = "dimensions";
  d.ints = std::move(dims);
  p.attrs.push_back(d);
  KernelAttr body;
  body.name = "body";
  body.has_program = true;
  body.program = std::move(prog);
  p.attrs.push_back(std::move(body));
  return p;
}

void Check(ElementType t, ScalarOp op, std::vector<int64_t> in_dims, std::vector<int64_t> axes, double init_value,
           uint32_t seed, bool swapped = false) {
  SCOPED_TRACE(std::string(ScalarOpName(op)) + (t == ElementType::kF32 ? " f32" : " f64"));
  std::mt19937 rng(seed);
  Tensor in = Random(t, in_dims, rng);
  Tensor init{t, {}, std::vector<uint8_t>(StorageBytes(t))};
  if (t == ElementType::kF32) {
    float f = static_cast<float>(init_value);
    std::memcpy(init.bytes.data(), &f, 4);
  } else {
    std::memcpy(init.bytes.data(), &init_value, 8);
  }
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
  const size_t es = StorageBytes(t);
  int bad = 0;
  for (int64_t i = 0; i < Count(out_dims) && bad < 5; ++i) {
    double g, w;
    if (t == ElementType::kF32) {
      float gf, wf;
      std::memcpy(&gf, got.bytes.data() + i * es, 4);
      std::memcpy(&wf, want.bytes.data() + i * es, 4);
      g = gf, w = wf;
    } else {
      std::memcpy(&g, got.bytes.data() + i * es, 8);
      std::memcpy(&w, want.bytes.data() + i * es, 8);
    }
    const bool same = std::isnan(w) ? std::isnan(g) : (g == w && std::signbit(g) == std::signbit(w));
    if (!same) ++bad;
    EXPECT_TRUE(same) << "element " << i << ": got " << g << ", want " << w;
  }
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

// --- reduce_window (kernels/cpu/reduce_window.cc) -------------------------

struct WindowCase {
  std::vector<int64_t> in, window, strides, wdil, padding;
};

void CheckWindow(ElementType t, ScalarOp op, const WindowCase& c, double init_value, uint32_t seed) {
  SCOPED_TRACE(std::string(ScalarOpName(op)) + (t == ElementType::kF32 ? " f32" : " f64"));
  std::mt19937 rng(seed);
  Tensor in = Random(t, c.in, rng);
  Tensor init{t, {}, std::vector<uint8_t>(StorageBytes(t))};
  if (t == ElementType::kF32) {
    float f = static_cast<float>(init_value);
    std::memcpy(init.bytes.data(), &f, 4);
  } else {
    std::memcpy(init.bytes.data(), &init_value, 8);
  }
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
  const size_t es = StorageBytes(t);
  int bad = 0;
  for (int64_t i = 0; i < Count(out_dims) && bad < 5; ++i) {
    double g, w;
    if (t == ElementType::kF32) {
      float gf, wf;
      std::memcpy(&gf, got.bytes.data() + i * es, 4);
      std::memcpy(&wf, want.bytes.data() + i * es, 4);
      g = gf, w = wf;
    } else {
      std::memcpy(&g, got.bytes.data() + i * es, 8);
      std::memcpy(&w, want.bytes.data() + i * es, 8);
    }
    const bool same = std::isnan(w) ? std::isnan(g) : (g == w && std::signbit(g) == std::signbit(w));
    bad += !same;
    EXPECT_TRUE(same) << "element " << i << ": got " << g << ", want " << w;
  }
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

KILN_TEST_ALL_TARGETS(CpuReduceWindow, LargeEnoughToSplit) {
  CheckWindow(ElementType::kF32, ScalarOp::kMaximum,
              {{1, 56, 56, 64}, {1, 3, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, {0, 0, 1, 1, 1, 1, 0, 0}}, -INFINITY, 6);
}

}  // namespace
}  // namespace kiln::cpu

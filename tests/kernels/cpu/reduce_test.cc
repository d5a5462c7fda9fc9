// The fast CPU stablehlo.reduce (kernels/cpu/reduce.cc) against the
// reference kernel: add, maximum and minimum bodies (either operand order),
// f32 and f64, reduced blocks at the front, middle and end of the dims, odd
// sizes, NaN, infinities and signed zeros, large enough to split over the
// thread pool. Results must be bit-identical (NaN payloads aside); forms the
// kernel does not handle (non-contiguous axes) must still be right. Add
// reductions over contiguous elements follow the 16-lane tree order
// (kernels/reference/reduction_order.h), checked on inputs where the order
// shows; reductions with a fused producer ("input" program) are checked
// against the reference, short rows, rows longer than the kernel's scratch
// and non-innermost axes alike; wide rows of a leading axis (streamed, and
// split between tasks by columns) too. f16 and bf16 reductions (widened, each add
// rounded to the type) are compared bit for bit, NaN payloads aside.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/half_float.h"
#include "kernels/cpu/registry.h"
#include "kernels/reference/reduction_order.h"
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

// Leading axes reduced over wide rows (column sums): the rows streamed into
// the accumulators a chunk of columns at a time (more columns than one
// chunk, a ragged tail of columns), and with one result row, its columns
// split between the pool's tasks.
KILN_TEST_ALL_TARGETS(CpuReduce, WideRowsOverLeadingAxes) {
  for (ElementType t : {ElementType::kF32, ElementType::kF64})
    for (ScalarOp op : {ScalarOp::kAdd, ScalarOp::kMaximum, ScalarOp::kMinimum}) {
      const double init = op == ScalarOp::kAdd ? 0.0 : (op == ScalarOp::kMaximum ? -INFINITY : INFINITY);
      Check(t, op, {300, 1027}, {0}, init, 14);
      Check(t, op, {3, 2, 4111}, {0, 1}, init, 15);
      Check(t, op, {2, 70, 300}, {1}, init, 16, /*swapped=*/true);
    }
}

KILN_TEST_ALL_TARGETS(CpuReduce, TreeOrderRowsOfEveryLength) {
  for (ElementType t : {ElementType::kF32, ElementType::kF64})
    for (int64_t r : {1, 2, 15, 16, 17, 24, 31, 33, 49, 333, 4101})  // 49: a 7 x 7 pooling head
      Check(t, ScalarOp::kAdd, {9, r}, {1}, -0.0, static_cast<uint32_t>(20 + r));
  Check(ElementType::kF32, ScalarOp::kAdd, {2, 3, 77, 1}, {2, 1}, 1.5, 21);  // trailing size-1 dim
}

// Reduced axes in two blocks (a batch norm's statistics over N, H and W):
// each result folds its elements in row-major order, as the reference,
// with SIMD across a trailing kept block, gathers across the kept block
// between (37 results: two vectors and a ragged rest on AVX-512), or one
// result at a time (5 results); axes of size 1 do not separate blocks (the
// tree order then, as the reference); split over the pool.
KILN_TEST_ALL_TARGETS(CpuReduce, TwoBlocksOfReducedAxes) {
  struct Case {
    std::vector<int64_t> dims, axes;
  };
  const Case cases[] = {{{3, 37, 5, 4}, {0, 2, 3}}, {{3, 5, 7, 9}, {0, 2, 3}},    {{2, 3, 4, 5, 21}, {1, 3}},
                        {{1, 37, 6, 5}, {0, 2, 3}}, {{3, 1, 5, 7}, {0, 2}},       {{2, 9, 3, 17}, {0, 2}},
                        {{4, 0, 3, 2}, {0, 2}},     {{4, 64, 33, 33}, {0, 2, 3}}};
  for (ElementType t : {ElementType::kF32, ElementType::kF64})
    for (const Case& c : cases) {
      SCOPED_TRACE(::testing::PrintToString(c.dims) + " over " + ::testing::PrintToString(c.axes));
      Check(t, ScalarOp::kAdd, c.dims, c.axes, 0.0, 41);
      Check(t, ScalarOp::kAdd, c.dims, c.axes, -0.0, 42);
      Check(t, ScalarOp::kAdd, c.dims, c.axes, 1.5, 43);
      Check(t, ScalarOp::kMaximum, c.dims, c.axes, -INFINITY, 44);
      Check(t, ScalarOp::kMinimum, c.dims, c.axes, INFINITY, 45);
    }
}

// Rows of negative zeros from a -0 init sum to -0 in the tree order (its
// lanes start at -0, the exact identity); the vector tails pad with -0 for
// that reason, at every tail length, as the reference.
KILN_TEST_ALL_TARGETS(CpuReduce, NegativeZeroRowsStayNegative) {
  for (ElementType t : {ElementType::kF32, ElementType::kF64})
    for (int64_t r : {16, 17, 24, 25, 31, 49}) {
      SCOPED_TRACE(std::to_string(r));
      const int64_t rows = 8;
      Tensor in = Zeros(t, {rows, r}), init = Zeros(t, {});
      for (int64_t i = 0; i < rows * r; ++i) in.Set(i, -0.0);
      init.Set(0, -0.0);
      KernelParams p = ReduceParams(t, ScalarOp::kAdd, {1}, /*swapped=*/false);
      Tensor got = Zeros(t, {rows}), want = Zeros(t, {rows});
      TensorRef ins[2] = {in.ref(), init.ref()};
      TensorRef o1[1] = {got.ref()}, o2[1] = {want.ref()};
      ASSERT_TRUE(FindCpuKernel(p)(KernelCall{p, ins, o1}).ok());
      ASSERT_TRUE(ref::FindReferenceKernel("stablehlo.reduce")(KernelCall{p, ins, o2}).ok());
      EXPECT_EQ(got.bytes, want.bytes);
      EXPECT_TRUE(std::signbit(got.Get(0)));
    }
}

// Rows without NaN take the plain SIMD max/min (reduction.cc,
// NumericMinMax); rows whose result is a zero, and rows with a NaN, the
// exact fold. Every kind of row, at lengths around the four-vector steps,
// against the reference bit for bit (signed zeros included).
KILN_TEST_ALL_TARGETS(CpuReduce, MaxMinRowsWithoutNaN) {
  std::mt19937 rng(31);
  std::uniform_real_distribution<double> u(-100.0, 100.0);
  for (ElementType t : {ElementType::kF32, ElementType::kF64})
    for (ScalarOp op : {ScalarOp::kMaximum, ScalarOp::kMinimum})
      for (int64_t r : {1, 2, 3, 7, 10, 15, 16, 63, 64, 65, 127, 129, 1000}) {
        SCOPED_TRACE(std::string(ScalarOpName(op)) + (t == ElementType::kF32 ? " f32 " : " f64 ") +
                     std::to_string(r));
        const int64_t rows = 8;
        Tensor in = Zeros(t, {rows, r});
        const double sign = op == ScalarOp::kMaximum ? 1.0 : -1.0;
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < r; ++j) {
            double v = u(rng);
            switch (i) {
              case 0: break;                                                     // plain values
              case 1: v = -sign * std::fabs(v); if (j % 7 == 3) v = 0.0; break;   // result +0
              case 2: v = -sign * std::fabs(v); if (j % 5 == 1) v = -0.0; break;  // result -0 only
              case 3: if (j == r / 2) v = sign * INFINITY; break;                 // result +-inf
              case 4: v = -sign * INFINITY; break;                                // all -+inf
              case 5: if (j == r - 1) v = NAN; break;                             // a NaN last
              case 6: v = (j % 2) ? 0.0 : -0.0; break;                            // zeros of both signs
              case 7: v = sign * 1e-310 * (j + 1); break;                         // tiny (subnormal f64)
            }
            in.Set(i * r + j, v);
          }
        for (double init : {-double{INFINITY}, double{INFINITY}, 0.0, -0.0, 50.0}) {
          Tensor init_t = Zeros(t, {});
          init_t.Set(0, init);
          KernelParams p = ReduceParams(t, op, {1}, /*swapped=*/false);
          Tensor got = Zeros(t, {rows}), want = Zeros(t, {rows});
          TensorRef ins[2] = {in.ref(), init_t.ref()};
          TensorRef o1[1] = {got.ref()}, o2[1] = {want.ref()};
          ASSERT_TRUE(FindCpuKernel(p)(KernelCall{p, ins, o1, TestPool()}).ok());
          ASSERT_TRUE(ref::FindReferenceKernel("stablehlo.reduce")(KernelCall{p, ins, o2}).ok());
          ExpectSameValues(got, want);
        }
      }
}

// The order itself: lane j sums x[j], x[j + 16], ...; then the pairwise
// fold; then init + the total. 1e8 + 1 == 1e8 in f32, so where each
// element lands decides the result.
KILN_TEST_ALL_TARGETS(CpuReduce, TreeOrderIsTheDocumentedOne) {
  std::vector<float> x(35, 0.0f);
  x[0] = 1e8f;   // lane 0
  x[16] = 1.0f;  // lane 0 again: absorbed (1e8 + 1 rounds to 1e8)
  x[32] = 1.0f;  // lane 0: absorbed
  x[1] = 1.0f;   // lane 1
  x[8] = -1e8f;  // lane 8: cancels lane 0 at the first fold step, before lanes 1-3 join
  x[3] = 3.0f;   // lane 3
  x[34] = 2.0f;  // lane 2
  // (The row-major fold from 0.5 would give 4: 1, 3 and 0.5 vanish in 1e8.)
  // Lanes: s0 = 1e8, s1 = 1, s2 = 2, s3 = 3, s8 = -1e8. First fold: s0 = 0.
  // Then s0 += s4 (0), s1 += s5; s2 += s6, s3 += s7; s0 += s2 -> 2, s1 += s3 -> 4;
  // s0 += s1 -> 6; init 0.5 + 6.
  EXPECT_EQ(ref::TreeSum(x.data(), x.size(), 0.5f), 6.5f);
  Tensor in = Zeros(ElementType::kF32, {1, 35});
  for (int i = 0; i < 35; ++i) in.Set(i, x[i]);
  Tensor init = Zeros(ElementType::kF32, {});
  init.Set(0, 0.5);
  Tensor got = Zeros(ElementType::kF32, {1}), want = got;
  KernelParams p = ReduceParams(ElementType::kF32, ScalarOp::kAdd, {1}, false);
  TensorRef ins[2] = {in.ref(), init.ref()};
  TensorRef o1[1] = {got.ref()}, o2[1] = {want.ref()};
  ASSERT_TRUE(FindCpuKernel(p)(KernelCall{p, ins, o1}).ok());
  ASSERT_TRUE(ref::FindReferenceKernel("stablehlo.reduce")(KernelCall{p, ins, o2}).ok());
  EXPECT_EQ(got.Get(0), 6.5);
  EXPECT_EQ(want.Get(0), 6.5);
}

// Gives `p` the fused producer `f` of an operand of `in_dims` reduced along
// `axis`: f reads the operand's elements (param 0) and one value per result
// (param 1, through the axis map).
void AddProducer(KernelParams* p, ScalarProgram f, const std::vector<int64_t>& in_dims, int64_t axis) {
  KernelAttr input{"input"};
  input.has_program = true;
  input.program = std::move(f);
  KernelAttr map{"input_broadcast"};
  map.ints.push_back(static_cast<int64_t>(in_dims.size()));
  for (int64_t a = 0; a < static_cast<int64_t>(in_dims.size()); ++a) map.ints.push_back(a);
  map.ints.push_back(static_cast<int64_t>(in_dims.size()) - 1);
  for (int64_t a = 0; a < static_cast<int64_t>(in_dims.size()); ++a)
    if (a != axis) map.ints.push_back(a);
  KernelAttr dims{"input_dims"};
  dims.ints = in_dims;
  p->attrs.push_back(std::move(input));
  p->attrs.push_back(std::move(map));
  p->attrs.push_back(std::move(dims));
}

// The fast kernel on one thread (into got) and the pool (threaded), and
// the reference (want), on (x, m, init); the thread count changes nothing.
void RunFused(const KernelParams& p, Tensor& x, Tensor& m, Tensor& init, Tensor* got, Tensor* threaded, Tensor* want) {
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  TensorRef ins[3] = {x.ref(), m.ref(), init.ref()};
  TensorRef o1[1] = {got->ref()}, o2[1] = {threaded->ref()}, o3[1] = {want->ref()};
  ASSERT_TRUE(fast(KernelCall{p, ins, o1}).ok());
  ASSERT_TRUE(fast(KernelCall{p, ins, o2, TestPool()}).ok());
  ASSERT_TRUE(ref::FindReferenceKernel("stablehlo.reduce")(KernelCall{p, ins, o3}).ok());
  EXPECT_EQ(threaded->bytes, got->bytes);
}

// A reduce with a fused producer: op(init, f(x, m)) with f = exp(x - m) for
// an f32 add (softmax's sum; m per row, read through the axis map) or x * m
// otherwise, against the reference (which materialises the operand).
void CheckFused(ElementType t, ScalarOp op, std::vector<int64_t> in_dims, int64_t axis, uint32_t seed) {
  SCOPED_TRACE(std::string(ScalarOpName(op)) + (t == ElementType::kF32 ? " f32 " : " f64 ") +
               std::to_string(in_dims.size()) + "-d axis " + std::to_string(axis));
  std::mt19937 rng(seed);
  Tensor x = Random(t, in_dims, rng);
  std::vector<int64_t> out_dims;
  for (int64_t a = 0; a < static_cast<int64_t>(in_dims.size()); ++a)
    if (a != axis) out_dims.push_back(in_dims[a]);
  Tensor m = Random(t, out_dims, rng);
  const bool exp = t == ElementType::kF32 && op == ScalarOp::kAdd;
  if (exp)  // moderate exponents: the fast exp is within a few ULP, not exact, far out
    for (int64_t i = 0; i < x.count(); ++i) x.Set(i, std::isfinite(x.Get(i)) ? x.Get(i) / 30 : x.Get(i));
  Tensor init = Zeros(t, {});
  init.Set(0, op == ScalarOp::kAdd ? 0.0 : (op == ScalarOp::kMaximum ? -INFINITY : INFINITY));
  KernelParams p = ReduceParams(t, op, {axis}, false);
  ScalarProgram f;
  f.param_types = {t, t};
  ScalarInstr first;
  first.op = exp ? ScalarOp::kSubtract : ScalarOp::kMultiply;
  first.type = t;
  first.num_operands = 2;
  first.operands[0] = 0;
  first.operands[1] = 1;
  f.instrs.push_back(first);
  if (exp) {
    ScalarInstr e;
    e.op = ScalarOp::kExponential;
    e.type = t;
    e.num_operands = 1;
    e.operands[0] = 2;
    f.instrs.push_back(e);
  }
  f.results = {static_cast<uint16_t>(1 + f.instrs.size())};
  AddProducer(&p, std::move(f), in_dims, axis);
  Tensor got = Zeros(t, out_dims), threaded = got, want = got;
  RunFused(p, x, m, init, &got, &threaded, &want);
  if (!exp) {
    ExpectSameValues(got, want);
    return;
  }
  for (int64_t i = 0; i < want.count(); ++i) {  // the fast exp is a few ULP off the reference's
    const double g = got.Get(i), w = want.Get(i);
    if (std::isnan(w) || std::isinf(w)) {
      EXPECT_TRUE(std::isnan(w) ? std::isnan(g) : g == w) << i;
      continue;
    }
    EXPECT_NEAR(g, w, 1e-5 * std::fabs(w) + 1e-30) << i;
  }
}

KILN_TEST_ALL_TARGETS(CpuReduce, FusedProducersMatchTheReference) {
  for (ElementType t : {ElementType::kF32, ElementType::kF64})
    for (ScalarOp op : {ScalarOp::kAdd, ScalarOp::kMaximum, ScalarOp::kMinimum}) {
      CheckFused(t, op, {67, 333}, 1, 30);     // softmax rows
      CheckFused(t, op, {3, 40001}, 1, 31);    // rows longer than the scratch
      CheckFused(t, op, {9, 130, 7}, 1, 32);   // not innermost
      CheckFused(t, op, {2, 9000, 3}, 1, 33);  // not innermost, longer than the scratch
      CheckFused(t, op, {301, 1000}, 1, 34);   // split over the pool
      CheckFused(t, op, {5, 0}, 1, 35);        // empty rows: every result is the init
      CheckFused(t, op, {0, 7}, 1, 36);        // no rows
    }
}

// Attributes from a hostile module file: errors, never a read out of bounds.
KILN_TEST_ALL_TARGETS(CpuReduce, MalformedFusedProducersAreErrors) {
  const ElementType t = ElementType::kF32;
  Tensor x = Zeros(t, {4, 8}), init = Zeros(t, {}), out = Zeros(t, {4});
  ScalarProgram f;  // x * x
  f.param_types = {t};
  ScalarInstr mul;
  mul.op = ScalarOp::kMultiply;
  mul.type = t;
  mul.num_operands = 2;
  f.instrs = {mul};
  f.results = {1};
  auto call = [&](std::vector<int64_t> input_dims, size_t num_inputs) {
    KernelParams p = ReduceParams(t, ScalarOp::kAdd, {1}, false);
    KernelAttr input{"input"};
    input.has_program = true;
    input.program = f;
    p.attrs.push_back(input);
    p.attrs.push_back(KernelAttr{"input_dims", input_dims, {}, "", false, {}});
    TensorRef ins[2] = {x.ref(), init.ref()};
    TensorRef o[1] = {out.ref()};
    const KernelCall c{p, std::span<const TensorRef>(ins, num_inputs), o, TestPool()};
    return std::make_pair(FindCpuKernel(p)(c), ref::FindReferenceKernel("stablehlo.reduce")(c));
  };
  for (auto [fast, reference] : {call({4, 9}, 2), call({4, -8}, 2), call({1ll << 40, 1ll << 40}, 2), call({4, 8}, 1),
                                 call({4}, 2)}) {
    EXPECT_FALSE(fast.ok());
    EXPECT_FALSE(reference.ok());
  }
  auto [fast, reference] = call({4, 8}, 2);
  EXPECT_TRUE(fast.ok()) << fast.message();
  EXPECT_TRUE(reference.ok()) << reference.message();
}

// f16/bf16 values: a mix of magnitudes (f16 subnormals below 2^-14 among
// them, sums that overflow f16 near 65504 where the values are large),
// specials (NaN, infinities) and signed zeros.
Tensor RandomHalf(ElementType t, std::vector<int64_t> dims, std::mt19937& rng, double scale) {
  Tensor x = Zeros(t, std::move(dims));
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const float specials[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f};
  for (int64_t i = 0; i < x.count(); ++i) {
    float v = static_cast<float>(u(rng) * scale);
    if (i % 97 == 7) v = specials[(i / 97) % 5];
    if (i % 7 == 3) v = u(rng) * 6e-5f;  // around f16's smallest normal, 2^-14
    if (i % 11 == 5) v = -0.0f;
    const uint16_t h = t == ElementType::kBF16 ? F32ToBF16(v) : F32ToF16(v);
    std::memcpy(x.bytes.data() + 2 * i, &h, 2);
  }
  return x;
}

float HalfAt(const Tensor& x, int64_t i) {
  uint16_t h;
  std::memcpy(&h, x.bytes.data() + 2 * i, 2);
  return x.type == ElementType::kBF16 ? BF16ToF32(h) : F16ToF32(h);
}

void CheckHalf(ElementType t, ScalarOp op, std::vector<int64_t> in_dims, std::vector<int64_t> axes, float init_value,
               double scale, uint32_t seed) {
  SCOPED_TRACE(std::string(ScalarOpName(op)) + (t == ElementType::kF16 ? " f16" : " bf16") + " scale " +
               std::to_string(scale));
  std::mt19937 rng(seed);
  Tensor in = RandomHalf(t, in_dims, rng, scale);
  Tensor init = Zeros(t, {});
  const uint16_t ih = t == ElementType::kBF16 ? F32ToBF16(init_value) : F32ToF16(init_value);
  std::memcpy(init.bytes.data(), &ih, 2);
  std::vector<int64_t> out_dims;
  for (int64_t a = 0; a < static_cast<int64_t>(in_dims.size()); ++a)
    if (std::find(axes.begin(), axes.end(), a) == axes.end()) out_dims.push_back(in_dims[a]);
  KernelParams p = ReduceParams(t, op, axes, false);
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  Tensor got = Zeros(t, out_dims), threaded = got, want = got;
  std::fill(got.bytes.begin(), got.bytes.end(), 0xAB);
  TensorRef ins[2] = {in.ref(), init.ref()};
  TensorRef o1[1] = {got.ref()}, o2[1] = {threaded.ref()}, o3[1] = {want.ref()};
  ASSERT_TRUE(fast(KernelCall{p, ins, o1}).ok());
  ASSERT_TRUE(fast(KernelCall{p, ins, o2, TestPool()}).ok());
  ASSERT_TRUE(ref::FindReferenceKernel("stablehlo.reduce")(KernelCall{p, ins, o3}).ok());
  EXPECT_EQ(threaded.bytes, got.bytes);
  int bad = 0;
  for (int64_t i = 0; i < want.count() && bad < 5; ++i) {
    const float g = HalfAt(got, i), w = HalfAt(want, i);
    const bool same = std::isnan(w) ? std::isnan(g) : std::memcmp(got.bytes.data() + 2 * i, want.bytes.data() + 2 * i, 2) == 0;
    bad += !same;
    EXPECT_TRUE(same) << "element " << i << ": got " << g << ", want " << w;
  }
}

KILN_TEST_ALL_TARGETS(CpuReduce, SixteenBitTypesRoundEachAdd) {
  for (ElementType t : {ElementType::kF16, ElementType::kBF16})
    for (ScalarOp op : {ScalarOp::kAdd, ScalarOp::kMaximum, ScalarOp::kMinimum}) {
      const float init = op == ScalarOp::kAdd ? 0.0f : (op == ScalarOp::kMaximum ? -INFINITY : INFINITY);
      for (double scale : {1e-5, 3.0, 900.0}) {
        CheckHalf(t, op, {7, 13}, {1}, init, scale, 31);
        CheckHalf(t, op, {9, 70}, {1}, init, scale, 32);          // four rows at a time, tails
        CheckHalf(t, op, {3, 5, 7, 9}, {2, 1}, init, scale, 33);  // inner > 1
        CheckHalf(t, op, {3, 5, 7, 9}, {0}, init, scale, 34);
      }
      CheckHalf(t, op, {2, 20000}, {1}, init, 3.0, 35);  // rows longer than the scratch
      CheckHalf(t, op, {20000, 3}, {0}, init, 3.0, 36);  // inner > 1, in pieces
      CheckHalf(t, op, {64, 1500}, {1}, init, 0.01, 37);  // split over the pool
    }
  // A half init value that is not 0: folded last by the tree order.
  CheckHalf(ElementType::kBF16, ScalarOp::kAdd, {5, 40}, {1}, 1.5f, 3.0, 38);
}

// A 16-bit reduce with a fused producer x * m (m per result): the operand
// is materialised by the f16/bf16 elementwise kernel, then reduced fast.
void CheckFusedHalf(ElementType t, ScalarOp op, std::vector<int64_t> in_dims, int64_t axis, uint32_t seed) {
  SCOPED_TRACE(std::string(ScalarOpName(op)) + (t == ElementType::kF16 ? " f16 " : " bf16 ") + "axis " +
               std::to_string(axis));
  std::mt19937 rng(seed);
  Tensor x = RandomHalf(t, in_dims, rng, 3.0);
  std::vector<int64_t> out_dims;
  for (int64_t a = 0; a < static_cast<int64_t>(in_dims.size()); ++a)
    if (a != axis) out_dims.push_back(in_dims[a]);
  Tensor m = RandomHalf(t, out_dims, rng, 2.0);
  Tensor init = Zeros(t, {});
  const float init_value = op == ScalarOp::kAdd ? 0.0f : (op == ScalarOp::kMaximum ? -INFINITY : INFINITY);
  const uint16_t ih = t == ElementType::kBF16 ? F32ToBF16(init_value) : F32ToF16(init_value);
  std::memcpy(init.bytes.data(), &ih, 2);
  KernelParams p = ReduceParams(t, op, {axis}, false);
  ScalarProgram f;
  f.param_types = {t, t};
  ScalarInstr mul;
  mul.op = ScalarOp::kMultiply;
  mul.type = t;
  mul.num_operands = 2;
  mul.operands[0] = 0;
  mul.operands[1] = 1;
  f.instrs.push_back(mul);
  f.results = {2};
  AddProducer(&p, std::move(f), in_dims, axis);
  Tensor got = Zeros(t, out_dims), threaded = got, want = got;
  RunFused(p, x, m, init, &got, &threaded, &want);
  for (int64_t i = 0; i < want.count(); ++i) {
    const float g = HalfAt(got, i), w = HalfAt(want, i);
    EXPECT_TRUE(std::isnan(w) ? std::isnan(g) : std::memcmp(got.bytes.data() + 2 * i, want.bytes.data() + 2 * i, 2) == 0)
        << "element " << i << ": got " << g << ", want " << w;
  }
}

KILN_TEST_ALL_TARGETS(CpuReduce, SixteenBitFusedProducers) {
  for (ElementType t : {ElementType::kF16, ElementType::kBF16})
    for (ScalarOp op : {ScalarOp::kAdd, ScalarOp::kMaximum}) {
      CheckFusedHalf(t, op, {67, 333}, 1, 40);
      CheckFusedHalf(t, op, {9, 130, 7}, 1, 41);
      CheckFusedHalf(t, op, {5, 0}, 1, 42);
    }
}

KILN_TEST_ALL_TARGETS(CpuReduce, NonContiguousAxesAreStillRight) {
  Check(ElementType::kF32, ScalarOp::kAdd, {3, 5, 7}, {0, 2}, 0.0, 14);
}

KILN_TEST_ALL_TARGETS(CpuReduce, OtherBodiesAreNotClaimed) {
  // (f32 products and 32-bit integer bodies fold on lanes:
  // elementwise_lanes32_test.cc; 64-bit ones keep the reference.)
  KernelParams p = ReduceParams(ElementType::kF64, ScalarOp::kMultiply, {0}, false);
  EXPECT_EQ(FindCpuKernel(p), nullptr);
  KernelParams q = ReduceParams(ElementType::kSI64, ScalarOp::kAdd, {0}, false);
  EXPECT_EQ(FindCpuKernel(q), nullptr);
}

}  // namespace
}  // namespace kiln::cpu

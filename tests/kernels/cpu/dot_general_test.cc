// The fast CPU dot_general / dot (kernels/cpu/dot_general.cc) against the
// reference kernel: random inputs, odd sizes, batch and contracting dims in
// unusual positions, zero-sized dims, NaNs and infinities, and the fallbacks
// to the reference (contraction_test_util.h: tolerance, every target).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/kernel_state.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/gemm_bf16.h"
#include "kernels/cpu/registry.h"
#include "kernels/scalar/scalar.h"
#include "tests/kernels/cpu/contraction_test_util.h"
#include "tests/kernels/cpu/hwy_test_util.h"

namespace kiln::cpu {
namespace {

using namespace contraction_test;  // Tensor, Filled, Random, Check, Ints

KernelParams DotGeneral(std::vector<int64_t> lb, std::vector<int64_t> rb, std::vector<int64_t> lc,
                        std::vector<int64_t> rc) {
  KernelParams p;
  p.kernel = "stablehlo.dot_general";
  if (!lb.empty()) p.attrs.push_back(Ints("lhs_batching_dimensions", lb));
  if (!rb.empty()) p.attrs.push_back(Ints("rhs_batching_dimensions", rb));
  p.attrs.push_back(Ints("lhs_contracting_dimensions", lc));
  p.attrs.push_back(Ints("rhs_contracting_dimensions", rc));
  return p;
}

struct Shape {
  int64_t m, k, n;
};

TEST(CpuDotGeneral, PlainMatmulOddSizes) {
  std::mt19937 rng(1);
  const Shape shapes[] = {{1, 1, 1},    {1, 3, 1},     {3, 17, 5},   {17, 1, 63},  {63, 65, 130}, {65, 63, 17},
                          {130, 3, 65}, {7, 300, 33},  {129, 513, 9}, {5, 3, 1100}, {2, 130, 1}, {1, 64, 200},
                          // large enough to be split over the pool (GEMV and GEMM paths)
                          {3, 700, 1500}, {1, 1000, 1100}, {301, 257, 299}, {8, 520, 1031}, {64, 784, 150}, {2, 300, 129},
                          // above 2^26 multiply-adds: the per-step path with shared B packing
                          {520, 300, 440}};
  for (const Shape& s : shapes) {
    SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n));
    Check(DotGeneral({}, {}, {1}, {0}), Random(ElementType::kF32, {s.m, s.k}, rng),
          Random(ElementType::kF32, {s.k, s.n}, rng), {s.m, s.n}, s.k);
  }
}

// f16 or bf16 values uniform in [-1, 1] (rounded by the reference codec),
// with specials: infinities, NaN, -0 and the smallest and largest
// subnormals.
Tensor Random16(ElementType t, std::vector<int64_t> dims, std::mt19937& rng, bool specials) {
  Tensor x;
  x.type = t;
  x.dims = std::move(dims);
  x.bytes.assign(static_cast<size_t>(x.count()) * 2, 0);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int64_t i = 0; i < x.count(); ++i) ref::StoreScalar(t, Scalar{0, u(rng), 0}, x.bytes.data() + 2 * i);
  if (specials) {
    const bool f16 = t == ElementType::kF16;
    const uint16_t v[] = {static_cast<uint16_t>(f16 ? 0x7C00 : 0x7F80), static_cast<uint16_t>(f16 ? 0xFC00 : 0xFF80),
                          static_cast<uint16_t>(f16 ? 0x7E01 : 0x7FC1), 0x8000, 0x0001,
                          static_cast<uint16_t>(f16 ? 0x83FF : 0x807F)};
    for (int64_t i = 0; i < x.count(); i += 89) std::memcpy(x.bytes.data() + 2 * i, &v[(i / 89) % 6], 2);
  }
  return x;
}

TEST(CpuDotGeneral, HalfOperandsIntoF32) {
  // JAX's mixed precision: bf16 (or f16) operands, f32 result. Widened to
  // f32 exactly, then the f32 GEMM: the same tolerance as f32 operands.
  std::mt19937 rng(11);
  struct Shape { int64_t m, k, n; };
  for (ElementType t : {ElementType::kBF16, ElementType::kF16}) {
    SCOPED_TRACE(t == ElementType::kF16 ? "f16" : "bf16");
    // (The widening comes before the GEMM, so its paths, tested with f32
    // operands above, need no repeat here; the reference reads 16-bit
    // operands slowly.)
    for (const Shape& sh : {Shape{1, 64, 200}, Shape{3, 17, 5}, Shape{63, 65, 130}}) {
      SCOPED_TRACE(std::to_string(sh.m) + "x" + std::to_string(sh.k) + "x" + std::to_string(sh.n));
      Check(DotGeneral({}, {}, {1}, {0}), Random16(t, {sh.m, sh.k}, rng, false), Random16(t, {sh.k, sh.n}, rng, false),
            {sh.m, sh.n}, sh.k, ElementType::kF32);
    }
    // Specials, and one operand f32 (a bf16 weight times f32 activations).
    Check(DotGeneral({}, {}, {1}, {0}), Random16(t, {37, 90}, rng, true), Random16(t, {90, 41}, rng, true), {37, 41}, 90,
          ElementType::kF32);
    Check(DotGeneral({}, {}, {1}, {0}), Random(ElementType::kF32, {9, 70}, rng), Random16(t, {70, 33}, rng, false),
          {9, 33}, 70, ElementType::kF32);
    // Only subnormal (f16) or tiny (bf16) values in lhs: the tolerance
    // scales with them, so their widening is checked, not drowned.
    Tensor tiny = Random16(t, {5, 40}, rng, false);
    std::uniform_int_distribution<int> bits(1, 0x3FF);
    for (size_t i = 0; i < tiny.bytes.size(); i += 2) {
      const uint16_t v = static_cast<uint16_t>(bits(rng) | (i % 6 == 0 ? 0x8000 : 0));
      std::memcpy(tiny.bytes.data() + i, &v, 2);
    }
    Check(DotGeneral({}, {}, {1}, {0}), tiny, Random16(t, {40, 7}, rng, false), {5, 7}, 40, ElementType::kF32);
    // Batched, contracting dims first: the offset tables carry over.
    Check(DotGeneral({1}, {1}, {0}, {2}), Random16(t, {17, 3, 5}, rng, false), Random16(t, {9, 3, 17}, rng, false),
          {3, 5, 9}, 17, ElementType::kF32);
  }
}

TEST(CpuDotGeneral, BatchOneLayersRead16BitWeightsInPlace) {
  // At most 4 rows of f32 activations over bf16/f16 weights: the weights
  // are widened as the row-streaming product reads them (gemm.h,
  // RunGemvHalfB), within the f32 tolerance of the reference on every
  // target; every column tail of the vector blocks, specials, weights read
  // transposed (which take the widening path) and a batch.
  std::mt19937 rng(21);
  for (ElementType t : {ElementType::kBF16, ElementType::kF16}) {
    SCOPED_TRACE(t == ElementType::kF16 ? "f16" : "bf16");
    for (int64_t m : {1, 2, 4})
      for (int64_t n : {1, 7, 16, 33, 130, 300}) {
        SCOPED_TRACE("m " + std::to_string(m) + " n " + std::to_string(n));
        const KernelParams p = DotGeneral({}, {}, {1}, {0});
        Tensor lhs = Random(ElementType::kF32, {m, 70}, rng);
        Tensor rhs = Random16(t, {70, n}, rng, n == 130);
        const uint64_t before = GemvHalfBRuns();
        Check(p, lhs, rhs, {m, n}, 70, ElementType::kF32);
#if !KILN_SELECTIVE_BUILD
        EXPECT_GT(GemvHalfBRuns(), before) << "the 16-bit weights are read in place by the row-streaming product";
#endif
      }
    Check(DotGeneral({}, {}, {1}, {1}), Random(ElementType::kF32, {1, 40}, rng), Random16(t, {33, 40}, rng, false),
          {1, 33}, 40, ElementType::kF32);
    Check(DotGeneral({0}, {0}, {2}, {1}), Random(ElementType::kF32, {3, 2, 50}, rng), Random16(t, {3, 50, 21}, rng, true),
          {3, 2, 21}, 50, ElementType::kF32);
  }
}

TEST(CpuDotGeneral, HalfResults) {
  // bf16 x bf16 -> bf16 (JAX's default bf16 matmul) and f16: summed in f32
  // (operands widened exactly), rounded once to the 16-bit result; the
  // tolerance is the result type's rounding times the contraction length.
  std::mt19937 rng(12);
  for (ElementType t : {ElementType::kBF16, ElementType::kF16}) {
    SCOPED_TRACE(t == ElementType::kF16 ? "f16" : "bf16");
    Check(DotGeneral({}, {}, {1}, {0}), Random16(t, {63, 65}, rng, false), Random16(t, {65, 130}, rng, false),
          {63, 130}, 65, t);
    Check(DotGeneral({}, {}, {1}, {0}), Random16(t, {1, 64}, rng, false), Random16(t, {64, 33}, rng, false), {1, 33}, 64,
          t);
    Check(DotGeneral({}, {}, {1}, {0}), Random16(t, {9, 40}, rng, true), Random16(t, {40, 7}, rng, true), {9, 7}, 40, t);
    Check(DotGeneral({0}, {0}, {2}, {1}), Random16(t, {3, 5, 17}, rng, false), Random16(t, {3, 17, 9}, rng, false),
          {3, 5, 9}, 17, t);
  }
}

// bf16 x bf16 on the vdpbf16ps GEMM (gemm_bf16.h, AVX-512 BF16 CPUs) and
// with it switched off (operands widened to f32): the same tolerance as
// the f32 GEMM. Odd sizes over several tiles, micro-panel edges in every
// direction and an odd K, a transposed A, batches, a bf16 result; an
// operand with a subnormal takes the f32 path (the instruction would read
// it as zero), as a constant B with one does; a constant B packed once.
TEST(CpuDotGeneral, Bf16ProductsInPairs) {
  std::mt19937 rng(13);
  const ElementType bf16 = ElementType::kBF16, f32 = ElementType::kF32;
  // One reference result per case, the fast kernel with the bf16 GEMM and
  // without it.
  const std::vector<FastVariant> gemms = Bf16GemmOnAndOff();
  // (K = 640: whole tile steps only, longer than the AMX form reads in
  // place, so packed step-major.)
  for (const Shape& s :
       {Shape{131, 257, 99}, Shape{16, 2, 33}, Shape{40, 1031, 17}, Shape{97, 64, 130}, Shape{70, 640, 45}}) {
    SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n));
    Check(DotGeneral({}, {}, {1}, {0}), Random16(bf16, {s.m, s.k}, rng, false), Random16(bf16, {s.k, s.n}, rng, false),
          {s.m, s.n}, s.k, f32, gemms);
  }
  Check(DotGeneral({}, {}, {0}, {1}), Random16(bf16, {65, 50}, rng, false), Random16(bf16, {70, 65}, rng, false),
        {50, 70}, 65, f32, gemms);
  Check(DotGeneral({0}, {0}, {2}, {1}), Random16(bf16, {3, 40, 17}, rng, false),
        Random16(bf16, {3, 17, 50}, rng, false), {3, 40, 50}, 17, f32, gemms);
  Check(DotGeneral({}, {}, {1}, {0}), Random16(bf16, {100, 300}, rng, false), Random16(bf16, {300, 70}, rng, false),
        {100, 70}, 300, bf16, gemms);
  SetGemmBf16DisabledForTest(false);

  // The f32 path's bytes wherever an operand holds a subnormal.
  const KernelParams p = DotGeneral({}, {}, {1}, {0});
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  auto run = [&](Tensor& a, Tensor& b, KernelState* state, uint64_t b_constant, bool bf16_off) {
    return RunBf16Case(fast, p, a, b, {64, 48}, state, b_constant, bf16_off);
  };
  Tensor a = Random16(bf16, {64, 96}, rng, false), b = Random16(bf16, {96, 48}, rng, false);
  Tensor a_sub = a, b_sub = b;
  const uint16_t subnormal = 0x0005;
  std::memcpy(a_sub.bytes.data() + 2 * 777, &subnormal, 2);
  std::memcpy(b_sub.bytes.data() + 2 * 1000, &subnormal, 2);
  EXPECT_EQ(run(a_sub, b, nullptr, 0, false), run(a_sub, b, nullptr, 0, true));
  EXPECT_EQ(run(a, b_sub, nullptr, 0, false), run(a, b_sub, nullptr, 0, true));
  KernelState state;
  EXPECT_EQ(run(a, b_sub, &state, 71, false), run(a, b_sub, nullptr, 0, true)) << "a constant B with a subnormal";
  // A constant B: packed on the first call, the same bytes on later ones.
  const std::vector<uint8_t> first = run(a, b, &state, 72, false);
  EXPECT_EQ(run(a, b, &state, 72, false), first);
  EXPECT_EQ(run(a, b, nullptr, 0, false), first);
  if (GemmBf16Available()) {
    EXPECT_GE(state.bytes(), 96u * 48u * 2u) << "the packed B is kept";
  }
}

// KILN_BF16_GEMM fixes the choice: "0" never, any other value wherever
// the CPU has the instructions; unset, the measured choice, which also
// needs them. CTest runs this test alone with the variable set both ways
// (tests/CMakeLists.txt), and in the shards without it.
TEST(CpuDotGeneral, Bf16GemmChoiceFollowsTheEnvironment) {
  ClearGemmBf16ChoiceForTest();
  const char* env = std::getenv("KILN_BF16_GEMM");
  if (env == nullptr || *env == '\0') {
    EXPECT_TRUE(!GemmBf16Available() || GemmBf16Supported());
  } else if (std::string(env) == "0") {
    EXPECT_FALSE(GemmBf16Available());
  } else {
    EXPECT_EQ(GemmBf16Available(), GemmBf16Supported());
  }
  SetGemmBf16DisabledForTest(true);
  EXPECT_FALSE(GemmBf16Available()) << "the hook overrides the environment";
  SetGemmBf16DisabledForTest(false);
  EXPECT_EQ(GemmBf16Available(), GemmBf16Supported());
  ClearGemmBf16ChoiceForTest();
}

// 16-bit results of bf16 products rounded from the same f32 sums as the
// f32 result, tile by tile: edge tiles in both directions, an odd K (the
// pairs past the AMX form's last whole step), a batch.
TEST(CpuDotGeneral, Bf16GemmRoundsHalfResultsFromItsSums) {
  std::mt19937 rng(43);
  const ElementType bf16 = ElementType::kBF16;
  Tensor a = Random16(bf16, {131, 257}, rng, false), b = Random16(bf16, {257, 99}, rng, false);
  // A NaN with a payload in one row of A and an infinity in B: rows of
  // NaN sums (rounded element by element) and infinities.
  const uint16_t nan = 0x7FC5, inf = 0x7F80;
  std::memcpy(a.bytes.data() + 2 * (7 * 257 + 3), &nan, 2);
  std::memcpy(b.bytes.data() + 2 * (11 * 99 + 40), &inf, 2);
  ExpectHalfResultsRoundTheF32Sums(DotGeneral({}, {}, {1}, {0}), a, b, {131, 99});
  Tensor ba = Random16(bf16, {3, 40, 64}, rng, false), bb = Random16(bf16, {3, 64, 50}, rng, false);
  ExpectHalfResultsRoundTheF32Sums(DotGeneral({0}, {0}, {2}, {1}), ba, bb, {3, 40, 50});
}

TEST(CpuDotGeneral, TransposedOperands) {
  std::mt19937 rng(2);
  // lhs [k, m] (contracting first), rhs [n, k] (contracting last).
  Check(DotGeneral({}, {}, {0}, {1}), Random(ElementType::kF32, {65, 17}, rng),
        Random(ElementType::kF32, {63, 65}, rng), {17, 63}, 65);
  Check(DotGeneral({}, {}, {0}, {0}), Random(ElementType::kF32, {130, 3}, rng),
        Random(ElementType::kF32, {130, 33}, rng), {3, 33}, 130);
  // Large enough for the blocked path (2^26 multiply-adds and more), where A
  // with gathered rows is read in place through its offset table; odd sizes.
  Check(DotGeneral({}, {}, {0}, {0}), Random(ElementType::kF32, {257, 521}, rng),
        Random(ElementType::kF32, {257, 503}, rng), {521, 503}, 257);
}

TEST(CpuDotGeneral, BatchAndContractingDimsAnywhere) {
  std::mt19937 rng(3);
  // lhs [k=17, b=3, m=5], rhs [n=9, b=3, k=17]: result [3, 5, 9].
  Check(DotGeneral({1}, {1}, {0}, {2}), Random(ElementType::kF32, {17, 3, 5}, rng),
        Random(ElementType::kF32, {9, 3, 17}, rng), {3, 5, 9}, 17);
  // Two contracting dims in opposite orders: lhs [k1=4, m=7, k2=6], rhs [k2=6, n=11, k1=4].
  Check(DotGeneral({}, {}, {0, 2}, {2, 0}), Random(ElementType::kF32, {4, 7, 6}, rng),
        Random(ElementType::kF32, {6, 11, 4}, rng), {7, 11}, 24);
  // Two batch dims, swapped in rhs, and two free dims on each side:
  // lhs [b0=2, m0=3, k=13, b1=3, m1=2], rhs [b1=3, n0=5, k=13, b0=2, n1=1].
  Check(DotGeneral({0, 3}, {3, 0}, {2}, {2}), Random(ElementType::kF32, {2, 3, 13, 3, 2}, rng),
        Random(ElementType::kF32, {3, 5, 13, 2, 1}, rng), {2, 3, 3, 2, 5, 1}, 13);
  // Batched matmul, larger: [b=4, m=33, k=257] x [b=4, k=257, n=65].
  Check(DotGeneral({0}, {0}, {2}, {1}), Random(ElementType::kF32, {4, 33, 257}, rng),
        Random(ElementType::kF32, {4, 257, 65}, rng), {4, 33, 65}, 257);
  // No free dims at all (batched dot product): [b=6, k=70] x [b=6, k=70].
  Check(DotGeneral({0}, {0}, {1}, {1}), Random(ElementType::kF32, {6, 70}, rng),
        Random(ElementType::kF32, {6, 70}, rng), {6}, 70);
  // Outer product (no contracting dims).
  Check(DotGeneral({}, {}, {}, {}), Random(ElementType::kF32, {17}, rng), Random(ElementType::kF32, {19}, rng),
        {17, 19}, 1);
  // Few rows, three contracting dims with a size-1 one between (row-major:
  // the row-streaming path without offset tables), then the same rhs dims
  // contracted in another order (tables needed): lhs [m=2, 3, 1, 5],
  // rhs [3, 1, 5, n=70].
  Check(DotGeneral({}, {}, {1, 2, 3}, {0, 1, 2}), Random(ElementType::kF32, {2, 3, 1, 5}, rng),
        Random(ElementType::kF32, {3, 1, 5, 70}, rng), {2, 70}, 15);
  Check(DotGeneral({}, {}, {3, 2, 1}, {2, 1, 0}), Random(ElementType::kF32, {2, 3, 1, 5}, rng),
        Random(ElementType::kF32, {3, 1, 5, 70}, rng), {2, 70}, 15);
}

TEST(CpuDotGeneral, ZeroSizedDims) {
  std::mt19937 rng(4);
  // k = 0: the result is all zeros (the fast output starts as garbage).
  Check(DotGeneral({}, {}, {1}, {0}), Filled(ElementType::kF32, {5, 0}), Filled(ElementType::kF32, {0, 7}), {5, 7}, 0);
  Check(DotGeneral({0}, {0}, {2}, {1}), Filled(ElementType::kF32, {3, 4, 0}), Filled(ElementType::kF32, {3, 0, 2}),
        {3, 4, 2}, 0);
  // Empty results.
  Check(DotGeneral({}, {}, {1}, {0}), Filled(ElementType::kF32, {0, 5}), Random(ElementType::kF32, {5, 7}, rng),
        {0, 7}, 5);
  Check(DotGeneral({}, {}, {1}, {0}), Random(ElementType::kF32, {3, 5}, rng), Filled(ElementType::kF32, {5, 0}),
        {3, 0}, 5);
  Check(DotGeneral({0}, {0}, {2}, {1}), Filled(ElementType::kF32, {0, 4, 5}), Filled(ElementType::kF32, {0, 5, 2}),
        {0, 4, 2}, 5);
}

TEST(CpuDotGeneral, NaNsAndInfinities) {
  std::mt19937 rng(5);
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor lhs = Random(ElementType::kF32, {17, 63}, rng);
  Tensor rhs = Random(ElementType::kF32, {63, 65}, rng);
  lhs.Set(0 * 63 + 5, nan);    // row 0 -> NaN everywhere
  lhs.Set(3 * 63 + 7, inf);    // row 3 -> +-inf (or NaN where rhs[7][j] is 0)
  lhs.Set(4 * 63 + 1, inf);    // row 4: inf and -inf may meet -> NaN
  lhs.Set(4 * 63 + 2, -inf);
  rhs.Set(9 * 65 + 10, nan);   // column 10 -> NaN
  rhs.Set(7 * 65 + 20, 0.0);   // inf * 0 -> NaN at [3][20]
  rhs.Set(11 * 65 + 30, -inf); // column 30 -> +-inf
  Check(DotGeneral({}, {}, {1}, {0}), lhs, rhs, {17, 65}, 63);
}

TEST(CpuDotGeneral, Bf16SubnormalScanOnThePool) {
  // One subnormal (or none) among 300,000 bf16 values, at the start, in the
  // middle, in the last task's tail: the pooled scan finds it as the plain
  // one does. Zeros and the smallest normal are not subnormal.
  std::vector<uint16_t> x(300000, 0x3F80);  // 1.0
  x[7] = 0x0000, x[8] = 0x8000, x[9] = 0x0080;
  for (int64_t at : {-1, 0, 150001, 299999}) {
    SCOPED_TRACE(at);
    std::vector<uint16_t> y = x;
    if (at >= 0) y[static_cast<size_t>(at)] = 0x8001;
    const bool want = at >= 0;
    EXPECT_EQ(Bf16HasSubnormals(y.data(), static_cast<int64_t>(y.size())), want);
    EXPECT_EQ(Bf16HasSubnormals(y.data(), static_cast<int64_t>(y.size()), TestPool()), want);
  }
}

TEST(CpuDotGeneral, F64) {
  std::mt19937 rng(6);
  Check(DotGeneral({}, {}, {1}, {0}), Random(ElementType::kF64, {63, 65}, rng),
        Random(ElementType::kF64, {65, 130}, rng), {63, 130}, 65);
  Check(DotGeneral({1}, {0}, {0}, {2}), Random(ElementType::kF64, {17, 3, 5}, rng),
        Random(ElementType::kF64, {3, 9, 17}, rng), {3, 5, 9}, 17);
}

TEST(CpuDot, LegacyDot) {
  std::mt19937 rng(7);
  KernelParams p;
  p.kernel = "stablehlo.dot";
  Check(p, Random(ElementType::kF32, {17, 65}, rng), Random(ElementType::kF32, {65, 3}, rng), {17, 3}, 65);
  Check(p, Random(ElementType::kF32, {17, 65}, rng), Random(ElementType::kF32, {65}, rng), {17}, 65);
  Check(p, Random(ElementType::kF32, {130}, rng), Random(ElementType::kF32, {130}, rng), {}, 130);
}

KILN_TEST_ALL_TARGETS(CpuDotGeneral, FallsBackToReference) {
  KernelParams p = DotGeneral({}, {}, {1}, {0});
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  // i32 operands: the reference's exact integer results.
  Tensor lhs{ElementType::kSI32, {2, 3}, std::vector<uint8_t>(24)};
  Tensor rhs{ElementType::kSI32, {3, 2}, std::vector<uint8_t>(24)};
  Tensor out{ElementType::kSI32, {2, 2}, std::vector<uint8_t>(16)};
  const int32_t a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {7, 8, 9, 10, 11, 12};
  std::memcpy(lhs.bytes.data(), a, 24);
  std::memcpy(rhs.bytes.data(), b, 24);
  ASSERT_TRUE(RunKernel(fast, p, lhs, rhs, out).ok());
  int32_t c[4];
  std::memcpy(c, out.bytes.data(), 16);
  EXPECT_EQ(c[0], 58);
  EXPECT_EQ(c[1], 64);
  EXPECT_EQ(c[2], 139);
  EXPECT_EQ(c[3], 154);
  // Mismatched contracting sizes: the reference's error.
  Tensor l2 = Filled(ElementType::kF32, {2, 3}), r2 = Filled(ElementType::kF32, {4, 2}), o2 = Filled(ElementType::kF32, {2, 2});
  Status s = RunKernel(fast, p, l2, r2, o2);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("contracting dimension sizes differ"), std::string::npos) << s.message();
  // A result of the wrong shape.
  Tensor o3 = Filled(ElementType::kF32, {2, 3});
  Tensor r3 = Filled(ElementType::kF32, {3, 2});
  EXPECT_FALSE(RunKernel(fast, p, l2, r3, o3).ok());
  // Mixed element types (f32 operands, f64 result) go to the reference.
  Tensor o4 = Filled(ElementType::kF64, {2, 2});
  EXPECT_TRUE(RunKernel(fast, p, l2, r3, o4).ok());
}

KILN_TEST_ALL_TARGETS(CpuRegistry, FindsOnlyWhatApplies) {
  EXPECT_NE(FindCpuKernel(DotGeneral({}, {}, {1}, {0})), nullptr);
  EXPECT_EQ(FindCpuKernel(DotGeneral({0}, {}, {1}, {0})), nullptr);  // batch counts differ
  KernelParams t;
  t.kernel = "stablehlo.transpose";
  EXPECT_NE(FindCpuKernel(t), nullptr);
  KernelParams s;
  s.kernel = "stablehlo.sort";  // no fast kernel: the reference runs it
  EXPECT_EQ(FindCpuKernel(s), nullptr);
}

}  // namespace
}  // namespace kiln::cpu

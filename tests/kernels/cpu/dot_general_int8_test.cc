// The int8 GEMM (kernels/cpu/gemm_int8.cc) behind the fast dot_general and
// convolution on i8/ui8 operands with an i32 result, against the reference
// kernel: bit-identical on every Highway target (and, on AVX-512, with VNNI
// switched off), on random values of odd sizes, every mix of signed and
// unsigned operands, the extreme stored values, transposed and batched
// operands, sums that wrap past 2^31, the thread pool, and a constant B
// packed once; convolutions in NHWC and NCHW, grouped and depthwise, with
// padding, strides, dilation and reversal.
#include <gtest/gtest.h>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/kernel_state.h"
#include "kernels/cpu/convolution_depthwise_int8.h"
#include "kernels/cpu/gemm_int8.h"
#include "kernels/cpu/registry.h"
#include "kernels/reference/registry.h"
#include "tests/kernels/cpu/contraction_test_util.h"
#include "tests/kernels/cpu/hwy_test_util.h"
#include "tests/kernels/cpu/test_pool.h"
#include "tests/kernels/tensor_test_util.h"

namespace kiln::cpu {
namespace {

using namespace ::kiln::test;  // Tensor, Zeros, Ints

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

// Random bytes; with `extremes`, only the ends of the range (-128/127 as i8,
// 0/255 as ui8), where a shift by 128 or a missed correction shows.
Tensor Bytes(ElementType t, std::vector<int64_t> dims, std::mt19937& rng, bool extremes = false) {
  Tensor x = Zeros(t, std::move(dims));
  std::uniform_int_distribution<int> u(0, 255);
  for (auto& b : x.bytes) b = static_cast<uint8_t>(extremes ? (u(rng) & 1 ? 0x80 : 0x7F) ^ (u(rng) & 1 ? 0xFF : 0) : u(rng));
  return x;
}

Status RunDot(KernelFn fn, const KernelParams& p, Tensor& lhs, Tensor& rhs, Tensor& out, TaskRunner* runner = nullptr,
           KernelState* state = nullptr, uint64_t rhs_constant = 0) {
  TensorRef in[2] = {lhs.ref(), rhs.ref()};
  in[1].constant_id = rhs_constant;
  TensorRef o[1] = {out.ref()};
  KernelCall call{p, in, o, runner};
  call.state = state;
  return fn(call);
}

// The fast kernel on every target (and the widening path on AVX-512), one
// thread and the pool, equal to the reference byte for byte.
void Check(const KernelParams& p, Tensor lhs, Tensor rhs, std::vector<int64_t> out_dims) {
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  KernelFn ref = ref::FindReferenceKernel(p.kernel);
  ASSERT_NE(ref, nullptr);
  Tensor want = Zeros(ElementType::kSI32, out_dims);
  ASSERT_TRUE(RunDot(ref, p, lhs, rhs, want).ok());
  // The best form (AMX tiles where present), the AVX-512 VNNI form with
  // AMX off, and the widening form with byte dot products off.
  for (int form : {0, 1, 2}) {
    SetInt8AmxDisabledForTest(form >= 1);
    SetInt8DotProductDisabledForTest(form == 2);
    SCOPED_TRACE(form == 0 ? "best form" : form == 1 ? "AMX off" : "dot products off");
    ForEachTarget([&] {
      Tensor got = Zeros(ElementType::kSI32, out_dims);
      std::memset(got.bytes.data(), 0x5A, got.bytes.size());  // every element must be written
      ASSERT_TRUE(RunDot(fast, p, lhs, rhs, got).ok());
      EXPECT_EQ(Get<int32_t>(got), Get<int32_t>(want));
      Tensor threaded = Zeros(ElementType::kSI32, out_dims);
      ASSERT_TRUE(RunDot(fast, p, lhs, rhs, threaded, TestPool()).ok());
      EXPECT_EQ(Get<int32_t>(threaded), Get<int32_t>(want)) << "threaded";
    });
  }
  SetInt8DotProductDisabledForTest(false);
  SetInt8AmxDisabledForTest(false);
}

constexpr ElementType kI8 = ElementType::kSI8, kU8 = ElementType::kUI8;

TEST(CpuDotGeneralInt8, OddSizesEveryTypeMix) {
  std::mt19937 rng(7);
  const int64_t sizes[] = {1, 3, 17, 65, 130};
  for (ElementType lt : {kI8, kU8})
    for (ElementType rt : {kI8, kU8})
      for (int64_t m : sizes)
        for (int64_t k : sizes)
          for (int64_t n : {int64_t{1}, int64_t{17}, int64_t{130}}) {
            SCOPED_TRACE(std::string(Name(lt)) + "x" + std::string(Name(rt)) + " " + std::to_string(m) +
                         "x" + std::to_string(k) + "x" + std::to_string(n));
            Check(DotGeneral({}, {}, {1}, {0}), Bytes(lt, {m, k}, rng), Bytes(rt, {k, n}, rng), {m, n});
          }
}

// Contractions in whole steps of 64 (the AMX form reads A in place there
// with an i8 B): row-major A, a transposed A (steps not contiguous: the
// packed path), a batch, edge rows and columns of every size, extremes;
// and rows longer than the AMX form reads in place (K = 576, packed:
// amx::LongDistinctRows).
TEST(CpuDotGeneralInt8, WholeStepsOf64) {
  std::mt19937 rng(9);
  for (ElementType lt : {kI8, kU8})
    for (ElementType rt : {kI8, kU8})
      for (bool extremes : {false, true}) {
        SCOPED_TRACE(std::string(Name(lt)) + "x" + std::string(Name(rt)) + (extremes ? " extremes" : ""));
        Check(DotGeneral({}, {}, {1}, {0}), Bytes(lt, {65, 128}, rng, extremes), Bytes(rt, {128, 70}, rng, extremes),
              {65, 70});
        Check(DotGeneral({}, {}, {1}, {0}), Bytes(lt, {33, 192}, rng, extremes), Bytes(rt, {192, 130}, rng, extremes),
              {33, 130});
        Check(DotGeneral({}, {}, {0}, {0}), Bytes(lt, {64, 47}, rng, extremes), Bytes(rt, {64, 40}, rng, extremes),
              {47, 40});
        Check(DotGeneral({0}, {0}, {2}, {1}), Bytes(lt, {2, 20, 64}, rng, extremes),
              Bytes(rt, {2, 64, 36}, rng, extremes), {2, 20, 36});
        Check(DotGeneral({}, {}, {1}, {0}), Bytes(lt, {45, 576}, rng, extremes), Bytes(rt, {576, 40}, rng, extremes),
              {45, 40});
      }
}

// Contractions of at most 32 bytes (the AMX form's narrow tiles: one step
// of 32): K = 32 row-major (A read in place with an i8 B), transposed (A
// packed), batched, and K = 20 and 7 (packed, zero-padded to 32).
TEST(CpuDotGeneralInt8, NarrowContractionsOf32) {
  std::mt19937 rng(10);
  for (ElementType lt : {kI8, kU8})
    for (ElementType rt : {kI8, kU8})
      for (bool extremes : {false, true}) {
        SCOPED_TRACE(std::string(Name(lt)) + "x" + std::string(Name(rt)) + (extremes ? " extremes" : ""));
        Check(DotGeneral({}, {}, {1}, {0}), Bytes(lt, {67, 32}, rng, extremes), Bytes(rt, {32, 70}, rng, extremes),
              {67, 70});
        Check(DotGeneral({}, {}, {0}, {0}), Bytes(lt, {32, 47}, rng, extremes), Bytes(rt, {32, 40}, rng, extremes),
              {47, 40});
        Check(DotGeneral({0}, {0}, {2}, {1}), Bytes(lt, {2, 33, 32}, rng, extremes),
              Bytes(rt, {2, 32, 36}, rng, extremes), {2, 33, 36});
        for (int64_t k : {20, 7})
          Check(DotGeneral({}, {}, {1}, {0}), Bytes(lt, {40, k}, rng, extremes), Bytes(rt, {k, 33}, rng, extremes),
                {40, 33});
      }
}

TEST(CpuDotGeneralInt8, ExtremeValues) {
  std::mt19937 rng(8);
  for (ElementType lt : {kI8, kU8})
    for (ElementType rt : {kI8, kU8}) {
      SCOPED_TRACE(std::string(Name(lt)) + "x" + std::string(Name(rt)));
      Check(DotGeneral({}, {}, {1}, {0}), Bytes(lt, {65, 130}, rng, true), Bytes(rt, {130, 33}, rng, true), {65, 33});
    }
}

TEST(CpuDotGeneralInt8, SumsWrapPast31Bits) {
  // 255 * 255 * 40000 > 2^31: the i32 sum wraps, in the reference as here.
  Tensor lhs = Zeros(kU8, {2, 40000}), rhs = Zeros(kU8, {40000, 3});
  std::fill(lhs.bytes.begin(), lhs.bytes.end(), 255);
  std::fill(rhs.bytes.begin(), rhs.bytes.end(), 255);
  Check(DotGeneral({}, {}, {1}, {0}), lhs, rhs, {2, 3});
}

TEST(CpuDotGeneralInt8, TransposedAndBatched) {
  std::mt19937 rng(9);
  // lhs [k, m], rhs [n, k].
  Check(DotGeneral({}, {}, {0}, {1}), Bytes(kI8, {65, 17}, rng), Bytes(kI8, {33, 65}, rng), {17, 33});
  // Batch dims in the middle, two contracting dims.
  Check(DotGeneral({1}, {2}, {0, 3}, {1, 0}), Bytes(kU8, {5, 3, 9, 7}, rng), Bytes(kI8, {7, 5, 3, 11}, rng),
        {3, 9, 11});
  // Large enough to be split over the pool.
  Check(DotGeneral({}, {}, {1}, {0}), Bytes(kU8, {200, 300}, rng), Bytes(kI8, {300, 150}, rng), {200, 150});
}

TEST(CpuDotGeneralInt8, ConstantWeightsPackedOnceAndReused) {
  std::mt19937 rng(10);
  const KernelParams p = DotGeneral({}, {}, {1}, {0});
  Tensor lhs = Bytes(kI8, {33, 65}, rng), rhs = Bytes(kI8, {65, 70}, rng);
  Tensor want = Zeros(ElementType::kSI32, {33, 70});
  ASSERT_TRUE(RunDot(ref::FindReferenceKernel(p.kernel), p, lhs, rhs, want).ok());
  KernelState state;
  KernelFn fast = FindCpuKernel(p);
  for (int call = 0; call < 3; ++call) {
    Tensor got = Zeros(ElementType::kSI32, {33, 70});
    ASSERT_TRUE(RunDot(fast, p, lhs, rhs, got, nullptr, &state, 42).ok());
    EXPECT_EQ(Get<int32_t>(got), Get<int32_t>(want)) << "call " << call;
  }
  EXPECT_GT(state.bytes(), 33u * 65u) << "the packed B is kept";
}

// The tests above ran the byte dot product where the CPU has one (VNNI on
// the AVX3 target, SMMLA or SDOT on arm64), and the widening path with it
// disabled: in pairs of K (vpmaddwd) on x86, one step at a time elsewhere
// (and on the SCALAR and EMU128 targets the tests also run).
TEST(CpuDotGeneralInt8, DotProductChosenWhereTheCpuHasIt) {
#if defined(__x86_64__) && defined(__GNUC__)
  const char* widen = "pairs";
  const bool vnni = __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw");
  // AMX where the CPU has its int8 tiles and Linux grants the tile state.
#if defined(__linux__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  const bool amx_int8 = vnni && __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && (d & (1u << 24)) != 0 &&
                        (d & (1u << 25)) != 0 && syscall(SYS_arch_prctl, 0x1023, 18) == 0;
#else
  const bool amx_int8 = false;
#endif
  const char* expected = amx_int8 ? "amx" : vnni ? "vnni" : widen;
#elif defined(__aarch64__) && defined(__linux__)
  const char* expected = (getauxval(AT_HWCAP2) & HWCAP2_I8MM) != 0     ? "smmla"
                         : (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0 ? "sdot"
                                                                     : "widen";
#else
  const char* expected = "widen";
#endif
#if !(defined(__x86_64__) && defined(__GNUC__))
  const char* widen = "widen";
#endif
  EXPECT_STREQ(Int8GemmForm(), expected);
#if defined(__x86_64__) && defined(__GNUC__)
  SetInt8AmxDisabledForTest(true);
  EXPECT_STREQ(Int8GemmForm(), vnni ? "vnni" : widen);
  SetInt8AmxDisabledForTest(false);
#endif
  SetInt8DotProductDisabledForTest(true);
  EXPECT_STREQ(Int8GemmForm(), widen);
  SetInt8DotProductDisabledForTest(false);
}

TEST(CpuDotGeneralInt8, OtherTypesStayOnTheirPaths) {
  EXPECT_TRUE(Int8GemmTypes(kI8, kU8, ElementType::kSI32));
  EXPECT_FALSE(Int8GemmTypes(kI8, kI8, ElementType::kSI16));
  EXPECT_FALSE(Int8GemmTypes(ElementType::kSI16, kI8, ElementType::kSI32));
  // An i8 result (the reference's wrapping i8 sums) still matches: the
  // reference runs it.
  std::mt19937 rng(11);
  const KernelParams p = DotGeneral({}, {}, {1}, {0});
  Tensor lhs = Bytes(kI8, {5, 7}, rng), rhs = Bytes(kI8, {7, 3}, rng);
  Tensor want = Zeros(kI8, {5, 3}), got = Zeros(kI8, {5, 3});
  ASSERT_TRUE(RunDot(ref::FindReferenceKernel(p.kernel), p, lhs, rhs, want).ok());
  ASSERT_TRUE(RunDot(FindCpuKernel(p), p, lhs, rhs, got).ok());
  EXPECT_EQ(got.bytes, want.bytes);
}


// Convolutions on the int8 GEMM (contraction_convolution.cc).
using contraction_test::ConvParams;
using contraction_test::ConvSpec;

// Each operand type mix on random bytes, then on the extreme values.
void CheckConvInt8(const ConvSpec& c, uint32_t seed) {
  std::mt19937 rng(seed);
  for (ElementType lt : {kI8, kU8})
    for (ElementType rt : {kI8, kU8})
      for (bool extremes : {false, true}) {
        SCOPED_TRACE(std::string(Name(lt)) + "x" + std::string(Name(rt)) + (extremes ? " extremes" : ""));
        Check(ConvParams(c), Bytes(lt, c.lhs_dims, rng, extremes), Bytes(rt, c.rhs_dims, rng, extremes), c.out_dims);
      }
}

TEST(CpuConvolutionInt8, NhwcPaddedStrided) {
  // 2x9x11x5 -> 7 features, 3x3, stride 2, padding 1: (9 + 2 - 3) / 2 + 1 = 5, (11 + 2 - 3) / 2 + 1 = 6.
  CheckConvInt8({{2, 9, 11, 5}, {3, 3, 5, 7}, {2, 5, 6, 7}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {2, 2},
                 {1, 1, 1, 1}},
                21);
}

// Channel-last convolutions over 64 and 128 features (whole steps of 64
// bytes per tap: the AMX form loads a half panel of output pixels along
// one output row straight from the padded input, and packs the halves
// that cross a row): output rows of 37 and 20 pixels, strides 1 and 2,
// padding, a 1x1 kernel, two images.
TEST(CpuConvolutionInt8, NhwcWholeStepsOfFeatures) {
  CheckConvInt8({{2, 3, 37, 64}, {3, 3, 64, 40}, {2, 3, 37, 40}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {1, 1},
                 {1, 1, 1, 1}},
                26);
  CheckConvInt8({{1, 9, 40, 64}, {3, 3, 64, 33}, {1, 5, 20, 33}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {2, 2},
                 {1, 1, 1, 1}},
                27);
  CheckConvInt8({{2, 3, 19, 128}, {1, 1, 128, 20}, {2, 3, 19, 20}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}}, 28);
  // The narrow AMX form: a 1x1 convolution over 32 features (its pixels
  // read in place, 16 evenly spaced rows a half; the last row's half is
  // gathered) and a 3x3 over 3 (K = 27, packed).
  CheckConvInt8({{2, 5, 19, 32}, {1, 1, 32, 48}, {2, 5, 19, 48}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}}, 29);
  CheckConvInt8({{1, 9, 11, 3}, {3, 3, 3, 40}, {1, 9, 11, 40}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {1, 1},
                 {1, 1, 1, 1}},
                30);
}

TEST(CpuConvolutionInt8, NchwStridesDilationReversal) {
  ConvSpec c{{2, 3, 13, 10}, {4, 3, 3, 2}, {}, 0, 1, 1, 0, 0, 1, {2, 3}, {2, 3}, {2, 3}, {2, 3}, {1, 0, 2, 1}, {2, 1},
             {1, 0}};
  c.out_dims = {2, 4, (13 + 1 - 5) / 2 + 1, (10 + 3 - 2) / 3 + 1};
  CheckConvInt8(c, 22);
}

TEST(CpuConvolutionInt8, GroupedDepthwiseAndOddLayouts) {
  // Two feature groups, NHWC (the result is not the GEMM's own layout).
  ConvSpec grouped{{1, 7, 8, 6}, {3, 3, 3, 8}, {1, 5, 6, 8}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}};
  grouped.groups = 2;
  CheckConvInt8(grouped, 23);
  // Depthwise 3x3, padding 1, 16 features.
  ConvSpec depthwise{{2, 6, 7, 16}, {3, 3, 1, 16}, {2, 6, 7, 16}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
                     {1, 1, 1, 1}};
  depthwise.groups = 16;
  CheckConvInt8(depthwise, 24);
  // 112 features (7 blocks of 16: groups of 4, 2 and 1 on AVX2), an even
  // number of taps (2x2), uneven padding, and a 1x1 kernel (one tap).
  ConvSpec wide{{1, 5, 6, 112}, {2, 2, 1, 112}, {1, 5, 6, 112}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
                {0, 1, 1, 0}};
  wide.groups = 112;
  CheckConvInt8(wide, 29);
  ConvSpec one_tap{{2, 3, 4, 48}, {1, 1, 1, 48}, {2, 3, 4, 48}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}};
  one_tap.groups = 48;
  CheckConvInt8(one_tap, 30);
  // Depthwise NCHW (the planar form): stride and dilation, reversal, odd widths.
  ConvSpec planar{{2, 16, 9, 21}, {16, 1, 3, 3}, {2, 16, 5, 19}, 0, 1, 1, 0, 0, 1, {2, 3}, {2, 3}, {2, 3}, {2, 1},
                  {1, 1, 1, 1}, {1, 2}, {1, 0}};
  planar.groups = 16;
  CheckConvInt8(planar, 28);
  // Input [feature, spatial, batch], kernel [spatial, out, in], one spatial dim.
  CheckConvInt8({{6, 17, 3}, {4, 8, 6}, {14, 8, 3}, 2, 0, 2, 1, 2, 1, {1}, {0}, {0}}, 25);
}

// The NHWC depthwise form on AVX-512 VNNI (four taps per vpdpbusd, blocks
// of 32 features, a last block of 16 on the pairs): 9 taps (quads padded
// with zero weights), 25 taps with dilation, and a 1x1 kernel; every type
// pair (u8 x u8 takes the pairs), with the VNNI forms on and off.
TEST(CpuConvolutionInt8, DepthwiseQuadsOfTaps) {
  for (bool vnni_off : {false, true}) {
    SCOPED_TRACE(vnni_off ? "VNNI off" : "VNNI on");
    SetInt8DotProductDisabledForTest(vnni_off);
    ConvSpec three{{2, 7, 6, 64}, {3, 3, 1, 64}, {2, 7, 6, 64}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
                   {1, 1, 1, 1}};
    three.groups = 64;
    CheckConvInt8(three, 31);
    // Height 11 + 2 - 5 + 1 = 9; width 12 + 1 - 9 + 1 = 5 (dilation 2).
    ConvSpec five{{1, 11, 12, 80}, {5, 5, 1, 80}, {1, 9, 5, 80}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
                  {1, 1, 1, 0}, {1, 2}};
    five.groups = 80;
    CheckConvInt8(five, 32);
    ConvSpec one{{3, 2, 5, 96}, {1, 1, 1, 96}, {3, 2, 5, 96}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}};
    one.groups = 96;
    CheckConvInt8(one, 33);
  }
  SetInt8DotProductDisabledForTest(false);
}

// The NHWC depthwise convolution read row by row on AVX-512 VNNI
// (DepthwiseInt8Rows: interleaved input rows, one vpdpbusd per kernel row
// and quad of its columns), and the other forms where VNNI is off or the
// target is not AVX-512: strides, dilation, padding on every side (whole
// windows in it), kernels 2 to 7 wide, feature counts with tails of whole
// and partial groups of 8, spatial dims in either order in the input and
// the result, reversal.
TEST(CpuConvolutionInt8, DepthwiseRowsOfTaps) {
  for (bool vbmi_off : {false, true}) {
  SCOPED_TRACE(vbmi_off ? "rows interleaved by byte shuffles" : "rows interleaved by vpermt2b where the CPU has it");
  SetDepthwiseRowsVbmiDisabledForTest(vbmi_off);
  // 3x3, stride 2, padding top 2, bottom 1, left 1, right 3; 44 features
  // (32 + 8 + 4). Height (9 + 3 - 3) / 2 + 1 = 5, width (10 + 4 - 3) / 2 + 1 = 6.
  ConvSpec strided{{1, 9, 10, 44}, {3, 3, 1, 44}, {1, 5, 6, 44}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {2, 2},
                   {2, 1, 1, 3}};
  strided.groups = 44;
  CheckConvInt8(strided, 41);
  // 2x5 (two quads per kernel row), dilation 3 x 2, 200 features. Height
  // 8 + 1 - 4 + 1 = 6, width 13 + 8 - 9 + 1 = 13.
  ConvSpec dilated{{2, 8, 13, 200}, {2, 5, 1, 200}, {2, 6, 13, 200}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
                   {1, 0, 4, 4}, {3, 2}};
  dilated.groups = 200;
  CheckConvInt8(dilated, 42);
  // 3x3 over 59 features: the last 27 (more than half of a 32-feature
  // group) interleaved through masked loads and stores.
  ConvSpec odd{{1, 6, 7, 59}, {3, 3, 1, 59}, {1, 6, 7, 59}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
               {1, 1, 1, 1}};
  odd.groups = 59;
  CheckConvInt8(odd, 45);
  // 1x7 over 8 features.
  ConvSpec wide{{1, 3, 20, 8}, {1, 7, 1, 8}, {1, 3, 20, 8}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
                {0, 0, 3, 3}};
  wide.groups = 8;
  CheckConvInt8(wide, 43);
  // Input and result [batch, x, y, feature] (the spatial dims swapped), 3x3
  // reversed along its first dim, 4 rows of padding on top: the first
  // output rows' windows lie wholly in it. Height 5 + 4 - 3 + 1 = 7.
  ConvSpec swapped{{2, 7, 5, 64}, {3, 3, 1, 64}, {2, 7, 7, 64}, 0, 3, 2, 3, 0, 3, {2, 1}, {0, 1}, {2, 1}, {},
                   {4, 0, 1, 1}, {}, {1, 0}};
  swapped.groups = 64;
  CheckConvInt8(swapped, 44);
  }
  SetDepthwiseRowsVbmiDisabledForTest(false);
}

// Requantizing producers (kernels/reference/epilogue.h): the product's i32
// accumulators requantized to 8 bits inside the dispatch, per-axis product
// scales with zero points (the folded zero-point corrections), per-tensor
// result parameters, a narrowed storage range. Equal to the reference byte
// for byte on every target, one thread and the pool: the channel-last
// convolution over several chunks of batch elements (the depth-bounded
// requantize without overflow checks), feature-major, depthwise, and
// dot_general (the whole product first).
KernelParams WithRequantize(KernelParams p, int64_t features, int64_t axis, ElementType out, std::mt19937& rng) {
  std::uniform_real_distribution<double> scale(1e-4, 3e-3);
  std::uniform_int_distribution<int> zp(-3000, 3000);
  KernelAttr s, z;
  s.name = "product_scales", z.name = "product_zero_points";
  for (int64_t f = 0; f < features; ++f) {
    s.floats.push_back(scale(rng));
    z.ints.push_back(zp(rng));
  }
  p.attrs.push_back(s);
  p.attrs.push_back(z);
  p.attrs.push_back(Ints("product_quantized_dimension", {axis}));
  KernelAttr rs;
  rs.name = "scales";
  rs.floats = {0.07};
  p.attrs.push_back(rs);
  p.attrs.push_back(Ints("zero_points", {out == kI8 ? -5 : 100}));
  p.attrs.push_back(Ints("storage_min", {out == kI8 ? -128 : 3}));
  p.attrs.push_back(Ints("storage_max", {out == kI8 ? 120 : 255}));
  return p;
}

void CheckRequantized(const KernelParams& p, Tensor lhs, Tensor rhs, std::vector<int64_t> out_dims, ElementType out) {
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  KernelFn ref = ref::FindReferenceKernel(p.kernel);
  Tensor want = Zeros(out, out_dims);
  ASSERT_TRUE(RunDot(ref, p, lhs, rhs, want).ok());
  // Every int8 GEMM form, as Check: the requantize takes each form's tiles
  // as they are finished (GemmTileSink).
  for (int form : {0, 1, 2}) {
    SetInt8AmxDisabledForTest(form >= 1);
    SetInt8DotProductDisabledForTest(form == 2);
    SCOPED_TRACE(form == 0 ? "best form" : form == 1 ? "AMX off" : "dot products off");
    ForEachTarget([&] {
      Tensor got = Zeros(out, out_dims), threaded = Zeros(out, out_dims);
      std::memset(got.bytes.data(), 0x5A, got.bytes.size());
      ASSERT_TRUE(RunDot(fast, p, lhs, rhs, got).ok());
      EXPECT_EQ(got.bytes, want.bytes);
      ASSERT_TRUE(RunDot(fast, p, lhs, rhs, threaded, TestPool()).ok());
      EXPECT_EQ(threaded.bytes, want.bytes) << "threaded";
    });
  }
  SetInt8DotProductDisabledForTest(false);
  SetInt8AmxDisabledForTest(false);
}

TEST(CpuConvolutionInt8, RequantizingProducers) {
  std::mt19937 rng(34);
  for (ElementType out : {kI8, kU8}) {
    SCOPED_TRACE(Name(out));
    // 5 images of 24x24x56 accumulators: chunks of 4 images (about 512
    // KiB), then 1.
    ConvSpec nhwc{{5, 24, 24, 8}, {3, 3, 8, 56}, {5, 24, 24, 56}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
                  {1, 1, 1, 1}};
    CheckRequantized(WithRequantize(ConvParams(nhwc), 56, 3, out, rng), Bytes(kI8, nhwc.lhs_dims, rng),
                     Bytes(kI8, nhwc.rhs_dims, rng), nhwc.out_dims, out);
    ConvSpec nchw{{2, 6, 9, 9}, {10, 6, 3, 3}, {2, 10, 9, 9}, 0, 1, 1, 0, 0, 1, {2, 3}, {2, 3}, {2, 3}, {},
                  {1, 1, 1, 1}};
    CheckRequantized(WithRequantize(ConvParams(nchw), 10, 1, out, rng), Bytes(kU8, nchw.lhs_dims, rng),
                     Bytes(kI8, nchw.rhs_dims, rng), nchw.out_dims, out);
    ConvSpec dw{{3, 9, 10, 48}, {3, 3, 1, 48}, {3, 9, 10, 48}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
                {1, 1, 1, 1}};
    dw.groups = 48;
    CheckRequantized(WithRequantize(ConvParams(dw), 48, 3, out, rng), Bytes(kI8, dw.lhs_dims, rng, true),
                     Bytes(kI8, dw.rhs_dims, rng, true), dw.out_dims, out);
    CheckRequantized(WithRequantize(DotGeneral({}, {}, {1}, {0}), 33, 1, out, rng), Bytes(kU8, {37, 70}, rng),
                     Bytes(kI8, {70, 33}, rng), {37, 33}, out);
    // A 1x1 convolution over 64 features (whole AMX steps: A read in place)
    // into 300: more columns than one task's panels, so each row of the
    // result is requantized in pieces; 2 images of 7 x 9.
    ConvSpec wide{{2, 7, 9, 64}, {1, 1, 64, 300}, {2, 7, 9, 300}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
                  {0, 0, 0, 0}};
    CheckRequantized(WithRequantize(ConvParams(wide), 300, 3, out, rng), Bytes(kI8, wide.lhs_dims, rng),
                     Bytes(kI8, wide.rhs_dims, rng), wide.out_dims, out);
  }
}

// A padding value (padding_value: the zero point the CPU target's compiler
// folds from a pad into the 8-bit convolution): the padded elements hold
// it, on every path (channel-last GEMM with per-chunk padding, feature-major,
// NHWC depthwise, planar depthwise), both storage types, against the
// reference; a value outside the storage range goes to the reference, and
// a float convolution with one is refused.
TEST(CpuConvolutionInt8, PaddingValue) {
  std::mt19937 rng(35);
  auto with_value = [](KernelParams p, int64_t v) {
    p.attrs.push_back(Ints("padding_value", {v}));
    return p;
  };
  ConvSpec nhwc{{2, 7, 6, 8}, {3, 3, 8, 24}, {2, 7, 6, 24}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
                {1, 1, 2, 0}};
  nhwc.out_dims = {2, 7, 7 + 2 - 3 + 1 - 1, 24};
  ConvSpec nchw{{2, 6, 9, 9}, {10, 6, 3, 3}, {2, 10, 9, 9}, 0, 1, 1, 0, 0, 1, {2, 3}, {2, 3}, {2, 3}, {},
                {1, 1, 1, 1}};
  ConvSpec dw{{2, 6, 7, 64}, {3, 3, 1, 64}, {2, 6, 7, 64}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
              {1, 1, 1, 1}};
  dw.groups = 64;
  ConvSpec planar{{2, 16, 9, 21}, {16, 1, 3, 3}, {2, 16, 9, 21}, 0, 1, 1, 0, 0, 1, {2, 3}, {2, 3}, {2, 3}, {},
                  {1, 1, 1, 1}};
  planar.groups = 16;
  for (const ConvSpec* c : {&nhwc, &nchw, &dw, &planar})
    for (ElementType lt : {kI8, kU8}) {
      const int64_t v = lt == kI8 ? -77 : 201;
      SCOPED_TRACE(std::string(Name(lt)) + " padding value " + std::to_string(v));
      Check(with_value(ConvParams(*c), v), Bytes(lt, c->lhs_dims, rng), Bytes(kI8, c->rhs_dims, rng), c->out_dims);
    }
  // Out of the i8 range: the reference's (still the value, in i32 sums).
  Check(with_value(ConvParams(nhwc), 300), Bytes(kI8, nhwc.lhs_dims, rng), Bytes(kI8, nhwc.rhs_dims, rng),
        nhwc.out_dims);
  Tensor x = Zeros(ElementType::kF32, nhwc.lhs_dims), w = Zeros(ElementType::kF32, nhwc.rhs_dims);
  Tensor y = Zeros(ElementType::kF32, nhwc.out_dims);
  const Status refused = RunDot(ref::FindReferenceKernel("stablehlo.convolution"), with_value(ConvParams(nhwc), 1), x, w, y);
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("padding_value"), std::string::npos) << refused.message();
}

// Malformed requantizing producers (a hostile module's attributes): a float
// result, per-axis product scales of the wrong count or on an axis past
// the rank are reported, not read out of bounds; an i32 result is a
// requantize into i32, as the reference computes it.
TEST(CpuConvolutionInt8, MalformedRequantizingProducersAreErrors) {
  std::mt19937 rng(36);
  ConvSpec c{{2, 5, 5, 8}, {3, 3, 8, 16}, {2, 5, 5, 16}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {}, {1, 1, 1, 1}};
  Tensor x = Bytes(kI8, c.lhs_dims, rng), w = Bytes(kI8, c.rhs_dims, rng);
  for (const KernelParams& base : {ConvParams(c), DotGeneral({}, {}, {3}, {2})}) {
    SCOPED_TRACE(base.kernel);
    KernelFn fast = FindCpuKernel(base);
    ASSERT_NE(fast, nullptr);
    const std::vector<int64_t> out_dims = base.kernel == "stablehlo.convolution" ? c.out_dims
                                                                                  : std::vector<int64_t>{2, 5, 5, 3, 3, 16};
    Tensor wd = base.kernel == "stablehlo.convolution" ? w : Bytes(kI8, {3, 3, 8, 16}, rng);
    Tensor as_float = Zeros(ElementType::kF32, out_dims);
    const Status f = RunDot(fast, WithRequantize(base, 16, static_cast<int64_t>(out_dims.size()) - 1, kI8, rng), x, wd,
                            as_float);
    EXPECT_FALSE(f.ok());
    Tensor out = Zeros(kI8, out_dims);
    EXPECT_FALSE(RunDot(fast, WithRequantize(base, 7, static_cast<int64_t>(out_dims.size()) - 1, kI8, rng), x, wd, out).ok());
    EXPECT_FALSE(RunDot(fast, WithRequantize(base, 16, 9, kI8, rng), x, wd, out).ok());
    // An i32 result: the reference's requantize into i32, byte for byte.
    const KernelParams p = WithRequantize(base, 16, static_cast<int64_t>(out_dims.size()) - 1, kI8, rng);
    Tensor got = Zeros(ElementType::kSI32, out_dims), want = Zeros(ElementType::kSI32, out_dims);
    ASSERT_TRUE(RunDot(fast, p, x, wd, got).ok());
    ASSERT_TRUE(RunDot(ref::FindReferenceKernel(p.kernel), p, x, wd, want).ok());
    EXPECT_EQ(got.bytes, want.bytes);
  }
}

TEST(CpuConvolutionInt8, LargeEnoughToChunkAndSplit) {
  // Several batch chunks of the channel-last product, over the pool.
  std::mt19937 rng(26);
  // 7 images of 16x16x40 i32 results: chunks of 6 (about 256 KiB).
  ConvSpec c{{7, 16, 16, 8}, {3, 3, 8, 40}, {7, 16, 16, 40}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
             {1, 1, 1, 1}};
  Check(ConvParams(c), Bytes(kU8, c.lhs_dims, rng), Bytes(kI8, c.rhs_dims, rng), c.out_dims);
  ConvSpec nchw{{3, 12, 18, 18}, {40, 12, 3, 3}, {3, 40, 18, 18}, 0, 1, 1, 0, 0, 1, {2, 3}, {2, 3}, {2, 3}, {},
                {1, 1, 1, 1}};
  Check(ConvParams(nchw), Bytes(kI8, nchw.lhs_dims, rng), Bytes(kI8, nchw.rhs_dims, rng), nchw.out_dims);
}

TEST(CpuConvolutionInt8, ConstantWeightsPackedOnceAndReused) {
  std::mt19937 rng(27);
  ConvSpec c{{2, 9, 9, 16}, {3, 3, 16, 24}, {2, 9, 9, 24}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
             {1, 1, 1, 1}};
  const KernelParams p = ConvParams(c);
  Tensor lhs = Bytes(kU8, c.lhs_dims, rng), rhs = Bytes(kI8, c.rhs_dims, rng);
  Tensor want = Zeros(ElementType::kSI32, c.out_dims);
  ASSERT_TRUE(RunDot(ref::FindReferenceKernel(p.kernel), p, lhs, rhs, want).ok());
  KernelState state;
  KernelFn fast = FindCpuKernel(p);
  for (int call = 0; call < 3; ++call) {
    Tensor got = Zeros(ElementType::kSI32, c.out_dims);
    ASSERT_TRUE(RunDot(fast, p, lhs, rhs, got, nullptr, &state, 43).ok());
    EXPECT_EQ(Get<int32_t>(got), Get<int32_t>(want)) << "call " << call;
  }
  EXPECT_GT(state.bytes(), 3u * 3u * 16u * 24u) << "the packed weights are kept";
}

// The plans a requantizing depthwise convolution keeps in its executable's
// state (the requantize's parameters; constant weights laid out for the
// row form): later calls, and a second constant kernel beside the first,
// give the reference's bytes.
TEST(CpuConvolutionInt8, DepthwiseAndRequantizePlansKeptPerExecutable) {
  std::mt19937 rng(45);
  ConvSpec c{{2, 9, 9, 48}, {3, 3, 1, 48}, {2, 9, 9, 48}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {}, {1, 1, 1, 1}};
  c.groups = 48;
  const KernelParams p = WithRequantize(ConvParams(c), 48, 3, kI8, rng);
  Tensor lhs = Bytes(kI8, c.lhs_dims, rng);
  Tensor rhs[2] = {Bytes(kI8, c.rhs_dims, rng), Bytes(kI8, c.rhs_dims, rng)};
  Tensor want[2] = {Zeros(kI8, c.out_dims), Zeros(kI8, c.out_dims)};
  for (int k = 0; k < 2; ++k) ASSERT_TRUE(RunDot(ref::FindReferenceKernel(p.kernel), p, lhs, rhs[k], want[k]).ok());
  KernelState state;
  KernelFn fast = FindCpuKernel(p);
  for (int call = 0; call < 3; ++call)
    for (int k = 0; k < 2; ++k) {
      Tensor got = Zeros(kI8, c.out_dims);
      ASSERT_TRUE(RunDot(fast, p, lhs, rhs[k], got, nullptr, &state, 60 + static_cast<uint64_t>(k)).ok());
      EXPECT_EQ(got.bytes, want[k].bytes) << "call " << call << ", kernel " << k;
    }
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx512vnni")) {
    EXPECT_GE(state.bytes(), 2u * 3u * 48u * 4u) << "both kernels' row-form weights are kept";
  }
#endif
}

}  // namespace
}  // namespace kiln::cpu

// The fast CPU convolution (kernels/cpu/contraction_convolution.cc on the
// dot_general GEMM; convolution_direct.cc and convolution_planar.cc for
// depthwise and thin grouped ones) against the reference kernel: NHWC/HWIO
// and NCHW/OIHW layouts and odd ones, strides, padding, dilation, window
// reversal, feature groups and channel multipliers, one to three spatial
// dims, sizes for the blocked GEMM and the thread pool, NaN and infinities,
// fused epilogues, and forms the kernel hands to the reference
// (contraction_test_util.h: tolerance, every target, same bits threaded).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/kernel_state.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/gemm_bf16.h"
#include "kernels/cpu/registry.h"
#include "kernels/reference/registry.h"
#include "tests/kernels/cpu/contraction_test_util.h"
#include "tests/kernels/cpu/hwy_test_util.h"
#include "tests/kernels/cpu/test_pool.h"

namespace kiln::cpu {
namespace {

using namespace contraction_test;  // Tensor, Filled, Random, Check, Ints

void CheckConv(const ConvSpec& c, ElementType t, uint32_t seed, bool specials = false) {
  std::mt19937 rng(seed);
  Tensor lhs = Random(t, c.lhs_dims, rng), rhs = Random(t, c.rhs_dims, rng);
  if (specials) {
    const double v[] = {NAN, INFINITY, -INFINITY, 0.0};
    for (int64_t i = 0; i < lhs.count(); i += 97) lhs.Set(i, v[(i / 97) % 4]);
  }
  int64_t k = c.rhs_dims[c.kif];
  for (int64_t d : c.ksp) k *= c.rhs_dims[d];
  Check(ConvParams(c), lhs, rhs, c.out_dims, k);
}

TEST(CpuConvolution, NhwcHwioSamePadding) {
  // 1x9x11x5 -> 7 channels, 3x3, padding 1 (the ResNet shape, smaller).
  ConvSpec c{{1, 9, 11, 5}, {3, 3, 5, 7}, {1, 9, 11, 7}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {}, {1, 1, 1, 1}};
  CheckConv(c, ElementType::kF32, 1);
  CheckConv(c, ElementType::kF64, 2);
  CheckConv(c, ElementType::kF32, 3, /*specials=*/true);
}

// Infinite and NaN weights: the spec's padded lhs holds zeros that take part
// in the products, so a position whose tap meets such a weight on padding is
// NaN (0 * inf) on the fast paths (GEMM, windows, depthwise) and the
// reference alike.
TEST(CpuConvolution, NonFiniteWeightsMeetPaddingZeros) {
  ConvSpec nhwc{{1, 9, 11, 5}, {3, 3, 5, 7}, {1, 9, 11, 7}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {}, {1, 1, 1, 1}};
  ConvSpec depthwise{{1, 8, 8, 16}, {3, 3, 1, 16}, {1, 8, 8, 16}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2},
                     {}, {1, 1, 1, 1}};
  depthwise.groups = 16;
  for (const ConvSpec* c : {&nhwc, &depthwise}) {
    std::mt19937 rng(61);
    Tensor lhs = Random(ElementType::kF32, c->lhs_dims, rng), rhs = Random(ElementType::kF32, c->rhs_dims, rng);
    const double v[] = {INFINITY, NAN, -INFINITY};
    for (int64_t i = 0; i < 3; ++i) rhs.Set(i * 5, v[i]);  // in the window tap (0, 0)
    int64_t k = c->rhs_dims[c->kif];
    for (int64_t d : c->ksp) k *= c->rhs_dims[d];
    Check(ConvParams(*c), lhs, rhs, c->out_dims, k);
  }
}

TEST(CpuConvolution, HalfOperandsAndResults) {
  // bf16/f16 operands widened to f32, summed in f32; an f32 result (mixed
  // precision), or a 16-bit one rounded from the f32 sum. NHWC with
  // padding, NCHW with strides, depthwise.
  const ConvSpec nhwc{{1, 9, 11, 5}, {3, 3, 5, 7}, {1, 9, 11, 7}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
                      {1, 1, 1, 1}};
  ConvSpec nchw{{2, 3, 13, 10}, {4, 3, 3, 2}, {2, 4, 6, 4}, 0, 1, 1, 0, 0, 1, {2, 3}, {2, 3}, {2, 3}, {2, 3},
                {1, 0, 2, 1}, {2, 1}, {1, 0}};
  nchw.out_dims = {2, 4, (13 + 1 - 5) / 2 + 1, (10 + 3 - 2) / 3 + 1};
  ConvSpec depthwise{{2, 6, 7, 16}, {3, 3, 1, 16}, {2, 6, 7, 16}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
                     {1, 1, 1, 1}};
  depthwise.groups = 16;
  std::mt19937 rng(31);
  for (ElementType t : {ElementType::kBF16, ElementType::kF16})
    for (const ConvSpec* c : std::initializer_list<const ConvSpec*>{&nhwc, &nchw, &depthwise})
      for (ElementType out : {ElementType::kF32, t}) {
        SCOPED_TRACE(std::string(Name(t)) + " -> " + std::string(Name(out)));
        int64_t k = c->rhs_dims[c->kif];
        for (int64_t d : c->ksp) k *= c->rhs_dims[d];
        Check(ConvParams(*c), Random(t, c->lhs_dims, rng), Random(t, c->rhs_dims, rng), c->out_dims, k, out);
      }
}

// bf16 operands on the bf16 GEMM (gemm_bf16.h: channel-last products of
// one group, AVX-512 BF16 CPUs) and with it off: padding, strides and
// dilation, an even feature count (windows read in place) and an odd one
// (packed), a 1x1 kernel, sizes for the pool; f32 and bf16 results. An
// operand with a subnormal takes the widened path, and constant weights
// are packed once.
TEST(CpuConvolution, Bf16OnTheBf16Gemm) {
  ConvSpec padded{{2, 5, 13, 64}, {3, 3, 64, 40}, {2, 5, 13, 40}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
                  {1, 1, 1, 1}};
  // Height (15 - 3) / 2 + 1 = 7; width 17 + 2 - 3 + 1 = 17 (dilation 2).
  ConvSpec strided{{1, 15, 17, 31}, {3, 2, 31, 70}, {1, 7, 17, 70}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {2, 1},
                   {0, 0, 2, 0}, {1, 2}};
  ConvSpec one{{3, 7, 9, 48}, {1, 1, 48, 33}, {3, 7, 9, 33}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}};
  // 64 features over output rows of 35 pixels: the AMX form loads the
  // half panels along one output row in place and packs those that cross.
  ConvSpec wide{{1, 4, 35, 64}, {3, 3, 64, 24}, {1, 4, 35, 24}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
                {1, 1, 1, 1}};
  std::mt19937 rng(32);
  const ElementType bf16 = ElementType::kBF16;
  // One reference result per case, the fast kernel with the bf16 GEMM and
  // without it.
  const std::vector<FastVariant> gemms = Bf16GemmOnAndOff();
  for (const ConvSpec* c : std::initializer_list<const ConvSpec*>{&padded, &strided, &one, &wide})
    for (ElementType out : {ElementType::kF32, bf16}) {
      int64_t k = c->rhs_dims[c->kif];
      for (int64_t d : c->ksp) k *= c->rhs_dims[d];
      Check(ConvParams(*c), Random(bf16, c->lhs_dims, rng), Random(bf16, c->rhs_dims, rng), c->out_dims, k, out,
            gemms);
    }
  SetGemmBf16DisabledForTest(false);
  const KernelParams p = ConvParams(padded);
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  auto run = [&](Tensor& a, Tensor& b, KernelState* state, uint64_t b_constant, bool bf16_off) {
    return RunBf16Case(fast, p, a, b, padded.out_dims, state, b_constant, bf16_off);
  };
  Tensor x = Random(bf16, padded.lhs_dims, rng), w = Random(bf16, padded.rhs_dims, rng);
  Tensor x_sub = x;
  const uint16_t subnormal = 0x8003;
  std::memcpy(x_sub.bytes.data() + 2 * 1234, &subnormal, 2);
  EXPECT_EQ(run(x_sub, w, nullptr, 0, false), run(x_sub, w, nullptr, 0, true));
  // Constant weights with a subnormal (found once, where they would be
  // packed): the f32 path's bytes on the first call and on later ones.
  Tensor w_sub = w;
  std::memcpy(w_sub.bytes.data() + 2 * 4321, &subnormal, 2);
  KernelState sub_state;
  const std::vector<uint8_t> widened = run(x, w_sub, nullptr, 0, true);
  EXPECT_EQ(run(x, w_sub, &sub_state, 83, false), widened) << "constant weights with a subnormal, first call";
  EXPECT_EQ(run(x, w_sub, &sub_state, 83, false), widened) << "constant weights with a subnormal, a later call";
  KernelState state;
  const std::vector<uint8_t> first = run(x, w, &state, 81, false);
  EXPECT_EQ(run(x, w, &state, 81, false), first);
  EXPECT_EQ(run(x, w, nullptr, 0, false), first);
  if (GemmBf16Available()) {
    EXPECT_GE(state.bytes(), 3u * 3u * 64u * 40u * 2u) << "the packed weights are kept";
  }
}

// 16-bit results of bf16 convolutions rounded from the same f32 sums as
// the f32 result, tile by tile: output rows of 35 pixels and 40 features
// (edge tiles in both directions), and one of several 32-row panels.
TEST(CpuConvolution, Bf16GemmRoundsHalfResultsFromItsSums) {
  std::mt19937 rng(41);
  const ElementType bf16 = ElementType::kBF16;
  ConvSpec edges{{2, 4, 35, 64}, {3, 3, 64, 40}, {2, 4, 35, 40}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
                 {1, 1, 1, 1}};
  ConvSpec panels{{1, 12, 16, 32}, {1, 1, 32, 64}, {1, 12, 16, 64}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}};
  for (const ConvSpec* c : {&edges, &panels}) {
    Tensor x = Random(bf16, c->lhs_dims, rng), w = Random(bf16, c->rhs_dims, rng);
    ExpectHalfResultsRoundTheF32Sums(ConvParams(*c), x, w, c->out_dims);
  }
}

TEST(CpuConvolution, LargeEnoughForTheBlockedGemm) {
  // 1x43x43x64 -> 64 channels, 3x3, padding 1: just over 2^26 multiply-adds,
  // the blocked path with A read in place (1849 rows, not a multiple of 8);
  // NaN and infinities in the input.
  ConvSpec c{{1, 43, 43, 64}, {3, 3, 64, 64}, {1, 43, 43, 64}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
             {1, 1, 1, 1}};
  CheckConv(c, ElementType::kF32, 7, /*specials=*/true);
}

TEST(CpuConvolution, NchwOihwStridesDilationReversal) {
  ConvSpec c{{2, 3, 13, 10}, {4, 3, 3, 2}, {2, 4, 6, 4}, 0, 1, 1, 0, 0, 1, {2, 3}, {2, 3}, {2, 3},
             {2, 3}, {1, 0, 2, 1}, {2, 1}, {1, 0}};
  // rows: (13 + 1 - (3-1)*2 - 1) / 2 + 1 = 5? computed below instead
  const int64_t h = (13 + 1 + 0 - ((3 - 1) * 2 + 1)) / 2 + 1, w = (10 + 2 + 1 - 2) / 3 + 1;
  c.out_dims = {2, 4, h, w};
  CheckConv(c, ElementType::kF32, 4);
  CheckConv(c, ElementType::kF64, 5);
}

TEST(CpuConvolution, FeatureGroupsAndOddLayouts) {
  // Input [feature, spatial, batch], kernel [spatial, out, in], output
  // [spatial, feature, batch]; 2 feature groups.
  ConvSpec c{{6, 17, 3}, {4, 8, 3}, {16, 8, 3}, 2, 0, 2, 1, 2, 1, {1}, {0}, {0}, {}, {1, 2}};
  c.groups = 2;
  c.out_dims = {17 + 3 - 4 + 1, 8, 3};
  CheckConv(c, ElementType::kF32, 6);
}

TEST(CpuConvolution, ThreeSpatialDimsAndLargeEnoughToSplit) {
  ConvSpec c{{1, 6, 7, 8, 16}, {2, 3, 3, 16, 24}, {1, 5, 7, 8, 24}, 0, 4, 3, 4, 0, 4, {1, 2, 3}, {0, 1, 2},
             {1, 2, 3}, {}, {0, 0, 1, 1, 1, 1}};
  CheckConv(c, ElementType::kF32, 7);
  ConvSpec big{{2, 30, 31, 32}, {3, 3, 32, 40}, {2, 30, 31, 40}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {},
               {1, 1, 1, 1}};
  CheckConv(big, ElementType::kF32, 8);
}

// Depthwise and thin grouped convolutions take the direct path
// (kernels/cpu/convolution_direct.cc); the cases below cover its in-place
// NHWC read, the packed input (padding, NCHW and odd layouts, channel
// multipliers, several inputs per group), feature counts that are not a
// multiple of the vector width, strides, dilation, reversal, one and three
// spatial dims, f32 and f64, NaN and infinities.
ConvSpec Nhwc(int64_t b, int64_t h, int64_t w, int64_t c, int64_t kh, int64_t kw, int64_t k_in, int64_t out_feat,
              int64_t groups, int64_t pad, int64_t stride, int64_t dil) {
  const int64_t oh = (h + 2 * pad - ((kh - 1) * dil + 1)) / stride + 1;
  const int64_t ow = (w + 2 * pad - ((kw - 1) * dil + 1)) / stride + 1;
  ConvSpec s{{b, h, w, c}, {kh, kw, k_in, out_feat}, {b, oh, ow, out_feat}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1},
             {1, 2}, {stride, stride}, {pad, pad, pad, pad}, {dil, dil}};
  s.groups = groups;
  return s;
}

ConvSpec Nchw(int64_t b, int64_t h, int64_t w, int64_t c, int64_t kh, int64_t kw, int64_t k_in, int64_t out_feat,
              int64_t groups, int64_t pad, int64_t stride, int64_t dil) {
  const int64_t oh = (h + 2 * pad - ((kh - 1) * dil + 1)) / stride + 1;
  const int64_t ow = (w + 2 * pad - ((kw - 1) * dil + 1)) / stride + 1;
  ConvSpec s{{b, c, h, w}, {out_feat, k_in, kh, kw}, {b, out_feat, oh, ow}, 0, 1, 1, 0, 0, 1, {2, 3}, {2, 3},
             {2, 3}, {stride, stride}, {pad, pad, pad, pad}, {dil, dil}};
  s.groups = groups;
  return s;
}

TEST(CpuConvolution, DepthwiseNhwc) {
  // MobileNet's form (3x3, padding 1) at odd sizes; no padding and 32
  // features reads the input in place; 7 and 33 features are not a multiple
  // of the vector width.
  for (int64_t c : {7, 32, 33}) {
    SCOPED_TRACE(c);
    CheckConv(Nhwc(2, 9, 11, c, 3, 3, 1, c, c, 1, 1, 1), ElementType::kF32, 20 + c);
    CheckConv(Nhwc(1, 7, 13, c, 3, 3, 1, c, c, 0, 1, 1), ElementType::kF32, 21 + c);
    CheckConv(Nhwc(3, 10, 9, c, 3, 3, 1, c, c, 1, 2, 1), ElementType::kF64, 22 + c);
    CheckConv(Nhwc(1, 12, 11, c, 5, 3, 1, c, c, 2, 1, 2), ElementType::kF32, 23 + c);
  }
  CheckConv(Nhwc(2, 9, 11, 32, 3, 3, 1, 32, 32, 1, 1, 1), ElementType::kF32, 24, /*specials=*/true);
  // Padded inputs whose features fill whole vectors are read in place, the
  // padding implicit: rows of one pixel (every column a border), padding
  // wider than the window's reach (whole rows and columns of zeros), one
  // side only, and infinities and NaN in the weights at the borders.
  CheckConv(Nhwc(1, 2, 1, 32, 3, 3, 1, 32, 32, 1, 1, 1), ElementType::kF32, 90);
  CheckConv(Nhwc(2, 5, 6, 16, 3, 3, 1, 16, 16, 3, 1, 1), ElementType::kF32, 91);
  CheckConv(Nhwc(1, 6, 21, 16, 3, 3, 1, 16, 16, 4, 3, 2), ElementType::kF64, 92, /*specials=*/true);
  {
    ConvSpec spec = Nhwc(2, 7, 19, 32, 3, 3, 1, 32, 32, 0, 1, 1);
    spec.padding = {0, 2, 1, 0};
    spec.out_dims[1] = 7 + 2 - 2;
    spec.out_dims[2] = 19 + 1 - 2;
    CheckConv(spec, ElementType::kF32, 93, /*specials=*/true);
  }
  // Padding on one side only and cropping (negative padding) along the
  // packed rows: whole-row copies of the pixels inside, zeros around them.
  for (const auto& pad : {std::vector<int64_t>{1, 0, -1, 2}, std::vector<int64_t>{0, 2, 3, -2}}) {
    ConvSpec spec = Nhwc(2, 9, 11, 32, 3, 3, 1, 32, 32, 0, 1, 1);
    spec.padding = pad;
    spec.out_dims[1] = 9 + pad[0] + pad[1] - 2;
    spec.out_dims[2] = 11 + pad[2] + pad[3] - 2;
    CheckConv(spec, ElementType::kF32, 29);
    ConvSpec wide = spec;  // f64: 16 features fill 128 bytes
    wide.lhs_dims[3] = wide.rhs_dims[3] = wide.out_dims[3] = wide.groups = 16;
    CheckConv(wide, ElementType::kF64, 29);
  }
}

TEST(CpuConvolution, DepthwiseRowsWiderThanTheSlab) {
  // Padded input rows of 50-60 KiB: a task packs its rows a few output rows
  // at a time (kSlabBytes), so chunks end inside an image, with the window's
  // rows shared across the chunk boundary; strides, dilation, a multiplier.
  CheckConv(Nhwc(2, 12, 40, 320, 3, 3, 1, 320, 320, 1, 1, 1), ElementType::kF32, 25);
  CheckConv(Nhwc(1, 13, 38, 320, 5, 3, 1, 320, 320, 2, 2, 2), ElementType::kF32, 26);
  CheckConv(Nhwc(1, 9, 30, 96, 3, 3, 1, 288, 96, 1, 1, 1), ElementType::kF32, 27);
  CheckConv(Nchw(1, 11, 41, 160, 3, 3, 1, 160, 160, 1, 2, 1), ElementType::kF64, 28);
}

TEST(CpuConvolution, DepthwiseChannelMultiplier) {
  // feature_group_count == input features, 2 and 3 outputs per input.
  CheckConv(Nhwc(2, 8, 9, 5, 3, 3, 1, 10, 5, 1, 1, 1), ElementType::kF32, 30);
  CheckConv(Nhwc(1, 8, 7, 16, 3, 3, 1, 48, 16, 1, 2, 1), ElementType::kF64, 31);
  CheckConv(Nchw(2, 9, 8, 6, 3, 3, 1, 12, 6, 1, 1, 1), ElementType::kF32, 32);
}

TEST(CpuConvolution, DepthwiseNchw) {
  // torch's form ([b, f, h, w] x [o, 1, kh, kw]): packed channel-last,
  // results scattered back.
  CheckConv(Nchw(2, 9, 11, 19, 3, 3, 1, 19, 19, 1, 1, 1), ElementType::kF32, 40);
  CheckConv(Nchw(1, 16, 16, 32, 3, 3, 1, 32, 32, 1, 2, 1), ElementType::kF64, 41);
  CheckConv(Nchw(3, 10, 7, 8, 3, 5, 1, 8, 8, 2, 1, 2), ElementType::kF32, 42, /*specials=*/true);
  // Stride 2 along wide rows (MobileNet's 112 and an odd 45): each row split
  // into its two phases by whole vectors, then four pairs, then one by one.
  CheckConv(Nchw(1, 9, 112, 8, 3, 3, 1, 8, 8, 1, 2, 1), ElementType::kF32, 43);
  CheckConv(Nchw(2, 7, 45, 3, 3, 3, 1, 3, 3, 1, 2, 1), ElementType::kF32, 44);
}

TEST(CpuConvolution, ThinGroupedConvolutions) {
  // ResNeXt-like groups: 8 groups of 4 inputs and 4 outputs; 3 groups of
  // 5 inputs and 2 outputs; NHWC and NCHW.
  CheckConv(Nhwc(2, 9, 10, 32, 3, 3, 4, 32, 8, 1, 1, 1), ElementType::kF32, 50);
  CheckConv(Nchw(2, 9, 10, 32, 3, 3, 4, 32, 8, 1, 2, 1), ElementType::kF32, 51);
  CheckConv(Nhwc(1, 7, 6, 15, 3, 3, 5, 6, 3, 1, 1, 1), ElementType::kF64, 52);
  CheckConv(Nchw(1, 7, 6, 15, 1, 1, 5, 6, 3, 0, 1, 1), ElementType::kF32, 53);
  // Wide groups (16 in, 16 out each) take the grouped GEMM instead; its
  // channel-last result is copied one group's features at a time.
  CheckConv(Nhwc(2, 6, 7, 32, 3, 3, 16, 32, 2, 1, 1, 1), ElementType::kF32, 54);
  CheckConv(Nhwc(1, 5, 5, 48, 1, 1, 16, 51, 3, 0, 1, 1), ElementType::kF64, 55);
}

TEST(CpuConvolution, DepthwiseOneAndThreeSpatialDimsOddLayoutsReversal) {
  // 1-D: [batch, spatial, feature] with 9 features, stride 2.
  ConvSpec one{{2, 23, 9}, {3, 1, 9}, {2, 12, 9}, 0, 2, 1, 2, 0, 2, {1}, {0}, {1}, {2}, {1, 1}};
  one.groups = 9;
  CheckConv(one, ElementType::kF32, 60);
  // 3-D NDHWC, padding 1.
  ConvSpec three{{1, 5, 6, 7, 12}, {3, 3, 3, 1, 12}, {1, 5, 6, 7, 12}, 0, 4, 3, 4, 0, 4, {1, 2, 3}, {0, 1, 2},
                 {1, 2, 3}, {}, {1, 1, 1, 1, 1, 1}};
  three.groups = 12;
  CheckConv(three, ElementType::kF64, 61);
  // Input [feature, spatial, batch], kernel [spatial, out, in], output
  // [spatial, feature, batch], window reversal and dilation.
  ConvSpec odd{{6, 17, 3}, {4, 12, 1}, {17 + 2 - 7 + 1, 12, 3}, 2, 0, 2, 1, 2, 1, {1}, {0}, {0}, {}, {1, 1},
               {2}, {1}};
  odd.groups = 6;
  CheckConv(odd, ElementType::kF32, 62);
}

TEST(CpuConvolution, DirectPathSameBitsAtOneTwoAndFourThreads) {
  // Big enough to split over the pool in several ways.
  ConvSpec c = Nhwc(4, 20, 21, 40, 3, 3, 1, 40, 40, 1, 1, 1);
  std::mt19937 rng(70);
  Tensor lhs = Random(ElementType::kF32, c.lhs_dims, rng), rhs = Random(ElementType::kF32, c.rhs_dims, rng);
  KernelParams p = ConvParams(c);
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  hal::ThreadPool two(2), four(4);
  Tensor t1 = Filled(lhs.type, c.out_dims, 1.0), t2 = Filled(lhs.type, c.out_dims, 2.0),
         t4 = Filled(lhs.type, c.out_dims, 4.0);
  ASSERT_TRUE(RunKernel(fast, p, lhs, rhs, t1).ok());
  ASSERT_TRUE(RunKernel(fast, p, lhs, rhs, t2, &two).ok());
  ASSERT_TRUE(RunKernel(fast, p, lhs, rhs, t4, &four).ok());
  EXPECT_EQ(t1.bytes, t2.bytes);
  EXPECT_EQ(t1.bytes, t4.bytes);
}

TEST(CpuConvolution, FeatureMajorOutputAsWeightsTimesWindows) {
  // NCHW results are written in place by the GEMM with the kernel as A:
  // 3x3 with padding at odd sizes, 1x1 (B read as the input's planes, with
  // and without stride), wide groups, f64, a batch of several and an
  // output that needs the blocked GEMM.
  CheckConv(Nchw(3, 9, 11, 5, 3, 3, 5, 7, 1, 1, 1, 1), ElementType::kF32, 80);
  CheckConv(Nchw(2, 7, 9, 13, 1, 1, 13, 17, 1, 0, 1, 1), ElementType::kF32, 81);
  CheckConv(Nchw(2, 8, 9, 13, 1, 1, 13, 17, 1, 0, 2, 1), ElementType::kF64, 82);
  CheckConv(Nchw(2, 6, 7, 32, 3, 3, 16, 32, 2, 1, 1, 1), ElementType::kF32, 83);
  CheckConv(Nchw(1, 10, 9, 6, 3, 3, 6, 4, 1, 2, 2, 2), ElementType::kF64, 84, /*specials=*/true);
  CheckConv(Nchw(1, 25, 27, 64, 3, 3, 64, 64, 1, 1, 1, 1), ElementType::kF32, 85);
  // Results of several 256 KiB chunks of batch elements: each chunk's input
  // padded right before its product (one group, and two).
  CheckConv(Nchw(5, 20, 20, 8, 3, 3, 8, 48, 1, 1, 1, 1), ElementType::kF32, 86);
  CheckConv(Nchw(4, 21, 19, 16, 3, 3, 8, 48, 2, 2, 1, 2), ElementType::kF32, 87);
  // Nine chunks of one batch element: at least two per worker of the test
  // pool, so the chunks run side by side (each on one thread); the same
  // bits as one after another.
  CheckConv(Nchw(9, 20, 20, 8, 3, 3, 8, 96, 1, 1, 1, 1), ElementType::kF32, 88);
}

TEST(CpuConvolution, WindowsPackedFromTheUnpaddedInput) {
  // Padded NCHW and NCW: the windows are packed straight from the input
  // (ConvWindows), zeros where they hang over the border. Rows as wide as
  // a vector (16, 32) and not (5, 37), 5x5 taps that reach past a row of 3,
  // padding wider than the window's reach (whole rows of zeros), strides
  // and dilation, f64.
  CheckConv(Nchw(2, 16, 16, 8, 3, 3, 8, 16, 1, 1, 1, 1), ElementType::kF32, 120);
  CheckConv(Nchw(1, 9, 32, 6, 3, 3, 6, 9, 1, 1, 1, 1), ElementType::kF32, 121);
  CheckConv(Nchw(3, 6, 5, 4, 3, 3, 4, 12, 1, 1, 1, 1), ElementType::kF32, 122);
  CheckConv(Nchw(1, 7, 37, 5, 3, 3, 5, 10, 1, 1, 1, 1), ElementType::kF64, 123);
  CheckConv(Nchw(2, 4, 3, 3, 5, 5, 3, 7, 1, 2, 1, 1), ElementType::kF32, 124);
  CheckConv(Nchw(1, 8, 9, 4, 3, 3, 4, 6, 1, 4, 1, 1), ElementType::kF32, 125);
  CheckConv(Nchw(2, 17, 19, 6, 3, 3, 6, 8, 1, 1, 2, 1), ElementType::kF32, 126);
  CheckConv(Nchw(1, 20, 23, 4, 3, 3, 4, 8, 1, 2, 3, 2), ElementType::kF64, 127);
  CheckConv(Nchw(2, 12, 12, 8, 3, 3, 4, 8, 2, 1, 1, 1), ElementType::kF32, 128);
  CheckConv(Nchw(1, 10, 9, 6, 3, 3, 6, 4, 1, 2, 2, 2), ElementType::kF32, 129, /*specials=*/true);
  // Asymmetric padding (more before than after, and none before), rows of
  // one spatial dim (NCW).
  ConvSpec a = Nchw(2, 11, 13, 5, 3, 3, 5, 7, 1, 0, 1, 1);
  a.padding = {2, 0, 0, 2};
  a.out_dims = {2, 7, 11, 13};
  CheckConv(a, ElementType::kF32, 130);
  ConvSpec ncw{{3, 6, 29}, {10, 6, 5}, {3, 10, 29}, 0, 1, 1, 0, 0, 1, {2}, {2}, {2}, {1}, {3, 1}, {1}};
  CheckConv(ncw, ElementType::kF32, 131);
  ncw.strides = {2};
  ncw.out_dims = {3, 10, 15};
  CheckConv(ncw, ElementType::kF32, 132);
}

TEST(CpuConvolution, WindowsReadInPlaceFromPaddedPlanes) {
  // Output rows of at least a vector (here first whole vectors: 16 and 32
  // columns, 8 and 16 lanes of f32, 4 and 8 of f64) at stride 1 along rows:
  // the micro-kernel reads the windows from a padded copy of the input. Stride 2 down the rows only,
  // dilation, cropping (negative) padding, groups, a batch for the
  // independent-tiles product and one large enough for the blocked one.
  const uint64_t before = WindowsReadInPlace();
  CheckConv(Nchw(2, 16, 16, 8, 3, 3, 8, 16, 1, 1, 1, 1), ElementType::kF32, 140);
  CheckConv(Nchw(1, 5, 32, 6, 3, 3, 6, 9, 1, 1, 1, 1), ElementType::kF64, 141);
  CheckConv(Nchw(2, 12, 36, 8, 5, 5, 4, 8, 2, 2, 1, 2), ElementType::kF32, 142, /*specials=*/true);
  ConvSpec rows2 = Nchw(3, 15, 16, 5, 3, 3, 5, 7, 1, 1, 1, 1);
  rows2.strides = {2, 1};
  rows2.out_dims = {3, 7, 8, 16};
  CheckConv(rows2, ElementType::kF32, 143);
  ConvSpec crop = Nchw(2, 10, 20, 4, 3, 3, 4, 6, 1, 0, 1, 1);
  crop.padding = {-1, 2, 1, -3};  // rows 10 - 1 + 2 - 2 = 9, columns 20 + 1 - 3 - 2 = 16
  crop.out_dims = {2, 6, 9, 16};
  CheckConv(crop, ElementType::kF32, 144);
  CheckConv(Nchw(4, 32, 32, 32, 3, 3, 32, 64, 1, 1, 1, 1), ElementType::kF32, 145);
  // Rows that are not whole vectors (at least one vector wide): runs that
  // cross into the next output row take their last lanes from it (56 and
  // 28 as ResNet's stages, 17, 19 and 37 odd), the last run past the
  // result's end, with stride 2 down the rows, dilation and f64.
  CheckConv(Nchw(2, 14, 56, 4, 3, 3, 4, 8, 1, 1, 1, 1), ElementType::kF32, 146);
  CheckConv(Nchw(1, 28, 28, 8, 3, 3, 8, 16, 1, 1, 1, 1), ElementType::kF32, 147, /*specials=*/true);
  CheckConv(Nchw(3, 7, 17, 5, 3, 3, 5, 9, 1, 1, 1, 1), ElementType::kF32, 148);
  CheckConv(Nchw(2, 11, 37, 6, 5, 5, 3, 12, 2, 2, 1, 2), ElementType::kF64, 149);
  ConvSpec odd_rows2 = Nchw(2, 13, 19, 4, 3, 3, 4, 7, 1, 1, 1, 1);
  odd_rows2.strides = {2, 1};
  odd_rows2.out_dims = {2, 7, 7, 19};
  CheckConv(odd_rows2, ElementType::kF32, 150);
  CheckConv(Nchw(5, 28, 28, 32, 3, 3, 32, 64, 1, 1, 1, 1), ElementType::kF32, 151);
  EXPECT_GT(WindowsReadInPlace(), before) << "the windows of rows of at least a vector are read in place";
}

TEST(CpuConvolution, WindowsReadInPlaceWithAStrideAlongRows) {
  // Strides 2 to 4 along rows (ResNet's downsampling 3x3 and 1x1 at stride
  // 2): each padded row in phases, so a vector of output columns is still
  // one run per tap. Output rows of whole vectors and not (runs crossing
  // into the next row), odd and even padding (the pairs split from either
  // column parity), cropping, dilation, groups, f64, specials.
  const uint64_t before = WindowsReadInPlace();
  CheckConv(Nchw(2, 32, 32, 8, 3, 3, 8, 16, 1, 1, 2, 1), ElementType::kF32, 160);
  CheckConv(Nchw(1, 56, 56, 6, 1, 1, 6, 10, 1, 0, 2, 1), ElementType::kF32, 161, /*specials=*/true);
  CheckConv(Nchw(2, 20, 41, 4, 3, 3, 4, 7, 1, 2, 2, 2), ElementType::kF64, 162);
  CheckConv(Nchw(1, 30, 70, 6, 5, 5, 3, 8, 2, 1, 3, 1), ElementType::kF32, 163);
  CheckConv(Nchw(1, 16, 80, 3, 4, 4, 3, 5, 1, 0, 4, 1), ElementType::kF32, 164);
  ConvSpec crop = Nchw(2, 18, 44, 4, 3, 3, 4, 6, 1, 0, 2, 1);
  crop.padding = {1, 0, -1, 2};  // rows (19 - 3) / 2 + 1 = 9, columns (45 - 3) / 2 + 1 = 22
  crop.out_dims = {2, 6, 9, 22};
  CheckConv(crop, ElementType::kF32, 165);
  EXPECT_GT(WindowsReadInPlace(), before) << "strided windows are read in place";
}

TEST(CpuConvolution, OneByOneNhwc) {
  // 1x1 channel-last: the GEMM reads the input rows in place.
  CheckConv(Nhwc(2, 7, 9, 13, 1, 1, 13, 17, 1, 0, 1, 1), ElementType::kF32, 90);
  CheckConv(Nhwc(3, 16, 16, 32, 1, 1, 32, 192, 1, 0, 1, 1), ElementType::kF32, 91);
  CheckConv(Nhwc(1, 5, 6, 7, 1, 1, 7, 3, 1, 0, 1, 1), ElementType::kF64, 92);
}

TEST(CpuConvolution, LayoutKeptPerExecutableServesOtherOperands) {
  // The checks and tables of a call's signature are kept in the
  // executable's state (ConvLayout) and reused: later calls with other
  // inputs, weights and output buffers, on one thread and on the pool, get
  // the same bits as calls without a state, on every path: NHWC (the
  // channel-last GEMM, one chunk and several), NCHW (feature-major, windows
  // read in place and packed), 1x1, depthwise and grouped (direct), f64,
  // and two batch sizes on one state (two layouts side by side).
  const ConvSpec specs[] = {
      Nhwc(2, 7, 9, 13, 3, 3, 13, 17, 1, 1, 1, 1),   Nhwc(9, 20, 20, 8, 3, 3, 8, 96, 1, 1, 1, 1),
      Nchw(2, 16, 16, 8, 3, 3, 8, 16, 1, 1, 1, 1),   Nchw(3, 6, 5, 4, 3, 3, 4, 12, 1, 1, 1, 1),
      Nchw(9, 20, 20, 8, 3, 3, 8, 96, 1, 1, 1, 1),   Nhwc(3, 16, 16, 32, 1, 1, 32, 48, 1, 0, 1, 1),
      Nhwc(2, 9, 9, 12, 3, 3, 1, 12, 12, 1, 1, 1),   Nchw(2, 10, 9, 8, 3, 3, 4, 8, 2, 1, 1, 2),
      Nchw(1, 16, 16, 8, 3, 3, 8, 16, 1, 1, 1, 1)};
  const ElementType types[] = {ElementType::kF32, ElementType::kF32, ElementType::kF32, ElementType::kF64,
                               ElementType::kF32, ElementType::kF32, ElementType::kF32, ElementType::kF64,
                               ElementType::kF32};
  std::mt19937 rng(140);
  KernelState state;  // one executable's: the two NCHW 16x16 specs share the kernel's attributes
  for (size_t s = 0; s < std::size(specs); ++s) {
    SCOPED_TRACE(s);
    const ConvSpec& c = specs[s];
    const ElementType t = types[s];
    const KernelParams p = ConvParams(c);
    KernelState own;
    KernelState* st = s == 2 || s == 8 ? &state : &own;
    for (int call = 0; call < 3; ++call) {
      Tensor lhs = Random(t, c.lhs_dims, rng), rhs = Random(t, c.rhs_dims, rng);
      auto run = [&](KernelState* kept, TaskRunner* runner) {
        Tensor out = Filled(t, c.out_dims, 12345.0);
        TensorRef in[2] = {lhs.ref(), rhs.ref()};
        TensorRef o[1] = {out.ref()};
        EXPECT_TRUE(FindCpuKernel(p)(KernelCall{p, in, o, runner, false, kept}).ok());
        return out.bytes;
      };
      const std::vector<uint8_t> want = run(nullptr, nullptr);
      EXPECT_EQ(run(st, nullptr), want) << "call " << call;
      EXPECT_EQ(run(st, TestPool()), want) << "call " << call << ", threaded";
    }
    EXPECT_GT(st->bytes(), 0u) << "the layout is kept";
  }
}

// A bias along the feature axis and relu6, fused as the compiler does
// (kernels/reference/epilogue.h): out = clamp(0, conv + bias, 6).
void CheckConvWithEpilogue(const ConvSpec& c, ElementType t, uint32_t seed) {
  SCOPED_TRACE(seed);
  KernelParams p = ConvParams(c);
  ScalarProgram prog;
  prog.param_types = {t, t};
  auto instr = [&](ScalarOp op, std::vector<uint16_t> operands, double constant = 0) {
    ScalarInstr i;
    i.op = op;
    i.type = t;
    i.num_operands = static_cast<uint8_t>(operands.size());
    for (size_t k = 0; k < operands.size(); ++k) i.operands[k] = operands[k];
    i.constant.re = constant;
    return i;
  };
  prog.instrs = {instr(ScalarOp::kAdd, {0, 1}), instr(ScalarOp::kConstant, {}, 0.0),
                 instr(ScalarOp::kConstant, {}, 6.0), instr(ScalarOp::kClamp, {3, 2, 4})};
  prog.results = {5};
  KernelAttr epi;
  epi.name = "epilogue";
  epi.has_program = true;
  epi.program = prog;
  p.attrs.push_back(std::move(epi));
  const int64_t rank = static_cast<int64_t>(c.out_dims.size());
  std::vector<int64_t> map = {rank};
  for (int64_t a = 0; a < rank; ++a) map.push_back(a);
  map.push_back(1);
  map.push_back(c.ofd);
  p.attrs.push_back(Ints("epilogue_broadcast", map));
  std::mt19937 rng(seed);
  Tensor lhs = Random(t, c.lhs_dims, rng), rhs = Random(t, c.rhs_dims, rng);
  Tensor bias = Random(t, {c.out_dims[c.ofd]}, rng);
  for (int64_t i = 0; i < bias.count(); ++i) bias.Set(i, 3.0 * bias.Get(i));  // some results clamp at 6
  auto run_with = [&](KernelFn fn, TaskRunner* runner, Tensor& b, KernelState* state) {
    Tensor out = Filled(t, c.out_dims, 12345.0);
    TensorRef in[3] = {lhs.ref(), rhs.ref(), b.ref()};
    TensorRef o[1] = {out.ref()};
    EXPECT_TRUE(fn(KernelCall{p, in, o, runner, false, state}).ok());
    return out;
  };
  auto run = [&](KernelFn fn, TaskRunner* runner) { return run_with(fn, runner, bias, nullptr); };
  Tensor want = run(ref::FindReferenceKernel(p.kernel), nullptr);
  ForEachTarget([&] {
    Tensor got = run(FindCpuKernel(p), nullptr);
    Tensor threaded = run(FindCpuKernel(p), TestPool());
    ASSERT_EQ(threaded.bytes, got.bytes) << "threaded result differs from the single-threaded one";
    int bad = 0, clamped = 0;
    for (int64_t i = 0; i < want.count() && bad < 10; ++i) {
      const double w = want.Get(i), g = got.Get(i);
      clamped += w == 6.0 || w == 0.0;
      const bool ok = std::fabs(g - w) <= 1e-4 * (1 + std::fabs(w));
      EXPECT_TRUE(ok) << "element " << i << ": got " << g << ", want " << w;
      bad += !ok;
    }
    EXPECT_GT(clamped, 0);
  });
  // With the executable's kernel state, the epilogue's plan (kept from the
  // first call) serves later calls with other biases and other output
  // buffers: the same bits as calls without it.
  KernelState state;
  for (int k = 0; k < 3; ++k) {
    Tensor other = Random(t, {c.out_dims[c.ofd]}, rng);
    EXPECT_EQ(run_with(FindCpuKernel(p), nullptr, other, &state).bytes,
              run_with(FindCpuKernel(p), nullptr, other, nullptr).bytes)
        << "call " << k;
  }
}

TEST(CpuConvolution, FusedBiasAndRelu6Epilogue) {
  // Depthwise NHWC (applied per task of rows), depthwise NCHW (after the
  // scatter), NCHW and NHWC on the GEMM (per chunk of batch elements), f32
  // and f64.
  CheckConvWithEpilogue(Nhwc(2, 9, 11, 32, 3, 3, 1, 32, 32, 1, 1, 1), ElementType::kF32, 100);
  CheckConvWithEpilogue(Nhwc(3, 20, 21, 19, 3, 3, 1, 19, 19, 1, 1, 1), ElementType::kF64, 101);
  CheckConvWithEpilogue(Nchw(2, 9, 8, 12, 3, 3, 1, 12, 12, 1, 1, 1), ElementType::kF32, 102);
  CheckConvWithEpilogue(Nchw(2, 9, 8, 12, 3, 3, 12, 10, 1, 1, 1, 1), ElementType::kF32, 103);
  CheckConvWithEpilogue(Nhwc(2, 7, 6, 13, 1, 1, 13, 17, 1, 0, 1, 1), ElementType::kF64, 104);
  // NCHW with a result of several 256 KiB chunks of batch elements (3 + 2).
  CheckConvWithEpilogue(Nchw(5, 20, 20, 8, 3, 3, 8, 48, 1, 1, 1, 1), ElementType::kF32, 105);
  CheckConvWithEpilogue(Nhwc(5, 20, 20, 8, 3, 3, 8, 48, 1, 1, 1, 1), ElementType::kF32, 106);
  // Nine chunks: side by side over the test pool's four workers.
  CheckConvWithEpilogue(Nchw(9, 20, 20, 8, 3, 3, 8, 96, 1, 1, 1, 1), ElementType::kF32, 107);
  CheckConvWithEpilogue(Nhwc(9, 20, 20, 8, 3, 3, 8, 96, 1, 1, 1, 1), ElementType::kF32, 108);
}

TEST(CpuConvolution, DepthwisePlanarNchw) {
  // Rows of at least 8: each output plane from one padded input plane
  // (convolution_planar.cc). Rows of 37 and 21 leave a tail
  // after the whole vectors; dilation, multiplier 3, f64, NaN/inf.
  CheckConv(Nchw(2, 11, 37, 6, 3, 3, 1, 6, 6, 1, 1, 1), ElementType::kF32, 110);
  CheckConv(Nchw(1, 12, 21, 4, 3, 5, 1, 12, 4, 2, 1, 2), ElementType::kF64, 111);
  CheckConv(Nchw(2, 9, 16, 5, 3, 3, 1, 5, 5, 1, 1, 1), ElementType::kF32, 112, /*specials=*/true);
  // Stride 2 in the outer spatial dim only, asymmetric padding, reversal.
  ConvSpec c = Nchw(2, 13, 20, 3, 3, 3, 1, 3, 3, 0, 1, 1);
  c.strides = {2, 1};
  c.padding = {0, 1, 2, 1};
  c.reversal = {1, 0};
  c.out_dims = {2, 3, (13 + 1 - 3) / 2 + 1, 20 + 3 - 3 + 1};
  CheckConv(c, ElementType::kF32, 113);
  // Strides along the row (its input rows in phases): MobileNet's 3x3
  // stride 2 padding 1 at even and odd widths, with specials and an
  // epilogue; stride 3 with dilation 2 and multiplier 2 (f64); stride 2
  // with asymmetric padding and the row's window reversed; stride 4.
  CheckConv(Nchw(2, 14, 40, 6, 3, 3, 1, 6, 6, 1, 2, 1), ElementType::kF32, 118);
  CheckConv(Nchw(1, 15, 39, 4, 3, 3, 1, 4, 4, 1, 2, 1), ElementType::kF32, 119, /*specials=*/true);
  CheckConvWithEpilogue(Nchw(2, 14, 40, 6, 3, 3, 1, 6, 6, 1, 2, 1), ElementType::kF32, 121);
  CheckConv(Nchw(1, 10, 61, 3, 3, 3, 1, 6, 3, 2, 3, 2), ElementType::kF64, 122);
  ConvSpec rs = Nchw(2, 12, 50, 5, 3, 5, 1, 5, 5, 0, 2, 1);
  rs.padding = {1, 0, 0, 3};
  rs.reversal = {0, 1};
  rs.out_dims = {2, 5, (12 + 1 - 3) / 2 + 1, (50 + 3 - 5) / 2 + 1};
  CheckConv(rs, ElementType::kF32, 123);
  CheckConv(Nchw(1, 8, 70, 2, 2, 4, 1, 2, 2, 1, 4, 1), ElementType::kF32, 124);
  // 1-D [batch, feature, width] and 3-D NCDHW.
  ConvSpec one{{2, 5, 40}, {5, 1, 3}, {2, 5, 40}, 0, 1, 1, 0, 0, 1, {2}, {2}, {2}, {}, {1, 1}};
  one.groups = 5;
  CheckConv(one, ElementType::kF32, 114);
  ConvSpec three{{1, 4, 5, 6, 17}, {4, 1, 3, 3, 3}, {1, 4, 5, 6, 17}, 0, 1, 1, 0, 0, 1, {2, 3, 4}, {2, 3, 4},
                 {2, 3, 4}, {}, {1, 1, 1, 1, 1, 1}};
  three.groups = 4;
  CheckConv(three, ElementType::kF64, 115);
  // The result [feature, batch, h, w]: not dense per plane (epilogue after).
  ConvSpec fb{{2, 6, 7, 12}, {6, 1, 3, 3}, {6, 2, 7, 12}, 0, 1, 1, 0, 1, 0, {2, 3}, {2, 3}, {2, 3}, {}, {1, 1, 1, 1}};
  fb.groups = 6;
  CheckConv(fb, ElementType::kF32, 116);
  CheckConvWithEpilogue(fb, ElementType::kF32, 117);
}

TEST(CpuConvolution, HugePaddingSkippedByStridesRunsTheReference) {
  // 2^30 of padding on each side, strides of 2^30: a 3x3 result. The fast
  // paths would materialise the padded input; they hand it to the
  // reference (same result, no allocation of 2^62 elements).
  const int64_t big = int64_t{1} << 30;
  for (int64_t groups : {1, 2}) {
    ConvSpec c = Nhwc(1, 4, 4, 2, 3, 3, 2 / groups, 2, groups, 0, 1, 1);
    c.strides = {big, big};
    c.padding = {big, big, big, big};
    c.out_dims = {1, 3, 3, 2};
    CheckConv(c, ElementType::kF32, 120);
  }
}

TEST(CpuConvolution, UnsupportedFormsRunTheReference) {
  // lhs dilation: the fast kernel hands the call to the reference (same result).
  ConvSpec c{{1, 5, 5, 2}, {2, 2, 2, 3}, {1, 8, 8, 3}, 0, 3, 2, 3, 0, 3, {1, 2}, {0, 1}, {1, 2}, {}, {0, 0, 0, 0}};
  KernelParams p = ConvParams(c);
  p.attrs.push_back(Ints("lhs_dilation", {2, 2}));
  std::mt19937 rng(9);
  Check(p, Random(ElementType::kF32, c.lhs_dims, rng), Random(ElementType::kF32, c.rhs_dims, rng), c.out_dims, 8);
}

}  // namespace
}  // namespace kiln::cpu

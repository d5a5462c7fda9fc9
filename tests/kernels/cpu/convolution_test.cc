// The fast CPU convolution (kernels/cpu/convolution.cc, on the dot_general
// GEMM) against the reference kernel: NHWC/HWIO and NCHW/OIHW layouts and
// odd ones, strides, padding, dilation, window reversal, feature groups,
// three spatial dims, sizes for the blocked GEMM and the thread pool, NaN
// and infinities, and forms the kernel hands to the reference
// (contraction_test_util.h: tolerance, every target).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/registry.h"
#include "tests/kernels/cpu/contraction_test_util.h"
#include "tests/kernels/cpu/hwy_test_util.h"

namespace kiln::cpu {
namespace {

using namespace contraction_test;  // Tensor, Filled, Random, Check, Ints

struct ConvSpec {
  std::vector<int64_t> lhs_dims, rhs_dims, out_dims;
  int64_t ib, ifd, kif, kof, ob, ofd;
  std::vector<int64_t> isp, ksp, osp, strides, padding, rhs_dil, reversal;
  int64_t groups = 1;
};

KernelParams ConvParams(const ConvSpec& c) {
  KernelParams p;
  p.kernel = "stablehlo.convolution";
  p.attrs.push_back(Ints("input_batch_dimension", {c.ib}));
  p.attrs.push_back(Ints("input_feature_dimension", {c.ifd}));
  p.attrs.push_back(Ints("input_spatial_dimensions", c.isp));
  p.attrs.push_back(Ints("kernel_input_feature_dimension", {c.kif}));
  p.attrs.push_back(Ints("kernel_output_feature_dimension", {c.kof}));
  p.attrs.push_back(Ints("kernel_spatial_dimensions", c.ksp));
  p.attrs.push_back(Ints("output_batch_dimension", {c.ob}));
  p.attrs.push_back(Ints("output_feature_dimension", {c.ofd}));
  p.attrs.push_back(Ints("output_spatial_dimensions", c.osp));
  if (!c.strides.empty()) p.attrs.push_back(Ints("window_strides", c.strides));
  if (!c.padding.empty()) p.attrs.push_back(Ints("padding", c.padding));
  if (!c.rhs_dil.empty()) p.attrs.push_back(Ints("rhs_dilation", c.rhs_dil));
  if (!c.reversal.empty()) p.attrs.push_back(Ints("window_reversal", c.reversal));
  p.attrs.push_back(Ints("feature_group_count", {c.groups}));
  p.attrs.push_back(Ints("batch_group_count", {1}));
  return p;
}

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

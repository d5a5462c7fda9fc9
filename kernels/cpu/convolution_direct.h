// The direct (channel-vectorised) CPU convolution for grouped and depthwise
// convolutions, where a GEMM per group would be too thin to pay (a depthwise
// 3x3 is 192 GEMMs of one column and nine rows of depth). Implemented in
// convolution_direct.cc; contraction_convolution.cc parses and validates the
// call into a ConvGeometry and picks this path or the GEMM.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/common/kernel.h"
#include "kernels/cpu/elementwise.h"

namespace kiln::cpu {

// A validated convolution (no lhs dilation, batch_group_count 1,
// non-negative padding, the result shape checked); spatial vectors have one
// entry per spatial dim, padding two (lo, hi).
struct ConvGeometry {
  int64_t rank = 0;
  int64_t ib = 0, ifd = 0, kif = 0, kof = 0, ob = 0, ofd = 0;
  std::vector<int64_t> isp, ksp, osp;
  std::vector<int64_t> strides, rhs_dil, reversal, padding, spatial_out, kdims;
  int64_t fgc = 1, batch = 0, in_feat = 0, k_in = 0, k_out = 0;
};

// True when the direct path takes the convolution: feature groups with few
// input or output features each (depthwise convolutions, channel multiplier
// 1 or more, and thin grouped ones) and at most three spatial dims.
bool DirectConvolutionApplies(const ConvGeometry& g);

// out[b, o, s] = sum over taps t and group inputs i of
// in[b, group(o) * k_in + i, s * stride + t * dilation - pad_lo] * w[t, i, o],
// for f32 and f64 operands of any dimension numbers. The input is packed
// channel-last (zero-padded, each group's inputs repeated per output feature
// of the group) unless it is already that layout; each output's sum runs
// over the taps (row-major) and then the group inputs in a fixed order,
// whatever the thread count.
// With `epilogue` (a fused elementwise program over `out`, reading it as
// param 0), each task applies it to its own rows right after computing them
// when the output is written in place, else once over the whole result.
void DirectConvolution(const ConvGeometry& g, const TensorRef& lhs, const TensorRef& rhs, const TensorRef& out,
                       TaskRunner* runner, const ElementwiseProblem* epilogue = nullptr);

// The planar form (convolution_planar.cc) for depthwise convolutions whose
// last spatial dim is innermost in the input and the output (NCHW) with
// a small stride along it: each output plane from one zero-padded input plane,
// vectorised along the row. DirectConvolution hands these to it.
bool PlanarDepthwiseApplies(const ConvGeometry& g);
void PlanarDepthwise(const ConvGeometry& g, const TensorRef& lhs, const TensorRef& rhs, const TensorRef& out,
                     TaskRunner* runner, const ElementwiseProblem* epilogue);

}  // namespace kiln::cpu

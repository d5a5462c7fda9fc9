// Internal declarations of the fast CPU kernels (see registry.h); the
// registry.cc table maps kernels.def entries to them.
#pragma once
#include "kernels/common/kernel.h"

namespace kiln::cpu {

// stablehlo.dot_general / stablehlo.dot for f32 and f64 (contraction_dot_general.cc).
bool DotGeneralApplies(const KernelParams& params);
Status DotGeneral(const KernelCall& call);
Status Dot(const KernelCall& call);

// stablehlo.convolution for f32 and f64 via the GEMM (contraction_convolution.cc).
Status Convolution(const KernelCall& call);

// stablehlo.reduce of one f32/f64 operand by add/max/min (reduction.cc).
bool ReduceApplies(const KernelParams& params);
Status Reduce(const KernelCall& call);

// kiln.row_block of f32/f64 per-row reductions and a tail, a block of rows
// at a time (reduction_row_block.cc).
Status RowBlock(const KernelCall& call);

// stablehlo.broadcast_in_dim, transpose and slice for 1/2/4/8-byte element
// types, concatenate for all (data_movement.cc).
Status BroadcastInDim(const KernelCall& call);
Status Transpose(const KernelCall& call);
Status Slice(const KernelCall& call);
Status Concatenate(const KernelCall& call);
Status Iota(const KernelCall& call);

// stablehlo.pad with non-negative edge padding only (data_movement_pad.cc).
Status Pad(const KernelCall& call);

// stablehlo.gather of whole rows (an embedding lookup) by memcpy; other
// gathers run the reference kernel (indexing_gather.cc).
Status Gather(const KernelCall& call);
bool ScatterApplies(const KernelParams& params);
Status Scatter(const KernelCall& call);

// stablehlo.sort whose comparator compares one key per element, the same
// expression of either side's element: keys computed once by the
// elementwise kernel, slices sorted on native keys (numeric_sort.cc).
bool SortApplies(const KernelParams& params);
Status Sort(const KernelCall& call);
// chlo.top_k by a partial sort of (key, index) pairs per row (numeric_sort.cc).
Status TopK(const KernelCall& call);

// stablehlo.dynamic_slice as memcpy runs, allocation-free (indexing_dynamic_slice.cc).
Status DynamicSlice(const KernelCall& call);

// stablehlo.reduce_window (pooling) of one f32/f64 operand by add/max/min
// (reduction_window.cc).
bool ReduceWindowApplies(const KernelParams& params);
Status ReduceWindow(const KernelCall& call);

// kiln.elementwise for f32 programs of the supported ops (elementwise.cc).
// Requantize (kernels/cpu/requantize.cc): i32 -> 8-bit storage, f32.
bool UniformQuantizeApplies(const KernelParams& params);
Status UniformQuantize(const KernelCall& call);

// A single i32 add or subtract (kernels/cpu/elementwise_int.cc).
// Programs on f16/bf16 values, with the reference's per-op rounding
// (elementwise_float16.cc).
bool IsFloat16Elementwise(const ScalarProgram& prog);
Status RunFloat16Elementwise(const KernelCall& call, const ScalarProgram& prog, const KernelAttr* map);
// Programs on quantized storage: small integer inputs, f32 arithmetic, a
// quantized integer result (elementwise_quantized.cc).
bool IsQuantizedElementwise(const ScalarProgram& prog);
Status RunQuantizedElementwise(const KernelCall& call, const ScalarProgram& prog, const KernelAttr* map);
bool IsIntAddSub(const ScalarProgram& prog);
Status RunIntAddSub(const KernelCall& call, const ScalarProgram& prog, const KernelAttr* map);

// A single convert between f32 and f16/bf16 (kernels/cpu/elementwise_half.cc).
bool IsHalfConvert(const ScalarProgram& prog);
Status RunHalfConvert(const KernelCall& call, const ScalarProgram& prog, const KernelAttr* map);

bool ElementwiseApplies(const KernelParams& params);
Status Elementwise(const KernelCall& call);
// The same with the program and axis map given (a fused epilogue's).
Status RunElementwiseProgram(const KernelCall& call, const ScalarProgram* program, const KernelAttr* map);

}  // namespace kiln::cpu

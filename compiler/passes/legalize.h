// IR -> IR rewrites that compile.cc runs after verification and before
// lowering, so that lowering meets fewer op forms.
#pragma once
#include "compiler/diagnostics.h"
#include "compiler/ir.h"
#include "kernels/common/status.h"

namespace kiln::compiler {

// chlo.broadcast_<op>(a, b) -> stablehlo.broadcast_in_dim of each operand
// whose shape is not the result's (numpy-style trailing alignment, or the
// op's broadcast_dimensions), then the elementwise <op> on equal shapes (which
// the fusion pass may then fuse). Refuses, at the op, a chlo.broadcast_<op>
// with no elementwise <op> or with a result of dynamic shape. Ops on quantized
// values are left for lowering to refuse.
Status LegalizeChloBroadcast(ir::Module* module, const ErrorFormatter& format_error);

// func.call inside the body of an op other than while/if/case (a reduce,
// sort, scatter, map, ... body, which becomes a scalar program) -> the
// callee's ops in its place, recursively (compiler/passes/inline_body_calls.cc).
// A recursive callee is refused at the call.
Status InlineCallsInBodies(ir::Module* module, const ErrorFormatter& format_error);

// ml_program.global_load of a global that is not mutable -> a
// stablehlo.constant of its initial value (compiler/passes/
// fold_immutable_globals.cc); loads of mutable globals stay for lowering.
void FoldImmutableGlobals(ir::Module* module);
// chlo.constant -> stablehlo.constant; chlo.constant_like(x) {value} -> a
// rank-0 stablehlo.constant broadcast to x's (static) shape
// (compiler/passes/legalize_chlo_constants.cc).
Status LegalizeChloConstants(ir::Module* module, const ErrorFormatter& format_error);

// Deprecated ops that VHLO still carries (broadcast, einsum, unary_einsum,
// torch_index_select, cross-replica-sum, trace) -> the spec ops that define
// them (compiler/passes/legalize_deprecated.cc keeps the list). Runs after
// the verifier; a form the rewrite cannot express is refused at the op.
Status LegalizeDeprecatedOps(ir::Module* module, const ErrorFormatter& format_error);

// stablehlo.rng_bit_generator with IREE's tensor<4xi32> state (which the
// verifier lets through) -> the spec op on the 2 or 3 ui64 words that IREE
// reads from it, between slices, bitcasts and concatenates that convert
// the state both ways (compiler/passes/legalize_iree_rng_state.cc).
void LegalizeIreeRngStates(ir::Module* module);

// dot_general's `algorithm`: operands rounded to their precision types
// and the product run in a wider accumulation type, by converts (and
// reduce_precision for tf32) around the op; the attribute is then dropped
// (compiler/passes/apply_dot_algorithms.cc says which forms are left as
// they are).
void ApplyDotAlgorithms(ir::Module* module);

// MHLO's ops that StableHLO carries as custom calls (@mhlo.topk, which
// CHLO's legalization leaves for chlo.top_k in portable artifacts;
// @mhlo.erf; JAX's @stablehlo.dynamic_top_k with a constant k) -> the CHLO
// ops Kiln runs, and XLA's @ApproxTopK -> its CPU fallback, a sort and
// slices, and JAX's @stablehlo.dynamic_reduce_window with constant window
// parameters -> stablehlo.reduce_window (compiler/passes/
// legalize_mhlo_calls.cc). Runs before InlineCallsInBodies, which inlines
// the bodies' calls of the calls' computations; *changed says whether it
// rewrote anything (the module is then verified again).
Status LegalizeMhloCustomCalls(ir::Module* module, const ErrorFormatter& format_error, bool* changed);

// XLA's linear-algebra custom calls that JAX emits on the CPU
// (compiler/passes/legalize_linalg_calls.cc, docs/jax.md): LAPACK's potrf,
// getrf, geqrf, geqp3, orgqr, syevd / heevd, gesdd, gesvd, geev, gees,
// gtsv, gehrd and sytrd / hetrd, BLAS's trsm and XLA's
// ProductOfElementaryHouseholderReflectors become spec ops or Kiln's
// linear-algebra kernels, in their _ffi forms and (potrf to trsm, geev,
// gees) the forms before the FFI (compiler/passes/legacy_linalg_calls.cc);
// any other lapack_ or blas_ target is refused at the op.
Status LegalizeLinalgCustomCalls(ir::Module* module, const ErrorFormatter& format_error);

// Always run (compiler/passes/legalize_quantized_ops.cc): each op the spec
// defines on quantized tensors by dequantize_op_quantize that no kernel runs
// on quantized values (dot_general, convolution, batch_norm_*, iota, ...,
// and elementwise ops on per-axis values) becomes uniform_dequantize of its
// quantized operands, the op on the expressed type, and uniform_quantize of
// its quantized results. Ops that move stored values or apply a region body
// keep their quantized operands (compiler/quantized_ops.h), requantized
// where a reduction body is wider; a dot_general or convolution into its
// accumulation type computes in integers (docs/quantization.md).
Status LegalizeQuantizedOps(ir::Module* module);

// Run when fusion is on: its output is meant to fuse back into one dispatch
// (compiler/passes/legalize_quantized.cc); unfused, lowering builds the same
// program from the quantized op itself (compiler/lower/lower_quantized.cc).
// Each elementwise op on per-tensor quantized values of static shape whose
// quantized operands have the result's shape becomes: per quantized operand,
// bitcast_convert to the storage type, convert to the expressed type,
// subtract the zero point, multiply by the scale; the op in the expressed
// type; for a quantized result, divide by the scale, add the zero point,
// clamp to the storage range, round_nearest_even, convert to the storage type and
// bitcast_convert to the quantized type. Other ops are left unchanged.
Status LegalizeQuantized(ir::Module* module, const ErrorFormatter& format_error);

// Run when fusion is on (compiler/passes/legalize_batch_norm.cc): each
// stablehlo.batch_norm_inference on f32 or f64 tensors of static shape
// becomes factor = scale / sqrt(variance + epsilon) per feature and
// (operand - mean) * factor + offset with the per-feature values broadcast
// along feature_index, which fusion folds into the producer's epilogue.
// Other element types keep the op (the reference kernel computes in double).
Status LegalizeBatchNormInference(ir::Module* module);

// Run when fusion is on (compiler/passes/expand_iota.cc): each
// stablehlo.iota of static shape, rank >= 2 and not quantized becomes the
// 1-D iota of its iota_dimension broadcast_in_dim to the result's shape, so
// that fusion reads the indices through an axis map (masks from index
// compares) instead of a full-size tensor materialised first.
void ExpandIotas(ir::Module* module);

}  // namespace kiln::compiler

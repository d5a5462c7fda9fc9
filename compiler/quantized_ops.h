// How each op computes on quantized tensors, as the spec's sections define
// it: one table, read by the quantized legalization
// (compiler/passes/legalize_quantized_ops.cc) and by lowering
// (compiler/lower/lower_ops.cc, compiler/lower/kernel_params.cc).
#pragma once
#include <string_view>

#include "compiler/ir.h"

namespace kiln::compiler {

enum class QuantizedForm {
  // An elementwise op: dequantize_op_quantize per element, built into the
  // op's scalar program (compiler/lower/lower_quantized.cc).
  kElementwise,
  // Moves or selects stored values without arithmetic (reshape, transpose,
  // slice, pad, concatenate, gather, ...): the spec requires the operands'
  // and result's quantization to agree, so the kernel runs on the storage
  // integers directly and the result is exact.
  kStorage,
  // Applies a region body to quantized values (reduce, reduce_window,
  // scatter, select_and_scatter, sort, map): the kernel runs on the storage
  // integers; each quantized op of the body dequantizes, computes and
  // quantizes, as the spec defines that op (compiler/lower/kernel_params.cc).
  kRegionBody,
  // Everything else the spec defines by dequantize_op_quantize (dot_general,
  // convolution, batch_norm_*, cholesky, triangular_solve, iota, ...): the
  // legalization rewrites it into uniform_dequantize -> op on the expressed
  // type -> uniform_quantize.
  kDequantizeOpQuantize,
};

QuantizedForm QuantizedFormOf(std::string_view op_name);

// Whether any operand or result of `op`, or any argument of its regions'
// blocks, is a quantized tensor.
bool TouchesQuantized(const ir::Operation& op);

// Per-tensor: one scale and zero point (or not quantized at all).
inline bool IsPerTensor(const ir::Type& t) {
  return !t.is_quantized() || (t.quant->quantized_dimension < 0 && t.quant->scales.size() == 1);
}

}  // namespace kiln::compiler

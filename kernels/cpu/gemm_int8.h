// The 8-bit integer GEMM behind the fast dot_general on i8/ui8 operands with
// an i32 (or ui32) result: the integer contraction the quantized
// legalization produces (compiler/passes/quantized_integer_contraction.cc).
// Implemented in gemm_int8.cc, dispatched to the best Highway target.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/common/kernel.h"
#include "kernels/cpu/gemm.h"

namespace kiln::cpu {

// Whether the int8 GEMM takes these operand and result types: lhs and rhs
// each i8 or ui8, the result i32 or ui32 (the same bits: sums wrap modulo
// 2^32, as the reference's integer multiply-add does).
bool Int8GemmTypes(ElementType lhs, ElementType rhs, ElementType out);

// Runs `p` (GemmProblem's offset tables, a_k and b_k always filled; c is
// dense [batch][m][n] of 32-bit integers): C = A * B summed in wrapping
// 32-bit integers, bit-identical to the reference for any K.
void RunGemmInt8(const GemmProblem& p, ElementType a_type, ElementType b_type);

// B packed whole into the current target's layout (a constant weight,
// packed once: contraction_dot_general.cc keeps it in the KernelState).
// The layout depends on the target; Int8PackedLayout names it for the key.
size_t PackedBBytesInt8(const GemmProblem& p);
void PackWholeBInt8(const GemmProblem& p, ElementType b_type, void* out);
int64_t Int8PackedLayout();

// Test hook: use the widening 16-bit path even where the CPU has a byte
// dot product (AVX-512 VNNI, arm64 SDOT), so that path is tested there too.
void SetInt8DotProductDisabledForTest(bool disabled);
// Test hook: the AVX-512 VNNI form even where the CPU has AMX tiles.
void SetInt8AmxDisabledForTest(bool disabled);
// False while a test has the dot-product forms disabled (the int8 GEMM's and
// the depthwise convolution's): they then take their widening forms.
bool Int8DotProductEnabled();
// The int8 GEMM's micro-kernel on this CPU: "amx", "vnni", "sdot", "smmla",
// "pairs" or "widen".
const char* Int8GemmForm();

}  // namespace kiln::cpu

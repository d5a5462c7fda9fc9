// The bf16 GEMM on AVX-512 BF16 (gemm_bf16.cc): bf16 x bf16 operands,
// products summed in f32 by vdpbf16ps, which multiplies two pairs of bf16
// values exactly and adds each product to an f32 lane with rounding to
// nearest even, as the f32 GEMM's FMA does, at twice its rate. The
// instruction treats subnormal inputs as zero and flushes subnormal
// results to zero (whatever MXCSR says): callers take this GEMM only for
// operands without subnormals (Bf16HasSubnormals), and then the results
// differ from the f32 GEMM's only in the order of the sums and where a
// partial sum falls below 2^-126 (an absolute error of at most 2^-126 per
// step, docs/performance.md "bf16 GEMM").
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/cpu/gemm.h"

namespace kiln::cpu {

// Whether bf16 products run on this GEMM: the CPU has AVX-512 BF16 and
// either AMX tiles or a vdpbf16ps that pays (measured once: at least 1.4x
// the multiply-adds a second of f32 FMAs; where it is slower, the callers
// widen to f32 and the f32 GEMM runs). KILN_BF16_GEMM=1 takes it wherever
// the CPU has the instructions, KILN_BF16_GEMM=0 never; the test hook
// forces it on or off the same way, and the other hook gives the choice
// back to the environment and the measurement.
bool GemmBf16Available();
void SetGemmBf16DisabledForTest(bool disabled);
void ClearGemmBf16ChoiceForTest();
// Whether the build and the CPU have the instructions (AVX-512 BF16, BW
// and VL), whatever the choice.
bool GemmBf16Supported();
// Whether it runs on Intel AMX tiles (tdpbf16ps: the same products and
// rounded adds, even element of a pair first; kernels/cpu/amx.h), and a
// test hook that keeps it on vdpbf16ps.
bool GemmBf16UsesAmx();
void SetGemmBf16AmxDisabledForTest(bool disabled);

// Whether any of the n bf16 values is subnormal (exponent 0, mantissa
// not 0).
bool Bf16HasSubnormals(const uint16_t* x, int64_t n);
// The same scan split over the runner's threads where n is large.
bool Bf16HasSubnormals(const uint16_t* x, int64_t n, TaskRunner* runner);

// The problem's operands are bf16 (offsets in elements, as GemmProblem);
// C is f32, [batch][m][n], or 16-bit where p.c_type says (each sum rounded
// once as its tile is finished). B packed whole (for a constant kept by the
// caller): PackedBBytesBf16 bytes, written by PackWholeBBf16, then passed
// as p.b_packed.
size_t PackedBBytesBf16(const GemmProblem& p);
void PackWholeBBf16(const GemmProblem& p, void* out);
void RunGemmBf16(const GemmProblem& p);

}  // namespace kiln::cpu

// Which Highway targets the CPU kernels are compiled for. Include this before
// any Highway header in every kernels/cpu translation unit.
//
// Only the targets that matter are compiled, to keep the build quick:
//   x86:   AVX3 (AVX-512), AVX2, SSE4, plus the static baseline (EMU128 when
//          the compiler's baseline is plain SSE2);
//   arm64: NEON and SVE (plus the static baseline).
// SSSE3 (superseded by SSE4), AVX3_DL and the specialised SVE
// variants are disabled.
#pragma once

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128)
#endif

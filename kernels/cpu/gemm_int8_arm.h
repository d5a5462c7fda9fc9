// The 8-bit integer GEMM's arm64 micro-kernels (included by gemm_int8.cc
// only): the dot-product (SDOT) and matrix-multiply (I8MM) extensions, each
// built for its own extension whichever Highway target includes it, and
// called only where the CPU reports it (getauxval).
#pragma once
#include <cstdint>

#include "kernels/cpu/gemm_int8_packing.h"
#if HWY_ARCH_ARM_A64 && defined(__GNUC__) && defined(__linux__)
#define KILN_INT8_SDOT 1
#include <arm_neon.h>
#include <sys/auxv.h>
#endif

namespace kiln::cpu {
namespace int8 {

#if KILN_INT8_SDOT
// The arm64 dot-product micro-kernel: 8 rows x 12 columns in 24 accumulators
// of 4 lanes. Per quad of K, one register holds 4 rows' quads of A' and
// three hold 12 columns' quads of B'; sdot by element adds, to each of a
// row's 3 accumulators, that row's quad times the 4 columns' quads. Rows
// past kRows are neither computed nor stored. Built for the dot-product
// extension whichever Highway target calls it; called only where the CPU
// has it (HWCAP_ASIMDDP).
template <int kR, int kRows>
__attribute__((target("arch=armv8.2-a+dotprod"), always_inline)) inline void SdotRow(int32x4_t (&acc)[8][3], int8x16_t b0,
                                                                      int8x16_t b1, int8x16_t b2, int8x16_t a) {
  if constexpr (kR < kRows) {
    acc[kR][0] = vdotq_laneq_s32(acc[kR][0], b0, a, kR % 4);
    acc[kR][1] = vdotq_laneq_s32(acc[kR][1], b1, a, kR % 4);
    acc[kR][2] = vdotq_laneq_s32(acc[kR][2], b2, a, kR % 4);
  }
}

template <int kRows>
__attribute__((target("arch=armv8.2-a+dotprod"))) inline void TileSdotRows(const uint8_t* ap, const uint8_t* bp, int64_t k,
                                                             const int32_t* rowcorr, const int32_t* colsum,
                                                             int32_t ca, int32_t* c, int64_t ldc, int64_t rows,
                                                             int64_t cols) {
  int32x4_t acc[8][3];
  for (auto& row : acc) row[0] = row[1] = row[2] = vdupq_n_s32(0);
  const int64_t quads = (k + 3) / 4;
  for (int64_t q = 0; q < quads; ++q) {
    const auto* b8 = reinterpret_cast<const int8_t*>(bp);
    const auto* a8 = reinterpret_cast<const int8_t*>(ap);
    const int8x16_t b0 = vld1q_s8(b8), b1 = vld1q_s8(b8 + 16), b2 = vld1q_s8(b8 + 32);
    const int8x16_t a0 = vld1q_s8(a8);
    SdotRow<0, kRows>(acc, b0, b1, b2, a0);
    SdotRow<1, kRows>(acc, b0, b1, b2, a0);
    SdotRow<2, kRows>(acc, b0, b1, b2, a0);
    SdotRow<3, kRows>(acc, b0, b1, b2, a0);
    if constexpr (kRows > 4) {
      const int8x16_t a1 = vld1q_s8(a8 + 16);
      SdotRow<4, kRows>(acc, b0, b1, b2, a1);
      SdotRow<5, kRows>(acc, b0, b1, b2, a1);
      SdotRow<6, kRows>(acc, b0, b1, b2, a1);
      SdotRow<7, kRows>(acc, b0, b1, b2, a1);
    }
    ap += 32;
    bp += 48;
  }
  // Corrections: ca * colsum(B') per column, rowcorr per row.
  int32x4_t cc[3];
  for (int j = 0; j < 3; ++j) cc[j] = vmulq_n_s32(vld1q_s32(colsum + 4 * j), ca);
  for (int r = 0; r < kRows && r < rows; ++r) {
    const int32x4_t rc = vdupq_n_s32(rowcorr[r]);
    int32_t* out = c + r * ldc;
    int32_t tile[12];
    int32_t* dst = cols == 12 ? out : tile;
    for (int j = 0; j < 3; ++j) vst1q_s32(dst + 4 * j, vaddq_s32(vaddq_s32(acc[r][j], cc[j]), rc));
    if (dst == tile) std::memcpy(out, tile, static_cast<size_t>(cols) * 4);
  }
}

__attribute__((target("arch=armv8.2-a+dotprod"))) inline void TileSdot(const Layout&, const uint8_t* ap, const uint8_t* bp,
                                                         int64_t k, const int32_t* rowcorr, const int32_t* colsum,
                                                         int32_t ca, int32_t* c, int64_t ldc, int64_t rows,
                                                         int64_t cols) {
  if (rows <= 1) return TileSdotRows<1>(ap, bp, k, rowcorr, colsum, ca, c, ldc, rows, cols);
  if (rows <= 2) return TileSdotRows<2>(ap, bp, k, rowcorr, colsum, ca, c, ldc, rows, cols);
  if (rows <= 4) return TileSdotRows<4>(ap, bp, k, rowcorr, colsum, ca, c, ldc, rows, cols);
  TileSdotRows<8>(ap, bp, k, rowcorr, colsum, ca, c, ldc, rows, cols);
}

// The arm64 matrix-multiply micro-kernel (the I8MM extension, Armv8.6 and
// later): smmla multiplies a 2 x 8 block of A' by an 8 x 2 block of B' (both
// signed bytes) into a 2 x 2 block of i32 sums, twice the multiply-adds of
// an sdot. Panels in groups of 8 bytes of K: A [K/8][8 rows][8], B [K/8][8
// columns][8], so one 16-byte load is a pair of rows (or columns). An 8 x 8
// tile is 4 x 4 accumulators, each holding (r, c), (r, c+1), (r+1, c),
// (r+1, c+1); pairs of rows past kRows are neither computed nor stored.
template <int kRows>
__attribute__((target("arch=armv8.2-a+i8mm"))) inline void TileSmmlaRows(const uint8_t* ap, const uint8_t* bp,
                                                                         int64_t k, const int32_t* rowcorr,
                                                                         const int32_t* colsum, int32_t ca,
                                                                         int32_t* c, int64_t ldc, int64_t rows,
                                                                         int64_t cols) {
  constexpr int kPairs = (kRows + 1) / 2;
  int32x4_t acc[4][4];
  for (auto& row : acc) row[0] = row[1] = row[2] = row[3] = vdupq_n_s32(0);
  const int64_t octets = (k + 7) / 8;
  for (int64_t o = 0; o < octets; ++o) {
    const auto* b8 = reinterpret_cast<const int8_t*>(bp);
    const auto* a8 = reinterpret_cast<const int8_t*>(ap);
    const int8x16_t b0 = vld1q_s8(b8), b1 = vld1q_s8(b8 + 16), b2 = vld1q_s8(b8 + 32), b3 = vld1q_s8(b8 + 48);
#pragma GCC unroll 4
    for (int i = 0; i < kPairs; ++i) {
      const int8x16_t a = vld1q_s8(a8 + 16 * i);
      acc[i][0] = vmmlaq_s32(acc[i][0], a, b0);
      acc[i][1] = vmmlaq_s32(acc[i][1], a, b1);
      acc[i][2] = vmmlaq_s32(acc[i][2], a, b2);
      acc[i][3] = vmmlaq_s32(acc[i][3], a, b3);
    }
    ap += 64;
    bp += 64;
  }
  // Rows out of the 2 x 2 blocks: the low halves of a pair's blocks are its
  // first row, the high halves its second.
  const int32x4_t cc0 = vmulq_n_s32(vld1q_s32(colsum), ca), cc1 = vmulq_n_s32(vld1q_s32(colsum + 4), ca);
  for (int i = 0; i < kPairs; ++i) {
    for (int h = 0; h < 2; ++h) {
      const int r = 2 * i + h;
      if (r >= rows) return;
      auto half = [&](int32x4_t x, int32x4_t y) {
        const int64x2_t x64 = vreinterpretq_s64_s32(x), y64 = vreinterpretq_s64_s32(y);
        return vreinterpretq_s32_s64(h == 0 ? vzip1q_s64(x64, y64) : vzip2q_s64(x64, y64));
      };
      const int32x4_t rc = vdupq_n_s32(rowcorr[r]);
      int32_t* out = c + r * ldc;
      int32_t tile[8];
      int32_t* dst = cols == 8 ? out : tile;
      vst1q_s32(dst, vaddq_s32(vaddq_s32(half(acc[i][0], acc[i][1]), cc0), rc));
      vst1q_s32(dst + 4, vaddq_s32(vaddq_s32(half(acc[i][2], acc[i][3]), cc1), rc));
      if (dst == tile) std::memcpy(out, tile, static_cast<size_t>(cols) * 4);
    }
  }
}

__attribute__((target("arch=armv8.2-a+i8mm"))) inline void TileSmmla(const Layout&, const uint8_t* ap,
                                                                     const uint8_t* bp, int64_t k,
                                                                     const int32_t* rowcorr, const int32_t* colsum,
                                                                     int32_t ca, int32_t* c, int64_t ldc,
                                                                     int64_t rows, int64_t cols) {
  if (rows <= 2) return TileSmmlaRows<2>(ap, bp, k, rowcorr, colsum, ca, c, ldc, rows, cols);
  if (rows <= 4) return TileSmmlaRows<4>(ap, bp, k, rowcorr, colsum, ca, c, ldc, rows, cols);
  TileSmmlaRows<8>(ap, bp, k, rowcorr, colsum, ca, c, ldc, rows, cols);
}

inline bool CpuHasSdot() { return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0; }
inline bool CpuHasI8mm() { return (getauxval(AT_HWCAP2) & HWCAP2_I8MM) != 0; }
#endif

}  // namespace int8
}  // namespace kiln::cpu

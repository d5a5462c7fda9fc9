// The 8-bit integer GEMM's x86-64 micro-kernels (included by gemm_int8.cc
// only): AVX-512 VNNI and Intel AMX, each built for its own instruction set
// whichever Highway target includes it, and called only on a CPU that has it.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/amx.h"
#include "kernels/cpu/amx_panels.h"
#include "kernels/cpu/gemm_int8_packing.h"
#include "kernels/cpu/thread_scratch.h"

namespace kiln::cpu {
namespace int8 {

#if HWY_ARCH_X86_64 && defined(__GNUC__)
#define KILN_INT8_VNNI_TARGET "avx512f,avx512bw,avx512vl,avx512dq,avx512vnni"

// The corrections and masks of one 32-column tile's store: ca * colsum(B')
// per column (ca is 0 or -128 for VNNI, 0 for AMX) and the masks of the
// tile's columns (cols of 32).
struct TileColumns {
  __m512i cc0, cc1;
  __mmask16 m0, m1;
};
__attribute__((target(KILN_INT8_VNNI_TARGET))) inline TileColumns ColumnsOf(const int32_t* colsum, int32_t ca,
                                                                            int64_t cols) {
  const __m512i vca = _mm512_set1_epi32(ca);
  TileColumns t;
  t.cc0 = _mm512_mullo_epi32(vca, _mm512_loadu_si512(colsum));
  t.cc1 = _mm512_mullo_epi32(vca, _mm512_loadu_si512(colsum + 16));
  t.m0 = cols >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << cols) - 1);
  t.m1 = cols >= 32   ? static_cast<__mmask16>(0xFFFF)
         : cols <= 16 ? static_cast<__mmask16>(0)
                      : static_cast<__mmask16>((1u << (cols - 16)) - 1);
  return t;
}

// Stores one row of a tile, s0 and s1 (columns 0-15 and 16-31), plus the
// column corrections and the row's correction rowcorr.
__attribute__((target(KILN_INT8_VNNI_TARGET))) inline void StoreTileRow(const TileColumns& t, __m512i s0, __m512i s1,
                                                                        int32_t rowcorr, int32_t* row) {
  const __m512i rc = _mm512_set1_epi32(rowcorr);
  _mm512_mask_storeu_epi32(row, t.m0, _mm512_add_epi32(_mm512_add_epi32(s0, t.cc0), rc));
  _mm512_mask_storeu_epi32(row + 16, t.m1, _mm512_add_epi32(_mm512_add_epi32(s1, t.cc1), rc));
}

// Stores a VNNI tile's 8 x 32 sums plus their corrections (rowcorr null:
// none per row), only the tile's rows and columns.
__attribute__((target(KILN_INT8_VNNI_TARGET))) inline void StoreVnniTile(const __m512i (&acc)[8][2],
                                                                         const int32_t* rowcorr,
                                                                         const int32_t* colsum, int32_t ca,
                                                                         int32_t* c, int64_t ldc, int64_t rows,
                                                                         int64_t cols) {
  const TileColumns t = ColumnsOf(colsum, ca, cols);
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) {
    if (r >= rows) break;
    StoreTileRow(t, acc[r][0], acc[r][1], rowcorr != nullptr ? rowcorr[r] : 0, c + r * ldc);
  }
}

// The VNNI micro-kernel (8 rows x 32 columns: 16 accumulators), computing
// only the first kRows rows (a panel's last rows, a batch-1 layer's one
// row: the others are never stored). Built for its own instruction set
// whichever Highway target calls it; only the AVX3 target calls it, and
// only on a CPU with avx512_vnni.
template <int kRows>
__attribute__((target(KILN_INT8_VNNI_TARGET))) inline void TileVnniRows(
    const uint8_t* ap, const uint8_t* bp, int64_t k, const int32_t* rowcorr, const int32_t* colsum, int32_t ca,
    int32_t* c, int64_t ldc, int64_t rows, int64_t cols) {
  constexpr int kMR = 8;
  __m512i acc[kMR][2];
#pragma GCC unroll 8
  for (int r = 0; r < kMR; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_si512();
  const int64_t quads = (k + 3) / 4;
  for (int64_t q = 0; q < quads; ++q) {
    const __m512i b0 = _mm512_loadu_si512(bp), b1 = _mm512_loadu_si512(bp + 64);
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      int32_t a4;
      std::memcpy(&a4, ap + 4 * r, 4);
      const __m512i a = _mm512_set1_epi32(a4);
      acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], a, b0);
      acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], a, b1);
    }
    ap += 4 * kMR;
    bp += 128;
  }
  StoreVnniTile(acc, rowcorr, colsum, ca, c, ldc, rows, cols);
}

__attribute__((target(KILN_INT8_VNNI_TARGET))) inline void TileVnni(
    const Layout&, const uint8_t* ap, const uint8_t* bp, int64_t k, const int32_t* rowcorr, const int32_t* colsum,
    int32_t ca, int32_t* c, int64_t ldc, int64_t rows, int64_t cols) {
  if (rows <= 1) return TileVnniRows<1>(ap, bp, k, rowcorr, colsum, ca, c, ldc, rows, cols);
  if (rows <= 2) return TileVnniRows<2>(ap, bp, k, rowcorr, colsum, ca, c, ldc, rows, cols);
  if (rows <= 4) return TileVnniRows<4>(ap, bp, k, rowcorr, colsum, ca, c, ldc, rows, cols);
  TileVnniRows<8>(ap, bp, k, rowcorr, colsum, ca, c, ldc, rows, cols);
}

// TileVnni with A read in place (DirectTileFn); rowcorr is 0 there. Each
// row's quad is broadcast straight from memory (a load-port operation):
// broadcasting it from a general register (as an xor of the sign bits
// would need) takes the vector port that vpdpbusd also needs, 470 against
// 620-700 GOP/s in a register-only loop of this shape on an AVX-512 VNNI
// core, so an i8 A is flipped into a copy before (gemm_int8.cc).
template <int kRows>
__attribute__((target(KILN_INT8_VNNI_TARGET))) inline void TileVnniDirectRows(
    const uint8_t* const* rows_a, const int64_t* koff, int64_t quads, const uint8_t* bp, const int32_t* colsum,
    int32_t ca, int32_t* c, int64_t ldc, int64_t rows, int64_t cols) {
  constexpr int kMR = 8;
  __m512i acc[kMR][2];
#pragma GCC unroll 8
  for (int r = 0; r < kMR; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_si512();
  for (int64_t q = 0; q < quads; ++q) {
    const __m512i b0 = _mm512_loadu_si512(bp), b1 = _mm512_loadu_si512(bp + 64);
    const int64_t off = koff[q];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      uint32_t a4;
      std::memcpy(&a4, rows_a[r] + off, 4);
      const __m512i a = _mm512_set1_epi32(static_cast<int32_t>(a4));
      acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], a, b0);
      acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], a, b1);
    }
    bp += 128;
  }
  StoreVnniTile(acc, nullptr, colsum, ca, c, ldc, rows, cols);
}

__attribute__((target(KILN_INT8_VNNI_TARGET))) inline void TileVnniDirect(
    const uint8_t* const* rows_a, const int64_t* koff, int64_t quads, const uint8_t* bp, const int32_t* colsum,
    int32_t ca, int32_t* c, int64_t ldc, int64_t rows, int64_t cols) {
  if (rows <= 1) return TileVnniDirectRows<1>(rows_a, koff, quads, bp, colsum, ca, c, ldc, rows, cols);
  if (rows <= 2) return TileVnniDirectRows<2>(rows_a, koff, quads, bp, colsum, ca, c, ldc, rows, cols);
  if (rows <= 4) return TileVnniDirectRows<4>(rows_a, koff, quads, bp, colsum, ca, c, ldc, rows, cols);
  TileVnniDirectRows<8>(rows_a, koff, quads, bp, colsum, ca, c, ldc, rows, cols);
}

inline bool CpuHasVnni() { return __builtin_cpu_supports("avx512vnni"); }
#endif

#if KILN_AMX
// The AMX micro-kernel: a 32 x 32 tile of C in four 16 x 16 i32 tiles
// (tmm0-3), per 64 bytes of K two A tiles (tmm4-5: rows 0-15 and 16-31)
// and two B tiles (tmm6-7: columns 0-15 and 16-31, 16 quads of K at 128
// bytes apart in the VNNI panel), four tile dot products. tdpbusd takes
// u8 x s8, tdpbssd s8 x s8 (B' is always s8), so A is used as stored. A
// tile of at most 16 rows skips tmm2-3. A whole tile without corrections
// (an i8 B; ca is 0 here) is stored straight to C; else the sums go
// through a buffer to add the corrections and store the tile's rows and
// columns only.
//
// Where a half's A rows come from: amx::PanelRows (amx_panels.h), a packed
// panel or A in place.
using AmxA = amx::PanelRows<uint8_t>;

template <bool kASigned>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,amx-tile,amx-int8"))) inline void TileAmxFrom(
    const AmxA& a, int64_t steps, const uint8_t* bp, const int32_t* rowcorr, const int32_t* colsum, int32_t ca,
    int32_t* c, int64_t ldc, int64_t rows, int64_t cols) {
  // The tiles configured by the caller (once per call and worker).
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
#define KILN_AMX_DP(acc, x, y)   \
  if constexpr (kASigned) {      \
    _tile_dpbssd(acc, x, y);     \
  } else {                       \
    _tile_dpbusd(acc, x, y);     \
  }
  if (rows > 16) {
    for (int64_t s = 0; s < steps; ++s) {
      _tile_loadd(6, bp + s * 2048, 128);
      _tile_loadd(7, bp + s * 2048 + 64, 128);
      _tile_loadd(4, a.At(0, s), a.stride[0]);
      _tile_loadd(5, a.At(1, s), a.stride[1]);
      KILN_AMX_DP(0, 4, 6)
      KILN_AMX_DP(1, 4, 7)
      KILN_AMX_DP(2, 5, 6)
      KILN_AMX_DP(3, 5, 7)
    }
  } else {
    for (int64_t s = 0; s < steps; ++s) {
      _tile_loadd(6, bp + s * 2048, 128);
      _tile_loadd(7, bp + s * 2048 + 64, 128);
      _tile_loadd(4, a.At(0, s), a.stride[0]);
      KILN_AMX_DP(0, 4, 6)
      KILN_AMX_DP(1, 4, 7)
    }
  }
#undef KILN_AMX_DP
  bool corrections = ca != 0;
  if (rowcorr != nullptr) {
    const __m512i rc = _mm512_or_si512(_mm512_loadu_si512(rowcorr), _mm512_loadu_si512(rowcorr + 16));
    corrections = corrections || _mm512_test_epi32_mask(rc, rc) != 0;
  }
  if (rows == 32 && cols == 32 && !corrections) return amx::StoreSums(c, ldc, 32);
  alignas(64) int32_t sums[32][32];
  amx::StoreSums(&sums[0][0], 32, rows);
  const TileColumns t = ColumnsOf(colsum, ca, cols);
  for (int64_t r = 0; r < rows; ++r)
    StoreTileRow(t, _mm512_load_si512(&sums[r][0]), _mm512_load_si512(&sums[r][16]),
                 rowcorr != nullptr ? rowcorr[r] : 0, c + r * ldc);
}

// TileAmxFrom over a packed A panel (a TileFn).
template <bool kASigned>
inline void TileAmx(const Layout& l, const uint8_t* ap, const uint8_t* bp, int64_t k, const int32_t* rowcorr,
                    const int32_t* colsum, int32_t ca, int32_t* c, int64_t ldc, int64_t rows, int64_t cols) {
  const int64_t kpad = PaddedK(l, k);
  AmxA a;
  a.base[0] = ap, a.base[1] = ap + 16 * kpad;
  a.stride[0] = a.stride[1] = kpad;
  TileAmxFrom<kASigned>(a, AmxSteps(l, k), bp, rowcorr, colsum, ca, c, ldc, rows, cols);
}

struct Int8AmxSteps;   // scratch: the offsets of A's steps
struct Int8AmxHalves;  // per-thread scratch: the halves of a panel packed by GemmAmxInPlace

// The AMX GEMM reading A in place, for an i8 B (no row sums of A needed)
// and a contraction whose every 64-element step is 64 contiguous bytes of
// A (K a multiple of 64; a row-major A, or a channel-last convolution over
// a multiple of 64 features): each panel's halves are placed by
// amx::PlacePanel, once per task for the task's column panels. False where
// the steps do not qualify or the rows are long (amx::LongDistinctRows):
// the packing path runs.
template <bool kASigned>
bool GemmAmxInPlace(const Layout& l, const GemmProblem& p, const uint8_t* bpack, const int32_t* colsum,
                    TaskRunner* runner) {
  if (amx::LongDistinctRows(p)) return false;  // packed instead (amx_panels.h)
  const bool narrow = AmxNarrowK(l, p.k);
  const int64_t steps = narrow ? 1 : p.k / amx::kStepBytes;
  ScratchLease<Int8AmxSteps, int64_t> koff(static_cast<size_t>(std::max<int64_t>(steps, 1)));
  // (The narrow form reads 32 bytes a row: K must be exactly 32 in place.)
  if (narrow ? p.k != 32 || !amx::ContiguousSteps<uint8_t>(p, koff.get(), 32)
             : !amx::ContiguousSteps<uint8_t>(p, koff.get()))
    return false;
  const auto* src = static_cast<const uint8_t*>(p.a);
  const int64_t np = Panels(p.n, l.nr), b_panel = BPanelBytes(l, p.k);
  const OffsetRuns runs = amx::ARuns(p);
  ForEachPanelRow(
      runner, p.batch, Panels(p.m, l.mr), np, kRowPanels, kColPanels,
      [&](int64_t b, int64_t ip, int64_t jp_begin, int64_t jp_end) {
        ScratchLease<Int8AmxHalves, uint8_t> halves(static_cast<size_t>(2 * amx::kHalfRows * p.k));
        const int64_t i0 = ip * l.mr, rows = std::min(l.mr, p.m - i0);
        AmxA a;
        amx::PlacePanel(p, src + p.a_batch[b], koff.get(), runs, i0, halves.get(), a);
        const RowPanelOut out(p, l, b, ip, jp_begin, jp_end);
        for (int64_t jp = jp_begin; jp < jp_end; ++jp)
          TileAmxFrom<kASigned>(a, steps, bpack + (b * np + jp) * b_panel, nullptr, colsum + (b * np + jp) * l.nr,
                                0, out.Tile(jp), out.ldc(), rows, std::min(l.nr, p.n - jp * l.nr));
        out.Done();
      },
      [narrow] { amx::Configure(narrow); });
  return true;
}
#endif

}  // namespace int8
}  // namespace kiln::cpu

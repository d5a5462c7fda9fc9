// The 8-bit integer GEMM of gemm_int8.h, compiled for every Highway target
// and dispatched to the best.
//
// Three micro-kernels over two packing schemes:
//  - AVX-512 VNNI (the AVX3 target on a CPU with avx512_vnni): vpdpbusd
//    multiplies 4 unsigned bytes of A by 4 signed bytes of B and adds the
//    four products to an i32 lane. It needs u8 x s8, so an i8 A is packed as
//    A' = A + 128 (the sign bit flipped) and a u8 B as B' = B - 128. With
//    A = A' + ca, B = B' + cb (ca in {0, -128}, cb in {0, 128}):
//      sum_k A B = sum_k A'B' + cb * rowsum(A') + ca * colsum(B') + ca cb K,
//    the corrections computed while packing and added in the store (the way
//    oneDNN and XNNPACK fold zero points). Panels: A [K/4][MR][4] bytes,
//    B [K/4][NR][4] bytes (NR = 32: two registers of 16 lanes), K padded
//    with zeros, which add nothing on either side.
//  - Intel AMX (the AVX3 target on a CPU with AMX-INT8 whose kernel grants
//    the tile state, kernels/cpu/amx.h): 32 x 32 tiles of C in four tile
//    registers, tdpbusd (u8 x s8) or tdpbssd (s8 x s8) by A's type, so A
//    is packed as stored (ca = 0) into 32-row panels of K bytes each; B in
//    the VNNI panels, K padded to 64 (a whole tile step).
//  - arm64 with the dot-product extension (SDOT, Armv8.2 and later, on any
//    Highway target there): the same quads, but sdot multiplies signed
//    bytes on both sides, so A' is signed too: a ui8 A is packed as
//    A' = A - 128 (ca = 128) and an i8 A as it is (ca = 0); the same
//    corrections. One sdot by element adds 4 rows' quads (one register of
//    A) times 4 columns' quads: an 8 x 12 tile in 24 accumulators.
//  - arm64 with the matrix-multiply extension (I8MM): smmla on the same
//    signed bytes in groups of 8 (A [K/8][MR][8], B [K/8][NR][8]), each
//    adding a 2 x 8 by 8 x 2 product: an 8 x 8 tile in 16 accumulators.
//  - Every other target (and AVX3 without VNNI): operands widened to i16 when
//    packed (A [K][MR], B [K][NR]), each step widening B to i32 and adding
//    A(broadcast) * B: no corrections.
// All sums wrap modulo 2^32, as the reference's i32 multiply-add does, so the
// result is bit-identical to it for any K (and in any order).
//
// Loop nest: A and B are packed whole (B once per constant weight when the
// caller keeps it, contraction_dot_general.cc), then tiles of kRowPanels x
// kColPanels micro-panels are spread over the pool: an A micro-panel stays
// in L1 across the B panels of its column chunk, which stays in L2. The
// whole contraction is summed in registers (no K blocking: i32 sums need no
// partial results in memory).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/gemm_int8.cc"
#include "kernels/cpu/aligned_scratch.h"
#include "kernels/cpu/thread_scratch.h"
#include "kernels/cpu/hwy_targets.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "hwy/aligned_allocator.h"

#ifndef KILN_CPU_GEMM_INT8_SHARED
#define KILN_CPU_GEMM_INT8_SHARED
#include "kernels/common/kernel_selection.h"
#include "kernels/common/parallel.h"
#include "kernels/cpu/gemm_int8.h"
#include "kernels/cpu/offset_runs.h"

#if HWY_ARCH_X86_64 && defined(__GNUC__)
#include <immintrin.h>
#endif
#include "kernels/cpu/amx.h"
#if HWY_ARCH_ARM_A64 && defined(__GNUC__) && defined(__linux__)
#define KILN_INT8_SDOT 1
#include <arm_neon.h>
#include <sys/auxv.h>
#endif

namespace kiln::cpu {
namespace int8 {

// Per-thread scratch (thread_scratch.h): B packed per call when it was not
// packed at load, and the A panels with their row corrections.
struct Int8BScratch;
struct Int8AScratch;

// Multiply-adds below which a product runs on the calling thread only.
constexpr double kParallelMinMacs = 1 << 20;
// Micro-panels per tile: rows (A panels) and columns (B panels).
constexpr int64_t kRowPanels = 8;
constexpr int64_t kColPanels = 8;

inline std::atomic<bool> dot_disabled{false};
inline std::atomic<bool> amx_disabled{false};

// Which micro-kernel, and so which packing: widened to i16 (one step of K
// at a time, or in pairs of K for x86's vpmaddwd), or bytes in groups of 4
// (VNNI, SDOT) or 8 (SMMLA) of K, A' unsigned (VNNI) or signed.
// kAmx: Intel AMX tiles (B in the VNNI quads, K padded to 64 for whole
// tiles; A row-major in 32-row panels, not flipped).
enum class Form : int64_t { kWiden = 0, kVnni = 1, kSdot = 2, kSmmla = 3, kPairs = 4, kAmx = 5 };

struct Layout {
  Form form = Form::kWiden;
  int64_t mr = 0, nr = 0;
  bool bytes() const { return form != Form::kWiden && form != Form::kPairs; }
  // Elements of K per group: a panel is [K / g][rows or columns][g].
  int64_t group() const {
    return form == Form::kSmmla ? 8 : form == Form::kWiden ? 1 : form == Form::kPairs ? 2 : 4;
  }
};

inline int64_t PaddedK(const Layout& l, int64_t k) {
  const int64_t align = l.form == Form::kAmx ? 64 : l.group();
  return (k + align - 1) / align * align;
}
inline int64_t APanelBytes(const Layout& l, int64_t k) { return PaddedK(l, k) * l.mr * (l.bytes() ? 1 : 2); }
inline int64_t BPanelBytes(const Layout& l, int64_t k) { return PaddedK(l, k) * l.nr * (l.bytes() ? 1 : 2); }

// The shifts packing applies (A = A' + ca, B = B' + cb): B' is always
// signed bytes (a ui8 B flipped, cb = 128); A' is unsigned bytes for VNNI
// (an i8 A flipped, ca = -128) and signed for SDOT and SMMLA (a ui8 A
// flipped, ca = 128). A byte is flipped (xor 0x80) exactly where its shift
// is not 0.
inline bool ALanesSigned(const Layout& l) { return l.form == Form::kSdot || l.form == Form::kSmmla; }
inline int32_t ACorrection(const Layout& l, bool a_signed) {
  if (!l.bytes() || l.form == Form::kAmx) return 0;  // AMX has both u8 x s8 and s8 x s8
  if (ALanesSigned(l)) return a_signed ? 0 : 128;
  return a_signed ? -128 : 0;
}
inline int32_t BCorrection(const Layout& l, bool b_signed) { return l.bytes() && !b_signed ? 128 : 0; }
inline int64_t Panels(int64_t n, int64_t width) { return (n + width - 1) / width; }
inline int64_t AlignUp(int64_t x) { return (x + 63) / 64 * 64; }

// The packed B buffer: panels [batch][panel], then the column sums of B'
// (i32, [batch][panel * nr]), 64-byte aligned.
inline int64_t BPanelsBytes(const Layout& l, const GemmProblem& p) {
  return AlignUp(p.batch * Panels(p.n, l.nr) * BPanelBytes(l, p.k));
}
inline int64_t BBytes(const Layout& l, const GemmProblem& p) {
  return BPanelsBytes(l, p) + p.batch * Panels(p.n, l.nr) * l.nr * 4;
}

inline int32_t Wrap(int64_t x) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(x))); }

// Stored value of an i8 or ui8 element.
inline int32_t LoadValue(const uint8_t* base, int64_t i, bool is_signed) {
  return is_signed ? static_cast<int32_t>(static_cast<int8_t>(base[i])) : static_cast<int32_t>(base[i]);
}

#if HWY_ARCH_X86_64 && defined(__GNUC__)
// PackBPanel's VNNI layout, 16 columns at a time: per quad of B rows, 16
// bytes of each of the four rows interleaved into the 16 columns' quads with
// byte and word unpacks, the column sums accumulated by vpdpbusd against a
// vector of ones. A half whose columns are consecutive in B (weights
// [K, N], a convolution's windows along an output row) loads each row's 16
// bytes directly; otherwise they are gathered run by run (a window row
// ends inside the half) into a buffer, columns past the panel's end set so
// that they flip to 0. A row past K is zeros, not flipped.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni"))) inline void PackBPanelVnniRuns(
    const GemmProblem& p, uint8_t flip, int64_t b, int64_t j0, int64_t cols, uint8_t* out, int32_t* colsum) {
  const auto* src = static_cast<const uint8_t*>(p.b) + p.b_batch[b];
  struct Piece {
    int c0, len;
    int64_t off;
  };
  Piece pieces[2][16];
  int npieces[2] = {0, 0};
  for (int h = 0; h < 2; ++h)
    for (int c = 16 * h; c < std::min<int64_t>(cols, 16 * h + 16); ++c) {
      Piece* last = npieces[h] > 0 ? &pieces[h][npieces[h] - 1] : nullptr;
      if (last != nullptr && p.b_n[j0 + c] == last->off + last->len) {
        ++last->len;
      } else {
        pieces[h][npieces[h]++] = {c - 16 * h, 1, p.b_n[j0 + c]};
      }
    }
  const __m128i vflip = _mm_set1_epi8(static_cast<char>(flip)), zero = _mm_setzero_si128();
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i sum[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
  const int64_t quads = (p.k + 3) / 4;
  alignas(16) uint8_t gathered[16];
  for (int64_t q = 0; q < quads; ++q) {
    for (int h = 0; h < 2; ++h) {
      __m128i rows[4];
      for (int j = 0; j < 4; ++j) {
        const int64_t k = 4 * q + j;
        if (k >= p.k || npieces[h] == 0) {
          rows[j] = zero;
          continue;
        }
        const uint8_t* row = src + p.b_k[k];
        if (npieces[h] == 1 && pieces[h][0].len == 16) {
          rows[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + pieces[h][0].off));
        } else {
          std::memset(gathered, flip, sizeof gathered);
          for (int i = 0; i < npieces[h]; ++i)
            std::memcpy(gathered + pieces[h][i].c0, row + pieces[h][i].off, static_cast<size_t>(pieces[h][i].len));
          rows[j] = _mm_load_si128(reinterpret_cast<const __m128i*>(gathered));
        }
        rows[j] = _mm_xor_si128(rows[j], vflip);
      }
      const __m128i p01lo = _mm_unpacklo_epi8(rows[0], rows[1]), p01hi = _mm_unpackhi_epi8(rows[0], rows[1]);
      const __m128i p23lo = _mm_unpacklo_epi8(rows[2], rows[3]), p23hi = _mm_unpackhi_epi8(rows[2], rows[3]);
      __m512i v = _mm512_castsi128_si512(_mm_unpacklo_epi16(p01lo, p23lo));
      v = _mm512_inserti32x4(v, _mm_unpackhi_epi16(p01lo, p23lo), 1);
      v = _mm512_inserti32x4(v, _mm_unpacklo_epi16(p01hi, p23hi), 2);
      v = _mm512_inserti32x4(v, _mm_unpackhi_epi16(p01hi, p23hi), 3);
      _mm512_storeu_si512(out + q * 128 + 64 * h, v);
      sum[h] = _mm512_dpbusd_epi32(sum[h], ones, v);
    }
  }
  _mm512_storeu_si512(colsum, sum[0]);
  _mm512_storeu_si512(colsum + 16, sum[1]);
}
#endif

// Packs B micro-panel `panel` of batch `b` into `out` and its column sums of
// B' into `colsum` (nr of them).
inline void PackBPanel(const Layout& l, const GemmProblem& p, bool b_signed, int64_t b, int64_t panel, uint8_t* out,
                       int32_t* colsum) {
  const auto* src = static_cast<const uint8_t*>(p.b);
  const int64_t j0 = panel * l.nr, cols = std::min(l.nr, p.n - j0);
#if HWY_ARCH_X86_64 && defined(__GNUC__)
  // (Not in selective builds, which keep the byte loop below: speed, not function.)
  if constexpr (!KILN_SELECTIVE_BUILD)
    if ((l.form == Form::kVnni || l.form == Form::kAmx) && l.nr == 32) {
      PackBPanelVnniRuns(p, b_signed ? 0 : 0x80, b, j0, cols, out, colsum);
      const int64_t written = (p.k + 3) / 4 * 128;  // AMX: zero quads up to the padded K
      std::memset(out + written, 0, static_cast<size_t>(BPanelBytes(l, p.k) - written));
      return;
    }
#endif
  std::memset(out, 0, static_cast<size_t>(BPanelBytes(l, p.k)));
  std::fill(colsum, colsum + l.nr, 0);
  auto* out16 = reinterpret_cast<int16_t*>(out);
  // B' = B - 128 for ui8 (the sign bit flipped), B for i8: as s8 bytes.
  const uint8_t flip = b_signed ? 0 : 0x80;
  for (int64_t k = 0; k < p.k; ++k) {
    const uint8_t* row = src + p.b_batch[b] + p.b_k[k];
    if (l.bytes()) {
      const int64_t g = l.group();
      uint8_t* dst = out + (k / g) * l.nr * g + k % g;
      if (p.b_n_contiguous) {
        // The common layout (weights [K, N]): one row of the panel at a time.
        row += j0;
        for (int64_t c = 0; c < cols; ++c) {
          const uint8_t v = row[c] ^ flip;
          dst[c * g] = v;
          colsum[c] += static_cast<int8_t>(v);  // |sum| < 2^31 for K < 2^24
        }
      } else {
        for (int64_t c = 0; c < cols; ++c) {
          const uint8_t v = row[p.b_n[j0 + c]] ^ flip;
          dst[c * g] = v;
          colsum[c] += static_cast<int8_t>(v);
        }
      }
    } else {
      const int64_t g = l.group();  // (i16 in groups of 1 or 2 of K)
      int16_t* dst = out16 + (k / g) * l.nr * g + k % g;
      for (int64_t c = 0; c < cols; ++c) dst[c * g] = static_cast<int16_t>(LoadValue(row, p.b_n[j0 + c], b_signed));
    }
  }
}

// Packs A micro-panel `panel` of batch `b`; `rowcorr` gets, per row,
// cb * rowsum(A') + ca * cb * K (wrapping).
inline void PackAPanelAmx(const Layout& l, const GemmProblem& p, bool a_signed, int32_t cb, int64_t b, int64_t panel,
                          uint8_t* out, int32_t* rowcorr);
inline void PackAPanel(const Layout& l, const GemmProblem& p, bool a_signed, int32_t cb, int64_t b, int64_t panel,
                       uint8_t* out, int32_t* rowcorr) {
  if (l.form == Form::kAmx) return PackAPanelAmx(l, p, a_signed, cb, b, panel, out, rowcorr);
  const auto* src = static_cast<const uint8_t*>(p.a);
  std::memset(out, 0, static_cast<size_t>(APanelBytes(l, p.k)));
  const int64_t i0 = panel * l.mr, rows = std::min(l.mr, p.m - i0);
  const int32_t ca = ACorrection(l, a_signed);
  // A' = A - ca: the sign bit flipped where ca is not 0; summed as signed
  // bytes for SDOT, unsigned for VNNI.
  const uint8_t flip = ca != 0 ? 0x80 : 0;
  const bool a_lanes_signed = ALanesSigned(l);
  const int64_t g = l.group();
  auto* out16 = reinterpret_cast<int16_t*>(out);
  for (int64_t r = 0; r < l.mr; ++r) {
    if (r >= rows) {
      rowcorr[r] = 0;
      continue;
    }
    const uint8_t* row = src + p.a_batch[b] + p.a_m[i0 + r];
    if (!l.bytes()) {
      // Form kWiden, the one form that packs A as i16 (kPairs widens A's
      // rows per call: GemmPairs): element k at k * mr + r. One loop per
      // signedness and A layout (this runs once per element of A on every
      // call).
      auto widen = [&](auto is_signed, auto contiguous) {
        int16_t* d = out16 + r;
        for (int64_t k = 0; k < p.k; ++k, d += l.mr) {
          const uint8_t byte = row[contiguous ? k : p.a_k[k]];
          *d = is_signed ? static_cast<int16_t>(static_cast<int8_t>(byte)) : static_cast<int16_t>(byte);
        }
      };
      using Yes = std::true_type;
      using No = std::false_type;
      if (a_signed) {
        p.a_k_contiguous ? widen(Yes{}, Yes{}) : widen(Yes{}, No{});
      } else {
        p.a_k_contiguous ? widen(No{}, Yes{}) : widen(No{}, No{});
      }
      rowcorr[r] = 0;
      continue;
    }
    int64_t sum = 0;
    if (p.a_k_contiguous) {
      // A group (4 or 8 bytes) at a time into the panel; the sum in its
      // own loop, which the compiler vectorises.
      const int64_t groups = p.k / g;
      auto copy_groups = [&](auto word) {  // word: a uint32_t or uint64_t, one group
        using W = decltype(word);
        constexpr int64_t kG = sizeof(W);
        const W flips = static_cast<W>(flip * static_cast<W>(0x0101010101010101u));
        for (int64_t q = 0; q < groups; ++q) {
          W w;
          std::memcpy(&w, row + kG * q, kG);
          w ^= flips;
          std::memcpy(out + q * l.mr * kG + r * kG, &w, kG);
        }
      };
      if (g == 4) {
        copy_groups(uint32_t{});
      } else {
        copy_groups(uint64_t{});
      }
      for (int64_t k = groups * g; k < p.k; ++k) out[groups * l.mr * g + r * g + k % g] = row[k] ^ flip;
      // In chunks of 2^16 bytes, whose u32 sum cannot overflow. Signed
      // lanes are summed as unsigned bytes of A' ^ 0x80 (= A' + 128), less
      // 128 per byte.
      const uint8_t sum_flip = a_lanes_signed ? flip ^ 0x80 : flip;
      for (int64_t k0 = 0; k0 < p.k; k0 += 1 << 16) {
        uint32_t s32 = 0;
        const int64_t end = std::min(p.k, k0 + (int64_t{1} << 16));
        for (int64_t k = k0; k < end; ++k) s32 += static_cast<uint8_t>(row[k] ^ sum_flip);
        sum += s32;
      }
      if (a_lanes_signed) sum -= 128 * p.k;
    } else {
      for (int64_t k = 0; k < p.k; ++k) {
        const uint8_t v = row[p.a_k[k]] ^ flip;
        out[(k / g) * l.mr * g + r * g + k % g] = v;
        sum += a_lanes_signed ? static_cast<int8_t>(v) : v;
      }
    }
    rowcorr[r] = Wrap(static_cast<int64_t>(cb) * sum + static_cast<int64_t>(ca) * cb * p.k);
  }
}

// Packs A micro-panel `panel` of batch `b` for the AMX tiles: mr rows of
// PaddedK bytes each, the stored values as they are (the tile instruction
// is chosen by A's signedness), zeros past K and past the last row;
// `rowcorr` gets cb * rowsum(A) (wrapping).
inline void PackAPanelAmx(const Layout& l, const GemmProblem& p, bool a_signed, int32_t cb, int64_t b, int64_t panel,
                          uint8_t* out, int32_t* rowcorr) {
  const auto* src = static_cast<const uint8_t*>(p.a);
  const int64_t kpad = PaddedK(l, p.k), i0 = panel * l.mr, rows = std::min(l.mr, p.m - i0);
  std::memset(out + rows * kpad, 0, static_cast<size_t>((l.mr - rows) * kpad));
  for (int64_t r = 0; r < l.mr; ++r) rowcorr[r] = 0;
  // Rows copied run by run (offset_runs.h), element by element where the
  // runs are many and short.
  const OffsetRuns runs = p.a_k_contiguous ? OffsetRuns(p.k) : OffsetRuns(p.a_k.data(), p.k);
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* row = src + p.a_batch[b] + p.a_m[i0 + r];
    uint8_t* dst = out + r * kpad;
    if (runs.valid()) {
      runs.Gather(row, dst);
    } else {
      for (int64_t k = 0; k < p.k; ++k) dst[k] = row[p.a_k[k]];
    }
    std::memset(dst + p.k, 0, static_cast<size_t>(kpad - p.k));
    if (cb == 0) continue;
    // In chunks of 2^16 bytes, whose i32 sum cannot overflow.
    int64_t sum = 0;
    for (int64_t k0 = 0; k0 < p.k; k0 += 1 << 16) {
      int32_t s32 = 0;
      const int64_t end = std::min(p.k, k0 + (int64_t{1} << 16));
      if (a_signed) {
        for (int64_t k = k0; k < end; ++k) s32 += static_cast<int8_t>(dst[k]);
      } else {
        for (int64_t k = k0; k < end; ++k) s32 += dst[k];
      }
      sum += s32;
    }
    rowcorr[r] = Wrap(static_cast<int64_t>(cb) * sum);
  }
}

// One micro-tile: C[rows][cols] (row stride ldc) from an A and a B panel.
using TileFn = void (*)(const Layout& l, const uint8_t* ap, const uint8_t* bp, int64_t k, const int32_t* rowcorr,
                        const int32_t* colsum, int32_t ca, int32_t* c, int64_t ldc, int64_t rows, int64_t cols);

// The VNNI micro-kernel reading A in place (no packed A): row r of the
// tile starts at rows[r], and its quad q (4 bytes of the contraction) lies
// at rows[r] + koff[q]; each quad is xor-ed with `flip4` (the sign bits of
// an i8 A). Only for a B of i8 (cb == 0: A needs no row sums).
using DirectTileFn = void (*)(const uint8_t* const* rows_a, const int64_t* koff, int64_t quads, uint32_t flip4,
                              const uint8_t* bp, const int32_t* colsum, int32_t ca, int32_t* c, int64_t ldc,
                              int64_t rows, int64_t cols);

// The offsets of A's quads when every quad of the contraction is 4
// contiguous bytes (K a multiple of 4): koff[q] = a_k[4q]; else empty.
inline std::vector<int64_t> QuadOffsets(const GemmProblem& p) {
  std::vector<int64_t> koff;
  if (p.k == 0 || p.k % 4 != 0) return koff;
  koff.resize(static_cast<size_t>(p.k / 4));
  for (int64_t q = 0; q < p.k / 4; ++q) {
    if (p.a_k_contiguous) {
      koff[q] = 4 * q;
      continue;
    }
    const int64_t o = p.a_k[4 * q];
    if (p.a_k[4 * q + 1] != o + 1 || p.a_k[4 * q + 2] != o + 2 || p.a_k[4 * q + 3] != o + 3) return {};
    koff[q] = o;
  }
  return koff;
}

inline void PackWholeB(const Layout& l, const GemmProblem& p, bool b_signed, uint8_t* out, TaskRunner* runner) {
  const int64_t np = Panels(p.n, l.nr), panel_bytes = BPanelBytes(l, p.k);
  auto* colsum = reinterpret_cast<int32_t*>(out + BPanelsBytes(l, p));
  ParallelFor(runner, p.batch * np, [&](int64_t t, int) {
    PackBPanel(l, p, b_signed, t / np, t % np, out + t * panel_bytes, colsum + t * l.nr);
  });
}

// The pool for `p`, or none where the product is too small to share.
inline TaskRunner* RunnerFor(const GemmProblem& p) {
  const double macs = static_cast<double>(p.batch) * p.m * p.n * std::max<int64_t>(p.k, 1);
  return macs >= kParallelMinMacs ? p.runner : nullptr;
}

// B's panels for the micro-kernels: those packed at load (p.b_packed), or
// packed now into `scratch` (BScratchBytes(l, p) bytes: none in the first case).
inline size_t BScratchBytes(const Layout& l, const GemmProblem& p) {
  return p.b_packed != nullptr ? 0 : static_cast<size_t>(std::max<int64_t>(BBytes(l, p), 64));
}
inline const uint8_t* PackedB(const Layout& l, const GemmProblem& p, bool b_signed, TaskRunner* runner,
                              uint8_t* scratch) {
  if (p.b_packed != nullptr) return static_cast<const uint8_t*>(p.b_packed);
  PackWholeB(l, p, b_signed, scratch, runner);
  return scratch;
}

// Runs fn(batch, row panel, column panel) for every micro-tile of a batch of
// mp x np panels: tiles of kRowPanels x kColPanels panels spread over the
// pool, so an A panel stays in L1 across its tile's B panels.
// `begin()` runs at the start of each task (the AMX tile configuration: a
// thread's tiles are its own for the task's length).
struct NoBegin {
  void operator()() const {}
};
template <class F, class Begin = NoBegin>
void ForEachTile(TaskRunner* runner, int64_t batch, int64_t mp, int64_t np, const F& fn, const Begin& begin = {}) {
  const int64_t row_groups = Panels(mp, kRowPanels), col_groups = Panels(np, kColPanels);
  ParallelFor(runner, batch * row_groups * col_groups, [&](int64_t t, int) {
    begin();
    const int64_t b = t / (row_groups * col_groups), rest = t % (row_groups * col_groups);
    const int64_t rg = rest / col_groups, cg = rest % col_groups;
    for (int64_t ip = rg * kRowPanels; ip < std::min(mp, (rg + 1) * kRowPanels); ++ip)
      for (int64_t jp = cg * kColPanels; jp < std::min(np, (cg + 1) * kColPanels); ++jp) fn(b, ip, jp);
  });
}

#if KILN_AMX
template <bool kASigned>
bool GemmAmxInPlace(const Layout& l, const GemmProblem& p, const uint8_t* bpack, const int32_t* colsum,
                    TaskRunner* runner);
#endif

// `direct`: the micro-kernel reading A in place (a DirectTileFn), used
// where packing A would cost more than it saves: A's quads gathered through
// a_k (a convolution's windows), or few B panels to reuse a packed A
// across; or nullptr (a std::nullptr_t: then none of that is compiled).
template <class Direct>
void Gemm(const Layout& l, TileFn tile, Direct direct, const GemmProblem& p, ElementType a_type, ElementType b_type) {
  if (p.batch == 0 || p.m == 0 || p.n == 0) return;
  const bool a_signed = a_type == ElementType::kSI8, b_signed = b_type == ElementType::kSI8;
  TaskRunner* runner = RunnerFor(p);
  const int64_t np = Panels(p.n, l.nr), mp = Panels(p.m, l.mr);
  ScratchLease<Int8BScratch, uint8_t> bscratch(BScratchBytes(l, p));
  const uint8_t* bpack = PackedB(l, p, b_signed, runner, bscratch.get());
  const auto* colsum = reinterpret_cast<const int32_t*>(bpack + BPanelsBytes(l, p));
  const int64_t a_panel = APanelBytes(l, p.k), b_panel = BPanelBytes(l, p.k);
  const int32_t cb = BCorrection(l, b_signed);
  const int32_t ca = ACorrection(l, a_signed);
  auto* c = static_cast<int32_t*>(p.c);
  if constexpr (!std::is_same_v<Direct, std::nullptr_t>) {
    if (cb == 0 && (!p.a_k_contiguous || np <= 4)) {
      const std::vector<int64_t> koff = QuadOffsets(p);
      if (!koff.empty()) {
        const auto* src = static_cast<const uint8_t*>(p.a);
        const uint32_t flip4 = a_signed ? 0x80808080u : 0;
        ForEachTile(runner, p.batch, mp, np, [&](int64_t b, int64_t ip, int64_t jp) {
          const int64_t i0 = ip * l.mr, j0 = jp * l.nr;
          // Rows past the edge repeat the last row (read, not stored).
          const uint8_t* rows_a[16];
          for (int64_t r = 0; r < l.mr; ++r) rows_a[r] = src + p.a_batch[b] + p.a_m[std::min(i0 + r, p.m - 1)];
          direct(rows_a, koff.data(), static_cast<int64_t>(koff.size()), flip4, bpack + (b * np + jp) * b_panel,
                 colsum + (b * np + jp) * l.nr, ca, c + b * p.m * p.n + i0 * p.n + j0, p.n, std::min(l.mr, p.m - i0),
                 std::min(l.nr, p.n - j0));
        });
        return;
      }
    }
  }
#if KILN_AMX
  if (l.form == Form::kAmx && cb == 0 &&
      (a_signed ? GemmAmxInPlace<true>(l, p, bpack, colsum, runner) : GemmAmxInPlace<false>(l, p, bpack, colsum, runner)))
    return;
#endif
  const int64_t a_bytes = AlignUp(p.batch * mp * a_panel);
  ScratchLease<Int8AScratch, uint8_t> ascratch(static_cast<size_t>(a_bytes + p.batch * mp * l.mr * 4 + 64));
  uint8_t* apack = ascratch.get();
  auto* rowcorr = reinterpret_cast<int32_t*>(apack + a_bytes);
  ParallelFor(runner, p.batch * mp, [&](int64_t t, int) {
    PackAPanel(l, p, a_signed, cb, t / mp, t % mp, apack + t * a_panel, rowcorr + t * l.mr);
  });
  auto run_tile = [&](int64_t b, int64_t ip, int64_t jp) {
    const int64_t i0 = ip * l.mr, j0 = jp * l.nr;
    tile(l, apack + (b * mp + ip) * a_panel, bpack + (b * np + jp) * b_panel, p.k, rowcorr + (b * mp + ip) * l.mr,
         colsum + (b * np + jp) * l.nr, ca, c + b * p.m * p.n + i0 * p.n + j0, p.n, std::min(l.mr, p.m - i0),
         std::min(l.nr, p.n - j0));
  };
#if KILN_AMX
  if (l.form == Form::kAmx) return ForEachTile(runner, p.batch, mp, np, run_tile, [] { amx::Configure(); });
#endif
  ForEachTile(runner, p.batch, mp, np, run_tile);
}

#if HWY_ARCH_X86_64 && defined(__GNUC__)
// Stores a VNNI tile's 8 x 32 sums plus their corrections: ca * colsum(B')
// per column (ca is 0 or -128) and rowcorr per row (null: none), only the
// tile's rows and columns.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni"))) inline void StoreVnniTile(
    const __m512i (&acc)[8][2], const int32_t* rowcorr, const int32_t* colsum, int32_t ca, int32_t* c, int64_t ldc,
    int64_t rows, int64_t cols) {
  const __m512i vca = _mm512_set1_epi32(ca);
  const __m512i cc0 = _mm512_mullo_epi32(vca, _mm512_loadu_si512(colsum));
  const __m512i cc1 = _mm512_mullo_epi32(vca, _mm512_loadu_si512(colsum + 16));
  const __mmask16 m0 = cols >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << cols) - 1);
  const __mmask16 m1 = cols >= 32 ? static_cast<__mmask16>(0xFFFF)
                       : cols <= 16 ? static_cast<__mmask16>(0)
                                    : static_cast<__mmask16>((1u << (cols - 16)) - 1);
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) {
    if (r >= rows) break;
    const __m512i rc = _mm512_set1_epi32(rowcorr != nullptr ? rowcorr[r] : 0);
    int32_t* row = c + r * ldc;
    _mm512_mask_storeu_epi32(row, m0, _mm512_add_epi32(_mm512_add_epi32(acc[r][0], cc0), rc));
    _mm512_mask_storeu_epi32(row + 16, m1, _mm512_add_epi32(_mm512_add_epi32(acc[r][1], cc1), rc));
  }
}

// The VNNI micro-kernel (8 rows x 32 columns: 16 accumulators), computing
// only the first kRows rows (a panel's last rows, a batch-1 layer's one
// row: the others are never stored). Built for its own instruction set
// whichever Highway target calls it; only the AVX3 target calls it, and
// only on a CPU with avx512_vnni.
template <int kRows>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni"))) inline void TileVnniRows(
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

__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni"))) inline void TileVnni(
    const Layout&, const uint8_t* ap, const uint8_t* bp, int64_t k, const int32_t* rowcorr, const int32_t* colsum,
    int32_t ca, int32_t* c, int64_t ldc, int64_t rows, int64_t cols) {
  if (rows <= 1) return TileVnniRows<1>(ap, bp, k, rowcorr, colsum, ca, c, ldc, rows, cols);
  if (rows <= 2) return TileVnniRows<2>(ap, bp, k, rowcorr, colsum, ca, c, ldc, rows, cols);
  if (rows <= 4) return TileVnniRows<4>(ap, bp, k, rowcorr, colsum, ca, c, ldc, rows, cols);
  TileVnniRows<8>(ap, bp, k, rowcorr, colsum, ca, c, ldc, rows, cols);
}

// TileVnni with A read in place (DirectTileFn); rowcorr is 0 there.
template <int kRows>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni"))) inline void TileVnniDirectRows(
    const uint8_t* const* rows_a, const int64_t* koff, int64_t quads, uint32_t flip4, const uint8_t* bp,
    const int32_t* colsum, int32_t ca, int32_t* c, int64_t ldc, int64_t rows, int64_t cols) {
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
      const __m512i a = _mm512_set1_epi32(static_cast<int32_t>(a4 ^ flip4));
      acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], a, b0);
      acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], a, b1);
    }
    bp += 128;
  }
  StoreVnniTile(acc, nullptr, colsum, ca, c, ldc, rows, cols);
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni"))) inline void TileVnniDirect(
    const uint8_t* const* rows_a, const int64_t* koff, int64_t quads, uint32_t flip4, const uint8_t* bp,
    const int32_t* colsum, int32_t ca, int32_t* c, int64_t ldc, int64_t rows, int64_t cols) {
  if (rows <= 1) return TileVnniDirectRows<1>(rows_a, koff, quads, flip4, bp, colsum, ca, c, ldc, rows, cols);
  if (rows <= 2) return TileVnniDirectRows<2>(rows_a, koff, quads, flip4, bp, colsum, ca, c, ldc, rows, cols);
  if (rows <= 4) return TileVnniDirectRows<4>(rows_a, koff, quads, flip4, bp, colsum, ca, c, ldc, rows, cols);
  TileVnniDirectRows<8>(rows_a, koff, quads, flip4, bp, colsum, ca, c, ldc, rows, cols);
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
// Where a half's A rows come from (AmxA): step s (64 bytes of K) of half
// h at base[h] + (koff[h] ? koff[h][s] : 64 s), its 16 rows stride[h]
// bytes apart: a packed panel (PaddedK apart, koff null), or A in place
// (a row-major A, or a convolution's windows along an output row, each
// step 64 contiguous bytes at koff[s] from the row's start).
struct AmxA {
  const uint8_t* base[2] = {nullptr, nullptr};
  int64_t stride[2] = {0, 0};
  const int64_t* koff[2] = {nullptr, nullptr};
  const uint8_t* At(int h, int64_t s) const { return base[h] + (koff[h] != nullptr ? koff[h][s] : 64 * s); }
};

template <bool kASigned>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,amx-tile,amx-int8"))) inline void TileAmxFrom(
    const AmxA& a, int64_t steps, const uint8_t* bp, const int32_t* rowcorr, const int32_t* colsum, int32_t ca,
    int32_t* c, int64_t ldc, int64_t rows, int64_t cols) {
  // The tiles configured by the caller (once per task).
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
  if (rows == 32 && cols == 32 && !corrections) {
    const int64_t stride = ldc * 4;
    _tile_stored(0, c, stride);
    _tile_stored(1, c + 16, stride);
    _tile_stored(2, c + 16 * ldc, stride);
    _tile_stored(3, c + 16 * ldc + 16, stride);
    return;
  }
  alignas(64) int32_t sums[32][32];
  _tile_stored(0, &sums[0][0], 128);
  _tile_stored(1, &sums[0][16], 128);
  if (rows > 16) {
    _tile_stored(2, &sums[16][0], 128);
    _tile_stored(3, &sums[16][16], 128);
  }
  const __m512i vca = _mm512_set1_epi32(ca);
  const __m512i cc0 = _mm512_mullo_epi32(vca, _mm512_loadu_si512(colsum));
  const __m512i cc1 = _mm512_mullo_epi32(vca, _mm512_loadu_si512(colsum + 16));
  const __mmask16 m0 = cols >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << cols) - 1);
  const __mmask16 m1 = cols >= 32 ? static_cast<__mmask16>(0xFFFF)
                       : cols <= 16 ? static_cast<__mmask16>(0)
                                    : static_cast<__mmask16>((1u << (cols - 16)) - 1);
  for (int64_t r = 0; r < rows; ++r) {
    const __m512i rc = _mm512_set1_epi32(rowcorr != nullptr ? rowcorr[r] : 0);
    int32_t* row = c + r * ldc;
    const __m512i s0 = _mm512_load_si512(&sums[r][0]), s1 = _mm512_load_si512(&sums[r][16]);
    _mm512_mask_storeu_epi32(row, m0, _mm512_add_epi32(_mm512_add_epi32(s0, cc0), rc));
    _mm512_mask_storeu_epi32(row + 16, m1, _mm512_add_epi32(_mm512_add_epi32(s1, cc1), rc));
  }
}

// TileAmxFrom over a packed A panel (a TileFn).
template <bool kASigned>
inline void TileAmx(const Layout& l, const uint8_t* ap, const uint8_t* bp, int64_t k, const int32_t* rowcorr,
                    const int32_t* colsum, int32_t ca, int32_t* c, int64_t ldc, int64_t rows, int64_t cols) {
  const int64_t kpad = PaddedK(l, k);
  AmxA a;
  a.base[0] = ap, a.base[1] = ap + 16 * kpad;
  a.stride[0] = a.stride[1] = kpad;
  TileAmxFrom<kASigned>(a, kpad / 64, bp, rowcorr, colsum, ca, c, ldc, rows, cols);
}

struct Int8AmxHalves;  // per-thread scratch: the halves of a panel packed by GemmAmxInPlace

// The AMX GEMM reading A in place, for an i8 B (no row sums of A needed)
// and a contraction whose every 64-element step is 64 contiguous bytes of
// A (K a multiple of 64; a row-major A, or a channel-last convolution over
// a multiple of 64 features): each half panel of 16 rows whose rows are
// evenly spaced (a row-major A; a convolution's output pixels along one
// output row) is loaded straight from A, the others are packed per task
// (OffsetRuns), once for the task's column panels. False where the steps
// do not qualify (the packing path runs).
template <bool kASigned>
bool GemmAmxInPlace(const Layout& l, const GemmProblem& p, const uint8_t* bpack, const int32_t* colsum,
                    TaskRunner* runner) {
  if (p.k % 64 != 0 || p.k == 0) return false;
  const int64_t steps = p.k / 64;
  std::vector<int64_t> koff(static_cast<size_t>(steps));
  for (int64_t s = 0; s < steps; ++s) {
    const int64_t o = p.a_k_contiguous ? 64 * s : p.a_k[64 * s];
    if (!p.a_k_contiguous)
      for (int64_t j = 1; j < 64; ++j)
        if (p.a_k[64 * s + j] != o + j) return false;
    koff[static_cast<size_t>(s)] = o;
  }
  const auto* src = static_cast<const uint8_t*>(p.a);
  auto* c = static_cast<int32_t*>(p.c);
  const int64_t np = Panels(p.n, l.nr), mp = Panels(p.m, l.mr), b_panel = BPanelBytes(l, p.k);
  const OffsetRuns runs = p.a_k_contiguous ? OffsetRuns(p.k) : OffsetRuns(p.a_k.data(), p.k);
  const int64_t row_groups = Panels(mp, kRowPanels), col_groups = Panels(np, kColPanels);
  ParallelFor(runner, p.batch * row_groups * col_groups, [&](int64_t t, int) {
    amx::Configure();
    const int64_t b = t / (row_groups * col_groups), rest = t % (row_groups * col_groups);
    const int64_t rg = rest / col_groups, cg = rest % col_groups;
    ScratchLease<Int8AmxHalves, uint8_t> halves(static_cast<size_t>(2 * 16 * p.k));
    const uint8_t* a_batch = src + p.a_batch[b];
    for (int64_t ip = rg * kRowPanels; ip < std::min(mp, (rg + 1) * kRowPanels); ++ip) {
      const int64_t i0 = ip * l.mr, rows = std::min(l.mr, p.m - i0);
      AmxA a;
      for (int h = 0; h < 2 && 16 * h < rows; ++h) {
        const int64_t r0 = i0 + 16 * h, n = std::min<int64_t>(16, p.m - r0);
        const int64_t stride = n > 1 ? p.a_m[r0 + 1] - p.a_m[r0] : 0;
        bool even = n == 16 && stride > 0;
        for (int64_t r = 2; even && r < 16; ++r) even = p.a_m[r0 + r] - p.a_m[r0] == r * stride;
        if (even) {
          a.base[h] = a_batch + p.a_m[r0], a.stride[h] = stride, a.koff[h] = koff.data();
          continue;
        }
        uint8_t* buf = halves.get() + h * 16 * p.k;  // rows past the last are zeros
        for (int64_t r = 0; r < 16; ++r) {
          if (r < n && runs.valid()) {
            runs.Gather(a_batch + p.a_m[r0 + r], buf + r * p.k);
          } else if (r < n) {
            for (int64_t k = 0; k < p.k; ++k) buf[r * p.k + k] = a_batch[p.a_m[r0 + r] + p.a_k[k]];
          } else {
            std::memset(buf + r * p.k, 0, static_cast<size_t>(p.k));
          }
        }
        a.base[h] = buf, a.stride[h] = p.k;
      }
      for (int64_t jp = cg * kColPanels; jp < std::min(np, (cg + 1) * kColPanels); ++jp) {
        const int64_t j0 = jp * l.nr;
        TileAmxFrom<kASigned>(a, steps, bpack + (b * np + jp) * b_panel, nullptr, colsum + (b * np + jp) * l.nr, 0,
                              c + b * p.m * p.n + i0 * p.n + j0, p.n, rows, std::min(l.nr, p.n - j0));
      }
    }
  });
  return true;
}
#endif

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
#endif  // KILN_CPU_GEMM_INT8_SHARED

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#undef KILN_INT8_PAIRS  // (per target: this file is compiled once for each)
#if HWY_ARCH_X86 && (HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3)
#define KILN_INT8_PAIRS 1
// Rows of the pairwise tile: 6 x 2 vectors of accumulators where there are
// 16 vector registers, 8 x 2 with AVX-512's 32.
constexpr int64_t kPairRows = HWY_TARGET == HWY_AVX3 ? 8 : 4;

// The pairwise micro-kernel (x86 without VNNI): B widened to i16 in pairs
// of K (panels [K/2][columns][2]), A's rows widened to i16 once per call
// and read in place; each row's pair of K is broadcast as one i32 and
// multiplied into the columns' pairs by vpmaddwd (Highway's
// ReorderWidenMulAccumulate of i16 on x86: lane i gets a0 * b[2i] +
// a1 * b[2i + 1], exact in i32), two steps of K per instruction where
// TileWiden's multiply and add take one. Only the first kRows rows are
// computed (a panel's last rows, a batch-1 layer's row).
template <int kRows>
void TilePairsRows(const int16_t* const* arows, const uint8_t* bp8, int64_t k, int32_t* c, int64_t ldc,
                   int64_t rows, int64_t cols) {
  const hn::ScalableTag<int32_t> d32;
  const hn::Repartition<int16_t, decltype(d32)> d16;
  const size_t n = hn::Lanes(d32);
  const auto* bp = reinterpret_cast<const int16_t*>(bp8);
  hn::Vec<decltype(d32)> acc[kRows][2];
  for (int r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = hn::Zero(d32);
  const int64_t pairs = (k + 1) / 2;
  for (int64_t q = 0; q < pairs; ++q) {
    const auto b0 = hn::LoadU(d16, bp), b1 = hn::LoadU(d16, bp + 2 * n);
    for (int r = 0; r < kRows; ++r) {
      int32_t a2;
      std::memcpy(&a2, arows[r] + 2 * q, 4);
      const auto a = hn::BitCast(d16, hn::Set(d32, a2));
      auto unused = hn::Zero(d32);
      acc[r][0] = hn::ReorderWidenMulAccumulate(d32, a, b0, acc[r][0], unused);
      acc[r][1] = hn::ReorderWidenMulAccumulate(d32, a, b1, acc[r][1], unused);
    }
    bp += 4 * n;
  }
  if (cols == static_cast<int64_t>(2 * n)) {
    for (int r = 0; r < kRows && r < rows; ++r) {
      hn::StoreU(acc[r][0], d32, c + r * ldc);
      hn::StoreU(acc[r][1], d32, c + r * ldc + n);
    }
    return;
  }
  HWY_ALIGN int32_t tile[2 * (HWY_MAX_BYTES / 4)];  // an edge tile: its columns only
  for (int r = 0; r < kRows && r < rows; ++r) {
    hn::Store(acc[r][0], d32, tile), hn::Store(acc[r][1], d32, tile + n);
    std::memcpy(c + r * ldc, tile, static_cast<size_t>(cols) * 4);
  }
}

// Row `row` of A (i8 or ui8) widened to i16 into `out`, K padded to even
// with a zero: converted a vector at a time where the row is contiguous.
void WidenRowToPairs(const uint8_t* row, const GemmProblem& p, bool is_signed, int16_t* out) {
  const hn::ScalableTag<int16_t> d16;
  const size_t n = hn::Lanes(d16);
  int64_t k = 0;
  if (p.a_k_contiguous) {
    if (is_signed) {
      const hn::Rebind<int8_t, decltype(d16)> d8;
      const auto* s8 = reinterpret_cast<const int8_t*>(row);
      for (; k + static_cast<int64_t>(n) <= p.k; k += n) hn::StoreU(hn::PromoteTo(d16, hn::LoadU(d8, s8 + k)), d16, out + k);
    } else {
      const hn::Rebind<uint8_t, decltype(d16)> d8;
      for (; k + static_cast<int64_t>(n) <= p.k; k += n) hn::StoreU(hn::PromoteTo(d16, hn::LoadU(d8, row + k)), d16, out + k);
    }
  }
  for (; k < p.k; ++k) {
    const uint8_t byte = row[p.a_k_contiguous ? k : p.a_k[k]];
    out[k] = is_signed ? static_cast<int16_t>(static_cast<int8_t>(byte)) : static_cast<int16_t>(byte);
  }
  if (p.k % 2 != 0) out[p.k] = 0;
}

// The int8 product on the pairwise micro-kernel: B packed in pairs of K
// (once, where the weights were packed at load), A's rows widened once
// per call (the micro-kernel reads them in place, as the f32 GEMM reads a
// row-major A: a panel of A repacked per call cost as much as the product
// where N is a few panels, a MobileNet projection's 32 columns).
void GemmPairs(const int8::Layout& l, const GemmProblem& p, ElementType a_type, ElementType b_type) {
  using namespace int8;  // NOLINT: the shared packing helpers
  if (p.batch == 0 || p.m == 0 || p.n == 0) return;
  const bool a_signed = a_type == ElementType::kSI8, b_signed = b_type == ElementType::kSI8;
  TaskRunner* runner = RunnerFor(p);
  const int64_t np = Panels(p.n, l.nr), mp = Panels(p.m, l.mr);
  ScratchLease<Int8BScratch, uint8_t> bscratch(BScratchBytes(l, p));
  const uint8_t* bpack = PackedB(l, p, b_signed, runner, bscratch.get());
  const int64_t kpad = PaddedK(l, p.k), b_panel = BPanelBytes(l, p.k);
  ScratchLease<Int8AScratch, int16_t> wide(static_cast<size_t>(p.batch * p.m * kpad + 2));
  int16_t* a16 = wide.get();
  const auto* src = static_cast<const uint8_t*>(p.a);
  ParallelFor(runner, p.batch * mp, [&](int64_t t, int) {
    const int64_t b = t / mp, i0 = (t % mp) * l.mr;
    for (int64_t i = i0; i < std::min(p.m, i0 + l.mr); ++i)
      WidenRowToPairs(src + p.a_batch[b] + p.a_m[i], p, a_signed, a16 + (b * p.m + i) * kpad);
  });
  auto* c = static_cast<int32_t*>(p.c);
  ForEachTile(runner, p.batch, mp, np, [&](int64_t b, int64_t ip, int64_t jp) {
    const int64_t i0 = ip * l.mr, j0 = jp * l.nr, rows = std::min(l.mr, p.m - i0), cols = std::min(l.nr, p.n - j0);
    const int16_t* arows[kPairRows];
    for (int64_t r = 0; r < kPairRows; ++r) arows[r] = a16 + (b * p.m + i0 + std::min(r, rows - 1)) * kpad;
    const uint8_t* bp = bpack + (b * np + jp) * b_panel;
    int32_t* ct = c + b * p.m * p.n + i0 * p.n + j0;
    if (rows <= 2) return TilePairsRows<2>(arows, bp, p.k, ct, p.n, rows, cols);
    if (rows <= 4) return TilePairsRows<4>(arows, bp, p.k, ct, p.n, rows, cols);
    TilePairsRows<kPairRows>(arows, bp, p.k, ct, p.n, rows, cols);
  });
}
#else
#define KILN_INT8_PAIRS 0
#endif

// The widening micro-kernel: 4 rows x 2 vectors of i32 columns.
void TileWiden(const int8::Layout& l, const uint8_t* ap8, const uint8_t* bp8, int64_t k, const int32_t*,
               const int32_t*, int32_t, int32_t* c, int64_t ldc, int64_t rows, int64_t cols) {
  const hn::ScalableTag<int32_t> d32;
  const hn::Rebind<int16_t, decltype(d32)> d16;
  const size_t n = hn::Lanes(d32);
  const auto* ap = reinterpret_cast<const int16_t*>(ap8);
  const auto* bp = reinterpret_cast<const int16_t*>(bp8);
  auto c00 = hn::Zero(d32), c01 = hn::Zero(d32), c10 = hn::Zero(d32), c11 = hn::Zero(d32);
  auto c20 = hn::Zero(d32), c21 = hn::Zero(d32), c30 = hn::Zero(d32), c31 = hn::Zero(d32);
  for (int64_t p = 0; p < k; ++p) {
    const auto b0 = hn::PromoteTo(d32, hn::LoadU(d16, bp));
    const auto b1 = hn::PromoteTo(d32, hn::LoadU(d16, bp + n));
    const auto a0 = hn::Set(d32, ap[0]), a1 = hn::Set(d32, ap[1]), a2 = hn::Set(d32, ap[2]), a3 = hn::Set(d32, ap[3]);
    c00 = hn::Add(c00, hn::Mul(a0, b0));
    c01 = hn::Add(c01, hn::Mul(a0, b1));
    c10 = hn::Add(c10, hn::Mul(a1, b0));
    c11 = hn::Add(c11, hn::Mul(a1, b1));
    c20 = hn::Add(c20, hn::Mul(a2, b0));
    c21 = hn::Add(c21, hn::Mul(a2, b1));
    c30 = hn::Add(c30, hn::Mul(a3, b0));
    c31 = hn::Add(c31, hn::Mul(a3, b1));
    ap += 4;
    bp += l.nr;
  }
  // Through a buffer: edge tiles store only their rows and columns.
  HWY_ALIGN int32_t tile[4 * 2 * (HWY_MAX_BYTES / 4)];
  hn::Store(c00, d32, tile), hn::Store(c01, d32, tile + n);
  hn::Store(c10, d32, tile + 2 * n), hn::Store(c11, d32, tile + 3 * n);
  hn::Store(c20, d32, tile + 4 * n), hn::Store(c21, d32, tile + 5 * n);
  hn::Store(c30, d32, tile + 6 * n), hn::Store(c31, d32, tile + 7 * n);
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(c + r * ldc, tile + r * 2 * n, static_cast<size_t>(cols) * 4);
}

int8::Layout CurrentLayout() {
  // Unused on targets without a dot-product form.
  [[maybe_unused]] const bool dot_allowed = !int8::dot_disabled.load(std::memory_order_relaxed);
#if HWY_TARGET == HWY_AVX3 && HWY_ARCH_X86_64 && defined(__GNUC__)
#if KILN_AMX
  if (dot_allowed && !int8::amx_disabled.load(std::memory_order_relaxed) && amx::Int8Usable())
    return {int8::Form::kAmx, 32, 32};
#endif
  if (dot_allowed && int8::CpuHasVnni()) return {int8::Form::kVnni, 8, 32};
#endif
#if KILN_INT8_SDOT
  if (dot_allowed && int8::CpuHasI8mm()) return {int8::Form::kSmmla, 8, 8};
  if (dot_allowed && int8::CpuHasSdot()) return {int8::Form::kSdot, 8, 12};
#endif
  const hn::ScalableTag<int32_t> d32;
#if KILN_INT8_PAIRS
  return {int8::Form::kPairs, kPairRows, static_cast<int64_t>(2 * hn::Lanes(d32))};
#else
  return {int8::Form::kWiden, 4, static_cast<int64_t>(2 * hn::Lanes(d32))};
#endif
}

void GemmInt8T(const GemmProblem& p, ElementType a_type, ElementType b_type) {
  const int8::Layout l = CurrentLayout();
#if HWY_TARGET == HWY_AVX3 && HWY_ARCH_X86_64 && defined(__GNUC__)
  // Selective builds (a deployment's minimal runtime) keep only the packed
  // path: the in-place one is speed, not function.
#if KILN_AMX
  if (l.form == int8::Form::kAmx) {
    return int8::Gemm(l, a_type == ElementType::kSI8 ? &int8::TileAmx<true> : &int8::TileAmx<false>, nullptr, p,
                      a_type, b_type);
  }
#endif
  if (l.form == int8::Form::kVnni) {
    if constexpr (KILN_SELECTIVE_BUILD) return int8::Gemm(l, &int8::TileVnni, nullptr, p, a_type, b_type);
    return int8::Gemm(l, &int8::TileVnni, &int8::TileVnniDirect, p, a_type, b_type);
  }
#endif
#if KILN_INT8_SDOT
  if (l.form == int8::Form::kSmmla) return int8::Gemm(l, &int8::TileSmmla, nullptr, p, a_type, b_type);
  if (l.form == int8::Form::kSdot) return int8::Gemm(l, &int8::TileSdot, nullptr, p, a_type, b_type);
#endif
#if KILN_INT8_PAIRS
  if (l.form == int8::Form::kPairs) return GemmPairs(l, p, a_type, b_type);
#endif
  int8::Gemm(l, &TileWiden, nullptr, p, a_type, b_type);
}

size_t PackedBBytesInt8T(const GemmProblem& p) {
  return static_cast<size_t>(int8::BBytes(CurrentLayout(), p));
}

void PackWholeBInt8T(const GemmProblem& p, ElementType b_type, void* out) {
  int8::PackWholeB(CurrentLayout(), p, b_type == ElementType::kSI8, static_cast<uint8_t*>(out), nullptr);
}

int64_t Int8PackedLayoutT() {
  const int8::Layout l = CurrentLayout();
  return l.nr * 8 + static_cast<int64_t>(l.form);
}

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(GemmInt8T);
HWY_EXPORT(PackedBBytesInt8T);
HWY_EXPORT(PackWholeBInt8T);
HWY_EXPORT(Int8PackedLayoutT);

bool Int8GemmTypes(ElementType lhs, ElementType rhs, ElementType out) {
  auto byte = [](ElementType t) { return t == ElementType::kSI8 || t == ElementType::kUI8; };
  return byte(lhs) && byte(rhs) && (out == ElementType::kSI32 || out == ElementType::kUI32);
}

void RunGemmInt8(const GemmProblem& p, ElementType a_type, ElementType b_type) {
  HWY_DYNAMIC_DISPATCH(GemmInt8T)(p, a_type, b_type);
}

size_t PackedBBytesInt8(const GemmProblem& p) { return HWY_DYNAMIC_DISPATCH(PackedBBytesInt8T)(p); }

void PackWholeBInt8(const GemmProblem& p, ElementType b_type, void* out) {
  HWY_DYNAMIC_DISPATCH(PackWholeBInt8T)(p, b_type, out);
}

int64_t Int8PackedLayout() { return HWY_DYNAMIC_DISPATCH(Int8PackedLayoutT)(); }

void SetInt8DotProductDisabledForTest(bool disabled) { int8::dot_disabled.store(disabled); }
void SetInt8AmxDisabledForTest(bool disabled) { int8::amx_disabled.store(disabled); }
bool Int8DotProductEnabled() { return !int8::dot_disabled.load(std::memory_order_relaxed); }

const char* Int8GemmForm() {
  switch (static_cast<int8::Form>(Int8PackedLayout() % 8)) {
    case int8::Form::kVnni: return "vnni";
    case int8::Form::kAmx: return "amx";
    case int8::Form::kSdot: return "sdot";
    case int8::Form::kSmmla: return "smmla";
    case int8::Form::kPairs: return "pairs";
    default: return "widen";
  }
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE

// The 8-bit integer GEMM's layouts and packing (the shared part of
// gemm_int8.cc, included there only): which micro-kernel form packs how,
// the packed B with its column sums, the packed A with its row corrections,
// and the loop over micro-tiles.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/common/kernel_selection.h"
#include "kernels/common/parallel.h"
#include "kernels/cpu/amx_panels.h"
#include "kernels/cpu/gemm_int8.h"
#include "kernels/cpu/offset_runs.h"
#include "kernels/cpu/panel_tiles.h"
#include "kernels/cpu/thread_scratch.h"
#include "hwy/base.h"
#if HWY_ARCH_X86_64 && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace kiln::cpu {
namespace int8 {

// Per-thread scratch (thread_scratch.h): B packed per call when it was not
// packed at load, and the A panels with their row corrections.
struct Int8BScratch;
struct Int8AScratch;
struct Int8AFlipScratch;  // an i8 A flipped for the in-place tiles (gemm_int8.cc)

// Multiply-adds below which a product runs on the calling thread only.
constexpr double kParallelMinMacs = 1 << 20;
// Micro-panels per tile: rows (A panels) and columns (B panels).
constexpr int64_t kRowPanels = 8;
constexpr int64_t kColPanels = 8;

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

// AMX: a contraction of at most 32 bytes takes the narrow tile form (one
// step of 32 bytes, amx.h NarrowKConfig); longer ones whole steps of 64.
inline bool AmxNarrowK(const Layout& l, int64_t k) { return l.form == Form::kAmx && k <= 32; }
inline int64_t AmxSteps(const Layout& l, int64_t k) { return AmxNarrowK(l, k) ? 1 : (k + 63) / 64; }
inline int64_t PaddedK(const Layout& l, int64_t k) {
  const int64_t align = l.form == Form::kAmx ? (AmxNarrowK(l, k) ? 32 : 64) : l.group();
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
  const OffsetRuns runs = amx::ARuns(p);
  for (int64_t r = 0; r < rows; ++r) {
    uint8_t* dst = out + r * kpad;
    amx::GatherRow(p, src + p.a_batch[b], i0 + r, runs, dst);
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
// at rows[r] + koff[q], as u8 (an i8 A's sign bits flipped before). Only
// for a B of i8 (cb == 0: A needs no row sums).
using DirectTileFn = void (*)(const uint8_t* const* rows_a, const int64_t* koff, int64_t quads, const uint8_t* bp,
                              const int32_t* colsum, int32_t ca, int32_t* c, int64_t ldc, int64_t rows, int64_t cols);

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

// The bytes [lo, hi) past p.a that tiles reading A in place touch (quads at
// a_batch + a_m + koff), lo counting koff only where it is negative.
inline std::pair<int64_t, int64_t> DirectExtent(const GemmProblem& p, const std::vector<int64_t>& koff) {
  const auto [b_lo, b_hi] = std::minmax_element(p.a_batch.begin(), p.a_batch.end());
  const auto [m_lo, m_hi] = std::minmax_element(p.a_m.begin(), p.a_m.end());
  const auto [k_lo, k_hi] = std::minmax_element(koff.begin(), koff.end());
  return {*b_lo + *m_lo + std::min<int64_t>(0, *k_lo), *b_hi + *m_hi + *k_hi + 4};
}

// dst[0, n) = src[0, n) with every sign bit flipped (i8 as u8 + 128), over
// the runner's threads for large n.
inline void FlipSignBits(const uint8_t* src, int64_t n, uint8_t* dst, TaskRunner* runner) {
  constexpr int64_t kChunk = int64_t{1} << 16;
  ParallelFor(n >= 4 * kChunk ? runner : nullptr, (n + kChunk - 1) / kChunk, [&](int64_t t, int) {
    const int64_t i0 = t * kChunk, i1 = std::min(n, i0 + kChunk);
    int64_t i = i0;
    for (; i + 8 <= i1; i += 8) {  // eight bytes a step (a byte loop ran at one a cycle)
      uint64_t w;
      std::memcpy(&w, src + i, 8);
      w ^= 0x8080808080808080u;
      std::memcpy(dst + i, &w, 8);
    }
    for (; i < i1; ++i) dst[i] = static_cast<uint8_t>(src[i] ^ 0x80);
  });
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

// Where the micro-tiles of one row panel (rows i0 .. i0 + mr) over column
// panels [jp_begin, jp_end) put their sums: into C, or (GemmProblem::sink)
// into the thread's scratch, side by side, which Done() hands to the sink
// as one tile of up to mr x kColPanels nr: a requantizing sink then runs
// over whole rows of the result, not a micro-tile's few columns.
// Selective builds (a deployment's minimal runtime) have no sink user
// (only the convolution's fused requantize sets one): C always, and none
// of the sink's code.
struct Int8SinkPanel;
struct NoSinkBuffer {
  explicit NoSinkBuffer(size_t) {}
  int32_t* get() const { return nullptr; }
};
using SinkBuffer = std::conditional_t<KILN_SELECTIVE_BUILD, NoSinkBuffer, ScratchLease<Int8SinkPanel, int32_t>>;
class RowPanelOut {
 public:
  RowPanelOut(const GemmProblem& p, const Layout& l, int64_t b, int64_t ip, int64_t jp_begin, int64_t jp_end)
      : p_(p), nr_(l.nr), b_(b), i0_(ip * l.mr), rows_(std::min(l.mr, p.m - ip * l.mr)), jp_begin_(jp_begin),
        jp_end_(jp_end), buffer_(Sink() ? static_cast<size_t>(l.mr * (jp_end - jp_begin) * l.nr) : 0) {
    ldc_ = Sink() ? (jp_end - jp_begin) * l.nr : p.n;
  }
  int32_t* Tile(int64_t jp) const {
    if (Sink()) return buffer_.get() + (jp - jp_begin_) * nr_;
    return static_cast<int32_t*>(p_.c) + b_ * p_.m * p_.n + i0_ * p_.n + jp * nr_;
  }
  int64_t ldc() const { return ldc_; }
  void Done() const {
    if (!Sink()) return;
    const int64_t j0 = jp_begin_ * nr_;
    p_.sink->Take(b_, i0_, j0, buffer_.get(), ldc_, rows_, std::min(jp_end_ * nr_, p_.n) - j0);
  }

 private:
  bool Sink() const { return !KILN_SELECTIVE_BUILD && p_.sink != nullptr; }

  const GemmProblem& p_;
  int64_t nr_, b_, i0_, rows_, jp_begin_, jp_end_, ldc_ = 0;
  SinkBuffer buffer_;
};

// Runs fn(batch, row panel, column panel, c, ldc) for every micro-tile of
// p's C, the tile's sums to go to c with rows ldc apart (RowPanelOut), in
// tasks of kRowPanels x kColPanels panels (panel_tiles.h); begin() at the
// start of each task.
template <class F, class Begin = NoTaskBegin>
void ForEachTile(const GemmProblem& p, const Layout& l, TaskRunner* runner, const F& fn, const Begin& begin = {}) {
  ForEachPanelRow(
      runner, p.batch, Panels(p.m, l.mr), Panels(p.n, l.nr), kRowPanels, kColPanels,
      [&](int64_t b, int64_t ip, int64_t jp_begin, int64_t jp_end) {
        const RowPanelOut out(p, l, b, ip, jp_begin, jp_end);
        for (int64_t jp = jp_begin; jp < jp_end; ++jp) fn(b, ip, jp, out.Tile(jp), out.ldc());
        out.Done();
      },
      begin);
}
}  // namespace int8
}  // namespace kiln::cpu

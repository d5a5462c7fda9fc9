// The bf16 GEMM of gemm_bf16.h: vdpbf16ps micro-kernels on CPUs with
// AVX-512 BF16 (x86-64 only; elsewhere GemmBf16Available is false and the
// callers widen to f32).
//
// Panels hold pairs of consecutive contraction elements in one 32-bit
// word, low half first, as vdpbf16ps reads them: A [K/2][kMr] words, B
// [K/2][kNr] words (an odd K padded with a zero, which adds nothing).
// Each step of the micro-kernel broadcasts one word of A per row and
// multiplies it by two registers of B (32 columns): 16 f32 accumulators
// (8 rows: 12 measured about 10% slower, the row pointers of A read in
// place no longer fitting in registers).
// Loop nest as the int8 GEMM's: B packed whole (once per constant weight
// when the caller keeps it), A read in place where each pair is two
// contiguous elements (else packed whole), then tiles of kRowPanels x
// kColPanels micro-panels over the pool, an A panel in L1 across its
// tile's B panels, which stay in L2. The whole contraction is summed in
// registers, so the order of the sums depends on the shapes only, never
// on the thread count.
#include "kernels/cpu/gemm_bf16.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels/common/parallel.h"
#include "kernels/cpu/amx.h"
#include "kernels/cpu/amx_panels.h"
#include "kernels/cpu/half_float.h"
#include "kernels/cpu/offset_runs.h"
#include "kernels/cpu/panel_tiles.h"
#include "kernels/cpu/thread_scratch.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define KILN_GEMM_BF16 1
#define KILN_BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))
#else
#define KILN_GEMM_BF16 0
#endif

namespace kiln::cpu {
namespace {

constexpr int64_t kMr = 8, kNr = 32;
constexpr int64_t kRowPanels = 8, kColPanels = 8;
// Multiply-adds below which a product runs on the calling thread only.
constexpr double kParallelMinMacs = double(1 << 21);

// Set by the test hook: 0 none, 1 on, 2 off (Bf16GemmChoice).
std::atomic<int> forced_choice{0};
std::atomic<bool> amx_disabled{false};

inline int64_t Panels(int64_t n, int64_t width) { return (n + width - 1) / width; }
inline int64_t Pairs(const GemmProblem& p) { return (p.k + 1) / 2; }
// Element offsets of contraction index k (GemmProblem leaves the tables
// empty where they are the identity or a uniform step).
inline int64_t AOffsetK(const GemmProblem& p, int64_t k) { return p.a_k.empty() ? k : p.a_k[k]; }
inline int64_t BOffsetK(const GemmProblem& p, int64_t k) { return p.b_k.empty() ? k * p.b_k_step : p.b_k[k]; }

struct Bf16AScratch;
struct Bf16BScratch;
struct Bf16PairOffsets;  // the offsets of A's pairs read in place

#if KILN_GEMM_BF16
// Two rows of 32 consecutive B columns interleaved into 32 pairs (r1 null:
// a row of zeros past K).
KILN_BF16_TARGET void InterleaveRows(const uint16_t* r0, const uint16_t* r1, uint32_t* dst) {
  const __m512i lo_idx = _mm512_set_epi16(47, 15, 46, 14, 45, 13, 44, 12, 43, 11, 42, 10, 41, 9, 40, 8, 39, 7, 38, 6, 37,
                                          5, 36, 4, 35, 3, 34, 2, 33, 1, 32, 0);
  const __m512i hi_idx = _mm512_add_epi16(lo_idx, _mm512_set1_epi16(16));
  const __m512i a = _mm512_loadu_si512(r0);
  const __m512i b = r1 != nullptr ? _mm512_loadu_si512(r1) : _mm512_setzero_si512();
  _mm512_storeu_si512(dst, _mm512_permutex2var_epi16(a, lo_idx, b));
  _mm512_storeu_si512(dst + 16, _mm512_permutex2var_epi16(a, hi_idx, b));
}
#endif

// B micro-panel `panel` of batch `b` into out ([pairs][kNr] words).
void PackBPanel(const GemmProblem& p, int64_t b, int64_t panel, uint32_t* out) {
  const auto* src = static_cast<const uint16_t*>(p.b) + p.b_batch[b];
  const int64_t j0 = panel * kNr, cols = std::min(kNr, p.n - j0), pairs = Pairs(p);
#if KILN_GEMM_BF16
  if (p.b_n_contiguous && cols == kNr) {
    // Rows of B with the panel's 32 columns side by side (b_n[j] == j).
    for (int64_t q = 0; q < pairs; ++q)
      InterleaveRows(src + BOffsetK(p, 2 * q) + j0, 2 * q + 1 < p.k ? src + BOffsetK(p, 2 * q + 1) + j0 : nullptr,
                     out + q * kNr);
    return;
  }
#endif
  for (int64_t q = 0; q < pairs; ++q) {
    const int64_t k0 = 2 * q, k1 = 2 * q + 1;
    const uint16_t* r0 = src + BOffsetK(p, k0);
    const uint16_t* r1 = k1 < p.k ? src + BOffsetK(p, k1) : nullptr;
    uint32_t* dst = out + q * kNr;
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t off = p.b_n[j0 + c];
      dst[c] = static_cast<uint32_t>(r0[off]) | (r1 != nullptr ? static_cast<uint32_t>(r1[off]) << 16 : 0u);
    }
    for (int64_t c = cols; c < kNr; ++c) dst[c] = 0;
  }
}

#if KILN_GEMM_BF16
// A micro-panel `panel` of batch `b` into out ([pairs][kMr] words); rows
// past the edge are zeros (computed, never stored).
void PackAPanel(const GemmProblem& p, int64_t b, int64_t panel, uint32_t* out) {
  const auto* src = static_cast<const uint16_t*>(p.a) + p.a_batch[b];
  const int64_t i0 = panel * kMr, rows = std::min(kMr, p.m - i0), pairs = Pairs(p);
  const bool contiguous = p.a_k.empty() || p.a_k_contiguous;
  for (int64_t r = 0; r < kMr; ++r) {
    if (r >= rows) {
      for (int64_t q = 0; q < pairs; ++q) out[q * kMr + r] = 0;
      continue;
    }
    const uint16_t* row = src + p.a_m[i0 + r];
    const int64_t whole = p.k / 2;
    if (contiguous) {
      for (int64_t q = 0; q < whole; ++q) {
        uint32_t w;
        std::memcpy(&w, row + 2 * q, sizeof(w));
        out[q * kMr + r] = w;
      }
    } else {
      for (int64_t q = 0; q < whole; ++q)
        out[q * kMr + r] = static_cast<uint32_t>(row[AOffsetK(p, 2 * q)]) |
                           static_cast<uint32_t>(row[AOffsetK(p, 2 * q + 1)]) << 16;
    }
    if (p.k % 2 != 0) out[whole * kMr + r] = row[AOffsetK(p, p.k - 1)];
  }
}
#endif

#if KILN_GEMM_BF16
// Where A's words come from: a packed panel ([pairs][kMr] words), or A in
// place, row r's pair q at rows[r] + koff[q] (two contiguous elements).
struct PackedA {
  const uint32_t* panel;
  uint32_t Word(int64_t q, int r) const { return panel[q * kMr + r]; }
};
struct DirectA {
  const uint16_t* const* rows;
  const int64_t* koff;
  uint32_t Word(int64_t q, int r) const {
    uint32_t w;
    std::memcpy(&w, rows[r] + koff[q], sizeof(w));
    return w;
  }
};

// Where a tile of C goes: `c` its first element, rows `ldc` elements apart,
// f32 or 16-bit (GemmProblem::c_type).
struct TileOut {
  void* c;
  int64_t ldc;
  ElementType type;
  bool f32() const { return type == ElementType::kF32; }
  float* F32(int64_t r) const { return static_cast<float*>(c) + r * ldc; }
};

// Row r of a tile from its two vectors of sums, the lanes that masks m0
// and m1 keep (`cols` of them): stored as f32, or each rounded once to the
// 16-bit type in registers (a row holding a NaN element by element, which
// keeps its payload as F32ToBF16 / F32ToF16 do). Rounding a tile's rows as
// they leave the tile, with no call per row, is what makes it cheaper than
// a pass over an f32 copy even for a convolution's short contractions.
KILN_BF16_TARGET inline void StoreRow(const TileOut& out, int64_t r, __m512 s0, __m512 s1, __mmask16 m0,
                                      __mmask16 m1, int64_t cols) {
  if (out.f32()) {
    _mm512_mask_storeu_ps(out.F32(r), m0, s0);
    _mm512_mask_storeu_ps(out.F32(r) + 16, m1, s1);
    return;
  }
  uint16_t* dst = static_cast<uint16_t*>(out.c) + r * out.ldc;
  const bool bf16 = out.type == ElementType::kBF16;
  __m256i h0, h1;
  const bool whole = bf16 ? Narrow16Avx512<true>(s0, &h0) && Narrow16Avx512<true>(s1, &h1)
                          : Narrow16Avx512<false>(s0, &h0) && Narrow16Avx512<false>(s1, &h1);
  if (whole) {
    _mm256_mask_storeu_epi16(dst, m0, h0);
    _mm256_mask_storeu_epi16(dst + 16, m1, h1);
    return;
  }
  alignas(64) float sums[kNr];
  _mm512_store_ps(sums, s0);
  _mm512_store_ps(sums + 16, s1);
  for (int64_t j = 0; j < cols; ++j) dst[j] = bf16 ? F32ToBF16(sums[j]) : F32ToF16(sums[j]);
}

// The tile of C at row i0 and column j0 of batch entry b.
TileOut TileAt(const GemmProblem& p, int64_t b, int64_t i0, int64_t j0) {
  const int64_t at = b * p.m * p.n + i0 * p.n + j0;
  void* c = p.c_type == ElementType::kF32 ? static_cast<void*>(static_cast<float*>(p.c) + at)
                                          : static_cast<void*>(static_cast<uint16_t*>(p.c) + at);
  return TileOut{c, p.n, p.c_type};
}

// One micro-tile: C[rows][cols] = A x B panel.
template <class A>
KILN_BF16_TARGET void Tile(const A& ap, const uint32_t* bp, int64_t pairs, const TileOut& out, int64_t rows,
                           int64_t cols) {
  __m512 acc[kMr][2];
  for (int r = 0; r < kMr; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (int64_t q = 0; q < pairs; ++q, bp += kNr) {
    const __m512bh b0 = (__m512bh)_mm512_loadu_si512(bp);
    const __m512bh b1 = (__m512bh)_mm512_loadu_si512(bp + 16);
    for (int r = 0; r < kMr; ++r) {
      const __m512bh a = (__m512bh)_mm512_set1_epi32(static_cast<int>(ap.Word(q, r)));
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], a, b0);
      acc[r][1] = _mm512_dpbf16_ps(acc[r][1], a, b1);
    }
  }
  const __mmask16 m0 = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
  const __mmask16 m1 = cols >= 32 ? __mmask16(0xFFFF) : cols > 16 ? __mmask16((1u << (cols - 16)) - 1) : __mmask16(0);
  for (int64_t r = 0; r < rows; ++r) StoreRow(out, r, acc[r][0], acc[r][1], m0, m1, cols);
}
#endif

}  // namespace

namespace {

#if KILN_GEMM_BF16
// Seconds for `steps` steps of 12 independent chains of vdpbf16ps (dot) or
// of f32 FMAs (!dot) on registers: the instructions' throughput.
KILN_BF16_TARGET double ChainSeconds(bool dot, int steps) {
  constexpr int kChains = 12;
  __m512 acc[kChains];
  for (__m512& a : acc) a = _mm512_setzero_ps();
  __m512 x = _mm512_set1_ps(0.5f);
  const __m512 y = _mm512_set1_ps(0.25f);
  const auto t0 = std::chrono::steady_clock::now();
  if (dot) {
    for (int s = 0; s < steps; ++s) {
      asm volatile("" : "+v"(x));  // (not hoisted or folded)
      for (__m512& a : acc) a = _mm512_dpbf16_ps(a, (__m512bh)x, (__m512bh)y);
    }
  } else {
    for (int s = 0; s < steps; ++s) {
      asm volatile("" : "+v"(x));
      for (__m512& a : acc) a = _mm512_fmadd_ps(x, y, a);
    }
  }
  __m512 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm512_add_ps(sum, acc[c]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  volatile float sink = lanes[0];
  (void)sink;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Whether vdpbf16ps sums bf16 products at least 1.4x as fast as f32 FMAs
// sum f32 ones (it does two multiply-adds per lane, an FMA one), measured
// once (tens of microseconds; the fastest of five alternating runs of
// each). Where it does not, bf16 products widened to f32 run on the f32
// GEMM instead.
// Machines seen: one 2-core AVX-512 BF16 VM without AMX ran vdpbf16ps at
// 1.4 G instructions a second against 5.6 G FMAs (a ratio of 0.49; a
// 1024^3 bf16 product 26.8 ms on it, f32 16 ms); a Sapphire Rapids core
// issues one vdpbf16ps a cycle against two FMAs (1.0; bf16 22.0 ms, f32
// 16.6 ms: the f32 GEMM's higher efficiency wins at equal rates); an
// earlier machine ran the bf16 product at 2.1x its f32 one (about 2). 1.4
// lies between the last two with room for the measurement's noise.
bool VdpBf16Pays() {
  static const bool pays = [] {
    double dot = 1e30, fma = 1e30;
    for (int r = 0; r < 5; ++r) {
      fma = std::min(fma, ChainSeconds(false, 1024));
      dot = std::min(dot, ChainSeconds(true, 1024));
    }
    return 2.0 * fma >= 1.4 * dot;
  }();
  return pays;
}

// 0: the measured choice (KILN_BF16_GEMM unset); 1: on; 2: off.
int Bf16GemmChoice() {
  const int forced = forced_choice.load(std::memory_order_relaxed);
  if (forced != 0) return forced;
  static const int from_env = [] {
    const char* e = std::getenv("KILN_BF16_GEMM");
    if (e == nullptr || *e == '\0') return 0;
    return std::strcmp(e, "0") == 0 ? 2 : 1;
  }();
  return from_env;
}
#endif

}  // namespace

bool GemmBf16Supported() {
#if KILN_GEMM_BF16
  static const bool has = __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl");
  return has;
#else
  return false;
#endif
}

bool GemmBf16Available() {
#if KILN_GEMM_BF16
  if (!GemmBf16Supported()) return false;
  switch (Bf16GemmChoice()) {
    case 1: return true;
    case 2: return false;
    default: {
#if KILN_AMX
      if (amx::Bf16Usable()) return true;
#endif
      return VdpBf16Pays();
    }
  }
#else
  return false;
#endif
}

void SetGemmBf16DisabledForTest(bool d) { forced_choice.store(d ? 2 : 1); }
void ClearGemmBf16ChoiceForTest() { forced_choice.store(0); }
void SetGemmBf16AmxDisabledForTest(bool d) { amx_disabled.store(d); }
bool GemmBf16UsesAmx() {
#if KILN_GEMM_BF16 && KILN_AMX
  return GemmBf16Available() && !amx_disabled.load(std::memory_order_relaxed) && amx::Bf16Usable();
#else
  return false;
#endif
}

#if KILN_GEMM_BF16
namespace {
KILN_BF16_TARGET bool HasSubnormalsAvx512(const uint16_t* x, int64_t n) {
  // |x| - 1 < 0x7F (unsigned) exactly for the subnormals 0x0001-0x007F.
  const __m512i mag = _mm512_set1_epi16(0x7FFF), one = _mm512_set1_epi16(1), top = _mm512_set1_epi16(0x7F);
  int64_t i = 0;
  for (; i + 128 <= n; i += 128) {
    __mmask32 any = 0;
    for (int k = 0; k < 4; ++k) {
      const __m512i v = _mm512_sub_epi16(_mm512_and_si512(_mm512_loadu_si512(x + i + 32 * k), mag), one);
      any |= _mm512_cmplt_epu16_mask(v, top);
    }
    if (any != 0) return true;
  }
  for (; i < n; ++i)
    if ((x[i] & 0x7F80) == 0 && (x[i] & 0x7F) != 0) return true;
  return false;
}
#if KILN_AMX
// The AMX form (CPUs with AMX-BF16 whose kernel grants the tile state):
// A packed into panels of 32 rows, each row its contraction's elements
// contiguous and zero-padded to a multiple of 32; B in the same [pairs][32]
// words as above, two tiles of 16 columns per step, 128 bytes from one pair
// to the next. Per step of 16 pairs (32 elements of K), tdpbf16ps adds
// each pair's two products in order, rounding each add to nearest even
// (subnormal inputs read as zero, as vdpbf16ps does); pairs past the last
// whole step (B is not padded) take vdpbf16ps on the stored sums. The whole
// contraction runs in one tile's sums, so the order depends on the shapes
// only.
constexpr int64_t kAmxRows = 32;
inline int64_t AmxRowElements(const GemmProblem& p) { return (p.k + 31) / 32 * 32; }
// A packed panel's layout: step by step (32 contraction elements, one tile
// row), its 32 rows' 64 bytes each in a row, so that a tile load reads 1 KB
// of consecutive bytes (a row-major panel 2 KB apart per row at K = 1024
// put a step's 16 rows in two of L1's 64 sets).
constexpr int64_t kAmxStep = 32, kAmxStepElements = kAmxRows * kAmxStep;

// A micro-panel `panel` of batch `b` into out, steps of kAmxStepElements
// (rows past the edge and elements past K zeros).
void PackAPanelAmx(const GemmProblem& p, int64_t b, int64_t panel, uint16_t* out) {
  const auto* src = static_cast<const uint16_t*>(p.a) + p.a_batch[b];
  const int64_t i0 = panel * kAmxRows, rows = std::min(kAmxRows, p.m - i0), kpad = AmxRowElements(p);
  // Rows past the last of a short panel are zeros in every step; K's
  // padding comes from the row buffer, past the K elements each row
  // gathers, zeroed once per panel.
  if (rows < kAmxRows) std::memset(out, 0, static_cast<size_t>(kAmxRows * kpad) * sizeof(uint16_t));
  // Rows gathered (amx::GatherRow), then dealt out step by step.
  const OffsetRuns runs = amx::ARuns(p);
  thread_local std::vector<uint16_t> row_buf;
  row_buf.resize(static_cast<size_t>(kpad));
  std::fill(row_buf.begin() + p.k, row_buf.end(), uint16_t{0});
  for (int64_t r = 0; r < rows; ++r) {
    uint16_t* dst = row_buf.data();
    amx::GatherRow(p, src, i0 + r, runs, dst);
    for (int64_t s = 0; s < kpad / kAmxStep; ++s)
      std::memcpy(out + s * kAmxStepElements + r * kAmxStep, dst + s * kAmxStep, kAmxStep * sizeof(uint16_t));
  }
}

// Where a half's A rows come from (amx_panels.h): a packed panel or A in
// place.
using AmxA = amx::PanelRows<uint16_t>;

// `tail`: the packed panel's last step (kAmxStepElements), whose pairs
// past the last whole tile step vdpbf16ps takes (a packed A only; A in
// place has none).
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16,amx-tile,amx-bf16"))) void TileAmx(
    const AmxA& a, const uint16_t* tail, const uint32_t* bp, int64_t pairs, const TileOut& out,
    int64_t rows, int64_t cols) {
  const int64_t whole = pairs / 16 * 16;  // pairs in whole tile steps
  const auto* b8 = reinterpret_cast<const char*>(bp);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  if (rows > 16) {
    for (int64_t q0 = 0; q0 < whole; q0 += 16) {
      _tile_loadd(6, b8 + q0 * 128, 128);
      _tile_loadd(7, b8 + q0 * 128 + 64, 128);
      _tile_loadd(4, a.At(0, q0 / 16), a.stride[0]);
      _tile_loadd(5, a.At(1, q0 / 16), a.stride[1]);
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
      _tile_dpbf16ps(2, 5, 6);
      _tile_dpbf16ps(3, 5, 7);
    }
  } else {
    for (int64_t q0 = 0; q0 < whole; q0 += 16) {
      _tile_loadd(6, b8 + q0 * 128, 128);
      _tile_loadd(7, b8 + q0 * 128 + 64, 128);
      _tile_loadd(4, a.At(0, q0 / 16), a.stride[0]);
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
    }
  }
  if (whole == pairs && rows == kAmxRows && cols == kNr && out.f32()) return amx::StoreSums(out.F32(0), out.ldc, 32);
  alignas(64) float sums[kAmxRows][kNr];
  amx::StoreSums(&sums[0][0], kNr, rows);
  const __mmask16 m0 = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
  const __mmask16 m1 = cols >= 32 ? __mmask16(0xFFFF) : cols > 16 ? __mmask16((1u << (cols - 16)) - 1) : __mmask16(0);
  for (int64_t r = 0; r < rows; ++r) {
    __m512 acc0 = _mm512_load_ps(&sums[r][0]), acc1 = _mm512_load_ps(&sums[r][16]);
    const uint16_t* arow = tail != nullptr ? tail + r * kAmxStep : nullptr;  // (null: A in place, no pairs left)
    for (int64_t q = whole; q < pairs; ++q) {
      uint32_t w;
      std::memcpy(&w, arow + 2 * (q - whole), sizeof(w));
      const __m512bh a = (__m512bh)_mm512_set1_epi32(static_cast<int>(w));
      acc0 = _mm512_dpbf16_ps(acc0, a, (__m512bh)_mm512_loadu_si512(bp + q * kNr));
      acc1 = _mm512_dpbf16_ps(acc1, a, (__m512bh)_mm512_loadu_si512(bp + q * kNr + 16));
    }
    StoreRow(out, r, acc0, acc1, m0, m1, cols);
  }
}

struct Bf16AmxSteps;   // scratch: the offsets of A's steps read in place
struct Bf16AmxHalves;  // per-thread scratch: the halves of a panel packed per task

// The whole product on the AMX tiles (B packed as for the other form). A
// is read in place where its steps are contiguous and its rows not long
// (amx::PlacePanel: halves of evenly spaced rows straight from A, the
// others packed per task; amx::LongDistinctRows); else packed whole first,
// step-major (a 1024^3 product 0.90x the time of reading its rows in place,
// the packing included).
void GemmAmx(const GemmProblem& p, const uint32_t* bpack, TaskRunner* runner) {
  const int64_t np = Panels(p.n, kNr), mp = Panels(p.m, kAmxRows), pairs = Pairs(p), kpad = AmxRowElements(p);
  const int64_t a_panel = kAmxRows * kpad, b_panel = pairs * kNr;
  // The tiles of one row panel (tail: its packed last step, for the pairs
  // past the last whole tile step; null for A in place, which has none).
  auto row_of_tiles = [&](const AmxA& a, const uint16_t* tail, int64_t b, int64_t ip, int64_t jp_begin,
                          int64_t jp_end) {
    const int64_t i0 = ip * kAmxRows;
    for (int64_t jp = jp_begin; jp < jp_end; ++jp) {
      const int64_t j0 = jp * kNr;
      TileAmx(a, tail, bpack + (b * np + jp) * b_panel, pairs, TileAt(p, b, i0, j0), std::min(kAmxRows, p.m - i0),
              std::min(kNr, p.n - j0));
    }
  };
  auto configure = [] { amx::Configure(); };  // once per worker: its tiles are Kiln's for the call
  ScratchLease<Bf16AmxSteps, int64_t> koff(static_cast<size_t>(std::max<int64_t>(p.k / 32, 1)));
  if (!amx::LongDistinctRows(p) && amx::ContiguousSteps<uint16_t>(p, koff.get())) {
    const OffsetRuns runs = amx::ARuns(p);
    const auto* a_all = static_cast<const uint16_t*>(p.a);
    ForEachPanelRow(
        runner, p.batch, mp, np, kRowPanels / 4, kColPanels,
        [&](int64_t b, int64_t ip, int64_t jp_begin, int64_t jp_end) {
          ScratchLease<Bf16AmxHalves, uint16_t> halves(static_cast<size_t>(2 * amx::kHalfRows * p.k));
          AmxA a;
          amx::PlacePanel(p, a_all + p.a_batch[b], koff.get(), runs, ip * kAmxRows, halves.get(), a);
          row_of_tiles(a, nullptr, b, ip, jp_begin, jp_end);
        },
        configure);
    return;
  }
  ScratchLease<Bf16AScratch, uint16_t> apack(static_cast<size_t>(p.batch * mp * a_panel));
  // Packed in runs of consecutive panels, as ForEachPanelRow hands them out
  // below, so that a thread mostly reads panels it packed itself.
  const int64_t panels = p.batch * mp, per_run = (panels + kTasksPerWorker * NumWorkers(runner) - 1) /
                                                   (kTasksPerWorker * NumWorkers(runner));
  ParallelFor(runner, (panels + per_run - 1) / per_run, [&](int64_t run, int) {
    for (int64_t t = run * per_run; t < std::min(panels, (run + 1) * per_run); ++t)
      PackAPanelAmx(p, t / mp, t % mp, apack.get() + t * a_panel);
  });
  ForEachPanelRow(
      runner, p.batch, mp, np, kRowPanels / 4, kColPanels,
      [&](int64_t b, int64_t ip, int64_t jp_begin, int64_t jp_end) {
        const uint16_t* ap = apack.get() + (b * mp + ip) * a_panel;
        AmxA a;
        a.base[0] = ap, a.base[1] = ap + amx::kHalfRows * kAmxStep;
        a.stride[0] = a.stride[1] = kAmxStep * sizeof(uint16_t);
        a.step = kAmxStepElements;
        row_of_tiles(a, ap + pairs / 16 * kAmxStepElements, b, ip, jp_begin, jp_end);
      },
      configure);
}
#endif

}  // namespace
#endif

bool Bf16HasSubnormals(const uint16_t* x, int64_t n) {
#if KILN_GEMM_BF16
  if (GemmBf16Supported()) return HasSubnormalsAvx512(x, n);
#endif
  // Branch-free over blocks, so that the compiler vectorizes it.
  constexpr int64_t kBlock = 4096;
  for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
    const int64_t i1 = std::min(n, i0 + kBlock);
    int any = 0;
    for (int64_t i = i0; i < i1; ++i) any |= ((x[i] & 0x7F80) == 0) & ((x[i] & 0x7F) != 0);
    if (any != 0) return true;
  }
  return false;
}

bool Bf16HasSubnormals(const uint16_t* x, int64_t n, TaskRunner* runner) {
  constexpr int64_t kPerTask = int64_t{1} << 16;
  if (n < 2 * kPerTask || NumWorkers(runner) <= 1) return Bf16HasSubnormals(x, n);
  std::atomic<bool> found{false};
  ParallelFor(runner, (n + kPerTask - 1) / kPerTask, [&](int64_t t, int) {
    if (found.load(std::memory_order_relaxed)) return;
    const int64_t i0 = t * kPerTask;
    if (Bf16HasSubnormals(x + i0, std::min(kPerTask, n - i0))) found.store(true, std::memory_order_relaxed);
  });
  return found.load();
}

size_t PackedBBytesBf16(const GemmProblem& p) {
  return static_cast<size_t>(p.batch * Panels(p.n, kNr) * Pairs(p) * kNr) * sizeof(uint32_t);
}

void PackWholeBBf16(const GemmProblem& p, void* out) {
  const int64_t np = Panels(p.n, kNr), panel = Pairs(p) * kNr;
  auto* o = static_cast<uint32_t*>(out);
  const double macs = static_cast<double>(p.batch) * p.m * p.n * std::max<int64_t>(p.k, 1);
  ParallelFor(macs >= kParallelMinMacs ? p.runner : nullptr, p.batch * np,
              [&](int64_t t, int) { PackBPanel(p, t / np, t % np, o + t * panel); });
}

void RunGemmBf16(const GemmProblem& p) {
#if KILN_GEMM_BF16
  if (p.batch == 0 || p.m == 0 || p.n == 0) return;
  const double macs = static_cast<double>(p.batch) * p.m * p.n * std::max<int64_t>(p.k, 1);
  TaskRunner* runner = macs >= kParallelMinMacs ? p.runner : nullptr;
  const int64_t np = Panels(p.n, kNr), mp = Panels(p.m, kMr), pairs = Pairs(p);
  const uint32_t* bpack = static_cast<const uint32_t*>(p.b_packed);
  ScratchLease<Bf16BScratch, uint8_t> bscratch(bpack == nullptr ? std::max<size_t>(PackedBBytesBf16(p), 64) : 0);
  if (bpack == nullptr) {
    GemmProblem q = p;
    q.runner = runner;
    PackWholeBBf16(q, bscratch.get());
    bpack = reinterpret_cast<const uint32_t*>(bscratch.get());
  }
#if KILN_AMX
  if (GemmBf16UsesAmx()) return GemmAmx(p, bpack, runner);
#endif
  const int64_t a_panel = pairs * kMr, b_panel = pairs * kNr;
  // A read in place where each pair of the contraction is two contiguous
  // elements (an even K: row-major A, a channel-last convolution's windows
  // over an even feature count); else packed.
  ScratchLease<Bf16PairOffsets, int64_t> koff(static_cast<size_t>(std::max<int64_t>(pairs, 1)));
  bool direct = p.k % 2 == 0;
  for (int64_t q = 0; q < pairs && direct; ++q) {
    koff.get()[q] = AOffsetK(p, 2 * q);
    direct = AOffsetK(p, 2 * q + 1) == koff.get()[q] + 1;
  }
  ScratchLease<Bf16AScratch, uint32_t> apack(direct ? 0 : static_cast<size_t>(std::max<int64_t>(p.batch * mp * a_panel, 16)));
  if (!direct)
    ParallelFor(runner, p.batch * mp, [&](int64_t t, int) { PackAPanel(p, t / mp, t % mp, apack.get() + t * a_panel); });
  const auto* a = static_cast<const uint16_t*>(p.a);
  ForEachPanelRow(runner, p.batch, mp, np, kRowPanels, kColPanels,
                  [&](int64_t b, int64_t ip, int64_t jp_begin, int64_t jp_end) {
                    const int64_t i0 = ip * kMr, rows = std::min(kMr, p.m - i0);
                    // Rows past the edge repeat the last row (read, never stored).
                    const uint16_t* row_ptrs[kMr];
                    for (int64_t r = 0; r < kMr; ++r) row_ptrs[r] = a + p.a_batch[b] + p.a_m[i0 + std::min(r, rows - 1)];
                    for (int64_t jp = jp_begin; jp < jp_end; ++jp) {
                      const int64_t j0 = jp * kNr;
                      const TileOut ct = TileAt(p, b, i0, j0);
                      const uint32_t* bt = bpack + (b * np + jp) * b_panel;
                      if (direct) {
                        Tile(DirectA{row_ptrs, koff.get()}, bt, pairs, ct, rows, std::min(kNr, p.n - j0));
                      } else {
                        Tile(PackedA{apack.get() + (b * mp + ip) * a_panel}, bt, pairs, ct, rows,
                             std::min(kNr, p.n - j0));
                      }
                    }
                  });
#else
  (void)p;
#endif
}

}  // namespace kiln::cpu

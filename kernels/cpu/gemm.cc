// The packed, cache-blocked GEMM engine of gemm.h behind the fast
// dot_general (contraction_dot_general.cc) and convolution
// (contraction_convolution.cc), for f32 and f64, compiled for every Highway
// target and dispatched to the best.
//
// The operands are never transposed up front: each index group of A and B is
// described by a table of element offsets (GemmProblem), and the packing
// routines gather blocks of A and B through those tables into contiguous
// panels (GotoBLAS/BLIS style), so batch and contracting dims may sit in any
// position at no extra cost beyond packing.
//
// Loop nest, per batch: jc (NC columns of C) -> pc (KC of the contraction;
// pack B[pc:pc+KC, jc:jc+NC] into NR-wide panels) -> ic (MC rows; pack
// A[ic:ic+MC, pc:pc+KC] into MR-high panels) -> jr -> ir (the MR x NR
// register-blocked micro-kernel, broadcast-A x vector-B fused multiply-adds).
// Threads: per (batch, jc, pc) the B block is packed by all workers (panel
// ranges) and every A block of the pc step (one task per ic block), then
// the (ic, column chunk) tiles, which write disjoint parts of C, are spread
// over the pool. Products too small to pay for a hand-off run on one thread.
// Very short products (M <= kGemvRows, B rows contiguous) skip packing and
// stream B once per row of A (matrix-vector products, batch-1 inference).
//
// Accumulation is in the element type (f32 sums in f32). The reference sums
// in double and rounds once, so results differ within rounding tolerance;
// NaN and infinity inputs propagate the same way except where an f32 partial
#include <algorithm>
#include <atomic>
#include <cstring>
#include <type_traits>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/gemm.cc"
#include "kernels/cpu/aligned_scratch.h"
#include "kernels/cpu/thread_scratch.h"
#include "kernels/cpu/hwy_targets.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "hwy/cache_control.h"
#include "hwy/aligned_allocator.h"

#ifndef KILN_CPU_GEMM_SHARED
#define KILN_CPU_GEMM_SHARED
#include "kernels/common/kernel_selection.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/half_float.h"

namespace kiln::cpu {

// Multiply-adds below which a product runs on the calling thread only.
constexpr double kParallelMinMacs = 1 << 20;
// The row-streaming product splits its columns once B holds this many
// elements (256 KiB of f32: reading it takes longer than waking a worker).
constexpr double kGemvParallelMinElements = 1 << 16;
// Multiply-adds below which a product is split into fully independent tiles
// (one pool hand-off) rather than per contraction step (three hand-offs per
// step, but B packed once and shared).
constexpr double kIndependentTilesMaxMacs = 1 << 26;

// The paths a selective build (a deployment's minimal runtime, held to its
// size budget by scripts/selective_check.sh) leaves out. Each has a simpler
// form, kept in every build, that gives the same bits; these paths only make
// it faster.
// - the batch-1 product's columns past the last whole vector as one vector
//   (else one column at a time, each a std::fma loop over k);
constexpr bool kGemvVectorTail = !KILN_SELECTIVE_BUILD;
// - the batch-1 product's column chunks on the same worker every call
//   (ParallelForAffine; else ParallelFor);
constexpr bool kGemvAffineSplit = !KILN_SELECTIVE_BUILD;
// - B packed row by row when its columns are contiguous (else element by
//   element: a selective build's B is a constant packed once at load);
constexpr bool kPackBByRows = !KILN_SELECTIVE_BUILD;
// - software prefetches in the large products' macro-kernel (a second copy
//   of it per target);
constexpr bool kPrefetchLarge = !KILN_SELECTIVE_BUILD;
// - f32 products over f16/bf16 B read in place (GemvHalfBF32; else
//   converted first);
// - A packed once by the caller (kGemmReadsPackedA, in gemm.h because the
//   callers read it too; else packed per call).

// The GEMM's per-thread scratch (thread_scratch.h): packed A blocks, packed
// B chunks, result tiles.
struct GemmScratchA;
struct GemmScratchB;
struct GemmScratchTile;
struct GemmScratchWindows;  // PackWindows' padded rows of one input plane
struct GemmScratchPlanes;   // a convolution's padded input planes (WindowPlanes)
struct GemmScratchSteps;    // their per-step offsets (MakeWindowPlanes)

// Products whose convolution windows were read in place (a test hook,
// WindowsReadInPlace in gemm.h).
inline std::atomic<uint64_t> windows_in_place_products{0};

}  // namespace kiln::cpu
#endif  // KILN_CPU_GEMM_SHARED

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Rows of the micro-kernel: AVX-512 has 32 vector registers (2*8 accumulators
// + 2 B vectors + a broadcast), the other targets 16 (2*6 + 3).
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
constexpr size_t kMR = 8;
#else
constexpr size_t kMR = 6;
#endif
// Contraction block: longer blocks load and store the C tiles fewer times.
// 512 (B micro-panel 64 KiB, in L2) beat 256 and 384 on the 2-core AVX-512
// test machine: 2048^3 with 2 threads 92 ms vs 100-104 ms at 256
// (kiln-kernel-bench BM_CpuDotGeneralF32Threads, alternating builds).
constexpr size_t kKC = 512;
// Rows of the A block (kMC x kKC stays in L2). 16 micro-panels (128 rows on
// AVX-512) rather than 12: a 128-row product (an NCHW convolution's 128
// filters, a layer's weights) is one block, not 96 + 32 (128 x 576 x 784
// 0.85x the time), and 1024^3 / 2048^3 on two threads took 0.91x; the
// models' rows moved within the noise (kiln-kernel-bench and vm-bench, the
// two builds alternating; docs/performance.md).
constexpr size_t kMC = kMR * 16;

// The contraction split into equal blocks of at most kKC (576 = 2 x 288
// rather than 512 + 64: a short last block pays a whole pass over C).
inline size_t ContractionBlock(size_t k) {
  const size_t blocks = std::max<size_t>(1, (k + kKC - 1) / kKC);
  return (k + blocks - 1) / blocks;
}
// Columns of the B block (rounded down to NR). 2048 rather than 1024: A is
// packed once per block of columns, and a 2048^3 product took 0.97x the
// time at one and two threads (kiln-kernel-bench, alternating builds).
constexpr size_t kNCMax = 2048;

// C[0:MR][0:NR] (ldc apart) = (accumulate ? C : 0) + Apanel * Bpanel.
// Apanel is kc x MR (MR values per step), Bpanel kc x NR (NR = 2 vectors).
// The accumulators are named variables rather than an array so that the code
// also compiles for scalable (sizeless) vector targets.
//
// A comes packed (kPacked: MR values per step) or straight from its rows
// (`arows`, one element per step): consecutive elements (kDirect) or the
// elements at offsets `ko` (kDirectGather, e.g. a convolution's implicit
// im2col rows). Reading A in place saves packing it where each A value is
// used by few B panels, and gathering it while packing.
//
// B comes packed (kPanels: kc rows of NR values, `ldb` apart from bp) or
// as a convolution's windows read in place from a padded copy of the input
// (kWindows): step p's two vectors are the N values at w[0] + bko[p] and at
// w[1] + bko[p], where w[v] is where the panel's v-th run of N output
// columns starts in the padded input and bko[p] the offset of step p's
// feature and tap. A run that crosses into the next output row
// (kWindowsSplit) takes its lanes [0, split[v]) from w[v] and the rest from
// next[v] (the next row's start, less split[v]).
enum class ASource { kPacked, kDirect, kDirectGather };
enum class BSource { kPanels, kWindows, kWindowsSplit };
template <typename T>
struct WindowRuns {
  const T* w[2] = {nullptr, nullptr};
  const T* next[2] = {nullptr, nullptr};
  size_t split[2] = {0, 0};
};
// Cache lines a micro-kernel fetches for the tiles after it (MacroKernel's
// kPrefetch): `b_lines` consecutive lines from `b` (a share of the next B
// panel) and two lines at each of `c_rows` rows `c_pitch` bytes apart from
// `c` (the next tile's C rows). They are spread over the contraction, a few
// every 8 steps: issued back to back at the tile's start, they filled the
// line-fill buffers and the core waited on them (6% of a 2048^3 product).
struct TilePrefetch {
  const char* b = nullptr;
  size_t b_lines = 0;
  const char* c = nullptr;
  size_t c_pitch = 0, c_rows = 0;
};

template <ASource kA, BSource kB, bool kPrefetch = false, class D, typename T = hn::TFromD<D>>
HWY_INLINE void MicroKernel(D d, size_t kc, const T* HWY_RESTRICT ap, const T* const* arows,
                            const int64_t* HWY_RESTRICT ko, const T* HWY_RESTRICT bp, size_t ldb,
                            const WindowRuns<T>& runs, const int64_t* HWY_RESTRICT bko, T* HWY_RESTRICT c,
                            size_t ldc, bool accumulate, const TilePrefetch& fetch = {}) {
  const size_t N = hn::Lanes(d);
  const auto z = hn::Zero(d);
  auto r00 = z, r01 = z, r10 = z, r11 = z, r20 = z, r21 = z, r30 = z, r31 = z;
  auto r40 = z, r41 = z, r50 = z, r51 = z, r60 = z, r61 = z, r70 = z, r71 = z;
  const T *a0 = nullptr, *a1 = nullptr, *a2 = nullptr, *a3 = nullptr, *a4 = nullptr, *a5 = nullptr,
          *a6 = nullptr, *a7 = nullptr;
  if constexpr (kA != ASource::kPacked) {
    a0 = arows[0], a1 = arows[1], a2 = arows[2], a3 = arows[3], a4 = arows[4], a5 = arows[5];
    if constexpr (kMR > 6) a6 = arows[6], a7 = arows[7];
  }
  [[maybe_unused]] const T* HWY_RESTRICT w0 = runs.w[0];
  [[maybe_unused]] const T* HWY_RESTRICT w1 = runs.w[1];
  [[maybe_unused]] const T* HWY_RESTRICT n0 = runs.next[0];
  [[maybe_unused]] const T* HWY_RESTRICT n1 = runs.next[1];
  [[maybe_unused]] const auto m0 = hn::FirstN(d, runs.split[0]);
  [[maybe_unused]] const auto m1 = hn::FirstN(d, runs.split[1]);
  auto step = [&](size_t p) {
    hn::Vec<D> b0, b1;
    if constexpr (kB == BSource::kPanels) {
      b0 = hn::LoadU(d, bp);
      b1 = hn::LoadU(d, bp + N);
    } else if constexpr (kB == BSource::kWindows) {
      b0 = hn::LoadU(d, w0 + bko[p]);
      b1 = hn::LoadU(d, w1 + bko[p]);
    } else {
      const int64_t o = bko[p];
      b0 = hn::IfThenElse(m0, hn::LoadU(d, w0 + o), hn::LoadU(d, n0 + o));
      b1 = hn::IfThenElse(m1, hn::LoadU(d, w1 + o), hn::LoadU(d, n1 + o));
    }
    [[maybe_unused]] const size_t q = kA == ASource::kDirectGather ? static_cast<size_t>(ko[p]) : p;
#define KILN_ROW(i)                                                              \
  if constexpr (kMR > i) {                                                       \
    const auto a = hn::Set(d, kA == ASource::kPacked ? ap[i] : a##i[q]);         \
    r##i##0 = hn::MulAdd(a, b0, r##i##0);                                        \
    r##i##1 = hn::MulAdd(a, b1, r##i##1);                                        \
  }
    KILN_ROW(0) KILN_ROW(1) KILN_ROW(2) KILN_ROW(3) KILN_ROW(4) KILN_ROW(5) KILN_ROW(6) KILN_ROW(7)
#undef KILN_ROW
    if constexpr (kA == ASource::kPacked) ap += kMR;
    if constexpr (kB == BSource::kPanels) bp += ldb;
  };
  size_t p = 0;
  if constexpr (kPrefetch) {
    const size_t chunks = kc / 8;
    const size_t per_chunk = chunks == 0 ? 0 : (fetch.b_lines + chunks - 1) / chunks;
    size_t line = 0, row = 0;
    for (; p + 8 <= kc; p += 8) {
      for (size_t l = 0; l < per_chunk && line < fetch.b_lines; ++l, ++line) hwy::Prefetch(fetch.b + line * 64);
      if (row < fetch.c_rows) {
        hwy::Prefetch(fetch.c + row * fetch.c_pitch);
        hwy::Prefetch(fetch.c + row * fetch.c_pitch + 64);
        ++row;
      }
      // Written out whole (not in selective builds, held to their size):
      // a convolution's implicit im2col rows (kDirectGather) ran at 0.81x
      // the speed as a loop (NHWC 3x3 56x56x64 -> 64 on one thread 1.79 ->
      // 1.45 ms, kiln-kernel-bench BM_CpuConv56x56Threads/0); the other
      // forms measured the same.
#if !KILN_SELECTIVE_BUILD
#pragma GCC unroll 8
#endif
      for (size_t s = 0; s < 8; ++s) step(p + s);
    }
  }
  for (; p < kc; ++p) step(p);
#define KILN_STORE(i)                                      \
  if constexpr (kMR > i) {                                 \
    T* ci = c + i * ldc;                                   \
    if (accumulate) {                                      \
      r##i##0 = hn::Add(hn::LoadU(d, ci), r##i##0);        \
      r##i##1 = hn::Add(hn::LoadU(d, ci + N), r##i##1);    \
    }                                                      \
    hn::StoreU(r##i##0, d, ci);                            \
    hn::StoreU(r##i##1, d, ci + N);                        \
  }
  KILN_STORE(0) KILN_STORE(1) KILN_STORE(2) KILN_STORE(3) KILN_STORE(4) KILN_STORE(5) KILN_STORE(6)
  KILN_STORE(7)
#undef KILN_STORE
}

// Packs A[rows ic.., contraction pc..] (mc x kc) into MR-high panels: panel q
// holds rows q*MR.. as kc steps of MR values, zero-padded past mc.
template <typename T>
void PackA(const GemmProblem& p, const T* a, int64_t abase, size_t ic, size_t mc, size_t pc, size_t kc,
           T* HWY_RESTRICT out) {
  for (size_t i0 = 0; i0 < mc; i0 += kMR) {
    const size_t rows = std::min(kMR, mc - i0);
    T* HWY_RESTRICT dst = out + (i0 / kMR) * kc * kMR;
    if (p.a_k_contiguous) {
      size_t q0 = 0;  // steps packed by the vector transpose
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
      // Full f32 panels: 8 rows x 8 steps at a time, transposed in
      // registers (the element-by-element copy below cost about a tenth of
      // a transformer layer's GEMMs).
      if constexpr (sizeof(T) == 4 && kMR == 8) {
        if (rows == kMR) {
          const float* src[8];
          for (size_t r = 0; r < 8; ++r)
            src[r] = reinterpret_cast<const float*>(a + abase + p.a_m[ic + i0 + r] + static_cast<int64_t>(pc));
          // The next panel's rows (the next block's first where this is the
          // last), fetched a cache line per row every 16 steps while this one
          // is transposed: a tall A streamed from memory (a 1x1 convolution
          // over a large batch) then waits on fewer misses.
          const float* next[8] = {};
          const bool fetch = ic + i0 + 2 * kMR <= static_cast<size_t>(p.m);
          if (fetch)
            for (size_t r = 0; r < 8; ++r)
              next[r] = reinterpret_cast<const float*>(a + abase + p.a_m[ic + i0 + kMR + r] + static_cast<int64_t>(pc));
          float* o = reinterpret_cast<float*>(dst);
          for (; q0 + 8 <= kc; q0 += 8) {
            if (fetch && q0 % 16 == 0)
              for (size_t r = 0; r < 8; ++r) hwy::Prefetch(next[r] + q0);
            __m256 r0 = _mm256_loadu_ps(src[0] + q0), r1 = _mm256_loadu_ps(src[1] + q0);
            __m256 r2 = _mm256_loadu_ps(src[2] + q0), r3 = _mm256_loadu_ps(src[3] + q0);
            __m256 r4 = _mm256_loadu_ps(src[4] + q0), r5 = _mm256_loadu_ps(src[5] + q0);
            __m256 r6 = _mm256_loadu_ps(src[6] + q0), r7 = _mm256_loadu_ps(src[7] + q0);
            const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
            const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
            const __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
            const __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
            r0 = _mm256_shuffle_ps(t0, t2, 0x44), r1 = _mm256_shuffle_ps(t0, t2, 0xEE);
            r2 = _mm256_shuffle_ps(t1, t3, 0x44), r3 = _mm256_shuffle_ps(t1, t3, 0xEE);
            r4 = _mm256_shuffle_ps(t4, t6, 0x44), r5 = _mm256_shuffle_ps(t4, t6, 0xEE);
            r6 = _mm256_shuffle_ps(t5, t7, 0x44), r7 = _mm256_shuffle_ps(t5, t7, 0xEE);
            float* oq = o + q0 * 8;
            _mm256_storeu_ps(oq + 0, _mm256_permute2f128_ps(r0, r4, 0x20));
            _mm256_storeu_ps(oq + 8, _mm256_permute2f128_ps(r1, r5, 0x20));
            _mm256_storeu_ps(oq + 16, _mm256_permute2f128_ps(r2, r6, 0x20));
            _mm256_storeu_ps(oq + 24, _mm256_permute2f128_ps(r3, r7, 0x20));
            _mm256_storeu_ps(oq + 32, _mm256_permute2f128_ps(r0, r4, 0x31));
            _mm256_storeu_ps(oq + 40, _mm256_permute2f128_ps(r1, r5, 0x31));
            _mm256_storeu_ps(oq + 48, _mm256_permute2f128_ps(r2, r6, 0x31));
            _mm256_storeu_ps(oq + 56, _mm256_permute2f128_ps(r3, r7, 0x31));
          }
        }
      }
#endif
      for (size_t r = 0; r < rows; ++r) {
        const T* src = a + abase + p.a_m[ic + i0 + r] + static_cast<int64_t>(pc);
        for (size_t q = q0; q < kc; ++q) dst[q * kMR + r] = src[q];
      }
    } else {
      const int64_t* ko = p.a_k.data() + pc;
      for (size_t r = 0; r < rows; ++r) {
        const T* src = a + abase + p.a_m[ic + i0 + r];
        for (size_t q = 0; q < kc; ++q) dst[q * kMR + r] = src[ko[q]];
      }
    }
    for (size_t r = rows; r < kMR; ++r)
      for (size_t q = 0; q < kc; ++q) dst[q * kMR + r] = T(0);
  }
}

// PackWholeA's layout: per batch entry, per contraction block (pc), per
// row block (ic), PackA's panels of that block; each row block padded to
// whole MR panels (only the last can be short).
inline size_t PaddedRowsA(size_t m) { return m / kMC * kMC + (m % kMC + kMR - 1) / kMR * kMR; }
template <typename T>
const T* PackedABlock(const GemmProblem& p, int64_t bi, size_t pc, size_t ic, size_t kc) {
  const size_t e = static_cast<size_t>(bi % p.a_packed_period);
  return static_cast<const T*>(p.a_packed) +
         (e * static_cast<size_t>(p.k) + pc) * PaddedRowsA(static_cast<size_t>(p.m)) + ic * kc;
}

// dst[0, len) = src[0, len): whole vectors, then one vector ending at len
// (overlapping what is already copied); element by element when shorter
// than a vector.
template <class D, typename T = hn::TFromD<D>>
HWY_INLINE void CopyRun(D d, const T* HWY_RESTRICT src, T* HWY_RESTRICT dst, size_t len) {
  const size_t N = hn::Lanes(d);
  if (len < N) {
    for (size_t i = 0; i < len; ++i) dst[i] = src[i];
    return;
  }
  size_t i = 0;
  for (; i + N <= len; i += N) hn::StoreU(hn::LoadU(d, src + i), d, dst + i);
  if (i < len) hn::StoreU(hn::LoadU(d, src + len - N), d, dst + len - N);
}

// The A operand of a macro-kernel: a packed block (mc x kc in MR-high
// panels), or rows read in place, row r starting at rows[r] with its
// elements consecutive or, with `ko`, at those offsets.
template <typename T>
struct AView {
  const T* packed = nullptr;
  const T* const* rows = nullptr;
  const int64_t* ko = nullptr;
};

// The B operand: NR-wide panels, panel q at data + q * panel_stride, its kc
// rows `ld` apart (packed: panel_stride = kc * NR, ld = NR); or, with `ko`,
// a convolution's windows read in place (WindowPlanes): data is the batch
// entry's padded input, ko the offsets of the block's contraction steps,
// col0 the output column (position) of the view's first column.
template <typename T>
struct BView {
  const T* data = nullptr;
  size_t panel_stride = 0;
  size_t ld = 0;
  const int64_t* ko = nullptr;
  size_t col0 = 0;
  size_t out_cols = 0, row_pitch = 0;  // output columns per row; padded elements from one output row to the next

  // Where output column j's window starts in the padded input.
  const T* WindowAt(size_t j) const { return data + j / out_cols * row_pitch + j % out_cols; }
};

// Convolution windows: packed from the input or read in place from padded
// planes (gemm_windows-inl.h, per target like this file).
#include "kernels/cpu/gemm_windows-inl.h"

// Packs B[contraction pc.., cols jc..] (kc x nc) into NR-wide panels: panel q
// holds cols q*NR.. as kc rows of NR values, zero-padded past nc.
template <typename T>
void PackB(const GemmProblem& p, const T* b, int64_t bbase, size_t pc, size_t kc, size_t jc, size_t nc,
           size_t nr, T* HWY_RESTRICT out) {
  // Only the convolution sets b_windows: a selective build without it
  // (kernels/common/kernel_selection.h) leaves PackWindows out.
  if constexpr (KernelSelected("stablehlo.convolution")) {
    if (p.b_windows != nullptr) {
      PackWindows(p, b, bbase, pc, kc, jc, nc, nr, out);
      return;
    }
  }
  if (!p.b_n_contiguous && nr <= 64) {
    // Columns that fall in runs of consecutive elements (a convolution's
    // output positions along a row of the input) are copied run by run
    // with inline vector copies (a memcpy call costs more than a short
    // copy), B row by B row across all panels: each row of B (one input
    // plane and tap) is then read once, in order, instead of once per
    // panel after the other rows have pushed it out of cache.
    struct Run {
      uint32_t dst, len;  // offset in the panel row, length
      int64_t src;        // b_n offset
    };
    // (Per thread, kept: a product packs B per call, and fresh lists were
    // heap traffic on every one.)
    thread_local std::vector<Run> runs;
    thread_local std::vector<uint32_t> panel_end;  // runs of panel i: [panel_end[i-1], panel_end[i])
    runs.clear();
    panel_end.clear();
    for (size_t j0 = 0; j0 < nc; j0 += nr) {
      const size_t cols = std::min(nr, nc - j0);
      const int64_t* no = p.b_n.data() + jc + j0;
      for (size_t j = 0; j < cols;) {
        size_t len = 1;
        while (j + len < cols && no[j + len] == no[j] + static_cast<int64_t>(len)) ++len;
        runs.push_back(Run{static_cast<uint32_t>(j), static_cast<uint32_t>(len), no[j]});
        j += len;
      }
      panel_end.push_back(static_cast<uint32_t>(runs.size()));
    }
    if (runs.size() * 4 <= nc) {  // runs of 4 or more on average
      const hn::ScalableTag<T> d;
      for (size_t q = 0; q < kc; ++q) {
        const T* src = b + bbase + p.b_k[pc + q];
        size_t r = 0;
        for (size_t panel = 0; panel < panel_end.size(); ++panel) {
          T* HWY_RESTRICT row = out + panel * kc * nr + q * nr;
          const size_t cols = std::min(nr, nc - panel * nr);
          for (; r < panel_end[panel]; ++r) {
            CopyRun(d, src + runs[r].src, row + runs[r].dst, runs[r].len);
          }
          for (size_t j = cols; j < nr; ++j) row[j] = T(0);
        }
      }
      return;
    }
  }
  if (kPackBByRows && p.b_n_contiguous) {
    // Row by row across the panels: each row of B is read once, in order
    // (panel by panel, the rows were read a panel width at a time, a whole
    // row apart). A whole panel row is a copy of the target's panel width,
    // which the compiler inlines where that width is fixed: a memcpy call
    // per panel row cost 3% of a 2048^3 product.
    const size_t panel_width = 2 * hn::Lanes(hn::ScalableTag<T>());
    const T* first = b + bbase + p.b_n[jc];
    for (size_t q = 0; q < kc; ++q) {
      const T* src = first + p.b_k[pc + q];
      for (size_t j0 = 0; j0 < nc; j0 += nr) {
        T* HWY_RESTRICT row = out + (j0 / nr) * kc * nr + q * nr;
        if (nr == panel_width && j0 + nr <= nc) {
          std::memcpy(row, src + j0, panel_width * sizeof(T));
          continue;
        }
        const size_t cols = std::min(nr, nc - j0);
        std::memcpy(row, src + j0, cols * sizeof(T));
        for (size_t j = cols; j < nr; ++j) row[j] = T(0);
      }
    }
    return;
  }
  for (size_t j0 = 0; j0 < nc; j0 += nr) {
    const size_t cols = std::min(nr, nc - j0);
    T* HWY_RESTRICT dst = out + (j0 / nr) * kc * nr;
    const int64_t* no = p.b_n.data() + jc + j0;
    for (size_t q = 0; q < kc; ++q) {
      const T* src = b + bbase + p.b_k[pc + q];
      T* HWY_RESTRICT row = dst + q * nr;
      for (size_t j = 0; j < cols; ++j) row[j] = src[no[j]];
      for (size_t j = cols; j < nr; ++j) row[j] = T(0);
    }
  }
}

// How B's elements are stored for the row-streaming product: as T, or as
// f16/bf16 bits widened to f32 (T = float) as they are loaded (batch-1
// layers over 16-bit weights read half the bytes).
enum class BStorage { kSame, kBF16, kF16 };

template <BStorage S, typename T>
using BElement = std::conditional_t<S == BStorage::kSame, T, uint16_t>;

template <BStorage S, class D, typename E>
HWY_INLINE hn::Vec<D> LoadB(D d, const E* x) {
  if constexpr (S == BStorage::kSame) {
    return hn::LoadU(d, x);
  } else if constexpr (S == BStorage::kBF16) {
    const hn::RebindToUnsigned<D> du;
    const hn::Rebind<uint16_t, D> d16;
    return hn::BitCast(d, hn::ShiftLeft<16>(hn::PromoteTo(du, hn::LoadU(d16, x))));
  } else {
#if HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR
    // Highway 1.0.3 emulates f16 -> f32 here without infinities and NaN:
    // widened in integers instead. Finite values: the 15 bits moved into
    // f32's exponent and mantissa fields read as 2^-112 times the value
    // (subnormals included), scaled back exactly; infinities and NaN: the
    // exponent all ones, the payload moved up.
    const hn::RebindToUnsigned<D> du;
    const hn::Rebind<uint16_t, D> d16;
    const auto h = hn::PromoteTo(du, hn::LoadU(d16, x));
    const auto sign = hn::ShiftLeft<16>(hn::And(h, hn::Set(du, 0x8000u)));
    const auto em = hn::And(h, hn::Set(du, 0x7FFFu));
    const auto finite = hn::BitCast(du, hn::Mul(hn::BitCast(d, hn::ShiftLeft<13>(em)), hn::Set(d, 0x1p112f)));
    const auto special = hn::Or(hn::ShiftLeft<13>(em), hn::Set(du, 0x7F800000u));
    const auto is_special = hn::RebindMask(du, hn::Gt(hn::BitCast(hn::RebindToSigned<D>(), em),
                                                        hn::Set(hn::RebindToSigned<D>(), 0x7BFF)));
    return hn::BitCast(d, hn::Or(sign, hn::IfThenElse(is_special, special, finite)));
#else
    const hn::Rebind<hwy::float16_t, D> dh;
    return hn::PromoteTo(d, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(x)));
#endif
  }
}

// Row-streaming product for short A: C[i][j] = sum_p A[i][p] * B[p][j],
// accumulating 4 vectors of C per pass over the rows of B (contiguous in j).
// kUniform: A's row is contiguous along p and B's rows are `ldb` apart (the
// usual row-major case), so the offset tables are not read in the loop.
template <bool kUniform, typename T, BStorage S = BStorage::kSame>
void GemvRows(const GemmProblem& p, int64_t bi, size_t j_begin, size_t j_end, int64_t ldb) {
  using E = BElement<S, T>;
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const T* a = static_cast<const T*>(p.a) + p.a_batch[bi];
  const E* b = static_cast<const E*>(p.b) + p.b_batch[bi] + p.b_n[0];
  T* c = static_cast<T*>(p.c) + static_cast<size_t>(bi) * p.m * p.n;
  const size_t n = static_cast<size_t>(p.n), k = static_cast<size_t>(p.k);
  auto a_at = [&](const T* ai, size_t q) { return kUniform ? ai[q] : ai[p.a_k[q]]; };
  auto b_row = [&](size_t q) { return b + (kUniform ? static_cast<int64_t>(q) * ldb : p.b_k[q]); };
  // B that stays in L2 between calls (a batch-1 layer's weights, up to 1
  // MiB): its rows four ahead fetched into L1 (examples/mlp.mlir @main, 784
  // x 128: the call 6.0 -> 5.8 us median); from memory the hardware's
  // prefetch alone was faster (1 x 4096 x 4096 3.2 vs 3.3 ms).
  // (Speed only: not in selective builds.)
  const bool prefetch =
      kPrefetchLarge && kUniform && k * static_cast<size_t>(ldb) * sizeof(E) <= (size_t{1} << 20);
  for (int64_t i = 0; i < p.m; ++i) {
    const T* ai = a + p.a_m[i];
    T* ci = c + static_cast<size_t>(i) * n;
    size_t j = j_begin;
    // Eight independent accumulators hide the multiply-add latency (each
    // column's sum is a chain over k; four chains leave the FMA units
    // half idle); every column is still summed over q in order.
    for (; j + 8 * N <= j_end; j += 8 * N) {
      auto c0 = hn::Zero(d), c1 = hn::Zero(d), c2 = hn::Zero(d), c3 = hn::Zero(d);
      auto c4 = hn::Zero(d), c5 = hn::Zero(d), c6 = hn::Zero(d), c7 = hn::Zero(d);
      for (size_t q = 0; q < k; ++q) {
        const auto av = hn::Set(d, a_at(ai, q));
        const E* row = b_row(q) + j;
        if (prefetch && q + 4 < k) {
          const char* ahead = reinterpret_cast<const char*>(row + 4 * ldb);
          for (size_t l = 0; l < 8 * N * sizeof(E); l += 64) hwy::Prefetch(ahead + l);
        }
        c0 = hn::MulAdd(av, LoadB<S>(d, row), c0);
        c1 = hn::MulAdd(av, LoadB<S>(d, row + N), c1);
        c2 = hn::MulAdd(av, LoadB<S>(d, row + 2 * N), c2);
        c3 = hn::MulAdd(av, LoadB<S>(d, row + 3 * N), c3);
        c4 = hn::MulAdd(av, LoadB<S>(d, row + 4 * N), c4);
        c5 = hn::MulAdd(av, LoadB<S>(d, row + 5 * N), c5);
        c6 = hn::MulAdd(av, LoadB<S>(d, row + 6 * N), c6);
        c7 = hn::MulAdd(av, LoadB<S>(d, row + 7 * N), c7);
      }
      hn::StoreU(c0, d, ci + j);
      hn::StoreU(c1, d, ci + j + N);
      hn::StoreU(c2, d, ci + j + 2 * N);
      hn::StoreU(c3, d, ci + j + 3 * N);
      hn::StoreU(c4, d, ci + j + 4 * N);
      hn::StoreU(c5, d, ci + j + 5 * N);
      hn::StoreU(c6, d, ci + j + 6 * N);
      hn::StoreU(c7, d, ci + j + 7 * N);
    }
    for (; j + 4 * N <= j_end; j += 4 * N) {
      auto c0 = hn::Zero(d), c1 = hn::Zero(d), c2 = hn::Zero(d), c3 = hn::Zero(d);
      for (size_t q = 0; q < k; ++q) {
        const auto av = hn::Set(d, a_at(ai, q));
        const E* row = b_row(q) + j;
        c0 = hn::MulAdd(av, LoadB<S>(d, row), c0);
        c1 = hn::MulAdd(av, LoadB<S>(d, row + N), c1);
        c2 = hn::MulAdd(av, LoadB<S>(d, row + 2 * N), c2);
        c3 = hn::MulAdd(av, LoadB<S>(d, row + 3 * N), c3);
      }
      hn::StoreU(c0, d, ci + j);
      hn::StoreU(c1, d, ci + j + N);
      hn::StoreU(c2, d, ci + j + 2 * N);
      hn::StoreU(c3, d, ci + j + 3 * N);
    }
    for (; j + N <= j_end; j += N) {
      auto c0 = hn::Zero(d);
      for (size_t q = 0; q < k; ++q) c0 = hn::MulAdd(hn::Set(d, a_at(ai, q)), LoadB<S>(d, b_row(q) + j), c0);
      hn::StoreU(c0, d, ci + j);
    }
    if constexpr (!kGemvVectorTail) {
      // (The vector form below is 8 KB of a minimal runtime's budget.)
      for (; j < j_end; ++j) {
        T sum = T(0);
        for (size_t q = 0; q < k; ++q) sum = std::fma(a_at(ai, q), static_cast<T>(b_row(q)[j]), sum);
        ci[j] = sum;
      }
    } else if (j < j_end) {
      // Fewer columns than one vector (a classifier's 10 classes): one
      // vector whose first `cols` lanes are the columns, each still summed
      // over q in order (the element-by-element loop took a tenth of a
      // batch-1 MLP). A whole vector is loaded from a row while its lanes
      // stay within B (the lanes past the columns then hold the next row's
      // elements, and are dropped); the last rows' columns are copied into
      // a zeroed vector first.
      const size_t cols = j_end - j;
      HWY_ALIGN BElement<S, T> tail[hn::MaxLanes(d)] = {};
      HWY_ALIGN T out[hn::MaxLanes(d)];
      size_t whole = 0;  // rows loaded whole
      if constexpr (kUniform) {
        // Row q's vector ends before B's last column ends: q * ldb + j + N
        // <= (k - 1) * ldb + j_end.
        if (ldb > 0 && static_cast<int64_t>(N) <= (static_cast<int64_t>(k) - 1) * ldb + static_cast<int64_t>(cols))
          whole = std::min<size_t>(
              k, static_cast<size_t>(((static_cast<int64_t>(k) - 1) * ldb + static_cast<int64_t>(cols) - static_cast<int64_t>(N)) /
                                     ldb) + 1);
      }
      auto c0 = hn::Zero(d);
      for (size_t q = 0; q < whole; ++q) c0 = hn::MulAdd(hn::Set(d, a_at(ai, q)), LoadB<S>(d, b_row(q) + j), c0);
      for (size_t q = whole; q < k; ++q) {
        std::copy_n(b_row(q) + j, cols, tail);
        c0 = hn::MulAdd(hn::Set(d, a_at(ai, q)), LoadB<S>(d, tail), c0);
      }
      hn::Store(c0, d, out);
      std::copy_n(out, cols, ci + j);
    }
  }
}

template <typename T, BStorage S = BStorage::kSame>
void Gemv(const GemmProblem& p, int64_t bi, size_t j_begin, size_t j_end) {
  if (p.a_k_contiguous && p.b_k_step != 0) {
    GemvRows<true, T, S>(p, bi, j_begin, j_end, p.b_k_step);
  } else {
    GemvRows<false, T, S>(p, bi, j_begin, j_end, 0);
  }
}

// The row-streaming product over the pool: streaming B is the cost, so its
// columns are split over the workers (in whole 4-vector blocks) once B is
// large enough to pay for the hand-off.
template <typename T, BStorage S = BStorage::kSame>
void GemvSplit(const GemmProblem& p) {
  const hn::ScalableTag<T> d;
  const size_t n = static_cast<size_t>(p.n), k = static_cast<size_t>(p.k);
  TaskRunner* gemv_runner = static_cast<double>(k) * n >= kGemvParallelMinElements ? p.runner : nullptr;
  const size_t block = 4 * hn::Lanes(d);
  const size_t per_worker = (n + NumWorkers(gemv_runner) - 1) / NumWorkers(gemv_runner);
  const size_t chunk = std::max(block, (per_worker + block - 1) / block * block);
  const int64_t chunks = static_cast<int64_t>((n + chunk - 1) / chunk);
  // One chunk per worker, each to the same worker on every call
  // (ParallelForAffine): a layer's weights, split the same way each time,
  // stay in the caches of the cores that read them.
  auto task = [&](int64_t t, int) {
    const size_t j0 = static_cast<size_t>(t % chunks) * chunk;
    Gemv<T, S>(p, t / chunks, j0, std::min(n, j0 + chunk));
  };
  if constexpr (kGemvAffineSplit) {
    ParallelForAffine(gemv_runner, p.batch * chunks, task);
  } else {
    ParallelFor(gemv_runner, p.batch * chunks, task);
  }
}

// C[0:mc][0:cols] (ldc apart) (+)= A (mc x kc) x B (kc x cols), micro-tile
// by micro-tile.

template <bool kPrefetch = false, class D, typename T = hn::TFromD<D>>
void MacroKernel(D d, size_t kc, const AView<T>& a, size_t mc, const BView<T>& b, size_t cols_total, T* c,
                 size_t ldc, bool accumulate, T* tile) {
  const size_t nr = 2 * hn::Lanes(d);
  const size_t N = hn::Lanes(d);
  for (size_t jr = 0; jr < cols_total; jr += nr) {
    const size_t cols = std::min(nr, cols_total - jr);
    const T* bp = b.data + (jr / nr) * b.panel_stride;
    WindowRuns<T> runs;  // windows read in place: where the panel's two vectors start
    bool split = false;
    if (KernelSelected("stablehlo.convolution") && b.ko != nullptr) {
      for (size_t v = 0; v < 2; ++v) {
        // A half panel (the last) repeats its first vector: valid memory,
        // its results are dropped with the edge tile.
        const size_t j = b.col0 + jr + (v == 1 && cols > N ? N : 0);
        const size_t x = j % b.out_cols;
        runs.w[v] = b.WindowAt(j);
        runs.split[v] = std::min(N, b.out_cols - x);
        // Lanes past the row: from the next output row's start (lane i at
        // column i - split there).
        runs.next[v] = b.data + (j / b.out_cols + 1) * b.row_pitch - runs.split[v];
        split = split || runs.split[v] < N;
      }
    }
    // kPrefetch (the large products of Gemm, whose block of B exceeds L2
    // and whose C is not in cache; the small ones only lost by it, a
    // batch-1 transformer 4%): packed B's next panel fetched while this
    // one's tiles run, a share per tile, so that the next column's first
    // tile does not wait on its panel from L3.
    const char* next_b = nullptr;
    size_t next_lines = 0, lines_per_tile = 0;
    if (kPrefetch && b.ko == nullptr && jr + nr < cols_total) {
      next_b = reinterpret_cast<const char*>(bp + b.panel_stride);
      next_lines = kc * nr * sizeof(T) / 64;
      lines_per_tile = (next_lines + (mc + kMR - 1) / kMR - 1) / ((mc + kMR - 1) / kMR);
    }
    for (size_t ir = 0; ir < mc; ir += kMR) {
      const size_t rows = std::min(kMR, mc - ir);
      const T* ap = a.packed ? a.packed + (ir / kMR) * kc * kMR : nullptr;
      TilePrefetch fetch;
      if (kPrefetch && next_b != nullptr) {
        const size_t l0 = std::min(next_lines, ir / kMR * lines_per_tile);
        fetch.b = next_b + l0 * 64;
        fetch.b_lines = std::min(next_lines, l0 + lines_per_tile) - l0;
      }
      // The next tile's rows of C (read where accumulating, written either
      // way), so that its loads and stores do not wait on memory.
      if (kPrefetch && ir + 2 * kMR <= mc && cols == nr) {
        fetch.c = reinterpret_cast<const char*>(c + (ir + kMR) * ldc + jr);
        fetch.c_pitch = ldc * sizeof(T);
        fetch.c_rows = kMR;
      }
      // Direct A: rows past the block repeat its first row (valid memory;
      // their results land in the scratch tile and are dropped).
      const T* arows[kMR];
      if (!a.packed)
        for (size_t r = 0; r < kMR; ++r) arows[r] = a.rows[ir + (r < rows ? r : 0)];
      auto micro = [&](T* out, size_t ld, bool acc) {
        // One micro-kernel per (A source, B source) pair. (Inlined, as the
        // dispatch written out per B source was: a call here moved the
        // minimal runtime past a page of its size budget.)
        auto with_b = [&](auto b_source, size_t ldb) __attribute__((always_inline)) {
          constexpr BSource kB = decltype(b_source)::value;
          if (a.packed)
            MicroKernel<ASource::kPacked, kB, kPrefetch>(d, kc, ap, arows, a.ko, bp, ldb, runs, b.ko, out, ld, acc, fetch);
          else if (a.ko)
            MicroKernel<ASource::kDirectGather, kB, kPrefetch>(d, kc, ap, arows, a.ko, bp, ldb, runs, b.ko, out, ld, acc,
                                                               fetch);
          else
            MicroKernel<ASource::kDirect, kB, kPrefetch>(d, kc, ap, arows, a.ko, bp, ldb, runs, b.ko, out, ld, acc, fetch);
        };
        if constexpr (KernelSelected("stablehlo.convolution")) {
          if (b.ko != nullptr) {
            if (split)
              with_b(std::integral_constant<BSource, BSource::kWindowsSplit>(), 0);
            else
              with_b(std::integral_constant<BSource, BSource::kWindows>(), 0);
            return;
          }
        }
        with_b(std::integral_constant<BSource, BSource::kPanels>(), b.ld);
      };
      T* ct = c + ir * ldc + jr;
      if (rows == kMR && cols == nr) {
        micro(ct, ldc, accumulate);
      } else {  // edge tile: compute into a scratch tile, copy the valid part
        micro(tile, nr, false);
        for (size_t r = 0; r < rows; ++r) {
          T* dst = ct + r * ldc;
          const T* src = tile + r * nr;
          if (accumulate) {
            for (size_t j = 0; j < cols; ++j) dst[j] += src[j];
          } else {
            for (size_t j = 0; j < cols; ++j) dst[j] = src[j];
          }
        }
      }
    }
  }
}

// Products too small to amortise a pool hand-off per contraction step: one
// ParallelFor over independent (batch, ic block, column chunk) tiles, each
// packing its own B columns for every step, and reading A in place when its
// rows are contiguous along the contraction (packing it otherwise). B
// packing is repeated once per ic block, which costs little at these sizes,
// and there is a single hand-off per product.
template <typename T>
void GemmIndependentTiles(const GemmProblem& p, TaskRunner* runner) {
  const hn::ScalableTag<T> d;
  const size_t nr = 2 * hn::Lanes(d);
  const T* a = static_cast<const T*>(p.a);
  const T* b = static_cast<const T*>(p.b);
  T* c = static_cast<T*>(p.c);
  const size_t m = static_cast<size_t>(p.m), n = static_cast<size_t>(p.n), k = static_cast<size_t>(p.k);
  const int workers = NumWorkers(runner);
  const size_t ic_blocks = (m + kMC - 1) / kMC;
  const size_t panels = (n + nr - 1) / nr;
  const size_t want = static_cast<size_t>(2 * workers);
  const size_t per_batch = ic_blocks;
  const size_t j_split = std::min(
      panels, std::max<size_t>({1, (want + per_batch * p.batch - 1) / (per_batch * p.batch), (panels * nr + kNCMax - 1) / kNCMax}));
  const size_t panels_per_chunk = (panels + j_split - 1) / j_split;
  const size_t kc_max = ContractionBlock(k);
  const size_t mc_max = std::min(kMC, (m + kMR - 1) / kMR * kMR);
  // B packed once (PackWholeB's layout), or a convolution's windows read in
  // place from padded planes of every batch entry, made first; else packed
  // here per tile.
  const T* packed_b = static_cast<const T*>(p.b_packed);
  // (Not with fewer batch entries than workers: the planes' own hand-off
  // then costs more than the tiles' packing saves: ResNet block at batch
  // 1 on 2 threads 0.222 -> 0.243 ms.)
  const bool windows_b = ReadsWindowsInPlace<T>(p) && p.batch >= workers;
  WindowSteps steps(windows_b ? WindowStepsSize(p) : 0);
  const WindowPlanes planes = windows_b ? MakeWindowPlanes(p, steps.get()) : WindowPlanes{};
  ScratchLease<GemmScratchPlanes, T> padded(windows_b ? static_cast<size_t>(p.batch) * planes.PerBatch() + planes.Slack() : 0);
  if (windows_b) windows_in_place_products.fetch_add(1, std::memory_order_relaxed);
  if (windows_b) FillWindowPlanes(p, planes, 0, p.batch, padded.get(), runner);
  // Per worker w: an A block (none when A is read where it lies: packed
  // once, or rows read in place; a selective build leases it always, to
  // keep its size), a B chunk and a result tile, at w * size.
  const bool a_in_place = kGemmReadsPackedA && (p.a_packed != nullptr || p.a_k_contiguous);
  const size_t a_size = a_in_place ? 0 : mc_max * kc_max, b_size = packed_b != nullptr || windows_b ? 0 : panels_per_chunk * nr * kc_max;
  const size_t nw = static_cast<size_t>(workers);
  ScratchLease<GemmScratchA, T> apack(nw * a_size);
  ScratchLease<GemmScratchB, T> bpack(nw * b_size);
  ScratchLease<GemmScratchTile, T> tile(nw * kMR * nr);
  const int64_t tiles = p.batch * static_cast<int64_t>(ic_blocks * j_split);
  ParallelFor(runner, tiles, [&](int64_t t, int w) {
    const int64_t bi = t / static_cast<int64_t>(ic_blocks * j_split);
    const size_t rest = static_cast<size_t>(t % static_cast<int64_t>(ic_blocks * j_split));
    const size_t ic = rest / j_split * kMC, q0 = rest % j_split * panels_per_chunk;
    const size_t q1 = std::min(panels, q0 + panels_per_chunk);
    if (q0 >= q1) return;
    const size_t mc = std::min(kMC, m - ic);
    const size_t j0 = q0 * nr, cols = std::min(n, q1 * nr) - j0;
    T* ct = c + static_cast<size_t>(bi) * m * n + ic * n + j0;
    // (Per thread, kept: a fresh list per tile was heap traffic per call.)
    thread_local std::vector<const T*> rows;
    rows.resize(kMC);
    for (size_t pc = 0; pc < k; pc += kc_max) {
      const size_t kc = std::min(kc_max, k - pc);
      AView<T> av;
      if (kGemmReadsPackedA && p.a_packed != nullptr) {
        av.packed = PackedABlock<T>(p, bi, pc, ic, kc);
      } else if (p.a_k_contiguous) {
        for (size_t r = 0; r < mc; ++r) rows[r] = a + p.a_batch[bi] + p.a_m[ic + r] + static_cast<int64_t>(pc);
        av.rows = rows.data();
      } else {
        T* ap = apack.get() + static_cast<size_t>(w) * a_size;
        PackA(p, a, p.a_batch[bi], ic, mc, pc, kc, ap);
        av.packed = ap;
      }
      // B is always packed: its rows read in place are a power-of-two stride
      // apart in typical shapes, which maps a panel onto a few L1 sets
      // (measured 30% slower for examples/mlp.mlir @main_b64).
      BView<T> bv{nullptr, kc * nr, nr};
      if (windows_b) {
        bv = WindowsView(p, planes, padded.get() + static_cast<size_t>(bi) * planes.PerBatch(), pc, j0);
      } else if (packed_b != nullptr) {
        bv.data = packed_b + (static_cast<size_t>(bi) * k + pc) * panels * nr + q0 * kc * nr;
      } else {
        T* own = bpack.get() + static_cast<size_t>(w) * b_size;
        PackB(p, b, p.b_batch[bi], pc, kc, j0, cols, nr, own);
        bv.data = own;
      }
      MacroKernel(d, kc, av, mc, bv, cols, ct, n, pc != 0, tile.get() + static_cast<size_t>(w) * kMR * nr);
    }
  });
}

template <typename T>
void Gemm(const GemmProblem& p) {
  const hn::ScalableTag<T> d;
  const size_t nr = 2 * hn::Lanes(d);
  const T* a = static_cast<const T*>(p.a);
  const T* b = static_cast<const T*>(p.b);
  T* c = static_cast<T*>(p.c);
  const size_t m = static_cast<size_t>(p.m), n = static_cast<size_t>(p.n), k = static_cast<size_t>(p.k);
  const size_t batch_stride = m * n;
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::fill(c, c + static_cast<size_t>(p.batch) * batch_stride, T(0));
    return;
  }
  const double macs = static_cast<double>(p.batch) * m * n * k;
  TaskRunner* runner = macs >= kParallelMinMacs ? p.runner : nullptr;
  const int workers = NumWorkers(runner);
  if (p.m <= kGemvRows && p.b_n_contiguous) {
    GemvSplit<T>(p);
    return;
  }
  if (macs < kIndependentTilesMaxMacs) {
    GemmIndependentTiles<T>(p, runner);
    return;
  }
  const size_t nc_max = std::max(nr, kNCMax / nr * nr);
  const size_t kc_max = ContractionBlock(k);
  const size_t mc_max = std::min(kMC, (m + kMR - 1) / kMR * kMR);
  const size_t nc_alloc = std::min(nc_max, (n + nr - 1) / nr * nr);
  const size_t ic_blocks = (m + kMC - 1) / kMC;
  ScratchLease<GemmScratchTile, T> tile(static_cast<size_t>(workers) * kMR * nr);  // kMR * nr per worker
  // A blocks: with one task per ic block, each task packs its own block into
  // its worker's buffer right before using it (it stays in L2); when column
  // chunks share an ic block, all blocks of the pc step are packed once
  // first into a shared buffer (block q at q * mc_max * kc).
  const size_t want_tasks = static_cast<size_t>(2 * workers);
  // A whose rows are gathered (a convolution's implicit im2col) is read in
  // place through its offset table: gathering it into packed panels cost
  // as much as the multiply-adds.
  // (A packed once, PackWholeA: its blocks are read where they lie.)
  const bool packed_a = kGemmReadsPackedA && p.a_packed != nullptr;
  const bool direct_a = !p.a_k_contiguous && !packed_a;
  const bool shared_a = !direct_a && !packed_a && ic_blocks < want_tasks && n > nr;
  ScratchLease<GemmScratchA, T> apack(direct_a || packed_a ? 0 : (shared_a ? ic_blocks : static_cast<size_t>(workers)) * mc_max * kc_max);
  const T* packed_b = static_cast<const T*>(p.b_packed);
  const size_t all_panels = (n + nr - 1) / nr;
  // A convolution's windows read in place: the padded planes of one batch
  // entry at a time (made by all workers), no B blocks.
  const bool windows_b = ReadsWindowsInPlace<T>(p);
  WindowSteps steps(windows_b ? WindowStepsSize(p) : 0);
  const WindowPlanes planes = windows_b ? MakeWindowPlanes(p, steps.get()) : WindowPlanes{};
  ScratchLease<GemmScratchPlanes, T> padded(windows_b ? planes.PerBatch() + planes.Slack() : 0);
  if (windows_b) windows_in_place_products.fetch_add(1, std::memory_order_relaxed);
  ScratchLease<GemmScratchB, T> bpack(packed_b != nullptr || windows_b ? 0 : nc_alloc * kc_max);

  for (int64_t bi = 0; bi < p.batch; ++bi) {
    const int64_t abase = p.a_batch[bi], bbase = p.b_batch[bi];
    T* cb = c + static_cast<size_t>(bi) * batch_stride;
    if (windows_b) FillWindowPlanes(p, planes, bi, bi + 1, padded.get(), runner);
    for (size_t jc = 0; jc < n; jc += nc_max) {
      const size_t nc = std::min(nc_max, n - jc);
      const size_t panels = (nc + nr - 1) / nr;
      // Column chunks per ic block, so that there are about 2 tiles per worker.
      const size_t j_split =
          shared_a ? std::min(panels, std::max<size_t>(1, (want_tasks + ic_blocks - 1) / ic_blocks)) : 1;
      const size_t panels_per_chunk = (panels + j_split - 1) / j_split;
      for (size_t pc = 0; pc < k; pc += kc_max) {
        const size_t kc = std::min(kc_max, k - pc);
        const bool accumulate = pc != 0;
        const size_t pack_tasks = std::min<size_t>(panels, static_cast<size_t>(workers));
        const size_t pack_per_task = (panels + pack_tasks - 1) / pack_tasks;
        // The B block: panels jc / nr.. of the pc step of B packed once, or
        // packed now by all workers.
        T* bblock = bpack.get();
        if (windows_b) {
          // nothing to pack
        } else if (packed_b != nullptr) {
          bblock = const_cast<T*>(packed_b) + (static_cast<size_t>(bi) * k + pc) * all_panels * nr + jc / nr * kc * nr;
        } else {
          ParallelFor(runner, static_cast<int64_t>(pack_tasks), [&](int64_t t, int) {
            const size_t q0 = static_cast<size_t>(t) * pack_per_task;
            const size_t q1 = std::min(panels, q0 + pack_per_task);
            if (q0 >= q1) return;
            const size_t j0 = q0 * nr, j1 = std::min(nc, q1 * nr);
            PackB(p, b, bbase, pc, kc, jc + j0, j1 - j0, nr, bpack.get() + q0 * kc * nr);
          });
        }
        if (shared_a) {
          ParallelFor(runner, static_cast<int64_t>(ic_blocks), [&](int64_t q, int) {
            const size_t ic = static_cast<size_t>(q) * kMC;
            PackA(p, a, abase, ic, std::min(kMC, m - ic), pc, kc, apack.get() + q * mc_max * kc);
          });
        }
        ParallelFor(runner, static_cast<int64_t>(ic_blocks * j_split), [&](int64_t t, int w) {
          const size_t ic = static_cast<size_t>(t) / j_split * kMC;
          const size_t q0 = static_cast<size_t>(t) % j_split * panels_per_chunk;
          const size_t q1 = std::min(panels, q0 + panels_per_chunk);
          if (q0 >= q1) return;
          const size_t mc = std::min(kMC, m - ic);
          const size_t j0 = q0 * nr, j1 = std::min(nc, q1 * nr);
          const BView<T> bv = windows_b ? WindowsView(p, planes, padded.get(), pc, jc + j0)
                                        : BView<T>{bblock + q0 * kc * nr, kc * nr, nr};
          if (direct_a) {
            thread_local std::vector<const T*> r;  // (per thread, kept)
            r.resize(kMC);
            for (size_t i = 0; i < mc; ++i) r[i] = a + abase + p.a_m[ic + i];
            MacroKernel<kPrefetchLarge>(d, kc, AView<T>{nullptr, r.data(), p.a_k.data() + pc}, mc, bv, j1 - j0,
                                        cb + ic * n + jc + j0, n, accumulate,
                                        tile.get() + static_cast<size_t>(w) * kMR * nr);
            return;
          }
          const T* ap_block = packed_a ? PackedABlock<T>(p, bi, pc, ic, kc)
                                       : apack.get() + (shared_a ? ic / kMC : static_cast<size_t>(w)) * mc_max * kc;
          if (!shared_a && !packed_a) PackA(p, a, abase, ic, mc, pc, kc, const_cast<T*>(ap_block));
          MacroKernel<kPrefetchLarge>(d, kc, AView<T>{ap_block, nullptr, nullptr}, mc, bv, j1 - j0,
                                      cb + ic * n + jc + j0, n, accumulate,
                                      tile.get() + static_cast<size_t>(w) * kMR * nr);
        });
      }
    }
  }
}

void GemmF32(const GemmProblem& p) { Gemm<float>(p); }

// An f32 product of at most kGemvRows rows over a B of f16/bf16 bits read in
// place (RunGemvHalfB); false where the row-streaming path does not apply.
bool GemvHalfBF32(const GemmProblem& p, bool bf16) {
  // (An #if, not `if constexpr`: outside a template the discarded branch
  // would still instantiate, and emit, both half-precision products.)
#if KILN_SELECTIVE_BUILD
  return false;
#else
  if (!(p.m <= kGemvRows && p.b_n_contiguous) || p.m <= 0 || p.n <= 0 || p.k <= 0) return false;
  if (bf16) {
    GemvSplit<float, BStorage::kBF16>(p);
  } else {
    GemvSplit<float, BStorage::kF16>(p);
  }
  return true;
#endif
}
void GemmF64(const GemmProblem& p) { Gemm<double>(p); }

// B packed whole for every path that packs it: per batch, per pc step of
// ContractionBlock(k) (rows pc..pc+kc), all NR-wide column panels, each kc
// rows of NR values (the layout PackB writes for one block, blocks in
// order). 0 elements when n or k is 0.
template <typename T>
size_t PackedBElements(const GemmProblem& p) {
  const size_t nr = 2 * hn::Lanes(hn::ScalableTag<T>());
  const size_t panels = (static_cast<size_t>(p.n) + nr - 1) / nr;
  return static_cast<size_t>(p.batch) * static_cast<size_t>(p.k) * panels * nr;
}
size_t PackedBElementsF32(const GemmProblem& p) { return PackedBElements<float>(p); }
size_t PanelWidthF32() { return 2 * hn::Lanes(hn::ScalableTag<float>()); }
size_t PanelWidthF64() { return 2 * hn::Lanes(hn::ScalableTag<double>()); }
size_t PackedBElementsF64(const GemmProblem& p) { return PackedBElements<double>(p); }

template <typename T>
void PackWholeB(const GemmProblem& p, void* out) {
  const size_t nr = 2 * hn::Lanes(hn::ScalableTag<T>());
  const size_t n = static_cast<size_t>(p.n), k = static_cast<size_t>(p.k);
  const size_t panels = (n + nr - 1) / nr;
  const size_t kc_max = ContractionBlock(k);
  const T* b = static_cast<const T*>(p.b);
  T* o = static_cast<T*>(out);
  for (int64_t bi = 0; bi < p.batch; ++bi)
    for (size_t pc = 0; pc < k; pc += kc_max)
      PackB(p, b, p.b_batch[bi], pc, std::min(kc_max, k - pc), 0, n, nr,
            o + (static_cast<size_t>(bi) * k + pc) * panels * nr);
}
void PackWholeBF32(const GemmProblem& p, void* out) { PackWholeB<float>(p, out); }
void PackWholeBF64(const GemmProblem& p, void* out) { PackWholeB<double>(p, out); }

// One entry of PackWholeA's layout; the row padding is the target's, the
// same for every element type.
size_t PackedAElementsPerEntry(const GemmProblem& p) {
  return PaddedRowsA(static_cast<size_t>(p.m)) * static_cast<size_t>(p.k);
}

// Entries [0, entries) of A in PackedABlock's layout.
template <typename T>
void PackWholeA(const GemmProblem& p, int64_t entries, void* out) {
  const size_t m = static_cast<size_t>(p.m), k = static_cast<size_t>(p.k);
  const size_t kc_max = ContractionBlock(k);
  GemmProblem at = p;
  at.a_packed = out;
  at.a_packed_period = entries;
  for (int64_t e = 0; e < entries; ++e)
    for (size_t pc = 0; pc < k; pc += kc_max) {
      const size_t kc = std::min(kc_max, k - pc);
      for (size_t ic = 0; ic < m; ic += kMC)
        PackA(p, static_cast<const T*>(p.a), p.a_batch[static_cast<size_t>(e)], ic, std::min(kMC, m - ic), pc, kc,
              const_cast<T*>(PackedABlock<T>(at, e, pc, ic, kc)));
    }
}
void PackWholeAF32(const GemmProblem& p, int64_t entries, void* out) { PackWholeA<float>(p, entries, out); }
void PackWholeAF64(const GemmProblem& p, int64_t entries, void* out) { PackWholeA<double>(p, entries, out); }

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(GemmF32);
HWY_EXPORT(GemmF64);
HWY_EXPORT(GemvHalfBF32);
HWY_EXPORT(PackedBElementsF32);
HWY_EXPORT(PanelWidthF32);
HWY_EXPORT(PanelWidthF64);
HWY_EXPORT(PackedBElementsF64);
HWY_EXPORT(PackWholeBF32);
HWY_EXPORT(PackWholeBF64);
HWY_EXPORT(PackedAElementsPerEntry);
HWY_EXPORT(PackWholeAF32);
HWY_EXPORT(PackWholeAF64);

namespace {
std::atomic<uint64_t> whole_b_packs{0};
std::atomic<uint64_t> whole_a_packs{0};
std::atomic<uint64_t> gemv_half_b_runs{0};
}  // namespace

bool GemmPacksB(const GemmProblem& p) {
  return p.n > 0 && p.k > 0 && p.m > 0 && !(p.m <= kGemvRows && p.b_n_contiguous);
}

size_t PackedBElements(const GemmProblem& p, ElementType type) {
  return type == ElementType::kF32 ? HWY_DYNAMIC_DISPATCH(PackedBElementsF32)(p)
                                   : HWY_DYNAMIC_DISPATCH(PackedBElementsF64)(p);
}

void PackWholeB(const GemmProblem& p, ElementType type, void* out) {
  whole_b_packs.fetch_add(1, std::memory_order_relaxed);
  if (type == ElementType::kF32) {
    HWY_DYNAMIC_DISPATCH(PackWholeBF32)(p, out);
  } else {
    HWY_DYNAMIC_DISPATCH(PackWholeBF64)(p, out);
  }
}

size_t PackedAElements(const GemmProblem& p, int64_t entries) {
  if (p.m <= 0 || p.k <= 0 || entries <= 0) return 0;
  return static_cast<size_t>(entries) * HWY_DYNAMIC_DISPATCH(PackedAElementsPerEntry)(p);
}

void PackWholeA(const GemmProblem& p, int64_t entries, ElementType type, void* out) {
  whole_a_packs.fetch_add(1, std::memory_order_relaxed);
  if (type == ElementType::kF32) {
    HWY_DYNAMIC_DISPATCH(PackWholeAF32)(p, entries, out);
  } else {
    HWY_DYNAMIC_DISPATCH(PackWholeAF64)(p, entries, out);
  }
}
uint64_t WholeAPacks() { return whole_a_packs.load(std::memory_order_relaxed); }

size_t GemmPanelWidth(ElementType type) {
  return type == ElementType::kF32 ? HWY_DYNAMIC_DISPATCH(PanelWidthF32)() : HWY_DYNAMIC_DISPATCH(PanelWidthF64)();
}

uint64_t WholeBPacks() { return whole_b_packs.load(std::memory_order_relaxed); }
uint64_t GemvHalfBRuns() { return gemv_half_b_runs.load(std::memory_order_relaxed); }
uint64_t WindowsReadInPlace() { return windows_in_place_products.load(std::memory_order_relaxed); }

bool RunGemvHalfB(const GemmProblem& p, ElementType b_type) {
  if (!HWY_DYNAMIC_DISPATCH(GemvHalfBF32)(p, b_type == ElementType::kBF16)) return false;
  gemv_half_b_runs.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void RunGemm(const GemmProblem& p, ElementType type) {
  if (type == ElementType::kF32) {
    HWY_DYNAMIC_DISPATCH(GemmF32)(p);
  } else {
    HWY_DYNAMIC_DISPATCH(GemmF64)(p);
  }
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE

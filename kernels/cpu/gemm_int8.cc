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
//    the VNNI panels, K padded to 64 (a whole tile step), or to 32 where
//    K is at most 32 (narrow tiles: amx.h NarrowKConfig).
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
//
// Layouts and packing: gemm_int8_packing.h; the x86-64 micro-kernels (VNNI,
// AMX): gemm_int8_x86.h; the arm64 ones (SDOT, I8MM): gemm_int8_arm.h; the
// widening forms for every other target below.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>
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
#include "kernels/cpu/amx.h"
#include "kernels/cpu/gemm_int8_arm.h"
#include "kernels/cpu/gemm_int8_packing.h"
#include "kernels/cpu/gemm_int8_x86.h"

namespace kiln::cpu {
namespace int8 {

inline std::atomic<bool> dot_disabled{false};
inline std::atomic<bool> amx_disabled{false};

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
  if constexpr (!std::is_same_v<Direct, std::nullptr_t>) {
    if (cb == 0 && (!p.a_k_contiguous || np <= 4)) {
      const std::vector<int64_t> koff = QuadOffsets(p);
      if (!koff.empty()) {
        const auto* src = static_cast<const uint8_t*>(p.a);
        // An i8 A is flipped once into a copy of the bytes the tiles read
        // (one pass over the operand, not over its windows), so that the
        // micro-kernel broadcasts its quads straight from memory
        // (TileVnniDirectRows): a 3x3 convolution 56x56x64 -> 64 read 1.3-1.5x
        // faster that way.
        const auto [lo, hi] = a_signed ? DirectExtent(p, koff) : std::pair<int64_t, int64_t>(0, 0);
        ScratchLease<Int8AFlipScratch, uint8_t> flipped(static_cast<size_t>(hi - lo));
        int64_t shift = 0;
        if (a_signed) {
          FlipSignBits(src + lo, hi - lo, flipped.get(), runner);
          src = flipped.get();
          shift = lo;
        }
        ForEachTile(p, l, runner, [&](int64_t b, int64_t ip, int64_t jp, int32_t* c, int64_t ldc) {
          const int64_t i0 = ip * l.mr, j0 = jp * l.nr;
          // Rows past the edge repeat the last row (read, not stored).
          const uint8_t* rows_a[16];
          for (int64_t r = 0; r < l.mr; ++r)
            rows_a[r] = src + (p.a_batch[b] + p.a_m[std::min(i0 + r, p.m - 1)] - shift);
          direct(rows_a, koff.data(), static_cast<int64_t>(koff.size()), bpack + (b * np + jp) * b_panel,
                 colsum + (b * np + jp) * l.nr, ca, c, ldc, std::min(l.mr, p.m - i0), std::min(l.nr, p.n - j0));
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
  auto run_tile = [&](int64_t b, int64_t ip, int64_t jp, int32_t* c, int64_t ldc) {
    const int64_t i0 = ip * l.mr, j0 = jp * l.nr;
    tile(l, apack + (b * mp + ip) * a_panel, bpack + (b * np + jp) * b_panel, p.k, rowcorr + (b * mp + ip) * l.mr,
         colsum + (b * np + jp) * l.nr, ca, c, ldc, std::min(l.mr, p.m - i0), std::min(l.nr, p.n - j0));
  };
#if KILN_AMX
  if (l.form == Form::kAmx) {
    const bool narrow = AmxNarrowK(l, p.k);
    return ForEachTile(p, l, runner, run_tile, [narrow] { amx::Configure(narrow); });
  }
#endif
  ForEachTile(p, l, runner, run_tile);
}

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
  ForEachTile(p, l, runner, [&](int64_t b, int64_t ip, int64_t jp, int32_t* c, int64_t ldc) {
    const int64_t i0 = ip * l.mr, j0 = jp * l.nr, rows = std::min(l.mr, p.m - i0), cols = std::min(l.nr, p.n - j0);
    const int16_t* arows[kPairRows];
    for (int64_t r = 0; r < kPairRows; ++r) arows[r] = a16 + (b * p.m + i0 + std::min(r, rows - 1)) * kpad;
    const uint8_t* bp = bpack + (b * np + jp) * b_panel;
    if (rows <= 2) return TilePairsRows<2>(arows, bp, p.k, c, ldc, rows, cols);
    if (rows <= 4) return TilePairsRows<4>(arows, bp, p.k, c, ldc, rows, cols);
    TilePairsRows<kPairRows>(arows, bp, p.k, c, ldc, rows, cols);
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

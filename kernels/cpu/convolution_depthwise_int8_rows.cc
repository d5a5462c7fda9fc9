// The NHWC int8 depthwise convolution over two spatial dims on AVX-512
// VNNI, read row by row (DepthwiseInt8Rows, convolution_depthwise_int8.h).
//
// vpdpbusd adds four byte products into each dword: to use it, the four
// bytes must be four taps of one feature. The quads form
// (convolution_depthwise_int8.cc) shuffles four taps' input vectors
// together for every output position and quad of taps, and those byte and
// word shuffles bound its speed. Here each input row a window reads is
// shuffled once into an "interleaved row": per output column x, quad q of
// kernel columns and feature c, the dword holds the inputs of kernel
// columns 4q..4q+3 of x's window (a column past the kernel's width holds
// any byte: its weight is 0). One vpdpbusd per kernel row and quad then
// adds a whole row of the window for eight features, the weights laid out
// the same way, and an interleaved row serves every output row whose
// window reads it (kh of them at stride 1) from a ring of rows in the
// thread's scratch. Padding is the fill byte written while interleaving,
// so the input is not padded first.
//
// vpdpbusd multiplies unsigned bytes by signed ones: an i8 input with i8
// weights is read as u8 (x ^ 0x80 = x + 128) and each feature's sum starts
// from -128 x its weight sum; an i8 input with u8 weights takes the
// weights as the unsigned side; u8 x u8 is not taken (DepthwiseInt8RowsApplies).
// Sums wrap in 32 bits, as the reference's do in any order.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "hwy/base.h"
#include "kernels/common/parallel.h"
#include "kernels/cpu/convolution_depthwise_int8.h"
#include "kernels/cpu/requantize.h"
#include "kernels/cpu/thread_scratch.h"

#if HWY_ARCH_X86_64 && defined(__GNUC__)
#include <immintrin.h>
#define KILN_DW8_VNNI __attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512vnni")))
#endif

namespace kiln::cpu {
namespace {

// The weights (a constant kernel's kept by the caller) and this call's
// fill row.
struct RowPlan {
  const DepthwiseRowWeights& w;
  CacheLineVector<uint8_t> fill;  // [padded_features]: the pad byte
};

#if HWY_ARCH_X86_64 && defined(__GNUC__)
// (GCC 12 warns of the undefined upper half inside its own
// _mm512_inserti64x4 in InterleaveVbmi, a false positive.)
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// vpermt2b's indices over [tap 0 | tap 1] and [tap 2 | tap 3] (32 bytes
// each): byte 4 c + b of a result is byte c of tap b, for features 0-15
// and 16-31.
#define KILN_DW8_Q(c) c, 32 + c, 64 + c, 96 + c
alignas(64) constexpr uint8_t kQuadIndex[2][64] = {
    {KILN_DW8_Q(0), KILN_DW8_Q(1), KILN_DW8_Q(2), KILN_DW8_Q(3), KILN_DW8_Q(4), KILN_DW8_Q(5), KILN_DW8_Q(6),
     KILN_DW8_Q(7), KILN_DW8_Q(8), KILN_DW8_Q(9), KILN_DW8_Q(10), KILN_DW8_Q(11), KILN_DW8_Q(12), KILN_DW8_Q(13),
     KILN_DW8_Q(14), KILN_DW8_Q(15)},
    {KILN_DW8_Q(16), KILN_DW8_Q(17), KILN_DW8_Q(18), KILN_DW8_Q(19), KILN_DW8_Q(20), KILN_DW8_Q(21), KILN_DW8_Q(22),
     KILN_DW8_Q(23), KILN_DW8_Q(24), KILN_DW8_Q(25), KILN_DW8_Q(26), KILN_DW8_Q(27), KILN_DW8_Q(28), KILN_DW8_Q(29),
     KILN_DW8_Q(30), KILN_DW8_Q(31)}};
#undef KILN_DW8_Q

// The bytes of taps a and b (the masked ones of 32 features) side by
// side, sign bits flipped by `flip`.
__attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512vbmi"))) inline __m512i TapPair(__m512i flip,
                                                                                          const uint8_t* a,
                                                                                          const uint8_t* b,
                                                                                          __mmask32 m) {
  return _mm512_xor_si512(
      _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_maskz_loadu_epi8(m, a)), _mm256_maskz_loadu_epi8(m, b), 1), flip);
}

// The interleaved form of `count` output columns with AVX-512 VBMI: per
// 32 features, two vpermt2b over the four taps' inputs side by side (the
// last features, fewer than 32, through masked loads and stores); the
// padded features [features, padded) are zeros. Tap b's input starts at
// sources[b] and advances by step[b] a column (0 for the fill), the result
// by d_step bytes.
__attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512vbmi"))) void InterleaveVbmi(
    const uint8_t* const* sources, const int64_t* step, int64_t count, int64_t features, int64_t padded,
    uint8_t flip_byte, uint8_t* d, int64_t d_step) {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(flip_byte));
  const __m512i index0 = _mm512_load_si512(kQuadIndex[0]), index1 = _mm512_load_si512(kQuadIndex[1]);
  const uint8_t* src[4] = {sources[0], sources[1], sources[2], sources[3]};
  const int64_t c32 = features / 32 * 32, rem = features - c32;
  // The last features' loads (rem bytes) and stores (4 rem bytes: the
  // first 16 features' quads, then the rest).
  const __mmask32 load_mask = static_cast<__mmask32>((uint64_t{1} << rem) - 1);
  const __mmask64 store0 = rem >= 16 ? ~__mmask64{0} : static_cast<__mmask64>((uint64_t{1} << (4 * rem)) - 1);
  const __mmask64 store1 = rem <= 16 ? __mmask64{0} : static_cast<__mmask64>((uint64_t{1} << (4 * (rem - 16))) - 1);
  for (int64_t x = 0; x < count; ++x, d += d_step) {
    for (int64_t b = 0; x > 0 && b < 4; ++b) src[b] += step[b];
    for (int64_t c = 0; c < c32; c += 32) {
      uint8_t* out = d + 4 * c;
      const __m512i t01 = TapPair(flip, src[0] + c, src[1] + c, ~__mmask32{0});
      const __m512i t23 = TapPair(flip, src[2] + c, src[3] + c, ~__mmask32{0});
      _mm512_storeu_si512(out, _mm512_permutex2var_epi8(t01, index0, t23));
      _mm512_storeu_si512(out + 64, _mm512_permutex2var_epi8(t01, index1, t23));
    }
    if (rem > 0) {
      uint8_t* out = d + 4 * c32;
      const __m512i t01 = TapPair(flip, src[0] + c32, src[1] + c32, load_mask);
      const __m512i t23 = TapPair(flip, src[2] + c32, src[3] + c32, load_mask);
      _mm512_mask_storeu_epi8(out, store0, _mm512_permutex2var_epi8(t01, index0, t23));
      _mm512_mask_storeu_epi8(out + 64, store1, _mm512_permutex2var_epi8(t01, index1, t23));
    }
    if (padded > features) std::memset(d + 4 * features, 0, static_cast<size_t>(4 * (padded - features)));
  }
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif

inline bool CpuHasVbmi() {
  static const bool has = __builtin_cpu_supports("avx512vbmi");
  return has;
}

// Input row r (of the padded input) of one image, interleaved into dst.
template <bool kVbmi>
KILN_DW8_VNNI void InterleaveRow(const RowPlan& p, const DepthwiseRowGeometry& g, const uint8_t* image, int64_t r,
                                 uint8_t* dst) {
  const int64_t y = r - g.pad_top;
  const bool row_inside = y >= 0 && y < g.in_h;
  const uint8_t* row = row_inside ? image + y * g.in_row_step : nullptr;
  const int64_t c32 = p.w.features / 32 * 32, cp = p.w.padded_features;
  const uint8_t flip_byte = p.w.flip_input ? 0x80 : 0;
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(flip_byte));
  const int64_t x_step = p.w.quads * cp * 4;  // bytes between output columns
  // Quad q's taps at output column x: the pad byte past the row's ends.
  auto sources = [&](int64_t x, int64_t q, const uint8_t** src) {
    for (int b = 0; b < 4; ++b) {
      const int64_t kx = 4 * q + b, col = x * g.stride_x + kx * g.dil_x - g.pad_left;
      src[b] = kx < p.w.kw && row_inside && col >= 0 && col < g.in_w ? row + col * g.in_col_step : p.fill.data();
    }
  };
  // The features past the last whole 32, and the padded ones.
  auto tail = [&](const uint8_t* const* src, uint8_t* d) {
    for (int64_t c = c32; c < p.w.features; ++c)
      for (int b = 0; b < 4; ++b) d[4 * c + b] = src[b][c] ^ flip_byte;
    if (cp > p.w.features) std::memset(d + 4 * p.w.features, 0, static_cast<size_t>(4 * (cp - p.w.features)));
  };
  for (int64_t q = 0; q < p.w.quads; ++q) {
    // [x_lo, x_hi): the columns whose taps of this quad all lie inside the
    // row, one run for the VBMI form.
    int64_t x_lo = 0, x_hi = 0;
    if (kVbmi && row_inside) {
      const int64_t first = 4 * q * g.dil_x - g.pad_left;
      const int64_t last = std::min<int64_t>(4 * q + 3, p.w.kw - 1) * g.dil_x - g.pad_left;
      x_lo = first >= 0 ? 0 : (-first + g.stride_x - 1) / g.stride_x;
      x_hi = g.in_w - last <= 0 ? 0 : std::min(g.out_w, (g.in_w - last + g.stride_x - 1) / g.stride_x);
    }
    for (int64_t x = 0; x < g.out_w; ++x) {
      const uint8_t* src[4];
      sources(x, q, src);
      uint8_t* d = dst + x * x_step + q * cp * 4;
      if constexpr (kVbmi) {
        if (x == x_lo && x_lo < x_hi) {
          int64_t step[4];
          for (int b = 0; b < 4; ++b) step[b] = 4 * q + b < p.w.kw ? g.stride_x * g.in_col_step : 0;
          InterleaveVbmi(src, step, x_hi - x_lo, p.w.features, cp, flip_byte, d, x_step);
          x = x_hi - 1;
          continue;
        }
        InterleaveVbmi(src, nullptr, 1, p.w.features, cp, flip_byte, d, x_step);
        continue;
      }
      for (int64_t c = 0; c < (kVbmi ? 0 : c32); c += 32) {
        __m256i v[4];
        for (int b = 0; b < 4; ++b)
          v[b] = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src[b] + c)), flip);
        // Bytes of taps 0 and 1, 2 and 3 side by side, then the pairs side
        // by side: per 128-bit half h, vector j holds features 16 h + 4 j
        // to 16 h + 4 j + 3.
        const __m256i l01 = _mm256_unpacklo_epi8(v[0], v[1]), h01 = _mm256_unpackhi_epi8(v[0], v[1]);
        const __m256i l23 = _mm256_unpacklo_epi8(v[2], v[3]), h23 = _mm256_unpackhi_epi8(v[2], v[3]);
        const __m256i q0 = _mm256_unpacklo_epi16(l01, l23), q1 = _mm256_unpackhi_epi16(l01, l23);
        const __m256i q2 = _mm256_unpacklo_epi16(h01, h23), q3 = _mm256_unpackhi_epi16(h01, h23);
        // In feature order: 0-7, 8-15, 16-23, 24-31.
        auto* out = reinterpret_cast<__m256i*>(d + 4 * c);
        _mm256_storeu_si256(out, _mm256_permute2x128_si256(q0, q1, 0x20));
        _mm256_storeu_si256(out + 1, _mm256_permute2x128_si256(q2, q3, 0x20));
        _mm256_storeu_si256(out + 2, _mm256_permute2x128_si256(q0, q1, 0x31));
        _mm256_storeu_si256(out + 3, _mm256_permute2x128_si256(q2, q3, 0x31));
      }
      tail(src, d);
    }
  }
}

template <bool kWeightsUnsigned>
KILN_DW8_VNNI inline __m256i Dot(__m256i acc, __m256i x, __m256i w) {
  return kWeightsUnsigned ? _mm256_dpbusd_epi32(acc, w, x) : _mm256_dpbusd_epi32(acc, x, w);
}
template <bool kWeightsUnsigned>
KILN_DW8_VNNI inline __m512i Dot(__m512i acc, __m512i x, __m512i w) {
  return kWeightsUnsigned ? _mm512_dpbusd_epi32(acc, w, x) : _mm512_dpbusd_epi32(acc, x, w);
}

// One output row: out[x * out_col_step + c] for x < out_w, from the
// interleaved rows rows[ky]. KQ: kh x quads where it is known at compile
// time (3 for 3x3 kernels: the block's 6 weight vectors stay in
// registers), else 0. 32 features (two vectors of 16 quads) at a time,
// then the rest 8 at a time.
template <int KQ, bool kWeightsUnsigned>
KILN_DW8_VNNI void RowProduct(const RowPlan& p, const uint8_t* const* rows, int64_t out_w, int32_t* out,
                              int64_t out_col_step) {
  const int64_t cp = p.w.padded_features, c32 = p.w.features / 32 * 32, x_step = p.w.quads * cp * 4;
  auto row_of = [&](int64_t kq) { return rows[kq / p.w.quads] + (kq % p.w.quads) * cp * 4; };
  auto weights_of = [&](int64_t kq) { return p.w.weights.data() + kq * cp * 4; };
  for (int64_t c = 0; c < c32; c += 32) {
    constexpr int kKeep = KQ != 0 ? KQ : 1;
    __m512i w[kKeep][2];
    if constexpr (KQ != 0)
      for (int kq = 0; kq < KQ; ++kq)
        for (int j = 0; j < 2; ++j) w[kq][j] = _mm512_loadu_si512(weights_of(kq) + 4 * c + 64 * j);
    const int32_t* start = p.w.start.data() + c;
    // Where each kernel row and quad of the window starts (no division per
    // output column).
    const uint8_t* window[kKeep];
    if constexpr (KQ != 0)
      for (int kq = 0; kq < KQ; ++kq) window[kq] = row_of(kq) + 4 * c;
    for (int64_t x = 0; x < out_w; ++x) {
      __m512i acc[2] = {_mm512_loadu_si512(start), _mm512_loadu_si512(start + 16)};
      if constexpr (KQ != 0) {
        for (int kq = 0; kq < KQ; ++kq)
          for (int j = 0; j < 2; ++j)
            acc[j] = Dot<kWeightsUnsigned>(acc[j], _mm512_loadu_si512(window[kq] + x * x_step + 64 * j), w[kq][j]);
      } else {
        for (int64_t ky = 0, kq = 0; ky < p.w.kh; ++ky)
          for (int64_t q = 0; q < p.w.quads; ++q, ++kq) {
            const uint8_t* in = rows[ky] + q * cp * 4 + x * x_step + 4 * c;
            for (int j = 0; j < 2; ++j)
              acc[j] = Dot<kWeightsUnsigned>(acc[j], _mm512_loadu_si512(in + 64 * j),
                                             _mm512_loadu_si512(weights_of(kq) + 4 * c + 64 * j));
          }
      }
      int32_t* o = out + x * out_col_step + c;
      _mm512_storeu_si512(o, acc[0]);
      _mm512_storeu_si512(o + 16, acc[1]);
    }
  }
  // The last features, eight at a time (the padded ones have zero weights).
  for (int64_t c = c32; c < cp; c += 8) {
    for (int64_t x = 0; x < out_w; ++x) {
      __m256i acc = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.w.start.data() + c));
      for (int64_t ky = 0, kq = 0; ky < p.w.kh; ++ky)
        for (int64_t q = 0; q < p.w.quads; ++q, ++kq)
          acc = Dot<kWeightsUnsigned>(
              acc, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[ky] + q * cp * 4 + x * x_step + 4 * c)),
              _mm256_loadu_si256(reinterpret_cast<const __m256i*>(weights_of(kq) + 4 * c)));
      int32_t* o = out + x * out_col_step + c;
      if (c + 8 <= p.w.features) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(o), acc);
      } else {
        alignas(32) int32_t tail[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(tail), acc);
        std::memcpy(o, tail, static_cast<size_t>(p.w.features - c) * sizeof(int32_t));
      }
    }
  }
}

void RunRowProduct(const RowPlan& p, const uint8_t* const* rows, int64_t out_w, int32_t* out, int64_t out_col_step) {
  const bool three = p.w.kh * p.w.quads == 3;
  if (p.w.weights_unsigned_side) {
    three ? RowProduct<3, true>(p, rows, out_w, out, out_col_step) : RowProduct<0, true>(p, rows, out_w, out, out_col_step);
  } else {
    three ? RowProduct<3, false>(p, rows, out_w, out, out_col_step)
          : RowProduct<0, false>(p, rows, out_w, out, out_col_step);
  }
}
#endif

std::atomic<bool> vbmi_disabled{false};

struct DepthwiseRowsRingScratch;
struct DepthwiseRowsResultScratch;

}  // namespace

void SetDepthwiseRowsVbmiDisabledForTest(bool disabled) { vbmi_disabled.store(disabled); }

DepthwiseRowWeights DepthwiseInt8RowWeights(const DepthwiseInt8Args& a, const DepthwiseRowGeometry& g) {
  DepthwiseRowWeights p;
  p.features = a.features;
  p.padded_features = (a.features + 7) / 8 * 8;
  p.kh = g.kh, p.kw = g.kw, p.quads = (g.kw + 3) / 4;
  p.weights_unsigned_side = a.input_signed && !a.weights_signed;
  p.flip_input = a.input_signed && a.weights_signed;
  const int64_t cp = p.padded_features;
  p.weights.assign(static_cast<size_t>(p.kh * p.quads * cp * 4), 0);
  p.start.assign(static_cast<size_t>(cp), 0);
  for (int64_t ky = 0; ky < p.kh; ++ky)
    for (int64_t kx = 0; kx < p.kw; ++kx) {
      const int64_t q = kx / 4, b = kx % 4;
      const uint8_t* w = a.weights + a.weight_tap_offsets[ky * p.kw + kx];
      uint8_t* dst = p.weights.data() + ((ky * p.quads + q) * cp) * 4 + b;
      for (int64_t c = 0; c < p.features; ++c) {
        const uint8_t v = w[c * a.weight_feature_step];
        dst[4 * c] = v;
        if (p.flip_input)
          p.start[static_cast<size_t>(c)] = static_cast<int32_t>(static_cast<uint32_t>(p.start[static_cast<size_t>(c)]) -
                                                                 128u * static_cast<uint32_t>(static_cast<int8_t>(v)));
      }
    }
  return p;
}

void DepthwiseInt8Rows(const DepthwiseInt8Args& a, const DepthwiseRowGeometry& g, const DepthwiseRowWeights& w,
                       TaskRunner* runner) {
#if HWY_ARCH_X86_64 && defined(__GNUC__)
  const RowPlan p{w, CacheLineVector<uint8_t>(static_cast<size_t>(w.padded_features), g.pad_byte)};
  // One interleaved row: [out_w][quads][padded_features][4] bytes; the
  // ring holds the rows one window spans.
  const int64_t row_bytes = g.out_w * w.quads * w.padded_features * 4, ring_rows = (g.kh - 1) * g.dil_y + 1;
  // Tasks of up to 8 output rows of one image: each starts its ring empty,
  // so a task re-reads the kh - 1 rows its first window shares with the
  // task before.
  const int64_t row_tasks = std::max<int64_t>(1, (g.out_h + 7) / 8);
  const int64_t rows_per_task = (g.out_h + row_tasks - 1) / row_tasks;
  const int64_t tasks = g.batch * row_tasks;
  const auto* input = static_cast<const uint8_t*>(a.input);
  const bool vbmi = CpuHasVbmi() && !vbmi_disabled.load(std::memory_order_relaxed);
  const int64_t work = g.batch * g.out_h * g.out_w * p.w.kh * p.w.kw * p.w.features;
  ParallelFor(work >= (1 << 16) ? runner : nullptr, tasks, [&](int64_t task, int) {
    const int64_t b = task / row_tasks, y0 = task % row_tasks * rows_per_task;
    const int64_t y1 = std::min(g.out_h, y0 + rows_per_task);
    const uint8_t* image = input + b * g.in_batch_step;
    ScratchLease<DepthwiseRowsRingScratch, uint8_t> ring(static_cast<size_t>(ring_rows * row_bytes));
    ScratchLease<DepthwiseRowsResultScratch, int32_t> result(
        a.requantize != nullptr ? static_cast<size_t>(g.out_w * a.features) : 0);
    // The input row each slot holds (-1: none yet).
    int64_t held_inline[16];
    std::vector<int64_t> held_heap(ring_rows > 16 ? static_cast<size_t>(ring_rows) : 0);
    int64_t* held = ring_rows > 16 ? held_heap.data() : held_inline;
    std::fill(held, held + ring_rows, int64_t{-1});
    const uint8_t* rows[64];  // kh <= 64: DepthwiseInt8RowsApplies
    for (int64_t y = y0; y < y1; ++y) {
      for (int64_t ky = 0; ky < p.w.kh; ++ky) {
        const int64_t r = y * g.stride_y + ky * g.dil_y, slot = r % ring_rows;
        uint8_t* slot_row = ring.get() + slot * row_bytes;
        if (held[slot] != r) {
          if (vbmi) {
            InterleaveRow<true>(p, g, image, r, slot_row);
          } else {
            InterleaveRow<false>(p, g, image, r, slot_row);
          }
          held[slot] = r;
        }
        rows[ky] = slot_row;
      }
      const int64_t first = b * g.out_batch_step + y * g.out_row_step;
      if (a.requantize == nullptr) {
        RunRowProduct(p, rows, g.out_w, a.output + first, g.out_col_step);
      } else {
        RunRowProduct(p, rows, g.out_w, result.get(), a.features);
        a.requantize->Run(result.get(), first, first + g.out_w * a.features, a.requantized_out + first, a.q_bound);
      }
    }
  });
#else
  (void)a, (void)g, (void)w, (void)runner;
#endif
}

}  // namespace kiln::cpu

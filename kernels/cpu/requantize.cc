// Fast stablehlo.uniform_quantize of an i32 quantized operand into 8-bit
// storage (requantize, expressed type f32): the step after the int8 GEMM's
// i32 accumulation (kernels/cpu/gemm_int8.h). The arithmetic is the
// reference's (kernels/reference/elementwise_quantization.cc), step for
// step in f32, so the stored integers are bit-identical:
//   x = f32(q - zp_in) * s_in;  y = x / s_out + f32(zp_out)
//   clamp to the storage range (in f32), round to nearest even, store.
// Each f32 step here is one IEEE operation, which the reference's
// double-then-round evaluation of the same operation equals. Other operand
// or result types, and a per-call shape the attributes do not fit, go to
// the reference.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/requantize.cc"
#include "kernels/cpu/hwy_targets.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#ifndef KILN_CPU_REQUANTIZE_SHARED
#define KILN_CPU_REQUANTIZE_SHARED
#include "kernels/common/kernel_state.h"
#include "kernels/common/parallel.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cpu/requantize.h"
#include "kernels/cpu/thread_scratch.h"
#include "kernels/reference/epilogue.h"

namespace kiln::cpu {
namespace requant {

// A run of requantized elements: q[0, len) into out (i8 when is_signed,
// else ui8). With lanes == false one scale and zero point for the run;
// with lanes == true the run is part of rows of `row` elements whose
// parameters are laid out per lane (s_in[j], s_out[j], z_out[j], z_in[j]
// for j in [0, row)), and q[0] is lane j0 of its row. z_in null: the
// operand's zero point is 0.
struct Run {
  const int32_t* q = nullptr;
  int64_t len = 0;
  const int32_t* z_in = nullptr;
  const float* s_in = nullptr;
  const float* s_out = nullptr;
  const float* z_out = nullptr;
  bool lanes = false;
  int64_t row = 0, j0 = 0;
  // The caller knows no lane's result can be NaN (finite parameters whose
  // quotient cannot overflow), or no q - z_in can leave the i32 range
  // (accumulators bounded by their depth): the checks are left out.
  bool no_nan = false, no_overflow = false;
  // With both: |x / s_out + z_out| < 2^30 for every lane, so the quotient
  // rounds to an i32 without overflow and the clamp can follow the
  // rounding, in integers (the same result: the bounds are integers and
  // rounding is monotonic).
  bool small = false;
  // With small, on AVX-512: 1 / s_out per lane (rounded to nearest), for
  // the quotient by Markstein's correction instead of a division, or null.
  // q0 = x * r is within an ulp of x / s_out; e = x - q0 * s_out is exact
  // (an FMA); q0 + e * r (an FMA) is then x / s_out correctly rounded
  // (P. Markstein, "IA-64 and Elementary Functions", theorem 8.10), given
  // no overflow or underflow, which the scales' range guarantees
  // (Requantizer::Init). A division of 16 lanes takes about 10 cycles on
  // Intel's cores and was the requantize's bound; the two FMAs take one.
  const float* r_out = nullptr;
  float lo = 0, hi = 0;
  bool is_signed = true;
  void* out = nullptr;
};

// One element: dequantize, quantize, clamp, round to nearest even. After the
// clamp |v| <= 255, where adding and subtracting 1.5 * 2^23 rounds to an
// integer in the current (nearest-even) mode: no libm call, so it vectorises.
// The vector loops' lanes compute the same steps.
inline float Step(float diff, float s_in, float s_out, float z_out, float lo, float hi) {
  const float x = diff * s_in;
  const float y = x / s_out;
  float v = y + z_out;
  if (v != v) v = 0;  // as the reference: NaN quantizes to 0
  v = std::min(std::max(v, lo), hi);
  constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23
  return (v + kMagic) - kMagic;
}

}  // namespace requant
}  // namespace kiln::cpu
#endif  // KILN_CPU_REQUANTIZE_SHARED

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Step (below) on vectors: the same IEEE operations lane by lane, then the
// integral, in-range result narrowed to 8 bits. The flags are template
// parameters so that the loop carries no test it does not need.
//
// `rows` runs of `len` elements, each q_stride accumulators and out_stride
// results after the one before, all starting at lane j of their rows (so
// they read the same lanes' parameters): the setup below is paid once for
// all of them. A tile's rows of 192 features took about 70 cycles of setup
// each beside 12 vectors of work when every row was its own call.
template <bool kLanes, bool kZ, bool kCheckOverflow, bool kCheckNaN, bool kSigned, bool kSmall = false>
void RequantizeSpan(const requant::Run& r, int64_t i0, int64_t len, int64_t j, int64_t rows = 1,
                    int64_t q_stride = 0, int64_t out_stride = 0) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<int32_t, decltype(df)> di;
  const hn::Rebind<int8_t, decltype(df)> d8;
  const hn::Rebind<uint8_t, decltype(df)> du8;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  const auto lo = hn::Set(df, r.lo), hi = hn::Set(df, r.hi), zero = hn::Zero(df);
  // The current row's accumulators and results (the lambdas below read them).
  const int32_t* q = r.q + i0;
  auto* o8 = static_cast<int8_t*>(r.out) + i0;
  const int64_t k0 = kLanes ? j : 0;
  // One element as the reference computes it (q - zp exact in 64 bits).
  auto scalar = [&](int64_t k) {
    const int64_t p = kLanes ? k0 + k : 0;
    const int64_t z = kZ ? r.z_in[p] : 0;
    const float v = requant::Step(static_cast<float>(static_cast<int64_t>(q[k]) - z), r.s_in[p], r.s_out[p],
                                  r.z_out[p], r.lo, r.hi);
    if (kSigned) {
      o8[k] = static_cast<int8_t>(v);
    } else {
      reinterpret_cast<uint8_t*>(o8)[k] = static_cast<uint8_t>(v);
    }
  };
  // Locals: stores through the 8-bit output may alias anything they could
  // otherwise be reloaded from.
  const float* const s_in_p = r.s_in + k0;
  const float* const s_out_p = r.s_out + k0;
  const float* const z_out_p = r.z_out + k0;
  [[maybe_unused]] const float* const r_out_p = r.r_out != nullptr ? r.r_out + k0 : nullptr;
  const int32_t* const z_in_p = kZ ? r.z_in + k0 : nullptr;
  const auto s_in1 = hn::Set(df, r.s_in[0]), s_out1 = hn::Set(df, r.s_out[0]), z_out1 = hn::Set(df, r.z_out[0]);
  const auto z1 = hn::Set(di, kZ ? r.z_in[0] : 0);
  // Rounding: adding 1.5 * 2^23 to |v| <= 255 rounds it to an integer in the
  // current mode (to nearest even, as the reference's nearbyint), which
  // the low bits of the sum then hold: the sum's bits less the magic's are
  // the rounded integer.
  const auto magic = hn::Set(df, 12582912.0f);
  const auto magic_bits = hn::Set(di, 0x4B400000);
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  const __m128i lo8 = _mm_set1_epi8(static_cast<char>(static_cast<int>(r.lo)));
  const __m128i hi8 = _mm_set1_epi8(static_cast<char>(static_cast<int>(r.hi)));
  [[maybe_unused]] const __m512i lo64 = _mm512_broadcast_i32x4(lo8), hi64 = _mm512_broadcast_i32x4(hi8);
  [[maybe_unused]] const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
#endif
  // x / s_out from x times its reciprocal rr, corrected by two FMAs
  // (correctly rounded where Run::r_out is set).
  [[maybe_unused]] auto by_reciprocal_of = [](auto x, auto s_out, auto rr) {
    const auto q0 = hn::Mul(x, rr);
    return hn::MulAdd(hn::NegMulAdd(q0, s_out, x), rr, q0);
  };
  // x / s_out of lanes [k, k + N): correctly rounded either way (Run::r_out).
  [[maybe_unused]] auto quotient = [&](auto x, int64_t k, auto by_reciprocal) {
    const auto s_out = kLanes ? hn::LoadU(df, s_out_p + k) : s_out1;
    if constexpr (decltype(by_reciprocal)::value) {
      return by_reciprocal_of(x, s_out, kLanes ? hn::LoadU(df, r_out_p + k) : hn::Set(df, r.r_out[0]));
    } else {
      return hn::Div(x, s_out);
    }
  };
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  // Four vectors of rounded quotients (i32) narrowed together by two
  // saturating packs (i32 to i16 to i8 or u8: the same as narrowing each
  // directly), clamped as bytes once, and put back in element order by one
  // dword permutation (the packs interleave their operands per 128-bit
  // block), then stored at dst: about a third fewer vector operations than
  // one vector at a time.
  [[maybe_unused]] auto store_four = [lo64, hi64, order](__m512i v0, __m512i v1, __m512i v2, __m512i v3,
                                                          int8_t* dst) {
    const __m512i w01 = _mm512_packs_epi32(v0, v1), w23 = _mm512_packs_epi32(v2, v3);
    __m512i b;
    if constexpr (kSigned) {
      b = _mm512_min_epi8(_mm512_max_epi8(_mm512_packs_epi16(w01, w23), lo64), hi64);
    } else {
      b = _mm512_min_epu8(_mm512_max_epu8(_mm512_packus_epi16(w01, w23), lo64), hi64);
    }
    _mm512_storeu_si512(dst, _mm512_permutexvar_epi32(order, b));
  };
#endif
  // One row: whole groups of four vectors (AVX-512, small results), then
  // single vectors, then the scalar tail.
  auto row = [&](auto by_reciprocal, int64_t start) {
    int64_t i = start;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (kSmall && !kCheckOverflow && !kCheckNaN) {
      // Four vectors at a time (store_four).
      auto rounded = [&](int64_t k) {
        auto d = hn::LoadU(di, q + k);
        if constexpr (kZ) d = hn::Sub(d, kLanes ? hn::LoadU(di, z_in_p + k) : z1);
        const auto s_in = kLanes ? hn::LoadU(df, s_in_p + k) : s_in1;
        const auto z_out = kLanes ? hn::LoadU(df, z_out_p + k) : z_out1;
        const auto x = hn::Mul(hn::ConvertTo(df, d), s_in);
        return _mm512_cvtps_epi32(hn::Add(quotient(x, k, by_reciprocal), z_out).raw);
      };
      for (; i + 4 * N <= len; i += 4 * N)
        store_four(rounded(i), rounded(i + N), rounded(i + 2 * N), rounded(i + 3 * N), o8 + i);
    }
#endif
    for (; i + N <= len; i += N) {
      auto d = hn::LoadU(di, q + i);
      if constexpr (kZ) {
        // q - zp in 32 bits: exact unless it overflows (then the lanes go
        // one by one).
        const auto z = kLanes ? hn::LoadU(di, z_in_p + i) : z1;
        const auto diff = hn::Sub(d, z);
        if constexpr (kCheckOverflow) {
          if (!hn::AllFalse(di, hn::Lt(hn::And(hn::Xor(d, z), hn::Xor(d, diff)), hn::Zero(di)))) {
            for (int64_t k = i; k < i + N; ++k) scalar(k);
            continue;
          }
        }
        d = diff;
      }
      const auto s_in = kLanes ? hn::LoadU(df, s_in_p + i) : s_in1;
      const auto z_out = kLanes ? hn::LoadU(df, z_out_p + i) : z_out1;
      const auto x = hn::Mul(hn::ConvertTo(df, d), s_in);
      auto v = hn::Add(quotient(x, i, by_reciprocal), z_out);
      if constexpr (kCheckNaN) v = hn::IfThenElse(hn::Eq(v, v), v, zero);  // NaN quantizes to 0
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
      if constexpr (kSmall) {
        // Rounded in the current mode (vcvtps2dq, as nearbyint), narrowed
        // with saturation, then clamped as bytes: three vector steps fewer.
        const __m512i n = _mm512_cvtps_epi32(v.raw);
        __m128i b;
        if constexpr (kSigned) {
          b = _mm_min_epi8(_mm_max_epi8(_mm512_cvtsepi32_epi8(n), lo8), hi8);
        } else {
          b = _mm_min_epu8(_mm_max_epu8(_mm512_cvtusepi32_epi8(_mm512_max_epi32(n, _mm512_setzero_si512())), lo8),
                           hi8);
        }
        _mm_storeu_si128(reinterpret_cast<__m128i*>(o8 + i), b);
        continue;
      }
#endif
      v = hn::Min(hn::Max(v, lo), hi);
      const auto n = hn::Sub(hn::BitCast(di, hn::Add(v, magic)), magic_bits);
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
      // In range for either 8-bit type: the low byte of each lane (vpmovdb).
      hn::StoreU(hn::Vec128<uint8_t>{_mm512_cvtepi32_epi8(n.raw)}, hn::Full128<uint8_t>(),
                 reinterpret_cast<uint8_t*>(o8 + i));
#else
      if constexpr (kSigned) {
        hn::StoreU(hn::DemoteTo(d8, n), d8, o8 + i);
      } else {
        hn::StoreU(hn::DemoteTo(du8, n), du8, reinterpret_cast<uint8_t*>(o8) + i);
      }
#endif
    }
    for (; i < len; ++i) scalar(i);
  };
  // The reciprocal form only where its FMAs are exact (AVX-512, small
  // results), chosen once for every row.
  auto all_rows = [&](auto by_reciprocal, int64_t start) {
    for (int64_t t = 0; t < rows; ++t) {
      q = r.q + i0 + t * q_stride;
      o8 = static_cast<int8_t*>(r.out) + i0 + t * out_stride;
      row(by_reciprocal, start);
    }
  };
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kLanes && kSmall && !kCheckOverflow && !kCheckNaN) {
    if (r_out_p != nullptr && rows > 1) {
      // Several rows of the same lanes (a tile): column group by column
      // group of four vectors, each group's parameters loaded once into
      // registers (20 of the 32) and used down every row. Row by row, each
      // vector also loaded its five parameters: 6 loads beside 8
      // arithmetic steps, and the loads set the pace.
      int64_t i = 0;
      for (; i + 4 * N <= len; i += 4 * N) {
        hn::Vec<decltype(df)> s_in[4], s_out[4], rr[4], z_out[4];
        hn::Vec<decltype(di)> z[4];
        for (int u = 0; u < 4; ++u) {
          const int64_t k = i + u * N;
          s_in[u] = hn::LoadU(df, s_in_p + k), s_out[u] = hn::LoadU(df, s_out_p + k);
          rr[u] = hn::LoadU(df, r_out_p + k), z_out[u] = hn::LoadU(df, z_out_p + k);
          z[u] = kZ ? hn::LoadU(di, z_in_p + k) : hn::Zero(di);
        }
        for (int64_t t = 0; t < rows; ++t) {
          const int32_t* qt = r.q + i0 + t * q_stride + i;
          auto rounded = [&](int u) {
            auto d = hn::LoadU(di, qt + u * N);
            if constexpr (kZ) d = hn::Sub(d, z[u]);
            const auto x = hn::Mul(hn::ConvertTo(df, d), s_in[u]);
            return _mm512_cvtps_epi32(hn::Add(by_reciprocal_of(x, s_out[u], rr[u]), z_out[u]).raw);
          };
          store_four(rounded(0), rounded(1), rounded(2), rounded(3),
                     static_cast<int8_t*>(r.out) + i0 + t * out_stride + i);
        }
      }
      if (i < len) all_rows(std::true_type{}, i);  // the columns left, row by row
      return;
    }
  }
  if (kSmall && r_out_p != nullptr) return all_rows(std::true_type{}, 0);
#endif
  all_rows(std::false_type{}, 0);
}

template <bool kLanes, bool kZ, bool kCheckOverflow, bool kCheckNaN, bool kSigned, bool kSmall = false>
void RequantizeRows(const requant::Run& r) {
  if (!kLanes) {
    RequantizeSpan<kLanes, kZ, kCheckOverflow, kCheckNaN, kSigned, kSmall>(r, 0, r.len, 0);
    return;
  }
  // Segments that end at row ends, each reading its lanes' parameters; the
  // whole rows between the first and the last segment in one call.
  for (int64_t i = 0, j = r.j0; i < r.len; j = 0) {
    if (j == 0 && r.len - i >= 2 * r.row) {
      const int64_t whole = (r.len - i) / r.row;
      RequantizeSpan<kLanes, kZ, kCheckOverflow, kCheckNaN, kSigned, kSmall>(r, i, r.row, 0, whole, r.row, r.row);
      i += whole * r.row;
      continue;
    }
    const int64_t seg = std::min(r.len - i, r.row - j);
    RequantizeSpan<kLanes, kZ, kCheckOverflow, kCheckNaN, kSigned, kSmall>(r, i, seg, j);
    i += seg;
  }
}

// `rows` runs: the first `run`, each next one q_stride accumulators and
// row_step elements of the result further on.
template <bool kLanes, bool kZ, bool kCheckOverflow, bool kCheckNaN, bool kSigned, bool kSmall = false>
void RequantizeTile(const requant::Run& first, int64_t rows, int64_t q_stride, int64_t row_step) {
  if (kLanes && rows > 1 && row_step % first.row == 0 && first.j0 + first.len <= first.row) {
    // Every run within one row of the lanes, at the same lanes: one call.
    RequantizeSpan<kLanes, kZ, kCheckOverflow, kCheckNaN, kSigned, kSmall>(first, 0, first.len, first.j0, rows,
                                                                           q_stride, row_step);
    return;
  }
  requant::Run r = first;
  for (int64_t i = 0; i < rows; ++i) {
    if (i > 0) {
      r.q += q_stride;
      r.out = static_cast<uint8_t*>(r.out) + row_step;
      if (kLanes) r.j0 = (r.j0 + row_step) % r.row;
    }
    RequantizeRows<kLanes, kZ, kCheckOverflow, kCheckNaN, kSigned, kSmall>(r);
  }
}

// The loop for a run's flags: the common forms get their own loops, the
// rest run with every check.
template <bool kLanes, bool kSigned>
void RequantizeTileOf(const requant::Run& r, int64_t rows, int64_t q_stride, int64_t row_step) {
  const bool z = r.z_in != nullptr, checked = !r.no_overflow || !r.no_nan;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if (kLanes && r.small && r.no_nan && r.no_overflow) {
    return z ? RequantizeTile<kLanes, true, false, false, kSigned, true>(r, rows, q_stride, row_step)
             : RequantizeTile<kLanes, false, false, false, kSigned, true>(r, rows, q_stride, row_step);
  }
#endif
  if (!kLanes) {
    return z ? RequantizeTile<kLanes, true, true, true, kSigned>(r, rows, q_stride, row_step)
             : RequantizeTile<kLanes, false, false, true, kSigned>(r, rows, q_stride, row_step);
  }
  if (!z) {
    return r.no_nan ? RequantizeTile<kLanes, false, false, false, kSigned>(r, rows, q_stride, row_step)
                    : RequantizeTile<kLanes, false, false, true, kSigned>(r, rows, q_stride, row_step);
  }
  return checked ? RequantizeTile<kLanes, true, true, true, kSigned>(r, rows, q_stride, row_step)
                 : RequantizeTile<kLanes, true, false, false, kSigned>(r, rows, q_stride, row_step);
}

void RequantizeTileT(const requant::Run& run, int64_t rows, int64_t q_stride, int64_t row_step) {
  const requant::Run r = run;  // a local copy: stores to `out` cannot alias it
  if (r.lanes) {
    return r.is_signed ? RequantizeTileOf<true, true>(r, rows, q_stride, row_step)
                       : RequantizeTileOf<true, false>(r, rows, q_stride, row_step);
  }
  return r.is_signed ? RequantizeTileOf<false, true>(r, rows, q_stride, row_step)
                     : RequantizeTileOf<false, false>(r, rows, q_stride, row_step);
}

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {
namespace {

HWY_EXPORT(RequantizeTileT);

inline bool FitsI32(int64_t z) { return z >= INT32_MIN && z <= INT32_MAX; }

constexpr int64_t kChunk = 1 << 15;

}  // namespace

// The parameters under `prefix` for a tensor of `dims`, or false when the
// reference must run (it reports malformed attributes).
bool Requantizer::ReadSide(const KernelParams& p, const std::string& prefix, std::span<const int64_t> dims, Side* s) {
  const KernelAttr* sc = p.Find(prefix + "scales");
  if (sc == nullptr || sc->floats.empty()) return false;
  for (double v : sc->floats) s->scales.push_back(static_cast<float>(v));
  auto zp = p.Ints(prefix + "zero_points");
  s->zero_points_int.assign(zp.begin(), zp.end());
  if (s->zero_points_int.empty()) s->zero_points_int.assign(s->scales.size(), 0);
  if (s->zero_points_int.size() != s->scales.size()) return false;
  for (int64_t z : s->zero_points_int) s->zero_points.push_back(static_cast<float>(z));
  const int64_t axis = p.Int(prefix + "quantized_dimension", -1);
  if (axis >= 0) {
    if (axis >= static_cast<int64_t>(dims.size())) return false;
    s->per_axis = true;
    s->axis_size = dims[axis];
    for (size_t d = static_cast<size_t>(axis) + 1; d < dims.size(); ++d) s->inner *= dims[d];
    if (static_cast<int64_t>(s->scales.size()) != s->axis_size) return false;
  } else if (s->scales.size() != 1) {
    return false;
  }
  return true;
}

bool Requantizer::Init(const KernelParams& p, std::string_view operand_prefix, std::span<const int64_t> dims,
                       ElementType in, ElementType out) {
  const std::string_view e = p.Str("expressed_type");
  if (in != ElementType::kSI32 || (out != ElementType::kSI8 && out != ElementType::kUI8) || !(e.empty() || e == "f32"))
    return false;
  src_ = Side{}, dst_ = Side{};
  if (!ReadSide(p, std::string(operand_prefix), dims, &src_) || !ReadSide(p, "", dims, &dst_)) return false;
  is_signed_ = out == ElementType::kSI8;
  const int64_t type_lo = is_signed_ ? -128 : 0, type_hi = is_signed_ ? 127 : 255;
  const int64_t lo = p.Int("storage_min", type_lo), hi = p.Int("storage_max", type_hi);
  if (lo > hi || lo < type_lo || hi > type_hi) return false;
  lo_ = static_cast<float>(lo), hi_ = static_cast<float>(hi);
  // No NaN can arise where every scale and zero point is finite, the
  // result scales nonzero, and |q - z| < 2^33 times the largest operand
  // scale over the smallest result scale stays far below FLT_MAX: then
  // x, x / s_out and the sum with z_out are finite (or an infinity the
  // clamp takes), never NaN.
  {
    float max_in = 0, min_out = INFINITY;
    bool finite = true;
    for (float v : src_.scales) finite = finite && std::isfinite(v), max_in = std::max(max_in, std::fabs(v));
    for (float v : dst_.scales) finite = finite && std::isfinite(v) && v != 0, min_out = std::min(min_out, std::fabs(v));
    for (float v : dst_.zero_points) finite = finite && std::isfinite(v);
    no_nan_ = finite && static_cast<double>(max_in) * 0x1p33 / static_cast<double>(min_out) < 0x1p120;
  }
  // Per-axis along the innermost axis (a channel-last convolution's or a
  // dense layer's per-feature scales): each run would be one element, so
  // the parameters are laid out per lane of a row instead, and the loop over
  // a row's elements reads them side by side (and vectorises).
  row_ = src_.per_axis ? src_.axis_size : dst_.axis_size;
  rows_ = (src_.per_axis || dst_.per_axis) && (!src_.per_axis || src_.inner == 1) &&
          (!dst_.per_axis || dst_.inner == 1) && (!src_.per_axis || !dst_.per_axis || src_.axis_size == dst_.axis_size) &&
          row_ > 0 && std::all_of(src_.zero_points_int.begin(), src_.zero_points_int.end(), FitsI32);
  if (rows_) {
    s_in_.resize(static_cast<size_t>(row_)), s_out_.resize(s_in_.size()), z_out_.resize(s_in_.size());
    z_in_.resize(s_in_.size());
    for (int64_t j = 0; j < row_; ++j) {
      const size_t ks = src_.per_axis ? static_cast<size_t>(j) : 0, kd = dst_.per_axis ? static_cast<size_t>(j) : 0;
      s_in_[j] = src_.scales[ks], s_out_[j] = dst_.scales[kd], z_out_[j] = dst_.zero_points[kd];
      z_in_[j] = static_cast<int32_t>(src_.zero_points_int[ks]);
    }
    // The operand's zero points: 0 (the integer form's accumulators), or
    // the zero-point correction folded into them (FoldZeroPointCorrections
    // in compiler/passes/quantized_integer_contraction.h).
    z_in_zero_ = std::all_of(z_in_.begin(), z_in_.end(), [](int32_t z) { return z == 0; });
    max_z_in_ = 0;
    for (int32_t z : z_in_) max_z_in_ = std::max<int64_t>(max_z_in_, z < 0 ? -int64_t{z} : z);
    // The largest |s_in / s_out| and |z_out| of the rows, for Run's bound
    // on the quotient (with room for the roundings of x and x / s_out).
    max_ratio_ = 0, max_z_out_ = 0;
    for (size_t k = 0; k < s_in_.size(); ++k) {
      max_ratio_ = std::max(max_ratio_, std::fabs(static_cast<double>(s_in_[k]) / static_cast<double>(s_out_[k])));
      max_z_out_ = std::max(max_z_out_, std::fabs(static_cast<double>(z_out_[k])));
    }
    max_ratio_ *= 1.001;
    // The reciprocals of the result's scales (Run::r_out), where every
    // scale keeps Markstein's steps clear of underflow and overflow: s_in
    // in [2^-60, 2^20] (x = q * s_in is 0 or at least 2^-60 and, with |q|
    // < 2^31, below 2^51) and s_out in [2^-60, 2^60] (1 / s_out normal, the
    // quotient 0 or at least 2^-120, a normal float).
    r_out_.clear();
    const bool in_range = std::all_of(s_in_.begin(), s_in_.end(), [](float v) { return v >= 0x1p-60f && v <= 0x1p20f; }) &&
                          std::all_of(s_out_.begin(), s_out_.end(), [](float v) { return v >= 0x1p-60f && v <= 0x1p60f; });
    if (in_range)
      for (float v : s_out_) r_out_.push_back(1.0f / v);
  }
  return true;
}

requant::Run Requantizer::LanesRun(int64_t q_bound) const {
  requant::Run run;
  run.lanes = true, run.row = row_;
  run.s_in = s_in_.data(), run.s_out = s_out_.data(), run.z_out = z_out_.data();
  run.z_in = z_in_zero_ ? nullptr : z_in_.data();
  run.lo = lo_, run.hi = hi_, run.is_signed = is_signed_;
  run.no_nan = no_nan_, run.no_overflow = q_bound <= INT32_MAX - max_z_in_;
  run.small = no_nan_ && run.no_overflow &&
              (static_cast<double>(q_bound) + static_cast<double>(max_z_in_)) * max_ratio_ + max_z_out_ < 0x1p30;
  if (run.small && !r_out_.empty()) run.r_out = r_out_.data();
  return run;
}

void Requantizer::RunTile(const int32_t* q, int64_t q_stride, int64_t rows, int64_t cols, int64_t begin,
                          int64_t row_step, uint8_t* out, int64_t q_bound) const {
  if (rows <= 0 || cols <= 0) return;
  if (q_stride == cols && row_step == cols) {
    // Whole rows of the tensor, back to back: one run.
    Run(q, begin, begin + rows * cols, out + begin, q_bound);
    return;
  }
  if (!rows_) {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t b = begin + r * row_step;
      Run(q + r * q_stride, b, b + cols, out + b, q_bound);
    }
    return;
  }
  requant::Run run = LanesRun(q_bound);
  run.q = q, run.len = cols, run.j0 = begin % row_, run.out = out + begin;
  HWY_DYNAMIC_DISPATCH(RequantizeTileT)(run, rows, q_stride, row_step);
}

void Requantizer::Run(const int32_t* q, int64_t begin, int64_t end, uint8_t* out, int64_t q_bound) const {
  if (rows_) {
    // One run over the whole range: its rows' lanes read the parameters
    // side by side.
    requant::Run run = LanesRun(q_bound);
    run.q = q, run.len = end - begin, run.j0 = begin % row_, run.out = out;
    HWY_DYNAMIC_DISPATCH(RequantizeTileT)(run, 1, 0, 0);
    return;
  }
  // Runs of whole inner runs where per-axis, so each run has one scale.
  for (int64_t i = begin; i < end;) {
    const int64_t ks = src_.per_axis ? (i / src_.inner) % src_.axis_size : 0;
    const int64_t kd = dst_.per_axis ? (i / dst_.inner) % dst_.axis_size : 0;
    // Run while both slots stay the same.
    int64_t run = end;
    if (src_.per_axis) run = std::min(run, (i / src_.inner + 1) * src_.inner);
    if (dst_.per_axis) run = std::min(run, (i / dst_.inner + 1) * dst_.inner);
    const float s_in = src_.scales[ks], s_out = dst_.scales[kd], z_out = dst_.zero_points[kd];
    const int64_t z_in = src_.zero_points_int[ks];
    const int32_t z32 = static_cast<int32_t>(z_in);
    if (FitsI32(z_in)) {
      requant::Run r;
      r.q = q + (i - begin), r.len = run - i, r.s_in = &s_in, r.s_out = &s_out, r.z_out = &z_out;
      r.z_in = z_in == 0 ? nullptr : &z32;
      r.lo = lo_, r.hi = hi_, r.is_signed = is_signed_, r.out = out + (i - begin);
      r.no_nan = no_nan_, r.no_overflow = q_bound <= INT32_MAX - (z_in < 0 ? -z_in : z_in);
      HWY_DYNAMIC_DISPATCH(RequantizeTileT)(r, 1, 0, 0);
      i = run;
    } else {
      for (; i < run; ++i) {
        const float r =
            requant::Step(static_cast<float>(static_cast<int64_t>(q[i - begin]) - z_in), s_in, s_out, z_out, lo_, hi_);
        if (is_signed_)
          reinterpret_cast<int8_t*>(out)[i - begin] = static_cast<int8_t>(r);
        else
          out[i - begin] = static_cast<uint8_t>(r);
      }
    }
  }
}

void Requantizer::RunParallel(const int32_t* q, int64_t begin, int64_t end, uint8_t* out, TaskRunner* runner,
                              int64_t q_bound) const {
  const int64_t n = end - begin;
  ParallelFor(n >= 2 * kChunk ? runner : nullptr, (n + kChunk - 1) / kChunk, [&](int64_t t, int) {
    const int64_t b = begin + t * kChunk, e = std::min(end, b + kChunk);
    Run(q + (b - begin), b, e, out + (b - begin), q_bound);
  });
}

namespace {
struct RequantizeProductScratch;

// A Requantizer for one signature of shapes and types, kept in the
// executable's state (KernelState): Init reads the attributes and lays out
// the per-lane parameters (five aligned vectors), work that depends on the
// executable and the shapes only.
struct RequantizerPlan : KernelPlan {
  Requantizer rq;
  bool ok = false;  // whether Init took the call
};

// The Requantizer of `call` for Init(params, prefix, dims, in, out), taken
// from the executable's state for the time the object lives (built and
// kept on the first call of a signature); get() is null where the
// reference must run.
class KeptRequantizer {
 public:
  KeptRequantizer(const KernelCall& call, std::string_view prefix, std::span<const int64_t> dims, ElementType in,
                  ElementType out)
      : lease_(call.state, Key(prefix, dims, in, out)) {
    if (lease_.get() == nullptr) {
      auto fresh = std::make_unique<RequantizerPlan>();
      fresh->ok = fresh->rq.Init(call.params, prefix, dims, in, out);
      lease_.Set(std::move(fresh));
    }
  }
  const Requantizer* get() const { return lease_.get()->ok ? &lease_.get()->rq : nullptr; }

 private:
  static PlanKey Key(std::string_view prefix, std::span<const int64_t> dims, ElementType in, ElementType out) {
    PlanKey key(kPlanRequantizer);
    for (char c : prefix) key.Add(c);
    key.Add(dims).Add(static_cast<int64_t>(in)).Add(static_cast<int64_t>(out));
    return key;
  }
  PlanLease<RequantizerPlan> lease_;
};
}  // namespace

Status RunRequantizing(const KernelCall& call, KernelFn producer) {
  if (call.outputs.size() != 1 || !StorageOk(call.outputs[0])) return ref::RunWithRequantize(call, producer);
  const std::span<const int64_t> dims = call.outputs[0].dims;
  const KeptRequantizer kept(call, "product_", dims, ElementType::kSI32, call.outputs[0].type);
  if (kept.get() == nullptr) return ref::RunWithRequantize(call, producer);
  const Requantizer& rq = *kept.get();
  const TensorRef& out = call.outputs[0];
  const int64_t n = out.NumElements();
  ScratchLease<RequantizeProductScratch, int32_t> acc(static_cast<size_t>(n));
  TensorRef product = out;
  product.type = ElementType::kSI32;
  product.data = reinterpret_cast<uint8_t*>(acc.get());
  product.byte_size = static_cast<size_t>(n) * sizeof(int32_t);
  product.constant_id = 0;
  const KernelParams product_params = ref::ProductParams(call.params);
  KILN_RETURN_IF_ERROR(producer(KernelCall{product_params, call.inputs, std::span<const TensorRef>(&product, 1),
                                           call.runner, /*without_epilogue=*/true, call.state}));
  rq.RunParallel(acc.get(), 0, n, out.data, call.runner);
  return Status::Ok();
}

namespace {

Status Requantize(const KernelCall& call) {
  if (call.inputs.size() != 1 || call.outputs.size() != 1) return RunReference(call);
  const TensorRef& in = call.inputs[0];
  const TensorRef& out = call.outputs[0];
  if (!StorageOk(in) || !StorageOk(out) || !std::equal(in.dims.begin(), in.dims.end(), out.dims.begin(), out.dims.end()))
    return RunReference(call);
  const KeptRequantizer kept(call, "operand_", in.dims, in.type, out.type);
  const Requantizer* rq = kept.get();
  if (rq == nullptr) return RunReference(call);
  rq->RunParallel(reinterpret_cast<const int32_t*>(in.data), 0, in.NumElements(), out.data, call.runner);
  return Status::Ok();
}

}  // namespace

bool UniformQuantizeApplies(const KernelParams& params) {
  // Requantize with the f32 expressed type only.
  const std::string_view e = params.Str("expressed_type");
  return params.Has("operand_scales") && (e.empty() || e == "f32");
}

Status UniformQuantize(const KernelCall& call) { return Requantize(call); }

}  // namespace kiln::cpu
#endif  // HWY_ONCE

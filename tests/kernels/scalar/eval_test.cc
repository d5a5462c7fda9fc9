// Tests of the reference scalar semantics (kernels/scalar/scalar.h).
// Expected values come from the StableHLO conformance files, hand-computed
// constants, the compiler's own _Float16, or a brute-force oracle over every
// encoding of a type; never from the functions under test.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

#include "kernels/scalar/scalar.h"

namespace kiln::ref {
namespace {

using ET = ElementType;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// ----- an independent description of the small float formats ---------------

enum class Flavor { kIeee, kFn, kFnuz, kNoSpecials, kE8M0 };
struct SmallFloat {
  ET type;
  int e, m, bias;
  Flavor flavor;
  double max;          // largest finite value (from the formats' definitions)
  double min_sub;      // smallest positive value
};

const std::vector<SmallFloat>& SmallFloats() {
  static const std::vector<SmallFloat> v = {
      {ET::kF4E2M1FN, 2, 1, 1, Flavor::kNoSpecials, 6.0, 0.5},
      {ET::kF6E2M3FN, 2, 3, 1, Flavor::kNoSpecials, 7.5, 0.125},
      {ET::kF6E3M2FN, 3, 2, 3, Flavor::kNoSpecials, 28.0, 0.0625},
      {ET::kF8E3M4, 3, 4, 3, Flavor::kIeee, 15.5, 0.015625},
      {ET::kF8E4M3, 4, 3, 7, Flavor::kIeee, 240.0, 0.001953125},
      {ET::kF8E4M3FN, 4, 3, 7, Flavor::kFn, 448.0, 0.001953125},
      {ET::kF8E4M3FNUZ, 4, 3, 8, Flavor::kFnuz, 240.0, 0.0009765625},
      {ET::kF8E4M3B11FNUZ, 4, 3, 11, Flavor::kFnuz, 30.0, 0.0001220703125},
      {ET::kF8E5M2, 5, 2, 15, Flavor::kIeee, 57344.0, 1.52587890625e-05},
      {ET::kF8E5M2FNUZ, 5, 2, 16, Flavor::kFnuz, 57344.0, 7.62939453125e-06},
      {ET::kF8E8M0FNU, 8, 0, 127, Flavor::kE8M0, std::ldexp(1.0, 127), std::ldexp(1.0, -127)},
      {ET::kF16, 5, 10, 15, Flavor::kIeee, 65504.0, std::ldexp(1.0, -24)},
      {ET::kBF16, 8, 7, 127, Flavor::kIeee, 3.3895313892515355e38, std::ldexp(1.0, -133)},
  };
  return v;
}

int Bits(const SmallFloat& f) { return (f.flavor == Flavor::kE8M0 ? 0 : 1) + f.e + f.m; }

double DecodeRef(const SmallFloat& f, uint32_t bits) {
  if (f.flavor == Flavor::kE8M0) return bits == 0xFF ? kNaN : std::pow(2.0, static_cast<int>(bits) - 127);
  uint32_t sign = (bits >> (f.e + f.m)) & 1;
  uint32_t ex = (bits >> f.m) & ((1u << f.e) - 1);
  uint32_t man = bits & ((1u << f.m) - 1);
  bool all_e = ex == (1u << f.e) - 1, all_m = man == (1u << f.m) - 1;
  if (f.flavor == Flavor::kFnuz && sign && ex == 0 && man == 0) return kNaN;
  if (f.flavor == Flavor::kFn && all_e && all_m) return kNaN;
  if (f.flavor == Flavor::kIeee && all_e) return man == 0 ? (sign ? -kInf : kInf) : kNaN;
  double mag = ex == 0 ? man * std::pow(2.0, 1 - f.bias - f.m)
                       : (1.0 + man / std::pow(2.0, f.m)) * std::pow(2.0, static_cast<int>(ex) - f.bias);
  return sign ? -mag : mag;
}

bool SameValue(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

#define EXPECT_SAME(a, b) EXPECT_PRED2(SameValue, a, b)

uint32_t StoreBits(ET t, double v) {
  uint8_t buf[16] = {};
  Scalar s;
  s.re = v;
  StoreScalar(t, s, buf);
  uint32_t bits = 0;
  std::memcpy(&bits, buf, StorageBytes(t) < 4 ? StorageBytes(t) : 4);
  return bits;
}
double LoadBits(ET t, uint64_t bits) {
  uint8_t buf[16] = {};
  std::memcpy(buf, &bits, 8);
  return LoadScalar(t, buf).re;
}

// Brute-force round-to-nearest-even over all encodings of `f`.
double RoundRef(const SmallFloat& f, double v) {
  if (std::isnan(v)) {
    if (f.flavor == Flavor::kNoSpecials) return 0.0;
    return kNaN;
  }
  if (f.flavor == Flavor::kE8M0 && v < 0) return kNaN;
  double a = std::fabs(v);
  bool neg = std::signbit(v);
  auto finish = [&](double mag) {
    if (mag == 0 && (f.flavor == Flavor::kFnuz)) return 0.0;
    if (std::isnan(mag)) return mag;
    return neg && f.flavor != Flavor::kE8M0 ? -mag : mag;
  };
  auto overflow = [&]() -> double {
    switch (f.flavor) {
      case Flavor::kIeee: return finish(kInf);
      case Flavor::kNoSpecials: return finish(f.max);
      default: return kNaN;
    }
  };
  if (a > f.max) {
    if (std::isinf(a)) return overflow();
    // The next value past max if the exponent range went on.
    double next = f.flavor == Flavor::kFn ? 480.0 : std::ldexp(1.0, std::ilogb(f.max) + 1);
    double mid = (f.max + next) / 2;
    if (a < mid) return finish(f.max);
    if (a > mid) return overflow();
    // Tie: to the even significand. max is odd except for E4M3FN (1.110).
    return f.flavor == Flavor::kFn ? finish(f.max) : overflow();
  }
  double best = 0, best_d = kInf;
  bool best_even = false;
  for (uint32_t bits = 0; bits < (1u << Bits(f)); ++bits) {
    double c = DecodeRef(f, bits);
    if (std::isnan(c) || std::isinf(c) || std::signbit(c)) continue;
    double d = std::fabs(c - a);
    bool even = f.flavor == Flavor::kE8M0 ? false : (bits & 1) == 0;
    if (d < best_d || (d == best_d && (even || (f.flavor == Flavor::kE8M0 && c > best)))) {
      best = c, best_d = d, best_even = even;
    }
  }
  (void)best_even;
  return finish(best);
}

// ----- codec: every encoding round trips ------------------------------------

TEST(ScalarCodec, SmallFloatEveryPatternDecodesAndRoundTrips) {
  for (const auto& f : SmallFloats()) {
    uint32_t n = 1u << Bits(f);
    for (uint32_t bits = 0; bits < n; ++bits) {
      double want = DecodeRef(f, bits);
      double got = LoadBits(f.type, bits);
      EXPECT_SAME(got, want) << Name(f.type) << " bits " << bits;
      EXPECT_EQ(StoreBits(f.type, got), bits) << Name(f.type) << " bits " << bits;
      if (!std::isnan(got)) {
        EXPECT_SAME(RoundToFloatType(f.type, got), got) << Name(f.type) << " " << bits;
      }
    }
  }
}

TEST(ScalarCodec, SmallFloatExtremes) {
  for (const auto& f : SmallFloats()) {
    double mx = -kInf, mn = kInf;
    for (uint32_t bits = 0; bits < (1u << Bits(f)); ++bits) {
      double v = LoadBits(f.type, bits);
      if (std::isfinite(v)) mx = std::max(mx, v);
      if (std::isfinite(v) && v > 0) mn = std::min(mn, v);
    }
    EXPECT_EQ(mx, f.max) << Name(f.type);
    EXPECT_EQ(mn, f.min_sub) << Name(f.type);
  }
}

TEST(ScalarCodec, UpperBitsOfSubByteStorageAreIgnored) {
  EXPECT_EQ(LoadBits(ET::kF4E2M1FN, 0xF7), 6.0);
  EXPECT_EQ(LoadBits(ET::kF6E3M2FN, 0xC1), 0.0625);
  EXPECT_EQ(StoreBits(ET::kF4E2M1FN, -6.0), 0x0Fu);
  EXPECT_EQ(StoreBits(ET::kF6E2M3FN, -7.5), 0x3Fu);
}

// constant.mlir: the literal values and the values they round to.
TEST(ScalarCodec, ConstantMlirSpotChecks) {
  struct Row {
    ET t;
    double in, want;
  } rows[] = {
      {ET::kF4E2M1FN, 0.125, 0.0},      {ET::kF4E2M1FN, 0.1, 0.0},        {ET::kF4E2M1FN, 3.1415, 3.0},
      {ET::kF6E2M3FN, 0.1, 0.125},      {ET::kF6E2M3FN, 3.1415, 3.25},    {ET::kF6E3M2FN, 3.1415, 3.0},
      {ET::kF8E3M4, 0.1, 0.09375},      {ET::kF8E3M4, 3.1415, 3.125},     {ET::kF8E4M3, 0.1, 0.1015625},
      {ET::kF8E4M3, 3.1415, 3.25},      {ET::kF8E4M3FN, 0.1, 0.1015625},  {ET::kF8E4M3FNUZ, -0.0, 0.0},
      {ET::kF8E4M3B11FNUZ, 0.1, 0.1015625}, {ET::kF8E5M2, 0.1, 0.09375}, {ET::kF8E5M2, 3.1415, 3.0},
      {ET::kF8E5M2FNUZ, 3.1415, 3.0},   {ET::kF8E8M0FNU, 0.1, 0.125},     {ET::kF8E8M0FNU, 3.1415, 4.0},
      {ET::kF8E8M0FNU, 1.0, 1.0},       {ET::kBF16, 0.1, 0.10009765625},  {ET::kF16, 0.1, 0.0999755859375},
      {ET::kBF16, 3.14063, 3.140625},   {ET::kF16, 3.14063, 3.140625},
  };
  for (const auto& r : rows) EXPECT_SAME(RoundToFloatType(r.t, r.in), r.want) << Name(r.t) << " " << r.in;
  // Hex literals of constant.mlir.
  EXPECT_EQ(LoadBits(ET::kF8E4M3FNUZ, 0x7F), 240.0);
  EXPECT_EQ(LoadBits(ET::kF8E4M3FNUZ, 0x81), -0.0009765625);
  EXPECT_EQ(LoadBits(ET::kF8E4M3B11FNUZ, 0xFF), -30.0);
  EXPECT_EQ(LoadBits(ET::kF8E5M2FNUZ, 0x7F), 57344.0);
  EXPECT_EQ(LoadBits(ET::kF8E8M0FNU, 0x80), 2.0);
  EXPECT_TRUE(std::isnan(LoadBits(ET::kF8E8M0FNU, 0xFF)));
  EXPECT_TRUE(std::isnan(LoadBits(ET::kF8E4M3FN, 0x7F)));
  EXPECT_TRUE(std::isnan(LoadBits(ET::kF8E4M3, 0x7F)));
  EXPECT_EQ(LoadBits(ET::kF8E4M3, 0x78), kInf);
  EXPECT_EQ(LoadBits(ET::kF16, 0x0001), 5.9604644775390625e-08);
  EXPECT_EQ(LoadBits(ET::kBF16, 0x8001), -9.183549615799121e-41);
  EXPECT_EQ(LoadBits(ET::kF16, 0xFC00), -kInf);
}

TEST(ScalarCodec, SixteenBitEveryPatternRoundTrips) {
  for (ET t : {ET::kF16, ET::kBF16}) {
    for (uint32_t bits = 0; bits < 65536; ++bits) {
      double v = LoadBits(t, bits);
      ASSERT_EQ(StoreBits(t, v), bits) << Name(t) << " " << bits;
    }
  }
}

// The compiler's own IEEE half type, the independent oracle: _Float16 where
// ARM's __fp16 on Arm (g++ 12 has no _Float16 in C++ there), else _Float16.
#if defined(__ARM_FP16_FORMAT_IEEE)
using CompilerHalf = __fp16;
#else
using CompilerHalf = _Float16;
#endif

TEST(ScalarCodec, F16MatchesCompilerFloat16) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exp_dist(-30, 18);
  for (int i = 0; i < 200000; ++i) {
    double v = std::ldexp(1.0 + (rng() >> 11) * 0x1p-53, static_cast<int>(exp_dist(rng)));
    if (i & 1) v = -v;
    double want = static_cast<double>(static_cast<CompilerHalf>(v));
    ASSERT_PRED2(SameValue, RoundToFloatType(ET::kF16, v), want) << v;
  }
  // Every f16 midpoint (ties to even), and one ulp of double either side.
  for (uint32_t bits = 0; bits < 0x7BFF; ++bits) {
    double a = LoadBits(ET::kF16, bits), b = LoadBits(ET::kF16, bits + 1);
    double mid = (a + b) / 2;
    for (double v : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, kInf), -mid}) {
      double want = static_cast<double>(static_cast<CompilerHalf>(v));
      ASSERT_PRED2(SameValue, RoundToFloatType(ET::kF16, v), want) << v;
    }
  }
}

TEST(ScalarCodec, F16TiesSubnormalsAndOverflow) {
  EXPECT_EQ(RoundToFloatType(ET::kF16, 1.0 + 0x1p-11), 1.0);                 // tie -> even
  EXPECT_EQ(RoundToFloatType(ET::kF16, 1.0 + 3 * 0x1p-11), 1.0 + 0x1p-9);   // tie -> even (up)
  EXPECT_EQ(RoundToFloatType(ET::kF16, 0x1p-25), 0.0);                      // half min subnormal -> 0
  EXPECT_EQ(RoundToFloatType(ET::kF16, 0x1.8p-25), 0x1p-24);
  EXPECT_EQ(RoundToFloatType(ET::kF16, 3 * 0x1p-25), 2 * 0x1p-24);          // 1.5 ulp -> 2 ulp
  EXPECT_SAME(RoundToFloatType(ET::kF16, -0x1p-26), -0.0);
  EXPECT_EQ(RoundToFloatType(ET::kF16, 65519.99), 65504.0);
  EXPECT_EQ(RoundToFloatType(ET::kF16, 65520.0), kInf);
  EXPECT_EQ(RoundToFloatType(ET::kF16, -1e300), -kInf);
  EXPECT_EQ(StoreBits(ET::kF16, 65520.0), 0x7C00u);
  EXPECT_EQ(StoreBits(ET::kBF16, 1.0 + 0x1p-8), 0x3F80u);                   // tie -> even
  EXPECT_EQ(StoreBits(ET::kBF16, 1.0 + 3 * 0x1p-8), 0x3F82u);
}

TEST(ScalarCodec, SmallFloatRoundingMatchesBruteForce) {
  std::mt19937_64 rng(11);
  for (const auto& f : SmallFloats()) {
    if (f.type == ET::kF16 || f.type == ET::kBF16) continue;  // too many encodings to scan often
    std::vector<double> pts;
    std::vector<double> vals;
    for (uint32_t bits = 0; bits < (1u << Bits(f)); ++bits) {
      double v = DecodeRef(f, bits);
      if (std::isfinite(v) && !std::signbit(v)) vals.push_back(v);
    }
    std::sort(vals.begin(), vals.end());
    for (size_t i = 0; i + 1 < vals.size(); ++i) {
      double mid = (vals[i] + vals[i + 1]) / 2;
      for (double v : {vals[i], mid, std::nextafter(mid, 0.0), std::nextafter(mid, kInf)}) pts.push_back(v);
    }
    double next = f.flavor == Flavor::kFn ? 480.0 : std::ldexp(1.0, std::ilogb(f.max) + 1);
    double omid = (f.max + next) / 2;
    for (double v : {omid, std::nextafter(omid, 0.0), std::nextafter(omid, kInf), next, f.max * 4, 1e300, kInf,
                     f.min_sub / 2, f.min_sub / 4, f.min_sub * 0.75, 1e-300, 0.0})
      pts.push_back(v);
    for (int i = 0; i < 2000; ++i)
      pts.push_back(std::ldexp(1.0 + (rng() >> 11) * 0x1p-53, static_cast<int>(rng() % 300) - 150));
    for (double v : pts) {
      for (double s : {v, -v}) {
        if (f.flavor == Flavor::kE8M0 && s <= 0) continue;
        EXPECT_PRED2(SameValue, RoundToFloatType(f.type, s), RoundRef(f, s)) << Name(f.type) << " " << s;
      }
    }
  }
}

TEST(ScalarCodec, OverflowAndSpecialValueChoices) {
  EXPECT_TRUE(std::isnan(RoundToFloatType(ET::kF8E4M3FN, 1000.0)));
  EXPECT_EQ(RoundToFloatType(ET::kF8E4M3FN, 464.0), 448.0);  // tie -> even (1.110)
  EXPECT_TRUE(std::isnan(RoundToFloatType(ET::kF8E4M3FN, 465.0)));
  EXPECT_TRUE(std::isnan(RoundToFloatType(ET::kF8E4M3FN, kInf)));
  EXPECT_EQ(StoreBits(ET::kF8E4M3FN, -kInf), 0xFFu);
  EXPECT_EQ(StoreBits(ET::kF8E4M3FNUZ, kNaN), 0x80u);
  EXPECT_EQ(StoreBits(ET::kF8E4M3FNUZ, -0.0), 0x00u);
  EXPECT_EQ(StoreBits(ET::kF8E5M2FNUZ, -1e-30), 0x00u);
  EXPECT_EQ(RoundToFloatType(ET::kF8E5M2, 61440.0), kInf);   // tie past max -> inf
  EXPECT_EQ(RoundToFloatType(ET::kF8E5M2, 61439.0), 57344.0);
  EXPECT_EQ(RoundToFloatType(ET::kF4E2M1FN, 1e9), 6.0);      // saturates
  EXPECT_EQ(RoundToFloatType(ET::kF4E2M1FN, -kInf), -6.0);
  EXPECT_SAME(RoundToFloatType(ET::kF6E3M2FN, kNaN), 0.0);
  EXPECT_EQ(RoundToFloatType(ET::kF8E8M0FNU, 0.0), 0x1p-127);
  EXPECT_TRUE(std::isnan(RoundToFloatType(ET::kF8E8M0FNU, -2.0)));
  EXPECT_TRUE(std::isnan(RoundToFloatType(ET::kF8E8M0FNU, 0x1.8p127)));
  EXPECT_EQ(StoreBits(ET::kF8E8M0FNU, 0x1p-127), 0x00u);
  EXPECT_EQ(StoreBits(ET::kF8E8M0FNU, 0x1p127), 0xFEu);
  EXPECT_EQ(RoundToFloatType(ET::kF32, 0x1.000001p0), 1.0);  // 2^-24: tie -> even
  EXPECT_EQ(RoundToFloatType(ET::kF32, 1e39), kInf);
  EXPECT_EQ(RoundToFloatType(ET::kF64, 0.1), 0.1);
}

TEST(ScalarCodec, F32AndF64PreserveNaNPayloadsAndSigns) {
  for (uint32_t bits : {0x7F800001u, 0xFFC00000u, 0x7FBFFFFFu, 0x80000000u, 0x00000001u, 0x7F800000u}) {
    uint8_t buf[4];
    std::memcpy(buf, &bits, 4);
    Scalar s = LoadScalar(ET::kF32, buf);
    uint8_t out[4] = {};
    StoreScalar(ET::kF32, s, out);
    uint32_t back;
    std::memcpy(&back, out, 4);
    EXPECT_EQ(back, bits);
  }
  uint64_t b64 = 0xFFF0000000000001ull;
  uint8_t buf[8];
  std::memcpy(buf, &b64, 8);
  Scalar s = LoadScalar(ET::kF64, buf);
  EXPECT_EQ(std::bit_cast<uint64_t>(s.re), b64);
  EXPECT_EQ(StoreBits(ET::kF16, -kNaN) & 0xFC00u, 0xFC00u);  // sign kept
}

TEST(ScalarCodec, ComplexLayout) {
  uint8_t buf[16] = {};
  Scalar s;
  s.re = 1.5;
  s.im = -2.25;
  StoreScalar(ET::kC64, s, buf);
  float parts[2];
  std::memcpy(parts, buf, 8);
  EXPECT_EQ(parts[0], 1.5f);
  EXPECT_EQ(parts[1], -2.25f);
  Scalar l = LoadScalar(ET::kC64, buf);
  EXPECT_EQ(l.re, 1.5);
  EXPECT_EQ(l.im, -2.25);
  StoreScalar(ET::kC128, s, buf);
  double d[2];
  std::memcpy(d, buf, 16);
  EXPECT_EQ(d[0], 1.5);
  EXPECT_EQ(d[1], -2.25);
}

// ----- integers -----------------------------------------------------------------

TEST(ScalarCodec, WrapIntegerEveryWidth) {
  struct Row {
    ET t;
    int w;
    bool is_signed;
  } rows[] = {{ET::kSI2, 2, true},   {ET::kSI4, 4, true},   {ET::kSI8, 8, true},    {ET::kSI16, 16, true},
              {ET::kSI32, 32, true}, {ET::kUI2, 2, false},  {ET::kUI4, 4, false},   {ET::kUI8, 8, false},
              {ET::kUI16, 16, false}, {ET::kUI32, 32, false}};
  for (const auto& r : rows) {
    int64_t span = int64_t{1} << r.w;
    int64_t lo = r.is_signed ? -(span / 2) : 0;
    int64_t hi = r.is_signed ? span / 2 - 1 : span - 1;
    EXPECT_EQ(WrapInteger(r.t, hi), hi) << Name(r.t);
    EXPECT_EQ(WrapInteger(r.t, hi + 1), lo) << Name(r.t);
    EXPECT_EQ(WrapInteger(r.t, lo - 1), hi) << Name(r.t);
    EXPECT_EQ(WrapInteger(r.t, -1), r.is_signed ? -1 : span - 1) << Name(r.t);
    EXPECT_EQ(WrapInteger(r.t, span * 3 + 1), 1) << Name(r.t);
    // Store and load keep exactly the wrapped value.
    uint8_t buf[8] = {};
    Scalar s;
    s.i = hi + 1;
    StoreScalar(r.t, s, buf);
    EXPECT_EQ(LoadScalar(r.t, buf).i, lo) << Name(r.t);
  }
  EXPECT_EQ(WrapInteger(ET::kSI64, std::numeric_limits<int64_t>::min()), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(WrapInteger(ET::kUI64, -1), -1);  // ui64 keeps its bit pattern
  EXPECT_EQ(WrapInteger(ET::kI1, 3), 1);
  EXPECT_EQ(WrapInteger(ET::kI1, 2), 0);
}

TEST(ScalarCodec, SubByteIntegerStorage) {
  uint8_t buf[1] = {0};
  Scalar s;
  s.i = -1;
  StoreScalar(ET::kSI4, s, buf);
  EXPECT_EQ(buf[0], 0xFF);  // sign-extended byte
  s.i = 15;
  StoreScalar(ET::kUI4, s, buf);
  EXPECT_EQ(buf[0], 0x0F);
  buf[0] = 0x0E;  // i4 1110 = -2
  EXPECT_EQ(LoadScalar(ET::kSI4, buf).i, -2);
  buf[0] = 0x02;
  EXPECT_EQ(LoadScalar(ET::kSI2, buf).i, -2);
  EXPECT_EQ(LoadScalar(ET::kUI2, buf).i, 2);
  buf[0] = 0x80;
  EXPECT_EQ(LoadScalar(ET::kSI8, buf).i, -128);
  EXPECT_EQ(LoadScalar(ET::kUI8, buf).i, 128);
  uint8_t b8[8];
  uint64_t all = ~uint64_t{0};
  std::memcpy(b8, &all, 8);
  EXPECT_EQ(LoadScalar(ET::kUI32, b8).i, 0xFFFFFFFFll);
  EXPECT_EQ(LoadScalar(ET::kSI16, b8).i, -1);
  EXPECT_EQ(LoadScalar(ET::kUI16, b8).i, 0xFFFF);
}

// ----- convert --------------------------------------------------------------

Scalar I(int64_t v) {
  Scalar s;
  s.i = v;
  return s;
}
Scalar F(double v) {
  Scalar s;
  s.re = v;
  return s;
}
Scalar Cx(double re, double im) {
  Scalar s;
  s.re = re;
  s.im = im;
  return s;
}

TEST(ScalarConvert, IntegerToFloatRoundsOnce) {
  // 2^60 + 2^36 + 1: just above the f32 midpoint; via double it would be the
  // midpoint exactly and round down to even.
  int64_t v = (int64_t{1} << 60) + (int64_t{1} << 36) + 1;
  EXPECT_EQ(ConvertScalar(ET::kSI64, ET::kF32, I(v)).re, 0x1p60 + 0x1p37);
  EXPECT_EQ(ConvertScalar(ET::kSI64, ET::kF32, I(-v)).re, -(0x1p60 + 0x1p37));
  EXPECT_EQ(ConvertScalar(ET::kSI64, ET::kF32, I((int64_t{1} << 60) + (int64_t{1} << 36))).re, 0x1p60);
  EXPECT_EQ(ConvertScalar(ET::kUI64, ET::kF32, I(-1)).re, 0x1p64);  // ui64 max
  EXPECT_EQ(ConvertScalar(ET::kUI64, ET::kF64, I(-1)).re, 0x1p64);
  EXPECT_EQ(ConvertScalar(ET::kSI64, ET::kF64, I((int64_t{1} << 53) + 1)).re, 0x1p53);  // tie -> even
  EXPECT_EQ(ConvertScalar(ET::kSI64, ET::kF64, I((int64_t{1} << 53) + 3)).re, 0x1p53 + 4);
  EXPECT_EQ(ConvertScalar(ET::kSI64, ET::kF64, I(std::numeric_limits<int64_t>::min())).re, -0x1p63);
  EXPECT_EQ(ConvertScalar(ET::kSI32, ET::kF16, I(65520)).re, kInf);
  EXPECT_EQ(ConvertScalar(ET::kSI32, ET::kF16, I(2049)).re, 2048.0);
  EXPECT_EQ(ConvertScalar(ET::kSI32, ET::kF16, I(2051)).re, 2052.0);
  EXPECT_TRUE(std::isnan(ConvertScalar(ET::kSI32, ET::kF8E4M3FN, I(1000)).re));
  EXPECT_EQ(ConvertScalar(ET::kSI32, ET::kF4E2M1FN, I(100)).re, 6.0);
  EXPECT_EQ(ConvertScalar(ET::kSI32, ET::kF4E2M1FN, I(5)).re, 4.0);  // tie -> even (1.0 x 2^2)
  EXPECT_EQ(ConvertScalar(ET::kUI4, ET::kC128, I(1)).re, 1.0);
  Scalar c = ConvertScalar(ET::kSI4, ET::kC128, I(-1));
  EXPECT_EQ(c.re, -1.0);
  EXPECT_EQ(c.im, 0.0);
}

TEST(ScalarConvert, FloatToIntegerTruncatesAndSaturates) {
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kSI32, F(3.9)).i, 3);
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kSI32, F(-3.9)).i, -3);
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kSI32, F(kNaN)).i, 0);
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kSI32, F(1e10)).i, 2147483647);
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kSI32, F(-1e10)).i, -2147483648ll);
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kSI64, F(0x1p63)).i, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kSI64, F(-0x1p63)).i, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kSI64, F(-kInf)).i, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kUI8, F(-1.0)).i, 0);
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kUI8, F(-0.9)).i, 0);
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kUI8, F(300.0)).i, 255);
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kUI64, F(1e30)).i, -1);  // all ones
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kUI64, F(0x1p63)).i, static_cast<int64_t>(uint64_t{1} << 63));
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kSI8, F(127.9)).i, 127);
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kSI8, F(-128.5)).i, -128);
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kSI8, F(-129.0)).i, -128);
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kSI4, F(9.0)).i, 7);
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kUI2, F(9.0)).i, 3);
  // convert.mlir: complex -> integer takes the real part.
  EXPECT_EQ(ConvertScalar(ET::kC128, ET::kSI64, Cx(-1, 0)).i, -1);
  EXPECT_EQ(ConvertScalar(ET::kC128, ET::kSI64, Cx(0, 1)).i, 0);
  EXPECT_EQ(ConvertScalar(ET::kC128, ET::kUI64, Cx(1, 0)).i, 1);
}

TEST(ScalarConvert, IntegerToIntegerWraps) {
  EXPECT_EQ(ConvertScalar(ET::kSI32, ET::kSI8, I(300)).i, 44);
  EXPECT_EQ(ConvertScalar(ET::kSI32, ET::kUI8, I(-1)).i, 255);
  EXPECT_EQ(ConvertScalar(ET::kUI8, ET::kSI8, I(255)).i, -1);
  EXPECT_EQ(ConvertScalar(ET::kUI64, ET::kSI64, I(-1)).i, -1);
  EXPECT_EQ(ConvertScalar(ET::kUI32, ET::kSI64, I(0xFFFFFFFFll)).i, 0xFFFFFFFFll);
  EXPECT_EQ(ConvertScalar(ET::kSI8, ET::kUI64, I(-1)).i, -1);
  EXPECT_EQ(ConvertScalar(ET::kSI4, ET::kSI2, I(-3)).i, 1);
}

TEST(ScalarConvert, BooleanConversions) {
  EXPECT_EQ(ConvertScalar(ET::kSI32, ET::kI1, I(5)).i, 1);
  EXPECT_EQ(ConvertScalar(ET::kSI32, ET::kI1, I(256)).i, 1);  // nonzero, not low bit
  EXPECT_EQ(ConvertScalar(ET::kSI32, ET::kI1, I(0)).i, 0);
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kI1, F(-1.0)).i, 1);  // convert.mlir f64 -> i1
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kI1, F(0.0)).i, 0);
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kI1, F(-0.0)).i, 0);
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kI1, F(0.5)).i, 1);
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kI1, F(kNaN)).i, 1);
  EXPECT_EQ(ConvertScalar(ET::kC128, ET::kI1, Cx(0, 1)).i, 0);  // convert.mlir c128 -> i1
  EXPECT_EQ(ConvertScalar(ET::kC128, ET::kI1, Cx(-1, 0)).i, 1);
  EXPECT_EQ(ConvertScalar(ET::kI1, ET::kF64, I(1)).re, 1.0);
  EXPECT_EQ(ConvertScalar(ET::kI1, ET::kSI8, I(1)).i, 1);
  EXPECT_EQ(ConvertScalar(ET::kI1, ET::kUI64, I(1)).i, 1);
  Scalar c = ConvertScalar(ET::kI1, ET::kC128, I(1));
  EXPECT_EQ(c.re, 1.0);
  EXPECT_EQ(c.im, 0.0);
}

TEST(ScalarConvert, FloatToFloat) {
  EXPECT_EQ(ConvertScalar(ET::kF64, ET::kF32, F(0.1)).re, static_cast<double>(0.1f));
  EXPECT_EQ(ConvertScalar(ET::kF32, ET::kF8E4M3FN, F(0.1)).re, 0.1015625);
  EXPECT_EQ(ConvertScalar(ET::kF16, ET::kF8E5M2, F(65504.0)).re, kInf);
  EXPECT_TRUE(std::isnan(ConvertScalar(ET::kF16, ET::kF8E5M2FNUZ, F(65504.0)).re));
  EXPECT_EQ(ConvertScalar(ET::kF8E8M0FNU, ET::kF32, F(0x1p-127)).re, 0x1p-127);
  EXPECT_EQ(ConvertScalar(ET::kBF16, ET::kF16, F(0x1p-30)).re, 0.0);
  EXPECT_SAME(ConvertScalar(ET::kF32, ET::kF8E4M3FNUZ, F(-0.0)).re, 0.0);
  EXPECT_TRUE(std::isnan(ConvertScalar(ET::kF32, ET::kF16, F(kNaN)).re));
  // complex
  Scalar c = ConvertScalar(ET::kC128, ET::kC64, Cx(0.1, -0.2));
  EXPECT_EQ(c.re, static_cast<double>(0.1f));
  EXPECT_EQ(c.im, static_cast<double>(-0.2f));
  EXPECT_EQ(ConvertScalar(ET::kC128, ET::kF64, Cx(-1, 5)).re, -1.0);
  c = ConvertScalar(ET::kF64, ET::kC64, F(0.1));
  EXPECT_EQ(c.re, static_cast<double>(0.1f));
  EXPECT_EQ(c.im, 0.0);
}

// ----- evaluation ----------------------------------------------------------------

Scalar Eval(ScalarOp op, ET result, std::initializer_list<std::pair<ET, Scalar>> args, int64_t a0 = 0,
            int64_t a1 = 0) {
  ScalarInstr in;
  in.op = op;
  in.type = result;
  in.num_operands = static_cast<uint8_t>(args.size());
  in.attr0 = a0;
  in.attr1 = a1;
  ET types[3];
  Scalar vals[3];
  int k = 0;
  for (const auto& [t, v] : args) {
    types[k] = t;
    vals[k] = v;
    ++k;
  }
  return EvalScalarInstr(in, types, vals);
}
int64_t EvalI(ScalarOp op, ET t, int64_t a, int64_t b) { return Eval(op, t, {{t, I(a)}, {t, I(b)}}).i; }
int64_t EvalI1(ScalarOp op, ET t, int64_t a) { return Eval(op, t, {{t, I(a)}}).i; }
double EvalF(ScalarOp op, ET t, double a, double b) { return Eval(op, t, {{t, F(a)}, {t, F(b)}}).re; }
double EvalF1(ScalarOp op, ET t, double a) { return Eval(op, t, {{t, F(a)}}).re; }

TEST(ScalarEval, IntegerArithmeticWrapsAtEveryWidth) {
  EXPECT_EQ(EvalI(ScalarOp::kAdd, ET::kSI8, 127, 1), -128);
  EXPECT_EQ(EvalI(ScalarOp::kAdd, ET::kUI8, 255, 1), 0);
  EXPECT_EQ(EvalI(ScalarOp::kAdd, ET::kSI4, 7, 1), -8);
  EXPECT_EQ(EvalI(ScalarOp::kAdd, ET::kUI4, 15, 2), 1);
  EXPECT_EQ(EvalI(ScalarOp::kAdd, ET::kSI2, 1, 1), -2);
  EXPECT_EQ(EvalI(ScalarOp::kAdd, ET::kUI2, 3, 1), 0);
  EXPECT_EQ(EvalI(ScalarOp::kSubtract, ET::kUI16, 0, 1), 65535);
  EXPECT_EQ(EvalI(ScalarOp::kSubtract, ET::kSI16, -32768, 1), 32767);
  EXPECT_EQ(EvalI(ScalarOp::kMultiply, ET::kSI32, 65536, 65536), 0);
  EXPECT_EQ(EvalI(ScalarOp::kMultiply, ET::kUI32, 0xFFFFFFFFll, 0xFFFFFFFFll), 1);
  EXPECT_EQ(EvalI(ScalarOp::kAdd, ET::kSI64, std::numeric_limits<int64_t>::max(), 1),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(EvalI(ScalarOp::kAdd, ET::kUI64, -1, 1), 0);
  EXPECT_EQ(EvalI1(ScalarOp::kNegate, ET::kSI8, -128), -128);
  EXPECT_EQ(EvalI1(ScalarOp::kNegate, ET::kUI8, 1), 255);
  EXPECT_EQ(EvalI1(ScalarOp::kAbs, ET::kSI8, -128), -128);
  EXPECT_EQ(EvalI1(ScalarOp::kAbs, ET::kSI32, -5), 5);
  EXPECT_EQ(EvalI1(ScalarOp::kNot, ET::kUI8, 0), 255);
  EXPECT_EQ(EvalI1(ScalarOp::kNot, ET::kSI4, 0), -1);
  EXPECT_EQ(EvalI1(ScalarOp::kNot, ET::kI1, 1), 0);
  EXPECT_EQ(EvalI(ScalarOp::kAdd, ET::kI1, 1, 1), 1);       // bool add = or
  EXPECT_EQ(EvalI(ScalarOp::kMultiply, ET::kI1, 1, 0), 0);  // bool mul = and
  EXPECT_EQ(EvalI(ScalarOp::kXor, ET::kUI8, 0xF0, 0xFF), 0x0F);
  EXPECT_EQ(EvalI(ScalarOp::kAnd, ET::kSI8, -1, 0x55), 0x55);
  EXPECT_EQ(EvalI(ScalarOp::kOr, ET::kSI8, 0x40, 0x3F), 0x7F);
  EXPECT_EQ(EvalI(ScalarOp::kMaximum, ET::kUI64, -1, 5), -1);  // unsigned order
  EXPECT_EQ(EvalI(ScalarOp::kMinimum, ET::kSI64, -1, 5), -1);
  EXPECT_EQ(EvalI(ScalarOp::kMaximum, ET::kI1, 0, 1), 1);
}

TEST(ScalarEval, IntegerDivisionEdgeCases) {
  // divide.mlir / remainder.mlir
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kSI64, 17, 3), 5);
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kSI64, -17, 3), -5);
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kSI64, 17, -3), -5);
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kSI64, -17, -3), 5);
  EXPECT_EQ(EvalI(ScalarOp::kRemainder, ET::kSI64, 17, 3), 2);
  EXPECT_EQ(EvalI(ScalarOp::kRemainder, ET::kSI64, -17, 3), -2);
  EXPECT_EQ(EvalI(ScalarOp::kRemainder, ET::kSI64, 17, -3), 2);
  EXPECT_EQ(EvalI(ScalarOp::kRemainder, ET::kSI64, -17, -3), -2);
  EXPECT_EQ(EvalI(ScalarOp::kRemainder, ET::kUI64, 20, 7), 6);
  // by zero and overflow
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kSI32, 7, 0), -1);
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kUI8, 7, 0), 255);
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kUI64, 7, 0), -1);
  EXPECT_EQ(EvalI(ScalarOp::kRemainder, ET::kSI32, 7, 0), 7);
  EXPECT_EQ(EvalI(ScalarOp::kRemainder, ET::kUI8, 200, 0), 200);
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kSI8, -128, -1), -128);
  EXPECT_EQ(EvalI(ScalarOp::kRemainder, ET::kSI8, -128, -1), 0);
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kSI64, std::numeric_limits<int64_t>::min(), -1),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(EvalI(ScalarOp::kRemainder, ET::kSI64, std::numeric_limits<int64_t>::min(), -1), 0);
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kUI64, -1, 2), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kSI4, -8, 3), -2);
}

TEST(ScalarEval, Shifts) {
  // shift_*.mlir
  EXPECT_EQ(EvalI(ScalarOp::kShiftLeft, ET::kSI64, -1, 1), -2);
  EXPECT_EQ(EvalI(ScalarOp::kShiftLeft, ET::kSI64, 1, 3), 8);
  EXPECT_EQ(EvalI(ScalarOp::kShiftRightArithmetic, ET::kSI64, -1, 1), -1);
  EXPECT_EQ(EvalI(ScalarOp::kShiftRightArithmetic, ET::kSI64, 8, 3), 1);
  EXPECT_EQ(EvalI(ScalarOp::kShiftRightLogical, ET::kSI64, -1, 1), std::numeric_limits<int64_t>::max());
  // amounts >= width (or negative, read unsigned)
  EXPECT_EQ(EvalI(ScalarOp::kShiftLeft, ET::kSI32, 1, 32), 0);
  EXPECT_EQ(EvalI(ScalarOp::kShiftLeft, ET::kSI64, 1, 64), 0);
  EXPECT_EQ(EvalI(ScalarOp::kShiftLeft, ET::kSI8, 1, -1), 0);
  EXPECT_EQ(EvalI(ScalarOp::kShiftRightLogical, ET::kUI8, 255, 8), 0);
  EXPECT_EQ(EvalI(ScalarOp::kShiftRightLogical, ET::kSI8, -1, 4), 15);
  EXPECT_EQ(EvalI(ScalarOp::kShiftRightArithmetic, ET::kSI8, -100, 100), -1);
  EXPECT_EQ(EvalI(ScalarOp::kShiftRightArithmetic, ET::kSI8, 100, 8), 0);
  EXPECT_EQ(EvalI(ScalarOp::kShiftRightArithmetic, ET::kUI8, 0x80, 1), 0xC0);
  EXPECT_EQ(EvalI(ScalarOp::kShiftRightArithmetic, ET::kSI64, std::numeric_limits<int64_t>::min(), 64), -1);
  EXPECT_EQ(EvalI(ScalarOp::kShiftLeft, ET::kSI8, 1, 7), -128);
  EXPECT_EQ(EvalI(ScalarOp::kShiftLeft, ET::kUI4, 3, 3), 8);
  EXPECT_EQ(EvalI(ScalarOp::kShiftLeft, ET::kSI4, 3, 2), -4);
}

TEST(ScalarEval, PopcntAndClz) {
  EXPECT_EQ(EvalI1(ScalarOp::kPopcnt, ET::kSI8, -1), 8);
  EXPECT_EQ(EvalI1(ScalarOp::kPopcnt, ET::kSI64, -1), 64);
  EXPECT_EQ(EvalI1(ScalarOp::kPopcnt, ET::kSI4, -1), 4);
  EXPECT_EQ(EvalI1(ScalarOp::kPopcnt, ET::kUI16, 0x0F0F), 8);
  EXPECT_EQ(EvalI1(ScalarOp::kCountLeadingZeros, ET::kSI8, 1), 7);
  EXPECT_EQ(EvalI1(ScalarOp::kCountLeadingZeros, ET::kSI8, 0), 8);
  EXPECT_EQ(EvalI1(ScalarOp::kCountLeadingZeros, ET::kSI8, -1), 0);
  EXPECT_EQ(EvalI1(ScalarOp::kCountLeadingZeros, ET::kUI2, 1), 1);
  EXPECT_EQ(EvalI1(ScalarOp::kCountLeadingZeros, ET::kSI64, 1), 63);
  EXPECT_EQ(EvalI1(ScalarOp::kCountLeadingZeros, ET::kUI32, 0x00FF0000), 8);
}

TEST(ScalarEval, IntegerPowerAndSignAndMulhi) {
  // power.mlir
  int64_t lhs[] = {-1, -1, -3, 1, -3, 0}, rhs[] = {1, 0, -3, -3, 3, 2}, want[] = {-1, 1, 0, 1, -27, 0};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(EvalI(ScalarOp::kPower, ET::kSI64, lhs[i], rhs[i]), want[i]) << i;
  int64_t ul[] = {0, 0, 1, 1, 5}, ur[] = {0, 1, 0, 2, 5}, uw[] = {1, 0, 1, 1, 3125};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(EvalI(ScalarOp::kPower, ET::kUI64, ul[i], ur[i]), uw[i]) << i;
  EXPECT_EQ(EvalI(ScalarOp::kPower, ET::kSI64, -1, -3), -1);
  EXPECT_EQ(EvalI(ScalarOp::kPower, ET::kSI8, 2, 7), -128);
  EXPECT_EQ(EvalI(ScalarOp::kPower, ET::kSI8, 3, 5), 243 - 256);
  EXPECT_EQ(EvalI(ScalarOp::kPower, ET::kUI8, 2, 200), 0);
  // sign.mlir
  EXPECT_EQ(EvalI1(ScalarOp::kSign, ET::kSI64, -5), -1);
  EXPECT_EQ(EvalI1(ScalarOp::kSign, ET::kSI64, 0), 0);
  EXPECT_EQ(EvalI1(ScalarOp::kSign, ET::kSI8, 100), 1);
  // chlo/mulhi.mlir
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kSI8, 64, 4), 1);
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kSI8, -64, 4), -1);
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kSI8, -64, -4), 1);
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kUI8, 240, 16), 15);
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kUI8, 128, 2), 1);
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kSI16, -16384, 8), -2);
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kUI16, 61440, 16), 15);
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kSI32, -268435456, 16), -1);
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kUI64, -1, -1), -2);  // (2^64-1)^2 >> 64 = 2^64 - 2
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kSI64, std::numeric_limits<int64_t>::min(), 2), -1);
}

TEST(ScalarEval, FloatArithmeticRoundsToResultType) {
  EXPECT_EQ(EvalF(ScalarOp::kAdd, ET::kF32, 1.0, 0x1p-24), 1.0);  // tie -> even
  EXPECT_EQ(EvalF(ScalarOp::kAdd, ET::kF32, 1.0, 0x1.8p-24), 1.0 + 0x1p-23);
  EXPECT_EQ(EvalF(ScalarOp::kAdd, ET::kF16, 65504.0, 16.0), kInf);
  EXPECT_TRUE(std::isnan(EvalF(ScalarOp::kMultiply, ET::kF8E4M3FN, 448.0, 2.0)));
  EXPECT_EQ(EvalF(ScalarOp::kMultiply, ET::kF4E2M1FN, 6.0, 6.0), 6.0);
  EXPECT_EQ(EvalF(ScalarOp::kDivide, ET::kF32, 1.0, 3.0), static_cast<double>(1.0f / 3.0f));
  EXPECT_EQ(EvalF(ScalarOp::kDivide, ET::kF64, 17.1, 3.0), 17.1 / 3.0);
  EXPECT_EQ(EvalF1(ScalarOp::kSqrt, ET::kF32, 2.0), static_cast<double>(std::sqrt(2.0f)));
  EXPECT_EQ(EvalF(ScalarOp::kSubtract, ET::kBF16, 1.0, 0x1p-9), 1.0);
  // remainder.mlir (exact expected value)
  EXPECT_EQ(EvalF(ScalarOp::kRemainder, ET::kF64, 17.1, 3.0), 2.1000000000000014);
  EXPECT_EQ(EvalF(ScalarOp::kRemainder, ET::kF64, -17.1, -3.0), -2.1000000000000014);
  EXPECT_SAME(EvalF(ScalarOp::kRemainder, ET::kF64, -6.0, 3.0), -0.0);
  // power.mlir
  EXPECT_EQ(EvalF(ScalarOp::kPower, ET::kF64, -2.0, 2.0), 4.0);
  EXPECT_TRUE(std::isnan(EvalF(ScalarOp::kPower, ET::kF64, -36.0, 1.1)));
  EXPECT_DOUBLE_EQ(EvalF(ScalarOp::kPower, ET::kF64, 3.0, -1.0), 0.33333333333333331);
  EXPECT_DOUBLE_EQ(EvalF(ScalarOp::kPower, ET::kF64, 10000.0, 10.0), 1e40);
  EXPECT_EQ(EvalF(ScalarOp::kPower, ET::kF32, 2.0, 0.5), static_cast<double>(static_cast<float>(std::sqrt(2.0))));
}

TEST(ScalarEval, FloatMaxMinSignRounding) {
  EXPECT_TRUE(std::isnan(EvalF(ScalarOp::kMaximum, ET::kF32, kNaN, 1.0)));
  EXPECT_TRUE(std::isnan(EvalF(ScalarOp::kMinimum, ET::kF32, 1.0, kNaN)));
  EXPECT_SAME(EvalF(ScalarOp::kMaximum, ET::kF32, -0.0, 0.0), 0.0);
  EXPECT_SAME(EvalF(ScalarOp::kMinimum, ET::kF32, 0.0, -0.0), -0.0);
  EXPECT_EQ(EvalF(ScalarOp::kMaximum, ET::kF64, -kInf, -5.0), -5.0);
  // sign.mlir
  EXPECT_TRUE(std::isnan(EvalF1(ScalarOp::kSign, ET::kF64, kNaN)));
  EXPECT_SAME(EvalF1(ScalarOp::kSign, ET::kF64, -0.0), -0.0);
  EXPECT_SAME(EvalF1(ScalarOp::kSign, ET::kF64, 0.0), 0.0);
  EXPECT_EQ(EvalF1(ScalarOp::kSign, ET::kF64, -kInf), -1.0);
  EXPECT_EQ(EvalF1(ScalarOp::kSign, ET::kF16, 0x1p-24), 1.0);
  // round_nearest_afz.mlir / round_nearest_even.mlir
  double in[] = {-2.5, -0.5, 0.4, 0.5, 0.6, 1.5, 2.5};
  double afz[] = {-3.0, -1.0, 0.0, 1.0, 1.0, 2.0, 3.0};
  double even[] = {-2.0, -0.0, 0.0, 0.0, 1.0, 2.0, 2.0};
  for (int i = 0; i < 7; ++i) {
    EXPECT_SAME(EvalF1(ScalarOp::kRoundNearestAfz, ET::kF64, in[i]), afz[i]) << in[i];
    EXPECT_SAME(EvalF1(ScalarOp::kRoundNearestEven, ET::kF64, in[i]), even[i]) << in[i];
  }
  EXPECT_EQ(EvalF1(ScalarOp::kCeil, ET::kF32, -0.5), -0.0);
  EXPECT_EQ(EvalF1(ScalarOp::kFloor, ET::kF32, -0.5), -1.0);
  // classification
  EXPECT_EQ(Eval(ScalarOp::kIsFinite, ET::kI1, {{ET::kF32, F(kInf)}}).i, 0);
  EXPECT_EQ(Eval(ScalarOp::kIsFinite, ET::kI1, {{ET::kF32, F(kNaN)}}).i, 0);
  EXPECT_EQ(Eval(ScalarOp::kIsFinite, ET::kI1, {{ET::kF32, F(1e30)}}).i, 1);
  EXPECT_EQ(Eval(ScalarOp::kIsInf, ET::kI1, {{ET::kF32, F(-kInf)}}).i, 1);
  EXPECT_EQ(Eval(ScalarOp::kIsPosInf, ET::kI1, {{ET::kF32, F(-kInf)}}).i, 0);
  EXPECT_EQ(Eval(ScalarOp::kIsNegInf, ET::kI1, {{ET::kF32, F(-kInf)}}).i, 1);
}

int64_t Cmp(ComparisonDirection d, ComparisonType ct, ET t, Scalar a, Scalar b) {
  return Eval(ScalarOp::kCompare, ET::kI1, {{t, a}, {t, b}}, static_cast<int64_t>(d), static_cast<int64_t>(ct)).i;
}

TEST(ScalarEval, CompareFloatMatchesCompareMlir) {
  auto bits = [](uint64_t b) { return std::bit_cast<double>(b); };
  double lhs[] = {bits(0xFFF0000000000001), bits(0xFFF0000000000001), -kInf, -kInf, -2.0, -2.0, -0.0, -0.0, 0.0,
                  1.0, 2.0, kInf, bits(0x7FF0000000000001), bits(0x7FF0000000000001)};
  double rhs[] = {bits(0xFFF0000000000001), bits(0x7FF0000000000001), -kInf, kInf, -2.0, -1.0, -0.0, 0.0, 0.0,
                  2.0, 2.0, kInf, bits(0x7FF0000000000001), bits(0x7FFFFFFFFFFFFFFF)};
  const char* ne = "11010100010011";
  const char* ge = "00101011101100";
  const char* le = "00111111111100";
  const char* lt = "00010100010000";
  for (int i = 0; i < 14; ++i) {
    auto c = [&](ComparisonDirection d) { return Cmp(d, ComparisonType::kFloat, ET::kF64, F(lhs[i]), F(rhs[i])); };
    EXPECT_EQ(c(ComparisonDirection::kNE), ne[i] - '0') << i;
    EXPECT_EQ(c(ComparisonDirection::kGE), ge[i] - '0') << i;
    EXPECT_EQ(c(ComparisonDirection::kLE), le[i] - '0') << i;
    EXPECT_EQ(c(ComparisonDirection::kLT), lt[i] - '0') << i;
    EXPECT_EQ(c(ComparisonDirection::kGT), 0) << i;
    EXPECT_EQ(c(ComparisonDirection::kEQ), 1 - (ne[i] - '0')) << i;
  }
}

TEST(ScalarEval, CompareTotalOrder) {
  auto bits = [](uint64_t b) { return std::bit_cast<double>(b); };
  // Strictly increasing in IEEE totalOrder.
  double order[] = {bits(0xFFFFFFFFFFFFFFFF), bits(0xFFF8000000000000), bits(0xFFF0000000000001), -kInf, -1e300,
                    -1.0, -0x1p-1074, -0.0, 0.0, 0x1p-1074, 1.0, kInf, bits(0x7FF0000000000001),
                    bits(0x7FF8000000000000), bits(0x7FFFFFFFFFFFFFFF)};
  constexpr int n = sizeof(order) / sizeof(order[0]);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      auto c = [&](ComparisonDirection d) {
        return Cmp(d, ComparisonType::kTotalOrder, ET::kF64, F(order[i]), F(order[j]));
      };
      EXPECT_EQ(c(ComparisonDirection::kLT), i < j ? 1 : 0) << i << "," << j;
      EXPECT_EQ(c(ComparisonDirection::kEQ), i == j ? 1 : 0) << i << "," << j;
      EXPECT_EQ(c(ComparisonDirection::kGE), i >= j ? 1 : 0) << i << "," << j;
      EXPECT_EQ(c(ComparisonDirection::kNE), i != j ? 1 : 0) << i << "," << j;
    }
  }
  // On a narrow type, the loaded NaN sign still orders.
  double neg_nan = LoadBits(ET::kBF16, 0xFFC0), pos_nan = LoadBits(ET::kBF16, 0x7FC0);
  EXPECT_EQ(Cmp(ComparisonDirection::kLT, ComparisonType::kTotalOrder, ET::kBF16, F(neg_nan), F(-kInf)), 1);
  EXPECT_EQ(Cmp(ComparisonDirection::kGT, ComparisonType::kTotalOrder, ET::kBF16, F(pos_nan), F(kInf)), 1);
}

TEST(ScalarEval, CompareIntegersAndComplex) {
  using D = ComparisonDirection;
  using T = ComparisonType;
  EXPECT_EQ(Cmp(D::kLT, T::kNotype, ET::kSI8, I(-1), I(1)), 1);
  EXPECT_EQ(Cmp(D::kLT, T::kNotype, ET::kUI8, I(255), I(1)), 0);
  EXPECT_EQ(Cmp(D::kLT, T::kUnsigned, ET::kSI8, I(-1), I(1)), 0);  // 0xFF > 1
  EXPECT_EQ(Cmp(D::kLT, T::kSigned, ET::kSI8, I(-1), I(1)), 1);
  EXPECT_EQ(Cmp(D::kGT, T::kNotype, ET::kUI64, I(-1), I(0)), 1);
  EXPECT_EQ(Cmp(D::kGT, T::kNotype, ET::kI1, I(1), I(0)), 1);
  EXPECT_EQ(Cmp(D::kEQ, T::kNotype, ET::kF32, F(kNaN), F(kNaN)), 0);
  // compare.mlir complex cases
  double nan = std::bit_cast<double>(uint64_t{0x7FF0000000000001});
  EXPECT_EQ(Cmp(D::kEQ, T::kNotype, ET::kC128, Cx(nan, 0.0), Cx(nan, -0.0)), 0);
  Scalar l[] = {Cx(nan, 0.0), Cx(0.0, nan), Cx(-0.0, 0.0), Cx(2.0, 2.0)};
  Scalar r[] = {Cx(nan, -0.0), Cx(-0.0, nan), Cx(0.0, 0.0), Cx(2.0, 1.0)};
  int eq[] = {0, 0, 1, 0};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(Cmp(D::kEQ, T::kFloat, ET::kC128, l[i], r[i]), eq[i]) << i;
    EXPECT_EQ(Cmp(D::kNE, T::kFloat, ET::kC128, l[i], r[i]), 1 - eq[i]) << i;
  }
  EXPECT_EQ(Cmp(D::kGT, T::kFloat, ET::kC128, Cx(2.0, 2.0), Cx(2.0, 1.0)), 1);
  EXPECT_EQ(Cmp(D::kLT, T::kFloat, ET::kC128, Cx(1.0, 5.0), Cx(2.0, 1.0)), 1);
}

TEST(ScalarEval, ReducePrecisionMatchesReducePrecisionMlir) {
  auto rp = [](ET t, double v, int e, int m) {
    return Eval(ScalarOp::kReducePrecision, t, {{t, F(v)}}, e, m).re;
  };
  double nan = std::bit_cast<double>(uint64_t{0x7FFFFFFFFFFFFFFF});
  EXPECT_EQ(rp(ET::kF64, kInf, 5, 10), kInf);
  EXPECT_TRUE(std::isnan(rp(ET::kF64, nan, 5, 10)));
  EXPECT_EQ(rp(ET::kF64, 0x1p-1074, 5, 10), 0.0);
  EXPECT_EQ(rp(ET::kF64, 0.0, 5, 10), 0.0);
  EXPECT_EQ(rp(ET::kF64, 65505.0, 5, 10), 65504.0);
  EXPECT_EQ(rp(ET::kF64, 65520.0, 5, 10), kInf);
  EXPECT_EQ(rp(ET::kF64, nan, 5, 0), kInf);  // e5m0: NaN -> inf
  // f16-denormal range flushes to signed zero.
  EXPECT_SAME(rp(ET::kF32, -0x1p-20, 5, 10), -0.0);
  EXPECT_EQ(rp(ET::kF32, 0x1p-14, 5, 10), 0x1p-14);
  // Mantissa rounding: ties to even.
  EXPECT_EQ(rp(ET::kF32, 1.0 + 0x1p-11, 5, 10), 1.0);
  EXPECT_EQ(rp(ET::kF32, 1.0 + 3 * 0x1p-11, 5, 10), 1.0 + 0x1p-9);
  EXPECT_EQ(rp(ET::kF32, 1.0 + 0x1p-9, 8, 7), 1.0);
  // With 0 mantissa bits XLA's tie-to-even looks at the exponent's low bit:
  // 3 = 1.1b x 2^1 (biased exponent 128, even) rounds down, 1.5 (127) up.
  EXPECT_EQ(rp(ET::kBF16, 3.0, 8, 0), 2.0);
  EXPECT_EQ(rp(ET::kBF16, 1.5, 8, 0), 2.0);
  EXPECT_EQ(rp(ET::kBF16, 1.75, 8, 0), 2.0);
  EXPECT_EQ(rp(ET::kF16, 1000.0, 2, 10), kInf);  // e2: max exponent 1
  EXPECT_EQ(rp(ET::kF64, 1.7976931348623157e308, 11, 52), 1.7976931348623157e308);
}

TEST(ScalarEval, ComplexArithmeticAndTranscendentals) {
  auto cx2 = [](ScalarOp op, Scalar a, Scalar b) { return Eval(op, ET::kC128, {{ET::kC128, a}, {ET::kC128, b}}); };
  // divide.mlir
  Scalar d = cx2(ScalarOp::kDivide, Cx(1.5, 2.5), Cx(2.5, 1.5));
  EXPECT_NEAR(d.re, 0.88235294117647056, 1e-15);
  EXPECT_NEAR(d.im, 0.4705882352941177, 1e-15);
  // power.mlir
  Scalar p = cx2(ScalarOp::kPower, Cx(1.5, 2.5), Cx(2.5, 1.5));
  EXPECT_NEAR(p.re, -1.5679313814305016, 1e-12);
  EXPECT_NEAR(p.im, -2.6674775446623613, 1e-12);
  Scalar m = cx2(ScalarOp::kMultiply, Cx(1, 2), Cx(3, 4));
  EXPECT_EQ(m.re, -5.0);
  EXPECT_EQ(m.im, 10.0);
  Scalar ab = Eval(ScalarOp::kAbs, ET::kF64, {{ET::kC128, Cx(3, 4)}});
  EXPECT_EQ(ab.re, 5.0);
  Scalar ab32 = Eval(ScalarOp::kAbs, ET::kF32, {{ET::kC64, Cx(0.1f, 0.0)}});
  EXPECT_EQ(ab32.re, static_cast<double>(0.1f));
  Scalar e = Eval(ScalarOp::kExponential, ET::kC128, {{ET::kC128, Cx(0, std::numbers::pi)}});
  EXPECT_NEAR(e.re, -1.0, 1e-15);
  EXPECT_NEAR(e.im, 0.0, 1e-15);
  Scalar sg = Eval(ScalarOp::kSign, ET::kC128, {{ET::kC128, Cx(3, -4)}});
  EXPECT_DOUBLE_EQ(sg.re, 0.6);
  EXPECT_DOUBLE_EQ(sg.im, -0.8);
  Scalar sgn = Eval(ScalarOp::kSign, ET::kC128, {{ET::kC128, Cx(kNaN, 1)}});
  EXPECT_TRUE(std::isnan(sgn.re) && std::isnan(sgn.im));
  Scalar l1p = Eval(ScalarOp::kLogPlusOne, ET::kC128, {{ET::kC128, Cx(1e-20, 1e-20)}});
  EXPECT_NEAR(l1p.re, 1e-20, 1e-34);
  EXPECT_NEAR(l1p.im, 1e-20, 1e-34);
  Scalar em1 = Eval(ScalarOp::kExponentialMinusOne, ET::kC128, {{ET::kC128, Cx(1e-20, 0)}});
  EXPECT_NEAR(em1.re, 1e-20, 1e-34);
  Scalar c = Eval(ScalarOp::kComplex, ET::kC64, {{ET::kF32, F(1.5)}, {ET::kF32, F(-2.0)}});
  EXPECT_EQ(c.re, 1.5);
  EXPECT_EQ(c.im, -2.0);
  EXPECT_EQ(Eval(ScalarOp::kReal, ET::kF64, {{ET::kC128, Cx(1.5, 2.5)}}).re, 1.5);
  EXPECT_EQ(Eval(ScalarOp::kImag, ET::kF64, {{ET::kC128, Cx(1.5, 2.5)}}).re, 2.5);
  EXPECT_EQ(Eval(ScalarOp::kImag, ET::kF64, {{ET::kF64, F(1.5)}}).re, 0.0);
  Scalar sq = Eval(ScalarOp::kSqrt, ET::kC128, {{ET::kC128, Cx(-4, 0)}});
  EXPECT_NEAR(sq.re, 0.0, 1e-15);
  EXPECT_NEAR(sq.im, 2.0, 1e-15);
}

TEST(ScalarEval, RealTranscendentalsAndChlo) {
  EXPECT_EQ(EvalF1(ScalarOp::kExponential, ET::kF32, 1.0), static_cast<double>(static_cast<float>(std::numbers::e)));
  EXPECT_EQ(EvalF1(ScalarOp::kLog, ET::kF64, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(EvalF1(ScalarOp::kLogistic, ET::kF64, 0.0), 0.5);
  EXPECT_DOUBLE_EQ(EvalF1(ScalarOp::kRsqrt, ET::kF64, 4.0), 0.5);
  EXPECT_DOUBLE_EQ(EvalF1(ScalarOp::kCbrt, ET::kF64, -27.0), -3.0);
  EXPECT_DOUBLE_EQ(EvalF(ScalarOp::kAtan2, ET::kF64, 1.0, -1.0), 3 * std::numbers::pi / 4);
  EXPECT_NEAR(EvalF1(ScalarOp::kDigamma, ET::kF64, 1.0), -0.5772156649015329, 1e-14);
  EXPECT_NEAR(EvalF1(ScalarOp::kDigamma, ET::kF64, 0.5), -1.9635100260214235, 1e-14);
  EXPECT_NEAR(EvalF1(ScalarOp::kDigamma, ET::kF64, -0.5), 0.03648997397857652, 1e-13);
  EXPECT_TRUE(std::isnan(EvalF1(ScalarOp::kDigamma, ET::kF64, -2.0)));
  EXPECT_NEAR(EvalF(ScalarOp::kZeta, ET::kF64, 2.0, 1.0), std::numbers::pi * std::numbers::pi / 6, 1e-14);
  EXPECT_NEAR(EvalF(ScalarOp::kZeta, ET::kF64, 3.0, 2.0), 1.2020569031595942 - 1, 1e-14);
  EXPECT_NEAR(EvalF(ScalarOp::kZeta, ET::kF64, 4.0, 0.5), std::pow(std::numbers::pi, 4) * 15 / 90, 1e-12);
  EXPECT_EQ(EvalF(ScalarOp::kZeta, ET::kF64, 1.0, 1.0), kInf);
  EXPECT_NEAR(EvalF(ScalarOp::kPolygamma, ET::kF64, 1.0, 1.0), std::numbers::pi * std::numbers::pi / 6, 1e-14);
  EXPECT_NEAR(EvalF(ScalarOp::kPolygamma, ET::kF64, 2.0, 1.0), -2 * 1.2020569031595942, 1e-13);
  EXPECT_NEAR(EvalF(ScalarOp::kPolygamma, ET::kF64, 0.0, 1.0), -0.5772156649015329, 1e-14);
  EXPECT_TRUE(std::isnan(EvalF(ScalarOp::kPolygamma, ET::kF64, 1.5, 1.0)));
  for (double x : {-0.999, -0.5, -1e-10, 0.1, 0.5, 0.9, 0.999999}) {
    double y = EvalF1(ScalarOp::kErfInv, ET::kF64, x);
    EXPECT_NEAR(std::erf(y), x, 4e-16) << x;
  }
  EXPECT_EQ(EvalF1(ScalarOp::kErfInv, ET::kF64, 1.0), kInf);
  EXPECT_NEAR(EvalF1(ScalarOp::kBesselI1e, ET::kF64, 1.0), 0.20791041534970844, 1e-15);
  EXPECT_NEAR(EvalF1(ScalarOp::kBesselI1e, ET::kF64, -1.0), -0.20791041534970844, 1e-15);
  EXPECT_EQ(EvalF1(ScalarOp::kBesselI1e, ET::kF64, 0.0), 0.0);
  // e^-x I1(x) ~ (1 - 3/(8x) - 15/(128x^2) - 315/(3072x^3) - 14175/(98304x^4)) / sqrt(2 pi x)
  auto asym = [](double x) {
    return (1 - 3 / (8 * x) - 15 / (128 * x * x) - 315 / (3072 * x * x * x) - 14175 / (98304 * x * x * x * x)) /
           std::sqrt(2 * std::numbers::pi * x);
  };
  EXPECT_NEAR(EvalF1(ScalarOp::kBesselI1e, ET::kF64, 1000.0), asym(1000.0), 1e-15);
  EXPECT_NEAR(EvalF1(ScalarOp::kBesselI1e, ET::kF64, 400.0), asym(400.0), 2e-15);  // series branch
  EXPECT_NEAR(EvalF1(ScalarOp::kLgamma, ET::kF64, 0.5), std::log(std::sqrt(std::numbers::pi)), 1e-15);
  EXPECT_DOUBLE_EQ(EvalF1(ScalarOp::kAcosh, ET::kF64, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(EvalF1(ScalarOp::kAtanh, ET::kF64, 0.5), 0.5493061443340549);
  EXPECT_EQ(EvalF1(ScalarOp::kSquare, ET::kF16, 300.0), kInf);
  EXPECT_EQ(EvalI1(ScalarOp::kSquare, ET::kSI8, 16), 0);
}

TEST(ScalarEval, NextAfterStepsInTheTypesEncoding) {
  EXPECT_EQ(EvalF(ScalarOp::kNextAfter, ET::kF32, 1.0, 2.0), 1.0 + 0x1p-23);
  EXPECT_EQ(EvalF(ScalarOp::kNextAfter, ET::kF64, 1.0, 0.0), 1.0 - 0x1p-53);
  EXPECT_EQ(EvalF(ScalarOp::kNextAfter, ET::kF16, 1.0, 2.0), 1.0 + 0x1p-10);
  EXPECT_EQ(EvalF(ScalarOp::kNextAfter, ET::kBF16, 1.0, 0.0), 1.0 - 0x1p-8);
  EXPECT_EQ(EvalF(ScalarOp::kNextAfter, ET::kF8E4M3FN, 0.0, -1.0), -0.001953125);
  EXPECT_EQ(EvalF(ScalarOp::kNextAfter, ET::kF8E4M3FN, 448.0, 0.0), 416.0);
  EXPECT_EQ(EvalF(ScalarOp::kNextAfter, ET::kF8E5M2, 57344.0, kInf), kInf);
  EXPECT_SAME(EvalF(ScalarOp::kNextAfter, ET::kF8E4M3FNUZ, -0.0009765625, 1.0), 0.0);
  EXPECT_SAME(EvalF(ScalarOp::kNextAfter, ET::kF8E4M3, -0.001953125, 1.0), -0.0);
  EXPECT_EQ(EvalF(ScalarOp::kNextAfter, ET::kF8E8M0FNU, 1.0, 0.5), 0.5);
  EXPECT_TRUE(std::isnan(EvalF(ScalarOp::kNextAfter, ET::kF32, kNaN, 1.0)));
}

TEST(ScalarEval, SelectClampConvertBitcast) {
  EXPECT_EQ(Eval(ScalarOp::kSelect, ET::kF32, {{ET::kI1, I(1)}, {ET::kF32, F(1.0)}, {ET::kF32, F(2.0)}}).re, 1.0);
  EXPECT_EQ(Eval(ScalarOp::kSelect, ET::kF32, {{ET::kI1, I(0)}, {ET::kF32, F(1.0)}, {ET::kF32, F(2.0)}}).re, 2.0);
  EXPECT_EQ(Eval(ScalarOp::kClamp, ET::kSI32, {{ET::kSI32, I(0)}, {ET::kSI32, I(-5)}, {ET::kSI32, I(10)}}).i, 0);
  EXPECT_EQ(Eval(ScalarOp::kClamp, ET::kSI32, {{ET::kSI32, I(0)}, {ET::kSI32, I(15)}, {ET::kSI32, I(10)}}).i, 10);
  EXPECT_EQ(Eval(ScalarOp::kClamp, ET::kUI8, {{ET::kUI8, I(5)}, {ET::kUI8, I(200)}, {ET::kUI8, I(250)}}).i, 200);
  EXPECT_TRUE(std::isnan(
      Eval(ScalarOp::kClamp, ET::kF32, {{ET::kF32, F(0)}, {ET::kF32, F(kNaN)}, {ET::kF32, F(1)}}).re));
  EXPECT_EQ(Eval(ScalarOp::kConvert, ET::kSI32, {{ET::kF32, F(-7.9)}}).i, -7);
  // bitcast_convert.mlir style
  EXPECT_EQ(Eval(ScalarOp::kBitcastConvert, ET::kSI32, {{ET::kF32, F(1.0)}}).i, 0x3F800000);
  EXPECT_EQ(Eval(ScalarOp::kBitcastConvert, ET::kF32, {{ET::kSI32, I(0x40490FDB)}}).re,
            static_cast<double>(std::bit_cast<float>(0x40490FDBu)));
  EXPECT_EQ(Eval(ScalarOp::kBitcastConvert, ET::kUI8, {{ET::kF8E4M3FN, F(-448.0)}}).i, 0xFE);
  EXPECT_EQ(Eval(ScalarOp::kBitcastConvert, ET::kSI4, {{ET::kF4E2M1FN, F(-6.0)}}).i, -1);
  EXPECT_EQ(Eval(ScalarOp::kBitcastConvert, ET::kF16, {{ET::kUI16, I(0x3C00)}}).re, 1.0);
  EXPECT_EQ(Eval(ScalarOp::kBitcastConvert, ET::kSI64, {{ET::kF64, F(-0.0)}}).i, std::numeric_limits<int64_t>::min());
  // A signalling NaN survives f32 -> i32 -> f32 -> i32.
  Scalar f = Eval(ScalarOp::kBitcastConvert, ET::kF32, {{ET::kSI32, I(0x7F800001)}});
  EXPECT_EQ(Eval(ScalarOp::kBitcastConvert, ET::kSI32, {{ET::kF32, f}}).i, 0x7F800001);
  ScalarInstr k;
  k.op = ScalarOp::kConstant;
  k.type = ET::kF32;
  k.constant.re = 2.5;
  EXPECT_EQ(EvalScalarInstr(k, nullptr, nullptr).re, 2.5);
}

// ----- programs ------------------------------------------------------------------

ScalarInstr Instr(ScalarOp op, ET t, std::initializer_list<uint16_t> ops, int64_t a0 = 0, int64_t a1 = 0) {
  ScalarInstr in;
  in.op = op;
  in.type = t;
  in.num_operands = static_cast<uint8_t>(ops.size());
  int k = 0;
  for (uint16_t o : ops) in.operands[k++] = o;
  in.attr0 = a0;
  in.attr1 = a1;
  return in;
}

TEST(ScalarProgram, RunsAndVerifies) {
  // max(a, b) > 3 ? a * b : a - b, on i8.
  ScalarProgram p;
  p.param_types = {ET::kSI8, ET::kSI8};
  ScalarInstr three;
  three.op = ScalarOp::kConstant;
  three.type = ET::kSI8;
  three.constant.i = 3;
  p.instrs.push_back(three);                                                   // v2
  p.instrs.push_back(Instr(ScalarOp::kMaximum, ET::kSI8, {0, 1}));             // v3
  p.instrs.push_back(Instr(ScalarOp::kCompare, ET::kI1, {3, 2},
                           static_cast<int64_t>(ComparisonDirection::kGT)));    // v4
  p.instrs.push_back(Instr(ScalarOp::kMultiply, ET::kSI8, {0, 1}));            // v5
  p.instrs.push_back(Instr(ScalarOp::kSubtract, ET::kSI8, {0, 1}));            // v6
  p.instrs.push_back(Instr(ScalarOp::kSelect, ET::kSI8, {4, 5, 6}));           // v7
  p.results = {7, 4};
  ASSERT_TRUE(VerifyScalarProgram(p).ok()) << VerifyScalarProgram(p).message();
  Scalar params[2] = {I(20), I(10)};
  std::vector<Scalar> scratch(p.num_values());
  Scalar results[2];
  RunScalarProgram(p, params, scratch.data(), results);
  EXPECT_EQ(results[0].i, -56);  // 200 wraps in i8
  EXPECT_EQ(results[1].i, 1);
  params[0] = I(1);
  params[1] = I(2);
  RunScalarProgram(p, params, scratch.data(), results);
  EXPECT_EQ(results[0].i, -1);
  EXPECT_EQ(results[1].i, 0);
}

TEST(ScalarProgram, VerifyRejectsMalformedPrograms) {
  auto base = [] {
    ScalarProgram p;
    p.param_types = {ET::kF32, ET::kF32};
    p.instrs.push_back(Instr(ScalarOp::kAdd, ET::kF32, {0, 1}));
    p.results = {2};
    return p;
  };
  EXPECT_TRUE(VerifyScalarProgram(base()).ok());
  ScalarProgram p = base();
  p.instrs[0].operands[1] = 2;  // uses itself
  EXPECT_FALSE(VerifyScalarProgram(p).ok());
  p = base();
  p.instrs[0].num_operands = 1;
  EXPECT_FALSE(VerifyScalarProgram(p).ok());
  p = base();
  p.instrs[0].op = static_cast<ScalarOp>(999);
  EXPECT_FALSE(VerifyScalarProgram(p).ok());
  p = base();
  p.results = {3};
  EXPECT_FALSE(VerifyScalarProgram(p).ok());
  p = base();
  p.param_types[1] = ET::kInvalid;
  EXPECT_FALSE(VerifyScalarProgram(p).ok());
  p = base();
  p.instrs[0].type = ET::kF16;  // operand/result mismatch
  EXPECT_FALSE(VerifyScalarProgram(p).ok());
  p = base();
  p.instrs.push_back(Instr(ScalarOp::kCompare, ET::kF32, {0, 1}));  // result must be i1
  EXPECT_FALSE(VerifyScalarProgram(p).ok());
  p = base();
  p.instrs.push_back(Instr(ScalarOp::kShiftLeft, ET::kF32, {0, 1}));  // not on floats
  EXPECT_FALSE(VerifyScalarProgram(p).ok());
  p = base();
  p.instrs.push_back(Instr(ScalarOp::kCompare, ET::kI1, {0, 1}, 9));  // bad direction
  EXPECT_FALSE(VerifyScalarProgram(p).ok());
}

}  // namespace
}  // namespace kiln::ref

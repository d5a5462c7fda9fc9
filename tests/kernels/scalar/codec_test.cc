// Tests of the scalar codec (kernels/scalar/codec.cc): loading and storing
// every element type, rounding to float types, integer wrapping, convert.
// Expected values come from the StableHLO conformance files, hand-computed
// constants, the compiler's own _Float16, or a brute-force oracle over every
// encoding of a type; never from the functions under test.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "tests/kernels/scalar/scalar_test_util.h"

namespace kiln::ref {
namespace {

using namespace scalar_test;

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


uint32_t StoreBits(ET t, double v) {
  uint8_t buf[16] = {};
  Scalar s;
  s.re = v;
  StoreScalar(t, s, buf);
  uint32_t bits = 0;
  std::memcpy(&bits, buf, StorageBytes(t) < 4 ? StorageBytes(t) : 4);
  return bits;
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

// The compiler's own IEEE half type, the independent oracle: ARM's __fp16
// on Arm (g++ 12 has no _Float16 in C++ there), else _Float16 where the
// compiler has it (g++ 12 on x86-64; clang 14, which the sanitizer build
// uses, has it on x86-64 only from clang 15: there the release build's
// run of this test is the one that compares).
#if defined(__ARM_FP16_FORMAT_IEEE)
#define KILN_HAVE_COMPILER_HALF 1
using CompilerHalf = __fp16;
#elif defined(__FLT16_MANT_DIG__)
#define KILN_HAVE_COMPILER_HALF 1
using CompilerHalf = _Float16;
#endif

#ifdef KILN_HAVE_COMPILER_HALF
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
#endif  // KILN_HAVE_COMPILER_HALF

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

}  // namespace
}  // namespace kiln::ref

// Kiln's own erfc in double, for f64 results (special_functions.h): C's
// erfc can be 2 ulp from the true value, and a device's results are
// checked against the reference within 3 ulp, so the reference computes it
// to within an ulp, by the same algorithm as the Vulkan device
// (kernels/vulkan/math64.glsl, kiln_erfc_d; its kiln_erf_d uses the series
// below too, within an ulp of C's erf, which the reference keeps: the
// series costs about 0.9 us per element against C's 17 ns):
//  - |x| <= 3.5: the Taylor series erf x = 2/sqrt(pi) sum_n (-x^2)^n x /
//    (n! (2n+1)) in double-double (two doubles, about 106 bits), whose
//    cancellation (at most e^12.25, 18 bits) leaves erf and erfc = 1 - erf
//    exact to far below an ulp;
//  - x > 3.5: erfc x = e^(-x^2) / (sqrt(pi) t) with t the continued
//    fraction x + (1/2) / (x + 1 / (x + (3/2) / (x + ...))) evaluated
//    backwards from 160 levels (its last step kept in two words), x^2 and
//    e^(-x^2) in two words.
// Double-double arithmetic needs every product and sum rounded as written:
// this file is compiled with -ffp-contract=off (CMakeLists.txt), so no
// multiply-add is fused, and splits products exactly by Veltkamp and Dekker
// (no std::fma, which is a slow library call where the CPU has no FMA).
#include <cmath>
#include <limits>

#include "kernels/scalar/special_functions.h"

namespace kiln::ref {
namespace {

struct DD {
  double hi, lo;
};

// a b - p exactly for p = a b rounded (Dekker, with Veltkamp's splits).
double TwoProdErr(double a, double b, double p) {
  auto split = [](double v, double& h, double& l) {
    const double t = 134217729.0 * v;  // 2^27 + 1
    h = t - (t - v);
    l = v - h;
  };
  double ah, al, bh, bl;
  split(a, ah, al);
  split(b, bh, bl);
  return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}

DD Add(DD a, DD b) {
  const double s = a.hi + b.hi, bb = s - a.hi;
  double e = (a.hi - (s - bb)) + (b.hi - bb);  // TwoSum
  e += a.lo + b.lo;
  const double t = s + e;
  return {t, e - (t - s)};
}

DD Mul(DD a, DD b) {
  const double p = a.hi * b.hi;
  const double e = TwoProdErr(a.hi, b.hi, p) + (a.hi * b.lo + a.lo * b.hi);
  const double s = p + e;
  return {s, e - (s - p)};
}

// a / b for a small integer b: the quotient corrected by its exact
// remainder, so that one rounded division suffices.
DD DivSmall(DD a, double b) {
  const double q = a.hi / b, p = q * b;
  const double r = ((a.hi - p) - TwoProdErr(q, b, p)) + a.lo;
  const double c = r / b, s = q + c;
  return {s, c - (s - q)};
}

constexpr DD kTwoOverSqrtPi = {1.1283791670955126, 1.533545961316588e-17};
constexpr DD kSqrtPi = {1.772453850905516, -7.666586499825799e-17};

// erf x in two words for |x| <= 3.5 (the Taylor series above).
DD ErfSeries(double x) {
  const double zh = x * x;
  const DD minus_z = {-zh, -TwoProdErr(x, x, zh)};
  DD p = {1, 0}, s = {1, 0};  // p = (-z)^n / n!, s = sum p / (2n+1)
  for (int n = 1; n < 200; ++n) {
    p = DivSmall(Mul(p, minus_z), n);
    const DD term = DivSmall(p, 2 * n + 1);
    s = Add(s, term);
    if (std::fabs(term.hi) <= 1e-33 * s.hi) break;
  }
  return Mul(Mul(s, {x, 0}), kTwoOverSqrtPi);
}

// e^-(zh + zl) in two words for zh + zl in [12, 746]: 2^-k e^r, r = k ln 2
// - (zh + zl) in [-0.35, 0.35] (ln 2 in three words, k ln 2 exact in two
// by Dekker), e^r by its Taylor series in two words.
DD ExpMinus(double zh, double zl) {
  constexpr double kLn2[3] = {0.6931471805599453, 2.3190468138462996e-17, 5.707708438416212e-34};
  const double k = std::nearbyint(zh * 1.4426950408889634);  // zh / ln 2
  const double p0 = k * kLn2[0];
  DD r = Add({p0, TwoProdErr(k, kLn2[0], p0)}, {-zh, -zl});
  r = Add(r, {k * kLn2[1], TwoProdErr(k, kLn2[1], k * kLn2[1]) + k * kLn2[2]});
  DD sum = {1, 0}, term = {1, 0};
  for (int n = 1; n < 30; ++n) {
    term = DivSmall(Mul(term, r), n);
    sum = Add(sum, term);
    if (std::fabs(term.hi) <= 1e-33) break;
  }
  const double scale = std::ldexp(1.0, -static_cast<int>(k));
  return {sum.hi * scale, sum.lo * scale};
}

// erfc x for 3.5 < x <= 27.3 (the continued fraction above).
double ErfcTail(double x) {
  double t = x;
  for (int k = 160; k > 1; --k) t = x + (0.5 * k) / t;
  const double q = 0.5 / t, th = x + q;  // the last level, in two words
  const DD tt = {th, q - (th - x)};
  const double zh = x * x;
  const DD num = ExpMinus(zh, TwoProdErr(x, x, zh));
  const DD den = Mul(tt, kSqrtPi);
  const double r = num.hi / den.hi;  // num / den, corrected once
  const DD rd = Mul({r, 0}, den);
  return r + ((num.hi - rd.hi) - rd.lo + num.lo) / den.hi;
}

}  // namespace

double Erfc(double x) {
  if (std::isnan(x)) return x;
  if (x < -6) return 2;
  if (x < -3.5) return 2 - ErfcTail(-x);
  if (x <= 3.5) {
    const DD e = ErfSeries(x);
    const DD r = Add({1, 0}, {-e.hi, -e.lo});
    return r.hi + r.lo;
  }
  if (x > 27.3) return 0;  // below half the smallest subnormal
  return ErfcTail(x);
}

}  // namespace kiln::ref

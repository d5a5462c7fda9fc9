// Real special functions of the chlo ops, computed in double with series,
// asymptotic expansions and Newton steps (the evaluator rounds the result to
// the op's type afterwards). Outside a function's domain the result is NaN,
// at a pole +-inf.
#include "kernels/scalar/special_functions.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace kiln::ref {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

double Digamma(double x) {
  if (std::isnan(x)) return x;
  if (x == kInf) return kInf;
  if (x == -kInf) return kNaN;
  if (x <= 0 && x == std::floor(x)) return kNaN;
  double result = 0;
  if (x < 0) {
    // Reflection: psi(1 - x) - psi(x) = pi * cot(pi x).
    result = -std::numbers::pi / std::tan(std::numbers::pi * x);
    x = 1 - x;
  }
  while (x < 20) {  // the series below is then accurate to ~1e-17
    result -= 1 / x;
    x += 1;
  }
  double inv2 = 1 / (x * x);
  // Asymptotic series: ln x - 1/(2x) - sum B_2k / (2k x^2k).
  double series = inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 * (1.0 / 132)))));
  return result + std::log(x) - 0.5 / x - series;
}

// Hurwitz zeta(s, q) = sum_k (q + k)^-s, via Euler-Maclaurin summation.
double HurwitzZeta(double s, double q) {
  if (std::isnan(s) || std::isnan(q)) return kNaN;
  if (s == 1) return kInf;
  if (s < 1) return kNaN;
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;
    if (s != std::floor(s)) return kNaN;
  }
  const int n = 16;
  double sum = 0;
  for (int k = 0; k < n; ++k) sum += std::pow(q + k, -s);
  double a = q + n;
  sum += std::pow(a, 1 - s) / (s - 1) + 0.5 * std::pow(a, -s);
  static constexpr double kB[] = {1.0 / 12,
                                  -1.0 / 720,
                                  1.0 / 30240,
                                  -1.0 / 1209600,
                                  1.0 / 47900160,
                                  -691.0 / 1307674368000.0,
                                  1.0 / 74724249600.0,
                                  -3617.0 / 10670622842880000.0,
                                  43867.0 / 5109094217170944000.0,
                                  -174611.0 / 802857662698291200000.0};
  double rising = s;                // s (s+1) ... (s+2j-2)
  double apow = std::pow(a, -s - 1);  // a^(-s-2j+1)
  for (int j = 1; j <= 10; ++j) {
    double term = kB[j - 1] * rising * apow;
    sum += term;
    if (std::fabs(term) <= std::fabs(sum) * 1e-17) break;
    rising *= (s + 2 * j - 1) * (s + 2 * j);
    apow /= a * a;
  }
  return sum;
}

double Polygamma(double n, double x) {
  if (std::isnan(n) || std::isnan(x)) return kNaN;
  if (n < 0 || n != std::floor(n)) return kNaN;
  if (n == 0) return Digamma(x);
  double sign = std::fmod(n, 2) == 0 ? -1.0 : 1.0;  // (-1)^(n+1)
  return sign * std::tgamma(n + 1) * HurwitzZeta(n + 1, x);
}

namespace {

template <double (*erf)(double), double (*erfc)(double)>
double ErfInverse(double x) {
  if (std::isnan(x)) return x;
  if (x == 1) return kInf;
  if (x == -1) return -kInf;
  if (x > 1 || x < -1) return kNaN;
  if (x == 0) return x;
  double ax = std::fabs(x);
  // Initial guess (Winitzki's approximation), then Newton steps.
  const double a = 0.147;
  double l = std::log((1 - ax) * (1 + ax));
  double t = 2 / (std::numbers::pi * a) + l / 2;
  double y = std::sqrt(std::sqrt(t * t - l / a) - t);
  const double k = 2 / std::sqrt(std::numbers::pi);
  for (int it = 0; it < 8; ++it) {
    double f = ax > 0.5 ? (1 - ax) - erfc(y) : erf(y) - ax;
    double step = f / (k * std::exp(-y * y));
    y -= step;
    if (std::fabs(step) <= std::fabs(y) * 1e-17) break;
  }
  return x < 0 ? -y : y;
}

double CErf(double x) { return std::erf(x); }
double CErfc(double x) { return std::erfc(x); }

}  // namespace

double ErfInv(double x) { return ErfInverse<CErf, CErfc>(x); }
double ErfInvF64(double x) { return ErfInverse<CErf, Erfc>(x); }

// exp(-|x|) * I1(x).
double BesselI1e(double x) {
  if (std::isnan(x)) return x;
  double ax = std::fabs(x);
  double r;
  if (ax == kInf) {
    r = 0;
  } else if (ax <= 500) {
    // I1(x) = sum_k (x/2)^(2k+1) / (k! (k+1)!): positive terms, no cancellation.
    double h = ax / 2;
    double term = h, sum = h, h2 = h * h;
    for (int k = 1; k < 2000; ++k) {
      term *= h2 / (static_cast<double>(k) * (k + 1));
      sum += term;
      if (term < sum * 1e-18) break;
    }
    r = sum * std::exp(-ax);
  } else {
    // Asymptotic: e^-x I1(x) ~ 1/sqrt(2 pi x) * sum_k (-1)^k a_k(1) / x^k.
    double sum = 1, term = 1;
    for (int k = 1; k < 30; ++k) {
      double m = 4.0;  // 4 nu^2 with nu = 1
      term *= -(m - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8.0 * ax);
      sum += term;
      if (std::fabs(term) < 1e-18) break;
    }
    r = sum / std::sqrt(2 * std::numbers::pi * ax);
  }
  return x < 0 ? -r : r;
}

}  // namespace kiln::ref

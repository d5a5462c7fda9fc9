// The real special functions of the chlo ops (lgamma, digamma, polygamma,
// zeta, bessel_i1e) in f64, after kernels/scalar/special_functions.cc (the
// same series, asymptotic expansions and reflections; lgamma, which the
// reference takes from C's <math.h>, by Lanczos' approximation). Every
// element type computes in f64 and rounds once to its own, as the reference
// does, so a shader that uses them needs shaderFloat64. Included after
// math64.glsl only into shaders that call one of them (codegen.cc).

// log|Gamma(x)| for x >= 0.5: Lanczos with g = 7 and nine terms (relative
// error about 1e-15 on Gamma), (x - 1/2) (log t - 1) - 7 written so that
// it does not overflow before lgamma itself does.
double kiln_lgamma_pos_d(double x) {
  precise double z = x - 1.0lf;
  precise double a = 0.99999999999980993lf;
  a += 676.5203681218851lf / (z + 1.0lf);
  a += -1259.1392167224028lf / (z + 2.0lf);
  a += 771.32342877765313lf / (z + 3.0lf);
  a += -176.61502916214059lf / (z + 4.0lf);
  a += 12.507343278686905lf / (z + 5.0lf);
  a += -0.13857109526572012lf / (z + 6.0lf);
  a += 9.9843695780195716e-6lf / (z + 7.0lf);
  a += 1.5056327351493116e-7lf / (z + 8.0lf);
  precise double t = z + 7.5lf;
  // 0.5 log(2 pi) = 0.91893853320467274
  return 0.91893853320467274lf + (z + 0.5lf) * (kiln_log_d(t) - 1.0lf) - 7.0lf + kiln_log_d(a);
}

// C's lgamma: +inf at the poles (zero and the negative integers) and at
// +-inf, +0 at 1 and 2; below 1/2 the reflection log(pi / |sin(pi x)|) - lgamma(1 - x)
// with sin(pi x) taken at x's distance to the nearest integer.
double kiln_lgamma_d(double x) {
  if (kiln_isnan_d(x)) return x;
  if (kiln_isinf_d(x)) return kiln_inf_d();
  if (x == 1.0lf || x == 2.0lf) return 0.0lf;  // exactly, as C's
  if (x >= 0.5lf) return kiln_lgamma_pos_d(x);
  if (x == floor(x)) return kiln_inf_d();
  precise double ax = abs(x);
  if (ax < 1e-300lf) return -kiln_log_d(ax);
  precise double r = x - kiln_round_even_d(x);
  precise double s = abs(kiln_sin_d(KILN_PI * r));
  // log(pi) = 1.1447298858494002
  return 1.1447298858494002lf - kiln_log_d(s) - kiln_lgamma_pos_d(1.0lf - x);
}

double kiln_digamma_d(double x) {
  if (kiln_isnan_d(x)) return x;
  if (kiln_isinf_d(x)) return x > 0.0lf ? x : kiln_nan_d();
  if (x <= 0.0lf && x == floor(x)) return kiln_nan_d();
  precise double result = 0.0lf;
  if (x < 0.0lf) {
    // Reflection: psi(1 - x) - psi(x) = pi cot(pi x).
    result = -KILN_PI / kiln_tan_d(KILN_PI * x);
    x = 1.0lf - x;
  }
  while (x < 20.0lf) {
    result -= 1.0lf / x;
    x += 1.0lf;
  }
  precise double inv2 = 1.0lf / (x * x);
  // ln x - 1/(2x) - sum B_2k / (2k x^2k)
  precise double series =
      inv2 * (1.0lf / 12.0lf -
              inv2 * (1.0lf / 120.0lf - inv2 * (1.0lf / 252.0lf - inv2 * (1.0lf / 240.0lf - inv2 * (1.0lf / 132.0lf)))));
  return result + kiln_log_d(x) - 0.5lf / x - series;
}

// Hurwitz zeta(s, q) = sum_k (q + k)^-s by Euler-Maclaurin summation.
double kiln_zeta_d(double s, double q) {
  if (kiln_isnan_d(s) || kiln_isnan_d(q)) return kiln_nan_d();
  if (s == 1.0lf) return kiln_inf_d();
  if (s < 1.0lf) return kiln_nan_d();
  if (q <= 0.0lf) {
    if (q == floor(q)) return kiln_inf_d();
    if (s != floor(s)) return kiln_nan_d();
  }
  precise double sum = 0.0lf;
  for (int k = 0; k < 16; ++k) sum += kiln_pow_d(q + double(k), -s);
  precise double a = q + 16.0lf;
  sum += kiln_pow_d(a, 1.0lf - s) / (s - 1.0lf) + 0.5lf * kiln_pow_d(a, -s);
  const double kB[10] = double[10](1.0lf / 12.0lf, -1.0lf / 720.0lf, 1.0lf / 30240.0lf, -1.0lf / 1209600.0lf,
                                   1.0lf / 47900160.0lf, -691.0lf / 1307674368000.0lf, 1.0lf / 74724249600.0lf,
                                   -3617.0lf / 10670622842880000.0lf, 43867.0lf / 5109094217170944000.0lf,
                                   -174611.0lf / 802857662698291200000.0lf);
  precise double rising = s;                 // s (s+1) ... (s+2j-2)
  precise double apow = kiln_pow_d(a, -s - 1.0lf);  // a^(-s-2j+1)
  for (int j = 1; j <= 10; ++j) {
    precise double term = kB[j - 1] * rising * apow;
    sum += term;
    if (abs(term) <= abs(sum) * 1e-17lf) break;
    rising *= (s + double(2 * j - 1)) * (s + double(2 * j));
    apow /= a * a;
  }
  return sum;
}

double kiln_polygamma_d(double n, double x) {
  if (kiln_isnan_d(n) || kiln_isnan_d(x)) return kiln_nan_d();
  if (n < 0.0lf || n != floor(n)) return kiln_nan_d();
  if (n == 0.0lf) return kiln_digamma_d(x);
  // (-1)^(n+1) n! zeta(n + 1, x); n! overflows from 171 on.
  precise double factorial = 1.0lf;
  if (n > 171.0lf) {
    factorial = kiln_inf_d();
  } else {
    for (int i = 2; i <= int(n); ++i) factorial *= double(i);
  }
  precise double sign = mod(n, 2.0lf) == 0.0lf ? -1.0lf : 1.0lf;
  return sign * factorial * kiln_zeta_d(n + 1.0lf, x);
}

// exp(-|x|) I1(x).
double kiln_bessel_i1e_d(double x) {
  if (kiln_isnan_d(x)) return x;
  precise double ax = abs(x);
  precise double r;
  if (kiln_isinf_d(ax)) {
    r = 0.0lf;
  } else if (ax <= 500.0lf) {
    // I1(x) = sum_k (x/2)^(2k+1) / (k! (k+1)!): positive terms, no cancellation.
    precise double h = ax * 0.5lf;
    precise double term = h, sum = h, h2 = h * h;
    for (int k = 1; k < 2000; ++k) {
      term *= h2 / (double(k) * double(k + 1));
      sum += term;
      if (term < sum * 1e-18lf) break;
    }
    r = sum * kiln_exp_d(-ax);
  } else {
    // e^-x I1(x) ~ 1/sqrt(2 pi x) sum_k (-1)^k a_k(1) / x^k.
    precise double sum = 1.0lf, term = 1.0lf;
    for (int k = 1; k < 30; ++k) {
      term *= -(4.0lf - double(2 * k - 1) * double(2 * k - 1)) / (double(k) * 8.0lf * ax);
      sum += term;
      if (abs(term) < 1e-18lf) break;
    }
    r = sum / sqrt(2.0lf * KILN_PI * ax);
  }
  return x < 0.0lf ? -r : r;
}

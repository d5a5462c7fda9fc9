// f64 transcendental functions, which GLSL lacks (it has them for f32
// only): argument reduction plus series, accurate to a few ulp; included
// with prelude64.glsl. Special values follow C's <math.h>.
double kiln_inf_d() { return packDouble2x32(uvec2(0u, 0x7ff00000u)); }
double kiln_nan_d() { return packDouble2x32(uvec2(0u, 0x7ff80000u)); }
const double KILN_LN2_HI = 6.93147180369123816490e-01lf;
const double KILN_LN2_LO = 1.90821492927058770002e-10lf;
const double KILN_PI = 3.14159265358979311600e+00lf;

// 2^n * x for any n (ldexp's exponent range is split in two steps).
double kiln_scale_d(double x, int n) {
  int h = n / 2;
  return ldexp(ldexp(x, h), n - h);
}
double kiln_exp_d(double x) {
  if (kiln_isnan_d(x)) return x;
  if (x > 709.782712893384lf) return kiln_inf_d();
  if (x < -745.2lf) return 0.0lf;
  double n = roundEven(x * 1.44269504088896338700lf);
  double r = (x - n * KILN_LN2_HI) - n * KILN_LN2_LO;
  // e^r by Taylor series (|r| <= 0.35: 14 terms are exact to double).
  double term = 1.0lf, sum = 1.0lf;
  for (int k = 1; k <= 17; ++k) {
    term *= r / double(k);
    sum += term;
  }
  return kiln_scale_d(sum, int(n));
}
double kiln_log_d(double x) {
  if (kiln_isnan_d(x) || x < 0.0lf) return kiln_nan_d();
  if (x == 0.0lf) return -kiln_inf_d();
  if (kiln_isinf_d(x)) return x;
  int e;
  double m = frexp(x, e);  // m in [0.5, 1)
  if (m < 0.70710678118654752440lf) {
    m *= 2.0lf;
    e -= 1;
  }
  // log(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172
  double s = (m - 1.0lf) / (m + 1.0lf), s2 = s * s, term = s, sum = 0.0lf;
  for (int k = 1; k <= 41; k += 2) {
    sum += term / double(k);
    term *= s2;
  }
  return double(e) * KILN_LN2_HI + (2.0lf * sum + double(e) * KILN_LN2_LO);
}
double kiln_expm1_d(double x) {
  if (abs(x) < 0.5lf) {
    double term = x, sum = x;
    for (int k = 2; k <= 20; ++k) {
      term *= x / double(k);
      sum += term;
    }
    return sum;
  }
  return kiln_exp_d(x) - 1.0lf;
}
double kiln_log1p_d(double x) {
  double u = 1.0lf + x;
  if (u == 1.0lf) return x;
  if (kiln_isinf_d(u) || u <= 0.0lf) return kiln_log_d(u);
  return kiln_log_d(u) - ((u - 1.0lf) - x) / u;  // corrects the rounding of 1 + x
}
// sin and cos of r with |r| <= pi/4, by Taylor series.
double kiln_sin_poly(double r) {
  double r2 = r * r, term = r, sum = r;
  for (int k = 1; k <= 11; ++k) {
    term *= -r2 / double((2 * k) * (2 * k + 1));
    sum += term;
  }
  return sum;
}
double kiln_cos_poly(double r) {
  double r2 = r * r, term = 1.0lf, sum = 1.0lf;
  for (int k = 1; k <= 11; ++k) {
    term *= -r2 / double((2 * k - 1) * (2 * k));
    sum += term;
  }
  return sum;
}
// x = n pi/2 + r (Cody-Waite: pi/2 in three parts, the first two of 33
// bits so that n times them is exact).
double kiln_reduce_d(double x, out int q) {
  double n = roundEven(x * 6.36619772367581382433e-01lf);
  q = int(mod(n, 4.0lf));
  return ((x - n * 1.57079632673412561417e+00lf) - n * 6.07710050630396597660e-11lf) -
         n * 2.02226624879595063154e-21lf;
}
double kiln_sin_d(double x) {
  if (kiln_isnan_d(x) || kiln_isinf_d(x)) return kiln_nan_d();
  if (x == 0.0lf) return x;
  int q;
  double r = kiln_reduce_d(x, q);
  double v = (q & 1) == 0 ? kiln_sin_poly(r) : kiln_cos_poly(r);
  return q >= 2 ? -v : v;
}
double kiln_cos_d(double x) {
  if (kiln_isnan_d(x) || kiln_isinf_d(x)) return kiln_nan_d();
  int q;
  double r = kiln_reduce_d(x, q);
  double v = (q & 1) == 0 ? kiln_cos_poly(r) : kiln_sin_poly(r);
  return (q == 1 || q == 2) ? -v : v;
}
double kiln_tan_d(double x) { return kiln_sin_d(x) / kiln_cos_d(x); }
double kiln_sinh_d(double x) {
  if (abs(x) < 0.5lf) {
    double e = kiln_expm1_d(x);
    return 0.5lf * (e + e / (e + 1.0lf));
  }
  double e = kiln_exp_d(abs(x));
  double s = 0.5lf * e - 0.5lf / e;
  return x < 0.0lf ? -s : s;
}
double kiln_cosh_d(double x) {
  double e = kiln_exp_d(abs(x));
  return 0.5lf * e + 0.5lf / e;
}
double kiln_tanh_d(double x) {
  if (kiln_isnan_d(x) || x == 0.0lf) return x;
  if (abs(x) > 22.0lf) return x < 0.0lf ? -1.0lf : 1.0lf;
  double t = kiln_expm1_d(2.0lf * abs(x));
  double v = t / (t + 2.0lf);
  return x < 0.0lf ? -v : v;
}
double kiln_atan_d(double x) {
  if (kiln_isnan_d(x)) return x;
  double ax = abs(x), base = 0.0lf;
  bool inv = ax > 1.0lf;
  if (inv) ax = 1.0lf / ax;
  if (ax > 0.41421356237309504880lf) {  // atan(a) = pi/4 + atan((a - 1) / (a + 1))
    base = 7.85398163397448278999e-01lf;
    ax = (ax - 1.0lf) / (ax + 1.0lf);
  }
  double t2 = ax * ax, term = ax, sum = 0.0lf;
  for (int k = 0; k < 24; ++k) {
    sum += term / double(2 * k + 1);
    term *= -t2;
  }
  double v = base + sum;
  if (inv) v = 1.57079632679489655800e+00lf - v;
  return x < 0.0lf ? -v : v;
}
double kiln_atan2_d(double y, double x) {
  if (kiln_isnan_d(x) || kiln_isnan_d(y)) return kiln_nan_d();
  bool y_neg = (unpackDouble2x32(y).y & 0x80000000u) != 0u;
  bool x_neg = (unpackDouble2x32(x).y & 0x80000000u) != 0u;
  double s = y_neg ? -1.0lf : 1.0lf;
  if (y == 0.0lf) return x_neg ? s * KILN_PI : y;
  if (x == 0.0lf) return s * 0.5lf * KILN_PI;
  if (kiln_isinf_d(x)) {
    if (kiln_isinf_d(y)) return s * (x_neg ? 0.75lf : 0.25lf) * KILN_PI;
    return x_neg ? s * KILN_PI : s * 0.0lf;
  }
  if (kiln_isinf_d(y)) return s * 0.5lf * KILN_PI;
  double a = kiln_atan_d(abs(y / x));
  if (x_neg) a = KILN_PI - a;
  return s * a;
}
// Double-double products (Dekker), for integer powers that round once.
void kiln_dd_mul(double ah, double al, double bh, double bl, out double rh, out double rl) {
  precise double p = ah * bh;
  precise double e = fma(ah, bh, -p) + (ah * bl + al * bh);
  precise double s = p + e;
  rh = s;
  rl = e - (s - p);
}
double kiln_ipow_d(double x, int n) {
  double rh = 1.0lf, rl = 0.0lf, bh = x, bl = 0.0lf;
  for (int e = abs(n); e != 0; e >>= 1) {
    if ((e & 1) != 0) kiln_dd_mul(rh, rl, bh, bl, rh, rl);
    kiln_dd_mul(bh, bl, bh, bl, bh, bl);
  }
  precise double r = rh + rl;
  return n < 0 ? 1.0lf / r : r;
}
double kiln_pow_d(double x, double y) {
  if (y == 0.0lf || x == 1.0lf) return 1.0lf;
  if (kiln_isnan_d(x) || kiln_isnan_d(y)) return kiln_nan_d();
  double ax = abs(x);
  bool y_int = trunc(y) == y;
  bool y_odd = y_int && abs(y) < 9007199254740992.0lf && abs(mod(y, 2.0lf)) == 1.0lf;
  bool negative = (unpackDouble2x32(x).y & 0x80000000u) != 0u;
  if (negative && x != 0.0lf && !y_int && !kiln_isinf_d(y)) return kiln_nan_d();
  double r;
  if (ax == 0.0lf) r = y < 0.0lf ? kiln_inf_d() : 0.0lf;
  else if (kiln_isinf_d(y)) r = ax == 1.0lf ? 1.0lf : ((ax < 1.0lf) == (y < 0.0lf) ? kiln_inf_d() : 0.0lf);
  else if (kiln_isinf_d(ax)) r = y < 0.0lf ? 0.0lf : kiln_inf_d();
  else if (y_int && abs(y) <= 1024.0lf) r = kiln_ipow_d(ax, int(y));
  else r = kiln_exp_d(y * kiln_log_d(ax));
  return negative && y_odd ? -r : r;
}
double kiln_cbrt_d(double x) {
  if (x == 0.0lf || kiln_isnan_d(x) || kiln_isinf_d(x)) return x;
  double y = kiln_exp_d(kiln_log_d(abs(x)) / 3.0lf);
  if (x < 0.0lf) y = -y;
  y = y - (y * y * y - x) / (3.0lf * y * y);
  return y - (y * y * y - x) / (3.0lf * y * y);
}
double kiln_logistic_d(double x) { return 1.0lf / (1.0lf + kiln_exp_d(-x)); }
double kiln_fmod_d(double a, double b) {
  if (kiln_isnan_d(a) || kiln_isnan_d(b) || kiln_isinf_d(a) || b == 0.0lf) return kiln_nan_d();
  if (kiln_isinf_d(b)) return a;
  double r = a - b * trunc(a / b);
  if (abs(r) >= abs(b)) r = a - b * trunc(r / b + trunc(a / b));
  return r == 0.0lf ? packDouble2x32(uvec2(0u, unpackDouble2x32(a).y & 0x80000000u)) : r;
}

// complex<f64> transcendental functions (as the complex<f32> ones).
dvec2 kiln_cexp(dvec2 z) {
  if (z.y == 0.0lf) return dvec2(kiln_exp_d(z.x), z.y);
  double e = kiln_exp_d(z.x);
  return dvec2(e * kiln_cos_d(z.y), e * kiln_sin_d(z.y));
}
dvec2 kiln_clog(dvec2 z) { return dvec2(kiln_log_d(kiln_cabs(z)), kiln_atan2_d(z.y, z.x)); }
dvec2 kiln_cexpm1(dvec2 z) {
  double s = kiln_sin_d(0.5lf * z.y);
  return dvec2(kiln_expm1_d(z.x) * kiln_cos_d(z.y) - 2.0lf * s * s, kiln_exp_d(z.x) * kiln_sin_d(z.y));
}
dvec2 kiln_clog1p(dvec2 z) {
  double x = z.x, y = z.y;
  return dvec2(0.5lf * kiln_log1p_d(2.0lf * x + x * x + y * y), kiln_atan2_d(y, 1.0lf + x));
}
dvec2 kiln_csin(dvec2 z) { return dvec2(kiln_sin_d(z.x) * kiln_cosh_d(z.y), kiln_cos_d(z.x) * kiln_sinh_d(z.y)); }
dvec2 kiln_ccos(dvec2 z) { return dvec2(kiln_cos_d(z.x) * kiln_cosh_d(z.y), -kiln_sin_d(z.x) * kiln_sinh_d(z.y)); }
dvec2 kiln_ctanh(dvec2 z) {
  if (abs(z.x) > 22.0lf) return dvec2(z.x < 0.0lf ? -1.0lf : 1.0lf, 0.0lf * kiln_sin_d(2.0lf * z.y));
  double d = kiln_cosh_d(2.0lf * z.x) + kiln_cos_d(2.0lf * z.y);
  return dvec2(kiln_sinh_d(2.0lf * z.x) / d, kiln_sin_d(2.0lf * z.y) / d);
}
dvec2 kiln_ctan(dvec2 z) {
  dvec2 t = kiln_ctanh(dvec2(-z.y, z.x));
  return dvec2(t.y, -t.x);
}
dvec2 kiln_cpow(dvec2 a, dvec2 b) {
  if (a.x == 0.0lf && a.y == 0.0lf) return (b.x == 0.0lf && b.y == 0.0lf) ? dvec2(1.0lf, 0.0lf) : dvec2(0.0lf);
  return kiln_cexp(kiln_cmul(b, kiln_clog(a)));
}

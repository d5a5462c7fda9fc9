// Helpers for 64-bit element types; included only by shaders that need
// shaderInt64 / shaderFloat64 (the module records the feature).
// By the bits: compilers may fold x != x away.
bool kiln_isnan_d(double x) {
  uvec2 b = unpackDouble2x32(x);
  return (b.y & 0x7fffffffu) > 0x7ff00000u || ((b.y & 0x7fffffffu) == 0x7ff00000u && b.x != 0u);
}
bool kiln_isinf_d(double x) {
  uvec2 b = unpackDouble2x32(x);
  return (b.y & 0x7fffffffu) == 0x7ff00000u && b.x == 0u;
}
double kiln_fmax_d(double a, double b) {
  if (kiln_isnan_d(a)) return a;
  if (kiln_isnan_d(b)) return b;
  if (a == b) return (unpackDouble2x32(a).y & 0x80000000u) != 0u ? b : a;
  return a > b ? a : b;
}
double kiln_fmin_d(double a, double b) {
  if (kiln_isnan_d(a)) return a;
  if (kiln_isnan_d(b)) return b;
  if (a == b) return (unpackDouble2x32(a).y & 0x80000000u) != 0u ? a : b;
  return a < b ? a : b;
}
double kiln_sign_d(double x) {
  if (kiln_isnan_d(x) || x == 0.0lf) return x;
  return x < 0.0lf ? -1.0lf : 1.0lf;
}
int64_t kiln_total_key_d(double x) {
  int64_t b = int64_t(packUint2x32(unpackDouble2x32(x)));
  return b < 0l ? b ^ 0x7fffffffffffffffl : b;
}
// trunc and roundEven of doubles by floor and ceil, never the built-ins
// (prelude.glsl, kiln_trunc: lavapipe on some hosts leaves values from 2^31
// on unrounded and rounds roundEven's ties toward zero).
double kiln_trunc_d(double x) { return x < 0.0lf ? ceil(x) : floor(x); }
// Nearest, ties to even; a zero result keeps x's sign. (x - floor(x) is
// exact; from 2^52 on floor(x) is x.)
double kiln_round_even_d(double x) {
  precise double f = floor(x);
  precise double d = x - f;
  precise double h = f * 0.5lf;
  double r = d > 0.5lf || (d == 0.5lf && floor(h) != h) ? f + 1.0lf : f;
  return r == 0.0lf ? packDouble2x32(uvec2(0u, unpackDouble2x32(x).y & 0x80000000u)) : r;
}
double kiln_round_afz_d(double x) {
  double t = kiln_trunc_d(x);
  return abs(x - t) >= 0.5lf ? t + sign(x) : t;
}
// Saturating conversions to 64-bit integers (NaN -> 0).
int64_t kiln_d2i64(double x) {
  if (kiln_isnan_d(x)) return 0l;
  double t = kiln_trunc_d(x);
  if (t <= -9223372036854775808.0lf) return -9223372036854775807l - 1l;
  if (t >= 9223372036854775808.0lf) return 9223372036854775807l;
  return int64_t(t);
}
uint64_t kiln_d2u64(double x) {
  if (kiln_isnan_d(x)) return 0ul;
  double t = kiln_trunc_d(x);
  if (t <= 0.0lf) return 0ul;
  if (t >= 18446744073709551616.0lf) return 18446744073709551615ul;
  return uint64_t(t);
}

// complex<f64> as dvec2: the arithmetic that needs no transcendental function.
dvec2 kiln_cmul(dvec2 a, dvec2 b) { return dvec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
dvec2 kiln_cdiv(dvec2 a, dvec2 b) {
  if (abs(b.x) >= abs(b.y)) {
    if (b.x == 0.0lf && b.y == 0.0lf) return dvec2(a.x / abs(b.x), a.y / abs(b.x));
    double r = b.y / b.x, d = b.x + b.y * r;
    return dvec2((a.x + a.y * r) / d, (a.y - a.x * r) / d);
  }
  double r = b.x / b.y, d = b.x * r + b.y;
  return dvec2((a.x * r + a.y) / d, (a.y * r - a.x) / d);
}
double kiln_cabs(dvec2 z) {
  double m = max(abs(z.x), abs(z.y));
  if (kiln_isinf_d(z.x) || kiln_isinf_d(z.y)) return packDouble2x32(uvec2(0u, 0x7ff00000u));
  if (m == 0.0lf || kiln_isnan_d(m)) return m + abs(z.x) + abs(z.y);
  return m * sqrt((z.x / m) * (z.x / m) + (z.y / m) * (z.y / m));
}
bool kiln_cnan(dvec2 z) { return kiln_isnan_d(z.x) || kiln_isnan_d(z.y); }
bool kiln_cless(dvec2 a, dvec2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); }
dvec2 kiln_cmax(dvec2 a, dvec2 b) {
  if (kiln_cnan(a)) return a;
  if (kiln_cnan(b)) return b;
  return kiln_cless(a, b) ? b : a;
}
dvec2 kiln_cmin(dvec2 a, dvec2 b) {
  if (kiln_cnan(a)) return a;
  if (kiln_cnan(b)) return b;
  return kiln_cless(a, b) ? a : b;
}
dvec2 kiln_csign(dvec2 z) {
  if (kiln_cnan(z)) return dvec2(packDouble2x32(uvec2(0u, 0x7ff80000u)));
  if (z.x == 0.0lf && z.y == 0.0lf) return z;
  return z / kiln_cabs(z);
}
dvec2 kiln_csqrt(dvec2 z) {
  if (z.x == 0.0lf && z.y == 0.0lf) return dvec2(0.0lf, z.y);
  if (kiln_isinf_d(z.y)) return dvec2(packDouble2x32(uvec2(0u, 0x7ff00000u)), z.y);
  double t = sqrt((abs(z.x) + kiln_cabs(z)) * 0.5lf);
  if (z.x >= 0.0lf) return dvec2(t, z.y / (2.0lf * t));
  return dvec2(abs(z.y) / (2.0lf * t), (unpackDouble2x32(z.y).y & 0x80000000u) != 0u ? -t : t);
}

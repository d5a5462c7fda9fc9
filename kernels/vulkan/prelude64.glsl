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
double kiln_round_afz_d(double x) {
  double t = trunc(x);
  return abs(x - t) >= 0.5lf ? t + sign(x) : t;
}
// Saturating conversions to 64-bit integers (NaN -> 0).
int64_t kiln_d2i64(double x) {
  if (kiln_isnan_d(x)) return 0l;
  double t = trunc(x);
  if (t <= -9223372036854775808.0lf) return -9223372036854775807l - 1l;
  if (t >= 9223372036854775808.0lf) return 9223372036854775807l;
  return int64_t(t);
}
uint64_t kiln_d2u64(double x) {
  if (kiln_isnan_d(x)) return 0ul;
  double t = trunc(x);
  if (t <= 0.0lf) return 0ul;
  if (t >= 18446744073709551616.0lf) return 18446744073709551615ul;
  return uint64_t(t);
}

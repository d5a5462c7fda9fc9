// Helpers for 64-bit integer types; included only by shaders that need
// shaderInt64 (the module records the feature).
// Saturating f32 -> 64-bit integer conversions (NaN -> 0), as kernels/reference.
int64_t kiln_f2i64(float x) {
  if (kiln_isnan(x)) return 0l;
  float t = trunc(x);
  if (t <= -9223372036854775808.0) return -9223372036854775807l - 1l;
  if (t >= 9223372036854775808.0) return 9223372036854775807l;
  return int64_t(t);
}
uint64_t kiln_f2u64(float x) {
  if (kiln_isnan(x)) return 0ul;
  float t = trunc(x);
  if (t <= 0.0) return 0ul;
  if (t >= 18446744073709551616.0) return 18446744073709551615ul;
  return uint64_t(t);
}

// Helpers for 64-bit integer types; included only by shaders that need
// shaderInt64 (the module records the feature).
// Saturating f32 -> 64-bit integer conversions (NaN -> 0), as kernels/reference.
int64_t kiln_f2i64(float x) {
  if (kiln_isnan(x)) return 0l;
  float t = kiln_trunc(x);
  if (t <= -9223372036854775808.0) return -9223372036854775807l - 1l;
  if (t >= 9223372036854775808.0) return 9223372036854775807l;
  return int64_t(t);
}
uint64_t kiln_f2u64(float x) {
  if (kiln_isnan(x)) return 0ul;
  float t = kiln_trunc(x);
  if (t <= 0.0) return 0ul;
  if (t >= 18446744073709551616.0) return 18446744073709551615ul;
  return uint64_t(t);
}
// The high 64 bits of a 128-bit product, from 32-bit partial products.
uint64_t kiln_mulhi_u64(uint64_t a, uint64_t b) {
  uvec2 x = unpackUint2x32(a), y = unpackUint2x32(b);
  uint hi0, lo0, hi1, lo1, hi2, lo2, hi3, lo3;
  umulExtended(x.x, y.x, hi0, lo0);
  umulExtended(x.x, y.y, hi1, lo1);
  umulExtended(x.y, y.x, hi2, lo2);
  umulExtended(x.y, y.y, hi3, lo3);
  uint64_t mid = uint64_t(hi0) + uint64_t(lo1) + uint64_t(lo2);
  return (uint64_t(hi3) << 32) + uint64_t(lo3) + uint64_t(hi1) + uint64_t(hi2) + (mid >> 32);
}
int64_t kiln_mulhi_s64(int64_t a, int64_t b) {
  uint64_t h = kiln_mulhi_u64(uint64_t(a), uint64_t(b));
  if (a < 0l) h -= uint64_t(b);
  if (b < 0l) h -= uint64_t(a);
  return int64_t(h);
}

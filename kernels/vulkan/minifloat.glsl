// The float types narrower than 16 bits (f4E2M1FN, f6E2M3FN, f6E3M2FN and
// the f8 types) compute in f32, as f16 and bf16 do: a load decodes the
// stored bits, every op's f32 result is rounded back to the type (to nearest,
// ties to even), a store encodes. For +, -, *, / and sqrt the f32 result
// rounded again is the correctly rounded result (f32 carries more than twice
// the types' precision plus two bits), which is what kernels/scalar/codec.cc
// computes from a double. The format is passed as arguments (its FloatFormat,
// kernels/scalar/float_format.h; compiler/vulkan/scalar.cc writes them as
// literals, which the driver folds): exponent and mantissa bits, bias, the
// NaN encoding (0 none, 1 IEEE, 2 only S.1..1, 3 only the negative-zero
// pattern, 4 only all ones without a sign), infinities, sign, negative zero,
// zero and subnormals. Overflow, NaN and zero follow codec.cc's rules.

// The NaN a format without IEEE NaNs encodes (none: +0).
uint kiln_mf_nan_bits(bool neg, int eb, int mb, int nan) {
  uint all_exp = (1u << eb) - 1u, all_mant = (1u << mb) - 1u;
  if (nan == 2) return (neg ? 1u << uint(eb + mb) : 0u) | (all_exp << mb) | all_mant;
  if (nan == 3) return 1u << uint(eb + mb);
  if (nan == 4) return all_exp;
  return 0u;
}

float kiln_mf_decode(uint b, int eb, int mb, int bias, int nan, bool has_inf, bool has_sign, bool has_neg_zero,
                     bool has_zero, bool sub) {
  uint all_exp = (1u << eb) - 1u, all_mant = (1u << mb) - 1u;
  uint mant = b & all_mant;
  uint e = (b >> mb) & all_exp;
  bool neg = has_sign && ((b >> uint(eb + mb)) & 1u) != 0u;
  uint sign = neg ? 0x80000000u : 0u;
  // An IEEE NaN keeps its sign and payload (top bits); mantissa 0 is inf.
  if (nan == 1 && e == all_exp) return uintBitsToFloat(sign | 0x7f800000u | (mant << uint(23 - mb)));
  if (nan == 2 && e == all_exp && mant == all_mant) return uintBitsToFloat(sign | 0x7fc00000u);
  if (nan == 3 && neg && e == 0u && mant == 0u) return uintBitsToFloat(0x7fc00000u);
  if (nan == 4 && e == all_exp) return uintBitsToFloat(0x7fc00000u);
  precise float mag = (e == 0u && sub) ? ldexp(float(mant), 1 - bias - mb)
                                       : ldexp(float(mant | (1u << mb)), int(e) - bias - mb);
  return neg ? -mag : mag;
}

uint kiln_mf_encode(float f, int eb, int mb, int bias, int nan, bool has_inf, bool has_sign, bool has_neg_zero,
                    bool has_zero, bool sub) {
  uint x = floatBitsToUint(f);
  uint ax = x & 0x7fffffffu;
  bool neg = (x >> 31) != 0u;
  uint all_exp = (1u << eb) - 1u, all_mant = (1u << mb) - 1u;
  if (ax > 0x7f800000u) {
    if (nan != 1) return kiln_mf_nan_bits(neg, eb, mb, nan);
    uint payload = (x & 0x7fffffu) >> uint(23 - mb);
    return (neg ? 1u << uint(eb + mb) : 0u) | (all_exp << mb) | (payload != 0u ? payload : 1u << uint(mb - 1));
  }
  if (neg && !has_sign) return ax == 0u ? 0u : kiln_mf_nan_bits(false, eb, mb, nan);  // -0: the smallest value
  uint sign = neg ? 1u << uint(eb + mb) : 0u;
  int max_e = (nan == 1 || nan == 4) ? int(all_exp) - 1 : int(all_exp);
  uint max_m = nan == 2 ? all_mant - 1u : all_mant;
  uint overflow = has_inf ? sign | (all_exp << mb)
                          : (nan == 0 ? sign | (uint(max_e) << mb) | max_m : kiln_mf_nan_bits(neg, eb, mb, nan));
  if (ax == 0x7f800000u) return overflow;
  uint zero = !has_zero ? 0u : (has_neg_zero ? sign : 0u);
  if (ax == 0u) return zero;
  // ax = sig * 2^lsb; e = floor(log2 ax), raised to the format's least
  // exponent; q = ax / 2^(e - mb) rounded to nearest even.
  bool normal = ax >= 0x00800000u;
  uint sig = normal ? (ax & 0x7fffffu) | 0x800000u : ax;
  int lsb = normal ? int(ax >> 23) - 150 : -149;
  int e = max(lsb + findMSB(sig), sub ? 1 - bias : -bias);
  int shift = e - mb - lsb;
  uint q = 0u;
  if (shift <= 0) {
    q = sig << uint(-shift);
  } else if (shift < 32) {
    q = sig >> uint(shift);
    uint rem = sig & ((1u << uint(shift)) - 1u), half_ = 1u << uint(shift - 1);
    if (rem > half_ || (rem == half_ && (q & 1u) != 0u)) q += 1u;
  }
  if (q == 0u) return zero;
  if (q >= (2u << mb)) {  // rounded up into the next binade
    q >>= 1;
    e += 1;
  }
  uint biased = q >= (1u << mb) ? uint(e + bias) : 0u;  // below: a subnormal (e is the least exponent)
  uint mant = q & all_mant;
  if (int(biased) > max_e || (int(biased) == max_e && mant > max_m)) return overflow;
  return sign | (biased << mb) | mant;
}

float kiln_mf_round(float f, int eb, int mb, int bias, int nan, bool has_inf, bool has_sign, bool has_neg_zero,
                    bool has_zero, bool sub) {
  return kiln_mf_decode(kiln_mf_encode(f, eb, mb, bias, nan, has_inf, has_sign, has_neg_zero, has_zero, sub), eb, mb,
                        bias, nan, has_inf, has_sign, has_neg_zero, has_zero, sub);
}

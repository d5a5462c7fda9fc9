// f64 transcendental functions, which GLSL lacks (it has them for f32
// only); included with prelude64.glsl. Argument reduction plus Taylor
// series in Horner form, within 3 ulp (docs/vulkan.md, "Exact math"). Every step is `precise`: without it Mesa
// reassociates the Cody-Waite reductions (exp(652) was 421 ulp off); and a
// double-double result goes through precise locals before an `out`
// parameter, which would let Mesa cancel its second word.
// Constants come from their bits (packDouble2x32), and ldexp/frexp are done
// on the bits (lavapipe's f64 frexp mishandles subnormals: log(5e-324) gave
// -709). Special values follow C's <math.h>.
double kiln_inf_d() { return packDouble2x32(uvec2(0u, 0x7ff00000u)); }
double kiln_nan_d() { return packDouble2x32(uvec2(0u, 0x7ff80000u)); }
#define KILN_LN2_HI packDouble2x32(uvec2(0xfee00000u, 0x3fe62e42u))
#define KILN_LN2_LO packDouble2x32(uvec2(0x35793c76u, 0x3dea39efu))
#define KILN_PI packDouble2x32(uvec2(0x54442d18u, 0x400921fbu))

// 2^e for e in [-1022, 1023], from its bits (lavapipe's f64 frexp
// mishandles subnormals, so neither it nor ldexp is used).
double kiln_pow2_d(int e) { return packDouble2x32(uvec2(0u, uint(e + 1023) << 20)); }
// 2^n * x for n in [-2044, 2046] (two steps, so a subnormal result rounds once).
double kiln_scale_d(double x, int n) {
  int h = n / 2;
  return x * kiln_pow2_d(h) * kiln_pow2_d(n - h);
}
// x = m 2^e with m in [0.5, 1), for finite x > 0 (subnormals included).
double kiln_frexp_d(double x, out int e) {
  int bias = 0;
  if (x < packDouble2x32(uvec2(0u, 0x00100000u))) {  // subnormal: scale by 2^54
    x *= kiln_pow2_d(54);
    bias = -54;
  }
  uvec2 w = unpackDouble2x32(x);
  e = int((w.y >> 20) & 0x7ffu) - 1022 + bias;
  return packDouble2x32(uvec2(w.x, (w.y & 0x800fffffu) | 0x3fe00000u));
}
// 2^k e^x for finite x in [-745.2, 711] (k = -1 gives e^x / 2 beyond e^x's overflow).
double kiln_exp_scaled_d(double x, int k) {
  precise double n = kiln_round_even_d(x * packDouble2x32(uvec2(0x652b82feu, 0x3ff71547u)));
  precise double r = (x - n * KILN_LN2_HI) - n * KILN_LN2_LO;
  // e^r by its Taylor polynomial in Horner form with 1/k! from their bits
  // (no division: f64 division need not be exact on Vulkan devices).
  precise double sum = packDouble2x32(uvec2(0x7030ad4au, 0x3ce952c7u));
  sum = sum * r + packDouble2x32(uvec2(0xe733b81fu, 0x3d2ae7f3u));
  sum = sum * r + packDouble2x32(uvec2(0xe733b81fu, 0x3d6ae7f3u));
  sum = sum * r + packDouble2x32(uvec2(0xa8c07c9du, 0x3da93974u));
  sum = sum * r + packDouble2x32(uvec2(0x13a86d09u, 0x3de61246u));
  sum = sum * r + packDouble2x32(uvec2(0xeff8d898u, 0x3e21eed8u));
  sum = sum * r + packDouble2x32(uvec2(0x67f544e4u, 0x3e5ae645u));
  sum = sum * r + packDouble2x32(uvec2(0xb7789f5cu, 0x3e927e4fu));
  sum = sum * r + packDouble2x32(uvec2(0xa556c734u, 0x3ec71de3u));
  sum = sum * r + packDouble2x32(uvec2(0x1a01a01au, 0x3efa01a0u));
  sum = sum * r + packDouble2x32(uvec2(0x1a01a01au, 0x3f2a01a0u));
  sum = sum * r + packDouble2x32(uvec2(0x16c16c17u, 0x3f56c16cu));
  sum = sum * r + packDouble2x32(uvec2(0x11111111u, 0x3f811111u));
  sum = sum * r + packDouble2x32(uvec2(0x55555555u, 0x3fa55555u));
  sum = sum * r + packDouble2x32(uvec2(0x55555555u, 0x3fc55555u));
  sum = sum * r + packDouble2x32(uvec2(0x00000000u, 0x3fe00000u));
  sum = sum * r + packDouble2x32(uvec2(0x00000000u, 0x3ff00000u));
  sum = sum * r + packDouble2x32(uvec2(0x00000000u, 0x3ff00000u));
  return kiln_scale_d(sum, int(n) + k);
}
double kiln_exp_d(double x) {
  if (kiln_isnan_d(x)) return x;
  if (x > packDouble2x32(uvec2(0xfefa39efu, 0x40862e42u))) return kiln_inf_d();
  if (x < -packDouble2x32(uvec2(0x9999999au, 0x40874999u))) return 0.0lf;
  return kiln_exp_scaled_d(x, 0);
}
// a = hi + lo with hi of 26 bits (Veltkamp), for exact products.
void kiln_split_d(double a, out double hi, out double lo) {
  precise double t = 134217729.0lf * a;  // 2^27 + 1
  precise double h = t - (t - a), l = a - h;
  hi = h;
  lo = l;
}
// a + b = s + e exactly (TwoSum), as math32.glsl's kiln_two_sum.
void kiln_two_sum_d(double a, double b, out double s, out double e) {
  precise double t = a + b, bb = t - a;
  precise double r = (a - (t - bb)) + (b - bb);
  s = t;
  e = r;
}
// a b - p exactly, for p = a b rounded (Dekker).
double kiln_two_prod_err_d(double a, double b, double p) {
  double ah, al, bh, bl;
  kiln_split_d(a, ah, al);
  kiln_split_d(b, bh, bl);
  precise double e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  return e;
}
// (atanh(s) - s) / s^3 = 1/3 + s2/5 + s2^2/7 + ... for |s| < 0.172, Horner.
double kiln_atanh_tail_d(double s2) {
  precise double p = packDouble2x32(uvec2(0x8f9c18fau, 0x3f98f9c1u));
  p = p * s2 + packDouble2x32(uvec2(0x1a41a41au, 0x3f9a41a4u));
  p = p * s2 + packDouble2x32(uvec2(0x14c1bad0u, 0x3f9bacf9u));
  p = p * s2 + packDouble2x32(uvec2(0x1d41d41du, 0x3f9d41d4u));
  p = p * s2 + packDouble2x32(uvec2(0xf07c1f08u, 0x3f9f07c1u));
  p = p * s2 + packDouble2x32(uvec2(0x08421084u, 0x3fa08421u));
  p = p * s2 + packDouble2x32(uvec2(0x611a7b96u, 0x3fa1a7b9u));
  p = p * s2 + packDouble2x32(uvec2(0xbda12f68u, 0x3fa2f684u));
  p = p * s2 + packDouble2x32(uvec2(0x47ae147bu, 0x3fa47ae1u));
  p = p * s2 + packDouble2x32(uvec2(0x590b2164u, 0x3fa642c8u));
  p = p * s2 + packDouble2x32(uvec2(0x18618618u, 0x3fa86186u));
  p = p * s2 + packDouble2x32(uvec2(0xbca1af28u, 0x3faaf286u));
  p = p * s2 + packDouble2x32(uvec2(0x1e1e1e1eu, 0x3fae1e1eu));
  p = p * s2 + packDouble2x32(uvec2(0x11111111u, 0x3fb11111u));
  p = p * s2 + packDouble2x32(uvec2(0x13b13b14u, 0x3fb3b13bu));
  p = p * s2 + packDouble2x32(uvec2(0x745d1746u, 0x3fb745d1u));
  p = p * s2 + packDouble2x32(uvec2(0x1c71c71cu, 0x3fbc71c7u));
  p = p * s2 + packDouble2x32(uvec2(0x92492492u, 0x3fc24924u));
  p = p * s2 + packDouble2x32(uvec2(0x9999999au, 0x3fc99999u));
  p = p * s2 + packDouble2x32(uvec2(0x55555555u, 0x3fd55555u));
  return p;
}
// x = 2^e m with m in [sqrt(1/2), sqrt(2)).
double kiln_log_split_d(double x, out int e) {
  precise double m = kiln_frexp_d(x, e);  // m in [0.5, 1)
  if (m < packDouble2x32(uvec2(0x667f3bcdu, 0x3fe6a09eu))) {
    m *= 2.0lf;
    e -= 1;
  }
  return m;
}
double kiln_log_d(double x) {
  if (kiln_isnan_d(x) || x < 0.0lf) return kiln_nan_d();
  if (x == 0.0lf) return -kiln_inf_d();
  if (kiln_isinf_d(x)) return x;
  int e;
  precise double m = kiln_log_split_d(x, e);
  // log(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172: s (1 + s2/3 + s2^2/5 + ...)
  precise double s = (m - 1.0lf) / (m + 1.0lf), s2 = s * s;
  precise double sum = s + s * s2 * kiln_atanh_tail_d(s2);
  return double(e) * KILN_LN2_HI + (2.0lf * sum + double(e) * KILN_LN2_LO);
}
// log x as hi + lo, for x finite and above 0, with about 2^-100 relative
// error (pow needs log x beyond double precision: y log x of 700 carries
// an error of 700 ulp of 1 into the exponent otherwise). s = (m - 1) / (m
// + 1) as two words (m - 1 is exact; the quotient's remainder through a
// Dekker product), 2 s and e ln2_hi exact, their sum by TwoSum.
void kiln_log_dd(double x, out double hi, out double lo) {
  int e;
  precise double m = kiln_log_split_d(x, e);
  precise double u = m - 1.0lf;
  double v, vl;
  kiln_two_sum_d(m, 1.0lf, v, vl);  // v + vl = m + 1 exactly
  precise double sh = u / v;
  precise double ph = sh * v;
  precise double pl = kiln_two_prod_err_d(sh, v, ph);  // sh v = ph + pl exactly
  precise double sl = (((u - ph) - pl) - sh * vl) / v;
  precise double s2 = sh * sh;
  precise double small_part = 2.0lf * (sh * s2 * kiln_atanh_tail_d(s2)) + 2.0lf * sl;
  double h, err;
  kiln_two_sum_d(double(e) * KILN_LN2_HI, 2.0lf * sh, h, err);  // both terms exact
  precise double l = err + (small_part + double(e) * KILN_LN2_LO);
  // In precise locals: assigned straight to the out parameters, the
  // renormalization (h + l, then l - (that - h)) was simplified to 0.
  precise double rh = h + l, rl = l - (rh - h);
  hi = rh;
  lo = rl;
}
double kiln_expm1_d(double x) {
  if (x == 0.0lf) return x;  // keeps the sign of zero
  if (abs(x) < 0.5lf) {  // x + x^2 (1/2! + x/3! + ...), Horner, no division
    precise double p = packDouble2x32(uvec2(0xf6dcf572u, 0x3bd71b8eu));
    p = p * x + packDouble2x32(uvec2(0xa4020225u, 0x3c1e542bu));
    p = p * x + packDouble2x32(uvec2(0x46814157u, 0x3c62f49bu));
    p = p * x + packDouble2x32(uvec2(0x63b97d97u, 0x3ca68278u));
    p = p * x + packDouble2x32(uvec2(0x7030ad4au, 0x3ce952c7u));
    p = p * x + packDouble2x32(uvec2(0xe733b81fu, 0x3d2ae7f3u));
    p = p * x + packDouble2x32(uvec2(0xe733b81fu, 0x3d6ae7f3u));
    p = p * x + packDouble2x32(uvec2(0xa8c07c9du, 0x3da93974u));
    p = p * x + packDouble2x32(uvec2(0x13a86d09u, 0x3de61246u));
    p = p * x + packDouble2x32(uvec2(0xeff8d898u, 0x3e21eed8u));
    p = p * x + packDouble2x32(uvec2(0x67f544e4u, 0x3e5ae645u));
    p = p * x + packDouble2x32(uvec2(0xb7789f5cu, 0x3e927e4fu));
    p = p * x + packDouble2x32(uvec2(0xa556c734u, 0x3ec71de3u));
    p = p * x + packDouble2x32(uvec2(0x1a01a01au, 0x3efa01a0u));
    p = p * x + packDouble2x32(uvec2(0x1a01a01au, 0x3f2a01a0u));
    p = p * x + packDouble2x32(uvec2(0x16c16c17u, 0x3f56c16cu));
    p = p * x + packDouble2x32(uvec2(0x11111111u, 0x3f811111u));
    p = p * x + packDouble2x32(uvec2(0x55555555u, 0x3fa55555u));
    p = p * x + packDouble2x32(uvec2(0x55555555u, 0x3fc55555u));
    p = p * x + packDouble2x32(uvec2(0x00000000u, 0x3fe00000u));
    return x + x * x * p;
  }
  return kiln_exp_d(x) - 1.0lf;
}
double kiln_log1p_d(double x) {
  precise double u = 1.0lf + x;
  if (u == 1.0lf) return x;
  if (kiln_isinf_d(u) || u <= 0.0lf) return kiln_log_d(u);
  return kiln_log_d(u) - ((u - 1.0lf) - x) / u;  // corrects the rounding of 1 + x
}
// sin and cos of r + e with |r| <= pi/4 and e a correction below an ulp
// of r (the reduction's second word), by their Taylor series: the terms past
// the leading ones summed first (Horner in r^2, smallest first), the leading
// ones and e's first-order part added last, so that the roundings of the
// small terms stay far below an ulp of the result. (Summed from the largest
// term down over a one-word r, sin and cos were up to 2-3 ulp off and tan,
// their quotient, 5.)
double kiln_sin_poly(double r, double e) {
  // c[k] = (-1)^(k+1) / (2k+3)!: -1/3!, 1/5!, ..., 1/23!.
  double c[11];
  precise double ck = -1.0lf / 6.0lf;
  for (int k = 0; k < 11; ++k) {
    c[k] = ck;
    ck = -ck / double((2 * k + 4) * (2 * k + 5));
  }
  precise double r2 = r * r, p = c[10];
  for (int k = 9; k >= 0; --k) p = p * r2 + c[k];
  // sin(r + e) = sin r + e cos r, to first order in e.
  return r + (r * (r2 * p) + e * (1.0lf - 0.5lf * r2));
}
double kiln_cos_poly(double r, double e) {
  // d[k] = (-1)^k / (2k+4)!: 1/4!, -1/6!, ..., 1/22! (after 1 - r^2/2).
  double d[10];
  precise double dk = 1.0lf / 24.0lf;
  for (int k = 0; k < 10; ++k) {
    d[k] = dk;
    dk = -dk / double((2 * k + 5) * (2 * k + 6));
  }
  precise double r2 = r * r, q = d[9];
  for (int k = 8; k >= 0; --k) q = q * r2 + d[k];
  // 1 - r^2/2 + r^4 q - e sin r, with the rounding of w = 1 - r^2/2
  // carried back in.
  precise double hr = 0.5lf * r2, w = 1.0lf - hr;
  return w + ((((1.0lf - w) - hr) + r2 * (r2 * q)) - r * e);
}
// Bits of 2/pi after the binary point, two leading zero words: the f64
// Payne-Hanek reduction's table (enough for the largest double).
const uint KILN_TWO_OVER_PI_D[40] = uint[40](
    0u, 0u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u,
    0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u,
    0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu, 0xe88235f5u, 0x2ebb4484u,
    0xe99c7026u, 0xb45f7e41u, 0x3991d639u, 0x835339f4u, 0x9c845f8bu, 0xbdf9283bu,
    0x1ff897ffu, 0xde05980fu, 0xef2f118bu, 0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u,
    0x4f463f66u, 0x9e5fea2du, 0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau,
    0x6bfb5fb1u, 0x1f8d5d08u, 0x56033046u, 0xfc7b6babu);
// P += (hi 2^32 + lo) 2^(32 k), modulo 2^192.
void kiln_add_limbs_d(inout uint P[6], int k, uint lo, uint hi) {
  uint c = 0u;
  for (int j = k; j < 6; ++j) {
    uint c1, c2;
    uint t = uaddCarry(P[j], j == k ? lo : (j == k + 1 ? hi : 0u), c1);
    P[j] = uaddCarry(t, c, c2);
    c = c1 + c2;
  }
}
// ax = q pi/2 + (r + e), |r + e| <= pi/4, for finite ax >= 2^20 (Payne-Hanek
// in integers, as math32.glsl's kiln_trig_reduce; exact for every double):
// ax = m 2^E with m < 2^53; the bits of 2/pi before bit E - 2 after its
// point give multiples of 4, so m times the 192 bits from there on, P,
// holds ax 2/pi mod 4 as P 2^-190 (the bits of 2/pi past the window add
// less than 2^-135): q is P's top two bits, the fraction the 190 below,
// taken as f - 1 (and q + 1) from 1/2 on. The fraction is then summed into
// two words from its 32-bit limbs, smallest first, and multiplied by pi/2
// in two words.
double kiln_reduce_huge_d(double ax, out int q, out double e) {
  uvec2 b = unpackDouble2x32(ax);
  int E = int(b.y >> 20u) - 1075;
  uint mh = (b.y & 0xfffffu) | 0x100000u, ml = b.x;
  int s = E - 2 + 64;
  // The window's six words (from bit s of the table). The table is copied
  // into a local array once: lavapipe materializes a constant array at
  // every access by a variable index.
  uint tbl[40] = KILN_TWO_OVER_PI_D;
  int w0 = s / 32, o = s % 32;
  uint win[6];
  for (int j = 0; j < 6; ++j)
    win[j] = o == 0 ? tbl[w0 + j] : (tbl[w0 + j] << uint(o)) | (tbl[w0 + j + 1] >> uint(32 - o));
  uint P[6] = uint[6](0u, 0u, 0u, 0u, 0u, 0u);
  for (int k = 0; k < 6; ++k) {  // window word 5 - k is limb k's multiplier
    uint v = win[5 - k], h, l;
    umulExtended(ml, v, h, l);
    kiln_add_limbs_d(P, k, l, h);
    umulExtended(mh, v, h, l);
    if (k < 5) kiln_add_limbs_d(P, k + 1, l, h);
  }
  q = int(P[5] >> 30u);
  P[5] &= 0x3fffffffu;
  bool neg = (P[5] & 0x20000000u) != 0u;
  if (neg) {  // 2^190 - P: the distance up to the next multiple of pi/2
    uint borrow = 0u;
    for (int j = 0; j < 6; ++j) {
      uint b1, b2;
      uint t = usubBorrow(0u, P[j], b1);
      P[j] = usubBorrow(t, borrow, b2);
      borrow = b1 | b2;
    }
    P[5] &= 0x3fffffffu;
    q = (q + 1) & 3;
  }
  precise double fh = ldexp(double(P[0]), -190), fl = 0.0lf;
  for (int j = 1; j < 6; ++j) {
    double sh, se;
    kiln_two_sum_d(ldexp(double(P[j]), 32 * j - 190), fh, sh, se);
    fh = sh;
    fl = fl + se;
  }
  // r = f pi/2, pi/2 in two words.
  const double pio2_h = packDouble2x32(uvec2(0x54442d18u, 0x3ff921fbu));
  const double pio2_l = packDouble2x32(uvec2(0x33145c07u, 0x3c91a626u));
  precise double ph = fh * pio2_h;
  precise double lo = kiln_two_prod_err_d(fh, pio2_h, ph) + (fl * pio2_h + fh * pio2_l);
  precise double r = ph + lo, re = lo - (r - ph);
  e = neg ? -re : re;
  return neg ? -r : r;
}
// x = n pi/2 + r + e (Cody-Waite: pi/2 in three parts, the first two of 33
// bits so that n times them is exact, which holds for |x| < 2^20; r + e as
// two words, the rounding of the second subtraction kept in e by TwoSum);
// from 2^20 on, Payne-Hanek (kiln_reduce_huge_d).
double kiln_reduce_d(double x, out int q, out double e) {
  if (abs(x) >= 1048576.0lf) {
    double re;
    precise double r = kiln_reduce_huge_d(abs(x), q, re);
    if (x >= 0.0lf) {
      e = re;
      return r;
    }
    q = (4 - q) & 3;
    e = -re;
    return -r;
  }
  precise double n = kiln_round_even_d(x * packDouble2x32(uvec2(0x6dc9c883u, 0x3fe45f30u)));
  q = int(mod(n, 4.0lf));
  precise double t = x - n * packDouble2x32(uvec2(0x54400000u, 0x3ff921fbu));
  double r, lo0;
  kiln_two_sum_d(t, -(n * packDouble2x32(uvec2(0x1a600000u, 0x3dd0b461u))), r, lo0);
  precise double lo = lo0 - n * packDouble2x32(uvec2(0x2e037073u, 0x3ba3198au));
  precise double rr = r + lo, re = lo - (rr - r);  // precise locals, not straight into e
  e = re;
  return rr;
}
double kiln_sin_d(double x) {
  if (kiln_isnan_d(x) || kiln_isinf_d(x)) return kiln_nan_d();
  if (x == 0.0lf) return x;
  int q;
  double e;
  precise double r = kiln_reduce_d(x, q, e);
  precise double v = (q & 1) == 0 ? kiln_sin_poly(r, e) : kiln_cos_poly(r, e);
  return q >= 2 ? -v : v;
}
double kiln_cos_d(double x) {
  if (kiln_isnan_d(x) || kiln_isinf_d(x)) return kiln_nan_d();
  int q;
  double e;
  precise double r = kiln_reduce_d(x, q, e);
  precise double v = (q & 1) == 0 ? kiln_cos_poly(r, e) : kiln_sin_poly(r, e);
  return (q == 1 || q == 2) ? -v : v;
}
// One reduction, then sin r / cos r (even quadrants) or -cos r / sin r.
double kiln_tan_d(double x) {
  if (kiln_isnan_d(x) || kiln_isinf_d(x)) return kiln_nan_d();
  if (x == 0.0lf) return x;
  int q;
  double e;
  precise double r = kiln_reduce_d(x, q, e);
  precise double s = kiln_sin_poly(r, e), c = kiln_cos_poly(r, e);
  return (q & 1) == 0 ? s / c : -c / s;
}
// Beyond |x| = 20, e^-|x| is below half an ulp of e^|x|: sinh and cosh are
// e^|x| / 2, computed as such so they stay finite where e^|x| overflows.
double kiln_sinh_d(double x) {
  if (x == 0.0lf || kiln_isnan_d(x) || kiln_isinf_d(x)) return x;
  precise double ax = abs(x), s;
  if (ax < 0.5lf) {
    precise double e = kiln_expm1_d(ax);
    s = 0.5lf * (e + e / (e + 1.0lf));
  } else if (ax > 20.0lf) {
    s = ax > 711.0lf ? kiln_inf_d() : kiln_exp_scaled_d(ax, -1);
  } else {
    precise double e = kiln_exp_d(ax);
    s = 0.5lf * e - 0.5lf / e;
  }
  return x < 0.0lf ? -s : s;
}
double kiln_cosh_d(double x) {
  if (kiln_isnan_d(x)) return x;
  precise double ax = abs(x);
  if (ax > 20.0lf) return ax > 711.0lf ? kiln_inf_d() : kiln_exp_scaled_d(ax, -1);
  precise double e = kiln_exp_d(ax);
  return 0.5lf * e + 0.5lf / e;
}
double kiln_tanh_d(double x) {
  if (kiln_isnan_d(x) || x == 0.0lf) return x;
  if (abs(x) > 22.0lf) return x < 0.0lf ? -1.0lf : 1.0lf;
  precise double t = kiln_expm1_d(2.0lf * abs(x));
  precise double v = t / (t + 2.0lf);
  return x < 0.0lf ? -v : v;
}
double kiln_atan_d(double x) {
  if (kiln_isnan_d(x) || x == 0.0lf) return x;
  precise double ax = abs(x), bh = 0.0lf, bl = 0.0lf, z = ax;
  if (ax > packDouble2x32(uvec2(0x333f9de6u, 0x4003504fu))) {  // pi/2 - atan(1/x)
    bh = packDouble2x32(uvec2(0x54442d18u, 0x3ff921fbu));
    bl = packDouble2x32(uvec2(0x33145c07u, 0x3c91a626u));
    z = -1.0lf / ax;
  } else if (ax > packDouble2x32(uvec2(0x99fcef32u, 0x3fda8279u))) {  // pi/4 + atan((x - 1) / (x + 1))
    bh = packDouble2x32(uvec2(0x54442d18u, 0x3fe921fbu));
    bl = packDouble2x32(uvec2(0x33145c07u, 0x3c81a626u));
    z = (ax - 1.0lf) / (ax + 1.0lf);
  }
  // atan z = z + z^3 (-1/3 + z^2/5 - ...), |z| <= 0.4143, Horner
  precise double w = z * z;
  precise double p = packDouble2x32(uvec2(0x2b931057u, 0xbf95c988u));
  p = p * w + packDouble2x32(uvec2(0x16c16c17u, 0x3f96c16cu));
  p = p * w + packDouble2x32(uvec2(0x417d05f4u, 0xbf97d05fu));
  p = p * w + packDouble2x32(uvec2(0x8f9c18fau, 0x3f98f9c1u));
  p = p * w + packDouble2x32(uvec2(0x1a41a41au, 0xbf9a41a4u));
  p = p * w + packDouble2x32(uvec2(0x14c1bad0u, 0x3f9bacf9u));
  p = p * w + packDouble2x32(uvec2(0x1d41d41du, 0xbf9d41d4u));
  p = p * w + packDouble2x32(uvec2(0xf07c1f08u, 0x3f9f07c1u));
  p = p * w + packDouble2x32(uvec2(0x08421084u, 0xbfa08421u));
  p = p * w + packDouble2x32(uvec2(0x611a7b96u, 0x3fa1a7b9u));
  p = p * w + packDouble2x32(uvec2(0xbda12f68u, 0xbfa2f684u));
  p = p * w + packDouble2x32(uvec2(0x47ae147bu, 0x3fa47ae1u));
  p = p * w + packDouble2x32(uvec2(0x590b2164u, 0xbfa642c8u));
  p = p * w + packDouble2x32(uvec2(0x18618618u, 0x3fa86186u));
  p = p * w + packDouble2x32(uvec2(0xbca1af28u, 0xbfaaf286u));
  p = p * w + packDouble2x32(uvec2(0x1e1e1e1eu, 0x3fae1e1eu));
  p = p * w + packDouble2x32(uvec2(0x11111111u, 0xbfb11111u));
  p = p * w + packDouble2x32(uvec2(0x13b13b14u, 0x3fb3b13bu));
  p = p * w + packDouble2x32(uvec2(0x745d1746u, 0xbfb745d1u));
  p = p * w + packDouble2x32(uvec2(0x1c71c71cu, 0x3fbc71c7u));
  p = p * w + packDouble2x32(uvec2(0x92492492u, 0xbfc24924u));
  p = p * w + packDouble2x32(uvec2(0x9999999au, 0x3fc99999u));
  p = p * w + packDouble2x32(uvec2(0x55555555u, 0xbfd55555u));
  precise double v = bh + ((z * w * p + bl) + z);
  return x < 0.0lf ? -v : v;
}
double kiln_atan2_d(double y, double x);
// asin x = atan2(x, sqrt((1 - x)(1 + x))), acos x = 2 atan2(sqrt(1 - x), sqrt(1 + x))
double kiln_asin_d(double x) {
  if (kiln_isnan_d(x) || abs(x) > 1.0lf) return kiln_nan_d();
  return kiln_atan2_d(x, sqrt((1.0lf - x) * (1.0lf + x)));
}
double kiln_acos_d(double x) {
  if (kiln_isnan_d(x) || abs(x) > 1.0lf) return kiln_nan_d();
  return 2.0lf * kiln_atan2_d(sqrt(1.0lf - x), sqrt(1.0lf + x));
}
double kiln_atan2_d(double y, double x) {
  if (kiln_isnan_d(x) || kiln_isnan_d(y)) return kiln_nan_d();
  bool y_neg = (unpackDouble2x32(y).y & 0x80000000u) != 0u;
  bool x_neg = (unpackDouble2x32(x).y & 0x80000000u) != 0u;
  precise double s = y_neg ? -1.0lf : 1.0lf;
  if (y == 0.0lf) return x_neg ? s * KILN_PI : y;
  if (x == 0.0lf) return s * 0.5lf * KILN_PI;
  if (kiln_isinf_d(x)) {
    if (kiln_isinf_d(y)) return s * (x_neg ? 0.75lf : 0.25lf) * KILN_PI;
    return x_neg ? s * KILN_PI : s * 0.0lf;
  }
  if (kiln_isinf_d(y)) return s * 0.5lf * KILN_PI;
  precise double a = kiln_atan_d(abs(y / x));
  if (x_neg) a = KILN_PI - a;
  return s * a;
}
// Double-double products (Dekker), for integer powers that round once and
// for pow: ah bh exactly as p + its error by Veltkamp splits, not fma (a
// Vulkan device need not fuse it).
// |ah|, |bh| below 2^995 (the split's 2^27 + 1 times them stays finite).
void kiln_dd_mul(double ah, double al, double bh, double bl, out double rh, out double rl) {
  precise double p = ah * bh;
  precise double e = kiln_two_prod_err_d(ah, bh, p) + (ah * bl + al * bh);
  precise double s = p + e, t = e - (s - p);
  rh = s;
  rl = t;
}
double kiln_ipow_d(double x, int n) {
  precise double rh = 1.0lf, rl = 0.0lf, bh = x, bl = 0.0lf;
  for (int e = abs(n); e != 0; e >>= 1) {
    if ((e & 1) != 0) kiln_dd_mul(rh, rl, bh, bl, rh, rl);
    kiln_dd_mul(bh, bl, bh, bl, bh, bl);
  }
  precise double r = rh + rl;
  return n < 0 ? 1.0lf / r : r;
}
// Whether x^n, x finite and above 0, and the powers the squaring forms stay
// far from overflow and underflow (|n| (|e| + 1) < 900 for x = 2^e m):
// the double-double steps give NaN past them, where e^(n log x) is exact
// enough (infinity or 0).
bool kiln_ipow_in_range_d(double x, int n) {
  int e;
  kiln_frexp_d(x, e);
  return abs(n) * (abs(e) + 1) < 900;
}
double kiln_pow_d(double x, double y) {
  if (y == 0.0lf || x == 1.0lf) return 1.0lf;
  if (kiln_isnan_d(x) || kiln_isnan_d(y)) return kiln_nan_d();
  precise double ax = abs(x);
  bool y_int = kiln_trunc_d(y) == y;
  bool y_odd = y_int && abs(y) < packDouble2x32(uvec2(0x00000000u, 0x43400000u)) && abs(mod(y, 2.0lf)) == 1.0lf;
  bool negative = (unpackDouble2x32(x).y & 0x80000000u) != 0u;
  if (negative && x != 0.0lf && !y_int && !kiln_isinf_d(y)) return kiln_nan_d();
  precise double r;
  if (ax == 0.0lf) r = y < 0.0lf ? kiln_inf_d() : 0.0lf;
  else if (kiln_isinf_d(y)) r = ax == 1.0lf ? 1.0lf : ((ax < 1.0lf) == (y < 0.0lf) ? kiln_inf_d() : 0.0lf);
  else if (kiln_isinf_d(ax)) r = y < 0.0lf ? 0.0lf : kiln_inf_d();
  else if (y_int && abs(y) <= 1024.0lf && kiln_ipow_in_range_d(ax, int(y))) r = kiln_ipow_d(ax, int(y));
  else {
    // e^(y log x) with y log x in two words: e^zh (1 + zl).
    double lh, ll, zh, zl;
    kiln_log_dd(ax, lh, ll);
    precise double zg = y * lh;
    if (abs(zg) > 1000.0lf) {
      r = kiln_exp_d(zg);  // infinity or 0, as e^(y log x) is; y may be too big to split
    } else {
      kiln_dd_mul(y, 0.0lf, lh, ll, zh, zl);
      r = kiln_exp_d(zh);
      if (!kiln_isinf_d(r) && r != 0.0lf) r = r + r * zl;
    }
  }
  return negative && y_odd ? -r : r;
}
double kiln_cbrt_d(double x) {
  if (x == 0.0lf || kiln_isnan_d(x) || kiln_isinf_d(x)) return x;
  // scaled into [2^-900, 2^900] so y^3 neither overflows nor underflows
  precise double ax = abs(x), k = 1.0lf;
  if (ax > kiln_pow2_d(900)) {
    ax *= kiln_pow2_d(-900);
    k = kiln_pow2_d(300);
  } else if (ax < kiln_pow2_d(-900)) {
    ax *= kiln_pow2_d(900);
    k = kiln_pow2_d(-300);
  }
  precise double y = kiln_exp_d(kiln_log_d(ax) / 3.0lf);
  y = y - (y * y * y - ax) / (3.0lf * y * y);
  y = y - (y * y * y - ax) / (3.0lf * y * y);
  return x < 0.0lf ? -(y * k) : y * k;
}
double kiln_logistic_d(double x) { return 1.0lf / (1.0lf + kiln_exp_d(-x)); }
// fmod by long division of the significands, exact for every pair (as
// prelude.glsl's kiln_fmod, in 64-bit integers).
double kiln_fmod_d(double a, double b) {
  if (kiln_isnan_d(a) || kiln_isnan_d(b) || kiln_isinf_d(a) || b == 0.0lf) return kiln_nan_d();
  if (kiln_isinf_d(b)) return a;
  const uint64_t implicit = 0x10000000000000ul, frac = 0xffffffffffffful;
  uint64_t ua = packUint2x32(unpackDouble2x32(a)), ub = packUint2x32(unpackDouble2x32(b)) & 0x7ffffffffffffffful;
  const uint64_t sign = ua & 0x8000000000000000ul;
  ua &= 0x7ffffffffffffffful;
  if (ua < ub) return a;
  if (ua == ub) return packDouble2x32(unpackUint2x32(sign));
  int ea = int(ua >> 52), eb = int(ub >> 52);
  uint64_t ma = ea == 0 ? ua : (ua & frac) | implicit;
  uint64_t mb = eb == 0 ? ub : (ub & frac) | implicit;
  if (ea == 0) for (ea = 1; (ma & implicit) == 0ul; --ea) ma <<= 1;
  if (eb == 0) for (eb = 1; (mb & implicit) == 0ul; --eb) mb <<= 1;
  for (; ea > eb; --ea) {
    if (ma >= mb) {
      ma -= mb;
      if (ma == 0ul) return packDouble2x32(unpackUint2x32(sign));
    }
    ma <<= 1;
  }
  if (ma >= mb) {
    ma -= mb;
    if (ma == 0ul) return packDouble2x32(unpackUint2x32(sign));
  }
  for (; (ma & implicit) == 0ul; --ea) ma <<= 1;
  if (ea > 0) return packDouble2x32(unpackUint2x32(sign | (uint64_t(ea) << 52) | (ma & frac)));
  return packDouble2x32(unpackUint2x32(sign | (ma >> uint64_t(1 - ea))));
}

// Inverse hyperbolic functions, as the f32 ones.
double kiln_asinh_d(double x) {
  if (kiln_isnan_d(x) || kiln_isinf_d(x) || x == 0.0lf) return x;
  precise double ax = abs(x), v;
  if (ax < kiln_pow2_d(-28)) v = ax;
  else if (ax > kiln_pow2_d(28)) v = kiln_log_d(ax) + KILN_LN2_HI + KILN_LN2_LO;
  else v = kiln_log1p_d(ax + ax * ax / (1.0lf + sqrt(1.0lf + ax * ax)));
  return x < 0.0lf ? -v : v;
}
double kiln_acosh_d(double x) {
  if (kiln_isnan_d(x)) return x;
  if (x < 1.0lf) return kiln_nan_d();
  if (x > kiln_pow2_d(28)) return kiln_isinf_d(x) ? x : kiln_log_d(x) + KILN_LN2_HI + KILN_LN2_LO;
  precise double t = x - 1.0lf;
  return kiln_log1p_d(t + sqrt(2.0lf * t + t * t));
}
double kiln_atanh_d(double x) {
  if (kiln_isnan_d(x) || x == 0.0lf) return x;
  precise double ax = abs(x);
  if (ax > 1.0lf) return kiln_nan_d();
  if (ax == 1.0lf) return x < 0.0lf ? -kiln_inf_d() : kiln_inf_d();
  precise double v = ax < 0.5lf ? 0.5lf * kiln_log1p_d(2.0lf * ax + 2.0lf * ax * ax / (1.0lf - ax))
                                : 0.5lf * kiln_log1p_d(2.0lf * ax / (1.0lf - ax));
  return x < 0.0lf ? -v : v;
}

// ----- error function (f64) ------------------------------------------------------------------
// As Kiln's reference erfc for f64 results (kernels/scalar/
// error_function.cc), step by step, and erf from the same pieces (within
// an ulp of the reference's, C's): |x| <= 3.5 by the Taylor series of erf
// in double-double, erfc beyond by the continued fraction x + (1/2) / (x
// + 1 / (x + ...)) and e^(-x^2) in double-double. Double-double values are
// (hi, lo) pairs kept in precise locals (Mesa cancels them otherwise);
// quotients by small integers are corrected by their exact remainder, so
// an f64 division within an ulp suffices.
void kiln_dd_add(double ah, double al, double bh, double bl, out double rh, out double rl) {
  double s, e;
  kiln_two_sum_d(ah, bh, s, e);
  precise double f = e + (al + bl);
  precise double t = s + f, u = f - (t - s);
  rh = t;
  rl = u;
}
void kiln_dd_div_small(double ah, double al, double b, out double rh, out double rl) {
  precise double q = ah / b;
  precise double p = q * b;
  precise double r = ((ah - p) - kiln_two_prod_err_d(q, b, p)) + al;
  precise double c = r / b;
  precise double s = q + c, t = c - (s - q);
  rh = s;
  rl = t;
}
// e^-(zh + zl) in two words for zh + zl in [12, 746]: 2^-k e^r with r = k
// ln 2 - (zh + zl) (ln 2 in three words, k ln 2 exact in two), e^r by its
// Taylor series.
void kiln_exp_minus_dd(double zh, double zl, out double rh, out double rl) {
  const double ln2_0 = packDouble2x32(uvec2(0xfefa39efu, 0x3fe62e42u));
  const double ln2_1 = packDouble2x32(uvec2(0x3b39803fu, 0x3c7abc9eu));
  const double ln2_2 = packDouble2x32(uvec2(0x079a1934u, 0x3907b57au));
  precise double k = kiln_round_even_d(zh * packDouble2x32(uvec2(0x652b82feu, 0x3ff71547u)));
  precise double p0 = k * ln2_0, p1 = k * ln2_1;
  double r0, r1;
  kiln_dd_add(p0, kiln_two_prod_err_d(k, ln2_0, p0), -zh, -zl, r0, r1);
  precise double l1 = kiln_two_prod_err_d(k, ln2_1, p1) + k * ln2_2;
  kiln_dd_add(r0, r1, p1, l1, r0, r1);
  double sh = 1.0lf, sl = 0.0lf, th = 1.0lf, tl = 0.0lf;
  for (int n = 1; n < 30; ++n) {
    double mh, ml;
    kiln_dd_mul(th, tl, r0, r1, mh, ml);
    kiln_dd_div_small(mh, ml, double(n), th, tl);
    kiln_dd_add(sh, sl, th, tl, sh, sl);
    if (abs(th) <= 1e-33lf) break;
  }
  rh = kiln_scale_d(sh, -int(k));
  rl = kiln_scale_d(sl, -int(k));
}
// erf x in two words for |x| <= 3.5: 2/sqrt(pi) sum_n (-x^2)^n x / (n! (2n+1)).
void kiln_erf_series_dd(double x, out double rh, out double rl) {
  precise double zh = x * x;
  precise double zl = kiln_two_prod_err_d(x, x, zh);
  double ph = 1.0lf, pl = 0.0lf, sh = 1.0lf, sl = 0.0lf;
  for (int n = 1; n < 200; ++n) {
    double mh, ml, uh, ul;
    kiln_dd_mul(ph, pl, -zh, -zl, mh, ml);
    kiln_dd_div_small(mh, ml, double(n), ph, pl);
    kiln_dd_div_small(ph, pl, double(2 * n + 1), uh, ul);
    kiln_dd_add(sh, sl, uh, ul, sh, sl);
    if (abs(uh) <= 1e-33lf * sh) break;
  }
  double xh, xl;
  kiln_dd_mul(sh, sl, x, 0.0lf, xh, xl);
  kiln_dd_mul(xh, xl, packDouble2x32(uvec2(0x50429b6du, 0x3ff20dd7u)), packDouble2x32(uvec2(0x914fed80u, 0x3c71ae3au)),
              rh, rl);
}
// erfc x for 3.5 < x <= 27.3: e^(-x^2) / (sqrt(pi) t), t the continued
// fraction from 160 levels, its last level in two words.
double kiln_erfc_tail_d(double x) {
  precise double t = x;
  for (int k = 160; k > 1; --k) t = x + (0.5lf * double(k)) / t;
  precise double q = 0.5lf / t;
  precise double th = x + q;
  precise double tl = q - (th - x);
  precise double zh = x * x;
  double nh, nl, dh, dl, mh, ml;
  kiln_exp_minus_dd(zh, kiln_two_prod_err_d(x, x, zh), nh, nl);
  kiln_dd_mul(th, tl, packDouble2x32(uvec2(0x91b4ef6bu, 0x3ffc5bf8u)), packDouble2x32(uvec2(0x3eb7ca89u, 0xbc9618f1u)),
              dh, dl);
  precise double r = nh / dh;
  kiln_dd_mul(r, 0.0lf, dh, dl, mh, ml);
  precise double v = r + (((nh - mh) - ml) + nl) / dh;
  return v;
}
double kiln_erf_d(double x) {
  if (kiln_isnan_d(x) || x == 0.0lf) return x;  // -0 stays -0 (the series' sums would give +0)
  precise double ax = abs(x);
  if (ax >= 6.0lf) return x < 0.0lf ? -1.0lf : 1.0lf;  // erfc 6 = 2e-17: 1 - erfc rounds to 1
  if (ax > 3.5lf) {
    precise double v = 1.0lf - kiln_erfc_tail_d(ax);
    return x < 0.0lf ? -v : v;
  }
  double rh, rl;
  kiln_erf_series_dd(x, rh, rl);
  precise double v = rh + rl;
  return v;
}
double kiln_erfc_d(double x) {
  if (kiln_isnan_d(x)) return x;
  if (x < -6.0lf) return 2.0lf;
  if (x < -3.5lf) {
    precise double v = 2.0lf - kiln_erfc_tail_d(-x);
    return v;
  }
  if (x <= 3.5lf) {
    double eh, el, rh, rl;
    kiln_erf_series_dd(x, eh, el);
    kiln_dd_add(1.0lf, 0.0lf, -eh, -el, rh, rl);
    precise double v = rh + rl;
    return v;
  }
  if (x > 27.3lf) return 0.0lf;  // below half the smallest subnormal
  return kiln_erfc_tail_d(x);
}
// erf^-1 as the reference's f64 one: Winitzki's approximation, then Newton
// steps on erf (|x| <= 1/2) or on erfc with 1 - |x| exact (|x| > 1/2).
double kiln_erf_inv_d(double x) {
  if (kiln_isnan_d(x)) return x;
  if (x == 1.0lf) return kiln_inf_d();
  if (x == -1.0lf) return -kiln_inf_d();
  if (x > 1.0lf || x < -1.0lf) return kiln_nan_d();
  if (x == 0.0lf) return x;
  precise double ax = abs(x);
  precise double l = kiln_log_d((1.0lf - ax) * (1.0lf + ax));
  precise double t = 2.0lf / (KILN_PI * 0.147lf) + l / 2.0lf;
  precise double y = sqrt(sqrt(t * t - l / 0.147lf) - t);
  const double k = packDouble2x32(uvec2(0x50429b6du, 0x3ff20dd7u));  // 2 / sqrt(pi)
  for (int it = 0; it < 8; ++it) {
    precise double f = ax > 0.5lf ? (1.0lf - ax) - kiln_erfc_d(y) : kiln_erf_d(y) - ax;
    precise double step = f / (k * kiln_exp_d(-y * y));
    y -= step;
    if (abs(step) <= abs(y) * 1e-17lf) break;
  }
  return x < 0.0lf ? -y : y;
}

// complex<f64> transcendental functions (as the complex<f32> ones).
dvec2 kiln_cexp(dvec2 z) {
  if (z.y == 0.0lf) return dvec2(kiln_exp_d(z.x), z.y);
  precise double e = kiln_exp_d(z.x);
  return dvec2(e * kiln_cos_d(z.y), e * kiln_sin_d(z.y));
}
dvec2 kiln_clog(dvec2 z) { return dvec2(kiln_log_d(kiln_cabs(z)), kiln_atan2_d(z.y, z.x)); }
dvec2 kiln_cexpm1(dvec2 z) {
  precise double s = kiln_sin_d(0.5lf * z.y);
  return dvec2(kiln_expm1_d(z.x) * kiln_cos_d(z.y) - 2.0lf * s * s, kiln_exp_d(z.x) * kiln_sin_d(z.y));
}
dvec2 kiln_clog1p(dvec2 z) {
  precise double x = z.x, y = z.y;
  return dvec2(0.5lf * kiln_log1p_d(2.0lf * x + x * x + y * y), kiln_atan2_d(y, 1.0lf + x));
}
dvec2 kiln_csin(dvec2 z) { return dvec2(kiln_sin_d(z.x) * kiln_cosh_d(z.y), kiln_cos_d(z.x) * kiln_sinh_d(z.y)); }
dvec2 kiln_ccos(dvec2 z) { return dvec2(kiln_cos_d(z.x) * kiln_cosh_d(z.y), -kiln_sin_d(z.x) * kiln_sinh_d(z.y)); }
// sinh and cosh of x + iy: (sinh x cos y, cosh x sin y) and (cosh x cos y,
// sinh x sin y). Past |x| = 709.75, where cosh x nears DBL_MAX and
// overflows soon after, cosh x = |sinh x| = e^|x| / 2 is carried as
// e^(|x| - 700) times e^700 / 2, the former multiplied by cos y or sin y
// first: a product that is finite (|x| up to about 745 with |cos y| small)
// is not lost to an infinity. sin y = 0 keeps its zero.
dvec2 kiln_csinhcosh_big(dvec2 z, bool sinh_) {
  precise double m = kiln_exp_d(abs(z.x) - 700.0lf);  // exact difference
  const double half_e700 = packDouble2x32(uvec2(0xf4f8ec8eu, 0x7efd945du));
  precise double c = kiln_cos_d(z.y), s = kiln_sin_d(z.y);
  precise double re = (m * c) * half_e700, im = s == 0.0lf ? s : (m * s) * half_e700;
  if (z.x < 0.0lf) {
    if (sinh_) re = -re; else im = -im;
  }
  return dvec2(re, im);
}
dvec2 kiln_csinh(dvec2 z) {
  if (abs(z.x) > 709.75lf && !kiln_isinf_d(z.x)) return kiln_csinhcosh_big(z, true);
  return dvec2(kiln_sinh_d(z.x) * kiln_cos_d(z.y), kiln_cosh_d(z.x) * kiln_sin_d(z.y));
}
dvec2 kiln_ccosh(dvec2 z) {
  if (abs(z.x) > 709.75lf && !kiln_isinf_d(z.x)) return kiln_csinhcosh_big(z, false);
  return dvec2(kiln_cosh_d(z.x) * kiln_cos_d(z.y), kiln_sinh_d(z.x) * kiln_sin_d(z.y));
}
dvec2 kiln_ctanh(dvec2 z) {
  if (abs(z.x) > 22.0lf) return dvec2(z.x < 0.0lf ? -1.0lf : 1.0lf, 0.0lf * kiln_sin_d(2.0lf * z.y));
  precise double d = kiln_cosh_d(2.0lf * z.x) + kiln_cos_d(2.0lf * z.y);
  return dvec2(kiln_sinh_d(2.0lf * z.x) / d, kiln_sin_d(2.0lf * z.y) / d);
}
dvec2 kiln_ctan(dvec2 z) {
  dvec2 t = kiln_ctanh(dvec2(-z.y, z.x));
  return dvec2(t.y, -t.x);
}
dvec2 kiln_cpow(dvec2 a, dvec2 b) {  // a zero base: as the f32 one (prelude.glsl)
  if (a.x == 0.0lf && a.y == 0.0lf)
    return b.x > 0.0lf ? dvec2(0.0lf) : (b.x < 0.0lf ? dvec2(kiln_inf_d(), kiln_nan_d()) : dvec2(kiln_nan_d()));
  return kiln_cexp(kiln_cmul(b, kiln_clog(a)));
}
dvec2 kiln_catan2(dvec2 y, dvec2 x) {
  dvec2 l = kiln_clog(kiln_cdiv(x + dvec2(-y.y, y.x), kiln_csqrt(kiln_cmul(x, x) + kiln_cmul(y, y))));
  return dvec2(l.y, -l.x);
}

// ----- inverse trigonometric and hyperbolic functions of complex numbers ----------------------
// complex<f64> here; complex<f32> converts to dvec2 and rounds once.
// asin and acos by Hull, Fairgrieve and Tang (ACM TOMS 23(3), 1997): with
// X = |x|, Y = |y|, r = |z + 1|, s = |z - 1|, A = (r + s) / 2 and B = X / A,
// asin z = asin B + i log(A + sqrt(A^2 - 1)) (parts signed as x and y),
// each part rearranged where it would cancel (B near 1: an atan form; A
// near 1: log1p of A - 1 from r and s), and past |z| = 2^28, where the
// terms dropped are below an ulp, asin z = atan2(X, Y) + i (log 2|z|).
// asinh and acosh follow by rotation. atanh (atan by rotation) by Kahan's
// formulas: Re = log1p(4X / ((1 - X)^2 + Y^2)) / 4 and
// Im = atan2(2Y, (1 - X)(1 + X) - Y^2) / 2, the latter's 1 - X^2 - Y^2 in
// double-double (it cancels near the unit circle). Special values as C's
// casin, cacos, catanh (Annex G), which the CPU device's glibc follows.
double kiln_copysign_d(double v, double s) {
  uvec2 w = unpackDouble2x32(v);
  w.y = (w.y & 0x7fffffffu) | (unpackDouble2x32(s).y & 0x80000000u);
  return packDouble2x32(w);
}
// sqrt(a^2 + b^2) for finite a, b >= 0 within an ulp: scaled by a
// power of two (exact), the squares summed in double-double, the root
// corrected by one Newton step on that sum.
double kiln_hypot_d(double a, double b) {
  precise double m = max(a, b);
  if (m == 0.0lf) return m;
  int e;
  kiln_frexp_d(m, e);
  precise double x = kiln_scale_d(a, -e), y = kiln_scale_d(b, -e);
  precise double hx = x * x, hy = y * y, s, ss;
  kiln_two_sum_d(hx, hy, s, ss);
  ss += kiln_two_prod_err_d(x, x, hx) + kiln_two_prod_err_d(y, y, hy);
  precise double r = sqrt(s), rr = r * r;
  precise double corr = ((s - rr) - kiln_two_prod_err_d(r, r, rr) + ss) / (2.0lf * r);
  return kiln_scale_d(r + corr, e);
}
// log(2 sqrt(X^2 + Y^2)) without overflow, for max(X, Y) > 2^28.
double kiln_log_2abs_d(double X, double Y) {
  precise double m = max(X, Y), q = min(X, Y) / m;
  return kiln_log_d(m) + 0.5lf * kiln_log1p_d(q * q) + KILN_LN2_HI + KILN_LN2_LO;
}
// (asin (X + iY), Re acos (X + iY)) for finite X, Y >= 0: x = real part of
// asin, y = its imaginary part, z = the real part of acos (its imaginary
// part is -y).
dvec3 kiln_casin_parts(double X, double Y) {
  if (max(X, Y) > kiln_pow2_d(28)) {
    return dvec3(kiln_atan2_d(X, Y), kiln_log_2abs_d(X, Y), kiln_atan2_d(Y, X));
  }
  precise double r = kiln_hypot_d(X + 1.0lf, Y), s = kiln_hypot_d(abs(X - 1.0lf), Y);
  precise double A = 0.5lf * (r + s), B = X / A, apx = A + X;
  precise double re, re_acos, im;
  if (B <= 0.6417lf) {
    re = kiln_asin_d(B);
    re_acos = kiln_acos_d(B);
  } else if (X <= 1.0lf) {
    precise double d = sqrt(0.5lf * apx * (Y * Y / (r + (X + 1.0lf)) + (s + (1.0lf - X))));
    re = kiln_atan_d(X / d);
    re_acos = kiln_atan_d(d / X);
  } else {
    precise double d = Y * sqrt(0.5lf * (apx / (r + (X + 1.0lf)) + apx / (s + (X - 1.0lf))));
    re = kiln_atan2_d(X, d);
    re_acos = kiln_atan2_d(d, X);
  }
  if (A <= 1.5lf) {
    precise double am1;
    if (X < 1.0lf && Y < kiln_pow2_d(-500)) {
      // Y^2 would underflow: Im asin = Y / sqrt(1 - X^2) to first order.
      im = Y / sqrt((1.0lf - X) * (1.0lf + X));
      return dvec3(re, im, re_acos);
    }
    if (X < 1.0lf) am1 = 0.5lf * (Y * Y / (r + (X + 1.0lf)) + Y * Y / (s + (1.0lf - X)));
    else am1 = 0.5lf * (Y * Y / (r + (X + 1.0lf)) + (s + (X - 1.0lf)));
    im = kiln_log1p_d(am1 + sqrt(am1 * (A + 1.0lf)));
  } else {
    im = kiln_log_d(A + sqrt(A * A - 1.0lf));
  }
  return dvec3(re, im, re_acos);
}
dvec2 kiln_casin(dvec2 z) {
  precise double X = abs(z.x), Y = abs(z.y);
  if (kiln_isinf_d(X) || kiln_isinf_d(Y)) {
    double re = kiln_isnan_d(X) || kiln_isnan_d(Y) ? kiln_nan_d() : kiln_atan2_d(X, Y);
    return dvec2(kiln_copysign_d(re, z.x), kiln_copysign_d(kiln_inf_d(), z.y));
  }
  if (kiln_isnan_d(X) || kiln_isnan_d(Y)) return dvec2(X == 0.0lf ? z.x : kiln_nan_d(), kiln_nan_d());
  dvec3 p = kiln_casin_parts(X, Y);
  return dvec2(kiln_copysign_d(p.x, z.x), kiln_copysign_d(p.y, z.y));
}
dvec2 kiln_cacos(dvec2 z) {
  precise double X = abs(z.x), Y = abs(z.y);
  if (kiln_isinf_d(X) || kiln_isinf_d(Y)) {
    double re = kiln_isnan_d(X) || kiln_isnan_d(Y) ? kiln_nan_d() : kiln_atan2_d(Y, z.x);
    return dvec2(re, kiln_copysign_d(kiln_inf_d(), -z.y));
  }
  if (kiln_isnan_d(X) || kiln_isnan_d(Y))
    return dvec2(X == 0.0lf ? 0.5lf * KILN_PI : kiln_nan_d(), kiln_nan_d());
  dvec3 p = kiln_casin_parts(X, Y);
  precise double re = (unpackDouble2x32(z.x).y & 0x80000000u) != 0u ? KILN_PI - p.z : p.z;
  return dvec2(re, kiln_copysign_d(p.y, -z.y));
}
// asinh z = -i asin(iz), acosh z = +-i acos z (the sign that makes Re >= 0).
dvec2 kiln_casinh(dvec2 z) {
  dvec2 a = kiln_casin(dvec2(-z.y, z.x));
  return dvec2(a.y, -a.x);
}
dvec2 kiln_cacosh(dvec2 z) {
  if (kiln_isinf_d(z.y))
    return dvec2(kiln_inf_d(), kiln_isnan_d(z.x) ? kiln_nan_d() : kiln_copysign_d(kiln_atan2_d(abs(z.y), z.x), z.y));
  if (kiln_isinf_d(z.x))
    return dvec2(kiln_inf_d(), kiln_isnan_d(z.y) ? kiln_nan_d() : kiln_copysign_d(z.x < 0.0lf ? KILN_PI : 0.0lf, z.y));
  if (kiln_isnan_d(z.x) || kiln_isnan_d(z.y)) return dvec2(kiln_nan_d(), z.x == 0.0lf ? 0.5lf * KILN_PI : kiln_nan_d());
  dvec2 a = kiln_cacos(z);
  return (unpackDouble2x32(z.y).y & 0x80000000u) != 0u ? dvec2(a.y, -a.x) : dvec2(-a.y, a.x);
}
dvec2 kiln_catanh(dvec2 z) {
  precise double X = abs(z.x), Y = abs(z.y);
  if (kiln_isinf_d(X) || kiln_isinf_d(Y))
    return dvec2(kiln_copysign_d(0.0lf, z.x), kiln_isnan_d(Y) ? kiln_nan_d() : kiln_copysign_d(0.5lf * KILN_PI, z.y));
  if (kiln_isnan_d(X) || kiln_isnan_d(Y)) return dvec2(X == 0.0lf ? z.x : kiln_nan_d(), kiln_nan_d());
  precise double re, im;
  precise double m = max(X, Y);
  if (m > kiln_pow2_d(28)) {
    // atanh z = 1/z +- i pi/2 + O(|z|^-3): Re = X / |z|^2; Im from atan2's
    // arguments scaled by 1/m (the 1 of 1 - |z|^2 below an ulp).
    precise double u = X / m, v = Y / m, q = u * u + v * v;
    re = (u / m) / q;
    im = 0.5lf * kiln_atan2_d(2.0lf * v, -(q * m));
  } else {
    precise double omx = 1.0lf - X;
    precise double h = kiln_hypot_d(abs(omx), Y);  // |1 - z|, its square below 2^-800 where z nears 1
    if (h < kiln_pow2_d(-400)) re = 0.25lf * kiln_log_d(4.0lf * X) - 0.5lf * kiln_log_d(h);
    else re = 0.25lf * kiln_log1p_d(4.0lf * X / (omx * omx + Y * Y));
    // 1 - X^2 - Y^2 = 1 - (hx + lx) - (hy + ly), the larger square first
    // (1 - hx is then exact where the sum nears 1).
    precise double hx = X * X, hy = Y * Y;
    precise double lx = kiln_two_prod_err_d(X, X, hx), ly = kiln_two_prod_err_d(Y, Y, hy);
    precise double big = max(hx, hy), small = min(hx, hy);
    precise double d = ((1.0lf - big) - small) - (lx + ly);
    im = 0.5lf * kiln_atan2_d(2.0lf * Y, d);
  }
  return dvec2(kiln_copysign_d(re, z.x), kiln_copysign_d(im, z.y));
}
// atan z = -i atanh(iz).
dvec2 kiln_catan(dvec2 z) {
  dvec2 a = kiln_catanh(dvec2(-z.y, z.x));
  return dvec2(a.y, -a.x);
}

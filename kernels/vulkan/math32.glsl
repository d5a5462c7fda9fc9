// f32 transcendental functions written by Kiln, so results do not depend on
// a driver's built-ins: Vulkan lets exp, log, pow, sin, atan... be off by
// thousands of ulp (its precision table), and real GPUs use that freedom.
// Within 3 ulp of the correctly rounded result (tests/compiler/vulkan/
// math_ulp_test.cc checks every function against the CPU device on random
// and edge values). Only +, -, * are exact on every Vulkan device (division
// is allowed 2.5 ulp, fma need not be fused), so the exact steps below use
// Dekker's products with `precise` (no contraction) and never fma. Special
// values follow C's <math.h>. Polynomials are least-squares fits on
// Chebyshev nodes of the stated ranges (coefficients rounded to f32).

// trunc by floor and ceil, never the built-in: lavapipe on some hosts (an
// AVX2 one without AVX-512) leaves trunc's argument as it is from 2^31 on
// (1e10 % 3 came out 0), and rounds ties of roundEven on doubles toward
// zero (prelude64.glsl). Here, before prelude.glsl: both use it.
float kiln_trunc(float x) { return x < 0.0 ? ceil(x) : floor(x); }

float kiln_nan() { return uintBitsToFloat(0x7fc00000u); }
float kiln_inf() { return uintBitsToFloat(0x7f800000u); }
bool kiln_m_isnan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }
bool kiln_m_isinf(float x) { return (floatBitsToUint(x) & 0x7fffffffu) == 0x7f800000u; }
bool kiln_m_signbit(float x) { return (floatBitsToUint(x) & 0x80000000u) != 0u; }
float kiln_copysign(float m, float s) {
  return uintBitsToFloat((floatBitsToUint(m) & 0x7fffffffu) | (floatBitsToUint(s) & 0x80000000u));
}
// x * 2^n for any n (two steps: ldexp's exponent must stay in range).
float kiln_scale(float x, int n) {
  int h = n / 2;
  return ldexp(ldexp(x, h), n - h);
}

// ----- exact products (Veltkamp split; |a| < 2^115) -------------------------
void kiln_split(float a, out float hi, out float lo) {
  precise float c = 4097.0 * a;
  precise float h = c - (c - a);
  hi = h;
  lo = a - h;
}
// a * b = p + e exactly (barring underflow of e).
void kiln_two_prod(float a, float b, out float p, out float e) {
  float ah, al, bh, bl;
  kiln_split(a, ah, al);
  kiln_split(b, bh, bl);
  precise float q = a * b;
  precise float r = ((ah * bh - q) + ah * bl + al * bh) + al * bl;
  p = q;
  e = r;
}
// a + b = s + e exactly.
void kiln_two_sum(float a, float b, out float s, out float e) {
  precise float t = a + b;
  precise float bb = t - a;
  precise float r = (a - (t - bb)) + (b - bb);
  s = t;
  e = r;
}

// ----- exp family ---------------------------------------------------------------
// e^(r + c) for |r| <= 0.35, |c| tiny (a correction of r).
float kiln_exp_poly(float r) {
  float p = 0.000199004309;
  p = p * r + 0.00139345345;
  p = p * r + 0.00833329745;
  p = p * r + 0.0416664556;
  p = p * r + 0.166666672;
  p = p * r + 0.5;
  return 1.0 + (r + r * r * p);
}
// x = n ln2 + r (Cody-Waite: 0.693359375 has 9 bits, so n times it is exact).
float kiln_exp_reduce(float x, out int n) {
  float k = roundEven(x * 1.44269502);
  n = int(k);
  precise float r = (x - k * 0.693359375) - k * -2.12194440e-4;
  return r;
}
// The exp, tanh and logistic of the elementwise programs compute their
// main path for every lane and select the special cases after it, without
// branches: a SIMD device (lavapipe: 8 lanes) runs every branch any lane
// takes, and the branches cost it more than the arithmetic (a tanh chain
// over 16M elements: 118 -> N ms). The same operations as the branches'
// in the same order, so the same bits.
float kiln_exp(float x) {
  int n;
  float r = kiln_exp_reduce(clamp(x, -103.972084, 88.7228394), n);
  float y = kiln_scale(kiln_exp_poly(r), n);
  y = x > 88.7228394 ? kiln_inf() : y;
  y = x < -103.972084 ? 0.0 : y;
  return kiln_m_isnan(x) ? x : y;
}
float kiln_expm1(float x) {
  if (kiln_m_isnan(x)) return x;
  if (x > 88.7228394) return kiln_inf();
  if (x < -17.5) return -1.0;
  if (x == 0.0) return x;  // keeps the sign of zero
  if (abs(x) < 0.34657359) {  // x + x^2 P(x)
    float p = 2.48691904e-05;
    p = p * x + 0.000199004309;
    p = p * x + 0.00138888368;
    p = p * x + 0.00833329745;
    p = p * x + 0.0416666679;
    p = p * x + 0.166666672;
    p = p * x + 0.5;
    return x + x * x * p;
  }
  int n;
  float r = kiln_exp_reduce(x, n);
  float pm1 = kiln_exp_poly(r) - 1.0;  // exact: e^r - 1 by Sterbenz (1 + small)
  // 2^n e^r - 1 = (2^n - 1) + 2^n (e^r - 1)
  if (n > 100) return kiln_scale(pm1 + 1.0, n);
  float t = ldexp(1.0, n);
  return (t - 1.0) + t * pm1;
}

// ----- log family -----------------------------------------------------------------
// log(1 + f) for f in [sqrt(0.5) - 1, sqrt(2) - 1].
float kiln_log1p_poly(float f) {
  float p = 0.0714788586;
  p = p * f + -0.115707077;
  p = p * f + 0.116619028;
  p = p * f + -0.124111302;
  p = p * f + 0.142499089;
  p = p * f + -0.166684762;
  p = p * f + 0.200007081;
  p = p * f + -0.249999896;
  p = p * f + 0.333333313;
  float z = f * f;
  return f + (f * z * p - 0.5 * z);
}
// x = m 2^e with m in [sqrt(0.5), sqrt(2)); x finite, > 0.
float kiln_log_reduce(float x, out int e) {
  int bias = 0;
  if (x < 1.17549435e-38) {  // subnormal: scale into the normal range
    x *= 16777216.0;
    bias = -24;
  }
  uint b = floatBitsToUint(x);
  e = int(b >> 23) - 127 + bias;
  float m = uintBitsToFloat((b & 0x007fffffu) | 0x3f800000u);  // [1, 2)
  if (m > 1.41421354) {
    m *= 0.5;
    e += 1;
  }
  return m;
}
float kiln_log(float x) {
  if (kiln_m_isnan(x)) return x;
  if (x < 0.0) return kiln_nan();
  if (x == 0.0) return -kiln_inf();
  if (kiln_m_isinf(x)) return x;
  int e;
  float f = kiln_log_reduce(x, e) - 1.0;  // exact
  float k = float(e);
  // log x = e ln2 + log1p(f), ln2 in two parts (0.693359375 has 9 bits)
  return (k * -2.12194440e-4 + kiln_log1p_poly(f)) + k * 0.693359375;
}
float kiln_log1p(float x) {
  if (kiln_m_isnan(x)) return x;
  if (x < -1.0) return kiln_nan();
  if (x == -1.0) return -kiln_inf();
  if (kiln_m_isinf(x)) return x;
  if (x >= -0.29289321 && x <= 0.41421356) return kiln_log1p_poly(x);  // x exact: no rounding of 1 + x
  float u = 1.0 + x;
  // log(1 + x) = log(u) + (x - (u - 1)) / u: corrects the rounding of 1 + x
  float c = x > 1e8 ? 0.0 : (x - (u - 1.0)) / u;
  return kiln_log(u) + c;
}

// ----- hyperbolic and logistic ---------------------------------------------------------
// tanh(a) = m / (m + 2) with m = expm1(2a), a = |x| (the CPU device's
// formula, kernels/cpu/elementwise_math-inl.h): k = round(2a / ln2) and r =
// a - k ln2/2 in [-ln2/4, ln2/4] (Cody-Waite; ln2/2's high part has 17
// bits, so k times it is exact for the k up to 29 that a <= 10 gives),
// m = 2^k expm1(2r) + (2^k - 1) with expm1(2r) = 2r + r^2 S(r). Below
// 0.625 the odd polynomial of before, from a = 10 on 1. No branches: every
// lane runs the same code (with them, the 16M-element chain of docs/
// performance.md took 118 ms; so 47-56). Measured on lavapipe against
// numpy's tanh in double over 16M inputs from 1e-8 to 12, both signs: at
// most 1 ulp.
float kiln_tanh(float x) {
  float a = min(abs(x), 10.0);
  float k = roundEven(a * 2.88539004);
  float r = (a - k * 0.3465728759765625) - k * 7.14303383e-07;
  float s = 0.0889507979 * r + 0.267755061;
  s = s * r + 0.666669905;
  s = s * r + 1.33332312;
  s = s * r + 2.0;
  float q = r * r * s + (r + r);
  float scale = uintBitsToFloat(uint(int(k) + 127) << 23);
  float m = scale * q + (scale - 1.0);
  float t = kiln_copysign(m / (m + 2.0), x);
  // Below 0.625 an odd polynomial (1 ulp; the quotient gives 2 near 1e-4).
  float z = x * x;
  float p = -0.006104948;
  p = p * z + 0.0210036412;
  p = p * z + -0.0538524985;
  p = p * z + 0.133327827;
  p = p * z + -0.333333284;
  t = a < 0.625 ? x + x * z * p : t;
  t = a >= 10.0 ? kiln_copysign(1.0, x) : t;
  return (kiln_m_isnan(x) || x == 0.0) ? x : t;
}
float kiln_logistic(float x) {
  // x < 0: e^x / (1 + e^x), which keeps tiny results instead of 1 / inf.
  float e = kiln_exp(-abs(x));
  float y = x < 0.0 ? e / (1.0 + e) : 1.0 / (1.0 + e);
  return kiln_m_isnan(x) ? x : y;
}
// e^x / 2 for x <= 89.4 (beyond e^x's overflow at 88.72).
float kiln_exp_half(float x) {
  int n;
  float r = kiln_exp_reduce(x, n);
  return kiln_scale(kiln_exp_poly(r), n - 1);
}
// Beyond |x| = 9, e^-|x| is below half an ulp of e^|x|: sinh and cosh are
// e^|x| / 2, computed as such so they stay finite where e^|x| overflows.
float kiln_sinh(float x) {
  if (kiln_m_isnan(x) || kiln_m_isinf(x)) return x;
  float ax = abs(x);
  if (ax < 1.0) {
    float z = x * x;
    float p = 2.54567549e-08;
    p = p * z + 2.75537695e-06;
    p = p * z + 0.000198412832;
    p = p * z + 0.00833333377;
    p = p * z + 0.166666672;
    return x + x * z * p;
  }
  float s;
  if (ax > 9.0) {
    s = ax > 89.5 ? kiln_inf() : kiln_exp_half(ax);
  } else {
    float e = kiln_exp(ax);
    s = 0.5 * e - 0.5 / e;
  }
  return kiln_copysign(s, x);
}
float kiln_cosh(float x) {
  if (kiln_m_isnan(x)) return x;
  float ax = abs(x);
  if (ax > 9.0) return ax > 89.5 ? kiln_inf() : kiln_exp_half(ax);
  float e = kiln_exp(ax);
  return 0.5 * e + 0.5 / e;
}

// ----- trigonometric ---------------------------------------------------------------------
// Bits of 2/pi after the binary point, one leading zero word.
const uint KILN_TWO_OVER_PI[10] = uint[10](0u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u,
                                           0x3c439041u, 0xfe5163abu, 0xdebbc561u, 0xb7246e3au);
// |x| = q pi/2 + (rh + rl), |rh + rl| <= pi/4, for finite x (Payne-Hanek in
// integers: exact for every argument, huge ones included).
void kiln_trig_reduce(float x, out int q, out float rh, out float rl) {
  uint b = floatBitsToUint(x) & 0x7fffffffu;
  if (b < 0x3f490fdbu) {  // |x| < pi/4
    q = 0;
    rh = uintBitsToFloat(b);
    rl = 0.0;
    return;
  }
  uint mant = (b & 0x007fffffu) | 0x00800000u;  // |x| = mant 2^E, E >= -24
  int E = int(b >> 23) - 150;
  // mant * 2/pi * 2^E: bits of 2/pi before E - 2 give multiples of 4; the
  // 96-bit window after them gives q mod 4 in bits 94..95 and the fraction.
  int s = E - 2 + 32;
  // The window's three words (from bit s of the table). The table is copied
  // into a local array once: lavapipe materializes a constant array at
  // every access by a variable index (sin of 1M f32 took 30 ms so).
  uint tbl[10] = KILN_TWO_OVER_PI;
  int wi = s / 32, o = s % 32;
  uint win[3];
  for (int j = 0; j < 3; ++j)
    win[j] = o == 0 ? tbl[wi + j] : (tbl[wi + j] << uint(o)) | (tbl[wi + j + 1] >> uint(32 - o));
  uint w0 = win[0], w1 = win[1], w2 = win[2];
  uint h0, l0, h1, l1, h2, l2;
  umulExtended(mant, w0, h0, l0);
  umulExtended(mant, w1, h1, l1);
  umulExtended(mant, w2, h2, l2);
  uint c1;
  uint p1 = uaddCarry(h2, l1, c1);
  uint p2 = h1 + l0 + c1;
  q = int(p2 >> 30);
  uint fh = p2 & 0x3fffffffu, fl = p1;  // fraction: fh:fl / 2^62
  bool neg = (fh & 0x20000000u) != 0u;  // >= 1/2: take f - 1 and q + 1
  if (neg) {
    uint borrow;
    fl = usubBorrow(0u, fl, borrow);
    fh = (0x40000000u - fh - borrow) & 0x3fffffffu;
    q = (q + 1) & 3;
  }
  // f = F / 2^62 in three exact chunks (22 + 20 + 20 bits), summed as hi + lo
  float ca = float(fh >> 8u) * 2.38418579e-07;                                 // 2^-22
  float cb = float(((fh & 0xffu) << 12u) | (fl >> 20u)) * 2.27373675e-13;      // 2^-42
  float cc = float(fl & 0xfffffu) * 2.16840434e-19;                             // 2^-62
  float fh2, fl2;
  kiln_two_sum(ca, cb, fh2, fl2);
  fl2 += cc;
  // r = f pi/2 (pi/2 as 1.57079637 - 4.37113883e-08)
  float ph, pe;
  kiln_two_prod(fh2, 1.57079637, ph, pe);
  precise float lo = pe + (fl2 * 1.57079637 + fh2 * -4.37113883e-08);
  precise float hi = ph + lo;
  rl = lo - (hi - ph);
  rh = hi;
  if (neg) {
    rh = -rh;
    rl = -rl;
  }
}
// sin r and cos r for |r| <= pi/4 (r = rh + rl).
float kiln_sin_poly(float rh, float rl) {
  float z = rh * rh;
  float p = 2.72499642e-06;
  p = p * z + -0.00019840087;
  p = p * z + 0.00833333191;
  p = p * z + -0.166666672;
  return rh + (rh * z * p + rl * (1.0 - 0.5 * z));
}
float kiln_cos_poly(float rh, float rl) {
  float z = rh * rh;
  float p = -2.73009874e-07;
  p = p * z + 2.48005999e-05;
  p = p * z + -0.00138888881;
  p = p * z + 0.0416666679;
  float h = 0.5 * z;
  float w = 1.0 - h;  // 1 - z/2 keeps the bits lost to rounding in the tail
  return w + (((1.0 - w) - h) + (z * z * p - rh * rl));
}
float kiln_sin(float x) {
  if (kiln_m_isnan(x) || kiln_m_isinf(x)) return kiln_nan();
  if (x == 0.0) return x;
  int q;
  float rh, rl;
  kiln_trig_reduce(x, q, rh, rl);
  float v = (q & 1) == 0 ? kiln_sin_poly(rh, rl) : kiln_cos_poly(rh, rl);
  if (q >= 2) v = -v;
  return kiln_m_signbit(x) ? -v : v;
}
float kiln_cos(float x) {
  if (kiln_m_isnan(x) || kiln_m_isinf(x)) return kiln_nan();
  int q;
  float rh, rl;
  kiln_trig_reduce(x, q, rh, rl);
  float v = (q & 1) == 0 ? kiln_cos_poly(rh, rl) : kiln_sin_poly(rh, rl);
  return (q == 1 || q == 2) ? -v : v;
}
float kiln_tan(float x) {
  if (kiln_m_isnan(x) || kiln_m_isinf(x)) return kiln_nan();
  if (x == 0.0) return x;
  int q;
  float rh, rl;
  kiln_trig_reduce(x, q, rh, rl);
  float z = rh * rh;
  float p = 0.00386305293;
  p = p * z + 0.00114869175;
  p = p * z + 0.00998738222;
  p = p * z + 0.0216131285;
  p = p * z + 0.0539956093;
  p = p * z + 0.133332253;
  p = p * z + 0.333333343;
  float t = rh + (rh * z * p + rl * (1.0 + z));
  float v = (q & 1) == 0 ? t : -1.0 / t;
  return kiln_m_signbit(x) ? -v : v;
}

// ----- inverse trigonometric ----------------------------------------------------------------
float kiln_atan(float x) {
  if (kiln_m_isnan(x)) return x;
  float ax = abs(x), bh = 0.0, bl = 0.0, z = ax;
  if (ax > 2.41421356) {  // pi/2 - atan(1/x)
    bh = 1.57079637;
    bl = -4.37113883e-08;
    z = -1.0 / ax;
  } else if (ax > 0.41421356) {  // pi/4 + atan((x - 1) / (x + 1))
    bh = 0.785398185;
    bl = -2.18556941e-08;
    z = (ax - 1.0) / (ax + 1.0);
  }
  float w = z * z;
  float p = 0.0505337417;
  p = p * w + -0.0862696692;
  p = p * w + 0.110717162;
  p = p * w + -0.142841727;
  p = p * w + 0.199999779;
  p = p * w + -0.333333343;
  float v = bh + ((z * w * p + bl) + z);
  return kiln_m_signbit(x) ? -v : v;
}
// asin r - r for |r| <= 0.5 as r z P(z), z = r^2 (given, so callers can pass an exact one).
float kiln_asin_tail(float r, float z) {
  float p = 0.0338057466;
  p = p * z + 0.0170778595;
  p = p * z + 0.0311161559;
  p = p * z + 0.0445980318;
  p = p * z + 0.0750009865;
  p = p * z + 0.166666657;
  return r * z * p;
}
float kiln_sqrt(float x);
float kiln_asin(float x) {
  if (kiln_m_isnan(x)) return x;
  float ax = abs(x);
  if (ax > 1.0) return kiln_nan();
  float v;
  if (ax <= 0.5) {
    v = ax + kiln_asin_tail(ax, ax * ax);
  } else {  // pi/2 - 2 asin(sqrt((1 - x) / 2))
    float z = 0.5 * (1.0 - ax);  // exact
    float s = kiln_sqrt(z);
    v = (1.57079637 - 2.0 * s) + (-4.37113883e-08 - 2.0 * kiln_asin_tail(s, z));
  }
  return kiln_m_signbit(x) ? -v : v;
}
float kiln_acos(float x) {
  if (kiln_m_isnan(x)) return x;
  float ax = abs(x);
  if (ax > 1.0) return kiln_nan();
  if (ax <= 0.5) return (1.57079637 - x) + (-4.37113883e-08 - kiln_asin_tail(x, x * x));
  float z = 0.5 * (1.0 - ax);
  float s = kiln_sqrt(z);
  float t = kiln_asin_tail(s, z);
  if (x > 0.0) return 2.0 * s + 2.0 * t;  // 2 asin(sqrt((1 - x) / 2))
  return (3.14159274 - 2.0 * s) + (-8.74227766e-08 - 2.0 * t);
}
float kiln_atan2(float y, float x) {
  if (kiln_m_isnan(x) || kiln_m_isnan(y)) return kiln_nan();
  bool xneg = kiln_m_signbit(x);
  if (y == 0.0) return xneg ? kiln_copysign(3.14159274, y) : y;
  if (x == 0.0) return kiln_copysign(1.57079637, y);
  if (kiln_m_isinf(x)) {
    if (kiln_m_isinf(y)) return kiln_copysign(xneg ? 2.3561945 : 0.785398185, y);
    return xneg ? kiln_copysign(3.14159274, y) : kiln_copysign(0.0, y);
  }
  if (kiln_m_isinf(y)) return kiln_copysign(1.57079637, y);
  float a = kiln_atan(abs(y) / abs(x));
  if (xneg) a = (3.14159274 - a) + -8.74227766e-08;
  return kiln_copysign(a, y);
}

// ----- roots ------------------------------------------------------------------------------------
// The driver's sqrt (Vulkan allows ~3 ulp) corrected by one Newton step on
// the exact residual x - s^2: correctly rounded but for rare near-halfway
// cases. Scaled so the residual's parts stay normal.
float kiln_sqrt(float x) {
  if (kiln_m_isnan(x) || x < 0.0) return kiln_nan();
  if (x == 0.0 || kiln_m_isinf(x)) return x;
  float k = 1.0, xs = x;
  if (x < 7.88860905e-31) {  // 2^-100
    xs = x * 2.81474977e+14;  // 2^48
    k = 5.96046448e-08;       // 2^-24
  } else if (x > 1.2676506e+30) {
    xs = x * 3.55271368e-15;  // 2^-48
    k = 16777216.0;
  }
  float s = sqrt(xs);
  float p, e;
  kiln_two_prod(s, s, p, e);
  precise float r = (xs - p) - e;
  precise float t = s + r * (0.5 / s);
  // Near halfway between two floats the step can round the wrong way:
  // compare x with the square of the midpoint towards the residual's sign
  // ((t +- u/2)^2 = t^2 +- t u + u^2/4), all terms exact.
  float th, tl;
  kiln_two_prod(t, t, th, tl);
  precise float rh = xs - th;  // exact (Sterbenz)
  if (rh < 0.0 || (rh == 0.0 && tl > 0.0)) {
    float down = uintBitsToFloat(floatBitsToUint(t) - 1u);
    precise float u = t - down;
    precise float m = (rh + t * u) + (-tl - 0.25 * u * u);
    if (m < 0.0) t = down;
  } else {
    float up = uintBitsToFloat(floatBitsToUint(t) + 1u);
    precise float u = up - t;
    precise float m = (rh - t * u) + (-tl - 0.25 * u * u);
    if (m > 0.0) t = up;
  }
  return t * k;
}
float kiln_rsqrt(float x) {
  if (kiln_m_isnan(x) || x < 0.0) return kiln_nan();
  if (x == 0.0) return kiln_copysign(kiln_inf(), x);
  if (kiln_m_isinf(x)) return 0.0;
  float k = 1.0, xs = x;
  if (x < 7.88860905e-31) {
    xs = x * 1.84467441e+19;  // 2^64
    k = 4.2949673e+09;        // 2^32
  } else if (x > 1.2676506e+30) {
    xs = x * 5.42101086e-20;  // 2^-64
    k = 2.32830644e-10;       // 2^-32
  }
  float y = inversesqrt(xs);
  // y' = y + y (1 - x y^2) / 2 with 1 - x y^2 exact
  float y2h, y2l, ph, pl;
  kiln_two_prod(y, y, y2h, y2l);
  kiln_two_prod(xs, y2h, ph, pl);
  precise float d = ((1.0 - ph) - pl) - xs * y2l;
  precise float t = y + y * (0.5 * d);
  return t * k;
}
float kiln_cbrt(float x) {
  if (x == 0.0 || kiln_m_isnan(x) || kiln_m_isinf(x)) return x;
  float ax = abs(x), k = 1.0;
  if (ax < 7.88860905e-31) {
    ax *= 4.72236648e+21;  // 2^72
    k = 5.96046448e-08;    // 2^-24
  } else if (ax > 1.2676506e+30) {
    ax *= 2.11758237e-22;  // 2^-72
    k = 16777216.0;
  }
  float y = kiln_exp(kiln_log(ax) * 0.333333343);
  y = y - (y * y * y - ax) / (3.0 * y * y);
  // one more step on the exact residual ax - y^3
  float y2h, y2l, y3h, y3l;
  kiln_two_prod(y, y, y2h, y2l);
  kiln_two_prod(y2h, y, y3h, y3l);
  precise float r = ((ax - y3h) - y3l) - y2l * y;
  precise float t = y + r / (3.0 * y2h);
  return kiln_copysign(t * k, x);
}

// ----- pow ------------------------------------------------------------------------------------------
// log(x) as hi + lo (about 2^-44 relative) for finite x > 0: x = m 2^e,
// log m = 2 atanh(s), s = (m - 1) / (m + 1), with s, its cube and e ln2 in
// double-float.
void kiln_log_ext(float x, out float lh, out float ll) {
  int e;
  float m = kiln_log_reduce(x, e);
  float num = m - 1.0;  // exact
  float dh, dl;
  kiln_two_sum(m, 1.0, dh, dl);
  float sh = num / dh;
  float qh, qe;
  kiln_two_prod(sh, dh, qh, qe);
  float sl = (((num - qh) - qe) - sh * dl) / dh;
  float s2h, s2l, s3h, s3e;
  kiln_two_prod(sh, sh, s2h, s2l);
  kiln_two_prod(s2h, sh, s3h, s3e);
  float s3l = s3e + s2l * sh + 3.0 * s2h * sl;
  // (2/3) s^3 with 2/3 = 0.666666687 - 1.98682149e-08
  float th, te;
  kiln_two_prod(0.666666687, s3h, th, te);
  float tl = te + 0.666666687 * s3l + -1.98682149e-08 * s3h;
  // 2 s^5 / 5 + 2 s^7 / 7 + ...
  float w = s2h;
  float p = 0.181818182;
  p = p * w + 0.222222222;
  p = p * w + 0.285714298;
  p = p * w + 0.400000006;
  float tail = s3h * w * p;
  // e ln2: 0.693359375 (9 bits: e times it is exact) - 2.12194440e-4 + 1.64659496e-12
  float k = float(e);
  float eh = k * 0.693359375;
  float bh, be;
  kiln_two_prod(k, -2.12194440e-4, bh, be);
  float h, l1, l2;
  kiln_two_sum(eh, bh, h, l1);
  kiln_two_sum(h, 2.0 * sh, h, l2);
  float h3, l3;
  kiln_two_sum(h, th, h3, l3);
  float low = l1 + l2 + l3 + (be + k * 1.64659496e-12 + 2.0 * sl + tl + tail);
  precise float hi = h3 + low;
  lh = hi;
  ll = low - (hi - h3);
}
float kiln_pow(float x, float y) {
  if (y == 0.0 || x == 1.0) return 1.0;
  if (kiln_m_isnan(x) || kiln_m_isnan(y)) return kiln_nan();
  float ax = abs(x);
  bool y_int = kiln_trunc(y) == y;
  bool y_odd = y_int && abs(y) < 16777216.0 && abs(mod(y, 2.0)) == 1.0;
  bool negative = kiln_m_signbit(x);
  if (negative && x != 0.0 && !y_int && !kiln_m_isinf(y)) return kiln_nan();
  float r;
  if (ax == 0.0) r = y < 0.0 ? kiln_inf() : 0.0;
  else if (kiln_m_isinf(y)) r = ax == 1.0 ? 1.0 : ((ax < 1.0) == (y < 0.0) ? kiln_inf() : 0.0);
  else if (kiln_m_isinf(ax)) r = y < 0.0 ? 0.0 : kiln_inf();
  else if (abs(y) > 1.84467441e+19) r = (ax > 1.0) == (y > 0.0) ? kiln_inf() : 0.0;  // |y log x| > 2^40
  else {
    float lh, ll;
    kiln_log_ext(ax, lh, ll);
    float zh, ze;
    kiln_two_prod(y, lh, zh, ze);
    float zl = ze + y * ll;
    if (zh > 88.8) r = kiln_inf();
    else if (zh < -104.0) r = 0.0;
    else {
      float k = roundEven(zh * 1.44269502);
      precise float t = (zh - k * 0.693359375) - k * -2.12194440e-4;
      precise float rr = t + (zl - k * 1.64659496e-12);
      r = kiln_scale(kiln_exp_poly(rr), int(k));
    }
  }
  return negative && y_odd ? -r : r;
}

// ----- error function ------------------------------------------------------------------------
// erfc(x) for x in [0.47, 10.06]: e^(-x^2) Q(1/x) / x, Q fitted around
// 1/x = 1.57 (x <= 1), 0.625 (x <= 4) and 0.175; x^2 in double-float, its low part folded
// into the reduced argument of e^.
float kiln_erfc_large(float ax) {
  float t = 1.0 / ax, q;
  if (ax <= 1.0) {
    float u = t - 1.57;
    q = 1.1366682e-05;
    q = q * u + -5.16493528e-05;
    q = q * u + 0.000139272539;
    q = q * u + -0.000316234684;
    q = q * u + 0.000642764731;
    q = q * u + -0.00112994784;
    q = q * u + 0.00151644426;
    q = q * u + -0.000542664318;
    q = q * u + -0.00616777362;
    q = q * u + 0.0318833068;
    q = q * u + -0.113844633;
    q = q * u + 0.351395488;
  } else if (ax <= 4.0) {
    float u = t - 0.625;
    q = 0.0216819607;
    q = q * u + -0.0473638512;
    q = q * u + 0.0472428203;
    q = q * u + -0.0247461293;
    q = q * u + -0.0102791796;
    q = q * u + 0.0496267565;
    q = q * u + -0.0780318379;
    q = q * u + 0.0721013844;
    q = q * u + -0.00129462092;
    q = q * u + -0.171585649;
    q = q * u + 0.489524782;
  } else {
    float u = t - 0.175;
    q = -1.64250052;
    q = q * u + 0.651812255;
    q = q * u + 0.294978052;
    q = q * u + -0.446369678;
    q = q * u + 0.108296461;
    q = q * u + 0.209136307;
    q = q * u + -0.216778085;
    q = q * u + -0.0905763656;
    q = q * u + 0.555919766;
  }
  float zh, zl;
  kiln_two_prod(ax, ax, zh, zl);
  int n;
  float r = kiln_exp_reduce(-zh, n);
  return kiln_scale(kiln_exp_poly(r - zl) * (q * t), n);
}
float kiln_erf_small(float x) {  // |x| <= 1: x + x G(x^2)
  float z = x * x;
  float p = -1.04739847e-07;
  p = p * z + 1.53085693e-06;
  p = p * z + -1.47954433e-05;
  p = p * z + 0.000120463032;
  p = p * z + -0.000854793645;
  p = p * z + 0.00522396713;
  p = p * z + -0.0268661696;
  p = p * z + 0.112837918;
  p = p * z + -0.376126379;
  p = p * z + 0.128379166;
  return x + x * p;
}
float kiln_erf(float x) {
  if (kiln_m_isnan(x)) return x;
  float ax = abs(x);
  if (ax <= 1.0) return kiln_erf_small(x);
  if (ax >= 3.95) return kiln_copysign(1.0, x);
  return kiln_copysign(1.0 - kiln_erfc_large(ax), x);
}
float kiln_erfc(float x) {
  if (kiln_m_isnan(x)) return x;
  float ax = abs(x);
  // below 0.47 erf < 1/2 < erfc, so 1 - erf loses nothing
  if (x <= 0.47 && ax <= 1.0) return 1.0 - kiln_erf_small(x);
  if (x < 0.0) return ax >= 3.95 ? 2.0 : 1.0 + (1.0 - kiln_erfc_large(ax));
  if (x > 10.06) return 0.0;
  return kiln_erfc_large(ax);
}

// ----- inverse hyperbolic ----------------------------------------------------------------------
float kiln_asinh(float x) {
  if (kiln_m_isnan(x) || kiln_m_isinf(x) || x == 0.0) return x;
  float ax = abs(x), v;
  if (ax < 2.44140625e-4) v = ax;                                        // 2^-12: x - x^3/6 rounds to x
  else if (ax > 4096.0) v = kiln_log(ax) + 0.693147182;                   // log(2x)
  else v = kiln_log1p(ax + ax * ax / (1.0 + kiln_sqrt(1.0 + ax * ax)));  // no cancellation
  return kiln_copysign(v, x);
}
float kiln_acosh(float x) {
  if (kiln_m_isnan(x)) return x;
  if (x < 1.0) return kiln_nan();
  if (x > 4096.0) return kiln_m_isinf(x) ? x : kiln_log(x) + 0.693147182;
  float t = x - 1.0;  // exact
  return kiln_log1p(t + kiln_sqrt(2.0 * t + t * t));
}
float kiln_atanh(float x) {
  if (kiln_m_isnan(x) || x == 0.0) return x;
  float ax = abs(x);
  if (ax > 1.0) return kiln_nan();
  if (ax == 1.0) return kiln_copysign(kiln_inf(), x);
  float v = ax < 0.5 ? 0.5 * kiln_log1p(2.0 * ax + 2.0 * ax * ax / (1.0 - ax)) : 0.5 * kiln_log1p(2.0 * ax / (1.0 - ax));
  return kiln_copysign(v, x);
}

// erf^-1: Winitzki's approximation, then Newton steps on erf (|x| <= 1/2)
// or on erfc with 1 - |x| exact (|x| > 1/2), as kernels/scalar does.
float kiln_erf_inv(float x) {
  if (kiln_m_isnan(x) || x == 0.0) return x;
  float ax = abs(x);
  if (ax > 1.0) return kiln_nan();
  if (ax == 1.0) return kiln_copysign(kiln_inf(), x);
  float l = kiln_log((1.0 - ax) * (1.0 + ax));
  float t = 4.33074236 + 0.5 * l;  // 2 / (pi 0.147)
  float y = kiln_sqrt(kiln_sqrt(t * t - l * 6.80272109) - t);
  for (int i = 0; i < 4; ++i) {
    float f = ax > 0.5 ? (1.0 - ax) - kiln_erfc(y) : kiln_erf(y) - ax;
    y -= f / (1.12837923 * kiln_exp(-y * y));
  }
  return kiln_copysign(y, x);
}

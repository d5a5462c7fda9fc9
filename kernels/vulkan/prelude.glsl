// Shared by every Kiln compute shader (the compiler's vulkan target pastes
// it after the #version line and its extension lines). Binding 0 holds the
// parameter words: [0] the number of invocations the grid covers, then per
// tensor (inputs first) its byte offset and its dimensions.
layout(std430, set = 0, binding = 0) restrict readonly buffer KilnParams { uint p[]; };

// One invocation per element: the grid may be folded into y when x would
// exceed the device's work-group count limit.
uint kiln_linear_id() {
  return gl_GlobalInvocationID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
}

// The four elements that start at component m (0..3) of x0 and run on
// into x1: a run of a tensor that does not start on a texel, read as two
// texels and selected per lane (no gathers).
vec4 kiln_shift4(const vec4 x0, const vec4 x1, const uint m) {
  return m == 0u ? x0 : m == 1u ? vec4(x0.yzw, x1.x) : m == 2u ? vec4(x0.zw, x1.xy) : vec4(x0.w, x1.xyz);
}

// f32 -> f16 bits, rounding to nearest even (packHalf2x16 leaves the
// rounding to the implementation).
uint kiln_f32_to_f16(float f) {
  uint x = floatBitsToUint(f);
  uint sign = (x >> 16) & 0x8000u;
  uint e = (x >> 23) & 0xffu;
  uint m = x & 0x7fffffu;
  // NaN keeps its sign and the top bits of its payload (quiet or signaling,
  // as the CPU's conversions: kernels/scalar/codec.cc), made nonzero.
  if (e == 0xffu) return sign | 0x7c00u | (m != 0u ? ((m >> 13) != 0u ? (m >> 13) : 0x200u) : 0u);
  int ue = int(e) - 127 + 15;
  if (ue >= 31) return sign | 0x7c00u;
  if (ue <= 0) {
    if (ue < -10) return sign;
    m |= 0x800000u;
    uint shift = uint(14 - ue);
    uint h = m >> shift;
    uint rem = m & ((1u << shift) - 1u);
    uint half_ = 1u << (shift - 1u);
    if (rem > half_ || (rem == half_ && (h & 1u) != 0u)) h += 1u;
    return sign | h;
  }
  uint h = (uint(ue) << 10) | (m >> 13);
  uint rem = m & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u) != 0u)) h += 1u;  // may carry into inf: correct
  return sign | h;
}
// A NaN is widened bit by bit: the hardware conversion may quiet a signaling one.
float kiln_f16_to_f32(uint h) {
  if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0u)
    return uintBitsToFloat(((h & 0x8000u) << 16) | 0x7f800000u | ((h & 0x3ffu) << 13));
  return unpackHalf2x16(h & 0xffffu).x;
}
float kiln_round_f16(float f) { return kiln_f16_to_f32(kiln_f32_to_f16(f)); }

// f32 -> bf16 bits, rounding to nearest even; NaN stays NaN, with its sign
// and the top bits of its payload (made nonzero).
uint kiln_f32_to_bf16(float f) {
  uint x = floatBitsToUint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (x >> 16) | ((x & 0x7f0000u) == 0u ? 0x40u : 0u);
  return (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
}
float kiln_bf16_to_f32(uint h) { return uintBitsToFloat((h & 0xffffu) << 16); }
float kiln_round_bf16(float f) { return kiln_bf16_to_f32(kiln_f32_to_bf16(f)); }

bool kiln_isnan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }
bool kiln_isinf(float x) { return (floatBitsToUint(x) & 0x7fffffffu) == 0x7f800000u; }
bool kiln_isfinite(float x) { return (floatBitsToUint(x) & 0x7f800000u) != 0x7f800000u; }

// maximum/minimum as the spec says: NaN wins; -0 < +0.
float kiln_fmax(float a, float b) {
  if (kiln_isnan(a)) return a;
  if (kiln_isnan(b)) return b;
  if (a == b) return (floatBitsToUint(a) & 0x80000000u) != 0u ? b : a;
  return a > b ? a : b;
}
float kiln_fmin(float a, float b) {
  if (kiln_isnan(a)) return a;
  if (kiln_isnan(b)) return b;
  if (a == b) return (floatBitsToUint(a) & 0x80000000u) != 0u ? a : b;
  return a < b ? a : b;
}
// The IEEE totalOrder key of a float: a monotonic signed integer.
int kiln_total_key(float x) {
  int b = floatBitsToInt(x);
  return b < 0 ? b ^ 0x7fffffff : b;
}
float kiln_sign(float x) {
  if (kiln_isnan(x) || x == 0.0) return x;
  return x < 0.0 ? -1.0 : 1.0;
}
float kiln_round_afz(float x) {
  float t = kiln_trunc(x);
  return abs(x - t) >= 0.5 ? t + sign(x) : t;
}
// fmod by long division of the significands in integers, a bit of the
// quotient per step (as C libraries compute it): exact for every pair,
// where a - b * trunc(a / b) loses the quotient's low bits past 2^24.
// Subnormal operands are normalised first, a subnormal result shifted back.
float kiln_fmod(float a, float b) {
  if (kiln_isnan(a) || kiln_isnan(b) || kiln_isinf(a) || b == 0.0) return uintBitsToFloat(0x7fc00000u);
  if (kiln_isinf(b)) return a;
  uint ua = floatBitsToUint(a), ub = floatBitsToUint(b) & 0x7fffffffu;
  const uint sign = ua & 0x80000000u;
  ua &= 0x7fffffffu;
  if (ua < ub) return a;
  if (ua == ub) return uintBitsToFloat(sign);
  int ea = int(ua >> 23), eb = int(ub >> 23);
  uint ma = ea == 0 ? ua : (ua & 0x7fffffu) | 0x800000u;
  uint mb = eb == 0 ? ub : (ub & 0x7fffffu) | 0x800000u;
  if (ea == 0) for (ea = 1; (ma & 0x800000u) == 0u; --ea) ma <<= 1;
  if (eb == 0) for (eb = 1; (mb & 0x800000u) == 0u; --eb) mb <<= 1;
  for (; ea > eb; --ea) {
    if (ma >= mb) {
      ma -= mb;
      if (ma == 0u) return uintBitsToFloat(sign);
    }
    ma <<= 1;
  }
  if (ma >= mb) {
    ma -= mb;
    if (ma == 0u) return uintBitsToFloat(sign);
  }
  for (; (ma & 0x800000u) == 0u; --ea) ma <<= 1;
  if (ea > 0) return uintBitsToFloat(sign | (uint(ea) << 23) | (ma & 0x7fffffu));
  return uintBitsToFloat(sign | (ma >> uint(1 - ea)));
}
// Saturating float -> integer conversions (NaN -> 0), as kernels/reference.
int kiln_f2i(float x, int bits) {
  if (kiln_isnan(x)) return 0;
  float t = kiln_trunc(x);
  float hi = exp2(float(bits - 1));
  if (t <= -hi) return bits == 32 ? int(0x80000000u) : -(1 << (bits - 1));
  if (t >= hi) return bits == 32 ? 0x7fffffff : (1 << (bits - 1)) - 1;
  return int(t);
}
uint kiln_f2u(float x, int bits) {
  if (kiln_isnan(x)) return 0u;
  float t = kiln_trunc(x);
  if (t <= 0.0) return 0u;
  if (t >= exp2(float(bits))) return bits == 32 ? 0xffffffffu : (1u << bits) - 1u;
  return uint(t);
}
// complex<f32> as vec2 (real, imaginary), following std::complex.
vec2 kiln_cmul(vec2 a, vec2 b) { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
vec2 kiln_cdiv(vec2 a, vec2 b) {  // Smith's algorithm
  if (abs(b.x) >= abs(b.y)) {
    if (b.x == 0.0 && b.y == 0.0) return vec2(a.x / abs(b.x), a.y / abs(b.x));
    float r = b.y / b.x, d = b.x + b.y * r;
    return vec2((a.x + a.y * r) / d, (a.y - a.x * r) / d);
  }
  float r = b.x / b.y, d = b.x * r + b.y;
  return vec2((a.x * r + a.y) / d, (a.y * r - a.x) / d);
}
float kiln_cabs(vec2 z) {
  float m = max(abs(z.x), abs(z.y));
  if (kiln_isinf(z.x) || kiln_isinf(z.y)) return uintBitsToFloat(0x7f800000u);
  if (m == 0.0 || kiln_isnan(m)) return m + abs(z.x) + abs(z.y);
  return m * kiln_sqrt((z.x / m) * (z.x / m) + (z.y / m) * (z.y / m));
}
bool kiln_cnan(vec2 z) { return kiln_isnan(z.x) || kiln_isnan(z.y); }
bool kiln_cless(vec2 a, vec2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); }
vec2 kiln_cmax(vec2 a, vec2 b) {
  if (kiln_cnan(a)) return a;
  if (kiln_cnan(b)) return b;
  return kiln_cless(a, b) ? b : a;
}
vec2 kiln_cmin(vec2 a, vec2 b) {
  if (kiln_cnan(a)) return a;
  if (kiln_cnan(b)) return b;
  return kiln_cless(a, b) ? a : b;
}
vec2 kiln_csign(vec2 z) {
  if (kiln_cnan(z)) return vec2(uintBitsToFloat(0x7fc00000u));
  if (z.x == 0.0 && z.y == 0.0) return z;
  return z / kiln_cabs(z);
}
vec2 kiln_csqrt(vec2 z) {
  if (z.x == 0.0 && z.y == 0.0) return vec2(0.0, z.y);
  if (kiln_isinf(z.y)) return vec2(uintBitsToFloat(0x7f800000u), z.y);
  float t = kiln_sqrt((abs(z.x) + kiln_cabs(z)) * 0.5);
  if (z.x >= 0.0) return vec2(t, z.y / (2.0 * t));
  return vec2(abs(z.y) / (2.0 * t), (floatBitsToUint(z.y) & 0x80000000u) != 0u ? -t : t);
}
vec2 kiln_cexp(vec2 z) {
  if (z.y == 0.0) return vec2(kiln_exp(z.x), z.y);
  float e = kiln_exp(z.x);
  return vec2(e * kiln_cos(z.y), e * kiln_sin(z.y));
}
vec2 kiln_clog(vec2 z) { return vec2(kiln_log(kiln_cabs(z)), kiln_atan2(z.y, z.x)); }
vec2 kiln_cexpm1(vec2 z) {
  // exp(x)cos(y) - 1 = expm1(x)cos(y) - 2 sin^2(y/2)
  float s = kiln_sin(0.5 * z.y);
  return vec2(kiln_expm1(z.x) * kiln_cos(z.y) - 2.0 * s * s, kiln_exp(z.x) * kiln_sin(z.y));
}
vec2 kiln_clog1p(vec2 z) {
  // log|1+z| = 0.5 log1p(2x + x^2 + y^2)
  float x = z.x, y = z.y;
  return vec2(0.5 * kiln_log1p(2.0 * x + x * x + y * y), kiln_atan2(y, 1.0 + x));
}
vec2 kiln_csin(vec2 z) { return vec2(kiln_sin(z.x) * kiln_cosh(z.y), kiln_cos(z.x) * kiln_sinh(z.y)); }
vec2 kiln_ccos(vec2 z) { return vec2(kiln_cos(z.x) * kiln_cosh(z.y), -kiln_sin(z.x) * kiln_sinh(z.y)); }
vec2 kiln_ctanh(vec2 z) {
  if (abs(z.x) > 20.0) return vec2(sign(z.x), 0.0 * kiln_sin(2.0 * z.y));
  float d = kiln_cosh(2.0 * z.x) + kiln_cos(2.0 * z.y);
  return vec2(kiln_sinh(2.0 * z.x) / d, kiln_sin(2.0 * z.y) / d);
}
vec2 kiln_ctan(vec2 z) {  // tan z = -i tanh(i z)
  vec2 t = kiln_ctanh(vec2(-z.y, z.x));
  return vec2(t.y, -t.x);
}
// A zero base gives what the reference's exp(b log 0) gives: 0 for
// Re(b) > 0, (inf, NaN) for Re(b) < 0, NaNs otherwise (0^0 included).
vec2 kiln_cpow(vec2 a, vec2 b) {
  if (a.x == 0.0 && a.y == 0.0)
    return b.x > 0.0 ? vec2(0.0) : (b.x < 0.0 ? vec2(kiln_inf(), kiln_nan()) : vec2(kiln_nan()));
  return kiln_cexp(kiln_cmul(b, kiln_clog(a)));
}
// atan2 of complex numbers, as the reference: -i log((x + i y) / sqrt(x^2 + y^2)).
vec2 kiln_catan2(vec2 y, vec2 x) {
  vec2 l = kiln_clog(kiln_cdiv(x + vec2(-y.y, y.x), kiln_csqrt(kiln_cmul(x, x) + kiln_cmul(y, y))));
  return vec2(l.y, -l.x);
}

// Shared by every Kiln compute shader (the compiler's vulkan target pastes
// it after the #version line and its extension lines). Binding 0 holds the
// parameter words: [0] the number of invocations the grid covers, then per
// tensor (inputs first) its byte offset and its dimensions.
layout(std430, set = 0, binding = 0) readonly buffer KilnParams { uint p[]; };

// One invocation per element: the grid may be folded into y when x would
// exceed the device's work-group count limit.
uint kiln_linear_id() {
  return gl_GlobalInvocationID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
}

// f32 -> f16 bits, rounding to nearest even (packHalf2x16 leaves the
// rounding to the implementation).
uint kiln_f32_to_f16(float f) {
  uint x = floatBitsToUint(f);
  uint sign = (x >> 16) & 0x8000u;
  uint e = (x >> 23) & 0xffu;
  uint m = x & 0x7fffffu;
  if (e == 0xffu) return sign | 0x7c00u | (m != 0u ? 0x200u | (m >> 13) : 0u);
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
float kiln_f16_to_f32(uint h) { return unpackHalf2x16(h & 0xffffu).x; }
float kiln_round_f16(float f) { return kiln_f16_to_f32(kiln_f32_to_f16(f)); }

// f32 -> bf16 bits, rounding to nearest even; NaN stays NaN.
uint kiln_f32_to_bf16(float f) {
  uint x = floatBitsToUint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (x >> 16) | 0x40u;
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
  float t = trunc(x);
  return abs(x - t) >= 0.5 ? t + sign(x) : t;
}
float kiln_expm1(float x) {
  float u = exp(x);
  if (u == 1.0) return x;
  float um1 = u - 1.0;
  if (um1 == -1.0) return -1.0;
  if (kiln_isinf(u)) return u;
  return um1 * x / log(u);
}
float kiln_log1p(float x) {
  float u = 1.0 + x;
  if (u == 1.0) return x;
  if (kiln_isinf(u)) return log(u);
  return log(u) * x / (u - 1.0);
}
float kiln_fmod(float a, float b) {
  if (kiln_isnan(a) || kiln_isnan(b) || kiln_isinf(a) || b == 0.0) return uintBitsToFloat(0x7fc00000u);
  if (kiln_isinf(b)) return a;
  float r = a - b * trunc(a / b);
  if (abs(r) >= abs(b)) r = a - b * trunc(r / b + trunc(a / b));
  return r == 0.0 ? uintBitsToFloat(floatBitsToUint(a) & 0x80000000u) : r;
}
float kiln_cbrt(float x) {
  if (x == 0.0 || kiln_isnan(x) || kiln_isinf(x)) return x;
  float y = sign(x) * pow(abs(x), 1.0 / 3.0);
  return y - (y * y * y - x) / (3.0 * y * y);  // one Newton step
}
float kiln_tanh(float x) { return abs(x) > 20.0 ? sign(x) : tanh(x); }
float kiln_logistic(float x) { return 1.0 / (1.0 + exp(-x)); }
// Saturating float -> integer conversions (NaN -> 0), as kernels/reference.
int kiln_f2i(float x, int bits) {
  if (kiln_isnan(x)) return 0;
  float t = trunc(x);
  float hi = exp2(float(bits - 1));
  if (t <= -hi) return bits == 32 ? int(0x80000000u) : -(1 << (bits - 1));
  if (t >= hi) return bits == 32 ? 0x7fffffff : (1 << (bits - 1)) - 1;
  return int(t);
}
uint kiln_f2u(float x, int bits) {
  if (kiln_isnan(x)) return 0u;
  float t = trunc(x);
  if (t <= 0.0) return 0u;
  if (t >= exp2(float(bits))) return bits == 32 ? 0xffffffffu : (1u << bits) - 1u;
  return uint(t);
}
// pow as C's: GLSL leaves x < 0 and x == 0 undefined.
float kiln_pow(float x, float y) {
  if (y == 0.0 || x == 1.0) return 1.0;
  if (kiln_isnan(x) || kiln_isnan(y)) return uintBitsToFloat(0x7fc00000u);
  float ax = abs(x);
  bool y_int = trunc(y) == y;
  bool y_odd = y_int && abs(y) < 16777216.0 && abs(mod(y, 2.0)) == 1.0;
  bool negative = (floatBitsToUint(x) & 0x80000000u) != 0u;
  if (negative && x != 0.0 && !y_int && !kiln_isinf(y)) return uintBitsToFloat(0x7fc00000u);
  float r;
  if (ax == 0.0) r = y < 0.0 ? uintBitsToFloat(0x7f800000u) : 0.0;
  else if (kiln_isinf(y)) r = ax == 1.0 ? 1.0 : ((ax < 1.0) == (y < 0.0) ? uintBitsToFloat(0x7f800000u) : 0.0);
  else if (kiln_isinf(ax)) r = y < 0.0 ? 0.0 : uintBitsToFloat(0x7f800000u);
  else r = exp2(y * log2(ax));
  return negative && y_odd ? -r : r;
}

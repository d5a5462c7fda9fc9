// stablehlo.rng_bit_generator and stablehlo.rng: Kiln's definitions of their
// bits (kernels/reference/numeric_random.cc), one invocation per result
// element. Threefry-2x32 (20 rounds) and Philox-4x32 (10 rounds) are
// counter based: element i needs only its own block of the word stream.

uint kiln_rotl(uint x, int r) { return (x << r) | (x >> (32 - r)); }

// Threefry-2x32 of counter (x0, x1) under key (k0, k1).
uvec2 kiln_threefry(uint k0, uint k1, uint x0, uint x1) {
  const int rot[8] = int[8](13, 15, 26, 6, 17, 29, 16, 24);
  uint ks[3] = uint[3](k0, k1, 0x1BD11BDAu ^ k0 ^ k1);
  x0 += ks[0];
  x1 += ks[1];
  for (int group = 0; group < 5; ++group) {
    for (int i = 0; i < 4; ++i) {
      x0 += x1;
      x1 = kiln_rotl(x1, rot[(group % 2) * 4 + i]);
      x1 ^= x0;
    }
    int g = group + 1;
    x0 += ks[g % 3];
    x1 += ks[(g + 1) % 3] + uint(g);
  }
  return uvec2(x0, x1);
}

// Philox-4x32 of counter c under key (k0, k1).
uvec4 kiln_philox(uint k0, uint k1, uvec4 c) {
  for (int round = 0; round < 10; ++round) {
    uint hi0, lo0, hi1, lo1;
    umulExtended(0xD2511F53u, c.x, hi0, lo0);
    umulExtended(0xCD9E8D57u, c.z, hi1, lo1);
    c = uvec4(hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c;
}

// Word w of the stream of a state (key, counter lo, counter hi).
uint kiln_rng_word(bool threefry, uint64_t key, uint64_t lo, uint64_t hi, uint64_t w) {
  uint kl = uint(key), kh = uint(key >> 32);
  if (threefry) {
    uint64_t ctr = lo + w / 2ul;
    uvec2 x = kiln_threefry(kl, kh, uint(ctr), uint(ctr >> 32));
    return (w & 1ul) == 0ul ? x.x : x.y;
  }
  uint64_t b = w / 4ul, l = lo + b;
  uint64_t h = hi + (l < lo ? 1ul : 0ul);
  uvec4 c = kiln_philox(kl, kh, uvec4(uint(l), uint(l >> 32), uint(h), uint(h >> 32)));
  return c[uint(w & 3ul)];
}

// The 64 bits of element i of stablehlo.rng: Philox under the key "KILN".
uint64_t kiln_rng_bits(uint i) {
  uvec4 c = kiln_philox(0x4B494C4Eu, 0u, uvec4(i, 0u, 0u, 0u));
  return uint64_t(c.x) | (uint64_t(c.y) << 32);
}

// x rounded to f32 towards an odd last bit where it is inexact (round to
// odd): rounding that once more to a type of at most 22 bits of precision
// gives x rounded to that type directly.
float kiln_d2f_odd(double x) {
  float f = float(x);
  uint b = floatBitsToUint(f);
  if (double(f) != x && (b & 1u) == 0u) b = abs(double(f)) < abs(x) ? b + 1u : b - 1u;
  return uintBitsToFloat(b);
}

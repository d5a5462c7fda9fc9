// Reference random-number kernels: stablehlo.rng_bit_generator and
// stablehlo.rng. The spec leaves the exact bits implementation-defined; these
// are Kiln's definitions (every backend must reproduce them bit for bit):
//
// rng_bit_generator
//  - THREE_FRY (state ui64[2]): Threefry-2x32 with 20 rounds (Salmon et al.
//    2011). key = state[0] (k0 = low 32 bits, k1 = high 32 bits); block i
//    encrypts the 64-bit counter state[1] + i (x0 = low half, x1 = high
//    half) and yields the words x0, x1 in that order. New state:
//    [state[0], state[1] + blocks]. Results of 32 bits or fewer are laid
//    out as XLA's ThreeFry generator lays them (ThreeFryHalves below), so
//    that programs exported from JAX get XLA's bits.
//  - PHILOX (state ui64[2] or ui64[3]): Philox-4x32 with 10 rounds. key =
//    state[0]; the 128-bit counter is state[1] (low 64 bits) and state[2]
//    (high 64 bits; 0 when the state has 2 words); block i encrypts counter
//    + i and yields words c0..c3 in that order. New state: counter + blocks
//    (carrying into state[2] when present).
//  - DEFAULT: PHILOX (as XLA's CPU and GPU backends choose).
//  Otherwise output elements are filled in row-major order from the word
//  stream: each element of <= 32 bits takes one word (its low bits), each
//  64-bit element two words (first = low half). Integers store those bits;
//  floats store them as their bit pattern.
//
// rng (deterministic, no hidden state): element i draws 64 bits from
// Philox-4x32 with key 0x4B494C4E ("KILN") and counter i. UNIFORM floats:
// a + (b - a) * u with u = top 53 bits / 2^53, rounded to the type (a value
// rounding up to b is replaced by a); UNIFORM integers / bool: a + bits mod
// (b - a). NORMAL (floats): a + b * Box-Muller(u1, u2) from two 32-bit
// halves. a >= b (UNIFORM) is undefined in the spec; it yields a.
#include <cmath>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include "kernels/reference/numeric_util.h"
#include "kernels/reference/kernels.h"
#include "kernels/reference/threefry_layout.h"

namespace kiln::ref {
namespace {

using numeric::CheckCall;
using numeric::CheckDims;
using numeric::KernelName;
using numeric::Load;

uint32_t Rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

// Threefry-2x32, 20 rounds.
void Threefry2x32(uint32_t k0, uint32_t k1, uint32_t& x0, uint32_t& x1) {
  static constexpr int kRot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {k0, k1, 0x1BD11BDAu ^ k0 ^ k1};
  x0 += ks[0];
  x1 += ks[1];
  for (int group = 0; group < 5; ++group) {
    for (int i = 0; i < 4; ++i) {
      x0 += x1;
      x1 = Rotl(x1, kRot[(group % 2) * 4 + i]);
      x1 ^= x0;
    }
    const int g = group + 1;
    x0 += ks[g % 3];
    x1 += ks[(g + 1) % 3] + static_cast<uint32_t>(g);
  }
}

// Philox-4x32, 10 rounds.
void Philox4x32(uint32_t k0, uint32_t k1, uint32_t c[4]) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{0xD2511F53u} * c[0];
    const uint64_t p1 = uint64_t{0xCD9E8D57u} * c[2];
    const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    const uint32_t n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
    c[0] = n0;
    c[1] = lo1;
    c[2] = n2;
    c[3] = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

// One Philox block for a 128-bit counter (lo, hi) and a 64-bit key.
void PhiloxBlock(uint64_t key, uint64_t lo, uint64_t hi, uint32_t out[4]) {
  out[0] = static_cast<uint32_t>(lo);
  out[1] = static_cast<uint32_t>(lo >> 32);
  out[2] = static_cast<uint32_t>(hi);
  out[3] = static_cast<uint32_t>(hi >> 32);
  Philox4x32(static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32), out);
}

Status RngBitGenerator(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 1, 2));
  const TensorRef& state = c.inputs[0];
  const TensorRef& out_state = c.outputs[0];
  const TensorRef& out = c.outputs[1];
  const std::string name = KernelName(c);
  std::string_view alg = c.params.Str("rng_algorithm");
  if (alg.empty() || alg == "DEFAULT") alg = "PHILOX";
  if (alg != "THREE_FRY" && alg != "PHILOX") return InvalidArgument(name + ": unknown rng_algorithm");
  if (state.rank() != 1 || (state.type != ElementType::kUI64 && state.type != ElementType::kSI64))
    return InvalidArgument(name + ": initial_state must be a 1-D ui64 tensor");
  const int64_t words = state.dims[0];
  if (alg == "THREE_FRY" ? words != 2 : (words != 2 && words != 3))
    return InvalidArgument(name + ": initial_state has the wrong size for " + std::string(alg));
  KILN_RETURN_IF_ERROR(CheckDims(c, out_state, state.dims, "output_state"));
  if (!IsInteger(out.type) && !IsFloat(out.type) && !IsBool(out.type))
    return InvalidArgument(name + ": output must be an integer or float tensor");

  std::vector<uint64_t> s(words);
  for (int64_t i = 0; i < words; ++i) s[i] = static_cast<uint64_t>(Load(state, i).i);

  const int bits = BitWidth(out.type);
  const int64_t n = out.NumElements();
  const int64_t words_needed = n * (bits > 32 ? 2 : 1);
  const bool threefry = alg == "THREE_FRY";
  const int64_t per_block = threefry ? 2 : 4;
  // THREE_FRY's 32-bit and narrower results: XLA's layout, whose block
  // count may exceed the words' (an odd split dim leaves words unused).
  const bool halves = threefry && bits <= 32;
  const ThreeFryHalves layout = ThreeFryHalves::Of(out.dims);
  const uint64_t blocks = static_cast<uint64_t>(halves ? layout.Blocks()
                                                       : (words_needed + per_block - 1) / per_block);

  // Generate the word stream.
  std::vector<uint32_t> stream(blocks * per_block);
  for (uint64_t b = 0; b < blocks; ++b) {
    if (threefry) {
      const uint64_t ctr = s[1] + b;
      uint32_t x0 = static_cast<uint32_t>(ctr), x1 = static_cast<uint32_t>(ctr >> 32);
      Threefry2x32(static_cast<uint32_t>(s[0]), static_cast<uint32_t>(s[0] >> 32), x0, x1);
      stream[2 * b] = x0;
      stream[2 * b + 1] = x1;
    } else {
      const uint64_t lo = s[1] + b;
      const uint64_t hi = (words == 3 ? s[2] : 0) + (lo < s[1] ? 1 : 0);
      PhiloxBlock(s[0], lo, hi, &stream[4 * b]);
    }
  }
  // Fill the output.
  const size_t sb = StorageBytes(out.type);
  int64_t w = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (halves) w = layout.Word(i);
    uint64_t raw = stream[w++];
    if (bits > 32) raw |= static_cast<uint64_t>(stream[w++]) << 32;
    if (bits < 64) raw &= (uint64_t{1} << bits) - 1;
    if (IsFloat(out.type)) {
      uint8_t bytes[8] = {0};
      for (size_t k = 0; k < 8; ++k) bytes[k] = static_cast<uint8_t>(raw >> (8 * k));  // little-endian
      std::memcpy(out.At(i), bytes, sb);
    } else {
      Scalar v;
      v.i = IsBool(out.type) ? static_cast<int64_t>(raw & 1) : WrapInteger(out.type, static_cast<int64_t>(raw));
      StoreScalar(out.type, v, out.At(i));
    }
  }
  // Advance the state.
  std::vector<uint64_t> ns = s;
  ns[1] = s[1] + blocks;
  if (words == 3 && ns[1] < s[1]) ns[2] += 1;
  for (int64_t i = 0; i < words; ++i) {
    Scalar v;
    v.i = static_cast<int64_t>(ns[i]);
    StoreScalar(out_state.type, v, out_state.At(i));
  }
  return Status::Ok();
}

// 64 random bits for element i of an rng call.
uint64_t RngBits(int64_t i) {
  uint32_t w[4];
  PhiloxBlock(0x4B494C4Eu, static_cast<uint64_t>(i), 0, w);
  return static_cast<uint64_t>(w[0]) | (static_cast<uint64_t>(w[1]) << 32);
}

Status Rng(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 3, 1));
  const TensorRef& a = c.inputs[0];
  const TensorRef& b = c.inputs[1];
  const TensorRef& shape = c.inputs[2];
  const TensorRef& out = c.outputs[0];
  const std::string name = KernelName(c);
  if (a.rank() != 0 || b.rank() != 0) return InvalidArgument(name + ": a and b must be rank 0");
  if (a.type != out.type || b.type != out.type) return InvalidArgument(name + ": a, b and result types differ");
  if (shape.rank() != 1 || !IsInteger(shape.type)) return InvalidArgument(name + ": shape must be a 1-D integer tensor");
  std::vector<int64_t> dims(shape.NumElements());
  for (int64_t i = 0; i < shape.NumElements(); ++i) dims[i] = Load(shape, i).i;
  KILN_RETURN_IF_ERROR(CheckDims(c, out, dims, "result"));
  const std::string_view dist = c.params.Str("rng_distribution");
  const bool normal = dist == "NORMAL";
  if (!normal && dist != "UNIFORM" && !dist.empty()) return InvalidArgument(name + ": unknown rng_distribution");
  const ElementType t = out.type;
  if (normal && !IsFloat(t)) return InvalidArgument(name + ": NORMAL needs a float type");
  if (!IsFloat(t) && !IsInteger(t) && !IsBool(t)) return InvalidArgument(name + ": unsupported element type");
  const Scalar sa = Load(a, 0), sb = Load(b, 0);
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    const uint64_t r = RngBits(i);
    Scalar v;
    if (IsFloat(t)) {
      double x;
      if (normal) {
        const double u1 = (static_cast<double>(r >> 32) + 1.0) / 4294967296.0;  // (0, 1]
        const double u2 = static_cast<double>(r & 0xFFFFFFFFu) / 4294967296.0;  // [0, 1)
        x = sa.re + sb.re * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
      } else {
        const double u = static_cast<double>(r >> 11) * 0x1.0p-53;
        x = sa.re + (sb.re - sa.re) * u;
      }
      v = numeric::FromDouble(t, x);
      if (!normal && !(v.re < sb.re)) v = sa;
    } else {
      const bool is_unsigned = KindOf(t) == ElementKind::kUnsigned || IsBool(t);
      const bool less = is_unsigned ? static_cast<uint64_t>(sa.i) < static_cast<uint64_t>(sb.i) : sa.i < sb.i;
      if (!less) {
        v = sa;
      } else {
        const uint64_t range = static_cast<uint64_t>(sb.i) - static_cast<uint64_t>(sa.i);
        const int64_t raw = static_cast<int64_t>(static_cast<uint64_t>(sa.i) + r % range);
        v.i = IsBool(t) ? (raw & 1) : WrapInteger(t, raw);
      }
    }
    numeric::Store(out, i, v);
  }
  return Status::Ok();
}

}  // namespace

// This file's kernels of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::RngBitGenerator(const KernelCall& call) { return ref::RngBitGenerator(call); }
Status kernel::Rng(const KernelCall& call) { return ref::Rng(call); }

}  // namespace kiln::ref

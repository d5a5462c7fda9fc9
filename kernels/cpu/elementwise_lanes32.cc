// Elementwise programs over 32-bit lanes (elementwise_lanes32.h): every
// value f32, si32, ui32, i1 or an 8- or 16-bit integer, each held as the 32
// bits of its lane (an i1 as 0 or 1, a narrow integer sign- or
// zero-extended: its canonical form, which every op over 8 or 16 bits
// restores after computing in 32, so wrapping happens at the type's own
// width), a block of elements at a time (Lanes32Block), instruction by
// instruction through per-value slots. Integer arithmetic wraps, compares
// follow the comparison type as the reference resolves it, converts between
// the four types saturate and truncate as the reference does; what has no
// vector form here (integer division, shifts' and converts' rarer forms,
// float transcendental functions, ...) runs element by element through the
// reference's own scalar evaluation (ref::EvalScalarInstr). Every result is
// the reference's bits.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/elementwise_lanes32.cc"
#include "kernels/cpu/aligned_scratch.h"
#include "kernels/cpu/hwy_targets.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/cpu/float_ops-inl.h"

#ifndef KILN_CPU_ELEMENTWISE_LANES32_SHARED
#define KILN_CPU_ELEMENTWISE_LANES32_SHARED
#include "kernels/common/parallel.h"
#include "kernels/cpu/elementwise_lanes32.h"
#include "kernels/cpu/gather.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/lanes_problem.h"
#include "kernels/reference/elementwise_inputs.h"
#include "kernels/reference/reduction_order.h"
#include "kernels/scalar/scalar.h"

namespace kiln::cpu {

constexpr size_t kBlock32 = 256;

// The block RunLanes32 takes for a program of `num_values` values: as many
// elements as keep its slots within 32 KB (an L1 data cache), from kBlock32
// to 16 kBlock32. The per-block bookkeeping (each instruction's dispatch)
// is then spread over more vectors where a program is short: a lone
// convert's blocks of 256 spent more on it than on the conversion.
inline size_t Lanes32Block(size_t num_values) {
  const size_t fit = (size_t{32} << 10) / (4 * std::max<size_t>(1, num_values)) / kBlock32 * kBlock32;
  return std::clamp(fit, kBlock32, 16 * kBlock32);
}

// A variadic reduce (elementwise_lanes32.h, RunReduceLanes32): n operands
// and accumulators of 32-bit lane types.
struct ReduceLanes32Problem {
  const ScalarProgram* body = nullptr;  // 2n params (accumulators, then elements), n results
  size_t n = 0;
  std::vector<const uint8_t*> inputs;   // the n operands
  std::vector<uint32_t> init;           // the n initial values as lane bits
  std::vector<uint8_t*> outputs;
  std::vector<int64_t> out_base;        // per output: its first element's offset in the operands
  std::vector<int64_t> red_off;         // per reduced element, in row-major order: its offset from there
};

// si8, ui8, si16 and ui16: in a lane, sign- or zero-extended.
inline bool NarrowInt(ElementType t) {
  return t == ElementType::kSI8 || t == ElementType::kUI8 || t == ElementType::kSI16 || t == ElementType::kUI16;
}
inline bool SignedInt(ElementType t) {
  return t == ElementType::kSI32 || t == ElementType::kSI8 || t == ElementType::kSI16;
}

// The 32 lane bits of scalar `s` of type `t`, and back. (The reference's
// narrow integers are sign- or zero-extended already.)
inline uint32_t LaneBits(ElementType t, const Scalar& s) {
  if (t == ElementType::kF32) {
    const float f = static_cast<float>(s.re);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  }
  if (t == ElementType::kI1) return static_cast<uint32_t>(s.i & 1);
  return static_cast<uint32_t>(s.i);
}
inline Scalar FromLane(ElementType t, uint32_t b) {
  Scalar s;
  if (t == ElementType::kF32) {
    float f;
    std::memcpy(&f, &b, 4);
    s.re = f;
  } else if (SignedInt(t)) {
    s.i = static_cast<int32_t>(b);
  } else {
    s.i = b;  // unsigned zero-extended, i1 0 or 1
  }
  return s;
}

// dst[i] = the reference's value of `in` over lanes i of `ops`, i < count.
inline void EscapeLanes(const ScalarInstr& in, const ElementType* types, const uint32_t* const* ops, uint32_t* dst,
                        size_t count) {
  Scalar values[3];
  for (size_t i = 0; i < count; ++i) {
    for (size_t o = 0; o < in.num_operands; ++o) values[o] = FromLane(types[o], ops[o][i]);
    dst[i] = LaneBits(in.type, ref::EvalScalarInstr(in, types, values));
  }
}

}  // namespace kiln::cpu
#endif  // KILN_CPU_ELEMENTWISE_LANES32_SHARED

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#include "kernels/cpu/lanes_compare-inl.h"

// The low 8 (`byte`) or 16 bits of each 32-bit lane, sign-extended.
template <class DI>
hn::Vec<DI> SignExtendLow(DI, hn::Vec<DI> x, bool byte) {
  return byte ? hn::ShiftRight<24>(hn::ShiftLeft<24>(x)) : hn::ShiftRight<16>(hn::ShiftLeft<16>(x));
}

// shift_left, shift_right_logical and shift_right_arithmetic of 8- or
// 16-bit integers in canonical lanes: the amount read as an unsigned number
// of the type (the reference's rule), from the width on 0 or the sign fill.
bool NarrowShift(ScalarOp op, ElementType t, const uint32_t* a_in, const uint32_t* b_in, uint32_t* dst,
                 size_t count) {
  const hn::ScalableTag<uint32_t> du;
  const hn::ScalableTag<int32_t> di;
  const size_t N = hn::Lanes(du);
  const bool byte = StorageBytes(t) == 1;
  const uint32_t bits = byte ? 8 : 16;
  const auto mask = hn::Set(du, (1u << bits) - 1);
  const auto width = hn::Set(di, static_cast<int32_t>(bits));
  const auto limit = hn::Set(du, 31u);
  for (size_t i = 0; i < count; i += N) {
    const auto a = hn::LoadU(du, a_in + i), amount = hn::And(hn::LoadU(du, b_in + i), mask);
    const auto small = hn::RebindMask(du, hn::Lt(hn::BitCast(di, amount), width));
    const auto by = hn::IfThenElse(small, amount, limit);
    hn::Vec<decltype(du)> r;
    if (op == ScalarOp::kShiftLeft) {
      r = hn::IfThenElseZero(small, hn::Shl(a, by));
    } else if (op == ScalarOp::kShiftRightLogical) {
      r = hn::IfThenElseZero(small, hn::Shr(hn::And(a, mask), by));
    } else {  // the type's sign extended first (a ui8 shifts as its si8 bits)
      r = hn::BitCast(du, hn::Shr(SignExtendLow(di, hn::BitCast(di, a), byte), hn::BitCast(di, by)));
    }
    hn::StoreU(r, du, dst + i);
  }
  return true;
}

// An 8- or 16-bit integer computed in 32 bits back to its canonical lane
// form: the low bits sign- or zero-extended (wrapping at its width).
void Canonicalize(ElementType t, uint32_t* v, size_t count) {
  const hn::ScalableTag<uint32_t> du;
  const hn::ScalableTag<int32_t> di;
  const size_t N = hn::Lanes(du);
  auto each = [&](auto f) {
    for (size_t i = 0; i < count; i += N) hn::StoreU(f(hn::LoadU(du, v + i)), du, v + i);
  };
  switch (t) {
    case ElementType::kSI8:
    case ElementType::kSI16: {
      const bool byte = t == ElementType::kSI8;
      return each([&](auto x) { return hn::BitCast(du, SignExtendLow(di, hn::BitCast(di, x), byte)); });
    }
    case ElementType::kUI8: return each([&](auto x) { return hn::And(x, hn::Set(du, 0xffu)); });
    case ElementType::kUI16: return each([&](auto x) { return hn::And(x, hn::Set(du, 0xffffu)); });
    default: return;
  }
}

// count elements of 8- or 16-bit integer type T into canonical lanes, and
// back (canonical values fit T, so the saturating demotion is exact).
template <typename T>
void WidenToLanes(const T* in, uint32_t* dst, size_t count) {
  const hn::ScalableTag<std::conditional_t<std::is_signed_v<T>, int32_t, uint32_t>> dw;
  const hn::Rebind<T, decltype(dw)> dn;
  const hn::ScalableTag<uint32_t> du;
  const size_t N = hn::Lanes(dw);
  size_t i = 0;
  for (; i + N <= count; i += N) hn::StoreU(hn::BitCast(du, hn::PromoteTo(dw, hn::LoadU(dn, in + i))), du, dst + i);
  for (; i < count; ++i) dst[i] = static_cast<uint32_t>(static_cast<int32_t>(in[i]));
}
template <typename T>
void NarrowFromLanes(const uint32_t* lanes, T* out, size_t count) {
  const hn::ScalableTag<int32_t> di;
  const hn::Rebind<T, decltype(di)> dn;
  const hn::ScalableTag<uint32_t> du;
  const size_t N = hn::Lanes(di);
  size_t i = 0;
  for (; i + N <= count; i += N) hn::StoreU(hn::DemoteTo(dn, hn::BitCast(di, hn::LoadU(du, lanes + i))), dn, out + i);
  for (; i < count; ++i) out[i] = static_cast<T>(lanes[i]);
}

// Calls f(T{}) with the storage type of narrow integer type t.
template <typename F>
void WithNarrowType(ElementType t, F f) {
  switch (t) {
    case ElementType::kSI8: return f(int8_t{});
    case ElementType::kUI8: return f(uint8_t{});
    case ElementType::kSI16: return f(int16_t{});
    default: return f(uint16_t{});
  }
}

// One instruction over `count` lanes (whole vectors: the slots are padded),
// an 8- or 16-bit result still in 32 bits (VectorInstr restores its form).
// Returns false where it has no vector form (the caller escapes).
bool VectorOp(const ScalarInstr& in, const ElementType* t, const uint32_t* const* ops, uint32_t* dst,
              size_t count) {
  const hn::ScalableTag<uint32_t> du;
  const hn::ScalableTag<int32_t> di;
  const hn::ScalableTag<float> df;
  using VU = hn::Vec<decltype(du)>;
  const size_t N = hn::Lanes(du);
  const ElementType rt = in.type, t0 = t[0];
  const bool f32 = t0 == ElementType::kF32, int32 = t0 == ElementType::kSI32 || t0 == ElementType::kUI32;
  const bool narrow = NarrowInt(t0), integer = int32 || narrow;
  const bool boolean = t0 == ElementType::kI1;
  // (ui32's order is the lanes' unsigned one; a narrow integer's canonical
  // form orders as signed 32 bits whatever its own signedness.)
  const bool unsigned_type = t0 == ElementType::kUI32;
  // (The operand pointers as locals: read through `ops` in the loops, each
  // was loaded again after every store, which may alias the array.)
  const uint32_t* const op0 = ops[0];
  const uint32_t* const op1 = in.num_operands > 1 ? ops[1] : nullptr;
  const uint32_t* const op2 = in.num_operands > 2 ? ops[2] : nullptr;
  auto load = [&](int o, size_t i) { return hn::LoadU(du, (o == 0 ? op0 : o == 1 ? op1 : op2) + i); };
  auto F = [&](VU v) { return hn::BitCast(df, v); };
  auto I = [&](VU v) { return hn::BitCast(di, v); };
  auto U = [&](auto v) { return hn::BitCast(du, v); };
  const VU one = hn::Set(du, 1u), zero = hn::Zero(du);
  // Unsigned order as signed order: flip the sign bits.
  const VU flip = hn::Set(du, 0x80000000u);
  auto unary = [&](auto f) {
    for (size_t i = 0; i < count; i += N) hn::StoreU(f(load(0, i)), du, dst + i);
    return true;
  };
  auto binary = [&](auto f) {
    for (size_t i = 0; i < count; i += N) hn::StoreU(f(load(0, i), load(1, i)), du, dst + i);
    return true;
  };
  switch (in.op) {
    case ScalarOp::kAdd:
      if (f32) return binary([&](VU a, VU b) { return U(hn::Add(F(a), F(b))); });
      if (integer) return binary([&](VU a, VU b) { return hn::Add(a, b); });
      return false;
    case ScalarOp::kSubtract:
      if (f32) return binary([&](VU a, VU b) { return U(hn::Sub(F(a), F(b))); });
      if (integer) return binary([&](VU a, VU b) { return hn::Sub(a, b); });
      return false;
    case ScalarOp::kMultiply:
      if (f32) return binary([&](VU a, VU b) { return U(hn::Mul(F(a), F(b))); });
      if (integer) return binary([&](VU a, VU b) { return hn::Mul(a, b); });
      return false;
    case ScalarOp::kDivide:
      if (f32) return binary([&](VU a, VU b) { return U(hn::Div(F(a), F(b))); });
      return false;
    case ScalarOp::kAnd:
      if (integer || boolean) return binary([&](VU a, VU b) { return hn::And(a, b); });
      return false;
    case ScalarOp::kOr:
      if (integer || boolean) return binary([&](VU a, VU b) { return hn::Or(a, b); });
      return false;
    case ScalarOp::kXor:
      if (integer || boolean) return binary([&](VU a, VU b) { return hn::Xor(a, b); });
      return false;
    case ScalarOp::kNot:
      if (integer) return unary([&](VU a) { return hn::Not(a); });
      if (boolean) return unary([&](VU a) { return hn::Xor(a, one); });
      return false;
    case ScalarOp::kNegate:
      if (f32) return unary([&](VU a) { return U(hn::Neg(F(a))); });
      if (integer) return unary([&](VU a) { return hn::Sub(zero, a); });
      return false;
    case ScalarOp::kAbs:
      if (f32) return unary([&](VU a) { return U(hn::Abs(F(a))); });
      if (SignedInt(t0)) return unary([&](VU a) { return U(hn::Abs(I(a))); });
      if (integer) return unary([&](VU a) { return a; });  // unsigned
      return false;
    case ScalarOp::kMaximum:
    case ScalarOp::kMinimum: {
      const bool max = in.op == ScalarOp::kMaximum;
      if (f32)
        return binary([&](VU a, VU b) {
          return U(max ? MaxLikeReference(df, F(a), F(b)) : MinLikeReference(df, F(a), F(b)));
        });
      if (integer) {
        const VU bias = unsigned_type ? flip : zero;
        return binary([&](VU a, VU b) {
          const auto x = I(hn::Xor(a, bias)), y = I(hn::Xor(b, bias));
          return hn::Xor(U(max ? hn::Max(x, y) : hn::Min(x, y)), bias);
        });
      }
      return false;
    }
    case ScalarOp::kSqrt:
      if (f32) return unary([&](VU a) { return U(hn::Sqrt(F(a))); });
      return false;
    // (The result has x's sign, -0 for -0: copied back, as not every
    // target's rounding keeps a zero's sign.)
    case ScalarOp::kFloor:
      if (f32) return unary([&](VU a) { return U(hn::CopySign(hn::Floor(F(a)), F(a))); });
      return false;
    case ScalarOp::kCeil:
      if (f32) return unary([&](VU a) { return U(hn::CopySign(hn::Ceil(F(a)), F(a))); });
      return false;
    case ScalarOp::kRoundNearestEven:
      if (f32) return unary([&](VU a) { return U(hn::CopySign(hn::Round(F(a)), F(a))); });
      return false;
    case ScalarOp::kSelect:
      for (size_t i = 0; i < count; i += N)
        hn::StoreU(hn::IfThenElse(hn::Ne(load(0, i), zero), load(1, i), load(2, i)), du, dst + i);
      return true;
    case ScalarOp::kCompare: {
      const auto dir = static_cast<ComparisonDirection>(in.attr0);
      auto ct = static_cast<ComparisonType>(in.attr1);
      if (in.attr0 < 0 || in.attr0 > static_cast<int64_t>(ComparisonDirection::kLT)) return false;
      if (f32) {
        if (ct == ComparisonType::kTotalOrder) return false;
        return CompareLanes<true>(du, dir, [&](VU v) { return F(v); }, op0, op1, dst, count);
      }
      if (!integer && !boolean) return false;
      if (ct != ComparisonType::kSigned && ct != ComparisonType::kUnsigned)
        ct = SignedInt(t0) ? ComparisonType::kSigned : ComparisonType::kUnsigned;
      if (narrow) {  // (the other signedness escapes)
        if ((ct == ComparisonType::kSigned) != SignedInt(t0)) return false;
        return CompareLanes<false>(du, dir, [&](VU v) { return I(v); }, op0, op1, dst, count);
      }
      if (boolean && ct == ComparisonType::kSigned)  // a signed 1-bit true is -1
        return CompareLanes<false>(du, dir, [&](VU v) { return I(hn::Sub(zero, v)); }, op0, op1, dst, count);
      const VU bias = ct == ComparisonType::kUnsigned ? flip : zero;
      return CompareLanes<false>(du, dir, [&](VU v) { return I(hn::Xor(v, bias)); }, op0, op1, dst, count);
    }
    case ScalarOp::kShiftLeft:
    case ScalarOp::kShiftRightLogical:
    case ScalarOp::kShiftRightArithmetic: {
      if (narrow) return NarrowShift(in.op, t0, op0, op1, dst, count);
      if (!int32) return false;
      // Amounts are the shift operand's 32 bits, unsigned: from 32 on, the
      // result is 0 (left, logical) or the sign (arithmetic); the shifts
      // themselves only see amounts below 32.
      const VU limit = hn::Set(du, 31u);
      return binary([&](VU a, VU b) {
        const auto small = hn::RebindMask(du, hn::Lt(I(hn::Xor(b, flip)), I(hn::Xor(hn::Set(du, 32u), flip))));
        const VU amount = hn::IfThenElse(small, b, limit);
        if (in.op == ScalarOp::kShiftLeft) return hn::IfThenElseZero(small, hn::Shl(a, amount));
        if (in.op == ScalarOp::kShiftRightLogical) return hn::IfThenElseZero(small, hn::Shr(a, amount));
        return U(hn::Shr(I(a), I(amount)));
      });
    }
    case ScalarOp::kBitcastConvert:
      // The same bits (never through a float: a signalling NaN stays one).
      if (narrow != NarrowInt(rt) || (narrow && StorageBytes(rt) != StorageBytes(t0))) return false;
      if (rt != ElementType::kI1 && !boolean) return unary([&](VU a) { return a; });
      return false;
    case ScalarOp::kConvert: {
      // Between integers: the value wraps at the result's width.
      const bool int_result = rt == ElementType::kSI32 || rt == ElementType::kUI32 || NarrowInt(rt);
      if (rt == t0 || (integer && int_result)) return unary([&](VU a) { return a; });
      if (rt == ElementType::kI1) {
        if (f32) return unary([&](VU a) { return hn::IfThenZeroElse(hn::RebindMask(du, hn::Eq(F(a), hn::Zero(df))), one); });
        return unary([&](VU a) { return hn::IfThenZeroElse(hn::Eq(a, zero), one); });
      }
      if (boolean) {
        if (rt == ElementType::kF32) return unary([&](VU a) { return U(hn::ConvertTo(df, I(a))); });
        return unary([&](VU a) { return a; });
      }
      if ((t0 == ElementType::kSI32 || narrow) && rt == ElementType::kF32)
        return unary([&](VU a) { return U(hn::ConvertTo(df, I(a))); });
      if (f32 && NarrowInt(rt)) {
        // Truncated, saturated at the type's bounds, NaN to 0.
        const bool is_signed = SignedInt(rt);
        const int bits = StorageBytes(rt) == 1 ? 8 : 16;
        const auto lo = hn::Set(df, is_signed ? -std::ldexp(1.0f, bits - 1) : 0.0f);
        const auto hi = hn::Set(df, is_signed ? std::ldexp(1.0f, bits - 1) - 1 : std::ldexp(1.0f, bits) - 1);
        return unary([&](VU a) {
          const auto x = F(a);
          const auto clamped = hn::Min(hn::Max(hn::IfThenElseZero(hn::Eq(x, x), x), lo), hi);
          return U(hn::ConvertTo(di, clamped));
        });
      }
      if (f32 && rt == ElementType::kSI32) {
        // Truncated; NaN to 0; saturated from +-2^31 on (the sign's
        // extreme: the sign bit, smeared, xor 0x7fffffff). Only values
        // inside the range reach the conversion, whose out-of-range results
        // differ between targets.
        const auto lim = hn::Set(df, 2147483648.0f);
        const auto max = hn::Set(di, 0x7fffffff);
        return unary([&](VU a) {
          const auto x = F(a);
          const auto in_range = hn::Lt(hn::Abs(x), lim);  // (false for NaN)
          const auto mid = hn::ConvertTo(di, hn::IfThenElseZero(in_range, x));
          const auto extreme = hn::IfThenElseZero(hn::RebindMask(di, hn::Eq(x, x)),
                                                  hn::Xor(hn::ShiftRight<31>(I(a)), max));
          return U(hn::IfThenElse(hn::RebindMask(di, in_range), mid, extreme));
        });
      }
      return false;
    }
    default:
      return false;
  }
}

bool VectorInstr(const ScalarInstr& in, const ElementType* t, const uint32_t* const* ops, uint32_t* dst,
                 size_t count) {
  if (!VectorOp(in, t, ops, dst, count)) return false;
  if (NarrowInt(in.type)) Canonicalize(in.type, dst, count);
  return true;
}

void RunLanes32(const LanesProblem& p, size_t begin, size_t end) {
  const hn::ScalableTag<uint32_t> du;
  const size_t N = hn::Lanes(du);
  const ScalarProgram& prog = *p.program;
  const size_t num_params = prog.param_types.size(), num_values = prog.num_values();
  thread_local CacheLineVector<uint32_t> slots;  // (on cache lines: blocks are read as whole vectors)
  thread_local std::vector<uint8_t> bytes;
  const size_t block = Lanes32Block(num_values);
  slots.resize(num_values * block + N);
  bytes.resize(2 * block);  // (an i1 or a narrow integer block gathered)
  auto slot = [&](size_t v) { return slots.data() + v * block; };
  thread_local std::vector<const uint32_t*> src;
  src.assign(num_values, nullptr);
  auto type_of = [&](size_t v) { return prog.ValueType(static_cast<uint16_t>(v)); };
  // Rank-0 params and constants: their slots filled once.
  for (size_t v = 0; v < num_params; ++v) {
    if (p.read[v] != LaneRead::kScalar) continue;
    const ElementType t = prog.param_types[v];
    const uint32_t b = t == ElementType::kI1 ? (p.inputs[v][0] & 1u)
                       : NarrowInt(t)    ? LaneBits(t, ref::LoadScalar(t, p.inputs[v]))
                                         : [&] {
                                             uint32_t x;
                                             std::memcpy(&x, p.inputs[v], 4);
                                             return x;
                                           }();
    std::fill(slot(v), slot(v) + block, b);
    src[v] = slot(v);
  }
  for (size_t k = 0; k < prog.instrs.size(); ++k) {
    if (prog.instrs[k].op != ScalarOp::kConstant) continue;
    const size_t v = num_params + k;
    std::fill(slot(v), slot(v) + block, LaneBits(prog.instrs[k].type, prog.instrs[k].constant));
    src[v] = slot(v);
  }
  // A 32-bit result computed by an instruction is written straight into its
  // output (whole blocks of whole vectors) instead of a slot copied out
  // after the block, unless the output overlaps an input read in place:
  // a later instruction of the block would read the result for the input.
  thread_local std::vector<int> direct;  // per value: the output it is written to, or -1
  direct.assign(num_values, -1);
  for (size_t o = 0; o < p.outputs.size(); ++o) {
    const uint16_t r = prog.results[o];
    if (r < num_params || direct[r] >= 0 || StorageBytes(type_of(r)) != 4 ||
        prog.instrs[r - num_params].op == ScalarOp::kConstant)
      continue;
    const uintptr_t out = reinterpret_cast<uintptr_t>(p.outputs[o]), bytes = p.n * 4;
    bool overlap = false;
    for (size_t v = 0; v < num_params; ++v) {
      const uintptr_t in = reinterpret_cast<uintptr_t>(p.inputs[v]);
      if (p.read[v] == LaneRead::kFull && in < out + bytes && out < in + bytes) overlap = true;
    }
    if (!overlap) direct[r] = static_cast<int>(o);
  }
  for (size_t start = begin; start < end; start += block) {
    const size_t count = std::min(block, end - start);
    const size_t padded = (count + N - 1) / N * N;
    for (size_t v = 0; v < num_params; ++v) {
      const ElementType t = prog.param_types[v];
      if (p.read[v] == LaneRead::kScalar) continue;
      uint32_t* dst = slot(v);
      if (t == ElementType::kI1) {
        const uint8_t* in = p.inputs[v];
        if (p.read[v] == LaneRead::kFull) {
          for (size_t i = 0; i < count; ++i) dst[i] = in[start + i] & 1u;
        } else {
          GatherBlock(in, p.strides[v], p.out_dims, start, count, bytes.data());
          for (size_t i = 0; i < count; ++i) dst[i] = bytes[i] & 1u;
        }
        src[v] = dst;
      } else if (NarrowInt(t)) {
        WithNarrowType(t, [&](auto zero) {
          using T = decltype(zero);
          const T* in = reinterpret_cast<const T*>(p.inputs[v]);
          if (p.read[v] == LaneRead::kFull) {
            WidenToLanes(in + start, dst, count);
          } else {
            T* gathered = reinterpret_cast<T*>(bytes.data());
            GatherBlock(in, p.strides[v], p.out_dims, start, count, gathered);
            WidenToLanes(gathered, dst, count);
          }
        });
        src[v] = dst;
      } else if (p.read[v] == LaneRead::kFull && count == padded) {
        src[v] = reinterpret_cast<const uint32_t*>(p.inputs[v]) + start;  // in place
      } else if (p.read[v] == LaneRead::kFull) {
        std::memcpy(dst, p.inputs[v] + start * 4, count * 4);
        src[v] = dst;
      } else {
        GatherBlock(reinterpret_cast<const uint32_t*>(p.inputs[v]), p.strides[v], p.out_dims, start, count, dst);
        src[v] = dst;
      }
    }
    for (size_t k = 0; k < prog.instrs.size(); ++k) {
      const ScalarInstr& in = prog.instrs[k];
      if (in.op == ScalarOp::kConstant) continue;
      const int to = direct[num_params + k];
      uint32_t* dst = to >= 0 && count == padded ? reinterpret_cast<uint32_t*>(p.outputs[to]) + start
                                                  : slot(num_params + k);
      ElementType types[3] = {ElementType::kInvalid, ElementType::kInvalid, ElementType::kInvalid};
      const uint32_t* ops[3] = {nullptr, nullptr, nullptr};
      for (size_t o = 0; o < in.num_operands; ++o) {
        types[o] = type_of(in.operands[o]);
        ops[o] = src[in.operands[o]];
      }
      if (!VectorInstr(in, types, ops, dst, padded)) EscapeLanes(in, types, ops, dst, count);
      src[num_params + k] = dst;
    }
    for (size_t o = 0; o < p.outputs.size(); ++o) {
      const uint16_t r = prog.results[o];
      const uint32_t* res = src[r];
      if (type_of(r) == ElementType::kI1) {
        uint8_t* out = p.outputs[o] + start;
        for (size_t i = 0; i < count; ++i) out[i] = static_cast<uint8_t>(res[i]);
      } else if (NarrowInt(type_of(r))) {
        WithNarrowType(type_of(r), [&](auto zero) {
          using T = decltype(zero);
          NarrowFromLanes(res, reinterpret_cast<T*>(p.outputs[o]) + start, count);
        });
      } else if (res != reinterpret_cast<const uint32_t*>(p.outputs[o]) + start) {  // (not written in place)
        std::memcpy(p.outputs[o] + start * 4, res, count * 4);
      }
    }
  }
}

// Outputs [o0, o1) of a variadic reduce, a block of kBlock32 outputs side
// by side in the lanes: each output folds its elements one at a time in
// row-major order from its initial values, acc = body(acc, x), as the
// reference does, the body run instruction by instruction over the block.
void RunReduceLanes32(const ReduceLanes32Problem& p, size_t o0, size_t o1) {
  const hn::ScalableTag<uint32_t> du;
  const size_t N = hn::Lanes(du);
  const ScalarProgram& body = *p.body;
  const size_t n = p.n, num_values = body.num_values();
  thread_local CacheLineVector<uint32_t> slots;  // (on cache lines: blocks are read as whole vectors)
  slots.resize((num_values + n) * kBlock32 + N);
  auto slot = [&](size_t v) { return slots.data() + v * kBlock32; };
  uint32_t* next = slot(num_values);  // the new accumulators, n blocks
  auto type_of = [&](size_t v) { return body.ValueType(static_cast<uint16_t>(v)); };
  for (size_t k = 0; k < body.instrs.size(); ++k)
    if (body.instrs[k].op == ScalarOp::kConstant) {
      const size_t v = 2 * n + k;
      std::fill(slot(v), slot(v) + kBlock32, LaneBits(body.instrs[k].type, body.instrs[k].constant));
    }
  for (size_t b0 = o0; b0 < o1; b0 += kBlock32) {
    const size_t count = std::min(kBlock32, o1 - b0);
    const size_t padded = (count + N - 1) / N * N;
    for (size_t j = 0; j < n; ++j) std::fill(slot(j), slot(j) + kBlock32, p.init[j]);
    for (int64_t off : p.red_off) {
      for (size_t j = 0; j < n; ++j) {
        uint32_t* x = slot(n + j);
        const uint8_t* in = p.inputs[j];
        const int64_t* base = p.out_base.data() + b0;
        if (type_of(n + j) == ElementType::kI1) {
          for (size_t i = 0; i < count; ++i) x[i] = in[base[i] + off] & 1u;
        } else {
          for (size_t i = 0; i < count; ++i) std::memcpy(&x[i], in + (base[i] + off) * 4, 4);
        }
      }
      for (size_t k = 0; k < body.instrs.size(); ++k) {
        const ScalarInstr& in = body.instrs[k];
        if (in.op == ScalarOp::kConstant) continue;
        ElementType types[3] = {ElementType::kInvalid, ElementType::kInvalid, ElementType::kInvalid};
        const uint32_t* ops[3] = {nullptr, nullptr, nullptr};
        for (size_t o = 0; o < in.num_operands; ++o) {
          types[o] = type_of(in.operands[o]);
          ops[o] = slot(in.operands[o]);
        }
        uint32_t* dst = slot(2 * n + k);
        if (!VectorInstr(in, types, ops, dst, padded)) EscapeLanes(in, types, ops, dst, count);
      }
      // (Through `next`: a result may be another accumulator's param.)
      for (size_t j = 0; j < n; ++j) std::memcpy(next + j * kBlock32, slot(body.results[j]), padded * 4);
      for (size_t j = 0; j < n; ++j) std::memcpy(slot(j), next + j * kBlock32, padded * 4);
    }
    for (size_t j = 0; j < n; ++j) {
      const uint32_t* acc = slot(j);
      if (type_of(j) == ElementType::kI1) {
        for (size_t i = 0; i < count; ++i) p.outputs[j][b0 + i] = static_cast<uint8_t>(acc[i]);
      } else {
        std::memcpy(p.outputs[j] + b0 * 4, acc, count * 4);
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(RunLanes32);
HWY_EXPORT(RunReduceLanes32);

namespace {

bool LaneType(ElementType t) {
  return t == ElementType::kF32 || t == ElementType::kSI32 || t == ElementType::kUI32 || t == ElementType::kI1;
}

}  // namespace

bool IsReduceLanes32Body(const ScalarProgram& body) {
  const size_t params = body.param_types.size();
  if (params == 0 || params % 2 != 0 || body.results.size() != params / 2) return false;
  const size_t n = params / 2;
  for (size_t j = 0; j < params; ++j)
    if (!LaneType(body.param_types[j]) || body.param_types[j] != body.param_types[j % n]) return false;
  for (size_t k = 0; k < body.instrs.size(); ++k) {
    const ScalarInstr& in = body.instrs[k];
    if (!LaneType(in.type) || ScalarOpArity(in.op) < 0 || in.num_operands != ScalarOpArity(in.op)) return false;
    for (size_t o = 0; o < in.num_operands; ++o)
      if (in.operands[o] >= params + k || !LaneType(body.ValueType(in.operands[o]))) return false;
  }
  for (size_t j = 0; j < n; ++j)
    if (body.results[j] >= body.num_values() || body.ValueType(body.results[j]) != body.param_types[j]) return false;
  // A single sum is folded in the reference's tree order (reduction_order.h),
  // not one element at a time: the float reduce takes those.
  return !(n == 1 && ref::TreeSumType(body) != ElementType::kInvalid);
}

Status RunReduceLanes32(const KernelCall& call) {
  const ScalarProgram* body = call.params.Program("body");
  if (body == nullptr || call.params.Program("input") != nullptr || !IsReduceLanes32Body(*body))
    return RunReference(call);
  const size_t n = body->results.size();
  if (call.inputs.size() != 2 * n || call.outputs.size() != n) return RunReference(call);
  const TensorRef& in0 = call.inputs[0];
  const int64_t rank = in0.rank();
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t d : call.params.Ints("dimensions")) {
    if (d < 0 || d >= rank || reduced[d]) return RunReference(call);  // its error
    reduced[d] = true;
  }
  std::vector<int64_t> out_dims;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced[d]) out_dims.push_back(in0.dims[d]);
  for (size_t j = 0; j < n; ++j) {
    const TensorRef& in = call.inputs[j];
    const TensorRef& init = call.inputs[n + j];
    const TensorRef& out = call.outputs[j];
    if (in.type != body->param_types[j] || init.type != in.type || out.type != in.type || !StorageOk(in) ||
        !StorageOk(init) || !StorageOk(out) || init.rank() != 0 ||
        !std::equal(in.dims.begin(), in.dims.end(), in0.dims.begin(), in0.dims.end()) ||
        !std::equal(out.dims.begin(), out.dims.end(), out_dims.begin(), out_dims.end()))
      return RunReference(call);
  }
  ReduceLanes32Problem p;
  p.body = body;
  p.n = n;
  for (size_t j = 0; j < n; ++j) {
    p.inputs.push_back(call.inputs[j].data);
    p.init.push_back(LaneBits(body->param_types[j], ref::LoadScalar(call.inputs[n + j].type, call.inputs[n + j].data)));
    p.outputs.push_back(call.outputs[j].data);
  }
  // Offsets: each output's first element (over the kept axes) and each
  // reduced element from there (over the reduced axes, row-major).
  const auto strides = Strides(in0.dims);
  p.out_base = {0};
  p.red_off = {0};
  for (int64_t d = 0; d < rank; ++d) {
    std::vector<int64_t>& table = reduced[d] ? p.red_off : p.out_base;
    std::vector<int64_t> grown;
    grown.reserve(table.size() * static_cast<size_t>(in0.dims[d]));
    for (int64_t base : table)
      for (int64_t i = 0; i < in0.dims[d]; ++i) grown.push_back(base + i * strides[d]);
    table.swap(grown);
  }
  const size_t outputs = p.out_base.size();
  if (outputs == 0) return Status::Ok();
  // Tasks of whole blocks of outputs, each output folded on one thread.
  const size_t per_task = kBlock32 * std::max<size_t>(1, (size_t{1} << 16) / std::max<size_t>(1, p.red_off.size() * kBlock32));
  const int64_t tasks = static_cast<int64_t>((outputs + per_task - 1) / per_task);
  ParallelFor(call.runner, tasks, [&](int64_t t, int) {
    const size_t o0 = static_cast<size_t>(t) * per_task;
    HWY_DYNAMIC_DISPATCH(RunReduceLanes32)(p, o0, std::min(outputs, o0 + per_task));
  });
  return Status::Ok();
}

bool IsLanes32Program(const ScalarProgram& prog) {
  const auto lane_type = [](ElementType t) { return LaneType(t) || NarrowInt(t); };
  if (prog.results.empty()) return false;
  bool integer = false;
  for (ElementType t : prog.param_types) {
    if (!lane_type(t)) return false;
    integer = integer || t == ElementType::kSI32 || t == ElementType::kUI32 || NarrowInt(t);
  }
  for (size_t k = 0; k < prog.instrs.size(); ++k) {
    const ScalarInstr& in = prog.instrs[k];
    if (!lane_type(in.type) || ScalarOpArity(in.op) < 0 || in.num_operands != ScalarOpArity(in.op)) return false;
    for (size_t o = 0; o < in.num_operands; ++o) {
      if (in.operands[o] >= prog.param_types.size() + k || !lane_type(prog.ValueType(in.operands[o]))) return false;
      integer = integer || prog.ValueType(in.operands[o]) != ElementType::kF32;
    }
    integer = integer || in.type == ElementType::kSI32 || in.type == ElementType::kUI32 || NarrowInt(in.type);
  }
  for (uint16_t r : prog.results) {
    if (r >= prog.num_values() || !lane_type(prog.ValueType(r))) return false;
    integer = integer || prog.ValueType(r) == ElementType::kI1;
  }
  // Programs of floats (and compares feeding selects) are the float
  // interpreter's (elementwise.cc); these have integers, i1 operands or
  // i1 results.
  return integer;
}

Status RunLanes32Program(const KernelCall& call, const ScalarProgram& prog, const KernelAttr* map) {
  LanesProblem p;
  if (!MakeLanesProblem(call, prog, map, &p)) return ref::RunElementwiseProgram(call, &prog, map);
  if (p.n == 0) return Status::Ok();
  // Tasks of whole blocks; each element's result does not depend on them.
  constexpr size_t kTask = 64 * kBlock32;
  const int64_t tasks = static_cast<int64_t>((p.n + kTask - 1) / kTask);
  ParallelFor(call.runner, tasks, [&](int64_t t, int) {
    const size_t begin = static_cast<size_t>(t) * kTask;
    HWY_DYNAMIC_DISPATCH(RunLanes32)(p, begin, std::min(p.n, begin + kTask));
  });
  return Status::Ok();
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE

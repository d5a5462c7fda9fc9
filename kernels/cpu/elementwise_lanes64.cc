// Elementwise programs over 64-bit lanes (elementwise_lanes64.h): every
// value is held in 64 bits -- f64 and si64/ui64 as themselves, f32 as the
// f64 of the same value, si32 sign-extended, ui32 zero-extended, i1 as 0 or
// 1 -- a block of elements at a time, instruction by instruction through
// per-value slots. Integer results wrap to their type; an f32 result is the
// f64 result rounded to f32, which for +, -, *, / and sqrt of f32 operands
// is the correctly rounded f32 result (f64 has more than twice f32's
// precision), and is how the reference computes them; compares, selects,
// maximum/minimum and sign changes are exact in either form. What has no
// vector form here (integer division, shifts, bitcasts,
// unsigned float converts, transcendental functions, ...) runs element by
// element through the reference's own scalar evaluation
// (ref::EvalScalarInstr). Every result is the reference's bits.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/elementwise_lanes64.cc"
#include "kernels/cpu/aligned_scratch.h"
#include "kernels/cpu/hwy_targets.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/cpu/float_ops-inl.h"

#ifndef KILN_CPU_ELEMENTWISE_LANES64_SHARED
#define KILN_CPU_ELEMENTWISE_LANES64_SHARED
#include "kernels/common/parallel.h"
#include "kernels/cpu/elementwise_lanes64.h"
#include "kernels/cpu/gather.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/lanes_problem.h"
#include "kernels/reference/elementwise_inputs.h"
#include "kernels/scalar/scalar.h"

namespace kiln::cpu {

constexpr size_t kBlock64 = 256;

inline bool Lane64Type(ElementType t) {
  return t == ElementType::kF32 || t == ElementType::kF64 || t == ElementType::kSI32 || t == ElementType::kUI32 ||
         t == ElementType::kSI64 || t == ElementType::kUI64 || t == ElementType::kI1;
}

// The held 64 bits of scalar `s` of type `t`, and back.
inline uint64_t Lane64Bits(ElementType t, const Scalar& s) {
  switch (t) {
    case ElementType::kF32:
    case ElementType::kF64: {
      uint64_t b;
      std::memcpy(&b, &s.re, 8);
      return b;
    }
    case ElementType::kSI32: return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(s.i)));
    case ElementType::kUI32: return static_cast<uint64_t>(static_cast<uint32_t>(s.i));
    case ElementType::kI1: return static_cast<uint64_t>(s.i & 1);
    default: return static_cast<uint64_t>(s.i);
  }
}
inline Scalar FromLane64(ElementType t, uint64_t b) {
  Scalar s;
  if (t == ElementType::kF32 || t == ElementType::kF64) {
    std::memcpy(&s.re, &b, 8);
  } else {
    s.i = static_cast<int64_t>(b);
  }
  return s;
}

// dst[i] = the held form of elements [0, count) of `src`, stored as `t`.
inline void Widen(ElementType t, const uint8_t* src, size_t count, uint64_t* dst) {
  switch (t) {
    case ElementType::kF32:
      for (size_t i = 0; i < count; ++i) {
        float f;
        std::memcpy(&f, src + 4 * i, 4);
        const double v = f;
        std::memcpy(dst + i, &v, 8);
      }
      return;
    case ElementType::kSI32:
      for (size_t i = 0; i < count; ++i) {
        int32_t v;
        std::memcpy(&v, src + 4 * i, 4);
        dst[i] = static_cast<uint64_t>(static_cast<int64_t>(v));
      }
      return;
    case ElementType::kUI32:
      for (size_t i = 0; i < count; ++i) {
        uint32_t v;
        std::memcpy(&v, src + 4 * i, 4);
        dst[i] = v;
      }
      return;
    case ElementType::kI1:
      for (size_t i = 0; i < count; ++i) dst[i] = src[i] & 1u;
      return;
    default: std::memcpy(dst, src, count * 8); return;
  }
}

// Elements [0, count) of `dst`, stored as `t`, from their held form.
inline void Narrow(ElementType t, const uint64_t* src, size_t count, uint8_t* dst) {
  switch (t) {
    case ElementType::kF32:
      for (size_t i = 0; i < count; ++i) {
        double v;
        std::memcpy(&v, src + i, 8);
        const float f = static_cast<float>(v);  // exact: an f32 value
        std::memcpy(dst + 4 * i, &f, 4);
      }
      return;
    case ElementType::kSI32:
    case ElementType::kUI32:
      for (size_t i = 0; i < count; ++i) {
        const uint32_t v = static_cast<uint32_t>(src[i]);
        std::memcpy(dst + 4 * i, &v, 4);
      }
      return;
    case ElementType::kI1:
      for (size_t i = 0; i < count; ++i) dst[i] = static_cast<uint8_t>(src[i]);
      return;
    default: std::memcpy(dst, src, count * 8); return;
  }
}

// dst[i] = the reference's value of `in` over lanes i of `ops`, i < count.
inline void EscapeLanes64(const ScalarInstr& in, const ElementType* types, const uint64_t* const* ops, uint64_t* dst,
                          size_t count) {
  Scalar values[3];
  for (size_t i = 0; i < count; ++i) {
    for (size_t o = 0; o < in.num_operands; ++o) values[o] = FromLane64(types[o], ops[o][i]);
    dst[i] = Lane64Bits(in.type, ref::EvalScalarInstr(in, types, values));
  }
}

}  // namespace kiln::cpu
#endif  // KILN_CPU_ELEMENTWISE_LANES64_SHARED

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#include "kernels/cpu/lanes_compare-inl.h"

// One instruction over `count` lanes (whole vectors: the slots are padded).
// Returns false where it has no vector form (the caller escapes).
bool VectorInstr64(const ScalarInstr& in, const ElementType* t, const uint64_t* const* ops, uint64_t* dst,
                   size_t count) {
  const hn::ScalableTag<uint64_t> du;
  const hn::ScalableTag<int64_t> di;
  const hn::ScalableTag<double> df;
  const hn::Rebind<float, decltype(df)> df32;
  using VU = hn::Vec<decltype(du)>;
  const size_t N = hn::Lanes(du);
  const ElementType rt = in.type, t0 = t[0];
  auto is_float = [](ElementType e) { return e == ElementType::kF32 || e == ElementType::kF64; };
  auto is_int = [](ElementType e) {
    return e == ElementType::kSI32 || e == ElementType::kUI32 || e == ElementType::kSI64 || e == ElementType::kUI64;
  };
  const bool flt = is_float(t0), integer = is_int(t0), boolean = t0 == ElementType::kI1;
  // (The operand pointers as locals, so that the loops keep them in
  // registers across their stores.)
  const uint64_t* const op0 = ops[0];
  const uint64_t* const op1 = in.num_operands > 1 ? ops[1] : nullptr;
  const uint64_t* const op2 = in.num_operands > 2 ? ops[2] : nullptr;
  auto load = [&](int o, size_t i) { return hn::LoadU(du, (o == 0 ? op0 : o == 1 ? op1 : op2) + i); };
  auto F = [&](VU v) { return hn::BitCast(df, v); };
  auto I = [&](VU v) { return hn::BitCast(di, v); };
  auto U = [&](auto v) { return hn::BitCast(du, v); };
  const VU one = hn::Set(du, uint64_t{1}), zero = hn::Zero(du);
  const VU low32 = hn::Set(du, uint64_t{0xffffffffu});
  // The held form of a result of type rt from its 64-bit value: integers
  // wrapped to their width, an f32 rounded.
  auto held = [&](VU v) {
    switch (rt) {
      case ElementType::kSI32: return U(hn::ShiftRight<32>(hn::ShiftLeft<32>(I(v))));
      case ElementType::kUI32: return hn::And(v, low32);
      case ElementType::kF32: {
        // (DemoteTo saturates on some targets: values from half an ulp
        // past f32's largest round to infinity, as a conversion does.)
        const auto x = F(v);
        const auto r = hn::PromoteTo(df, hn::DemoteTo(df32, x));
        const auto over = hn::Ge(hn::Abs(x), hn::Set(df, 0x1.ffffffp127));
        return U(hn::IfThenElse(over, hn::CopySign(hn::Set(df, HUGE_VAL), x), r));
      }
      default: return v;
    }
  };
  auto unary = [&](auto f) {
    for (size_t i = 0; i < count; i += N) hn::StoreU(held(f(load(0, i))), du, dst + i);
    return true;
  };
  auto binary = [&](auto f) {
    for (size_t i = 0; i < count; i += N) hn::StoreU(held(f(load(0, i), load(1, i))), du, dst + i);
    return true;
  };
  // Operands of the same type (the verifier's rule for these ops).
  if (in.num_operands == 2 && in.op != ScalarOp::kSelect && t[1] != t0) return false;
  switch (in.op) {
    case ScalarOp::kAdd:
      if (flt) return binary([&](VU a, VU b) { return U(hn::Add(F(a), F(b))); });
      if (integer) return binary([&](VU a, VU b) { return hn::Add(a, b); });
      return false;
    case ScalarOp::kSubtract:
      if (flt) return binary([&](VU a, VU b) { return U(hn::Sub(F(a), F(b))); });
      if (integer) return binary([&](VU a, VU b) { return hn::Sub(a, b); });
      return false;
    case ScalarOp::kMultiply:
      if (flt) return binary([&](VU a, VU b) { return U(hn::Mul(F(a), F(b))); });
#if HWY_TARGET != HWY_SCALAR  // (one 64-bit lane there: no halves to split it into)
      if (integer) {
        // The low 64 bits of the product from 32-bit halves (not every
        // target multiplies 64-bit lanes): lo * lo + ((hi * lo + lo * hi)
        // << 32), each term modulo 2^64.
        const hn::Repartition<uint32_t, decltype(du)> d32;
        return binary([&](VU a, VU b) {
          const VU low = hn::MulEven(hn::BitCast(d32, a), hn::BitCast(d32, b));
          const VU cross = hn::Add(hn::MulEven(hn::BitCast(d32, hn::ShiftRight<32>(a)), hn::BitCast(d32, b)),
                                   hn::MulEven(hn::BitCast(d32, a), hn::BitCast(d32, hn::ShiftRight<32>(b))));
          return hn::Add(low, hn::ShiftLeft<32>(cross));
        });
      }
#endif
      return false;
    case ScalarOp::kDivide:
      if (flt) return binary([&](VU a, VU b) { return U(hn::Div(F(a), F(b))); });
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
      if (flt) return unary([&](VU a) { return U(hn::Neg(F(a))); });
      if (integer) return unary([&](VU a) { return hn::Sub(zero, a); });
      return false;
    case ScalarOp::kAbs:
      if (flt) return unary([&](VU a) { return U(hn::Abs(F(a))); });
      return false;
    case ScalarOp::kSqrt:
      if (flt) return unary([&](VU a) { return U(hn::Sqrt(F(a))); });
      return false;
    case ScalarOp::kMaximum:
    case ScalarOp::kMinimum: {
      const bool max = in.op == ScalarOp::kMaximum;
      if (flt)
        return binary([&](VU a, VU b) {
          return U(max ? MaxLikeReference(df, F(a), F(b)) : MinLikeReference(df, F(a), F(b)));
        });
      if (integer) {
        // Held si32/ui32/si64 values order as signed 64-bit ones; ui64's
        // with their sign bits flipped.
        const VU bias = t0 == ElementType::kUI64 ? hn::Set(du, uint64_t{1} << 63) : zero;
        return binary([&](VU a, VU b) {
          const auto a_lt_b = hn::RebindMask(du, hn::Lt(I(hn::Xor(a, bias)), I(hn::Xor(b, bias))));
          return max ? hn::IfThenElse(a_lt_b, b, a) : hn::IfThenElse(a_lt_b, a, b);
        });
      }
      return false;
    }
    case ScalarOp::kSelect:
      if (t[1] != t[2] || t0 != ElementType::kI1) return false;
      for (size_t i = 0; i < count; i += N)
        hn::StoreU(hn::IfThenElse(hn::Ne(load(0, i), zero), load(1, i), load(2, i)), du, dst + i);
      return true;
    case ScalarOp::kCompare: {
      const auto dir = static_cast<ComparisonDirection>(in.attr0);
      const auto ct = static_cast<ComparisonType>(in.attr1);
      if (in.attr0 < 0 || in.attr0 > static_cast<int64_t>(ComparisonDirection::kLT) || rt != ElementType::kI1)
        return false;
      if (flt) {
        if (ct == ComparisonType::kTotalOrder) return false;
        return CompareLanes<true>(du, dir, [&](VU v) { return F(v); }, op0, op1, dst, count);
      }
      if (boolean) {  // a signed 1-bit true is -1
        if (ct == ComparisonType::kSigned)
          return CompareLanes<false>(du, dir, [&](VU v) { return I(hn::Sub(zero, v)); }, op0, op1, dst, count);
        return CompareLanes<false>(du, dir, [&](VU v) { return I(v); }, op0, op1, dst, count);
      }
      if (!integer) return false;
      const bool is_unsigned = t0 == ElementType::kUI32 || t0 == ElementType::kUI64;
      // The comparison type as the element type has it (anything else is
      // the reference's to resolve).
      if (ct != ComparisonType::kNotype && (ct == ComparisonType::kUnsigned) != is_unsigned) return false;
      if (ct != ComparisonType::kNotype && ct != ComparisonType::kSigned && ct != ComparisonType::kUnsigned)
        return false;
      const VU bias = t0 == ElementType::kUI64 ? hn::Set(du, uint64_t{1} << 63) : zero;
      return CompareLanes<false>(du, dir, [&](VU v) { return I(hn::Xor(v, bias)); }, op0, op1, dst, count);
    }
    case ScalarOp::kConvert: {
      if (rt == t0) return unary([&](VU a) { return a; });
      if (rt == ElementType::kI1) {
        if (flt) return unary([&](VU a) { return hn::IfThenZeroElse(hn::RebindMask(du, hn::Eq(F(a), hn::Zero(df))), one); });
        return unary([&](VU a) { return hn::IfThenZeroElse(hn::Eq(a, zero), one); });
      }
      // From i1 or an integer: the value (held as itself) wrapped to the
      // result's width, or converted to f64 (correctly rounded) and, for
      // f32, rounded again as the reference's IntToFloat does. ui64 values
      // past 2^63 are not signed 64-bit ones: those escape.
      if (boolean || integer) {
        if (is_int(rt)) return unary([&](VU a) { return a; });
        if (!is_float(rt) || t0 == ElementType::kUI64) return false;
        if (t0 != ElementType::kSI64 || rt == ElementType::kF64)
          return unary([&](VU a) { return U(hn::ConvertTo(df, I(a))); });
        // si64 -> f32: through f64 only where that is exact (|v| < 2^53);
        // a vector with a larger value is the reference's, element by
        // element (one rounding to f32, not two).
        const auto big = hn::Set(di, int64_t{1} << 53);
        for (size_t i = 0; i < count; i += N) {
          const auto v = I(load(0, i));
          if (!hn::AllTrue(di, hn::And(hn::Lt(v, big), hn::Gt(v, hn::Neg(big))))) {
            const uint64_t* part[1] = {op0 + i};
            EscapeLanes64(in, t, part, dst + i, N);
            continue;
          }
          hn::StoreU(held(U(hn::ConvertTo(df, v))), du, dst + i);
        }
        return true;
      }
      if (flt && is_float(rt)) return unary([&](VU a) { return a; });  // f32 -> f64 exact; f64 -> f32 rounded by held()
      if (flt && (rt == ElementType::kSI64 || rt == ElementType::kSI32)) {
        // Truncated; NaN to 0; saturated from +-2^(w-1) on. Only values
        // inside the range reach the conversion.
        const double lim = rt == ElementType::kSI64 ? 9223372036854775808.0 : 2147483648.0;
        const int64_t max = rt == ElementType::kSI64 ? INT64_MAX : INT32_MAX;
        const auto vlim = hn::Set(df, lim);
        const auto vmax = hn::Set(di, max);
        return unary([&](VU a) {
          const auto x = F(a);
          const auto in_range = hn::Lt(hn::Abs(x), vlim);  // (false for NaN)
          const auto mid = hn::ConvertTo(di, hn::IfThenElseZero(in_range, x));
          const auto extreme = hn::IfThenElseZero(hn::RebindMask(di, hn::Eq(x, x)),
                                                  hn::Xor(hn::ShiftRight<63>(I(a)), vmax));
          return U(hn::IfThenElse(hn::RebindMask(di, in_range), mid, extreme));
        });
      }
      return false;
    }
    default:
      return false;
  }
}

// Widen's 32-bit types a vector at a time, the rest (and the tail) by
// Widen itself.
void WidenVector(ElementType t, const uint8_t* src, size_t count, uint64_t* dst) {
  const hn::ScalableTag<uint64_t> du;
  const size_t N = hn::Lanes(du);
  size_t i = 0;
  if (t == ElementType::kF32) {
    const hn::ScalableTag<double> df;
    const hn::Rebind<float, decltype(df)> df32;
    for (; i + N <= count; i += N)
      hn::StoreU(hn::BitCast(du, hn::PromoteTo(df, hn::LoadU(df32, reinterpret_cast<const float*>(src) + i))), du,
                 dst + i);
  } else if (t == ElementType::kSI32) {
    const hn::ScalableTag<int64_t> di;
    const hn::Rebind<int32_t, decltype(di)> di32;
    for (; i + N <= count; i += N)
      hn::StoreU(hn::BitCast(du, hn::PromoteTo(di, hn::LoadU(di32, reinterpret_cast<const int32_t*>(src) + i))), du,
                 dst + i);
  } else if (t == ElementType::kUI32) {
    const hn::Rebind<uint32_t, decltype(du)> du32;
    for (; i + N <= count; i += N)
      hn::StoreU(hn::PromoteTo(du, hn::LoadU(du32, reinterpret_cast<const uint32_t*>(src) + i)), du, dst + i);
  }
  Widen(t, src + i * StorageBytes(t), count - i, dst + i);
}

void RunLanes64(const LanesProblem& p, size_t begin, size_t end) {
  const hn::ScalableTag<uint64_t> du;
  const size_t N = hn::Lanes(du);
  const ScalarProgram& prog = *p.program;
  const size_t num_params = prog.param_types.size(), num_values = prog.num_values();
  // Blocks that keep the slots within 32 KB, from kBlock64 to 8 kBlock64.
  const size_t block = std::clamp((size_t{32} << 10) / (8 * std::max<size_t>(1, num_values)) / kBlock64 * kBlock64,
                                  kBlock64, 8 * kBlock64);
  thread_local CacheLineVector<uint64_t> slots;  // (on cache lines: blocks are read as whole vectors)
  thread_local std::vector<uint8_t> raw;
  slots.resize(num_values * block + N);
  raw.resize(block * 8);
  auto slot = [&](size_t v) { return slots.data() + v * block; };
  thread_local std::vector<const uint64_t*> src;
  src.assign(num_values, nullptr);
  auto type_of = [&](size_t v) { return prog.ValueType(static_cast<uint16_t>(v)); };
  // Rank-0 params and constants: their slots filled once.
  for (size_t v = 0; v < num_params; ++v) {
    if (p.read[v] != LaneRead::kScalar) continue;
    uint64_t b;
    Widen(prog.param_types[v], p.inputs[v], 1, &b);
    std::fill(slot(v), slot(v) + block, b);
    src[v] = slot(v);
  }
  for (size_t k = 0; k < prog.instrs.size(); ++k) {
    if (prog.instrs[k].op != ScalarOp::kConstant) continue;
    const size_t v = num_params + k;
    std::fill(slot(v), slot(v) + block, Lane64Bits(prog.instrs[k].type, prog.instrs[k].constant));
    src[v] = slot(v);
  }
  for (size_t start = begin; start < end; start += block) {
    const size_t count = std::min(block, end - start);
    const size_t padded = (count + N - 1) / N * N;
    for (size_t v = 0; v < num_params; ++v) {
      const ElementType t = prog.param_types[v];
      if (p.read[v] == LaneRead::kScalar) continue;
      const size_t es = StorageBytes(t);
      uint64_t* dst = slot(v);
      if (p.read[v] == LaneRead::kFull && es == 8 && count == padded) {
        src[v] = reinterpret_cast<const uint64_t*>(p.inputs[v]) + start;  // in place
        continue;
      }
      const uint8_t* from = p.inputs[v] + start * es;
      if (p.read[v] == LaneRead::kGather) {
        switch (es) {
          case 1: GatherBlock(p.inputs[v], p.strides[v], p.out_dims, start, count, raw.data()); break;
          case 4:
            GatherBlock(reinterpret_cast<const uint32_t*>(p.inputs[v]), p.strides[v], p.out_dims, start, count,
                        reinterpret_cast<uint32_t*>(raw.data()));
            break;
          default:
            GatherBlock(reinterpret_cast<const uint64_t*>(p.inputs[v]), p.strides[v], p.out_dims, start, count,
                        reinterpret_cast<uint64_t*>(raw.data()));
            break;
        }
        from = raw.data();
      }
      WidenVector(t, from, count, dst);
      std::fill(dst + count, dst + padded, uint64_t{0});
      src[v] = dst;
    }
    for (size_t k = 0; k < prog.instrs.size(); ++k) {
      const ScalarInstr& in = prog.instrs[k];
      if (in.op == ScalarOp::kConstant) continue;
      uint64_t* dst = slot(num_params + k);
      ElementType types[3] = {ElementType::kInvalid, ElementType::kInvalid, ElementType::kInvalid};
      const uint64_t* ops[3] = {nullptr, nullptr, nullptr};
      for (size_t o = 0; o < in.num_operands; ++o) {
        types[o] = type_of(in.operands[o]);
        ops[o] = src[in.operands[o]];
      }
      if (!VectorInstr64(in, types, ops, dst, padded)) EscapeLanes64(in, types, ops, dst, count);
      src[num_params + k] = dst;
    }
    for (size_t o = 0; o < p.outputs.size(); ++o) {
      const uint16_t r = prog.results[o];
      const ElementType t = type_of(r);
      Narrow(t, src[r], count, p.outputs[o] + start * StorageBytes(t));
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(RunLanes64);

bool IsLanes64Program(const ScalarProgram& prog) {
  if (prog.results.empty() || prog.instrs.empty()) return false;
  // Some 64-bit value: an integer, or an f64 in a program the float
  // interpreter (elementwise.cc) declined -- an i1 result, is_finite, f32
  // beside f64 -- which is the only way one reaches here.
  bool wide = false;
  auto note = [&](ElementType t) {
    wide = wide || t == ElementType::kSI64 || t == ElementType::kUI64 || t == ElementType::kF64;
    return Lane64Type(t);
  };
  for (ElementType t : prog.param_types)
    if (!note(t)) return false;
  for (size_t k = 0; k < prog.instrs.size(); ++k) {
    const ScalarInstr& in = prog.instrs[k];
    if (!note(in.type) || ScalarOpArity(in.op) < 0 || in.num_operands != ScalarOpArity(in.op)) return false;
    for (size_t o = 0; o < in.num_operands; ++o)
      if (in.operands[o] >= prog.param_types.size() + k || !note(prog.ValueType(in.operands[o]))) return false;
  }
  for (uint16_t r : prog.results)
    if (r >= prog.num_values() || !note(prog.ValueType(r))) return false;
  return wide;
}

Status RunLanes64Program(const KernelCall& call, const ScalarProgram& prog, const KernelAttr* map) {
  LanesProblem p;
  if (!MakeLanesProblem(call, prog, map, &p)) return ref::RunElementwiseProgram(call, &prog, map);
  if (p.n == 0) return Status::Ok();
  // Tasks of whole blocks; each element's result does not depend on them.
  constexpr size_t kTask = 64 * kBlock64;
  const int64_t tasks = static_cast<int64_t>((p.n + kTask - 1) / kTask);
  ParallelFor(call.runner, tasks, [&](int64_t t, int) {
    const size_t begin = static_cast<size_t>(t) * kTask;
    HWY_DYNAMIC_DISPATCH(RunLanes64)(p, begin, std::min(p.n, begin + kTask));
  });
  return Status::Ok();
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE

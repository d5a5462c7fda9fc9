// kiln.elementwise programs on quantized storage, as the quantized
// legalization writes them (docs/quantization.md): 8- and 16-bit integer
// inputs converted to f32, f32 arithmetic (the dequantize, the op, the
// quantize's divide and add), and a result quantized by
//   convert(round_nearest_even(clamp(lo, x, hi)))
// with constant bounds inside the result's integer type. A residual add of
// an int8 network is such a program. The reference interpreter took about
// half a microsecond an element; here a block of elements runs one
// instruction at a time over plain float arrays (loops the compiler
// vectorises).
//
// Exactness: integer inputs of at most 16 bits are exact in f32; each f32
// add, subtract, multiply and divide is the IEEE operation the reference's
// double evaluation rounds to; maximum and minimum propagate NaN as the
// reference does. Signs of zero may differ from the reference's choice in
// maximum/minimum, which cannot change a result: every result is an integer
// conversion, and a zero's sign reaches nothing but zeros when divisors are
// constants (required here). An element whose clamp input is NaN is
// evaluated again by the reference interpreter.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/elementwise_quantized.cc"
#include "kernels/cpu/thread_scratch.h"
#include "kernels/cpu/hwy_targets.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#ifndef KILN_CPU_ELEMENTWISE_QUANTIZED_SHARED
#define KILN_CPU_ELEMENTWISE_QUANTIZED_SHARED
#include "kernels/common/kernel_state.h"
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include "kernels/common/parallel.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernels.h"
#include "kernels/reference/elementwise_inputs.h"
#include "kernels/scalar/scalar.h"

namespace kiln::cpu {
namespace qelem {

constexpr int64_t kBlock = 256;

// How an instruction is evaluated. The quantized legalization writes each
// quantized input as convert -> subtract(zero point) -> multiply(scale) and
// the result as divide(scale) -> add(zero point) -> clamp -> round ->
// convert: those chains run as one loop each (the same f32 operations in
// the same order, without storing the values between them).
enum class StepKind : uint8_t {
  kInstr,    // its own loop (or a constant, filled once per task)
  kFolded,   // part of a later kDequant or kQuantize step
  kDequant,  // (f32(input[param]) - a) * b, read from the input itself
  kQuantize, // the result: store(round(clamp(lo, value / a + b, hi))); the
             // clamp's input also kept (its NaN lanes go to the reference)
};
struct Step {
  StepKind kind = StepKind::kInstr;
  uint16_t src = 0;  // kDequant: the param; kQuantize: the value divided
  float a = 0, b = 0, lo = 0, hi = 0;
};

// One call's program and tensors, for the per-target block evaluation.
struct Blocks {
  const ScalarProgram* prog = nullptr;
  std::vector<const uint8_t*> inputs;
  std::vector<bool> scalar;  // an input read as one value (broadcast)
  std::vector<bool> load;    // a param read by more than kDequant steps: loaded as a block
  std::vector<Step> steps;   // one per instruction
  uint16_t clamp_value = 0;  // the quantize's clamp result (scanned for NaN)
  uint8_t* out = nullptr;
  ElementType out_type = ElementType::kInvalid;
};

struct QuantizedBlockValues;  // ScratchLease tag: a task's block values

}  // namespace qelem
}  // namespace kiln::cpu
#endif  // KILN_CPU_ELEMENTWISE_QUANTIZED_SHARED

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Plain loops over a block, compiled for each Highway target (whose
// instruction set the compiler's vectoriser then uses).

// Round half to even for any f32 (|v| >= 2^23 is already an integer).
inline float RoundEven(float v) {
  constexpr float kTwo23 = 8388608.0f;
  const float a = std::fabs(v);
  const float r = a < kTwo23 ? (a + kTwo23) - kTwo23 : a;
  return std::copysign(r, v);
}

template <class T>
void LoadBlock(const uint8_t* base, bool scalar, int64_t at, int64_t len, float* v) {
  const T* src = reinterpret_cast<const T*>(base);
  if (scalar) {
    std::fill(v, v + len, static_cast<float>(src[0]));
  } else {
    for (int64_t i = 0; i < len; ++i) v[i] = static_cast<float>(src[at + i]);
  }
}

template <class T>
void StoreBlock(const float* v, int64_t at, int64_t len, uint8_t* base) {
  T* dst = reinterpret_cast<T*>(base);
  // NaN (redone by the reference afterwards) stores 0, not an undefined cast.
  for (int64_t i = 0; i < len; ++i) dst[at + i] = v[i] == v[i] ? static_cast<T>(v[i]) : T{0};
}

// Whether any of x[0, len) is NaN: x - x is 0 for every finite x and NaN
// for NaN (the values scanned are clamped, so never infinite), and a sum
// with a NaN term stays NaN.
bool AnyNaN(const float* x, int64_t len) {
  const hn::ScalableTag<float> df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  auto acc = hn::Zero(df);
  int64_t i = 0;
  for (; i + N <= len; i += N) {
    const auto v = hn::LoadU(df, x + i);
    acc = hn::Add(acc, hn::Sub(v, v));
  }
  bool nan = !hn::AllTrue(df, hn::Eq(acc, acc));
  for (; i < len; ++i) nan = nan || x[i] != x[i];
  return nan;
}

// A kDequant step: (f32(x) - a) * b over a block read from the input.
template <class T>
void DequantBlock(const uint8_t* base, bool scalar, int64_t at, int64_t len, const qelem::Step& st, float* r) {
  const T* src = reinterpret_cast<const T*>(base);
  const float z = st.a, s = st.b;
  if (scalar) {
    std::fill(r, r + len, (static_cast<float>(src[0]) - z) * s);
  } else {
    for (int64_t i = 0; i < len; ++i) r[i] = (static_cast<float>(src[at + i]) - z) * s;
  }
}

// (GCC 12 warns of the undefined source inside its own AVX-512 conversion
// intrinsics, used below, a false positive.)
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// A kQuantize step: m = clamp(lo, x / a + b, hi) (kept for the NaN scan),
// then round(m) stored (NaN stores 0; the reference redoes those elements).
// Returns whether any m is NaN.
// (Vectors first: the compiler left this loop's compares and conversions
// scalar, 30% of an int8 block's time on an AVX2 machine. lo and hi lie in
// T's range, so the rounded value converts to i32 and narrows exactly.)
template <class T>
bool QuantizeBlock(const float* x, int64_t len, const qelem::Step& st, float* clamp_out, int64_t at, uint8_t* base) {
  T* dst = reinterpret_cast<T*>(base) + at;
  const float s = st.a, z = st.b, lo = st.lo, hi = st.hi;
  const hn::ScalableTag<float> df;
  const hn::Rebind<int32_t, decltype(df)> di;
  const hn::Rebind<T, decltype(df)> dt;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  const auto vs = hn::Set(df, s), vz = hn::Set(df, z), vlo = hn::Set(df, lo), vhi = hn::Set(df, hi);
  int64_t i = 0;
  for (; i + N <= len; i += N) {
    const auto y = hn::Add(hn::Div(hn::LoadU(df, x + i), vs), vz);
    const auto c = hn::IfThenElse(hn::Or(hn::Gt(y, vlo), hn::IsNaN(y)), y, vlo);  // (Ne is ordered: false for NaN)
    const auto m = hn::IfThenElse(hn::Or(hn::Lt(c, vhi), hn::IsNaN(c)), c, vhi);
    hn::StoreU(m, df, clamp_out + i);
    const auto rounded = hn::Round(m);
    const auto finite = hn::IfThenElseZero(hn::Eq(rounded, rounded), rounded);
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    // An integral value in T's range: converted and narrowed without the
    // generic conversions' overflow fix-ups (vcvttps2dq, vpmovdb/vpmovdw).
    if constexpr (sizeof(T) == 1) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(finite.raw)));
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm512_cvtepi32_epi16(_mm512_cvttps_epi32(finite.raw)));
    }
    continue;
#endif
    hn::StoreU(hn::DemoteTo(dt, hn::ConvertTo(di, finite)), dt, dst + i);
  }
  for (; i < len; ++i) {
    const float y = x[i] / s + z;
    const float c = (y > lo || y != y) ? y : lo;  // as kClamp: NaN propagates
    const float m = (c < hi || c != c) ? c : hi;
    clamp_out[i] = m;
    const float rounded = RoundEven(m);
    dst[i] = rounded == rounded ? static_cast<T>(rounded) : T{0};
  }
  return AnyNaN(clamp_out, len);
}

// Elements [b0, b0 + len) of the result; `vals` holds kBlock floats per
// program value. The constants' blocks are filled on a task's first block
// (`fill_constants`) and stay for its later ones. Returns whether any
// element's clamp result is NaN (the caller has the reference redo those).
bool EvalBlockT(const qelem::Blocks& a, int64_t b0, int64_t len, float* vals, bool fill_constants) {
  constexpr int64_t kBlock = qelem::kBlock;
  const ScalarProgram& prog = *a.prog;
  const size_t np = prog.param_types.size();
  auto v = [&](size_t value) { return vals + value * kBlock; };
  for (size_t i = 0; i < np; ++i) {
    if (!a.load[i]) continue;
    switch (prog.param_types[i]) {
      case ElementType::kSI8: LoadBlock<int8_t>(a.inputs[i], a.scalar[i], b0, len, v(i)); break;
      case ElementType::kUI8: LoadBlock<uint8_t>(a.inputs[i], a.scalar[i], b0, len, v(i)); break;
      case ElementType::kSI16: LoadBlock<int16_t>(a.inputs[i], a.scalar[i], b0, len, v(i)); break;
      case ElementType::kUI16: LoadBlock<uint16_t>(a.inputs[i], a.scalar[i], b0, len, v(i)); break;
      default: LoadBlock<float>(a.inputs[i], a.scalar[i], b0, len, v(i)); break;
    }
  }
  for (size_t k = 0; k < prog.instrs.size(); ++k) {
    const ScalarInstr& in = prog.instrs[k];
    float* r = v(np + k);
    const qelem::Step& st = a.steps[k];
    if (st.kind == qelem::StepKind::kFolded) continue;
    if (st.kind == qelem::StepKind::kDequant) {
      switch (prog.param_types[st.src]) {
        case ElementType::kSI8: DequantBlock<int8_t>(a.inputs[st.src], a.scalar[st.src], b0, len, st, r); break;
        case ElementType::kUI8: DequantBlock<uint8_t>(a.inputs[st.src], a.scalar[st.src], b0, len, st, r); break;
        case ElementType::kSI16: DequantBlock<int16_t>(a.inputs[st.src], a.scalar[st.src], b0, len, st, r); break;
        default: DequantBlock<uint16_t>(a.inputs[st.src], a.scalar[st.src], b0, len, st, r); break;
      }
      continue;
    }
    if (st.kind == qelem::StepKind::kQuantize) {
      float* clamp_out = v(a.clamp_value);
      switch (a.out_type) {
        case ElementType::kSI8: return QuantizeBlock<int8_t>(v(st.src), len, st, clamp_out, b0, a.out);
        case ElementType::kUI8: return QuantizeBlock<uint8_t>(v(st.src), len, st, clamp_out, b0, a.out);
        case ElementType::kSI16: return QuantizeBlock<int16_t>(v(st.src), len, st, clamp_out, b0, a.out);
        default: return QuantizeBlock<uint16_t>(v(st.src), len, st, clamp_out, b0, a.out);
      }
    }
    const float* x = in.num_operands > 0 ? v(in.operands[0]) : nullptr;
    const float* y = in.num_operands > 1 ? v(in.operands[1]) : nullptr;
    const float* z = in.num_operands > 2 ? v(in.operands[2]) : nullptr;
    switch (in.op) {
      case ScalarOp::kConstant:
        if (fill_constants) std::fill(r, r + kBlock, static_cast<float>(in.constant.re));
        break;
      case ScalarOp::kConvert: std::copy(x, x + len, r); break;  // to f32 (exact), or the quantize's store
      case ScalarOp::kAdd: for (int64_t i = 0; i < len; ++i) r[i] = x[i] + y[i]; break;
      case ScalarOp::kSubtract: for (int64_t i = 0; i < len; ++i) r[i] = x[i] - y[i]; break;
      case ScalarOp::kMultiply: for (int64_t i = 0; i < len; ++i) r[i] = x[i] * y[i]; break;
      case ScalarOp::kDivide: for (int64_t i = 0; i < len; ++i) r[i] = x[i] / y[i]; break;
      case ScalarOp::kMaximum:
        for (int64_t i = 0; i < len; ++i) r[i] = (x[i] > y[i] || x[i] != x[i]) ? x[i] : y[i];
        break;
      case ScalarOp::kMinimum:
        for (int64_t i = 0; i < len; ++i) r[i] = (x[i] < y[i] || x[i] != x[i]) ? x[i] : y[i];
        break;
      case ScalarOp::kClamp:  // clamp(min, x, max) = minimum(maximum(x, min), max)
        for (int64_t i = 0; i < len; ++i) {
          const float lo = (y[i] > x[i] || y[i] != y[i]) ? y[i] : x[i];
          r[i] = (lo < z[i] || lo != lo) ? lo : z[i];
        }
        break;
      case ScalarOp::kRoundNearestEven: for (int64_t i = 0; i < len; ++i) r[i] = RoundEven(x[i]); break;
      case ScalarOp::kNegate: for (int64_t i = 0; i < len; ++i) r[i] = -x[i]; break;
      default: break;  // IsQuantizedElementwise admits no other op
    }
  }
  const float* result = v(prog.results[0]);
  switch (a.out_type) {
    case ElementType::kSI8: StoreBlock<int8_t>(result, b0, len, a.out); break;
    case ElementType::kUI8: StoreBlock<uint8_t>(result, b0, len, a.out); break;
    case ElementType::kSI16: StoreBlock<int16_t>(result, b0, len, a.out); break;
    default: StoreBlock<uint16_t>(result, b0, len, a.out); break;
  }
  return AnyNaN(v(a.clamp_value), len);
}

#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {
namespace {

HWY_EXPORT(EvalBlockT);

using qelem::kBlock;

bool SmallInt(ElementType t) {
  return t == ElementType::kSI8 || t == ElementType::kUI8 || t == ElementType::kSI16 || t == ElementType::kUI16;
}

double TypeMin(ElementType t) { return t == ElementType::kSI8 ? -128 : t == ElementType::kSI16 ? -32768 : 0; }
double TypeMax(ElementType t) {
  return t == ElementType::kSI8 ? 127 : t == ElementType::kUI8 ? 255 : t == ElementType::kSI16 ? 32767 : 65535;
}

}  // namespace

bool IsQuantizedElementwise(const ScalarProgram& prog) {
  const size_t np = prog.param_types.size();
  if (np == 0 || prog.results.size() != 1) return false;
  bool any_int_param = false;
  for (ElementType t : prog.param_types) {
    if (!SmallInt(t) && t != ElementType::kF32) return false;
    any_int_param |= SmallInt(t);
  }
  if (!any_int_param) return false;
  auto instr_of = [&](size_t v) -> const ScalarInstr* { return v < np ? nullptr : &prog.instrs[v - np]; };
  auto is_constant = [&](size_t v) {
    const ScalarInstr* in = instr_of(v);
    return in != nullptr && in->op == ScalarOp::kConstant;
  };
  for (size_t k = 0; k < prog.instrs.size(); ++k) {
    const ScalarInstr& in = prog.instrs[k];
    if (ScalarOpArity(in.op) < 0 || in.num_operands != ScalarOpArity(in.op)) return false;
    for (int o = 0; o < in.num_operands; ++o)
      if (in.operands[o] >= np + k) return false;
    auto type_of = [&](int o) { return prog.ValueType(in.operands[o]); };
    if (SmallInt(in.type)) {
      // The quantize: convert(round_nearest_even(clamp(lo, x, hi))), the
      // bounds constants inside the type, and nothing else reads it.
      if (in.op != ScalarOp::kConvert || prog.results[0] != np + k) return false;
      const ScalarInstr* round = instr_of(in.operands[0]);
      if (round == nullptr || round->op != ScalarOp::kRoundNearestEven) return false;
      const ScalarInstr* clamp = instr_of(round->operands[0]);
      if (clamp == nullptr || clamp->op != ScalarOp::kClamp || !is_constant(clamp->operands[0]) ||
          !is_constant(clamp->operands[2]))
        return false;
      const double lo = instr_of(clamp->operands[0])->constant.re, hi = instr_of(clamp->operands[2])->constant.re;
      if (!(lo >= TypeMin(in.type) && hi <= TypeMax(in.type)) || std::floor(lo) != lo || std::floor(hi) != hi)
        return false;
      continue;
    }
    if (in.type != ElementType::kF32) return false;
    switch (in.op) {
      case ScalarOp::kConstant:
        if (!std::isfinite(in.constant.re)) return false;
        break;
      case ScalarOp::kConvert:
        if (!SmallInt(type_of(0))) return false;
        break;
      case ScalarOp::kDivide: {
        const ScalarInstr* d = instr_of(in.operands[1]);
        if (d == nullptr || d->op != ScalarOp::kConstant || d->constant.re == 0) return false;
        [[fallthrough]];
      }
      case ScalarOp::kAdd:
      case ScalarOp::kSubtract:
      case ScalarOp::kMultiply:
      case ScalarOp::kMaximum:
      case ScalarOp::kMinimum:
      case ScalarOp::kClamp:
      case ScalarOp::kRoundNearestEven:
      case ScalarOp::kNegate:
        for (int o = 0; o < in.num_operands; ++o)
          if (type_of(o) != ElementType::kF32) return false;
        break;
      default: return false;
    }
  }
  const uint16_t r = prog.results[0];
  return r >= np && SmallInt(prog.ValueType(r));
}

namespace {

// The fused steps of `prog` (qelem::StepKind): each dequantize chain of a
// param, and the result's quantize chain, where every value in between has
// no other reader.
void PlanSteps(const ScalarProgram& prog, qelem::Blocks* b) {
  const size_t np = prog.param_types.size(), ni = prog.instrs.size();
  std::vector<int> uses(np + ni, 0);
  for (const ScalarInstr& in : prog.instrs)
    for (int o = 0; o < in.num_operands; ++o) ++uses[in.operands[o]];
  for (uint16_t r : prog.results) ++uses[r];
  auto instr = [&](size_t v) -> const ScalarInstr* { return v < np ? nullptr : &prog.instrs[v - np]; };
  auto constant = [&](size_t v, float* c) {
    const ScalarInstr* in = instr(v);
    if (in == nullptr || in->op != ScalarOp::kConstant) return false;
    *c = static_cast<float>(in->constant.re);
    return true;
  };
  auto is = [&](size_t v, ScalarOp op) {
    const ScalarInstr* in = instr(v);
    return in != nullptr && in->op == op && in->type == ElementType::kF32 && uses[v] == 1;
  };
  b->steps.assign(ni, qelem::Step{});
  for (size_t k = 0; k < ni; ++k) {
    const ScalarInstr& mul = prog.instrs[k];
    qelem::Step st;
    if (mul.op != ScalarOp::kMultiply || mul.type != ElementType::kF32 || !is(mul.operands[0], ScalarOp::kSubtract) ||
        !constant(mul.operands[1], &st.b))
      continue;
    const ScalarInstr& sub = *instr(mul.operands[0]);
    if (!is(sub.operands[0], ScalarOp::kConvert) || !constant(sub.operands[1], &st.a)) continue;
    const uint16_t param = instr(sub.operands[0])->operands[0];
    if (param >= np) continue;
    st.kind = qelem::StepKind::kDequant;
    st.src = param;
    b->steps[k] = st;
    b->steps[mul.operands[0] - np].kind = qelem::StepKind::kFolded;
    b->steps[sub.operands[0] - np].kind = qelem::StepKind::kFolded;
  }
  // The result: convert(round(clamp(lo, add(divide(x, s), z), hi))).
  const uint16_t result = prog.results[0];
  qelem::Step q;
  const ScalarInstr* round = instr(instr(result)->operands[0]);
  const ScalarInstr* clamp = round != nullptr && is(instr(result)->operands[0], ScalarOp::kRoundNearestEven)
                                 ? instr(round->operands[0])
                                 : nullptr;
  if (clamp != nullptr && is(round->operands[0], ScalarOp::kClamp) && constant(clamp->operands[0], &q.lo) &&
      constant(clamp->operands[2], &q.hi) && is(clamp->operands[1], ScalarOp::kAdd)) {
    const ScalarInstr& add = *instr(clamp->operands[1]);
    if (is(add.operands[0], ScalarOp::kDivide) && constant(add.operands[1], &q.b)) {
      const ScalarInstr& div = *instr(add.operands[0]);
      if (constant(div.operands[1], &q.a)) {
        q.kind = qelem::StepKind::kQuantize;
        q.src = div.operands[0];
        b->steps[result - np] = q;
        for (uint16_t v : {instr(result)->operands[0], round->operands[0], clamp->operands[1], add.operands[0]})
          b->steps[v - np].kind = qelem::StepKind::kFolded;
      }
    }
  }
  // Params read by a step of their own kind (not only by kDequant) load as blocks.
  b->load.assign(np, false);
  for (size_t k = 0; k < ni; ++k) {
    const ScalarInstr& in = prog.instrs[k];
    const qelem::StepKind kind = b->steps[k].kind;
    if (kind == qelem::StepKind::kInstr) {
      for (int o = 0; o < in.num_operands; ++o)
        if (in.operands[o] < np) b->load[in.operands[o]] = true;
    } else if (kind == qelem::StepKind::kQuantize && b->steps[k].src < np) {
      b->load[b->steps[k].src] = true;
    }
  }
  for (uint16_t r : prog.results)
    if (r < np) b->load[r] = true;
}

// Runs `prog` over n elements: each input read densely from inputs[i] (or
// its one value where scalar[i]), the result into `out`; elements whose
// clamp input is NaN again by the reference interpreter.
void Evaluate(const ScalarProgram& prog, const std::vector<const uint8_t*>& inputs, const std::vector<bool>& scalar,
              uint8_t* out, int64_t n, TaskRunner* runner) {
  const size_t np = prog.param_types.size(), nv = prog.num_values();
  const uint16_t result = prog.results[0];
  const ScalarInstr& quantize = prog.instrs[result - np];
  const uint16_t clamp_value = prog.instrs[quantize.operands[0] - np].operands[0];
  const ElementType out_type = prog.ValueType(result);
  const size_t out_bytes = StorageBytes(out_type);
  // One element by the reference interpreter (its clamp input was NaN).
  auto reference_element = [&](int64_t e, std::vector<Scalar>& scratch) {
    std::vector<Scalar> params(np);
    for (size_t i = 0; i < np; ++i)
      params[i] = ref::LoadScalar(prog.param_types[i], inputs[i] + (scalar[i] ? 0 : e) * StorageBytes(prog.param_types[i]));
    Scalar r;
    ref::RunScalarProgram(prog, params.data(), scratch.data(), &r);
    ref::StoreScalar(out_type, r, out + static_cast<size_t>(e) * out_bytes);
  };
  qelem::Blocks blocks;
  blocks.prog = &prog;
  blocks.inputs = inputs;
  blocks.scalar = scalar;
  blocks.clamp_value = clamp_value;
  PlanSteps(prog, &blocks);
  blocks.out = out, blocks.out_type = out_type;
  auto eval = HWY_DYNAMIC_DISPATCH(EvalBlockT);
  constexpr int64_t kTask = 64 * kBlock;
  ParallelFor(n >= 4 * kTask ? runner : nullptr, (n + kTask - 1) / kTask, [&](int64_t t, int) {
    // The thread's kept buffer (aligned; no allocation per task).
    ScratchLease<qelem::QuantizedBlockValues, float> lease(nv * kBlock);
    float* const vals = lease.get();
    std::vector<Scalar> scratch(nv);
    for (int64_t b0 = t * kTask; b0 < std::min(n, (t + 1) * kTask); b0 += kBlock) {
      const int64_t len = std::min(kBlock, n - b0);
      if (!eval(blocks, b0, len, vals, b0 == t * kTask)) continue;
      const float* x = vals + clamp_value * kBlock;
      for (int64_t i = 0; i < len; ++i)
        if (x[i] != x[i]) reference_element(b0 + i, scratch);
    }
  });
}

bool Byte(ElementType t) { return t == ElementType::kSI8 || t == ElementType::kUI8; }

// Whether `prog`'s result is a function of at most 16 bits of input: one
// or two 8-bit params and an 8-bit result.
bool EightBitTable(const ScalarProgram& prog, ElementType out_type) {
  const size_t np = prog.param_types.size();
  if (np < 1 || np > 2 || !Byte(out_type)) return false;
  for (ElementType t : prog.param_types)
    if (!Byte(t)) return false;
  return true;
}

// The result for every input: entry (a << 8) | b for the stored bytes a and
// b of two params, entry a of one, computed by Evaluate itself, so a
// lookup gives exactly the byte Evaluate would store.
std::vector<uint8_t> TabulateProgram(const ScalarProgram& prog) {
  const size_t np = prog.param_types.size();
  const int64_t n = int64_t{1} << (8 * np);
  std::vector<uint8_t> first(static_cast<size_t>(n)), second(np == 2 ? static_cast<size_t>(n) : 0);
  for (int64_t i = 0; i < n; ++i) {
    first[static_cast<size_t>(i)] = static_cast<uint8_t>(np == 2 ? i >> 8 : i);
    if (np == 2) second[static_cast<size_t>(i)] = static_cast<uint8_t>(i);
  }
  std::vector<const uint8_t*> inputs = {first.data()};
  if (np == 2) inputs.push_back(second.data());
  // (3 bytes of slack: the vector lookup reads a dword at each entry.)
  std::vector<uint8_t> table(static_cast<size_t>(n) + 3, 0);
  Evaluate(prog, inputs, std::vector<bool>(np, false), table.data(), n, nullptr);
  return table;
}

struct QuantizedTablePlan : KernelPlan {
  std::vector<uint8_t> table;
};

#if defined(__x86_64__) && defined(__GNUC__)
// (GCC 12 warns of the undefined source inside its own
// _mm512_cvtepu8_epi32, a false positive.)
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// The two-input lookup 16 elements at a time: indices (a << 8) | b as
// dwords, one vpgatherdd of the table's dwords at those byte offsets (the
// table has 3 bytes of slack past its end), their low bytes stored.
__attribute__((target("avx512f,avx512bw"))) void LookUpPairsAvx512(const uint8_t* t, const uint8_t* a, const uint8_t* b,
                                                                   uint8_t* out, int64_t e0, int64_t e1) {
  int64_t e = e0;
  for (; e + 16 <= e1; e += 16) {
    const __m512i ia = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + e)));
    const __m512i ib = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + e)));
    const __m512i got = _mm512_i32gather_epi32(_mm512_or_si512(_mm512_slli_epi32(ia, 8), ib), t, 1);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + e), _mm512_cvtepi32_epi8(got));
  }
  for (; e < e1; ++e) out[e] = t[(size_t{a[e]} << 8) | b[e]];
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

// out[e] = table[inputs' bytes at e] over the pool.
void LookUp(const std::vector<uint8_t>& table, const KernelCall& call, const std::vector<bool>& scalar, int64_t n,
            TaskRunner* runner) {
  const uint8_t* const t = table.data();
  const uint8_t* const a = call.inputs[0].data;
  const uint8_t* const b = call.inputs.size() == 2 ? call.inputs[1].data : nullptr;
  uint8_t* const out = call.outputs[0].data;
  const bool a_scalar = scalar[0], b_scalar = b != nullptr && scalar[1];
  constexpr int64_t kTask = int64_t{1} << 16;
  ParallelFor(n >= 2 * kTask ? runner : nullptr, (n + kTask - 1) / kTask, [=](int64_t task, int) {
    // Pointers as restrict locals: the byte stores cannot alias them, so
    // the loop keeps them in registers.
    const uint8_t* __restrict tt = t;
    const uint8_t* __restrict aa = a;
    const uint8_t* __restrict bb = b;
    uint8_t* __restrict oo = out;
    const int64_t e0 = task * kTask, e1 = std::min(n, e0 + kTask);
    if (bb == nullptr) {
      if (a_scalar) {
        std::fill(oo + e0, oo + e1, tt[aa[0]]);
      } else {
        for (int64_t e = e0; e < e1; ++e) oo[e] = tt[aa[e]];
      }
    } else if (!a_scalar && !b_scalar) {
#if defined(__x86_64__) && defined(__GNUC__)
      static const bool avx512 = __builtin_cpu_supports("avx512bw");
      if (avx512) return LookUpPairsAvx512(tt, aa, bb, oo, e0, e1);
#endif
      for (int64_t e = e0; e < e1; ++e) oo[e] = tt[(size_t{aa[e]} << 8) | bb[e]];
    } else {
      const size_t a_step = a_scalar ? 0 : 1, b_step = b_scalar ? 0 : 1;
      for (int64_t e = e0; e < e1; ++e) oo[e] = tt[(size_t{aa[e * a_step]} << 8) | bb[e * b_step]];
    }
  });
}

}  // namespace

Status RunQuantizedElementwise(const KernelCall& call, const ScalarProgram& prog, const KernelAttr* map) {
  auto reference = [&] { return ref::RunElementwiseProgram(call, &prog, map); };
  const size_t np = prog.param_types.size();
  if (call.inputs.size() != np || call.outputs.size() != 1) return reference();
  const TensorRef& out = call.outputs[0];
  const ElementType out_type = prog.ValueType(prog.results[0]);
  if (!StorageOk(out, out_type) || out.dims.size() > 16) return reference();
  for (size_t i = 0; i < np; ++i)
    if (!StorageOk(call.inputs[i], prog.param_types[i])) return reference();
  std::vector<std::vector<int64_t>> strides;
  if (!ref::ElementwiseInputStrides(call, map, &strides).ok()) return reference();
  // Each input is read in the output's own layout or is one value.
  std::vector<int64_t> dense(out.dims.size(), 1);
  for (size_t a = dense.size(); a-- > 1;) dense[a - 1] = dense[a] * out.dims[a];
  std::vector<bool> scalar(np);
  for (size_t i = 0; i < np; ++i) {
    bool full = true, zero = true;
    for (size_t a = 0; a < dense.size(); ++a) {
      full = full && (strides[i][a] == dense[a] || out.dims[a] == 1);
      zero = zero && strides[i][a] == 0;
    }
    if (!full && !zero) return reference();
    scalar[i] = !full;
  }
  const int64_t n = out.NumElements();
  if (n == 0) return Status::Ok();
  // A program of one or two 8-bit inputs into an 8-bit result (a
  // residual add, a quantized activation) over many elements: looked up in
  // its table of every input value (TabulateProgram), built once per
  // executable, where the elements are at least a sixteenth of the
  // table's entries (a batch-1 residual add over 16 x 16 x 32: 6.6 -> 2.9
  // us a call, the table's 64 K evaluations once); without a KernelState
  // (built per call) only where the elements outnumber the entries four
  // to one.
  const int64_t entries = np == 1 ? 256 : 65536;
  if (EightBitTable(prog, out_type) && n >= (call.state != nullptr ? entries / 16 : 4 * entries)) {
    PlanKey key(kPlanQuantizedTable);
    key.AddPointer(&prog);
    PlanLease<QuantizedTablePlan> plan(call.state, key);
    if (plan.get() == nullptr) {
      auto fresh = std::make_unique<QuantizedTablePlan>();
      fresh->table = TabulateProgram(prog);
      fresh->bytes = fresh->table.size();
      plan.Set(std::move(fresh));
    }
    LookUp(plan.get()->table, call, scalar, n, call.runner);
    return Status::Ok();
  }
  std::vector<const uint8_t*> inputs;
  for (const TensorRef& t : call.inputs) inputs.push_back(t.data);
  Evaluate(prog, inputs, scalar, out.data, n, call.runner);
  return Status::Ok();
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE

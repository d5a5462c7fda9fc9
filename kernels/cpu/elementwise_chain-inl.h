// Chain programs of the CPU elementwise kernel (elementwise.cc): programs
// whose every instruction takes the value of the one before it run with the
// running value in registers, eight vectors at a time (ChainEight) and, over
// whole rows with a per-row value, row by row (ChainRows), with the same ops
// in the same order as the instruction-by-instruction interpreter, so the
// same bits; over whole rows with per-column operands, a column of vectors
// down eight rows at a time (ChainColumns). Per target, as float_ops-inl.h.
#if defined(KILN_CPU_ELEMENTWISE_CHAIN_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KILN_CPU_ELEMENTWISE_CHAIN_INL_H_
#undef KILN_CPU_ELEMENTWISE_CHAIN_INL_H_
#else
#define KILN_CPU_ELEMENTWISE_CHAIN_INL_H_
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "hwy/highway.h"
#include "kernels/common/kernel_selection.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/elementwise_math-inl.h"
#include "kernels/cpu/float_ops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
// A chain program: each instruction but the constants takes the value of
// the one before it (the first: a param) and otherwise only params and
// constants, and the last is the one result -- a fused bias, a batch norm
// and its clamp (x - mean) * scale + shift, a residual add, softmax's
// exp(x - max), a norm's squared deviation (x - mean) * (x - mean). Such a
// program runs a few vectors at a time with the running value in registers (the
// other operands loaded from their block pointers), the same ops in the
// same order as the block-by-block interpreter, so the same bits; the
// instruction-by-instruction form stores and reloads every intermediate.
struct ChainStep {
  ScalarOp op;
  uint16_t other = 0, hi = 0;  // the other operand (clamp: lo), and clamp's hi
  bool running_left = true;    // the running value is the first operand
  bool self = false;           // a binary op of the running value with itself (x * x)
  // maximum/minimum (clamp: its lo / hi) against a splat c for which one
  // compare and blend give the reference's bits (SplatMaxMinExact).
  bool short_other = false, short_hi = false;
  // The operands (other, and hi for clamp) are splats: a rank-0 input or
  // a constant of the program, the same value at every element.
  bool splat_operands = false;
  // The operand (other / hi) is one value read at its first element, not at
  // the running element's offset (ChainRows: a per-row value splatted into
  // a vector's worth of elements only).
  bool other_fixed = false, hi_fixed = false;
};

// Steps of one operand, the running value.
inline bool UnaryStep(ScalarOp op) {
  switch (op) {
    case ScalarOp::kNegate: case ScalarOp::kAbs: case ScalarOp::kSqrt: case ScalarOp::kRsqrt:
    case ScalarOp::kExponential: case ScalarOp::kLog: case ScalarOp::kTanh: case ScalarOp::kLogistic:
      return true;
    default:
      return false;
  }
}

// Whether maximum(x, c) (max) or minimum(x, c) in either operand order
// equals, for every x, one compare and blend: x where it is not <= c (max;
// not >= c for min; a NaN x compares false, so it is kept), else c. Exact
// unless c is NaN or the zero of the other sign (the reference combines
// equal zeros bitwise: max(-0, +0) = +0, min = -0; any other pair of equal
// values has the same bits).
template <typename T>
bool SplatMaxMinExact(bool max, T c) {
  if (c != c) return false;
  return !(c == T(0) && std::signbit(c) == max);
}

// Marks the steps of `chain` whose operands are splats (a rank-0 input or a
// constant of the program, whose slots hold it: ChainStep::splat_operands)
// and the maximum/minimum/clamp steps whose bound is a splat that takes the
// short form (ChainStep::short_other / short_hi).
// With `fixed_reads`, the splat operands are also marked to be read at
// their first element only (ChainStep::other_fixed / hi_fixed).
template <typename T>
void MarkSplatBounds(const ScalarProgram& prog, const std::vector<bool>& input_is_scalar, const T* const* src,
                     std::vector<ChainStep>* chain, bool fixed_reads = false) {
  const size_t P = prog.param_types.size();
  auto splat = [&](uint16_t v) {
    return v < P ? static_cast<bool>(input_is_scalar[v]) : prog.instrs[v - P].op == ScalarOp::kConstant;
  };
  for (ChainStep& s : *chain) {
    if (UnaryStep(s.op) || s.self) continue;  // no operand but the running value
    s.other_fixed = fixed_reads && splat(s.other);
    s.hi_fixed = fixed_reads && s.op == ScalarOp::kClamp && splat(s.hi);
    s.splat_operands = splat(s.other) && (s.op != ScalarOp::kClamp || splat(s.hi));
    s.short_other = s.short_hi = false;
    if (s.op == ScalarOp::kMaximum || s.op == ScalarOp::kClamp)
      s.short_other = splat(s.other) && SplatMaxMinExact(true, src[s.other][0]);
    if (s.op == ScalarOp::kMinimum) s.short_other = splat(s.other) && SplatMaxMinExact(false, src[s.other][0]);
    if (s.op == ScalarOp::kClamp) s.short_hi = splat(s.hi) && SplatMaxMinExact(false, src[s.hi][0]);
  }
}

inline bool ChainOf(const ScalarProgram& prog, uint16_t* start, std::vector<ChainStep>* steps) {
  steps->clear();
  const size_t P = prog.param_types.size();
  if (prog.results.size() != 1) return false;
  auto computed = [&](uint16_t v) { return v >= P && prog.instrs[v - P].op != ScalarOp::kConstant; };
  int64_t running = -1;  // the value the chain holds
  for (size_t k = 0; k < prog.instrs.size(); ++k) {
    const ScalarInstr& in = prog.instrs[k];
    if (in.op == ScalarOp::kConstant) continue;
    const uint16_t* o = in.operands;
    ChainStep step{in.op};
    auto is_running = [&](uint16_t v) { return running < 0 ? !computed(v) : v == running; };
    switch (in.op) {
      case ScalarOp::kAdd: case ScalarOp::kSubtract: case ScalarOp::kMultiply: case ScalarOp::kDivide:
      case ScalarOp::kMaximum: case ScalarOp::kMinimum:
        if (in.num_operands != 2) return false;
        if (o[0] == o[1] && is_running(o[0])) {  // x op x
          step.self = true;
          if (running < 0) *start = o[0];
          break;
        }
        if (running < 0 || o[0] == running) {
          step.running_left = true, step.other = o[1];
          if (running < 0) *start = o[0];
        } else {
          step.running_left = false, step.other = o[0];
        }
        if (!is_running(step.running_left ? o[0] : o[1]) || computed(step.other) || step.other == running) return false;
        break;
      case ScalarOp::kNegate: case ScalarOp::kAbs: case ScalarOp::kSqrt: case ScalarOp::kRsqrt:
      case ScalarOp::kExponential: case ScalarOp::kLog: case ScalarOp::kTanh: case ScalarOp::kLogistic:
        if (in.num_operands != 1 || !is_running(o[0])) return false;
        if (running < 0) *start = o[0];
        break;
      case ScalarOp::kClamp:
        if (in.num_operands != 3 || !is_running(o[1]) || computed(o[0]) || computed(o[2]) || o[0] == running ||
            o[2] == running)
          return false;
        if (running < 0) *start = o[1];
        step.other = o[0], step.hi = o[2];
        break;
      default:
        return false;
    }
    steps->push_back(step);
    running = static_cast<int64_t>(P + k);
  }
  return running >= 0 && prog.results[0] == running;
}

// max(x, c) or min(x, c) against a splat c for which SplatMaxMinExact
// holds: c where x <= c (max; x >= c for min), else x (NaN included).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ShortMax(V x, V c) {
  return hn::IfThenElse(hn::Le(x, c), c, x);
}
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ShortMin(V x, V c) {
  return hn::IfThenElse(hn::Ge(x, c), c, x);
}

// exp, log, tanh or logistic of x, out of line: each is a few dozen
// instructions, and the chain forms that inline every step kind stay small.
// (f32 only: Supported() keeps the transcendental ops out of f64 programs.)
template <class D, class V = hn::Vec<D>>
HWY_NOINLINE V TranscendentalStep(D d, ScalarOp op, V x) {
  if constexpr (sizeof(hn::TFromD<D>) == 4) {
    switch (op) {
      case ScalarOp::kExponential: return Exp(d, x);
      case ScalarOp::kLog: return Log(d, x);
      case ScalarOp::kTanh: return Tanh(d, x);
      case ScalarOp::kLogistic: return Logistic(d, x);
      default: break;
    }
  }
  return x;
}

// TranscendentalStep over the eight vectors at `in` into `out`, four at a
// time: ChainEight's running vectors go through it together, so that their
// long dependency chains overlap (one at a time, each waits on latency).
template <class D, class F, typename T = hn::TFromD<D>>
HWY_INLINE void EightAt(D d, const T* HWY_RESTRICT in, T* HWY_RESTRICT out, F f) {
  FourAt(d, in, out, 0, f);
  FourAt(d, in, out, 4 * hn::Lanes(d), f);
}

template <class D, typename T = hn::TFromD<D>>
HWY_NOINLINE void TranscendentalEight(D d, ScalarOp op, const T* HWY_RESTRICT in, T* HWY_RESTRICT out) {
  using V = hn::Vec<D>;
  if constexpr (sizeof(T) == 4) {
    switch (op) {
      case ScalarOp::kExponential: return EightAt(d, in, out, [d](V x) { return Exp(d, x); });
      case ScalarOp::kLog: return EightAt(d, in, out, [d](V x) { return Log(d, x); });
      case ScalarOp::kTanh: return EightAt(d, in, out, [d](V x) { return Tanh(d, x); });
      case ScalarOp::kLogistic: return EightAt(d, in, out, [d](V x) { return Logistic(d, x); });
      default: break;
    }
  }
  EightAt(d, in, out, [](V x) { return x; });  // (not reached: ChainOf takes no other op)
}

// One chain step on the running vector x with its operands y (the other)
// and h (clamp's hi) loaded.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ChainApply(D d, const ChainStep& s, V x, V y, V h) {
  switch (s.op) {
    case ScalarOp::kAdd: return s.running_left ? hn::Add(x, y) : hn::Add(y, x);
    case ScalarOp::kSubtract: return s.running_left ? hn::Sub(x, y) : hn::Sub(y, x);
    case ScalarOp::kMultiply: return s.running_left ? hn::Mul(x, y) : hn::Mul(y, x);
    case ScalarOp::kDivide: return s.running_left ? hn::Div(x, y) : hn::Div(y, x);
    case ScalarOp::kMaximum:
      if (s.short_other) return ShortMax<D>(x, y);
      return s.running_left ? MaxLikeReference(d, x, y) : MaxLikeReference(d, y, x);
    case ScalarOp::kMinimum:
      if (s.short_other) return ShortMin<D>(x, y);
      return s.running_left ? MinLikeReference(d, x, y) : MinLikeReference(d, y, x);
    case ScalarOp::kNegate: return hn::Neg(x);
    case ScalarOp::kAbs: return hn::Abs(x);
    case ScalarOp::kSqrt: return hn::Sqrt(x);
    case ScalarOp::kRsqrt: return hn::Div(hn::Set(d, hn::TFromD<D>(1)), hn::Sqrt(x));
    case ScalarOp::kExponential: case ScalarOp::kLog: case ScalarOp::kTanh: case ScalarOp::kLogistic:
      return TranscendentalStep(d, s.op, x);
    case ScalarOp::kClamp: {
      const V m = s.short_other ? ShortMax<D>(x, y) : MaxLikeReference(d, x, y);
      return s.short_hi ? ShortMin<D>(m, h) : MinLikeReference(d, m, h);
    }
    default: return x;  // excluded by ChainOf
  }
}

// One chain step on the running vector x, element offset i of the block.
template <class D, class V = hn::Vec<D>, typename T = hn::TFromD<D>>
HWY_INLINE V ChainStepAt(D d, const ChainStep& s, const T* const* src, size_t i, V x) {
  const V y = UnaryStep(s.op) || s.self ? x : hn::LoadU(d, src[s.other] + (s.other_fixed ? 0 : i));
  const V h = s.op == ScalarOp::kClamp ? hn::LoadU(d, src[s.hi] + (s.hi_fixed ? 0 : i)) : x;
  return ChainApply(d, s, x, y, h);
}

// ChainStepAt as a call: ChainEight's less common steps (unary ones, and
// maximum/minimum/clamp other than against splats) take it, so that eight
// inlined copies of the whole step switch per step kind do not swell the
// function (clang with AddressSanitizer ran out of 24 GB compiling them).
template <class D, class V = hn::Vec<D>, typename T = hn::TFromD<D>>
HWY_NOINLINE V ChainStepOutOfLine(D d, const ChainStep& s, const T* const* src, size_t i, V x) {
  return ChainStepAt(d, s, src, i, x);
}

template <class D, class V = hn::Vec<D>, typename T = hn::TFromD<D>>
HWY_INLINE void ChainStore(D d, V x, T* out, bool stream) {
  if (stream) {
    hn::Stream(x, d, out);
  } else {
    hn::StoreU(x, d, out);
  }
}

// Eight vectors of the chain (elements i .. i + 8N of the block) from `in`
// (the start param's block) into `out`. Each step is dispatched once for
// the eight (its op, operand order and forms decided once, a splat operand
// loaded once), so the per-step bookkeeping is spread over eight vectors:
// a batch norm and clamp over a convolution's result then costs little
// more than its arithmetic. (Named vectors and macros, not an array or
// lambdas: SVE vectors cannot be array elements or captured, and lambdas
// were not inlined into the loop.)
#define KILN_EIGHT(E)          \
  E(x0, 0) E(x1, 1) E(x2, 2) E(x3, 3) \
  if constexpr (kVectors == 8) { E(x4, 4) E(x5, 5) E(x6, 6) E(x7, 7) }
// (All eight even for ChainFour: TranscendentalEight reads eight parked.)
#define KILN_ALL_EIGHT(E) E(x0, 0) E(x1, 1) E(x2, 2) E(x3, 3) E(x4, 4) E(x5, 5) E(x6, 6) E(x7, 7)
// x op c (c a splat), c op x, x op y[j], y[j] op x.
#define KILN_XC(x, j) x = KILN_OP(x, c);
#define KILN_CX(x, j) x = KILN_OP(c, x);
#define KILN_XY(x, j) x = KILN_OP(x, hn::LoadU(d, y + (j) * step));
#define KILN_YX(x, j) x = KILN_OP(hn::LoadU(d, y + (j) * step), x);
#define KILN_XX(x, j) x = KILN_OP(x, x);
#define KILN_BINARY                \
  if (s.self) {                    \
    KILN_EIGHT(KILN_XX)            \
  } else if (s.splat_operands) {   \
    const V c = hn::LoadU(d, y);   \
    if (s.running_left) {          \
      KILN_EIGHT(KILN_XC)          \
    } else {                       \
      KILN_EIGHT(KILN_CX)          \
    }                              \
  } else if (s.running_left) {     \
    KILN_EIGHT(KILN_XY)            \
  } else {                         \
    KILN_EIGHT(KILN_YX)            \
  }
#define KILN_STEP_AT(x, j) x = ChainStepOutOfLine(d, s, src, i + (j) * step, x);
#define KILN_NEG(x, j) x = hn::Neg(x);
#define KILN_ABS(x, j) x = hn::Abs(x);
#define KILN_SQRT(x, j) x = hn::Sqrt(x);
#define KILN_RSQRT(x, j) x = hn::Div(hn::Set(d, T(1)), hn::Sqrt(x));
#define KILN_ONE_INSTRUCTION(E)        \
  if constexpr (!KILN_SELECTIVE_BUILD) { \
    KILN_EIGHT(E)                      \
  } else {                             \
    KILN_EIGHT(KILN_STEP_AT)           \
  }
#define KILN_SMAX(x, j) x = ShortMax<D>(x, c);
#define KILN_SMIN(x, j) x = ShortMin<D>(x, c);
#define KILN_SHORT_STEP(E, at)   \
  {                              \
    const V c = hn::LoadU(d, at); \
    KILN_EIGHT(E)                \
  }
#define KILN_STORE(x, j) ChainStore(d, x, out + i + (j) * step, stream);
#define KILN_PARK(x, j) hn::Store(x, d, park + (j) * N);
#define KILN_EXP(x, j) x = Exp(d, x);
#define KILN_UNPARK(x, j) x = hn::Load(d, parked + (j) * N);
//
// The eight vectors lie `step` elements apart: N (one run of 8N elements),
// or a row's length (ChainColumns: one column of vectors down eight rows).
// kVectors = 4: the first four only (ChainFour: rows of 4N to 8N elements,
// attention scores over 64 tokens, whose exp would otherwise go through one
// out-of-line call per vector, a third of such a softmax's time).
template <size_t kVectors = 8, class D, typename T = hn::TFromD<D>>
HWY_INLINE void ChainEight(D d, const ChainStep* steps, size_t num_steps, const T* const* src, const T* in, size_t i,
                           size_t step, T* out, bool stream) {
  static_assert(kVectors == 4 || kVectors == 8);
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  // (With four, the other four repeat the first: they are computed, not
  // loaded past the range or stored.)
  V x0 = hn::LoadU(d, in + i), x1 = hn::LoadU(d, in + i + step), x2 = hn::LoadU(d, in + i + 2 * step),
    x3 = hn::LoadU(d, in + i + 3 * step);
  V x4 = x0, x5 = x0, x6 = x0, x7 = x0;
  if constexpr (kVectors == 8) {
    x4 = hn::LoadU(d, in + i + 4 * step), x5 = hn::LoadU(d, in + i + 5 * step), x6 = hn::LoadU(d, in + i + 6 * step);
    x7 = hn::LoadU(d, in + i + 7 * step);
  }
  for (size_t k = 0; k < num_steps; ++k) {
    const ChainStep& s = steps[k];
    const T* y = src[s.other] + (s.other_fixed ? 0 : i);
    switch (s.op) {
#define KILN_OP hn::Add
      case ScalarOp::kAdd: KILN_BINARY break;
#undef KILN_OP
#define KILN_OP hn::Sub
      case ScalarOp::kSubtract: KILN_BINARY break;
#undef KILN_OP
#define KILN_OP hn::Mul
      case ScalarOp::kMultiply: KILN_BINARY break;
#undef KILN_OP
#define KILN_OP hn::Div
      case ScalarOp::kDivide: KILN_BINARY break;
#undef KILN_OP
      // Against splat bounds: the short maximum / minimum (clamp: both).
      case ScalarOp::kClamp:
        if (s.short_other && s.short_hi) {
          KILN_SHORT_STEP(KILN_SMAX, y)
          KILN_SHORT_STEP(KILN_SMIN, src[s.hi] + (s.hi_fixed ? 0 : i))
        } else {
          KILN_EIGHT(KILN_STEP_AT)
        }
        break;
      case ScalarOp::kMaximum:
        if (s.short_other) {
          KILN_SHORT_STEP(KILN_SMAX, y)
        } else {
          KILN_EIGHT(KILN_STEP_AT)
        }
        break;
      case ScalarOp::kMinimum:
        if (s.short_other) {
          KILN_SHORT_STEP(KILN_SMIN, y)
        } else {
          KILN_EIGHT(KILN_STEP_AT)
        }
        break;
      // One instruction each: inline (a call per vector cost several times
      // the instruction: a lone negate ran at 8 cycles a vector). Not in
      // selective builds, held to their size: a call per vector there.
      case ScalarOp::kNegate: KILN_ONE_INSTRUCTION(KILN_NEG) break;
      case ScalarOp::kAbs: KILN_ONE_INSTRUCTION(KILN_ABS) break;
      case ScalarOp::kSqrt: KILN_ONE_INSTRUCTION(KILN_SQRT) break;
      case ScalarOp::kRsqrt: KILN_ONE_INSTRUCTION(KILN_RSQRT) break;
      case ScalarOp::kExponential:
        // exp, the step of softmax's producer, inline on the eight running
        // vectors (their chains overlap; no spill around a call).
        if constexpr (std::is_same_v<D, DF>) {
          KILN_EIGHT(KILN_EXP)
          break;
        }
        [[fallthrough]];
      case ScalarOp::kLog: case ScalarOp::kTanh: case ScalarOp::kLogistic: {
        // Through memory, eight vectors at once (TranscendentalEight).
        HWY_ALIGN T park[8 * HWY_MAX_BYTES / sizeof(T)];
        HWY_ALIGN T parked[8 * HWY_MAX_BYTES / sizeof(T)];
        KILN_ALL_EIGHT(KILN_PARK)
        TranscendentalEight(d, s.op, park, parked);
        KILN_EIGHT(KILN_UNPARK)
        break;
      }
      default: KILN_EIGHT(KILN_STEP_AT) break;
    }
  }
  KILN_EIGHT(KILN_STORE)
}
#undef KILN_EXP
#undef KILN_UNPARK
#undef KILN_PARK
#undef KILN_STORE
#undef KILN_SHORT_STEP
#undef KILN_SMIN
#undef KILN_SMAX
#undef KILN_STEP_AT
#undef KILN_NEG
#undef KILN_ABS
#undef KILN_SQRT
#undef KILN_RSQRT
#undef KILN_ONE_INSTRUCTION
#undef KILN_BINARY
#undef KILN_XX
#undef KILN_YX
#undef KILN_XY
#undef KILN_CX
#undef KILN_XC
#undef KILN_EIGHT
#undef KILN_ALL_EIGHT

template <class D, typename T = hn::TFromD<D>>
HWY_INLINE void ChainFour(D d, const ChainStep* steps, size_t num_steps, const T* const* src, const T* in, size_t i,
                          T* out, bool stream) {
  ChainEight<4>(d, steps, num_steps, src, in, i, hn::Lanes(d), out, stream);
}

template <class D, typename T = hn::TFromD<D>>
HWY_INLINE void ChainOne(D d, const ChainStep* steps, size_t num_steps, const T* const* src, const T* in, size_t i,
                         T* out, bool stream) {
  auto x = hn::LoadU(d, in + i);
  for (size_t k = 0; k < num_steps; ++k) x = ChainStepAt(d, steps[k], src, i, x);
  ChainStore(d, x, out + i, stream);
}

// A chain program over whole rows (the output's innermost axis, `row`
// elements, whole vectors) whose params are each read in place along the
// row (a full-size input; a broadcast or sliced operand with stride 1
// innermost: a layer norm's scale, a row of a bias), as one value per row
// (stride 0 innermost: softmax's max and sum, a norm's mean; at least one
// param), or are rank-0: runs row by row, a row's values splatted into one
// vector each and read as splat operands, with no blocks, slots or gathers
// in between (the per-block bookkeeping of RunElementwise cost more than
// the arithmetic of a row block's tail). Returns false, having done
// nothing, for other programs and ranges. `src` holds the rank-0 params'
// and constants' slots.
template <class D, typename T = hn::TFromD<D>>
bool ChainRows(D d, const ElementwiseProblem& p, const ScalarProgram& prog, const T* const* src,
               const std::vector<ChainStep>& chain, uint16_t chain_start, size_t begin, size_t end) {
  const size_t N = hn::Lanes(d);
  const size_t rank = p.out_dims.size();
  // (Whole rows of at least 4N elements, below: a shorter range has none,
  // and leaves before the per-param tables are set up.)
  if (rank == 0 || rank > 16 || p.outputs.size() != 1 || begin >= end || end - begin < 4 * N) return false;
  const size_t P = prog.param_types.size();
  enum class Read : uint8_t { kScalar, kFull, kRowValue, kRowRun };
  thread_local std::vector<Read> read;
  thread_local std::vector<bool> fixed;
  thread_local std::vector<const T*> at;
  thread_local std::vector<T> splats;
  read.assign(P, Read::kScalar);
  fixed.assign(P, false);
  bool per_row_values = false;
  for (size_t v = 0; v < P; ++v) {
    if (p.input_is_scalar[v]) {
      fixed[v] = true;
      continue;
    }
    if (prog.param_types[v] == ElementType::kI1) return false;
    const auto& st = p.gather_strides[v];
    if (st.empty()) {
      read[v] = Read::kFull;
    } else if (st.back() == 0) {
      read[v] = Read::kRowValue;
      fixed[v] = true;
      per_row_values = true;
    } else if (st.back() == 1) {
      read[v] = Read::kRowRun;
    } else {
      return false;
    }
  }
  // A row is the output's last `tail` axes: as many as every param allows
  // (a per-row value constant over them, a run contiguous along them), so
  // that a per-channel value over NCHW planes of 16 x 16 makes rows of 256
  // elements rather than of 16, which are too short to run here.
  auto fits = [&](size_t tail) {
    for (size_t v = 0; v < P; ++v) {
      if (read[v] != Read::kRowValue && read[v] != Read::kRowRun) continue;
      const auto& st = p.gather_strides[v];
      int64_t contiguous = 1;
      for (size_t a = rank; a-- > rank - tail;) {
        if (st[a] != (read[v] == Read::kRowValue ? 0 : contiguous)) return false;
        contiguous *= p.out_dims[a];
      }
    }
    return true;
  };
  size_t tail = 1;
  while (tail < rank && fits(tail + 1)) ++tail;
  size_t row = 1;
  for (size_t a = rank - tail; a < rank; ++a) row *= static_cast<size_t>(p.out_dims[a]);
  if (row < 4 * N || row % N != 0 || begin % row != 0 || end % row != 0) return false;
  // The running value starts from a param read along the row; and some
  // param is one value per row (without one, the block path reads
  // everything in place or as a repeated vector, and over short rows it
  // costs less than the per-row bookkeeping here: a batch norm over NHWC).
  if (!per_row_values || chain_start >= P || read[chain_start] == Read::kScalar ||
      read[chain_start] == Read::kRowValue)
    return false;
  at.assign(src, src + P + prog.instrs.size());
  splats.resize(P * N);
  thread_local std::vector<ChainStep> steps;
  steps = chain;
  // Per-row values decide the short maximum/minimum forms row by row; a
  // chain without such a step against one decides them once.
  bool bounds_per_row = false;
  for (const ChainStep& s : steps) {
    const bool bounded = s.op == ScalarOp::kMaximum || s.op == ScalarOp::kMinimum || s.op == ScalarOp::kClamp;
    if (!bounded || s.self) continue;
    bounds_per_row = bounds_per_row || (s.other < P && read[s.other] == Read::kRowValue) ||
                     (s.op == ScalarOp::kClamp && s.hi < P && read[s.hi] == Read::kRowValue);
  }
  if (!bounds_per_row) MarkSplatBounds(prog, fixed, at.data(), &steps, true);
  // Each row's first element per param (`off`), the outer axes' index
  // (`idx`) advanced row by row: divisions only for the first row (the
  // per-row index arithmetic cost more than a 256-element row's chain).
  const size_t outer = rank - tail;
  thread_local std::vector<int64_t> off;
  off.assign(P, 0);
  int64_t idx[16] = {};
  {
    size_t q = begin / row;
    for (size_t a = outer; a-- > 0;) {
      idx[a] = static_cast<int64_t>(q % static_cast<size_t>(p.out_dims[a]));
      q /= static_cast<size_t>(p.out_dims[a]);
    }
    for (size_t v = 0; v < P; ++v) {
      if (read[v] != Read::kRowRun && read[v] != Read::kRowValue) continue;
      for (size_t a = 0; a < outer; ++a) off[v] += idx[a] * p.gather_strides[v][a];
    }
  }
  for (size_t r = begin / row; r < end / row; ++r) {
    if (r != begin / row) {
      for (size_t a = outer; a-- > 0;) {  // the next row: an odometer over the outer axes
        for (size_t v = 0; v < P; ++v)
          if (read[v] == Read::kRowRun || read[v] == Read::kRowValue) off[v] += p.gather_strides[v][a];
        if (++idx[a] < p.out_dims[a]) break;
        for (size_t v = 0; v < P; ++v)
          if (read[v] == Read::kRowRun || read[v] == Read::kRowValue) off[v] -= p.gather_strides[v][a] * p.out_dims[a];
        idx[a] = 0;
      }
    }
    for (size_t v = 0; v < P; ++v) {
      if (read[v] == Read::kScalar) continue;
      const T* in = reinterpret_cast<const T*>(p.inputs[v]);
      if (read[v] == Read::kFull) {
        at[v] = in + r * row;
      } else if (read[v] == Read::kRowRun) {
        at[v] = in + off[v];
      } else {
        std::fill(splats.begin() + v * N, splats.begin() + (v + 1) * N, in[off[v]]);
        at[v] = splats.data() + v * N;
      }
    }
    if (bounds_per_row) MarkSplatBounds(prog, fixed, at.data(), &steps, true);
    T* out = reinterpret_cast<T*>(p.outputs[0]) + (r * row - p.out_base);
    const bool stream = p.stream && reinterpret_cast<uintptr_t>(out) % 64 == 0;
    const T* in = at[chain_start];
    size_t i = 0;
    for (; i + 8 * N <= row; i += 8 * N) ChainEight(d, steps.data(), steps.size(), at.data(), in, i, N, out, stream);
    if (i + 4 * N <= row) {
      ChainFour(d, steps.data(), steps.size(), at.data(), in, i, out, stream);
      i += 4 * N;
    }
    for (; i < row; i += N) ChainOne(d, steps.data(), steps.size(), at.data(), in, i, out, stream);
  }
  return true;
}

// A chain program over whole rows (at least eight) whose params are each
// full-size (read in place), rank-0, or one vector along the row repeated
// over the outer axes (a bias or a batch norm's mean, scale and shift over
// a channel-last result: strides 0 outside the innermost axis, 1 along it;
// at least one such param): runs a column of vectors at a time down the
// rows, eight rows per ChainEight, each per-column operand loaded once per
// eight vectors instead of once per vector (the block path's cyclic reads:
// four loads per vector of a batch norm) and the running value's loads and
// stores one per vector. Rows are taken in groups that stay in cache
// (kColumnGroupBytes), so the strided walk reads each line once. The same
// ops in the same order per element as every other form. Returns false,
// having done nothing, for other programs and ranges.
template <class D, typename T = hn::TFromD<D>>
bool ChainColumns(D d, const ElementwiseProblem& p, const ScalarProgram& prog, const T* const* src,
                  const std::vector<ChainStep>& chain, uint16_t chain_start, size_t begin, size_t end) {
  constexpr size_t kColumnGroupBytes = 64 << 10;
  const size_t N = hn::Lanes(d);
  const size_t rank = p.out_dims.size();
  // (Not for large outputs that may be written with streaming stores, past
  // the cache: the block path writes those in order.)
  constexpr size_t kCachedOutputBytes = 2 << 20;
  if (rank < 2 || p.outputs.size() != 1 || begin >= end || (p.stream && p.n * sizeof(T) > kCachedOutputBytes))
    return false;
  const size_t row = static_cast<size_t>(p.out_dims.back());
  if (row < N || row % N != 0 || begin % row != 0 || end % row != 0 || (end - begin) / row < 8) return false;
  const size_t P = prog.param_types.size();
  if (chain_start >= P || p.input_is_scalar[chain_start] || !p.gather_strides[chain_start].empty()) return false;
  // The full-size params and the per-column ones, by index.
  thread_local std::vector<uint16_t> full, per_column;
  full.clear();
  per_column.clear();
  for (size_t v = 0; v < P; ++v) {
    const auto& st = p.gather_strides[v];
    if (p.input_is_scalar[v]) continue;  // (read from its slot, converted)
    if (prog.param_types[v] == ElementType::kI1) return false;
    if (st.empty()) {
      full.push_back(static_cast<uint16_t>(v));
      continue;
    }
    if (st.back() != 1) return false;
    for (size_t a = 0; a + 1 < rank; ++a)
      if (st[a] != 0 && p.out_dims[a] != 1) return false;
    per_column.push_back(static_cast<uint16_t>(v));
  }
  if (per_column.empty()) return false;
  // Every operand but the full-size ones is read at its first element (the
  // eight vectors lie a row apart, past a splat's slot): rank-0 params and
  // constants as splats, and a per-column operand once per eight rows (its
  // maximum/minimum/clamp bounds differ per lane, so those keep the exact
  // form).
  thread_local std::vector<ChainStep> steps;
  steps = chain;
  MarkSplatBounds(prog, p.input_is_scalar, src, &steps, true);
  auto column = [&](uint16_t v) { return std::find(per_column.begin(), per_column.end(), v) != per_column.end(); };
  for (ChainStep& s : steps) {
    if (UnaryStep(s.op) || s.self) continue;
    const bool other = column(s.other), hi = s.op == ScalarOp::kClamp && column(s.hi);
    if (!other && !hi) continue;
    s.other_fixed = s.other_fixed || other;
    s.hi_fixed = s.hi_fixed || hi;
    if (other) s.short_other = false;
    if (hi) s.short_hi = false;
    s.splat_operands = s.op != ScalarOp::kClamp && s.op != ScalarOp::kMaximum && s.op != ScalarOp::kMinimum;
  }
  thread_local std::vector<const T*> at;
  at.assign(src, src + P + prog.instrs.size());
  const size_t group = std::max<size_t>(8, kColumnGroupBytes / (row * sizeof(T)) / 8 * 8);
  for (size_t r0 = begin / row; r0 < end / row; r0 += group) {
    const size_t r1 = std::min(end / row, r0 + group);
    for (size_t c = 0; c < row; c += N) {
      for (uint16_t v : per_column) at[v] = reinterpret_cast<const T*>(p.inputs[v]) + c;
      for (size_t r = r0; r < r1;) {
        // Element (r, c): the full-size params and the output at offset 0.
        for (uint16_t v : full) at[v] = reinterpret_cast<const T*>(p.inputs[v]) + r * row + c;
        T* out = reinterpret_cast<T*>(p.outputs[0]) + (r * row + c - p.out_base);
        if (r + 8 <= r1) {
          ChainEight(d, steps.data(), steps.size(), at.data(), at[chain_start], 0, row, out, false);
          r += 8;
        } else {
          ChainOne(d, steps.data(), steps.size(), at.data(), at[chain_start], 0, out, false);
          r += 1;
        }
      }
    }
  }
  return true;
}

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard

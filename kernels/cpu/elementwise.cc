// Fast kiln.elementwise for f32 and f64 programs (fused chains included).
//
// The program (a typed SSA list of scalar ops) is interpreted block by block:
// for each block of kBlock elements, every instruction runs as one tight SIMD
// loop over the block, reading its operands' blocks and writing its own (all
// in L1). Inputs of the output's shape are read in place; rank-0 inputs and
// constants are splatted into a block once; broadcast inputs (the
// "input_broadcast" map of fused broadcast_in_dim ops) are gathered per
// block, or, when the block lies in one run along the innermost axis (a
// row of a row block), read in place (stride 1: layer norm's scale) or
// splatted once per row (stride 0: a per-row max or mean); a per-feature
// vector of a channel-last result (stride 1 along the innermost axis, 0
// along the others: a bias, a batch norm's scale) is written out once
// repeated and read in place at any block. Results of at least half the
// last-level cache leave with non-temporal stores. No JIT. The thread pool runs disjoint ranges of
// kTaskElements elements.
//
// Supported: programs whose values are all of one float type T (f32 or f64)
// or i1 (i1 only as compare results and select predicates), T results, and
// the ops add, subtract, multiply, divide, maximum, minimum, negate, abs,
// sqrt, constant, select and compare (float comparison; not totalorder);
// for f32 also rsqrt, exponential, log, tanh and logistic. Boolean values
// are held as 1 / 0 in T.
//
// add, subtract, multiply, divide, sqrt, negate, abs, maximum, minimum,
// compare and select give the reference's results exactly (IEEE arithmetic
// is correctly rounded, as is the reference's double arithmetic rounded once
// to f32); maximum/minimum propagate NaN and order -0 < +0 like the
// reference. log uses hwy/contrib/math (a few ULP), with the special
// values (NaN, +-inf, 0, negative arguments) patched to the reference's
// results; exponential is hand-written (at most 1 ULP over every f32 on
// AVX3, see Exp), logistic is built on it; tanh is a hand-written
// expm1-based formula (at most 3 ULP, see Tanh); rsqrt is 1/sqrt (two
// roundings).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/elementwise.cc"
#include "kernels/cpu/aligned_scratch.h"
#include "kernels/cpu/hwy_targets.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "hwy/aligned_allocator.h"
#include "hwy/cache_control.h"
#include "kernels/cpu/elementwise_chain-inl.h"
#include "kernels/cpu/elementwise_math-inl.h"
#include "kernels/cpu/float_ops-inl.h"

#ifndef KILN_CPU_ELEMENTWISE_SHARED
#define KILN_CPU_ELEMENTWISE_SHARED
#include "kernels/common/kernel_selection.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/elementwise_lanes32.h"
#include "kernels/cpu/elementwise_lanes64.h"
#include "kernels/cpu/gather.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernels.h"
#include "kernels/reference/elementwise_inputs.h"

#include "kernels/scalar/scalar.h"

namespace kiln::cpu {

// Elements per thread-pool task: a multiple of kBlock, large enough that the
// hand-off (a few microseconds) is noise, small enough to balance 2-16 cores.
constexpr size_t kTaskElements = 64 * kBlock;

// Float ops of float operands that the vector interpreter has no vector
// form for but evaluates element by element through the reference's own
// scalar evaluation (ref::EvalScalarInstr: the same bits), so that one such
// op (erfc, lgamma, atan2, a sine, ...) does not send its whole fused
// program to the reference interpreter. floor, ceil, round_nearest_even,
// sign and square have exact vector forms, erf an f32 one within 2 ULP
// (RunElementwise).
inline bool ScalarEscape(ScalarOp op) {
  switch (op) {
    case ScalarOp::kAtan2: case ScalarOp::kCbrt: case ScalarOp::kCeil: case ScalarOp::kCosine:
    case ScalarOp::kExponentialMinusOne: case ScalarOp::kFloor: case ScalarOp::kLogPlusOne: case ScalarOp::kPower:
    case ScalarOp::kRemainder: case ScalarOp::kRoundNearestAfz: case ScalarOp::kRoundNearestEven:
    case ScalarOp::kSign: case ScalarOp::kSine: case ScalarOp::kTan: case ScalarOp::kAcos: case ScalarOp::kAcosh:
    case ScalarOp::kAsin: case ScalarOp::kAsinh: case ScalarOp::kAtan: case ScalarOp::kAtanh: case ScalarOp::kCosh:
    case ScalarOp::kSinh: case ScalarOp::kErf: case ScalarOp::kErfc: case ScalarOp::kErfInv: case ScalarOp::kLgamma:
    case ScalarOp::kDigamma: case ScalarOp::kBesselI1e: case ScalarOp::kPolygamma: case ScalarOp::kZeta:
    case ScalarOp::kNextAfter: case ScalarOp::kSquare: case ScalarOp::kTanChlo: case ScalarOp::kReducePrecision:
      return true;
    default:
      return false;
  }
}

// dst[i] = the reference's value of `in` over the operands' elements i, for
// i < count (all of type `type`).
template <typename T>
void EscapeToScalar(const ScalarInstr& in, ElementType type, const T* const* operands, T* dst, size_t count) {
  const ElementType types[3] = {type, type, type};
  Scalar values[3];
  for (size_t i = 0; i < count; ++i) {
    for (size_t o = 0; o < in.num_operands; ++o) values[o].re = static_cast<double>(operands[o][i]);
    dst[i] = static_cast<T>(ref::EvalScalarInstr(in, types, values).re);
  }
}

}  // namespace kiln::cpu
#endif  // KILN_CPU_ELEMENTWISE_SHARED

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D, class F, typename T = hn::TFromD<D>>
HWY_INLINE void Binary(D d, const T* HWY_RESTRICT a, const T* HWY_RESTRICT b, T* HWY_RESTRICT dst, size_t count,
                       F f) {
  const size_t N = hn::Lanes(d);
  for (size_t i = 0; i < count; i += N) hn::Store(f(hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, dst + i);
}

// A block's ragged end (fewer than kBlock elements, not a whole number of
// vectors), copied without a variable-length memcpy: GCC inlines that as
// `rep movsq`, whose start-up took a sixth of a ten-element row block's
// time. Where the target's masked loads and stores touch nothing past the
// mask (AVX2, AVX-512) the last vector goes masked; elsewhere, and in
// selective builds (held to their size), memcpy. to[0, n) = from[0, n).
template <class D, typename T = hn::TFromD<D>>
HWY_INLINE void CopyRaggedBlock(D d, const T* HWY_RESTRICT from, size_t n, T* HWY_RESTRICT to) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !KILN_SELECTIVE_BUILD
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::LoadU(d, from + i), d, to + i);
  if (i < n) {
    const auto m = hn::FirstN(d, n - i);
    hn::BlendedStore(hn::MaskedLoad(m, d, from + i), m, d, to + i);
  }
#else
  std::memcpy(to, from, n * sizeof(T));
#endif
}

// The same into a slot, zeros after: to[n, n rounded up to a vector) = 0.
template <class D, typename T = hn::TFromD<D>>
HWY_INLINE void CopyRaggedBlockPadded(D d, const T* HWY_RESTRICT from, size_t n, T* HWY_RESTRICT to) {
  const size_t N = hn::Lanes(d);
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !KILN_SELECTIVE_BUILD
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::LoadU(d, from + i), d, to + i);
  if (i < n) hn::StoreU(hn::MaskedLoad(hn::FirstN(d, n - i), d, from + i), d, to + i);  // zeros past n
#else
  std::memcpy(to, from, n * sizeof(T));
  std::fill(to + n, to + (n + N - 1) / N * N, T(0));
#endif
}



template <class D, class V = hn::Vec<D>>
HWY_INLINE V Compare(D d, ComparisonDirection dir, V a, V b) {
  const V one = hn::Set(d, hn::TFromD<D>(1));
  switch (dir) {
    case ComparisonDirection::kEQ: return hn::IfThenElseZero(hn::Eq(a, b), one);
    case ComparisonDirection::kNE: return hn::IfThenZeroElse(hn::Eq(a, b), one);
    case ComparisonDirection::kGE: return hn::IfThenElseZero(hn::Ge(a, b), one);
    case ComparisonDirection::kGT: return hn::IfThenElseZero(hn::Gt(a, b), one);
    case ComparisonDirection::kLE: return hn::IfThenElseZero(hn::Le(a, b), one);
    case ComparisonDirection::kLT: return hn::IfThenElseZero(hn::Lt(a, b), one);
  }
  return hn::Zero(d);
}

// Runs the program over elements [begin, end) of every output.
// Values are held as T (f32 or f64; i1 as 1 or 0); the transcendental ops
// exist only for f32 (Supported() keeps them out of f64 programs).
template <typename T>
void RunElementwise(const ElementwiseProblem& p, size_t begin, size_t end) {
  using D = hn::ScalableTag<T>;
  using V = hn::Vec<D>;
  const D d;
  const size_t N = hn::Lanes(d);
  const ScalarProgram& prog = *p.program;
  const size_t num_params = prog.param_types.size();
  const size_t num_values = prog.num_values();
  // Per-thread scratch, kept between dispatches (a fresh allocation per
  // dispatch cost more than small programs themselves); tasks of one
  // dispatch run on different threads or one after another.
  thread_local hwy::AlignedFreeUniquePtr<T[]> scratch;
  thread_local size_t scratch_size = 0;
  if (scratch_size < num_values * kBlock) {
    scratch = AllocateAlignedOrThrow<T>(num_values * kBlock);
    scratch_size = num_values * kBlock;
  }
  auto slot = [&](size_t v) { return scratch.get() + v * kBlock; };
  // Per-block operand pointers and splat bookkeeping, kept per thread too
  // (a row block calls this once per block and unit: no heap traffic).
  thread_local std::vector<const T*> src, splatted;
  thread_local std::vector<size_t> splat_padded;
  src.assign(num_values, nullptr);
  // Per param: the element its slot holds as a splat (null: none).
  splatted.assign(num_params, nullptr);
  splat_padded.assign(num_params, 0);

  // Broadcast params and constants: fill their blocks once, as far as this
  // range's longest block reaches (a small call, a GRU step's gates, then
  // does not fill whole kBlock-element blocks per constant).
  const size_t fill = std::min(kBlock, (end - begin + N - 1) / N * N);
  for (size_t v = 0; v < num_params; ++v) {
    if (!p.input_is_scalar[v]) continue;
    T value;
    if (prog.param_types[v] == ElementType::kI1) {
      value = p.inputs[v][0] != 0 ? T(1) : T(0);
    } else {
      std::memcpy(&value, p.inputs[v], sizeof(T));
    }
    std::fill(slot(v), slot(v) + fill, value);
    src[v] = slot(v);
  }
  for (size_t k = 0; k < prog.instrs.size(); ++k) {
    const size_t v = num_params + k;
    src[v] = slot(v);
    if (prog.instrs[k].op == ScalarOp::kConstant) {
      const T value = static_cast<T>(prog.instrs[k].constant.re);
      std::fill(slot(v), slot(v) + fill, value);
    }
  }

  // Per-feature vectors of a channel-last result (a bias or a batch norm's
  // scale and shift over NHWC: stride 1 along the innermost output axis, 0
  // along the others) repeat with period F = that axis's size. Such a param
  // is written out once as the vector repeated to F + kBlock elements, and
  // every block then reads it in place at offset (start mod F) instead of
  // gathering it (a block crosses rows, so the in-place row read below
  // rarely applies). Only over ranges long enough to repay the fill (a
  // row block calls this once per block): at least the fill's own length,
  // where gathering would copy the vector once per row instead (a batch of
  // 64 classifier rows of 10 logits and their bias: 64 copies of 10).
  thread_local CacheLineVector<T> cyclic;  // (on a cache line, as every slot is)
  thread_local std::vector<size_t> cyclic_at;  // per param: its offset in `cyclic`, or kNone
  constexpr size_t kNone = ~size_t{0};
  cyclic_at.assign(num_params, kNone);
  const size_t period = p.out_dims.empty() ? 0 : static_cast<size_t>(p.out_dims.back());
  // (Speed only: not in selective builds, which gather such params.)
  if (period > 0 && period <= 8192 && end - begin >= period + kBlock && !KILN_SELECTIVE_BUILD) {
    size_t total = 0;
    for (size_t v = 0; v < num_params; ++v) {
      const auto& st = p.gather_strides[v];
      if (st.empty() || p.input_is_scalar[v] || prog.param_types[v] == ElementType::kI1 || st.back() != 1) continue;
      if (!std::all_of(st.begin(), st.end() - 1, [](int64_t x) { return x == 0; })) continue;
      cyclic_at[v] = total;
      total += period + kBlock;
    }
    if (total > 0) {
      if (cyclic.size() < total) cyclic.resize(total);
      for (size_t v = 0; v < num_params; ++v) {
        if (cyclic_at[v] == kNone) continue;
        const T* vec = reinterpret_cast<const T*>(p.inputs[v]);
        T* out = cyclic.data() + cyclic_at[v];
        for (size_t i = 0; i < period + kBlock; i += period)
          std::memcpy(out + i, vec, std::min(period, period + kBlock - i) * sizeof(T));
      }
    }
  }

  // Per gathered param: the length of the runs over which it is constant
  // (the elements of the axes after its last strided one) where that is at
  // least a vector and it is not read another way; else 0.
  thread_local std::vector<size_t> run_length, run_axis;
  run_length.assign(num_params, 0);
  run_axis.assign(num_params, 0);
  for (size_t v = 0; v < num_params && !KILN_SELECTIVE_BUILD; ++v) {
    const auto& st = p.gather_strides[v];
    if (st.empty() || p.input_is_scalar[v] || cyclic_at[v] != kNone || prog.param_types[v] == ElementType::kI1 ||
        st.back() != 0)
      continue;
    size_t a = st.size(), r = 1;
    while (a > 0 && st[a - 1] == 0) r *= static_cast<size_t>(p.out_dims[--a]);
    if (a == 0 || r < N) continue;  // a splat everywhere, or runs too short to repay
    run_length[v] = r;
    run_axis[v] = a - 1;
  }

  // (Selective builds keep the instruction-by-instruction form only: the
  // chain form is speed, and a deployment build is held to its size.)
  thread_local std::vector<ChainStep> chain;
  uint16_t chain_start = 0;
#if KILN_SELECTIVE_BUILD
  const bool is_chain = false;
#else
  const bool is_chain = ChainOf(prog, &chain_start, &chain);
  if (is_chain) MarkSplatBounds(prog, p.input_is_scalar, src.data(), &chain);
  if (is_chain && (ChainRows(d, p, prog, src.data(), chain, chain_start, begin, end) ||
                   ChainColumns(d, p, prog, src.data(), chain, chain_start, begin, end))) {
    if (p.stream) hwy::FlushStream();
    return;
  }
#endif

  bool any_gather = false;
  for (size_t v = 0; v < num_params; ++v) any_gather = any_gather || !p.gather_strides[v].empty();
  // A param gathered along rows of its own (stride 1 innermost: a sliced
  // operand, "input_slices") is read in place where a block lies within one
  // output row (InnermostRun). Rows shorter than a block (a GRU's gates, 128
  // of a 384-wide product) would make every block cross rows and gather, so
  // blocks are then cut at row ends (speed only: not in selective builds).
  size_t row = 0;
  const size_t row_len = p.out_dims.empty() ? 0 : static_cast<size_t>(p.out_dims.back());
  for (size_t v = 0; v < num_params && row_len >= 4 * N && row_len < kBlock && !KILN_SELECTIVE_BUILD; ++v) {
    const auto& st = p.gather_strides[v];
    if (!st.empty() && !p.input_is_scalar[v] && cyclic_at[v] == kNone && prog.param_types[v] != ElementType::kI1 &&
        st.back() == 1)
      row = row_len;
  }
  OutputIndex at;  // of `start`, for the gathered params
  if (any_gather && begin < end) at.Start(p.out_dims, begin);  // (no dim is 0 then)
  size_t count = 0;
  for (size_t start = begin; start < end; start += count) {
    const size_t before = count;  // the previous block's
    count = std::min(kBlock, end - start);
    if (row != 0) count = std::min(count, row - start % row);
    const size_t padded = (count + N - 1) / N * N;
    if (any_gather && start != begin) at.Advance(p.out_dims, before);
    for (size_t v = 0; v < num_params; ++v) {
      if (p.input_is_scalar[v]) continue;
      if (cyclic_at[v] != kNone) {
        src[v] = cyclic.data() + cyclic_at[v] + start % period;  // a per-feature vector, read in place
        splatted[v] = nullptr;
        continue;
      }
      if (!p.gather_strides[v].empty()) {
        T* dst = slot(v);
        const T* run = prog.param_types[v] == ElementType::kI1
                           ? nullptr
                           : InnermostRun(reinterpret_cast<const T*>(p.inputs[v]), p.gather_strides[v], p.out_dims,
                                          at, count);
        if (run != nullptr && p.gather_strides[v].back() == 1 && count == padded) {
          src[v] = run;  // a row of a broadcast column (layer norm's scale): read in place
          continue;
        }
        if (run != nullptr && p.gather_strides[v].back() == 0) {
          // A per-row value (softmax's max): one splat, kept while the
          // blocks stay in its row.
          if (splatted[v] != run || splat_padded[v] < padded) {
            std::fill(dst, dst + padded, *run);
            splatted[v] = run;
            splat_padded[v] = padded;
          }
          src[v] = dst;
          continue;
        }
        splatted[v] = nullptr;
        if (run_length[v] != 0) {
          // Constant over runs of run_length[v] elements (a per-channel
          // value over NCHW planes): one splat per run the block meets.
          const T* in = reinterpret_cast<const T*>(p.inputs[v]);
          const auto& st = p.gather_strides[v];
          const size_t r = run_length[v];
          for (size_t pos = start; pos < start + count;) {
            const size_t seg = std::min(r - pos % r, start + count - pos);
            size_t q = pos / r;
            int64_t off = 0;
            for (size_t a = run_axis[v] + 1; a-- > 0;) {
              off += static_cast<int64_t>(q % static_cast<size_t>(p.out_dims[a])) * st[a];
              q /= static_cast<size_t>(p.out_dims[a]);
            }
            std::fill(dst + (pos - start), dst + (pos - start) + seg, in[off]);
            pos += seg;
          }
          std::fill(dst + count, dst + padded, T(0));
          src[v] = dst;
          continue;
        }
        if (prog.param_types[v] == ElementType::kI1) {
          uint8_t bytes[kBlock];
          GatherBlock(p.inputs[v], p.gather_strides[v], p.out_dims, start, count, bytes);
          for (size_t i = 0; i < count; ++i) dst[i] = bytes[i] != 0 ? T(1) : T(0);
        } else {
          GatherBlock(reinterpret_cast<const T*>(p.inputs[v]), p.gather_strides[v], p.out_dims, start, count,
                      dst);
        }
        std::fill(dst + count, dst + padded, T(0));
        src[v] = dst;
      } else if (prog.param_types[v] == ElementType::kI1) {
        const uint8_t* in = p.inputs[v] + start;
        T* dst = slot(v);
        for (size_t i = 0; i < count; ++i) dst[i] = in[i] != 0 ? T(1) : T(0);
        std::fill(dst + count, dst + padded, T(0));
        src[v] = dst;
      } else if (count == padded) {
        // Read in place: the block ends on a whole vector, so nothing past
        // the input is read (a copy cost more than small programs' work).
        src[v] = reinterpret_cast<const T*>(p.inputs[v]) + start;
      } else {
        T* dst = slot(v);
        CopyRaggedBlockPadded(d, reinterpret_cast<const T*>(p.inputs[v]) + start, count, dst);
        src[v] = dst;
      }
    }
    if (is_chain) {
      // Straight into the output where the block ends on a whole vector,
      // else into the result's slot for the copy below.
      T* out = reinterpret_cast<T*>(p.outputs[0]) + (start - p.out_base);
      const bool direct = count == padded;
      const bool stream = direct && p.stream && count == kBlock && reinterpret_cast<uintptr_t>(out) % 64 == 0;
      T* dst = direct ? out : slot(prog.results[0]);
      // Locals, not the thread_local vectors: their TLS lookups would sit
      // in the loop (and spill the running vectors around them).
      const T* in = src[chain_start];
      const T* const* from = src.data();
      const ChainStep* steps = chain.data();
      const size_t num_steps = chain.size();
      size_t i = 0;
      for (; i + 8 * N <= padded; i += 8 * N) ChainEight(d, steps, num_steps, from, in, i, N, dst, stream);
      if (i + 4 * N <= padded) {
        ChainFour(d, steps, num_steps, from, in, i, dst, stream);
        i += 4 * N;
      }
      for (; i < padded; i += N) ChainOne(d, steps, num_steps, from, in, i, dst, stream);
      if (direct) continue;
      CopyRaggedBlock(d, dst, count, out);
      continue;
    }
    for (size_t k = 0; k < prog.instrs.size(); ++k) {
      const ScalarInstr& in = prog.instrs[k];
      T* dst = slot(num_params + k);
      const T* a = in.num_operands > 0 ? src[in.operands[0]] : nullptr;
      const T* b = in.num_operands > 1 ? src[in.operands[1]] : nullptr;
      switch (in.op) {
        case ScalarOp::kConstant: break;
        case ScalarOp::kAdd: Binary(d, a, b, dst, padded, [](V x, V y) { return hn::Add(x, y); }); break;
        case ScalarOp::kSubtract: Binary(d, a, b, dst, padded, [](V x, V y) { return hn::Sub(x, y); }); break;
        case ScalarOp::kMultiply: Binary(d, a, b, dst, padded, [](V x, V y) { return hn::Mul(x, y); }); break;
        case ScalarOp::kDivide: Binary(d, a, b, dst, padded, [](V x, V y) { return hn::Div(x, y); }); break;
        case ScalarOp::kMaximum: Binary(d, a, b, dst, padded, [d](V x, V y) { return MaxLikeReference(d, x, y); }); break;
        case ScalarOp::kMinimum: Binary(d, a, b, dst, padded, [d](V x, V y) { return MinLikeReference(d, x, y); }); break;
        case ScalarOp::kNegate: Unary(d, a, dst, padded, [](V x) { return hn::Neg(x); }); break;
        case ScalarOp::kAbs: Unary(d, a, dst, padded, [](V x) { return hn::Abs(x); }); break;
        case ScalarOp::kSqrt: Unary(d, a, dst, padded, [](V x) { return hn::Sqrt(x); }); break;
        case ScalarOp::kRsqrt:
          Unary(d, a, dst, padded, [d](V x) { return hn::Div(hn::Set(d, T(1)), hn::Sqrt(x)); });
          break;
        case ScalarOp::kExponential:
          if constexpr (sizeof(T) == 4) Unary(d, a, dst, padded, [d](V x) { return Exp(d, x); });
          break;
        case ScalarOp::kLog:
          if constexpr (sizeof(T) == 4) Unary(d, a, dst, padded, [d](V x) { return Log(d, x); });
          break;
        case ScalarOp::kTanh:
          if constexpr (sizeof(T) == 4) Unary(d, a, dst, padded, [d](V x) { return Tanh(d, x); });
          break;
        case ScalarOp::kLogistic:
          if constexpr (sizeof(T) == 4) Unary(d, a, dst, padded, [d](V x) { return Logistic(d, x); });
          break;
        case ScalarOp::kCompare: {
          const auto dir = static_cast<ComparisonDirection>(in.attr0);
          Binary(d, a, b, dst, padded, [d, dir](V x, V y) { return Compare(d, dir, x, y); });
          break;
        }
        case ScalarOp::kClamp: {
          // clamp(min, x, max) = minimum(maximum(x, min), max), as the
          // reference evaluates it (NaN in any operand propagates the same).
          const T* x = src[in.operands[1]];
          const T* hi = src[in.operands[2]];
          for (size_t i = 0; i < padded; i += N) {
            const V lo_x = MaxLikeReference(d, hn::LoadU(d, x + i), hn::LoadU(d, a + i));
            hn::Store(MinLikeReference(d, lo_x, hn::LoadU(d, hi + i)), d, dst + i);
          }
          break;
        }
        case ScalarOp::kSelect: {
          const T* t = src[in.operands[1]];
          const T* f = src[in.operands[2]];
          for (size_t i = 0; i < padded; i += N) {
            const auto pred = hn::Ne(hn::LoadU(d, a + i), hn::Zero(d));
            hn::Store(hn::IfThenElse(pred, hn::LoadU(d, t + i), hn::LoadU(d, f + i)), d, dst + i);
          }
          break;
        }
#if !KILN_SELECTIVE_BUILD  // (selective builds: these programs run the reference)
        case ScalarOp::kErf:
          if constexpr (sizeof(T) == 4) {
            Unary(d, a, dst, padded, [d](V x) { return Erf(d, x); });
          } else {
            const T* ops[1] = {a};
            EscapeToScalar(in, p.type, ops, dst, count);
          }
          break;
        // (The result has x's sign, -0 for -0: copied back, as not every
        // target's rounding keeps a zero's sign.)
        case ScalarOp::kFloor: Unary(d, a, dst, padded, [](V x) { return hn::CopySign(hn::Floor(x), x); }); break;
        case ScalarOp::kCeil: Unary(d, a, dst, padded, [](V x) { return hn::CopySign(hn::Ceil(x), x); }); break;
        case ScalarOp::kRoundNearestEven:
          Unary(d, a, dst, padded, [](V x) { return hn::CopySign(hn::Round(x), x); });
          break;
        case ScalarOp::kSquare: Unary(d, a, dst, padded, [](V x) { return hn::Mul(x, x); }); break;
        case ScalarOp::kSign:
          // -1 below zero, +1 above; zeros of either sign and NaN as they are.
          Unary(d, a, dst, padded, [d](V x) {
            return hn::IfThenElse(hn::Gt(x, hn::Zero(d)), hn::Set(d, T(1)),
                                  hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Set(d, T(-1)), x));
          });
          break;
        default: {
          // Supported() admitted it as a ScalarEscape op.
          const T* ops[3] = {a, b, in.num_operands > 2 ? src[in.operands[2]] : nullptr};
          EscapeToScalar(in, p.type, ops, dst, count);
          break;
        }
#else
        default: break;  // excluded by ElementwiseApplies
#endif
      }
    }
    for (size_t o = 0; o < p.outputs.size(); ++o) {
      T* out = reinterpret_cast<T*>(p.outputs[o]) + (start - p.out_base);
      const T* res = src[prog.results[o]];
      if (p.stream && count == kBlock && reinterpret_cast<uintptr_t>(out) % 64 == 0) {
        // Non-temporal stores: the output is not read back here, so skip
        // reading its cache lines in first (a third of the memory traffic).
        for (size_t i = 0; i < kBlock; i += N) hn::Stream(hn::LoadU(d, res + i), d, out + i);
      } else if (count == padded) {
        for (size_t i = 0; i < count; i += N) hn::StoreU(hn::LoadU(d, res + i), d, out + i);
      } else {
        CopyRaggedBlock(d, res, count, out);
      }
    }
  }
  if (p.stream) hwy::FlushStream();
}

void RunElementwiseF32(const ElementwiseProblem& p, size_t begin, size_t end) { RunElementwise<float>(p, begin, end); }
#if !KILN_SELECTIVE_BUILD
void RunElementwiseF64(const ElementwiseProblem& p, size_t begin, size_t end) { RunElementwise<double>(p, begin, end); }
#endif

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(RunElementwiseF32);
#if !KILN_SELECTIVE_BUILD
HWY_EXPORT(RunElementwiseF64);
#endif

namespace {

// The program's float type: f32 or f64, the one type of all its non-i1
// values (kInvalid otherwise).
ElementType FloatTypeOf(const ScalarProgram& prog) {
  ElementType ft = ElementType::kInvalid;
  for (size_t v = 0; v < prog.num_values(); ++v) {
    const ElementType t = prog.ValueType(v);
    if (t == ElementType::kI1) continue;
    if (ft == ElementType::kInvalid) ft = t;
    if (t != ft) return ElementType::kInvalid;
  }
  // Selective builds (held to their size) leave f64 programs to the
  // reference kernel.
  return ft == ElementType::kF32 || (ft == ElementType::kF64 && !KILN_SELECTIVE_BUILD) ? ft : ElementType::kInvalid;
}

// Whether this program is one the vector interpreter runs (see the top).
bool Supported(const ScalarProgram& prog) {
  const ElementType ft = FloatTypeOf(prog);
  if (ft == ElementType::kInvalid) return false;
  auto IsF32 = [ft](ElementType t) { return t == ft; };  // the program's float type
  const size_t num_params = prog.param_types.size();
  for (ElementType t : prog.param_types)
    if (!IsF32(t) && t != ElementType::kI1) return false;
  if (prog.results.empty()) return false;
  for (uint16_t r : prog.results)
    if (r >= prog.num_values() || !IsF32(prog.ValueType(r))) return false;
  for (size_t k = 0; k < prog.instrs.size(); ++k) {
    const ScalarInstr& in = prog.instrs[k];
    const int arity = ScalarOpArity(in.op);
    if (arity < 0 || in.num_operands != arity) return false;
    for (int o = 0; o < arity; ++o)
      if (in.operands[o] >= num_params + k) return false;  // defined before use
    auto type_of = [&](int o) { return prog.ValueType(in.operands[o]); };
    switch (in.op) {
      case ScalarOp::kConstant:
      case ScalarOp::kAdd:
      case ScalarOp::kSubtract:
      case ScalarOp::kMultiply:
      case ScalarOp::kDivide:
      case ScalarOp::kMaximum:
      case ScalarOp::kMinimum:
      case ScalarOp::kClamp:
      case ScalarOp::kNegate:
      case ScalarOp::kAbs:
      case ScalarOp::kSqrt:
      case ScalarOp::kRsqrt:
      case ScalarOp::kExponential:
      case ScalarOp::kLog:
      case ScalarOp::kTanh:
      case ScalarOp::kLogistic:
        // The approximations (and rsqrt's two roundings) are f32 only.
        if (ft == ElementType::kF64 && (in.op == ScalarOp::kRsqrt || in.op == ScalarOp::kExponential ||
                                        in.op == ScalarOp::kLog || in.op == ScalarOp::kTanh ||
                                        in.op == ScalarOp::kLogistic))
          return false;
        if (!IsF32(in.type)) return false;
        for (int o = 0; o < arity; ++o)
          if (!IsF32(type_of(o))) return false;
        break;
      case ScalarOp::kCompare: {
        if (in.type != ElementType::kI1 || !IsF32(type_of(0)) || !IsF32(type_of(1))) return false;
        const auto ct = static_cast<ComparisonType>(in.attr1);
        if (ct != ComparisonType::kNotype && ct != ComparisonType::kFloat) return false;
        if (in.attr0 < 0 || in.attr0 > static_cast<int64_t>(ComparisonDirection::kLT)) return false;
        break;
      }
      case ScalarOp::kSelect:
        if (!IsF32(in.type) || type_of(0) != ElementType::kI1 || !IsF32(type_of(1)) || !IsF32(type_of(2)))
          return false;
        break;
      default:
        // Element by element through the reference's scalar evaluation
        // (not in selective builds: the floor ... erf forms and the escape
        // are speed, and a deployment build is held to its size).
        if (KILN_SELECTIVE_BUILD || !ScalarEscape(in.op) || !IsF32(in.type)) return false;
        for (int o = 0; o < arity; ++o)
          if (!IsF32(type_of(o))) return false;
        break;
    }
  }
  return true;
}

bool SameDims(std::span<const int64_t> a, std::span<const int64_t> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

}  // namespace

// The f32 <-> f16/bf16 converts (elementwise_half.cc) stay out of selective
// builds (kernels/common/kernel_selection.h), which keep the reference for
// them: 8 KB that the minimal MLP runtime, at its size bound, has no use for.
// So do the quantized programs (elementwise_quantized.cc).
constexpr bool kFastHalfConvert = !KILN_SELECTIVE_BUILD;
constexpr bool kFastQuantized = !KILN_SELECTIVE_BUILD;

// So do the integer programs over 32-bit lanes (elementwise_lanes32.cc)
// and those with 64-bit integers (elementwise_lanes64.cc).
constexpr bool kFastLanes32 = !KILN_SELECTIVE_BUILD;
constexpr bool kFastLanes64 = !KILN_SELECTIVE_BUILD;

bool ElementwiseApplies(const KernelParams& params) {
  const ScalarProgram* prog = params.Program("body");
  return prog != nullptr && (Supported(*prog) || IsIntAddSub(*prog) ||
                             (kFastHalfConvert && (IsHalfConvert(*prog) || IsFloat16Elementwise(*prog))) ||
                             (kFastQuantized && IsQuantizedElementwise(*prog)) ||
                             (kFastLanes32 && IsLanes32Program(*prog)) ||
                             (kFastLanes64 && IsLanes64Program(*prog)));
}

Status Elementwise(const KernelCall& call) {
  return RunElementwiseProgram(call, call.params.Program("body"), call.params.Find("input_broadcast"));
}

namespace {

// The programs the vector interpreter does not take but a kernel of their
// own does (a fused epilogue's too); the rest run the reference.
Status RunOtherProgram(const KernelCall& call, const ScalarProgram* prog, const KernelAttr* map) {
  if (prog != nullptr) {
    if (IsIntAddSub(*prog)) return RunIntAddSub(call, *prog, map);
    if constexpr (kFastHalfConvert) {
      if (IsHalfConvert(*prog)) return RunHalfConvert(call, *prog, map);
      if (IsFloat16Elementwise(*prog)) return RunFloat16Elementwise(call, *prog, map);
    }
    if constexpr (kFastQuantized)
      if (IsQuantizedElementwise(*prog)) return RunQuantizedElementwise(call, *prog, map);
    if constexpr (kFastLanes32)
      if (IsLanes32Program(*prog)) return RunLanes32Program(call, *prog, map);
    if constexpr (kFastLanes64)
      if (IsLanes64Program(*prog)) return RunLanes64Program(call, *prog, map);
  }
  return ref::RunElementwiseProgram(call, prog, map);
}

}  // namespace

bool MakeElementwiseProblem(const KernelCall& call, const ScalarProgram* prog, const KernelAttr* map,
                            std::span<const int64_t> dims, ElementwiseProblem* out) {
  if (prog == nullptr || !Supported(*prog) || call.inputs.size() != prog->param_types.size()) return false;
  ElementwiseProblem& p = *out;
  p.program = prog;
  p.type = FloatTypeOf(*prog);
  // The reference's reading of the inputs (the axis map included), for an
  // output of `dims` (ElementwiseInputStrides reads only its dims).
  const TensorRef shape{p.type, dims, nullptr, 0};
  const KernelCall as_output{call.params, call.inputs, std::span<const TensorRef>(&shape, 1), call.runner};
  std::vector<std::vector<int64_t>> strides;
  std::vector<int64_t> offsets;
  if (!ref::ElementwiseInputStrides(as_output, map, &strides, &offsets).ok() || dims.size() > 16) return false;
  std::vector<int64_t> dense(dims.size(), 1);
  for (size_t a = dense.size(); a-- > 1;) dense[a - 1] = dense[a] * dims[a];
  p.out_dims.assign(dims.begin(), dims.end());
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const TensorRef& in = call.inputs[i];
    if (in.type != prog->param_types[i] || !StorageOk(in)) return false;
    const bool scalar = std::all_of(strides[i].begin(), strides[i].end(), [](int64_t s) { return s == 0; });
    bool full = true;  // read in place: the output's own layout
    for (size_t a = 0; a < dense.size(); ++a) full = full && (strides[i][a] == dense[a] || dims[a] == 1);
    p.input_offsets.push_back(offsets[i] * static_cast<int64_t>(StorageBytes(in.type)));
    p.inputs.push_back(in.data + p.input_offsets.back());
    p.input_is_scalar.push_back(scalar && !full);
    p.gather_strides.push_back(scalar || full ? std::vector<int64_t>{} : strides[i]);
  }
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  p.n = static_cast<size_t>(n);
  return true;
}

void RunElementwiseRange(const ElementwiseProblem& p, size_t begin, size_t end) {
  if (p.type == ElementType::kF32) {
    HWY_DYNAMIC_DISPATCH(RunElementwiseF32)(p, begin, end);
  } else {
#if !KILN_SELECTIVE_BUILD
    HWY_DYNAMIC_DISPATCH(RunElementwiseF64)(p, begin, end);
#endif
  }
}

namespace {

// Elements per task near `target`, in whole rows of the output where a row
// is shorter (the column form of chains, ChainColumns, takes whole rows);
// the split changes no element's result.
size_t TaskElements(const ElementwiseProblem& p, size_t target) {
  const size_t row = p.out_dims.empty() ? 0 : static_cast<size_t>(p.out_dims.back());
  return row == 0 || row > target ? target : target / row * row;
}

}  // namespace

void RunElementwiseRangeParallel(const ElementwiseProblem& p, size_t begin, size_t end, TaskRunner* runner) {
  const size_t kTask = TaskElements(p, size_t{1} << 15);
  const int64_t tasks = static_cast<int64_t>((end - begin + kTask - 1) / kTask);
  ParallelFor(runner, tasks, [&](int64_t t, int) {
    const size_t b = begin + static_cast<size_t>(t) * kTask;
    RunElementwiseRange(p, b, std::min(end, b + kTask));
  });
}

namespace {

// Results of at least this many bytes leave with non-temporal stores: half
// the last-level cache (Linux's sysfs; 8 MB where it does not say). A
// smaller result stays in cache for the op that reads it next; streamed,
// that op would read it back from memory (a 4 MB negate: 317-355 -> 211-263
// us per dispatch without streaming, `vm-bench --profile`).
size_t StreamingStoreMinBytes() {
  static const size_t bytes = [] {
    size_t largest = 0;
#if !KILN_SELECTIVE_BUILD && defined(__linux__)
    for (int index = 0; index < 8; ++index) {
      const std::string path = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size";
      std::FILE* f = std::fopen(path.c_str(), "r");
      if (f == nullptr) break;
      unsigned long value = 0;
      char unit = 0;
      const int got = std::fscanf(f, "%lu%c", &value, &unit);
      std::fclose(f);
      if (got < 1) continue;
      const size_t size = value << (unit == 'K' ? 10 : unit == 'M' ? 20 : 0);
      largest = std::max(largest, size);
    }
#endif
    return largest >= (size_t{1} << 20) ? largest / 2 : size_t{8} << 20;
  }();
  return bytes;
}

// An elementwise dispatch's problem for one signature of shapes (strides,
// checks, which inputs are broadcast), kept in the executable's state; the
// data pointers are set per call.
struct ElementwisePlan : KernelPlan {
  bool fast = false;  // false: the reference runs these shapes
  ElementwiseProblem problem;
};

bool PlanElementwise(const KernelCall& call, const ScalarProgram* prog, const KernelAttr* map, ElementwiseProblem* p) {
  if (prog == nullptr || call.outputs.size() != prog->results.size() || call.outputs.empty()) return false;
  const TensorRef& out0 = call.outputs[0];
  if (!MakeElementwiseProblem(call, prog, map, out0.dims, p)) return false;
  for (size_t o = 0; o < call.outputs.size(); ++o) {
    const TensorRef& out = call.outputs[o];
    if (out.type != p->type || !StorageOk(out) || !SameDims(out.dims, out0.dims)) return false;
    p->outputs.push_back(out.data);
  }
  p->stream = p->n * call.outputs.size() * StorageBytes(p->type) >= StreamingStoreMinBytes();
  return true;
}

}  // namespace

Status RunElementwiseProgram(const KernelCall& call, const ScalarProgram* prog, const KernelAttr* map) {
  // Any call the fast path does not take (or would refuse) goes to a kernel
  // of its own or the reference, which gives the error.
  // The checks and stride tables depend on the program and the shapes only:
  // built on the first dispatch of these shapes, then reused.
  PlanKey key(kPlanElementwise);
  key.AddPointer(prog).AddPointer(map);
  for (const TensorRef& t : call.inputs) AddShape(key, t);
  for (const TensorRef& t : call.outputs) AddShape(key, t);
  PlanLease<ElementwisePlan> lease(call.state, key);
  if (lease.get() == nullptr) {
    auto plan = std::make_unique<ElementwisePlan>();
    plan->fast = PlanElementwise(call, prog, map, &plan->problem);
    lease.Set(std::move(plan));
  }
  if (!lease.get()->fast) return RunOtherProgram(call, prog, map);
  ElementwiseProblem& p = lease.get()->problem;
  for (size_t i = 0; i < call.inputs.size(); ++i) p.inputs[i] = call.inputs[i].data + p.input_offsets[i];
  for (size_t o = 0; o < call.outputs.size(); ++o) p.outputs[o] = call.outputs[o].data;
  if (p.n == 0) return Status::Ok();
  // Each block's inputs are read before its outputs are written, so an
  // output may share its buffer with an input of the same shape.
  // Disjoint element ranges per task; each task has its own scratch.
  const size_t task = TaskElements(p, kTaskElements);
  const int64_t tasks = static_cast<int64_t>((p.n + task - 1) / task);
  ParallelFor(call.runner, tasks, [&](int64_t t, int) {
    const size_t begin = static_cast<size_t>(t) * task;
    RunElementwiseRange(p, begin, std::min(p.n, begin + task));
  });
  return Status::Ok();
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE

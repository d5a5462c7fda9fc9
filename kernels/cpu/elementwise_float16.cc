// kiln.elementwise programs on f16/bf16 values (a bf16 model's bias adds,
// activations and residuals), with the reference's results bit for bit.
// Values are held as f32 over blocks of elements, one instruction at a time:
//  - add, subtract, multiply, divide and sqrt run in f32 and are rounded to
//    the instruction's type (f16/bf16) after each: f32 has more than twice
//    their precision plus two bits, so rounding the f32 result equals
//    rounding the exact one, as the reference's f64 evaluation does; a NaN
//    result (which NaN of two is the hardware's choice) is the reference's
//    own evaluation of that element;
//  - maximum, minimum, clamp, negate, abs, select and converts are exact
//    (the reference's signed-zero and NaN rules);
//  - every other op (exp, tanh, compare, ...) is the reference's own
//    per-element evaluation (EvalScalarInstr), so it agrees by construction.
// Inputs are read in the output's layout, as one value, or through their
// strides (broadcasts); integer values and complex types run the reference.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/elementwise_float16.cc"
#include "kernels/cpu/thread_scratch.h"
#include "kernels/cpu/hwy_targets.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#ifndef KILN_CPU_ELEMENTWISE_FLOAT16_SHARED
#define KILN_CPU_ELEMENTWISE_FLOAT16_SHARED
#include "kernels/common/parallel.h"
#include "kernels/cpu/half_float.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernels.h"
#include "kernels/reference/elementwise_inputs.h"
#include "kernels/scalar/scalar.h"

namespace kiln::cpu {
namespace f16elem {

constexpr int64_t kBlock = 256;
constexpr int64_t kTask = 64 * kBlock;

bool Half(ElementType t) { return t == ElementType::kF16 || t == ElementType::kBF16; }
bool Held(ElementType t) { return Half(t) || t == ElementType::kF32 || t == ElementType::kI1; }

// The reference's maximum and minimum of floats (eval.cc FMax/FMin): a NaN
// operand wins, and +0 is above -0.
inline float Max(float a, float b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline float Min(float a, float b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}


// v rounded to type t (f32 values pass), as the reference's codec rounds.
void RoundBlock(ElementType t, float* v, int64_t len) {
  if (t == ElementType::kBF16) {
    for (int64_t i = 0; i < len; ++i) v[i] = BF16ToF32(F32ToBF16(v[i]));
  } else if (t == ElementType::kF16) {
    for (int64_t i = 0; i < len; ++i) v[i] = F16ToF32(F32ToF16(v[i]));
  }
}

// A held value as the reference's Scalar and back, through the type's bits
// (so a signaling NaN reaches the reference's evaluation as it would).
Scalar ToScalar(ElementType t, float v) {
  uint8_t b[4];
  if (t == ElementType::kI1) {
    b[0] = v != 0 ? 1 : 0;
  } else if (t == ElementType::kBF16) {
    const uint16_t h = F32ToBF16(v);
    std::memcpy(b, &h, 2);
  } else if (t == ElementType::kF16) {
    const uint16_t h = F32ToF16(v);
    std::memcpy(b, &h, 2);
  } else {
    std::memcpy(b, &v, 4);
  }
  return ref::LoadScalar(t, b);
}

float FromScalar(ElementType t, const Scalar& s) {
  uint8_t b[4] = {0, 0, 0, 0};
  ref::StoreScalar(t, s, b);
  uint16_t h;
  std::memcpy(&h, b, 2);
  if (t == ElementType::kI1) return (b[0] & 1) ? 1.0f : 0.0f;
  if (t == ElementType::kBF16) return BF16ToF32(h);
  if (t == ElementType::kF16) return F16ToF32(h);
  float f;
  std::memcpy(&f, b, 4);
  return f;
}

// How an input is read: in the output's layout, as one value, or gathered
// through its strides (a broadcast row or column).
enum class Read { kFull, kScalar, kGather };

// One call, for the per-target block evaluation.
struct Call {
  const KernelCall* call = nullptr;
  const ScalarProgram* prog = nullptr;
  std::vector<Read> read;
  std::vector<std::vector<int64_t>> strides;
  int64_t n = 0, rank = 0;
};

struct Float16BlockValues;  // ScratchLease tag: a task's block values

}  // namespace f16elem
}  // namespace kiln::cpu
#endif  // KILN_CPU_ELEMENTWISE_FLOAT16_SHARED

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {

// Task t's elements (kTask of them, in blocks of kBlock): plain loops,
// compiled for each Highway target (whose instruction set the compiler's
// vectoriser then uses).
void EvalFloat16T(const f16elem::Call& c, int64_t t) {
  using namespace f16elem;
  const KernelCall& call = *c.call;
  const ScalarProgram& prog = *c.prog;
  const auto& read = c.read;
  const auto& strides = c.strides;
  const int64_t n = c.n, rank = c.rank;
  const size_t np = prog.param_types.size(), nv = prog.num_values();
  const TensorRef& out0 = call.outputs[0];
  // The thread's kept buffer (aligned; no allocation per task).
  ScratchLease<Float16BlockValues, float> lease(nv * kBlock);
  float* const vals = lease.get();
  std::vector<int64_t> offsets(kBlock), index(static_cast<size_t>(rank));
  auto v = [&](size_t value) { return vals + value * kBlock; };
  for (int64_t b0 = t * kTask; b0 < std::min(n, (t + 1) * kTask); b0 += kBlock) {
    const int64_t len = std::min(kBlock, n - b0);
    for (size_t i = 0; i < np; ++i) {
      const ElementType pt = prog.param_types[i];
      const uint8_t* base = call.inputs[i].data;
      float* d = v(i);
      if (read[i] == Read::kGather) {
        // The block's elements through the input's strides: the index of
        // element b0, then stepped like an odometer.
        for (int64_t a = rank - 1, rest = b0; a >= 0; --a) {
          index[a] = rest % out0.dims[a];
          rest /= out0.dims[a];
        }
        int64_t off = 0;
        for (int64_t a = 0; a < rank; ++a) off += index[a] * strides[i][a];
        for (int64_t k = 0; k < len; ++k) {
          offsets[k] = off;
          for (int64_t a = rank - 1; a >= 0; --a) {
            off += strides[i][a];
            if (++index[a] < out0.dims[a]) break;
            off -= index[a] * strides[i][a];
            index[a] = 0;
          }
        }
        for (int64_t k = 0; k < len; ++k) {
          const int64_t o = offsets[k];
          if (pt == ElementType::kF32) {
            d[k] = reinterpret_cast<const float*>(base)[o];
          } else if (pt == ElementType::kI1) {
            d[k] = (base[o] & 1) ? 1.0f : 0.0f;
          } else {
            const uint16_t h = reinterpret_cast<const uint16_t*>(base)[o];
            d[k] = pt == ElementType::kBF16 ? BF16ToF32(h) : F16ToF32(h);
          }
        }
        continue;
      }
      const bool one = read[i] == Read::kScalar;
      const int64_t at = one ? 0 : b0;
      const int64_t count = one ? 1 : len;
      if (pt == ElementType::kF32) {
        std::copy_n(reinterpret_cast<const float*>(base) + at, count, d);
      } else if (pt == ElementType::kI1) {
        for (int64_t k = 0; k < count; ++k) d[k] = (base[at + k] & 1) ? 1.0f : 0.0f;
      } else {
        WidenToF32(reinterpret_cast<const uint16_t*>(base) + at, pt == ElementType::kBF16, count, d);
      }
      if (one) std::fill(d + 1, d + len, d[0]);
    }
    for (size_t k = 0; k < prog.instrs.size(); ++k) {
      const ScalarInstr& in = prog.instrs[k];
      float* r = v(np + k);
      const float* a = in.num_operands > 0 ? v(in.operands[0]) : nullptr;
      const float* b = in.num_operands > 1 ? v(in.operands[1]) : nullptr;
      const float* c = in.num_operands > 2 ? v(in.operands[2]) : nullptr;
      switch (in.op) {
        case ScalarOp::kConstant: std::fill(r, r + len, FromScalar(in.type, in.constant)); break;
        case ScalarOp::kConvert:  // i1 is held as 0/1; a float's narrowing is the rounding below
          if (in.type == ElementType::kI1) {
            for (int64_t i = 0; i < len; ++i) r[i] = a[i] != 0 ? 1.0f : 0.0f;
          } else {
            std::copy(a, a + len, r);
          }
          break;
        case ScalarOp::kAdd: for (int64_t i = 0; i < len; ++i) r[i] = a[i] + b[i]; break;
        case ScalarOp::kSubtract: for (int64_t i = 0; i < len; ++i) r[i] = a[i] - b[i]; break;
        case ScalarOp::kMultiply: for (int64_t i = 0; i < len; ++i) r[i] = a[i] * b[i]; break;
        case ScalarOp::kDivide: for (int64_t i = 0; i < len; ++i) r[i] = a[i] / b[i]; break;
        case ScalarOp::kSqrt: for (int64_t i = 0; i < len; ++i) r[i] = std::sqrt(a[i]); break;
        case ScalarOp::kMaximum: for (int64_t i = 0; i < len; ++i) r[i] = Max(a[i], b[i]); break;
        case ScalarOp::kMinimum: for (int64_t i = 0; i < len; ++i) r[i] = Min(a[i], b[i]); break;
        case ScalarOp::kClamp: for (int64_t i = 0; i < len; ++i) r[i] = Min(Max(b[i], a[i]), c[i]); break;
        case ScalarOp::kNegate: for (int64_t i = 0; i < len; ++i) r[i] = -a[i]; break;
        case ScalarOp::kAbs: for (int64_t i = 0; i < len; ++i) r[i] = std::fabs(a[i]); break;
        case ScalarOp::kSelect: for (int64_t i = 0; i < len; ++i) r[i] = a[i] != 0 ? b[i] : c[i]; break;
        default: {
          // The reference's evaluation, element by element.
          ElementType types[3];
          for (int o = 0; o < in.num_operands; ++o) types[o] = prog.ValueType(in.operands[o]);
          Scalar ops[3];
          for (int64_t i = 0; i < len; ++i) {
            for (int o = 0; o < in.num_operands; ++o) ops[o] = ToScalar(types[o], v(in.operands[o])[i]);
            r[i] = FromScalar(in.type, ref::EvalScalarInstr(in, types, ops));
          }
          continue;  // already of its type
        }
      }
      const bool arithmetic = in.op == ScalarOp::kAdd || in.op == ScalarOp::kSubtract ||
                              in.op == ScalarOp::kMultiply || in.op == ScalarOp::kDivide || in.op == ScalarOp::kSqrt;
      if (arithmetic) {
        // Which NaN an operation returns when its operands hold NaNs is
        // the hardware's and the compiler's choice: NaN results are the
        // reference's own evaluation.
        ElementType types[2];
        for (int o = 0; o < in.num_operands; ++o) types[o] = prog.ValueType(in.operands[o]);
        for (int64_t i = 0; i < len; ++i) {
          if (r[i] == r[i]) continue;
          Scalar ops[2];
          for (int o = 0; o < in.num_operands; ++o) ops[o] = ToScalar(types[o], v(in.operands[o])[i]);
          r[i] = FromScalar(in.type, ref::EvalScalarInstr(in, types, ops));
        }
      }
      if (in.type == ElementType::kBF16 || in.type == ElementType::kF16) RoundBlock(in.type, r, len);
    }
    for (size_t o = 0; o < prog.results.size(); ++o) {
      const ElementType rt = prog.ValueType(prog.results[o]);
      const float* x = v(prog.results[o]);
      uint8_t* dst = call.outputs[o].data;
      if (rt == ElementType::kF32) {
        std::copy_n(x, len, reinterpret_cast<float*>(dst) + b0);
      } else if (rt == ElementType::kI1) {
        for (int64_t i = 0; i < len; ++i) dst[b0 + i] = x[i] != 0 ? 1 : 0;
      } else if (rt == ElementType::kBF16) {
        for (int64_t i = 0; i < len; ++i) reinterpret_cast<uint16_t*>(dst)[b0 + i] = F32ToBF16(x[i]);
      } else {
        for (int64_t i = 0; i < len; ++i) reinterpret_cast<uint16_t*>(dst)[b0 + i] = F32ToF16(x[i]);
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(EvalFloat16T);

using namespace f16elem;

bool IsFloat16Elementwise(const ScalarProgram& prog) {
  const size_t np = prog.param_types.size();
  if (np == 0 || prog.results.empty()) return false;
  bool any_half = false;
  for (size_t v = 0; v < prog.num_values(); ++v) {
    const ElementType t = prog.ValueType(v);
    if (!Held(t)) return false;
    any_half |= Half(t);
  }
  if (!any_half) return false;
  for (uint16_t r : prog.results)
    if (r >= prog.num_values()) return false;
  for (size_t k = 0; k < prog.instrs.size(); ++k) {
    const ScalarInstr& in = prog.instrs[k];
    const int arity = ScalarOpArity(in.op);
    if (arity < 0 || in.num_operands != arity) return false;
    for (int o = 0; o < arity; ++o)
      if (in.operands[o] >= np + k) return false;
    // A constant is held as its type's value; one that is not exactly a
    // value of its type (a module may write any f64 there, which the
    // reference uses as written) stays with the reference.
    if (in.op == ScalarOp::kConstant &&
        (in.type == ElementType::kI1 || !(ref::RoundToFloatType(in.type, in.constant.re) == in.constant.re)))
      return false;
  }
  return true;
}

Status RunFloat16Elementwise(const KernelCall& call, const ScalarProgram& prog, const KernelAttr* map) {
  auto reference = [&] { return ref::RunElementwiseProgram(call, &prog, map); };
  const size_t np = prog.param_types.size();
  if (call.inputs.size() != np || call.outputs.size() != prog.results.size()) return reference();
  const TensorRef& out0 = call.outputs[0];
  if (out0.dims.size() > 16) return reference();
  for (size_t r = 0; r < prog.results.size(); ++r)
    if (!StorageOk(call.outputs[r], prog.ValueType(prog.results[r])) ||
        !std::equal(call.outputs[r].dims.begin(), call.outputs[r].dims.end(), out0.dims.begin(), out0.dims.end()))
      return reference();
  for (size_t i = 0; i < np; ++i)
    if (!StorageOk(call.inputs[i], prog.param_types[i])) return reference();
  std::vector<std::vector<int64_t>> strides;
  if (!ref::ElementwiseInputStrides(KernelCall{call.params, call.inputs, call.outputs.subspan(0, 1), call.runner}, map,
                                    &strides)
           .ok())
    return reference();
  std::vector<int64_t> dense(out0.dims.size(), 1);
  for (size_t a = dense.size(); a-- > 1;) dense[a - 1] = dense[a] * out0.dims[a];
  std::vector<Read> read(np);
  for (size_t i = 0; i < np; ++i) {
    bool full = true, zero = true;
    for (size_t a = 0; a < dense.size(); ++a) {
      full = full && (strides[i][a] == dense[a] || out0.dims[a] == 1);
      zero = zero && strides[i][a] == 0;
    }
    read[i] = full ? Read::kFull : zero ? Read::kScalar : Read::kGather;
  }
  const int64_t rank = static_cast<int64_t>(out0.dims.size());
  const int64_t n = out0.NumElements();
  if (n == 0) return Status::Ok();
  Call c;
  c.call = &call, c.prog = &prog, c.read = read, c.strides = strides, c.n = n, c.rank = rank;
  auto eval = HWY_DYNAMIC_DISPATCH(EvalFloat16T);
  ParallelFor(n >= 4 * kTask ? call.runner : nullptr, (n + kTask - 1) / kTask, [&](int64_t t, int) { eval(c, t); });
  return Status::Ok();
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE

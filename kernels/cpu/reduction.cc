// Fast stablehlo.reduce for one f32 or f64 operand whose body is a single
// add, maximum or minimum of its two parameters, over axes that form one
// contiguous block of the operand's dims (what softmax, layer norms, means
// and pooling heads use; anything else runs the reference kernel).
//
// The operand is viewed as [outer, R, inner] (R = the reduced block). Each
// result element folds its R inputs in increasing order starting from the
// init value, exactly as the reference does, so results are bit-identical:
//  - inner > 1: SIMD across `inner` (neighbouring results), sequential in R;
//  - inner == 1, maximum/minimum: SIMD across R (these are associative and
//    commutative, NaN and signed zeros included), then across lanes;
//  - inner == 1, add: a sequential scalar sum (f32 addition is not
//    associative; this keeps the reference's order and rounding).
// Work is split over the thread pool by result rows.
#include <algorithm>
#include <cstring>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/reduction.cc"
#include "kernels/cpu/hwy_targets.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/cpu/float_ops-inl.h"

#ifndef KILN_CPU_REDUCTION_SHARED
#define KILN_CPU_REDUCTION_SHARED
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cpu/reduce_body.h"

namespace kiln::cpu {

struct ReduceProblem {
  const void* in = nullptr;
  void* out = nullptr;
  const void* init = nullptr;
  size_t outer = 0, r = 0, inner = 0;
  size_t row_begin = 0, row_end = 0;  // the outer rows of this task
  ReduceOp op = ReduceOp::kAdd;
};

}  // namespace kiln::cpu
#endif  // KILN_CPU_REDUCTION_SHARED

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <typename T>
void ReduceRows(const ReduceProblem& p) {
  const hn::ScalableTag<T> d;
  const hn::CappedTag<T, 1> d1;
  const size_t N = hn::Lanes(d);
  const T* in = static_cast<const T*>(p.in);
  T* out = static_cast<T*>(p.out);
  T init;
  std::memcpy(&init, p.init, sizeof(T));
  for (size_t o = p.row_begin; o < p.row_end; ++o) {
    const T* base = in + o * p.r * p.inner;
    T* dst = out + o * p.inner;
    if (p.inner > 1) {
      size_t i = 0;
      for (; i + N <= p.inner; i += N) {
        auto acc = hn::Set(d, init);
        for (size_t r = 0; r < p.r; ++r) acc = Combine(d, p.op, acc, hn::LoadU(d, base + r * p.inner + i));
        hn::StoreU(acc, d, dst + i);
      }
      for (; i < p.inner; ++i) {
        auto acc = hn::Set(d1, init);
        for (size_t r = 0; r < p.r; ++r) acc = Combine(d1, p.op, acc, hn::Set(d1, base[r * p.inner + i]));
        dst[i] = hn::GetLane(acc);
      }
    } else if (p.op == ReduceOp::kAdd) {
      T acc = init;
      for (size_t r = 0; r < p.r; ++r) acc += base[r];
      dst[0] = acc;
    } else {
      auto acc = hn::Set(d, init);
      size_t r = 0;
      for (; r + N <= p.r; r += N) acc = Combine(d, p.op, acc, hn::LoadU(d, base + r));
      auto one = hn::Set(d1, init);
      for (size_t lane = 0; lane < N; ++lane) one = Combine(d1, p.op, one, hn::Set(d1, hn::ExtractLane(acc, lane)));
      for (; r < p.r; ++r) one = Combine(d1, p.op, one, hn::Set(d1, base[r]));
      dst[0] = hn::GetLane(one);
    }
  }
}

void ReduceF32(const ReduceProblem& p) { ReduceRows<float>(p); }
void ReduceF64(const ReduceProblem& p) { ReduceRows<double>(p); }

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(ReduceF32);
HWY_EXPORT(ReduceF64);

bool ReduceBodyOp(const ScalarProgram& prog, ReduceOp* op, ElementType* type) {
  const ElementType t = prog.param_types.empty() ? ElementType::kInvalid : prog.param_types[0];
  if (t != ElementType::kF32 && t != ElementType::kF64) return false;
  switch (prog.AsStandardReduction()) {
    case ScalarOp::kAdd: *op = ReduceOp::kAdd; break;
    case ScalarOp::kMaximum: *op = ReduceOp::kMax; break;
    case ScalarOp::kMinimum: *op = ReduceOp::kMin; break;
    default: return false;
  }
  *type = t;
  return true;
}

bool ReduceApplies(const KernelParams& params) {
  const ScalarProgram* body = params.Program("body");
  ReduceOp op;
  ElementType t;
  return body != nullptr && ReduceBodyOp(*body, &op, &t);
}

Status Reduce(const KernelCall& call) {
  const ScalarProgram* body = call.params.Program("body");
  ReduceOp op;
  ElementType t;
  if (body == nullptr || !ReduceBodyOp(*body, &op, &t) || call.inputs.size() != 2 || call.outputs.size() != 1)
    return RunReference(call);
  const TensorRef& in = call.inputs[0];
  const TensorRef& init = call.inputs[1];
  const TensorRef& out = call.outputs[0];
  if (!StorageOk(in, t) || !StorageOk(init, t) || init.rank() != 0 || !StorageOk(out, t)) return RunReference(call);
  // The reduced axes: valid, distinct, and one contiguous block.
  const int64_t rank = in.rank();
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t a : call.params.Ints("dimensions")) {
    if (a < 0 || a >= rank || reduced[a]) return RunReference(call);
    reduced[a] = true;
  }
  int64_t first = rank, last = -1;
  for (int64_t a = 0; a < rank; ++a)
    if (reduced[a]) first = std::min(first, a), last = a;
  for (int64_t a = first; a <= last; ++a)
    if (!reduced[a]) return RunReference(call);
  std::vector<int64_t> out_dims;
  size_t outer = 1, r = 1, inner = 1;
  for (int64_t a = 0; a < rank; ++a) {
    const size_t dim = static_cast<size_t>(in.dims[a]);
    if (reduced[a]) {
      r *= dim;
    } else {
      out_dims.push_back(in.dims[a]);
      (a < first ? outer : inner) *= dim;
    }
  }
  if (!std::equal(out_dims.begin(), out_dims.end(), out.dims.begin(), out.dims.end())) return RunReference(call);
  if (out.NumElements() == 0) return Status::Ok();
  ReduceProblem p;
  p.in = in.data;
  p.out = out.data;
  p.init = init.data;
  p.outer = outer;
  p.r = r;
  p.inner = inner;
  p.op = op;
  // About 64K inputs per task.
  const size_t per_row = std::max<size_t>(1, r * inner);
  const size_t rows_per_task = std::max<size_t>(1, (size_t{1} << 16) / per_row);
  const int64_t tasks = static_cast<int64_t>((outer + rows_per_task - 1) / rows_per_task);
  ParallelFor(call.runner, tasks, [&](int64_t task, int) {
    ReduceProblem q = p;
    q.row_begin = static_cast<size_t>(task) * rows_per_task;
    q.row_end = std::min(outer, q.row_begin + rows_per_task);
    if (t == ElementType::kF32) {
      HWY_DYNAMIC_DISPATCH(ReduceF32)(q);
    } else {
      HWY_DYNAMIC_DISPATCH(ReduceF64)(q);
    }
  });
  return Status::Ok();
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE

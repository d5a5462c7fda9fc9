// Per-target SIMD helpers shared by the kernels/cpu kernels that must agree
// with the reference bit for bit. Included inside HWY_BEFORE_NAMESPACE /
// per-target compilation (foreach_target re-includes it once per target).
#if defined(KILN_CPU_FLOAT_OPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KILN_CPU_FLOAT_OPS_INL_H_
#undef KILN_CPU_FLOAT_OPS_INL_H_
#else
#define KILN_CPU_FLOAT_OPS_INL_H_
#endif

#include "hwy/highway.h"
#include "kernels/cpu/reduce_body.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// maximum/minimum as the reference: a NaN operand is the result (lhs first);
// equal values pick +0 for maximum and -0 for minimum. Equal values are
// combined bitwise: x & x = x, and +0 & -0 = +0 (| gives -0), so signed
// zeros need no test of their own. A NaN makes both comparisons false, so
// the first blend picks b, which is right when b is the NaN; the last
// blend puts back a NaN a.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V MaxLikeReference(D, V a, V b) {
  V r = hn::IfThenElse(hn::Gt(a, b), a, b);
  r = hn::IfThenElse(hn::Eq(a, b), hn::And(a, b), r);
  return hn::IfThenElse(hn::IsNaN(a), a, r);
}
template <class D, class V = hn::Vec<D>>
HWY_INLINE V MinLikeReference(D, V a, V b) {
  V r = hn::IfThenElse(hn::Lt(a, b), a, b);
  r = hn::IfThenElse(hn::Eq(a, b), hn::Or(a, b), r);
  return hn::IfThenElse(hn::IsNaN(a), a, r);
}

// acc (+)= x for a reduction body (reduce_body.h), exactly as the reference
// folds body(acc, x).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V Combine(D d, ReduceOp op, V acc, V x) {
  switch (op) {
    case ReduceOp::kAdd: return hn::Add(acc, x);
    case ReduceOp::kMax: return MaxLikeReference(d, acc, x);
    case ReduceOp::kMin: return MinLikeReference(d, acc, x);
  }
  return acc;
}

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#endif  // KILN_CPU_FLOAT_OPS_INL_H_

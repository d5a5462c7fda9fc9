// The f32 transcendental functions of the CPU elementwise kernel
// (elementwise.cc) and the four-vector step that overlaps their dependency
// chains: exp, log, tanh, logistic and erf, with the error bounds stated at
// each.
// Per target (foreach_target re-includes it once per target), as
// float_ops-inl.h.
#if defined(KILN_CPU_ELEMENTWISE_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef KILN_CPU_ELEMENTWISE_MATH_INL_H_
#undef KILN_CPU_ELEMENTWISE_MATH_INL_H_
#else
#define KILN_CPU_ELEMENTWISE_MATH_INL_H_
#endif

#include <cstddef>
#include <limits>

#include "hwy/highway.h"
#include "hwy/contrib/math/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// Four vectors per step: the transcendental functions are long dependency
// chains, and interleaving independent ones keeps the FP units busy where a
// single chain would wait on latency (the tanh chain of benchmarks/ runs
// 1.2x faster in cache on the 2-core AVX-512 test machine).
template <class D, class F, typename T = hn::TFromD<D>>
HWY_INLINE void FourAt(D d, const T* HWY_RESTRICT a, T* HWY_RESTRICT dst, size_t i, F f) {
  const size_t N = hn::Lanes(d);
  const auto y0 = f(hn::LoadU(d, a + i));
  const auto y1 = f(hn::LoadU(d, a + i + N));
  const auto y2 = f(hn::LoadU(d, a + i + 2 * N));
  const auto y3 = f(hn::LoadU(d, a + i + 3 * N));
  hn::Store(y0, d, dst + i);
  hn::Store(y1, d, dst + i + N);
  hn::Store(y2, d, dst + i + 2 * N);
  hn::Store(y3, d, dst + i + 3 * N);
}

template <class D, class F, typename T = hn::TFromD<D>>
HWY_INLINE void Unary(D d, const T* HWY_RESTRICT a, T* HWY_RESTRICT dst, size_t count, F f) {
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + 4 * N <= count; i += 4 * N) FourAt(d, a, dst, i, f);
  for (; i < count; i += N) hn::Store(f(hn::LoadU(d, a + i)), d, dst + i);
}

// exp written out (~26 vector ops instead of ~42 for hn::Exp and the
// patches its results needed; exp is most of softmax's time): with
// k = round(x / ln2) and r = x - k ln2 in [-ln2/2, ln2/2] (Cody-Waite, the
// high part of ln2 has 16 significant bits so k times it is exact),
// exp(x) = 2^k exp(r), exp(r) by its degree-7 Taylor polynomial (truncation
// below 1e-8 relative) in Horner form, the last step 1 + r q rounding once.
// 2^k is applied as 2^(k - k/2) 2^(k/2), both normal for every k in
// [-150, 128], so results in the subnormal range are rounded once. x is
// clamped to [-104, 88.8] first: below -104 the result rounds to +0, from
// 88.72283935546875 (the first float whose exp rounds to inf) it is inf;
// NaN comes back as itself.
HWY_INLINE VF Exp(DF d, VF x) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  // AVX-512 applies 2^k with one vscalefps: it rounds p 2^k once, also into
  // the subnormal range, so the result is the two-step product's below bit
  // for bit, in 16 vector ops instead of 26. No upper clamp: every x from
  // 88.72283935546875 on is replaced by inf, whatever r came to. max(-104, x)
  // keeps a NaN x (vmaxps returns its second operand when either is NaN).
  const __m512 xc = _mm512_max_ps(_mm512_set1_ps(-104.0f), x.raw);
  const __m512 kMagic = _mm512_set1_ps(12582912.0f);
  const __m512 k = _mm512_sub_ps(_mm512_fmadd_ps(xc, _mm512_set1_ps(1.44269502f), kMagic), kMagic);
  __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693145751953125f), xc);
  r = _mm512_fnmadd_ps(k, _mm512_set1_ps(1.42860677e-06f), r);
  __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(1.0f / 5040), r, _mm512_set1_ps(1.0f / 720));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(1.0f / 120));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(1.0f / 24));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(1.0f / 6));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(0.5f));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(1.0f));
  __m512 y = _mm512_scalef_ps(_mm512_fmadd_ps(q, r, _mm512_set1_ps(1.0f)), k);
  y = _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x.raw, _mm512_set1_ps(88.72283935546875f), _CMP_GE_OQ),
                         _mm512_set1_ps(std::numeric_limits<float>::infinity()));
  (void)d;
  return VF{_mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x.raw, x.raw, _CMP_UNORD_Q), x.raw)};
#else
  const hn::RebindToSigned<DF> di;
  const VF xc = hn::Min(hn::Max(x, hn::Set(d, -104.0f)), hn::Set(d, 88.8f));
  // x / ln2 + 1.5 * 2^23 rounds to the integer k, held in the low mantissa bits.
  const VF kMagic = hn::Set(d, 12582912.0f);
  const VF z = hn::MulAdd(xc, hn::Set(d, 1.44269502f), kMagic);
  const VF k = hn::Sub(z, kMagic);
  VF r = hn::NegMulAdd(k, hn::Set(d, 0.693145751953125f), xc);
  r = hn::NegMulAdd(k, hn::Set(d, 1.42860677e-06f), r);
  VF q = hn::MulAdd(hn::Set(d, 1.0f / 5040), r, hn::Set(d, 1.0f / 720));
  q = hn::MulAdd(q, r, hn::Set(d, 1.0f / 120));
  q = hn::MulAdd(q, r, hn::Set(d, 1.0f / 24));
  q = hn::MulAdd(q, r, hn::Set(d, 1.0f / 6));
  q = hn::MulAdd(q, r, hn::Set(d, 0.5f));
  q = hn::MulAdd(q, r, hn::Set(d, 1.0f));
  const VF p = hn::MulAdd(q, r, hn::Set(d, 1.0f));
  const auto ki = hn::Sub(hn::BitCast(di, z), hn::BitCast(di, kMagic));
  const auto k1 = hn::ShiftRight<1>(ki);
  const auto bias = hn::Set(di, 127);
  const VF s1 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(k1, bias)));
  const VF s2 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hn::Sub(ki, k1), bias)));
  VF y = hn::Mul(hn::Mul(p, s1), s2);
  y = hn::IfThenElse(hn::Ge(x, hn::Set(d, 88.72283935546875f)), hn::Set(d, std::numeric_limits<float>::infinity()), y);
  return hn::IfThenElse(hn::IsNaN(x), x, y);
#endif
}

HWY_INLINE VF Log(DF d, VF x) {
  const VF inf = hn::Set(d, std::numeric_limits<float>::infinity());
  VF r = hn::Log(d, x);
  r = hn::IfThenElse(hn::Eq(x, inf), inf, r);
  r = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), hn::Neg(inf), r);
  r = hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Set(d, std::numeric_limits<float>::quiet_NaN()), r);
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}

// tanh(x) = sign(x) m / (m + 2) with m = expm1(2|x|), written out instead of
// hn::Tanh (an hn::Expm1 with its range selects, lower bound and two-step 2^k
// scaling, then our clamp and NaN selects): ~21 vector ops and one divide
// instead of ~45, ~1.5x faster in cache, so that the 16M-element tanh chain of
// benchmarks/ is about memory-bound. With a = |x|, k = round(2a / ln2) and
// r = a - k ln2/2 in [-ln2/4, ln2/4] (Cody-Waite; k times the high part is
// exact, also without FMA): m = 2^k (1 + p) - 1 = 2^k p + (2^k - 1) and
// p = expm1(2r) = 2r + r^2 S(r), S a degree-4 minimax fit (relative error
// 1.6e-8). k = 0 gives m = p, so small x keep full relative precision (tiny x
// come back exactly); NaN flows through the arithmetic and the sign goes back
// on with Xor (-0 stays -0). Max error over all f32 inputs, measured
// exhaustively against the correctly rounded tanh: 3 ULP (one input, near
// 0.0624; the rest at most 2) on AVX3 and AVX2, 3 ULP (12 inputs) on SSE4
// and EMU128; hn::Tanh had 3 ULP (2506 inputs).
HWY_INLINE VF Tanh(DF d, VF x) {
  const hn::RebindToSigned<DF> di;
  const VF sign = hn::And(x, hn::SignBit(d));
  const VF a = hn::Xor(x, sign);
  // a * 2/ln2 + 1.5 * 2^23 rounds to the integer k, held in the low mantissa bits.
  const VF kMagic = hn::Set(d, 12582912.0f);
  const VF z = hn::MulAdd(a, hn::Set(d, 2.88539004f), kMagic);
  const VF k = hn::Sub(z, kMagic);
  VF r = hn::NegMulAdd(k, hn::Set(d, 0.3465728759765625f), a);  // ln2/2, 17 significant bits
  r = hn::NegMulAdd(k, hn::Set(d, 7.14303383e-07f), r);            // ln2/2 - the above
  VF s = hn::MulAdd(hn::Set(d, 0.0889507979f), r, hn::Set(d, 0.267755061f));
  s = hn::MulAdd(s, r, hn::Set(d, 0.666669905f));
  s = hn::MulAdd(s, r, hn::Set(d, 1.33332312f));
  s = hn::MulAdd(s, r, hn::Set(d, 2.0f));
  const VF p = hn::MulAdd(hn::Mul(r, r), s, hn::Add(r, r));
  // 2^k from the bits of z: (k + 127) << 23 (the magic's own bits shift out).
  const VF scale = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hn::BitCast(di, z), hn::Set(di, 127))));
  const VF m = hn::MulAdd(scale, p, hn::Sub(scale, hn::Set(d, 1.0f)));
  VF t = hn::Div(m, hn::Add(m, hn::Set(d, 2.0f)));
  // f32 tanh rounds to 1 from 9.0109 (13 ln2 / 2) on; larger a (and inf)
  // would overflow 2^k.
  t = hn::IfThenElse(hn::Gt(a, hn::Set(d, 10.0f)), hn::Set(d, 1.0f), t);
  return hn::Xor(t, sign);
}

// 1 / (1 + exp(-x)), from e = exp(-|x|) in (0, 1]: x >= 0 gives 1/(1+e),
// x < 0 gives e/(1+e), so exp never overflows.
HWY_INLINE VF Logistic(DF d, VF x) {
  const VF one = hn::Set(d, 1.0f);
  const VF e = Exp(d, hn::Neg(hn::Abs(x)));
  const VF den = hn::Add(one, e);
  VF r = hn::Div(hn::IfThenElse(hn::Lt(x, hn::Zero(d)), e, one), den);
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}

// erf, odd, from a = |x|: below 1, a * PA(a^2), PA of degree 6 fitted by
// relative least squares to erf(a) / a on Chebyshev nodes; from 1 to 3.92,
// PB(a - 2.46), PB of degree 12 fitted by least squares to erf on Chebyshev
// nodes of [1, 3.92]; from 3.92 on, 1 (erf rounds to 1 in f32 there). No
// exp: about 25 vector ops. The sign of x copied back (-0 stays -0); NaN
// comes back as itself. At most 2 ULP from the correctly rounded value
// over the tests' sweeps (an f32 model of the evaluation: 2 ULP below 1,
// 1 ULP above).
HWY_INLINE VF Erf(DF d, VF x) {
  const VF a = hn::Abs(x);
  const VF z = hn::Mul(a, a);
  VF pa = hn::Set(d, 7.847259257687256e-05f);
  pa = hn::MulAdd(pa, z, hn::Set(d, -0.0008008189615793526f));
  pa = hn::MulAdd(pa, z, hn::Set(d, 0.005188099108636379f));
  pa = hn::MulAdd(pa, z, hn::Set(d, -0.026853691786527634f));
  pa = hn::MulAdd(pa, z, hn::Set(d, 0.1128358244895935f));
  pa = hn::MulAdd(pa, z, hn::Set(d, -0.3761262595653534f));
  pa = hn::MulAdd(pa, z, hn::Set(d, 1.1283791065216064f));
  pa = hn::Mul(a, pa);
  // Every lane below 1 (the common case: an activation's inputs): the
  // second polynomial is not needed. NaN lanes fail the test and take the
  // full path. (Speed only: not in selective builds.)
  if (!KILN_SELECTIVE_BUILD && hn::AllTrue(d, hn::Lt(a, hn::Set(d, 1.0f)))) return hn::CopySign(pa, x);
  const VF top = hn::Set(d, 3.92f);
  const VF u = hn::Sub(hn::Min(a, top), hn::Set(d, 2.46f));
  VF pb = hn::Set(d, -9.166920790448785e-06f);
  pb = hn::MulAdd(pb, u, hn::Set(d, 2.5363142412970774e-05f));
  pb = hn::MulAdd(pb, u, hn::Set(d, 5.1896404329454526e-05f));
  pb = hn::MulAdd(pb, u, hn::Set(d, -0.00030136696295812726f));
  pb = hn::MulAdd(pb, u, hn::Set(d, 0.0003906787314917892f));
  pb = hn::MulAdd(pb, u, hn::Set(d, 0.0004615696961991489f));
  pb = hn::MulAdd(pb, u, hn::Set(d, -0.002963119884952903f));
  pb = hn::MulAdd(pb, u, hn::Set(d, 0.00679815374314785f));
  pb = hn::MulAdd(pb, u, hn::Set(d, -0.009904964827001095f));
  pb = hn::MulAdd(pb, u, hn::Set(d, 0.009832828305661678f));
  pb = hn::MulAdd(pb, u, hn::Set(d, -0.006535748485475779f));
  pb = hn::MulAdd(pb, u, hn::Set(d, 0.0026562088169157505f));
  pb = hn::MulAdd(pb, u, hn::Set(d, 0.9994966983795166f));
  const VF big = hn::IfThenElse(hn::Ge(a, top), hn::Set(d, 1.0f), pb);
  const VF r = hn::CopySign(hn::IfThenElse(hn::Lt(a, hn::Set(d, 1.0f)), pa, big), x);
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard

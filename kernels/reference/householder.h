// Householder reflectors as LAPACK builds them (larfg), shared by the
// reference factorizations (kernels/reference/linalg.cc: geqrf, orgqr) and
// reductions (kernels/reference/linalg_condensed.cc: gehrd, sytrd/hetrd),
// in the element type T, real or complex: H = I - tau v v^H with v(0) = 1.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace kiln::ref::householder {

// T's real type: T itself for float and double, the part type of a
// std::complex.
template <typename T>
using RealOf = decltype(std::real(T{}));

template <typename T>
T Conj(const T& x) {
  if constexpr (std::is_floating_point_v<T>) {
    return x;
  } else {
    return std::conj(x);
  }
}

// ||x|| of `len` elements `step` apart, accumulated in long double and
// rounded once (LAPACK's nrm2 is accurate to about that).
template <typename T>
RealOf<T> Norm2(const T* x, int64_t len, int64_t step) {
  long double sum = 0;
  for (int64_t i = 0; i < len; ++i) {
    const long double v = std::abs(x[i * step]);
    sum += v * v;
  }
  return static_cast<RealOf<T>>(std::sqrt(sum));
}

// LAPACK's larfg on alpha and x (len elements, `step` apart): returns tau
// and leaves beta in alpha and v(1:) in x, so that H^H (alpha, x) =
// (beta, 0) with beta real; tau = 0 (H = I) when x is zero and alpha real.
// An empty x (len 0) still turns a complex alpha real, as LAPACK's larfg
// with n = 1 does: the last reflector of a complex QR leaves R's last
// diagonal entry real.
template <typename T>
T Larfg(T* alpha, T* x, int64_t len, int64_t step) {
  using R = RealOf<T>;
  if (len < 0) return T(0);
  R xnorm = Norm2(x, len, step);
  if (xnorm == 0 && std::imag(*alpha) == 0) return T(0);
  // beta = -sign(re alpha) ||(alpha, x)||.
  auto signed_norm = [&xnorm](T alpha) {
    const R ar = std::real(alpha), ai = std::imag(alpha);
    const R norm = std::is_floating_point_v<T> ? std::hypot(ar, xnorm) : std::hypot(ar, ai, xnorm);
    return -std::copysign(norm, ar);
  };
  R beta = signed_norm(*alpha);
  const R safmin = std::numeric_limits<R>::min() / std::numeric_limits<R>::epsilon();
  int knt = 0;
  if (std::abs(beta) < safmin) {  // beta and x may be inaccurate: rescale, as LAPACK does
    const R rsafmn = R(1) / safmin;
    do {
      ++knt;
      for (int64_t i = 0; i < len; ++i) x[i * step] *= rsafmn;
      beta *= rsafmn;
      *alpha *= rsafmn;
    } while (std::abs(beta) < safmin && knt < 20);
    xnorm = Norm2(x, len, step);
    beta = signed_norm(*alpha);
  }
  T tau;
  T scale;
  if constexpr (std::is_floating_point_v<T>) {
    tau = (beta - *alpha) / beta;
    scale = T(1) / (*alpha - beta);
  } else {
    tau = T((beta - std::real(*alpha)) / beta, -std::imag(*alpha) / beta);
    scale = T(1) / (*alpha - beta);
  }
  for (int64_t i = 0; i < len; ++i) x[i * step] *= scale;
  for (int j = 0; j < knt; ++j) beta *= safmin;
  *alpha = T(beta);
  return tau;
}

}  // namespace kiln::ref::householder

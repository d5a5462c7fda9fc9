// Householder reflectors as LAPACK builds them (larfg), and its plane
// rotations (lartg), shared by the
// reference factorizations (kernels/reference/linalg.cc: geqrf, orgqr),
// reductions (kernels/reference/linalg_condensed.cc: gehrd, sytrd/hetrd)
// and the general eigendecomposition (kernels/reference/linalg_geev.cc),
// in the element type T, real or complex: H = I - tau v v^H with v(0) = 1.
// Also the Hessenberg reduction (gehd2) and its Q (orghr) that the last two
// share, and the tridiagonal reduction (sytd2 / hetd2) of kiln.sytrd and
// kiln.syevd (kernels/reference/linalg_syevd.cc), and the SVDs
// (kernels/reference/linalg_gesdd.cc).
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

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

// ||x|| of `len` elements `step` apart as LAPACK's nrm2 (3.10 on, Blue's
// algorithm) computes it in T's precision: squares summed in order when
// every |x| lies between Blue's thresholds, else (rare: tiny or huge
// entries) accumulated scaled in long double. Rounded as LAPACK rounds, so
// that reflectors, and the iterations they steer, follow LAPACK's.
template <typename T>
RealOf<T> Norm2(const T* x, int64_t len, int64_t step) {
  using R = RealOf<T>;
  using L = std::numeric_limits<R>;
  const R tsml = std::ldexp(R(1), (L::min_exponent - 2 + 1) / 2);  // radix^ceil((minexponent - 1) / 2)
  const R tbig = std::ldexp(R(1), (L::max_exponent - L::digits + 1) / 2);
  R sum = 0;
  bool plain = true;
  auto add = [&](R v) {  // (a zero adds nothing in any of Blue's accumulators)
    if (v != 0 && (v < tsml || v > tbig)) plain = false;
    sum += v * v;
  };
  for (int64_t i = 0; i < len && plain; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      add(std::abs(x[i * step]));
    } else {
      add(std::abs(std::real(x[i * step])));
      if (plain) add(std::abs(std::imag(x[i * step])));
    }
  }
  if (plain) return std::sqrt(sum);
  long double wide = 0;
  for (int64_t i = 0; i < len; ++i) {
    const long double v = std::abs(x[i * step]);
    wide += v * v;
  }
  return static_cast<R>(std::sqrt(wide));
}

// LAPACK's lapy2 and lapy3: sqrt(x^2 + y^2 (+ z^2)) scaled by the largest,
// rounded as LAPACK rounds.
template <typename R>
R Lapy2(R x, R y) {
  const R w = std::max(std::abs(x), std::abs(y)), z = std::min(std::abs(x), std::abs(y));
  if (std::isnan(x) || std::isnan(y)) return x + y;
  if (z == 0 || w > std::numeric_limits<R>::max()) return w;
  return w * std::sqrt(1 + (z / w) * (z / w));
}
template <typename R>
R Lapy3(R x, R y, R z) {
  const R w = std::max({std::abs(x), std::abs(y), std::abs(z)});
  if (w == 0) return std::abs(x) + std::abs(y) + std::abs(z);
  return w * std::sqrt((x / w) * (x / w) + (y / w) * (y / w) + (z / w) * (z / w));
}

// lartg (LAPACK 3.10 on): c, s, r with [c s; -s c] [f; g] = [r; 0], c >= 0
// and r of f's sign.
template <typename R>
void Rotation(R f, R g, R* c, R* s, R* r) {
  const R safmin = std::numeric_limits<R>::min(), safmax = 1 / safmin;
  const R rtmin = std::sqrt(safmin), rtmax = std::sqrt(safmax / 2);
  const R f1 = std::abs(f), g1 = std::abs(g);
  if (g == 0) {
    *c = 1, *s = 0, *r = f;
  } else if (f == 0) {
    *c = 0, *s = std::copysign(R(1), g), *r = g1;
  } else if (f1 > rtmin && f1 < rtmax && g1 > rtmin && g1 < rtmax) {
    const R d = std::sqrt(f * f + g * g);
    *c = f1 / d;
    *r = std::copysign(d, f);
    *s = g / *r;
  } else {
    const R u = std::min(safmax, std::max({safmin, f1, g1}));
    const R fs = f / u, gs = g / u, d = std::sqrt(fs * fs + gs * gs);
    *c = std::abs(fs) / d;
    *r = std::copysign(d, f);
    *s = gs / *r;
    *r *= u;
  }
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
    const R norm = std::is_floating_point_v<T> ? Lapy2(ar, xnorm) : Lapy3(ar, ai, xnorm);
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

// gehd2 on one n x n matrix (row-major) for rows and columns ilo..ihi
// (1-based, as LAPACK's): for each column i, the reflector H(i) of the
// entries below its subdiagonal, applied from the right to A(0:ihi,
// i+1:ihi) and (H(i)^H) from the left to A(i+1:ihi, i+1:n). tau[i] outside
// ilo - 1 .. ihi - 2 stays zero.
template <typename T>
void ReduceHessenberg(std::vector<T>& a, int64_t n, int64_t ilo, int64_t ihi, std::vector<T>& tau) {
  std::fill(tau.begin(), tau.end(), T(0));
  for (int64_t i = ilo - 1; i + 1 < ihi; ++i) {
    T* alpha = &a[(i + 1) * n + i];
    const int64_t len = ihi - i - 2;  // entries below alpha
    const T t = tau[i] = Larfg(alpha, &a[std::min(i + 2, n - 1) * n + i], len, n);
    const T beta = *alpha;
    *alpha = T(1);
    auto v = [&](int64_t k) { return a[k * n + i]; };  // k = i+1 .. ihi-1
    for (int64_t r = 0; r < ihi; ++r) {  // A H: A -= tau (A v) v^H, rounded as BLAS's ger
      T w = T(0);
      for (int64_t k = i + 1; k < ihi; ++k) w += a[r * n + k] * v(k);
      for (int64_t k = i + 1; k < ihi; ++k) a[r * n + k] += w * (-t * Conj(v(k)));
    }
    const T ct = Conj(t);
    for (int64_t col = i + 1; col < n; ++col) {  // H^H A: A -= conj(tau) v (v^H A)
      T w = T(0);
      for (int64_t k = i + 1; k < ihi; ++k) w += Conj(v(k)) * a[k * n + col];
      const T tw = ct * w;
      for (int64_t k = i + 1; k < ihi; ++k) a[k * n + col] -= v(k) * tw;
    }
    *alpha = beta;
  }
}

// orghr: the unitary Q = H(ilo) H(ilo+1) ... H(ihi-2) (1-based ilo, ihi as
// ReduceHessenberg's) from the reflectors ReduceHessenberg left below the
// subdiagonal of h, as an n x n row-major matrix: the identity outside rows
// and columns ilo .. ihi - 1 (0-based), built backward as LAPACK's org2r.
template <typename T>
std::vector<T> FormHessenbergQ(const std::vector<T>& h, int64_t n, int64_t ilo, int64_t ihi,
                               const std::vector<T>& tau) {
  std::vector<T> q(static_cast<size_t>(n * n), T(0));
  for (int64_t i = 0; i < n; ++i) q[i * n + i] = T(1);
  for (int64_t i = ihi - 2; i >= ilo - 1; --i) {  // Q := H(i) Q on rows and columns i+1 .. ihi-1
    if (tau[i] == T(0)) continue;
    auto v = [&](int64_t k) { return k == i + 1 ? T(1) : h[k * n + i]; };
    for (int64_t col = i + 1; col < ihi; ++col) {
      T w = T(0);
      for (int64_t k = i + 1; k < ihi; ++k) w += Conj(v(k)) * q[k * n + col];
      const T tw = tau[i] * w;
      for (int64_t k = i + 1; k < ihi; ++k) q[k * n + col] -= v(k) * tw;
    }
  }
  return q;
}

// The trailing update of sytd2 / hetd2 on the Hermitian L x L block B of m
// (n x n, both triangles held) from row and column o, for the reflector
// (v, tau): x = tau B v, x -= (tau / 2) (x^H v) v, B -= v x^H + x v^H, as
// LAPACK's hemv, dotc, axpy and her2; the diagonal stays real and the
// block exactly Hermitian (the lower triangle computed, the upper mirrored).
template <typename T>
void HermitianRankTwo(std::vector<T>& m, int64_t n, int64_t o, const std::vector<T>& v, T tau) {
  const int64_t len = static_cast<int64_t>(v.size());
  auto b = [&](int64_t j, int64_t k) -> T& { return m[(o + j) * n + o + k]; };
  std::vector<T> x(v.size());
  for (int64_t j = 0; j < len; ++j) {
    T s = T(0);
    for (int64_t k = 0; k < len; ++k) s += b(j, k) * v[k];
    x[j] = tau * s;
  }
  T dot = T(0);
  for (int64_t j = 0; j < len; ++j) dot += Conj(x[j]) * v[j];
  const T alpha = RealOf<T>(-0.5) * tau * dot;
  for (int64_t j = 0; j < len; ++j) x[j] += alpha * v[j];
  for (int64_t j = 0; j < len; ++j) {
    for (int64_t k = 0; k < j; ++k) {
      b(j, k) -= v[j] * Conj(x[k]) + x[j] * Conj(v[k]);
      b(k, j) = Conj(b(j, k));
    }
    b(j, j) = T(std::real(b(j, j)) - std::real(v[j] * Conj(x[j]) + x[j] * Conj(v[j])));
  }
}

// sytd2 / hetd2 on one Hermitian n x n matrix m (both triangles held, the
// diagonal real): d, e and tau of the tridiagonal form Q^H m Q, and `out`
// (the operand as stored) with T's diagonal and off-diagonal and the
// reflectors' v written into its named triangle, the other left as it was.
// Lower: H(i) annihilates column i below its subdiagonal, v(i+1) = 1 and
// v below it stored in column i; upper: H(i), from i = n - 2 down,
// annihilates column i + 1 above its superdiagonal, v(i) = 1 and v above it
// stored in column i + 1.
template <typename T>
void ReduceTridiagonal(std::vector<T>& m, std::vector<T>& out, int64_t n, bool lower, std::vector<T>& d,
                       std::vector<T>& e, std::vector<T>& tau) {
  std::vector<T> v;
  for (int64_t step = 0; step + 1 < n; ++step) {
    // Lower: column i = step, rows i+1..; upper: column i + 1, rows ..i, i = n - 2 - step.
    const int64_t i = lower ? step : n - 2 - step;
    const int64_t col = lower ? i : i + 1;
    const int64_t arow = lower ? i + 1 : i;  // alpha's row
    const int64_t first = lower ? i + 2 : 0, len = lower ? n - i - 2 : i;  // x: rows first .. first + len - 1
    T alpha = m[arow * n + col];
    const T t = Larfg(&alpha, &m[std::min(first, n - 1) * n + col], len, n);
    e[i] = T(std::real(alpha));
    const int64_t o = lower ? i + 1 : 0;  // the trailing (lower) or leading (upper) block
    if (t != T(0)) {  // (m's diagonal is real throughout, as hetd2 makes it)
      v.assign(static_cast<size_t>(len + 1), T(1));
      for (int64_t k = 0; k < len; ++k) v[lower ? k + 1 : k] = m[(first + k) * n + col];
      HermitianRankTwo(m, n, o, v, t);
    }
    tau[i] = t;
    out[arow * n + col] = e[i];
    for (int64_t k = 0; k < len; ++k) out[(first + k) * n + col] = m[(first + k) * n + col];
    const int64_t di = lower ? i : i + 1;  // final after this step
    d[di] = T(std::real(m[di * n + di]));
  }
  if (n > 0) {
    const int64_t last = lower ? n - 1 : 0;
    d[last] = T(std::real(m[last * n + last]));
  }
  for (int64_t i = 0; i < n; ++i) out[i * n + i] = d[i];
}

}  // namespace kiln::ref::householder

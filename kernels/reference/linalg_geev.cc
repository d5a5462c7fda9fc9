// The reference general eigendecomposition, kiln.geev, as JAX calls
// LAPACK's ?geev on the CPU (jnp.linalg.eig): eigenvalues and left and
// right eigenvectors of square real or complex matrices. Step by step as
// LAPACK's driver for the matrices JAX sees: balancing (gebal, permutations
// and powers of two), the Hessenberg reduction (gehd2, shared with
// kiln.gehrd) and its Q (orghr), the Hessenberg QR algorithm (lahqr: the
// Francis double shift for real matrices, a single shift for complex ones,
// with LAPACK's deflation test and exceptional shifts), eigenvectors of the
// Schur form by substitution (trevc), undoing the balancing (gebak) and
// LAPACK's normalization (unit 2-norm; a complex vector's largest entry made
// real). Following LAPACK's steps keeps its eigenvalue order and its
// eigenvectors' signs, which no mathematical convention fixes. LAPACK
// switches to a multishift QR (laqr0) from n = 75; here lahqr runs at every
// size, so the order can differ there. Computed in the element type (f32 in
// float, as sgeev). Also the Schur decomposition, kiln.gees, as JAX calls
// LAPACK's ?gees (jax.scipy.linalg.schur): the same steps to the Schur
// form and its vectors, with gees's permutation-only balancing.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/reference/householder.h"
#include "kernels/reference/kernels.h"
#include "kernels/reference/numeric_util.h"

namespace kiln::ref {
namespace {

using householder::Conj;
using householder::FormHessenbergQ;
using householder::Larfg;
using householder::RealOf;
using householder::ReduceHessenberg;
using numeric::CheckCall;
using numeric::CheckDims;
using numeric::KernelName;
using numeric::LoadMatrix;
using numeric::FromComplex;
using numeric::Store;
using numeric::StoreMatrix;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <typename R>
struct Limits {
  static constexpr R kSafeMin = std::numeric_limits<R>::min();
  static constexpr R kUlp = std::numeric_limits<R>::epsilon();  // LAPACK's lamch('P')
};

// LAPACK's cabs1: |re| + |im|.
template <typename T>
RealOf<T> Abs1(const T& x) {
  return std::abs(std::real(x)) + std::abs(std::imag(x));
}

// A square matrix in row-major order with LAPACK-style access.
template <typename T>
struct Matrix {
  std::vector<T>& m;
  int64_t n;
  T& operator()(int64_t i, int64_t j) { return m[i * n + j]; }
};

// gebal with job 'B' (job 'P' without `scaling`): permutes rows and columns to isolate eigenvalues
// (perm[i], 0-based, the row swapped with i) and scales rows and columns
// ilo..ihi (0-based, inclusive) by powers of two (scale[i]) until their
// 2-norms balance. Returns false when the matrix holds a NaN or infinity.
template <typename T>
bool Balance(std::vector<T>& a, int64_t n, int64_t* ilo, int64_t* ihi, std::vector<int64_t>& perm,
             std::vector<RealOf<T>>& scale, bool scaling = true) {
  using R = RealOf<T>;
  Matrix<T> A{a, n};
  for (const T& x : a)
    if (!std::isfinite(std::real(x)) || !std::isfinite(std::imag(x))) return false;
  perm.assign(static_cast<size_t>(n), 0);
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  scale.assign(static_cast<size_t>(n), R(1));
  int64_t k = 0, l = n - 1;
  auto exchange = [&](int64_t j, int64_t m) {
    perm[m] = j;
    if (j == m) return;
    for (int64_t i = 0; i <= l; ++i) std::swap(A(i, j), A(i, m));
    for (int64_t i = k; i < n; ++i) std::swap(A(j, i), A(m, i));
  };
  // Rows isolating an eigenvalue (zero off the diagonal in columns 0..l) go
  // to the bottom, searched again from l after each exchange.
  for (bool found = true; found && l > 0;) {
    found = false;
    for (int64_t j = l; j >= 0; --j) {
      bool isolated = true;
      for (int64_t i = 0; i <= l && isolated; ++i) isolated = i == j || A(j, i) == T(0);
      if (!isolated) continue;
      exchange(j, l);
      if (l == 0) break;
      --l;
      found = true;
      break;
    }
  }
  if (l == 0 && n > 0) {  // all isolated (LAPACK returns before scaling)
    *ilo = 0;
    *ihi = 0;
    return true;
  }
  // Columns isolating an eigenvalue go to the left.
  for (bool found = true; found;) {
    found = false;
    for (int64_t j = k; j <= l; ++j) {
      bool isolated = true;
      for (int64_t i = k; i <= l && isolated; ++i) isolated = i == j || A(i, j) == T(0);
      if (!isolated) continue;
      exchange(j, k);
      ++k;
      found = true;
      break;
    }
  }
  *ilo = k;
  *ihi = l;
  if (!scaling) return true;  // gebal's job 'P' (gees): permutations only
  const R sfmin1 = Limits<R>::kSafeMin / Limits<R>::kUlp, sfmax1 = R(1) / sfmin1;
  const R sfmin2 = sfmin1 * 2, sfmax2 = R(1) / sfmin2;
  auto iamax_abs = [&](auto at, int64_t from, int64_t to) {  // |x| of the first x of largest cabs1
    int64_t best = from;
    for (int64_t i = from + 1; i <= to; ++i)
      if (Abs1(at(i)) > Abs1(at(best))) best = i;
    return std::abs(at(best));
  };
  for (bool noconv = true; noconv;) {
    noconv = false;
    for (int64_t i = k; i <= l; ++i) {
      R c = householder::Norm2(&A(k, i), l - k + 1, n);
      R r = householder::Norm2(&A(i, k), l - k + 1, 1);
      R ca = iamax_abs([&](int64_t x) { return A(x, i); }, 0, l);
      R ra = iamax_abs([&](int64_t x) { return A(i, x); }, k, n - 1);
      if (c == 0 || r == 0) continue;
      R g = r / 2, f = 1;
      const R s = c + r;
      while (c < g && std::max({f, c, ca}) < sfmax2 && std::min({r, g, ra}) > sfmin2) {
        f *= 2, c *= 2, ca *= 2, r /= 2, g /= 2, ra /= 2;
      }
      g = c / 2;
      while (g >= r && std::max(r, ra) < sfmax2 && std::min({f, c, g, ca}) > sfmin2) {
        f /= 2, c /= 2, g /= 2, ca /= 2, r *= 2, ra *= 2;
      }
      if (c + r >= R(0.95) * s) continue;
      if (f < 1 && scale[i] < 1 && f * scale[i] <= sfmin1) continue;
      if (f > 1 && scale[i] > 1 && scale[i] >= sfmax1 / f) continue;
      scale[i] *= f;
      noconv = true;
      const R inv = R(1) / f;
      for (int64_t j = k; j < n; ++j) A(i, j) *= inv;
      for (int64_t j = 0; j <= l; ++j) A(j, i) *= f;
    }
  }
  return true;
}

// gebak: the eigenvectors of the balanced matrix (columns of v, n x n
// row-major, complex) back to the original one: rows ilo..ihi scaled
// (right vectors by scale, left ones by 1/scale), then the rows exchanged
// back.
template <typename C, typename R>
void Unbalance(std::vector<C>& v, int64_t n, int64_t ilo, int64_t ihi, const std::vector<int64_t>& perm,
               const std::vector<R>& scale, bool left) {
  if (ilo != ihi)
    for (int64_t i = ilo; i <= ihi; ++i) {
      const R s = left ? R(1) / scale[i] : scale[i];
      for (int64_t j = 0; j < n; ++j) v[i * n + j] *= s;
    }
  for (int64_t ii = 0; ii < n; ++ii) {
    if (ii >= ilo && ii <= ihi) continue;
    const int64_t i = ii < ilo ? ilo - 1 - ii : ii;
    const int64_t k = perm[i];
    if (k != i)
      for (int64_t j = 0; j < n; ++j) std::swap(v[i * n + j], v[k * n + j]);
  }
}

// Applies the plane rotation (c, s) to x and y, `len` elements `step`
// apart, as BLAS's rot: x = c x + s y, y = c y - s x.
template <typename R>
void Rotate(R* x, R* y, int64_t len, int64_t step, R c, R s) {
  for (int64_t i = 0; i < len; ++i) {
    const R xi = x[i * step], yi = y[i * step];
    x[i * step] = c * xi + s * yi;
    y[i * step] = c * yi - s * xi;
  }
}

// lanv2: the Schur factorization of a real 2 x 2 block [a b; c d] = [cs
// -sn; sn cs] [aa bb; cc dd] [cs sn; -sn cs], in standard form (cc = 0, or
// aa = dd and bb cc < 0), and its eigenvalues.
template <typename R>
void StandardizeBlock(R& a, R& b, R& c, R& d, R& rt1r, R& rt1i, R& rt2r, R& rt2i, R& cs, R& sn) {
  const R eps = Limits<R>::kUlp;
  const auto sign = [](R x, R y) { return std::copysign(std::abs(x), y); };
  if (c == 0) {
    cs = 1, sn = 0;
  } else if (b == 0) {
    cs = 0, sn = 1;
    std::swap(a, d);
    b = -c;
    c = 0;
  } else if (a - d == 0 && std::signbit(b) != std::signbit(c)) {
    cs = 1, sn = 0;
  } else {
    const R temp = a - d;
    R p = temp / 2;
    const R bcmax = std::max(std::abs(b), std::abs(c));
    const R bcmis = std::min(std::abs(b), std::abs(c)) * sign(R(1), b) * sign(R(1), c);
    const R scale = std::max(std::abs(p), bcmax);
    R z = (p / scale) * p + (bcmax / scale) * bcmis;
    if (z >= 4 * eps) {  // real eigenvalues
      z = p + sign(std::sqrt(scale) * std::sqrt(z), p);
      a = d + z;
      d = d - (bcmax / z) * bcmis;
      const R tau = householder::Lapy2(c, z);
      cs = z / tau;
      sn = c / tau;
      b = b - c;
      c = 0;
    } else {  // complex or nearly equal real eigenvalues: equal diagonal
      const R sigma = b + c;
      const R tau = householder::Lapy2(sigma, temp);
      cs = std::sqrt((1 + std::abs(sigma) / tau) / 2);
      sn = -(p / (tau * cs)) * sign(R(1), sigma);
      const R aa = a * cs + b * sn, bb = -a * sn + b * cs, cc = c * cs + d * sn, dd = -c * sn + d * cs;
      a = aa * cs + cc * sn;
      b = bb * cs + dd * sn;
      c = -aa * sn + cc * cs;
      d = -bb * sn + dd * cs;
      const R mid = (a + d) / 2;
      a = d = mid;
      if (c != 0) {
        if (b != 0) {
          if (std::signbit(b) == std::signbit(c)) {  // real after all: upper triangular
            const R sab = std::sqrt(std::abs(b)), sac = std::sqrt(std::abs(c));
            p = sign(sab * sac, c);
            const R t = 1 / std::sqrt(std::abs(b + c));
            a = mid + p;
            d = mid - p;
            b = b - c;
            c = 0;
            const R cs1 = sab * t, sn1 = sac * t;
            const R ncs = cs * cs1 - sn * sn1;
            sn = cs * sn1 + sn * cs1;
            cs = ncs;
          }
        } else {
          b = -c;
          c = 0;
          const R t = cs;
          cs = -sn;
          sn = t;
        }
      }
    }
  }
  rt1r = a;
  rt2r = d;
  if (c == 0) {
    rt1i = rt2i = 0;
  } else {
    rt1i = std::sqrt(std::abs(b)) * std::sqrt(std::abs(c));
    rt2i = -rt1i;
  }
}

constexpr int kExceptionalShiftEvery = 10;  // LAPACK's KEXSH

// Real lahqr on rows and columns ilo..ihi (0-based, inclusive) of the upper
// Hessenberg h: with want_t the quasi-triangular Schur form T (2 x 2 blocks
// standardized), with z (not null) the Schur vectors accumulated into it.
// Returns 0, or LAPACK's info (1-based i of an eigenvalue that did not
// converge).
template <typename R>
int HessenbergQrReal(std::vector<R>& hv, int64_t n, int64_t ilo, int64_t ihi, bool want_t, std::vector<R>* zv,
                     std::vector<R>& wr, std::vector<R>& wi) {
  Matrix<R> H{hv, n};
  if (ilo == ihi) {
    wr[ilo] = H(ilo, ilo);
    wi[ilo] = 0;
    return 0;
  }
  for (int64_t j = ilo; j + 3 <= ihi; ++j) H(j + 2, j) = H(j + 3, j) = 0;
  if (ilo <= ihi - 2) H(ihi, ihi - 2) = 0;
  const int64_t nh = ihi - ilo + 1;
  const R ulp = Limits<R>::kUlp, smlnum = Limits<R>::kSafeMin * (R(nh) / ulp);
  int64_t i1 = 0, i2 = n - 1;
  const int64_t itmax = 30 * std::max<int64_t>(10, nh);
  int64_t kdefl = 0;
  const R dat1 = R(0.75), dat2 = R(-0.4375);
  for (int64_t i = ihi; i >= ilo;) {
    int64_t l = ilo;
    bool converged = false;
    for (int64_t its = 0; its <= itmax; ++its) {
      int64_t k = i;
      for (; k > l; --k) {  // a negligible subdiagonal entry
        if (std::abs(H(k, k - 1)) <= smlnum) break;
        R tst = std::abs(H(k - 1, k - 1)) + std::abs(H(k, k));
        if (tst == 0) {
          if (k - 2 >= ilo) tst += std::abs(H(k - 1, k - 2));
          if (k + 1 <= ihi) tst += std::abs(H(k + 1, k));
        }
        if (std::abs(H(k, k - 1)) <= ulp * tst) {  // Ahues and Tisseur's test
          const R ab = std::max(std::abs(H(k, k - 1)), std::abs(H(k - 1, k)));
          const R ba = std::min(std::abs(H(k, k - 1)), std::abs(H(k - 1, k)));
          const R aa = std::max(std::abs(H(k, k)), std::abs(H(k - 1, k - 1) - H(k, k)));
          const R bb = std::min(std::abs(H(k, k)), std::abs(H(k - 1, k - 1) - H(k, k)));
          const R s = aa + ab;
          if (ba * (ab / s) <= std::max(smlnum, ulp * (bb * (aa / s)))) break;
        }
      }
      l = k;
      if (l > ilo) H(l, l - 1) = 0;
      if (l >= i - 1) {
        converged = true;
        break;
      }
      ++kdefl;
      if (!want_t) i1 = l, i2 = i;
      R h11, h12, h21, h22;
      if (kdefl % (2 * kExceptionalShiftEvery) == 0) {
        const R s = std::abs(H(i, i - 1)) + std::abs(H(i - 1, i - 2));
        h11 = dat1 * s + H(i, i), h12 = dat2 * s, h21 = s, h22 = h11;
      } else if (kdefl % kExceptionalShiftEvery == 0) {
        const R s = std::abs(H(l + 1, l)) + std::abs(H(l + 2, l + 1));
        h11 = dat1 * s + H(l, l), h12 = dat2 * s, h21 = s, h22 = h11;
      } else {  // Francis' double shift
        h11 = H(i - 1, i - 1), h21 = H(i, i - 1), h12 = H(i - 1, i), h22 = H(i, i);
      }
      R rt1r = 0, rt1i = 0, rt2r = 0, rt2i = 0;
      if (const R s = std::abs(h11) + std::abs(h12) + std::abs(h21) + std::abs(h22); s != 0) {
        h11 /= s, h21 /= s, h12 /= s, h22 /= s;
        const R tr = (h11 + h22) / 2;
        const R det = (h11 - tr) * (h22 - tr) - h12 * h21;
        const R rtdisc = std::sqrt(std::abs(det));
        if (det >= 0) {  // complex conjugate shifts
          rt1r = rt2r = tr * s;
          rt1i = rtdisc * s;
          rt2i = -rt1i;
        } else {  // real shifts: the one nearer h22, twice
          rt1r = tr + rtdisc;
          rt2r = tr - rtdisc;
          if (std::abs(rt1r - h22) <= std::abs(rt2r - h22)) {
            rt1r *= s;
            rt2r = rt1r;
          } else {
            rt2r *= s;
            rt1r = rt2r;
          }
        }
      }
      R v[3];
      int64_t m = i - 2;
      for (;; --m) {  // two consecutive small subdiagonal entries
        R h21s = H(m + 1, m);
        R s = std::abs(H(m, m) - rt2r) + std::abs(rt2i) + std::abs(h21s);
        h21s = H(m + 1, m) / s;
        v[0] = h21s * H(m, m + 1) + (H(m, m) - rt1r) * ((H(m, m) - rt2r) / s) - rt1i * (rt2i / s);
        v[1] = h21s * (H(m, m) + H(m + 1, m + 1) - rt1r - rt2r);
        v[2] = h21s * H(m + 2, m + 1);
        s = std::abs(v[0]) + std::abs(v[1]) + std::abs(v[2]);
        v[0] /= s, v[1] /= s, v[2] /= s;
        if (m == l) break;
        if (std::abs(H(m, m - 1)) * (std::abs(v[1]) + std::abs(v[2])) <=
            ulp * std::abs(v[0]) * (std::abs(H(m - 1, m - 1)) + std::abs(H(m, m)) + std::abs(H(m + 1, m + 1))))
          break;
      }
      for (int64_t kk = m; kk <= i - 1; ++kk) {  // the double-shift QR step, chasing the bulge
        const int64_t nr = std::min<int64_t>(3, i - kk + 1);
        if (kk > m)
          for (int64_t e = 0; e < nr; ++e) v[e] = H(kk + e, kk - 1);
        const R t1 = Larfg(&v[0], &v[1], nr - 1, 1);
        if (kk > m) {
          H(kk, kk - 1) = v[0];
          H(kk + 1, kk - 1) = 0;
          if (kk < i - 1) H(kk + 2, kk - 1) = 0;
        } else if (m > l) {
          H(kk, kk - 1) *= (1 - t1);
        }
        const R v2 = v[1], t2 = t1 * v2;
        if (nr == 3) {
          const R v3 = v[2], t3 = t1 * v3;
          for (int64_t j = kk; j <= i2; ++j) {
            const R sum = H(kk, j) + v2 * H(kk + 1, j) + v3 * H(kk + 2, j);
            H(kk, j) -= sum * t1, H(kk + 1, j) -= sum * t2, H(kk + 2, j) -= sum * t3;
          }
          for (int64_t j = i1; j <= std::min(kk + 3, i); ++j) {
            const R sum = H(j, kk) + v2 * H(j, kk + 1) + v3 * H(j, kk + 2);
            H(j, kk) -= sum * t1, H(j, kk + 1) -= sum * t2, H(j, kk + 2) -= sum * t3;
          }
          if (zv)
            for (int64_t j = ilo; j <= ihi; ++j) {
              R* z = &(*zv)[j * n];
              const R sum = z[kk] + v2 * z[kk + 1] + v3 * z[kk + 2];
              z[kk] -= sum * t1, z[kk + 1] -= sum * t2, z[kk + 2] -= sum * t3;
            }
        } else if (nr == 2) {
          for (int64_t j = kk; j <= i2; ++j) {
            const R sum = H(kk, j) + v2 * H(kk + 1, j);
            H(kk, j) -= sum * t1, H(kk + 1, j) -= sum * t2;
          }
          for (int64_t j = i1; j <= i; ++j) {
            const R sum = H(j, kk) + v2 * H(j, kk + 1);
            H(j, kk) -= sum * t1, H(j, kk + 1) -= sum * t2;
          }
          if (zv)
            for (int64_t j = ilo; j <= ihi; ++j) {
              R* z = &(*zv)[j * n];
              const R sum = z[kk] + v2 * z[kk + 1];
              z[kk] -= sum * t1, z[kk + 1] -= sum * t2;
            }
        }
      }
    }
    if (!converged) return static_cast<int>(i + 1);
    if (l == i) {  // one eigenvalue
      wr[i] = H(i, i);
      wi[i] = 0;
    } else {  // a 2 x 2 block: standardized, with its rotation applied around it
      R cs, sn;
      StandardizeBlock(H(i - 1, i - 1), H(i - 1, i), H(i, i - 1), H(i, i), wr[i - 1], wi[i - 1], wr[i], wi[i], cs, sn);
      if (want_t) {
        if (i2 > i) Rotate(&H(i - 1, i + 1), &H(i, i + 1), i2 - i, 1, cs, sn);
        Rotate(&H(i1, i - 1), &H(i1, i), i - i1 - 1, n, cs, sn);
      }
      if (zv) Rotate(&(*zv)[ilo * n + i - 1], &(*zv)[ilo * n + i], ihi - ilo + 1, n, cs, sn);
    }
    kdefl = 0;
    i = l - 1;
  }
  return 0;
}

// Complex lahqr: as HessenbergQrReal with Wilkinson's single shift; T is
// upper triangular.
template <typename C>
int HessenbergQrComplex(std::vector<C>& hv, int64_t n, int64_t ilo, int64_t ihi, bool want_t, std::vector<C>* zv,
                        std::vector<C>& w) {
  using R = RealOf<C>;
  Matrix<C> H{hv, n};
  if (ilo == ihi) {
    w[ilo] = H(ilo, ilo);
    return 0;
  }
  for (int64_t j = ilo; j + 3 <= ihi; ++j) H(j + 2, j) = H(j + 3, j) = C(0);
  if (ilo <= ihi - 2) H(ihi, ihi - 2) = C(0);
  auto scale_row = [&](int64_t row, int64_t from, int64_t to, C s) {  // inclusive
    for (int64_t j = from; j <= to; ++j) H(row, j) *= s;
  };
  auto scale_col = [&](int64_t col, int64_t from, int64_t to, C s) {
    for (int64_t j = from; j <= to; ++j) H(j, col) *= s;
  };
  auto scale_z = [&](int64_t col, C s) {
    if (zv)
      for (int64_t j = ilo; j <= ihi; ++j) (*zv)[j * n + col] *= s;
  };
  {  // real subdiagonal entries
    const int64_t jlo = want_t ? 0 : ilo, jhi = want_t ? n - 1 : ihi;
    for (int64_t i = ilo + 1; i <= ihi; ++i) {
      if (std::imag(H(i, i - 1)) == 0) continue;
      C sc = H(i, i - 1) / Abs1(H(i, i - 1));
      sc = std::conj(sc) / std::abs(sc);
      H(i, i - 1) = std::abs(H(i, i - 1));
      scale_row(i, i, jhi, sc);
      scale_col(i, jlo, std::min(jhi, i + 1), std::conj(sc));
      scale_z(i, std::conj(sc));
    }
  }
  const int64_t nh = ihi - ilo + 1;
  const R ulp = Limits<R>::kUlp, smlnum = Limits<R>::kSafeMin * (R(nh) / ulp);
  int64_t i1 = 0, i2 = n - 1;
  const int64_t itmax = 30 * std::max<int64_t>(10, nh);
  int64_t kdefl = 0;
  const R dat1 = R(0.75);
  for (int64_t i = ihi; i >= ilo;) {
    int64_t l = ilo;
    bool converged = false;
    for (int64_t its = 0; its <= itmax; ++its) {
      int64_t k = i;
      for (; k > l; --k) {
        if (Abs1(H(k, k - 1)) <= smlnum) break;
        R tst = Abs1(H(k - 1, k - 1)) + Abs1(H(k, k));
        if (tst == 0) {
          if (k - 2 >= ilo) tst += std::abs(std::real(H(k - 1, k - 2)));
          if (k + 1 <= ihi) tst += std::abs(std::real(H(k + 1, k)));
        }
        if (std::abs(std::real(H(k, k - 1))) <= ulp * tst) {
          const R ab = std::max(Abs1(H(k, k - 1)), Abs1(H(k - 1, k)));
          const R ba = std::min(Abs1(H(k, k - 1)), Abs1(H(k - 1, k)));
          const R aa = std::max(Abs1(H(k, k)), Abs1(H(k - 1, k - 1) - H(k, k)));
          const R bb = std::min(Abs1(H(k, k)), Abs1(H(k - 1, k - 1) - H(k, k)));
          const R s = aa + ab;
          if (ba * (ab / s) <= std::max(smlnum, ulp * (bb * (aa / s)))) break;
        }
      }
      l = k;
      if (l > ilo) H(l, l - 1) = C(0);
      if (l >= i) {
        converged = true;
        break;
      }
      ++kdefl;
      if (!want_t) i1 = l, i2 = i;
      C t;
      if (kdefl % (2 * kExceptionalShiftEvery) == 0) {
        t = dat1 * std::abs(std::real(H(i, i - 1))) + H(i, i);
      } else if (kdefl % kExceptionalShiftEvery == 0) {
        t = dat1 * std::abs(std::real(H(l + 1, l))) + H(l, l);
      } else {  // Wilkinson's shift
        t = H(i, i);
        const C u = std::sqrt(H(i - 1, i)) * std::sqrt(H(i, i - 1));
        R s = Abs1(u);
        if (s != 0) {
          const C x = R(0.5) * (H(i - 1, i - 1) - t);
          const R sx = Abs1(x);
          s = std::max(s, Abs1(x));
          C y = s * std::sqrt((x / s) * (x / s) + (u / s) * (u / s));
          if (sx > 0 && std::real(x / sx) * std::real(y) + std::imag(x / sx) * std::imag(y) < 0) y = -y;
          t -= u * (u / (x + y));
        }
      }
      C v[2];
      int64_t m = i - 1;
      for (;; --m) {  // two consecutive small subdiagonal entries
        const C h11 = H(m, m), h22 = H(m + 1, m + 1);
        C h11s = h11 - t;
        R h21 = std::real(H(m + 1, m));
        const R s = Abs1(h11s) + std::abs(h21);
        h11s /= s;
        h21 /= s;
        v[0] = h11s;
        v[1] = h21;
        if (m == l) break;
        const R h10 = std::real(H(m, m - 1));
        if (std::abs(h10) * std::abs(h21) <= ulp * (Abs1(h11s) * (Abs1(h11) + Abs1(h22)))) break;
      }
      for (int64_t kk = m; kk <= i - 1; ++kk) {  // the single-shift QR step
        if (kk > m) v[0] = H(kk, kk - 1), v[1] = H(kk + 1, kk - 1);
        const C t1 = Larfg(&v[0], &v[1], 1, 1);
        if (kk > m) {
          H(kk, kk - 1) = v[0];
          H(kk + 1, kk - 1) = C(0);
        }
        const C v2 = v[1];
        const R t2 = std::real(t1 * v2);
        for (int64_t j = kk; j <= i2; ++j) {
          const C sum = std::conj(t1) * H(kk, j) + t2 * H(kk + 1, j);
          H(kk, j) -= sum;
          H(kk + 1, j) -= sum * v2;
        }
        for (int64_t j = i1; j <= std::min(kk + 2, i); ++j) {
          const C sum = t1 * H(j, kk) + t2 * H(j, kk + 1);
          H(j, kk) -= sum;
          H(j, kk + 1) -= sum * std::conj(v2);
        }
        if (zv)
          for (int64_t j = ilo; j <= ihi; ++j) {
            C* z = &(*zv)[j * n];
            const C sum = t1 * z[kk] + t2 * z[kk + 1];
            z[kk] -= sum;
            z[kk + 1] -= sum * std::conj(v2);
          }
        if (kk == m && m > l) {  // keep H(m, m-1) real
          C temp = C(1) - t1;
          temp /= std::abs(temp);
          H(m + 1, m) *= std::conj(temp);
          if (m + 2 <= i) H(m + 2, m + 1) *= temp;
          for (int64_t j = m; j <= i; ++j) {
            if (j == m + 1) continue;
            if (i2 > j) scale_row(j, j + 1, i2, temp);
            scale_col(j, i1, j - 1, std::conj(temp));
            scale_z(j, std::conj(temp));
          }
        }
      }
      if (C temp = H(i, i - 1); std::imag(temp) != 0) {  // keep H(i, i-1) real
        const R rtemp = std::abs(temp);
        H(i, i - 1) = rtemp;
        temp /= rtemp;
        if (i2 > i) scale_row(i, i + 1, i2, std::conj(temp));
        scale_col(i, i1, i - 1, temp);
        scale_z(i, temp);
      }
    }
    if (!converged) return static_cast<int>(i + 1);
    w[i] = H(i, i);
    kdefl = 0;
    i = l - 1;
  }
  return 0;
}

// Solves the 2 x 2 complex system [a b; c d] x = r by Gaussian elimination
// with complete pivoting, a pivot smaller than smin taken as smin (LAPACK's
// laln2 perturbs a near-singular block the same way).
template <typename C, typename R>
void Solve2x2(C a, C b, C c, C d, C r0, C r1, R smin, C* x0, C* x1) {
  C m[2][2] = {{a, b}, {c, d}};
  int pr = 0, pc = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      if (Abs1(m[i][j]) > Abs1(m[pr][pc])) pr = i, pc = j;
  C rhs[2] = {r0, r1};
  if (pr == 1) std::swap(m[0], m[1]), std::swap(rhs[0], rhs[1]);
  if (pc == 1) std::swap(m[0][0], m[0][1]), std::swap(m[1][0], m[1][1]);
  if (Abs1(m[0][0]) < smin) m[0][0] = C(smin);
  const C l = m[1][0] / m[0][0];
  C u = m[1][1] - l * m[0][1];
  if (Abs1(u) < smin) u = C(smin);
  const C y1 = (rhs[1] - l * rhs[0]) / u;
  const C y0 = (rhs[0] - m[0][1] * y1) / m[0][0];
  *x0 = pc == 1 ? y1 : y0;
  *x1 = pc == 1 ? y0 : y1;
}

// trevc on the Schur form t (n x n row-major, real quasi-triangular or
// complex triangular, as complex), eigenvalue lambda at diagonal block
// [top, top + size): the right eigenvector x of t (t x = lambda x, x
// zero below the block) for right, else the left one (y^H t = lambda y^H,
// zero above it), with the block's entries as LAPACK sets them (`init`).
template <typename C, typename R>
std::vector<C> SchurVector(const std::vector<C>& t, int64_t n, int64_t top, int64_t size, C lambda, const C init[2],
                           R smin, bool right) {
  auto T = [&](int64_t i, int64_t j) { return t[i * n + j]; };
  // A 2 x 2 block starts at row j when t(j+1, j) != 0.
  auto block_at = [&](int64_t j) { return j + 1 < n && T(j + 1, j) != C(0); };
  std::vector<C> x(static_cast<size_t>(n), C(0));
  for (int64_t e = 0; e < size; ++e) x[top + e] = init[e];
  if (right) {
    std::vector<C> r(static_cast<size_t>(n), C(0));
    for (int64_t k = 0; k < top; ++k)
      for (int64_t e = 0; e < size; ++e) r[k] -= T(k, top + e) * x[top + e];
    for (int64_t j = top - 1; j >= 0;) {
      if (j > 0 && block_at(j - 1)) {
        Solve2x2(T(j - 1, j - 1) - lambda, T(j - 1, j), T(j, j - 1), T(j, j) - lambda, r[j - 1], r[j], smin, &x[j - 1],
                 &x[j]);
        for (int64_t k = 0; k < j - 1; ++k) r[k] -= T(k, j - 1) * x[j - 1] + T(k, j) * x[j];
        j -= 2;
      } else {
        C d = T(j, j) - lambda;
        if (Abs1(d) < smin) d = C(smin);
        x[j] = r[j] / d;
        for (int64_t k = 0; k < j; ++k) r[k] -= T(k, j) * x[j];
        j -= 1;
      }
    }
  } else {  // (t^H - conj(lambda)) y = 0, forward
    const C mu = std::conj(lambda);
    std::vector<C> r(static_cast<size_t>(n), C(0));
    for (int64_t k = top + size; k < n; ++k)
      for (int64_t e = 0; e < size; ++e) r[k] -= std::conj(T(top + e, k)) * x[top + e];
    for (int64_t j = top + size; j < n;) {
      if (block_at(j)) {
        Solve2x2(std::conj(T(j, j)) - mu, std::conj(T(j + 1, j)), std::conj(T(j, j + 1)), std::conj(T(j + 1, j + 1)) - mu,
                 r[j], r[j + 1], smin, &x[j], &x[j + 1]);
        for (int64_t k = j + 2; k < n; ++k) r[k] -= std::conj(T(j, k)) * x[j] + std::conj(T(j + 1, k)) * x[j + 1];
        j += 2;
      } else {
        C d = std::conj(T(j, j)) - mu;
        if (Abs1(d) < smin) d = C(smin);
        x[j] = r[j] / d;
        for (int64_t k = j + 1; k < n; ++k) r[k] -= std::conj(T(j, k)) * x[j];
        j += 1;
      }
    }
  }
  return x;
}

// z x: the eigenvector of the balanced matrix from the Schur form's.
template <typename C, typename Z>
void BackTransform(const std::vector<Z>& z, int64_t n, const std::vector<C>& x, std::vector<C>& out, int64_t col) {
  for (int64_t i = 0; i < n; ++i) {
    C s = C(0);
    for (int64_t k = 0; k < n; ++k) s += z[i * n + k] * x[k];
    out[i * n + col] = s;
  }
}

// geev's normalization of column col of v: unit 2-norm, then for a complex
// vector its largest entry (the first of largest modulus) made real: for a
// complex matrix (zgeev) positive, for a real one's complex pair (dgeev's
// rotation, lartg's convention) with the sign of its real part.
template <typename C>
void Normalize(std::vector<C>& v, int64_t n, int64_t col, bool real_vector, bool real_matrix) {
  using R = RealOf<C>;
  long double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += std::norm(std::complex<long double>(v[i * n + col]));
  const R norm = static_cast<R>(std::sqrt(sum));
  if (norm == 0) return;
  for (int64_t i = 0; i < n; ++i) v[i * n + col] /= norm;
  if (real_vector) return;
  int64_t k = 0;
  for (int64_t i = 1; i < n; ++i)
    if (std::norm(v[i * n + col]) > std::norm(v[k * n + col])) k = i;
  const C vk = v[k * n + col];
  const R mag = std::abs(vk);
  if (mag == 0) return;
  // lartg's r: the sign of f = re v(k), positive when f is zero.
  const C rot = std::conj(vk) / (real_matrix && std::real(vk) < 0 ? -mag : mag);
  for (int64_t i = 0; i < n; ++i) v[i * n + col] *= rot;
  v[k * n + col] = C(std::real(v[k * n + col]), 0);
}

// geev's scaling of a matrix whose largest entry lies outside [smlnum,
// bignum] (sqrt(safmin) / ulp and its inverse) into that range, in place;
// Unscale takes an eigenvalue back.
template <typename T>
struct RangeScaling {
  using R = RealOf<T>;
  R anrm = 0, cscale = 0;
  explicit RangeScaling(std::vector<T>& a) {
    const R smlnum = std::sqrt(Limits<R>::kSafeMin) / Limits<R>::kUlp, bignum = 1 / smlnum;
    for (const T& x : a) anrm = std::max(anrm, std::abs(x));
    cscale = anrm > 0 && anrm < smlnum ? smlnum : anrm > bignum ? bignum : 0;
    if (cscale != 0)
      for (T& x : a) x = x / anrm * cscale;
  }
  template <typename V>
  void Unscale(V& x) const {
    if (cscale != 0) x = x / cscale * anrm;
  }
};

struct GeevOptions {
  bool left = true, right = true;
};

// One matrix (a, n x n row-major) of a real type R: eigenvalues (wr, wi;
// a complex pair with wi > 0 first) and eigenvectors as complex columns.
template <typename R>
int GeevReal(std::vector<R> a, int64_t n, GeevOptions opt, std::vector<R>& wr, std::vector<R>& wi,
             std::vector<std::complex<R>>& vl, std::vector<std::complex<R>>& vr) {
  using C = std::complex<R>;
  wr.assign(static_cast<size_t>(n), R(0));
  wi.assign(static_cast<size_t>(n), R(0));
  vl.assign(static_cast<size_t>(n * n), C(0));
  vr.assign(static_cast<size_t>(n * n), C(0));
  if (n == 0) return 0;
  const RangeScaling<R> range(a);
  int64_t ilo = 0, ihi = 0;
  std::vector<int64_t> perm;
  std::vector<R> scale;
  if (!Balance(a, n, &ilo, &ihi, perm, scale)) {
    std::fill(wr.begin(), wr.end(), std::numeric_limits<R>::quiet_NaN());
    std::fill(wi.begin(), wi.end(), std::numeric_limits<R>::quiet_NaN());
    return 1;
  }
  std::vector<R> tau(static_cast<size_t>(std::max<int64_t>(n - 1, 0)));
  ReduceHessenberg(a, n, ilo + 1, ihi + 1, tau);
  const bool vectors = opt.left || opt.right;
  std::vector<R> z;
  if (vectors) z = FormHessenbergQ(a, n, ilo + 1, ihi + 1, tau);
  for (int64_t i = 0; i < n; ++i)  // the reflectors give way to the Hessenberg matrix
    for (int64_t j = 0; j + 1 < i; ++j) a[i * n + j] = 0;
  for (int64_t i = 0; i < n; ++i)
    if (i < ilo || i > ihi) wr[i] = a[i * n + i];
  const int info = HessenbergQrReal(a, n, ilo, ihi, vectors, vectors ? &z : nullptr, wr, wi);
  for (int64_t i = 0; i < n; ++i) range.Unscale(wr[i]), range.Unscale(wi[i]);
  if (info != 0 || !vectors) return info;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j + 1 < i; ++j) a[i * n + j] = 0;
  std::vector<C> t(a.begin(), a.end());
  const R ulp = Limits<R>::kUlp, small = Limits<R>::kSafeMin * (R(n) / ulp);
  for (int64_t top = 0; top < n;) {
    const bool pair = top + 1 < n && a[(top + 1) * n + top] != 0;
    const R er = a[top * n + top];
    const R ei = pair ? std::sqrt(std::abs(a[(top + 1) * n + top])) * std::sqrt(std::abs(a[top * n + top + 1])) : R(0);
    const C lambda(er, ei);
    const R smin = std::max(ulp * (std::abs(er) + std::abs(ei)), small);
    const int64_t size = pair ? 2 : 1;
    if (opt.right) {  // trevc's start: for a pair, x(top) = 1 or x(top+1) = i
      C init[2] = {C(1), C(0)};
      if (pair) {
        const R t01 = a[top * n + top + 1], t10 = a[(top + 1) * n + top];
        if (std::abs(t01) >= std::abs(t10)) init[0] = C(1), init[1] = C(0, ei / t01);
        else init[0] = C(-ei / t10, 0), init[1] = C(0, 1);
      }
      BackTransform(z, n, SchurVector(t, n, top, size, lambda, init, smin, true), vr, top);
    }
    if (opt.left) {
      C init[2] = {C(1), C(0)};
      if (pair) {
        const R t01 = a[top * n + top + 1], t10 = a[(top + 1) * n + top];
        if (std::abs(t01) >= std::abs(t10)) init[0] = C(ei / t01, 0), init[1] = C(0, 1);
        else init[0] = C(1), init[1] = C(0, -ei / t10);
      }
      BackTransform(z, n, SchurVector(t, n, top, size, lambda, init, smin, false), vl, top);
    }
    top += size;
  }
  for (int side = 0; side < 2; ++side) {
    const bool left = side == 0;
    if (left ? !opt.left : !opt.right) continue;
    std::vector<C>& v = left ? vl : vr;
    Unbalance(v, n, ilo, ihi, perm, scale, left);
    for (int64_t j = 0; j < n; ++j) {
      if (wi[j] < 0) continue;  // the second of a pair: the first's conjugate
      Normalize(v, n, j, wi[j] == 0, true);
      if (wi[j] > 0 && j + 1 < n)
        for (int64_t i = 0; i < n; ++i) v[i * n + j + 1] = std::conj(v[i * n + j]);
    }
  }
  return 0;
}

// One complex matrix: eigenvalues w, eigenvectors as columns.
template <typename C>
int GeevComplex(std::vector<C> a, int64_t n, GeevOptions opt, std::vector<C>& w, std::vector<C>& vl,
                std::vector<C>& vr) {
  using R = RealOf<C>;
  w.assign(static_cast<size_t>(n), C(0));
  vl.assign(static_cast<size_t>(n * n), C(0));
  vr.assign(static_cast<size_t>(n * n), C(0));
  if (n == 0) return 0;
  const RangeScaling<C> range(a);
  int64_t ilo = 0, ihi = 0;
  std::vector<int64_t> perm;
  std::vector<R> scale;
  if (!Balance(a, n, &ilo, &ihi, perm, scale)) {
    const R nan = std::numeric_limits<R>::quiet_NaN();
    std::fill(w.begin(), w.end(), C(nan, nan));
    return 1;
  }
  std::vector<C> tau(static_cast<size_t>(std::max<int64_t>(n - 1, 0)));
  ReduceHessenberg(a, n, ilo + 1, ihi + 1, tau);
  const bool vectors = opt.left || opt.right;
  std::vector<C> z;
  if (vectors) z = FormHessenbergQ(a, n, ilo + 1, ihi + 1, tau);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j + 1 < i; ++j) a[i * n + j] = C(0);
  for (int64_t i = 0; i < n; ++i)
    if (i < ilo || i > ihi) w[i] = a[i * n + i];
  const int info = HessenbergQrComplex(a, n, ilo, ihi, vectors, vectors ? &z : nullptr, w);
  for (C& x : w) range.Unscale(x);
  if (info != 0 || !vectors) return info;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < i; ++j) a[i * n + j] = C(0);
  const R ulp = Limits<R>::kUlp, small = Limits<R>::kSafeMin * (R(n) / ulp);
  for (int64_t k = 0; k < n; ++k) {
    const C lambda = a[k * n + k];
    const R smin = std::max(ulp * Abs1(lambda), small);
    const C init[2] = {C(1), C(0)};
    if (opt.right) BackTransform(z, n, SchurVector(a, n, k, 1, lambda, init, smin, true), vr, k);
    if (opt.left) BackTransform(z, n, SchurVector(a, n, k, 1, lambda, init, smin, false), vl, k);
  }
  for (int side = 0; side < 2; ++side) {
    const bool left = side == 0;
    if (left ? !opt.left : !opt.right) continue;
    std::vector<C>& v = left ? vl : vr;
    Unbalance(v, n, ilo, ihi, perm, scale, left);
    for (int64_t j = 0; j < n; ++j) Normalize(v, n, j, false, false);
  }
  return info;
}

// The operand of geev and gees: (batches of) square f32, f64, complex<f32>
// or complex<f64> matrices, as LAPACK's; their order n and the batch dims.
Status SquareOperand(const std::string& name, const TensorRef& a, int64_t* n, std::vector<int64_t>* batch) {
  if (a.type != ElementType::kF32 && a.type != ElementType::kF64 && a.type != ElementType::kC64 &&
      a.type != ElementType::kC128)
    return InvalidArgument(name + ": the operand must be f32, f64, complex<f32> or complex<f64>, as LAPACK's");
  const int64_t r = a.rank();
  if (r < 2 || a.dims[r - 1] != a.dims[r - 2]) return InvalidArgument(name + ": a must be (batches of) square matrices");
  *n = a.dims[r - 1];
  batch->assign(a.dims.begin(), a.dims.end() - 2);
  return Status::Ok();
}

// One Schur decomposition, gees with jobvs 'V' (`vectors`) or 'N' and no
// sorting: a (n x n row-major) = vs t vs^H with t quasi-triangular (real:
// standardized 2 x 2 blocks) or triangular (complex), left in a; the
// eigenvalues (w: the real parts, wi: the imaginary ones, real types only)
// as lahqr leaves them. gees's path: the range scaling, gebal's
// permutations (no scaling), gehd2 and orghr, lahqr with the Schur form
// and vectors, gebak's permutations on vs. Returns LAPACK's info, or -1
// for a NaN or an infinity in a.
template <typename T>
int Schur(std::vector<T>& a, int64_t n, bool vectors, std::vector<T>& vs, std::vector<T>& w,
          std::vector<RealOf<T>>& wi) {
  using R = RealOf<T>;
  w.assign(static_cast<size_t>(n), T(0));
  wi.assign(static_cast<size_t>(n), R(0));
  vs.assign(static_cast<size_t>(n * n), T(0));
  if (n == 0) return 0;
  const RangeScaling<T> range(a);
  int64_t ilo = 0, ihi = 0;
  std::vector<int64_t> perm;
  std::vector<R> scale;
  if (!Balance(a, n, &ilo, &ihi, perm, scale, /*scaling=*/false)) return -1;
  std::vector<T> tau(static_cast<size_t>(std::max<int64_t>(n - 1, 0)));
  ReduceHessenberg(a, n, ilo + 1, ihi + 1, tau);
  if (vectors) vs = FormHessenbergQ(a, n, ilo + 1, ihi + 1, tau);
  for (int64_t i = 0; i < n; ++i)  // the reflectors give way to the Hessenberg matrix
    for (int64_t j = 0; j + 1 < i; ++j) a[i * n + j] = T(0);
  for (int64_t i = 0; i < n; ++i)
    if (i < ilo || i > ihi) w[i] = a[i * n + i];
  int info;
  if constexpr (std::is_floating_point_v<T>) {
    info = HessenbergQrReal(a, n, ilo, ihi, /*want_t=*/true, vectors ? &vs : nullptr, w, wi);
  } else {
    info = HessenbergQrComplex(a, n, ilo, ihi, /*want_t=*/true, vectors ? &vs : nullptr, w);
  }
  for (int64_t i = 0; i < n; ++i)  // hseqr clears below the subdiagonal
    for (int64_t j = 0; j + 1 < i; ++j) a[i * n + j] = T(0);
  if (vectors) Unbalance(vs, n, ilo, ihi, perm, scale, /*left=*/false);
  for (T& x : a) range.Unscale(x);
  for (int64_t i = 0; i < n; ++i) range.Unscale(w[i]), range.Unscale(wi[i]);
  return info;
}

// kiln.gees: LAPACK's ?gees as jaxlib's FFI calls it (jax.scipy.linalg.
// schur), without sorting. Real a [batch..., n, n]: (t, vs, wr, wi, sdim,
// info[, workspace]); complex a: (t, vs, w, sdim, info[, workspace]): t
// the Schur form, vs the Schur vectors (zero when attr compute_v = 0), sdim
// 0, info LAPACK's (1, with NaN results, for a NaN or an infinity in a),
// workspaces zero. f32, f64, complex<f32> and complex<f64>.
Status Gees(const KernelCall& c) {
  const TensorRef& a = c.inputs.empty() ? TensorRef{} : c.inputs[0];
  const bool complex = IsComplex(a.type);
  const size_t values = complex ? 1 : 2, least = values + 4;
  if (c.inputs.size() != 1 || c.outputs.size() < least || c.outputs.size() > least + 1)
    return InvalidArgument(KernelName(c) + ": expects one operand and (t, vs, " + (complex ? "w" : "wr, wi") +
                           ", sdim, info[, workspace])");
  KILN_RETURN_IF_ERROR(CheckCall(c, 1, c.outputs.size()));
  const std::string name = KernelName(c);
  int64_t n = 0;
  std::vector<int64_t> batch;
  KILN_RETURN_IF_ERROR(SquareOperand(name, a, &n, &batch));
  std::vector<int64_t> vdims = batch;
  vdims.push_back(n);
  for (size_t o = 0; o < 2; ++o) {
    if (c.outputs[o].type != a.type) return InvalidArgument(name + ": t and vs must have the operand's type");
    KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[o], a.dims, o == 0 ? "t" : "vs"));
  }
  for (size_t o = 2; o < 2 + values; ++o) {
    if (c.outputs[o].type != a.type) return InvalidArgument(name + ": the eigenvalues must have the operand's type");
    KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[o], vdims, "eigenvalues"));
  }
  for (size_t o = 2 + values; o < 4 + values; ++o) {
    if (c.outputs[o].type != ElementType::kSI32) return InvalidArgument(name + ": sdim and info must be si32");
    KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[o], batch, o == 2 + values ? "sdim" : "info"));
  }
  for (size_t o = 0; o < c.outputs.size(); ++o)
    for (int64_t e = 0; e < c.outputs[o].NumElements(); ++e) Store(c.outputs[o], e, Scalar{});
  const bool vectors = c.params.Int("compute_v", 1) != 0;
  int64_t batches = 1;
  for (int64_t d : batch) batches *= d;
  const TensorRef& info = c.outputs[3 + values];
  auto run = [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> m, vs, w;
    std::vector<RealOf<T>> wi;
    for (int64_t bi = 0; bi < batches; ++bi) {
      LoadMatrix(a, bi * n * n, n * n, &m);
      const int status = Schur(m, n, vectors, vs, w, wi);
      if (status < 0) {
        const Scalar nan = FromComplex(a.type, {kNaN, kNaN});
        for (int64_t e = 0; e < n * n; ++e) {
          Store(c.outputs[0], bi * n * n + e, nan);
          if (vectors) Store(c.outputs[1], bi * n * n + e, nan);
        }
        for (size_t o = 2; o < 2 + values; ++o)
          for (int64_t i = 0; i < n; ++i) Store(c.outputs[o], bi * n + i, nan);
        Store(info, bi, Scalar{1, 0, 0});
        continue;
      }
      StoreMatrix(c.outputs[0], bi * n * n, m);
      if (vectors) StoreMatrix(c.outputs[1], bi * n * n, vs);
      StoreMatrix(c.outputs[2], bi * n, w);
      if (!complex) StoreMatrix(c.outputs[3], bi * n, wi);
      Store(info, bi, Scalar{status, 0, 0});
    }
  };
  numeric::ForLapackType(a.type, run);
  return Status::Ok();
}

// kiln.geev: LAPACK's ?geev as jaxlib's FFI calls it. Real a [batch..., n,
// n]: (wr, wi, vl, vr, info[, 3 workspaces]) with wr, wi [batch..., n] of
// a's type and vl, vr [batch..., n, n] of its complex type (a conjugate
// pair's vectors unpacked, as jaxlib does). Complex a: (w, vl, vr, info[,
// 2 workspaces]). Attrs compute_left and compute_right (vectors not
// computed come back zero); workspaces come back zero.
Status Geev(const KernelCall& c) {
  const TensorRef& a = c.inputs.empty() ? TensorRef{} : c.inputs[0];
  const bool complex = IsComplex(a.type);
  const size_t values = complex ? 1 : 2, least = values + 3;
  if (c.inputs.size() != 1 || c.outputs.size() < least || c.outputs.size() > least + 3)
    return InvalidArgument(KernelName(c) + ": expects one operand and (" + (complex ? "w" : "wr, wi") +
                           ", vl, vr, info[, workspaces])");
  KILN_RETURN_IF_ERROR(CheckCall(c, 1, c.outputs.size()));
  const std::string name = KernelName(c);
  int64_t n = 0;
  std::vector<int64_t> batch;
  KILN_RETURN_IF_ERROR(SquareOperand(name, a, &n, &batch));
  std::vector<int64_t> vdims = batch;
  vdims.push_back(n);
  const ElementType vector_type =
      complex ? a.type : (a.type == ElementType::kF32 ? ElementType::kC64 : ElementType::kC128);
  for (size_t o = 0; o < values; ++o) {
    if (c.outputs[o].type != a.type) return InvalidArgument(name + ": the eigenvalues must have the operand's type");
    KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[o], vdims, "eigenvalues"));
  }
  for (size_t o = values; o < values + 2; ++o) {
    if (c.outputs[o].type != vector_type)
      return InvalidArgument(name + ": the eigenvectors must be " + std::string(Name(vector_type)));
    KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[o], a.dims, "eigenvectors"));
  }
  const TensorRef& info = c.outputs[values + 2];
  if (info.type != ElementType::kSI32) return InvalidArgument(name + ": info must be si32");
  KILN_RETURN_IF_ERROR(CheckDims(c, info, batch, "info"));
  for (size_t o = values + 3; o < c.outputs.size(); ++o)
    for (int64_t e = 0; e < c.outputs[o].NumElements(); ++e) Store(c.outputs[o], e, Scalar{});
  GeevOptions opt;
  opt.left = c.params.Int("compute_left", 1) != 0;
  opt.right = c.params.Int("compute_right", 1) != 0;
  int64_t batches = 1;
  for (int64_t d : batch) batches *= d;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> m;
    for (int64_t bi = 0; bi < batches; ++bi) {
      LoadMatrix(a, bi * n * n, n * n, &m);
      int status = 0;
      if constexpr (std::is_floating_point_v<T>) {
        std::vector<T> wr, wi;
        std::vector<std::complex<T>> vl, vr;
        status = GeevReal(m, n, opt, wr, wi, vl, vr);
        StoreMatrix(c.outputs[0], bi * n, wr);
        StoreMatrix(c.outputs[1], bi * n, wi);
        StoreMatrix(c.outputs[2], bi * n * n, vl);
        StoreMatrix(c.outputs[3], bi * n * n, vr);
      } else {
        std::vector<T> w, vl, vr;
        status = GeevComplex(m, n, opt, w, vl, vr);
        StoreMatrix(c.outputs[0], bi * n, w);
        StoreMatrix(c.outputs[1], bi * n * n, vl);
        StoreMatrix(c.outputs[2], bi * n * n, vr);
      }
      Store(info, bi, Scalar{status, 0, 0});
    }
  };
  numeric::ForLapackType(a.type, run);
  return Status::Ok();
}

}  // namespace

Status kernel::Geev(const KernelCall& call) { return ref::Geev(call); }
Status kernel::Gees(const KernelCall& call) { return ref::Gees(call); }

}  // namespace kiln::ref

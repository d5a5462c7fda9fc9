// The reference singular value decompositions, kiln.gesdd and kiln.gesvd,
// as JAX calls LAPACK's ?gesdd (jnp.linalg.svd) and ?gesvd (its
// algorithm=QR) on the CPU. A singular vector's sign (or phase) has no
// mathematical convention: LAPACK's follows from its algorithm, and the
// programs JAX exports carry it. So both follow LAPACK's path in the
// element type (f32 in float, as sgesdd):
//
//   - a matrix much taller than wide is first factored A = QR (geqr2), one
//     much wider than tall A = LQ (the QR of A^H); "much" is gesdd's
//     m >= 11n/6 (17n/9 for complex) and gesvd's m >= 1.6n;
//   - the bidiagonal reduction gebd2 (upper for m >= n; for m < n LAPACK's
//     lower form, computed here as the reduction of A^H, which is the same
//     arithmetic);
//   - the bidiagonal SVD: bdsqr's implicit zero-shift and shifted QR
//     sweeps (its convergence tests, its chase direction, las2's shift,
//     lasv2's 2 x 2 blocks, lartg's rotations), the signs made positive on
//     VT, and the sorts of bdsqr (and, for gesdd, of lasdq and bdsdc); a
//     lower bidiagonal matrix first rotated upper as bdsdc (gesdd) or bdsqr
//     (gesvd) does;
//   - the reflectors applied back as ormbr / orgbr and ormqr do.
//
// LAPACK's bdsdc runs this path up to n = 25 and divide and conquer
// beyond, and from min(m, n) = 128 on gebrd is blocked: there the vectors'
// signs can differ from LAPACK's (the values agree within rounding).
// Singular values only (mode 'N'): LAPACK computes them by dqds (lasq1),
// here by the same QR sweeps; they agree within rounding.
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
using householder::Larfg;
using householder::RealOf;
using householder::Rotation;
using numeric::CheckCall;
using numeric::CheckDims;
using numeric::FromComplex;
using numeric::KernelName;
using numeric::LoadMatrix;
using numeric::Store;
using numeric::StoreMatrix;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A row-major matrix.
template <typename T>
struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<T> at;
  Matrix() = default;
  Matrix(int64_t r, int64_t c) : rows(r), cols(c), at(static_cast<size_t>(r * c), T(0)) {}
  T& operator()(int64_t i, int64_t j) { return at[i * cols + j]; }
  const T& operator()(int64_t i, int64_t j) const { return at[i * cols + j]; }
};

template <typename T>
Matrix<T> ConjTranspose(const Matrix<T>& a) {
  Matrix<T> t(a.cols, a.rows);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < a.cols; ++j) t(j, i) = Conj(a(i, j));
  return t;
}

// rows x cols: `top` in its top-left corner, the identity on the rest of
// the diagonal (how ormbr / ormqr extend a small factor to a full one).
template <typename T, typename S>
Matrix<T> Extend(const Matrix<S>& top, int64_t rows, int64_t cols) {
  Matrix<T> w(rows, cols);
  for (int64_t i = 0; i < top.rows; ++i)
    for (int64_t j = 0; j < top.cols && j < cols; ++j) w(i, j) = T(top(i, j));
  for (int64_t i = top.rows; i < std::min(rows, cols); ++i) w(i, i) = T(1);
  return w;
}

// H = I - tau v v^H acting on indices first .. first + v.size() - 1, v[0] = 1.
template <typename T>
struct Reflector {
  int64_t first = 0;
  std::vector<T> v;
  T tau = T(0);
};

// x := H x (rows first.., columns from `col` on), rounded as larf's gemv
// and ger; tau is h's, or its conjugate for H^H.
template <typename T>
void ReflectLeft(Matrix<T>& x, const Reflector<T>& h, T tau, int64_t col = 0) {
  if (tau == T(0)) return;
  const int64_t len = static_cast<int64_t>(h.v.size());
  for (int64_t j = col; j < x.cols; ++j) {
    T w = T(0);
    for (int64_t k = 0; k < len; ++k) w += Conj(h.v[k]) * x(h.first + k, j);
    const T tw = tau * w;
    for (int64_t k = 0; k < len; ++k) x(h.first + k, j) -= h.v[k] * tw;
  }
}

// x := x H on columns first.. of rows from `row` on.
template <typename T>
void ReflectRight(Matrix<T>& x, int64_t row, const Reflector<T>& h, T tau) {
  if (tau == T(0)) return;
  const int64_t len = static_cast<int64_t>(h.v.size());
  for (int64_t i = row; i < x.rows; ++i) {
    T w = T(0);
    for (int64_t k = 0; k < len; ++k) w += x(i, h.first + k) * h.v[k];
    const T tw = tau * w;
    for (int64_t k = 0; k < len; ++k) x(i, h.first + k) -= tw * Conj(h.v[k]);
  }
}

// x := H(0) H(1) ... H(k-1) x, H(k-1) applied first (ormqr / ormbr 'N').
template <typename T>
void ApplyProduct(const std::vector<Reflector<T>>& hs, Matrix<T>& x) {
  for (auto h = hs.rbegin(); h != hs.rend(); ++h) ReflectLeft(x, *h, h->tau);
}

// The reflector larfg builds from column `col` of a, rows from..: a(from,
// col) becomes beta, and the reflector's vector is read back.
template <typename T>
Reflector<T> ColumnReflector(Matrix<T>& a, int64_t from, int64_t col) {
  Reflector<T> h;
  h.first = from;
  const int64_t len = a.rows - from - 1;
  h.tau = Larfg(&a(from, col), &a(std::min(from + 1, a.rows - 1), col), len, a.cols);
  h.v.assign(static_cast<size_t>(len + 1), T(1));
  for (int64_t k = 1; k <= len; ++k) h.v[k] = a(from + k, col);
  return h;
}

// geqr2 on a tall a (m >= n): R left in a's upper triangle (below it the
// reflectors' vectors, which the caller does not read), A = H(0) ... H(n-1) R.
template <typename T>
std::vector<Reflector<T>> FactorQr(Matrix<T>& a) {
  std::vector<Reflector<T>> hs;
  for (int64_t i = 0; i < a.cols; ++i) {
    Reflector<T> h = ColumnReflector(a, i, i);
    ReflectLeft(a, h, Conj(h.tau), i + 1);  // H^H on a(i:, i+1:), as geqr2's larf with conj(tau)
    hs.push_back(std::move(h));
  }
  return hs;
}

// gebd2 on a with m >= n: A = Q B P^H, B upper bidiagonal with diagonal d
// and superdiagonal e (real), Q = H(0) ... H(n-1) (q), P = G(0) ... G(n-2)
// (p, acting on indices 1..).
template <typename T>
void Bidiagonalize(Matrix<T> a, std::vector<RealOf<T>>& d, std::vector<RealOf<T>>& e,
                   std::vector<Reflector<T>>& q, std::vector<Reflector<T>>& p) {
  const int64_t n = a.cols;
  d.assign(static_cast<size_t>(n), 0);
  e.assign(static_cast<size_t>(std::max<int64_t>(n - 1, 0)), 0);
  q.clear();
  p.clear();
  for (int64_t i = 0; i < n; ++i) {
    Reflector<T> h = ColumnReflector(a, i, i);
    d[i] = std::real(a(i, i));
    ReflectLeft(a, h, Conj(h.tau), i + 1);  // H^H on a(i:m, i+1:n)
    q.push_back(std::move(h));
    if (i + 1 < n) {
      // The row reflector of conj(a(i, i+1:n)) (gebd2's lacgv, larfg),
      // applied from the right to a(i+1:m, i+1:n).
      for (int64_t j = i + 1; j < n; ++j) a(i, j) = Conj(a(i, j));
      Reflector<T> g;
      g.first = i + 1;
      const int64_t glen = n - i - 2;
      g.tau = Larfg(&a(i, i + 1), &a(i, std::min(i + 2, n - 1)), glen, 1);
      e[i] = std::real(a(i, i + 1));
      g.v.assign(static_cast<size_t>(glen + 1), T(1));
      for (int64_t k = 1; k <= glen; ++k) g.v[k] = a(i, i + 1 + k);
      ReflectRight(a, i + 1, g, g.tau);
      p.push_back(std::move(g));
    }
  }
}

// lasr's plane rotations (c[j], s[j]) on rows (first + j, first + j + 1) of
// x: forward (j ascending) or backward ('L', 'V').
template <typename R>
void RotateRows(Matrix<R>& x, int64_t first, int64_t count, const R* c, const R* s, bool forward) {
  for (int64_t step = 0; step + 1 < count; ++step) {
    const int64_t j = forward ? step : count - 2 - step;
    const R ct = c[j], st = s[j];
    if (ct == 1 && st == 0) continue;
    for (int64_t i = 0; i < x.cols; ++i) {
      const R temp = x(first + j + 1, i);
      x(first + j + 1, i) = ct * temp - st * x(first + j, i);
      x(first + j, i) = st * temp + ct * x(first + j, i);
    }
  }
}

// The same on columns ('R', 'V').
template <typename R>
void RotateColumns(Matrix<R>& x, int64_t first, int64_t count, const R* c, const R* s, bool forward) {
  for (int64_t step = 0; step + 1 < count; ++step) {
    const int64_t j = forward ? step : count - 2 - step;
    const R ct = c[j], st = s[j];
    if (ct == 1 && st == 0) continue;
    for (int64_t i = 0; i < x.rows; ++i) {
      const R temp = x(i, first + j + 1);
      x(i, first + j + 1) = ct * temp - st * x(i, first + j);
      x(i, first + j) = st * temp + ct * x(i, first + j);
    }
  }
}

// las2: the singular values of the upper triangular [f g; 0 h].
template <typename R>
void SingularValues2x2(R f, R g, R h, R* ssmin, R* ssmax) {
  const R fa = std::abs(f), ga = std::abs(g), ha = std::abs(h);
  const R fhmn = std::min(fa, ha), fhmx = std::max(fa, ha);
  if (fhmn == 0) {
    *ssmin = 0;
    if (fhmx == 0) {
      *ssmax = ga;
    } else {
      const R big = std::max(fhmx, ga), small = std::min(fhmx, ga);
      *ssmax = big * std::sqrt(1 + (small / big) * (small / big));
    }
  } else if (ga < fhmx) {
    const R as = 1 + fhmn / fhmx, at = (fhmx - fhmn) / fhmx, au = (ga / fhmx) * (ga / fhmx);
    const R c = 2 / (std::sqrt(as * as + au) + std::sqrt(at * at + au));
    *ssmin = fhmn * c;
    *ssmax = fhmx / c;
  } else {
    const R au = fhmx / ga;
    if (au == 0) {
      *ssmin = (fhmn * fhmx) / ga;
      *ssmax = ga;
    } else {
      const R as = 1 + fhmn / fhmx, at = (fhmx - fhmn) / fhmx;
      const R c = 1 / (std::sqrt(1 + (as * au) * (as * au)) + std::sqrt(1 + (at * au) * (at * au)));
      *ssmin = (fhmn * c) * au;
      *ssmin = *ssmin + *ssmin;
      *ssmax = ga / (c + c);
    }
  }
}

// lasv2: the SVD of the upper triangular [f g; 0 h]:
// [csl snl; -snl csl] [f g; 0 h] [csr -snr; snr csr] = [ssmax 0; 0 ssmin],
// with the signs LAPACK gives ssmax and ssmin.
template <typename R>
void Svd2x2(R f, R g, R h, R* ssmin, R* ssmax, R* snr, R* csr, R* snl, R* csl) {
  auto sign = [](R a, R b) { return std::copysign(std::abs(a), b); };
  R ft = f, fa = std::abs(ft), ht = h, ha = std::abs(h);
  int pmax = 1;
  const bool swap = ha > fa;
  if (swap) {
    pmax = 3;
    std::swap(ft, ht);
    std::swap(fa, ha);
  }
  const R gt = g, ga = std::abs(gt);
  R clt, crt, slt, srt;
  if (ga == 0) {
    *ssmin = ha;
    *ssmax = fa;
    clt = 1, crt = 1, slt = 0, srt = 0;
  } else {
    bool gasmal = true;
    if (ga > fa) {
      pmax = 2;
      if (fa / ga < std::numeric_limits<R>::epsilon() / 2) {  // dlamch('EPS'): the relative machine precision
        gasmal = false;
        *ssmax = ga;
        *ssmin = ha > 1 ? fa / (ga / ha) : (fa / ga) * ha;
        clt = 1;
        slt = ht / gt;
        srt = 1;
        crt = ft / gt;
      }
    }
    if (gasmal) {
      const R dd = fa - ha;
      R l = dd == fa ? R(1) : dd / fa;
      const R mm_ = gt / ft;
      R t = 2 - l;
      const R mm = mm_ * mm_, tt = t * t;
      const R s = std::sqrt(tt + mm);
      const R r = l == 0 ? std::abs(mm_) : std::sqrt(l * l + mm);
      const R a = R(0.5) * (s + r);
      *ssmin = ha / a;
      *ssmax = fa * a;
      if (mm == 0) {
        if (l == 0) t = sign(2, ft) * sign(1, gt);
        else t = gt / sign(dd, ft) + mm_ / t;
      } else {
        t = (mm_ / (s + t) + mm_ / (r + l)) * (1 + a);
      }
      l = std::sqrt(t * t + 4);
      crt = 2 / l;
      srt = t / l;
      clt = (crt + srt * mm_) / a;
      slt = (ht / ft) * srt / a;
    }
  }
  if (swap) {
    *csl = srt, *snl = crt, *csr = slt, *snr = clt;
  } else {
    *csl = clt, *snl = slt, *csr = crt, *snr = srt;
  }
  R tsign = 1;
  if (pmax == 1) tsign = sign(1, *csr) * sign(1, *csl) * sign(1, f);
  if (pmax == 2) tsign = sign(1, *snr) * sign(1, *csl) * sign(1, g);
  if (pmax == 3) tsign = sign(1, *snr) * sign(1, *snl) * sign(1, h);
  *ssmax = sign(*ssmax, tsign);
  *ssmin = sign(*ssmin, tsign * sign(1, f) * sign(1, h));
}

// Swaps singular vectors i and j: rows of vt, columns of u (either null).
template <typename R>
void SwapVectors(Matrix<R>* vt, Matrix<R>* u, int64_t i, int64_t j) {
  if (vt)
    for (int64_t k = 0; k < vt->cols; ++k) std::swap((*vt)(i, k), (*vt)(j, k));
  if (u)
    for (int64_t k = 0; k < u->rows; ++k) std::swap((*u)(k, i), (*u)(k, j));
}

// bdsqr on the n x n upper bidiagonal (d, e) with vt's rows and u's
// columns rotated along (n x n each; null: values only). Leaves d
// nonnegative (signs moved into vt's rows) and descending (bdsqr's
// selection sort). Returns bdsqr's info: 0, or the number of off-diagonal
// entries that did not converge. Indices in the body are LAPACK's, 1-based.
template <typename R>
int BidiagonalQr(std::vector<R>& dv, std::vector<R>& ev, int64_t n, Matrix<R>* vt, Matrix<R>* u) {
  if (n == 0) return 0;
  auto D = [&](int64_t i) -> R& { return dv[i - 1]; };
  auto E = [&](int64_t i) -> R& { return ev[i - 1]; };
  const R eps = std::numeric_limits<R>::epsilon() / 2, unfl = std::numeric_limits<R>::min();
  const int maxitr = 6;
  std::vector<R> c1(n), s1(n), c2(n), s2(n);  // bdsqr's WORK(1), WORK(N), WORK(NM12+1), WORK(NM13+1)
  auto rot_vt = [&](int64_t ll, int64_t m, const std::vector<R>& c, const std::vector<R>& s, bool fwd) {
    if (vt) RotateRows(*vt, ll - 1, m - ll + 1, c.data(), s.data(), fwd);
  };
  auto rot_u = [&](int64_t ll, int64_t m, const std::vector<R>& c, const std::vector<R>& s, bool fwd) {
    if (u) RotateColumns(*u, ll - 1, m - ll + 1, c.data(), s.data(), fwd);
  };
  int info = 0;
  if (n > 1) {
    const R tolmul = std::max(R(10), std::min(R(100), std::pow(eps, R(-0.125))));
    const R tol = tolmul * eps;
    R smax = 0;
    for (int64_t i = 1; i <= n; ++i) smax = std::max(smax, std::abs(D(i)));
    for (int64_t i = 1; i < n; ++i) smax = std::max(smax, std::abs(E(i)));
    R sminoa = std::abs(D(1));
    if (sminoa != 0) {
      R mu = sminoa;
      for (int64_t i = 2; i <= n; ++i) {
        mu = std::abs(D(i)) * (mu / (mu + std::abs(E(i - 1))));
        sminoa = std::min(sminoa, mu);
        if (sminoa == 0) break;
      }
    }
    sminoa = sminoa / std::sqrt(static_cast<R>(n));
    const R thresh = std::max(tol * sminoa, maxitr * (n * (n * unfl)));
    const int64_t maxitdivn = maxitr * n;
    int64_t iterdivn = 0, iter = -1, oldll = -1, oldm = -1, m = n, idir = 0;
    R smin = 0;
    bool failed = false;
    while (m > 1) {
      if (iter >= n) {
        iter -= n;
        ++iterdivn;
        if (iterdivn >= maxitdivn) {
          failed = true;
          break;
        }
      }
      // Find the diagonal block to work on.
      smax = std::abs(D(m));
      int64_t ll = 0;
      bool split = false;
      for (int64_t lll = 1; lll <= m - 1; ++lll) {
        ll = m - lll;
        const R abss = std::abs(D(ll)), abse = std::abs(E(ll));
        if (abse <= thresh || abse == 0) {
          split = true;
          break;
        }
        smax = std::max({smax, abss, abse});
      }
      if (split) {
        E(ll) = 0;
        if (ll == m - 1) {  // the bottom singular value converged
          m -= 1;
          continue;
        }
      } else {
        ll = 0;
      }
      ll += 1;
      // E(ll) .. E(m-1) nonzero, E(ll-1) zero.
      if (ll == m - 1) {  // a 2 x 2 block
        R sigmn, sigmx, sinr, cosr, sinl, cosl;
        Svd2x2(D(m - 1), E(m - 1), D(m), &sigmn, &sigmx, &sinr, &cosr, &sinl, &cosl);
        D(m - 1) = sigmx;
        E(m - 1) = 0;
        D(m) = sigmn;
        if (vt)  // drot on rows m-1, m
          for (int64_t j = 0; j < vt->cols; ++j) {
            const R x = (*vt)(m - 2, j), y = (*vt)(m - 1, j);
            (*vt)(m - 2, j) = cosr * x + sinr * y;
            (*vt)(m - 1, j) = cosr * y - sinr * x;
          }
        if (u)  // drot on columns m-1, m
          for (int64_t i = 0; i < u->rows; ++i) {
            const R x = (*u)(i, m - 2), y = (*u)(i, m - 1);
            (*u)(i, m - 2) = cosl * x + sinl * y;
            (*u)(i, m - 1) = cosl * y - sinl * x;
          }
        m -= 2;
        continue;
      }
      // A new block: chase from the larger end diagonal entry.
      if (ll > oldm || m < oldll) idir = std::abs(D(ll)) >= std::abs(D(m)) ? 1 : 2;
      // Convergence tests.
      bool converged = false;
      if (idir == 1) {
        if (std::abs(E(m - 1)) <= std::abs(tol) * std::abs(D(m))) {
          E(m - 1) = 0;
          continue;
        }
        R mu = std::abs(D(ll));
        smin = mu;
        for (int64_t lll = ll; lll <= m - 1; ++lll) {
          if (std::abs(E(lll)) <= tol * mu) {
            E(lll) = 0;
            converged = true;
            break;
          }
          mu = std::abs(D(lll + 1)) * (mu / (mu + std::abs(E(lll))));
          smin = std::min(smin, mu);
        }
      } else {
        if (std::abs(E(ll)) <= std::abs(tol) * std::abs(D(ll))) {
          E(ll) = 0;
          continue;
        }
        R mu = std::abs(D(m));
        smin = mu;
        for (int64_t lll = m - 1; lll >= ll; --lll) {
          if (std::abs(E(lll)) <= tol * mu) {
            E(lll) = 0;
            converged = true;
            break;
          }
          mu = std::abs(D(lll)) * (mu / (mu + std::abs(E(lll))));
          smin = std::min(smin, mu);
        }
      }
      if (converged) continue;
      oldll = ll;
      oldm = m;
      // The shift: zero when shifting would ruin relative accuracy.
      R shift = 0, r = 0;
      if (!(n * tol * (smin / smax) <= std::max(eps, R(0.01) * tol))) {
        R sll;
        if (idir == 1) {
          sll = std::abs(D(ll));
          SingularValues2x2(D(m - 1), E(m - 1), D(m), &shift, &r);
        } else {
          sll = std::abs(D(m));
          SingularValues2x2(D(ll), E(ll), D(ll + 1), &shift, &r);
        }
        if (sll > 0 && (shift / sll) * (shift / sll) < eps) shift = 0;
      }
      iter += m - ll;
      if (shift == 0) {  // the simplified (zero-shift) QR sweep
        R cs = 1, oldcs = 1, sn = 0, oldsn = 0;
        if (idir == 1) {
          for (int64_t i = ll; i <= m - 1; ++i) {
            Rotation(D(i) * cs, E(i), &cs, &sn, &r);
            if (i > ll) E(i - 1) = oldsn * r;
            Rotation(oldcs * r, D(i + 1) * sn, &oldcs, &oldsn, &D(i));
            c1[i - ll] = cs, s1[i - ll] = sn, c2[i - ll] = oldcs, s2[i - ll] = oldsn;
          }
          const R h = D(m) * cs;
          D(m) = h * oldcs;
          E(m - 1) = h * oldsn;
          rot_vt(ll, m, c1, s1, true);
          rot_u(ll, m, c2, s2, true);
          if (std::abs(E(m - 1)) <= thresh) E(m - 1) = 0;
        } else {
          for (int64_t i = m; i >= ll + 1; --i) {
            Rotation(D(i) * cs, E(i - 1), &cs, &sn, &r);
            if (i < m) E(i) = oldsn * r;
            Rotation(oldcs * r, D(i - 1) * sn, &oldcs, &oldsn, &D(i));
            c1[i - ll - 1] = cs, s1[i - ll - 1] = -sn, c2[i - ll - 1] = oldcs, s2[i - ll - 1] = -oldsn;
          }
          const R h = D(ll) * cs;
          D(ll) = h * oldcs;
          E(ll) = h * oldsn;
          rot_vt(ll, m, c2, s2, false);
          rot_u(ll, m, c1, s1, false);
          if (std::abs(E(ll)) <= thresh) E(ll) = 0;
        }
      } else {  // the shifted QR sweep
        R cosr, sinr, cosl, sinl;
        if (idir == 1) {
          R f = (std::abs(D(ll)) - shift) * (std::copysign(R(1), D(ll)) + shift / D(ll));
          R g = E(ll);
          for (int64_t i = ll; i <= m - 1; ++i) {
            Rotation(f, g, &cosr, &sinr, &r);
            if (i > ll) E(i - 1) = r;
            f = cosr * D(i) + sinr * E(i);
            E(i) = cosr * E(i) - sinr * D(i);
            g = sinr * D(i + 1);
            D(i + 1) = cosr * D(i + 1);
            Rotation(f, g, &cosl, &sinl, &r);
            D(i) = r;
            f = cosl * E(i) + sinl * D(i + 1);
            D(i + 1) = cosl * D(i + 1) - sinl * E(i);
            if (i < m - 1) {
              g = sinl * E(i + 1);
              E(i + 1) = cosl * E(i + 1);
            }
            c1[i - ll] = cosr, s1[i - ll] = sinr, c2[i - ll] = cosl, s2[i - ll] = sinl;
          }
          E(m - 1) = f;
          rot_vt(ll, m, c1, s1, true);
          rot_u(ll, m, c2, s2, true);
          if (std::abs(E(m - 1)) <= thresh) E(m - 1) = 0;
        } else {
          R f = (std::abs(D(m)) - shift) * (std::copysign(R(1), D(m)) + shift / D(m));
          R g = E(m - 1);
          for (int64_t i = m; i >= ll + 1; --i) {
            Rotation(f, g, &cosr, &sinr, &r);
            if (i < m) E(i) = r;
            f = cosr * D(i) + sinr * E(i - 1);
            E(i - 1) = cosr * E(i - 1) - sinr * D(i);
            g = sinr * D(i - 1);
            D(i - 1) = cosr * D(i - 1);
            Rotation(f, g, &cosl, &sinl, &r);
            D(i) = r;
            f = cosl * E(i - 1) + sinl * D(i - 1);
            D(i - 1) = cosl * D(i - 1) - sinl * E(i - 1);
            if (i > ll + 1) {
              g = sinl * E(i - 2);
              E(i - 2) = cosl * E(i - 2);
            }
            c1[i - ll - 1] = cosr, s1[i - ll - 1] = -sinr, c2[i - ll - 1] = cosl, s2[i - ll - 1] = -sinl;
          }
          E(ll) = f;
          if (std::abs(E(ll)) <= thresh) E(ll) = 0;
          rot_vt(ll, m, c2, s2, false);
          rot_u(ll, m, c1, s1, false);
        }
      }
    }
    if (failed) {
      for (int64_t i = 1; i < n; ++i)
        if (E(i) != 0) ++info;
      return info;
    }
  }
  // Make the singular values positive (the sign moved into vt's row).
  for (int64_t i = 1; i <= n; ++i) {
    if (D(i) == 0) D(i) = 0;  // no -0
    if (D(i) < 0) {
      D(i) = -D(i);
      if (vt)
        for (int64_t j = 0; j < vt->cols; ++j) (*vt)(i - 1, j) = -(*vt)(i - 1, j);
    }
  }
  // Sort descending, one transposition per vector.
  for (int64_t i = 1; i <= n - 1; ++i) {
    int64_t isub = 1;
    R smin = D(1);
    for (int64_t j = 2; j <= n + 1 - i; ++j)
      if (D(j) <= smin) isub = j, smin = D(j);
    if (isub != n + 1 - i) {
      D(isub) = D(n + 1 - i);
      D(n + 1 - i) = smin;
      SwapVectors(vt, u, isub - 1, n - i);
    }
  }
  return info;
}

// The SVD of the n x n bidiagonal (d, e), upper or lower: d's singular
// values descending, u and vt (n x n) with B = u diag(d) vt. `divide`
// (gesdd) follows bdsdc's path for n <= 25: the sign of a 1 x 1 in u, a
// lower matrix rotated upper with the rotations applied to u at the end,
// bdsqr's result re-sorted by lasdq (ascending) and bdsdc (descending).
// Otherwise (gesvd) bdsqr's: the 1 x 1 sign in vt, the rotations applied to
// u first. Returns bdsqr's info.
template <typename R>
int BidiagonalSvd(std::vector<R>& d, std::vector<R>& e, int64_t n, bool lower, bool divide, bool vectors,
                  Matrix<R>& u, Matrix<R>& vt) {
  u = Extend<R>(Matrix<R>(), n, n);
  vt = Extend<R>(Matrix<R>(), n, n);
  Matrix<R>* pu = vectors ? &u : nullptr;
  Matrix<R>* pvt = vectors ? &vt : nullptr;
  if (n == 1 && divide) {
    u(0, 0) = std::copysign(R(1), d[0]);
    d[0] = std::abs(d[0]);
    return 0;
  }
  std::vector<R> cs(static_cast<size_t>(std::max<int64_t>(n, 1))), sn(cs.size());
  if (lower) {
    for (int64_t i = 0; i + 1 < n; ++i) {
      R r;
      Rotation(d[i], e[i], &cs[i], &sn[i], &r);
      d[i] = r;
      e[i] = sn[i] * d[i + 1];
      d[i + 1] = cs[i] * d[i + 1];
    }
    if (!divide && pu) RotateColumns(u, 0, n, cs.data(), sn.data(), true);
  }
  const int info = BidiagonalQr(d, e, n, pvt, pu);
  if (divide) {
    for (int64_t i = 0; i < n; ++i) {  // lasdq: ascending
      int64_t isub = i;
      for (int64_t j = i + 1; j < n; ++j)
        if (d[j] < d[isub]) isub = j;
      if (isub != i) {
        std::swap(d[isub], d[i]);
        SwapVectors(pvt, pu, isub, i);
      }
    }
    for (int64_t i = 0; i + 1 < n; ++i) {  // bdsdc: descending
      int64_t kk = i;
      for (int64_t j = i + 1; j < n; ++j)
        if (d[j] > d[kk]) kk = j;
      if (kk != i) {
        std::swap(d[kk], d[i]);
        SwapVectors(pvt, pu, kk, i);
      }
    }
    if (lower && pu) {
      for (int64_t i = 0; i + 1 < n; ++i) sn[i] = -sn[i];
      RotateRows(u, 0, n, cs.data(), sn.data(), false);
    }
  }
  return info;
}

// One SVD, A = u diag(s) vt, m x n, by LAPACK's gesdd (`divide`) or gesvd
// path; mode 'A' (u m x m, vt n x n), 'S' (m x k, k x n) or 'N' (s only).
// Returns LAPACK's info, or -1 for a NaN or an infinity in a.
template <typename T>
int Svd(const Matrix<T>& given, int64_t mode, bool divide, std::vector<RealOf<T>>& s, Matrix<T>& u, Matrix<T>& vt) {
  using R = RealOf<T>;
  const int64_t m = given.rows, n = given.cols, k = std::min(m, n);
  const bool vectors = mode != 'N';
  const int64_t uc = mode == 'A' ? m : k, vr = mode == 'A' ? n : k;
  s.assign(static_cast<size_t>(k), R(0));
  u = Extend<T>(Matrix<T>(), m, vectors ? uc : 0);
  vt = Extend<T>(Matrix<T>(), vectors ? vr : 0, n);
  R anrm = 0;
  for (const T& x : given.at) {
    if (!std::isfinite(std::real(x)) || !std::isfinite(std::imag(x))) return -1;
    anrm = std::max(anrm, std::abs(x));
  }
  if (k == 0) return 0;
  // gesdd / gesvd scale a matrix whose largest entry is outside [smlnum, bignum].
  const R smlnum = std::sqrt(std::numeric_limits<R>::min()) / (std::numeric_limits<R>::epsilon() / 2);
  const R bignum = 1 / smlnum;
  R scale = 1;
  if (anrm > 0 && anrm < smlnum) scale = smlnum / anrm;
  else if (anrm > bignum) scale = bignum / anrm;
  // The tall matrix factored: a itself, or a^H for a wide a (LAPACK's LQ
  // and lower bidiagonal forms are the conjugate transposes of these).
  const bool wide = m < n;
  Matrix<T> x = wide ? ConjTranspose(given) : given;
  if (scale != 1)
    for (T& v : x.at) v *= scale;
  const int64_t tm = x.rows;  // x is tm x k
  const bool complex = !std::is_floating_point_v<T>;
  const int64_t threshold = divide ? static_cast<int64_t>(k * (complex ? 17.0 / 9.0 : 11.0 / 6.0))
                                   : static_cast<int64_t>(static_cast<float>(k) * 1.6f);
  const bool qr_first = tm >= threshold;
  std::vector<Reflector<T>> qr;
  Matrix<T> core = x;
  if (qr_first) {
    qr = FactorQr(core);  // core: R in its top k rows
    Matrix<T> r(k, k);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = i; j < k; ++j) r(i, j) = core(i, j);
    core = wide ? ConjTranspose(r) : r;  // a wide a's L = R^H is reduced itself
  }
  std::vector<R> d, e;
  std::vector<Reflector<T>> q, p;
  Bidiagonalize(core, d, e, q, p);
  // Only a wide a reduced without LQ has a lower bidiagonal form.
  const bool lower = wide && !qr_first;
  Matrix<R> ub, vtb;
  const int info = BidiagonalSvd(d, e, k, lower, divide, vectors, ub, vtb);
  for (int64_t i = 0; i < k; ++i) s[i] = scale != 1 ? d[i] / scale : d[i];
  if (!vectors) return info;
  // core = q B p^H with B = ub diag(d) vtb: u = q ub and vt^H = p vtb^H.
  // The lower form is B^T of x = a^H = q B p^H: a = p B^T q^H, so there u
  // = p ub and vt^H = q vtb^H. Extended by the identity to mode 'A''s size.
  Matrix<T> left, right;  // u, and vt^H
  if (!lower) {
    left = Extend<T>(ub, core.rows, qr_first ? k : uc);
    ApplyProduct(q, left);
    right = Extend<T>(ConjTranspose(vtb), k, k);
    ApplyProduct(p, right);
  } else {
    left = Extend<T>(ub, k, k);
    ApplyProduct(p, left);
    right = Extend<T>(ConjTranspose(vtb), tm, vr);
    ApplyProduct(q, right);
  }
  if (qr_first) {  // the QR's Q (the LQ's, for a wide a) carries them to a's longer side
    Matrix<T>& side = wide ? right : left;
    Matrix<T> full = Extend<T>(side, tm, wide ? vr : uc);
    ApplyProduct(qr, full);
    side = std::move(full);
  }
  u = std::move(left);
  vt = ConjTranspose(right);
  return info;
}

// kiln.gesdd and kiln.gesvd: (a) -> (a', s, u, vt, info[, workspace...])
// as LAPACK's ?gesdd / ?gesvd for a real or complex a [batch..., m, n], k
// = min(m, n): s [batch..., k] (a's real type) descending; with attr mode
// 'A' (65) u [.., m, m] and vt [.., n, n], 'S' (83) u [.., m, k] and vt
// [.., k, n], 'N' (78) neither (u and vt, whatever their shape, zero); vt
// is V^H (a = u diag(s) vt); a' (LAPACK leaves a destroyed) and the
// workspaces zero; info LAPACK's (1 with NaN results for a NaN or an
// infinity in a). f16 / bf16 are computed in float.
Status Svd(const KernelCall& c, bool divide) {
  const std::string name = KernelName(c);
  if (c.inputs.size() != 1 || c.outputs.size() < 5)
    return InvalidArgument(name + ": expects one operand and (a, s, u, vt, info[, workspace...])");
  KILN_RETURN_IF_ERROR(CheckCall(c, 1, c.outputs.size()));
  const TensorRef& a = c.inputs[0];
  const int64_t r = a.rank();
  const bool complex = IsComplex(a.type);
  if ((!IsFloat(a.type) && !complex) || r < 2)
    return InvalidArgument(name + ": the operand must be (batches of) float or complex matrices");
  for (size_t o : {0, 2, 3})
    if (c.outputs[o].type != a.type) return InvalidArgument(name + ": a, u and vt must have the operand's type");
  if (c.outputs[1].type != (complex ? ComplexPartType(a.type) : a.type))
    return InvalidArgument(name + ": s must have the operand's real type");
  if (c.outputs[4].type != ElementType::kSI32) return InvalidArgument(name + ": info must be si32");
  const int64_t m = a.dims[r - 2], n = a.dims[r - 1], k = std::min(m, n);
  std::vector<int64_t> batch(a.dims.begin(), a.dims.end() - 2);
  auto with = [&](std::initializer_list<int64_t> tail) {
    std::vector<int64_t> d = batch;
    d.insert(d.end(), tail);
    return d;
  };
  const int64_t mode = c.params.Int("mode", 'S');
  if (mode != 'A' && mode != 'S' && mode != 'N') return InvalidArgument(name + ": mode must be 'A', 'S' or 'N'");
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[0], a.dims, "a"));
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[1], with({k}), "s"));
  const int64_t uc = mode == 'A' ? m : k, vr = mode == 'A' ? n : k;
  if (mode != 'N') {
    KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[2], with({m, uc}), "u"));
    KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[3], with({vr, n}), "vt"));
  }
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[4], batch, "info"));
  for (size_t o = 0; o < c.outputs.size(); ++o)
    if (o != 1 && o != 4)
      for (int64_t i = 0; i < c.outputs[o].NumElements(); ++i) Store(c.outputs[o], i, Scalar{});
  int64_t batches = 1;
  for (int64_t d : batch) batches *= d;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    Matrix<T> given(m, n), u, vt;
    std::vector<RealOf<T>> s;
    for (int64_t bi = 0; bi < batches; ++bi) {
      LoadMatrix(a, bi * m * n, m * n, &given.at);
      const int info = Svd(given, mode, divide, s, u, vt);
      if (info < 0) {
        for (int64_t j = 0; j < k; ++j) Store(c.outputs[1], bi * k + j, FromComplex(c.outputs[1].type, {kNaN, 0}));
        if (mode != 'N') {
          for (int64_t e = 0; e < m * uc; ++e) Store(c.outputs[2], bi * m * uc + e, FromComplex(a.type, {kNaN, 0}));
          for (int64_t e = 0; e < vr * n; ++e) Store(c.outputs[3], bi * vr * n + e, FromComplex(a.type, {kNaN, 0}));
        }
        Store(c.outputs[4], bi, Scalar{1, 0, 0});
        continue;
      }
      StoreMatrix(c.outputs[1], bi * k, s);
      if (mode != 'N') {
        StoreMatrix(c.outputs[2], bi * m * uc, u.at);
        StoreMatrix(c.outputs[3], bi * vr * n, vt.at);
      }
      Store(c.outputs[4], bi, Scalar{info, 0, 0});
    }
  };
  numeric::ForLapackType(a.type, run);
  return Status::Ok();
}

}  // namespace

Status kernel::Gesdd(const KernelCall& call) { return ref::Svd(call, /*divide=*/true); }
Status kernel::Gesvd(const KernelCall& call) { return ref::Svd(call, /*divide=*/false); }

}  // namespace kiln::ref

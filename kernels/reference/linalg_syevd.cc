// The reference symmetric and Hermitian eigendecomposition, kiln.syevd, as
// JAX calls LAPACK's ?syevd / ?heevd on the CPU (jnp.linalg.eigh). An
// eigenvector's sign (or phase) has no mathematical convention: LAPACK's
// follows from its algorithm, and programs exported from JAX carry it. So
// this follows LAPACK's path for the matrices JAX sees, in the element type
// (f32 in float, as ssyevd): the tridiagonal reduction (sytd2 / hetd2,
// kernels/reference/householder.h), the implicit QL / QR iteration of steqr
// on the tridiagonal matrix (its split test, its choice of QL or QR per
// block, Wilkinson's shift, lartg's rotations, its selection sort of the
// eigenvalues and vectors), and the reflectors applied back as ormtr /
// unmtr do. LAPACK's ?stedc runs steqr up to n = 25 and divide and conquer
// beyond, so from n = 26 on the eigenvectors' signs can differ from LAPACK's
// (the values agree within rounding).
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
using householder::Lapy2;
using householder::RealOf;
using householder::ReduceTridiagonal;
using householder::Rotation;
using numeric::CheckCall;
using numeric::CheckDims;
using numeric::FromComplex;
using numeric::KernelName;
using numeric::LoadMatrix;
using numeric::Store;
using numeric::StoreMatrix;

// laev2: the eigenvalues rt1 (larger in magnitude) and rt2 of the symmetric
// [a b; b c] and (cs, sn), rt1's unit eigenvector.
template <typename R>
void Eigen2x2(R a, R b, R c, R* rt1, R* rt2, R* cs1, R* sn1) {
  const R sm = a + c, df = a - c, adf = std::abs(df), tb = b + b, ab = std::abs(tb);
  const R acmx = std::abs(a) > std::abs(c) ? a : c, acmn = std::abs(a) > std::abs(c) ? c : a;
  R rt;
  if (adf > ab) rt = adf * std::sqrt(1 + (ab / adf) * (ab / adf));
  else if (adf < ab) rt = ab * std::sqrt(1 + (adf / ab) * (adf / ab));
  else rt = ab * std::sqrt(R(2));
  int sgn1;
  if (sm < 0) {
    *rt1 = R(0.5) * (sm - rt);
    sgn1 = -1;
    *rt2 = (acmx / *rt1) * acmn - (b / *rt1) * b;
  } else if (sm > 0) {
    *rt1 = R(0.5) * (sm + rt);
    sgn1 = 1;
    *rt2 = (acmx / *rt1) * acmn - (b / *rt1) * b;
  } else {
    *rt1 = R(0.5) * rt;
    *rt2 = R(-0.5) * rt;
    sgn1 = 1;
  }
  int sgn2;
  R cs;
  if (df >= 0) {
    cs = df + rt;
    sgn2 = 1;
  } else {
    cs = df - rt;
    sgn2 = -1;
  }
  if (std::abs(cs) > ab) {
    const R ct = -tb / cs;
    *sn1 = 1 / std::sqrt(1 + ct * ct);
    *cs1 = ct * *sn1;
  } else if (ab == 0) {
    *cs1 = 1;
    *sn1 = 0;
  } else {
    const R tn = -cs / tb;
    *cs1 = 1 / std::sqrt(1 + tn * tn);
    *sn1 = tn * *cs1;
  }
  if (sgn1 == sgn2) {
    const R tn = *cs1;
    *cs1 = -*sn1;
    *sn1 = tn;
  }
}

// lasr with side 'R', pivot 'V': columns first .. first + count - 1 of the
// n x n row-major z rotated by the plane rotations (c[j], s[j]) on columns
// (first + j, first + j + 1), forward (j ascending) or backward.
template <typename R>
void RotateColumns(std::vector<R>& z, int64_t n, int64_t first, int64_t count, const R* c, const R* s,
                   bool forward) {
  for (int64_t step = 0; step + 1 < count; ++step) {
    const int64_t j = forward ? step : count - 2 - step;
    const R ct = c[j], st = s[j];
    if (ct == 1 && st == 0) continue;
    for (int64_t i = 0; i < n; ++i) {
      R* row = &z[i * n + first];
      const R temp = row[j + 1];
      row[j + 1] = ct * temp - st * row[j];
      row[j] = st * temp + ct * row[j];
    }
  }
}

// steqr: the eigenvalues (d, ascending) and, with z (the identity on entry,
// LAPACK's compz 'I'), the eigenvectors of the symmetric tridiagonal matrix
// with diagonal d and off-diagonal e, by implicit QL or QR iteration per
// unreduced block. Returns 0, or the number of off-diagonal entries that did
// not converge (LAPACK's info). Indices below are LAPACK's, 1-based.
template <typename R>
int TridiagonalEigen(std::vector<R>& dv, std::vector<R>& ev, int64_t n, std::vector<R>* z) {
  if (n <= 1) return 0;
  auto D = [&](int64_t i) -> R& { return dv[i - 1]; };
  auto E = [&](int64_t i) -> R& { return ev[i - 1]; };
  const R eps = std::numeric_limits<R>::epsilon() / 2;  // lamch('E')
  const R eps2 = eps * eps, safmin = std::numeric_limits<R>::min(), safmax = 1 / safmin;
  const R ssfmax = std::sqrt(safmax) / 3, ssfmin = std::sqrt(safmin) / eps2;
  std::vector<R> wc(static_cast<size_t>(n)), ws(static_cast<size_t>(n));  // saved rotations
  const int64_t nmaxit = n * 30;
  int64_t jtot = 0, l1 = 1;
  const int64_t nm1 = n - 1;
  while (l1 <= n) {
    if (l1 > 1) E(l1 - 1) = 0;
    int64_t m = n;
    for (int64_t mm = l1; mm <= nm1; ++mm) {  // where the matrix splits
      const R tst = std::abs(E(mm));
      if (tst == 0) {
        m = mm;
        break;
      }
      if (tst <= (std::sqrt(std::abs(D(mm))) * std::sqrt(std::abs(D(mm + 1)))) * eps) {
        E(mm) = 0;
        m = mm;
        break;
      }
    }
    int64_t l = l1, lend = m;
    const int64_t lsv = l, lendsv = lend;
    l1 = m + 1;
    if (lend == l) continue;
    R anorm = 0;  // lanst('M') of the block
    for (int64_t i = l; i <= lend; ++i) anorm = std::max(anorm, std::abs(D(i)));
    for (int64_t i = l; i < lend; ++i) anorm = std::max(anorm, std::abs(E(i)));
    if (anorm == 0) continue;
    int iscale = 0;
    auto scale_block = [&](R from, R to) {
      const R mul = to / from;
      for (int64_t i = lsv; i <= lendsv; ++i) D(i) *= mul;
      for (int64_t i = lsv; i < lendsv; ++i) E(i) *= mul;
    };
    if (anorm > ssfmax) {
      iscale = 1;
      scale_block(anorm, ssfmax);
    } else if (anorm < ssfmin) {
      iscale = 2;
      scale_block(anorm, ssfmin);
    }
    if (std::abs(D(lend)) < std::abs(D(l))) {  // QR when the top is the smaller end
      lend = lsv;
      l = lendsv;
    }
    if (lend > l) {  // QL iteration
      while (true) {
        int64_t mm = lend;
        if (l != lend)
          for (mm = l; mm <= lend - 1; ++mm) {
            const R tst = std::abs(E(mm)) * std::abs(E(mm));
            if (tst <= (eps2 * std::abs(D(mm))) * std::abs(D(mm + 1)) + safmin) break;
          }
        m = mm;
        if (m < lend) E(m) = 0;
        R p = D(l);
        if (m == l) {  // an eigenvalue
          D(l) = p;
          ++l;
          if (l <= lend) continue;
          break;
        }
        if (m == l + 1) {  // a 2 x 2 block
          R rt1, rt2, c, s;
          if (z) {
            Eigen2x2(D(l), E(l), D(l + 1), &rt1, &rt2, &c, &s);
            RotateColumns(*z, n, l - 1, 2, &c, &s, false);
          } else {
            R cs, sn;
            Eigen2x2(D(l), E(l), D(l + 1), &rt1, &rt2, &cs, &sn);
          }
          D(l) = rt1;
          D(l + 1) = rt2;
          E(l) = 0;
          l += 2;
          if (l <= lend) continue;
          break;
        }
        if (jtot == nmaxit) break;
        ++jtot;
        R g = (D(l + 1) - p) / (2 * E(l));  // Wilkinson's shift
        R r = Lapy2(g, R(1));
        g = D(m) - p + (E(l) / (g + std::copysign(r, g)));
        R s = 1, c = 1;
        p = 0;
        for (int64_t i = m - 1; i >= l; --i) {
          const R f = s * E(i), b = c * E(i);
          Rotation(g, f, &c, &s, &r);
          if (i != m - 1) E(i + 1) = r;
          g = D(i + 1) - p;
          r = (D(i) - g) * s + 2 * c * b;
          p = s * r;
          D(i + 1) = g + p;
          g = c * r - b;
          if (z) {
            wc[i - 1] = c;
            ws[i - 1] = -s;
          }
        }
        if (z) RotateColumns(*z, n, l - 1, m - l + 1, &wc[l - 1], &ws[l - 1], false);
        D(l) = D(l) - p;
        E(l) = g;
      }
    } else {  // QR iteration
      while (true) {
        int64_t mm = lend;
        if (l != lend)
          for (mm = l; mm >= lend + 1; --mm) {
            const R tst = std::abs(E(mm - 1)) * std::abs(E(mm - 1));
            if (tst <= (eps2 * std::abs(D(mm))) * std::abs(D(mm - 1)) + safmin) break;
          }
        m = mm;
        if (m > lend) E(m - 1) = 0;
        R p = D(l);
        if (m == l) {
          D(l) = p;
          --l;
          if (l >= lend) continue;
          break;
        }
        if (m == l - 1) {
          R rt1, rt2, c, s;
          if (z) {
            Eigen2x2(D(l - 1), E(l - 1), D(l), &rt1, &rt2, &c, &s);
            RotateColumns(*z, n, l - 2, 2, &c, &s, true);
          } else {
            R cs, sn;
            Eigen2x2(D(l - 1), E(l - 1), D(l), &rt1, &rt2, &cs, &sn);
          }
          D(l - 1) = rt1;
          D(l) = rt2;
          E(l - 1) = 0;
          l -= 2;
          if (l >= lend) continue;
          break;
        }
        if (jtot == nmaxit) break;
        ++jtot;
        R g = (D(l - 1) - p) / (2 * E(l - 1));
        R r = Lapy2(g, R(1));
        g = D(m) - p + (E(l - 1) / (g + std::copysign(r, g)));
        R s = 1, c = 1;
        p = 0;
        for (int64_t i = m; i <= l - 1; ++i) {
          const R f = s * E(i), b = c * E(i);
          Rotation(g, f, &c, &s, &r);
          if (i != m) E(i - 1) = r;
          g = D(i) - p;
          r = (D(i + 1) - g) * s + 2 * c * b;
          p = s * r;
          D(i) = g + p;
          g = c * r - b;
          if (z) {
            wc[i - 1] = c;
            ws[i - 1] = s;
          }
        }
        if (z) RotateColumns(*z, n, m - 1, l - m + 1, &wc[m - 1], &ws[m - 1], true);
        D(l) = D(l) - p;
        E(l - 1) = g;
      }
    }
    if (iscale == 1) scale_block(ssfmax, anorm);
    if (iscale == 2) scale_block(ssfmin, anorm);
    if (jtot >= nmaxit) {
      int info = 0;
      for (int64_t i = 1; i <= n - 1; ++i) info += E(i) != 0;
      return info;
    }
  }
  // Ascending; with vectors a selection sort (fewest swaps), as steqr.
  for (int64_t ii = 2; ii <= n; ++ii) {
    const int64_t i = ii - 1;
    int64_t k = i;
    R p = D(i);
    for (int64_t j = ii; j <= n; ++j)
      if (D(j) < p) k = j, p = D(j);
    if (k != i) {
      D(k) = D(i);
      D(i) = p;
      if (z)
        for (int64_t r = 0; r < n; ++r) std::swap((*z)[r * n + i - 1], (*z)[r * n + k - 1]);
    }
  }
  return 0;
}

// ormtr / unmtr with side 'L', trans 'N': z := Q z, Q from the reflectors
// ReduceTridiagonal left in `out` (lower: Q = H(0) ... H(n-2), v(i+1) = 1
// and v below it in column i; upper: Q = H(n-2) ... H(0), v(i) = 1 and v
// above it in column i + 1), each applied as LAPACK's larf (w = z^H v,
// z += v (-tau w^H)).
template <typename T>
void ApplyReflectors(const std::vector<T>& out, const std::vector<T>& tau, int64_t n, bool lower, std::vector<T>& z) {
  std::vector<T> v(static_cast<size_t>(n)), w(static_cast<size_t>(n));
  for (int64_t step = 0; step + 1 < n; ++step) {
    const int64_t i = lower ? n - 2 - step : step;  // lower: H(n-2) first; upper: H(0) first
    const T t = tau[i];
    if (t == T(0)) continue;
    int64_t lo, hi;  // the rows H(i) touches
    if (lower) {
      lo = i + 1, hi = n - 1;
      v[i + 1] = T(1);
      for (int64_t k = i + 2; k < n; ++k) v[k] = out[k * n + i];
    } else {
      lo = 0, hi = i;
      v[i] = T(1);
      for (int64_t k = 0; k < i; ++k) v[k] = out[k * n + i + 1];
    }
    for (int64_t j = 0; j < n; ++j) {
      T s = T(0);
      for (int64_t r = lo; r <= hi; ++r) s += Conj(v[r]) * z[r * n + j];
      w[j] = s;
    }
    for (int64_t j = 0; j < n; ++j) {
      const T temp = -t * w[j];
      for (int64_t r = lo; r <= hi; ++r) z[r * n + j] += v[r] * temp;
    }
  }
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// syevd / heevd on one matrix `given` (as stored; the named triangle read,
// a complex diagonal's imaginary parts ignored): w ascending, the
// eigenvectors as v's columns when `vectors`. Returns LAPACK's info, or -1
// when the matrix holds a NaN or an infinity.
template <typename T>
int SymmetricEigen(const std::vector<T>& given, int64_t n, bool lower, bool vectors, std::vector<RealOf<T>>& w,
                   std::vector<T>& v) {
  using R = RealOf<T>;
  w.assign(static_cast<size_t>(n), R(0));
  v.assign(static_cast<size_t>(n * n), T(0));
  if (n == 0) return 0;
  std::vector<T> m(static_cast<size_t>(n * n));
  R anrm = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const int64_t lo = std::max(i, j), hi = std::min(i, j);
      const T x = given[lower ? lo * n + hi : hi * n + lo];
      if (!std::isfinite(std::real(x)) || !std::isfinite(std::imag(x))) return -1;
      const bool stored = lower ? i >= j : i <= j;
      m[i * n + j] = i == j ? T(std::real(x)) : stored ? x : Conj(x);
      anrm = std::max(anrm, std::abs(m[i * n + j]));
    }
  if (n == 1) {
    w[0] = std::real(m[0]);
    if (vectors) v[0] = T(1);
    return 0;
  }
  // syevd scales a matrix whose largest entry is outside [rmin, rmax].
  const R smlnum = std::numeric_limits<R>::min() / std::numeric_limits<R>::epsilon(), bignum = 1 / smlnum;
  const R rmin = std::sqrt(smlnum), rmax = std::sqrt(bignum);
  R sigma = 0;
  if (anrm > 0 && anrm < rmin) sigma = rmin / anrm;
  else if (anrm > rmax) sigma = rmax / anrm;
  if (sigma != 0)
    for (T& x : m) x *= sigma;
  std::vector<T> out = m, dt(static_cast<size_t>(n)), et(static_cast<size_t>(n - 1)), tau(static_cast<size_t>(n - 1));
  ReduceTridiagonal(m, out, n, lower, dt, et, tau);
  std::vector<R> d(static_cast<size_t>(n)), e(static_cast<size_t>(n - 1));
  for (int64_t i = 0; i < n; ++i) d[i] = std::real(dt[i]);
  for (int64_t i = 0; i + 1 < n; ++i) e[i] = std::real(et[i]);
  std::vector<R> z;
  if (vectors) {
    z.assign(static_cast<size_t>(n * n), R(0));
    for (int64_t i = 0; i < n; ++i) z[i * n + i] = 1;
  }
  const int info = TridiagonalEigen(d, e, n, vectors ? &z : nullptr);
  if (vectors) {
    for (int64_t i = 0; i < n * n; ++i) v[i] = T(z[i]);
    ApplyReflectors(out, tau, n, lower, v);
  }
  for (int64_t i = 0; i < n; ++i) w[i] = sigma != 0 ? d[i] * (1 / sigma) : d[i];
  return info;
}

// kiln.syevd: (a) -> (v, w, info[, workspaces]) as LAPACK's ?syevd for a
// real symmetric a and ?heevd for a complex Hermitian one, [batch..., n,
// n] read from its lower (attr lower = 1) or upper triangle: w [batch...,
// n] the eigenvalues (of a's real type) ascending, v the eigenvectors as
// its columns (zeros when attr compute_v = 0), info 0 (1 when a holds a NaN
// or an infinity: then w and v are NaN), workspaces zero. f16 / bf16 / f8
// are computed in float.
Status Syevd(const KernelCall& c) {
  if (c.inputs.size() != 1 || c.outputs.size() < 3)
    return InvalidArgument(KernelName(c) + ": expects one operand and (v, w, info[, workspace...])");
  KILN_RETURN_IF_ERROR(CheckCall(c, 1, c.outputs.size()));
  const TensorRef& a = c.inputs[0];
  const std::string name = KernelName(c);
  const bool complex = IsComplex(a.type);
  if ((!IsFloat(a.type) && !complex) || c.outputs[0].type != a.type ||
      c.outputs[1].type != (complex ? ComplexPartType(a.type) : a.type))
    return InvalidArgument(name + ": the operand and the eigenvectors must be one float or complex type, the "
                                  "eigenvalues its real type");
  const int64_t r = a.rank();
  if (r < 2 || a.dims[r - 1] != a.dims[r - 2]) return InvalidArgument(name + ": a must be (batches of) square matrices");
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[0], a.dims, "eigenvectors"));
  std::vector<int64_t> batch(a.dims.begin(), a.dims.end() - 2), values = batch;
  const int64_t n = a.dims[r - 1];
  values.push_back(n);
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[1], values, "eigenvalues"));
  if (c.outputs[2].type != ElementType::kSI32) return InvalidArgument(name + ": info must be si32");
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[2], batch, "info"));
  for (size_t o = 3; o < c.outputs.size(); ++o)
    for (int64_t e = 0; e < c.outputs[o].NumElements(); ++e) Store(c.outputs[o], e, Scalar{});
  const bool lower = c.params.Int("lower", 1) != 0, vectors = c.params.Int("compute_v", 1) != 0;
  int64_t batches = 1;
  for (int64_t d : batch) batches *= d;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> given, v;
    std::vector<RealOf<T>> w;
    for (int64_t bi = 0; bi < batches; ++bi) {
      LoadMatrix(a, bi * n * n, n * n, &given);
      const int info = SymmetricEigen(given, n, lower, vectors, w, v);
      if (info < 0) {
        for (int64_t e = 0; e < n * n; ++e) Store(c.outputs[0], bi * n * n + e, FromComplex(a.type, {kNaN, 0}));
        for (int64_t i = 0; i < n; ++i) Store(c.outputs[1], bi * n + i, FromComplex(c.outputs[1].type, {kNaN, 0}));
        Store(c.outputs[2], bi, Scalar{1, 0, 0});
        continue;
      }
      StoreMatrix(c.outputs[0], bi * n * n, v);
      StoreMatrix(c.outputs[1], bi * n, w);
      Store(c.outputs[2], bi, Scalar{info, 0, 0});
    }
  };
  numeric::ForLapackType(a.type, run);
  return Status::Ok();
}

}  // namespace

Status kernel::Syevd(const KernelCall& call) { return ref::Syevd(call); }

}  // namespace kiln::ref

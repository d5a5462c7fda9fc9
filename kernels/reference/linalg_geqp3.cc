// The reference QR factorization with column pivoting, kiln.geqp3, as JAX
// calls LAPACK's ?geqp3 on the CPU (jax.scipy.linalg.qr(pivoting=True),
// jax.lax.linalg.qr with pivoting): the columns the caller fixed (jpvt != 0)
// first, factored in place, then at each step the free column of largest
// remaining norm, with LAPACK's norm downdating (laqp2: the norms updated
// from the factored row, recomputed where cancellation would lose them).
// Step by step as geqp3 / laqp2 in the element type, so that the pivot
// order (the permutation the program sees) and the reflectors are
// LAPACK's; LAPACK blocks (laqps) from min(m, n) = 33 on, where rounding
// can differ. Float and complex types.
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
using householder::Norm2;
using householder::RealOf;
using numeric::CheckCall;
using numeric::CheckDims;
using numeric::KernelName;
using numeric::Load;
using numeric::LoadMatrix;
using numeric::Store;
using numeric::StoreMatrix;

// geqp3 on one m x n matrix (row-major); jpvt (1-based on exit, as
// LAPACK's) nonzero on entry for the columns to keep in front.
template <typename T>
void PivotedQr(std::vector<T>& a, int64_t m, int64_t n, std::vector<int32_t>& jpvt, std::vector<T>& tau) {
  using R = RealOf<T>;
  auto A = [&](int64_t i, int64_t j) -> T& { return a[i * n + j]; };
  auto swap_columns = [&](int64_t x, int64_t y) {
    for (int64_t i = 0; i < m; ++i) std::swap(A(i, x), A(i, y));
  };
  const int64_t mn = std::min(m, n);
  std::fill(tau.begin(), tau.end(), T(0));
  int64_t nfxd = 0;  // fixed columns to the front
  for (int64_t j = 0; j < n; ++j) {
    if (jpvt[j] != 0) {
      if (j != nfxd) {
        swap_columns(j, nfxd);
        jpvt[j] = jpvt[nfxd];
        jpvt[nfxd] = static_cast<int32_t>(j + 1);
      } else {
        jpvt[j] = static_cast<int32_t>(j + 1);
      }
      ++nfxd;
    } else {
      jpvt[j] = static_cast<int32_t>(j + 1);
    }
  }
  // H(i) from column i, rows i..m-1, applied (its adjoint) to columns
  // i+1..n-1 as larf does: w = C^H v, C += v (-conj(tau) w^H).
  auto reflect = [&](int64_t i) {
    T* alpha = &A(i, i);
    const T t = tau[i] = Larfg(alpha, &A(std::min(i + 1, m - 1), i), m - i - 1, n);
    if (i + 1 >= n) return;
    const T aii = *alpha;
    *alpha = T(1);
    const T ct = Conj(t);
    for (int64_t j = i + 1; j < n; ++j) {
      T w = T(0);
      for (int64_t r = i; r < m; ++r) w += Conj(A(r, i)) * A(r, j);
      const T temp = -ct * w;
      for (int64_t r = i; r < m; ++r) A(r, j) += A(r, i) * temp;
    }
    *alpha = aii;
  };
  const int64_t na = std::min(m, nfxd);
  for (int64_t i = 0; i < na; ++i) reflect(i);  // geqrf of the fixed columns, ormqr on the rest
  if (nfxd >= mn) return;
  std::vector<R> vn1(static_cast<size_t>(n)), vn2(static_cast<size_t>(n));
  for (int64_t j = nfxd; j < n; ++j) vn1[j] = vn2[j] = Norm2(&A(nfxd, j), m - nfxd, n);
  const R tol3z = std::sqrt(std::numeric_limits<R>::epsilon() / 2);  // sqrt(lamch('Epsilon'))
  for (int64_t i = nfxd; i < mn; ++i) {
    int64_t pvt = i;  // the first free column of largest norm (idamax)
    for (int64_t j = i + 1; j < n; ++j)
      if (vn1[j] > vn1[pvt]) pvt = j;
    if (pvt != i) {
      swap_columns(pvt, i);
      std::swap(jpvt[pvt], jpvt[i]);
      vn1[pvt] = vn1[i];
      vn2[pvt] = vn2[i];
    }
    reflect(i);
    for (int64_t j = i + 1; j < n; ++j) {  // downdate the norms
      if (vn1[j] == 0) continue;
      const R q = std::abs(A(i, j)) / vn1[j];
      R temp = std::max(R(1) - q * q, R(0));
      const R ratio = vn1[j] / vn2[j];
      const R temp2 = temp * (ratio * ratio);
      if (temp2 <= tol3z) {
        if (i + 1 < m) {
          vn1[j] = Norm2(&A(i + 1, j), m - i - 1, n);
          vn2[j] = vn1[j];
        } else {
          vn1[j] = vn2[j] = 0;
        }
      } else {
        vn1[j] *= std::sqrt(temp);
      }
    }
  }
}

// kiln.geqp3: (a, jpvt) -> (a', jpvt', tau) as jaxlib's ?geqp3_ffi: a
// [batch..., m, n] float or complex, jpvt [batch..., n] si32 (nonzero: the
// column stays in front); a' holds R on and above the diagonal and the
// reflectors' v below it, jpvt' the 1-based column order (A P = Q R), tau
// [batch..., min(m, n)].
Status Geqp3(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 2, 3));
  const TensorRef& a = c.inputs[0];
  const TensorRef& jp = c.inputs[1];
  const std::string name = KernelName(c);
  const int64_t r = a.rank();
  if ((!IsFloat(a.type) && !IsComplex(a.type)) || r < 2)
    return InvalidArgument(name + ": a must be (batches of) float or complex matrices");
  const int64_t m = a.dims[r - 2], n = a.dims[r - 1], k = std::min(m, n);
  std::vector<int64_t> cols(a.dims.begin(), a.dims.end() - 1), taus(a.dims.begin(), a.dims.end() - 2);
  cols.back() = n;
  taus.push_back(k);
  if (jp.type != ElementType::kSI32 || c.outputs[1].type != ElementType::kSI32)
    return InvalidArgument(name + ": jpvt and its result must be si32");
  if (c.outputs[0].type != a.type || c.outputs[2].type != a.type)
    return InvalidArgument(name + ": the factor and tau must have a's type");
  KILN_RETURN_IF_ERROR(CheckDims(c, jp, cols, "jpvt"));
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[0], a.dims, "the factor"));
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[1], cols, "jpvt's result"));
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[2], taus, "tau"));
  int64_t batches = 1;
  for (int64_t i = 0; i + 2 < r; ++i) batches *= a.dims[i];
  auto run = [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> mat, tau(static_cast<size_t>(k));
    std::vector<int32_t> jpvt(static_cast<size_t>(n));
    for (int64_t bi = 0; bi < batches; ++bi) {
      LoadMatrix(a, bi * m * n, m * n, &mat);
      for (int64_t j = 0; j < n; ++j) jpvt[j] = static_cast<int32_t>(Load(jp, bi * n + j).i);
      PivotedQr(mat, m, n, jpvt, tau);
      StoreMatrix(c.outputs[0], bi * m * n, mat);
      for (int64_t j = 0; j < n; ++j) Store(c.outputs[1], bi * n + j, Scalar{jpvt[j], 0, 0});
      StoreMatrix(c.outputs[2], bi * k, tau);
    }
  };
  numeric::ForLapackType(a.type, run);
  return Status::Ok();
}

}  // namespace

Status kernel::Geqp3(const KernelCall& call) { return ref::Geqp3(call); }

}  // namespace kiln::ref

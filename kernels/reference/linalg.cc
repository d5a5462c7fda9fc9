// Reference linear-algebra kernels: stablehlo.triangular_solve and
// stablehlo.cholesky (per batch matrix in (complex) double, each result
// element rounded once to the result type), and kiln.lu, kiln.geqrf and
// kiln.orgqr, LAPACK's getrf, geqrf and orgqr/ungqr as JAX calls them (in
// the element type, step by step as LAPACK's unblocked getf2, geqr2 and
// org2r); kiln.syevd is in linalg_syevd.cc, kiln.gesdd and kiln.gesvd in
// linalg_gesdd.cc. Float and complex element types only.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/reference/householder.h"
#include "kernels/reference/numeric_util.h"
#include "kernels/reference/kernels.h"

namespace kiln::ref {
namespace {

using numeric::CheckCall;
using numeric::CheckDims;
using numeric::FromComplex;
using numeric::KernelName;
using numeric::Load;
using numeric::LoadMatrix;
using numeric::Store;
using numeric::StoreMatrix;
using numeric::ToComplex;
using cd = std::complex<double>;
using householder::Conj;
using householder::Larfg;
using householder::Norm2;
using householder::RealOf;

bool IsFloatOrComplex(ElementType t) { return IsFloat(t) || IsComplex(t); }

// triangular_solve: op(a) x = b (left_side) or x op(a) = b. Only the `lower`
// (or upper) triangle of a is read; unit_diagonal makes the diagonal 1.
Status TriangularSolve(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 2, 1));
  const TensorRef& a = c.inputs[0];
  const TensorRef& b = c.inputs[1];
  const TensorRef& out = c.outputs[0];
  const std::string name = KernelName(c);
  if (!IsFloatOrComplex(a.type) || !IsFloatOrComplex(b.type) || !IsFloatOrComplex(out.type))
    return InvalidArgument(name + ": operands must be float or complex");
  const int64_t r = a.rank();
  if (r < 2 || b.rank() != r) return InvalidArgument(name + ": a and b must have the same rank >= 2");
  const int64_t m = a.dims[r - 1];
  if (a.dims[r - 2] != m) return InvalidArgument(name + ": a must be square");
  for (int64_t d = 0; d < r - 2; ++d)
    if (a.dims[d] != b.dims[d]) return InvalidArgument(name + ": batch dimensions differ");
  const bool left = c.params.Int("left_side") != 0;
  const bool lower = c.params.Int("lower") != 0;
  const bool unit = c.params.Int("unit_diagonal") != 0;
  std::string_view ta = c.params.Str("transpose_a");
  if (ta.empty()) ta = "NO_TRANSPOSE";
  if (ta != "NO_TRANSPOSE" && ta != "TRANSPOSE" && ta != "ADJOINT")
    return InvalidArgument(name + ": unknown transpose_a '" + std::string(ta) + "'");
  if ((left ? b.dims[r - 2] : b.dims[r - 1]) != m)
    return InvalidArgument(name + ": b's solved dimension must match a");
  KILN_RETURN_IF_ERROR(CheckDims(c, out, b.dims, "result"));
  if (out.NumElements() == 0) return Status::Ok();

  const int64_t rows = b.dims[r - 2], cols = b.dims[r - 1];
  const int64_t k = left ? cols : rows;  // number of right-hand sides
  const int64_t batches = out.NumElements() / (rows * cols);
  const bool transposed = ta != "NO_TRANSPOSE";
  const bool conj = ta == "ADJOINT";
  // S is the system matrix for S y = b' (column form); it is lower
  // triangular iff exactly one of (lower, transposed, right side) flips it.
  const bool s_lower = lower != transposed ? left : !left;
  std::vector<cd> s(m * m), y(m * k);
  for (int64_t bi = 0; bi < batches; ++bi) {
    const int64_t abase = bi * m * m, bbase = bi * rows * cols;
    // T = op(tri(a)); S = left ? T : T^T (x T = b  <=>  T^T x^T = b^T).
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < m; ++j) {
        cd v = 0;
        if (i == j && unit) v = 1;
        else if (lower ? i >= j : i <= j) v = ToComplex(a.type, Load(a, abase + i * m + j));
        // v = tri(a)[i][j]; T[j][i] = v (transposed) or T[i][j] = v.
        if (conj) v = std::conj(v);
        int64_t ti = transposed ? j : i, tj = transposed ? i : j;
        if (left) s[ti * m + tj] = v;
        else s[tj * m + ti] = v;
      }
    // b' is m x k: b itself (left) or b^T (right).
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < k; ++j)
        y[i * k + j] = ToComplex(b.type, Load(b, bbase + (left ? i * cols + j : j * cols + i)));
    for (int64_t j = 0; j < k; ++j) {
      if (s_lower) {
        for (int64_t i = 0; i < m; ++i) {
          cd acc = y[i * k + j];
          for (int64_t q = 0; q < i; ++q) acc -= s[i * m + q] * y[q * k + j];
          y[i * k + j] = acc / s[i * m + i];
        }
      } else {
        for (int64_t i = m; i-- > 0;) {
          cd acc = y[i * k + j];
          for (int64_t q = i + 1; q < m; ++q) acc -= s[i * m + q] * y[q * k + j];
          y[i * k + j] = acc / s[i * m + i];
        }
      }
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < k; ++j)
        Store(out, bbase + (left ? i * cols + j : j * cols + i), FromComplex(out.type, y[i * k + j]));
  }
  return Status::Ok();
}

// cholesky: lower -> L with a = L L^H (from a's lower triangle); upper ->
// U with a = U^H U (from a's upper triangle). The other triangle of the
// result (implementation-defined per spec) is zero. A matrix that is not
// positive definite yields NaNs from sqrt of a negative pivot onwards.
Status Cholesky(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 1, 1));
  const TensorRef& a = c.inputs[0];
  const TensorRef& out = c.outputs[0];
  const std::string name = KernelName(c);
  if (!IsFloatOrComplex(a.type) || !IsFloatOrComplex(out.type))
    return InvalidArgument(name + ": operand must be float or complex");
  const int64_t r = a.rank();
  if (r < 2 || a.dims[r - 1] != a.dims[r - 2]) return InvalidArgument(name + ": a must be (batches of) square matrices");
  KILN_RETURN_IF_ERROR(CheckDims(c, out, a.dims, "result"));
  if (out.NumElements() == 0) return Status::Ok();
  const bool lower = c.params.Int("lower") != 0;
  const int64_t n = a.dims[r - 1];
  const int64_t batches = a.NumElements() / (n * n);
  std::vector<cd> l(n * n);
  for (int64_t bi = 0; bi < batches; ++bi) {
    const int64_t base = bi * n * n;
    // The Hermitian matrix's lower triangle: a[i][j] or conj(a[j][i]).
    auto A = [&](int64_t i, int64_t j) {
      return lower ? ToComplex(a.type, Load(a, base + i * n + j)) : std::conj(ToComplex(a.type, Load(a, base + j * n + i)));
    };
    std::fill(l.begin(), l.end(), cd(0));
    for (int64_t j = 0; j < n; ++j) {
      double d = A(j, j).real();
      for (int64_t q = 0; q < j; ++q) d -= std::norm(l[j * n + q]);
      const double ljj = std::sqrt(d);  // NaN when not positive definite
      l[j * n + j] = ljj;
      for (int64_t i = j + 1; i < n; ++i) {
        cd v = A(i, j);
        for (int64_t q = 0; q < j; ++q) v -= l[i * n + q] * std::conj(l[j * n + q]);
        l[i * n + j] = v / ljj;
      }
    }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        // upper: U = L^H, so U[i][j] = conj(L[j][i]).
        cd v = lower ? l[i * n + j] : std::conj(l[j * n + i]);
        Store(out, base + i * n + j, FromComplex(out.type, v));
      }
  }
  return Status::Ok();
}

// |re| + |im|: the magnitude LAPACK's i?amax compares (|x| for reals).
template <typename T>
auto Cabs1(const T& x) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::abs(x);
  } else {
    return std::abs(x.real()) + std::abs(x.imag());
  }
}

// One matrix (m x n, row-major in `a`) factored in place: P A = L U with
// partial pivoting, as LAPACK's getf2 does it in the element type: column
// j's pivot is the first row at or below j of largest |re| + |im| (a NaN
// pivot candidate is never larger, as in i?amax), ipiv[j] its 1-based row;
// a nonzero pivot's row is swapped up and the column below it scaled by its
// reciprocal (divided by it when the reciprocal would overflow); a zero
// pivot leaves the column and sets info to j + 1 if it is the first; then
// the trailing submatrix takes the rank-1 update.
template <typename T>
int32_t FactorLu(std::vector<T>& a, int64_t m, int64_t n, int32_t* ipiv) {
  using R = decltype(Cabs1(T{}));
  int32_t info = 0;
  for (int64_t j = 0; j < std::min(m, n); ++j) {
    int64_t p = j;
    R best = Cabs1(a[j * n + j]);
    for (int64_t i = j + 1; i < m; ++i)
      if (Cabs1(a[i * n + j]) > best) best = Cabs1(a[i * n + j]), p = i;
    ipiv[j] = static_cast<int32_t>(p + 1);
    if (a[p * n + j] != T(0)) {
      if (p != j)
        for (int64_t k = 0; k < n; ++k) std::swap(a[p * n + k], a[j * n + k]);
      const T pivot = a[j * n + j];
      if (std::abs(pivot) >= std::numeric_limits<R>::min()) {
        const T r = T(1) / pivot;
        for (int64_t i = j + 1; i < m; ++i) a[i * n + j] *= r;
      } else {
        for (int64_t i = j + 1; i < m; ++i) a[i * n + j] /= pivot;
      }
    } else if (info == 0) {
      info = static_cast<int32_t>(j + 1);
    }
    for (int64_t i = j + 1; i < m; ++i) {
      const T l = a[i * n + j];
      for (int64_t k = j + 1; k < n; ++k) a[i * n + k] -= l * a[j * n + k];
    }
  }
  return info;
}

template <typename T>
void LuBatches(const KernelCall& c, int64_t m, int64_t n, int64_t batches) {
  const int64_t k = std::min(m, n);
  std::vector<T> x;
  std::vector<int32_t> ipiv(static_cast<size_t>(k));
  for (int64_t bi = 0; bi < batches; ++bi) {
    LoadMatrix(c.inputs[0], bi * m * n, m * n, &x);
    const int32_t info = FactorLu(x, m, n, ipiv.data());
    StoreMatrix(c.outputs[0], bi * m * n, x);
    for (int64_t j = 0; j < k; ++j) Store(c.outputs[1], bi * k + j, Scalar{ipiv[j], 0, 0});
    Store(c.outputs[2], bi, Scalar{info, 0, 0});
  }
}

// kiln.lu: (a) -> (lu, ipiv, info) over [batch..., m, n]: per matrix, L
// (unit diagonal, below it) and U (on and above it) of P A = L U in one
// matrix, ipiv [batch..., min(m, n)] si32 (1-based: row j was swapped with
// row ipiv[j] - 1 at step j) and info [batch...] si32 (0, or the 1-based
// step whose pivot was exactly zero), as LAPACK's ?getrf returns them.
Status Lu(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 1, 3));
  const TensorRef& a = c.inputs[0];
  const std::string name = KernelName(c);
  const int64_t r = a.rank();
  if (!IsFloatOrComplex(a.type) || c.outputs[0].type != a.type)
    return InvalidArgument(name + ": the operand and the factors must be one float or complex type");
  if (r < 2) return InvalidArgument(name + ": the operand must be (batches of) matrices");
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[0], a.dims, "factors"));
  const int64_t m = a.dims[r - 2], n = a.dims[r - 1];
  std::vector<int64_t> batch(a.dims.begin(), a.dims.end() - 2), pivots = batch;
  pivots.push_back(std::min(m, n));
  if (c.outputs[1].type != ElementType::kSI32 || c.outputs[2].type != ElementType::kSI32)
    return InvalidArgument(name + ": the pivots and info must be si32");
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[1], pivots, "pivots"));
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[2], batch, "info"));
  int64_t batches = 1;
  for (int64_t d : batch) batches *= d;
  if (batches == 0) return Status::Ok();
  switch (a.type) {
    case ElementType::kF64: LuBatches<double>(c, m, n, batches); break;
    case ElementType::kC64: LuBatches<std::complex<float>>(c, m, n, batches); break;
    case ElementType::kC128: LuBatches<std::complex<double>>(c, m, n, batches); break;
    default: LuBatches<float>(c, m, n, batches); break;  // f32, and the narrower floats in f32
  }
  return Status::Ok();
}

// Householder QR as LAPACK's unblocked geqr2 / org2r compute it, in the
// element type T (real or complex). A reflector H = I - tau v v^H has v(0)
// = 1 and the rest of v stored below the diagonal.

// LAPACK's larf from the left on the rows r0.. and columns c0..c1 of the
// m x n matrix a: C -= tau v (C^H v)^H with v the column c0 - 1 from row r0
// (its first entry taken as 1).
template <typename T>
void ApplyReflector(std::vector<T>& a, int64_t m, int64_t n, int64_t r0, int64_t vcol, int64_t c0, int64_t c1,
                    T tau) {
  if (tau == T(0)) return;
  auto v = [&](int64_t r) { return r == r0 ? T(1) : a[r * n + vcol]; };
  for (int64_t c = c0; c < c1; ++c) {
    T w = T(0);
    for (int64_t r = r0; r < m; ++r) w += Conj(a[r * n + c]) * v(r);
    const T tw = tau * Conj(w);
    for (int64_t r = r0; r < m; ++r) a[r * n + c] -= v(r) * tw;
  }
}

// geqr2 on one m x n matrix: R on and above the diagonal, the reflectors'
// v below it, tau[0..min(m, n)).
template <typename T>
void FactorQr(std::vector<T>& a, int64_t m, int64_t n, T* tau) {
  for (int64_t i = 0; i < std::min(m, n); ++i) {
    tau[i] = Larfg(&a[i * n + i], a.data() + std::min(i + 1, m - 1) * n + i, m - i - 1, n);
    if (i + 1 < n) ApplyReflector(a, m, n, i, i, i + 1, n, Conj(tau[i]));
  }
}

// org2r on one m x n matrix holding k reflectors (geqrf's output): Q's
// first n columns, H(0) H(1) ... H(k-1) applied to the identity's.
template <typename T>
void FormQ(std::vector<T>& a, int64_t m, int64_t n, int64_t k, const T* tau) {
  for (int64_t j = k; j < n; ++j) {
    for (int64_t r = 0; r < m; ++r) a[r * n + j] = T(0);
    if (j < m) a[j * n + j] = T(1);
  }
  for (int64_t i = k; i-- > 0;) {
    if (i + 1 < n) ApplyReflector(a, m, n, i, i, i + 1, n, tau[i]);
    for (int64_t r = i + 1; r < m; ++r) a[r * n + i] *= -tau[i];
    a[i * n + i] = T(1) - tau[i];
    for (int64_t r = 0; r < i; ++r) a[r * n + i] = T(0);
  }
}

// Zeros into every output from `first` on (LAPACK's info, 0 here, and the
// workspace JAX allocates).
void ZeroOutputs(const KernelCall& c, size_t first) {
  for (size_t o = first; o < c.outputs.size(); ++o)
    for (int64_t e = 0; e < c.outputs[o].NumElements(); ++e) Store(c.outputs[o], e, Scalar{});
}

// The (batch, m, n) of a float or complex operand of rank >= 2 whose type
// output 0 shares.
Status MatrixOperand(const KernelCall& c, int64_t* batches, int64_t* m, int64_t* n) {
  const TensorRef& a = c.inputs[0];
  const std::string name = KernelName(c);
  if (!IsFloatOrComplex(a.type) || c.outputs[0].type != a.type)
    return InvalidArgument(name + ": the operand and result 0 must be one float or complex type");
  const int64_t r = a.rank();
  if (r < 2) return InvalidArgument(name + ": the operand must be (batches of) matrices");
  *m = a.dims[r - 2], *n = a.dims[r - 1];
  *batches = 1;
  for (int64_t i = 0; i < r - 2; ++i) *batches *= a.dims[i];
  return Status::Ok();
}

// The outputs after the first two (info, workspace): si32 [batch...] and a
// 1-D workspace of the operand's type, each optional.
Status CheckInfoAndWorkspace(const KernelCall& c, size_t first, std::span<const int64_t> batch) {
  const std::string name = KernelName(c);
  if (c.outputs.size() > first) {
    if (c.outputs[first].type != ElementType::kSI32) return InvalidArgument(name + ": info must be si32");
    KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[first], batch, "info"));
  }
  if (c.outputs.size() > first + 1 && c.outputs[first + 1].rank() != 1)
    return InvalidArgument(name + ": the workspace must be 1-D");
  if (c.outputs.size() > first + 2) return InvalidArgument(name + ": too many results");
  return Status::Ok();
}

template <typename T>
void QrBatches(const KernelCall& c, int64_t batches, int64_t m, int64_t n) {
  const int64_t k = std::min(m, n);
  std::vector<T> x, tau(static_cast<size_t>(k));
  for (int64_t bi = 0; bi < batches; ++bi) {
    LoadMatrix(c.inputs[0], bi * m * n, m * n, &x);
    FactorQr(x, m, n, tau.data());
    StoreMatrix(c.outputs[0], bi * m * n, x);
    StoreMatrix(c.outputs[1], bi * k, tau);
  }
}

template <typename T>
void FormQBatches(const KernelCall& c, int64_t batches, int64_t m, int64_t n, int64_t k) {
  std::vector<T> x, tau;
  for (int64_t bi = 0; bi < batches; ++bi) {
    LoadMatrix(c.inputs[0], bi * m * n, m * n, &x);
    LoadMatrix(c.inputs[1], bi * k, k, &tau);
    FormQ(x, m, n, k, tau.data());
    StoreMatrix(c.outputs[0], bi * m * n, x);
  }
}

// kiln.geqrf: (a) -> (a', tau[, info, workspace]) as LAPACK's ?geqrf: R on
// and above a's diagonal, the Householder vectors below it, tau [batch...,
// min(m, n)]; info and the workspace zero.
Status Geqrf(const KernelCall& c) {
  if (c.inputs.size() != 1 || c.outputs.size() < 2)
    return InvalidArgument(KernelName(c) + ": expects one operand and (a, tau[, info, workspace])");
  KILN_RETURN_IF_ERROR(CheckCall(c, 1, c.outputs.size()));
  int64_t batches = 0, m = 0, n = 0;
  KILN_RETURN_IF_ERROR(MatrixOperand(c, &batches, &m, &n));
  const TensorRef& a = c.inputs[0];
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[0], a.dims, "factors"));
  std::vector<int64_t> batch(a.dims.begin(), a.dims.end() - 2), taus = batch;
  taus.push_back(std::min(m, n));
  if (c.outputs[1].type != a.type) return InvalidArgument(KernelName(c) + ": tau must have the operand's type");
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[1], taus, "tau"));
  KILN_RETURN_IF_ERROR(CheckInfoAndWorkspace(c, 2, batch));
  ZeroOutputs(c, 2);
  if (batches == 0) return Status::Ok();
  switch (a.type) {
    case ElementType::kF64: QrBatches<double>(c, batches, m, n); break;
    case ElementType::kC64: QrBatches<std::complex<float>>(c, batches, m, n); break;
    case ElementType::kC128: QrBatches<std::complex<double>>(c, batches, m, n); break;
    default: QrBatches<float>(c, batches, m, n); break;
  }
  return Status::Ok();
}

// kiln.orgqr: (a, tau) -> (q[, info, workspace]) as LAPACK's ?orgqr /
// ?ungqr (and XLA's ProductOfElementaryHouseholderReflectors): the first n
// columns of H(0) ... H(k-1), k = tau's last dim <= n <= m.
Status Orgqr(const KernelCall& c) {
  if (c.inputs.size() != 2 || c.outputs.empty())
    return InvalidArgument(KernelName(c) + ": expects (a, tau) and (q[, info, workspace])");
  KILN_RETURN_IF_ERROR(CheckCall(c, 2, c.outputs.size()));
  int64_t batches = 0, m = 0, n = 0;
  KILN_RETURN_IF_ERROR(MatrixOperand(c, &batches, &m, &n));
  const TensorRef& a = c.inputs[0];
  const TensorRef& tau = c.inputs[1];
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[0], a.dims, "result"));
  std::vector<int64_t> batch(a.dims.begin(), a.dims.end() - 2);
  const int64_t k = tau.rank() >= 1 ? tau.dims[tau.rank() - 1] : -1;
  std::vector<int64_t> taus = batch;
  taus.push_back(k);
  if (tau.type != a.type || k < 0 || k > n || n > m)
    return InvalidArgument(KernelName(c) + ": tau must have the operand's type and [batch..., k] with k <= n <= m");
  KILN_RETURN_IF_ERROR(CheckDims(c, tau, taus, "tau"));
  KILN_RETURN_IF_ERROR(CheckInfoAndWorkspace(c, 1, batch));
  ZeroOutputs(c, 1);
  if (batches == 0) return Status::Ok();
  switch (a.type) {
    case ElementType::kF64: FormQBatches<double>(c, batches, m, n, k); break;
    case ElementType::kC64: FormQBatches<std::complex<float>>(c, batches, m, n, k); break;
    case ElementType::kC128: FormQBatches<std::complex<double>>(c, batches, m, n, k); break;
    default: FormQBatches<float>(c, batches, m, n, k); break;
  }
  return Status::Ok();
}

}  // namespace

// This file's kernels of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::TriangularSolve(const KernelCall& call) { return ref::TriangularSolve(call); }
Status kernel::Cholesky(const KernelCall& call) { return ref::Cholesky(call); }
Status kernel::Lu(const KernelCall& call) { return ref::Lu(call); }
Status kernel::Geqrf(const KernelCall& call) { return ref::Geqrf(call); }
Status kernel::Orgqr(const KernelCall& call) { return ref::Orgqr(call); }

}  // namespace kiln::ref

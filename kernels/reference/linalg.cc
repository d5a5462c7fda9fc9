// Reference linear-algebra kernels: stablehlo.triangular_solve and
// stablehlo.cholesky (per batch matrix in (complex) double, each result
// element rounded once to the result type), and kiln.lu, kiln.geqrf and
// kiln.orgqr, LAPACK's getrf, geqrf and orgqr/ungqr as JAX calls them (in
// the element type, step by step as LAPACK's unblocked getf2, geqr2 and
// org2r), and kiln.gesdd, LAPACK's SVD (one-sided Jacobi rotations in
// (complex) f64; kiln.syevd is in linalg_syevd.cc). Float and complex
// element types only.
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

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The rotation's view of a pair's off-diagonal entry x: (g, d) with x = g
// d, g real; for a real x d = 1 (and g keeps x's sign), for a complex one
// g = |x| and d its phase. Scaling column q by conj(d) makes the pair real.
template <typename T>
std::pair<double, T> RealAndPhase(const T& x) {
  if constexpr (std::is_floating_point_v<T>) {
    return {x, T(1)};
  } else {
    const double g = std::abs(x);
    return {g, x / g};
  }
}

// x as a value of type t (real or complex).
template <typename T>
Scalar Put(ElementType t, const T& x) {
  return FromComplex(t, {std::real(x), std::imag(x)});
}

// The entry of x (len elements, `step` apart) that a vector's sign or
// phase is fixed by: the first whose magnitude is the largest up to a
// relative 1e-12, so that rounding noise in the rotations does not decide
// between entries of equal magnitude.
template <typename T>
int64_t LargestEntry(const T* x, int64_t len, int64_t step) {
  double most = 0;
  for (int64_t i = 0; i < len; ++i) most = std::max(most, std::abs(x[i * step]));
  for (int64_t i = 0; i < len; ++i)
    if (std::abs(x[i * step]) >= most * (1 - 1e-12)) return i;
  return 0;
}

// The factor that makes x real and positive (1 for zero): conj(x) / |x|.
template <typename T>
T UnitPhase(const T& x) {
  const double m = std::abs(x);
  return m == 0 ? T(1) : Conj(x) / m;
}

// Columns j of the m x c matrix u (row-major, c columns) with zero[j] set
// become unit vectors orthogonal to every other column (Gram-Schmidt of
// the standard basis vectors, twice for accuracy): what a factorization
// needs where a singular value is zero, or for the full U's extra columns.
template <typename T>
void CompleteBasis(std::vector<T>& u, int64_t m, int64_t c, const std::vector<bool>& zero) {
  std::vector<bool> done(static_cast<size_t>(c));
  for (int64_t j = 0; j < c; ++j) done[j] = !zero[j];
  int64_t next = 0;  // the next standard basis vector to try
  for (int64_t j = 0; j < c; ++j) {
    if (done[j]) continue;
    for (; next < m; ++next) {
      std::vector<T> x(static_cast<size_t>(m), T(0));
      x[next] = T(1);
      for (int pass = 0; pass < 2; ++pass)
        for (int64_t k = 0; k < c; ++k) {
          if (!done[k]) continue;
          T d = 0;
          for (int64_t i = 0; i < m; ++i) d += Conj(u[i * c + k]) * x[i];
          for (int64_t i = 0; i < m; ++i) x[i] -= d * u[i * c + k];
        }
      double norm = 0;
      for (const T& v : x) norm += std::norm(v);
      norm = std::sqrt(norm);
      if (norm > 0.5) {  // independent enough: a new basis vector
        for (int64_t i = 0; i < m; ++i) u[i * c + j] = x[i] / norm;
        done[j] = true;
        ++next;
        break;
      }
    }
  }
}

// The SVD of the m x n matrix a (m >= n) by one-sided Jacobi rotations
// (Hestenes; Demmel and Veselic): a V = U S with V's columns rotated until
// a's columns are orthogonal (a complex pair first made real by a phase on
// column q); then s_j = |column j|, u_j = column j / s_j. Returns u (m x
// n), s (n) and v (n x n), unsorted.
template <typename T>
void JacobiSvd(std::vector<T> a, int64_t m, int64_t n, std::vector<T>& u, std::vector<double>& s,
               std::vector<T>& v) {
  v.assign(static_cast<size_t>(n * n), T(0));
  for (int64_t i = 0; i < n; ++i) v[i * n + i] = T(1);
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p + 1 < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        double alpha = 0, beta = 0;
        T gamma = 0;
        for (int64_t i = 0; i < m; ++i) {
          alpha += std::norm(a[i * n + p]);
          beta += std::norm(a[i * n + q]);
          gamma += Conj(a[i * n + p]) * a[i * n + q];
        }
        if (gamma == T(0) || std::abs(gamma) <= 1e-15 * std::sqrt(alpha * beta)) continue;
        rotated = true;
        const auto [g, phase] = RealAndPhase(gamma);
        const T cphase = Conj(phase);
        const double zeta = (beta - alpha) / (2 * g);
        const double t = (zeta >= 0 ? 1.0 : -1.0) / (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        const double c = 1 / std::sqrt(1 + t * t), sn = c * t;
        for (int64_t i = 0; i < m; ++i) {
          const T x = a[i * n + p], y = cphase * a[i * n + q];
          a[i * n + p] = c * x - sn * y;
          a[i * n + q] = sn * x + c * y;
        }
        for (int64_t i = 0; i < n; ++i) {
          const T x = v[i * n + p], y = cphase * v[i * n + q];
          v[i * n + p] = c * x - sn * y;
          v[i * n + q] = sn * x + c * y;
        }
      }
    if (!rotated) break;
  }
  s.assign(static_cast<size_t>(n), 0.0);
  u.assign(static_cast<size_t>(m * n), T(0));
  for (int64_t j = 0; j < n; ++j) {
    double norm = 0;
    for (int64_t i = 0; i < m; ++i) norm += std::norm(a[i * n + j]);
    s[j] = std::sqrt(norm);
    if (s[j] > 0)
      for (int64_t i = 0; i < m; ++i) u[i * n + j] = a[i * n + j] / s[j];
  }
}

// kiln.gesdd: (a) -> (a', s, u, vt, info[, workspace...]) as LAPACK's
// ?gesdd for a real or complex a [batch..., m, n], k = min(m, n): s
// [batch..., k] (a's real type) descending; with attr mode 'A' (65) u [.., m, m] and vt [.., n,
// n], 'S' (83) u [.., m, k] and vt [.., k, n], 'N' (78) neither (u and vt,
// whatever their shape, zero); vt is V^H (a = u diag(s) vt); a' (LAPACK
// leaves a destroyed) and the workspaces zero; info 0, or 1 with NaN
// results for a NaN or an infinity in a. In (complex) f64 by one-sided Jacobi rotations, rounded
// once. Singular vectors' signs or phases are free (LAPACK's follow from
// its algorithm): here each column of u has its entry of largest
// magnitude real and positive; columns for zero singular values and the
// full U's and V's extra ones complete orthonormal bases.
template <typename T>
void GesddBatches(const KernelCall& c, int64_t batches, int64_t m, int64_t n, int64_t mode) {
  const TensorRef& a = c.inputs[0];
  const int64_t k = std::min(m, n), uc = mode == 'A' ? m : k, vr = mode == 'A' ? n : k;
  const TensorRef& s_out = c.outputs[1];
  const TensorRef& u_out = c.outputs[2];
  const TensorRef& vt_out = c.outputs[3];
  const bool wide = m < n;  // factor a^H then: a = (v') s (u')^H
  const int64_t tm = wide ? n : m, tn = wide ? m : n;  // the tall factored matrix is tm x tn
  std::vector<T> t(static_cast<size_t>(tm * tn)), u, v;
  std::vector<double> s;
  for (int64_t bi = 0; bi < batches; ++bi) {
    const int64_t base = bi * m * n;
    bool finite = true;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const cd x = ToComplex(a.type, Load(a, base + i * n + j));
        finite = finite && std::isfinite(x.real()) && std::isfinite(x.imag());
        T e;
        if constexpr (std::is_floating_point_v<T>) {
          e = x.real();
        } else {
          e = x;
        }
        t[wide ? j * tn + i : i * tn + j] = wide ? Conj(e) : e;
      }
    if (!finite) {
      for (int64_t j = 0; j < k; ++j) Store(s_out, bi * k + j, FromComplex(s_out.type, {kNaN, 0}));
      if (mode != 'N') {
        for (int64_t e = 0; e < m * uc; ++e) Store(u_out, bi * m * uc + e, FromComplex(a.type, {kNaN, 0}));
        for (int64_t e = 0; e < vr * n; ++e) Store(vt_out, bi * vr * n + e, FromComplex(a.type, {kNaN, 0}));
      }
      Store(c.outputs[4], bi, Scalar{1, 0, 0});
      continue;
    }
    JacobiSvd(t, tm, tn, u, s, v);  // t = u diag(s) v^H, u tm x tn, v tn x tn
    std::vector<int64_t> order(static_cast<size_t>(tn));
    for (int64_t j = 0; j < tn; ++j) order[j] = j;
    std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return s[x] > s[y]; });
    for (int64_t j = 0; j < k; ++j) Store(s_out, bi * k + j, FromComplex(s_out.type, {s[order[j]], 0}));
    if (mode == 'N') continue;
    // A singular value at rounding level of the largest has no left vector
    // of its own (its column is rounding noise, in whatever direction the
    // arithmetic -- contracted or not -- left it): its basis is completed.
    const double negligible = (tn == 0 ? 0.0 : s[order[0]]) * static_cast<double>(std::max(tm, tn)) * 1e-15;
    // The left vectors of a (m rows) and the right ones (n rows), in
    // descending order: u and v of t, swapped for a wide a.
    const int64_t lc = uc, rc = vr;
    std::vector<T> left(static_cast<size_t>(m * lc), T(0)), right(static_cast<size_t>(n * rc), T(0));
    std::vector<bool> lzero(static_cast<size_t>(lc), true), rzero(static_cast<size_t>(rc), true);
    for (int64_t j = 0; j < k; ++j) {
      const int64_t src = order[j];
      const bool has_u = s[src] > negligible;  // t's u column exists for a nonzero singular value
      for (int64_t i = 0; i < tm; ++i) (wide ? right[i * rc + j] : left[i * lc + j]) = u[i * tn + src];
      for (int64_t i = 0; i < tn; ++i) (wide ? left[i * lc + j] : right[i * rc + j]) = v[i * tn + src];
      (wide ? rzero : lzero)[j] = !has_u;
      (wide ? lzero : rzero)[j] = false;
    }
    CompleteBasis(left, m, lc, lzero);
    CompleteBasis(right, n, rc, rzero);
    for (int64_t j = 0; j < lc; ++j) {
      // Column j of the left vectors: its largest entry real and positive,
      // the matching right vector turned by the same phase (a = sum s_j
      // l_j r_j^H keeps its terms).
      const int64_t big = LargestEntry(&left[j], m, lc);
      const T phase = UnitPhase(left[big * lc + j]);
      for (int64_t i = 0; i < m; ++i)  // the largest entry exactly real
        left[i * lc + j] = i == big ? T(std::abs(left[i * lc + j])) : phase * left[i * lc + j];
      if (j < rc)
        for (int64_t i = 0; i < n; ++i) right[i * rc + j] *= phase;
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < lc; ++j) Store(u_out, bi * m * lc + i * lc + j, Put(a.type, left[i * lc + j]));
    for (int64_t j = 0; j < rc; ++j)
      for (int64_t i = 0; i < n; ++i) Store(vt_out, bi * rc * n + j * n + i, Put(a.type, Conj(right[i * rc + j])));
  }
}

Status Gesdd(const KernelCall& c) {
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
  ZeroOutputs(c, 0);
  int64_t batches = 1;
  for (int64_t d : batch) batches *= d;
  if (complex) GesddBatches<cd>(c, batches, m, n, mode);
  else GesddBatches<double>(c, batches, m, n, mode);
  return Status::Ok();
}

}  // namespace

// This file's kernels of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::TriangularSolve(const KernelCall& call) { return ref::TriangularSolve(call); }
Status kernel::Cholesky(const KernelCall& call) { return ref::Cholesky(call); }
Status kernel::Lu(const KernelCall& call) { return ref::Lu(call); }
Status kernel::Geqrf(const KernelCall& call) { return ref::Geqrf(call); }
Status kernel::Orgqr(const KernelCall& call) { return ref::Orgqr(call); }
Status kernel::Gesdd(const KernelCall& call) { return ref::Gesdd(call); }

}  // namespace kiln::ref

// Reference linear-algebra kernels: stablehlo.triangular_solve and
// stablehlo.cholesky (per batch matrix in (complex) double, each result
// element rounded once to the result type), and kiln.lu, LAPACK's getrf as
// JAX calls it (in the element type, step by step as LAPACK's unblocked
// getf2). Float and complex element types only.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/reference/numeric_util.h"
#include "kernels/reference/kernels.h"

namespace kiln::ref {
namespace {

using numeric::CheckCall;
using numeric::CheckDims;
using numeric::FromComplex;
using numeric::KernelName;
using numeric::Load;
using numeric::Store;
using numeric::ToComplex;
using cd = std::complex<double>;

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
  const TensorRef& a = c.inputs[0];
  const TensorRef& out = c.outputs[0];
  const int64_t k = std::min(m, n);
  std::vector<T> x(static_cast<size_t>(m * n));
  std::vector<int32_t> ipiv(static_cast<size_t>(k));
  for (int64_t bi = 0; bi < batches; ++bi) {
    for (int64_t e = 0; e < m * n; ++e) {
      const std::complex<double> v = ToComplex(a.type, Load(a, bi * m * n + e));
      if constexpr (std::is_floating_point_v<T>) {
        x[e] = static_cast<T>(v.real());
      } else {
        x[e] = T(static_cast<typename T::value_type>(v.real()), static_cast<typename T::value_type>(v.imag()));
      }
    }
    const int32_t info = FactorLu(x, m, n, ipiv.data());
    for (int64_t e = 0; e < m * n; ++e) {
      std::complex<double> v;
      if constexpr (std::is_floating_point_v<T>) {
        v = {static_cast<double>(x[e]), 0.0};
      } else {
        v = {static_cast<double>(x[e].real()), static_cast<double>(x[e].imag())};
      }
      Store(out, bi * m * n + e, FromComplex(out.type, v));
    }
    for (int64_t j = 0; j < k; ++j) {
      Scalar s;
      s.i = ipiv[j];
      Store(c.outputs[1], bi * k + j, s);
    }
    Scalar s;
    s.i = info;
    Store(c.outputs[2], bi, s);
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

}  // namespace

// This file's kernels of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::TriangularSolve(const KernelCall& call) { return ref::TriangularSolve(call); }
Status kernel::Cholesky(const KernelCall& call) { return ref::Cholesky(call); }
Status kernel::Lu(const KernelCall& call) { return ref::Lu(call); }

}  // namespace kiln::ref

// Reference linear-algebra kernels: stablehlo.triangular_solve and
// stablehlo.cholesky. Both work per batch matrix in (complex) double and
// round each result element once to the result type. Float and complex
// element types only.
#include <cmath>
#include <complex>
#include <string>
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

}  // namespace

// This file's kernels of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::TriangularSolve(const KernelCall& call) { return ref::TriangularSolve(call); }
Status kernel::Cholesky(const KernelCall& call) { return ref::Cholesky(call); }

}  // namespace kiln::ref

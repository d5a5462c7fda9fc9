// The reference tridiagonal solve, kiln.gtsv, as JAX calls LAPACK's ?gtsv
// on the CPU (lax.linalg.tridiagonal_solve): Gaussian elimination with
// partial pivoting, step by step as gtsv (the pivot test on |x|, or on |re|
// + |im| for complex types as zgtsv's cabs1), so that the solution and the
// factors left in the diagonals round as LAPACK's do.
#include <cmath>
#include <complex>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/reference/kernels.h"
#include "kernels/reference/numeric_util.h"

namespace kiln::ref {
namespace {

using numeric::CheckCall;
using numeric::CheckDims;
using numeric::KernelName;
using numeric::LoadMatrix;
using numeric::Store;
using numeric::StoreMatrix;

template <typename T>
auto PivotSize(const T& x) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::abs(x);
  } else {
    return std::abs(x.real()) + std::abs(x.imag());
  }
}

// gtsv on one system: sub-diagonal dl (n - 1 entries), diagonal d (n),
// super-diagonal du (n - 1), right-hand sides b (n x nrhs, row-major),
// overwritten as LAPACK overwrites them (dl the second super-diagonal of U,
// d and du U's diagonal and first super-diagonal, b the solution). Returns
// LAPACK's info: 0, or i (1-based) when U(i, i) is exactly zero (b is then
// left part way).
template <typename T>
int SolveTridiagonal(T* dl, T* d, T* du, std::vector<T>& b, int64_t n, int64_t nrhs) {
  if (n == 0) return 0;
  auto B = [&](int64_t i, int64_t j) -> T& { return b[i * nrhs + j]; };
  for (int64_t i = 0; i + 1 < n; ++i) {
    const bool last = i == n - 2;
    if (PivotSize(d[i]) >= PivotSize(dl[i])) {  // no row interchange
      if (d[i] == T(0)) return static_cast<int>(i + 1);
      const T fact = dl[i] / d[i];
      d[i + 1] = d[i + 1] - fact * du[i];
      for (int64_t j = 0; j < nrhs; ++j) B(i + 1, j) = B(i + 1, j) - fact * B(i, j);
      if (!last) dl[i] = T(0);
    } else {  // interchange rows i and i + 1
      const T fact = d[i] / dl[i];
      d[i] = dl[i];
      const T temp = d[i + 1];
      d[i + 1] = du[i] - fact * temp;
      if (!last) {
        dl[i] = du[i + 1];
        du[i + 1] = -fact * dl[i];
      }
      du[i] = temp;
      for (int64_t j = 0; j < nrhs; ++j) {
        const T t = B(i, j);
        B(i, j) = B(i + 1, j);
        B(i + 1, j) = t - fact * B(i + 1, j);
      }
    }
  }
  if (d[n - 1] == T(0)) return static_cast<int>(n);
  for (int64_t j = 0; j < nrhs; ++j) {  // back substitution with U
    B(n - 1, j) = B(n - 1, j) / d[n - 1];
    if (n > 1) B(n - 2, j) = (B(n - 2, j) - du[n - 2] * B(n - 1, j)) / d[n - 2];
    for (int64_t i = n - 3; i >= 0; --i)
      B(i, j) = (B(i, j) - du[i] * B(i + 1, j) - dl[i] * B(i + 2, j)) / d[i];
  }
  return 0;
}

// kiln.gtsv: (dl, d, du, b) -> (dl', d', du', b', info) as jaxlib's
// ?gtsv_ffi: dl, d, du [batch..., n] (dl[0] and du[n-1] not read: LAPACK
// gets dl + 1), b [batch..., n, nrhs]; the results are the operands as
// LAPACK leaves them (b' the solution) and info [batch...] si32.
Status Gtsv(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 4, 5));
  const TensorRef& b = c.inputs[3];
  const std::string name = KernelName(c);
  const ElementType t = b.type;
  if (t != ElementType::kF32 && t != ElementType::kF64 && t != ElementType::kC64 && t != ElementType::kC128)
    return InvalidArgument(name + ": the operands must be f32, f64, complex<f32> or complex<f64>, as LAPACK's");
  const int64_t r = b.rank();
  if (r < 2) return InvalidArgument(name + ": b must be (batches of) n x nrhs matrices");
  const int64_t n = b.dims[r - 2], nrhs = b.dims[r - 1];
  std::vector<int64_t> diag(b.dims.begin(), b.dims.end() - 2), batch = diag;
  diag.push_back(n);
  for (int k = 0; k < 3; ++k) {
    if (c.inputs[k].type != t || c.outputs[k].type != t)
      return InvalidArgument(name + ": dl, d, du and their results must have b's type");
    KILN_RETURN_IF_ERROR(CheckDims(c, c.inputs[k], diag, "a diagonal"));
    KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[k], diag, "a diagonal's result"));
  }
  if (c.outputs[3].type != t) return InvalidArgument(name + ": the solution must have b's type");
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[3], b.dims, "the solution"));
  if (c.outputs[4].type != ElementType::kSI32) return InvalidArgument(name + ": info must be si32");
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[4], batch, "info"));
  int64_t batches = 1;
  for (int64_t x : batch) batches *= x;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> dl, d, du, x;
    for (int64_t bi = 0; bi < batches; ++bi) {
      LoadMatrix(c.inputs[0], bi * n, n, &dl);
      LoadMatrix(c.inputs[1], bi * n, n, &d);
      LoadMatrix(c.inputs[2], bi * n, n, &du);
      LoadMatrix(b, bi * n * nrhs, n * nrhs, &x);
      const int info = SolveTridiagonal(dl.data() + (n > 0 ? 1 : 0), d.data(), du.data(), x, n, nrhs);
      StoreMatrix(c.outputs[0], bi * n, dl);
      StoreMatrix(c.outputs[1], bi * n, d);
      StoreMatrix(c.outputs[2], bi * n, du);
      StoreMatrix(c.outputs[3], bi * n * nrhs, x);
      Store(c.outputs[4], bi, Scalar{info, 0, 0});
    }
  };
  numeric::ForLapackType(t, run);
  return Status::Ok();
}

}  // namespace

Status kernel::Gtsv(const KernelCall& call) { return ref::Gtsv(call); }

}  // namespace kiln::ref

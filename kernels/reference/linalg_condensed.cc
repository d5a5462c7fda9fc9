// Reference reductions to condensed form by Householder reflectors, as JAX
// calls LAPACK for them on the CPU: kiln.gehrd (?gehrd, the Hessenberg form
// of a square matrix, jax.scipy.linalg.hessenberg) and kiln.sytrd (?sytrd /
// ?hetrd, the tridiagonal form of a symmetric or Hermitian one,
// lax.linalg.tridiagonal). Step by step as LAPACK's unblocked gehd2 and
// sytd2 / hetd2, in the element type (kernels/reference/householder.h), so
// that the reflectors and the condensed matrix match LAPACK's up to
// rounding: neither has a free sign. Float and complex element types.
#include <algorithm>
#include <complex>
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
using householder::ReduceHessenberg;
using householder::ReduceTridiagonal;
using householder::RealOf;
using numeric::CheckCall;
using numeric::CheckDims;
using numeric::FromComplex;
using numeric::KernelName;
using numeric::LoadMatrix;
using numeric::Store;
using numeric::StoreMatrix;

// The batch dims of a [batch..., n, n] operand, followed by `tail`.
std::vector<int64_t> BatchDims(const TensorRef& a, std::initializer_list<int64_t> tail) {
  std::vector<int64_t> d(a.dims.begin(), a.dims.end() - 2);
  d.insert(d.end(), tail);
  return d;
}

Status SquareMatrices(const KernelCall& c, int64_t* batches, int64_t* n) {
  const TensorRef& a = c.inputs[0];
  const int64_t r = a.rank();
  if ((!IsFloat(a.type) && !IsComplex(a.type)) || r < 2 || a.dims[r - 1] != a.dims[r - 2])
    return InvalidArgument(KernelName(c) + ": the operand must be (batches of) square float or complex matrices");
  if (c.outputs[0].type != a.type) return InvalidArgument(KernelName(c) + ": result 0 must have the operand's type");
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[0], a.dims, "result 0"));
  *n = a.dims[r - 1];
  *batches = 1;
  for (int64_t i = 0; i + 2 < r; ++i) *batches *= a.dims[i];
  return Status::Ok();
}

Status CheckInfo(const KernelCall& c, const TensorRef& info) {
  if (info.type != ElementType::kSI32) return InvalidArgument(KernelName(c) + ": info must be si32");
  return CheckDims(c, info, BatchDims(c.inputs[0], {}), "info");
}

// kiln.gehrd: (a) -> (h, tau, info) as LAPACK's ?gehrd: a [batch..., n,
// n]; h holds the upper Hessenberg matrix Q^H a Q on and above the first
// subdiagonal and the reflectors' v below it (v(i+1) = 1 implied); tau
// [batch..., n - 1] of a's type; info 0. Attrs low and high: LAPACK's ilo
// and ihi (1-based; 1 and n reduce the whole matrix).
Status Gehrd(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 1, 3));
  int64_t batches = 0, n = 0;
  KILN_RETURN_IF_ERROR(SquareMatrices(c, &batches, &n));
  const TensorRef& a = c.inputs[0];
  const int64_t nt = std::max<int64_t>(n - 1, 0);
  if (c.outputs[1].type != a.type) return InvalidArgument(KernelName(c) + ": tau must have the operand's type");
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[1], BatchDims(a, {nt}), "tau"));
  KILN_RETURN_IF_ERROR(CheckInfo(c, c.outputs[2]));
  const int64_t ilo = c.params.Int("low", 1), ihi = c.params.Int("high", n);
  if (ilo < 1 || ilo > std::max<int64_t>(n, 1) || ihi < std::min(ilo, n) || ihi > n)
    return InvalidArgument(KernelName(c) + ": low and high must satisfy 1 <= low <= high <= n (LAPACK's ilo, ihi), got " +
                           std::to_string(ilo) + " and " + std::to_string(ihi));
  for (int64_t bi = 0; bi < batches; ++bi) Store(c.outputs[2], bi, Scalar{});
  numeric::ForLapackType(a.type, [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> m, tau(static_cast<size_t>(nt));
    for (int64_t bi = 0; bi < batches; ++bi) {
      LoadMatrix(a, bi * n * n, n * n, &m);
      ReduceHessenberg(m, n, ilo, ihi, tau);
      StoreMatrix(c.outputs[0], bi * n * n, m);
      StoreMatrix(c.outputs[1], bi * nt, tau);
    }
  });
  return Status::Ok();
}

// kiln.sytrd: (a) -> (a', d, e, tau, info) as LAPACK's ?sytrd (real) and
// ?hetrd (complex): a [batch..., n, n] symmetric or Hermitian, read from
// its lower (attr lower = 1) or upper triangle (a complex diagonal's
// imaginary parts ignored); d [batch..., n] and e [batch..., n - 1] (a's
// real type) the diagonal and off-diagonal of T = Q^H a Q; tau [batch...,
// n - 1] of a's type; a' the operand with T's d and e and the reflectors'
// v in the named triangle (the other triangle as given); info 0.
Status Sytrd(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 1, 5));
  int64_t batches = 0, n = 0;
  KILN_RETURN_IF_ERROR(SquareMatrices(c, &batches, &n));
  const TensorRef& a = c.inputs[0];
  const ElementType real = IsComplex(a.type) ? ComplexPartType(a.type) : a.type;
  const int64_t nt = std::max<int64_t>(n - 1, 0);
  if (c.outputs[1].type != real || c.outputs[2].type != real || c.outputs[3].type != a.type)
    return InvalidArgument(KernelName(c) + ": d and e must have the operand's real type, tau its type");
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[1], BatchDims(a, {n}), "d"));
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[2], BatchDims(a, {nt}), "e"));
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[3], BatchDims(a, {nt}), "tau"));
  KILN_RETURN_IF_ERROR(CheckInfo(c, c.outputs[4]));
  const bool lower = c.params.Int("lower", 1) != 0;
  for (int64_t bi = 0; bi < batches; ++bi) Store(c.outputs[4], bi, Scalar{});
  numeric::ForLapackType(a.type, [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> given, m(static_cast<size_t>(n * n)), d(static_cast<size_t>(n)), e(static_cast<size_t>(nt)),
        tau(static_cast<size_t>(nt));
    for (int64_t bi = 0; bi < batches; ++bi) {
      LoadMatrix(a, bi * n * n, n * n, &given);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          const bool stored = lower ? i >= j : i <= j;  // (i, j) is in the named triangle
          const T x = stored ? given[i * n + j] : Conj(given[j * n + i]);
          m[i * n + j] = i == j ? T(std::real(x)) : x;
        }
      ReduceTridiagonal(m, given, n, lower, d, e, tau);
      StoreMatrix(c.outputs[0], bi * n * n, given);
      StoreMatrix(c.outputs[1], bi * n, d);
      StoreMatrix(c.outputs[2], bi * nt, e);
      StoreMatrix(c.outputs[3], bi * nt, tau);
    }
  });
  return Status::Ok();
}

}  // namespace

// This file's kernels of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::Gehrd(const KernelCall& call) { return ref::Gehrd(call); }
Status kernel::Sytrd(const KernelCall& call) { return ref::Sytrd(call); }

}  // namespace kiln::ref

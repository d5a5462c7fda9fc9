// kiln.gtsv (LAPACK's ?gtsv, as jaxlib's ?gtsv_ffi calls it for
// lax.linalg.tridiagonal_solve) for f32, f64, complex<f32> and
// complex<f64>: one invocation per system of the batch copies dl, d, du and
// b into the results and solves there, step for step as kernels/reference/
// linalg_gtsv.cc: Gaussian elimination with partial pivoting (rows i and
// i + 1 swap when |dl(i)| > |d(i)|, by cabs1 for complex types, as zgtsv),
// U's second super-diagonal left in dl, then back substitution per
// right-hand side; an exactly zero pivot U(i, i) stops with info = i + 1
// (1-based), leaving b part way, as LAPACK does. dl(0) is not read: LAPACK
// gets dl + 1. The generator defines T, R (its real type), the loads
// dl_in / d_in / du_in / b_in, the result accessors (dl/d/du/x get and put,
// put_info), and the element operations cabs1, mul and div
// (kernels_linalg.cc, FactorHelpers).
$FUNCTIONS

void main() {
  uint id = kiln_linear_id();
  const uint n = $N, nrhs = $NRHS;
  uint batches = $BATCHES;
  if (id >= batches) return;
  uint base = id * n, bbase = id * n * nrhs;
  for (uint e = 0u; e < n; ++e) {
    dl_put(base + e, dl_in(base + e));
    d_put(base + e, d_in(base + e));
    du_put(base + e, du_in(base + e));
  }
  for (uint e = 0u; e < n * nrhs; ++e) x_put(bbase + e, b_in(bbase + e));
  put_info(id, 0);
  if (n == 0u) return;
  // LAPACK's dl(i) is the result's element 1 + i.
  const uint lo = base + 1u;
  for (uint i = 0u; i + 1u < n; ++i) {
    const bool last = i == n - 2u;
    if (cabs1(d_get(base + i)) >= cabs1(dl_get(lo + i))) {  // no row interchange
      if (d_get(base + i) == $T(0)) {
        put_info(id, int(i + 1u));
        return;
      }
      precise $T fact = div(dl_get(lo + i), d_get(base + i));
      precise $T d1 = d_get(base + i + 1u) - mul(fact, du_get(base + i));
      d_put(base + i + 1u, d1);
      for (uint j = 0u; j < nrhs; ++j) {
        precise $T v = x_get(bbase + (i + 1u) * nrhs + j) - mul(fact, x_get(bbase + i * nrhs + j));
        x_put(bbase + (i + 1u) * nrhs + j, v);
      }
      if (!last) dl_put(lo + i, $T(0));
    } else {  // interchange rows i and i + 1
      precise $T fact = div(d_get(base + i), dl_get(lo + i));
      d_put(base + i, dl_get(lo + i));
      $T temp = d_get(base + i + 1u);
      precise $T d1 = du_get(base + i) - mul(fact, temp);
      d_put(base + i + 1u, d1);
      if (!last) {
        dl_put(lo + i, du_get(base + i + 1u));
        precise $T u1 = -mul(fact, dl_get(lo + i));
        du_put(base + i + 1u, u1);
      }
      du_put(base + i, temp);
      for (uint j = 0u; j < nrhs; ++j) {
        $T t = x_get(bbase + i * nrhs + j);
        $T below = x_get(bbase + (i + 1u) * nrhs + j);
        x_put(bbase + i * nrhs + j, below);
        precise $T v = t - mul(fact, below);
        x_put(bbase + (i + 1u) * nrhs + j, v);
      }
    }
  }
  if (d_get(base + n - 1u) == $T(0)) {
    put_info(id, int(n));
    return;
  }
  for (uint j = 0u; j < nrhs; ++j) {  // back substitution with U
    x_put(bbase + (n - 1u) * nrhs + j, div(x_get(bbase + (n - 1u) * nrhs + j), d_get(base + n - 1u)));
    if (n > 1u) {
      precise $T v = x_get(bbase + (n - 2u) * nrhs + j) - mul(du_get(base + n - 2u), x_get(bbase + (n - 1u) * nrhs + j));
      x_put(bbase + (n - 2u) * nrhs + j, div(v, d_get(base + n - 2u)));
    }
    for (int i = int(n) - 3; i >= 0; --i) {
      uint u = uint(i);
      precise $T v = x_get(bbase + u * nrhs + j) - mul(du_get(base + u), x_get(bbase + (u + 1u) * nrhs + j)) -
                     mul(dl_get(lo + u), x_get(bbase + (u + 2u) * nrhs + j));
      x_put(bbase + u * nrhs + j, div(v, d_get(base + u)));
    }
  }
}

// kiln.geqp3 (jaxlib's ?geqp3_ffi: QR with column pivoting, LAPACK's
// geqp3 / laqp2) for f32, f64, complex<f32> and complex<f64>: one
// invocation per matrix of the batch, step for step as
// kernels/reference/linalg_geqp3.cc in the element type: the columns the
// caller fixed (jpvt != 0) moved to the front and factored first, then at
// each step the free column of largest remaining norm, the norms downdated
// from the factored row and recomputed where cancellation would lose them.
// The norms live in private arrays of KMAX entries: the compiler refuses a
// static n past KMAX, and a larger n at run time gives NaN factors and
// zero pivots. The generator defines T, R, M, N, K (min(M, N)), KMAX,
// BATCHES, TOL3Z (sqrt(R's epsilon / 2)), a_at / jpvt_in (the operands),
// x_at / put (result 0), get_jpvt / put_jpvt (result 1), put_tau (result
// 2), rsqrt_ (R's correctly rounded square root), nan_r and householder.glsl
// (kernels_linalg.cc, HouseholderFunctions).
$FUNCTIONS

$R vn1[KMAX];  // the free columns' remaining norms
$R vn2[KMAX];  // and the norms they were last computed at

void swap_columns(uint base, uint a, uint b) {
  for (uint r = 0u; r < $M; ++r) {
    $T t = x(base, r, a);
    set_x(base, r, a, x(base, r, b));
    set_x(base, r, b, t);
  }
}
void swap_pivots(uint jb, uint a, uint b) {
  int t = get_jpvt(jb + a);
  put_jpvt(jb + a, get_jpvt(jb + b));
  put_jpvt(jb + b, t);
}
// H(i) from column i (larfg), its adjoint applied to the columns right of it.
void reflect(uint base, uint tb, uint i) {
  $T tau = larfg(base, i, i);
  put_tau(tb + i, tau);
  if (i + 1u < $N) apply(base, i, i, i + 1u, conj(tau));
}

void main() {
  uint id = kiln_linear_id();
  uint batches = $BATCHES;
  if (id >= batches) return;
  const uint m = $M, n = $N, k = $K;
  const uint base = id * m * n, jb = id * n, tb = id * k;
  for (uint i = 0u; i < k; ++i) put_tau(tb + i, $T(0));
  if (n > uint(KMAX)) {
    for (uint e = 0u; e < m * n; ++e) put(base + e, from_re(nan_r()));
    for (uint j = 0u; j < n; ++j) put_jpvt(jb + j, 0);
    return;
  }
  for (uint e = 0u; e < m * n; ++e) put(base + e, a_at(base + e));
  uint nfxd = 0u;  // fixed columns to the front
  for (uint j = 0u; j < n; ++j) {
    if (jpvt_in(jb + j) != 0) {
      if (j != nfxd) {
        swap_columns(base, j, nfxd);
        put_jpvt(jb + j, get_jpvt(jb + nfxd));
        put_jpvt(jb + nfxd, int(j + 1u));
      } else {
        put_jpvt(jb + j, int(j + 1u));
      }
      ++nfxd;
    } else {
      put_jpvt(jb + j, int(j + 1u));
    }
  }
  for (uint i = 0u; i < min(m, nfxd); ++i) reflect(base, tb, i);
  if (nfxd >= k) return;
  for (uint j = nfxd; j < n; ++j) {
    vn1[j] = norm2_range(base, nfxd, m, j);
    vn2[j] = vn1[j];
  }
  for (uint i = nfxd; i < k; ++i) {
    uint pvt = i;  // the first free column of largest norm
    for (uint j = i + 1u; j < n; ++j)
      if (vn1[j] > vn1[pvt]) pvt = j;
    if (pvt != i) {
      swap_columns(base, pvt, i);
      swap_pivots(jb, pvt, i);
      vn1[pvt] = vn1[i];
      vn2[pvt] = vn2[i];
    }
    reflect(base, tb, i);
    for (uint j = i + 1u; j < n; ++j) {  // downdate the norms
      if (vn1[j] == $R(0)) continue;
      precise $R q = mag(x(base, i, j)) / vn1[j];
      precise $R temp = max($R(1) - q * q, $R(0));
      precise $R ratio = vn1[j] / vn2[j];
      precise $R temp2 = temp * (ratio * ratio);
      if (temp2 <= $TOL3Z) {
        vn1[j] = i + 1u < m ? norm2_range(base, i + 1u, m, j) : $R(0);
        vn2[j] = vn1[j];
      } else {
        precise $R v = vn1[j] * rsqrt_(temp);
        vn1[j] = v;
      }
    }
  }
}

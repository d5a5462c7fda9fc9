// kiln.geqrf and kiln.orgqr (LAPACK's unblocked geqr2 / org2r, and for
// complex types geqr2's / ung2r's complex forms) for f32, f64, complex<f32>
// and complex<f64>: one invocation per matrix of the batch works on a copy
// of its operand in result 0, in the element type, step for step as
// kernels/reference/linalg.cc (norms accumulated in f64, scaled; LAPACK's
// larfg with its rescaling of tiny columns and a real beta; H = I - tau v
// v^H applied from the left, geqr2 with conj(tau)). The invocation of
// matrix 0 also zeroes info and the workspace. The generator defines T, R
// (T's real type), GEQRF, M, N, K (the reflectors), BATCHES, SAFMIN (R's
// smallest normal over its epsilon), a_at / x_at / put (result 0), tau_at
// (orgqr's input 1), put_tau (geqrf's result 1), zero_rest (info and
// workspace), and the reflectors of householder.glsl (x, set_x, norm2,
// apply, larfg; kernels_linalg.cc, HouseholderFunctions).
$FUNCTIONS
const bool GEQRF = $GEQRF;

void main() {
  uint id = kiln_linear_id();
  uint batches = $BATCHES;
  if (id == 0u) zero_rest();
  if (id >= batches) return;
  uint base = id * $M * $N;
  for (uint e = 0u; e < $M * $N; ++e) put(base + e, a_at(base + e));
  if (GEQRF) {
    for (uint i = 0u; i < $K; ++i) {
      $T tau = larfg(base, i, i);
      put_tau(id * $K + i, tau);
      if (i + 1u < $N) apply(base, i, i, i + 1u, conj(tau));
    }
  } else {
    for (uint j = $K; j < $N; ++j) {
      for (uint r = 0u; r < $M; ++r) set_x(base, r, j, $T(0));
      if (j < $M) set_x(base, j, j, from_re($R(1)));
    }
    for (uint i = $K; i-- > 0u;) {
      $T tau = tau_at(id * $K + i);
      if (i + 1u < $N) apply(base, i, i, i + 1u, tau);
      for (uint r = i + 1u; r < $M; ++r) {
        precise $T v = mul(x(base, r, i), -tau);
        set_x(base, r, i, v);
      }
      set_x(base, i, i, from_re($R(1)) - tau);
      for (uint r = 0u; r < i; ++r) set_x(base, r, i, $T(0));
    }
  }
}

// kiln.gehrd (LAPACK's unblocked gehd2, and its complex form) for f32,
// f64, complex<f32> and complex<f64>: one invocation per matrix of the
// batch works on a copy of its operand in result 0, in the element type,
// step for step as kernels/reference/linalg_condensed.cc: for each column
// i from LOW - 1 to HIGH - 2, the reflector H(i) of the entries below its
// subdiagonal (larfg on alpha = x(i + 1, i)), then A H on rows 0 .. HIGH -
// 1 and columns i + 1 .. HIGH - 1, then H^H A (apply with conj(tau)) on
// rows i + 1 .. HIGH - 1 and columns i + 1 .. N - 1; tau outside LOW - 1
// .. HIGH - 2 is zero. The invocation of matrix 0 also zeroes info. The
// generator defines T, R, N, LOW, HIGH (LAPACK's ilo and ihi, 1-based),
// BATCHES, a_at / put (result 0), put_tau (result 1), zero_rest (info)
// and the reflectors of householder.glsl (its M is HIGH: the rows they
// span; kernels_linalg.cc).
$FUNCTIONS

// A H = A - tau (A v) v^H on rows 0 .. HIGH - 1 and columns r0 .. HIGH - 1,
// v the column vcol from row r0 with v(r0) = 1.
void apply_right(uint base, uint r0, uint vcol, $T tau) {
  if (tau == $T(0)) return;
  for (uint r = 0u; r < $HIGH; ++r) {
    precise $T w = $T(0);
    for (uint k = r0; k < $HIGH; ++k) w += mul(x(base, r, k), (k == r0 ? from_re($R(1)) : x(base, k, vcol)));
    precise $T tw = mul(tau, w);
    for (uint k = r0; k < $HIGH; ++k) {
      precise $T v = x(base, r, k) - mul(tw, conj(k == r0 ? from_re($R(1)) : x(base, k, vcol)));
      set_x(base, r, k, v);
    }
  }
}

void main() {
  uint id = kiln_linear_id();
  uint batches = $BATCHES;
  if (id == 0u) zero_rest();
  if (id >= batches) return;
  uint n = $N;
  uint base = id * n * n;
  for (uint e = 0u; e < n * n; ++e) put(base + e, a_at(base + e));
  uint taus = n > 0u ? n - 1u : 0u;
  for (uint i = 0u; i < taus; ++i) put_tau(id * taus + i, $T(0));
  for (uint i = $LOW - 1u; i + 1u < $HIGH; ++i) {
    $T tau = larfg(base, i + 1u, i);
    put_tau(id * taus + i, tau);
    apply_right(base, i + 1u, i, tau);
    apply(base, i + 1u, i, i + 1u, conj(tau));
  }
}

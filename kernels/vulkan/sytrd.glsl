// kiln.sytrd (LAPACK's unblocked sytd2 / hetd2, as jaxlib's ?sytrd_ffi /
// ?hetrd_ffi calls them for lax.linalg.tridiagonal) for f32, f64,
// complex<f32> and complex<f64>: one invocation per matrix of the batch,
// step for step as kernels/reference/householder.h (ReduceTridiagonal) in
// the element type, by tridiagonal.glsl's reduce_tridiagonal; d, e and tau
// go to results 1 to 3 as reached, and last the named triangle becomes T's
// diagonal and off-diagonal with the reflectors' v beyond it, the other
// triangle getting the operand's values back, as LAPACK leaves it. The
// generator defines T, R, N, LOWER, BATCHES, a_at (the operand), x_at / put
// (result 0), keep_d / get_d, keep_e / get_e, keep_tau (results 1 to 3),
// zero_rest (info) and tridiagonal.glsl with householder.glsl and its
// element operations (kernels_linalg.cc, TridiagonalFunctions).
$FUNCTIONS
void main() {
  uint id = kiln_linear_id();
  uint batches = $BATCHES;
  if (id == 0u) zero_rest();
  if (id >= batches) return;
  const uint n = $N;
  const uint nt = n > 0u ? n - 1u : 0u;
  uint base = id * n * n;
  // The Hermitian matrix from the named triangle, its diagonal real.
  for (uint r = 0u; r < n; ++r)
    for (uint c = 0u; c < n; ++c)
      if (authoritative(r, c)) put(base + r * n + c, r == c ? from_re(re(a_at(base + r * n + c))) : a_at(base + r * n + c));
  reduce_tridiagonal(id, base);
  // Result 0: the operand with T's diagonal and off-diagonal, and the
  // reflectors' v beyond them in the named triangle; the other triangle as
  // given.
  for (uint r = 0u; r < n; ++r)
    for (uint c = 0u; c < n; ++c) {
      uint e = base + r * n + c;
      if (r == c) continue;
      if (!authoritative(r, c)) put(e, a_at(e));
      else if (LOWER ? r == c + 1u : c == r + 1u) put(e, from_re(get_e(id * nt + min(r, c))));
    }
  for (uint r = 0u; r < n; ++r) put(base + r * n + r, from_re(get_d(id * n + r)));
}

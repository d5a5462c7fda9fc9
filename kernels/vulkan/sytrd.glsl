// kiln.sytrd (LAPACK's unblocked sytd2 / hetd2, as jaxlib's ?sytrd_ffi /
// ?hetrd_ffi calls them for lax.linalg.tridiagonal) for f32, f64,
// complex<f32> and complex<f64>: one invocation per matrix of the batch,
// step for step as kernels/reference/householder.h (ReduceTridiagonal) in
// the element type. The working Hermitian matrix lives in result 0's named
// triangle alone (LOWER: i >= j), the other read as its conjugate mirror;
// the other triangle's storage holds the rank-two update's vector x
// meanwhile and gets the operand's values back at the end, as LAPACK
// leaves it. Each step: larfg (householder.glsl's larfg_range) on alpha =
// M(arow, col) and x = column col (rows below it, lower; above it, upper),
// then the Hermitian rank-two update of the trailing (lower) or leading
// (upper) block, d and e as reached; last, the named triangle becomes T's
// diagonal and off-diagonal with the reflectors' v beyond it. The
// generator defines T, R, N, LOWER, BATCHES, a_at (the operand), x_at / put
// (result 0), put_d, get_d, put_e, get_e, put_tau, zero_rest (info) and
// householder.glsl with its element operations (kernels_linalg.cc,
// HouseholderFunctions).
$FUNCTIONS
const bool LOWER = $LOWER;

bool authoritative(uint r, uint c) { return LOWER ? r >= c : r <= c; }
$T m_get(uint base, uint r, uint c) {
  return authoritative(r, c) ? x_at(base + r * $N + c) : conj(x_at(base + c * $N + r));
}
void m_set(uint base, uint r, uint c, $T v) {
  if (authoritative(r, c)) put(base + r * $N + c, v);
  else put(base + c * $N + r, conj(v));
}
// The rank-two update's vector, element j: in the other triangle's storage
// (row 0 beyond the diagonal, lower; column 0 below it, upper).
uint w_index(uint base, uint j) { return LOWER ? base + 1u + j : base + (1u + j) * $N; }
// Element k of the reflector v (vlen entries, its tail stored in column col
// from row first): 1 at the block's first (lower) or last (upper) row.
$T v_at(uint base, uint k, uint vlen, uint first, uint col) {
  if (LOWER ? k == 0u : k == vlen - 1u) return from_re($R(1));
  return m_get(base, first + (LOWER ? k - 1u : k), col);
}

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
  for (uint step = 0u; step + 1u < n; ++step) {
    const uint i = LOWER ? step : n - 2u - step;
    const uint col = LOWER ? i : i + 1u, arow = LOWER ? i + 1u : i;
    const uint first = LOWER ? i + 2u : 0u, len = LOWER ? n - i - 2u : i;
    // alpha and x lie in the named triangle, where x() reads M itself; beta
    // lands on alpha, which nothing reads again (the result gets e there).
    $T tau = larfg_range(base, arow, first, first + len, col);
    put_e(id * nt + i, re(x(base, arow, col)));
    const uint o = LOWER ? i + 1u : 0u, vlen = len + 1u;  // the block and v's length
    if (tau != $T(0)) {
      // x = tau B v, then x += alpha v with alpha = -tau (x^H v) / 2.
      for (uint j = 0u; j < vlen; ++j) {
        precise $T s = $T(0);
        for (uint k = 0u; k < vlen; ++k) {
          $T vk = v_at(base, k, vlen, first, col);
          s += mul(m_get(base, o + j, o + k), vk);
        }
        put(w_index(base, j), mul(tau, s));
      }
      precise $T dot = $T(0);
      for (uint j = 0u; j < vlen; ++j) {
        $T vj = v_at(base, j, vlen, first, col);
        dot += mul(conj(x_at(w_index(base, j))), vj);
      }
      precise $T htau = mul(from_re($R(-0.5)), tau);
      precise $T a2 = mul(htau, dot);
      for (uint j = 0u; j < vlen; ++j) {
        $T vj = v_at(base, j, vlen, first, col);
        precise $T xj = x_at(w_index(base, j)) + mul(a2, vj);
        put(w_index(base, j), xj);
      }
      for (uint j = 0u; j < vlen; ++j) {
        $T vj = v_at(base, j, vlen, first, col);
        $T xj = x_at(w_index(base, j));
        for (uint k = 0u; k < j; ++k) {
          $T vk = v_at(base, k, vlen, first, col);
          $T xk = x_at(w_index(base, k));
          precise $T b = m_get(base, o + j, o + k) - (mul(vj, conj(xk)) + mul(xj, conj(vk)));
          m_set(base, o + j, o + k, b);
        }
        precise $R djj = re(m_get(base, o + j, o + j)) - re(mul(vj, conj(xj)) + mul(xj, conj(vj)));
        m_set(base, o + j, o + j, from_re(djj));
      }
    }
    put_tau(id * nt + i, tau);
    const uint di = LOWER ? i : i + 1u;
    put_d(id * n + di, re(m_get(base, di, di)));
  }
  if (n > 0u) {
    const uint last = LOWER ? n - 1u : 0u;
    put_d(id * n + last, re(m_get(base, last, last)));
  }
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

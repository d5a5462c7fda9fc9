// The tridiagonal reduction of sytd2 / hetd2 (kernels/reference/
// householder.h, ReduceTridiagonal) for one matrix in result 0, shared by
// sytrd.glsl (lax.linalg.tridiagonal) and syevd.glsl (eigh), in the
// element type. The working Hermitian matrix lives in result 0's named
// triangle alone (LOWER: i >= j), the other read as its conjugate mirror;
// the other triangle's storage holds the rank-two update's vector x
// meanwhile. Each step: larfg (householder.glsl's larfg_range) on alpha =
// M(arow, col) and x = column col (rows below it, lower; above it, upper),
// then the Hermitian rank-two update of the trailing (lower) or leading
// (upper) block. T's diagonal, off-diagonal and the reflectors' tau go to
// the includer's keep_d, keep_e and keep_tau (matrix id, index, value); the
// reflectors' v stay in the named triangle beyond the off-diagonal, whose
// own entries hold beta (= e). Needs LOWER (a constant), T, R, N, x_at /
// put and householder.glsl (kernels_linalg.cc, TridiagonalFunctions).

void keep_d(uint id, uint i, $R v);
void keep_e(uint id, uint i, $R v);
void keep_tau(uint id, uint i, $T v);

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

// Reduces the Hermitian matrix that the includer put in result 0's named
// triangle at base (its diagonal real).
void reduce_tridiagonal(uint id, uint base) {
  const uint n = $N;
  for (uint step = 0u; step + 1u < n; ++step) {
    const uint i = LOWER ? step : n - 2u - step;
    const uint col = LOWER ? i : i + 1u, arow = LOWER ? i + 1u : i;
    const uint first = LOWER ? i + 2u : 0u, len = LOWER ? n - i - 2u : i;
    // alpha and x lie in the named triangle, where x() reads M itself; beta
    // lands on alpha, which nothing reads again (the result gets e there).
    $T tau = larfg_range(base, arow, first, first + len, col);
    keep_e(id, i, re(x(base, arow, col)));
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
    keep_tau(id, i, tau);
    const uint di = LOWER ? i : i + 1u;
    keep_d(id, di, re(m_get(base, di, di)));
  }
  if (n > 0u) {
    const uint last = LOWER ? n - 1u : 0u;
    keep_d(id, last, re(m_get(base, last, last)));
  }
}

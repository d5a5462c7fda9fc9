// triangular_solve: one invocation per (batch, right-hand side) substitutes
// through the system S y = b' (S = op(tri(a)) or its transpose for the
// right side), as kernels/reference does, writing y into the result as it
// goes. The generator defines T (the compute type: a real type, or vec2 /
// dvec2 for complex ones), ONE and ZERO, MUL and DIV (the type's product
// and quotient), the flags LEFT, LOWER, UNIT, TRANSPOSED, and a_at (op(a)'s
// element: conjugated for ADJOINT) / b_at / y_at / put (loads converted to
// T, store converted from T).
$FUNCTIONS
const bool LEFT = $LEFT, LOWER = $LOWER, UNIT = $UNIT, TRANSPOSED = $TRANSPOSED;

// tri(a)[i][j] of batch matrix `base`.
$T tri(uint base, uint m, uint i, uint j) {
  if (i == j && UNIT) return $ONE;
  if (LOWER ? i >= j : i <= j) return a_at(base + i * m + j);
  return $ZERO;
}
// S[x][y]
$T s_at(uint base, uint m, uint x, uint y) {
  bool swap = LEFT ? TRANSPOSED : !TRANSPOSED;
  return swap ? tri(base, m, y, x) : tri(base, m, x, y);
}

void main() {
  uint id = kiln_linear_id();
  const uint m = $M, rows = $ROWS, cols = $COLS;
  const uint k = LEFT ? cols : rows;
  uint batches = $BATCHES;
  if (k == 0u || id >= batches * k) return;
  uint bi = id / k, j = id % k;
  uint abase = bi * m * m, bbase = bi * rows * cols;
  // S is lower triangular iff exactly one of (lower, transposed, right side) flips it.
  bool s_lower = (LOWER != TRANSPOSED) ? LEFT : !LEFT;
  for (uint step = 0u; step < m; ++step) {
    uint i = s_lower ? step : m - 1u - step;
    uint yi = bbase + (LEFT ? i * cols + j : j * cols + i);
    $T acc = b_at(yi);
    if (s_lower) {
      for (uint q = 0u; q < i; ++q) acc -= $MUL(s_at(abase, m, i, q), y_at(bbase + (LEFT ? q * cols + j : j * cols + q)));
    } else {
      for (uint q = i + 1u; q < m; ++q) acc -= $MUL(s_at(abase, m, i, q), y_at(bbase + (LEFT ? q * cols + j : j * cols + q)));
    }
    put(yi, $DIV(acc, s_at(abase, m, i, i)));
  }
}

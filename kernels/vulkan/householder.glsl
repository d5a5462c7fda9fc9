// Householder reflectors as kernels/reference/householder.h builds them
// (LAPACK's larfg with its rescaling of tiny columns and a real beta; H = I
// - tau v v^H applied from the left), for the shaders that work on one
// M x N matrix per invocation in result 0 (qr.glsl, hessenberg.glsl): the
// generator defines T, R, M, N, SAFMIN, x_at / put and the element
// operations (kernels_linalg.cc, HouseholderFunctions).
$T x(uint base, uint r, uint c) { return x_at(base + r * $N + c); }
void set_x(uint base, uint r, uint c, $T v) { put(base + r * $N + c, v); }

// norm2_range(base, r0, r1, col) and larfg_range(base, row, r0, r1, col):
// larfg.glsl over this matrix.
$LARFG_FUNCTIONS
$R norm2(uint base, uint r0, uint col) { return norm2_range(base, r0, $M, col); }

// C -= tau v (C^H v)^H on rows r0.. and columns c0.., v = column vcol from
// row r0 with v(r0) = 1.
void apply(uint base, uint r0, uint vcol, uint c0, $T tau) {
  if (tau == $T(0)) return;
  for (uint c = c0; c < $N; ++c) {
    precise $T w = $T(0);
    for (uint r = r0; r < $M; ++r) w += mul(conj(x(base, r, c)), (r == r0 ? from_re($R(1)) : x(base, r, vcol)));
    precise $T tw = mul(tau, conj(w));
    for (uint r = r0; r < $M; ++r) {
      precise $T v = x(base, r, c) - mul((r == r0 ? from_re($R(1)) : x(base, r, vcol)), tw);
      set_x(base, r, c, v);
    }
  }
}

// larfg on alpha = x(row, col) and the column below it (row = M - 1: x
// empty).
$T larfg(uint base, uint row, uint col) { return larfg_range(base, row, row + 1u, $M, col); }

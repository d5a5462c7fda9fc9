// Householder reflectors as kernels/reference/householder.h builds them
// (LAPACK's larfg with its rescaling of tiny columns and a real beta; H = I
// - tau v v^H applied from the left), for the shaders that work on one
// M x N matrix per invocation in result 0 (qr.glsl, hessenberg.glsl): the
// generator defines T, R, M, N, SAFMIN, x_at / put and the element
// operations (kernels_linalg.cc, HouseholderFunctions).
$T x(uint base, uint r, uint c) { return x_at(base + r * $N + c); }
void set_x(uint base, uint r, uint c, $T v) { put(base + r * $N + c, v); }

// ||x(r0 .. r1 - 1, col)||, in f64 and scaled by the largest magnitude
// (the reference sums in long double: f64 squares of 1e-300 would
// underflow); norm2 is the column below r0.
$R norm2_range(uint base, uint r0, uint r1, uint col) {
  double amax = 0.0lf;
  for (uint r = r0; r < r1; ++r) amax = max(amax, double(mag(x(base, r, col))));
  if (amax == 0.0lf) return $R(0);
  precise double s = 0.0lf;
  for (uint r = r0; r < r1; ++r) {
    precise double v = double(mag(x(base, r, col))) / amax;
    s += v * v;
  }
  return $R(amax * sqrt(s));
}
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

// larfg on alpha = x(row, col) and x = rows r0 .. r1 - 1 of column col
// (below alpha in a QR; above it too in sytrd's upper form): returns tau,
// leaves beta in x(row, col) and v's tail in x. With x empty a complex
// alpha is still made real, as the reference's (LAPACK's) larfg does.
$T larfg_range(uint base, uint row, uint r0, uint r1, uint col) {
  $R xnorm = norm2_range(base, r0, r1, col);
  $T alpha = x(base, row, col);
  if (xnorm == $R(0) && im(alpha) == $R(0)) return $T(0);
  $R beta = signed_norm(alpha, xnorm);
  int knt = 0;
  if (abs(beta) < $SAFMIN) {
    precise $R rsafmn = $R(1) / $SAFMIN;
    do {
      ++knt;
      for (uint r = r0; r < r1; ++r) {
        precise $T v = x(base, r, col) * rsafmn;
        set_x(base, r, col, v);
      }
      beta *= rsafmn;
      alpha *= rsafmn;
    } while (abs(beta) < $SAFMIN && knt < 20);
    xnorm = norm2_range(base, r0, r1, col);
    beta = signed_norm(alpha, xnorm);
  }
  precise $T tau = make_tau(alpha, beta);
  precise $T scale = recip(alpha - from_re(beta));
  for (uint r = r0; r < r1; ++r) {
    precise $T v = mul(x(base, r, col), scale);
    set_x(base, r, col, v);
  }
  for (int j = 0; j < knt; ++j) beta *= $SAFMIN;
  set_x(base, row, col, from_re(beta));
  return tau;
}
// larfg on alpha = x(row, col) and the column below it (row = M - 1: x
// empty).
$T larfg(uint base, uint row, uint col) { return larfg_range(base, row, row + 1u, $M, col); }

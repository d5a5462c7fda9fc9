// LAPACK's larfg as kernels/reference/householder.h computes it (the
// rescaling of tiny columns, a real beta), over a matrix that an accessor
// reads: householder.glsl's (a matrix at a base index of result 0) and
// gesdd.glsl's (a view of any result, possibly conjugate transposed) fill
// this one text with their accessor (kernels_linalg.cc, LarfgFunctions):
// $ACC the accessor's type, $GET(a, r, c) / $SET(a, r, c, v) its element
// reads and writes, $NORM and $LARFG the names the shader calls. Also T,
// R, SAFMIN and the larfg helpers (signed_norm, make_tau, mag, ...).

// ||x(r0 .. r1 - 1, col)||, in f64 and scaled by the largest magnitude
// (the reference sums in long double: f64 squares of 1e-300 would
// underflow).
$R $NORM($ACC a, uint r0, uint r1, uint col) {
  double amax = 0.0lf;
  for (uint r = r0; r < r1; ++r) amax = max(amax, double(mag($GET(a, r, col))));
  if (amax == 0.0lf) return $R(0);
  precise double s = 0.0lf;
  for (uint r = r0; r < r1; ++r) {
    precise double q = double(mag($GET(a, r, col))) / amax;
    s += q * q;
  }
  return $R(amax * sqrt(s));
}

// larfg on alpha = x(row, col) and x = rows r0 .. r1 - 1 of column col
// (below alpha in a QR; above it too in sytrd's upper form): returns tau,
// leaves beta in x(row, col) and v's tail in x. With x empty a complex
// alpha is still made real, as the reference's (LAPACK's) larfg does.
$T $LARFG($ACC a, uint row, uint r0, uint r1, uint col) {
  $R xnorm = $NORM(a, r0, r1, col);
  $T alpha = $GET(a, row, col);
  if (xnorm == $R(0) && im(alpha) == $R(0)) return $T(0);
  $R beta = signed_norm(alpha, xnorm);
  int knt = 0;
  if (abs(beta) < $SAFMIN) {
    precise $R rsafmn = $R(1) / $SAFMIN;
    do {
      ++knt;
      for (uint r = r0; r < r1; ++r) {
        precise $T v = $GET(a, r, col) * rsafmn;
        $SET(a, r, col, v);
      }
      beta *= rsafmn;
      alpha *= rsafmn;
    } while (abs(beta) < $SAFMIN && knt < 20);
    xnorm = $NORM(a, r0, r1, col);
    beta = signed_norm(alpha, xnorm);
  }
  precise $T tau = make_tau(alpha, beta);
  precise $T scale = recip(alpha - from_re(beta));
  for (uint r = r0; r < r1; ++r) {
    precise $T v = mul($GET(a, r, col), scale);
    $SET(a, r, col, v);
  }
  for (int j = 0; j < knt; ++j) beta *= $SAFMIN;
  $SET(a, row, col, from_re(beta));
  return tau;
}

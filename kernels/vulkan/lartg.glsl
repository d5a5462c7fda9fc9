// LAPACK's plane rotation lartg (LAPACK 3.10 on, as kernels/reference/
// householder.h, Rotation), lapy2 and copysign_r, shared by syevd.glsl
// and gesdd.glsl. Needs R, SAFMIN_N, RTMIN_N, RTMAX_N (kernels_linalg.cc,
// EigenLimits, LartgFunctions), sign_bit and rsqrt_.
$R copysign_r($R m, $R s) { return sign_bit(s) ? -abs(m) : abs(m); }
// lapy2: sqrt(x^2 + y^2) without needless overflow, as the reference.
$R lapy2($R x, $R y) {
  $R w = max(abs(x), abs(y)), z = min(abs(x), abs(y));
  if (isnan(x) || isnan(y)) return x + y;
  if (z == $R(0) || isinf(w)) return w;
  precise $R q = z / w;
  precise $R s = $R(1) + q * q;
  precise $R r = w * rsqrt_(s);
  return r;
}
// lartg: c, s, r with [c s; -s c] [f; g] = [r; 0].
void lartg($R f, $R g, out $R c, out $R s, out $R r) {
  const $R safmax = $R(1) / $SAFMIN_N;
  const $R rtmin = $RTMIN_N, rtmax = $RTMAX_N;
  $R f1 = abs(f), g1 = abs(g);
  if (g == $R(0)) {
    c = $R(1); s = $R(0); r = f;
  } else if (f == $R(0)) {
    c = $R(0); s = copysign_r($R(1), g); r = g1;
  } else if (f1 > rtmin && f1 < rtmax && g1 > rtmin && g1 < rtmax) {
    precise $R d2 = f * f + g * g;
    $R d = rsqrt_(d2);
    precise $R cc = f1 / d;
    c = cc;
    r = copysign_r(d, f);
    precise $R ss = g / r;
    s = ss;
  } else {
    $R u = min(safmax, max($SAFMIN_N, max(f1, g1)));
    precise $R fs = f / u, gs = g / u;
    precise $R d2 = fs * fs + gs * gs;
    $R d = rsqrt_(d2);
    precise $R cc = abs(fs) / d;
    c = cc;
    $R rr = copysign_r(d, f);
    precise $R ss = gs / rr;
    s = ss;
    precise $R ru = rr * u;
    r = ru;
  }
}

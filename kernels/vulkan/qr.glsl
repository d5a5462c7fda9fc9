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
// workspace), the element operations mag (|x|), im, conj, mul, recip and
// from_re (kernels_linalg.cc, FactorHelpers), signed_norm (-sign(re alpha)
// |(alpha, xnorm)|) and make_tau.
$FUNCTIONS
const bool GEQRF = $GEQRF;

$T x(uint base, uint r, uint c) { return x_at(base + r * $N + c); }
void set_x(uint base, uint r, uint c, $T v) { put(base + r * $N + c, v); }

// ||x(r0.., col)||, in f64 and scaled by the largest magnitude (the
// reference sums in long double: f64 squares of 1e-300 would underflow).
$R norm2(uint base, uint r0, uint col) {
  double amax = 0.0lf;
  for (uint r = r0; r < $M; ++r) amax = max(amax, double(mag(x(base, r, col))));
  if (amax == 0.0lf) return $R(0);
  precise double s = 0.0lf;
  for (uint r = r0; r < $M; ++r) {
    precise double v = double(mag(x(base, r, col))) / amax;
    s += v * v;
  }
  return $R(amax * sqrt(s));
}

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

// larfg on alpha = x(i, i) and the column below it: returns tau, leaves
// beta in x(i, i) and v below it. With nothing below (i = M - 1) a complex
// alpha is still made real, as the reference's (LAPACK's) larfg does.
$T larfg(uint base, uint i) {
  $R xnorm = norm2(base, i + 1u, i);
  $T alpha = x(base, i, i);
  if (xnorm == $R(0) && im(alpha) == $R(0)) return $T(0);
  $R beta = signed_norm(alpha, xnorm);
  int knt = 0;
  if (abs(beta) < $SAFMIN) {
    precise $R rsafmn = $R(1) / $SAFMIN;
    do {
      ++knt;
      for (uint r = i + 1u; r < $M; ++r) {
        precise $T v = x(base, r, i) * rsafmn;
        set_x(base, r, i, v);
      }
      beta *= rsafmn;
      alpha *= rsafmn;
    } while (abs(beta) < $SAFMIN && knt < 20);
    xnorm = norm2(base, i + 1u, i);
    beta = signed_norm(alpha, xnorm);
  }
  precise $T tau = make_tau(alpha, beta);
  precise $T scale = recip(alpha - from_re(beta));
  for (uint r = i + 1u; r < $M; ++r) {
    precise $T v = mul(x(base, r, i), scale);
    set_x(base, r, i, v);
  }
  for (int j = 0; j < knt; ++j) beta *= $SAFMIN;
  set_x(base, i, i, from_re(beta));
  return tau;
}

void main() {
  uint id = kiln_linear_id();
  uint batches = $BATCHES;
  if (id == 0u) zero_rest();
  if (id >= batches) return;
  uint base = id * $M * $N;
  for (uint e = 0u; e < $M * $N; ++e) put(base + e, a_at(base + e));
  if (GEQRF) {
    for (uint i = 0u; i < $K; ++i) {
      $T tau = larfg(base, i);
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

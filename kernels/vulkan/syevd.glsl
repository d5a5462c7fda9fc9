// kiln.syevd (jaxlib's ?syevd_ffi / ?heevd_ffi, jnp.linalg.eigh) for f32,
// f64, complex<f32> and complex<f64>: one invocation per matrix of the
// batch, in the element type, as kernels/reference/linalg_syevd.cc: the
// range scaling of syevd, the tridiagonal reduction (tridiagonal.glsl), and
// steqr's implicit QL / QR iteration (its split tests, Wilkinson's shift,
// lartg's rotations, laev2 on 2 x 2 blocks, its selection sort). With
// vectors the reflectors are first formed into Q in result 0 (LAPACK's
// orgtr / ungtr: org2r on the trailing block, lower; org2l on the leading
// one, upper) and each rotation is applied to Q's columns as steqr with
// compz 'V' does, where the reference rotates the identity and applies
// the reflectors after (ormtr): the same factors, rounded in another
// order. The tridiagonal's diagonal lives in result 1 (w), its
// off-diagonal and the reflectors' tau in private arrays of KMAX entries:
// the compiler refuses a static n past KMAX, and a larger n at run time
// gives NaN results and info -1. The generator defines T, R, N, LOWER,
// VECTORS, KMAX, BATCHES, R's limits as steqr and syevd take them (EPS,
// SAFMIN_N, RTMIN_N, RTMAX_N, SSFMAX, SSFMIN, RMIN, RMAX: kernels_linalg.cc,
// EigenLimits), a_at (the operand), x_at / put
// (result 0), get_w / set_w (result 1), put_info (result 2), zero_rest
// (the workspaces), rsqrt_ (R's correctly rounded square root), nan_r,
// tridiagonal.glsl with householder.glsl (kernels_linalg.cc,
// TridiagonalFunctions) and lartg.glsl (lartg, lapy2, copysign_r).
$FUNCTIONS
const bool VECTORS = $VECTORS;

$R e_s[KMAX];   // steqr's off-diagonal, E(i) = e_s[i - 1]
$T tau_s[KMAX];  // the reflectors' tau until Q is formed

void keep_d(uint id, uint i, $R v) { set_w(id * $N + i, v); }
void keep_e(uint id, uint i, $R v) { e_s[i] = v; }
void keep_tau(uint id, uint i, $T v) { tau_s[i] = v; }

// laev2: the eigenvalues rt1 (larger in magnitude) and rt2 of [a b; b c]
// and (cs1, sn1), rt1's unit eigenvector.
void laev2($R a, $R b, $R c, out $R rt1, out $R rt2, out $R cs1, out $R sn1) {
  precise $R sm = a + c, df = a - c, tb = b + b;
  $R adf = abs(df), ab = abs(tb);
  $R acmx = abs(a) > abs(c) ? a : c, acmn = abs(a) > abs(c) ? c : a;
  precise $R rt;
  if (adf > ab) {
    precise $R q = ab / adf;
    precise $R s = $R(1) + q * q;
    rt = adf * rsqrt_(s);
  } else if (adf < ab) {
    precise $R q = adf / ab;
    precise $R s = $R(1) + q * q;
    rt = ab * rsqrt_(s);
  } else {
    rt = ab * rsqrt_($R(2));
  }
  int sgn1;
  if (sm < $R(0)) {
    precise $R v = $R(0.5) * (sm - rt);
    rt1 = v;
    sgn1 = -1;
    precise $R w = (acmx / rt1) * acmn - (b / rt1) * b;
    rt2 = w;
  } else if (sm > $R(0)) {
    precise $R v = $R(0.5) * (sm + rt);
    rt1 = v;
    sgn1 = 1;
    precise $R w = (acmx / rt1) * acmn - (b / rt1) * b;
    rt2 = w;
  } else {
    precise $R v = $R(0.5) * rt, w = $R(-0.5) * rt;
    rt1 = v;
    rt2 = w;
    sgn1 = 1;
  }
  int sgn2;
  precise $R cs;
  if (df >= $R(0)) {
    cs = df + rt;
    sgn2 = 1;
  } else {
    cs = df - rt;
    sgn2 = -1;
  }
  if (abs(cs) > ab) {
    precise $R ct = -tb / cs;
    precise $R s = $R(1) + ct * ct;
    precise $R sn = $R(1) / rsqrt_(s);
    sn1 = sn;
    precise $R cc = ct * sn1;
    cs1 = cc;
  } else if (ab == $R(0)) {
    cs1 = $R(1);
    sn1 = $R(0);
  } else {
    precise $R tn = -cs / tb;
    precise $R s = $R(1) + tn * tn;
    precise $R cc = $R(1) / rsqrt_(s);
    cs1 = cc;
    precise $R sn = tn * cs1;
    sn1 = sn;
  }
  if (sgn1 == sgn2) {
    $R tn = cs1;
    cs1 = -sn1;
    sn1 = tn;
  }
}

// lasr's rotation (c, s) of columns (j, j + 1) of the n x n result 0.
void rotate_columns(uint base, uint j, $R c, $R s) {
  if (!VECTORS || (c == $R(1) && s == $R(0))) return;
  for (uint r = 0u; r < $N; ++r) {
    $T lo = x(base, r, j), hi = x(base, r, j + 1u);
    precise $T h = c * hi - s * lo;
    precise $T l = s * hi + c * lo;
    set_x(base, r, j + 1u, h);
    set_x(base, r, j, l);
  }
}

// H = I - tau v v^H from the left on rows r0 .. r1 - 1 and columns c0 ..
// c1 - 1, v = column vcol on those rows with v(one) = 1 (LAPACK's larf).
void reflect(uint base, uint r0, uint r1, uint one, uint vcol, uint c0, uint c1, $T tau) {
  if (tau == $T(0)) return;
  for (uint c = c0; c < c1; ++c) {
    precise $T w = $T(0);
    for (uint r = r0; r < r1; ++r) w += mul(conj(x(base, r, c)), r == one ? from_re($R(1)) : x(base, r, vcol));
    precise $T tw = mul(tau, conj(w));
    for (uint r = r0; r < r1; ++r) {
      precise $T v = x(base, r, c) - mul(r == one ? from_re($R(1)) : x(base, r, vcol), tw);
      set_x(base, r, c, v);
    }
  }
}

// orgtr / ungtr: Q from the reflectors that reduce_tridiagonal left in
// result 0 and tau_s.
void form_q(uint base) {
  const uint n = $N, nb = n - 1u;
  const $T one = from_re($R(1)), zero = $T(0);
  if (LOWER) {  // Q = diag(1, org2r(reflectors shifted one column right))
    for (uint j = n - 1u; j >= 1u; --j) {
      set_x(base, 0u, j, zero);
      for (uint r = j + 1u; r < n; ++r) set_x(base, r, j, x(base, r, j - 1u));
    }
    set_x(base, 0u, 0u, one);
    for (uint r = 1u; r < n; ++r) set_x(base, r, 0u, zero);
    for (uint i = nb; i-- > 0u;) {  // block column i is column i + 1
      const uint g = i + 1u;
      $T tau = tau_s[i];
      reflect(base, g, n, g, g, g + 1u, n, tau);
      for (uint r = g + 1u; r < n; ++r) {
        precise $T v = mul(x(base, r, g), -tau);
        set_x(base, r, g, v);
      }
      set_x(base, g, g, one - tau);
      for (uint r = 1u; r < g; ++r) set_x(base, r, g, zero);
    }
  } else {  // Q = diag(org2l(reflectors shifted one column left), 1)
    for (uint j = 0u; j < nb; ++j) {
      for (uint r = 0u; r < j; ++r) set_x(base, r, j, x(base, r, j + 1u));
      set_x(base, n - 1u, j, zero);
    }
    for (uint r = 0u; r < nb; ++r) set_x(base, r, n - 1u, zero);
    set_x(base, n - 1u, n - 1u, one);
    for (uint i = 0u; i < nb; ++i) {
      $T tau = tau_s[i];
      reflect(base, 0u, i + 1u, i, i, 0u, i, tau);
      for (uint r = 0u; r < i; ++r) {
        precise $T v = mul(x(base, r, i), -tau);
        set_x(base, r, i, v);
      }
      set_x(base, i, i, one - tau);
      for (uint r = i + 1u; r < nb; ++r) set_x(base, r, i, zero);
    }
  }
}

// steqr on D (w at dbase, 1-based below as LAPACK's) and E (e_s): the
// eigenvalues ascending and, with VECTORS, result 0's columns rotated
// along. Returns LAPACK's info (0, or the off-diagonal entries left).
$R D(uint dbase, uint i) { return get_w(dbase + i - 1u); }
void setD(uint dbase, uint i, $R v) { set_w(dbase + i - 1u, v); }
$R E(uint i) { return e_s[i - 1u]; }
void setE(uint i, $R v) { e_s[i - 1u] = v; }
void scale_block(uint dbase, uint lsv, uint lendsv, $R from, $R to) {
  precise $R mul_ = to / from;
  for (uint i = lsv; i <= lendsv; ++i) {
    precise $R v = D(dbase, i) * mul_;
    setD(dbase, i, v);
  }
  for (uint i = lsv; i < lendsv; ++i) {
    precise $R v = E(i) * mul_;
    setE(i, v);
  }
}
int steqr(uint base, uint dbase) {
  const int n = int($N);
  const $R eps = $EPS, eps2 = eps * eps, safmin = $SAFMIN_N;
  const $R ssfmax = $SSFMAX, ssfmin = $SSFMIN;
  const int nmaxit = n * 30;
  int jtot = 0, l1 = 1;
  const int nm1 = n - 1;
  while (l1 <= n) {
    if (l1 > 1) setE(uint(l1 - 1), $R(0));
    int m = n;
    for (int mm = l1; mm <= nm1; ++mm) {
      $R tst = abs(E(uint(mm)));
      if (tst == $R(0)) {
        m = mm;
        break;
      }
      precise $R bound = (rsqrt_(abs(D(dbase, uint(mm)))) * rsqrt_(abs(D(dbase, uint(mm + 1))))) * eps;
      if (tst <= bound) {
        setE(uint(mm), $R(0));
        m = mm;
        break;
      }
    }
    int l = l1, lend = m;
    const int lsv = l, lendsv = lend;
    l1 = m + 1;
    if (lend == l) continue;
    $R anorm = $R(0);
    for (int i = l; i <= lend; ++i) anorm = max(anorm, abs(D(dbase, uint(i))));
    for (int i = l; i < lend; ++i) anorm = max(anorm, abs(E(uint(i))));
    if (anorm == $R(0)) continue;
    int iscale = 0;
    if (anorm > ssfmax) {
      iscale = 1;
      scale_block(dbase, uint(lsv), uint(lendsv), anorm, ssfmax);
    } else if (anorm < ssfmin) {
      iscale = 2;
      scale_block(dbase, uint(lsv), uint(lendsv), anorm, ssfmin);
    }
    if (abs(D(dbase, uint(lend))) < abs(D(dbase, uint(l)))) {
      lend = lsv;
      l = lendsv;
    }
    if (lend > l) {  // QL
      while (true) {
        int mm = lend;
        if (l != lend)
          for (mm = l; mm <= lend - 1; ++mm) {
            precise $R tst = abs(E(uint(mm))) * abs(E(uint(mm)));
            precise $R bound = (eps2 * abs(D(dbase, uint(mm)))) * abs(D(dbase, uint(mm + 1))) + safmin;
            if (tst <= bound) break;
          }
        m = mm;
        if (m < lend) setE(uint(m), $R(0));
        $R pv = D(dbase, uint(l));
        if (m == l) {
          ++l;
          if (l <= lend) continue;
          break;
        }
        if (m == l + 1) {
          $R rt1, rt2, c, s;
          laev2(D(dbase, uint(l)), E(uint(l)), D(dbase, uint(l + 1)), rt1, rt2, c, s);
          rotate_columns(base, uint(l - 1), c, s);
          setD(dbase, uint(l), rt1);
          setD(dbase, uint(l + 1), rt2);
          setE(uint(l), $R(0));
          l += 2;
          if (l <= lend) continue;
          break;
        }
        if (jtot == nmaxit) break;
        ++jtot;
        precise $R g = (D(dbase, uint(l + 1)) - pv) / ($R(2) * E(uint(l)));
        $R r = lapy2(g, $R(1));
        g = D(dbase, uint(m)) - pv + (E(uint(l)) / (g + copysign_r(r, g)));
        $R s = $R(1), c = $R(1);
        pv = $R(0);
        for (int i = m - 1; i >= l; --i) {
          precise $R f = s * E(uint(i)), b = c * E(uint(i));
          lartg(g, f, c, s, r);
          if (i != m - 1) setE(uint(i + 1), r);
          g = D(dbase, uint(i + 1)) - pv;
          precise $R rr = (D(dbase, uint(i)) - g) * s + $R(2) * c * b;
          r = rr;
          precise $R pp = s * r;
          pv = pp;
          precise $R dd = g + pv;
          setD(dbase, uint(i + 1), dd);
          precise $R gg = c * r - b;
          g = gg;
          rotate_columns(base, uint(i - 1), c, -s);
        }
        precise $R dl = D(dbase, uint(l)) - pv;
        setD(dbase, uint(l), dl);
        setE(uint(l), g);
      }
    } else {  // QR
      while (true) {
        int mm = lend;
        if (l != lend)
          for (mm = l; mm >= lend + 1; --mm) {
            precise $R tst = abs(E(uint(mm - 1))) * abs(E(uint(mm - 1)));
            precise $R bound = (eps2 * abs(D(dbase, uint(mm)))) * abs(D(dbase, uint(mm - 1))) + safmin;
            if (tst <= bound) break;
          }
        m = mm;
        if (m > lend) setE(uint(m - 1), $R(0));
        $R pv = D(dbase, uint(l));
        if (m == l) {
          --l;
          if (l >= lend) continue;
          break;
        }
        if (m == l - 1) {
          $R rt1, rt2, c, s;
          laev2(D(dbase, uint(l - 1)), E(uint(l - 1)), D(dbase, uint(l)), rt1, rt2, c, s);
          rotate_columns(base, uint(l - 2), c, s);
          setD(dbase, uint(l - 1), rt1);
          setD(dbase, uint(l), rt2);
          setE(uint(l - 1), $R(0));
          l -= 2;
          if (l >= lend) continue;
          break;
        }
        if (jtot == nmaxit) break;
        ++jtot;
        precise $R g = (D(dbase, uint(l - 1)) - pv) / ($R(2) * E(uint(l - 1)));
        $R r = lapy2(g, $R(1));
        g = D(dbase, uint(m)) - pv + (E(uint(l - 1)) / (g + copysign_r(r, g)));
        $R s = $R(1), c = $R(1);
        pv = $R(0);
        for (int i = m; i <= l - 1; ++i) {
          precise $R f = s * E(uint(i)), b = c * E(uint(i));
          lartg(g, f, c, s, r);
          if (i != m) setE(uint(i - 1), r);
          g = D(dbase, uint(i)) - pv;
          precise $R rr = (D(dbase, uint(i + 1)) - g) * s + $R(2) * c * b;
          r = rr;
          precise $R pp = s * r;
          pv = pp;
          precise $R dd = g + pv;
          setD(dbase, uint(i), dd);
          precise $R gg = c * r - b;
          g = gg;
          rotate_columns(base, uint(i - 1), c, s);
        }
        precise $R dl = D(dbase, uint(l)) - pv;
        setD(dbase, uint(l), dl);
        setE(uint(l - 1), g);
      }
    }
    if (iscale == 1) scale_block(dbase, uint(lsv), uint(lendsv), ssfmax, anorm);
    if (iscale == 2) scale_block(dbase, uint(lsv), uint(lendsv), ssfmin, anorm);
    if (jtot >= nmaxit) {
      int info = 0;
      for (int i = 1; i <= n - 1; ++i) info += E(uint(i)) != $R(0) ? 1 : 0;
      return info;
    }
  }
  for (int ii = 2; ii <= n; ++ii) {  // selection sort, ascending
    const int i = ii - 1;
    int k = i;
    $R pv = D(dbase, uint(i));
    for (int j = ii; j <= n; ++j)
      if (D(dbase, uint(j)) < pv) {
        k = j;
        pv = D(dbase, uint(j));
      }
    if (k != i) {
      setD(dbase, uint(k), D(dbase, uint(i)));
      setD(dbase, uint(i), pv);
      if (VECTORS)
        for (uint r = 0u; r < $N; ++r) {
          $T t = x(base, r, uint(i - 1));
          set_x(base, r, uint(i - 1), x(base, r, uint(k - 1)));
          set_x(base, r, uint(k - 1), t);
        }
    }
  }
  return 0;
}

void main() {
  uint id = kiln_linear_id();
  uint batches = $BATCHES;
  if (id == 0u) zero_rest();
  if (id >= batches) return;
  const uint n = $N;
  const uint base = id * n * n, dbase = id * n;
  // A matrix past the private arrays, or holding a NaN or an infinity.
  bool finite = n <= uint(KMAX);
  $R anrm = $R(0);
  for (uint r = 0u; r < n && finite; ++r)
    for (uint c = 0u; c < n; ++c) {
      $T v = a_at(base + (authoritative(r, c) ? r * n + c : c * n + r));
      if (isnan(re(v)) || isinf(re(v)) || isnan(im(v)) || isinf(im(v))) finite = false;
      anrm = max(anrm, r == c ? abs(re(v)) : mag(v));
    }
  if (!finite) {
    for (uint e = 0u; e < n * n; ++e) put(base + e, from_re(nan_r()));
    for (uint i = 0u; i < n; ++i) set_w(dbase + i, nan_r());
    put_info(id, n <= uint(KMAX) ? 1 : -1);
    return;
  }
  put_info(id, 0);
  if (n == 0u) return;
  if (n == 1u) {
    set_w(dbase, re(a_at(base)));
    put(base, VECTORS ? from_re($R(1)) : $T(0));
    return;
  }
  // syevd scales a matrix whose largest entry lies outside [RMIN, RMAX].
  $R sigma = $R(0);
  if (anrm > $R(0) && anrm < $RMIN) sigma = $RMIN / anrm;
  else if (anrm > $RMAX) sigma = $RMAX / anrm;
  for (uint r = 0u; r < n; ++r)
    for (uint c = 0u; c < n; ++c)
      if (authoritative(r, c)) {
        $T v = a_at(base + r * n + c);
        if (r == c) v = from_re(re(v));
        precise $T s = v * sigma;
        put(base + r * n + c, sigma != $R(0) ? s : v);
      }
  reduce_tridiagonal(id, base);
  if (VECTORS) form_q(base);
  put_info(id, steqr(base, dbase));
  if (!VECTORS)
    for (uint e = 0u; e < n * n; ++e) put(base + e, $T(0));
  if (sigma != $R(0)) {
    precise $R inv = $R(1) / sigma;
    for (uint i = 0u; i < n; ++i) {
      precise $R v = get_w(dbase + i) * inv;
      set_w(dbase + i, v);
    }
  }
}

// kiln.gesdd and kiln.gesvd (jaxlib's ?gesdd_ffi / ?gesvd_ffi,
// jnp.linalg.svd) for f32, f64, complex<f32> and complex<f64>: one
// invocation per matrix of the batch, in the element type, as
// kernels/reference/linalg_gesdd.cc: gesdd's / gesvd's range scaling; for
// a wide matrix (m < n) the work on X = A^H; a QR first where X is much
// taller than wide (gesdd: m >= 11k/6, 17k/9 complex; gesvd: m >= 1.6k);
// the bidiagonal reduction gebd2; bdsqr's implicit zero-shift and shifted
// QR sweeps (its convergence tests, las2's shift, lasv2's 2 x 2 blocks,
// lartg's rotations), the signs moved into VT, bdsqr's sort and, for
// gesdd (DIVIDE), lasdq's and bdsdc's sorts after it; a lower bidiagonal
// (a wide matrix without the QR) rotated upper first.
//
// With vectors the reflectors are first formed into U (m x m or m x k) and
// VT (n x n or k x n) in results 2 and 3 (LAPACK's orgbr and the QR's
// orgqr) and each sweep's rotations are applied to U's columns / VT's rows
// after it in the order made, where the reference rotates the identity and
// applies the reflectors after (ormbr): the same factors, rounded in
// another order; the rotations, and so the vectors' signs, are the
// reference's. Every heavy step has one call site (the reflectors of the
// QR and of gebd2 in one loop, the products that form U and VT in
// another, the rotations recorded in result a and applied in one place,
// the three sorts in one loop): the driver inlines every call, and its
// compile time grows with the inlined size.
// Working matrices: X (the scaled A, or A^H read through a conjugate
// transposed view) in result 0, which is zeroed at the end (JAX does not
// read it; it also holds a sweep's rotations once U and VT are formed); with the QR first, its reflectors stay in X below the
// diagonal (their tau on it) and the k x k factor R (R^H for a wide A) is
// reduced in VT's top-left corner; its row reflectors move to X's upper
// triangle before VT is formed. The bidiagonal's diagonal and
// superdiagonal live in private arrays of KMAX entries: the compiler
// refuses a static min(m, n) past KMAX, and a larger one at run time gives
// NaN results and info -1. Without vectors (mode 'N') U and VT stay zero.
//
// The generator defines T, R, M, N, KMAX, BATCHES, VECTORS, FULL (mode
// 'A'), DIVIDE (gesdd), QR_RATIO (gesdd's 11/6 or 17/9), R's limits (EPS,
// SAFMIN_N, RTMIN_N, RTMAX_N: EigenLimits; TOL, P01 (R(0.01)), SMLNUM,
// BIGNUM, SAFMIN: larfg's), a_at (the operand), x_at / put (result 0),
// set_s (result 1), u_at / put_u (result 2), vt_at / put_vt (result 3),
// put_info (result 4), zero_rest (the workspaces), zero_uv (results 2 and
// 3), rsqrt_, nan_r, the larfg helpers (kernels_linalg.cc, LarfgHelpers)
// and lartg.glsl.
$FUNCTIONS
const bool VECTORS = $VECTORS, FULL = $FULL, DIVIDE = $DIVIDE;

$R d_s[KMAX];  // the bidiagonal's diagonal, D(i) = d_s[i - 1]
$R e_s[KMAX];  // and its superdiagonal

// A matrix in a result buffer (0: a, 1: u, 2: vt): the index of its (0,
// 0), its row stride, and whether it is read as its conjugate transpose.
struct View {
  uint buf;
  uint base;
  uint ld;
  bool ct;
};
View flip(View v) { return View(v.buf, v.base, v.ld, !v.ct); }
$T buf_get(uint b, uint i) {
  if (b == 0u) return x_at(i);
  if (b == 1u) return u_at(i);
  return vt_at(i);
}
void buf_put(uint b, uint i, $T v) {
  if (b == 0u) put(i, v);
  else if (b == 1u) put_u(i, v);
  else put_vt(i, v);
}
// (One buffer access per call: the shader inlines every call.)
$T vg(View v, uint r, uint c) {
  $T x = buf_get(v.buf, v.base + (v.ct ? c * v.ld + r : r * v.ld + c));
  return v.ct ? conj(x) : x;
}
void vs(View v, uint r, uint c, $T x) {
  buf_put(v.buf, v.base + (v.ct ? c * v.ld + r : r * v.ld + c), v.ct ? conj(x) : x);
}

// vnorm(v, r0, r1, col) and vlarfg(v, row, r0, r1, col): larfg.glsl over a
// view.
$LARFG_FUNCTIONS

// t := H t on rows f .. r1 - 1 and columns c0 .. c1 - 1, H = I - tau h h^H
// with h(f) = 1 and h's tail s(f + 1 .. r1 - 1, vc) (the reference's
// ReflectLeft: w = h^H t's column, then t -= h (tau w)).
void vreflect(View t, View s, uint f, uint r1, uint vc, uint c0, uint c1, $T tau) {
  if (tau == $T(0)) return;
  const $T one = from_re($R(1));
  for (uint c = c0; c < c1; ++c) {
    precise $T w = $T(0);
    for (uint r = f; r < r1; ++r) w += mul(conj(r == f ? one : vg(s, r, vc)), vg(t, r, c));
    precise $T tw = mul(tau, w);
    for (uint r = f; r < r1; ++r) {
      precise $T x = vg(t, r, c) - mul(r == f ? one : vg(s, r, vc), tw);
      vs(t, r, c, x);
    }
  }
}

// t := H(0) H(1) ... H(count - 1) t (H(count - 1) applied first) on
// columns c0 .. c1 - 1, H(i) from column i of s: its first row i + shift
// (holding tau), its tail below, rows up to r1.
void apply_reflectors(View t, uint c0, uint c1, View s, uint count, uint shift, uint r1) {
  for (uint i = count; i-- > 0u;) {
    const uint f = i + shift;
    vreflect(t, s, f, r1, i, c0, c1, vg(s, f, i));
  }
}

// rows x cols: the identity on the diagonal, zero elsewhere.
void set_identity(View t, uint rows, uint cols) {
  for (uint r = 0u; r < rows; ++r)
    for (uint c = 0u; c < cols; ++c) vs(t, r, c, r == c ? from_re($R(1)) : $T(0));
}

// The vectors bdsqr rotates: U's columns, VT's rows (VH's columns).
View U_, VH_;
uint UROWS_, VROWS_;

// lasr's rotation (c, s) of columns (j, j + 1) of v.
void rot_cols(View v, uint rows, uint j, $R c, $R s) {
  if (c == $R(1) && s == $R(0)) return;
  for (uint i = 0u; i < rows; ++i) {
    $T t = vg(v, i, j + 1u), x = vg(v, i, j);
    precise $T hi = c * t - s * x;
    precise $T lo = s * t + c * x;
    vs(v, i, j + 1u, hi);
    vs(v, i, j, lo);
  }
}
// A sweep's rotations, recorded in result a (free once U and VT are
// formed: 4 (k - 1) <= m n) and applied after it in the order made (the
// reference's lasr), rotation t to VT's rows / U's columns (j0 + dir t,
// j0 + dir t + 1). One application site keeps the inlined shader small.
uint ABASE_, NW_;
void record(int t, $R cv, $R sv, $R cu, $R su) {
  if (!VECTORS) return;
  const uint b = ABASE_ + 4u * uint(t);
  put(b, from_re(cv));
  put(b + 1u, from_re(sv));
  put(b + 2u, from_re(cu));
  put(b + 3u, from_re(su));
}
void apply_recorded(int j0, int dir, int count) {
  for (int t = 0; t < count; ++t) {
    const uint b = ABASE_ + 4u * uint(t), j = uint(j0 + dir * t);
    for (uint w = 0u; w < NW_; ++w)  // VT's rows, then U's columns
      rot_cols(w == 0u ? VH_ : U_, w == 0u ? VROWS_ : UROWS_, j, re(x_at(b + 2u * w)), re(x_at(b + 2u * w + 1u)));
  }
}
void swap_cols(View v, uint rows, uint i, uint j) {
  for (uint r = 0u; r < rows; ++r) {
    $T t = vg(v, r, i);
    vs(v, r, i, vg(v, r, j));
    vs(v, r, j, t);
  }
}
// Swaps singular vectors i and j (0-based): VT's rows, U's columns.
void swap_vectors(int i, int j) {
  if (!VECTORS) return;
  for (uint w = 0u; w < NW_; ++w) swap_cols(w == 0u ? VH_ : U_, w == 0u ? VROWS_ : UROWS_, uint(i), uint(j));
}

// las2: the singular values of the upper triangular [f g; 0 h].
void las2($R f, $R g, $R h, out $R ssmin, out $R ssmax) {
  $R fa = abs(f), ga = abs(g), ha = abs(h);
  $R fhmn = min(fa, ha), fhmx = max(fa, ha);
  if (fhmn == $R(0)) {
    ssmin = $R(0);
    if (fhmx == $R(0)) {
      ssmax = ga;
    } else {
      $R big = max(fhmx, ga), small = min(fhmx, ga);
      precise $R q = small / big;
      precise $R q2 = $R(1) + q * q;
      precise $R v = big * rsqrt_(q2);
      ssmax = v;
    }
  } else if (ga < fhmx) {
    precise $R as_ = $R(1) + fhmn / fhmx, at = (fhmx - fhmn) / fhmx, q = ga / fhmx;
    precise $R au = q * q;
    precise $R s1 = as_ * as_ + au, s2 = at * at + au;
    precise $R c = $R(2) / (rsqrt_(s1) + rsqrt_(s2));
    precise $R mn = fhmn * c, mx = fhmx / c;
    ssmin = mn;
    ssmax = mx;
  } else {
    precise $R au = fhmx / ga;
    if (au == $R(0)) {
      precise $R mn = (fhmn * fhmx) / ga;
      ssmin = mn;
      ssmax = ga;
    } else {
      precise $R as_ = $R(1) + fhmn / fhmx, at = (fhmx - fhmn) / fhmx;
      precise $R p = as_ * au, q = at * au;
      precise $R s1 = $R(1) + p * p, s2 = $R(1) + q * q;
      precise $R c = $R(1) / (rsqrt_(s1) + rsqrt_(s2));
      precise $R mn = (fhmn * c) * au;
      precise $R mn2 = mn + mn;
      precise $R mx = ga / (c + c);
      ssmin = mn2;
      ssmax = mx;
    }
  }
}

// lasv2: the SVD of the upper triangular [f g; 0 h]:
// [csl snl; -snl csl] [f g; 0 h] [csr -snr; snr csr] = [ssmax 0; 0 ssmin].
struct Svd2 {
  $R ssmin, ssmax, snr, csr, snl, csl;
};
Svd2 lasv2($R f, $R g, $R h) {
  $R ssmin, ssmax, snr, csr, snl, csl;
  $R ft = f, fa = abs(ft), ht = h, ha = abs(h);
  int pmax = 1;
  const bool swap = ha > fa;
  if (swap) {
    pmax = 3;
    $R t = ft;
    ft = ht;
    ht = t;
    t = fa;
    fa = ha;
    ha = t;
  }
  $R gt = g, ga = abs(gt);
  $R clt, crt, slt, srt;
  if (ga == $R(0)) {
    ssmin = ha;
    ssmax = fa;
    clt = $R(1);
    crt = $R(1);
    slt = $R(0);
    srt = $R(0);
  } else {
    bool gasmal = true;
    if (ga > fa) {
      pmax = 2;
      precise $R q = fa / ga;
      if (q < $EPS) {
        gasmal = false;
        ssmax = ga;
        if (ha > $R(1)) {
          precise $R v = fa / (ga / ha);
          ssmin = v;
        } else {
          precise $R v = (fa / ga) * ha;
          ssmin = v;
        }
        clt = $R(1);
        precise $R v1 = ht / gt, v2 = ft / gt;
        slt = v1;
        srt = $R(1);
        crt = v2;
      }
    }
    if (gasmal) {
      precise $R dd = fa - ha;
      precise $R l = dd == fa ? $R(1) : dd / fa;
      precise $R m_ = gt / ft;
      precise $R t = $R(2) - l;
      precise $R mm = m_ * m_, tt = t * t;
      precise $R stt = tt + mm;
      precise $R s = rsqrt_(stt);
      precise $R sll = l * l + mm;
      precise $R r = l == $R(0) ? abs(m_) : rsqrt_(sll);
      precise $R a = $R(0.5) * (s + r);
      precise $R mn = ha / a, mx = fa * a;
      ssmin = mn;
      ssmax = mx;
      if (mm == $R(0)) {
        if (l == $R(0)) t = copysign_r($R(2), ft) * copysign_r($R(1), gt);
        else t = gt / copysign_r(dd, ft) + m_ / t;
      } else {
        t = (m_ / (s + t) + m_ / (r + l)) * ($R(1) + a);
      }
      precise $R t4 = t * t + $R(4);
      l = rsqrt_(t4);
      precise $R c2 = $R(2) / l, s2 = t / l;
      crt = c2;
      srt = s2;
      precise $R c3 = (crt + srt * m_) / a;
      precise $R s3 = (ht / ft) * srt / a;
      clt = c3;
      slt = s3;
    }
  }
  if (swap) {
    csl = srt;
    snl = crt;
    csr = slt;
    snr = clt;
  } else {
    csl = clt;
    snl = slt;
    csr = crt;
    snr = srt;
  }
  $R tsign = $R(1);
  const $R one = $R(1);
  if (pmax == 1) tsign = copysign_r(one, csr) * copysign_r(one, csl) * copysign_r(one, f);
  if (pmax == 2) tsign = copysign_r(one, snr) * copysign_r(one, csl) * copysign_r(one, g);
  if (pmax == 3) tsign = copysign_r(one, snr) * copysign_r(one, snl) * copysign_r(one, h);
  Svd2 o;
  o.ssmax = copysign_r(ssmax, tsign);
  o.ssmin = copysign_r(ssmin, tsign * copysign_r(one, f) * copysign_r(one, h));
  o.snr = snr;
  o.csr = csr;
  o.snl = snl;
  o.csl = csl;
  return o;
}

$R D(int i) { return d_s[i - 1]; }
void setD(int i, $R v) { d_s[i - 1] = v; }
$R E(int i) { return e_s[i - 1]; }
void setE(int i, $R v) { e_s[i - 1] = v; }

// bdsqr on the n x n upper bidiagonal (d_s, e_s), the vectors rotated
// along: d_s left nonnegative (the signs moved into VT's rows; the
// caller sorts). Returns bdsqr's info: 0, or the number of off-diagonal
// entries that did not converge. Indices are LAPACK's, 1-based.
int bdsqr(int n) {
  if (n == 0) return 0;
  const $R eps = $EPS, unfl = $SAFMIN_N, tol = $TOL;
  const int maxitr = 6;
  if (n > 1) {
    $R smax = $R(0);
    for (int i = 1; i <= n; ++i) smax = max(smax, abs(D(i)));
    for (int i = 1; i < n; ++i) smax = max(smax, abs(E(i)));
    $R sminoa = abs(D(1));
    if (sminoa != $R(0)) {
      precise $R mu = sminoa;
      for (int i = 2; i <= n; ++i) {
        mu = abs(D(i)) * (mu / (mu + abs(E(i - 1))));
        sminoa = min(sminoa, mu);
        if (sminoa == $R(0)) break;
      }
    }
    precise $R sq = sminoa / rsqrt_($R(n));
    precise $R th1 = tol * sq;
    precise $R th2 = $R(maxitr) * ($R(n) * ($R(n) * unfl));
    const $R thresh = max(th1, th2);
    const int maxitdivn = maxitr * n;
    int iterdivn = 0, iter = -1, oldll = -1, oldm = -1, m = n, idir = 0;
    $R smin = $R(0);
    bool failed = false;
    while (m > 1) {
      if (iter >= n) {
        iter -= n;
        ++iterdivn;
        if (iterdivn >= maxitdivn) {
          failed = true;
          break;
        }
      }
      // The diagonal block to work on.
      smax = abs(D(m));
      int ll = 0;
      bool split = false;
      for (int lll = 1; lll <= m - 1; ++lll) {
        ll = m - lll;
        $R abss = abs(D(ll)), abse = abs(E(ll));
        if (abse <= thresh || abse == $R(0)) {
          split = true;
          break;
        }
        smax = max(smax, max(abss, abse));
      }
      if (split) {
        setE(ll, $R(0));
        if (ll == m - 1) {  // the bottom singular value converged
          m -= 1;
          continue;
        }
      } else {
        ll = 0;
      }
      ll += 1;
      int rcount = 0, rj0 = 0, rdir = 1;  // the rotations recorded
      if (ll == m - 1) {  // a 2 x 2 block
        const Svd2 b = lasv2(D(m - 1), E(m - 1), D(m));
        setD(m - 1, b.ssmax);
        setE(m - 1, $R(0));
        setD(m, b.ssmin);
        record(0, b.csr, b.snr, b.csl, b.snl);
        rcount = 1;
        rj0 = m - 2;
        m -= 2;
      } else {
        // A new block: chase from the larger end diagonal entry.
        if (ll > oldm || m < oldll) idir = abs(D(ll)) >= abs(D(m)) ? 1 : 2;
        // Convergence tests.
        bool converged = false;
        if (idir == 1) {
          precise $R bound = abs(tol) * abs(D(m));
          if (abs(E(m - 1)) <= bound) {
            setE(m - 1, $R(0));
            continue;
          }
          precise $R mu = abs(D(ll));
          smin = mu;
          for (int lll = ll; lll <= m - 1; ++lll) {
            precise $R b = tol * mu;
            if (abs(E(lll)) <= b) {
              setE(lll, $R(0));
              converged = true;
              break;
            }
            mu = abs(D(lll + 1)) * (mu / (mu + abs(E(lll))));
            smin = min(smin, mu);
          }
        } else {
          precise $R bound = abs(tol) * abs(D(ll));
          if (abs(E(ll)) <= bound) {
            setE(ll, $R(0));
            continue;
          }
          precise $R mu = abs(D(m));
          smin = mu;
          for (int lll = m - 1; lll >= ll; --lll) {
            precise $R b = tol * mu;
            if (abs(E(lll)) <= b) {
              setE(lll, $R(0));
              converged = true;
              break;
            }
            mu = abs(D(lll)) * (mu / (mu + abs(E(lll))));
            smin = min(smin, mu);
          }
        }
        if (converged) continue;
        oldll = ll;
        oldm = m;
        // The shift: zero when shifting would ruin relative accuracy.
        $R shift = $R(0), r = $R(0);
        precise $R crit = $R(n) * tol * (smin / smax);
        precise $R lim = $P01 * tol;
        if (!(crit <= max(eps, lim))) {
          $R sll;
          if (idir == 1) {
            sll = abs(D(ll));
            las2(D(m - 1), E(m - 1), D(m), shift, r);
          } else {
            sll = abs(D(m));
            las2(D(ll), E(ll), D(ll + 1), shift, r);
          }
          if (sll > $R(0)) {
            precise $R q = shift / sll;
            precise $R q2 = q * q;
            if (q2 < eps) shift = $R(0);
          }
        }
        iter += m - ll;
        rcount = m - ll;
        rj0 = idir == 1 ? ll - 1 : m - 2;
        rdir = idir == 1 ? 1 : -1;
        if (shift == $R(0)) {  // the simplified (zero-shift) QR sweep
          $R cs = $R(1), oldcs = $R(1), sn = $R(0), oldsn = $R(0), dd;
          if (idir == 1) {
            for (int i = ll; i <= m - 1; ++i) {
              precise $R f1 = D(i) * cs;
              lartg(f1, E(i), cs, sn, r);
              if (i > ll) {
                precise $R v = oldsn * r;
                setE(i - 1, v);
              }
              precise $R f2 = oldcs * r, g2 = D(i + 1) * sn;
              lartg(f2, g2, oldcs, oldsn, dd);
              setD(i, dd);
              record(i - ll, cs, sn, oldcs, oldsn);
            }
            precise $R h = D(m) * cs;
            precise $R dm = h * oldcs, em = h * oldsn;
            setD(m, dm);
            setE(m - 1, em);
            if (abs(E(m - 1)) <= thresh) setE(m - 1, $R(0));
          } else {
            for (int i = m; i >= ll + 1; --i) {
              precise $R f1 = D(i) * cs;
              lartg(f1, E(i - 1), cs, sn, r);
              if (i < m) {
                precise $R v = oldsn * r;
                setE(i, v);
              }
              precise $R f2 = oldcs * r, g2 = D(i - 1) * sn;
              lartg(f2, g2, oldcs, oldsn, dd);
              setD(i, dd);
              record(m - i, oldcs, -oldsn, cs, -sn);
            }
            precise $R h = D(ll) * cs;
            precise $R dl = h * oldcs, el = h * oldsn;
            setD(ll, dl);
            setE(ll, el);
            if (abs(E(ll)) <= thresh) setE(ll, $R(0));
          }
        } else {  // the shifted QR sweep
          $R cosr, sinr, cosl, sinl;
          if (idir == 1) {
            precise $R f = (abs(D(ll)) - shift) * (copysign_r($R(1), D(ll)) + shift / D(ll));
            precise $R g = E(ll);
            for (int i = ll; i <= m - 1; ++i) {
              lartg(f, g, cosr, sinr, r);
              if (i > ll) setE(i - 1, r);
              f = cosr * D(i) + sinr * E(i);
              precise $R ei = cosr * E(i) - sinr * D(i);
              setE(i, ei);
              g = sinr * D(i + 1);
              precise $R di1 = cosr * D(i + 1);
              setD(i + 1, di1);
              lartg(f, g, cosl, sinl, r);
              setD(i, r);
              f = cosl * E(i) + sinl * D(i + 1);
              precise $R di2 = cosl * D(i + 1) - sinl * E(i);
              setD(i + 1, di2);
              if (i < m - 1) {
                g = sinl * E(i + 1);
                precise $R ei1 = cosl * E(i + 1);
                setE(i + 1, ei1);
              }
              record(i - ll, cosr, sinr, cosl, sinl);
            }
            setE(m - 1, f);
            if (abs(E(m - 1)) <= thresh) setE(m - 1, $R(0));
          } else {
            precise $R f = (abs(D(m)) - shift) * (copysign_r($R(1), D(m)) + shift / D(m));
            precise $R g = E(m - 1);
            for (int i = m; i >= ll + 1; --i) {
              lartg(f, g, cosr, sinr, r);
              if (i < m) setE(i, r);
              f = cosr * D(i) + sinr * E(i - 1);
              precise $R ei = cosr * E(i - 1) - sinr * D(i);
              setE(i - 1, ei);
              g = sinr * D(i - 1);
              precise $R di1 = cosr * D(i - 1);
              setD(i - 1, di1);
              lartg(f, g, cosl, sinl, r);
              setD(i, r);
              f = cosl * E(i - 1) + sinl * D(i - 1);
              precise $R di2 = cosl * D(i - 1) - sinl * E(i - 1);
              setD(i - 1, di2);
              if (i > ll + 1) {
                g = sinl * E(i - 2);
                precise $R ei2 = cosl * E(i - 2);
                setE(i - 2, ei2);
              }
              record(m - i, cosl, -sinl, cosr, -sinr);
            }
            setE(ll, f);
            if (abs(E(ll)) <= thresh) setE(ll, $R(0));
          }
        }
      }
      if (VECTORS && rcount > 0) apply_recorded(rj0, rdir, rcount);
    }
    if (failed) {
      int info = 0;
      for (int i = 1; i < n; ++i)
        if (E(i) != $R(0)) ++info;
      return info;
    }
  }
  // The singular values made positive (the sign moved into VT's row).
  for (int i = 1; i <= n; ++i) {
    if (D(i) == $R(0)) setD(i, $R(0));  // no -0
    if (D(i) < $R(0)) {
      setD(i, -D(i));
      if (VECTORS)
        for (uint r = 0u; r < VROWS_; ++r) vs(VH_, r, uint(i - 1), -vg(VH_, r, uint(i - 1)));
    }
  }
  return 0;
}

// The SVD of the k x k bidiagonal (d_s, e_s), upper or lower, as the
// reference's BidiagonalSvd: gesdd's 1 x 1 sign in U; a lower one rotated
// upper (the rotations applied to U's columns at once, which is the
// reference's rotation of u's rows after bdsqr for gesdd, of its columns
// before it for gesvd, in another order); bdsqr; for gesdd lasdq's and
// bdsdc's sorts.
int bidiagonal_svd(int k, bool lower) {
  if (k == 1 && DIVIDE) {  // u = copysign(1, d)
    if (VECTORS && sign_bit(d_s[0]))
      for (uint r = 0u; r < UROWS_; ++r) vs(U_, r, 0u, -vg(U_, r, 0u));
    d_s[0] = abs(d_s[0]);
    return 0;
  }
  if (lower)
    for (int i = 0; i + 1 < k; ++i) {
      $R cs, sn, r;
      lartg(d_s[i], e_s[i], cs, sn, r);
      d_s[i] = r;
      precise $R ei = sn * d_s[i + 1], di = cs * d_s[i + 1];
      e_s[i] = ei;
      d_s[i + 1] = di;
      record(i, $R(1), $R(0), cs, sn);  // U's columns only
    }
  if (lower && VECTORS) apply_recorded(0, 1, k - 1);
  const int info = bdsqr(k);
  // The sorts, one transposition per vector: bdsqr's (descending, the
  // smallest to the end; not after a failure), then for gesdd lasdq's
  // (ascending) and bdsdc's (descending). One loop, one swap.
  for (int pass = info == 0 ? 0 : 1; pass < (DIVIDE ? 3 : 1); ++pass)
    for (int i = 0; i < k - 1; ++i) {
      const int pos = pass == 0 ? k - 1 - i : i;
      int best = pass == 0 ? 0 : i;
      $R bv = d_s[best];
      for (int j = pass == 0 ? 1 : i + 1; j <= (pass == 0 ? k - 1 - i : k - 1); ++j) {
        const $R v = d_s[j];
        if (pass == 0 ? v <= bv : (pass == 1 ? v < bv : v > bv)) {
          best = j;
          bv = v;
        }
      }
      if (best != pos) {
        d_s[best] = d_s[pos];
        d_s[pos] = bv;
        swap_vectors(best, pos);
      }
    }
  return info;
}

void main() {
  uint id = kiln_linear_id();
  uint batches = $BATCHES;
  if (id == 0u) {
    zero_rest();
    if (!VECTORS) zero_uv();
  }
  if (id >= batches) return;
  const uint m = $M, n = $N, k = min(m, n);
  const uint uc = FULL ? m : k, vr = FULL ? n : k;
  const uint abase = id * m * n, sbase = id * k, ubase = id * m * uc, vbase = id * vr * n;
  const View u = View(1u, ubase, uc, false), vh = View(2u, vbase, n, true);  // U, and VT^H
  // A matrix past the private arrays, or holding a NaN or an infinity.
  bool finite = k <= uint(KMAX);
  $R anrm = $R(0);
  for (uint e = 0u; e < m * n && finite; ++e) {
    $T v = a_at(abase + e);
    if (isnan(re(v)) || isinf(re(v)) || isnan(im(v)) || isinf(im(v))) finite = false;
    anrm = max(anrm, mag(v));
  }
  if (!finite) {
    for (uint e = 0u; e < m * n; ++e) put(abase + e, $T(0));
    for (uint i = 0u; i < k; ++i) set_s(sbase + i, nan_r());
    if (VECTORS) {
      for (uint e = 0u; e < m * uc; ++e) put_u(ubase + e, from_re(nan_r()));
      for (uint e = 0u; e < vr * n; ++e) put_vt(vbase + e, from_re(nan_r()));
    }
    put_info(id, k <= uint(KMAX) ? 1 : -1);
    return;
  }
  put_info(id, 0);
  if (k == 0u) {
    if (VECTORS) {
      set_identity(u, m, uc);
      set_identity(flip(vh), vr, n);
    }
    return;
  }
  // gesdd / gesvd scale a matrix whose largest entry lies outside [SMLNUM, BIGNUM].
  $R scale = $R(1);
  if (anrm > $R(0) && anrm < $SMLNUM) scale = $SMLNUM / anrm;
  else if (anrm > $BIGNUM) scale = $BIGNUM / anrm;
  for (uint e = 0u; e < m * n; ++e) {
    precise $T v = a_at(abase + e) * scale;
    put(abase + e, scale != $R(1) ? v : a_at(abase + e));
  }
  // X: A itself, or A^H for a wide A; tm x k.
  const bool wide = m < n;
  const View x = View(0u, abase, n, wide);
  const uint tm = wide ? n : m;
  const uint threshold = DIVIDE ? uint(double(k) * $QR_RATIO) : uint(float(k) * 1.6f);
  const bool qr_first = tm >= threshold;
  const bool lower = wide && !qr_first;
  // The core that gebd2 reduces: X itself, or X's R (R^H for a wide A),
  // k x k, in VT's corner (with vectors) or in X's top rows.
  const View kv = View(2u, vbase, n, false);
  const View core = qr_first ? (VECTORS ? kv : (wide ? flip(x) : x)) : x;
  const uint core_rows = qr_first ? k : tm;
  // The reflectors, one loop (one inlined larfg and reflection): the QR's
  // k steps (geqr2), then gebd2's column and row steps in turn.
  const uint nq = qr_first ? k : 0u;
  for (uint st = 0u; st < nq + 2u * k - 1u; ++st) {
    const bool qr = st < nq, row_step = !qr && (st - nq) % 2u == 1u;
    const uint i = qr ? st : (st - nq) / 2u;
    const View v = qr ? x : (row_step ? flip(core) : core);
    const uint top = row_step ? i + 1u : i;  // alpha's row in v
    const uint rows = qr ? tm : (row_step ? k : core_rows), cols = row_step ? core_rows : k;
    $T tau = vlarfg(v, top, top + 1u, rows, i);
    if (!qr && !row_step) d_s[i] = re(vg(v, i, i));
    if (row_step) e_s[i] = re(vg(v, i + 1u, i));
    vreflect(v, v, top, rows, i, i + 1u, cols, conj(tau));
    if (qr && VECTORS) {  // R's row i is final: to the core (R^H for a wide A)
      for (uint j = 0u; j < k; ++j) vs(wide ? flip(kv) : kv, i, j, j >= i ? vg(x, i, j) : $T(0));
    } else if (qr) {  // R in place
      for (uint r = i + 1u; r < tm; ++r) vs(x, r, i, $T(0));
    }
    if (!qr || VECTORS) vs(v, top, i, tau);  // tau where beta was
  }
  U_ = u;
  VH_ = vh;
  UROWS_ = m;
  VROWS_ = n;
  ABASE_ = abase;
  NW_ = 2u;
  // U, then VT^H, from the identity (extended), each by up to two products
  // of reflectors: U = Q (the column reflectors) and then the QR's Q; for
  // a lower form P (the row reflectors); VT^H = P, then the QR's Q for a
  // wide A; for a lower form Q. With the QR first the row reflectors move
  // to X's upper triangle (the core is in VT) before VT^H is formed.
  for (uint side = 0u; side < (VECTORS ? 2u : 0u); ++side) {
    if (side == 1u && qr_first)
      for (uint i = 0u; i + 1u < k; ++i)
        for (uint j = i + 1u; j < k; ++j) vs(x, i, j, vg(core, i, j));
    const View p = qr_first ? flip(x) : flip(core);
    const View t = side == 0u ? u : vh;
    uint rows = k, cols = k;
    if (side == 0u && !wide) rows = m, cols = uc;
    if (side == 1u && wide) rows = tm, cols = vr;
    set_identity(t, rows, cols);
    for (uint pass = 0u; pass < 2u; ++pass) {
      View s = core;  // the reflectors' source
      uint count = k, shift = 0u, r1 = k, c1 = k;
      bool use = pass == 0u;
      if (side == 0u) {
        if (!wide) {
          if (pass == 0u) {
            r1 = core_rows;
            c1 = qr_first ? k : uc;
          } else {
            use = qr_first;
            s = x;
            r1 = tm;
            c1 = uc;
          }
        } else if (lower) {
          s = flip(core);
          count = k - 1u;
          shift = 1u;
        }
      } else {
        if (lower) {
          r1 = tm;
          c1 = vr;
        } else if (pass == 0u) {
          s = p;
          count = k - 1u;
          shift = 1u;
        } else {
          use = wide;
          s = x;
          r1 = tm;
          c1 = vr;
        }
      }
      if (use) apply_reflectors(t, 0u, c1, s, count, shift, r1);
    }
  }
  const int info = bidiagonal_svd(int(k), lower);
  put_info(id, info);
  for (uint i = 0u; i < k; ++i) {
    precise $R s = d_s[i] / scale;
    set_s(sbase + i, scale != $R(1) ? s : d_s[i]);
  }
  for (uint e = 0u; e < m * n; ++e) put(abase + e, $T(0));
}

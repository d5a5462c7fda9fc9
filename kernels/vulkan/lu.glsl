// kiln.lu (LAPACK's getrf, unblocked as getf2) for f32, f64 and complex: one
// invocation per matrix of the batch factors a copy of it in the result, in
// the element type, step for step as kernels/reference/linalg.cc: column
// j's pivot is the first row at or below j of largest |re| + |im| (a NaN
// is never larger), its 1-based row goes to ipiv; a nonzero pivot's row is
// swapped up and the column below it scaled by its reciprocal (divided by
// it when |pivot| is below the smallest normal); a zero pivot sets info to
// j + 1 if it is the first; then the trailing submatrix takes the rank-1
// update. The generator defines T, R (its real type), MIN_NORMAL, a_at /
// x_at / put / put_ipiv / put_info, and the element operations cabs1,
// mag (|x|), recip, mul and div (kernels_linalg.cc, FactorHelpers).
$FUNCTIONS

void main() {
  uint id = kiln_linear_id();
  const uint m = $M, n = $N;
  const uint k = min(m, n);
  uint batches = $BATCHES;
  if (id >= batches) return;
  uint base = id * m * n;
  for (uint e = 0u; e < m * n; ++e) put(base + e, a_at(base + e));
  int info = 0;
  for (uint j = 0u; j < k; ++j) {
    uint p = j;
    $R best = cabs1(x_at(base + j * n + j));
    for (uint i = j + 1u; i < m; ++i) {
      $R v = cabs1(x_at(base + i * n + j));
      if (v > best) {
        best = v;
        p = i;
      }
    }
    put_ipiv(id * k + j, int(p + 1u));
    if (x_at(base + p * n + j) != $T(0)) {
      if (p != j) {
        for (uint c = 0u; c < n; ++c) {
          $T t = x_at(base + p * n + c);
          put(base + p * n + c, x_at(base + j * n + c));
          put(base + j * n + c, t);
        }
      }
      $T pivot = x_at(base + j * n + j);
      if (mag(pivot) >= $MIN_NORMAL) {
        precise $T r = recip(pivot);
        for (uint i = j + 1u; i < m; ++i) {
          precise $T v = mul(x_at(base + i * n + j), r);
          put(base + i * n + j, v);
        }
      } else {
        for (uint i = j + 1u; i < m; ++i) {
          precise $T v = div(x_at(base + i * n + j), pivot);
          put(base + i * n + j, v);
        }
      }
    } else if (info == 0) {
      info = int(j + 1u);
    }
    for (uint i = j + 1u; i < m; ++i) {
      $T l = x_at(base + i * n + j);
      for (uint c = j + 1u; c < n; ++c) {
        precise $T v = x_at(base + i * n + c) - mul(l, x_at(base + j * n + c));
        put(base + i * n + c, v);
      }
    }
  }
  put_info(id, info);
}

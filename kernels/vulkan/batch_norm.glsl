// batch_norm_training and batch_norm_grad: one invocation per feature runs
// the reference's formulas (kernels/reference/reduction_batch_norm.cc) in
// f64 over that feature's elements, in the reference's order (outer index,
// then the dims after the feature one), and rounds each result once. The
// generator defines FEATURES, INNER (elements after the feature dim), OUTER
// (before it), GRAD, EPS (f64), and x_at / g_at / v_at (per-feature
// operands k = 1, 2, 3) as f64 loads, put (the element result) and put_a /
// put_b (the per-feature results).
$FUNCTIONS

void main() {
  uint k = kiln_linear_id();
  const uint features = $FEATURES, inner = $INNER, outer = $OUTER;
  if (k >= features) return;
  const double count = double(outer) * double(inner);
  const double eps = $EPS;
  if (!$GRAD) {
    precise double s = 0.0lf;
    for (uint o = 0u; o < outer; ++o)
      for (uint j = 0u; j < inner; ++j) s += x_at((o * features + k) * inner + j);
    precise double mean = count == 0.0lf ? kiln_nan_d() : s / count;
    precise double v = 0.0lf;
    for (uint o = 0u; o < outer; ++o)
      for (uint j = 0u; j < inner; ++j) {
        precise double d = x_at((o * features + k) * inner + j) - mean;
        v += d * d;
      }
    precise double var = count == 0.0lf ? kiln_nan_d() : v / count;
    precise double stddev = sqrt(var + eps);
    double scale = v_at(1u, k), offset = v_at(2u, k);
    for (uint o = 0u; o < outer; ++o)
      for (uint j = 0u; j < inner; ++j) {
        uint i = (o * features + k) * inner + j;
        precise double y = (x_at(i) - mean) / stddev * scale + offset;
        put(i, y);
      }
    put_a(k, mean);
    put_b(k, var);
  } else {
    double scale = v_at(1u, k), mean = v_at(2u, k), var = v_at(3u, k);
    precise double sum_g = 0.0lf, sum_gc = 0.0lf;
    for (uint o = 0u; o < outer; ++o)
      for (uint j = 0u; j < inner; ++j) {
        uint i = (o * features + k) * inner + j;
        sum_g += g_at(i);
      }
    for (uint o = 0u; o < outer; ++o)
      for (uint j = 0u; j < inner; ++j) {
        uint i = (o * features + k) * inner + j;
        precise double c = x_at(i) - mean;
        sum_gc += g_at(i) * c;
      }
    precise double stddev = sqrt(var + eps);
    for (uint o = 0u; o < outer; ++o)
      for (uint j = 0u; j < inner; ++j) {
        uint i = (o * features + k) * inner + j;
        precise double c = x_at(i) - mean;
        precise double i1 = g_at(i) * count;
        precise double i5 = sum_gc * c / (var + eps);
        precise double i6 = i1 - sum_g - i5;
        precise double y = scale / stddev / count * i6;
        put(i, y);
      }
    put_a(k, sum_gc / stddev);
    put_b(k, sum_g);
  }
}

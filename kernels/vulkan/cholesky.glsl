// cholesky for f32, f64, complex<f32> and complex<f64>: one invocation per
// matrix of the batch runs the reference's column algorithm (kernels/
// reference/linalg.cc) in the element type: L with a = L L^H from a's
// lower triangle (lower), or U = L^H with a = U^H U from its upper triangle
// (read conjugated); the other triangle of the result is zero, and a pivot
// that is not positive (or NaN) makes its column and everything after it
// NaN, as on the CPU. The factor is built in the result and read back by
// the invocation that wrote it. The generator defines T (the element
// type), R (its real type), LOWER, SQRT (a sqrt that gives NaN below zero),
// a_at / l_at / put, and the element operations re, conj, abs2 (|x|^2),
// mul, over (x / a real) and from_re (kernels_linalg.cc, FactorHelpers).
$FUNCTIONS
const bool LOWER = $LOWER;

// The Hermitian matrix's lower triangle, and the factor's entry (i, j), i >=
// j (stored conjugated at (j, i) for the upper factor).
$T a_lower(uint base, uint n, uint i, uint j) { return LOWER ? a_at(base + i * n + j) : conj(a_at(base + j * n + i)); }
uint l_index(uint base, uint n, uint i, uint j) { return LOWER ? base + i * n + j : base + j * n + i; }
$T l_get(uint base, uint n, uint i, uint j) { return LOWER ? l_at(l_index(base, n, i, j)) : conj(l_at(l_index(base, n, i, j))); }
void l_put(uint base, uint n, uint i, uint j, $T v) { put(l_index(base, n, i, j), LOWER ? v : conj(v)); }

void main() {
  uint id = kiln_linear_id();
  const uint n = $N;
  uint batches = $BATCHES;
  if (id >= batches) return;
  uint base = id * n * n;
  for (uint e = 0u; e < n * n; ++e) put(base + e, $T(0));
  for (uint j = 0u; j < n; ++j) {
    precise $R d = re(a_lower(base, n, j, j));
    for (uint q = 0u; q < j; ++q) d -= abs2(l_get(base, n, j, q));
    $R ljj = $SQRT(d);
    l_put(base, n, j, j, from_re(ljj));
    for (uint i = j + 1u; i < n; ++i) {
      precise $T v = a_lower(base, n, i, j);
      for (uint q = 0u; q < j; ++q) v -= mul(l_get(base, n, i, q), conj(l_get(base, n, j, q)));
      l_put(base, n, i, j, over(v, ljj));
    }
  }
}

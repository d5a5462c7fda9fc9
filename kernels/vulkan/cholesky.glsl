// cholesky for f32 and f64: one invocation per matrix of the batch runs the
// reference's column algorithm (kernels/reference/linalg.cc) in the element
// type: L with a = L L^T from a's lower triangle (lower), or U = L^T with
// a = U^T U from its upper triangle; the other triangle of the result is
// zero, and a pivot that is not positive (or NaN) makes its column and
// everything after it NaN, as on the CPU. The factor is built in the
// result and read back by the invocation that wrote it. The generator
// defines T (the element type), LOWER, SQRT (a sqrt that gives NaN below
// zero) and a_at / l_at / put.
$FUNCTIONS
const bool LOWER = $LOWER;

// The symmetric matrix's lower triangle, and the factor's entry (i, j), i >= j.
$T a_lower(uint base, uint n, uint i, uint j) { return LOWER ? a_at(base + i * n + j) : a_at(base + j * n + i); }
uint l_index(uint base, uint n, uint i, uint j) { return LOWER ? base + i * n + j : base + j * n + i; }

void main() {
  uint id = kiln_linear_id();
  const uint n = $N;
  uint batches = $BATCHES;
  if (id >= batches) return;
  uint base = id * n * n;
  for (uint e = 0u; e < n * n; ++e) put(base + e, $T(0));
  for (uint j = 0u; j < n; ++j) {
    precise $T d = a_lower(base, n, j, j);
    for (uint q = 0u; q < j; ++q) {
      precise $T v = l_at(l_index(base, n, j, q));
      d -= v * v;
    }
    $T ljj = $SQRT(d);
    put(l_index(base, n, j, j), ljj);
    for (uint i = j + 1u; i < n; ++i) {
      precise $T v = a_lower(base, n, i, j);
      for (uint q = 0u; q < j; ++q) v -= l_at(l_index(base, n, i, q)) * l_at(l_index(base, n, j, q));
      put(l_index(base, n, i, j), v / ljj);
    }
  }
}

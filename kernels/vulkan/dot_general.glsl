// dot_general: the output viewed as [B, M, N] (batch dims, lhs free dims,
// rhs free dims); a 16x16 work group computes one 16x16 tile of it, staging
// 16x16 tiles of both operands in shared memory. at0(b, m, k) and
// at1(b, k, n) load operand elements converted to the accumulator type;
// kiln_dot_mul multiplies two of them (complex numbers as complex).
$FUNCTIONS
shared $ACC tile_a[16][17];
shared $ACC tile_b[16][17];

void main() {
  const uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;
  const uint n = gl_WorkGroupID.x * 16u + lx;
  const uint m = gl_WorkGroupID.y * 16u + ly;
  const uint b = gl_WorkGroupID.z;
  const uint M = $M, N = $N, K = $K;
  $ACC acc = $ZERO;
  for (uint k0 = 0u; k0 < K; k0 += 16u) {
    uint ka = k0 + lx, kb = k0 + ly;
    tile_a[ly][lx] = (m < M && ka < K) ? at0(b, m, ka) : $ZERO;
    tile_b[ly][lx] = (kb < K && n < N) ? at1(b, kb, n) : $ZERO;
    barrier();
    for (uint kk = 0u; kk < 16u; ++kk) acc += kiln_dot_mul(tile_a[ly][kk], tile_b[kk][lx]);
    barrier();
  }
  if (m < M && n < N) {
    $STORE
  }
}

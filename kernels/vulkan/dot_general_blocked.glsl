// dot_general, register-blocked: f32 operands and result, lhs laid out as
// [B, M, K] (batch dims, free dims, contracting dims, row-major) and rhs as
// [B, K, N] (BT 0) or [B, N, K] (BT 1). Each invocation computes a TM x TN
// tile of the output [B, M, N] in registers, with no shared memory and no
// barriers: on lavapipe every buffer access is a loop over the lanes while
// arithmetic is SIMD, so FMAs per load set the speed (docs/vulkan.md).
// Edge tiles clamp their row and column indices instead of branching in the
// K loop (the surplus lanes recompute the last row or column, reading only
// elements in range) and skip those stores.
// When K (and N for BT 0) is a multiple of 4, both operands start on a
// 16-byte boundary and lie within their texel views, A and B are read as vec4
// texels (ShaderVariant::texel_inputs: lavapipe gathers texels without the
// per-lane loop of a storage-buffer load), four k steps per iteration;
// otherwise one storage word per element. The branch between the two is
// uniform over the dispatch.
layout(set = 0, binding = $ATEX) uniform samplerBuffer a_tex;
layout(set = 0, binding = $BTEX) uniform samplerBuffer b_tex;
$FUNCTIONS
const uint TM = $TMu, TN = $TNu, TN4 = TN / 4u;

void main() {
  const uint M = $M, N = $N, K = $K;
  const uint m0 = gl_GlobalInvocationID.y * TM;
  const uint n0 = gl_GlobalInvocationID.x * TN;
  const uint b = gl_WorkGroupID.z;
  // (K = 0 reads nothing below and stores zeros through the epilogue.)
  if (m0 >= M || n0 >= N) return;
  // Word offsets of this batch's operands.
  const uint abase = p[$AOFF] / 4u + b * M * K;
  const uint bbase = p[$BOFF] / 4u + b * K * N;
  uint row[TM];
  [[unroll]] for (uint r = 0u; r < TM; ++r) row[r] = min(m0 + r, M - 1u) * K;
  vec4 acc[TM][TN4];
  [[unroll]] for (uint r = 0u; r < TM; ++r)
    [[unroll]] for (uint j = 0u; j < TN4; ++j) acc[r][j] = vec4(0.0);
  const bool wide = (K & 3u) == 0u && ($BT == 1 || (N & 3u) == 0u) && (abase & 3u) == 0u && (bbase & 3u) == 0u &&
                    (abase + M * K) / 4u <= uint(textureSize(a_tex)) && (bbase + K * N) / 4u <= uint(textureSize(b_tex));
  if (wide) {
    const uint K4 = K / 4u, a0 = abase / 4u, b0 = bbase / 4u;
#if $BT == 0
    const uint N4 = N / 4u;
    uint col4[TN4];
    [[unroll]] for (uint j = 0u; j < TN4; ++j) col4[j] = min(n0 / 4u + j, N4 - 1u);
    for (uint k4 = 0u; k4 < K4; ++k4) {
      vec4 a[TM];
      [[unroll]] for (uint r = 0u; r < TM; ++r) a[r] = texelFetch(a_tex, int(a0 + row[r] / 4u + k4));
      [[unroll]] for (uint c = 0u; c < 4u; ++c) {
        const uint kr = b0 + (k4 * 4u + c) * N4;
        [[unroll]] for (uint j = 0u; j < TN4; ++j) {
          const vec4 bv = texelFetch(b_tex, int(kr + col4[j]));
          [[unroll]] for (uint r = 0u; r < TM; ++r) acc[r][j] += a[r][c] * bv;
        }
      }
    }
#else
    uint colk[TN];
    [[unroll]] for (uint c = 0u; c < TN; ++c) colk[c] = b0 + min(n0 + c, N - 1u) * K4;
    for (uint k4 = 0u; k4 < K4; ++k4) {
      vec4 a[TM], bk[TN];
      [[unroll]] for (uint r = 0u; r < TM; ++r) a[r] = texelFetch(a_tex, int(a0 + row[r] / 4u + k4));
      [[unroll]] for (uint c = 0u; c < TN; ++c) bk[c] = texelFetch(b_tex, int(colk[c] + k4));
      [[unroll]] for (uint q = 0u; q < 4u; ++q)
        [[unroll]] for (uint j = 0u; j < TN4; ++j) {
          const vec4 bv = vec4(bk[4u * j][q], bk[4u * j + 1u][q], bk[4u * j + 2u][q], bk[4u * j + 3u][q]);
          [[unroll]] for (uint r = 0u; r < TM; ++r) acc[r][j] += a[r][q] * bv;
        }
    }
#endif
  } else {
    uint col[TN];
#if $BT == 0
    [[unroll]] for (uint c = 0u; c < TN; ++c) col[c] = bbase + min(n0 + c, N - 1u);
    const uint kstep = N;
#else
    [[unroll]] for (uint c = 0u; c < TN; ++c) col[c] = bbase + min(n0 + c, N - 1u) * K;
    const uint kstep = 1u;
#endif
    for (uint k = 0u; k < K; ++k) {
      float a[TM];
      [[unroll]] for (uint r = 0u; r < TM; ++r) a[r] = uintBitsToFloat(t0.w[abase + row[r] + k]);
      const uint kb = k * kstep;
      [[unroll]] for (uint j = 0u; j < TN4; ++j) {
        const vec4 bv = vec4(uintBitsToFloat(t1.w[col[4u * j] + kb]), uintBitsToFloat(t1.w[col[4u * j + 1u] + kb]),
                             uintBitsToFloat(t1.w[col[4u * j + 2u] + kb]), uintBitsToFloat(t1.w[col[4u * j + 3u] + kb]));
        [[unroll]] for (uint r = 0u; r < TM; ++r) acc[r][j] += a[r] * bv;
      }
    }
  }
$STORE_TILE}

// dot_general, register-blocked over any operand layout (compiler/vulkan/
// kernels_contraction_blocked.cc): f32 operands and result whose layouts
// dot_general_blocked.glsl does not take, and 8- and 16-bit integer
// operands with an i32 result (ACC int, read as words, summed in wrapping
// 32-bit integers as the reference does) (a transposed lhs, batch dims that
// do not lead, contracting dims split around free ones: attention's folded
// transposes). The output is viewed as [B, M, N] (batch dims, lhs free
// dims, rhs free dims, the spec's result order). Each invocation computes a
// TM x TN tile in registers from storage words: the batch entry, each row
// and each column are located once (their dims' strides), and the
// contraction runs as generated loops over the contracting dims in order,
// so the sums run in k order like the other shaders'. Edge tiles clamp
// their row and column and skip those stores.
layout(set = 0, binding = $ATEX) uniform samplerBuffer a_tex;
layout(set = 0, binding = $BTEX) uniform samplerBuffer b_tex;
$FUNCTIONS
const uint TM = $TMu, TN = $TNu;

void main() {
  const uint M = $M, N = $N;
  const uint m0 = gl_GlobalInvocationID.y * TM;
  const uint n0 = gl_GlobalInvocationID.x * TN;
  const uint b = gl_WorkGroupID.z;
  if (m0 >= M || n0 >= N) return;
  uint abase = 0u, bbase = 0u;
$BATCH
  uint row[TM];
  [[unroll]] for (uint r = 0u; r < TM; ++r) {
    const uint m = min(m0 + r, M - 1u);
$ROW
  }
  uint col[TN];
  [[unroll]] for (uint c = 0u; c < TN; ++c) {
    const uint n = min(n0 + c, N - 1u);
$COL
  }
  $ACC acc[TM][TN];
  [[unroll]] for (uint r = 0u; r < TM; ++r)
    [[unroll]] for (uint c = 0u; c < TN; ++c) acc[r][c] = $ACC(0);
  // Both operands are also bound as texel buffers (after the storage
  // bindings) and read through them, one component of a texel per element,
  // where the views reach their last elements (uniform over the dispatch):
  // lavapipe gathers texels without the per-lane loop of a storage-buffer load.
  const uint a0 = p[$AOFF] / 4u, b0 = p[$BOFF] / 4u;
  if ($TEXELS && (a0 + $LHS_SIZE + 3u) / 4u <= uint(textureSize(a_tex)) &&
      (b0 + $RHS_SIZE + 3u) / 4u <= uint(textureSize(b_tex))) {
#define LDA(i) $ACC(texelFetch(a_tex, int((a0 + (i)) >> 2u))[(a0 + (i)) & 3u])
#define LDB(i) $ACC(texelFetch(b_tex, int((b0 + (i)) >> 2u))[(b0 + (i)) & 3u])
$SCALAR_CONTRACTION
#undef LDA
#undef LDB
  } else {
#define LDA(i) $ACC(ld0(i))
#define LDB(i) $ACC(ld1(i))
$SCALAR_CONTRACTION
#undef LDA
#undef LDB
  }
$STORE_TILE}

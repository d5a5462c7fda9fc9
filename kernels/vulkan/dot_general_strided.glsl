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
// Where the last contracting dim is the lhs's innermost (WIDE 1 or 2: A's
// rows hold runs of K contiguous floats; attention's Q K^T and P V, and a
// projection reading heads through a folded transpose) and its extent K is
// a multiple of 4, A is read as vec4 texels, four k steps per fetch; B as
// vec4 texels along k too where its last contracting dim is its innermost
// (WIDE 1), or along n where its last free dim is (WIDE 2, that dim's
// extent NL a multiple of 4, so a tile's four-column groups lie in one
// texel each). Every other dim's stride is then a multiple of 4 elements:
// with both operands 16-byte aligned, every run starts on a texel. Else
// the per-element forms below. The sums still run in k order (the other
// contracting dims' loops outside, in order).
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
  const bool views = (a0 + $LHS_SIZE + 3u) / 4u <= uint(textureSize(a_tex)) &&
                     (b0 + $RHS_SIZE + 3u) / 4u <= uint(textureSize(b_tex));
#if $WIDE != 0
  const uint K = $K;
  if (views && (K & 3u) == 0u && ($WIDE == 1 || ($NL & 3u) == 0u) && (a0 & 3u) == 0u && (b0 & 3u) == 0u) {
    const uint K4 = K / 4u;
    uint a4[TM];
    [[unroll]] for (uint r = 0u; r < TM; ++r) a4[r] = (a0 + row[r]) / 4u;
#if $WIDE == 1
    uint b4[TN];
    [[unroll]] for (uint c = 0u; c < TN; ++c) b4[c] = (b0 + col[c]) / 4u;
$WK_OPEN
    const uint ka4 = ($WKA) / 4u, kb4 = ($WKB) / 4u;
    for (uint k4 = 0u; k4 < K4; ++k4) {
      vec4 a[TM], bk[TN];
      [[unroll]] for (uint r = 0u; r < TM; ++r) a[r] = texelFetch(a_tex, int(a4[r] + ka4 + k4));
      [[unroll]] for (uint c = 0u; c < TN; ++c) bk[c] = texelFetch(b_tex, int(b4[c] + kb4 + k4));
      [[unroll]] for (uint q = 0u; q < 4u; ++q)
        [[unroll]] for (uint c = 0u; c < TN; ++c)
          [[unroll]] for (uint r = 0u; r < TM; ++r) acc[r][c] += a[r][q] * bk[c][q];
    }
$WK_CLOSE
#else
    // Group j's texel: that of its first column (a clamped group's first
    // column is the last, in the last group's texel).
    const uint kstep4 = $BSTEP / 4u;
    uint b4[TN / 4u];
    [[unroll]] for (uint j = 0u; j < TN / 4u; ++j) b4[j] = (b0 + col[4u * j]) / 4u;
$WK_OPEN
    const uint ka4 = ($WKA) / 4u, kb4 = ($WKB) / 4u;
    for (uint k4 = 0u; k4 < K4; ++k4) {
      vec4 a[TM];
      [[unroll]] for (uint r = 0u; r < TM; ++r) a[r] = texelFetch(a_tex, int(a4[r] + ka4 + k4));
      [[unroll]] for (uint q = 0u; q < 4u; ++q) {
        const uint kr = kb4 + (4u * k4 + q) * kstep4;
        [[unroll]] for (uint j = 0u; j < TN / 4u; ++j) {
          const vec4 bv = texelFetch(b_tex, int(b4[j] + kr));
          [[unroll]] for (uint e = 0u; e < 4u; ++e)
            [[unroll]] for (uint r = 0u; r < TM; ++r) acc[r][4u * j + e] += a[r][q] * bv[e];
        }
      }
    }
$WK_CLOSE
#endif
  } else
#endif
  if ($TEXELS && views) {
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

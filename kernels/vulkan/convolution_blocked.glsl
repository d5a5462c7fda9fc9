// convolution, register-blocked (compiler/vulkan/kernels_contraction_blocked.cc):
// f32 operands and result (or 8- and 16-bit integer operands and an i32
// result: ACC int, read as words, summed in wrapping 32-bit integers as the
// reference does), lhs dilation
// (holes read as zeros), one batch group, static
// padding, the result laid out [batch, spatial..., feature] or [batch,
// feature, spatial...]; any input and kernel layout. An implicit GEMM: each
// invocation computes TP output positions x TF output features in
// registers (no shared memory, no barriers: on lavapipe FMAs per load set
// the speed, docs/vulkan.md), the contraction running over the kernel taps
// (generated loops, reversal applied) and then the input features, as the
// reference sums. With feature groups (GROUPED: grouped and depthwise
// convolutions, K_IN the input features per group) each output feature
// reads its own group's inputs, one load per position and feature. Surplus rows and columns of edge tiles recompute the last
// position or feature (reading only elements in range) and skip their
// stores. Both operands are read through their texel views (lavapipe
// gathers texels without the per-lane loop of a storage-buffer load) where
// the views reach their last elements, through their storage buffers
// otherwise. Where the features are innermost in the input and the kernel
// (WIDE: NHWC/HWIO-like layouts) and the texels whole, both are read as
// vec4 texels (four input features of a position, four output features of
// a kernel row), for depthwise convolutions with a multiplier of 1 four
// features of a position at once; where only the kernel's output features
// are innermost (an NCHW input, or too few input features for whole
// texels), the kernel is read as vec4 texels and the input one component
// per element (convolution_blocked_w4.glsl); other layouts read one
// component of a texel per element (convolution_blocked_scalar.glsl);
// the branches are uniform over the dispatch. A window tap on padding multiplies a zero, as the spec's padded
// lhs does (so an infinite weight there gives NaN, as on the CPU device's
// fast kernels), not read from the input.
layout(set = 0, binding = $ATEX) uniform samplerBuffer a_tex;
layout(set = 0, binding = $BTEX) uniform samplerBuffer b_tex;
$FUNCTIONS
const uint TP = $TPu, TF = $TFu, TF4 = TF / 4u;
#if $ROW_RUNS
// Input elements s .. s + 3 (word offsets within a_tex's view; s may lie
// before its start or the run past its end, where a padded window hangs
// over: those texels are clamped, and the lanes masked by the caller).
vec4 kiln_run4(int s) {
  const int t = s >> 2, last = textureSize(a_tex) - 1;
  const uint m = uint(s) & 3u;
  const vec4 x0 = texelFetch(a_tex, clamp(t, 0, last)), x1 = texelFetch(a_tex, clamp(t + 1, 0, last));
  return kiln_shift4(x0, x1, m);
}
#endif

void main() {
  const uint P = $P, F = $F, K_IN = $K_IN;
$TILE
  if (p0 >= P || f0 >= F) return;
  // Per position: the input offset of its batch entry and where its window
  // starts along each spatial dim.
  uint lbase[TP];
$ORIGIN_DECL
  [[unroll]] for (uint r = 0u; r < TP; ++r) {
    const uint pos = min(p0 + r, P - 1u);
$SPLIT
  }
  uint wcol[TF];
  [[unroll]] for (uint c = 0u; c < TF; ++c) wcol[c] = min(f0 + c, F - 1u) * ($RS_O);
#if $GROUPED
  // The first input feature of each output feature's group.
  uint gfeat[TF];
  [[unroll]] for (uint c = 0u; c < TF; ++c) gfeat[c] = (min(f0 + c, F - 1u) / (F / $FGCu)) * K_IN;
#endif
  // (Scalars, not vec4s: lavapipe ran the word-read path a third slower
  // with vec4 accumulators.)
  $ACC acc[TP][TF];
  [[unroll]] for (uint r = 0u; r < TP; ++r)
    [[unroll]] for (uint c = 0u; c < TF; ++c) acc[r][c] = $ACC(0);
  // Both operands are read through their texel views where the views reach
  // their last elements (uniform over the dispatch).
  const uint a0 = p[$AOFF] / 4u, b0 = p[$BOFF] / 4u;
  const bool tex = $TEXELS && (a0 + $LHS_SIZE + 3u) / 4u <= uint(textureSize(a_tex)) &&
                   (b0 + $RHS_SIZE + 3u) / 4u <= uint(textureSize(b_tex));
#if $WIDE || $KOF_LAST
  // Each feature quad's texel within a kernel row (and, depthwise, a pixel).
  uint qtex[TF4];
  [[unroll]] for (uint j = 0u; j < TF4; ++j) qtex[j] = min(f0 / 4u + j, F / 4u - 1u);
#endif
#if $KOF_LAST
  // The kernel's output features innermost (compiler/passes/
  // conv_kernel_layout.h lays constant kernels out so): four of a kernel row
  // read as one texel, the input one component at a time, on any input
  // layout (NCHW, or NHWC with input features not a multiple of 4).
  const bool w4 = tex && (F & 3u) == 0u && (b0 & 3u) == 0u;
#endif
#if $WIDE
  const uint C_IN = $C_IN;
  const bool wide = tex && (C_IN & 3u) == 0u && (F & 3u) == 0u && (a0 & 3u) == 0u && (b0 & 3u) == 0u
#if $GROUPED
                    && K_IN == 1u && F == C_IN  // depthwise, multiplier 1: feature c reads input feature c
#endif
      ;
#endif
  // The vec4 path is chosen once, outside the window loops (TAPS_OPEN below:
  // the loops over the kernel taps, and per tap each position's input
  // offset `off`, whether it is in range `ok`, and the kernel offset
  // `wtap`): lavapipe runs a work group's invocations as SIMD lanes and
  // executes a branch it cannot prove uniform under a mask, so with the
  // choice inside the loops every tap also ran the scalar paths (a
  // depthwise 3x3 over 16x16x192 NHWC took 2.8x as long); a loop whose
  // lanes are all masked off ends at once. The scalar paths' texel-or-word
  // choice stays inside their loop (taken out too, NCHW convolutions were
  // no faster).
#if $WIDE
  if (wide) {
$TAPS_OPEN
#if $GROUPED
    vec4 w4[TF4];
    [[unroll]] for (uint j = 0u; j < TF4; ++j) w4[j] = texelFetch(b_tex, int((b0 + wtap) / 4u + qtex[j]));
    [[unroll]] for (uint r = 0u; r < TP; ++r)
      [[unroll]] for (uint j = 0u; j < TF4; ++j) {
        const vec4 x4 = ok[r] ? texelFetch(a_tex, int((a0 + off[r]) / 4u + qtex[j])) : vec4(0.0);
        [[unroll]] for (uint k = 0u; k < 4u; ++k) acc[r][4u * j + k] += x4[k] * w4[j][k];
      }
#else
    for (uint f = 0u; f < K_IN; f += 4u) {
      vec4 a4[TP];
      [[unroll]] for (uint r = 0u; r < TP; ++r) a4[r] = ok[r] ? texelFetch(a_tex, int((a0 + off[r] + f) / 4u)) : vec4(0.0);
      [[unroll]] for (uint q = 0u; q < 4u; ++q) {
        const uint wrow = (b0 + wtap + (f + q) * ($RS_I)) / 4u;
        [[unroll]] for (uint j = 0u; j < TF4; ++j) {
          const vec4 w4 = texelFetch(b_tex, int(wrow + qtex[j]));
          [[unroll]] for (uint r = 0u; r < TP; ++r)
            [[unroll]] for (uint k = 0u; k < 4u; ++k) acc[r][4u * j + k] += a4[r][q] * w4[k];
        }
      }
    }
#endif
$TAPS_CLOSE
  } else
#endif
#if $KOF_LAST && $ROW_RUNS
  // Positions whose windows run along the input's innermost dim at stride 1
  // (NCHW rows), four to a run (OW a multiple of 4, so that runs 0..3 and
  // 4..7 of a tile lie in one output row each): each run's four inputs of a
  // tap and feature are consecutive, read from the two texels that hold
  // them (kiln_run4). Padding and clamped positions are masked by ok[r]
  // as on the other paths.
  if (w4 && ($OW & 3u) == 0u) {
$TAPS_OPEN
#define KILN_ROW_RUNS 1
$W4_CONTRACTION
#undef KILN_ROW_RUNS
$TAPS_CLOSE
  } else
#endif
#if $KOF_LAST
  if (w4) {
$TAPS_OPEN
#define LDA(i) texelFetch(a_tex, int((a0 + (i)) >> 2u))[(a0 + (i)) & 3u]
#define KILN_ROW_RUNS 0
$W4_CONTRACTION
#undef KILN_ROW_RUNS
#undef LDA
$TAPS_CLOSE
  } else
#endif
  {
$TAPS_OPEN
  if (tex) {
    // One component of a texel: still lavapipe's branch-free gather, against
    // a per-lane loop for a storage-buffer load (NCHW convolutions ran 3-5x
    // faster).
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
$TAPS_CLOSE
  }
$STORE_TILE}

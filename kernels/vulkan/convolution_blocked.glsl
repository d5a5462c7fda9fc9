// convolution, register-blocked (compiler/vulkan/kernels_contraction_blocked.cc):
// f32 operands and result, no lhs dilation, one batch group, static
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
// stores. A window tap on padding multiplies a zero, as the spec's padded
// lhs does (so an infinite weight there gives NaN, as on the CPU device's
// fast kernels), not read from the input.
$FUNCTIONS
const uint TP = $TPu, TF = $TFu;

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
  float acc[TP][TF];
  [[unroll]] for (uint r = 0u; r < TP; ++r)
    [[unroll]] for (uint c = 0u; c < TF; ++c) acc[r][c] = 0.0;
$TAPS_OPEN
  uint off[TP];
  bool ok[TP];
  [[unroll]] for (uint r = 0u; r < TP; ++r) {
$TAP_POSITION
  }
  const uint wtap = $WTAP;
  for (uint f = 0u; f < K_IN; ++f) {
    const uint wf = wtap + f * ($RS_I);
#if $GROUPED
    // Each feature reads the input features of its own group.
    [[unroll]] for (uint c = 0u; c < TF; ++c) {
      const float wv = ld1(wf + wcol[c]);
      const uint fo = (gfeat[c] + f) * ($LS_F);
      [[unroll]] for (uint r = 0u; r < TP; ++r) acc[r][c] += (ok[r] ? ld0(off[r] + fo) : 0.0) * wv;
    }
#else
    float a[TP];
    [[unroll]] for (uint r = 0u; r < TP; ++r) a[r] = ok[r] ? ld0(off[r] + f * ($LS_F)) : 0.0;
    [[unroll]] for (uint c = 0u; c < TF; ++c) {
      const float wv = ld1(wf + wcol[c]);
      [[unroll]] for (uint r = 0u; r < TP; ++r) acc[r][c] += a[r] * wv;
    }
#endif
  }
$TAPS_CLOSE
  [[unroll]] for (uint r = 0u; r < TP; ++r)
    [[unroll]] for (uint c = 0u; c < TF; ++c) {
      const uint pos = p0 + r, f = f0 + c;
      if (pos < P && f < F) {
        const float v = acc[r][c];
        const uint i = $OUT_INDEX;
        $STORE
      }
    }
}

// convolution_blocked.glsl's scalar contraction over the input features of
// one window tap, included twice (compiler/vulkan/kernels_contraction_blocked.cc):
// with LDA/LDB reading the operands through their texel views, and through
// their storage buffers where a view is too small.
    for (uint f = 0u; f < K_IN; ++f) {
      const uint wf = wtap + f * ($RS_I);
#if $GROUPED
      // Each feature reads the input features of its own group.
      [[unroll]] for (uint c = 0u; c < TF; ++c) {
        const $ACC wv = LDB(wf + wcol[c]);
        const uint fo = (gfeat[c] + f) * ($LS_F);
        [[unroll]] for (uint r = 0u; r < TP; ++r) acc[r][c] += (ok[r] ? LDA(off[r] + fo) : $ACC(0)) * wv;
      }
#else
      $ACC a[TP];
      [[unroll]] for (uint r = 0u; r < TP; ++r) a[r] = ok[r] ? LDA(off[r] + f * ($LS_F)) : $ACC(0);
      [[unroll]] for (uint c = 0u; c < TF; ++c) {
        const $ACC wv = LDB(wf + wcol[c]);
        [[unroll]] for (uint r = 0u; r < TP; ++r) acc[r][c] += a[r] * wv;
      }
#endif
    }

// convolution_blocked.glsl's contraction over the input features of one
// window tap where the kernel's output features are innermost
// (compiler/vulkan/kernels_contraction_blocked.cc): four output features of
// a kernel row are one texel (the kernel offsets are multiples of F, a
// multiple of 4, so the texels are whole), the input is read one component
// at a time through LDA, or, with KILN_ROW_RUNS (runs of four positions
// along the input's innermost dim, convolution_blocked.glsl), four at a time.
    for (uint f = 0u; f < K_IN; ++f) {
      const uint wrow = (b0 + wtap + f * ($RS_I)) / 4u;
      vec4 w4[TF4];
      [[unroll]] for (uint j = 0u; j < TF4; ++j) w4[j] = texelFetch(b_tex, int(wrow + qtex[j]));
#if $GROUPED
      // Each feature reads the input features of its own group.
      [[unroll]] for (uint c = 0u; c < TF; ++c) {
        const uint fo = (gfeat[c] + f) * ($LS_F);
        [[unroll]] for (uint r = 0u; r < TP; ++r) acc[r][c] += (ok[r] ? LDA(off[r] + fo) : 0.0) * w4[c / 4u][c & 3u];
      }
#else
      float a[TP];
#if KILN_ROW_RUNS
      // Positions 4h .. 4h + 3 read four consecutive input elements: one
      // shifted pair of texels per run (kiln_run4), not four fetches.
      const vec4 lo = kiln_run4(int(a0 + raw[0] + f * ($LS_F))), hi = kiln_run4(int(a0 + raw[4] + f * ($LS_F)));
      [[unroll]] for (uint r = 0u; r < TP; ++r) a[r] = ok[r] ? (r < 4u ? lo[r] : hi[r - 4u]) : 0.0;
#else
      [[unroll]] for (uint r = 0u; r < TP; ++r) a[r] = ok[r] ? LDA(off[r] + f * ($LS_F)) : 0.0;
#endif
      [[unroll]] for (uint j = 0u; j < TF4; ++j)
        [[unroll]] for (uint r = 0u; r < TP; ++r)
          [[unroll]] for (uint k = 0u; k < 4u; ++k) acc[r][4u * j + k] += a[r] * w4[j][k];
#endif
    }

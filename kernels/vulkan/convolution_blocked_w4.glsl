// convolution_blocked.glsl's contraction over the input features of one
// window tap where the kernel's output features are innermost
// (compiler/vulkan/kernels_contraction_blocked.cc): four output features of
// a kernel row are one texel (the kernel offsets are multiples of F, a
// multiple of 4, so the texels are whole), the input is read one component
// at a time through LDA.
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
      [[unroll]] for (uint r = 0u; r < TP; ++r) a[r] = ok[r] ? LDA(off[r] + f * ($LS_F)) : 0.0;
      [[unroll]] for (uint j = 0u; j < TF4; ++j)
        [[unroll]] for (uint r = 0u; r < TP; ++r)
          [[unroll]] for (uint k = 0u; k < 4u; ++k) acc[r][4u * j + k] += a[r] * w4[j][k];
#endif
    }

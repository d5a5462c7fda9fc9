// dot_general_strided.glsl's contraction, included twice (compiler/vulkan/
// kernels_contraction_blocked.cc): with LDA/LDB reading the operands through
// their texel views, and through their storage buffers where a view is too
// small.
$K_OPEN
  const uint ka = $KA, kb = $KB;
  $ACC a[TM];
  [[unroll]] for (uint r = 0u; r < TM; ++r) a[r] = LDA(row[r] + ka);
  [[unroll]] for (uint c = 0u; c < TN; ++c) {
    const $ACC bv = LDB(col[c] + kb);
    [[unroll]] for (uint r = 0u; r < TM; ++r) acc[r][c] += a[r] * bv;
  }
$K_CLOSE

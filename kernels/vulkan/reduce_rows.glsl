// reduce over the innermost axes, one invocation per output element: each
// reduces one row of N contiguous operand elements in the order
// the reference reduce uses for float adds (docs/kernels.md, "Reduction
// order"): 16 lanes, element i to lane i mod 16, then the lanes folded
// pairwise (lane j with lane j + 8, + 4, + 2, + 1) and the init value
// folded with lane 0. A lane starts from its first element, which equals
// adding it to -0. The row is read as vec4 texels (four lanes at a time; a
// gather on lavapipe, where a storage-buffer load is a loop over the lanes)
// where the operand's offset and N are multiples of 4 and its view reaches
// its end (uniform over the dispatch), as texels shifted by each row's
// start where N is not, else word by word. No shared memory
// and no barriers. The generator defines kiln_body (the reduce's body on
// two values), the row length N and the store.
layout(set = 0, binding = $ATEX) uniform samplerBuffer a_tex;
$BODY_FUNCTION
// One group's eight elements of a pass (ql: lanes 8h .. 8h + 3, qh: the next
// four) folded into the pass's accumulators.
void kiln_fold8(inout vec4 lo, inout vec4 hi, const vec4 ql, const vec4 qh) {
  [[unroll]] for (int e = 0; e < 4; ++e) {
    lo[e] = kiln_body(lo[e], ql[e]);
    hi[e] = kiln_body(hi[e], qh[e]);
  }
}
void main() {
  const uint row = kiln_linear_id();
  if (row >= p[0]) return;
  const uint N = $N;
  const uint a0 = p[$AOFF] / 4u;
  const uint base = row * N, groups = N / 16u, lanes = min(N, 16u);
  float lane[16];
  const uint texels = uint(textureSize(a_tex));
  if (groups > 0u && (a0 & 3u) == 0u && (N & 3u) == 0u && a0 / 4u <= texels &&
      p[0] <= (texels - a0 / 4u) / (N / 4u)) {
    // Lanes 8h .. 8h + 7 in pass h (texels 2h and 2h + 1 of each 16
    // elements): eight accumulators live at a time, not sixteen (lavapipe
    // holds a value of its 8 lanes in one AVX register; sixteen spilled).
    const int t0 = int((a0 + base) / 4u);
    [[unroll]] for (int h = 0; h < 2; ++h) {
      vec4 lo = texelFetch(a_tex, t0 + 2 * h), hi = texelFetch(a_tex, t0 + 2 * h + 1);
      for (uint g = 1u; g < groups; ++g) {
        kiln_fold8(lo, hi, texelFetch(a_tex, t0 + int(4u * g) + 2 * h), texelFetch(a_tex, t0 + int(4u * g) + 2 * h + 1));
      }
      [[unroll]] for (int e = 0; e < 4; ++e) {
        lane[8 * h + e] = lo[e];
        lane[8 * h + 4 + e] = hi[e];
      }
    }
  } else if (groups > 0u && a0 / 4u < texels && ((a0 & 3u) + p[0] * N + 3u) / 4u <= texels - a0 / 4u) {
    // Rows that do not start on a texel (a 7x7 window of an NCHW tensor:
    // rows of 49): the same passes, eight elements from the three texels
    // that hold them, shifted by the row's start within its first texel
    // (which differs from row to row: per-lane selects, no gathers). The
    // last row's last texel may be past the view: clamped, and unused.
    const uint s = a0 + base, m = s & 3u;
    const int t0 = int(s >> 2u), last = int(texels) - 1;
    [[unroll]] for (int h = 0; h < 2; ++h) {
      vec4 lo = vec4(0.0), hi = vec4(0.0);
      for (uint g = 0u; g < groups; ++g) {
        const int t = t0 + int(4u * g) + 2 * h;
        const vec4 x0 = texelFetch(a_tex, t), x1 = texelFetch(a_tex, t + 1), x2 = texelFetch(a_tex, min(t + 2, last));
        const vec4 ql = kiln_shift4(x0, x1, m), qh = kiln_shift4(x1, x2, m);
        if (g == 0u) {
          lo = ql;
          hi = qh;
        } else {
          kiln_fold8(lo, hi, ql, qh);
        }
      }
      [[unroll]] for (int e = 0; e < 4; ++e) {
        lane[8 * h + e] = lo[e];
        lane[8 * h + 4 + e] = hi[e];
      }
    }
  } else if (groups > 0u) {
    [[unroll]] for (uint j = 0u; j < 16u; ++j) lane[j] = ld0(base + j);
    for (uint g = 1u; g < groups; ++g)
      [[unroll]] for (uint j = 0u; j < 16u; ++j) lane[j] = kiln_body(lane[j], ld0(base + 16u * g + j));
  }
  // The last N mod 16 elements, to lanes 0, 1, ... (all of a row under 16,
  // each then its lane's first element).
  const uint tail = base + 16u * groups, rest = N - 16u * groups;
  [[unroll]] for (uint j = 0u; j < 15u; ++j) {
    if (j < rest) {
      const float x = ld0(tail + j);
      lane[j] = groups > 0u ? kiln_body(lane[j], x) : x;
    }
  }
  // The pairwise fold, over the lanes that hold elements. (Written out per
  // step: a loop halving its step was not unrolled, and its indexing put
  // the lanes in memory, a third of a row of 64's time on lavapipe.)
  [[unroll]] for (uint j = 0u; j < 8u; ++j)
    if (j + 8u < lanes) lane[j] = kiln_body(lane[j], lane[j + 8u]);
  [[unroll]] for (uint j = 0u; j < 4u; ++j)
    if (j + 4u < lanes) lane[j] = kiln_body(lane[j], lane[j + 4u]);
  [[unroll]] for (uint j = 0u; j < 2u; ++j)
    if (j + 2u < lanes) lane[j] = kiln_body(lane[j], lane[j + 2u]);
  if (1u < lanes) lane[0] = kiln_body(lane[0], lane[1]);
  const float init = ld1(0u);
  const float result = lanes > 0u ? kiln_body(init, lane[0]) : init;
$STORE
}

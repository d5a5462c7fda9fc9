// reduce over many elements: one work group of 64 invocations per output
// element. Each invocation folds a strided share of the reduced elements
// (starting from its first element, not from the init value), the partial
// results are combined pairwise in shared memory, and the init value is
// folded in once at the end: the spec's reduce for associative, commutative
// bodies, in a different order than the reference's row-major fold. The
// generator defines the shared arrays, the per-element fold (FOLD), the
// pairwise combination (COMBINE) and the final store (FINISH).
$SHARED
void main() {
  uint i = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  uint lid = gl_LocalInvocationID.x;
  bool live = i < p[0];  // no early return: every invocation reaches the barriers
  if (!live) i = 0u;
$INDEX
$DECLARE
  bool has = false;
  if (live) {
    for (uint j = lid; j < count; j += 64u) {
$FOLD
      has = true;
    }
  }
$PUBLISH
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1) {
    if (lid < s && has_part[lid + s]) {
      if (has_part[lid]) {
$COMBINE
      } else {
$MOVE
        has_part[lid] = true;
      }
    }
    barrier();
  }
  if (lid == 0u && live) {
$FINISH
  }
}

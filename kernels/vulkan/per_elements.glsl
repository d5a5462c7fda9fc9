// Several consecutive elements of output 0 per invocation (grid_args
// {0, E}): where per-invocation costs dominate (lavapipe: each invocation
// reads the parameter words through a per-lane loop and decomposes its
// index), fewer invocations move more bytes. The prefetch reads what the
// elements share (vec4 texels of inputs read at the output's index), the
// code after the loop writes what they gathered (vec4 stores); the
// generator pastes the kernel's code for element i = kiln_first + kiln_k
// (past the last element: the loop ends, or, where the body only computes
// and the code after it stores, i is clamped to the last one).
void main() {
  const uint kiln_first = kiln_linear_id() * $PERu;
$PREFETCH
  $LOOP_HINT for (uint kiln_k = 0u; kiln_k < $PERu; ++kiln_k) {
$ELEMENT
$BODY
  }
$AFTER
}

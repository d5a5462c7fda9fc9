// One invocation per element of output 0 (elementwise programs, data
// movement, reductions); the generator pastes the kernel's code for element i.
void main() {
  uint i = kiln_linear_id();
  if (i >= p[0]) return;
$BODY
}

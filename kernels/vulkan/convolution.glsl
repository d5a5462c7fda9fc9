// convolution: one invocation per output element accumulates over the
// kernel taps (nested loops over the spatial dims, generated) and the input
// features of its group, as kernels/reference does: lhs position
// pos = out * stride + tap * rhs_dilation - padding_low. Where it falls on
// padding or a hole of the lhs dilation, a float convolution multiplies a
// zero, as the spec's padded lhs does (0 * inf = NaN), and an integer one
// skips the tap (a zero adds nothing). lhs_at / rhs_at load operands
// converted to the accumulator type A.
$FUNCTIONS
void main() {
  uint i = kiln_linear_id();
  if (i >= p[0]) return;
$INDEX
  const uint k_in = $K_IN, k_out = $K_OUT, batch = $BATCH;
  const uint out_per_fgroup = k_out / $FGC, out_per_bgroup = k_out / $BGC, batch_per_group = batch / $BGC;
  uint o_b = $OB, o_f = $OF;
  uint feat_base = (o_f / out_per_fgroup) * k_in;
  uint lhs_batch = (o_f / out_per_bgroup) * batch_per_group + o_b;
  $A acc = $A(0);
$TAPS
  $STORE
}

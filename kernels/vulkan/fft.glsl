// fft: one invocation per output element computes the direct DFT over the
// trailing fft dimensions (lengths N0, N1, N2, leading ones 1 when unused),
// as kernels/reference does: forward transforms use e^(-i angle) and no
// scaling, inverse ones e^(+i angle) and 1/N. RFFT keeps the first N2/2+1
// outputs of the last dimension; IRFFT reads N2/2+1 inputs there and uses
// the Hermitian extension for the rest. The generator defines C (complex
// type), P (its part type), x_at(index) -> C, put(index, C), cosine/sine.
$FUNCTIONS
const uint N0 = $N0, N1 = $N1, N2 = $N2;
const uint H2 = N2 / 2u + 1u;
const int KIND = $KIND;  // 0 FFT, 1 IFFT, 2 RFFT, 3 IRFFT
const uint IN2 = KIND == 3 ? H2 : N2;   // input extent of the last fft dim
const uint OUT2 = KIND == 2 ? H2 : N2;  // output extent of the last fft dim

void main() {
  uint i = kiln_linear_id();
  if (i >= p[0]) return;
  uint k2 = i % OUT2, rest = i / OUT2;
  uint k1 = rest % N1;
  rest /= N1;
  uint k0 = rest % N0;
  uint b = rest / N0;
  uint in_base = b * N0 * N1 * IN2;
  C acc = C(0);
  for (uint j0 = 0u; j0 < N0; ++j0)
    for (uint j1 = 0u; j1 < N1; ++j1)
      for (uint j2 = 0u; j2 < N2; ++j2) {
        C x;
        P lead_sign = P(1);
        if (KIND == 3) {
          if (j2 >= IN2) {  // X[n - k] = conj(X[k]) after the leading inverse transforms
            x = x_at(in_base + (j0 * N1 + j1) * IN2 + (N2 - j2));
            x.y = -x.y;
            lead_sign = P(-1);
          } else {
            x = x_at(in_base + (j0 * N1 + j1) * IN2 + j2);
          }
        } else {
          if (j2 >= IN2) continue;
          x = x_at(in_base + (j0 * N1 + j1) * IN2 + j2);
        }
        // The angle as a fraction of a turn, each term reduced mod its length.
        P turn = lead_sign * (P((j0 * k0) % N0) / P(N0) + P((j1 * k1) % N1) / P(N1)) + P((j2 * k2) % N2) / P(N2);
        turn -= floor(turn);
        P angle = P(6.283185307179586476925286766559) * turn;
        P s = (KIND == 0 || KIND == 2) ? -sine(angle) : sine(angle);
        C w = C(cosine(angle), s);
        acc += C(x.x * w.x - x.y * w.y, x.x * w.y + x.y * w.x);
      }
  if (KIND == 1 || KIND == 3) acc /= P(N0 * N1 * N2);
  put(i, acc);
}

// Reference stablehlo.fft: exact O(n^2) discrete Fourier transforms in
// complex double over the trailing size(fft_length) dimensions, rounded once
// to the result type. Forward transforms use exp(-2*pi*i*j*k/n) and no
// scaling; inverse ones exp(+2*pi*i*j*k/n) and a 1/n factor per dimension
// (so IFFT(FFT(x)) = x). RFFT keeps the first n/2+1 outputs of the last
// dimension; IRFFT reads n/2+1 inputs there, treats the rest as the
// Hermitian extension (X[n-k] = conj(X[k])) and returns the real part.
#include <cmath>
#include <complex>
#include <numbers>
#include <string>
#include <vector>

#include "kernels/reference/numeric_util.h"
#include "kernels/reference/kernels.h"

namespace kiln::ref {
namespace {

using numeric::CheckCall;
using numeric::CheckDims;
using numeric::KernelName;
using cd = std::complex<double>;

// e^(sign * 2 pi i * jk / n), with jk reduced mod n first to keep the angle exact.
cd Twiddle(int64_t jk, int64_t n, int sign) {
  const double angle = sign * 2.0 * std::numbers::pi * static_cast<double>(jk % n) / static_cast<double>(n);
  return {std::cos(angle), std::sin(angle)};
}

// In-place DFT along `axis` of a row-major buffer of shape `dims`.
void DftAlongAxis(std::vector<cd>& buf, const std::vector<int64_t>& dims, size_t axis, bool inverse) {
  const int64_t n = dims[axis];
  if (n == 0) return;
  int64_t inner = 1, outer = 1;
  for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  for (size_t d = 0; d < axis; ++d) outer *= dims[d];
  std::vector<cd> in(n);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * n * inner + i;
      for (int64_t j = 0; j < n; ++j) in[j] = buf[base + j * inner];
      for (int64_t k = 0; k < n; ++k) {
        cd acc = 0;
        for (int64_t j = 0; j < n; ++j) acc += in[j] * Twiddle(j * k, n, inverse ? 1 : -1);
        buf[base + k * inner] = inverse ? acc / static_cast<double>(n) : acc;
      }
    }
}

Status Fft(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 1, 1));
  const TensorRef& in = c.inputs[0];
  const TensorRef& out = c.outputs[0];
  const std::string name = KernelName(c);
  const std::string_view type = c.params.Str("fft_type");
  auto len = c.params.Ints("fft_length");
  const int64_t r = in.rank();
  const int64_t l = static_cast<int64_t>(len.size());
  if (l < 1 || l > 3 || l > r) return InvalidArgument(name + ": fft_length must have 1..3 entries, at most rank");
  for (int64_t v : len)
    if (v < 0) return InvalidArgument(name + ": fft_length must be non-negative");
  const bool fft = type == "FFT", ifft = type == "IFFT", rfft = type == "RFFT", irfft = type == "IRFFT";
  if (!fft && !ifft && !rfft && !irfft) return InvalidArgument(name + ": unknown fft_type '" + std::string(type) + "'");

  // Full-spectrum working shape: batch dims + fft_length.
  std::vector<int64_t> full(in.dims.begin(), in.dims.end());
  for (int64_t i = 0; i < l; ++i) full[r - l + i] = len[i];
  const int64_t last_full = len[l - 1];
  const int64_t last_half = last_full / 2 + 1;
  std::vector<int64_t> half = full;
  half[r - 1] = last_half;

  if (rfft) {
    if (!IsFloat(in.type) || !IsComplex(out.type)) return InvalidArgument(name + ": RFFT maps float to complex");
    KILN_RETURN_IF_ERROR(CheckDims(c, in, full, "operand"));
    KILN_RETURN_IF_ERROR(CheckDims(c, out, half, "result"));
  } else if (irfft) {
    if (!IsComplex(in.type) || !IsFloat(out.type)) return InvalidArgument(name + ": IRFFT maps complex to float");
    KILN_RETURN_IF_ERROR(CheckDims(c, in, half, "operand"));
    KILN_RETURN_IF_ERROR(CheckDims(c, out, full, "result"));
  } else {
    if (!IsComplex(in.type) || !IsComplex(out.type)) return InvalidArgument(name + ": FFT/IFFT need complex types");
    KILN_RETURN_IF_ERROR(CheckDims(c, in, full, "operand"));
    KILN_RETURN_IF_ERROR(CheckDims(c, out, full, "result"));
  }
  if (out.NumElements() == 0) return Status::Ok();

  std::vector<cd> buf(in.NumElements());
  for (int64_t i = 0; i < in.NumElements(); ++i) buf[i] = numeric::ToComplex(in.type, numeric::Load(in, i));

  if (fft || ifft || rfft) {
    for (int64_t i = 0; i < l; ++i) DftAlongAxis(buf, full, r - l + i, ifft);
    // RFFT: keep the first n/2+1 entries of the last dimension.
    const int64_t keep = rfft ? last_half : last_full;
    const int64_t rows = out.NumElements() / keep;
    for (int64_t row = 0; row < rows; ++row)
      for (int64_t k = 0; k < keep; ++k)
        numeric::Store(out, row * keep + k, numeric::FromComplex(out.type, buf[row * last_full + k]));
    return Status::Ok();
  }

  // IRFFT: inverse over the leading fft dims on the half spectrum, then the
  // real inverse along the last dimension.
  for (int64_t i = 0; i + 1 < l; ++i) DftAlongAxis(buf, half, r - l + i, true);
  const int64_t n = last_full;
  const int64_t rows = out.NumElements() / n;
  for (int64_t row = 0; row < rows; ++row) {
    const cd* x = &buf[row * last_half];
    for (int64_t t = 0; t < n; ++t) {
      cd acc = 0;
      for (int64_t k = 0; k < n; ++k) {
        const cd xk = k < last_half ? x[k] : std::conj(x[n - k]);
        acc += xk * Twiddle(k * t, n, 1);
      }
      numeric::Store(out, row * n + t, numeric::FromDouble(out.type, acc.real() / static_cast<double>(n)));
    }
  }
  return Status::Ok();
}

}  // namespace

// This file's kernels of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::Fft(const KernelCall& call) { return ref::Fft(call); }

}  // namespace kiln::ref

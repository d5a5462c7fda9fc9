// Tests of the reference fft kernel; values from the conformance tests
// (fft.mlir) and hand-computed odd-length transforms.
#include "tests/kernels/reference/numeric_test_util.h"

namespace kiln::ref::numeric_test {
namespace {

std::vector<KernelAttr> Fft(std::string type, std::vector<int64_t> len) {
  return {Str("fft_type", type), Ints("fft_length", len)};
}

TEST(NumericFft, Fft1DAnd2D) {
  Tensor x = TC(kC128, {2}, {{1, 2}, {3, -4}});
  Tensor y = Zeros(kC128, {2});
  ASSERT_TRUE(Call("stablehlo.fft", Fft("FFT", {2}), {&x}, {&y}).ok());
  ExpectNearC(C(y), {{4, -2}, {-2, 6}}, 1e-12);
  Tensor x2 = TC(kC128, {2, 2}, {{1, 2}, {3, -4}, {-5, 6}, {-7, -8}});
  Tensor y2 = Zeros(kC128, {2, 2});
  ASSERT_TRUE(Call("stablehlo.fft", Fft("FFT", {2, 2}), {&x2}, {&y2}).ok());
  ExpectNearC(C(y2), {{-8, -4}, {0, 20}, {16, 0}, {-4, -8}}, 1e-12);
  // Only the last dim: batch of two 1-D transforms.
  Tensor y3 = Zeros(kC128, {2, 2});
  ASSERT_TRUE(Call("stablehlo.fft", Fft("FFT", {2}), {&x2}, {&y3}).ok());
  ExpectNearC(C(y3), {{4, -2}, {-2, 6}, {-12, -2}, {2, 14}}, 1e-12);
}

TEST(NumericFft, IfftInvertsAndOddLength) {
  Tensor x = TC(kC64, {2, 2}, {{-8, -4}, {16, 0}, {0, 20}, {-4, -8}});
  Tensor y = Zeros(kC64, {2, 2});
  ASSERT_TRUE(Call("stablehlo.fft", Fft("IFFT", {2, 2}), {&x}, {&y}).ok());
  ExpectNearC(C(y), {{1, 2}, {-5, 6}, {3, -4}, {-7, -8}});
  // Length 3: fft([0,1,0]) = [1, w, w^2], w = exp(-2 pi i / 3).
  const double s = std::sqrt(3.0) / 2;
  Tensor z = TC(kC128, {3}, {{0, 0}, {1, 0}, {0, 0}});
  Tensor fz = Zeros(kC128, {3});
  ASSERT_TRUE(Call("stablehlo.fft", Fft("FFT", {3}), {&z}, {&fz}).ok());
  ExpectNearC(C(fz), {{1, 0}, {-0.5, -s}, {-0.5, s}}, 1e-12);
  Tensor back = Zeros(kC128, {3});
  ASSERT_TRUE(Call("stablehlo.fft", Fft("IFFT", {3}), {&fz}, {&back}).ok());
  ExpectNearC(C(back), {{0, 0}, {1, 0}, {0, 0}}, 1e-12);
}

TEST(NumericFft, RfftAndIrfft) {
  Tensor x = T(kF64, {4}, {1, 2, 3, 4});
  Tensor y = Zeros(kC128, {3});
  ASSERT_TRUE(Call("stablehlo.fft", Fft("RFFT", {4}), {&x}, {&y}).ok());
  ExpectNearC(C(y), {{10, 0}, {-2, 2}, {-2, 0}}, 1e-12);
  Tensor back = Zeros(kF64, {4});
  ASSERT_TRUE(Call("stablehlo.fft", Fft("IRFFT", {4}), {&y}, {&back}).ok());
  ExpectNear(D(back), {1, 2, 3, 4}, 1e-12);
  // 2-D from the conformance test.
  std::vector<double> v;
  for (int i = 1; i <= 16; ++i) v.push_back(i);
  Tensor x2 = T(kF32, {4, 4}, v);
  Tensor y2 = Zeros(kC64, {4, 3});
  ASSERT_TRUE(Call("stablehlo.fft", Fft("RFFT", {4, 4}), {&x2}, {&y2}).ok());
  ExpectNearC(C(y2), {{136, 0}, {-8, 8}, {-8, 0}, {-32, 32}, {0, 0}, {0, 0}, {-32, 0}, {0, 0}, {0, 0}, {-32, -32}, {0, 0}, {0, 0}}, 1e-4);
  Tensor b2 = Zeros(kF32, {4, 4});
  ASSERT_TRUE(Call("stablehlo.fft", Fft("IRFFT", {4, 4}), {&y2}, {&b2}).ok());
  ExpectNear(D(b2), v, 1e-4);
  // Odd length 3: rfft([1,2,3]) = [6, -1.5 + 0.866i].
  Tensor x3 = T(kF64, {3}, {1, 2, 3});
  Tensor y3 = Zeros(kC128, {2});
  ASSERT_TRUE(Call("stablehlo.fft", Fft("RFFT", {3}), {&x3}, {&y3}).ok());
  ExpectNearC(C(y3), {{6, 0}, {-1.5, std::sqrt(3.0) / 2}}, 1e-12);
  Tensor b3 = Zeros(kF64, {3});
  ASSERT_TRUE(Call("stablehlo.fft", Fft("IRFFT", {3}), {&y3}, {&b3}).ok());
  ExpectNear(D(b3), {1, 2, 3}, 1e-12);
}

TEST(NumericFft, ZeroSizedAndErrors) {
  Tensor e = Zeros(kC64, {0, 4});
  Tensor eo = Zeros(kC64, {0, 4});
  EXPECT_TRUE(Call("stablehlo.fft", Fft("FFT", {4}), {&e}, {&eo}).ok());
  Tensor x = TC(kC64, {2}, {{1, 0}, {2, 0}});
  Tensor y = Zeros(kC64, {2});
  EXPECT_FALSE(Call("stablehlo.fft", Fft("DCT", {2}), {&x}, {&y}).ok());
  EXPECT_FALSE(Call("stablehlo.fft", Fft("FFT", {3}), {&x}, {&y}).ok());
  EXPECT_FALSE(Call("stablehlo.fft", Fft("FFT", {}), {&x}, {&y}).ok());
  Tensor r = T(kF32, {2}, {1, 2});
  EXPECT_FALSE(Call("stablehlo.fft", Fft("FFT", {2}), {&r}, {&y}).ok());
  Tensor wrong = Zeros(kC64, {3});  // RFFT of length 2 has 2/2+1 = 2 outputs
  EXPECT_FALSE(Call("stablehlo.fft", Fft("RFFT", {2}), {&r}, {&wrong}).ok());
}

}  // namespace
}  // namespace kiln::ref::numeric_test

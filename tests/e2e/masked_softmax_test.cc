// Masked softmax, as attention writes it (a select of -inf-like values by a
// boolean mask, or an additive mask, before the reduce max), end to end: it
// compiles to one kiln.row_block dispatch (compiler/passes/fuse_elementwise.cc
// takes the mask into the reduces' input programs and the tail), matches a
// double-precision masked softmax and the unfused program bit for bit (f32
// and f64, odd sizes), and gives the same bits at 1, 2 and 4 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "tests/support/host_tensor_util.h"
#include "tests/support/counted_run.h"
#include "vm/context.h"

namespace kiln {
namespace {

constexpr int64_t kH = 3, kR = 37, kC = 41;  // heads, query rows, key columns

using Result = test::CountedRun;

Result CompileAndRun(const std::string& source, bool fuse, int threads, const std::vector<vm::HostTensor>& inputs) {
  return test::CompileAndRunCounted(source, inputs,
                                    {.fuse = fuse, .threads = threads, .file_name = "masked_softmax.mlir"});
}

// The softmax over the last axis of m, where m is the masked scores
// (MASK: the mask's element type and how it applies; E: the float type).
std::string Program(bool select, const std::string& e) {
  const std::string t = "tensor<3x37x41x" + e + ">", r = "tensor<3x37x" + e + ">", s = "tensor<" + e + ">";
  const std::string mt = select ? "tensor<37x41xi1>" : "tensor<37x41x" + e + ">";
  const std::string mbt = select ? "tensor<3x37x41xi1>" : t;
  std::string p = "func.func @main(%x: " + t + ", %mask: " + mt + ") -> " + t + " {\n";
  p += "  %mb = stablehlo.broadcast_in_dim %mask, dims = [1, 2] : (" + mt + ") -> " + mbt + "\n";
  if (select) {
    p += "  %big = stablehlo.constant dense<-1.0e+30> : " + s + "\n";
    p += "  %bb = stablehlo.broadcast_in_dim %big, dims = [] : (" + s + ") -> " + t + "\n";
    p += "  %m = stablehlo.select %mb, %x, %bb : " + mbt + ", " + t + "\n";
  } else {
    p += "  %m = stablehlo.add %x, %mb : " + t + "\n";
  }
  p += "  %lo = stablehlo.constant dense<0xFF800000> : tensor<f32>\n";
  if (e == "f64") p = p.replace(p.find("dense<0xFF800000> : tensor<f32>"), 31, "dense<0xFFF0000000000000> : tensor<f64>");
  p += "  %z = stablehlo.constant dense<0.0> : " + s + "\n";
  p += "  %mx = stablehlo.reduce(%m init: %lo) applies stablehlo.maximum across dimensions = [2] : (" + t + ", " + s +
       ") -> " + r + "\n";
  p += "  %mxb = stablehlo.broadcast_in_dim %mx, dims = [0, 1] : (" + r + ") -> " + t + "\n";
  p += "  %d = stablehlo.subtract %m, %mxb : " + t + "\n";
  p += "  %ex = stablehlo.exponential %d : " + t + "\n";
  p += "  %sm = stablehlo.reduce(%ex init: %z) applies stablehlo.add across dimensions = [2] : (" + t + ", " + s +
       ") -> " + r + "\n";
  p += "  %sb = stablehlo.broadcast_in_dim %sm, dims = [0, 1] : (" + r + ") -> " + t + "\n";
  p += "  %y = stablehlo.divide %ex, %sb : " + t + "\n";
  p += "  return %y : " + t + "\n}\n";
  return p;
}

template <typename T>
void Check(bool select, ElementType type, const std::string& e, double tol) {
  std::mt19937 rng(select ? 11 : 12);
  std::normal_distribution<double> nd(0, 3);
  std::bernoulli_distribution keep(0.7);
  std::vector<T> x(kH * kR * kC);
  for (auto& v : x) v = static_cast<T>(nd(rng));
  std::vector<double> mask(kR * kC);  // select: 1 keeps; add: 0 or -1e9
  for (int64_t i = 0; i < kR * kC; ++i) mask[i] = (keep(rng) || i % kC == i / kC % kC) ? 1 : 0;
  std::vector<double> expect(x.size());
  for (int64_t h = 0; h < kH; ++h)
    for (int64_t i = 0; i < kR; ++i) {
      const int64_t row = (h * kR + i) * kC;
      std::vector<double> m(kC);
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < kC; ++j) {
        const bool on = mask[i * kC + j] != 0;
        m[j] = select ? (on ? double(x[row + j]) : -1e30) : double(x[row + j]) + (on ? 0.0 : -1e9);
        mx = std::max(mx, m[j]);
      }
      for (int64_t j = 0; j < kC; ++j) sum += std::exp(m[j] - mx);
      for (int64_t j = 0; j < kC; ++j) expect[row + j] = std::exp(m[j] - mx) / sum;
    }
  std::vector<vm::HostTensor> in = {test::HostTensorOf(type, {kH, kR, kC}, x)};
  if (select) {
    std::vector<uint8_t> b(mask.begin(), mask.end());
    in.push_back(test::HostTensorOf(ElementType::kI1, {kR, kC}, b));
  } else {
    std::vector<T> a(mask.size());
    for (size_t i = 0; i < a.size(); ++i) a[i] = mask[i] != 0 ? T(0) : T(-1e9);
    in.push_back(test::HostTensorOf(type, {kR, kC}, a));
  }
  const std::string src = Program(select, e);
  const Result unfused = CompileAndRun(src, false, 1, in);
  ASSERT_EQ(unfused.outputs.size(), 1u);
  EXPECT_GT(unfused.dispatches, 1u);
  for (int threads : {1, 2, 4}) {
    const Result r = CompileAndRun(src, true, threads, in);
    EXPECT_EQ(r.dispatches, 1u) << "mask, max, exp, sum and divide in one row block";
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_EQ(r.outputs[0].data, unfused.outputs[0].data) << threads << " threads: bits differ from the unfused program";
    for (size_t i = 0; i < expect.size(); ++i) {
      T g;
      std::memcpy(&g, r.outputs[0].data.data() + i * sizeof(T), sizeof(T));
      ASSERT_NEAR(g, expect[i], tol) << "element " << i;
    }
  }
}

TEST(MaskedSoftmax, SelectMaskF32) { Check<float>(true, ElementType::kF32, "f32", 1e-6); }
TEST(MaskedSoftmax, SelectMaskF64) { Check<double>(true, ElementType::kF64, "f64", 1e-14); }
TEST(MaskedSoftmax, AdditiveMaskF32) { Check<float>(false, ElementType::kF32, "f32", 1e-6); }
TEST(MaskedSoftmax, AdditiveMaskF64) { Check<double>(false, ElementType::kF64, "f64", 1e-14); }

}  // namespace
}  // namespace kiln

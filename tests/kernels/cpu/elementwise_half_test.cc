// The fast convert between f32 and f16/bf16 of kiln.elementwise
// (kernels/cpu/elementwise_half.cc) against the reference, bit for bit:
// every 16-bit pattern widened; narrowed, f32 values at and around every
// rounding tie, overflow, subnormals, infinities and NaN payloads (signaling
// and quiet, payloads that vanish in 16 bits), and random bits; the pool.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu/registry.h"
#include "kernels/reference/registry.h"
#include "tests/kernels/cpu/test_pool.h"
#include "tests/kernels/tensor_test_util.h"

namespace kiln::cpu {
namespace {

using namespace ::kiln::test;

KernelParams Convert(ElementType from, ElementType to) {
  ScalarProgram p;
  p.param_types = {from};
  ScalarInstr i;
  i.op = ScalarOp::kConvert;
  i.type = to;
  i.num_operands = 1;
  i.operands[0] = 0;
  p.instrs.push_back(i);
  p.results = {1};
  return KernelParams{"kiln.elementwise", {Prog("body", p)}};
}

void CheckBits(const KernelParams& p, const Tensor& in, ElementType to) {
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  KernelFn ref = ref::FindReferenceKernel(p.kernel);
  Tensor want = Zeros(to, in.dims), got = want, threaded = want;
  std::memset(got.bytes.data(), 0x5A, got.bytes.size());
  Tensor x = in;
  TensorRef i[1] = {x.ref()};
  TensorRef w[1] = {want.ref()}, g[1] = {got.ref()}, t[1] = {threaded.ref()};
  ASSERT_TRUE(ref(KernelCall{p, i, w, nullptr}).ok());
  ASSERT_TRUE(fast(KernelCall{p, i, g, nullptr}).ok());
  ASSERT_TRUE(fast(KernelCall{p, i, t, TestPool()}).ok());
  const size_t eb = to == ElementType::kF32 ? 4 : 2;
  int bad = 0;
  for (size_t e = 0; e < want.bytes.size() / eb && bad < 10; ++e)
    if (std::memcmp(want.bytes.data() + e * eb, got.bytes.data() + e * eb, eb) != 0) {
      ++bad;
      uint32_t src = 0, wv = 0, gv = 0;
      std::memcpy(&src, in.bytes.data() + e * (eb == 4 ? 2 : 4), eb == 4 ? 2 : 4);
      std::memcpy(&wv, want.bytes.data() + e * eb, eb);
      std::memcpy(&gv, got.bytes.data() + e * eb, eb);
      ADD_FAILURE() << "element " << e << ": input bits " << std::hex << src << ", want " << wv << ", got " << gv;
    }
  EXPECT_EQ(threaded.bytes, got.bytes);
}

TEST(CpuElementwiseHalf, EverySixteenBitPatternWidened) {
  for (ElementType t : {ElementType::kF16, ElementType::kBF16}) {
    SCOPED_TRACE(t == ElementType::kF16 ? "f16" : "bf16");
    Tensor x = Zeros(t, {256, 256});
    for (uint32_t v = 0; v < 65536; ++v) std::memcpy(x.bytes.data() + 2 * v, &v, 2);
    CheckBits(Convert(t, ElementType::kF32), x, ElementType::kF32);
  }
}

TEST(CpuElementwiseHalf, NarrowedLikeTheReference) {
  std::vector<uint32_t> bits;
  // Around every rounding boundary of bf16 (16 dropped bits) and f16, at
  // every exponent: the tie, one below, one above, with even and odd kept
  // mantissas.
  for (uint32_t sign : {0u, 0x80000000u})
    for (uint32_t exp = 0; exp < 255; ++exp)
      for (uint32_t mant : {0u, 1u, 0x7FFFu, 0x8000u, 0x8001u, 0x18000u, 0x17FFFu, 0x1000u, 0x0FFFu, 0x1001u,
                            0x3000u, 0x7FFFFFu, 0x7FF000u, 0x7FE000u, 0x7FEFFFu, 0x400000u})
        bits.push_back(sign | (exp << 23) | mant);
  // f16's subnormals and the edges of its range: from 2^-26 up to 2^-13,
  // where 14 to 24 bits are dropped, the tie of every shift, one below and
  // one above, and the largest finite value's neighbourhood (65504, the
  // tie at 65520 that rounds to infinity).
  for (uint32_t exp = 100; exp <= 114; ++exp)
    for (uint32_t k = 0; k < 23; ++k)
      for (uint32_t mant : {1u << k, (1u << k) - 1, (1u << k) + 1, 3u << k, (3u << k) - 1, (3u << k) + 1})
        bits.push_back((exp << 23) | (mant & 0x7FFFFFu));
  for (uint32_t v = 0x477FE000u - 4; v <= 0x477FF000u + 4; ++v) bits.push_back(v);
  // Infinities and NaN: quiet, signaling, payloads only in the low bits
  // (vanishing in 16 bits), both signs.
  for (uint32_t v : {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFF800001u, 0x7F80FFFFu,
                     0x7FA00000u, 0x7F810000u, 0x7FFFFFFFu, 0xFFBFFFFFu})
    bits.push_back(v);
  std::mt19937 rng(12);
  while (bits.size() % 64 != 0 || bits.size() < 100000) bits.push_back(static_cast<uint32_t>(rng()));
  Tensor x = Zeros(ElementType::kF32, {static_cast<int64_t>(bits.size())});
  std::memcpy(x.bytes.data(), bits.data(), x.bytes.size());
  for (ElementType t : {ElementType::kBF16, ElementType::kF16}) {
    SCOPED_TRACE(t == ElementType::kF16 ? "f16" : "bf16");
    CheckBits(Convert(ElementType::kF32, t), x, t);
  }
}

TEST(CpuElementwiseHalf, BetweenSixteenBitTypesAndF64) {
  // f16 -> bf16 runs on the 16-bit program kernel (elementwise_float16.cc):
  // every pattern, the same bits; f64 keeps the reference.
  Tensor x = Zeros(ElementType::kF16, {256, 256});
  for (uint32_t v = 0; v < 65536; ++v) std::memcpy(x.bytes.data() + 2 * v, &v, 2);
  KernelFn fast = FindCpuKernel(Convert(ElementType::kF16, ElementType::kBF16));
  ASSERT_NE(fast, nullptr);
  const KernelParams p = Convert(ElementType::kF16, ElementType::kBF16);
  Tensor want = Zeros(ElementType::kBF16, x.dims), got = want;
  TensorRef i[1] = {x.ref()}, w[1] = {want.ref()}, g[1] = {got.ref()};
  ASSERT_TRUE(ref::FindReferenceKernel(p.kernel)(KernelCall{p, i, w, nullptr}).ok());
  ASSERT_TRUE(fast(KernelCall{p, i, g, nullptr}).ok());
  EXPECT_EQ(got.bytes, want.bytes);
  EXPECT_EQ(FindCpuKernel(Convert(ElementType::kF64, ElementType::kF16)), nullptr);
}

}  // namespace
}  // namespace kiln::cpu

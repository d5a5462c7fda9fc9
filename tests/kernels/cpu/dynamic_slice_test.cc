// The fast CPU dynamic_slice (kernels/cpu/indexing_dynamic_slice.cc) against
// the reference kernel, byte for byte: element types of 1, 2, 4 and 8 bytes,
// start index types si32, si64, ui8 and ui64 (huge values saturate), starts
// out of range on both sides (clamped), ranks 0 to 4 with odd sizes, slices
// that cut the innermost axis, whole trailing axes (one run), zero-sized
// results, large slices over the thread pool; and malformed calls, which
// must be refused (an error from the reference), never read out of bounds.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/registry.h"
#include "kernels/reference/registry.h"
#include "tests/kernels/cpu/test_pool.h"

namespace kiln::cpu {
namespace {

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

KernelParams Params(const std::vector<int64_t>& sizes) {
  KernelParams p;
  p.kernel = "stablehlo.dynamic_slice";
  KernelAttr a;
  a.name = "slice_sizes";
  a.ints = sizes;
  p.attrs.push_back(a);
  return p;
}

// One start index operand's storage (8 bytes, enough for every type).
struct Start {
  ElementType type;
  uint8_t bytes[8] = {};
};

Start MakeStart(ElementType it, int64_t v) {
  Start s{it};
  switch (it) {
    case ElementType::kSI32: { const int32_t x = static_cast<int32_t>(v); std::memcpy(s.bytes, &x, 4); break; }
    case ElementType::kSI64: std::memcpy(s.bytes, &v, 8); break;
    case ElementType::kUI8: s.bytes[0] = static_cast<uint8_t>(v); break;
    case ElementType::kUI64: { const uint64_t x = static_cast<uint64_t>(v); std::memcpy(s.bytes, &x, 8); break; }
    default: break;
  }
  return s;
}

void Check(const std::vector<int64_t>& operand, const std::vector<int64_t>& sizes, ElementType t, ElementType it,
           uint32_t seed) {
  SCOPED_TRACE(std::string(Name(t)) + " starts " + std::string(Name(it)) + " seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const KernelParams p = Params(sizes);
  std::vector<uint8_t> in(static_cast<size_t>(Count(operand)) * StorageBytes(t));
  for (auto& b : in) b = static_cast<uint8_t>(rng());
  // Starts from -3 to 3 past the end (ui8: from 0; ui64: now and then 2^64 - 1,
  // which saturates and clamps to the last valid start).
  std::vector<Start> starts;
  for (size_t d = 0; d < operand.size(); ++d) {
    int64_t v = static_cast<int64_t>(rng() % (operand[d] + 7)) - (it == ElementType::kUI8 || it == ElementType::kUI64 ? 0 : 3);
    if (it == ElementType::kUI64 && rng() % 4 == 0) v = -1;
    starts.push_back(MakeStart(it, v));
  }
  std::vector<TensorRef> ins = {{t, operand, in.data(), in.size()}};
  for (Start& s : starts) ins.push_back({it, {}, s.bytes, StorageBytes(it)});
  const size_t out_bytes = static_cast<size_t>(Count(sizes)) * StorageBytes(t);
  std::vector<uint8_t> got(out_bytes, 0xCD), threaded(out_bytes, 0xEF), want(out_bytes, 0);
  TensorRef g[1] = {{t, sizes, got.data(), got.size()}};
  TensorRef h[1] = {{t, sizes, threaded.data(), threaded.size()}};
  TensorRef w[1] = {{t, sizes, want.data(), want.size()}};
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  ASSERT_TRUE(ref::FindReferenceKernel(p.kernel)(KernelCall{p, ins, w}).ok());
  ASSERT_TRUE(fast(KernelCall{p, ins, g}).ok());
  ASSERT_TRUE(fast(KernelCall{p, ins, h, TestPool()}).ok());
  EXPECT_EQ(got, want);
  EXPECT_EQ(threaded, want);
}

TEST(CpuDynamicSlice, MatchesTheReference) {
  const std::vector<std::vector<int64_t>> cases[] = {
      // A scan's step: x[:, t, :] of [B, T, I] (the GRU's, odd sizes too).
      {{1, 32, 64}, {1, 1, 64}},
      {{5, 7, 13}, {5, 1, 13}},
      // The innermost axis cut; a middle axis cut with whole rows after it.
      {{9, 11}, {4, 5}},
      {{3, 8, 5, 7}, {2, 3, 5, 7}},
      {{3, 8, 5, 7}, {3, 8, 2, 7}},
      // Everything whole (one run), rank 1, rank 0, zero-sized, size == dim.
      {{4, 6}, {4, 6}},
      {{17}, {5}},
      {{}, {}},
      {{6, 9}, {0, 9}},
      {{6, 9}, {6, 0}},
      // Many rows over the pool: 300 runs of 1000 bytes and more.
      {{300, 4, 250}, {300, 1, 250}},
      {{1000, 1000}, {999, 333}},
  };
  uint32_t seed = 1;
  for (const auto& c : cases)
    for (ElementType t : {ElementType::kSI8, ElementType::kF16, ElementType::kF32, ElementType::kF64})
      for (ElementType it : {ElementType::kSI32, ElementType::kSI64, ElementType::kUI8, ElementType::kUI64})
        Check(c[0], c[1], t, it, seed++);
}

TEST(CpuDynamicSlice, MalformedCallsAreRefused) {
  const std::vector<int64_t> operand = {5, 7}, sizes = {2, 3};
  std::vector<float> in(35), out(6);
  int32_t s0 = 1, s1 = 2;
  TensorRef o[1] = {{ElementType::kF32, sizes, reinterpret_cast<uint8_t*>(out.data()), 24}};
  KernelParams p = Params(sizes);
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  // Operand storage smaller than its dims.
  {
    TensorRef ins[3] = {{ElementType::kF32, operand, reinterpret_cast<uint8_t*>(in.data()), 100},
                        {ElementType::kSI32, {}, reinterpret_cast<uint8_t*>(&s0), 4},
                        {ElementType::kSI32, {}, reinterpret_cast<uint8_t*>(&s1), 4}};
    EXPECT_FALSE(fast(KernelCall{p, ins, o}).ok());
  }
  // A start index operand missing, or with no storage, or of a float type.
  {
    TensorRef ins[2] = {{ElementType::kF32, operand, reinterpret_cast<uint8_t*>(in.data()), 140},
                        {ElementType::kSI32, {}, reinterpret_cast<uint8_t*>(&s0), 4}};
    EXPECT_FALSE(fast(KernelCall{p, ins, o}).ok());
  }
  {
    TensorRef ins[3] = {{ElementType::kF32, operand, reinterpret_cast<uint8_t*>(in.data()), 140},
                        {ElementType::kSI32, {}, reinterpret_cast<uint8_t*>(&s0), 4},
                        {ElementType::kSI32, {}, nullptr, 0}};
    EXPECT_FALSE(fast(KernelCall{p, ins, o}).ok());
  }
  {
    TensorRef ins[3] = {{ElementType::kF32, operand, reinterpret_cast<uint8_t*>(in.data()), 140},
                        {ElementType::kSI32, {}, reinterpret_cast<uint8_t*>(&s0), 4},
                        {ElementType::kF32, {}, reinterpret_cast<uint8_t*>(&s1), 4}};
    EXPECT_FALSE(fast(KernelCall{p, ins, o}).ok());
  }
  // Slice sizes larger than the operand, or not the result's dims.
  {
    TensorRef ins[3] = {{ElementType::kF32, operand, reinterpret_cast<uint8_t*>(in.data()), 140},
                        {ElementType::kSI32, {}, reinterpret_cast<uint8_t*>(&s0), 4},
                        {ElementType::kSI32, {}, reinterpret_cast<uint8_t*>(&s1), 4}};
    const std::vector<int64_t> big = {6, 3};
    KernelParams pb = Params(big);
    std::vector<float> ob(18);
    TensorRef obig[1] = {{ElementType::kF32, big, reinterpret_cast<uint8_t*>(ob.data()), 72}};
    EXPECT_FALSE(fast(KernelCall{pb, ins, obig}).ok());
    const std::vector<int64_t> other = {3, 2};
    TensorRef oo[1] = {{ElementType::kF32, other, reinterpret_cast<uint8_t*>(out.data()), 24}};
    EXPECT_FALSE(fast(KernelCall{p, ins, oo}).ok());
  }
}

}  // namespace
}  // namespace kiln::cpu

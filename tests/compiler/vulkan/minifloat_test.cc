// The float types narrower than 16 bits on the Vulkan device (kernels/
// vulkan/minifloat.glsl: f4E2M1FN, f6E2M3FN, f6E3M2FN and every f8 type)
// against the CPU device, bit for bit: arithmetic over every pair of
// encodings (NaNs, infinities, zeros and subnormals included), conversions
// from f32 across every rounding boundary of the type (ties, overflow,
// underflow), next_after, and a dot_general whose sums are exact in f32.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/scalar/float_format.h"
#include "kernels/scalar/scalar.h"
#include "tests/hal/vulkan/vulkan_test_fixture.h"

namespace kiln::vulkan_test {
namespace {

const char* const kMinifloats[] = {"f4E2M1FN",   "f6E2M3FN",      "f6E3M2FN", "f8E3M4",     "f8E4M3",   "f8E4M3FN",
                                   "f8E4M3FNUZ", "f8E4M3B11FNUZ", "f8E5M2",   "f8E5M2FNUZ", "f8E8M0FNU"};

// Every pair (i, j) of the n encodings of a type, as two byte vectors.
void AllPairs(int n, std::vector<uint8_t>* a, std::vector<uint8_t>* b) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) a->push_back(static_cast<uint8_t>(i)), b->push_back(static_cast<uint8_t>(j));
}

vm::HostTensor Bytes(ElementType t, std::vector<uint8_t> data) {
  vm::HostTensor h;
  h.type = t;
  h.dims = {static_cast<int64_t>(data.size())};
  h.data = std::move(data);
  return h;
}

// Compiles `src` for every target and expects each result of @main to be the
// same bytes on both devices, except that a NaN may carry another payload
// (which NaN an op on two of them returns is the hardware's choice).
void ExpectSameOnBothDevices(hal::Device* cpu, hal::Device* vulkan, const std::string& src,
                             const std::vector<vm::HostTensor>& inputs) {
  auto bytes = CompileAll(src);
  ASSERT_FALSE(bytes.empty());
  auto want = RunOn(cpu, bytes, "main", inputs);
  auto got = RunOn(vulkan, bytes, "main", inputs);
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(want->size(), got->size());
  for (size_t r = 0; r < want->size(); ++r) {
    const auto& w = (*want)[r].data;
    const auto& g = (*got)[r].data;
    ASSERT_EQ(w.size(), g.size()) << "result " << r;
    const size_t elem = w.size() / static_cast<size_t>(std::max<int64_t>(1, (*want)[r].NumElements()));
    const ElementType t = (*want)[r].type;
    for (size_t i = 0; i < w.size(); i += elem) {
      if (std::memcmp(w.data() + i, g.data() + i, elem) == 0) continue;
      const bool both_nan = IsFloat(t) && std::isnan(ref::LoadScalar(t, w.data() + i).re) &&
                            std::isnan(ref::LoadScalar(t, g.data() + i).re);
      ASSERT_TRUE(both_nan) << "result " << r << ", element " << i / elem << ": cpu " << ref::LoadScalar(t, w.data() + i).re
                            << " (byte 0x" << std::hex << int{w[i]} << "), vulkan " << std::dec
                            << ref::LoadScalar(t, g.data() + i).re << " (byte 0x" << std::hex << int{g[i]} << ")";
    }
  }
}

// Every pair (a, b) of encodings: +, -, *, /, maximum, a comparison, and of
// a: sqrt, negate, abs, exp, tanh, the value as f32 and reduce_precision
// (on the value's f32 encoding, rounded back, as the reference).
TEST_F(VulkanTest, MinifloatArithmeticMatchesCpuBitForBit) {
  for (const char* name : kMinifloats) {
    SCOPED_TRACE(name);
    const ElementType t = *ElementTypeFromName(name);
    const int n = 1 << BitWidth(t);
    std::vector<uint8_t> a, b;
    AllPairs(n, &a, &b);
    const std::string T = "tensor<" + std::to_string(n * n) + "x" + name + ">";
    const std::string src = "func.func @main(%a: " + T + ", %b: " + T + ") -> (" + T + ", " + T + ", " + T + ", " + T +
                            ", " + T + ", tensor<" + std::to_string(n * n) + "xi1>) {\n"
                            "  %0 = stablehlo.add %a, %b : " + T + "\n"
                            "  %1 = stablehlo.subtract %a, %b : " + T + "\n"
                            "  %2 = stablehlo.multiply %a, %b : " + T + "\n"
                            "  %3 = stablehlo.divide %a, %b : " + T + "\n"
                            "  %4 = stablehlo.maximum %a, %b : " + T + "\n"
                            "  %5 = stablehlo.compare LT, %a, %b : (" + T + ", " + T + ") -> tensor<" +
                            std::to_string(n * n) + "xi1>\n"
                            "  return %0, %1, %2, %3, %4, %5 : " + T + ", " + T + ", " + T + ", " + T + ", " + T +
                            ", tensor<" + std::to_string(n * n) + "xi1>\n}\n";
    ExpectSameOnBothDevices(cpu_.get(), vulkan_.get(), src, {Bytes(t, a), Bytes(t, b)});

    std::vector<uint8_t> all(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) all[i] = static_cast<uint8_t>(i);
    const std::string U = "tensor<" + std::to_string(n) + "x" + name + ">";
    const std::string F = "tensor<" + std::to_string(n) + "xf32>";
    const std::string unary = "func.func @main(%a: " + U + ") -> (" + U + ", " + U + ", " + U + ", " + U + ", " + U +
                              ", " + F + ", " + U + ") {\n"
                              "  %0 = stablehlo.sqrt %a : " + U + "\n"
                              "  %1 = stablehlo.negate %a : " + U + "\n"
                              "  %2 = stablehlo.abs %a : " + U + "\n"
                              "  %3 = stablehlo.exponential %a : " + U + "\n"
                              "  %4 = stablehlo.tanh %a : " + U + "\n"
                              "  %5 = stablehlo.convert %a : (" + U + ") -> " + F + "\n"
                              "  %6 = stablehlo.reduce_precision %a, format = e3m1 : " + U + "\n"
                              "  return %0, %1, %2, %3, %4, %5, %6 : " + U + ", " + U + ", " + U + ", " + U + ", " + U +
                              ", " + F + ", " + U + "\n}\n";
    ExpectSameOnBothDevices(cpu_.get(), vulkan_.get(), unary, {Bytes(t, all)});
  }
}

// f32 -> each type: every value of the type, the midpoints between
// neighbours and one f32 ulp either side of them (ties to even, the
// carry into the next binade, overflow past the largest finite value,
// underflow below the smallest), NaNs with payloads, infinities, zeros,
// f32 subnormals and random bits.
TEST_F(VulkanTest, MinifloatConversionsFromF32MatchCpuBitForBit) {
  std::mt19937 rng(20261202);
  for (const char* name : kMinifloats) {
    SCOPED_TRACE(name);
    const ElementType t = *ElementTypeFromName(name);
    const int n = 1 << BitWidth(t);
    std::vector<float> values;
    std::vector<double> finite;
    for (int i = 0; i < n; ++i) {
      uint8_t bits = static_cast<uint8_t>(i);
      const double v = ref::LoadScalar(t, &bits).re;
      if (std::isfinite(v)) finite.push_back(v);
    }
    std::sort(finite.begin(), finite.end());
    ref::FloatFormat f;
    ASSERT_TRUE(ref::FormatOf(t, &f));
    finite.push_back(finite.back() + std::ldexp(1.0, static_cast<int>(std::ilogb(finite.back())) - f.mbits));
    for (size_t i = 0; i < finite.size(); ++i) {
      values.push_back(static_cast<float>(finite[i]));
      if (i + 1 < finite.size()) {
        const float mid = static_cast<float>((finite[i] + finite[i + 1]) / 2);
        values.push_back(mid);
        values.push_back(std::nextafter(mid, -INFINITY));
        values.push_back(std::nextafter(mid, INFINITY));
      }
    }
    for (uint32_t special : {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x7fa00000u,
                             0x00000001u, 0x80400000u, 0x00800000u, 0x80000000u, 0x7f7fffffu})
      values.push_back(std::bit_cast<float>(special));
    for (int i = 0; i < 512; ++i) values.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
    for (int i = 0; i < 512; ++i)  // within the type's range
      values.push_back(std::ldexp(static_cast<float>(rng() % 2000) / 1000.0f - 1.0f,
                                  static_cast<int>(rng() % 24) - 12));
    vm::HostTensor x;
    x.type = ElementType::kF32;
    x.dims = {static_cast<int64_t>(values.size())};
    x.data.resize(values.size() * 4);
    std::memcpy(x.data.data(), values.data(), x.data.size());
    const std::string F = "tensor<" + std::to_string(values.size()) + "xf32>";
    const std::string T = "tensor<" + std::to_string(values.size()) + "x" + name + ">";
    const std::string src = "func.func @main(%x: " + F + ") -> " + T + " {\n  %0 = stablehlo.convert %x : (" + F +
                            ") -> " + T + "\n  return %0 : " + T + "\n}\n";
    ExpectSameOnBothDevices(cpu_.get(), vulkan_.get(), src, {x});
  }
}

// chlo.next_after between every pair of encodings (one step of the
// encoding; a type without negative zero steps to +0; f8E8M0FNU, unsigned
// and without zero, steps its exponent, past either end to NaN).
TEST_F(VulkanTest, MinifloatNextAfterMatchesCpuBitForBit) {
  for (const char* name : {"f4E2M1FN", "f6E3M2FN", "f8E4M3FN", "f8E4M3FNUZ", "f8E5M2", "f8E8M0FNU"}) {
    SCOPED_TRACE(name);
    const ElementType t = *ElementTypeFromName(name);
    const int n = 1 << BitWidth(t);
    std::vector<uint8_t> a, b;
    AllPairs(n, &a, &b);
    const std::string T = "tensor<" + std::to_string(n * n) + "x" + name + ">";
    const std::string src = "func.func @main(%a: " + T + ", %b: " + T + ") -> " + T + " {\n  %0 = chlo.next_after %a, %b : " +
                            T + ", " + T + " -> " + T + "\n  return %0 : " + T + "\n}\n";
    ExpectSameOnBothDevices(cpu_.get(), vulkan_.get(), src, {Bytes(t, a), Bytes(t, b)});
  }
}

// A dot_general of f8 operands into an f8 result, the operands' values
// between 1/8 and 8 in magnitude so that every sum is exact in f32 (the
// shader accumulates in f32, the reference in f64; both round once).
TEST_F(VulkanTest, MinifloatDotGeneralMatchesCpuBitForBit) {
  std::mt19937 rng(7);
  for (const char* name : {"f8E4M3FN", "f8E5M2", "f8E3M4", "f8E4M3"}) {
    SCOPED_TRACE(name);
    const ElementType t = *ElementTypeFromName(name);
    std::vector<uint8_t> pool;
    for (int i = 0; i < 256; ++i) {
      uint8_t bits = static_cast<uint8_t>(i);
      const double v = std::fabs(ref::LoadScalar(t, &bits).re);
      if (v >= 0.125 && v <= 8) pool.push_back(bits);
    }
    ASSERT_FALSE(pool.empty());
    auto random = [&](int64_t count) {
      std::vector<uint8_t> v(static_cast<size_t>(count));
      for (uint8_t& x : v) x = pool[rng() % pool.size()];
      return v;
    };
    vm::HostTensor lhs = Bytes(t, random(6 * 4)), rhs = Bytes(t, random(4 * 5));
    lhs.dims = {6, 4};
    rhs.dims = {4, 5};
    const std::string L = std::string("tensor<6x4x") + name + ">", R = std::string("tensor<4x5x") + name + ">",
                      O = std::string("tensor<6x5x") + name + ">";
    const std::string src = "func.func @main(%a: " + L + ", %b: " + R + ") -> " + O +
                            " {\n  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (" + L + ", " + R +
                            ") -> " + O + "\n  return %0 : " + O + "\n}\n";
    ExpectSameOnBothDevices(cpu_.get(), vulkan_.get(), src, {lhs, rhs});
  }
}

}  // namespace
}  // namespace kiln::vulkan_test

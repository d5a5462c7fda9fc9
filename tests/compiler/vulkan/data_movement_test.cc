// Data movement on the Vulkan device (compiler/vulkan/kernels_data_movement.cc)
// against the CPU device, bit for bit: bitcast_convert between element
// widths (wider to narrower and back, complex, i1 (one bit per element) and
// sub-byte integers, over random bit patterns, NaNs among the floats),
// dynamic_pad (negative, zero and positive edges, interior padding, i32 and
// i64 padding operands), and real_dynamic_slice (the result's shape from
// its index operands at run time).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/hal/vulkan/vulkan_test_fixture.h"

namespace kiln::vulkan_test {
namespace {

// "tensor<2x?x3xf32>": a negative dim is `?`.
std::string Shape(const std::vector<int64_t>& dims, const char* type) {
  std::string s = "tensor<";
  for (int64_t x : dims) s += (x < 0 ? std::string("?") : std::to_string(x)) + "x";
  return s + type + ">";
}

// A 1-D tensor of integer type `t` holding `v`.
vm::HostTensor Indices(ElementType t, const std::vector<int64_t>& v) {
  vm::HostTensor h;
  h.type = t;
  h.dims = {static_cast<int64_t>(v.size())};
  const size_t w = StorageBytes(t);
  h.data.resize(v.size() * w);
  for (size_t i = 0; i < v.size(); ++i) std::memcpy(&h.data[i * w], &v[i], w);  // little-endian low bytes
  return h;
}

TEST_F(VulkanTest, BitcastConvertBetweenWidthsMatchesCpu) {
  struct Case {
    const char* in;
    const char* out;
    int64_t k;  // narrow elements per wide one
  };
  const Case cases[] = {{"f64", "f32", 2},         {"f32", "ui8", 4},          {"i8", "i32", 4},
                        {"complex<f64>", "complex<f32>", 2}, {"complex<f32>", "complex<f64>", 2},
                        {"f64", "i1", 64},         {"i1", "i64", 64},          {"i32", "i4", 8},
                        {"ui4", "ui16", 4},        {"f16", "f32", 2},          {"ui64", "i16", 4},
                        {"i1", "ui8", 8},          {"bf16", "i1", 16}};
  std::mt19937_64 rng(20261202);
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.in) + " -> " + c.out);
    auto in_t = ElementTypeFromName(c.in), out_t = ElementTypeFromName(c.out);
    ASSERT_TRUE(in_t.has_value() && out_t.has_value());
    const bool widening = BitWidth(*out_t) > BitWidth(*in_t);
    const int64_t rows = 3, cols = 5;
    std::vector<int64_t> in_dims = {rows, cols}, out_dims = {rows, cols};
    (widening ? in_dims : out_dims).push_back(c.k);
    auto shape = [](const std::vector<int64_t>& d, const char* t) {
      std::string s = "tensor<";
      for (int64_t x : d) s += std::to_string(x) + "x";
      return s + t + ">";
    };
    const std::string it = shape(in_dims, c.in), ot = shape(out_dims, c.out);
    const std::string src = "func.func @main(%x: " + it + ") -> " + ot + " {\n  %r = stablehlo.bitcast_convert %x : (" +
                            it + ") -> " + ot + "\n  return %r : " + ot + "\n}\n";
    auto bytes = CompileAll(src, "vulkan");  // a single target: nothing may be refused
    ASSERT_FALSE(bytes.empty());
    vm::HostTensor x = RandomBits(*in_t, in_dims, rng);
    if (*in_t == ElementType::kI1)
      for (uint8_t& b : x.data) b &= 1;
    auto want = RunOn(cpu_.get(), bytes, "main", {x});
    auto got = RunOn(vulkan_.get(), bytes, "main", {x});
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ((*want)[0].data, (*got)[0].data);
  }
}

TEST_F(VulkanTest, DynamicPadMatchesCpu) {
  struct Case {
    const char* type;
    const char* index_type;
    std::vector<int64_t> dims, low, high, interior;
  };
  const Case cases[] = {{"f32", "i64", {2, 3}, {1, 0}, {2, 1}, {0, 1}},
                        {"i8", "i32", {4, 5}, {-1, 2}, {0, -2}, {2, 0}},
                        {"f64", "i64", {3}, {0}, {0}, {3}},
                        {"bf16", "i32", {2, 1, 3}, {1, 1, -1}, {1, 0, 2}, {1, 4, 1}}};
  std::mt19937_64 rng(9);
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.type) + " " + c.index_type);
    const size_t r = c.dims.size();
    std::vector<int64_t> out_dims(r);
    for (size_t d = 0; d < r; ++d)
      out_dims[d] = c.dims[d] + c.low[d] + c.high[d] + std::max<int64_t>(c.dims[d] - 1, 0) * c.interior[d];
    const std::string it = Shape(c.dims, c.type), ot = Shape(out_dims, c.type), vt = Shape({}, c.type),
                      pt = Shape({static_cast<int64_t>(r)}, c.index_type);
    const std::string src = "func.func @main(%x: " + it + ", %v: " + vt + ", %lo: " + pt + ", %hi: " + pt +
                            ", %in: " + pt + ") -> " + ot + " {\n  %r = stablehlo.dynamic_pad %x, %v, %lo, %hi, %in : (" +
                            it + ", " + vt + ", " + pt + ", " + pt + ", " + pt + ") -> " + ot + "\n  return %r : " + ot +
                            "\n}\n";
    auto bytes = CompileAll(src, "vulkan");
    ASSERT_FALSE(bytes.empty());
    auto et = ElementTypeFromName(c.type), pt_t = ElementTypeFromName(c.index_type);
    ASSERT_TRUE(et.has_value() && pt_t.has_value());
    auto ints = [&](const std::vector<int64_t>& v) { return Indices(*pt_t, v); };
    std::vector<vm::HostTensor> in = {RandomBits(*et, c.dims, rng), RandomBits(*et, {}, rng), ints(c.low),
                                      ints(c.high), ints(c.interior)};
    auto want = RunOn(cpu_.get(), bytes, "main", in);
    auto got = RunOn(vulkan_.get(), bytes, "main", in);
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ((*want)[0].data, (*got)[0].data);
  }
}

// real_dynamic_slice: the result's shape from the index operands at run
// time, starts and strides of every size (a stride past the dimension, a
// slice to the last element), i32 and i64 indices, bit for bit.
TEST_F(VulkanTest, RealDynamicSliceMatchesCpu) {
  struct Case {
    const char* type;
    const char* index_type;
    std::vector<int64_t> dims, start, limit, strides;
  };
  const Case cases[] = {{"f32", "i64", {10, 8}, {1, 2}, {7, 8}, {2, 3}},
                        {"i8", "i32", {5, 6, 7}, {0, 5, 1}, {5, 6, 7}, {1, 1, 4}},
                        {"f16", "ui32", {9}, {4}, {9}, {100}},
                        {"complex<f32>", "i32", {3, 4}, {0, 0}, {3, 4}, {1, 1}}};
  std::mt19937_64 rng(12);
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.type) + " " + c.index_type);
    const size_t r = c.dims.size();
    const std::string it = Shape(c.dims, c.type), ot = Shape(std::vector<int64_t>(r, -1), c.type),
                      pt = Shape({static_cast<int64_t>(r)}, c.index_type);
    const std::string src = "func.func @main(%x: " + it + ", %s: " + pt + ", %l: " + pt + ", %t: " + pt + ") -> " +
                            ot + " {\n  %r = stablehlo.real_dynamic_slice %x, %s, %l, %t : (" + it + ", " + pt + ", " +
                            pt + ", " + pt + ") -> " + ot + "\n  return %r : " + ot + "\n}\n";
    auto bytes = CompileAll(src, "vulkan");
    ASSERT_FALSE(bytes.empty());
    auto et = ElementTypeFromName(c.type), pt_t = ElementTypeFromName(c.index_type);
    ASSERT_TRUE(et.has_value() && pt_t.has_value());
    auto ints = [&](const std::vector<int64_t>& v) { return Indices(*pt_t, v); };
    std::vector<vm::HostTensor> in = {RandomBits(*et, c.dims, rng), ints(c.start), ints(c.limit), ints(c.strides)};
    auto want = RunOn(cpu_.get(), bytes, "main", in);
    auto got = RunOn(vulkan_.get(), bytes, "main", in);
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ((*want)[0].dims, (*got)[0].dims);
    EXPECT_EQ((*want)[0].data, (*got)[0].data);
  }
}

}  // namespace
}  // namespace kiln::vulkan_test

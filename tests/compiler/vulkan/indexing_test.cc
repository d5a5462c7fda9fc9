// The vulkan target's indexing shaders (compiler/vulkan/kernels_
// indexing.cc) against the CPU device, bit for bit: gather and scatter.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/hal/vulkan/vulkan_test_fixture.h"

namespace kiln::vulkan_test {
namespace {

// An embedding lookup (gather of rows, indices clamped when out of range),
// bit for bit against the CPU.
TEST_F(VulkanTest, GatherMatchesCpu) {
  const char* src = R"(
func.func @main(%table: tensor<50x16xf32>, %ids: tensor<9x1xi32>) -> tensor<9x16xf32> {
  %0 = "stablehlo.gather"(%table, %ids) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 16>} : (tensor<50x16xf32>, tensor<9x1xi32>) -> tensor<9x16xf32>
  return %0 : tensor<9x16xf32>
}
)";
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(13);
  std::vector<int32_t> ids = {0, 49, 50, -3, 7, 12, 1000, 25, 3};
  std::vector<vm::HostTensor> in = {RandomF32({50, 16}, rng), HostTensorOf(ElementType::kSI32, {9, 1}, ids)};
  auto want = RunOn(cpu_.get(), bytes, "main", in);
  auto got = RunOn(vulkan_.get(), bytes, "main", in);
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ((*want)[0].data, (*got)[0].data);
}

// scatter on the Vulkan device, bit-identical to the CPU over random inputs
// with duplicate, negative and out-of-range indices: window dims trailing
// (loop over the scatter indices) and leading (loop over every update
// element, with an order-sensitive overwrite), batching dims with i64
// indices, unsigned indices, and a variadic scatter.
TEST_F(VulkanTest, ScatterMatchesCpuBitForBit) {
  const char* src = R"(
func.func @trailing(%x: tensor<10x4xf32>, %i: tensor<12x1xi32>, %u: tensor<12x4xf32>) -> tensor<10x4xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<10x4xf32>, tensor<12x1xi32>, tensor<12x4xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}
func.func @leading(%x: tensor<5x8xi32>, %i: tensor<7x1xi32>, %u: tensor<3x7xi32>) -> tensor<5x8xi32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      stablehlo.return %b : tensor<i32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1],
      scatter_dims_to_operand_dims = [1], index_vector_dim = 1>} : (tensor<5x8xi32>, tensor<7x1xi32>, tensor<3x7xi32>) -> tensor<5x8xi32>
  return %0 : tensor<5x8xi32>
}
func.func @batching(%x: tensor<2x6x3xf32>, %i: tensor<2x4x1xi64>, %u: tensor<2x4x3xf32>) -> tensor<2x6x3xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.multiply %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [1],
      input_batching_dims = [0], scatter_indices_batching_dims = [0],
      scatter_dims_to_operand_dims = [1], index_vector_dim = 2>} : (tensor<2x6x3xf32>, tensor<2x4x1xi64>, tensor<2x4x3xf32>) -> tensor<2x6x3xf32>
  return %0 : tensor<2x6x3xf32>
}
func.func @variadic(%x: tensor<9xf32>, %y: tensor<9xi32>, %i: tensor<6xui32>, %u: tensor<6x2xf32>, %v: tensor<6x2xi32>) -> (tensor<9xf32>, tensor<9xi32>) {
  %0:2 = "stablehlo.scatter"(%x, %y, %i, %u, %v) ({
    ^bb0(%a: tensor<f32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<i32>):
      %m = stablehlo.maximum %a, %c : tensor<f32>
      %s = stablehlo.add %b, %d : tensor<i32>
      stablehlo.return %m, %s : tensor<f32>, tensor<i32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1],
      scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<9xf32>, tensor<9xi32>, tensor<6xui32>, tensor<6x2xf32>, tensor<6x2xi32>) -> (tensor<9xf32>, tensor<9xi32>)
  return %0#0, %0#1 : tensor<9xf32>, tensor<9xi32>
}
)";
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(17);
  auto tensor = [&](ElementType t, std::vector<int64_t> dims, int64_t lo, int64_t hi) {
    vm::HostTensor h;
    h.type = t;
    h.dims = std::move(dims);
    const size_t w = StorageBytes(t);
    std::uniform_int_distribution<int64_t> ints(lo, hi);
    std::normal_distribution<float> floats;
    for (int64_t k = 0; k < h.NumElements(); ++k) {
      uint8_t b[8] = {};
      if (t == ElementType::kF32) {
        float v = floats(rng);
        std::memcpy(b, &v, 4);
      } else {
        int64_t v = ints(rng);
        std::memcpy(b, &v, w);  // little-endian: the low bytes
      }
      h.data.insert(h.data.end(), b, b + w);
    }
    return h;
  };
  using E = ElementType;
  struct Case {
    const char* fn;
    std::vector<vm::HostTensor> inputs;
  };
  std::vector<Case> cases;
  for (int round = 0; round < 4; ++round) {
    cases.push_back({"trailing", {tensor(E::kF32, {10, 4}, 0, 0), tensor(E::kSI32, {12, 1}, -2, 11),
                                  tensor(E::kF32, {12, 4}, 0, 0)}});
    cases.push_back({"leading", {tensor(E::kSI32, {5, 8}, -100, 100), tensor(E::kSI32, {7, 1}, -3, 9),
                                 tensor(E::kSI32, {3, 7}, -100, 100)}});
    cases.push_back({"batching", {tensor(E::kF32, {2, 6, 3}, 0, 0), tensor(E::kSI64, {2, 4, 1}, -1, 7),
                                  tensor(E::kF32, {2, 4, 3}, 0, 0)}});
    cases.push_back({"variadic", {tensor(E::kF32, {9}, 0, 0), tensor(E::kSI32, {9}, -50, 50),
                                  tensor(E::kUI32, {6}, 0, 10), tensor(E::kF32, {6, 2}, 0, 0),
                                  tensor(E::kSI32, {6, 2}, -50, 50)}});
  }
  // Indices far outside (and the u32 values that are negative as i32).
  uint32_t far = 0xfffffffeu;
  std::memcpy(cases[3].inputs[2].data.data(), &far, 4);
  for (const Case& c : cases) {
    auto want = RunOn(cpu_.get(), bytes, c.fn, c.inputs);
    auto got = RunOn(vulkan_.get(), bytes, c.fn, c.inputs);
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_EQ(want->size(), got->size());
    for (size_t k = 0; k < want->size(); ++k) EXPECT_EQ((*want)[k].data, (*got)[k].data) << c.fn << " result " << k;
  }
}

}  // namespace
}  // namespace kiln::vulkan_test

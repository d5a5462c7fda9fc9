// The compiler's vulkan target as a whole (compiler/vulkan/target.cc):
// examples/mlp.mlir on both devices, and a function the target cannot
// compile, recorded as unavailable with its reason.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "tests/hal/vulkan/vulkan_test_fixture.h"

namespace kiln::vulkan_test {
namespace {

// examples/mlp.mlir (gen_mlp.py) on both devices: the same result within
// f32 tolerance, at batch 1 and 64.
TEST_F(VulkanTest, MlpMatchesCpu) {
  std::string mlir = std::string(KILN_BINARY_DIR) + "/vulkan_mlp_" + std::to_string(getpid()) + ".mlir";
  ASSERT_EQ(0, std::system(("python3 " + std::string(KILN_SOURCE_DIR) + "/examples/gen_mlp.py " + mlir).c_str()));
  auto bytes = CompileAll(ReadFile(mlir), "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(7);
  for (int batch : {1, 64}) {
    vm::HostTensor x = RandomF32({batch, 784}, rng, std::uniform_real_distribution<float>(0.0f, 1.0f));
    std::string fn = batch == 1 ? "main" : "main_b64";
    auto want = RunOn(cpu_.get(), bytes, fn, {x});
    auto got = RunOn(vulkan_.get(), bytes, fn, {x});
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_EQ((*got)[0].dims, (std::vector<int64_t>{batch, 10}));
    for (int i = 0; i < batch * 10; ++i) {
      float w, g;
      std::memcpy(&w, (*want)[0].data.data() + i * 4, 4);
      std::memcpy(&g, (*got)[0].data.data() + i * 4, 4);
      EXPECT_NEAR(g, w, 1e-5f) << "batch " << batch << " element " << i;
    }
  }
  std::remove(mlir.c_str());
}

// A function the vulkan target cannot compile: recorded as unavailable with
// --target=all (the CPU still runs it), refused by name on the Vulkan device,
// and a compile error with --target=vulkan.
TEST_F(VulkanTest, UnavailableFunctionIsRefusedWithItsReason) {
  const char* src = R"(
func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0:6 = stablehlo.custom_call @lapack_sgees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}} : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i32>, tensor<i32>)
  return %0#0 : tensor<2x2xf32>
}
)";
  auto bytes = CompileAll(src, "all");
  ASSERT_FALSE(bytes.empty());
  vm::HostTensor a;
  a.type = ElementType::kF32;
  a.dims = {2, 2};
  a.data.assign(16, 0);
  EXPECT_TRUE(RunOn(cpu_.get(), bytes, "main", {a}).ok());
  auto r = RunOn(vulkan_.get(), bytes, "main", {a});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(r.status().message().find("kiln.gees"), std::string::npos) << r.status().message();
  compiler::CompileOptions options;
  options.target = "vulkan";
  auto refused = compiler::Compile(src, "test.mlir", options, nullptr);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("kiln.gees"), std::string::npos) << refused.status().message();
}

}  // namespace
}  // namespace kiln::vulkan_test

// What stands between a module's shaders and the driver: the structural
// SPIR-V check (hal/vulkan/spirv_check.h) refuses a malformed shader when
// the module is opened, naming the kernel, even when checksums were skipped;
// and Vulkan errors name their VkResult.
#include <cstring>

#include "hal/vulkan/spirv_check.h"
#include "hal/vulkan/vulkan_core.h"
#include "tests/hal/vulkan/vulkan_test_fixture.h"

namespace kiln::vulkan_test {
namespace {

constexpr char kAdd[] = R"(
func.func public @main(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.add %a, %b : tensor<8xf32>
  return %0 : tensor<8xf32>
}
)";

// The SPIR-V of the add kernel's shader, as the compiler wrote it.
std::vector<uint32_t> AddShader() {
  auto module = vm::LoadModule(CompileAll(kAdd));
  EXPECT_TRUE(module.ok()) << module.status().message();
  if (!module.ok()) return {};
  for (const auto& shaders : (*module)->vulkan_shaders)
    if (!shaders.empty()) return shaders[0].spirv;
  ADD_FAILURE() << "no shader";
  return {};
}

// The word index of the first instruction with opcode `op`, or 0.
size_t FindOp(const std::vector<uint32_t>& w, uint32_t op) {
  for (size_t at = 5; at < w.size() && (w[at] >> 16) != 0; at += w[at] >> 16)
    if ((w[at] & 0xffff) == op) return at;
  return 0;
}

std::string Why(const std::vector<uint32_t>& words) { return hal::vk::CheckSpirvStructure(words).message(); }

TEST(SpirvStructure, CompiledShaderPasses) {
  auto w = AddShader();
  ASSERT_FALSE(w.empty());
  EXPECT_TRUE(hal::vk::CheckSpirvStructure(w).ok()) << Why(w);
}

TEST(SpirvStructure, MalformedShadersAreRefused) {
  const auto good = AddShader();
  ASSERT_GT(good.size(), 20u);
  auto w = good;
  w[0] = 0;
  EXPECT_NE(Why(w).find("magic"), std::string::npos) << Why(w);
  w = good;
  w[1] = 0x00020000;  // SPIR-V 2.0
  EXPECT_NE(Why(w).find("version"), std::string::npos) << Why(w);
  w = good;
  w[3] = 0;
  EXPECT_NE(Why(w).find("id bound"), std::string::npos) << Why(w);
  w = good;
  w[5] = (0xffffu << 16) | (w[5] & 0xffff);  // a word count past the end
  EXPECT_NE(Why(w).find("runs past the end"), std::string::npos) << Why(w);
  w = good;
  w[5] &= 0xffff;  // a word count of 0
  EXPECT_NE(Why(w).find("runs past the end"), std::string::npos) << Why(w);
  w = good;
  size_t fn = FindOp(w, 54);  // OpFunction: result type, result id
  ASSERT_GT(fn, 0u);
  w[fn + 2] = good[3];  // the id bound itself
  EXPECT_NE(Why(w).find("outside the id bound"), std::string::npos) << Why(w);
  w = good;
  w[fn + 2] = w[fn + 1];  // redefines the type's id
  EXPECT_NE(Why(w).find("defined twice"), std::string::npos) << Why(w);
  w = good;
  size_t entry = FindOp(w, 15);  // OpEntryPoint GLCompute %main "main"
  ASSERT_GT(entry, 0u);
  w[entry + 3] ^= 0x20;  // "Main"
  EXPECT_NE(Why(w).find("entry point named 'main'"), std::string::npos) << Why(w);
}

// With checksums skipped (a "trusted" file that is not), a shader whose
// structure is broken is refused when the module is opened on the device,
// naming the kernel (the add is a fused elementwise dispatch), before the
// driver sees it.
TEST_F(VulkanTest, MalformedShaderIsRefusedAtOpenNamingTheKernel) {
  auto bytes = CompileAll(kAdd);
  auto good = AddShader();
  ASSERT_FALSE(good.empty());
  // Find the shader's words in the file and break its first instruction.
  size_t at = 0;
  for (size_t i = 0; i + good.size() * 4 <= bytes.size() && !at; i += 4)
    if (std::memcmp(bytes.data() + i, good.data(), good.size() * 4) == 0) at = i;
  ASSERT_GT(at, 0u);
  uint32_t word = good[5] & 0xffff;
  std::memcpy(bytes.data() + at + 20, &word, 4);
  EXPECT_FALSE(vm::LoadModule(bytes).ok()) << "the checksum should refuse it";
  vm::LoadOptions trusted;
  trusted.verify_checksums = false;
  auto module = vm::LoadModule(bytes, trusted);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto ctx = vm::Context::Create(*module, vulkan_.get());
  ASSERT_FALSE(ctx.ok());
  EXPECT_NE(ctx.status().message().find("the module's shader for kiln.elementwise is invalid (corrupted file?)"),
            std::string::npos)
      << ctx.status().message();
}

// A shader's texel inputs (ShaderVariant::texel_inputs) must name inputs it
// has and come with the kTexelInputs feature; the driver refuses anything
// else before creating a pipeline, so a bad variant never binds too little.
TEST_F(VulkanTest, MalformedTexelInputsAreRefused) {
  auto module = vm::LoadModule(CompileAll(R"(
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
)"));
  ASSERT_TRUE(module.ok()) << module.status().message();
  const hal::ShaderVariant* blocked = nullptr;
  for (const auto& shaders : (*module)->vulkan_shaders)
    for (const auto& v : shaders)
      if (v.texel_inputs != 0) blocked = &v;
  ASSERT_NE(blocked, nullptr) << "the f32 dot_general reads texel inputs";
  EXPECT_EQ(blocked->texel_inputs, 0b11u);
  EXPECT_NE(blocked->features & hal::kTexelInputs, 0u);
  auto prepare = [&](const hal::ShaderVariant& v) {
    hal::ExecutableSpec spec{"stablehlo.dot_general", {}};
    spec.Add(hal::kVulkanShaderFormat, std::make_shared<const std::vector<hal::ShaderVariant>>(1, v));
    return vulkan_->PrepareExecutable(spec).status();
  };
  EXPECT_TRUE(prepare(*blocked).ok()) << prepare(*blocked).message();
  hal::ShaderVariant v = *blocked;
  v.texel_inputs = 0b100;  // a third input it does not have
  Status s = prepare(v);
  EXPECT_NE(s.message().find("malformed Vulkan texel inputs"), std::string::npos) << s.message();
  v = *blocked;
  v.features &= ~uint32_t{hal::kTexelInputs};
  s = prepare(v);
  EXPECT_NE(s.message().find("malformed Vulkan texel inputs"), std::string::npos) << s.message();
}

TEST(VulkanErrors, NameTheResult) {
  EXPECT_EQ(hal::vk::VkResultName(VK_ERROR_UNKNOWN), "VK_ERROR_UNKNOWN (-13)");
  EXPECT_EQ(hal::vk::VkResultName(VK_ERROR_OUT_OF_DEVICE_MEMORY), "VK_ERROR_OUT_OF_DEVICE_MEMORY (-2)");
  EXPECT_EQ(hal::vk::VkResultName(static_cast<VkResult>(-123456)), "VkResult -123456");
  Status s = hal::vk::VkError(VK_ERROR_UNKNOWN, "creating a compute pipeline");
  EXPECT_EQ(s.message(), "creating a compute pipeline: Vulkan error VK_ERROR_UNKNOWN (-13)");
  s = hal::vk::VkError(VK_ERROR_OUT_OF_HOST_MEMORY, "allocating");
  EXPECT_EQ(s.message(), "allocating: out of host memory (VK_ERROR_OUT_OF_HOST_MEMORY (-1))");
}

}  // namespace
}  // namespace kiln::vulkan_test

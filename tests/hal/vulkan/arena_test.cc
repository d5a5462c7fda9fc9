// Memory planning on the Vulkan device (docs/memory.md): arena views are
// byte offsets into one device buffer per activation, which the parameter
// block carries to every shader. The models of tests/data/models, planned,
// with KILN_ARENA_POISON=1 (every view filled with 0xff on the queue as its
// tensor's life begins), give bit for bit the unplanned module's results on
// Vulkan, twice in one context (the second call's arena is a new buffer
// while the first call's may still be referenced by finished work).
#include <cstdlib>

#include "tests/hal/vulkan/vulkan_test_fixture.h"

namespace kiln::vulkan_test {
namespace {

std::vector<uint8_t> Compile(const std::string& source, bool plan) {
  compiler::CompileOptions options;
  options.plan_memory = plan;
  auto bytes = compiler::Compile(source, "model.mlir", options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  return bytes.ok() ? bytes.value() : std::vector<uint8_t>{};
}

StatusOr<std::vector<std::vector<vm::HostTensor>>> RunTwice(hal::Device* device, const std::vector<uint8_t>& bytes,
                                                            const std::vector<vm::HostTensor>& inputs) {
  auto module = vm::LoadModule(bytes);
  if (!module.ok()) return module.status();
  auto ctx = vm::Context::Create(*module, device);
  if (!ctx.ok()) return ctx.status();
  std::vector<std::vector<vm::HostTensor>> out;
  for (int k = 0; k < 2; ++k) {
    auto r = (*ctx)->Invoke("main", inputs);
    if (!r.ok()) return r.status();
    out.push_back(std::move(r.value()));
  }
  return out;
}

TEST_F(VulkanTest, PlannedModelsWithPoisonMatchUnplanned) {
  std::mt19937 rng(7);
  const std::string dir = KILN_TEST_DATA_DIR "/models/";
  struct Model {
    std::string file;
    std::vector<std::vector<int64_t>> shapes;
  } models[] = {
      {"transformer_block.mlir", {{16, 64}, {64, 64}, {64, 64}, {64, 64}, {64, 64}, {64, 256}, {256, 64}}},
      {"small_convnet.mlir", {{1, 32, 32, 3}, {3, 3, 3, 16}, {16}, {3, 3, 16, 16}, {16}, {3, 3, 16, 32}, {32, 10}}},
  };
  for (const auto& m : models) {
    std::vector<vm::HostTensor> inputs;
    for (const auto& s : m.shapes) inputs.push_back(RandomF32(s, rng, std::normal_distribution<float>(0.0f, 0.2f)));
    const std::string source = ReadFile(dir + m.file);
    auto want = RunTwice(vulkan_.get(), Compile(source, false), inputs);
    ASSERT_TRUE(want.ok()) << want.status().message();
    setenv("KILN_ARENA_POISON", "1", 1);
    auto got = RunTwice(vulkan_.get(), Compile(source, true), inputs);
    unsetenv("KILN_ARENA_POISON");
    ASSERT_TRUE(got.ok()) << got.status().message();
    for (int k = 0; k < 2; ++k) {
      ASSERT_EQ((*got)[k].size(), 1u);
      EXPECT_EQ((*got)[k][0].data, (*want)[0][0].data) << m.file << " call " << k;
    }
  }
}

}  // namespace
}  // namespace kiln::vulkan_test

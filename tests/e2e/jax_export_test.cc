// Programs as JAX exports them, through the C++ API: one with Shardy
// shardings and dense_resource weights (tests/data/jax/
// sharded_dense_resource.mlir) runs unpartitioned to the values computed
// here independently; a shape assertion fails the call with JAX's message
// as an InvalidArgument status; the platform index binds to cpu's.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "tests/support/host_tensor_util.h"
#include "vm/context.h"

namespace kiln {
namespace {

TEST(JaxExport, ShardedDenseResourceProgramRuns) {
  const std::string path = std::string(KILN_SOURCE_DIR) + "/tests/data/jax/sharded_dense_resource.mlir";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path;
  std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  compiler::CompileOptions options;
  options.target = "cpu";
  std::vector<std::string> warnings;
  auto bytes = compiler::Compile(source, path, options, &warnings);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  EXPECT_TRUE(warnings.empty());
  auto module = vm::LoadModule(*bytes);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto device = hal::CreateCpuDevice(hal::CpuModeFromEnvironment());
  auto ctx = vm::Context::Create(*module, device.get());
  ASSERT_TRUE(ctx.ok()) << ctx.status().message();
  const std::vector<float> x = {1, 1, 2, 0, 0, 3, -1, 1};  // 4x2
  const float w[2][3] = {{1, 2, 3}, {4, 5, 6}};
  const float b[3] = {0.5f, -1, 2};
  auto r = (*ctx)->Invoke("main", {test::HostTensorOf(ElementType::kF32, {4, 2}, x)});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ((*r)[0].dims, (std::vector<int64_t>{4, 3}));
  std::vector<float> got(12);
  std::memcpy(got.data(), (*r)[0].data.data(), 48);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(got[i * 3 + j], x[i * 2] * w[0][j] + x[i * 2 + 1] * w[1][j] + b[j]) << i << "," << j;
}

std::string ReadSource(const std::string& name) {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/data/jax/" + name, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Compiles tests/data/jax/NAME for the CPU and opens a context on it.
std::unique_ptr<vm::Context> OpenJax(const std::string& name, const compiler::CompileOptions& options,
                                     std::unique_ptr<hal::Device>* device, std::shared_ptr<const vm::LoadedModule>* module) {
  auto bytes = compiler::Compile(ReadSource(name), name, options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  if (!bytes.ok()) return nullptr;
  auto m = vm::LoadModule(*bytes);
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (!m.ok()) return nullptr;
  *module = *m;
  *device = hal::CreateCpuDevice(hal::CpuModeFromEnvironment());
  auto ctx = vm::Context::Create(*module, device->get());
  EXPECT_TRUE(ctx.ok()) << ctx.status().message();
  return ctx.ok() ? std::move(*ctx) : nullptr;
}

TEST(JaxExport, ShapeAssertionFailsTheCallWithJaxsMessage) {
  compiler::CompileOptions options;
  options.target = "cpu";
  std::unique_ptr<hal::Device> device;
  std::shared_ptr<const vm::LoadedModule> module;
  auto ctx = OpenJax("shape_assertion.mlir", options, &device, &module);
  ASSERT_TRUE(ctx);
  auto ok = ctx->Invoke("main", {test::HostTensorOf(ElementType::kF32, {2, 3}, std::vector<float>(6, 1.5f))});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ((*ok)[0].dims, (std::vector<int64_t>{2, 3}));
  auto bad = ctx->Invoke("main", {test::HostTensorOf(ElementType::kF32, {1, 3}, std::vector<float>(3, 1.5f))});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  const std::string& m = bad.status().message();
  EXPECT_NE(m.find("shape_assertion.mlir:11:5: Input shapes do not match the polymorphic shapes specification. "
                   "Expected value >= 2 for dimension variable 'b'."),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("'b' = 1 from specification 'b' for dimension args[0].shape[0] (= 1), ."), std::string::npos) << m;
  // The context stays usable after the failed call.
  auto again = ctx->Invoke("main", {test::HostTensorOf(ElementType::kF32, {4, 3}, std::vector<float>(12, 1.0f))});
  ASSERT_TRUE(again.ok()) << again.status().message();
}

TEST(JaxExport, PlatformIndexBindsToCpusPosition) {
  for (const auto& [platforms, added] :
       std::vector<std::pair<std::vector<std::string>, float>>{{{"cpu", "cuda", "tpu"}, 2}, {{"cuda", "tpu", "cpu"}, 4}}) {
    compiler::CompileOptions options;
    options.target = "cpu";
    options.platforms = platforms;
    std::unique_ptr<hal::Device> device;
    std::shared_ptr<const vm::LoadedModule> module;
    auto ctx = OpenJax("platform_index.mlir", options, &device, &module);
    ASSERT_TRUE(ctx);
    auto r = ctx->Invoke("main", {test::HostTensorOf(ElementType::kF32, {3}, std::vector<float>{1, 2, 3})});
    ASSERT_TRUE(r.ok()) << r.status().message();
    std::vector<float> got(3);
    std::memcpy(got.data(), (*r)[0].data.data(), 12);
    EXPECT_EQ(got, (std::vector<float>{1 + added, 2 + added, 3 + added})) << platforms[0];
  }
}

}  // namespace
}  // namespace kiln

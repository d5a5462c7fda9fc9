// A program as JAX prints it with Shardy shardings and dense_resource
// weights (tests/data/jax/sharded_dense_resource.mlir): it compiles, and the
// CPU runs it unpartitioned to the values computed here independently.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
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

}  // namespace
}  // namespace kiln

// Weights packed once and plans kept per executable (docs/kernels.md,
// "Per-executable state"), end to end through the VM on both CPU driver
// modes: a constant weight of odd size, a module's inline constants (read in
// place from the module bytes) and external weights (a bound parameter file)
// are each packed once over several calls, and every call's result is
// bit-identical to the same call with the state off (KILN_KERNEL_STATE=0:
// planned and packed afresh per dispatch). Neither a dispatch nor an upload
// may write a constant, whose packed copy would then be stale.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "kernels/cpu/gemm.h"
#include "tests/support/host_tensor_util.h"
#include "tests/support/scoped_env.h"
#include "vm/context.h"
#include "vm/parameters.h"

namespace kiln {
namespace {

// @layer: x[9, 37] . W[37, 29] + b, W and b constants with random values.
std::string LayerSource(std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::ostringstream w, b;
  w.precision(9);
  b.precision(9);
  w << "[";
  for (int i = 0; i < 37; ++i) {
    w << (i ? ", [" : "[");
    for (int j = 0; j < 29; ++j) w << (j ? ", " : "") << u(rng);
    w << "]";
  }
  w << "]";
  b << "[";
  for (int j = 0; j < 29; ++j) b << (j ? ", " : "") << u(rng);
  b << "]";
  return "func.func public @layer(%x: tensor<9x37xf32>) -> tensor<9x29xf32> {\n"
         "  %w = stablehlo.constant dense<" + w.str() + "> : tensor<37x29xf32>\n"
         "  %b = stablehlo.constant dense<" + b.str() + "> : tensor<29xf32>\n"
         "  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<9x37xf32>, tensor<37x29xf32>) -> tensor<9x29xf32>\n"
         "  %1 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<29xf32>) -> tensor<9x29xf32>\n"
         "  %2 = stablehlo.add %0, %1 : tensor<9x29xf32>\n"
         "  return %2 : tensor<9x29xf32>\n"
         "}\n";
}

std::vector<uint8_t> CompileOrDie(const std::string& source, std::vector<uint8_t>* params = nullptr,
                                  std::optional<uint64_t> externalize = std::nullopt) {
  compiler::CompileOptions options;
  options.target = "cpu";
  options.externalize_min_bytes = externalize;
  auto b = compiler::Compile(source, "packed.mlir", options, nullptr, 1, params);
  EXPECT_TRUE(b.ok()) << b.status().message();
  return b.ok() ? *b : std::vector<uint8_t>{};
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Runs `function` on each input in one context (state on) and in another
// with the state off; the results must be the same bits, and the context
// with state must pack exactly `packs` constants over all the calls.
void CheckPackedOnce(const std::shared_ptr<const vm::LoadedModule>& m, hal::CpuMode mode, const std::string& function,
                     const std::vector<vm::HostTensor>& inputs, uint64_t packs) {
  auto device = hal::CreateCpuDevice(mode, 2);
  std::unique_ptr<vm::Context> plain;
  {
    test::ScopedEnv off("KILN_KERNEL_STATE", "0");  // read as the executables are prepared
    auto ctx = vm::Context::Create(m, device.get());
    ASSERT_TRUE(ctx.ok()) << ctx.status().message();
    plain = std::move(*ctx);
  }
  auto ctx = vm::Context::Create(m, device.get());
  ASSERT_TRUE(ctx.ok()) << ctx.status().message();
  const uint64_t before = cpu::WholeBPacks();
  for (size_t i = 0; i < inputs.size(); ++i) {
    SCOPED_TRACE("call " + std::to_string(i));
    auto want = plain->Invoke(function, {inputs[i]});
    ASSERT_TRUE(want.ok()) << want.status().message();
    const uint64_t plain_packs = cpu::WholeBPacks();
    auto got = (*ctx)->Invoke(function, {inputs[i]});
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(plain_packs, cpu::WholeBPacks() - (i == 0 ? packs : 0)) << "packed on the first call only";
    ASSERT_EQ(got->size(), 1u);
    EXPECT_EQ((*got)[0].dims, (*want)[0].dims);
    EXPECT_EQ((*got)[0].data, (*want)[0].data) << "the packed weights change the result";
  }
  EXPECT_EQ(cpu::WholeBPacks() - before, packs);
  EXPECT_GT(device->stats().kernel_state_bytes, 0u) << "the packed copies count as device memory";
}

class PackedWeights : public ::testing::TestWithParam<hal::CpuMode> {};

TEST_P(PackedWeights, OddSizedConstantPackedOnceAndBitIdentical) {
  std::mt19937 rng(19);
  auto m = vm::LoadModule(CompileOrDie(LayerSource(rng)));
  ASSERT_TRUE(m.ok()) << m.status().message();
  std::vector<vm::HostTensor> inputs;
  for (int i = 0; i < 4; ++i) inputs.push_back(test::RandomF32({9, 37}, rng));
  CheckPackedOnce(*m, GetParam(), "layer", inputs, 1);
}

TEST_P(PackedWeights, MlpInlineAndExternalWeightsPackedOnce) {
  const std::string source = ReadText(KILN_TEST_MLP_MLIR);
  ASSERT_FALSE(source.empty());
  std::mt19937 rng(20);
  std::vector<vm::HostTensor> inputs;
  for (int i = 0; i < 3; ++i) inputs.push_back(test::RandomF32({64, 784}, rng));
  // Inline: the two weight matrices of @main_b64 (784x128, 128x10).
  auto inline_m = vm::LoadModule(CompileOrDie(source));
  ASSERT_TRUE(inline_m.ok()) << inline_m.status().message();
  CheckPackedOnce(*inline_m, GetParam(), "main_b64", inputs, 2);
  // External weights: the same through a bound parameter file.
  std::vector<uint8_t> params;
  const std::vector<uint8_t> module = CompileOrDie(source, &params, 1024);
  ASSERT_FALSE(params.empty());
  char name[] = "/tmp/kiln_packed_XXXXXX";
  const int fd = mkstemp(name);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, params.data(), params.size()), static_cast<ssize_t>(params.size()));
  close(fd);
  auto set = std::make_shared<vm::ParameterSet>();
  ASSERT_TRUE(set->AddSpec(name).ok());
  vm::LoadOptions o;
  o.parameters = set;
  auto ext_m = vm::LoadModule(module, o);
  EXPECT_TRUE(ext_m.ok()) << ext_m.status().message();
  if (ext_m.ok()) CheckPackedOnce(*ext_m, GetParam(), "main_b64", inputs, 2);
  unlink(name);
}

TEST_P(PackedWeights, ConstantBuffersAreNeverWritten) {
  auto device = hal::CreateCpuDevice(GetParam(), 1);
  // A constant the VM copied into device memory (an unaligned one) is
  // writable memory, but marked: the driver refuses to write it.
  auto buffer = device->Allocate(16);
  ASSERT_TRUE(buffer.ok());
  (*buffer)->MarkConstant();
  const uint64_t id = (*buffer)->constant_id();
  EXPECT_NE(id, 0u);
  (*buffer)->MarkConstant();
  EXPECT_EQ((*buffer)->constant_id(), id) << "marking twice keeps the id";
  const float four[4] = {1, 2, 3, 4};
  const Status up = device->Upload(**buffer, 0, four, sizeof(four));
  EXPECT_FALSE(up.ok());
  EXPECT_NE(up.message().find("read-only"), std::string::npos) << up.message();
  auto source = device->AllocateCopy(four, sizeof(four));
  ASSERT_TRUE(source.ok());
  hal::BufferView from{ElementType::kF32, {4}, *source, 0}, to{ElementType::kF32, {4}, *buffer, 0};
  auto commands = device->CreateCommandBuffer();
  commands->Copy(from, to);
  auto done = device->CreateSemaphore(0);
  ASSERT_TRUE(device->Submit(std::move(commands), {}, {done, 1}).ok());
  const Status s = done->Wait(1, std::chrono::milliseconds(10000));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("read-only"), std::string::npos) << s.message();
}

INSTANTIATE_TEST_SUITE_P(CpuModes, PackedWeights, ::testing::Values(hal::CpuMode::kInline, hal::CpuMode::kDeferred),
                         [](const auto& info) { return info.param == hal::CpuMode::kInline ? "Inline" : "Deferred"; });

}  // namespace
}  // namespace kiln

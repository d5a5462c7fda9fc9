// Quantized programs of tests/data/ops/quantized_ops.mlir (expected values
// from numpy and the spec's dequantize/quantize definitions, written by
// tests/data/ops/gen_quantized_ops.py) with fusion on and off: the
// quantized legalization (compiler/passes/legalize_quantized_ops.cc), the
// storage-moving kernels, the quantized region bodies and the elementwise
// scalar programs must give the same stored integers either way.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "compiler/parse/parser.h"
#include "hal/cpu/cpu_device.h"
#include "vm/context.h"

namespace kiln {
namespace {

std::vector<std::string> RunChecks(bool fuse, int* functions) {
  const std::string path = KILN_SOURCE_DIR "/tests/data/ops/quantized_ops.mlir";
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::vector<std::string> failures;
  compiler::CompileOptions options;
  options.target = "cpu";
  options.fuse = fuse;
  for (const auto& chunk : ir::SplitChunks(ss.str())) {
    auto bytes = compiler::Compile(chunk.text, path, options, nullptr, chunk.first_line);
    if (!bytes.ok()) {
      failures.push_back(bytes.status().message());
      continue;
    }
    auto module = vm::LoadModule(*bytes);
    if (!module.ok()) {
      failures.push_back(module.status().message());
      continue;
    }
    auto device = hal::CreateCpuDevice(hal::CpuModeFromEnvironment());
    auto ctx = vm::Context::Create(*module, device.get());
    if (!ctx.ok()) {
      failures.push_back(ctx.status().message());
      continue;
    }
    for (const auto& fn : (*module)->functions) {
      if (!fn.is_public || !fn.args.empty()) continue;
      ++*functions;
      (*ctx)->ClearCheckFailures();
      auto r = (*ctx)->Invoke(fn.name, {});
      if (!r.ok()) failures.push_back(fn.name + ": " + r.status().message());
      for (const auto& f : (*ctx)->check_failures()) failures.push_back(fn.name + ": " + f);
    }
  }
  return failures;
}

TEST(QuantizedOps, MatchTheSpecDefinitionFused) {
  int functions = 0;
  for (const auto& f : RunChecks(true, &functions)) ADD_FAILURE() << f;
  EXPECT_EQ(functions, 19);
}

TEST(QuantizedOps, MatchTheSpecDefinitionUnfused) {
  int functions = 0;
  for (const auto& f : RunChecks(false, &functions)) ADD_FAILURE() << f;
  EXPECT_EQ(functions, 19);
}

// A quantized op whose spec definition the compiler cannot apply is refused
// by name, not run wrongly: all_reduce's region on quantized values is not
// rewritten.
TEST(QuantizedOps, AnOpOutsideTheTableIsRefusedByName) {
  const char* src = R"(
func.func @main(%a: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {
  %r = "stablehlo.all_reduce"(%a) ({
    ^bb0(%x: tensor<!quant.uniform<i8:f32, 0.5>>, %y: tensor<!quant.uniform<i8:f32, 0.5>>):
      %s = stablehlo.add %x, %y : tensor<!quant.uniform<i8:f32, 0.5>>
      stablehlo.return %s : tensor<!quant.uniform<i8:f32, 0.5>>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
  return %r : tensor<4x!quant.uniform<i8:f32, 0.5>>
})";
  compiler::CompileOptions options;
  options.target = "cpu";
  auto bytes = compiler::Compile(src, "q.mlir", options, nullptr);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("stablehlo.all_reduce"), std::string::npos) << bytes.status().message();
}

}  // namespace
}  // namespace kiln

// Quantized programs of tests/data/ops/quantized_ops.mlir (expected values
// from numpy and the spec's dequantize/quantize definitions, written by
// tests/data/ops/gen_quantized_ops.py) with fusion on and off: the
// quantized legalization (compiler/passes/legalize_quantized_ops.cc), the
// storage-moving kernels, the quantized region bodies and the elementwise
// scalar programs must give the same stored integers either way.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "compiler/parse/parser.h"
#include "hal/cpu/cpu_device.h"
#include "tests/support/counted_run.h"
#include "tests/support/host_tensor_util.h"
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
  EXPECT_EQ(functions, 34);
}

TEST(QuantizedOps, MatchTheSpecDefinitionUnfused) {
  int functions = 0;
  for (const auto& f : RunChecks(false, &functions)) ADD_FAILURE() << f;
  EXPECT_EQ(functions, 34);
}

// Ops that move values run on the stored integers: a quantized transpose
// is one dispatch (no dequantize or quantize around it), while a quantized
// dot_general is three (dequantize lhs, dequantize rhs, dot, quantize: four).
TEST(QuantizedOps, StorageOpsRunOnTheStoredIntegers) {
  const char* transpose = R"(
func.func @main(%a: tensor<2x3xi8>) -> tensor<3x2xi8> {
  %q = stablehlo.bitcast_convert %a : (tensor<2x3xi8>) -> tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>
  %t = stablehlo.transpose %q, dims = [1, 0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<3x2x!quant.uniform<i8:f32, 0.5:1>>
  %s = stablehlo.bitcast_convert %t : (tensor<3x2x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<3x2xi8>
  return %s : tensor<3x2xi8>
})";
  const char* dot = R"(
func.func @main(%a: tensor<2x3xi8>) -> tensor<2x2xi8> {
  %q = stablehlo.bitcast_convert %a : (tensor<2x3xi8>) -> tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>
  %w0 = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8>
  %w = stablehlo.bitcast_convert %w0 : (tensor<3x2xi8>) -> tensor<3x2x!quant.uniform<i8:f32, 0.25>>
  %d = stablehlo.dot_general %q, %w, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>, tensor<3x2x!quant.uniform<i8:f32, 0.25>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5>>
  %s = stablehlo.bitcast_convert %d : (tensor<2x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2xi8>
  return %s : tensor<2x2xi8>
})";
  const std::vector<int8_t> a = {1, -2, 3, -4, 5, -6};
  auto in = test::HostTensorOf(ElementType::kSI8, {2, 3}, a);
  test::CountedRunOptions o;
  auto t = test::CompileAndRunCounted(transpose, {in}, o);
  ASSERT_EQ(t.outputs.size(), 1u);
  EXPECT_EQ(t.dispatches, 1u);
  EXPECT_EQ(t.outputs[0].data, (std::vector<uint8_t>{1, static_cast<uint8_t>(-4), static_cast<uint8_t>(-2), 5, 3,
                                                     static_cast<uint8_t>(-6)}));
  auto d = test::CompileAndRunCounted(dot, {in}, o);
  ASSERT_EQ(d.outputs.size(), 1u);
  EXPECT_EQ(d.dispatches, 4u);
  // lhs - 1: [[0, -3, 2], [-5, 4, -7]] * 0.5; rhs * 0.25; result / 0.5
  // row 0: (0*1 - 3*3 + 2*5) * 0.125 = 0.125 -> 0.25 -> 0 (ties to even);
  //        (0*2 - 3*4 + 2*6) * 0.125 = 0 -> 0
  // row 1: (-5 + 12 - 35) * 0.125 = -3.5 -> -7; (-10 + 16 - 42) * 0.125 = -4.5 -> -9
  EXPECT_EQ(d.outputs[0].data, (std::vector<uint8_t>{0, 0, static_cast<uint8_t>(-7), static_cast<uint8_t>(-9)}));
}

// A per-axis quantized dimension of `?` size: a run with a size other than
// the number of scales is refused with the reason, not read out of bounds.
TEST(QuantizedOps, PerAxisScalesOfTheWrongCountAtRunTimeAreAnError) {
  const char* src = R"(
func.func @main(%a: tensor<2x?xi8>) -> tensor<2x?xf32> {
  %q = stablehlo.bitcast_convert %a : (tensor<2x?xi8>) -> tensor<2x?x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
  %n = stablehlo.negate %q : (tensor<2x?x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> tensor<2x?x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
  %f = stablehlo.uniform_dequantize %n : (tensor<2x?x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> tensor<2x?xf32>
  return %f : tensor<2x?xf32>
})";
  compiler::CompileOptions options;
  options.target = "cpu";
  auto bytes = compiler::Compile(src, "q.mlir", options, nullptr);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  auto module = vm::LoadModule(*bytes);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto device = hal::CreateCpuDevice(hal::CpuModeFromEnvironment());
  auto ctx = vm::Context::Create(*module, device.get());
  ASSERT_TRUE(ctx.ok()) << ctx.status().message();
  const std::vector<int8_t> good = {2, 4, -2, -4};
  auto ok = (*ctx)->Invoke("main", {test::HostTensorOf(ElementType::kSI8, {2, 2}, good)});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  // negate(dequantize) = -[1, 1, -1, -1]: per column scales 0.5, 0.25.
  const std::vector<float> want = {-1.0f, -1.0f, 1.0f, 1.0f};
  ASSERT_EQ((*ok)[0].data.size(), want.size() * 4);
  EXPECT_EQ(std::memcmp((*ok)[0].data.data(), want.data(), want.size() * 4), 0);
  const std::vector<int8_t> three(6, 1);
  auto bad = (*ctx)->Invoke("main", {test::HostTensorOf(ElementType::kSI8, {2, 3}, three)});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("per-axis scales must have one entry per slice"), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace kiln

// Quantized programs of tests/data/ops/quantized_ops.mlir (expected values
// from numpy and the spec's dequantize/quantize definitions, written by
// tests/data/ops/gen_quantized_ops.py) with fusion on and off: the
// quantized legalization (compiler/passes/legalize_quantized_ops.cc), the
// storage-moving kernels, the quantized region bodies and the elementwise
// scalar programs must give the same stored integers either way.
#include <gtest/gtest.h>

#include <cstdio>
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

// The CPU target's requantize fold (FuseRequantizeIntoContractions in
// compiler/passes/quantized_integer_contraction.h): an int8 convolution or
// dot_general whose i32 accumulators only a requantize reads becomes one
// dispatch that requantizes its own chunks of accumulators. Same stored
// integers as the unfused program, on every path of the kernels: a
// channel-last convolution over several chunks of batch elements (zero
// point padding, per-axis scales), a feature-major one, one whose batch dim
// is not outermost (the whole product, then the requantize), a u8
// dot_general, and a requantized product read by a quantized add.
TEST(QuantizedOps, RequantizeFoldsIntoInt8ContractionsWithTheSameBits) {
  uint32_t seed = 24;
  auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<uint8_t>(seed >> 24);
  };
  auto bytes = [&](size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = next();
    return v;
  };
  auto hex = [](const std::vector<uint8_t>& v) {
    static const char* d = "0123456789ABCDEF";
    std::string s = "dense<\"0x";
    for (uint8_t b : v) s += {d[b >> 4], d[b & 15]};
    return s + "\">";
  };
  auto g9 = [](float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
    return std::string(buf);
  };
  auto t = [](const std::vector<int64_t>& d, const std::string& e) {
    std::string s = "tensor<";
    for (int64_t v : d) s += std::to_string(v) + "x";
    return s + e + ">";
  };
  struct Case {
    std::string name, program;
    std::vector<int64_t> dims;
    ElementType type;
    std::vector<int64_t> dims2;  // a second input, if any
  };
  std::vector<Case> cases;
  // conv: x i8 (zero point -3, so the padding is a pad of the stored
  // input), 3x3 kernel with per-axis scales along its output feature dim
  // `k_axis`; the accumulation type's scales are the f32 products.
  auto conv = [&](const std::string& name, const std::string& dn, std::vector<int64_t> x_dims,
                  std::vector<int64_t> out_dims, std::vector<int64_t> k_dims, int k_axis, int out_axis) {
    const int64_t features = k_dims[static_cast<size_t>(k_axis)];
    std::string ws = "{", as = "{";
    for (int64_t i = 0; i < features; ++i) {
      const float w = 0.002f + 0.004f * static_cast<float>(next()) / 256.0f;
      ws += (i ? ", " : "") + g9(w);
      as += (i ? ", " : "") + g9(0.05f * w);
    }
    const std::string qx = "!quant.uniform<i8:f32, 0.05:-3>";
    const std::string qw = "!quant.uniform<i8:f32:" + std::to_string(k_axis) + ", " + ws + "}>";
    const std::string qa = "!quant.uniform<i32:f32:" + std::to_string(out_axis) + ", " + as + "}>";
    const std::string qo = "!quant.uniform<i8:f32, 0.07:5>";
    int64_t kn = 1;
    for (int64_t v : k_dims) kn *= v;
    Case c;
    c.name = name;
    c.dims = x_dims;
    c.type = ElementType::kSI8;
    c.program = "func.func @main(%x: " + t(x_dims, "i8") + ") -> " + t(out_dims, "i8") + " {\n" +
                "  %xq = stablehlo.bitcast_convert %x : (" + t(x_dims, "i8") + ") -> " + t(x_dims, qx) + "\n" +
                "  %w0 = stablehlo.constant " + hex(bytes(static_cast<size_t>(kn))) + " : " + t(k_dims, "i8") + "\n" +
                "  %w = stablehlo.bitcast_convert %w0 : (" + t(k_dims, "i8") + ") -> " + t(k_dims, qw) + "\n" +
                "  %a = stablehlo.convolution(%xq, %w) dim_numbers = " + dn +
                ", window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} "
                "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (" +
                t(x_dims, qx) + ", " + t(k_dims, qw) + ") -> " + t(out_dims, qa) + "\n" +
                "  %q = stablehlo.uniform_quantize %a : (" + t(out_dims, qa) + ") -> " + t(out_dims, qo) + "\n" +
                "  %s = stablehlo.bitcast_convert %q : (" + t(out_dims, qo) + ") -> " + t(out_dims, "i8") + "\n" +
                "  return %s : " + t(out_dims, "i8") + "\n}\n";
    cases.push_back(c);
  };
  conv("nhwc", "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", {3, 64, 64, 16}, {3, 64, 64, 24}, {3, 3, 16, 24}, 3, 3);
  conv("nchw", "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]", {2, 16, 20, 20}, {2, 24, 20, 20}, {24, 16, 3, 3}, 0, 1);
  conv("batch_inner", "[0, 1, b, f]x[0, 1, i, o]->[0, 1, b, f]", {9, 9, 2, 16}, {9, 9, 2, 24}, {3, 3, 16, 24}, 3, 3);
  // dot_general: u8 operands (lhs zero point 7) into a u8 result.
  {
    Case c;
    c.name = "dot_u8";
    c.dims = {37, 50};
    c.type = ElementType::kUI8;
    c.program = R"(func.func @main(%x: tensor<37x50xui8>) -> tensor<37x29xui8> {
  %xq = stablehlo.bitcast_convert %x : (tensor<37x50xui8>) -> tensor<37x50x!quant.uniform<u8:f32, 0.5:7>>
  %w0 = stablehlo.constant )" + hex(bytes(50 * 29)) + R"( : tensor<50x29xui8>
  %w = stablehlo.bitcast_convert %w0 : (tensor<50x29xui8>) -> tensor<50x29x!quant.uniform<u8:f32, 0.25>>
  %a = stablehlo.dot_general %xq, %w, contracting_dims = [1] x [0] : (tensor<37x50x!quant.uniform<u8:f32, 0.5:7>>, tensor<50x29x!quant.uniform<u8:f32, 0.25>>) -> tensor<37x29x!quant.uniform<i32:f32, 0.125>>
  %q = stablehlo.uniform_quantize %a : (tensor<37x29x!quant.uniform<i32:f32, 0.125>>) -> tensor<37x29x!quant.uniform<u8:f32, 9.0:100>>
  %s = stablehlo.bitcast_convert %q : (tensor<37x29x!quant.uniform<u8:f32, 9.0:100>>) -> tensor<37x29xui8>
  return %s : tensor<37x29xui8>
})";
    cases.push_back(c);
  }
  // A requantized product read by a quantized add of a second input.
  {
    Case c;
    c.name = "dot_then_add";
    c.dims = {16, 40};
    c.type = ElementType::kSI8;
    c.dims2 = {16, 24};
    c.program = R"(func.func @main(%x: tensor<16x40xi8>, %y: tensor<16x24xi8>) -> tensor<16x24xi8> {
  %xq = stablehlo.bitcast_convert %x : (tensor<16x40xi8>) -> tensor<16x40x!quant.uniform<i8:f32, 0.5:-1>>
  %yq = stablehlo.bitcast_convert %y : (tensor<16x24xi8>) -> tensor<16x24x!quant.uniform<i8:f32, 0.3:2>>
  %w0 = stablehlo.constant )" + hex(bytes(40 * 24)) + R"( : tensor<40x24xi8>
  %w = stablehlo.bitcast_convert %w0 : (tensor<40x24xi8>) -> tensor<40x24x!quant.uniform<i8:f32, 0.25>>
  %a = stablehlo.dot_general %xq, %w, contracting_dims = [1] x [0] : (tensor<16x40x!quant.uniform<i8:f32, 0.5:-1>>, tensor<40x24x!quant.uniform<i8:f32, 0.25>>) -> tensor<16x24x!quant.uniform<i32:f32, 0.125>>
  %q = stablehlo.uniform_quantize %a : (tensor<16x24x!quant.uniform<i32:f32, 0.125>>) -> tensor<16x24x!quant.uniform<i8:f32, 2.5:-4>>
  %r = stablehlo.add %q, %yq : (tensor<16x24x!quant.uniform<i8:f32, 2.5:-4>>, tensor<16x24x!quant.uniform<i8:f32, 0.3:2>>) -> tensor<16x24x!quant.uniform<i8:f32, 2.0:1>>
  %s = stablehlo.bitcast_convert %r : (tensor<16x24x!quant.uniform<i8:f32, 2.0:1>>) -> tensor<16x24xi8>
  return %s : tensor<16x24xi8>
})";
    cases.push_back(c);
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    int64_t n = 1;
    for (int64_t d : c.dims) n *= d;
    std::vector<vm::HostTensor> inputs = {test::HostTensorOf(c.type, c.dims, bytes(static_cast<size_t>(n)))};
    if (!c.dims2.empty()) {
      int64_t n2 = 1;
      for (int64_t d : c.dims2) n2 *= d;
      inputs.push_back(test::HostTensorOf(ElementType::kSI8, c.dims2, bytes(static_cast<size_t>(n2))));
    }
    test::CountedRunOptions fused, apart;
    apart.target = "all";  // the Vulkan device's form: product and requantize apart
    const auto f = test::CompileAndRunCounted(c.program, inputs, fused);
    const auto a = test::CompileAndRunCounted(c.program, inputs, apart);
    ASSERT_EQ(f.outputs.size(), 1u);
    ASSERT_EQ(a.outputs.size(), 1u);
    EXPECT_EQ(f.outputs[0].data, a.outputs[0].data);
    EXPECT_LT(f.dispatches, a.dispatches);
  }
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

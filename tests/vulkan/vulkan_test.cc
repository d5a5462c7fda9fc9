// The Vulkan device against the CPU device (whose kernels are the
// reference): the same module files, the same results. Runs on whatever
// Vulkan device the loader offers first by preference (lavapipe in CI),
// with the Khronos validation layer on (ctest sets KILN_VULKAN_VALIDATION=1);
// every test also fails if the layer reported anything.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>

#include <unistd.h>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "hal/vulkan/vulkan_device.h"
#include "vm/context.h"

namespace kiln {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

StatusOr<std::vector<vm::HostTensor>> RunOn(hal::Device* device, const std::vector<uint8_t>& bytes,
                                            const std::string& fn, const std::vector<vm::HostTensor>& inputs) {
  auto module = vm::LoadModule(bytes);
  if (!module.ok()) return module.status();
  auto ctx = vm::Context::Create(*module, device);
  if (!ctx.ok()) return ctx.status();
  return (*ctx)->Invoke(fn, inputs);
}

std::vector<uint8_t> CompileAll(const std::string& source, const std::string& target = "all") {
  compiler::CompileOptions options;
  options.target = target;
  auto bytes = compiler::Compile(source, "test.mlir", options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  return bytes.ok() ? bytes.value() : std::vector<uint8_t>{};
}

class VulkanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    validation_before_ = hal::VulkanValidationMessages();
    auto d = hal::CreateVulkanDevice(-1);
    ASSERT_TRUE(d.ok()) << d.status().message();
    vulkan_ = std::move(d.value());
    cpu_ = hal::CreateCpuDevice(hal::CpuMode::kInline);
  }
  void TearDown() override {
    vulkan_.reset();
    EXPECT_EQ(hal::VulkanValidationMessages(), validation_before_) << "the validation layer reported messages";
  }
  uint64_t validation_before_ = 0;
  std::unique_ptr<hal::Device> vulkan_, cpu_;
};

vm::HostTensor Random(ElementType t, std::vector<int64_t> dims, std::mt19937_64& rng) {
  vm::HostTensor h;
  h.type = t;
  h.dims = std::move(dims);
  size_t n = static_cast<size_t>(h.NumElements());
  size_t w = StorageBytes(t);
  h.data.resize(n * w);
  // Edge values first (0, 1, -1, the extremes, small shift amounts), then random bits.
  const uint64_t edges[] = {0, 1, ~uint64_t{0}, uint64_t{1} << (BitWidth(t) - 1), (uint64_t{1} << (BitWidth(t) - 1)) - 1,
                            2, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64};
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = i < std::size(edges) ? edges[i] : rng();
    if (i >= std::size(edges) && (rng() & 3) == 0) v &= 0x3f;  // small values: shift amounts, divisors
    if (i >= std::size(edges) && (rng() & 7) == 0) v = ~(v & 0x7);  // small negatives
    // Storage of signed narrow types is sign-extended; take the low bits.
    std::memcpy(h.data.data() + i * w, &v, w);
  }
  return h;
}

TEST_F(VulkanTest, ListsDevices) {
  auto devs = hal::ListVulkanDevices();
  ASSERT_TRUE(devs.ok()) << devs.status().message();
  ASSERT_FALSE(devs->empty());
  EXPECT_FALSE((*devs)[0].name.empty());
  EXPECT_NE(vulkan_->name().find("vulkan"), std::string::npos);
}

TEST_F(VulkanTest, OutOfRangeDeviceIsAClearError) {
  auto d = hal::CreateVulkanDevice(1000);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("no Vulkan device 1000"), std::string::npos) << d.status().message();
}

TEST_F(VulkanTest, HugeAllocationIsRefusedNotACrash) {
  auto b = vulkan_->Allocate(size_t{1} << 41);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kResourceExhausted);
}

// Every integer op of the scalar-op table the target translates, on every
// integer type, over random inputs with the edge values: results must be
// bit-identical to the CPU device's (the reference kernels).
TEST_F(VulkanTest, IntegerOpsAreBitIdenticalToCpu) {
  const char* types[] = {"i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64"};
  const char* binary[] = {"add", "subtract", "multiply", "divide", "remainder", "and", "or", "xor",
                          "shift_left", "shift_right_arithmetic", "shift_right_logical", "maximum", "minimum", "power"};
  const char* unary[] = {"abs", "negate", "not", "popcnt", "count_leading_zeros", "sign"};
  std::mt19937_64 rng(20261123);
  const int64_t n = 1000;
  for (const char* t : types) {
    std::string ty = "tensor<" + std::to_string(n) + "x" + t + ">";
    std::string src = "func.func @main(%a: " + ty + ", %b: " + ty + ", %f: tensor<" + std::to_string(n) + "xf32>) -> (";
    std::string body, rets, rtypes;
    int k = 0;
    auto add = [&](const std::string& line, const std::string& type) {
      body += "  %r" + std::to_string(k) + " = " + line + "\n";
      rets += (k ? ", %r" : "%r") + std::to_string(k);
      rtypes += (k ? ", " : "") + type;
      ++k;
    };
    for (const char* op : binary) add(std::string("stablehlo.") + op + " %a, %b : " + ty, ty);
    for (const char* op : unary)
      if (t[0] != 'u' || (std::string(op) != "abs" && std::string(op) != "sign"))  // signed operands only
        add(std::string("stablehlo.") + op + " %a : " + ty, ty);
    std::string bt = "tensor<" + std::to_string(n) + "xi1>";
    for (const char* dir : {"LT", "EQ", "GE"}) {
      add("stablehlo.compare " + std::string(dir) + ", %a, %b : (" + ty + ", " + ty + ") -> " + bt, bt);
    }
    add("stablehlo.select %r" + std::to_string(k - 1) + ", %a, %b : " + bt + ", " + ty, ty);
    for (const char* to : {"i8", "i32", "ui16", "i64", "f32"}) {
      std::string tt = "tensor<" + std::to_string(n) + "x" + to + ">";
      add("stablehlo.convert %a : (" + ty + ") -> " + tt, tt);
    }
    add("stablehlo.convert %f : (tensor<" + std::to_string(n) + "xf32>) -> " + ty, ty);
    src += rtypes + ") {\n" + body + "  return " + rets + " : " + rtypes + "\n}\n";
    auto bytes = CompileAll(src, "vulkan");
    ASSERT_FALSE(bytes.empty()) << t;
    auto et = ElementTypeFromName(t);
    ASSERT_TRUE(et.has_value());
    vm::HostTensor a = Random(*et, {n}, rng), b = Random(*et, {n}, rng);
    vm::HostTensor f;
    f.type = ElementType::kF32;
    f.dims = {n};
    f.data.resize(n * 4);
    for (int64_t i = 0; i < n; ++i) {
      float x = i == 0 ? NAN : i == 1 ? INFINITY : i == 2 ? -INFINITY : i == 3 ? 3e38f
                : static_cast<float>(std::ldexp(static_cast<double>(static_cast<int64_t>(rng())) / 9.2e18, static_cast<int>(rng() % 70)));
      std::memcpy(f.data.data() + i * 4, &x, 4);
    }
    auto want = RunOn(cpu_.get(), bytes, "main", {a, b, f});
    auto got = RunOn(vulkan_.get(), bytes, "main", {a, b, f});
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_EQ(want->size(), got->size());
    for (size_t r = 0; r < want->size(); ++r) {
      const auto& w = (*want)[r].data;
      const auto& g = (*got)[r].data;
      ASSERT_EQ(w.size(), g.size());
      size_t bytes_per = StorageBytes((*want)[r].type);
      for (size_t i = 0; i < w.size(); i += bytes_per)
        ASSERT_EQ(0, std::memcmp(&w[i], &g[i], bytes_per))
            << t << " result " << r << " (" << Name((*want)[r].type) << ") element " << i / bytes_per;
    }
  }
}

// examples/mlp.mlir (gen_mlp.py) on both devices: the same result within
// f32 tolerance, at batch 1 and 64.
TEST_F(VulkanTest, MlpMatchesCpu) {
  std::string mlir = std::string(KILN_BINARY_DIR) + "/vulkan_mlp_" + std::to_string(getpid()) + ".mlir";
  ASSERT_EQ(0, std::system(("python3 " + std::string(KILN_SOURCE_DIR) + "/examples/gen_mlp.py " + mlir).c_str()));
  auto bytes = CompileAll(ReadFile(mlir), "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int batch : {1, 64}) {
    vm::HostTensor x;
    x.type = ElementType::kF32;
    x.dims = {batch, 784};
    x.data.resize(batch * 784 * 4);
    for (int i = 0; i < batch * 784; ++i) {
      float v = u(rng);
      std::memcpy(x.data.data() + i * 4, &v, 4);
    }
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

// Odd sizes (not multiples of the 16x16 tiles), a batch dim and an
// unusual contracting layout, against the CPU.
TEST_F(VulkanTest, DotGeneralOddShapesMatchCpu) {
  const char* src = R"(
func.func @main(%a: tensor<3x37x19xf32>, %b: tensor<3x23x37xf32>) -> tensor<3x19x23xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [1] x [2] : (tensor<3x37x19xf32>, tensor<3x23x37xf32>) -> tensor<3x19x23xf32>
  return %0 : tensor<3x19x23xf32>
}
)";
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(3);
  std::normal_distribution<float> g;
  auto make = [&](std::vector<int64_t> dims) {
    vm::HostTensor t;
    t.type = ElementType::kF32;
    t.dims = dims;
    t.data.resize(t.NumElements() * 4);
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      float v = g(rng);
      std::memcpy(t.data.data() + i * 4, &v, 4);
    }
    return t;
  };
  auto a = make({3, 37, 19}), b = make({3, 23, 37});
  auto want = RunOn(cpu_.get(), bytes, "main", {a, b});
  auto got = RunOn(vulkan_.get(), bytes, "main", {a, b});
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  for (int64_t i = 0; i < 3 * 19 * 23; ++i) {
    float w, v;
    std::memcpy(&w, (*want)[0].data.data() + i * 4, 4);
    std::memcpy(&v, (*got)[0].data.data() + i * 4, 4);
    EXPECT_NEAR(v, w, 1e-4f) << i;
  }
}

// Large reductions take the work-group path (a work group per output
// element); small ones one invocation per output. Integers must match the CPU
// exactly (init folded in once even when it is no identity), floats within
// the reordering tolerance; a variadic reduce pairs max with min.
TEST_F(VulkanTest, ReductionsMatchCpu) {
  const char* src = R"(
func.func @main(%a: tensor<37x5000xf32>, %b: tensor<100003xi32>, %c: tensor<3x7xi32>) -> (tensor<37xf32>, tensor<i32>, tensor<5000xf32>, tensor<i32>, tensor<i32>, tensor<3xi32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %seven = stablehlo.constant dense<7> : tensor<i32>
  %big = stablehlo.constant dense<-2147483648> : tensor<i32>
  %small = stablehlo.constant dense<2147483647> : tensor<i32>
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<37x5000xf32>, tensor<f32>) -> tensor<37xf32>
  %1 = stablehlo.reduce(%b init: %seven) applies stablehlo.add across dimensions = [0] : (tensor<100003xi32>, tensor<i32>) -> tensor<i32>
  %2 = stablehlo.reduce(%a init: %z) applies stablehlo.maximum across dimensions = [0] : (tensor<37x5000xf32>, tensor<f32>) -> tensor<5000xf32>
  %3:2 = stablehlo.reduce(%b init: %big), (%b init: %small) across dimensions = [0] : (tensor<100003xi32>, tensor<100003xi32>, tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
    reducer(%x: tensor<i32>, %y: tensor<i32>) (%u: tensor<i32>, %v: tensor<i32>) {
      %m = stablehlo.maximum %x, %y : tensor<i32>
      %n = stablehlo.minimum %u, %v : tensor<i32>
      stablehlo.return %m, %n : tensor<i32>, tensor<i32>
    }
  %4 = stablehlo.reduce(%c init: %seven) applies stablehlo.multiply across dimensions = [1] : (tensor<3x7xi32>, tensor<i32>) -> tensor<3xi32>
  return %0, %1, %2, %3#0, %3#1, %4 : tensor<37xf32>, tensor<i32>, tensor<5000xf32>, tensor<i32>, tensor<i32>, tensor<3xi32>
}
)";
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(11);
  std::normal_distribution<float> g;
  vm::HostTensor a;
  a.type = ElementType::kF32;
  a.dims = {37, 5000};
  a.data.resize(37 * 5000 * 4);
  for (int i = 0; i < 37 * 5000; ++i) {
    float v = g(rng);
    std::memcpy(a.data.data() + i * 4, &v, 4);
  }
  auto b = Random(ElementType::kSI32, {100003}, rng);
  auto c = Random(ElementType::kSI32, {3, 7}, rng);
  auto want = RunOn(cpu_.get(), bytes, "main", {a, b, c});
  auto got = RunOn(vulkan_.get(), bytes, "main", {a, b, c});
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  for (size_t r : {1, 2, 3, 4, 5}) EXPECT_EQ((*want)[r].data, (*got)[r].data) << "result " << r;
  for (int i = 0; i < 37; ++i) {
    float w, v;
    std::memcpy(&w, (*want)[0].data.data() + i * 4, 4);
    std::memcpy(&v, (*got)[0].data.data() + i * 4, 4);
    EXPECT_NEAR(v, w, 1e-3f * (1 + std::fabs(w))) << i;
  }
}

// An embedding lookup (gather of rows, indices clamped when out of range)
// and a convolution with padding, strides, dilation and feature groups,
// against the CPU.
TEST_F(VulkanTest, GatherAndConvolutionMatchCpu) {
  const char* src = R"(
func.func @main(%table: tensor<50x16xf32>, %ids: tensor<9x1xi32>, %x: tensor<2x6x11x9xf32>, %k: tensor<4x3x3x2xf32>) -> (tensor<9x16xf32>, tensor<2x4x6x3xf32>) {
  %0 = "stablehlo.gather"(%table, %ids) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 16>} : (tensor<50x16xf32>, tensor<9x1xi32>) -> tensor<9x16xf32>
  %1 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 3], pad = [[1, 1], [2, 0]], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<2x6x11x9xf32>, tensor<4x3x3x2xf32>) -> tensor<2x4x6x3xf32>
  return %0, %1 : tensor<9x16xf32>, tensor<2x4x6x3xf32>
}
)";
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(13);
  std::normal_distribution<float> g;
  auto make = [&](std::vector<int64_t> dims) {
    vm::HostTensor t;
    t.type = ElementType::kF32;
    t.dims = dims;
    t.data.resize(t.NumElements() * 4);
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      float v = g(rng);
      std::memcpy(t.data.data() + i * 4, &v, 4);
    }
    return t;
  };
  vm::HostTensor ids;
  ids.type = ElementType::kSI32;
  ids.dims = {9, 1};
  for (int32_t v : {0, 49, 50, -3, 7, 12, 1000, 25, 3}) {
    ids.data.resize(ids.data.size() + 4);
    std::memcpy(ids.data.data() + ids.data.size() - 4, &v, 4);
  }
  auto table = make({50, 16}), x = make({2, 6, 11, 9}), k = make({4, 3, 3, 2});
  auto want = RunOn(cpu_.get(), bytes, "main", {table, ids, x, k});
  auto got = RunOn(vulkan_.get(), bytes, "main", {table, ids, x, k});
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ((*want)[0].data, (*got)[0].data);
  ASSERT_EQ((*want)[1].data.size(), (*got)[1].data.size());
  for (size_t i = 0; i < (*want)[1].data.size() / 4; ++i) {
    float w, v;
    std::memcpy(&w, (*want)[1].data.data() + i * 4, 4);
    std::memcpy(&v, (*got)[1].data.data() + i * 4, 4);
    EXPECT_NEAR(v, w, 1e-4f) << i;
  }
}

// Epilogues fused into dot_general and convolution (kernels/reference/
// epilogue.h): a bias read in place, a full-shaped addend, an activation.
TEST_F(VulkanTest, FusedEpiloguesMatchCpu) {
  const char* src = R"(
func.func @main(%x: tensor<19x37xf32>, %w: tensor<37x23xf32>, %bias: tensor<23xf32>, %a: tensor<3x9x17xf32>,
                %b: tensor<3x17x5xf32>, %y: tensor<3x9x5xf32>, %img: tensor<2x9x11x3xf32>, %k: tensor<3x3x3x4xf32>,
                %kb: tensor<4xf32>) -> (tensor<19x23xf32>, tensor<3x9x5xf32>, tensor<2x9x11x4xf32>) {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<19x37xf32>, tensor<37x23xf32>) -> tensor<19x23xf32>
  %1 = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<23xf32>) -> tensor<19x23xf32>
  %2 = stablehlo.add %0, %1 : tensor<19x23xf32>
  %3 = stablehlo.logistic %2 : tensor<19x23xf32>
  %4 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<3x9x17xf32>, tensor<3x17x5xf32>) -> tensor<3x9x5xf32>
  %5 = stablehlo.subtract %y, %4 : tensor<3x9x5xf32>
  %8 = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x9x11x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x9x11x4xf32>
  %9 = stablehlo.broadcast_in_dim %kb, dims = [3] : (tensor<4xf32>) -> tensor<2x9x11x4xf32>
  %10 = stablehlo.add %8, %9 : tensor<2x9x11x4xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<2x9x11x4xf32>
  %11 = stablehlo.maximum %10, %zero : tensor<2x9x11x4xf32>
  return %3, %5, %11 : tensor<19x23xf32>, tensor<3x9x5xf32>, tensor<2x9x11x4xf32>
}
)";
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(17);
  std::normal_distribution<float> g;
  auto make = [&](std::vector<int64_t> dims) {
    vm::HostTensor t;
    t.type = ElementType::kF32;
    t.dims = dims;
    t.data.resize(t.NumElements() * 4);
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      float v = g(rng);
      std::memcpy(t.data.data() + i * 4, &v, 4);
    }
    return t;
  };
  std::vector<vm::HostTensor> in = {make({19, 37}), make({37, 23}),      make({23}),
                                    make({3, 9, 17}), make({3, 17, 5}),  make({3, 9, 5}),
                                    make({2, 9, 11, 3}), make({3, 3, 3, 4}), make({4})};
  auto want = RunOn(cpu_.get(), bytes, "main", in);
  auto got = RunOn(vulkan_.get(), bytes, "main", in);
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(want->size(), 3u);
  for (size_t r = 0; r < 3; ++r) {
    ASSERT_EQ((*want)[r].data.size(), (*got)[r].data.size());
    for (size_t i = 0; i < (*want)[r].data.size() / 4; ++i) {
      float w, v;
      std::memcpy(&w, (*want)[r].data.data() + i * 4, 4);
      std::memcpy(&v, (*got)[r].data.data() + i * 4, 4);
      EXPECT_NEAR(v, w, 1e-4f) << "result " << r << " element " << i;
    }
  }
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

// select_and_scatter (the gradient of max pooling) on the Vulkan device,
// bit-identical to the CPU: overlapping f32 windows with padding, and i32
// operands drawn from a few values so that ties decide the pick.
TEST_F(VulkanTest, SelectAndScatterMatchesCpuBitForBit) {
  const char* src = R"(
func.func @pool_grad(%x: tensor<2x7x9x3xf32>, %g: tensor<2x4x4x3xf32>, %z: tensor<f32>) -> tensor<2x7x9x3xf32> {
  %0 = "stablehlo.select_and_scatter"(%x, %g, %z) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
  }, {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>,
      padding = dense<[[0, 0], [1, 1], [0, 1], [0, 0]]> : tensor<4x2xi64>}
    : (tensor<2x7x9x3xf32>, tensor<2x4x4x3xf32>, tensor<f32>) -> tensor<2x7x9x3xf32>
  return %0 : tensor<2x7x9x3xf32>
}
func.func @ties(%x: tensor<7x5xi32>, %g: tensor<3x2xi32>, %z: tensor<i32>) -> tensor<7x5xi32> {
  %0 = "stablehlo.select_and_scatter"(%x, %g, %z) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %c = stablehlo.compare GT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
  }, {
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %s = stablehlo.multiply %a, %b : tensor<i32>
      stablehlo.return %s : tensor<i32>
  }) {window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 2, 2>}
    : (tensor<7x5xi32>, tensor<3x2xi32>, tensor<i32>) -> tensor<7x5xi32>
  return %0 : tensor<7x5xi32>
}
)";
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(19);
  auto tensor = [&](ElementType t, std::vector<int64_t> dims, int lo, int hi) {
    vm::HostTensor h;
    h.type = t;
    h.dims = std::move(dims);
    std::uniform_int_distribution<int> ints(lo, hi);
    std::normal_distribution<float> floats;
    for (int64_t k = 0; k < h.NumElements(); ++k) {
      uint8_t b[4];
      if (t == ElementType::kF32) {
        float v = floats(rng);
        std::memcpy(b, &v, 4);
      } else {
        int32_t v = ints(rng);
        std::memcpy(b, &v, 4);
      }
      h.data.insert(h.data.end(), b, b + 4);
    }
    return h;
  };
  for (int round = 0; round < 3; ++round) {
    std::vector<std::pair<const char*, std::vector<vm::HostTensor>>> cases = {
        {"pool_grad", {tensor(ElementType::kF32, {2, 7, 9, 3}, 0, 0), tensor(ElementType::kF32, {2, 4, 4, 3}, 0, 0),
                       tensor(ElementType::kF32, {}, 0, 0)}},
        {"ties", {tensor(ElementType::kSI32, {7, 5}, 0, 2), tensor(ElementType::kSI32, {3, 2}, -3, 3),
                  tensor(ElementType::kSI32, {}, 1, 2)}}};
    for (const auto& [fn, inputs] : cases) {
      auto want = RunOn(cpu_.get(), bytes, fn, inputs);
      auto got = RunOn(vulkan_.get(), bytes, fn, inputs);
      ASSERT_TRUE(want.ok()) << want.status().message();
      ASSERT_TRUE(got.ok()) << got.status().message();
      EXPECT_EQ((*want)[0].data, (*got)[0].data) << fn;
    }
  }
}

// Device-local buffers with staging transfers (the path of GPUs without
// unified memory), forced on a unified device.
TEST_F(VulkanTest, StagingPathMatchesCpu) {
  setenv("KILN_VULKAN_STAGING", "1", 1);
  auto d = hal::CreateVulkanDevice(-1);
  unsetenv("KILN_VULKAN_STAGING");
  ASSERT_TRUE(d.ok()) << d.status().message();
  const char* src = R"(
func.func @main(%a: tensor<5x7xi16>) -> tensor<7x5xi16> {
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<5x7xi16>) -> tensor<7x5xi16>
  %1 = stablehlo.multiply %0, %0 : tensor<7x5xi16>
  return %1 : tensor<7x5xi16>
}
)";
  auto bytes = CompileAll(src, "vulkan");
  std::mt19937_64 rng(5);
  auto a = Random(ElementType::kSI16, {5, 7}, rng);
  auto want = RunOn(cpu_.get(), bytes, "main", {a});
  auto got = RunOn(d->get(), bytes, "main", {a});
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ((*want)[0].data, (*got)[0].data);
}

// A function the vulkan target cannot compile: recorded as unavailable with
// --target=all (the CPU still runs it), refused by name on the Vulkan device,
// and a compile error with --target=vulkan.
TEST_F(VulkanTest, UnavailableFunctionIsRefusedWithItsReason) {
  const char* src = R"(
func.func @main(%a: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  %0 = stablehlo.add %a, %a : tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}
)";
  auto bytes = CompileAll(src, "all");
  ASSERT_FALSE(bytes.empty());
  vm::HostTensor a;
  a.type = ElementType::kF8E4M3FN;
  a.dims = {4};
  a.data.assign(4, 0x38);  // 1.0
  EXPECT_TRUE(RunOn(cpu_.get(), bytes, "main", {a}).ok());
  auto r = RunOn(vulkan_.get(), bytes, "main", {a});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(r.status().message().find("stablehlo.add"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("f8E4M3FN"), std::string::npos) << r.status().message();
  compiler::CompileOptions options;
  options.target = "vulkan";
  auto refused = compiler::Compile(src, "test.mlir", options, nullptr);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("stablehlo.add"), std::string::npos) << refused.status().message();
}

}  // namespace
}  // namespace kiln

// End-to-end: MLIR text -> compiler -> module bytes -> loader -> VM -> CPU
// device, in both CPU driver modes, checked against values computed
// independently of Kiln.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include <unistd.h>

#include "compiler/compile.h"
#include "compiler/module_builder.h"
#include "hal/cpu/cpu_device.h"
#include "schema/module_generated.h"
#include "tests/support/host_tensor_util.h"
#include "vm/context.h"

namespace kiln {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string RunCommand(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

std::vector<uint8_t> CompileOrDie(const std::string& source, const std::string& name) {
  compiler::CompileOptions options;
  options.target = "cpu";
  auto bytes = compiler::Compile(source, name, options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  return bytes.ok() ? bytes.value() : std::vector<uint8_t>{};
}

vm::HostTensor F32Tensor(std::vector<int64_t> dims, const std::vector<float>& values) {
  return test::HostTensorOf(ElementType::kF32, std::move(dims), values);
}

std::vector<float> F32Values(const vm::HostTensor& t) {
  std::vector<float> v(t.data.size() / 4);
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

class EndToEnd : public ::testing::TestWithParam<hal::CpuMode> {
 protected:
  StatusOr<std::vector<vm::HostTensor>> Run(const std::vector<uint8_t>& bytes, const std::string& fn,
                                            const std::vector<vm::HostTensor>& inputs) {
    auto module = vm::LoadModule(bytes);
    if (!module.ok()) return module.status();
    device_ = hal::CreateCpuDevice(GetParam());
    auto ctx = vm::Context::Create(*module, device_.get());
    if (!ctx.ok()) return ctx.status();
    context_ = std::move(ctx.value());
    return context_->Invoke(fn, inputs);
  }
  std::unique_ptr<hal::Device> device_;
  std::unique_ptr<vm::Context> context_;
};

TEST_P(EndToEnd, MlpMatchesIndependentComputation) {
  std::string gen = std::string("python3 ") + KILN_SOURCE_DIR + "/examples/gen_mlp.py";
  // One file per process: ctest runs the inline and deferred instances side
  // by side, and a shared path would let one read the other's half-written file.
  std::string mlir = std::string(KILN_BINARY_DIR) + "/e2e_mlp_" + std::to_string(getpid()) + ".mlir";
  RunCommand(gen + " " + mlir);
  auto bytes = CompileOrDie(ReadFile(mlir), mlir);
  std::remove(mlir.c_str());
  ASSERT_FALSE(bytes.empty());
  for (int batch : {1, 64}) {
    // The generator states the input and computes the expected output in
    // double precision with its own code.
    // Pure Python is slow: check three rows of the batch-64 result.
    std::vector<int> rows = batch == 1 ? std::vector<int>{0} : std::vector<int>{0, 17, 63};
    std::string row_args;
    for (int r : rows) row_args += " " + std::to_string(r);
    std::istringstream expect(RunCommand(gen + " --expect " + std::to_string(batch) + row_args));
    std::vector<double> expected{std::istream_iterator<double>(expect), std::istream_iterator<double>()};
    ASSERT_EQ(expected.size(), rows.size() * 10);
    std::string input_text = RunCommand(gen + " --input " + std::to_string(batch));
    std::vector<float> x;
    std::string values = input_text.substr(input_text.find('=') + 1);
    std::replace(values.begin(), values.end(), ',', ' ');
    std::istringstream vs(values);
    for (float f; vs >> f;) x.push_back(f);
    ASSERT_EQ(x.size(), static_cast<size_t>(batch * 784));
    auto results = Run(bytes, batch == 1 ? "main" : "main_b64", {F32Tensor({batch, 784}, x)});
    ASSERT_TRUE(results.ok()) << results.status().message();
    ASSERT_EQ(results->size(), 1u);
    EXPECT_EQ((*results)[0].dims, (std::vector<int64_t>{batch, 10}));
    auto got = F32Values((*results)[0]);
    ASSERT_EQ(got.size(), static_cast<size_t>(batch * 10));
    for (size_t r = 0; r < rows.size(); ++r)
      for (int k = 0; k < 10; ++k)
        EXPECT_NEAR(got[rows[r] * 10 + k], expected[r * 10 + k], 1e-5) << "batch " << batch << " row " << rows[r];
  }
}

TEST_P(EndToEnd, SpecProgramExample) {
  auto bytes = CompileOrDie(ReadFile(std::string(KILN_SOURCE_DIR) + "/examples/spec_program.mlir"), "spec_program.mlir");
  ASSERT_FALSE(bytes.empty());
  std::vector<float> image(784), weights(7840), bias(10);
  for (int i = 0; i < 784; ++i) image[i] = static_cast<float>((i % 7) * 0.1 - 0.3);
  for (int k = 0; k < 784; ++k)
    for (int n = 0; n < 10; ++n) weights[k * 10 + n] = static_cast<float>(((k * 10 + n) % 13 - 6) * 0.01);
  for (int n = 0; n < 10; ++n) bias[n] = static_cast<float>(n * 0.05 - 0.2);
  auto results = Run(bytes, "main",
                     {F32Tensor({28, 28}, image), F32Tensor({784, 10}, weights), F32Tensor({1, 10}, bias)});
  ASSERT_TRUE(results.ok()) << results.status().message();
  auto got = F32Values((*results)[0]);
  ASSERT_EQ(got.size(), 10u);
  int nonzero = 0;
  for (int n = 0; n < 10; ++n) {
    double acc = 0;
    for (int k = 0; k < 784; ++k) acc += double(image[k]) * weights[k * 10 + n];
    double expected = std::max(0.0, acc + bias[n]);
    nonzero += expected != 0;
    EXPECT_NEAR(got[n], expected, 1e-4) << n;
  }
  EXPECT_GT(nonzero, 0);  // the example exercises more than relu's zero
}

TEST_P(EndToEnd, ControlFlowAndCalls) {
  const char* src = R"(
func.func private @twice(%x: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.add %x, %x : tensor<i64>
  func.return %0 : tensor<i64>
}
func.func @main(%n: tensor<i64>) -> tensor<i64> {
  %one = stablehlo.constant dense<1> : tensor<i64>
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %r:2 = stablehlo.while(%i = %zero, %acc = %one) : tensor<i64>, tensor<i64>
    cond {
      %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %i1 = stablehlo.add %i, %one : tensor<i64>
      %a1 = func.call @twice(%acc) : (tensor<i64>) -> tensor<i64>
      stablehlo.return %i1, %a1 : tensor<i64>, tensor<i64>
    }
  func.return %r#1 : tensor<i64>
}
)";
  auto bytes = CompileOrDie(src, "loop.mlir");
  ASSERT_FALSE(bytes.empty());
  vm::HostTensor n;
  n.type = ElementType::kSI64;
  int64_t ten = 10;
  n.data.resize(8);
  std::memcpy(n.data.data(), &ten, 8);
  auto results = Run(bytes, "main", {n});
  ASSERT_TRUE(results.ok()) << results.status().message();
  int64_t got;
  std::memcpy(&got, (*results)[0].data.data(), 8);
  EXPECT_EQ(got, 1024);
}

TEST_P(EndToEnd, ChloBroadcastOps) {
  const char* src = R"(
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>) {
  %0 = chlo.broadcast_add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xi1>
}
)";
  auto bytes = CompileOrDie(src, "chlo_broadcast.mlir");
  ASSERT_FALSE(bytes.empty());
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {10, 2, 5};
  auto results = Run(bytes, "main", {F32Tensor({2, 3}, a), F32Tensor({3}, b)});
  ASSERT_TRUE(results.ok()) << results.status().message();
  auto sum = F32Values((*results)[0]);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(sum[i], a[i] + b[i % 3]);
    EXPECT_EQ((*results)[1].data[i], a[i] < b[i % 3] ? 1 : 0);
  }
}

TEST_P(EndToEnd, WrongInputShapeIsReported) {
  auto bytes = CompileOrDie(ReadFile(std::string(KILN_SOURCE_DIR) + "/examples/spec_program.mlir"), "spec.mlir");
  auto results = Run(bytes, "main", {F32Tensor({2, 2}, {1, 2, 3, 4})});
  ASSERT_FALSE(results.ok());
  auto results2 = Run(bytes, "main", {F32Tensor({2, 2}, {1, 2, 3, 4}), F32Tensor({1}, {1}), F32Tensor({1}, {1})});
  ASSERT_FALSE(results2.ok());
  EXPECT_NE(results2.status().message().find("must be tensor<28x28xf32>"), std::string::npos)
      << results2.status().message();
}

TEST_P(EndToEnd, ArgumentsReadInPlaceAreNeitherWrittenNorKept) {
  // The CPU device reads Invoke's arguments in place: results that are the
  // argument itself or a view of it come back as copies, the caller's data
  // is untouched, and a later call sees new data.
  const char* src = R"(
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x3xf32>) {
  %0 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = stablehlo.add %x, %x : tensor<2x3xf32>
  return %x, %0, %1 : tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x3xf32>
}
)";
  auto bytes = CompileOrDie(src, "args.mlir");
  ASSERT_FALSE(bytes.empty());
  std::vector<float> v = {1, 2, 3, 4, 5, 6};
  vm::HostTensor x = F32Tensor({2, 3}, v);
  auto results = Run(bytes, "main", {x});
  ASSERT_TRUE(results.ok()) << results.status().message();
  EXPECT_EQ(F32Values(x), v);
  EXPECT_EQ(F32Values((*results)[0]), v);
  EXPECT_EQ(F32Values((*results)[1]), v);
  std::vector<float> doubled = {2, 4, 6, 8, 10, 12};
  EXPECT_EQ(F32Values((*results)[2]), doubled);
  std::fill(x.data.begin(), x.data.end(), 0);  // the results own their data
  EXPECT_EQ(F32Values((*results)[0]), v);
  auto again = context_->Invoke("main", {F32Tensor({2, 3}, doubled)});
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(F32Values((*again)[0]), doubled);
}

TEST_P(EndToEnd, SliceStrideNearTheInt64Limit) {
  // ceil((limit - start) / stride) without the overflow of
  // limit - start + stride - 1 (the verifier, both kernels, the dynamic-shape
  // rule); found by the module loader fuzzer's structure-aware mutator.
  const char* src = R"(
func.func @main(%x: tensor<3x3xf32>) -> tensor<1x2xf32> {
  %0 = "stablehlo.slice"(%x) {start_indices = array<i64: 1, 0>, limit_indices = array<i64: 3, 3>,
                              strides = array<i64: 9223372036854775807, 2>} : (tensor<3x3xf32>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}
)";
  auto bytes = CompileOrDie(src, "slice_stride.mlir");
  ASSERT_FALSE(bytes.empty());
  auto results = Run(bytes, "main", {F32Tensor({3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8})});
  ASSERT_TRUE(results.ok()) << results.status().message();
  EXPECT_EQ(F32Values((*results)[0]), (std::vector<float>{3, 5}));
}

INSTANTIATE_TEST_SUITE_P(CpuModes, EndToEnd, ::testing::Values(hal::CpuMode::kInline, hal::CpuMode::kDeferred),
                         [](const auto& info) { return info.param == hal::CpuMode::kInline ? "inline" : "deferred"; });

// A check op without its operand (found by parser_fuzzer): an error at the
// op's line, not an exception.
TEST(CompileErrors, CheckOpWithoutOperand) {
  const char* src = "func.func @t() {\n  check.expect_eq_const  func.return\n}\n";
  compiler::CompileOptions options;
  options.target = "cpu";
  auto bytes = compiler::Compile(src, "t.mlir", options, nullptr);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("t.mlir:2:3: error: check.expect_eq_const needs an operand"),
            std::string::npos)
      << bytes.status().message();
  auto probe = compiler::Compile(
      "func.func @t() {\n  %0 = \"interpreter.probe\"() : () -> tensor<f32>\n  func.return\n}\n", "t.mlir", options,
      nullptr);
  ASSERT_FALSE(probe.ok());
  EXPECT_NE(probe.status().message().find("t.mlir:2:8: error: interpreter.probe needs an operand"), std::string::npos)
      << probe.status().message();
}

// A test-dialect op given a result that nothing writes, a token operand, or
// a probe that changes its type (found by parser_fuzzer: a later use of the
// unwritten value threw in lowering).
TEST(CompileErrors, CheckOpSignatures) {
  compiler::CompileOptions options;
  options.target = "cpu";
  const std::pair<const char*, const char*> cases[] = {
      {"func.func @t(%a: tensor<2xf32>) {\n  %0 = \"interpreter.print\"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n"
       "  check.expect_serialized_eq %0, probe_id = \"p\" : tensor<2xf32>\n  func.return\n}\n",
       "t.mlir:2:8: error: interpreter.print has 0 results, not 1"},
      {"func.func @t(%a: !stablehlo.token) {\n  \"check.expect_serialized_eq\"(%a) {probe_id = \"p\"} : "
       "(!stablehlo.token) -> ()\n  func.return\n}\n",
       "t.mlir:2:3: error: check.expect_serialized_eq reads tensors, not !stablehlo.token"},
      {"func.func @t(%a: tensor<2xf32>) {\n  %0 = \"interpreter.probe\"(%a) {probe_id = \"p\"} : (tensor<2xf32>) -> "
       "tensor<3xf32>\n  func.return\n}\n",
       "t.mlir:2:8: error: interpreter.probe returns its operand's type tensor<2xf32>, not tensor<3xf32>"},
  };
  for (const auto& [src, want] : cases) {
    auto bytes = compiler::Compile(src, "t.mlir", options, nullptr);
    ASSERT_FALSE(bytes.ok()) << src;
    EXPECT_NE(bytes.status().message().find(want), std::string::npos) << bytes.status().message();
  }
}

// --- refusing bad module files --------------------------------------------

std::vector<uint8_t> SmallModule() {
  return CompileOrDie(ReadFile(std::string(KILN_SOURCE_DIR) + "/examples/spec_program.mlir"), "spec.mlir");
}

TEST(ModuleRefusal, EmptyFile) {
  auto m = vm::LoadModule({});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("empty"), std::string::npos) << m.status().message();
}

TEST(ModuleRefusal, TruncatedAtEverySize) {
  auto bytes = SmallModule();
  ASSERT_GT(bytes.size(), 64u);
  for (size_t n = 1; n < bytes.size(); n += std::max<size_t>(1, bytes.size() / 97)) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + n);
    auto m = vm::LoadModule(cut);
    EXPECT_FALSE(m.ok()) << "accepted a module truncated to " << n << " bytes";
  }
}

TEST(ModuleRefusal, CorruptedHeader) {
  auto bytes = SmallModule();
  bytes[4] ^= 0xff;  // the file identifier
  auto m = vm::LoadModule(bytes);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("not a Kiln module"), std::string::npos) << m.status().message();
  bytes = SmallModule();
  bytes[0] = 0xff;  // the root table offset
  bytes[1] = 0xff;
  EXPECT_FALSE(vm::LoadModule(bytes).ok());
}

TEST(ModuleRefusal, NewerMajorVersion) {
  compiler::ModuleBuilder b;
  auto bytes = SmallModule();
  // Rewrite the version through the schema: find the version field by
  // building a module whose major version is one more than ours.
  auto m = vm::LoadModule(bytes);
  ASSERT_TRUE(m.ok());
  // The serializer writes kFormatMajor; patch the stored value in place.
  flatbuffers::uoffset_t root = flatbuffers::ReadScalar<flatbuffers::uoffset_t>(bytes.data());
  const uint8_t* table = bytes.data() + root;
  flatbuffers::soffset_t vt_off = flatbuffers::ReadScalar<flatbuffers::soffset_t>(table);
  const uint8_t* vtable = table - vt_off;
  uint16_t field_off = flatbuffers::ReadScalar<uint16_t>(vtable + 4);  // field 0: version_major
  if (field_off == 0) GTEST_FAIL() << "version_major is not stored (default 0); cannot patch";
  uint16_t newer = vm::kFormatMajor + 1;
  std::memcpy(bytes.data() + root + field_off, &newer, 2);
  auto refused = vm::LoadModule(bytes);
  ASSERT_FALSE(refused.ok());
  std::string msg = refused.status().message();
  EXPECT_NE(msg.find(std::to_string(newer) + "."), std::string::npos) << msg;
  EXPECT_NE(msg.find("this runtime reads version " + std::to_string(vm::kFormatMajor) + "."), std::string::npos) << msg;
}

TEST(ModuleRefusal, BitFlipsNeverCrash) {
  auto bytes = SmallModule();
  int refused = 0;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    auto copy = bytes;
    copy[i] ^= static_cast<uint8_t>(1u << (i % 8));
    auto m = vm::LoadModule(copy);
    if (!m.ok()) {
      ++refused;
      EXPECT_FALSE(m.status().message().empty());
    }
  }
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace kiln

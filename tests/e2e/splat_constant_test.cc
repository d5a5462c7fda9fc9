// Splat constants (`dense<0.5> : tensor<1048576xf32>`, as the StableHLO
// tools print a broadcast scalar) are never stored element by element: one
// read by an elementwise op becomes a constant step of its program, one read
// elsewhere (returned, a dot_general operand) is written by a dispatch of a
// one-step program. The module holds no copies and loading it allocates none;
// the results are the values the splat stands for, in both CPU driver modes.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "vm/context.h"

namespace kiln {
namespace {

constexpr int64_t kN = 1 << 20;  // 4 MB of f32: far above the stored-constant bound

std::shared_ptr<const vm::LoadedModule> CompileAndLoad(const std::string& source) {
  compiler::CompileOptions options;
  options.target = "cpu";
  auto bytes = compiler::Compile(source, "splat.mlir", options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  if (!bytes.ok()) return nullptr;
  EXPECT_LT(bytes->size(), 64u * 1024) << "the module stores the splat";
  auto module = vm::LoadModule(bytes.value());
  EXPECT_TRUE(module.ok()) << module.status().message();
  return module.ok() ? *module : nullptr;
}

std::vector<float> Floats(const vm::HostTensor& t) {
  std::vector<float> v(t.data.size() / 4);
  if (!v.empty()) std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

vm::HostTensor F32(std::vector<int64_t> dims, const std::vector<float>& values) {
  vm::HostTensor t;
  t.type = ElementType::kF32;
  t.dims = std::move(dims);
  t.data.resize(values.size() * 4);
  if (!values.empty()) std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

class SplatConstant : public ::testing::TestWithParam<hal::CpuMode> {
 protected:
  StatusOr<std::vector<vm::HostTensor>> Run(const std::shared_ptr<const vm::LoadedModule>& module,
                                            const std::vector<vm::HostTensor>& inputs) {
    device_ = hal::CreateCpuDevice(GetParam(), 2);
    auto ctx = vm::Context::Create(module, device_.get());
    if (!ctx.ok()) return ctx.status();
    ctx_ = std::move(ctx.value());
    return ctx_->Invoke("main", inputs);
  }
  std::unique_ptr<hal::Device> device_;
  std::unique_ptr<vm::Context> ctx_;
};

TEST_P(SplatConstant, ReadByOneElementwiseOpIsAConstantStep) {
  const std::string t = "tensor<" + std::to_string(kN) + "xf32>";
  auto module = CompileAndLoad("func.func @main(%a: " + t + ") -> " + t + " {\n  %c = stablehlo.constant dense<0.5> : " +
                               t + "\n  %0 = stablehlo.add %a, %c : " + t + "\n  return %0 : " + t + "\n}\n");
  ASSERT_TRUE(module);
  EXPECT_TRUE(module->constants.empty());
  EXPECT_EQ(module->executables.size(), 1u);  // the add, the splat inside its program
  std::vector<float> a(kN);
  for (int64_t i = 0; i < kN; ++i) a[i] = static_cast<float>(i % 1000) - 500.0f;
  auto r = Run(module, {F32({kN}, a)});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto out = Floats((*r)[0]);
  ASSERT_EQ(out.size(), static_cast<size_t>(kN));
  for (int64_t i = 0; i < kN; ++i) ASSERT_EQ(out[i], a[i] + 0.5f) << i;
}

TEST_P(SplatConstant, ReturnedOrReadByADotIsWrittenByADispatch) {
  // Returned as it is (1M f32, 40000 i32, complex, i1) and as a dot operand
  // (512x512: each output is 512 * 0.25 * x).
  auto module = CompileAndLoad(R"(
func.func @main(%x: tensor<4x512xf32>) -> (tensor<1048576xf32>, tensor<40000xi32>, tensor<2x20000xcomplex<f32>>,
                                           tensor<70000xi1>, tensor<4x512xf32>, tensor<3xf32>) {
  %a = stablehlo.constant dense<0.5> : tensor<1048576xf32>
  %b = stablehlo.constant dense<-7> : tensor<40000xi32>
  %c = stablehlo.constant dense<(1.5, -2.0)> : tensor<2x20000xcomplex<f32>>
  %d = stablehlo.constant dense<true> : tensor<70000xi1>
  %w = stablehlo.constant dense<0.25> : tensor<512x512xf32>
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x512xf32>, tensor<512x512xf32>) -> tensor<4x512xf32>
  %s = stablehlo.constant dense<2.0> : tensor<3xf32>
  return %a, %b, %c, %d, %y, %s : tensor<1048576xf32>, tensor<40000xi32>, tensor<2x20000xcomplex<f32>>,
                                  tensor<70000xi1>, tensor<4x512xf32>, tensor<3xf32>
}
)");
  ASSERT_TRUE(module);
  // Only the small splat is stored: below the bound a constant costs less
  // than a dispatch per use.
  ASSERT_EQ(module->constants.size(), 1u);
  EXPECT_EQ(module->constants[0].size, 12u);
  std::vector<float> x(4 * 512);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 3.0f;
  auto r = Run(module, {F32({4, 512}, x)});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 6u);
  for (float v : Floats((*r)[0])) ASSERT_EQ(v, 0.5f);
  ASSERT_EQ((*r)[1].data.size(), 40000u * 4);
  for (size_t i = 0; i < 40000; ++i) {
    int32_t v;
    std::memcpy(&v, (*r)[1].data.data() + 4 * i, 4);
    ASSERT_EQ(v, -7) << i;
  }
  const auto c = Floats((*r)[2]);
  ASSERT_EQ(c.size(), 2u * 2 * 20000);
  for (size_t i = 0; i < c.size(); i += 2) ASSERT_TRUE(c[i] == 1.5f && c[i + 1] == -2.0f) << i;
  ASSERT_EQ((*r)[3].data.size(), 70000u);
  for (uint8_t v : (*r)[3].data) ASSERT_EQ(v, 1);
  const auto y = Floats((*r)[4]);
  for (int row = 0; row < 4; ++row) {
    float sum = 0;
    for (int k = 0; k < 512; ++k) sum += x[row * 512 + k] * 0.25f;
    for (int col = 0; col < 512; ++col) ASSERT_NEAR(y[row * 512 + col], sum, 1e-3) << row << "," << col;
  }
  EXPECT_EQ(Floats((*r)[5]), (std::vector<float>{2, 2, 2}));
}

INSTANTIATE_TEST_SUITE_P(Modes, SplatConstant, ::testing::Values(hal::CpuMode::kInline, hal::CpuMode::kDeferred));

}  // namespace
}  // namespace kiln

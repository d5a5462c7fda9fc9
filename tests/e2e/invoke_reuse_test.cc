// Context::Invoke's forms for repeated calls (vm/context.h): results written
// into the tensors of the call before, reusing their storage whatever the
// next results are (another size, a tuple, fewer of them); inputs borrowed
// from the caller and read in place, checked like host tensors. Both CPU
// driver modes.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "vm/context.h"

namespace kiln {
namespace {

constexpr char kSource[] = R"(
func.func public @twice(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.add %x, %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func public @pair(%x: tensor<?xf32>) -> tuple<tensor<?xf32>, tensor<?xf32>> {
  %0 = stablehlo.negate %x : tensor<?xf32>
  %t = stablehlo.tuple %x, %0 : tuple<tensor<?xf32>, tensor<?xf32>>
  return %t : tuple<tensor<?xf32>, tensor<?xf32>>
}
)";

vm::HostTensor F32(const std::vector<float>& values) {
  vm::HostTensor t;
  t.type = ElementType::kF32;
  t.dims = {static_cast<int64_t>(values.size())};
  t.data.resize(values.size() * 4);
  if (!values.empty()) std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

std::vector<float> Floats(const vm::HostTensor& t) {
  std::vector<float> v(t.data.size() / 4);
  if (!v.empty()) std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

std::vector<float> Ramp(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(i) - 3.0f;
  return v;
}

class InvokeReuse : public ::testing::TestWithParam<hal::CpuMode> {
 protected:
  void SetUp() override {
    compiler::CompileOptions options;
    options.target = "cpu";
    auto bytes = compiler::Compile(kSource, "invoke_reuse.mlir", options, nullptr);
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    auto module = vm::LoadModule(bytes.value());
    ASSERT_TRUE(module.ok()) << module.status().message();
    device_ = hal::CreateCpuDevice(GetParam(), 2);
    auto ctx = vm::Context::Create(*module, device_.get());
    ASSERT_TRUE(ctx.ok()) << ctx.status().message();
    ctx_ = std::move(ctx.value());
  }
  std::unique_ptr<hal::Device> device_;
  std::unique_ptr<vm::Context> ctx_;
};

TEST_P(InvokeReuse, ResultsReuseTheStorageOfTheCallBefore) {
  std::vector<vm::HostTensor> results;
  for (size_t n : {size_t{1000}, size_t{1000}, size_t{10}, size_t{5001}, size_t{0}, size_t{1000}}) {
    SCOPED_TRACE(n);
    const auto x = Ramp(n, 0.5f + static_cast<float>(n % 7));
    const uint8_t* before = results.empty() ? nullptr : results[0].data.data();
    const size_t capacity = results.empty() ? 0 : results[0].data.capacity();
    ASSERT_TRUE(ctx_->Invoke("twice", {F32(x)}, {}, &results).ok());
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].dims, std::vector<int64_t>{static_cast<int64_t>(n)});
    const auto out = Floats(results[0]);
    ASSERT_EQ(out.size(), n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 2 * x[i]) << i;
    // A result no larger than the storage it lands in is copied in place.
    if (n * 4 <= capacity && n > 0) {
      EXPECT_EQ(results[0].data.data(), before);
    }
  }
}

TEST_P(InvokeReuse, ResultsOfAnotherKindReplaceWhatWasThere) {
  std::vector<vm::HostTensor> results(3);  // more than the call returns
  results[1].dims = {9};
  ASSERT_TRUE(ctx_->Invoke("twice", {F32(Ramp(64, 1))}, {}, &results).ok());
  ASSERT_EQ(results.size(), 1u);
  ASSERT_TRUE(ctx_->Invoke("pair", {F32(Ramp(8, 1))}, {}, &results).ok());
  ASSERT_EQ(results.size(), 1u);
  ASSERT_TRUE(results[0].is_tuple);
  EXPECT_TRUE(results[0].data.empty());
  EXPECT_TRUE(results[0].dims.empty());
  ASSERT_EQ(results[0].tuple_elements.size(), 2u);
  EXPECT_EQ(Floats(results[0].tuple_elements[0]), Ramp(8, 1));
  auto negated = Ramp(8, 1);
  for (float& v : negated) v = -v;
  EXPECT_EQ(Floats(results[0].tuple_elements[1]), negated);
  ASSERT_TRUE(ctx_->Invoke("twice", {F32(Ramp(4, 1))}, {}, &results).ok());
  EXPECT_FALSE(results[0].is_tuple);
  EXPECT_TRUE(results[0].tuple_elements.empty());
  EXPECT_EQ(Floats(results[0]), (std::vector<float>{-6, -4, -2, 0}));
}

TEST_P(InvokeReuse, BorrowedInputsAreReadInPlaceAndChecked) {
  std::vector<float> x = Ramp(333, 0.25f);
  int64_t dims[1] = {333};
  std::vector<vm::HostTensor> results;
  const vm::BorrowedTensor in{ElementType::kF32, dims, 1, x.data(), x.size() * 4};
  ASSERT_TRUE(ctx_->Invoke("twice", std::vector<vm::BorrowedTensor>{in}, {}, &results).ok());
  const auto out = Floats(results[0]);
  ASSERT_EQ(out.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(out[i], 2 * x[i]) << i;

  auto message = [&](vm::BorrowedTensor b) {
    Status s = ctx_->Invoke("twice", std::vector<vm::BorrowedTensor>{b}, {}, &results);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    return s.message();
  };
  vm::BorrowedTensor short_data = in;
  short_data.byte_size -= 4;
  EXPECT_NE(message(short_data).find("holds 1328 bytes, its shape needs 1332"), std::string::npos);
  vm::BorrowedTensor no_data = in;
  no_data.data = nullptr;
  EXPECT_NE(message(no_data).find("data is missing"), std::string::npos);
  vm::BorrowedTensor no_dims = in;
  no_dims.dims = nullptr;
  EXPECT_NE(message(no_dims).find("has no dimensions"), std::string::npos);
  vm::BorrowedTensor wrong_type = in;
  wrong_type.type = ElementType::kSI32;
  EXPECT_NE(message(wrong_type).find("must be tensor<?xf32>, got 333xi32"), std::string::npos) << message(wrong_type);
  vm::BorrowedTensor rank0 = in;
  rank0.rank = 0;
  EXPECT_NE(message(rank0).find("must be tensor<?xf32>"), std::string::npos);
  EXPECT_NE(ctx_->Invoke("twice", std::vector<vm::BorrowedTensor>{}, {}, &results).message().find("takes 1 input"),
            std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Modes, InvokeReuse, ::testing::Values(hal::CpuMode::kInline, hal::CpuMode::kDeferred));

}  // namespace
}  // namespace kiln

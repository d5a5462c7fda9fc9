// tools::DispatchComparer (tools/common/dispatch_compare.h), fed dispatches
// by hand on a real CPU device: it finds the first element beyond
// tolerance, names the dispatch's source line from the module, lets NaN
// match NaN, holds integers exact, compares against the inputs as they were
// before a dispatch that writes over them, and refuses an untagged dispatch.
#include "tools/common/dispatch_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "hal/cpu/cpu_device.h"
#include "vm/profiler.h"

namespace kiln::tools {
namespace {

// A module of one function whose instruction 1 dispatches executable 0
// (`kernel`, with the integer attribute `attr` = `value`), at line 7,
// column 9 of prog.mlir. By default a concatenation along dimension 0.
std::shared_ptr<const vm::LoadedModule> OneDispatch(const std::string& kernel = "stablehlo.concatenate",
                                                    const std::string& attr = "dimension", int64_t value = 0) {
  auto m = std::make_shared<vm::LoadedModule>();
  m->source_file = "prog.mlir";
  vm::LoadedFunction f;
  f.name = "f";
  vm::Instruction nop;
  nop.op = vm::Opcode::kReturn;
  nop.pc = 0;
  vm::Instruction d;
  d.op = vm::Opcode::kDispatch;
  d.pc = 10;
  d.operands.resize(3);
  d.operands[0].kind = 'e';
  d.operands[0].value = 0;
  f.code = {nop, d};
  f.locations = {{0, 3, 5}, {10, 7, 9}};
  m->functions.push_back(std::move(f));
  KernelParams params{kernel, {}};
  params.attrs.push_back(KernelAttr{attr, {value}, {}, "", false, {}});
  m->executables.push_back(std::move(params));
  return m;
}

template <typename T>
hal::BufferView View(hal::Device& device, ElementType type, const std::vector<T>& values) {
  hal::BufferView v;
  v.type = type;
  v.dims = {static_cast<int64_t>(values.size())};
  v.buffer = device.AllocateCopy(values.data(), values.size() * sizeof(T)).value();
  return v;
}

template <typename T>
void Write(hal::Device& device, const hal::BufferView& v, const std::vector<T>& values) {
  ASSERT_TRUE(device.Upload(*v.buffer, v.offset, values.data(), values.size() * sizeof(T)).ok());
}

struct Dispatch {
  std::vector<hal::BufferView> inputs, outputs;
  hal::DispatchSpan span;
  Dispatch(std::vector<hal::BufferView> in, std::vector<hal::BufferView> out, uint64_t tag = vm::MakeDispatchTag(0, 1))
      : inputs(std::move(in)), outputs(std::move(out)) {
    span.tag = tag;
    span.inputs = &inputs;
    span.outputs = &outputs;
  }
};

class DispatchCompareTest : public ::testing::Test {
 protected:
  std::unique_ptr<hal::Device> device_ = hal::CreateCpuDevice(hal::CpuMode::kInline, 1);
  std::vector<float> a_, b_, both_;  // both_: a_ then b_
  void SetUp() override {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-3, 3);
    for (int i = 0; i < 37; ++i) {  // an odd size
      a_.push_back(u(rng));
      b_.push_back(u(rng));
    }
    both_ = a_;
    both_.insert(both_.end(), b_.begin(), b_.end());
  }
};

TEST_F(DispatchCompareTest, FindsTheFirstElementBeyondTolerance) {
  DispatchComparer c(OneDispatch(), device_.get(), CompareTolerance{}, nullptr);
  std::vector<float> got = both_;
  got[23] += 0.5f;
  got[30] -= 0.25f;
  got[5] *= 1 + 1e-6f;  // within the f32 default of 1e-4
  Dispatch r({View(*device_, ElementType::kF32, a_), View(*device_, ElementType::kF32, b_)},
        {View(*device_, ElementType::kF32, std::vector<float>(74, 0))});
  c.BeforeDispatch(r.span);
  Write(*device_, r.outputs[0], got);
  c.OnDispatch(r.span);
  ASSERT_TRUE(c.error().ok()) << c.error().message();
  ASSERT_TRUE(c.mismatch());
  const DispatchMismatch& m = *c.mismatch();
  EXPECT_EQ(m.dispatch, 1u);
  EXPECT_EQ(m.params->kernel, "stablehlo.concatenate");
  EXPECT_EQ(m.function, "f");
  EXPECT_EQ(m.line, 7u);
  EXPECT_EQ(m.col, 9u);
  EXPECT_EQ(m.index, 23);
  EXPECT_EQ(m.differing, 2);
  EXPECT_NEAR(m.max_abs, 0.5, 1e-6);
  float want;
  std::memcpy(&want, m.want[0].data.data() + 23 * 4, 4);
  EXPECT_EQ(want, both_[23]);
  const std::string report = c.Report();
  EXPECT_NE(report.find("stablehlo.concatenate in @f at prog.mlir:7:9"), std::string::npos) << report;
  EXPECT_NE(report.find("element [23] (flat 23)"), std::string::npos) << report;
  EXPECT_NE(report.find("2 of 74 elements differ"), std::string::npos) << report;
}

TEST_F(DispatchCompareTest, WithinToleranceAndNanMatch) {
  DispatchComparer c(OneDispatch(), device_.get(), CompareTolerance{}, nullptr);
  a_[3] = std::nanf("");
  std::vector<float> got = both_;
  got[3] = std::nanf("");
  for (float& g : got) g *= 1 + 2e-5f;
  Dispatch r({View(*device_, ElementType::kF32, a_), View(*device_, ElementType::kF32, b_)},
        {View(*device_, ElementType::kF32, std::vector<float>(74, 0))});
  c.BeforeDispatch(r.span);
  Write(*device_, r.outputs[0], got);
  c.OnDispatch(r.span);
  EXPECT_TRUE(c.error().ok()) << c.error().message();
  EXPECT_FALSE(c.mismatch());
  EXPECT_NE(c.Report().find("1 of 1 dispatches compared, all within tolerance"), std::string::npos) << c.Report();
  // The same error is a mismatch under a tolerance given tighter.
  DispatchComparer tight(OneDispatch(), device_.get(), CompareTolerance{1e-7, 1e-7}, nullptr);
  tight.BeforeDispatch(r.span);
  tight.OnDispatch(r.span);
  EXPECT_TRUE(tight.mismatch());
}

TEST_F(DispatchCompareTest, IntegersAreExact) {
  DispatchComparer c(OneDispatch(), device_.get(), CompareTolerance{100, 100}, nullptr);
  std::vector<int32_t> x = {1, 2, 3, 4, 5}, y = {10, 20, 30, 40, 50}, got = {1, 2, 3, 4, 5, 10, 20, 30, 40, 51};
  Dispatch r({View(*device_, ElementType::kSI32, x), View(*device_, ElementType::kSI32, y)},
        {View(*device_, ElementType::kSI32, std::vector<int32_t>(10, 0))});
  c.BeforeDispatch(r.span);
  Write(*device_, r.outputs[0], got);
  c.OnDispatch(r.span);
  ASSERT_TRUE(c.mismatch());
  EXPECT_EQ(c.mismatch()->index, 9);
  EXPECT_EQ(c.mismatch()->max_abs, 1);
}

// A dispatch that writes its result over its input: the reference reads
// the input as it was before the dispatch ran.
TEST_F(DispatchCompareTest, InPlaceDispatchUsesTheInputsBeforeIt) {
  DispatchComparer c(OneDispatch("stablehlo.reverse", "dimensions", 0), device_.get(), CompareTolerance{}, nullptr);
  Dispatch r({View(*device_, ElementType::kF32, a_)}, {});
  r.outputs.push_back(r.inputs[0]);  // the reverse writes over its input
  c.BeforeDispatch(r.span);
  Write(*device_, r.outputs[0], std::vector<float>(a_.rbegin(), a_.rend()));
  c.OnDispatch(r.span);
  EXPECT_TRUE(c.error().ok()) << c.error().message();
  EXPECT_FALSE(c.mismatch()) << c.Report();
  EXPECT_NE(c.Report().find("1 of 1 dispatches compared"), std::string::npos) << c.Report();
}

// Only the first mismatch is kept: comparing stops there.
TEST_F(DispatchCompareTest, StopsAtTheFirstMismatch) {
  DispatchComparer c(OneDispatch(), device_.get(), CompareTolerance{}, nullptr);
  Dispatch r({View(*device_, ElementType::kF32, a_), View(*device_, ElementType::kF32, b_)},
        {View(*device_, ElementType::kF32, std::vector<float>(74, 0))});
  for (int k = 0; k < 2; ++k) {
    c.BeforeDispatch(r.span);
    std::vector<float> got = both_;
    got[k == 0 ? 11 : 2] += 1;
    Write(*device_, r.outputs[0], got);
    c.OnDispatch(r.span);
  }
  ASSERT_TRUE(c.mismatch());
  EXPECT_EQ(c.mismatch()->dispatch, 1u);
  EXPECT_EQ(c.mismatch()->index, 11);
}

TEST_F(DispatchCompareTest, UntaggedDispatchIsAnError) {
  DispatchComparer c(OneDispatch(), device_.get(), CompareTolerance{}, nullptr);
  Dispatch r({View(*device_, ElementType::kF32, a_), View(*device_, ElementType::kF32, b_)},
        {View(*device_, ElementType::kF32, both_)}, /*tag=*/0);
  c.BeforeDispatch(r.span);
  c.OnDispatch(r.span);
  EXPECT_FALSE(c.error().ok());
  EXPECT_FALSE(c.mismatch());
}

TEST(CompareToleranceTest, DefaultsPerTypeAndGiven) {
  CompareTolerance t;
  EXPECT_EQ(t.Atol(ElementType::kF64), 1e-9);
  EXPECT_EQ(t.Atol(ElementType::kF32), 1e-4);
  EXPECT_EQ(t.Rtol(ElementType::kBF16), 1e-2);
  EXPECT_EQ(t.Atol(ElementType::kC64), 1e-4);
  CompareTolerance given{0.5, 0.25};
  EXPECT_EQ(given.Atol(ElementType::kF64), 0.5);
  EXPECT_EQ(given.Rtol(ElementType::kF16), 0.25);
}

}  // namespace
}  // namespace kiln::tools

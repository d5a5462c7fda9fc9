// InvokeOptions a caller sets per call (vm/context.h): the time limit
// (timeout) ends an endless loop with DeadlineExceeded, on the scalar path
// and with device work, in every CPU driver mode, leaves the context usable
// for the next call, and does not touch a call that finishes in time; only
// public functions are entry points unless allow_private is set. The cancel
// flag, set from another thread, ends the same loops with Cancelled and
// leaves the context usable; a flag never set changes nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "vm/context.h"

namespace kiln {
namespace {

constexpr char kSource[] = R"(
func.func public @spin(%n: tensor<i64>) -> tensor<i64> {
  %r = stablehlo.while(%i = %n) : tensor<i64>
    cond {
      %t = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i64>
      %j = stablehlo.add %i, %one : tensor<i64>
      stablehlo.return %j : tensor<i64>
    }
  return %r : tensor<i64>
}
func.func public @spin_tensor(%x: tensor<16xf32>) -> tensor<16xf32> {
  %r = stablehlo.while(%v = %x) : tensor<16xf32>
    cond {
      %t = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      %w = stablehlo.tanh %v : tensor<16xf32>
      stablehlo.return %w : tensor<16xf32>
    }
  return %r : tensor<16xf32>
}
func.func public @twice(%x: tensor<i64>) -> tensor<i64> {
  %y = func.call @hidden(%x) : (tensor<i64>) -> tensor<i64>
  return %y : tensor<i64>
}
func.func private @hidden(%x: tensor<i64>) -> tensor<i64> {
  %y = stablehlo.add %x, %x : tensor<i64>
  return %y : tensor<i64>
}
)";

vm::HostTensor Scalar64(int64_t v) {
  vm::HostTensor t;
  t.type = ElementType::kSI64;
  t.data.resize(8);
  std::memcpy(t.data.data(), &v, 8);
  return t;
}

vm::HostTensor Floats16() {
  vm::HostTensor t;
  t.type = ElementType::kF32;
  t.dims = {16};
  t.data.assign(16 * 4, 0);
  return t;
}

class CallOptions : public ::testing::TestWithParam<hal::CpuMode> {
 protected:
  void SetUp() override {
    compiler::CompileOptions options;
    options.target = "cpu";
    auto bytes = compiler::Compile(kSource, "call_options.mlir", options, nullptr);
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    auto module = vm::LoadModule(bytes.value());
    ASSERT_TRUE(module.ok()) << module.status().message();
    device_ = hal::CreateCpuDevice(GetParam(), 1);
    auto ctx = vm::Context::Create(*module, device_.get());
    ASSERT_TRUE(ctx.ok()) << ctx.status().message();
    ctx_ = std::move(ctx.value());
  }
  // Runs `function` with a 100 ms limit; it must end near the limit with
  // "timed out after 0.1 s" at a source location.
  void ExpectTimesOut(const std::string& function, const vm::HostTensor& input) {
    vm::InvokeOptions options;
    options.timeout = std::chrono::milliseconds(100);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = ctx_->Invoke(function, {input}, options);
    const auto elapsed = std::chrono::steady_clock::now() - t0;
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kDeadlineExceeded);
    EXPECT_NE(r.status().message().find("call_options.mlir:"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("timed out after 0.1 s"), std::string::npos) << r.status().message();
    EXPECT_GE(elapsed, std::chrono::milliseconds(100));
    EXPECT_LT(elapsed, std::chrono::seconds(10));
  }
  std::unique_ptr<hal::Device> device_;
  std::unique_ptr<vm::Context> ctx_;
};

TEST_P(CallOptions, TimeoutEndsScalarLoop) { ExpectTimesOut("spin", Scalar64(0)); }

TEST_P(CallOptions, TimeoutEndsLoopWithDeviceWork) { ExpectTimesOut("spin_tensor", Floats16()); }

TEST_P(CallOptions, ContextUsableAfterTimeout) {
  ExpectTimesOut("spin_tensor", Floats16());
  auto r = ctx_->Invoke("twice", {Scalar64(21)});
  ASSERT_TRUE(r.ok()) << r.status().message();
  int64_t v;
  std::memcpy(&v, (*r)[0].data.data(), 8);
  EXPECT_EQ(v, 42);
}

TEST_P(CallOptions, CallWithinItsTimeoutRuns) {
  vm::InvokeOptions options;
  options.timeout = std::chrono::seconds(60);
  auto r = ctx_->Invoke("twice", {Scalar64(5)}, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  int64_t v;
  std::memcpy(&v, (*r)[0].data.data(), 8);
  EXPECT_EQ(v, 10);
}

TEST_P(CallOptions, PrivateFunctionIsNotAnEntryPoint) {
  auto refused = ctx_->Invoke("hidden", {Scalar64(5)});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "function 'hidden' is private: only the module's public functions can be called");
  vm::InvokeOptions options;
  options.allow_private = true;
  auto allowed = ctx_->Invoke("hidden", {Scalar64(5)}, options);
  ASSERT_TRUE(allowed.ok()) << allowed.status().message();
}

// Runs `function` with a cancel flag that another thread sets after 50 ms;
// it must end soon after with "cancelled" at a source location.
void ExpectCancelled(vm::Context& ctx, const std::string& function, const vm::HostTensor& input) {
  std::atomic<bool> cancel{false};
  vm::InvokeOptions options;
  options.cancel = &cancel;
  std::chrono::steady_clock::time_point cancelled_at;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancelled_at = std::chrono::steady_clock::now();
    cancel.store(true);
  });
  auto r = ctx.Invoke(function, {input}, options);
  const auto returned_at = std::chrono::steady_clock::now();
  canceller.join();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_NE(r.status().message().find("call_options.mlir:"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find(": cancelled"), std::string::npos) << r.status().message();
  // A bound on a behaviour (the loop stops), not a speed: checks come every
  // few microseconds, and a loaded CI machine may deschedule us for a while.
  EXPECT_LT(returned_at - cancelled_at, std::chrono::seconds(2));
}

TEST_P(CallOptions, CancelEndsScalarLoop) { ExpectCancelled(*ctx_, "spin", Scalar64(0)); }

TEST_P(CallOptions, CancelEndsLoopWithDeviceWork) {
  ExpectCancelled(*ctx_, "spin_tensor", Floats16());
  // The context runs the next call.
  auto r = ctx_->Invoke("twice", {Scalar64(4)});
  ASSERT_TRUE(r.ok()) << r.status().message();
  int64_t v;
  std::memcpy(&v, (*r)[0].data.data(), 8);
  EXPECT_EQ(v, 8);
}

TEST_P(CallOptions, UnsetCancelFlagChangesNothing) {
  std::atomic<bool> cancel{false};
  vm::InvokeOptions options;
  options.cancel = &cancel;
  auto r = ctx_->Invoke("twice", {Scalar64(7)}, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  int64_t v;
  std::memcpy(&v, (*r)[0].data.data(), 8);
  EXPECT_EQ(v, 14);
}

INSTANTIATE_TEST_SUITE_P(Modes, CallOptions, ::testing::Values(hal::CpuMode::kInline, hal::CpuMode::kDeferred));

}  // namespace
}  // namespace kiln

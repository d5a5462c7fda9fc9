// Dispatch timing on the Vulkan device (timestamp queries, hal/trace.h):
// with a profiler attached, every dispatch the device runs is reported once,
// with its op and source line, a span that lies inside its call, and the
// device's own duration; with none attached nothing is reported. Runs under
// the validation layer (the fixture fails on any message).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tests/hal/vulkan/vulkan_test_fixture.h"
#include "vm/profiler.h"

namespace kiln::vulkan_test {
namespace {

// Counts what the device reports, checking each span as it comes.
class Spans final : public hal::DispatchObserver {
 public:
  void OnDispatch(const hal::DispatchSpan& s) override {
    std::lock_guard<std::mutex> l(mu_);
    ++count_;
    if (s.end < s.begin || !s.executable || !s.inputs || !s.outputs || s.tag == 0) ++bad_;
    if (first_ == std::chrono::steady_clock::time_point{} || s.begin < first_) first_ = s.begin;
    if (s.end > last_) last_ = s.end;
    busy_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(s.end - s.begin).count();
  }
  std::mutex mu_;
  size_t count_ = 0, bad_ = 0;
  int64_t busy_ns_ = 0;
  std::chrono::steady_clock::time_point first_, last_;
};

const char* kProgram = R"(
func.func @main(%a: tensor<257x33xf32>, %b: tensor<33x65xf32>) -> tensor<257x65xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<257x33xf32>, tensor<33x65xf32>) -> tensor<257x65xf32>
  %1 = stablehlo.exponential %0 : tensor<257x65xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %2 = stablehlo.reduce(%1 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<257x65xf32>, tensor<f32>) -> tensor<257xf32>
  %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<257xf32>) -> tensor<257x65xf32>
  %4 = stablehlo.divide %1, %3 : tensor<257x65xf32>
  return %4 : tensor<257x65xf32>
}
)";

TEST_F(VulkanTest, DispatchesAreTimedWithTimestampQueries) {
  auto module = vm::LoadModule(CompileAll(kProgram, "vulkan"));
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto ctx = vm::Context::Create(*module, vulkan_.get());
  ASSERT_TRUE(ctx.ok()) << ctx.status().message();
  std::mt19937_64 rng(3);
  vm::HostTensor a = RandomF32({257, 33}, rng, std::uniform_real_distribution<float>(-0.1f, 0.1f));
  vm::HostTensor b = RandomF32({33, 65}, rng, std::uniform_real_distribution<float>(-0.1f, 0.1f));

  auto spans = std::make_shared<Spans>();
  if (!vulkan_->SetDispatchObserver(spans)) GTEST_SKIP() << "this Vulkan device has no compute timestamps";
  auto profiler = std::make_shared<vm::Profiler>(*module, vulkan_->name());
  vm::InvokeOptions options;
  options.profiler = profiler.get();  // tags the dispatches; the spans go to `spans`
  const uint64_t before = vulkan_->stats().dispatches;
  const auto call_begin = std::chrono::steady_clock::now();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*ctx)->Invoke("main", {a, b}, options).ok());
  const auto call_end = std::chrono::steady_clock::now();
  const uint64_t dispatches = vulkan_->stats().dispatches - before;
  ASSERT_GT(dispatches, 0u);
  {
    std::lock_guard<std::mutex> l(spans->mu_);
    EXPECT_EQ(spans->count_, dispatches);
    EXPECT_EQ(spans->bad_, 0u);
    EXPECT_GE(spans->first_, call_begin);
    EXPECT_LE(spans->last_, call_end);
    EXPECT_GT(spans->busy_ns_, 0);  // a 257x33x65 matmul takes some time, even on lavapipe
  }

  // The profiler as the tools use it: one slice per dispatch, labelled.
  ASSERT_TRUE(vulkan_->SetDispatchObserver(profiler));
  ASSERT_TRUE((*ctx)->Invoke("main", {a, b}, options).ok());
  EXPECT_EQ(profiler->dispatch_count() * 3, dispatches);
  const std::string json = profiler->ChromeTraceJson();
  EXPECT_NE(json.find("\"location\": \"test.mlir:"), std::string::npos) << json.substr(0, 1500);
  EXPECT_NE(json.find("257x33xf32"), std::string::npos);

  // Detached: nothing more is reported, and the results are unchanged.
  ASSERT_TRUE(vulkan_->SetDispatchObserver(nullptr));
  const size_t reported = profiler->dispatch_count();
  auto timed = (*ctx)->Invoke("main", {a, b}, options);
  auto plain = (*ctx)->Invoke("main", {a, b});
  ASSERT_TRUE(timed.ok() && plain.ok());
  EXPECT_EQ(profiler->dispatch_count(), reported);
  EXPECT_EQ((*timed)[0].data, (*plain)[0].data);
}

}  // namespace
}  // namespace kiln::vulkan_test

// tools::MakeSteppingDevice (tools/common/stepping_device.h) over the CPU
// device: a submission's dispatches run one at a time, each reported to the
// observer before (its inputs final) and after (its outputs written) it
// runs, copies not reported; the submission's semaphore is signalled, and a
// failing dispatch fails it.
#include "tools/common/stepping_device.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>

#include "hal/cpu/cpu_device.h"
#include "kernels/common/kernel.h"

namespace kiln::tools {
namespace {

class Recorder final : public hal::DispatchObserver {
 public:
  explicit Recorder(hal::Device* device) : device_(device) {}
  void BeforeDispatch(const hal::DispatchSpan& span) override { events.push_back("before " + Read(span, true)); }
  void OnDispatch(const hal::DispatchSpan& span) override {
    events.push_back("after " + std::to_string(span.tag) + " " + Read(span, false));
  }
  std::vector<std::string> events;

 private:
  // The first element of the first input or output, as an integer.
  std::string Read(const hal::DispatchSpan& span, bool input) {
    const hal::BufferView& v = (input ? *span.inputs : *span.outputs)[0];
    float x = 0;
    EXPECT_TRUE(device_->Download(*v.buffer, v.offset, &x, sizeof x).ok());
    return std::to_string(static_cast<int>(x));
  }
  hal::Device* device_;
};

std::shared_ptr<hal::Executable> Reverse(hal::Device& device) {
  auto params = std::make_shared<KernelParams>();
  params->kernel = "stablehlo.reverse";
  params->attrs.push_back(KernelAttr{"dimensions", {0}, {}, "", false, {}});
  hal::ExecutableSpec spec;
  spec.name = params->kernel;
  spec.Add<KernelParams>(kKernelFormat, params);
  return device.PrepareExecutable(spec).value();
}

hal::BufferView Floats(hal::Device& device, std::vector<float> values) {
  hal::BufferView v;
  v.type = ElementType::kF32;
  v.dims = {static_cast<int64_t>(values.size())};
  v.buffer = device.AllocateCopy(values.data(), values.size() * sizeof(float)).value();
  return v;
}

TEST(SteppingDevice, ReportsEachDispatchBeforeAndAfterItRuns) {
  auto device = MakeSteppingDevice(hal::CreateCpuDevice(hal::CpuMode::kDeferred, 1));
  EXPECT_EQ(device->name().rfind("cpu (deferred", 0), 0u) << device->name();
  auto recorder = std::make_shared<Recorder>(device.get());
  ASSERT_TRUE(device->SetDispatchObserver(recorder));
  auto exe = Reverse(*device);
  hal::BufferView a = Floats(*device, {1, 2, 3}), b = Floats(*device, {0, 0, 0}), c = Floats(*device, {0, 0, 0}),
                  d = Floats(*device, {0, 0, 0});
  auto commands = device->CreateCommandBuffer();
  commands->TagNextDispatch(11);
  commands->Dispatch(exe, {a}, {b});  // b = 3, 2, 1
  commands->Copy(b, c);               // c = 3, 2, 1: not reported
  commands->TagNextDispatch(12);
  commands->Dispatch(exe, {c}, {d});  // d = 1, 2, 3
  auto done = device->CreateSemaphore(0);
  ASSERT_TRUE(device->Submit(std::move(commands), {}, {done, 5}).ok());
  ASSERT_TRUE(done->Wait(5, std::chrono::seconds(10)).ok());
  EXPECT_EQ(recorder->events, (std::vector<std::string>{"before 1", "after 11 3", "before 3", "after 12 1"}));
  float out[3];
  ASSERT_TRUE(device->Download(*d.buffer, 0, out, sizeof out).ok());
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[2], 3);
}

TEST(SteppingDevice, AFailingDispatchFailsTheSubmission) {
  auto device = MakeSteppingDevice(hal::CreateCpuDevice(hal::CpuMode::kInline, 1));
  auto exe = Reverse(*device);
  hal::BufferView a = Floats(*device, {1, 2, 3}), small = Floats(*device, {0});
  auto commands = device->CreateCommandBuffer();
  commands->Dispatch(exe, {a}, {small});  // an output of the wrong shape
  auto done = device->CreateSemaphore(0);
  ASSERT_TRUE(device->Submit(std::move(commands), {}, {done, 1}).ok());
  EXPECT_FALSE(done->Wait(1, std::chrono::seconds(10)).ok());
}

}  // namespace
}  // namespace kiln::tools

#include "tools/common/stepping_device.h"

#include <atomic>
#include <chrono>

#include "hal/host_semaphore.h"
#include "hal/recorded_command_buffer.h"

namespace kiln::tools {
namespace {

class SteppingDevice final : public hal::Device {
 public:
  explicit SteppingDevice(std::unique_ptr<hal::Device> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name(); }
  StatusOr<std::shared_ptr<hal::Buffer>> Allocate(size_t bytes) override { return inner_->Allocate(bytes); }
  StatusOr<std::shared_ptr<hal::Buffer>> AllocateUninitialized(size_t bytes) override {
    return inner_->AllocateUninitialized(bytes);
  }
  StatusOr<std::shared_ptr<hal::Buffer>> AllocateCopy(const void* data, size_t bytes) override {
    return inner_->AllocateCopy(data, bytes);
  }
  StatusOr<std::shared_ptr<hal::Buffer>> WrapHostMemory(const void* data, size_t bytes) override {
    return inner_->WrapHostMemory(data, bytes);
  }
  Status Upload(const hal::Buffer& b, size_t offset, const void* data, size_t bytes) override {
    return inner_->Upload(b, offset, data, bytes);
  }
  Status Download(const hal::Buffer& b, size_t offset, void* data, size_t bytes) override {
    return inner_->Download(b, offset, data, bytes);
  }
  StatusOr<std::shared_ptr<hal::Executable>> PrepareExecutable(const hal::ExecutableSpec& spec) override {
    return inner_->PrepareExecutable(spec);
  }
  // Recorded here, replayed command by command on the inner device.
  std::unique_ptr<hal::CommandBuffer> CreateCommandBuffer() override {
    return std::make_unique<hal::RecordedCommandBuffer>();
  }
  std::shared_ptr<hal::Semaphore> CreateSemaphore(uint64_t v) override { return inner_->CreateSemaphore(v); }
  hal::DeviceStats stats() const override { return inner_->stats(); }
  bool SetDispatchObserver(std::shared_ptr<hal::DispatchObserver> observer) override {
    std::atomic_store(&observer_, std::move(observer));
    return true;
  }

  // Synchronous: the submission has run when this returns (a later one
  // waits for nothing on the queue).
  Status Submit(std::unique_ptr<hal::CommandBuffer> commands, std::vector<hal::SemaphorePoint> waits,
                hal::SemaphorePoint signal) override {
    if (!signal.semaphore) return InvalidArgument("submission without a signal semaphore");
    if (Status s = hal::WaitForAll(waits); !s.ok()) {
      signal.semaphore->Fail(s);
      return Status::Ok();
    }
    const std::shared_ptr<hal::DispatchObserver> observer = std::atomic_load(&observer_);
    for (const hal::RecordedCommand& c : static_cast<const hal::RecordedCommandBuffer&>(*commands).commands()) {
      hal::DispatchSpan span;
      span.executable = c.executable.get();
      span.tag = c.tag;
      span.inputs = &c.inputs;
      span.outputs = &c.outputs;
      std::unique_ptr<hal::CommandBuffer> one = inner_->CreateCommandBuffer();
      if (c.is_copy()) {
        one->Copy(c.inputs[0], c.outputs[0]);
      } else {
        if (observer) observer->BeforeDispatch(span);
        one->TagNextDispatch(c.tag);
        one->Dispatch(c.executable, c.inputs, c.outputs);
      }
      span.begin = std::chrono::steady_clock::now();
      std::shared_ptr<hal::Semaphore> done = inner_->CreateSemaphore(0);
      Status s = inner_->Submit(std::move(one), {}, {done, 1});
      if (s.ok()) s = done->Wait(1, std::chrono::hours(24));
      if (!s.ok()) {
        signal.semaphore->Fail(s);
        return Status::Ok();
      }
      span.end = std::chrono::steady_clock::now();
      if (observer && !c.is_copy()) observer->OnDispatch(span);
    }
    signal.semaphore->Signal(signal.value);
    return Status::Ok();
  }

 private:
  std::unique_ptr<hal::Device> inner_;
  std::shared_ptr<hal::DispatchObserver> observer_;  // atomic_load/atomic_store
};

}  // namespace

std::unique_ptr<hal::Device> MakeSteppingDevice(std::unique_ptr<hal::Device> inner) {
  return std::make_unique<SteppingDevice>(std::move(inner));
}

}  // namespace kiln::tools

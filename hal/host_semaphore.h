// A timeline semaphore kept on the host (mutex and condition variable),
// shared by the drivers: both signal it from the host once their work is
// done (the CPU driver after running, the Vulkan driver from its completion
// thread after the fence), so neither needs a device-side semaphore.
#pragma once
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "hal/semaphore.h"

namespace kiln::hal {

class HostSemaphore final : public Semaphore {
 public:
  // `device` names the device in the timeout message ("the Vulkan device").
  HostSemaphore(uint64_t initial_value, std::string device) : value_(initial_value), device_(std::move(device)) {}
  uint64_t Value() const override;
  void Signal(uint64_t value) override;
  void Fail(Status status) override;
  Status Wait(uint64_t value, std::chrono::milliseconds timeout) override;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  uint64_t value_;
  Status failure_;
  std::string device_;
};

// Waits for every point of a submission; the first failure is returned, for
// the driver to fail the submission's signal semaphore with it.
Status WaitForAll(const std::vector<SemaphorePoint>& waits);

}  // namespace kiln::hal

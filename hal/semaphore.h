// Timeline semaphores: how submissions order against each other and how the
// host learns that work has finished (or failed).
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>

#include "kernels/common/status.h"

namespace kiln::hal {

// A timeline semaphore. A failed submission puts it in a failed state that
// every waiter sees.
class Semaphore {
 public:
  virtual ~Semaphore() = default;
  virtual uint64_t Value() const = 0;
  virtual void Signal(uint64_t value) = 0;
  virtual void Fail(Status status) = 0;
  // Waits until Value() >= value; returns the failure if the semaphore failed,
  // DeadlineExceeded after `timeout`.
  virtual Status Wait(uint64_t value, std::chrono::milliseconds timeout) = 0;
};

struct SemaphorePoint {
  std::shared_ptr<Semaphore> semaphore;
  uint64_t value = 0;
};

}  // namespace kiln::hal

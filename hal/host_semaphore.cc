// The host-side timeline semaphore (hal/host_semaphore.h).
#include "hal/host_semaphore.h"

namespace kiln::hal {

uint64_t HostSemaphore::Value() const {
  std::lock_guard<std::mutex> l(mu_);
  return value_;
}

void HostSemaphore::Signal(uint64_t v) {
  std::lock_guard<std::mutex> l(mu_);
  if (v > value_) value_ = v;
  cv_.notify_all();
}

void HostSemaphore::Fail(Status s) {
  std::lock_guard<std::mutex> l(mu_);
  if (failure_.ok()) failure_ = std::move(s);  // the first failure is the cause
  cv_.notify_all();
}

Status HostSemaphore::Wait(uint64_t v, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> l(mu_);
  bool reached = cv_.wait_for(l, timeout, [&] { return value_ >= v || !failure_.ok(); });
  if (!failure_.ok()) return failure_;
  if (!reached) return Status(StatusCode::kDeadlineExceeded, "timed out waiting for " + device_);
  return Status::Ok();
}

Status WaitForAll(const std::vector<SemaphorePoint>& waits) {
  for (const auto& w : waits) KILN_RETURN_IF_ERROR(w.semaphore->Wait(w.value, std::chrono::hours(24)));
  return Status::Ok();
}

}  // namespace kiln::hal

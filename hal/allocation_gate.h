// What a device may allocate: a limit on its live bytes (an app's or
// vm-run's --max-memory, for modules it does not trust) and a test hook that
// fails one chosen allocation (the allocation-failure sweep,
// tests/e2e/allocation_failure_test.cc). Both drivers ask the gate before
// each allocation of device memory; docs/memory.md, "Memory limits".
#pragma once
#include <atomic>
#include <cstdint>
#include <string>

#include "kernels/common/status.h"

namespace kiln::hal {

class AllocationGate {
 public:
  // At most `bytes` of the device's buffers alive at once (0: no limit). An
  // allocation that would pass it fails with ResourceExhausted naming the
  // limit; a module whose arena alone is larger is refused when a context
  // opens it (vm::Context::Create).
  void set_limit(uint64_t bytes) { limit_.store(bytes, std::memory_order_relaxed); }
  uint64_t limit() const { return limit_.load(std::memory_order_relaxed); }

  // Test hook: the allocation `k` allocations from now (0: the next) fails
  // as if the device were out of memory; the others succeed. k < 0: off.
  void FailAllocation(int64_t k) { countdown_.store(k, std::memory_order_relaxed); }
  // Allocations asked for since the device was made (refused ones included).
  uint64_t allocations() const { return allocations_.load(std::memory_order_relaxed); }

  // Called before allocating `bytes` while `live_bytes` are held (the caller
  // keeps the two consistent, under its own lock where allocations race).
  // `counted`: memory that the limit covers (a driver's staging buffers are
  // not); the test hook applies to every allocation.
  Status Admit(uint64_t live_bytes, uint64_t bytes, bool counted = true) {
    allocations_.fetch_add(1, std::memory_order_relaxed);
    if (countdown_.load(std::memory_order_relaxed) >= 0 && countdown_.fetch_sub(1, std::memory_order_relaxed) == 0)
      return ResourceExhausted("out of device memory allocating " + std::to_string(bytes) +
                               " bytes (an allocation failed on purpose by the test hook)");
    const uint64_t limit = limit_.load(std::memory_order_relaxed);
    if (counted && limit != 0 && (bytes > limit || live_bytes > limit - bytes))
      return ResourceExhausted("memory limit of " + std::to_string(limit) + " bytes reached: allocating " +
                               std::to_string(bytes) + " bytes with " + std::to_string(live_bytes) +
                               " bytes of device memory live");
    return Status::Ok();
  }

 private:
  std::atomic<uint64_t> limit_{0};
  std::atomic<int64_t> countdown_{-1};
  std::atomic<uint64_t> allocations_{0};
};

}  // namespace kiln::hal

// The device: allocation, transfers, executables, and asynchronous
// submission of command buffers ordered by timeline semaphores.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hal/allocation_gate.h"
#include "hal/buffer.h"
#include "hal/command_buffer.h"
#include "hal/executable.h"
#include "hal/semaphore.h"
#include "hal/trace.h"

namespace kiln::hal {

struct DeviceStats {
  uint64_t dispatches = 0;
  uint64_t submissions = 0;
  // Bytes of the device's buffers alive now and at most since the device was
  // created (what a leak or an unbounded queue of work shows up in; memory
  // the device only wraps, WrapHostMemory, is not counted).
  uint64_t live_bytes = 0;
  uint64_t peak_live_bytes = 0;
  // Bytes the executables keep between dispatches (CPU: kernel state such
  // as weights packed once, kernels/common/kernel_state.h).
  uint64_t kernel_state_bytes = 0;
};

// Copies between the caller's memory and the device's, counted per device:
// on the CPU the copies the runtime makes (AllocateCopy, Upload, Download;
// memory read in place, WrapHostMemory, is not a transfer), on Vulkan the
// staging copies (and direct writes and reads of mapped memory). What a test
// reads to check that a call moved only what it had to (a decoder's token
// and logits, not its cache).
struct TransferStats {
  uint64_t uploads = 0, upload_bytes = 0;
  uint64_t downloads = 0, download_bytes = 0;
};

class TransferCounters {
 public:
  void CountUpload(size_t bytes) {
    uploads_.fetch_add(1, std::memory_order_relaxed);
    upload_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  }
  void CountDownload(size_t bytes) {
    downloads_.fetch_add(1, std::memory_order_relaxed);
    download_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  }
  TransferStats Read() const {
    return TransferStats{uploads_.load(std::memory_order_relaxed), upload_bytes_.load(std::memory_order_relaxed),
                         downloads_.load(std::memory_order_relaxed), download_bytes_.load(std::memory_order_relaxed)};
  }

 private:
  std::atomic<uint64_t> uploads_{0}, upload_bytes_{0}, downloads_{0}, download_bytes_{0};
};

class Device {
 public:
  virtual ~Device() = default;
  virtual std::string name() const = 0;
  // A zero-filled buffer.
  virtual StatusOr<std::shared_ptr<Buffer>> Allocate(size_t bytes) = 0;
  // A buffer whose contents are unspecified, for one that is written whole
  // before anything reads it (a dispatch's output): devices that can skip
  // zero-filling it override this.
  virtual StatusOr<std::shared_ptr<Buffer>> AllocateUninitialized(size_t bytes) { return Allocate(bytes); }
  // A buffer holding a copy of `bytes` bytes at `data` (devices that can
  // skip zero-filling what is overwritten at once override it).
  virtual StatusOr<std::shared_ptr<Buffer>> AllocateCopy(const void* data, size_t bytes) {
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> b, Allocate(bytes));
    KILN_RETURN_IF_ERROR(Upload(*b, 0, data, bytes));
    return b;
  }
  // A buffer over `bytes` bytes at `data`, which the caller keeps alive and
  // unchanged while the buffer is in use, and which nothing writes (a
  // function's arguments during one call, a module's constants, which may be
  // a read-only mapping). Devices that compute in host memory read it in
  // place and mark the buffer read_only(), refusing writes; others copy it.
  virtual StatusOr<std::shared_ptr<Buffer>> WrapHostMemory(const void* data, size_t bytes) {
    return AllocateCopy(data, bytes);
  }
  // Blocking transfers; the caller has waited for the work that produces or
  // consumes the range.
  virtual Status Upload(const Buffer& buffer, size_t offset, const void* data, size_t bytes) = 0;
  virtual Status Download(const Buffer& buffer, size_t offset, void* data, size_t bytes) = 0;
  // Prepares a dispatch from the payload of this device's format in `spec`;
  // a spec without one, or an unknown kernel, is an error naming the kernel.
  virtual StatusOr<std::shared_ptr<Executable>> PrepareExecutable(const ExecutableSpec& spec) = 0;
  virtual std::unique_ptr<CommandBuffer> CreateCommandBuffer() = 0;
  virtual std::shared_ptr<Semaphore> CreateSemaphore(uint64_t initial_value) = 0;
  // Runs `commands` once every wait point is reached, then signals `signal`.
  // Errors during execution fail the signal semaphore.
  virtual Status Submit(std::unique_ptr<CommandBuffer> commands, std::vector<SemaphorePoint> waits,
                        SemaphorePoint signal) = 0;
  virtual DeviceStats stats() const = 0;
  // Reports each dispatch from now on to `observer` (nullptr: stop). False
  // where the device cannot time its dispatches (then nothing is reported).
  virtual bool SetDispatchObserver(std::shared_ptr<DispatchObserver> observer) { return false; }
  // The device's memory limit and allocation-failure test hook, which its
  // driver asks before each allocation (hal/allocation_gate.h).
  AllocationGate& allocation_gate() const { return *gate_; }
  // Every transfer since the device was created (see TransferStats); drivers
  // count theirs in transfers_.
  TransferStats transfer_stats() const { return transfers_.Read(); }

 protected:
  // Shared with what allocates on the device's behalf and may outlive it
  // (the CPU driver's buffer pool, the Vulkan driver's core).
  std::shared_ptr<AllocationGate> gate_ = std::make_shared<AllocationGate>();
  TransferCounters transfers_;
};

}  // namespace kiln::hal

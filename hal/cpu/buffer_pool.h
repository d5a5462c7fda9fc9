// The CPU driver's memory: aligned blocks kept for reuse once their buffer
// dies. A VM function allocates every transient tensor per call (`alloc`);
// without reuse each call paid malloc/free for every tensor, glibc
// consolidating its free lists on each larger request, and the kernel's
// zero-fill page faults for blocks large enough to be mmapped (a third of
// the time of examples/mlp.mlir @main; docs/performance.md).
//
// Blocks are kept per size class (a multiple of 64 bytes below 4 KiB, then
// four classes per power of two, so a reused block wastes at most 25%) on
// free lists, up to `max_cached_bytes` in all; past that a released block is
// freed. Thread-safe: buffers may die on any thread.
//
// A block for a dispatch's output is handed out unfilled (Fill::kNone): the
// kernel writes every element, and zero-filling first cost a pass over
// memory as large as the output (for a 64 MB result, a third of the call).
// With `poison` set those blocks are filled with that byte instead, so a
// kernel that leaves part of its output unwritten shows up in results (the
// conformance suite runs once that way, KILN_CPU_POISON).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "hal/allocation_gate.h"

namespace kiln::hal {

// What Acquire throws when the device's AllocationGate refuses a block (a
// memory limit, the test hook): a bad_alloc that says why.
class AllocationRefused : public std::bad_alloc {
 public:
  explicit AllocationRefused(std::string why) : why_(std::move(why)) {}
  const char* what() const noexcept override { return why_.c_str(); }

 private:
  std::string why_;
};

class BufferPool {
 public:
  static constexpr size_t kAlignment = 64;
  static constexpr size_t kHugePage = size_t{2} << 20;  // x86-64 and arm64 (4 KiB granule)

  enum class Fill : uint8_t { kZero, kNone };

  explicit BufferPool(size_t max_cached_bytes, int poison = -1) : max_cached_(max_cached_bytes), poison_(poison) {}
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A block of at least `bytes` (its capacity in *capacity), 64-byte aligned,
  // its first `bytes` copied from `init`, else zero-filled (kZero) or left as
  // they are (kNone; the poison byte where one is set); throws std::bad_alloc,
  // or AllocationRefused when the gate (set_gate) refuses it.
  uint8_t* Acquire(size_t bytes, size_t* capacity, const void* init = nullptr, Fill fill = Fill::kZero);
  // Returns a block from Acquire (with its capacity) for reuse.
  void Release(uint8_t* block, size_t capacity);

  // Asked before each block, with the live bytes (capacities) under the
  // pool's lock, so concurrent requests cannot pass a limit together.
  void set_gate(std::shared_ptr<AllocationGate> gate) { gate_ = std::move(gate); }

  // The capacity Acquire gives a request of `bytes`.
  static size_t SizeClass(size_t bytes);
  size_t cached_bytes() const;
  // Bytes of blocks handed out by Acquire and not yet released: now, and at most.
  size_t live_bytes() const;
  size_t peak_live_bytes() const;

 private:
  static uint8_t* NewBlock(size_t capacity);
  static void DeleteBlock(uint8_t* block, size_t capacity);

  const size_t max_cached_;
  const int poison_;  // < 0: none
  mutable std::mutex mu_;
  size_t cached_ = 0;
  size_t live_ = 0, peak_live_ = 0;
  std::map<size_t, std::vector<uint8_t*>> free_;  // by capacity
  std::shared_ptr<AllocationGate> gate_;          // may be null
};

}  // namespace kiln::hal

// Kernel scratch that stays with its thread between dispatches. A fresh
// allocation per dispatch is page-faulted on every call (and glibc returns
// large blocks to the system on free, so it stays fresh): for a batch-1
// convolution the faults cost more than the arithmetic. A ScratchLease
// hands out the calling thread's buffer for one use site (named by Tag),
// grown on demand and kept for the next dispatch unless it grew past
// kKeepScratchBytes. A second lease of the same site on the same thread
// while the first is alive (a nested call) gets a private allocation, so
// leases never alias. Out of memory throws std::bad_alloc (aligned_scratch.h).
#pragma once
#include <cstddef>

#include "kernels/cpu/aligned_scratch.h"

namespace kiln::cpu {

// A thread's buffer larger than this is freed when its lease ends.
inline constexpr size_t kKeepScratchBytes = size_t{4} << 20;

template <class Tag, class T>
class ScratchLease {
 public:
  explicit ScratchLease(size_t items) {
    Slot& s = ThreadSlot();
    if (s.in_use) {
      own_ = AllocateAlignedOrThrow<T>(items == 0 ? 1 : items);
      ptr_ = own_.get();
      return;
    }
    if (items > s.size || s.buf == nullptr) {
      s.buf.reset();  // free first: peak memory is the new size, not both
      s.size = 0;
      s.buf = AllocateAlignedOrThrow<T>(items == 0 ? 1 : items);
      s.size = items;
    }
    s.in_use = true;
    slot_ = &s;
    ptr_ = s.buf.get();
  }
  ~ScratchLease() {
    if (slot_ == nullptr) return;
    slot_->in_use = false;
    if (slot_->size * sizeof(T) > kKeepScratchBytes) {
      slot_->buf.reset();
      slot_->size = 0;
    }
  }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;

  T* get() const { return ptr_; }

 private:
  struct Slot {
    hwy::AlignedFreeUniquePtr<T[]> buf;
    size_t size = 0;
    bool in_use = false;
  };
  static Slot& ThreadSlot() {
    thread_local Slot slot;
    return slot;
  }

  Slot* slot_ = nullptr;
  hwy::AlignedFreeUniquePtr<T[]> own_;
  T* ptr_ = nullptr;
};

}  // namespace kiln::cpu

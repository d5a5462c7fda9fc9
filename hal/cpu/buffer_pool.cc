#include "hal/cpu/buffer_pool.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace kiln::hal {

BufferPool::~BufferPool() {
  for (auto& [capacity, blocks] : free_)
    for (uint8_t* b : blocks) DeleteBlock(b, capacity);
}

size_t BufferPool::SizeClass(size_t bytes) {
  if (bytes <= 4096) return bytes == 0 ? kAlignment : (bytes + kAlignment - 1) / kAlignment * kAlignment;
  // Four classes per power of two: 2^k * {1, 1.25, 1.5, 1.75}.
  const int k = std::bit_width(bytes - 1) - 1;  // 2^k < bytes <= 2^(k+1)
  const size_t quarter = size_t{1} << (k - 2);
  return (bytes + quarter - 1) / quarter * quarter;
}

uint8_t* BufferPool::NewBlock(size_t capacity) {
#ifdef __linux__
  // Blocks of 2 MiB and more start on a 2 MiB boundary and ask for
  // transparent huge pages: the kernel then faults them in 2 MiB at a time
  // (512 times fewer faults for a fresh 64 MB tensor), and kernels and
  // process-to-process copies (MPI's single-copy transport) walk 512 times
  // fewer page-table entries. Where THP is off the advice is ignored.
  if (capacity >= kHugePage) {
    void* p = ::operator new(capacity, std::align_val_t(kHugePage));
    ::madvise(p, capacity / kHugePage * kHugePage, MADV_HUGEPAGE);
    return static_cast<uint8_t*>(p);
  }
#endif
  return static_cast<uint8_t*>(::operator new(capacity, std::align_val_t(kAlignment)));
}

void BufferPool::DeleteBlock(uint8_t* block, size_t capacity) {
#ifdef __linux__
  if (capacity >= kHugePage) return ::operator delete(block, std::align_val_t(kHugePage));
#endif
  ::operator delete(block, std::align_val_t(kAlignment));
}

uint8_t* BufferPool::Acquire(size_t bytes, size_t* capacity, const void* init, Fill fill) {
  *capacity = SizeClass(bytes);
  uint8_t* block = nullptr;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (gate_) {
      Status s = gate_->Admit(live_, *capacity);
      if (!s.ok()) throw AllocationRefused(s.message());
    }
    live_ += *capacity;
    peak_live_ = std::max(peak_live_, live_);
    auto it = free_.find(*capacity);
    if (it != free_.end() && !it->second.empty()) {
      block = it->second.back();
      it->second.pop_back();
      cached_ -= *capacity;
    }
  }
  if (block == nullptr) {
    try {
      block = NewBlock(*capacity);
    } catch (...) {
      std::lock_guard<std::mutex> l(mu_);
      live_ -= *capacity;
      throw;
    }
  }
  // A zeroed buffer starts zeroed, reused or not, so results never depend on
  // what an earlier tensor left behind; an unfilled one is written whole
  // before it is read (the header).
  if (init != nullptr) {
    if (bytes) std::memcpy(block, init, bytes);
  } else if (fill == Fill::kZero) {
    std::memset(block, 0, bytes);
  } else if (poison_ >= 0) {
    std::memset(block, poison_, bytes);
  }
  return block;
}

void BufferPool::Release(uint8_t* block, size_t capacity) {
  {
    std::lock_guard<std::mutex> l(mu_);
    live_ -= capacity;
    if (cached_ + capacity <= max_cached_) {
      // Keeping it may need memory (a free list's node or growth); Release
      // runs in destructors, so when there is none the block is freed.
      try {
        free_[capacity].push_back(block);
        cached_ += capacity;
        return;
      } catch (const std::bad_alloc&) {
      }
    }
  }
  DeleteBlock(block, capacity);
}

size_t BufferPool::cached_bytes() const {
  std::lock_guard<std::mutex> l(mu_);
  return cached_;
}

size_t BufferPool::live_bytes() const {
  std::lock_guard<std::mutex> l(mu_);
  return live_;
}

size_t BufferPool::peak_live_bytes() const {
  std::lock_guard<std::mutex> l(mu_);
  return peak_live_;
}

}  // namespace kiln::hal

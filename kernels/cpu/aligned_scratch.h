// Aligned scratch memory for the Highway kernels. hwy::AllocateAligned
// returns null when memory runs out; this throws std::bad_alloc instead, so
// a kernel out of memory fails its dispatch with RESOURCE_EXHAUSTED (the CPU
// driver catches it, hal/cpu/cpu_device.cc) rather than writing through a
// null pointer.
#pragma once
#include <cstddef>
#include <new>
#include <vector>

#include "hwy/aligned_allocator.h"

namespace kiln::cpu {

template <typename T>
hwy::AlignedFreeUniquePtr<T[]> AllocateAlignedOrThrow(size_t items) {
  hwy::AlignedFreeUniquePtr<T[]> p = hwy::AllocateAligned<T>(items);
  if (!p) throw std::bad_alloc();
  return p;
}

// A std::vector whose elements start on a cache line: per-lane parameter
// rows that vector loops read 64 bytes at a time. From a 16-byte aligned
// start every such load spans two cache lines, which halved the requantize
// loop's throughput (kiln-kernel-bench BM_CpuRequantizeRows).
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlign{64};
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlign)); }
  void deallocate(T* p, size_t) { ::operator delete(p, kAlign); }
  friend bool operator==(const CacheLineAllocator&, const CacheLineAllocator&) { return true; }
};
template <class T>
using CacheLineVector = std::vector<T, CacheLineAllocator<T>>;

}  // namespace kiln::cpu

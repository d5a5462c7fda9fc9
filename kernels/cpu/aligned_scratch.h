// Aligned scratch memory for the Highway kernels. hwy::AllocateAligned
// returns null when memory runs out; this throws std::bad_alloc instead, so
// a kernel out of memory fails its dispatch with RESOURCE_EXHAUSTED (the CPU
// driver catches it, hal/cpu/cpu_device.cc) rather than writing through a
// null pointer.
#pragma once
#include <cstddef>
#include <new>

#include "hwy/aligned_allocator.h"

namespace kiln::cpu {

template <typename T>
hwy::AlignedFreeUniquePtr<T[]> AllocateAlignedOrThrow(size_t items) {
  hwy::AlignedFreeUniquePtr<T[]> p = hwy::AllocateAligned<T>(items);
  if (!p) throw std::bad_alloc();
  return p;
}

}  // namespace kiln::cpu

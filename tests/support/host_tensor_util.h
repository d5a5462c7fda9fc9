// Host tensors for the tests that run whole modules (tests/e2e and the
// Vulkan tests): a tensor of given bytes, and random f32 tensors.
#pragma once
#include <cstring>
#include <random>
#include <vector>

#include "vm/host_tensor.h"

namespace kiln::test {

// A tensor holding a copy of `bytes` bytes at `data`.
inline vm::HostTensor HostTensorOf(ElementType type, std::vector<int64_t> dims, const void* data, size_t bytes) {
  vm::HostTensor t;
  t.type = type;
  t.dims = std::move(dims);
  t.data.resize(bytes);
  if (bytes) std::memcpy(t.data.data(), data, bytes);
  return t;
}

// A tensor of the given values, stored as they are (V must have the
// element type's storage size).
template <typename V>
vm::HostTensor HostTensorOf(ElementType type, std::vector<int64_t> dims, const std::vector<V>& values) {
  return HostTensorOf(type, std::move(dims), values.data(), values.size() * sizeof(V));
}

// An f32 tensor of values drawn from `dist` (by default the standard normal
// distribution: inputs of comparisons within a tolerance).
template <typename Rng, typename Dist = std::normal_distribution<float>>
vm::HostTensor RandomF32(std::vector<int64_t> dims, Rng& rng, Dist dist = Dist()) {
  vm::HostTensor t;
  t.type = ElementType::kF32;
  t.dims = std::move(dims);
  t.data.resize(static_cast<size_t>(t.NumElements()) * 4);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const float v = dist(rng);
    std::memcpy(t.data.data() + i * 4, &v, 4);
  }
  return t;
}

}  // namespace kiln::test

// What the row gather (indexing_gather.cc) and the row scatter
// (indexing_scatter.cc) share: their form checks and reading the indices
// in their own integer type.
#pragma once
#include <cstdint>
#include <span>

#include "kernels/common/kernel.h"

namespace kiln::cpu {

// v == [from, from + 1, ...].
inline bool IsIota(std::span<const int64_t> v, int64_t from) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != from + static_cast<int64_t>(i)) return false;
  return true;
}

// The indices' batch rank when their index vector of k entries is the last
// axis (index_vector_dim = rank - 1) or implicit (index_vector_dim = rank,
// k = 1); -1 for any other index_vector_dim.
inline int64_t RowIndexBatchRank(const TensorRef& indices, int64_t index_vector_dim, int64_t k) {
  if (index_vector_dim == indices.rank() - 1 && indices.rank() >= 1 && indices.dims[index_vector_dim] == k)
    return indices.rank() - 1;
  if (index_vector_dim == indices.rank() && k == 1) return indices.rank();
  return -1;
}

// Calls f(I{}) with I the C++ type of integer index type `t` and returns
// true; false (nothing called) for i1 and sub-byte types, which the
// reference reads.
template <class F>
bool WithIndexType(ElementType t, F&& f) {
  switch (t) {
    case ElementType::kSI8: f(int8_t{}); return true;
    case ElementType::kSI16: f(int16_t{}); return true;
    case ElementType::kSI32: f(int32_t{}); return true;
    case ElementType::kSI64: f(int64_t{}); return true;
    case ElementType::kUI8: f(uint8_t{}); return true;
    case ElementType::kUI16: f(uint16_t{}); return true;
    case ElementType::kUI32: f(uint32_t{}); return true;
    case ElementType::kUI64: f(uint64_t{}); return true;
    default: return false;
  }
}

}  // namespace kiln::cpu

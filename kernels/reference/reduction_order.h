// The fixed summation order of a float add reduction over contiguous
// elements (docs/kernels.md, "Reduction order"), shared by the reference
// reduce and the fast CPU reduce so that both, at every thread count and on
// every SIMD width, give the same bits.
//
// The `n` elements x[0..n) of one result are summed as 16 lanes: lane j
// starts at -0 (the exact identity of IEEE addition: -0 + x == x for every
// x, signed zeros and NaN included) and adds x[j], x[j + 16], x[j + 32], ...
// in increasing order. The lanes are then folded pairwise, s[j] += s[j + 8]
// for j < 8, then s[j] += s[j + 4] for j < 4, then + 2, then + 1, and the
// result is init + s[0]. Every add rounds to T; for f16 and bf16 the
// values are held in f32 and each add's f32 result is rounded to the type
// (`Round16`), which equals rounding the exact sum (f32 has more than twice
// their precision plus two bits).
//
// Why 16: a multiple of every vector width the CPU kernel uses (4 f32 or 2
// f64 lanes per 128-bit vector, 4 accumulators of 4 or 8 of 2), enough
// independent chains to hide the add latency, and a fixed number, so the
// order does not depend on the machine.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

#include "kernels/common/scalar_program.h"

namespace kiln::ref {

constexpr size_t kReduceLanes = 16;

// Each add's result as it is (f32, f64).
struct ExactAdd {
  template <typename T>
  T operator()(T v) const {
    return v;
  }
};

// Adds x[0..n) into `lanes` (kReduceLanes partial sums), element i to lane
// (first + i) % 16: the caller feeds one result's elements in order, in
// pieces, `first` being the number already fed. `round` rounds each add's
// result to the reduction's type.
template <typename T, class Round = ExactAdd>
inline void TreeSumFeed(const T* x, size_t n, size_t first, T* lanes, Round round = {}) {
  for (size_t i = 0; i < n; ++i) {
    T& lane = lanes[(first + i) % kReduceLanes];
    lane = round(lane + x[i]);
  }
}

// init + the pairwise fold of the 16 lanes.
template <typename T, class Round = ExactAdd>
inline T TreeSumFinish(T* lanes, T init, Round round = {}) {
  for (size_t half = kReduceLanes / 2; half >= 1; half /= 2)
    for (size_t j = 0; j < half; ++j) lanes[j] = round(lanes[j] + lanes[j + half]);
  return round(init + lanes[0]);
}

template <typename T, class Round = ExactAdd>
inline T TreeSum(const T* x, size_t n, T init, Round round = {}) {
  T lanes[kReduceLanes];
  for (T& l : lanes) l = T(-0.0);
  TreeSumFeed(x, n, 0, lanes, round);
  return TreeSumFinish(lanes, init, round);
}

// The float type (f32, f64, f16 or bf16) of a body that is one add of its
// two params of that type, else kInvalid: the reductions that follow the
// tree order.
inline ElementType TreeSumType(const ScalarProgram& body) {
  if (body.AsStandardReduction() != ScalarOp::kAdd || body.param_types.size() != 2) return ElementType::kInvalid;
  const ElementType t = body.param_types[0];
  return t == ElementType::kF32 || t == ElementType::kF64 || t == ElementType::kF16 || t == ElementType::kBF16
             ? t
             : ElementType::kInvalid;
}

// Whether each result's reduced elements are one contiguous run in a
// row-major tensor of `dims`: no kept dim larger than 1 comes after a
// reduced dim larger than 1.
inline bool ReducedElementsContiguous(std::span<const int64_t> dims, const std::vector<bool>& reduced) {
  bool seen_reduced = false;
  for (size_t a = 0; a < dims.size(); ++a) {
    if (dims[a] <= 1) continue;
    if (reduced[a]) seen_reduced = true;
    else if (seen_reduced) return false;
  }
  return true;
}

}  // namespace kiln::ref

// The stable bottom-up merge sort of the reference sort kernels
// (numeric_sort.cc), shared with the CPU device's key sort
// (kernels/cpu/numeric_sort.cc) so both order a slice identically even when
// a comparator is not a strict weak ordering (an IEEE less-than with NaNs):
// std::stable_sort would be undefined behaviour then, and another algorithm
// could give another permutation.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace kiln::ref {

// Sorts `perm` by `less`: an element of the right run goes first only when
// less(right, left). `tmp` is scratch of perm's size (resized here).
template <typename Less>
void MergeSort(std::vector<int64_t>& perm, std::vector<int64_t>& tmp, const Less& less) {
  const size_t n = perm.size();
  tmp.resize(n);
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      const size_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      size_t a = lo, b = mid, o = lo;
      while (a < mid && b < hi) tmp[o++] = less(perm[b], perm[a]) ? perm[b++] : perm[a++];
      while (a < mid) tmp[o++] = perm[a++];
      while (b < hi) tmp[o++] = perm[b++];
    }
    perm.swap(tmp);
  }
}

}  // namespace kiln::ref

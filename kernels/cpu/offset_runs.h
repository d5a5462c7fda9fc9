// A contraction's offset table (GemmProblem::a_k) as runs of consecutive
// elements, for packing rows by runs rather than element by element: a
// channel-last convolution's windows are one run per tap of the kernel (64
// or more elements each), a row-major operand a single run.
#pragma once
#include <cstdint>
#include <cstring>

namespace kiln::cpu {

class OffsetRuns {
 public:
  // Runs of `offsets[0, n)`; where they are more than kMaxRuns (short
  // runs: gathering element by element costs no more), valid() is false.
  OffsetRuns(const int64_t* offsets, int64_t n) {
    if (n <= 0) return;
    // The current run in locals (not re-read from runs_ each step).
    int64_t k0 = 0, start = offsets[0];
    for (int64_t k = 1; k <= n; ++k) {
      if (k < n && offsets[k] == start + (k - k0)) continue;
      if (count_ == kMaxRuns) {
        count_ = kMaxRuns + 1;
        return;
      }
      runs_[count_++] = {k0, start, k - k0};
      if (k < n) k0 = k, start = offsets[k];
    }
  }
  // One run over n consecutive elements.
  explicit OffsetRuns(int64_t n) : count_(n > 0 ? 1 : 0) { runs_[0] = {0, 0, n}; }

  bool valid() const { return count_ <= kMaxRuns; }

  // dst[k] = row[offsets[k]] for every k (valid() only).
  template <typename T>
  void Gather(const T* row, T* dst) const {
    for (int i = 0; i < count_; ++i)
      std::memcpy(dst + runs_[i].k0, row + runs_[i].off, static_cast<size_t>(runs_[i].len) * sizeof(T));
  }

 private:
  static constexpr int kMaxRuns = 256;
  struct Run {
    int64_t k0, off, len;
  };
  Run runs_[kMaxRuns];
  int count_ = 0;
};

}  // namespace kiln::cpu

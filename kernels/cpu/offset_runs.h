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
    for (int64_t k = 0; k < n; ++k) {
      if (count_ > 0 && offsets[k] == runs_[count_ - 1].off + runs_[count_ - 1].len) {
        ++runs_[count_ - 1].len;
      } else if (count_ < kMaxRuns) {
        runs_[count_++] = {k, offsets[k], 1};
      } else {
        count_ = kMaxRuns + 1;
        return;
      }
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

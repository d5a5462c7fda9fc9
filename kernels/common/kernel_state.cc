// KernelState (kernel_state.h): a small least-recently-used list under a
// mutex; executables hold a handful of entries, so a linear search is the
// cheapest lookup.
#include "kernels/common/kernel_state.h"

#include <algorithm>

namespace kiln {

KernelState::~KernelState() {
  if (bytes_) bytes_->fetch_sub(static_cast<int64_t>(held_));
}

std::unique_ptr<KernelPlan> KernelState::Take(std::span<const int64_t> key) {
  std::lock_guard<std::mutex> l(mu_);
  for (size_t i = entries_.size(); i-- > 0;) {
    const std::vector<int64_t>& k = entries_[i]->key;
    if (!std::equal(k.begin(), k.end(), key.begin(), key.end())) continue;
    std::unique_ptr<KernelPlan> p = std::move(entries_[i]);
    entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
    held_ -= p->bytes;
    if (bytes_) bytes_->fetch_sub(static_cast<int64_t>(p->bytes));
    return p;
  }
  return nullptr;
}

void KernelState::Put(std::unique_ptr<KernelPlan> plan) {
  if (!plan) return;
  std::lock_guard<std::mutex> l(mu_);
  held_ += plan->bytes;
  if (bytes_) bytes_->fetch_add(static_cast<int64_t>(plan->bytes));
  entries_.push_back(std::move(plan));
  while (entries_.size() > kMaxEntries) {
    held_ -= entries_.front()->bytes;
    if (bytes_) bytes_->fetch_sub(static_cast<int64_t>(entries_.front()->bytes));
    entries_.erase(entries_.begin());
  }
}

size_t KernelState::bytes() const {
  std::lock_guard<std::mutex> l(mu_);
  return held_;
}

}  // namespace kiln

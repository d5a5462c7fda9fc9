// What a kernel keeps between dispatches of one executable: plans (checks
// passed, offset and stride tables, the chosen fast path) and packed copies
// of constant operands (a GEMM's B panels), so that a repeated dispatch
// skips the work that depends only on its static data (docs/kernels.md,
// "Per-executable state").
//
// A driver gives each prepared executable one KernelState and passes it in
// KernelCall::state (null where there is none: a kernel then builds its plan
// every time). An entry is a pure function of its key, which the kernel
// makes from everything the entry depends on besides the executable's own
// attributes: element types, dimensions, byte sizes, and data addresses or
// constant ids where the entry holds or derives from them. A stale entry can
// therefore never be used for another tensor; at worst it is memory kept
// until it is evicted (least recently used, a few entries per executable).
//
// Take hands an entry to one dispatch exclusively and Put gives it back, so
// a plan with its own scratch buffers is never used by two dispatches at
// once (two contexts' submissions may run on different threads); a dispatch
// that finds its entry taken builds its own.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace kiln {

// Base of a cached entry; `bytes` is the memory it holds beyond its object
// (a packed copy's size), counted in the device's kernel_state_bytes.
struct KernelPlan {
  virtual ~KernelPlan() = default;
  std::vector<int64_t> key;
  size_t bytes = 0;
};

// Kernels build keys through this: each one starts with a tag naming the
// kernel and the kind of entry, so that two kernels of one executable (a
// producer and its epilogue) never read each other's entries.
class PlanKey {
 public:
  explicit PlanKey(int64_t tag) { Add(tag); }
  PlanKey& Add(int64_t x) {
    // Inline storage for the common key (a few tensors of small rank): a
    // lookup that hits allocates nothing.
    if (heap_.empty() && n_ < kInline) {
      inline_[n_++] = x;
    } else {
      if (heap_.empty()) heap_.assign(inline_, inline_ + n_);
      heap_.push_back(x);
    }
    return *this;
  }
  PlanKey& Add(std::span<const int64_t> xs) {
    Add(static_cast<int64_t>(xs.size()));
    for (int64_t x : xs) Add(x);
    return *this;
  }
  PlanKey& AddPointer(const void* p) { return Add(static_cast<int64_t>(reinterpret_cast<uintptr_t>(p))); }
  std::span<const int64_t> span() const {
    return heap_.empty() ? std::span<const int64_t>(inline_, n_) : std::span<const int64_t>(heap_);
  }
  std::vector<int64_t> ToVector() const {
    const auto s = span();
    return std::vector<int64_t>(s.begin(), s.end());
  }

 private:
  static constexpr size_t kInline = 64;
  int64_t inline_[kInline];
  size_t n_ = 0;
  std::vector<int64_t> heap_;
};

// Tags of PlanKey (append-only is not needed: keys live in memory only).
enum PlanTag : int64_t {
  kPlanDotGeneral = 1,   // kernels/cpu/contraction_dot_general.cc: the GEMM problem
  kPlanPackedB = 2,      // the same: a constant B packed into panels
  kPlanElementwise = 3,  // kernels/cpu/elementwise.cc
  kPlanRowBlock = 4,     // kernels/cpu/reduction_row_block.cc
  kPlanPackedBInt8 = 5,  // kernels/cpu/contraction_dot_general.cc: a constant i8/ui8 B packed
  kPlanConvPackedB = 6,  // kernels/cpu/contraction_convolution.cc: constant weights packed into panels
  kPlanRequantizedConv = 7,  // the same: a fused requantize's parameters and the product's attributes
  kPlanDepthwiseRows = 8,    // the same: constant depthwise weights laid out for DepthwiseInt8Rows
  kPlanPackedBBf16 = 9,      // kernels/cpu/contraction_dot_general.cc: a constant bf16 B packed in pairs
  kPlanWidenedConvWeights = 10,  // kernels/cpu/contraction_convolution.cc: constant f16/bf16 weights widened to f32
  kPlanConvEpilogue = 11,        // the same: a fused epilogue's elementwise problem
  kPlanSelectFold = 12,          // kernels/cpu/reduction_select.cc: argmax-like reduces
  kPlanQuantizedTable = 13,      // kernels/cpu/elementwise_quantized.cc: an 8-bit program tabulated
  kPlanConvLayout = 14,          // kernels/cpu/contraction_convolution.cc: a call signature's checks and tables
  kPlanRequantizer = 15,         // kernels/cpu/requantize.cc: a requantize's parameters laid out per lane
  kPlanConvPackedA = 16,         // kernels/cpu/contraction_convolution.cc: the feature-major product's constant weights packed
};

class KernelState {
 public:
  // `bytes_counter` (may be null) is the device's sum of kernel-state bytes.
  explicit KernelState(std::shared_ptr<std::atomic<int64_t>> bytes_counter = nullptr)
      : bytes_(std::move(bytes_counter)) {
    entries_.reserve(kMaxEntries + 1);  // Put never allocates after this
  }
  ~KernelState();
  KernelState(const KernelState&) = delete;
  KernelState& operator=(const KernelState&) = delete;

  // The entry stored under `key`, removed from the state until Put returns
  // it, or null.
  std::unique_ptr<KernelPlan> Take(std::span<const int64_t> key);
  // Stores `plan` (its key set) as the most recently used entry, evicting
  // the least recently used past kMaxEntries.
  void Put(std::unique_ptr<KernelPlan> plan);
  // Bytes held by the entries stored now.
  size_t bytes() const;

  static constexpr size_t kMaxEntries = 8;

 private:
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<KernelPlan>> entries_;  // least recently used first
  size_t held_ = 0;
  std::shared_ptr<std::atomic<int64_t>> bytes_;
};

// A kernel's use of its state: the entry of `key` as a T (T derives from
// KernelPlan), built by `build()` (returning unique_ptr<T>, null when the
// kernel does not take this call) when absent; `done` puts it back.
template <typename T>
class PlanLease {
 public:
  PlanLease(KernelState* state, const PlanKey& key) : state_(state) {
    if (state_ != nullptr) {
      std::unique_ptr<KernelPlan> p = state_->Take(key.span());
      if (p) {
        plan_.reset(static_cast<T*>(p.release()));
        hit_ = true;
        return;
      }
    }
    if (state_ != nullptr) key_ = key.ToVector();
  }
  ~PlanLease() {
    if (state_ != nullptr && plan_) state_->Put(std::move(plan_));
  }
  PlanLease(const PlanLease&) = delete;
  PlanLease& operator=(const PlanLease&) = delete;
  // Whether the entry came from the state.
  bool hit() const { return hit_; }
  T* get() const { return plan_.get(); }
  // Installs a freshly built entry (after a miss).
  void Set(std::unique_ptr<T> plan) {
    plan_ = std::move(plan);
    if (plan_) plan_->key = std::move(key_);
  }
  // Drops the entry instead of returning it (a plan the call found unusable).
  void Drop() { plan_.reset(); }

 private:
  KernelState* state_;
  std::unique_ptr<T> plan_;
  std::vector<int64_t> key_;
  bool hit_ = false;
};

}  // namespace kiln

// The host-heap allocation-failure sweep, SQLite's way: this binary replaces
// the global operator new so that the k-th allocation from a chosen point
// throws std::bad_alloc, and for every k loads the MLP example through the C
// API, opens a session and calls it. Each run must end with success and the
// right results, or with a status (RESOURCE_EXHAUSTED where memory ran out);
// nothing may crash, hang or (under ASan) leak, and after memory is back
// the same module and session run right. Its own executable, since the
// replacement applies to the whole program. docs/memory.md, "Memory limits".
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "vm/kiln.h"

namespace {

// -1: off. Otherwise allocations still to succeed before one fails.
std::atomic<int64_t> g_countdown{-1};
std::atomic<int64_t> g_allocations{0};

void* Allocate(size_t size, size_t alignment) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (g_countdown.load(std::memory_order_relaxed) >= 0 && g_countdown.fetch_sub(1, std::memory_order_relaxed) == 0)
    return nullptr;
  if (size == 0) size = 1;
  if (alignment <= alignof(std::max_align_t)) return std::malloc(size);
  void* p = nullptr;
  return posix_memalign(&p, alignment, size) == 0 ? p : nullptr;
}

}  // namespace

void* operator new(size_t size) {
  if (void* p = Allocate(size, 0)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) { return operator new(size); }
void* operator new(size_t size, std::align_val_t a) {
  if (void* p = Allocate(size, static_cast<size_t>(a))) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size, std::align_val_t a) { return operator new(size, a); }
void* operator new(size_t size, const std::nothrow_t&) noexcept { return Allocate(size, 0); }
void* operator new[](size_t size, const std::nothrow_t&) noexcept { return Allocate(size, 0); }
void* operator new(size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return Allocate(size, static_cast<size_t>(a));
}
void* operator new[](size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return Allocate(size, static_cast<size_t>(a));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

std::vector<char> ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct Outcome {
  kiln_status_code_t code = KILN_STATUS_OK;
  std::string message;
  std::vector<float> result;
};

// Loads, opens and calls the MLP with allocation `fail_at` failing (-1:
// none); returns what happened, and the number of allocations it made.
Outcome RunOnce(const std::vector<char>& bytes, const char* device, int64_t fail_at, int64_t* allocations) {
  Outcome out;
  std::vector<int64_t> dims{1, 784};
  std::vector<float> input(784);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i % 13) / 13.0f;
  kiln_tensor_t tensor{KILN_TYPE_F32, 2, dims.data(), input.data(), input.size() * sizeof(float)};
  kiln_module_t* module = nullptr;
  kiln_session_t* session = nullptr;
  kiln_results_t* results = nullptr;
  out.result.reserve(64);  // the test's own memory, taken before the window in which allocations fail
  const int64_t before = g_allocations.load();
  g_countdown.store(fail_at);
  kiln_status_t s = kiln_module_load_memory(bytes.data(), bytes.size(), &module);
  if (!s) s = kiln_session_create(module, device, &session);
  if (!s) s = kiln_session_call(session, "main", &tensor, 1, &results);
  if (!s) {
    kiln_tensor_t r{};
    s = kiln_results_get(results, 0, &r);
    if (!s) out.result.assign(static_cast<const float*>(r.data), static_cast<const float*>(r.data) + r.byte_size / 4);
  }
  g_countdown.store(-1);
  *allocations = g_allocations.load() - before;
  out.code = kiln_status_code(s);
  out.message = kiln_status_message(s);
  kiln_status_free(s);
  kiln_results_free(results);
  // Memory is back: what opened runs right.
  if (session) {
    kiln_results_t* again = nullptr;
    kiln_status_t s2 = kiln_session_call(session, "main", &tensor, 1, &again);
    EXPECT_EQ(s2, nullptr) << "after allocation " << fail_at << " failed: " << kiln_status_message(s2);
    kiln_status_free(s2);
    kiln_results_free(again);
  }
  kiln_session_free(session);
  kiln_module_free(module);
  return out;
}

void Sweep(const char* device) {
  const std::vector<char> bytes = ReadFile(KILN_TEST_MLP_KILN);
  ASSERT_FALSE(bytes.empty()) << KILN_TEST_MLP_KILN;
  int64_t total = 0;
  const Outcome clean = RunOnce(bytes, device, -1, &total);
  ASSERT_EQ(clean.code, KILN_STATUS_OK) << clean.message;
  ASSERT_EQ(clean.result.size(), 10u);
  int failed = 0, succeeded = 0;
  for (int64_t k = 0;; ++k) {
    int64_t allocations = 0;
    const Outcome run = RunOnce(bytes, device, k, &allocations);
    if (allocations <= k) {  // nothing failed: the sweep is past the last allocation
      EXPECT_EQ(run.code, KILN_STATUS_OK) << run.message;
      break;
    }
    if (run.code == KILN_STATUS_OK) {
      ++succeeded;
      EXPECT_EQ(run.result, clean.result) << "allocation " << k << " failed, yet the call succeeded with other results";
    } else {
      ++failed;
      // Where memory runs out the status says so; a failure that an earlier
      // step turns into its own error (a thread that cannot start) names it.
      EXPECT_FALSE(run.message.empty());
      if (run.code != KILN_STATUS_RESOURCE_EXHAUSTED)
        std::printf("allocation %lld: %d %s\n", static_cast<long long>(k), run.code, run.message.c_str());
    }
    if (::testing::Test::HasFailure()) break;
  }
  std::printf("%s: %lld allocations in a clean run; %d runs failed with a status, %d succeeded anyway\n", device,
              static_cast<long long>(total), failed, succeeded);
  EXPECT_GT(failed, 0);
}

TEST(HostAllocationFailure, MlpThroughTheCApiOnTheCpuDevice) { Sweep("cpu"); }

}  // namespace

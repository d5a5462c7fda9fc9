// The host-heap allocation-failure sweep, SQLite's way: this binary replaces
// the global operator new so that the k-th allocation from a chosen point
// throws std::bad_alloc, and for every k loads the MLP example through the C
// API, opens a session and calls it. Each run must end with success and the
// right results, or with a status (RESOURCE_EXHAUSTED where memory ran out);
// nothing may crash, hang or (under ASan) leak, and after memory is back
// the same module and session run right. Its own executable, since the
// replacement applies to the whole program. docs/memory.md, "Memory limits".
//
// On Vulkan the device is made once, before the sweep, and shared by every
// run's session; and only allocations made by this executable's own code
// (Kiln is linked in statically) fail: the Vulkan driver's (lavapipe's LLVM,
// C++ built to abort on bad_alloc) are not Kiln's to handle.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/compile.h"
#include "compiler/parse/parser.h"
#include "vm/kiln.h"

namespace {

// -1: off. Otherwise allocations still to succeed before one fails.
std::atomic<int64_t> g_countdown{-1};
std::atomic<int64_t> g_allocations{0};
// Count and fail only allocations called from this executable's code.
std::atomic<bool> g_only_this_executable{false};

}  // namespace
extern "C" char __executable_start;  // the linker's: where this executable's code begins
extern "C" char etext;               // and ends
namespace {

bool FromThisExecutable(const void* caller) {
  return caller >= static_cast<const void*>(&__executable_start) && caller < static_cast<const void*>(&etext);
}

// Out of line: inlined, its malloc would meet operator delete's free in -Wmismatched-new-delete.
__attribute__((noinline)) void* Allocate(size_t size, size_t alignment, const void* caller) {
  if (g_only_this_executable.load(std::memory_order_relaxed) && !FromThisExecutable(caller)) {
    if (size == 0) size = 1;
    if (alignment <= alignof(std::max_align_t)) return std::malloc(size);
    void* p = nullptr;
    return posix_memalign(&p, alignment, size) == 0 ? p : nullptr;
  }
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (g_countdown.load(std::memory_order_relaxed) >= 0 && g_countdown.fetch_sub(1, std::memory_order_relaxed) == 0)
    return nullptr;
  if (size == 0) size = 1;
  if (alignment <= alignof(std::max_align_t)) return std::malloc(size);
  void* p = nullptr;
  return posix_memalign(&p, alignment, size) == 0 ? p : nullptr;
}

}  // namespace

#define KILN_CALLER __builtin_return_address(0)
void* operator new(size_t size) {
  if (void* p = Allocate(size, 0, KILN_CALLER)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) {
  if (void* p = Allocate(size, 0, KILN_CALLER)) return p;
  throw std::bad_alloc();
}
void* operator new(size_t size, std::align_val_t a) {
  if (void* p = Allocate(size, static_cast<size_t>(a), KILN_CALLER)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size, std::align_val_t a) {
  if (void* p = Allocate(size, static_cast<size_t>(a), KILN_CALLER)) return p;
  throw std::bad_alloc();
}
void* operator new(size_t size, const std::nothrow_t&) noexcept { return Allocate(size, 0, KILN_CALLER); }
void* operator new[](size_t size, const std::nothrow_t&) noexcept { return Allocate(size, 0, KILN_CALLER); }
void* operator new(size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return Allocate(size, static_cast<size_t>(a), KILN_CALLER);
}
void* operator new[](size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return Allocate(size, static_cast<size_t>(a), KILN_CALLER);
}
#undef KILN_CALLER
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
  std::vector<uint8_t> results;  // every result's bytes, in order
};

// A function of a module and its inputs (pointing into storage the caller keeps).
struct Program {
  std::string label;
  std::vector<char> bytes;
  std::string function;
  std::vector<kiln_tensor_t> inputs;
};

// Loads, opens and calls `p` with allocation `fail_at` failing (-1: none);
// returns what happened, and the number of allocations it made. `shared`: a
// device made before the sweep (then `device` is unused).
Outcome RunOnce(const Program& p, const char* device, kiln_device_t* shared, int64_t fail_at, int64_t* allocations,
                bool call_again = true) {
  Outcome out;
  kiln_module_t* module = nullptr;
  kiln_session_t* session = nullptr;
  kiln_results_t* results = nullptr;
  out.results.reserve(4096);  // the test's own memory, taken before the window in which allocations fail
  const int64_t before = g_allocations.load();
  g_countdown.store(fail_at);
  kiln_status_t s = kiln_module_load_memory(p.bytes.data(), p.bytes.size(), &module);
  if (!s && shared) {
    kiln_session_options_t options;
    kiln_session_options_init(&options);
    options.shared_device = shared;
    s = kiln_session_create_with_options(module, &options, &session);
  } else if (!s) {
    s = kiln_session_create(module, device, &session);
  }
  if (!s) s = kiln_session_call(session, p.function.c_str(), p.inputs.data(), p.inputs.size(), &results);
  for (size_t i = 0; !s && i < kiln_results_count(results); ++i) {
    kiln_tensor_t r{};
    s = kiln_results_get(results, i, &r);
    if (!s) {
      const auto* data = static_cast<const uint8_t*>(r.data);
      out.results.insert(out.results.end(), data, data + r.byte_size);
    }
  }
  g_countdown.store(-1);
  *allocations = g_allocations.load() - before;
  out.code = kiln_status_code(s);
  out.message = kiln_status_message(s);
  kiln_status_free(s);
  kiln_results_free(results);
  // Memory is back: what opened runs right.
  if (session && call_again) {
    kiln_results_t* again = nullptr;
    kiln_status_t s2 = kiln_session_call(session, p.function.c_str(), p.inputs.data(), p.inputs.size(), &again);
    EXPECT_EQ(s2, nullptr) << p.label << ", after allocation " << fail_at << " failed: " << kiln_status_message(s2);
    kiln_status_free(s2);
    kiln_results_free(again);
  }
  kiln_session_free(session);
  kiln_module_free(module);
  return out;
}

// For every k, the k-th allocation of `p` fails. Returns the runs that
// failed with a status.
int Sweep(const Program& p, const char* device, kiln_device_t* shared = nullptr) {
  int64_t total = 0;
  const Outcome clean = RunOnce(p, device, shared, -1, &total, /*call_again=*/false);
  if (clean.code == KILN_STATUS_UNIMPLEMENTED) return 0;  // not on this device: the conformance tests say so
  EXPECT_EQ(clean.code, KILN_STATUS_OK) << p.label << ": " << clean.message;
  if (clean.code != KILN_STATUS_OK) return 0;
  int failed = 0, succeeded = 0;
  for (int64_t k = 0;; ++k) {
    int64_t allocations = 0;
    const Outcome run = RunOnce(p, device, shared, k, &allocations);
    if (allocations <= k) {  // nothing failed: the sweep is past the last allocation
      EXPECT_EQ(run.code, KILN_STATUS_OK) << p.label << ": " << run.message;
      break;
    }
    if (run.code == KILN_STATUS_OK) {
      ++succeeded;
      EXPECT_EQ(run.results, clean.results)
          << p.label << ", allocation " << k << " failed, yet the call succeeded with other results";
    } else {
      ++failed;
      // Where memory runs out the status says so; a failure that an earlier
      // step turns into its own error (a thread that cannot start) names it.
      EXPECT_FALSE(run.message.empty());
      if (run.code != KILN_STATUS_RESOURCE_EXHAUSTED)
        std::printf("%s, allocation %lld: %d %s\n", p.label.c_str(), static_cast<long long>(k), run.code,
                    run.message.c_str());
    }
    if (::testing::Test::HasFailure()) break;
  }
  std::printf("%s: %lld allocations in a clean run; %d runs failed with a status, %d succeeded anyway\n",
              p.label.c_str(), static_cast<long long>(total), failed, succeeded);
  return failed;
}

// The MLP example's @main on one input.
void SweepMlp(const char* device, const char* module_path, kiln_device_t* shared = nullptr) {
  static const int64_t dims[] = {1, 784};
  static std::vector<float> input(784);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i % 13) / 13.0f;
  Program p{device, ReadFile(module_path), "main", {}};
  ASSERT_FALSE(p.bytes.empty()) << module_path;
  p.inputs.push_back(kiln_tensor_t{KILN_TYPE_F32, 2, dims, input.data(), input.size() * sizeof(float)});
  EXPECT_GT(Sweep(p, device, shared), 0);
}

// One conformance file per op family (the device sweep's,
// tests/e2e/allocation_failure_test.cc): every test function of every
// chunk, compiled here before the sweep, on a device made once.
void SweepConformance(const char* device_name, const std::string& target) {
  kiln_device_options_t options;
  kiln_device_options_init(&options);
  options.name = device_name;
  kiln_device_t* device = nullptr;
  kiln_status_t made = kiln_device_create(&options, &device);
  ASSERT_EQ(made, nullptr) << kiln_status_message(made);
  const std::string dir = std::string(KILN_SHARED_DIR) + "/conformance/stablehlo-interpret/";
  int failed = 0, functions = 0;
  for (const char* name : {"add", "dot_general", "convolution", "reduce", "reduce_window", "gather", "scatter", "sort",
                           "while", "select_and_scatter", "transpose", "concatenate"}) {
    const std::vector<char> file = ReadFile((dir + name + ".mlir").c_str());
    ASSERT_FALSE(file.empty()) << dir << name << ".mlir";
    for (const auto& chunk : kiln::ir::SplitChunks(std::string_view(file.data(), file.size()))) {
      kiln::compiler::CompileOptions compile;
      compile.target = target;
      auto bytes = kiln::compiler::Compile(chunk.text, dir + name + ".mlir", compile, nullptr, chunk.first_line);
      if (!bytes.ok()) continue;  // a chunk the target does not support: the conformance tests' business
      Program p{"", std::vector<char>(bytes->begin(), bytes->end()), "", {}};
      kiln_module_t* module = nullptr;
      kiln_status_t s = kiln_module_load_memory(p.bytes.data(), p.bytes.size(), &module);
      ASSERT_EQ(s, nullptr) << kiln_status_message(s);
      std::vector<std::string> names;
      for (size_t f = 0; f < kiln_module_function_count(module); ++f) {
        size_t args = 0, results = 0;
        kiln_status_t a = kiln_module_function_arity(module, f, &args, &results);
        if (!a && args == 0) names.push_back(kiln_module_function_name(module, f));
        kiln_status_free(a);
      }
      kiln_module_free(module);
      for (const auto& fn : names) {
        p.function = fn;
        p.label = std::string(name) + ".mlir:" + std::to_string(chunk.first_line) + " @" + fn + " on " + device_name;
        failed += Sweep(p, device_name, device);
        ++functions;
        if (::testing::Test::HasFailure()) break;
      }
      if (::testing::Test::HasFailure()) break;
    }
  }
  kiln_device_free(device);
  std::printf("%d conformance functions on %s: %d runs failed with a status\n", functions, device_name, failed);
  EXPECT_GT(functions, 12);
  EXPECT_GT(failed, 0);
}

TEST(HostAllocationFailure, MlpThroughTheCApiOnTheCpuDevice) { SweepMlp("cpu", KILN_TEST_MLP_KILN); }

TEST(HostAllocationFailure, ConformanceFilesOnTheCpuDevice) { SweepConformance("cpu", "cpu"); }

// Registering a host function with each of its allocations failing in turn:
// a failed registration never calls `release` (the user data stays the
// caller's), a successful one calls it exactly once, when unregistered.
TEST(HostAllocationFailure, RegisteringAHostFunction) {
  const kiln_custom_call_fn fn = [](void*, const kiln_tensor_t*, size_t, const kiln_mutable_tensor_t*, size_t,
                                    const char*, char*, size_t) -> int32_t { return 0; };
  const kiln_release_fn release = [](void* user_data) { ++*static_cast<int*>(user_data); };
  int failed = 0;
  for (int64_t k = 0;; ++k) {
    ASSERT_LT(k, 1000) << "registration never succeeded";
    int released = 0;
    g_countdown.store(k);
    kiln_status_t s = kiln_register_custom_call("kiln_test.allocation_sweep", fn, &released, release);
    g_countdown.store(-1);
    if (s) {
      EXPECT_EQ(kiln_status_code(s), KILN_STATUS_RESOURCE_EXHAUSTED) << kiln_status_message(s);
      kiln_status_free(s);
      EXPECT_EQ(released, 0) << "allocation " << k << " failed: release called for a registration that failed";
      ++failed;
      continue;
    }
    EXPECT_EQ(released, 0);
    s = kiln_unregister_custom_call("kiln_test.allocation_sweep");
    ASSERT_EQ(s, nullptr) << kiln_status_message(s);
    EXPECT_EQ(released, 1) << "release runs once when the registration goes";
    break;
  }
  EXPECT_GT(failed, 0);
}

#ifdef KILN_TEST_MLP_ALL_KILN
// On Vulkan only Kiln's own allocations fail (see the top of this file).
class OnlyThisExecutable {
 public:
  OnlyThisExecutable() { g_only_this_executable.store(true); }
  ~OnlyThisExecutable() { g_only_this_executable.store(false); }
};

TEST(HostAllocationFailure, MlpThroughTheCApiOnTheVulkanDevice) {
  kiln_device_options_t options;
  kiln_device_options_init(&options);
  options.name = "vulkan";
  kiln_device_t* device = nullptr;
  kiln_status_t s = kiln_device_create(&options, &device);
  ASSERT_EQ(s, nullptr) << kiln_status_message(s);
  {
    OnlyThisExecutable only;
    SweepMlp("vulkan", KILN_TEST_MLP_ALL_KILN, device);
  }
  kiln_device_free(device);
}

TEST(HostAllocationFailure, ConformanceFilesOnTheVulkanDevice) {
  OnlyThisExecutable only;
  SweepConformance("vulkan", "all");
}
#endif

}  // namespace

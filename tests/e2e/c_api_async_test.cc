// The C API's asynchronous calls, cancellation, deadlines and thread safety
// (vm/kiln.h, version 3): a cancel from another thread stops a `while` that
// never ends, within 100 ms of the cancel; a deadline that passes fails the
// call with DEADLINE_EXCEEDED naming where it stopped, and the session runs
// the next call; async results equal sync ones; a second call on a busy
// session is refused, never raced; threads calling one module through
// several sessions on one shared device get the serial results bit for bit;
// freeing a fence or a session with a call in flight cancels and waits.
// tests/data/endless.mlir holds the endless loops.
#include <dirent.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#ifndef KILN_TEST_COMPILED_DIR
#include "compiler/compile.h"
#endif
#include "vm/kiln.h"

namespace {

using Clock = std::chrono::steady_clock;

std::string Message(kiln_status_t s) {
  std::string m = s ? kiln_status_message(s) : "";
  kiln_status_free(s);
  return m;
}

// The code and message of `s`, which is freed.
struct Outcome {
  kiln_status_code_t code;
  std::string message;
};
Outcome Take(kiln_status_t s) {
  Outcome o{kiln_status_code(s), s ? kiln_status_message(s) : ""};
  kiln_status_free(s);
  return o;
}

int ProcessThreads() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

// The ThreadSanitizer build (scripts/tsan_check.sh) has no compiler: its
// build compiles the same .mlir files with the release build's kiln-compile
// into KILN_TEST_COMPILED_DIR, as NAME.kiln.
kiln_module_t* CompileAndLoad(const std::string& path) {
  const std::string name = path.substr(path.find_last_of('/') + 1);
  kiln_module_t* module = nullptr;
#ifdef KILN_TEST_COMPILED_DIR
  const std::string kiln = std::string(KILN_TEST_COMPILED_DIR) + "/" + name.substr(0, name.rfind('.')) + ".kiln";
  EXPECT_EQ(Message(kiln_module_load_file(kiln.c_str(), &module)), "") << kiln;
#else
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_FALSE(text.empty()) << path;
  kiln::compiler::CompileOptions options;
  options.target = "cpu";
  auto bytes = kiln::compiler::Compile(text, name, options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  if (!bytes.ok()) return nullptr;
  EXPECT_EQ(Message(kiln_module_load_memory(bytes->data(), bytes->size(), &module)), "");
#endif
  return module;
}

class CApiAsync : public ::testing::Test {
 public:
  void SetUp() override {
    endless_ = CompileAndLoad(std::string(KILN_TEST_DATA_DIR) + "/endless.mlir");
    ASSERT_NE(endless_, nullptr);
    kiln_session_options_t o;
    kiln_session_options_init(&o);
    o.cpu_threads = 2;
    ASSERT_EQ(Message(kiln_session_create_with_options(endless_, &o, &session_)), "");
  }
  void TearDown() override {
    kiln_session_free(session_);
    kiln_module_free(endless_);
  }

  // Starts @spin (an i64 counter, the scalar path) or @spin_tensor (a tanh
  // per iteration, device work) on session_.
  kiln_fence_t* StartSpin(bool device_work, const kiln_call_options_t* options = nullptr) {
    kiln_fence_t* fence = nullptr;
    kiln_tensor_t in = device_work ? kiln_tensor_t{KILN_TYPE_F32, 1, &kSpinDims, spin_data_, sizeof spin_data_}
                                   : kiln_tensor_t{KILN_TYPE_I64, 0, nullptr, &counter_, sizeof counter_};
    EXPECT_EQ(Message(kiln_session_call_async(session_, device_work ? "spin_tensor" : "spin", &in, 1, options,
                                              &fence)),
              "");
    return fence;
  }

  // @finishes on session_ (x + x): the session still computes.
  void ExpectFinishes(kiln_session_t* session) {
    const float x[4] = {1.5f, -2, 0, 8};
    const int64_t dims[] = {4};
    kiln_tensor_t in{KILN_TYPE_F32, 1, dims, x, sizeof x};
    kiln_results_t* results = nullptr;
    ASSERT_EQ(Message(kiln_session_call(session, "finishes", &in, 1, &results)), "");
    kiln_tensor_t out;
    ASSERT_EQ(Message(kiln_results_get(results, 0, &out)), "");
    ASSERT_EQ(out.byte_size, sizeof x);
    const float* y = static_cast<const float*>(out.data);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(y[i], 2 * x[i]);
    kiln_results_free(results);
  }

  static constexpr int64_t kSpinDims = 64;
  int64_t counter_ = 0;
  float spin_data_[64] = {};
  kiln_module_t* endless_ = nullptr;
  kiln_session_t* session_ = nullptr;
};

// The bound: a `while` that never ends stops within 100 ms of the
// cancel. Checks are microseconds apart, so this holds with a wide margin
// even under ASan on a loaded machine; it asserts a behaviour, not a speed.
void CancelStopsEndlessLoop(CApiAsync* t, bool device_work) {
  kiln_fence_t* fence = t->StartSpin(device_work);
  ASSERT_NE(fence, nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_EQ(kiln_fence_is_done(fence), 0);
  // A wait that times out leaves the fence valid.
  Outcome early = Take(kiln_fence_wait(fence, 1, nullptr));
  EXPECT_EQ(early.code, KILN_STATUS_DEADLINE_EXCEEDED);
  EXPECT_NE(early.message.find("has not ended after 1 ms"), std::string::npos) << early.message;

  // Cancelled from another thread, as an app's UI thread would.
  Clock::time_point cancelled_at;
  std::thread canceller([&] {
    cancelled_at = Clock::now();
    kiln_fence_cancel(fence);
  });
  canceller.join();
  kiln_results_t* results = nullptr;
  Outcome o = Take(kiln_fence_wait(fence, KILN_WAIT_FOREVER, &results));
  const auto took = Clock::now() - cancelled_at;
  EXPECT_EQ(o.code, KILN_STATUS_CANCELLED) << o.message;
  EXPECT_NE(o.message.find("endless.mlir:"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find(": cancelled"), std::string::npos) << o.message;
  EXPECT_EQ(results, nullptr);
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(took).count();
  EXPECT_LT(took, std::chrono::milliseconds(100)) << us << " us";
  std::printf("cancel to fence signalled: %lld us\n", static_cast<long long>(us));
  EXPECT_EQ(kiln_fence_is_done(fence), 1);
  // Every wait reports the failure.
  EXPECT_EQ(Take(kiln_fence_wait(fence, 0, nullptr)).code, KILN_STATUS_CANCELLED);
  kiln_fence_free(fence);
  t->ExpectFinishes(t->session_);
}

TEST_F(CApiAsync, CancelStopsScalarLoopWithin100ms) { CancelStopsEndlessLoop(this, false); }

TEST_F(CApiAsync, CancelStopsLoopWithDeviceWorkWithin100ms) { CancelStopsEndlessLoop(this, true); }

TEST_F(CApiAsync, DeadlinePassesAndSessionStaysUsable) {
  kiln_call_options_t o;
  kiln_call_options_init(&o);
  EXPECT_EQ(o.struct_size, sizeof(kiln_call_options_t));
  EXPECT_EQ(o.timeout_ms, 0u);
  o.timeout_ms = 100;
  // Synchronous.
  kiln_tensor_t in{KILN_TYPE_I64, 0, nullptr, &counter_, sizeof counter_};
  kiln_results_t* results = nullptr;
  const auto t0 = Clock::now();
  Outcome sync = Take(kiln_session_call_with_options(session_, "spin", &in, 1, &o, &results));
  const auto took = Clock::now() - t0;
  EXPECT_EQ(sync.code, KILN_STATUS_DEADLINE_EXCEEDED) << sync.message;
  EXPECT_NE(sync.message.find("endless.mlir:"), std::string::npos) << sync.message;
  EXPECT_NE(sync.message.find("timed out after 0.1 s"), std::string::npos) << sync.message;
  EXPECT_EQ(results, nullptr);
  EXPECT_GE(took, std::chrono::milliseconds(100));
  ExpectFinishes(session_);

  // Asynchronous, with device work in the loop: the fence reports it.
  kiln_fence_t* fence = StartSpin(true, &o);
  ASSERT_NE(fence, nullptr);
  Outcome async = Take(kiln_fence_wait(fence, KILN_WAIT_FOREVER, &results));
  EXPECT_EQ(async.code, KILN_STATUS_DEADLINE_EXCEEDED) << async.message;
  EXPECT_NE(async.message.find("timed out after 0.1 s"), std::string::npos) << async.message;
  kiln_fence_free(fence);
  ExpectFinishes(session_);

  // A call that ends in time is untouched by its deadline.
  o.timeout_ms = 60000;
  const float x[4] = {1, 2, 3, 4};
  const int64_t dims[] = {4};
  kiln_tensor_t fin{KILN_TYPE_F32, 1, dims, x, sizeof x};
  ASSERT_EQ(Message(kiln_session_call_with_options(session_, "finishes", &fin, 1, &o, &results)), "");
  kiln_tensor_t out;
  ASSERT_EQ(Message(kiln_results_get(results, 0, &out)), "");
  EXPECT_EQ(static_cast<const float*>(out.data)[3], 8.0f);
  kiln_results_free(results);
}

TEST_F(CApiAsync, CallsWhileOneRunsWaitOrAreRefused) {
  kiln_fence_t* fence = StartSpin(false);
  ASSERT_NE(fence, nullptr);
  const float x[4] = {};
  const int64_t dims[] = {4};
  kiln_tensor_t in{KILN_TYPE_F32, 1, dims, x, sizeof x};
  // Async and profile_begin: refused while @spin runs.
  kiln_fence_t* second = nullptr;
  Outcome async = Take(kiln_session_call_async(session_, "finishes", &in, 1, nullptr, &second));
  EXPECT_EQ(async.code, KILN_STATUS_FAILED_PRECONDITION);
  EXPECT_NE(async.message.find("one call at a time"), std::string::npos) << async.message;
  EXPECT_EQ(second, nullptr);
  EXPECT_EQ(Take(kiln_session_profile_begin(session_)).code, KILN_STATUS_FAILED_PRECONDITION);
  // A synchronous call from another thread waits for @spin, then runs.
  std::atomic<bool> done{false};
  Outcome sync;
  kiln_results_t* results = nullptr;
  std::thread caller([&] {
    sync = Take(kiln_session_call(session_, "finishes", &in, 1, &results));
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(done.load()) << "the synchronous call ran while @spin held the session";
  kiln_fence_cancel(fence);
  caller.join();
  EXPECT_EQ(sync.code, KILN_STATUS_OK) << sync.message;
  EXPECT_NE(results, nullptr);
  kiln_results_free(results);
  EXPECT_EQ(Take(kiln_fence_wait(fence, KILN_WAIT_FOREVER, nullptr)).code, KILN_STATUS_CANCELLED);
  kiln_fence_free(fence);
  ExpectFinishes(session_);
}

TEST_F(CApiAsync, ThreadsOnOneSessionEachRunRight) {
  // Synchronous calls from several threads on one session run one after
  // another: every one runs, with its own inputs' result.
  constexpr int kThreads = 4, kCalls = 200;
  std::atomic<int> ran{0}, wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      float x[4] = {static_cast<float>(t), 1, 2, 3};
      const int64_t dims[] = {4};
      kiln_tensor_t in{KILN_TYPE_F32, 1, dims, x, sizeof x};
      for (int i = 0; i < kCalls; ++i) {
        kiln_results_t* results = nullptr;
        kiln_status_t s = kiln_session_call(session_, "finishes", &in, 1, &results);
        if (!s) {
          kiln_tensor_t out;
          kiln_status_free(kiln_results_get(results, 0, &out));
          const float* y = static_cast<const float*>(out.data);
          (y[0] == 2.0f * t && y[3] == 6.0f ? ran : wrong)++;
        } else {
          ++wrong;
        }
        kiln_status_free(s);
        kiln_results_free(results);
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(ran.load(), kThreads * kCalls);
}

TEST_F(CApiAsync, FreeingAFenceInFlightCancelsAndWaits) {
  kiln_fence_t* fence = StartSpin(true);
  ASSERT_NE(fence, nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const auto t0 = Clock::now();
  kiln_fence_free(fence);  // returns once the call has ended
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
  ExpectFinishes(session_);
}

TEST_F(CApiAsync, FreeingTheSessionInFlightCancelsAndWaits) {
  kiln_session_free(session_);
  const int before = ProcessThreads();
  kiln_session_options_t so;
  kiln_session_options_init(&so);
  so.cpu_threads = 2;
  ASSERT_EQ(Message(kiln_session_create_with_options(endless_, &so, &session_)), "");
  ExpectFinishes(session_);
  const int with_session = ProcessThreads();
  kiln_fence_t* fence = StartSpin(false);
  ASSERT_NE(fence, nullptr);
  EXPECT_EQ(ProcessThreads(), with_session + 1) << "the session's call thread, started by its first async call";
  kiln_session_free(session_);
  session_ = nullptr;
  EXPECT_EQ(ProcessThreads(), before) << "a thread outlived its session";
  // The fence outlives the session and holds the call's outcome.
  EXPECT_EQ(kiln_fence_is_done(fence), 1);
  EXPECT_EQ(Take(kiln_fence_wait(fence, 0, nullptr)).code, KILN_STATUS_CANCELLED);
  kiln_fence_free(fence);
}

TEST_F(CApiAsync, BadArgumentsAreRefused) {
  kiln_fence_t* fence = nullptr;
  float x[4] = {};
  const int64_t dims[] = {4};
  kiln_tensor_t in{KILN_TYPE_F32, 1, dims, x, sizeof x};
  // Found before the call starts: a status, no fence, the session left idle.
  kiln_tensor_t bad = in;
  bad.byte_size = 12;
  Outcome size = Take(kiln_session_call_async(session_, "finishes", &bad, 1, nullptr, &fence));
  EXPECT_EQ(size.code, KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(size.message.find("byte_size 12 does not match"), std::string::npos) << size.message;
  EXPECT_EQ(fence, nullptr);
  kiln_call_options_t raw = {};  // not initialized by kiln_call_options_init
  Outcome opt = Take(kiln_session_call_async(session_, "finishes", &in, 1, &raw, &fence));
  EXPECT_EQ(opt.code, KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(opt.message.find("kiln_call_options_init"), std::string::npos) << opt.message;
  kiln_results_t* results = nullptr;
  EXPECT_EQ(Take(kiln_session_call_with_options(session_, "finishes", &in, 1, &raw, &results)).code,
            KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(Take(kiln_session_call_async(session_, "finishes", &in, 1, nullptr, nullptr)).code,
            KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(Take(kiln_session_call_async(nullptr, "finishes", &in, 1, nullptr, &fence)).code,
            KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(Take(kiln_session_call_with_options(nullptr, "finishes", &in, 1, nullptr, &results)).code,
            KILN_STATUS_INVALID_ARGUMENT);
  ExpectFinishes(session_);
  // Found by the call: the fence's status.
  ASSERT_EQ(Message(kiln_session_call_async(session_, "nowhere", &in, 1, nullptr, &fence)), "");
  Outcome missing = Take(kiln_fence_wait(fence, KILN_WAIT_FOREVER, &results));
  EXPECT_EQ(missing.code, KILN_STATUS_NOT_FOUND);
  EXPECT_NE(missing.message.find("no function named 'nowhere'"), std::string::npos) << missing.message;
  kiln_fence_free(fence);
  // NULL fences.
  EXPECT_EQ(Take(kiln_fence_wait(nullptr, 0, &results)).code, KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_fence_is_done(nullptr), 0);
  kiln_fence_cancel(nullptr);
  kiln_fence_free(nullptr);
  kiln_call_options_init(nullptr);
}

// @main of examples/spec_program.mlir (a 784x10 dense layer) with inputs
// that depend on `seed`, on `session`; the 10 outputs, or empty on a failure
// (reported). With `async`, through a fence.
struct Dense {
  explicit Dense(int seed) : image(28 * 28), weights(784 * 10), bias(10) {
    for (size_t i = 0; i < image.size(); ++i) image[i] = static_cast<float>((i * 7 + seed) % 13) * 0.125f - 0.5f;
    for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>((i + seed) % 11) * 0.01f - 0.05f;
    for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(i + seed) * 0.1f - 0.3f;
  }
  std::vector<float> Run(kiln_session_t* session, bool async = false) const {
    const int64_t d_image[] = {28, 28}, d_weights[] = {784, 10}, d_bias[] = {1, 10};
    const kiln_tensor_t in[3] = {
        {KILN_TYPE_F32, 2, d_image, image.data(), image.size() * sizeof(float)},
        {KILN_TYPE_F32, 2, d_weights, weights.data(), weights.size() * sizeof(float)},
        {KILN_TYPE_F32, 2, d_bias, bias.data(), bias.size() * sizeof(float)},
    };
    kiln_results_t* results = nullptr;
    std::string m;
    if (async) {
      kiln_fence_t* fence = nullptr;
      m = Message(kiln_session_call_async(session, "main", in, 3, nullptr, &fence));
      if (m.empty()) m = Message(kiln_fence_wait(fence, KILN_WAIT_FOREVER, &results));
      kiln_fence_free(fence);
    } else {
      m = Message(kiln_session_call(session, "main", in, 3, &results));
    }
    EXPECT_EQ(m, "");
    if (!m.empty()) return {};
    kiln_tensor_t out;
    EXPECT_EQ(Message(kiln_results_get(results, 0, &out)), "");
    std::vector<float> v(static_cast<const float*>(out.data), static_cast<const float*>(out.data) + 10);
    kiln_results_free(results);
    return v;
  }
  std::vector<float> image, weights, bias;
};

class CApiAsyncDense : public ::testing::Test {
 protected:
  void SetUp() override {
    module_ = CompileAndLoad(std::string(KILN_SOURCE_DIR) + "/examples/spec_program.mlir");
    ASSERT_NE(module_, nullptr);
  }
  void TearDown() override { kiln_module_free(module_); }
  kiln_module_t* module_ = nullptr;
};

TEST_F(CApiAsyncDense, AsyncResultsEqualSyncResults) {
  kiln_session_t* session = nullptr;
  ASSERT_EQ(Message(kiln_session_create(module_, "cpu", &session)), "");
  for (int seed = 0; seed < 3; ++seed) {
    const Dense d(seed);
    const std::vector<float> sync = d.Run(session);
    ASSERT_EQ(sync.size(), 10u);
    EXPECT_EQ(d.Run(session, true), sync) << seed;
    EXPECT_EQ(d.Run(session), sync) << seed;  // sync again after async
  }
  // Results are handed out once; a wait without out_results leaves them.
  const Dense d(5);
  const std::vector<float> want = d.Run(session);
  const int64_t d_image[] = {28, 28}, d_weights[] = {784, 10}, d_bias[] = {1, 10};
  const kiln_tensor_t in[3] = {
      {KILN_TYPE_F32, 2, d_image, d.image.data(), d.image.size() * sizeof(float)},
      {KILN_TYPE_F32, 2, d_weights, d.weights.data(), d.weights.size() * sizeof(float)},
      {KILN_TYPE_F32, 2, d_bias, d.bias.data(), d.bias.size() * sizeof(float)},
  };
  kiln_fence_t* fence = nullptr;
  ASSERT_EQ(Message(kiln_session_call_async(session, "main", in, 3, nullptr, &fence)), "");
  EXPECT_EQ(Message(kiln_fence_wait(fence, KILN_WAIT_FOREVER, nullptr)), "");
  kiln_results_t* results = nullptr;
  ASSERT_EQ(Message(kiln_fence_wait(fence, 0, &results)), "");
  ASSERT_NE(results, nullptr);
  kiln_tensor_t out;
  ASSERT_EQ(Message(kiln_results_get(results, 0, &out)), "");
  EXPECT_EQ(std::vector<float>(static_cast<const float*>(out.data), static_cast<const float*>(out.data) + 10), want);
  kiln_results_free(results);
  kiln_results_t* again = nullptr;
  Outcome taken = Take(kiln_fence_wait(fence, 0, &again));
  EXPECT_EQ(taken.code, KILN_STATUS_FAILED_PRECONDITION);
  EXPECT_NE(taken.message.find("taken by an earlier wait"), std::string::npos) << taken.message;
  EXPECT_EQ(again, nullptr);
  kiln_fence_free(fence);
  // Results not taken are freed with the fence (ASan's leak check).
  ASSERT_EQ(Message(kiln_session_call_async(session, "main", in, 3, nullptr, &fence)), "");
  kiln_fence_free(fence);
  kiln_session_free(session);
}

TEST_F(CApiAsyncDense, ThreadsOnOneSessionMatchSerialCalls) {
  // Issue 21's figure on one session: 8 threads x 1,000 synchronous calls,
  // each thread with its own inputs, bit for bit as serial calls.
  constexpr int kThreads = 8, kCalls = 1000;
  kiln_session_t* session = nullptr;
  ASSERT_EQ(Message(kiln_session_create(module_, "cpu", &session)), "");
  std::vector<Dense> inputs;
  std::vector<std::vector<float>> serial;
  for (int t = 0; t < kThreads; ++t) {
    inputs.emplace_back(t);
    serial.push_back(inputs[t].Run(session));
    ASSERT_EQ(serial[t].size(), 10u);
  }
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i)
        if (inputs[t].Run(session) != serial[t]) ++mismatches;
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
  kiln_session_free(session);
}

TEST_F(CApiAsyncDense, ThreadsOnSessionsSharingADeviceMatchSerialCalls) {
  // Issue 21's figure: 8 threads x 1,000 calls (a call takes microseconds).
  constexpr int kThreads = 8, kCalls = 1000;
  kiln_device_options_t o;
  kiln_device_options_init(&o);
  o.cpu_threads = 2;
  kiln_device_t* device = nullptr;
  ASSERT_EQ(Message(kiln_device_create(&o, &device)), "");
  std::vector<kiln_session_t*> sessions(kThreads);
  for (auto& s : sessions) {
    kiln_session_options_t so;
    kiln_session_options_init(&so);
    so.shared_device = device;
    ASSERT_EQ(Message(kiln_session_create_with_options(module_, &so, &s)), "");
  }
  // Serial first: each thread's own inputs, one call at a time.
  std::vector<Dense> inputs;
  std::vector<std::vector<float>> serial;
  for (int t = 0; t < kThreads; ++t) {
    inputs.emplace_back(t);
    serial.push_back(inputs[t].Run(sessions[0]));
    ASSERT_EQ(serial[t].size(), 10u);
  }
  // Then all at once, sync and async alternating, each thread on its own
  // session; results compared bit for bit.
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i)
        if (inputs[t].Run(sessions[t], i % 2 == 1) != serial[t]) ++mismatches;
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
  for (auto* s : sessions) kiln_session_free(s);
  kiln_device_free(device);
}

}  // namespace

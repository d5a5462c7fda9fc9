// The C API's session and device options (vm/kiln.h): the CPU device's
// thread count, from the options, else KILN_THREADS, else one per core;
// options not made by kiln_session_options_init and threads for another
// device are refused. Shared devices (kiln_device_t): several sessions on
// one device share its pool, keep it alive after kiln_device_free and compute
// what a session with its own device does; the spin policies and CPU
// affinity of the pool; bad device options refused.
// Thread counts are read from /proc/self/task: what the session really
// started, not what it says.
#include <gtest/gtest.h>
#include <dirent.h>
#include <stdlib.h>

#include <chrono>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "vm/kiln.h"
#include "tests/support/scoped_env.h"

namespace {

using kiln::test::ScopedEnv;

// Threads of this process now, by id.
std::set<std::string> Tasks() {
  std::set<std::string> out;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') out.insert(e->d_name);
    closedir(d);
  }
  return out;
}

// Threads of this process now.
int ProcessThreads() { return static_cast<int>(Tasks().size()); }

// Threads of this process once the count has settled: a freed session's
// workers have been joined, but on a loaded machine an exited thread can
// stay listed in /proc/self/task for a moment after its join (seen under
// ctest -j2), which made the count taken before the next session too high.
// Three equal reads 5 ms apart, within a second.
int SettledProcessThreads() {
  int last = ProcessThreads(), same = 0;
  for (int i = 0; i < 200 && same < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const int now = ProcessThreads();
    same = now == last ? same + 1 : 0;
    last = now;
  }
  return last;
}

std::string Message(kiln_status_t s) {
  std::string m = s ? kiln_status_message(s) : "";
  kiln_status_free(s);
  return m;
}

class CApiOptions : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in(std::string(KILN_SOURCE_DIR) + "/examples/spec_program.mlir");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    kiln::compiler::CompileOptions options;
    options.target = "cpu";
    auto bytes = kiln::compiler::Compile(text, "spec_program.mlir", options, nullptr);
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    ASSERT_EQ(Message(kiln_module_load_memory(bytes->data(), bytes->size(), &module_)), "");
  }
  void TearDown() override { kiln_module_free(module_); }

  // Opens a session with `options` and returns how many threads it started
  // (-1 if it failed, with the message in *error).
  int ThreadsStarted(const kiln_session_options_t& options, std::string* error = nullptr) {
    const int before = SettledProcessThreads();
    kiln_session_t* session = nullptr;
    std::string m = Message(kiln_session_create_with_options(module_, &options, &session));
    if (error) *error = m;
    if (!m.empty()) return -1;
    const int started = ProcessThreads() - before;
    kiln_session_free(session);
    return started;
  }
  // The threads a CPU device of `pool` threads starts: its pool's workers
  // (the caller is one of the pool) and, deferred, its queue thread.
  static int ExpectedStarted(int pool) {
    return pool - 1 + (kiln::hal::CpuModeFromEnvironment() == kiln::hal::CpuMode::kDeferred ? 1 : 0);
  }

  kiln_module_t* module_ = nullptr;
};

TEST_F(CApiOptions, InitSetsTheDefaults) {
  kiln_session_options_t o;
  o.device = "vulkan";
  o.cpu_threads = 7;
  kiln_session_options_init(&o);
  EXPECT_EQ(o.struct_size, sizeof(kiln_session_options_t));
  EXPECT_EQ(o.device, nullptr);
  EXPECT_EQ(o.cpu_threads, 0);
  kiln_session_options_init(nullptr);  // no crash
}

TEST_F(CApiOptions, ExplicitThreadCountSizesThePool) {
  ScopedEnv env("KILN_THREADS", "2");  // the explicit count wins over it
  kiln_session_options_t o;
  kiln_session_options_init(&o);
  o.cpu_threads = 3;
  EXPECT_EQ(ThreadsStarted(o), ExpectedStarted(3));
  o.cpu_threads = 1;
  EXPECT_EQ(ThreadsStarted(o), ExpectedStarted(1));
}

TEST_F(CApiOptions, KilnThreadsIsTheDefault) {
  kiln_session_options_t o;
  kiln_session_options_init(&o);
  {
    ScopedEnv env("KILN_THREADS", "3");
    EXPECT_EQ(ThreadsStarted(o), ExpectedStarted(3));
    // kiln_session_create takes the same default.
    const int before = SettledProcessThreads();
    kiln_session_t* s = nullptr;
    ASSERT_EQ(Message(kiln_session_create(module_, "cpu", &s)), "");
    EXPECT_EQ(ProcessThreads() - before, ExpectedStarted(3));
    kiln_session_free(s);
  }
  {
    ScopedEnv env("KILN_THREADS", "1");
    EXPECT_EQ(ThreadsStarted(o), ExpectedStarted(1));
  }
  {
    ScopedEnv env("KILN_THREADS", nullptr);
    const int cores = kiln::hal::ThreadPool::CoreCount();  // the CPUs of the affinity mask
    EXPECT_EQ(ThreadsStarted(o), ExpectedStarted(cores));
  }
}

TEST_F(CApiOptions, InvalidKilnThreadsIsAnError) {
  kiln_session_options_t o;
  kiln_session_options_init(&o);
  for (const char* bad : {"abc", "-1", "1025", "2x", " 2"}) {
    ScopedEnv env("KILN_THREADS", bad);
    kiln_session_t* s = nullptr;
    kiln_status_t status = kiln_session_create_with_options(module_, &o, &s);
    EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT) << bad;
    EXPECT_NE(std::string(kiln_status_message(status)).find(std::string("KILN_THREADS='") + bad + "'"),
              std::string::npos)
        << kiln_status_message(status);
    kiln_status_free(status);
    EXPECT_EQ(s, nullptr);
  }
}

TEST_F(CApiOptions, BadOptionsAreRefused) {
  kiln_session_options_t o;
  kiln_session_options_init(&o);
  kiln_session_t* s = nullptr;
  std::string error;
  o.cpu_threads = 2000;
  EXPECT_EQ(ThreadsStarted(o, &error), -1);
  EXPECT_NE(error.find("not 2000"), std::string::npos) << error;
  o.cpu_threads = -1;
  EXPECT_EQ(ThreadsStarted(o, &error), -1);
  o.cpu_threads = 2;
  o.device = "vulkan";
  EXPECT_EQ(ThreadsStarted(o, &error), -1);
  EXPECT_NE(error.find("cpu device only"), std::string::npos) << error;
  o.device = "";
  o.cpu_threads = 0;
  EXPECT_EQ(ThreadsStarted(o, &error), -1);
  EXPECT_NE(error.find("device name is empty"), std::string::npos) << error;

  kiln_session_options_t raw = {};  // not initialized by kiln_session_options_init
  kiln_status_t status = kiln_session_create_with_options(module_, &raw, &s);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kiln_status_message(status)).find("kiln_session_options_init"), std::string::npos);
  kiln_status_free(status);
  EXPECT_EQ(Message(kiln_session_create_with_options(module_, nullptr, &s)).empty(), false);
  EXPECT_EQ(s, nullptr);
}

// The "Cpus_allowed_list:" of a thread of this process.
std::string AllowedCpus(const std::string& tid) {
  std::ifstream in("/proc/self/task/" + tid + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("Cpus_allowed_list:", 0) == 0) return line.substr(line.find_first_not_of(" \t", 18));
  return "";
}

// Shared devices (kiln_device_t): the same module, plus @main's inputs.
class CApiDevice : public CApiOptions {
 protected:
  void SetUp() override {
    CApiOptions::SetUp();
    image_.resize(28 * 28);
    weights_.resize(784 * 10);
    bias_.resize(10);
    for (size_t i = 0; i < image_.size(); ++i) image_[i] = static_cast<float>(i % 7) * 0.25f - 0.5f;
    for (size_t i = 0; i < weights_.size(); ++i) weights_[i] = static_cast<float>(i % 11) * 0.01f - 0.05f;
    for (size_t i = 0; i < bias_.size(); ++i) bias_[i] = static_cast<float>(i) * 0.1f - 0.3f;
  }

  // @main on the fixed inputs; empty on an error (reported).
  std::vector<float> Run(kiln_session_t* session) {
    const int64_t d_image[] = {28, 28}, d_weights[] = {784, 10}, d_bias[] = {1, 10};
    kiln_tensor_t in[3] = {
        {KILN_TYPE_F32, 2, d_image, image_.data(), image_.size() * sizeof(float)},
        {KILN_TYPE_F32, 2, d_weights, weights_.data(), weights_.size() * sizeof(float)},
        {KILN_TYPE_F32, 2, d_bias, bias_.data(), bias_.size() * sizeof(float)},
    };
    kiln_results_t* results = nullptr;
    std::string m = Message(kiln_session_call(session, "main", in, 3, &results));
    EXPECT_EQ(m, "");
    if (!m.empty()) return {};
    kiln_tensor_t out;
    EXPECT_EQ(Message(kiln_results_get(results, 0, &out)), "");
    std::vector<float> v(static_cast<const float*>(out.data), static_cast<const float*>(out.data) + 10);
    kiln_results_free(results);
    return v;
  }

  kiln_session_t* Session(kiln_device_t* device) {
    kiln_session_options_t o;
    kiln_session_options_init(&o);
    o.shared_device = device;
    kiln_session_t* s = nullptr;
    EXPECT_EQ(Message(kiln_session_create_with_options(module_, &o, &s)), "");
    return s;
  }

  std::vector<float> image_, weights_, bias_;
};

TEST_F(CApiDevice, SessionsOnOneDeviceShareItsPool) {
  kiln_session_t* own = nullptr;
  ASSERT_EQ(Message(kiln_session_create(module_, "cpu", &own)), "");
  const std::vector<float> want = Run(own);
  kiln_session_free(own);
  ASSERT_EQ(want.size(), 10u);

  const size_t before = static_cast<size_t>(SettledProcessThreads());  // the first session's workers gone
  kiln_device_options_t o;
  kiln_device_options_init(&o);
  o.cpu_threads = 3;
  kiln_device_t* device = nullptr;
  ASSERT_EQ(Message(kiln_device_create(&o, &device)), "");
  EXPECT_EQ(Tasks().size() - before, static_cast<size_t>(ExpectedStarted(3)));
  kiln_session_t* a = Session(device);
  kiln_session_t* b = Session(device);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(Tasks().size() - before, static_cast<size_t>(ExpectedStarted(3))) << "a session on a shared device started threads of its own";
  EXPECT_EQ(Run(a), want);
  EXPECT_EQ(Run(b), want);
  // Both sessions at once, from two threads.
  std::vector<float> ra, rb;
  std::thread ta([&] { for (int i = 0; i < 20; ++i) ra = Run(a); });
  std::thread tb([&] { for (int i = 0; i < 20; ++i) rb = Run(b); });
  ta.join();
  tb.join();
  EXPECT_EQ(ra, want);
  EXPECT_EQ(rb, want);
  // The sessions keep the device alive.
  kiln_device_free(device);
  EXPECT_EQ(Run(a), want);
  kiln_session_free(a);
  EXPECT_EQ(Run(b), want);
  kiln_session_free(b);
  EXPECT_EQ(static_cast<size_t>(SettledProcessThreads()), before) << "the pool's threads outlived the last session";
}

TEST_F(CApiDevice, EverySpinPolicyComputesTheSameResult) {
  kiln_session_t* own = nullptr;
  ASSERT_EQ(Message(kiln_session_create(module_, "cpu", &own)), "");
  const std::vector<float> want = Run(own);
  kiln_session_free(own);
  for (int policy : {KILN_SPIN_DEFAULT, KILN_SPIN_SPIN, KILN_SPIN_YIELD, KILN_SPIN_BLOCK}) {
    kiln_device_options_t o;
    kiln_device_options_init(&o);
    o.cpu_threads = 2;
    o.spin_policy = policy;
    kiln_device_t* device = nullptr;
    ASSERT_EQ(Message(kiln_device_create(&o, &device)), "") << policy;
    kiln_session_t* s = Session(device);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(Run(s), want) << policy;
    kiln_session_free(s);
    kiln_device_free(device);
  }
  ScopedEnv env("KILN_SPIN", "sometimes");
  kiln_device_options_t o;
  kiln_device_options_init(&o);
  o.cpu_threads = 2;
  kiln_device_t* device = nullptr;
  EXPECT_NE(Message(kiln_device_create(&o, &device)).find("KILN_SPIN='sometimes'"), std::string::npos);
  EXPECT_EQ(device, nullptr);
}

TEST_F(CApiDevice, AffinityPinsTheWorkers) {
  const std::set<std::string> before = Tasks();
  kiln_device_options_t o;
  kiln_device_options_init(&o);
  o.cpu_threads = 3;
  const int32_t cpus[] = {0};
  o.cpu_affinity = cpus;
  o.cpu_affinity_count = 1;
  kiln_device_t* device = nullptr;
  ASSERT_EQ(Message(kiln_device_create(&o, &device)), "");
  int pinned = 0;
  for (const auto& tid : Tasks())
    if (!before.count(tid) && AllowedCpus(tid) == "0") ++pinned;
  EXPECT_EQ(pinned, 2) << "both workers on CPU 0";
  EXPECT_NE(AllowedCpus(*before.begin()), "") << "the caller's threads are left alone";
  kiln_session_t* s = Session(device);
  EXPECT_EQ(Run(s).size(), 10u);
  kiln_session_free(s);
  kiln_device_free(device);
}

TEST_F(CApiDevice, BadOptionsAreRefused) {
  kiln_device_t* device = nullptr;
  kiln_device_options_t o;
  kiln_device_options_init(&o);
  const int32_t bad_cpu[] = {100000};
  o.cpu_affinity = bad_cpu;
  o.cpu_affinity_count = 1;
  EXPECT_NE(Message(kiln_device_create(&o, &device)).find("CPU 100000"), std::string::npos);
  o.cpu_affinity = nullptr;
  EXPECT_NE(Message(kiln_device_create(&o, &device)).find("cpu_affinity is NULL"), std::string::npos);
  o.cpu_affinity_count = 0;
  o.spin_policy = 9;
  EXPECT_NE(Message(kiln_device_create(&o, &device)).find("spin_policy 9"), std::string::npos);
  o.spin_policy = KILN_SPIN_BLOCK;
  o.name = "vulkan";
  EXPECT_NE(Message(kiln_device_create(&o, &device)).find("cpu device only"), std::string::npos);
  o.name = "tpu";
  o.spin_policy = KILN_SPIN_DEFAULT;
  EXPECT_NE(Message(kiln_device_create(&o, &device)).find("unknown device 'tpu'"), std::string::npos);
  kiln_device_options_t raw = {};
  EXPECT_NE(Message(kiln_device_create(&raw, &device)).find("kiln_device_options_init"), std::string::npos);
  EXPECT_EQ(device, nullptr);

  // A session on a shared device takes nothing else.
  kiln_device_options_init(&o);
  ASSERT_EQ(Message(kiln_device_create(&o, &device)), "");
  kiln_session_options_t so;
  kiln_session_options_init(&so);
  so.shared_device = device;
  so.cpu_threads = 2;
  kiln_session_t* s = nullptr;
  EXPECT_NE(Message(kiln_session_create_with_options(module_, &so, &s)).find("leave device NULL"), std::string::npos);
  EXPECT_EQ(s, nullptr);
  kiln_device_free(device);
}

TEST_F(CApiDevice, FirstVersionSessionOptionsStillWork) {
  // An app built against the first kiln_session_options_t (no shared_device).
  kiln_session_options_t o;
  kiln_session_options_init(&o);
  o.struct_size = offsetof(kiln_session_options_t, shared_device);
  o.shared_device = reinterpret_cast<kiln_device_t*>(1);  // beyond its struct: never read
  kiln_session_t* s = nullptr;
  ASSERT_EQ(Message(kiln_session_create_with_options(module_, &o, &s)), "");
  EXPECT_EQ(Run(s).size(), 10u);
  kiln_session_free(s);
}

}  // namespace

// The C API's session options (vm/kiln.h): the CPU device's thread count,
// from the options, else KILN_THREADS, else one per core; options not made
// by kiln_session_options_init and threads for another device are refused.
// Thread counts are read from /proc/self/task: what the session really
// started, not what it says.
#include <gtest/gtest.h>
#include <dirent.h>
#include <stdlib.h>

#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "vm/kiln.h"
#include "tests/support/scoped_env.h"

namespace {

using kiln::test::ScopedEnv;

// Threads of this process now.
int ProcessThreads() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
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
    const int before = ProcessThreads();
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
    const int before = ProcessThreads();
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
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    EXPECT_EQ(ThreadsStarted(o), ExpectedStarted(cores > 0 ? cores : 1));
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

}  // namespace

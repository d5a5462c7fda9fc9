// The CPU device's default thread count (ThreadPool::ResolveThreads): an
// explicit count wins; otherwise KILN_THREADS when set, else one per core;
// an invalid KILN_THREADS is an error naming it, for the checked pool and
// device (what the tools and the C API use). Thread counts are read from
// /proc/self/task: what the pool really started.
#include <gtest/gtest.h>
#include <dirent.h>
#include <sched.h>
#include <stdlib.h>

#include <string>
#include <thread>

#include "hal/cpu/cpu_device.h"
#include "hal/cpu/thread_pool.h"
#include "tests/support/scoped_env.h"

namespace kiln::hal {
namespace {

using kiln::test::ScopedEnv;

// Whether /proc/self/task counts the pool's threads exactly. Under qemu-user
// (the arm64 check) it also lists the emulator's own threads, and a joined
// thread can linger there for a moment, so there the tests check the pools'
// sizes only. ThreadSanitizer starts a thread of its own beside the first
// thread the process creates (scripts/tsan_check.sh).
#if defined(KILN_TESTS_UNDER_EMULATOR) || defined(__SANITIZE_THREAD__)
constexpr bool kExactThreadCounts = false;
#else
constexpr bool kExactThreadCounts = true;
#endif

int ProcessThreads() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

// The CPUs the calling thread may run on (its affinity mask, as nproc).
int Cores() {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) > 0) return CPU_COUNT(&allowed);
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

TEST(ThreadDefault, ExplicitCountWins) {
  ScopedEnv env("KILN_THREADS", "5");
  auto n = ThreadPool::ResolveThreads(3);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(*n, 3);
  const int before = ProcessThreads();
  ThreadPool pool(2);
  EXPECT_EQ(pool.num_workers(), 2);
  if (kExactThreadCounts) {  // one worker beside the caller
    EXPECT_EQ(ProcessThreads() - before, 1);
  }
}

TEST(ThreadDefault, KilnThreadsSizesTheDefaultPool) {
  {
    ScopedEnv env("KILN_THREADS", "3");
    auto n = ThreadPool::ResolveThreads(0);
    ASSERT_TRUE(n.ok()) << n.status().message();
    EXPECT_EQ(*n, 3);
    const int before = ProcessThreads();
    auto pool = ThreadPool::Create(0);
    ASSERT_TRUE(pool.ok()) << pool.status().message();
    EXPECT_EQ((*pool)->num_workers(), 3);
    if (kExactThreadCounts) {
      EXPECT_EQ(ProcessThreads() - before, 2);
    }
  }
  {
    ScopedEnv env("KILN_THREADS", "1");
    const int before = ProcessThreads();
    ThreadPool pool(0);
    EXPECT_EQ(pool.num_workers(), 1);
    if (kExactThreadCounts) {  // no worker: the caller runs every task
      EXPECT_EQ(ProcessThreads(), before);
    }
  }
  for (const char* cores : {"0", ""}) {  // 0 means one per core; empty means unset
    ScopedEnv env("KILN_THREADS", cores);
    auto n = ThreadPool::ResolveThreads(0);
    ASSERT_TRUE(n.ok()) << n.status().message();
    EXPECT_EQ(*n, Cores()) << "KILN_THREADS='" << cores << "'";
  }
  ScopedEnv unset("KILN_THREADS", nullptr);
  EXPECT_EQ(*ThreadPool::ResolveThreads(0), Cores());
}

TEST(ThreadDefault, OnePerCpuOfTheAffinityMask) {
  // Under taskset or a cpuset the default is the CPUs the process may use,
  // not every CPU of the machine: restricted to one, one thread (two would
  // share the core, each spinning while the other waits behind it).
  ScopedEnv unset("KILN_THREADS", nullptr);
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
  int first = -1;
  for (int c = 0; c < CPU_SETSIZE && first < 0; ++c)
    if (CPU_ISSET(c, &saved)) first = c;
  ASSERT_GE(first, 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  auto n = ThreadPool::ResolveThreads(0);
  ASSERT_EQ(sched_setaffinity(0, sizeof saved, &saved), 0);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(*n, 1);
  EXPECT_EQ(*ThreadPool::ResolveThreads(0), Cores()) << "the whole mask again";
}

TEST(ThreadDefault, InvalidKilnThreadsIsAnError) {
  for (const char* bad : {"abc", "-2", "1025", "4 ", "0x4", "3.5"}) {
    ScopedEnv env("KILN_THREADS", bad);
    auto n = ThreadPool::ResolveThreads(0);
    ASSERT_FALSE(n.ok()) << bad;
    EXPECT_EQ(n.status().message(), std::string("KILN_THREADS='") + bad +
                                        "' is not a thread count: expected a whole number from 0 to 1024 "
                                        "(0: one per core)");
    EXPECT_FALSE(ThreadPool::Create(0).ok());
    auto device = CreateCheckedCpuDevice(CpuMode::kInline, 0);
    ASSERT_FALSE(device.ok());
    EXPECT_NE(device.status().message().find("KILN_THREADS"), std::string::npos);
    // An explicit count does not read the variable at all.
    EXPECT_TRUE(CreateCheckedCpuDevice(CpuMode::kInline, 2).ok());
  }
}

TEST(ThreadDefault, DeviceNameShowsThePoolSize) {
  ScopedEnv env("KILN_THREADS", "3");
  EXPECT_EQ(CreateCpuDevice(CpuMode::kInline, 0)->name(), "cpu (inline, 3 threads)");
  EXPECT_EQ(CreateCpuDevice(CpuMode::kDeferred, 1)->name(), "cpu (deferred, 1 thread)");
}

}  // namespace
}  // namespace kiln::hal

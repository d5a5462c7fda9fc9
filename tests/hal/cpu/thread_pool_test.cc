// The CPU driver's kernel thread pool (hal/cpu/thread_pool.h): every task
// runs exactly once, worker indices are in range and never shared by two
// tasks at the same time, nested and concurrent callers run their tasks
// themselves instead of deadlocking, and a pool of one runs everything on
// the calling thread. A pool too large, or one whose threads the system
// cannot start, is a Status naming it, never std::terminate.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "hal/cpu/thread_pool.h"
#include "tests/support/sanitizers.h"

namespace kiln::hal {
namespace {

TEST(ThreadPool, RunsEveryTaskOnceWithExclusiveWorkerIndices) {
  ThreadPool pool(4);
  ASSERT_EQ(pool.num_workers(), 4);
  for (int64_t tasks : {0, 1, 2, 3, 7, 100, 1000}) {
    std::vector<std::atomic<int>> runs(static_cast<size_t>(tasks));
    std::vector<std::atomic<int>> busy(4);
    std::atomic<bool> overlap{false}, out_of_range{false};
    pool.Run(tasks, [&](int64_t t, int w) {
      if (w < 0 || w >= 4) {
        out_of_range = true;
        return;
      }
      if (busy[w].fetch_add(1) != 0) overlap = true;
      runs[t].fetch_add(1);
      std::this_thread::yield();
      busy[w].fetch_sub(1);
    });
    for (int64_t t = 0; t < tasks; ++t) EXPECT_EQ(runs[t].load(), 1) << "task " << t << " of " << tasks;
    EXPECT_FALSE(overlap);
    EXPECT_FALSE(out_of_range);
  }
}

// RunAffine: each task once, indices exclusive, every count of tasks up to
// the workers (and ParallelForAffine's fallback past them); with the
// caller's task long enough for every worker to wake, task t runs on worker
// t; a task's exception reaches the caller and the pool stays usable.
TEST(ThreadPool, AffineRunsEachTaskOnceOnItsOwnWorker) {
  ThreadPool pool(4);
  for (int64_t tasks : {2, 3, 4, 9}) {
    for (int round = 0; round < 50; ++round) {
      std::vector<std::atomic<int>> runs(static_cast<size_t>(tasks)), busy(4);
      std::atomic<bool> overlap{false};
      ParallelForAffine(&pool, tasks, [&](int64_t t, int w) {
        if (busy[static_cast<size_t>(w)].fetch_add(1) != 0) overlap = true;
        runs[static_cast<size_t>(t)].fetch_add(1);
        busy[static_cast<size_t>(w)].fetch_sub(1);
      });
      for (int64_t t = 0; t < tasks; ++t) ASSERT_EQ(runs[static_cast<size_t>(t)].load(), 1) << t << " of " << tasks;
      ASSERT_FALSE(overlap);
    }
  }
  // Task t runs on worker t unless that worker is late, when the caller
  // (worker 0) takes it once its own task is done: with task 0 held for a
  // while, the workers are in time on some try (on a loaded machine not
  // necessarily on the first), and then each task ran on its own worker.
  bool own_workers = false;
  for (int attempt = 0; attempt < 50 && !own_workers; ++attempt) {
    std::vector<std::atomic<int>> ran_on(4);
    pool.RunAffine(4, [&](int64_t t, int w) {
      if (t == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ran_on[static_cast<size_t>(t)] = w;
    });
    own_workers = true;
    for (int t = 0; t < 4; ++t) own_workers = own_workers && ran_on[static_cast<size_t>(t)].load() == t;
  }
  EXPECT_TRUE(own_workers) << "no try of 50 ran every task on its own worker";
  EXPECT_THROW(pool.RunAffine(3, [](int64_t t, int) {
    if (t == 2) throw std::runtime_error("task 2");
  }), std::runtime_error);
  std::atomic<int> after{0};
  pool.RunAffine(4, [&](int64_t, int) { after.fetch_add(1); });
  EXPECT_EQ(after.load(), 4);
}

TEST(ThreadPool, NestedRunDoesNotDeadlock) {
  ThreadPool pool(3);
  std::atomic<int> inner{0};
  pool.Run(6, [&](int64_t, int) { ParallelFor(&pool, 5, [&](int64_t, int) { inner.fetch_add(1); }); });
  EXPECT_EQ(inner.load(), 30);
}

TEST(ThreadPool, ConcurrentCallersBothFinish) {
  ThreadPool pool(2);
  std::atomic<int> a{0}, b{0};
  std::thread other([&] {
    for (int i = 0; i < 200; ++i) pool.Run(8, [&](int64_t, int) { a.fetch_add(1); });
  });
  for (int i = 0; i < 200; ++i) pool.Run(8, [&](int64_t, int) { b.fetch_add(1); });
  other.join();
  EXPECT_EQ(a.load(), 1600);
  EXPECT_EQ(b.load(), 1600);
}

TEST(ThreadPool, OneThreadRunsOnTheCaller) {
  ThreadPool pool(1);
  EXPECT_EQ(pool.num_workers(), 1);
  const auto caller = std::this_thread::get_id();
  bool elsewhere = false;
  pool.Run(10, [&](int64_t, int w) { elsewhere = elsewhere || w != 0 || std::this_thread::get_id() != caller; });
  EXPECT_FALSE(elsewhere);
  EXPECT_GE(ThreadPool(0).num_workers(), 1);  // 0: one per core
}

TEST(ThreadPool, CreateRefusesMoreThanTheMaximum) {
  auto pool = ThreadPool::Create(ThreadPool::kMaxThreads + 1);
  ASSERT_FALSE(pool.ok());
  EXPECT_NE(pool.status().message().find("at most 1024"), std::string::npos) << pool.status().message();
  auto small = ThreadPool::Create(3);
  ASSERT_TRUE(small.ok()) << small.status().message();
  EXPECT_EQ((*small)->num_workers(), 3);
}

// AddressSanitizer reserves its shadow memory up front, and qemu-user maps
// the guest's memory inside its own reservation, so an address-space limit
// cannot model "no memory for one more thread stack" under either; native
// builds without ASan run it.
#if !defined(KILN_TEST_UNDER_ASAN) && !defined(KILN_TESTS_UNDER_EMULATOR)
// In a child process whose address space has room for only a few thread
// stacks, the pool's threads cannot all start: Create says which one failed,
// the pool constructed directly still runs every task (on the caller), and
// nothing terminates.
TEST(ThreadPoolDeathTest, ThreadsThatCannotStartAreAStatus) {
  EXPECT_EXIT(
      {
        long pages = 0;
        std::ifstream("/proc/self/statm") >> pages;
        rlimit limit{};
        limit.rlim_cur = limit.rlim_max = static_cast<rlim_t>(pages) * 4096 + (rlim_t{64} << 20);
        if (setrlimit(RLIMIT_AS, &limit) != 0) std::_Exit(2);
        auto pool = ThreadPool::Create(200);  // 8 MiB of stack each
        if (pool.ok()) std::_Exit(3);
        std::fprintf(stderr, "%s\n", pool.status().message().c_str());
        ThreadPool direct(200);
        std::atomic<int> ran{0};
        direct.Run(50, [&](int64_t, int) { ran.fetch_add(1); });
        std::_Exit(!direct.start_status().ok() && ran.load() == 50 ? 0 : 4);
      },
      ::testing::ExitedWithCode(0), "could not start kernel thread [0-9]+ of the 200 asked for");
}
#endif

}  // namespace
}  // namespace kiln::hal

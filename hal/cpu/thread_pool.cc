#include "hal/cpu/thread_pool.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include <pthread.h>
#include <sched.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "kernels/common/kernel_selection.h"  // KILN_SELECTIVE_BUILD

namespace kiln::hal {

namespace {

// How long a thread spins for the next job (a worker) or for the last task
// (the caller) before it sleeps: long enough to bridge the gap between the
// dispatches of one invocation, short enough not to burn a core when idle.
constexpr auto kSpinTime = std::chrono::microseconds(100);

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

template <typename Done>
bool ThreadPool::SpinFor(const Done& done) const {
  if (spin_ == SpinPolicy::kBlock) return done();
  const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
  for (int i = 0;; ++i) {
    if (done()) return true;
    if (spin_ == SpinPolicy::kYield) std::this_thread::yield();
    else CpuRelax();
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > deadline) return done();
  }
}

StatusOr<SpinPolicy> SpinPolicyFromEnvironment() {
  const char* env = std::getenv("KILN_SPIN");
  if (!env || !*env) return SpinPolicy::kSpin;
  const std::string_view v(env);
  if (v == "spin") return SpinPolicy::kSpin;
  if (v == "yield") return SpinPolicy::kYield;
  if (v == "block") return SpinPolicy::kBlock;
  return InvalidArgument("KILN_SPIN='" + std::string(v) + "' is not a spin policy: expected spin, yield or block");
}

int ThreadPool::CoreCount() {
  // The CPUs this process may run on (taskset, cpusets), as nproc counts
  // them: more threads than those would share a core, and a pool thread
  // that spins while the one it waits for is queued behind it on the same
  // core made a two-task dispatch take the whole spin time (a batch-1 int8
  // block under `taskset -c 0` at 0.25 ms a call instead of 0.04).
  unsigned n = 0;
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) n = static_cast<unsigned>(CPU_COUNT(&allowed));
  if (n == 0) n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(std::min<unsigned>(n, kMaxThreads));
}

StatusOr<int> ThreadPool::ResolveThreads(int threads) {
  if (threads < 0)
    return InvalidArgument("the thread count must be at least 0 (0: the default), not " + std::to_string(threads));
  if (threads > kMaxThreads)
    return InvalidArgument("a thread pool of " + std::to_string(threads) + " threads is too large (at most " +
                           std::to_string(kMaxThreads) + ")");
  if (threads > 0) return threads;
  const char* env = std::getenv("KILN_THREADS");
  if (!env || !*env) return CoreCount();
  const std::string_view text(env);
  int n = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 0 || n > kMaxThreads)
    return InvalidArgument("KILN_THREADS='" + std::string(text) +
                           "' is not a thread count: expected a whole number from 0 to " + std::to_string(kMaxThreads) +
                           " (0: one per core)");
  return n == 0 ? CoreCount() : n;
}

ThreadPool::ThreadPool(int threads) {
  ThreadPoolOptions options;
  options.threads = threads < 0 ? 0 : threads;
  Start(options);
}

ThreadPool::ThreadPool(const ThreadPoolOptions& options) {
  // What a worker reads to start a job stays on one cache line (the header
  // says why). offsetof on a class that is not standard-layout (it holds a
  // mutex) is conditionally supported: g++ and clang support it where there
  // are no virtual bases.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
  static_assert(offsetof(ThreadPool, affine_) + sizeof(affine_) - offsetof(ThreadPool, job_) <= 64,
                "a job's start no longer fits one cache line");
#pragma GCC diagnostic pop
  Start(options);
}

void ThreadPool::Start(const ThreadPoolOptions& options) {
  auto resolved = ResolveThreads(options.threads);
  if (!resolved.ok()) {
    start_status_ = resolved.status();  // no workers: the calling thread runs every task
    return;
  }
  if (options.spin) {
    spin_ = *options.spin;
  } else {
    auto spin = SpinPolicyFromEnvironment();
    if (!spin.ok()) {
      start_status_ = spin.status();
      return;
    }
    spin_ = *spin;
  }
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (!options.affinity.empty() && sched_getaffinity(0, sizeof allowed, &allowed) != 0) CPU_ZERO(&allowed);
  for (int cpu : options.affinity)
    if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed)) {
      start_status_ = InvalidArgument("CPU " + std::to_string(cpu) + " of the affinity list is not one this process may run on");
      return;
    }
  const int threads = *resolved;
  try {
    if (!KILN_SELECTIVE_BUILD && threads > kInlineClaims) {
      claimed_ = std::make_unique<std::atomic<bool>[]>(static_cast<size_t>(threads));
      claims_ = claimed_.get();
    }
    threads_.reserve(static_cast<size_t>(threads - 1));
    for (int i = 1; i < threads; ++i) {
      threads_.emplace_back([this, i] { WorkerLoop(i); });
      if (options.affinity.empty()) continue;
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(options.affinity[static_cast<size_t>(i - 1) % options.affinity.size()], &one);
      if (int err = pthread_setaffinity_np(threads_.back().native_handle(), sizeof one, &one); err != 0) {
        start_status_ = Internal("could not pin kernel thread " + std::to_string(i + 1) + ": error " + std::to_string(err));
        Stop();
        return;
      }
    }
  } catch (const std::exception& e) {
    // std::system_error from std::thread (EAGAIN: the thread or memory
    // limit), or bad_alloc. Joinable threads must not be destroyed, so the
    // ones already running are stopped here; the pool stays usable with
    // the calling thread alone.
    start_status_ = ResourceExhausted("could not start kernel thread " + std::to_string(threads_.size() + 1) +
                                      " of the " + std::to_string(threads) + " asked for: " + e.what());
    Stop();
  }
}

StatusOr<std::unique_ptr<ThreadPool>> ThreadPool::Create(int threads) {
  auto pool = std::make_unique<ThreadPool>(threads);
  if (!pool->start_status_.ok()) return pool->start_status_;
  return pool;
}

StatusOr<std::unique_ptr<ThreadPool>> ThreadPool::Create(const ThreadPoolOptions& options) {
  auto pool = std::make_unique<ThreadPool>(options);
  if (!pool->start_status_.ok()) return pool->start_status_;
  return pool;
}

ThreadPool::~ThreadPool() { Stop(); }

void ThreadPool::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_.store(true);
  }
  start_cv_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void ThreadPool::RunTask(int64_t task, int worker) {
  try {
    Fn()(task, worker);
  } catch (...) {
    std::lock_guard<std::mutex> l(error_mu_);
    if (!error_) error_ = std::current_exception();
    failed_.store(true);
    next_task_.store(num_tasks_);  // the job has failed: skip what is left
  }
}

void ThreadPool::Drain(int worker) {
  // (Affine jobs are speed only: a selective build's kernels do not ask
  // for them, and its pool runs RunAffine as Run.)
  if (!KILN_SELECTIVE_BUILD && affine_) {
    // Each worker its own task; the caller (worker 0) then every task no
    // worker has claimed yet, so a late worker's share is not waited for
    // (a worker that took others' tasks too took them from workers about
    // to wake). A failed job (next_task_ at its end) starts no more.
    auto claim = [&](int64_t t) {
      if (next_task_.load() < num_tasks_ && !claims_[static_cast<size_t>(t)].exchange(true)) RunTask(t, worker);
    };
    if (worker < num_tasks_) claim(worker);
    if (worker == 0)
      for (int64_t t = 1; t < num_tasks_; ++t) claim(t);
    return;
  }
  for (int64_t task; (task = next_task_.fetch_add(1)) < num_tasks_;) RunTask(task, worker);
}

void ThreadPool::Run(int64_t num_tasks, TaskFn fn) { RunJob(num_tasks, fn, false); }

void ThreadPool::RunAffine(int64_t num_tasks, TaskFn fn) {
  RunJob(num_tasks, fn, !KILN_SELECTIVE_BUILD && num_tasks <= num_workers());
}

void ThreadPool::RunJob(int64_t num_tasks, TaskFn& fn, bool affine) {
  bool idle = false;
  if (threads_.empty() || num_tasks <= 1 || !running_.compare_exchange_strong(idle, true)) {
    for (int64_t t = 0; t < num_tasks; ++t) fn(t, 0);
    return;
  }
  // The previous job is closed and every worker that joined it has left
  // (the previous Run waited for them), and no worker can join a closed
  // job, so these plain writes race with nothing; opening the job
  // publishes them.
  new (fn_) TaskFn(fn);
  num_tasks_ = num_tasks;
  affine_ = affine;
  if (!KILN_SELECTIVE_BUILD && affine)
    for (int64_t t = 0; t < num_tasks; ++t) claims_[static_cast<size_t>(t)].store(false, std::memory_order_relaxed);
  next_task_.store(0);
  // (The generation wraps after 2^31 jobs; a worker asleep that long may
  // then skip one job, which the caller runs.)
  const uint64_t generation = ((job_.load() >> kGenerationShift) + 1) & ((uint64_t{1} << (64 - kGenerationShift)) - 1);
  job_.store(generation << kGenerationShift);
  if (sleepers_.load() > 0) {
    std::lock_guard<std::mutex> l(mu_);  // a sleeper is inside wait(), not between its check and wait()
    start_cv_.notify_all();
  }
  Drain(0);
  // Every task is claimed now (Drain took what no member had); wait for the
  // members only.
  job_.fetch_or(kClosed);
  auto members_left = [&] {
    const uint64_t w = job_.load();
    return Left(w) == Joined(w);
  };
  if (!SpinFor(members_left)) {
    std::unique_lock<std::mutex> l(mu_);
    done_cv_.wait(l, members_left);
  }
  std::exception_ptr error;
  if (failed_.load()) {  // (every member has left: its task's error is recorded)
    std::lock_guard<std::mutex> l(error_mu_);
    error.swap(error_);
    failed_.store(false);
  }
  running_.store(false);
  if (error) std::rethrow_exception(error);
}

void ThreadPool::WorkerLoop(int worker) {
  uint64_t last = 0;  // the generation of the last job this worker joined or missed
  // An open job this worker has neither joined nor missed.
  auto joinable = [&](uint64_t w) { return (w & kClosed) == 0 && (w >> kGenerationShift) != last; };
  for (;;) {
    auto job_ready = [&] { return stopping_.load() || joinable(job_.load()); };
    if (!SpinFor(job_ready)) {
      std::unique_lock<std::mutex> l(mu_);
      sleepers_.fetch_add(1);
      start_cv_.wait(l, job_ready);
      sleepers_.fetch_sub(1);
    }
    if (stopping_.load()) return;
    // Joins the open job. The compare-exchange fails where the caller closed
    // it (or opened another) in between: a closed job is never joined.
    uint64_t w = job_.load();
    while (joinable(w) && !job_.compare_exchange_weak(w, w + kJoinedOne)) {
    }
    const bool joined = joinable(w);
    last = w >> kGenerationShift;
    if (!joined) continue;
    Drain(worker);
    // Seeing the job open as it leaves, the caller has not started waiting
    // (it closes first) and will read this count; seeing it closed, the
    // caller may be asleep and is woken.
    if ((job_.fetch_add(kLeftOne) & kClosed) != 0) {
      std::lock_guard<std::mutex> l(mu_);
      done_cv_.notify_all();
    }
  }
}

}  // namespace kiln::hal

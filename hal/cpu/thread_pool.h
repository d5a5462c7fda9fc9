// The CPU driver's thread pool: N-1 worker threads plus the thread that
// calls Run (the device's submitting or queue thread), which takes tasks
// too. Workers only ever run kernel tasks (never VM work), so nothing that
// blocks on another context or device can occupy them.
//
// One Run at a time: a second caller that finds the pool busy (another VM
// context sharing the device in inline mode, or a task that itself calls
// ParallelFor) runs its tasks on its own thread instead of waiting, so the
// pool can never deadlock.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <thread>
#include <vector>

#include "kernels/common/parallel.h"
#include "kernels/common/status.h"

namespace kiln::hal {

// How an idle thread of the pool waits for the next job, and the caller for
// the pool's last task (the C API's kiln_spin_policy_t):
//   kSpin:  spins (the CPU's pause instruction) for up to 100 us, then
//           sleeps: back-to-back dispatches pay no futex wake-up; the
//           default, best on a machine the app has to itself;
//   kYield: the same 100 us, but yielding the core to the scheduler between
//           checks: a little slower, much kinder to other busy processes;
//   kBlock: sleeps at once: no core is ever burnt, each job pays a wake-up.
enum class SpinPolicy : uint8_t { kSpin, kYield, kBlock };

// The pool's settings (the C API's kiln_device_options_t).
struct ThreadPoolOptions {
  int threads = 0;  // the calling thread included; 0: ResolveThreads' default
  // nullopt: SpinPolicyFromEnvironment() (KILN_SPIN=spin|yield|block, else spin).
  std::optional<SpinPolicy> spin;
  // CPUs the workers are pinned to, worker k to affinity[(k - 1) % size]
  // (the calling thread is the app's and is not pinned); empty: not pinned.
  // A CPU this process may not use is an error naming it.
  std::vector<int> affinity;
};

// KILN_SPIN from the environment; kSpin when unset; an error naming a value
// that is not spin, yield or block.
StatusOr<SpinPolicy> SpinPolicyFromEnvironment();

class ThreadPool final : public TaskRunner {
 public:
  // Most threads a pool may have (the calling thread included); larger
  // requests are refused by Create, since no machine this runs on has that
  // many cores and each thread costs a stack.
  static constexpr int kMaxThreads = 1024;

  // `threads` includes the calling thread; <= 0 means the default
  // (ResolveThreads). A pool whose size is refused (an invalid KILN_THREADS,
  // more than kMaxThreads) or whose threads cannot all be started (the
  // system's thread or memory limit) stops the ones it started and records
  // why in start_status(); it then runs every task on the calling thread.
  explicit ThreadPool(int threads);
  explicit ThreadPool(const ThreadPoolOptions& options);
  // The checked way to make a pool: refuses what the constructor records in
  // start_status(), naming the setting or the thread that failed.
  static StatusOr<std::unique_ptr<ThreadPool>> Create(int threads);
  static StatusOr<std::unique_ptr<ThreadPool>> Create(const ThreadPoolOptions& options);
  SpinPolicy spin_policy() const { return spin_; }
  const Status& start_status() const { return start_status_; }
  ~ThreadPool() override;
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_workers() const override { return static_cast<int>(threads_.size()) + 1; }
  void Run(int64_t num_tasks, TaskFn fn) override;
  // Task t to worker t, or to the caller where that worker has not taken
  // it by the time the caller's own task is done (a selective build, whose
  // kernels do not ask for it, runs it as Run).
  void RunAffine(int64_t num_tasks, TaskFn fn) override;

  // The size of a pool asked for with `threads`: `threads` itself when
  // positive (at most kMaxThreads); for 0, the environment variable
  // KILN_THREADS when it is set and not empty (a whole number from 1 to
  // kMaxThreads, or 0 for one per core), else one thread per core. The one
  // place the default is decided, so the tools, the C API and the
  // benchmarks agree; an explicit count always wins over KILN_THREADS. A
  // negative count, one above kMaxThreads or a KILN_THREADS that is not such
  // a number is an error naming it.
  static StatusOr<int> ResolveThreads(int threads);
  // Cores this process may use: the CPUs of its affinity mask
  // (sched_getaffinity; else std::thread::hardware_concurrency), at least
  // 1, at most kMaxThreads.
  static int CoreCount();

 private:
  void WorkerLoop(int worker);
  // Stops and joins every worker (the destructor, or a failed start).
  void Stop();
  // Takes tasks of the current job until none are left.
  void Drain(int worker);
  // Runs one task, recording the first exception (which ends the job).
  void RunTask(int64_t task, int worker);
  // Publishes a job of num_tasks (affine or not) to the workers, drains it
  // on the calling thread, closes it and waits for the workers that joined
  // it to leave.
  void RunJob(int64_t num_tasks, TaskFn& fn, bool affine);
  // Waits as spin_ says until done() holds or the spin time passes; returns done().
  template <typename Done>
  bool SpinFor(const Done& done) const;
  // Starts the workers (the constructors).
  void Start(const ThreadPoolOptions& options);

  SpinPolicy spin_ = SpinPolicy::kSpin;

  // Set for the duration of one Run. An atomic rather than a mutex: a
  // nested Run comes from a thread that is already inside Run.
  std::atomic<bool> running_{false};
  // A job: Run writes fn_, num_tasks_ and the claims, then opens the job in
  // job_ (a new generation, no member, open). A worker joins by adding
  // itself to job_'s member count while the job is open, takes tasks, and
  // counts itself out in job_ too. Once the caller has taken every task not yet
  // claimed, it closes the job and waits only for the members it had: a
  // worker that has not joined by then (descheduled while another process
  // holds its core) is not waited for, so a small dispatch never waits a
  // scheduler slice for a thread that has nothing left to do. Both sides
  // spin a little before sleeping on the condition variables, so the
  // back-to-back small dispatches of a model do not pay a futex wake-up
  // (tens of microseconds) each; sleepers_ lets Run skip the notify when
  // every worker is still spinning.
  // job_'s fields: one word, so that joining, leaving and closing are each
  // one atomic operation on one cache line.
  static constexpr uint64_t kJoinedOne = 1;                  // bits 0-15: workers that joined
  static constexpr uint64_t kLeftOne = uint64_t{1} << 16;    // bits 16-31: workers that left
  static constexpr uint64_t kClosed = uint64_t{1} << 32;
  static constexpr int kGenerationShift = 33;                // bits 33-63: the job's generation
  static int Joined(uint64_t w) { return static_cast<int>(w & 0xffff); }
  static int Left(uint64_t w) { return static_cast<int>((w >> 16) & 0xffff); }
  // Everything a worker reads to join a job and start its task lies on this
  // one cache line (job_ through affine_), written by the caller before it
  // opens the job: a worker's start then costs the fewest cross-core
  // transfers (kiln-kernel-bench BM_PoolHandoff).
  alignas(64) std::atomic<uint64_t> job_{kClosed};
  std::atomic<int64_t> next_task_{0};
  alignas(TaskFn) unsigned char fn_[sizeof(TaskFn)];  // the job's TaskFn, a copy (trivially copyable)
  int64_t num_tasks_ = 0;
  // An affine job (RunAffine): task t is claimed through claims_[t]
  // (num_tasks_ <= the workers), worker t trying its own first: on this
  // line for pools of up to kInlineClaims threads, else in claimed_.
  static constexpr int kInlineClaims = 8;
  std::atomic<bool>* claims_ = inline_claims_;
  std::atomic<bool> inline_claims_[kInlineClaims] = {};
  bool affine_ = false;
  alignas(64) std::atomic<int> sleepers_{0};
  std::atomic<bool> stopping_{false};
  std::unique_ptr<std::atomic<bool>[]> claimed_;
  const TaskFn& Fn() const { return *std::launder(reinterpret_cast<const TaskFn*>(fn_)); }
  // The first exception a task of the current job threw (a kernel out of
  // memory): the job's remaining tasks are skipped and Run rethrows it on the
  // caller's thread once every worker is out, so nothing reaches a worker's
  // top (std::terminate) or leaves Run while workers still use fn_.
  std::mutex error_mu_;
  std::exception_ptr error_;
  std::atomic<bool> failed_{false};  // error_ is set: Run takes the lock only then
  std::mutex mu_;
  std::condition_variable start_cv_, done_cv_;
  std::vector<std::thread> threads_;
  Status start_status_;
};

}  // namespace kiln::hal

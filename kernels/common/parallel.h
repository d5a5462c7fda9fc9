// How a kernel splits one dispatch into tiles across cores. The CPU driver
// owns a thread pool (hal/cpu/thread_pool.h) and hands it to every kernel
// through KernelCall::runner; a kernel that wants to run in parallel cuts its
// work into independent tasks and calls ParallelFor. Without a runner (the
// reference kernels, unit tests, a nested call) the tasks run in order on the
// calling thread, so a kernel is always correct single-threaded.
//
// Pool workers run only kernel tasks, never VM work: a blocking operation
// (a collective, a host wait) blocks its VM context's own thread.
#pragma once
#include <cstdint>
#include <functional>

namespace kiln {

class TaskRunner {
 public:
  virtual ~TaskRunner() = default;
  // Threads that may run tasks at once, the calling thread included (>= 1).
  virtual int num_workers() const = 0;
  // Runs fn(task, worker) for every task in [0, num_tasks) and returns when
  // all have finished. `worker` is in [0, num_workers()); no two tasks of one call run at once with one
  // worker index, so a kernel can keep per-worker scratch for the call (a nested or concurrent call that
  // finds the pool busy runs its own tasks in order on its thread, as worker 0 of that call).
  virtual void Run(int64_t num_tasks, const std::function<void(int64_t task, int worker)>& fn) = 0;
};

inline int NumWorkers(const TaskRunner* runner) { return runner ? runner->num_workers() : 1; }

// A template, not a std::function parameter: a kernel's lambda captures
// many locals by reference, and a std::function made from it directly would
// allocate on every dispatch; the function is called directly when the
// tasks run in order, and through a reference_wrapper (which std::function
// stores without allocating) when they go to the pool.
template <typename Fn>
inline void ParallelFor(TaskRunner* runner, int64_t num_tasks, Fn&& fn) {
  if (runner == nullptr || runner->num_workers() <= 1 || num_tasks <= 1) {
    for (int64_t t = 0; t < num_tasks; ++t) fn(t, 0);
    return;
  }
  runner->Run(num_tasks, std::function<void(int64_t task, int worker)>(std::ref(fn)));
}

}  // namespace kiln

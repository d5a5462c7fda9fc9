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
#include <algorithm>
#include <cstdint>
#include <functional>  // callers of ParallelFor have long received it from here

namespace kiln {

// A reference to a callable fn(task, worker), valid while the callable
// lives (it is only called during the Run or ParallelFor it is passed to).
// Not std::function: a kernel's lambda captures many locals by reference,
// and a std::function made from it would allocate on every dispatch (and
// instantiate a manager per lambda, which a size-bounded runtime pays for).
class TaskFn {
 public:
  template <typename F>
  TaskFn(const F& f)  // NOLINT: implicit, so lambdas convert at the call
      : object_(&f), call_([](const void* o, int64_t task, int worker) { (*static_cast<const F*>(o))(task, worker); }) {}
  void operator()(int64_t task, int worker) const { call_(object_, task, worker); }

 private:
  const void* object_;
  void (*call_)(const void*, int64_t, int);
};

class TaskRunner {
 public:
  virtual ~TaskRunner() = default;
  // Threads that may run tasks at once, the calling thread included (>= 1).
  virtual int num_workers() const = 0;
  // Runs fn(task, worker) for every task in [0, num_tasks) and returns when
  // all have finished. `worker` is in [0, num_workers()); no two tasks of one call run at once with one
  // worker index, so a kernel can keep per-worker scratch for the call (a nested or concurrent call that
  // finds the pool busy runs its own tasks in order on its thread, as worker 0 of that call).
  virtual void Run(int64_t num_tasks, TaskFn fn) = 0;
  // Like Run for at most num_workers() tasks, but task t goes to worker t
  // where that worker is ready for it (a late one's task is taken by
  // another, so nothing waits on a sleeping thread): a kernel that splits
  // the same data the same way on every call then finds each share in the
  // cache of the core that read it last time (a batch-1 layer's weights in
  // the two cores' L2). Without such a pool: Run.
  virtual void RunAffine(int64_t num_tasks, TaskFn fn) { Run(num_tasks, fn); }
};

inline int NumWorkers(const TaskRunner* runner) { return runner ? runner->num_workers() : 1; }

inline void ParallelFor(TaskRunner* runner, int64_t num_tasks, TaskFn fn) {
  if (runner == nullptr || runner->num_workers() <= 1 || num_tasks <= 1) {
    for (int64_t t = 0; t < num_tasks; ++t) fn(t, 0);
    return;
  }
  runner->Run(num_tasks, fn);
}

// ParallelFor through TaskRunner::RunAffine (where num_tasks <= the
// runner's workers; otherwise as ParallelFor).
inline void ParallelForAffine(TaskRunner* runner, int64_t num_tasks, TaskFn fn) {
  if (runner == nullptr || runner->num_workers() <= 1 || num_tasks <= 1) {
    for (int64_t t = 0; t < num_tasks; ++t) fn(t, 0);
    return;
  }
  if (num_tasks > runner->num_workers()) return runner->Run(num_tasks, fn);
  runner->RunAffine(num_tasks, fn);
}

// Runs fn on `count` items of `problem` in tasks of `per_task` (>= 1): each
// task a copy of the problem with its [begin, end) set. `fn` is a kernel's
// per-range entry (often HWY_DYNAMIC_DISPATCH's choice for the element type).
template <typename Problem>
void ParallelRanges(TaskRunner* runner, size_t count, size_t per_task, const Problem& problem,
                    void (*fn)(const Problem&)) {
  ParallelFor(runner, static_cast<int64_t>((count + per_task - 1) / per_task), [&](int64_t task, int) {
    Problem q = problem;
    q.begin = static_cast<size_t>(task) * per_task;
    q.end = std::min(count, q.begin + per_task);
    fn(q);
  });
}

}  // namespace kiln

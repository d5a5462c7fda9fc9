#include "hal/cpu/thread_pool.h"

namespace kiln::hal {

int ThreadPool::DefaultThreads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = DefaultThreads();
  for (int i = 1; i < threads; ++i) threads_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
  }
  start_cv_.notify_all();
  for (auto& t : threads_) t.join();
}

// Tasks are coarse (a tile of a GEMM, a few hundred KB of an elementwise
// program), so handing them out under the mutex costs nothing measurable.
void ThreadPool::Drain(int worker) {
  std::unique_lock<std::mutex> l(mu_);
  while (next_task_ < num_tasks_) {
    const int64_t task = next_task_++;
    const auto* fn = fn_;
    l.unlock();
    (*fn)(task, worker);
    l.lock();
  }
}

void ThreadPool::Run(int64_t num_tasks, const std::function<void(int64_t, int)>& fn) {
  bool idle = false;
  if (threads_.empty() || num_tasks <= 1 || !running_.compare_exchange_strong(idle, true)) {
    for (int64_t t = 0; t < num_tasks; ++t) fn(t, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    fn_ = &fn;
    num_tasks_ = num_tasks;
    next_task_ = 0;
    busy_workers_ = static_cast<int>(threads_.size());
    ++generation_;
  }
  start_cv_.notify_all();
  Drain(0);
  {
    std::unique_lock<std::mutex> l(mu_);
    done_cv_.wait(l, [&] { return busy_workers_ == 0; });
    fn_ = nullptr;
  }
  running_.store(false);
}

void ThreadPool::WorkerLoop(int worker) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> l(mu_);
      start_cv_.wait(l, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    Drain(worker);
    std::lock_guard<std::mutex> l(mu_);
    if (--busy_workers_ == 0) done_cv_.notify_all();
  }
}

}  // namespace kiln::hal

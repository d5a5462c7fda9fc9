// The C API's calls with options, asynchronous calls and their fences
// (vm/kiln.h, version 3). An async call runs on a thread the session owns,
// started on its first async call; the session runs one call at a time
// (kiln_session::busy), so the worker holds at most one job. A fence shares
// its state with the job: the cancel flag the interpreter reads
// (InvokeOptions::cancel) and the call's outcome.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "vm/c_api_internal.h"
#include "vm/context.h"
#include "vm/kiln.h"

namespace kiln::capi {

// What a fence and its call share.
struct FenceState {
  std::atomic<bool> cancel{false};
  std::mutex mu;
  std::condition_variable cv;
  // Set once, under mu, when the call has ended; atomic so that
  // kiln_fence_is_done reads it without the lock.
  std::atomic<bool> done{false};
  kiln_status_t status = nullptr;     // the call's (owned); each wait gets a copy
  kiln_results_t* results = nullptr;  // until a wait takes them
  bool taken = false;
  ~FenceState() {
    kiln_status_free(status);
    kiln_results_free(results);
  }
};

struct Job {
  std::string function;
  std::vector<kiln::vm::BorrowedTensor> inputs;  // the caller's memory, until the fence signals
  kiln::vm::InvokeOptions options;
  std::shared_ptr<FenceState> fence;
};

struct AsyncWorker {
  explicit AsyncWorker(kiln_session_t* s) : session(s) {}
  // Cancels the job queued or running and waits for the thread: the session
  // frees its context next, which the job runs on.
  ~AsyncWorker() {
    {
      std::lock_guard<std::mutex> l(mu);
      stop = true;
      if (next) next->fence->cancel.store(true);
      if (running) running->cancel.store(true);
    }
    cv.notify_all();
    if (thread.joinable()) thread.join();
  }

  void Loop() {
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> l(mu);
        cv.wait(l, [&] { return stop || next.has_value(); });
        if (!next) return;  // stopping, nothing left to signal
        job = std::move(*next);
        next.reset();
        running = job.fence;
      }
      kiln_results_t* results = nullptr;
      const kiln_status_t status = Guard("kiln_session_call_async", [&]() -> kiln_status_t {
        if (job.fence->cancel.load())
          return Error(KILN_STATUS_CANCELLED,
                       "kiln_session_call_async: function '" + job.function + "': cancelled before it started");
        job.options.cancel = &job.fence->cancel;
        return RunCall(session, job.function.c_str(), job.inputs, job.options, &results);
      });
      {
        std::lock_guard<std::mutex> l(mu);
        running.reset();
      }
      // The session takes its next call before the fence signals, so a
      // caller that has waited on it may call again at once.
      ReleaseSession(session);
      {
        std::lock_guard<std::mutex> l(job.fence->mu);
        job.fence->status = status;
        job.fence->results = results;
        job.fence->done = true;
      }
      job.fence->cv.notify_all();
    }
  }

  kiln_session_t* const session;
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;                    // under mu
  std::optional<Job> next;              // under mu: the job to run
  std::shared_ptr<FenceState> running;  // under mu: the job running
  std::thread thread;
};

namespace {

// Timeouts past this (about 35 years) are treated as none: the deadline's
// arithmetic on the steady clock stays far from overflow.
constexpr uint64_t kMaxTimeoutMs = uint64_t{1} << 40;

kiln_status_t ToInvokeOptions(const char* entry, const kiln_call_options_t* in, kiln::vm::InvokeOptions* out) {
  if (!in) return nullptr;
  if (in->struct_size != sizeof(kiln_call_options_t))
    return Invalid(std::string(entry) + ": options.struct_size is " + std::to_string(in->struct_size) +
                   ", not sizeof(kiln_call_options_t) (" + std::to_string(sizeof(kiln_call_options_t)) +
                   "): initialize the options with kiln_call_options_init");
  if (in->timeout_ms > 0 && in->timeout_ms <= kMaxTimeoutMs)
    out->timeout = std::chrono::milliseconds(static_cast<int64_t>(in->timeout_ms));
  return nullptr;
}

// A copy of the call's status, for one wait.
kiln_status_t CopyStatus(kiln_status_t s) { return s ? Error(s->code, std::string(s->message)) : nullptr; }

}  // namespace
}  // namespace kiln::capi

struct kiln_fence {
  std::shared_ptr<kiln::capi::FenceState> state;
};

using namespace kiln::capi;  // NOLINT: the entry points' shared helpers

extern "C" {

void kiln_call_options_init(kiln_call_options_t* options) {
  if (!options) return;
  *options = kiln_call_options_t{};
  options->struct_size = sizeof(kiln_call_options_t);
}

kiln_status_t kiln_session_call_with_options(kiln_session_t* session, const char* function,
                                             const kiln_tensor_t* inputs, size_t input_count,
                                             const kiln_call_options_t* options, kiln_results_t** out_results) {
  constexpr const char* kEntry = "kiln_session_call_with_options";
  if (out_results) *out_results = nullptr;
  kiln::vm::InvokeOptions invoke;
  return Guard(kEntry, [&]() -> kiln_status_t {
    if (kiln_status_t bad = ToInvokeOptions(kEntry, options, &invoke)) return bad;
    return SessionCall(kEntry, session, function, inputs, input_count, invoke, out_results);
  });
}

kiln_status_t kiln_session_call_async(kiln_session_t* session, const char* function, const kiln_tensor_t* inputs,
                                      size_t input_count, const kiln_call_options_t* options,
                                      kiln_fence_t** out_fence) {
  constexpr const char* kEntry = "kiln_session_call_async";
  if (!session || !function || !out_fence || (input_count && !inputs))
    return Invalid("kiln_session_call_async: session, function, inputs and out_fence are required");
  *out_fence = nullptr;
  return Guard(kEntry, [&]() -> kiln_status_t {
    Job job;
    if (kiln_status_t bad = ToInvokeOptions(kEntry, options, &job.options)) return bad;
    if (kiln_status_t busy = AcquireSession(kEntry, session)) return busy;
    SessionHold hold(session);
    if (kiln_status_t bad = BorrowInputs(inputs, input_count, &job.inputs)) return bad;
    job.function = function;
    job.fence = std::make_shared<FenceState>();
    auto fence = std::make_unique<kiln_fence>();
    fence->state = job.fence;
    if (!session->worker) {
      auto worker = std::make_shared<AsyncWorker>(session);
      try {
        worker->thread = std::thread([w = worker.get()] { w->Loop(); });
      } catch (const std::system_error& e) {
        return Error(KILN_STATUS_RESOURCE_EXHAUSTED,
                     std::string(kEntry) + ": could not start the session's call thread: " + e.what());
      }
      session->worker = std::move(worker);
    }
    {
      // The worker's slot is empty: the session was idle, and the worker
      // empties the slot before it runs a job.
      std::lock_guard<std::mutex> l(session->worker->mu);
      session->worker->next = std::move(job);
    }
    hold.Dismiss();  // the worker releases the session when the call ends
    session->worker->cv.notify_one();
    *out_fence = fence.release();
    return nullptr;
  });
}

kiln_status_t kiln_fence_wait(kiln_fence_t* fence, uint64_t timeout_ms, kiln_results_t** out_results) {
  if (out_results) *out_results = nullptr;
  if (!fence) return Invalid("kiln_fence_wait: fence is required");
  return Guard("kiln_fence_wait", [&]() -> kiln_status_t {
    FenceState& f = *fence->state;
    std::unique_lock<std::mutex> l(f.mu);
    if (timeout_ms >= kMaxTimeoutMs) {
      f.cv.wait(l, [&] { return f.done.load(); });
    } else if (!f.cv.wait_for(l, std::chrono::milliseconds(static_cast<int64_t>(timeout_ms)),
                              [&] { return f.done.load(); })) {
      return Error(KILN_STATUS_DEADLINE_EXCEEDED, "kiln_fence_wait: the call has not ended after " +
                                                      std::to_string(timeout_ms) +
                                                      " ms (the fence stays valid: wait again, cancel or free it)");
    }
    if (f.status) return CopyStatus(f.status);
    if (!out_results) return nullptr;
    if (f.taken)
      return Error(KILN_STATUS_FAILED_PRECONDITION,
                   "kiln_fence_wait: the call's results were taken by an earlier wait");
    f.taken = true;
    *out_results = f.results;
    f.results = nullptr;
    return nullptr;
  });
}

int32_t kiln_fence_is_done(const kiln_fence_t* fence) { return fence && fence->state->done.load() ? 1 : 0; }

void kiln_fence_cancel(kiln_fence_t* fence) {
  if (fence) fence->state->cancel.store(true);
}

void kiln_fence_free(kiln_fence_t* fence) {
  if (!fence) return;
  FenceState& f = *fence->state;
  f.cancel.store(true);  // a call that has ended ignores it
  try {
    std::unique_lock<std::mutex> l(f.mu);
    f.cv.wait(l, [&] { return f.done.load(); });
  } catch (...) {  // a lock that fails: wait without it
    while (!f.done.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  delete fence;
}

}  // extern "C"

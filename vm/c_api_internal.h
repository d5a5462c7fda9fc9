// The C API's objects and the helpers its entry points share (vm/c_api*.cc):
// the structs behind kiln.h's opaque handles, statuses, and Guard, which
// keeps every exception from crossing into C. Internal: not installed.
#ifndef KILN_VM_C_API_INTERNAL_H_
#define KILN_VM_C_API_INTERNAL_H_

#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "hal/device.h"
#include "vm/context.h"
#include "vm/kiln.h"
#include "vm/module.h"
#include "vm/profiler.h"

struct kiln_status {
  kiln_status_code_t code;
  std::string message;
};

struct kiln_module {
  std::shared_ptr<const kiln::vm::LoadedModule> loaded;
  std::vector<const kiln::vm::LoadedFunction*> public_functions;  // into `loaded`
};

// The storage of a session's last freed results, which its next call's
// results reuse (Context::Invoke): a result of the same size is copied into
// memory already allocated and touched, rather than a fresh allocation that
// page-faults and is zero-filled first (a 64 MB result: tens of ms). Shared
// with the results, which may be freed after the session; results may be
// freed on another thread than the session's.
struct ResultStore {
  std::mutex mu;
  std::vector<kiln::vm::HostTensor> spare;
};

struct kiln_device {
  std::shared_ptr<kiln::hal::Device> device;  // shared with the sessions on it
};

namespace kiln::capi {
struct AsyncWorker;  // vm/c_api_async.cc
}

struct kiln_session {
  // Set while a call runs (sync, or async until just before its fence
  // signals) and during profile_begin/end. A synchronous call waits for it
  // to clear (WaitForSession: calls from several threads run one after
  // another); an asynchronous call and profile_begin/end are refused rather
  // than wait (AcquireSession). Cleared under idle_mu, with idle_cv notified.
  std::atomic<bool> busy{false};
  std::mutex idle_mu;
  std::condition_variable idle_cv;
  // The thread of kiln_session_call_async, started on its first use (a
  // session that never calls asynchronously starts no thread); freed before
  // the context, since it runs on it.
  std::shared_ptr<kiln::capi::AsyncWorker> worker;
  std::shared_ptr<ResultStore> store = std::make_shared<ResultStore>();
  std::shared_ptr<const kiln::vm::LoadedModule> module;
  std::shared_ptr<kiln::hal::Device> device;  // outlives the context; maybe shared (kiln_device_t)
  std::shared_ptr<kiln::vm::Profiler> profiler;  // kiln_session_profile_begin
  std::unique_ptr<kiln::vm::Context> context;
};

struct kiln_results {
  std::vector<kiln::vm::HostTensor> tensors;
  std::shared_ptr<ResultStore> store;  // where kiln_results_free leaves the storage
};

namespace kiln::capi {


// Returned when not even a status can be allocated: NULL would read as
// success. kiln_status_free leaves it alone.
inline kiln_status g_out_of_memory{KILN_STATUS_RESOURCE_EXHAUSTED, "out of memory"};

// A status with `message`. The const char* form copies the text inside its
// own try, so a literal message needs no allocation at the call site, where
// nothing would catch a failure; messages built from pieces are built
// inside Guard.
inline kiln_status_t Error(kiln_status_code_t code, const char* message) {
  try {
    kiln_status_t s = new (std::nothrow) kiln_status{code, std::string(message)};
    return s ? s : &g_out_of_memory;
  } catch (...) {  // the string's copy
    return &g_out_of_memory;
  }
}

inline kiln_status_t Error(kiln_status_code_t code, std::string message) {
  kiln_status_t s = new (std::nothrow) kiln_status{code, std::move(message)};  // moving does not allocate
  return s ? s : &g_out_of_memory;
}

inline kiln_status_code_t CodeOf(kiln::StatusCode code) {
  using C = kiln::StatusCode;
  switch (code) {
    case C::kOk: return KILN_STATUS_OK;
    case C::kInvalidArgument: return KILN_STATUS_INVALID_ARGUMENT;
    case C::kNotFound: return KILN_STATUS_NOT_FOUND;
    case C::kOutOfRange: return KILN_STATUS_OUT_OF_RANGE;
    case C::kUnimplemented: return KILN_STATUS_UNIMPLEMENTED;
    case C::kDataLoss: return KILN_STATUS_DATA_LOSS;
    case C::kResourceExhausted: return KILN_STATUS_RESOURCE_EXHAUSTED;
    case C::kFailedPrecondition: return KILN_STATUS_FAILED_PRECONDITION;
    case C::kInternal: return KILN_STATUS_INTERNAL;
    case C::kDeadlineExceeded: return KILN_STATUS_DEADLINE_EXCEEDED;
    case C::kUnavailable: return KILN_STATUS_UNAVAILABLE;
    case C::kCancelled: return KILN_STATUS_CANCELLED;
  }
  return KILN_STATUS_INTERNAL;
}

inline kiln_status_t FromStatus(const kiln::Status& s) { return s.ok() ? nullptr : Error(CodeOf(s.code()), s.message()); }

inline kiln_status_t Invalid(const char* message) { return Error(KILN_STATUS_INVALID_ARGUMENT, message); }
inline kiln_status_t Invalid(std::string message) { return Error(KILN_STATUS_INVALID_ARGUMENT, std::move(message)); }

// Runs `body`, turning an escaping exception into a status that names the
// entry point. Failures the runtime foresees (a missing file, a directory,
// a thread that cannot start) come back as a Status with their own message;
// this is the last line of defence, so no exception reaches C.
template <typename F>
inline kiln_status_t Guard(const char* entry, F&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Error(KILN_STATUS_RESOURCE_EXHAUSTED, std::string(entry) + ": out of memory");
  } catch (const std::exception& e) {
    return Error(KILN_STATUS_INTERNAL, std::string(entry) + ": unexpected error: " + e.what());
  } catch (...) {
    return Error(KILN_STATUS_INTERNAL, std::string(entry) + ": unexpected error");
  }
}

inline kiln_status_t WrapModule(kiln::StatusOr<std::shared_ptr<const kiln::vm::LoadedModule>> loaded,
                         kiln_module_t** out) {
  if (!loaded.ok()) return FromStatus(loaded.status());
  auto m = std::make_unique<kiln_module>();
  m->loaded = std::move(loaded.value());
  for (const auto& f : m->loaded->functions)
    if (f.is_public) m->public_functions.push_back(&f);
  *out = m.release();
  return nullptr;
}

// Public function `index` of `module`, or a status saying why there is none.
inline kiln_status_t PublicFunction(const char* entry, const kiln_module_t* module, size_t index,
                             const kiln::vm::LoadedFunction** out) {
  if (!module) return Invalid(std::string(entry) + ": module is required");
  if (index >= module->public_functions.size())
    return Error(KILN_STATUS_OUT_OF_RANGE, std::string(entry) + ": function index " + std::to_string(index) +
                                               " out of range (" + std::to_string(module->public_functions.size()) +
                                               " public functions)");
  *out = module->public_functions[index];
  return nullptr;
}

// Argument (or, with `result`, result) `i` of public function `function`:
// OUT_OF_RANGE naming `what` ("argument", "result") when it has no such value.
inline kiln_status_t PublicValue(const char* entry, const char* what, const kiln_module_t* module, size_t function,
                                 size_t i, bool result, const kiln::vm::ValueSig** out) {
  const kiln::vm::LoadedFunction* f = nullptr;
  if (kiln_status_t s = PublicFunction(entry, module, function, &f)) return s;
  const auto& list = result ? f->results : f->args;
  if (i >= list.size())
    return Error(KILN_STATUS_OUT_OF_RANGE, std::string(entry) + ": " + what + " " + std::to_string(i) +
                                               " out of range ('" + f->name + "' has " + std::to_string(list.size()) +
                                               ")");
  *out = &list[i];
  return nullptr;
}

// Takes the session for one call (or profile_begin/end): FAILED_PRECONDITION
// naming `entry` if another holds it. Release with ReleaseSession, or hold
// it in a SessionHold.
inline kiln_status_t AcquireSession(const char* entry, kiln_session_t* session) {
  bool idle = false;
  if (session->busy.compare_exchange_strong(idle, true, std::memory_order_acquire)) return nullptr;
  return Error(KILN_STATUS_FAILED_PRECONDITION,
               std::string(entry) + ": the session is running another call (a session runs one call at a time: "
                                    "wait for it, or open a session per thread)");
}
inline void ReleaseSession(kiln_session_t* session) {
  {
    std::lock_guard<std::mutex> l(session->idle_mu);
    session->busy.store(false, std::memory_order_release);
  }
  session->idle_cv.notify_all();
}
// Takes the session for a synchronous call, waiting while another call
// holds it. Release as AcquireSession's.
inline void WaitForSession(kiln_session_t* session) {
  for (;;) {
    bool idle = false;
    if (session->busy.compare_exchange_strong(idle, true, std::memory_order_acquire)) return;
    std::unique_lock<std::mutex> l(session->idle_mu);
    session->idle_cv.wait(l, [&] { return !session->busy.load(std::memory_order_acquire); });
  }
}

// Releases the session at the end of a scope unless dismissed (an async call
// hands it to its worker).
class SessionHold {
 public:
  explicit SessionHold(kiln_session_t* session) : session_(session) {}
  SessionHold(const SessionHold&) = delete;
  SessionHold& operator=(const SessionHold&) = delete;
  ~SessionHold() {
    if (session_) ReleaseSession(session_);
  }
  void Dismiss() { session_ = nullptr; }

 private:
  kiln_session_t* session_;
};

// kiln_session_call's checks of the caller's tensors (types, ranks, sizes
// against byte_size), into views of their memory read in place.
kiln_status_t BorrowInputs(const kiln_tensor_t* inputs, size_t count, std::vector<kiln::vm::BorrowedTensor>* out);

// Runs `function` on the session (which the caller holds) with `options`
// (the session's profiler is added), results into *out_results. May throw;
// the entry points call it inside Guard.
kiln_status_t RunCall(kiln_session_t* session, const char* function,
                      const std::vector<kiln::vm::BorrowedTensor>& inputs, kiln::vm::InvokeOptions options,
                      kiln_results_t** out_results);

// A synchronous call, named `entry` in its messages: the argument checks,
// the session held for the call, BorrowInputs, RunCall.
kiln_status_t SessionCall(const char* entry, kiln_session_t* session, const char* function,
                          const kiln_tensor_t* inputs, size_t input_count, const kiln::vm::InvokeOptions& options,
                          kiln_results_t** out_results);

}  // namespace kiln::capi

#endif  // KILN_VM_C_API_INTERNAL_H_

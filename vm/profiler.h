// Profiling a module's calls (vm-run/vm-bench --trace and --profile): the
// device reports each dispatch with its span (hal/trace.h), the Context each
// call of a function (InvokeOptions::profiler); the Profiler names a
// dispatch by its kernel, function and source line (the tag the VM gives it:
// MakeDispatchTag) and writes them out as Chrome trace-event JSON (Perfetto
// and chrome://tracing open it) or as a table of ops by total time.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hal/trace.h"
#include "vm/module.h"

namespace kiln::vm {

// The tag of a dispatch recorded by instruction `index` of function `function`.
inline uint64_t MakeDispatchTag(int function, size_t index) {
  return (static_cast<uint64_t>(function + 1) << 32) | static_cast<uint32_t>(index);
}

class Profiler final : public hal::DispatchObserver {
 public:
  // `device`: the device's name, shown in the trace.
  Profiler(std::shared_ptr<const LoadedModule> module, std::string device);

  void OnDispatch(const hal::DispatchSpan& span) override;
  // A call of `function` from `begin` to `end` (Context::Invoke).
  void OnCall(const std::string& function, std::chrono::steady_clock::time_point begin,
              std::chrono::steady_clock::time_point end);

  size_t dispatch_count() const;
  size_t call_count() const;
  // {"traceEvents": [...]}: one complete event ("ph": "X") per call (thread
  // "vm") and per dispatch (thread "device"), with the op, its source
  // location, the device, the shapes and the bytes it read and wrote.
  std::string ChromeTraceJson() const;
  // The ops by total dispatch time: share, total, count, mean, op and where
  // it is in the source; shares of the dispatch time, which sum to 100%.
  std::string ProfileTable() const;
  // Forgets what was recorded (vm-bench drops its warm-up calls).
  void Clear();

 private:
  struct Event {
    bool is_call = false;
    std::string name;      // kernel or function
    std::string location;  // "file:line:col (@function)" for a dispatch
    std::string inputs, outputs;
    uint64_t bytes = 0;
    int64_t begin_ns = 0, end_ns = 0;  // since the profiler was made
  };
  std::string Location(uint64_t tag) const;
  int64_t Since(std::chrono::steady_clock::time_point t) const;

  std::shared_ptr<const LoadedModule> module_;
  std::string device_;
  std::chrono::steady_clock::time_point origin_ = std::chrono::steady_clock::now();
  mutable std::mutex mu_;
  std::vector<Event> events_;
};

}  // namespace kiln::vm

// Dispatch tracing: a device that supports it reports every dispatch it runs,
// with the span of wall-clock time it took, to an observer (vm/profiler.h
// turns them into vm-run/vm-bench --trace and --profile). Off (no observer),
// a driver checks one pointer per submission.
#pragma once
#include <chrono>
#include <cstdint>
#include <vector>

#include "hal/buffer.h"
#include "hal/executable.h"

namespace kiln::hal {

struct DispatchSpan {
  const Executable* executable = nullptr;
  // What the recorder tagged the dispatch with (CommandBuffer::TagNextDispatch;
  // the VM: its function and instruction), 0 if nothing.
  uint64_t tag = 0;
  const std::vector<BufferView>* inputs = nullptr;
  const std::vector<BufferView>* outputs = nullptr;
  std::chrono::steady_clock::time_point begin, end;
};

// Called on the thread that runs the device's work (the submitter inline,
// the queue thread deferred): implementations synchronize themselves.
class DispatchObserver {
 public:
  virtual ~DispatchObserver() = default;
  virtual void OnDispatch(const DispatchSpan& span) = 0;
  // Just before the dispatch runs (begin and end unset), where the device
  // can show its inputs in host memory (the CPU device): a dispatch may
  // write its output over an input. Devices that cannot do not call it.
  virtual void BeforeDispatch(const DispatchSpan& span) {}
};

}  // namespace kiln::hal

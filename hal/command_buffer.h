// Command buffers: work recorded on the host that runs only when submitted.
#pragma once
#include <memory>
#include <span>
#include <vector>

#include "hal/buffer.h"
#include "hal/executable.h"

namespace kiln::hal {

// Records work; runs only when submitted. Keeps every buffer it references
// alive until the submission that runs it has finished.
class CommandBuffer {
 public:
  virtual ~CommandBuffer() = default;
  virtual void Dispatch(std::shared_ptr<Executable> executable, std::vector<BufferView> inputs,
                        std::vector<BufferView> outputs) = 0;
  // The same from views the caller keeps (the VM's registers): a command
  // buffer that reuses its storage copies them into it without allocating
  // (RecordedCommandBuffer); by default, through the form above.
  virtual void Dispatch(const std::shared_ptr<Executable>& executable, std::span<const BufferView* const> inputs,
                        std::span<const BufferView* const> outputs) {
    std::vector<BufferView> in, out;
    in.reserve(inputs.size());
    out.reserve(outputs.size());
    for (const BufferView* v : inputs) in.push_back(*v);
    for (const BufferView* v : outputs) out.push_back(*v);
    Dispatch(executable, std::move(in), std::move(out));
  }
  virtual void Copy(const BufferView& source, const BufferView& target) = 0;
  virtual bool empty() const = 0;
  // Tags the next Dispatch for a DispatchObserver (hal/trace.h); recorders
  // that do not keep tags ignore it.
  virtual void TagNextDispatch(uint64_t tag) {}
};

}  // namespace kiln::hal

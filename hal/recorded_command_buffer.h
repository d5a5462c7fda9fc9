// A command buffer that records commands on the host for the driver to run
// or translate at submission, shared by the drivers (the CPU driver runs the
// list; the Vulkan driver records it into one Vulkan command buffer).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "hal/buffer.h"
#include "hal/command_buffer.h"

namespace kiln::hal {

// One recorded dispatch, or a copy (no executable; inputs[0] -> outputs[0]).
struct RecordedCommand {
  std::shared_ptr<Executable> executable;
  std::vector<BufferView> inputs, outputs;
  uint64_t tag = 0;  // CommandBuffer::TagNextDispatch
  bool is_copy() const { return executable == nullptr; }
};

class RecordedCommandBuffer final : public CommandBuffer {
 public:
  // Room for a small function's dispatches from the start: growing the list
  // one reallocation at a time was a measurable part of a small call.
  RecordedCommandBuffer() { commands_.reserve(16); }
  void Dispatch(std::shared_ptr<Executable> e, std::vector<BufferView> in, std::vector<BufferView> out) override {
    commands_.push_back(RecordedCommand{std::move(e), std::move(in), std::move(out), next_tag_});
    next_tag_ = 0;
  }
  void TagNextDispatch(uint64_t tag) override { next_tag_ = tag; }
  void Copy(const BufferView& source, const BufferView& target) override {
    commands_.push_back(RecordedCommand{nullptr, {source}, {target}});
  }
  bool empty() const override { return commands_.empty(); }
  const std::vector<RecordedCommand>& commands() const { return commands_; }

 private:
  std::vector<RecordedCommand> commands_;
  uint64_t next_tag_ = 0;
};

// The checks every driver makes before a command runs: each view inside its
// buffer and within the driver's limits; a copy's two views of equal size.
inline Status CheckCommand(const RecordedCommand& c, const ViewLimits& limits) {
  for (const auto& v : c.inputs) KILN_RETURN_IF_ERROR(CheckViewInBuffer(v, "a dispatch input", limits));
  for (const auto& v : c.outputs) {
    KILN_RETURN_IF_ERROR(CheckViewInBuffer(v, "a dispatch output", limits));
    if (v.buffer->read_only())
      return InvalidArgument("a dispatch output is read-only memory (a module constant or a call's argument)");
  }
  if (c.is_copy() && c.inputs[0].ByteSize() != c.outputs[0].ByteSize())
    return InvalidArgument("copy between views of different sizes");
  return Status::Ok();
}

}  // namespace kiln::hal

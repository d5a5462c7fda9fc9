// A command buffer that records commands on the host for the driver to run
// or translate at submission, shared by the drivers (the CPU driver runs the
// list; the Vulkan driver records it into one Vulkan command buffer).
#pragma once
#include <memory>
#include <span>
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
    RecordedCommand& c = Next();
    c.executable = std::move(e);
    c.inputs = std::move(in);
    c.outputs = std::move(out);
  }
  void Dispatch(const std::shared_ptr<Executable>& e, std::span<const BufferView* const> in,
                std::span<const BufferView* const> out) override {
    RecordedCommand& c = Next();
    c.executable = e;
    Assign(in, &c.inputs);
    Assign(out, &c.outputs);
  }
  void TagNextDispatch(uint64_t tag) override { next_tag_ = tag; }
  void Copy(const BufferView& source, const BufferView& target) override {
    RecordedCommand& c = Next();
    c.executable = nullptr;
    const BufferView* s[1] = {&source};
    const BufferView* t[1] = {&target};
    Assign(s, &c.inputs);
    Assign(t, &c.outputs);
  }
  bool empty() const override { return size_ == 0; }
  std::span<const RecordedCommand> commands() const { return {commands_.data(), size_}; }
  // Empties the buffer for reuse (a driver's pool of command buffers): drops
  // every reference to executables and buffers, as destroying it would, but
  // keeps the storage (the command list, the view lists and their dimension
  // lists), so recording the next call's dispatches allocates nothing.
  void Reset() {
    for (size_t i = 0; i < size_; ++i) {
      RecordedCommand& c = commands_[i];
      c.executable.reset();
      for (BufferView& v : c.inputs) v.buffer.reset();
      for (BufferView& v : c.outputs) v.buffer.reset();
    }
    size_ = 0;
  }

 private:
  RecordedCommand& Next() {
    if (size_ == commands_.size()) commands_.emplace_back();
    RecordedCommand& c = commands_[size_++];
    c.tag = next_tag_;  // TagNextDispatch's tag goes to this command only
    next_tag_ = 0;
    return c;
  }
  // Copies the views into `to`, reusing its elements' storage.
  static void Assign(std::span<const BufferView* const> from, std::vector<BufferView>* to) {
    to->resize(from.size());
    for (size_t i = 0; i < from.size(); ++i) {
      BufferView& v = (*to)[i];
      const BufferView& f = *from[i];
      v.type = f.type;
      v.dims.assign(f.dims.begin(), f.dims.end());
      v.buffer = f.buffer;
      v.offset = f.offset;
    }
  }

  std::vector<RecordedCommand> commands_;  // the first size_ are recorded
  size_t size_ = 0;
  uint64_t next_tag_ = 0;
};

// The checks every driver makes before a command runs: each view inside its
// buffer and within the driver's limits; a copy's two views of equal size.
inline Status CheckCommand(const RecordedCommand& c, const ViewLimits& limits) {
  for (const auto& v : c.inputs) KILN_RETURN_IF_ERROR(CheckViewInBuffer(v, "a dispatch input", limits));
  for (const auto& v : c.outputs) {
    KILN_RETURN_IF_ERROR(CheckViewInBuffer(v, "a dispatch output", limits));
    // A constant copied into device memory is writable memory, but kernels
    // may hold copies derived from it (hal/buffer.h, MarkConstant).
    if (v.buffer->read_only() || v.buffer->constant_id() != 0)
      return InvalidArgument("a dispatch output is read-only memory (a module constant or a call's argument)");
  }
  if (c.is_copy() && c.inputs[0].ByteSize() != c.outputs[0].ByteSize())
    return InvalidArgument("copy between views of different sizes");
  return Status::Ok();
}

}  // namespace kiln::hal

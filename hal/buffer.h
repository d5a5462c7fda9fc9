// Device memory and the views into it, and the range checks every driver runs
// before it touches a view or a transfer range (one check, with per-driver
// limits, instead of a copy per driver).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/common/element_type.h"
#include "kernels/common/status.h"

namespace kiln::hal {

// Device memory. On the CPU it is host memory; on a GPU it may not be
// mappable, so contents move only through Device::Upload/Download.
class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual size_t size() const = 0;
  // Memory the device reads in place and must never write: a module's
  // constants (which may be a read-only mapping of the file, where a write
  // would fault) and a call's arguments (the caller's). Drivers refuse a
  // command or an upload that would write one (CheckCommand).
  virtual bool read_only() const { return false; }
  // Contents fixed for the buffer's whole life: a module constant or a bound
  // parameter, marked by the VM (vm/context.cc, UseConstant) right after it
  // creates the buffer and before any dispatch reads it. Kernels may then
  // keep copies derived from it (packed weights) between dispatches, keyed
  // on constant_id(): unique in the process and never reused, so a copy
  // cannot outlive its meaning even if the buffer's memory is reused.
  void MarkConstant();
  uint64_t constant_id() const { return constant_id_; }
  // The buffer's memory in this process's address space where the host may
  // read and write it directly once the device's work on it has finished
  // (the CPU device's buffers); null where it may not. Collectives reduce
  // between such buffers in place (vm/collectives/).
  virtual uint8_t* host_address() const { return nullptr; }

 private:
  uint64_t constant_id_ = 0;  // 0: not a constant
};

// A tensor at run time: element type, dimensions and a byte range of a
// buffer. Dimensions come from VM registers, never from the module alone.
struct BufferView {
  ElementType type = ElementType::kInvalid;
  std::vector<int64_t> dims;
  std::shared_ptr<Buffer> buffer;
  size_t offset = 0;

  int64_t NumElements() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  size_t ByteSize() const { return static_cast<size_t>(NumElements()) * StorageBytes(type); }
};

// What a driver can address in one view beyond "inside its buffer": a
// device whose shaders index with 32-bit words sets lower limits. A view
// over a limit is Unimplemented with `..._reason` appended to its name.
struct ViewLimits {
  int64_t max_dim = INT64_MAX;      // larger: invalid dimensions
  uint64_t max_elements = UINT64_MAX;
  const char* elements_reason = "";  // e.g. "has more than 2^31 elements, ..."
  uint64_t max_end = UINT64_MAX;     // offset + byte size
  const char* end_reason = "";
};

// Checks that `view` (named `what` in messages: "a dispatch input") lies
// inside its buffer and within `limits`, before a command touches it.
Status CheckViewInBuffer(const BufferView& view, std::string_view what, const ViewLimits& limits = {});

// Checks a transfer's byte range ("upload", "download") against a buffer.
inline Status CheckTransferRange(const Buffer& buffer, size_t offset, size_t bytes, std::string_view what) {
  if (offset > buffer.size() || bytes > buffer.size() - offset)
    return OutOfRange(std::string(what) + " outside the buffer");
  return Status::Ok();
}

}  // namespace kiln::hal

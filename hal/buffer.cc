// The view range check shared by the drivers (hal/buffer.h).
#include "hal/buffer.h"

#include <atomic>

namespace kiln::hal {

void Buffer::MarkConstant() {
  static std::atomic<uint64_t> next{1};
  if (constant_id_ == 0) constant_id_ = next.fetch_add(1, std::memory_order_relaxed);
}

Status CheckViewInBuffer(const BufferView& v, std::string_view what, const ViewLimits& limits) {
  // The name is only built for a message: every dispatch checks its views,
  // and a string per view was a heap allocation per check.
  auto named = [&](const char* rest) { return std::string(what) + rest; };
  if (!v.buffer) return InvalidArgument(named(" has no buffer"));
  uint64_t n = 1;
  for (int64_t d : v.dims) {
    if (d < 0 || d > limits.max_dim || (d != 0 && n > static_cast<uint64_t>(INT64_MAX / d)))
      return InvalidArgument(named(" has invalid dimensions"));
    n *= static_cast<uint64_t>(d);
    if (n > limits.max_elements) return Unimplemented(named(" ") + limits.elements_reason);
  }
  size_t bytes = StorageBytes(v.type);
  if (bytes == 0) return InvalidArgument(named(" has an invalid element type"));
  if (n > SIZE_MAX / bytes || v.offset > v.buffer->size() || n * bytes > v.buffer->size() - v.offset)
    return OutOfRange(named(" lies outside its buffer"));
  if (v.offset + n * bytes > limits.max_end) return Unimplemented(named(" ") + limits.end_reason);
  return Status::Ok();
}

}  // namespace kiln::hal

// The view range check shared by the drivers (hal/buffer.h).
#include "hal/buffer.h"

namespace kiln::hal {

Status CheckViewInBuffer(const BufferView& v, std::string_view what, const ViewLimits& limits) {
  std::string w(what);
  if (!v.buffer) return InvalidArgument(w + " has no buffer");
  uint64_t n = 1;
  for (int64_t d : v.dims) {
    if (d < 0 || d > limits.max_dim || (d != 0 && n > static_cast<uint64_t>(INT64_MAX / d)))
      return InvalidArgument(w + " has invalid dimensions");
    n *= static_cast<uint64_t>(d);
    if (n > limits.max_elements) return Unimplemented(w + " " + limits.elements_reason);
  }
  size_t bytes = StorageBytes(v.type);
  if (bytes == 0) return InvalidArgument(w + " has an invalid element type");
  if (n > SIZE_MAX / bytes || v.offset > v.buffer->size() || n * bytes > v.buffer->size() - v.offset)
    return OutOfRange(w + " lies outside its buffer");
  if (v.offset + n * bytes > limits.max_end) return Unimplemented(w + " " + limits.end_reason);
  return Status::Ok();
}

}  // namespace kiln::hal

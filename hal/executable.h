// Executables: what a dispatch runs, prepared by a device from a spec that
// carries every target's form of the executable opaquely. Each driver takes
// the payload of its own format (kKernelFormat of kernels/common/kernel.h for
// the CPU, kVulkanShaderFormat of hal/vulkan/shader_abi.h) and ignores the
// others, so this header names no driver's format.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/common/status.h"

namespace kiln::hal {

// One target's form of an executable. `data` points at the type that the
// format names (each format's header says which); only the driver that
// reads the format looks inside.
struct ExecutablePayload {
  std::string format;
  std::shared_ptr<const void> data;
};

// Everything a module holds for one executable.
struct ExecutableSpec {
  std::string name;  // the kernel's name, for messages
  std::vector<ExecutablePayload> payloads;

  template <typename T>
  void Add(std::string format, std::shared_ptr<const T> data) {
    payloads.push_back({std::move(format), std::shared_ptr<const void>(std::move(data))});
  }
  // The payload of `format` as its type T (shares ownership), or null.
  template <typename T>
  std::shared_ptr<const T> Find(std::string_view format) const {
    for (const auto& p : payloads)
      if (p.format == format) return std::static_pointer_cast<const T>(p.data);
    return nullptr;
  }
  // The error of a driver that finds no payload of `format` for itself.
  Status Missing(std::string_view format, std::string_view device) const {
    std::string have;
    for (const auto& p : payloads) have += (have.empty() ? "" : ", ") + p.format;
    return Unimplemented(name + ": " + std::string(device) + " needs a '" + std::string(format) +
                         "' form of this executable, which it lacks (it has: " + (have.empty() ? "none" : have) + ")");
  }
};

// A prepared dispatch, ready to run on the device that prepared it.
class Executable {
 public:
  virtual ~Executable() = default;
  virtual const std::string& name() const = 0;
};

}  // namespace kiln::hal

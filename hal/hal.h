// The hardware abstraction layer: device-neutral interfaces designed for an
// asynchronous GPU. Work is recorded into command buffers and submitted with
// wait/signal semaphores; the host touches buffer contents only through
// explicit transfers after waiting. The CPU driver (hal/cpu) may execute at
// submit time (inline mode) or on a queue thread (deferred mode); callers
// must not be able to tell the difference except by timing.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/kernel.h"
#include "kernels/common/status.h"

namespace kiln::hal {

// Device memory. On the CPU it is host memory; on a GPU it may not be
// mappable, so contents move only through Device::Upload/Download.
class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual size_t size() const = 0;
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

// A timeline semaphore. A failed submission puts it in a failed state that
// every waiter sees.
class Semaphore {
 public:
  virtual ~Semaphore() = default;
  virtual uint64_t Value() const = 0;
  virtual void Signal(uint64_t value) = 0;
  virtual void Fail(Status status) = 0;
  // Waits until Value() >= value; returns the failure if the semaphore failed,
  // DeadlineExceeded after `timeout`.
  virtual Status Wait(uint64_t value, std::chrono::milliseconds timeout) = 0;
};

struct SemaphorePoint {
  std::shared_ptr<Semaphore> semaphore;
  uint64_t value = 0;
};

// Feature bits a compute shader needs from the device (ShaderVariant::features).
enum ShaderFeature : uint32_t {
  kShaderInt64 = 1u << 0,    // shaderInt64: i64/ui64 arithmetic
  kShaderFloat64 = 1u << 1,  // shaderFloat64: f64 arithmetic
};
std::string ShaderFeatureNames(uint32_t features);

// How a compute shader's invocations cover its work (ShaderVariant::grid_kind).
enum class ShaderGrid : uint32_t {
  // One invocation per element of output 0 (the count is params[0]).
  kPerElement = 0,
  // Output 0 viewed as [B, M, N] (grid_args: number of leading batch dims,
  // number of M dims, tile_m, tile_n): workgroups (N/tile_n, M/tile_m, B).
  kTiles = 1,
  // One work group per element of output 0 (work-group reductions).
  kPerGroup = 2,
};

// One compiled compute shader of a dispatch, for one signature (operand
// element types and ranks): what the Vulkan target stores in the module.
// Binding 0 is the parameter buffer (the grid size, then per tensor, inputs
// first: byte offset and dimensions, as 32-bit words); bindings 1.. are the
// inputs then the outputs, each bound whole as an array of 32-bit words.
struct ShaderVariant {
  std::vector<ElementType> input_types, output_types;
  std::vector<uint8_t> input_ranks, output_ranks;
  std::vector<uint32_t> spirv;
  uint32_t workgroup_size = 64;
  uint32_t features = 0;
  ShaderGrid grid_kind = ShaderGrid::kPerElement;
  std::vector<uint32_t> grid_args;
};

// A prepared dispatch: a kernel plus its attributes, ready to run.
class Executable {
 public:
  virtual ~Executable() = default;
  virtual const KernelParams& params() const = 0;
};

// Records work; runs only when submitted. Keeps every buffer it references
// alive until the submission that runs it has finished.
class CommandBuffer {
 public:
  virtual ~CommandBuffer() = default;
  virtual void Dispatch(std::shared_ptr<Executable> executable, std::vector<BufferView> inputs,
                        std::vector<BufferView> outputs) = 0;
  virtual void Copy(const BufferView& source, const BufferView& target) = 0;
  virtual bool empty() const = 0;
};

struct DeviceStats {
  uint64_t dispatches = 0;
  uint64_t submissions = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual std::string name() const = 0;
  // A zero-filled buffer.
  virtual StatusOr<std::shared_ptr<Buffer>> Allocate(size_t bytes) = 0;
  // A buffer holding a copy of `bytes` bytes at `data` (devices that can
  // skip zero-filling what is overwritten at once override it).
  virtual StatusOr<std::shared_ptr<Buffer>> AllocateCopy(const void* data, size_t bytes) {
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> b, Allocate(bytes));
    KILN_RETURN_IF_ERROR(Upload(*b, 0, data, bytes));
    return b;
  }
  // A buffer over `bytes` bytes at `data`, which the caller keeps alive and
  // unchanged while the buffer is in use, and which nothing writes (a
  // function's arguments during one call: the VM never writes an input).
  // Devices that compute in host memory read it in place; others copy it.
  virtual StatusOr<std::shared_ptr<Buffer>> WrapHostMemory(const void* data, size_t bytes) {
    return AllocateCopy(data, bytes);
  }
  // Blocking transfers; the caller has waited for the work that produces or
  // consumes the range.
  virtual Status Upload(const Buffer& buffer, size_t offset, const void* data, size_t bytes) = 0;
  virtual Status Download(const Buffer& buffer, size_t offset, void* data, size_t bytes) = 0;
  // Prepares a dispatch's kernel; an unknown kernel is an error naming it.
  virtual StatusOr<std::shared_ptr<Executable>> PrepareExecutable(const KernelParams& params) = 0;
  // Prepares a dispatch from everything the module holds for it: the kernel
  // and its attributes, and the compute shaders of the Vulkan target (empty
  // where the module has none). Devices that run kernels ignore `shaders`.
  virtual StatusOr<std::shared_ptr<Executable>> PrepareModuleExecutable(const KernelParams& params,
                                                                        const std::vector<ShaderVariant>& shaders) {
    return PrepareExecutable(params);
  }
  virtual std::unique_ptr<CommandBuffer> CreateCommandBuffer() = 0;
  virtual std::shared_ptr<Semaphore> CreateSemaphore(uint64_t initial_value) = 0;
  // Runs `commands` once every wait point is reached, then signals `signal`.
  // Errors during execution fail the signal semaphore.
  virtual Status Submit(std::unique_ptr<CommandBuffer> commands, std::vector<SemaphorePoint> waits,
                        SemaphorePoint signal) = 0;
  virtual DeviceStats stats() const = 0;
};

}  // namespace kiln::hal

// The kernel interface: what a device driver hands a kernel for one dispatch.
// A dispatch names a kernel (by its stable name, e.g. "stablehlo.transpose"),
// carries the op's attributes (KernelParams), and binds input and output
// tensors whose dimensions arrive at run time.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/common/element_type.h"
#include "kernels/common/kernel_state.h"
#include "kernels/common/parallel.h"
#include "kernels/common/scalar_program.h"
#include "kernels/common/status.h"

namespace kiln {

// The number of elements a strided slice of [start, limit) with step
// `stride` (> 0) takes: ceil((limit - start) / stride), 0 when
// limit <= start; without the overflow of `limit - start + stride - 1` for a
// stride near the greatest int64 (a hostile module's or program's).
inline int64_t SliceExtent(int64_t start, int64_t limit, int64_t stride) {
  if (limit <= start) return 0;
  const uint64_t span = static_cast<uint64_t>(limit) - static_cast<uint64_t>(start);
  return static_cast<int64_t>((span - 1) / static_cast<uint64_t>(stride)) + 1;
}

// A tensor as a kernel sees it: element type, dimensions, and storage.
// Elements are dense, row-major, StorageBytes(type) bytes each.
struct TensorRef {
  ElementType type = ElementType::kInvalid;
  std::span<const int64_t> dims;
  uint8_t* data = nullptr;
  size_t byte_size = 0;
  // Nonzero when the tensor is in a buffer whose contents never change
  // while it lives (a module constant or a bound parameter: hal::Buffer::
  // MarkConstant): a process-unique id of that buffer, never reused, so a
  // kernel may key a copy derived from it (packed weights, KernelState) on
  // the id, the offset and the shape. Zero for everything else (arena
  // views, call arguments, results).
  uint64_t constant_id = 0;

  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  // 0 when any dim is 0, whatever the others (a hostile module may pair a
  // 0 dim with dims whose product passes int64); the product wraps
  // (unsigned: defined) only for dims no buffer can hold, which the
  // allocator refuses before a kernel sees them.
  int64_t NumElements() const {
    uint64_t n = 1;
    for (int64_t d : dims) {
      if (d == 0) return 0;
      n *= static_cast<uint64_t>(d);
    }
    return static_cast<int64_t>(n);
  }
  uint8_t* At(int64_t linear_index) const { return data + linear_index * StorageBytes(type); }
};

// One named attribute of a dispatch. The names are the StableHLO spec's
// attribute names (structured attributes such as dot_dimension_numbers are
// flattened into their fields: "lhs_contracting_dimensions", ...).
//  - integers, booleans, integer arrays and dense integer tensors -> ints
//    (a 2-D dense attribute such as `padding` is flattened row-major);
//  - floats and dense float tensors -> floats;
//  - enums (comparison_direction, fft_type, ...) and strings -> str;
//  - a region body -> program.
struct KernelAttr {
  std::string name;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::string str;
  bool has_program = false;
  ScalarProgram program;
};

// The executable format name of a KernelParams payload in a HAL
// ExecutableSpec (hal/executable.h): what devices that run kernels (the CPU
// device) take. Kernel ABI, not a driver's: the VM names it without
// including any driver.
inline constexpr char kKernelFormat[] = "kiln-kernel";

struct KernelParams {
  std::string kernel;  // stable kernel name
  std::vector<KernelAttr> attrs;

  const KernelAttr* Find(std::string_view name) const {
    for (const auto& a : attrs)
      if (a.name == name) return &a;
    return nullptr;
  }
  bool Has(std::string_view name) const { return Find(name) != nullptr; }
  std::span<const int64_t> Ints(std::string_view name) const {
    const KernelAttr* a = Find(name);
    return a ? std::span<const int64_t>(a->ints) : std::span<const int64_t>();
  }
  int64_t Int(std::string_view name, int64_t fallback = 0) const {
    const KernelAttr* a = Find(name);
    return a && !a->ints.empty() ? a->ints[0] : fallback;
  }
  double Float(std::string_view name, double fallback = 0) const {
    const KernelAttr* a = Find(name);
    return a && !a->floats.empty() ? a->floats[0] : fallback;
  }
  std::string_view Str(std::string_view name) const {
    const KernelAttr* a = Find(name);
    return a ? std::string_view(a->str) : std::string_view();
  }
  const ScalarProgram* Program(std::string_view name) const {
    const KernelAttr* a = Find(name);
    return a && a->has_program ? &a->program : nullptr;
  }
};

// Everything one dispatch needs. Outputs are allocated by the caller with
// the dimensions the VM computed; a kernel checks what it relies on and
// returns an error rather than reading or writing out of bounds.
struct KernelCall {
  const KernelParams& params;
  std::span<const TensorRef> inputs;
  std::span<const TensorRef> outputs;
  // The driver's thread pool, or null: kernels that split their work into
  // tiles run them through ParallelFor(call.runner, ...) (parallel.h).
  TaskRunner* runner = nullptr;
  // Set on the producer's part of a dispatch with a fused epilogue
  // (kernels/reference/epilogue.h): compute the product alone.
  bool without_epilogue = false;
  // The executable's state kept between its dispatches (kernel_state.h),
  // or null (build everything for this call).
  KernelState* state = nullptr;
};

using KernelFn = Status (*)(const KernelCall&);

}  // namespace kiln

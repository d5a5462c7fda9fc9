// The Vulkan executable format: the compute shaders the compiler's vulkan
// target stores in a module and the Vulkan driver runs. Shared by both sides
// and header-only, so the compiler includes it without Vulkan headers and
// without linking the HAL. See docs/vulkan.md for the parameter layout.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/element_type.h"

namespace kiln::hal {

// The ExecutableSpec format (hal/executable.h) whose payload is a
// std::vector<ShaderVariant>: every variant the module holds for one
// executable (possibly none: a function unavailable on Vulkan).
inline constexpr char kVulkanShaderFormat[] = "vulkan-spirv";

// Feature bits a compute shader needs from the device (ShaderVariant::features).
enum ShaderFeature : uint32_t {
  kShaderInt64 = 1u << 0,    // shaderInt64: i64/ui64 arithmetic
  kShaderFloat64 = 1u << 1,  // shaderFloat64: f64 arithmetic
  // Inputs also bound as uniform texel buffers with an R32G32B32A32_SFLOAT
  // view (ShaderVariant::texel_inputs). Core Vulkan, but a runtime that
  // predates them must refuse such a shader rather than bind too little.
  kTexelInputs = 1u << 2,
};

// "shaderInt64, shaderFloat64": the Vulkan feature names of `features`.
inline std::string ShaderFeatureNames(uint32_t features) {
  std::string s;
  auto add = [&](uint32_t bit, const char* name) {
    if (features & bit) s += (s.empty() ? "" : ", ") + std::string(name);
  };
  add(kShaderInt64, "shaderInt64");
  add(kShaderFloat64, "shaderFloat64");
  add(kTexelInputs, "uniform texel buffers of R32G32B32A32_SFLOAT");
  return s;
}

// How a compute shader's invocations cover its work (ShaderVariant::grid_kind).
enum class ShaderGrid : uint32_t {
  // One invocation per element of output 0 (the count is params[0]); with
  // grid_args {1}, per element of the largest output (kernels whose outputs
  // differ in shape and whose shader sizes its own work from the operands:
  // a scan's carries, a batch norm's per-feature results). grid_args {A, E}
  // (added within module format 0.5): as {A}, each invocation taking E consecutive
  // elements, 1 to 64 (ElementsPerInvocation).
  kPerElement = 0,
  // Output 0 viewed as [B, M, N] (grid_args: number of leading batch dims,
  // number of M dims, tile_m, tile_n): workgroups (N/tile_n, M/tile_m, B).
  kTiles = 1,
  // One work group per element of output 0 (work-group reductions).
  kPerGroup = 2,
  // One work group per row of output 0 (every dim but the last: row blocks);
  // with grid_args {R}, one work group per R rows (a short row per
  // invocation).
  kPerRow = 3,
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
  // Bit j: input j is also bound, after the storage buffers (in input order),
  // as a uniform texel buffer: an R32G32B32A32_SFLOAT view of its whole
  // buffer from byte 0, at most maxTexelBufferElements texels (a buffer under
  // 16 bytes gets a one-texel placeholder). Texel fetches are branch-free
  // gathers where storage-buffer loads are per-lane loops (lavapipe); a
  // shader checks textureSize() and the tensor's 16-byte alignment before
  // reading a tensor this way. Needs kTexelInputs.
  uint32_t texel_inputs = 0;
};

// Whether a kPerElement grid's arguments are well formed (ShaderGrid): none,
// {A} or {A, E} with A 0 or 1 and E from 1 to 64.
inline bool ValidElementGrid(const std::vector<uint32_t>& args) {
  return args.empty() || (args.size() <= 2 && args[0] <= 1 && (args.size() == 1 || (args[1] >= 1 && args[1] <= 64)));
}

// The elements each invocation of a kPerElement grid takes (its work groups
// then cover workgroup_size times as many).
inline uint32_t ElementsPerInvocation(const ShaderVariant& v) {
  return v.grid_kind == ShaderGrid::kPerElement && v.grid_args.size() == 2 ? v.grid_args[1] : 1;
}

}  // namespace kiln::hal

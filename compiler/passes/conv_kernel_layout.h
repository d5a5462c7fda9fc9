// An IR -> IR rewrite that compile.cc runs for modules with a Vulkan target
// (`--target=vulkan` and `all`): a constant f32 convolution kernel whose output-feature dim is not its last
// (torch's OIHW) is transposed while compiling so that it is (IHWO), and the
// convolution's kernel dims follow. The Vulkan device's blocked convolution
// shader (kernels/vulkan/convolution_blocked.glsl) then reads four output
// features of a kernel row as one texel, on every input layout; with the
// output features strided it reads one component per weight, which made
// NCHW convolutions 2-4x slower there than NHWC ones (docs/vulkan.md). The
// result is the same convolution: only the kernel's layout changes. The CPU
// device packs constant kernels into its own panels once, from either
// layout (kernels/cpu/contraction_convolution.cc), so a module for every
// target takes the rewrite too (before the CPU packed the feature-major
// product's weights per call, and gathered IHWO rows 1.3-1.7x slower).
#pragma once
#include "compiler/ir.h"

namespace kiln::compiler {

// For each stablehlo.convolution (nested blocks included) whose kernel is a
// stablehlo.constant of static f32 shape with the output-feature dim not
// last: a new constant holding the kernel with that dim moved last (the
// other dims keeping their order), and the convolution's
// kernel_*_dimension fields renumbered. Also a constant that a private
// function returns (a weights function that several entry points call)
// where every reader of that result, at every call, is the kernel of a
// convolution with the same output-feature dim, and nothing but calls names
// the function: moved inside the function, whose result type and calls
// follow. A constant left unread is removed.
void MoveConstantConvKernelFeaturesLast(ir::Module* module);

}  // namespace kiln::compiler

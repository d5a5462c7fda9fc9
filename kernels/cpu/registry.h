// Fast CPU kernels (Highway, dispatched at run time to the best compiled
// target). The reference kernels (kernels/reference) remain the oracle: a fast
// kernel is chosen per executable from its params, and because element types
// and shapes are only known per dispatch, every fast kernel checks the tensors
// of each call and runs the reference kernel itself when it does not handle
// them. The choice is therefore always correct; only speed differs.
//
// Numerics: the fast dot_general accumulates in the element type (f32 sums in
// f32, in a blocked order), where the reference sums in double and rounds
// once, so results differ by rounding (relative error ~ K * 2^-24 of the sum of
// |products| for f32). The fast elementwise kernel computes add, subtract,
// multiply, divide, sqrt, negate, abs, maximum, minimum and select exactly as
// the reference does; exponential, log, tanh, logistic and rsqrt are within a
// few ULP, with the reference's NaN/infinity behaviour.
#pragma once
#include <span>

#include "kernels/common/kernel.h"
#include "kernels/kernel_table.h"

namespace kiln::cpu {

// One row of the fast-kernel table (registry.cc). In a selective build an
// unselected kernel's row has fn == nullptr.
struct CpuKernel {
  KernelId kernel;
  KernelFn fn;
  bool (*applies)(const KernelParams& params);  // null: every params
};
std::span<const CpuKernel> CpuKernels();

// A fast kernel for these params (kernel name + attributes), or nullptr.
KernelFn FindCpuKernel(const KernelParams& params);

}  // namespace kiln::cpu

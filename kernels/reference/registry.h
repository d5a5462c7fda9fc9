// The reference kernels by stable name. The names are the module format's
// kernel names (APPEND-ONLY; the committed list kernels/kernel_names.txt is
// checked by a test).
#pragma once
#include <string_view>
#include <vector>

#include "kernels/common/kernel.h"

namespace kiln::ref {

struct KernelEntry {
  std::string_view name;  // "stablehlo.transpose", "kiln.elementwise", ...
  KernelFn fn;
};

// Each kernel family file adds its kernels here.
void AddElementwiseKernels(std::vector<KernelEntry>& out);   // elementwise.cc
void AddDataMovementKernels(std::vector<KernelEntry>& out);  // data_movement*.cc, indexing*.cc
void AddNumericKernels(std::vector<KernelEntry>& out);       // contraction*.cc, reduction*.cc, linalg*.cc, ...

// All reference kernels, sorted by name.
const std::vector<KernelEntry>& ReferenceKernels();
KernelFn FindReferenceKernel(std::string_view name);

}  // namespace kiln::ref

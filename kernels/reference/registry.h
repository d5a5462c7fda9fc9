// The reference kernels by module-format name (kernels/kernels.def; names are
// APPEND-ONLY there). One table, expanded from kernels.def in registry.cc.
#pragma once
#include <string_view>
#include <vector>

#include "kernels/common/kernel.h"
#include "kernels/kernel_table.h"

namespace kiln::ref {

struct KernelEntry {
  std::string_view name;  // "stablehlo.transpose", "kiln.elementwise", ...
  KernelFn fn;
};

// The reference kernels this build has (all, or a selective build's
// KILN_KERNELS, kernels/common/kernel_selection.h), in kernels.def order.
const std::vector<KernelEntry>& ReferenceKernels();
// The reference kernel of `id` or `name`, or nullptr when this build lacks it.
KernelFn FindReferenceKernel(KernelId id);
KernelFn FindReferenceKernel(std::string_view name);

}  // namespace kiln::ref

#include "kernels/reference/registry.h"

#include <algorithm>

namespace kiln::ref {

const std::vector<KernelEntry>& ReferenceKernels() {
  static const std::vector<KernelEntry> kAll = [] {
    std::vector<KernelEntry> all;
    AddElementwiseKernels(all);
    AddDataMovementKernels(all);
    AddNumericKernels(all);
    std::sort(all.begin(), all.end(),
              [](const KernelEntry& a, const KernelEntry& b) { return a.name < b.name; });
    return all;
  }();
  return kAll;
}

KernelFn FindReferenceKernel(std::string_view name) {
  const auto& all = ReferenceKernels();
  auto it = std::lower_bound(all.begin(), all.end(), name,
                             [](const KernelEntry& e, std::string_view n) { return e.name < n; });
  return it != all.end() && it->name == name ? it->fn : nullptr;
}

}  // namespace kiln::ref

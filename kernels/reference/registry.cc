// The reference registry: kernels/kernels.def expanded into one table of
// {name, ref::kernel::<Id>} indexed by KernelId. A selective build leaves an
// unselected kernel's slot empty without naming its function (a discarded
// `if constexpr` branch), so the linker drops it.
#include "kernels/reference/registry.h"

#include <array>

#include "kernels/common/kernel_selection.h"
#include "kernels/reference/kernels.h"

namespace kiln::ref {
namespace {

// kKernelFns[KernelId]: the entry point, or null where a selective build
// leaves the kernel out.
#define KILN_KERNEL(id, name, family)          \
  []() -> KernelFn {                           \
    if constexpr (::kiln::KernelSelected(name)) \
      return &kernel::id;                      \
    else                                       \
      return nullptr;                          \
  }(),
constexpr std::array<KernelFn, kKernelCount> kKernelFns = {
#include "kernels/kernels.def"
};
#undef KILN_KERNEL

}  // namespace

const std::vector<KernelEntry>& ReferenceKernels() {
  static const std::vector<KernelEntry> kAll = [] {
    std::vector<KernelEntry> all;
    for (const KernelInfo& k : kKernelTable)
      if (KernelFn fn = kKernelFns[static_cast<size_t>(k.id)]) all.push_back({k.name, fn});
    return all;
  }();
  return kAll;
}

KernelFn FindReferenceKernel(KernelId id) { return kKernelFns[static_cast<size_t>(id)]; }

KernelFn FindReferenceKernel(std::string_view name) {
  const std::optional<KernelId> id = FindKernelId(name);
  return id ? kKernelFns[static_cast<size_t>(*id)] : nullptr;
}

}  // namespace kiln::ref

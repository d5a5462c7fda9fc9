// The fast CPU kernels, one table row per kernels/kernels.def entry that has
// one: {kernel, fast kernel, "applies to these params" (null: always)}.
// A selective build leaves an unselected kernel's row empty without naming
// its functions (a discarded `if constexpr` branch), so the linker drops them.
#include "kernels/cpu/registry.h"

#include "kernels/common/kernel_selection.h"
#include "kernels/cpu/kernels.h"

namespace kiln::cpu {
namespace {

#define KILN_CPU_KERNEL(id, fn, applies)                              \
  []() -> CpuKernel {                                                 \
    if constexpr (::kiln::KernelSelected(KernelName(KernelId::k##id))) \
      return {KernelId::k##id, fn, applies};                          \
    else                                                              \
      return {KernelId::k##id, nullptr, nullptr};                     \
  }()

constexpr CpuKernel kCpuKernels[] = {
    KILN_CPU_KERNEL(DotGeneral, &DotGeneral, &DotGeneralApplies),
    KILN_CPU_KERNEL(Dot, &Dot, nullptr),
    KILN_CPU_KERNEL(Convolution, &Convolution, nullptr),
    KILN_CPU_KERNEL(BroadcastInDim, &BroadcastInDim, nullptr),
    KILN_CPU_KERNEL(Transpose, &Transpose, nullptr),
    KILN_CPU_KERNEL(Slice, &Slice, nullptr),
    KILN_CPU_KERNEL(Concatenate, &Concatenate, nullptr),
    KILN_CPU_KERNEL(Iota, &Iota, nullptr),
    KILN_CPU_KERNEL(Pad, &Pad, nullptr),
    KILN_CPU_KERNEL(Gather, &Gather, nullptr),
    KILN_CPU_KERNEL(Scatter, &Scatter, &ScatterApplies),
    KILN_CPU_KERNEL(Sort, &Sort, &SortApplies),
    KILN_CPU_KERNEL(TopK, &TopK, nullptr),
    KILN_CPU_KERNEL(DynamicSlice, &DynamicSlice, nullptr),
    KILN_CPU_KERNEL(ReduceWindow, &ReduceWindow, &ReduceWindowApplies),
    KILN_CPU_KERNEL(Reduce, &Reduce, &ReduceApplies),
    KILN_CPU_KERNEL(RowBlock, &RowBlock, nullptr),
    KILN_CPU_KERNEL(Elementwise, &Elementwise, &ElementwiseApplies),
    KILN_CPU_KERNEL(UniformQuantize, &UniformQuantize, &UniformQuantizeApplies),
};
#undef KILN_CPU_KERNEL

}  // namespace

std::span<const CpuKernel> CpuKernels() { return kCpuKernels; }

KernelFn FindCpuKernel(const KernelParams& params) {
  const std::optional<KernelId> id = FindKernelId(params.kernel);
  if (!id) return nullptr;
  for (const CpuKernel& k : kCpuKernels)
    if (k.kernel == *id && k.fn != nullptr) return k.applies == nullptr || k.applies(params) ? k.fn : nullptr;
  return nullptr;
}

}  // namespace kiln::cpu

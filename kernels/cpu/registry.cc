#include "kernels/cpu/registry.h"

#include "kernels/common/kernel_selection.h"
#include "kernels/cpu/kernels.h"

namespace kiln::cpu {

KernelFn FindCpuKernel(const KernelParams& params) {
  const std::string& k = params.kernel;
  // Each fast kernel only where a selective build keeps it (kernel_selection.h).
  if constexpr (KernelSelected("stablehlo.dot_general"))
    if (k == "stablehlo.dot_general") return DotGeneralApplies(params) ? &DotGeneral : nullptr;
  if constexpr (KernelSelected("stablehlo.dot"))
    if (k == "stablehlo.dot") return &Dot;
  if constexpr (KernelSelected("stablehlo.convolution"))
    if (k == "stablehlo.convolution") return &Convolution;
  if constexpr (KernelSelected("stablehlo.broadcast_in_dim"))
    if (k == "stablehlo.broadcast_in_dim") return &BroadcastInDim;
  if constexpr (KernelSelected("stablehlo.transpose"))
    if (k == "stablehlo.transpose") return &Transpose;
  if constexpr (KernelSelected("stablehlo.slice"))
    if (k == "stablehlo.slice") return &Slice;
  if constexpr (KernelSelected("stablehlo.concatenate"))
    if (k == "stablehlo.concatenate") return &Concatenate;
  if constexpr (KernelSelected("stablehlo.reduce_window"))
    if (k == "stablehlo.reduce_window") return ReduceWindowApplies(params) ? &ReduceWindow : nullptr;
  if constexpr (KernelSelected("stablehlo.reduce"))
    if (k == "stablehlo.reduce") return ReduceApplies(params) ? &Reduce : nullptr;
  if constexpr (KernelSelected("kiln.elementwise"))
    if (k == "kiln.elementwise") return ElementwiseApplies(params) ? &Elementwise : nullptr;
  return nullptr;
}

}  // namespace kiln::cpu

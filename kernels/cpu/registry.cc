#include "kernels/cpu/registry.h"

#include "kernels/cpu/kernels.h"

namespace kiln::cpu {

KernelFn FindCpuKernel(const KernelParams& params) {
  if (params.kernel == "stablehlo.dot_general") return DotGeneralApplies(params) ? &DotGeneral : nullptr;
  if (params.kernel == "stablehlo.dot") return &Dot;
  if (params.kernel == "stablehlo.convolution") return &Convolution;
  if (params.kernel == "stablehlo.broadcast_in_dim") return &BroadcastInDim;
  if (params.kernel == "stablehlo.transpose") return &Transpose;
  if (params.kernel == "stablehlo.slice") return &Slice;
  if (params.kernel == "stablehlo.concatenate") return &Concatenate;
  if (params.kernel == "stablehlo.reduce_window") return ReduceWindowApplies(params) ? &ReduceWindow : nullptr;
  if (params.kernel == "stablehlo.reduce") return ReduceApplies(params) ? &Reduce : nullptr;
  if (params.kernel == "kiln.elementwise") return ElementwiseApplies(params) ? &Elementwise : nullptr;
  return nullptr;
}

}  // namespace kiln::cpu

#include "compiler/quantized_ops.h"

#include <algorithm>

#include "compiler/lower/kernel_params.h"
#include "compiler/op_names.h"
#include "kernels/kernel_table.h"

namespace kiln::compiler {

QuantizedForm QuantizedFormOf(std::string_view n) {
  using K = KernelId;
  for (K k : {K::kReshape, K::kDynamicReshape, K::kTranspose, K::kSlice, K::kDynamicSlice, K::kRealDynamicSlice,
              K::kDynamicUpdateSlice, K::kConcatenate, K::kPad, K::kDynamicPad, K::kBroadcastInDim,
              K::kDynamicBroadcastInDim, K::kGather, K::kDynamicGather, K::kReverse, K::kCopy})
    if (op_names::IsKernelOp(n, k)) return QuantizedForm::kStorage;
  if (op_names::HasVmRegions(n) || n == "stablehlo.optimization_barrier" || n == "stablehlo.tuple" ||
      n == "stablehlo.get_tuple_element" || n == "func.call" || op_names::IsReturn(n) ||
      n == op_names::kAllGather || n == "stablehlo.all_to_all" || n == "stablehlo.collective_permute" ||
      n == "stablehlo.collective_broadcast" || n == "stablehlo.get_dimension_size")
    return QuantizedForm::kStorage;
  for (K k : {K::kReduce, K::kReduceWindow, K::kScatter, K::kSelectAndScatter, K::kSort, K::kMap})
    if (op_names::IsKernelOp(n, k)) return QuantizedForm::kRegionBody;
  if (ElementwiseScalarOp(std::string(n)) != ScalarOp::kInvalid) return QuantizedForm::kElementwise;
  return QuantizedForm::kDequantizeOpQuantize;
}

bool TouchesQuantized(const ir::Operation& op) {
  auto q = [](const ir::Value* v) { return v->type.is_quantized(); };
  if (std::any_of(op.operands.begin(), op.operands.end(), q)) return true;
  for (const auto& r : op.results)
    if (r->type.is_quantized()) return true;
  for (const auto& region : op.regions)
    for (const auto& b : region->blocks)
      for (const auto& a : b->args)
        if (a->type.is_quantized()) return true;
  return false;
}

}  // namespace kiln::compiler

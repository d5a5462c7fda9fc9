// The one integer program of kiln.elementwise with a fast kernel so far: a
// single i32 add or subtract of two inputs, either broadcast (the int8
// GEMM's zero-point correction, compiler/passes/quantized_integer_contraction.cc:
// the product less a broadcast row of constant column sums). Sums wrap
// modulo 2^32 as the reference's do. Other integer programs run the
// reference (docs/performance.md, "Known gaps").
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/common/parallel.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernels.h"
#include "kernels/reference/elementwise_inputs.h"

namespace kiln::cpu {

bool IsIntAddSub(const ScalarProgram& prog) {
  if (prog.param_types.size() != 2 || prog.instrs.size() != 1 || prog.results.size() != 1) return false;
  const ScalarInstr& in = prog.instrs[0];
  return (in.op == ScalarOp::kAdd || in.op == ScalarOp::kSubtract) && in.type == ElementType::kSI32 &&
         in.num_operands == 2 && prog.param_types[0] == ElementType::kSI32 &&
         prog.param_types[1] == ElementType::kSI32 && prog.results[0] == 2 && in.operands[0] < 2 &&
         in.operands[1] < 2;
}

Status RunIntAddSub(const KernelCall& call, const ScalarProgram& prog, const KernelAttr* map) {
  auto reference = [&] { return ref::RunElementwiseProgram(call, &prog, map); };
  if (call.inputs.size() != 2 || call.outputs.size() != 1) return reference();
  const TensorRef& out = call.outputs[0];
  if (!StorageOk(out, ElementType::kSI32) || out.dims.size() > 16) return reference();
  for (const TensorRef& t : call.inputs)
    if (!StorageOk(t, ElementType::kSI32)) return reference();
  std::vector<std::vector<int64_t>> strides;
  if (!ref::ElementwiseInputStrides(call, map, &strides).ok()) return reference();
  const ScalarInstr& ins = prog.instrs[0];
  const bool sub = ins.op == ScalarOp::kSubtract;
  const auto* x = reinterpret_cast<const int32_t*>(call.inputs[ins.operands[0]].data);
  const auto* y = reinterpret_cast<const int32_t*>(call.inputs[ins.operands[1]].data);
  const std::vector<int64_t>& sx = strides[ins.operands[0]];
  const std::vector<int64_t>& sy = strides[ins.operands[1]];
  auto* o = reinterpret_cast<int32_t*>(out.data);
  const int64_t rank = static_cast<int64_t>(out.dims.size());
  const int64_t n = out.NumElements();
  if (n == 0) return Status::Ok();
  // Rows of the innermost dimension, spread over the pool.
  const int64_t inner = rank == 0 ? 1 : out.dims[rank - 1];
  const int64_t ix = rank == 0 ? 0 : sx[rank - 1], iy = rank == 0 ? 0 : sy[rank - 1];
  const int64_t rows = n / inner;
  const int64_t rows_per_task = std::max<int64_t>(1, (int64_t{1} << 15) / inner);
  ParallelFor(n >= (int64_t{1} << 17) ? call.runner : nullptr, (rows + rows_per_task - 1) / rows_per_task,
              [&](int64_t t, int) {
                for (int64_t r = t * rows_per_task; r < std::min(rows, (t + 1) * rows_per_task); ++r) {
                  int64_t bx = 0, by = 0, rem = r;
                  for (int64_t a = rank - 2; a >= 0; --a) {
                    const int64_t i = rem % out.dims[a];
                    rem /= out.dims[a];
                    bx += i * sx[a];
                    by += i * sy[a];
                  }
                  int32_t* dst = o + r * inner;
                  for (int64_t j = 0; j < inner; ++j) {
                    const auto u = static_cast<uint32_t>(x[bx + j * ix]), v = static_cast<uint32_t>(y[by + j * iy]);
                    dst[j] = static_cast<int32_t>(sub ? u - v : u + v);
                  }
                }
              });
  return Status::Ok();
}

}  // namespace kiln::cpu

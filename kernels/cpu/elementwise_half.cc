// kiln.elementwise programs that are a single convert between f32 and a
// 16-bit float (f16 or bf16), as mixed-precision programs are full of:
// element by element through half_float.h, the same bits as the reference
// (whose interpreter took about 80 ns an element). Other 16-bit float
// programs run elementwise_float16.cc or the reference.
#include <algorithm>
#include <cstdint>

#include "kernels/common/parallel.h"
#include "kernels/cpu/half_float.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernels.h"
#include "kernels/reference/elementwise_inputs.h"
#include "kernels/scalar/scalar.h"

namespace kiln::cpu {
namespace {

bool Half(ElementType t) { return t == ElementType::kF16 || t == ElementType::kBF16; }

}  // namespace

bool IsHalfConvert(const ScalarProgram& prog) {
  if (prog.param_types.size() != 1 || prog.instrs.size() != 1 || prog.results.size() != 1) return false;
  const ScalarInstr& in = prog.instrs[0];
  const ElementType from = prog.param_types[0], to = in.type;
  return in.op == ScalarOp::kConvert && in.num_operands == 1 && in.operands[0] == 0 && prog.results[0] == 1 &&
         ((from == ElementType::kF32 && Half(to)) || (Half(from) && to == ElementType::kF32));
}

Status RunHalfConvert(const KernelCall& call, const ScalarProgram& prog, const KernelAttr* map) {
  auto reference = [&] { return ref::RunElementwiseProgram(call, &prog, map); };
  if (call.inputs.size() != 1 || call.outputs.size() != 1) return reference();
  const TensorRef& in = call.inputs[0];
  const TensorRef& out = call.outputs[0];
  const ElementType from = prog.param_types[0], to = prog.instrs[0].type;
  if (!StorageOk(in, from) || !StorageOk(out, to) || !std::equal(in.dims.begin(), in.dims.end(), out.dims.begin(), out.dims.end()))
    return reference();
  if (map != nullptr) {  // only the identity axis map (no broadcast)
    std::vector<std::vector<int64_t>> strides;
    if (!ref::ElementwiseInputStrides(call, map, &strides).ok()) return reference();
    int64_t step = 1;
    for (size_t a = out.dims.size(); a-- > 0;) {
      if (out.dims[a] != 1 && strides[0][a] != step) return reference();
      step *= out.dims[a];
    }
  }
  const int64_t n = out.NumElements();
  constexpr int64_t kPerTask = int64_t{1} << 16;
  ParallelFor(n >= 2 * kPerTask ? call.runner : nullptr, (n + kPerTask - 1) / kPerTask, [&](int64_t t, int) {
    const int64_t i0 = t * kPerTask, i1 = std::min(n, i0 + kPerTask);
    if (to == ElementType::kF32) {
      WidenToF32(reinterpret_cast<const uint16_t*>(in.data) + i0, from == ElementType::kBF16, i1 - i0,
                 reinterpret_cast<float*>(out.data) + i0);
    } else if (from == ElementType::kF32 && (to == ElementType::kBF16 || to == ElementType::kF16)) {
      NarrowFromF32(reinterpret_cast<const float*>(in.data) + i0, to == ElementType::kBF16, i1 - i0,
                    reinterpret_cast<uint16_t*>(out.data) + i0);
    } else {
      for (int64_t i = i0; i < i1; ++i)
        ref::StoreScalar(to, ref::LoadScalar(from, in.At(i)), out.At(i));
    }
  });
  return Status::Ok();
}

}  // namespace kiln::cpu

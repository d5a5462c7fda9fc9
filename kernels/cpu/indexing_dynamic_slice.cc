// Fast stablehlo.dynamic_slice for every element type: the clamped start is
// read from the rank-0 index operands, then the slice is copied as runs of
// contiguous operand memory with memcpy (the trailing axes the slice takes
// whole merge into one run with the first axis it cuts). A scan's step
// (x[:, t, :] in a `while`) is one run per batch row. Nothing is allocated:
// the index walk lives in fixed arrays of the largest rank taken, so the
// per-step cost inside a loop is the copy itself (the reference kernel
// builds every element's index with heap vectors). Calls of another form
// (rank above 16, odd arity, bad storage, sizes out of range) run the
// reference kernel, which reports the error. Copies of operand elements, so
// the result equals the reference's bit for bit.
#include <algorithm>
#include <cstring>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cpu/slice_runs.h"
#include "kernels/scalar/scalar.h"

namespace kiln::cpu {
namespace {

// The start index operand `t` (rank 0, any integer type) as an int64; false
// where the operand is not one.
bool ReadStart(const TensorRef& t, int64_t* v) {
  if (t.rank() != 0 || !IsInteger(t.type) || !StorageOk(t) || t.data == nullptr) return false;
  *v = ref::LoadScalar(t.type, t.data).i;
  if (t.type == ElementType::kUI64 && *v < 0) *v = INT64_MAX;  // saturates, as the reference reads it
  return true;
}

}  // namespace

Status DynamicSlice(const KernelCall& call) {
  if (call.inputs.empty() || call.outputs.size() != 1) return RunReference(call);
  const TensorRef& in = call.inputs[0];
  const TensorRef& out = call.outputs[0];
  const int64_t rank = in.rank();
  const auto sizes = call.params.Ints("slice_sizes");
  if (rank > kMaxSliceRank || out.rank() != rank || static_cast<int64_t>(sizes.size()) != rank ||
      static_cast<int64_t>(call.inputs.size()) != 1 + rank || in.type != out.type || !StorageOk(in) ||
      !StorageOk(out))
    return RunReference(call);
  int64_t start[kMaxSliceRank];
  for (int64_t d = 0; d < rank; ++d) {
    if (sizes[d] < 0 || sizes[d] > in.dims[d] || out.dims[d] != sizes[d] || !ReadStart(call.inputs[1 + d], &start[d]))
      return RunReference(call);
    start[d] = std::clamp<int64_t>(start[d], 0, in.dims[d] - sizes[d]);
  }
  CopySliceRuns(in, out, start, call.runner);
  return Status::Ok();
}

}  // namespace kiln::cpu

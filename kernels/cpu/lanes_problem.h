// The call layout that the lane interpreters (elementwise_lanes32.cc,
// elementwise_lanes64.cc) share: each param's base, how it is read (one
// value everywhere, in the output's own layout, or gathered through its
// strides) and the outputs, checked against the program's types.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/common/kernel.h"
#include "kernels/common/scalar_program.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/reference/elementwise_inputs.h"

namespace kiln::cpu {

enum class LaneRead : uint8_t { kScalar, kFull, kGather };

struct LanesProblem {
  const ScalarProgram* program = nullptr;
  std::vector<const uint8_t*> inputs;
  std::vector<LaneRead> read;
  std::vector<std::vector<int64_t>> strides;  // kGather: per output axis
  std::vector<uint8_t*> outputs;
  std::vector<int64_t> out_dims;
  size_t n = 0;
};

// Lays out `call` of `prog` (`map`: its input_broadcast, or null) into *p;
// false for a call the lane interpreters do not take (types or shapes the
// program does not declare, a bad map), which the reference then runs or
// refuses.
inline bool MakeLanesProblem(const KernelCall& call, const ScalarProgram& prog, const KernelAttr* map,
                             LanesProblem* p) {
  if (call.inputs.size() != prog.param_types.size() || call.outputs.size() != prog.results.size()) return false;
  const TensorRef& out0 = call.outputs[0];
  for (size_t o = 0; o < call.outputs.size(); ++o) {
    const TensorRef& out = call.outputs[o];
    if (out.type != prog.ValueType(prog.results[o]) || !StorageOk(out) ||
        !std::equal(out.dims.begin(), out.dims.end(), out0.dims.begin(), out0.dims.end()) || out.rank() > 16)
      return false;
  }
  std::vector<std::vector<int64_t>> strides;
  std::vector<int64_t> offsets;
  if (!ref::ElementwiseInputStrides(call, map, &strides, &offsets).ok()) return false;
  p->program = &prog;
  p->out_dims.assign(out0.dims.begin(), out0.dims.end());
  std::vector<int64_t> dense(p->out_dims.size(), 1);
  for (size_t a = dense.size(); a-- > 1;) dense[a - 1] = dense[a] * p->out_dims[a];
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const TensorRef& in = call.inputs[i];
    if (in.type != prog.param_types[i] || !StorageOk(in)) return false;
    const bool scalar = std::all_of(strides[i].begin(), strides[i].end(), [](int64_t s) { return s == 0; });
    bool full = true;
    for (size_t a = 0; a < dense.size(); ++a) full = full && (strides[i][a] == dense[a] || p->out_dims[a] == 1);
    p->inputs.push_back(in.data + offsets[i] * static_cast<int64_t>(StorageBytes(in.type)));
    p->read.push_back(full ? LaneRead::kFull : scalar ? LaneRead::kScalar : LaneRead::kGather);
    p->strides.push_back(std::move(strides[i]));
  }
  for (const TensorRef& out : call.outputs) p->outputs.push_back(out.data);
  p->n = static_cast<size_t>(out0.NumElements());
  return true;
}

}  // namespace kiln::cpu

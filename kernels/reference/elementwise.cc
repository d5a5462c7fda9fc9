// Reference elementwise kernels:
//  - "kiln.elementwise": runs a ScalarProgram ("body") once per element. The
//    compiler fuses chains of elementwise ops (including select and clamp)
//    into one program; params are the inputs, results are the outputs.
//    Inputs are output-shaped or rank 0, unless the optional attribute
//    "input_broadcast" says otherwise: for each input in order, its rank r
//    then r output axes (broadcast_in_dim's broadcast_dimensions), so a fused
//    broadcast_in_dim of a lower-rank operand reads it in place. An input
//    dim of size 1 repeats along a longer output axis. The optional
//    attribute "input_slices" reads inputs through a static slice (a fused
//    stablehlo.slice): for each input in order, 0 (read whole), or its rank
//    r then r start indices then r strides; such an input is read at
//    start + output index * stride along each of its dims (its sliced
//    shape is the output's along the axes the map gives it).
//  - "stablehlo.map": result[i] = computation(inputs[0][i], ...); the spec
//    requires dimensions = [0, ..., rank-1].
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/reference/elementwise_inputs.h"
#include "kernels/reference/kernels.h"
#include "kernels/reference/numeric_util.h"
#include "kernels/scalar/scalar.h"
#include "kernels/reference/tensor_index.h"

namespace kiln::ref {
namespace {

bool SameDims(std::span<const int64_t> a, std::span<const int64_t> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

}  // namespace

Status ElementwiseInputStrides(const KernelCall& call, const KernelAttr* map,
                               std::vector<std::vector<int64_t>>* strides, std::vector<int64_t>* offsets) {
  const TensorRef& out0 = call.outputs[0];
  const size_t rank = out0.dims.size();
  const KernelAttr* slices = call.params.Find("input_slices");
  if (slices != nullptr && offsets == nullptr)
    return Unimplemented("kiln.elementwise: input_slices is not read by this kernel");
  size_t at = 0, slice_at = 0;
  strides->assign(call.inputs.size(), std::vector<int64_t>(rank, 0));
  if (offsets != nullptr) offsets->assign(call.inputs.size(), 0);
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const TensorRef& in = call.inputs[i];
    KILN_RETURN_IF_ERROR(CheckStorage(in, "kiln.elementwise input"));
    // Named only for a message: a string built per input was a heap
    // allocation on every dispatch.
    auto which = [i] { return "kiln.elementwise: input " + std::to_string(i); };
    // The input's static slice: start indices and strides, or none.
    const int64_t* start = nullptr;
    const int64_t* step = nullptr;
    if (slices) {
      if (slice_at >= slices->ints.size()) return InvalidArgument(which() + ": input_slices is too short");
      const int64_t r = slices->ints[slice_at];
      if (r != 0) {
        if (r != in.rank() || slices->ints.size() - slice_at - 1 < 2 * static_cast<size_t>(r))
          return InvalidArgument(which() + ": input_slices does not match its rank");
        start = slices->ints.data() + slice_at + 1;
        step = start + r;
      }
      slice_at += 1 + 2 * static_cast<size_t>(r);
    }
    std::vector<int64_t> axes;  // output axis of each input axis
    if (map) {
      if (at >= map->ints.size() || map->ints[at] != in.rank())
        return InvalidArgument(which() + ": input_broadcast does not match its rank");
      if (map->ints.size() - at - 1 < static_cast<size_t>(in.rank()))
        return InvalidArgument(which() + ": input_broadcast is too short");
      axes.assign(map->ints.begin() + at + 1, map->ints.begin() + at + 1 + in.rank());
      at += 1 + static_cast<size_t>(in.rank());
    } else if (SameDims(in.dims, out0.dims) || (start != nullptr && in.dims.size() == rank)) {
      for (size_t a = 0; a < rank; ++a) axes.push_back(static_cast<int64_t>(a));
    } else if (in.rank() != 0) {
      return InvalidArgument(which() + " is neither output-shaped nor rank 0");
    }
    std::vector<bool> used(rank, false);
    int64_t stride = 1;
    for (size_t j = axes.size(); j-- > 0;) {
      const int64_t a = axes[j];
      if (a < 0 || a >= static_cast<int64_t>(rank) || used[a])
        return InvalidArgument(which() + ": input_broadcast names an invalid or repeated output axis");
      used[a] = true;
      if (start != nullptr) {
        // Sliced: out0.dims[a] elements from start[j], step[j] apart.
        const int64_t n = out0.dims[a];
        if (start[j] < 0 || step[j] < 1 || (n > 0 && (start[j] >= in.dims[j] || (in.dims[j] - 1 - start[j]) / step[j] < n - 1)))
          return InvalidArgument(which() + ": input_slices reads past dimension " + std::to_string(j));
        (*strides)[i][a] = stride * step[j];
        (*offsets)[i] += start[j] * stride;
      } else {
        if (in.dims[j] != out0.dims[a] && in.dims[j] != 1)
          return InvalidArgument(which() + ": dimension " + std::to_string(j) + " is neither 1 nor the output's");
        (*strides)[i][a] = in.dims[j] == out0.dims[a] ? stride : 0;
      }
      stride *= in.dims[j];
    }
  }
  if (map && at != map->ints.size()) return InvalidArgument("kiln.elementwise: input_broadcast is too long");
  if (slices && slice_at != slices->ints.size()) return InvalidArgument("kiln.elementwise: input_slices is too long");
  return Status::Ok();
}

Status RunElementwiseProgram(const KernelCall& call, const ScalarProgram* program, const KernelAttr* map) {
  if (program == nullptr) return InvalidArgument("kiln.elementwise: missing program attribute 'body'");
  KILN_RETURN_IF_ERROR(VerifyScalarProgram(*program));
  if (call.inputs.size() != program->param_types.size())
    return InvalidArgument("kiln.elementwise: " + std::to_string(call.inputs.size()) +
                           " inputs for a program with " +
                           std::to_string(program->param_types.size()) + " params");
  if (call.outputs.empty() || call.outputs.size() != program->results.size())
    return InvalidArgument("kiln.elementwise: output count must equal the program's result count");

  const TensorRef& out0 = call.outputs[0];
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    const TensorRef& out = call.outputs[i];
    KILN_RETURN_IF_ERROR(CheckStorage(out, "kiln.elementwise output"));
    if (program->results[i] >= program->num_values())
      return InvalidArgument("kiln.elementwise: program result index out of range");
    if (out.type != program->ValueType(program->results[i]))
      return InvalidArgument("kiln.elementwise: output " + std::to_string(i) +
                             " type differs from the program result type");
    if (!SameDims(out.dims, out0.dims))
      return InvalidArgument("kiln.elementwise: outputs have different dims");
  }
  // Each input's element stride along every output axis (0 where it is
  // broadcast).
  std::vector<std::vector<int64_t>> in_strides;
  std::vector<int64_t> in_offsets;
  KILN_RETURN_IF_ERROR(ElementwiseInputStrides(call, map, &in_strides, &in_offsets));
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const TensorRef& in = call.inputs[i];
    if (in.type != program->param_types[i])
      return InvalidArgument("kiln.elementwise: input " + std::to_string(i) +
                             " type differs from the program param type");
  }

  std::vector<Scalar> params(call.inputs.size());
  std::vector<Scalar> scratch(program->num_values());
  std::vector<Scalar> results(program->results.size());
  const int64_t n = out0.NumElements();
  std::vector<int64_t> idx(out0.dims.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    for (size_t i = 0; i < call.inputs.size(); ++i) {
      const TensorRef& in = call.inputs[i];
      int64_t off = in_offsets[i];
      for (size_t a = 0; a < idx.size(); ++a) off += idx[a] * in_strides[i][a];
      params[i] = LoadScalar(in.type, in.At(off));
    }
    RunScalarProgram(*program, params.data(), scratch.data(), results.data());
    for (size_t o = 0; o < call.outputs.size(); ++o)
      StoreScalar(call.outputs[o].type, results[o], call.outputs[o].At(e));
    for (size_t a = idx.size(); a-- > 0;) {
      if (++idx[a] < out0.dims[a]) break;
      idx[a] = 0;
    }
  }
  return Status::Ok();
}

namespace {

// The body's value `s` of type `from` as type `to` (the computation may work
// in a promoted type).
Scalar Convert(ElementType from, ElementType to, const Scalar& s) {
  return from == to ? s : ConvertScalar(from, to, s);
}

// map: result[i] = computation(inputs[0][i], ..., inputs[N-1][i]); the
// spec requires dimensions = [0, ..., rank-1].
Status Map(const KernelCall& c) {
  if (c.inputs.empty()) return InvalidArgument(numeric::KernelName(c) + ": needs at least one input");
  KILN_RETURN_IF_ERROR(numeric::CheckCall(c, c.inputs.size(), 1));
  const TensorRef& out = c.outputs[0];
  for (size_t k = 0; k < c.inputs.size(); ++k)
    KILN_RETURN_IF_ERROR(numeric::CheckDims(c, c.inputs[k], out.dims, "input " + std::to_string(k)));
  if (c.params.Has("dimensions")) {
    auto dims = c.params.Ints("dimensions");
    if (static_cast<int64_t>(dims.size()) != out.rank())
      return InvalidArgument(numeric::KernelName(c) + ": dimensions must list every axis");
    for (size_t i = 0; i < dims.size(); ++i)
      if (dims[i] != static_cast<int64_t>(i)) return InvalidArgument(numeric::KernelName(c) + ": dimensions must be [0, ..., rank-1]");
  }
  numeric::ProgramRunner comp;
  KILN_RETURN_IF_ERROR(numeric::MakeRunner(c, "computation", c.inputs.size(), 1, &comp));
  const ScalarProgram& p = *comp.program;
  std::vector<Scalar> params(c.inputs.size());
  Scalar result[1];
  const int64_t total = out.NumElements();
  for (int64_t i = 0; i < total; ++i) {
    for (size_t k = 0; k < c.inputs.size(); ++k)
      params[k] = Convert(c.inputs[k].type, p.param_types[k], numeric::Load(c.inputs[k], i));
    comp.Run(params.data(), result);
    numeric::Store(out, i, Convert(p.ValueType(p.results[0]), out.type, result[0]));
  }
  return Status::Ok();
}

Status Elementwise(const KernelCall& call) {
  return RunElementwiseProgram(call, call.params.Program("body"), call.params.Find("input_broadcast"));
}

}  // namespace

// This file's kernels of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::Elementwise(const KernelCall& call) { return ref::Elementwise(call); }
Status kernel::Map(const KernelCall& call) { return ref::Map(call); }

}  // namespace kiln::ref

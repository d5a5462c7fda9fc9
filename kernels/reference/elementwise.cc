// Reference elementwise kernels:
//  - "kiln.elementwise": runs a ScalarProgram ("body") once per element. The
//    compiler fuses chains of elementwise ops (including select and clamp)
//    into one program; params are the inputs, results are the outputs.
//  - "kiln.copy": byte copy of input 0 into output 0 (reshape, views).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/reference/registry.h"
#include "kernels/reference/scalar.h"
#include "kernels/reference/tensor_index.h"

namespace kiln::ref {
namespace {

bool SameDims(std::span<const int64_t> a, std::span<const int64_t> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

Status Elementwise(const KernelCall& call) {
  const ScalarProgram* program = call.params.Program("body");
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
  // Inputs are either full tensors of the output's shape or rank-0 scalars
  // broadcast to every element (as select and clamp allow).
  std::vector<bool> is_scalar(call.inputs.size());
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const TensorRef& in = call.inputs[i];
    KILN_RETURN_IF_ERROR(CheckStorage(in, "kiln.elementwise input"));
    if (in.type != program->param_types[i])
      return InvalidArgument("kiln.elementwise: input " + std::to_string(i) +
                             " type differs from the program param type");
    if (SameDims(in.dims, out0.dims)) {
      is_scalar[i] = false;
    } else if (in.rank() == 0) {
      is_scalar[i] = true;
    } else {
      return InvalidArgument("kiln.elementwise: input " + std::to_string(i) +
                             " is neither output-shaped nor rank 0");
    }
  }

  std::vector<Scalar> params(call.inputs.size());
  std::vector<Scalar> scratch(program->num_values());
  std::vector<Scalar> results(program->results.size());
  const int64_t n = out0.NumElements();
  for (int64_t e = 0; e < n; ++e) {
    for (size_t i = 0; i < call.inputs.size(); ++i) {
      const TensorRef& in = call.inputs[i];
      params[i] = LoadScalar(in.type, in.At(is_scalar[i] ? 0 : e));
    }
    RunScalarProgram(*program, params.data(), scratch.data(), results.data());
    for (size_t o = 0; o < call.outputs.size(); ++o)
      StoreScalar(call.outputs[o].type, results[o], call.outputs[o].At(e));
  }
  return Status::Ok();
}

Status Copy(const KernelCall& call) {
  if (call.inputs.size() != 1 || call.outputs.size() != 1)
    return InvalidArgument("kiln.copy: expects 1 input and 1 output");
  const TensorRef& in = call.inputs[0];
  const TensorRef& out = call.outputs[0];
  KILN_RETURN_IF_ERROR(CheckStorage(in, "kiln.copy input"));
  KILN_RETURN_IF_ERROR(CheckStorage(out, "kiln.copy output"));
  if (in.type != out.type) return InvalidArgument("kiln.copy: element types differ");
  if (in.NumElements() != out.NumElements())
    return InvalidArgument("kiln.copy: element counts differ");
  const size_t bytes = static_cast<size_t>(in.NumElements()) * StorageBytes(in.type);
  if (bytes > 0) std::memmove(out.data, in.data, bytes);
  return Status::Ok();
}

}  // namespace

void AddElementwiseKernels(std::vector<KernelEntry>& out) {
  out.push_back({"kiln.copy", &Copy});
  out.push_back({"kiln.elementwise", &Elementwise});
}

}  // namespace kiln::ref

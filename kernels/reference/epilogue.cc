#include "kernels/reference/epilogue.h"

#include <cstring>
#include <string>
#include <vector>

#include "kernels/common/kernel_selection.h"
#include "kernels/reference/kernels.h"

namespace kiln::ref {

Status RunWithEpilogue(const KernelCall& call, size_t producer_inputs, KernelFn producer,
                       ElementwiseProgramFn elementwise) {
  const ScalarProgram* program = call.params.Program("epilogue");
  if (program == nullptr || call.without_epilogue) return producer(call);
  const std::string& name = call.params.kernel;
  if (call.inputs.size() < producer_inputs || call.outputs.size() != 1)
    return InvalidArgument(name + ": an epilogue needs the producer's operands and one output");
  if (call.inputs.size() - producer_inputs + 1 != program->param_types.size() || program->results.size() != 1)
    return InvalidArgument(name + ": the epilogue's params do not match the dispatch's inputs");
  if (program->param_types[0] != call.outputs[0].type)
    return InvalidArgument(name + ": the epilogue's first param is not of the result type");
  // The producer ignores the epilogue's attributes; a fast producer that
  // falls back to the registered reference kernel passes the flag on, so the
  // epilogue is not applied twice.
  KILN_RETURN_IF_ERROR(producer(KernelCall{call.params, call.inputs.subspan(0, producer_inputs), call.outputs,
                                           call.runner, /*without_epilogue=*/true, call.state}));
  // The elementwise pass reads the result and writes it back in place: both
  // elementwise kernels read every element before writing it.
  const KernelAttr* map = call.params.Find("epilogue_broadcast");
  if (map != nullptr) {
    // Param 0 is the output itself, read at each element's own index.
    const int64_t rank = call.outputs[0].rank();
    bool identity = !map->ints.empty() && map->ints[0] == rank && map->ints.size() > static_cast<size_t>(rank);
    for (int64_t a = 0; identity && a < rank; ++a) identity = map->ints[1 + a] == a;
    if (!identity) return InvalidArgument(name + ": epilogue_broadcast must read the result at its own index");
  }
  constexpr size_t kMaxInline = 8;
  TensorRef inline_inputs[kMaxInline];
  std::vector<TensorRef> many;
  const size_t n = program->param_types.size();
  TensorRef* inputs = inline_inputs;
  if (n > kMaxInline) {
    many.resize(n);
    inputs = many.data();
  }
  inputs[0] = call.outputs[0];
  for (size_t i = producer_inputs; i < call.inputs.size(); ++i) inputs[i - producer_inputs + 1] = call.inputs[i];
  return elementwise(KernelCall{call.params, std::span<const TensorRef>(inputs, n), call.outputs, call.runner,
                                false, call.state},
                     program, map);
}

namespace {
constexpr std::string_view kProductPrefix = "product_";
}  // namespace

bool HasRequantize(const KernelParams& params) { return params.Has("product_scales"); }

KernelParams ProductParams(const KernelParams& params) {
  KernelParams p;
  p.kernel = params.kernel;
  for (const KernelAttr& a : params.attrs)
    if (!a.name.starts_with(kProductPrefix)) p.attrs.push_back(a);
  return p;
}

KernelParams RequantizeParams(const KernelParams& params) {
  KernelParams p;
  p.kernel = "stablehlo.uniform_quantize";
  for (const KernelAttr& a : params.attrs) {
    if (a.name.starts_with("operand_")) continue;  // the product_* ones take these names
    p.attrs.push_back(a);
    if (a.name.starts_with(kProductPrefix)) p.attrs.back().name = "operand_" + a.name.substr(kProductPrefix.size());
  }
  return p;
}

Status RunWithRequantize(const KernelCall& call, KernelFn producer) {
  if (!HasRequantize(call.params)) return producer(call);
  const std::string& name = call.params.kernel;
  // A selective build has the requantize only where its module needs it
  // (scripts/selective_build.sh adds it for requantizing producers).
  if constexpr (!KernelSelected("stablehlo.uniform_quantize")) {
    return Unimplemented(name + ": a requantizing producer needs stablehlo.uniform_quantize, which this "
                                "selective build leaves out");
  } else {
    if (call.outputs.size() != 1) return InvalidArgument(name + ": a requantizing producer has one output");
    const TensorRef& out = call.outputs[0];
    if (!IsInteger(out.type) || StorageBytes(out.type) == 0 ||
        out.byte_size / StorageBytes(out.type) < static_cast<size_t>(out.NumElements()))
      return InvalidArgument(name + ": a requantizing producer needs an integer result its buffer holds");
    std::vector<int32_t> acc(static_cast<size_t>(out.NumElements()));
    TensorRef product = out;
    product.type = ElementType::kSI32;
    product.data = reinterpret_cast<uint8_t*>(acc.data());
    product.byte_size = acc.size() * sizeof(int32_t);
    product.constant_id = 0;
    const KernelParams pp = ProductParams(call.params);
    KILN_RETURN_IF_ERROR(producer(KernelCall{pp, call.inputs, std::span<const TensorRef>(&product, 1), call.runner,
                                             /*without_epilogue=*/true, call.state}));
    const KernelParams qp = RequantizeParams(call.params);
    return kernel::UniformQuantize(
        KernelCall{qp, std::span<const TensorRef>(&product, 1), call.outputs, call.runner, false, nullptr});
  }
}

}  // namespace kiln::ref

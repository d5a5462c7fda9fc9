// The HAL conformance suite (hal/cts/) on the CPU device, inline and
// deferred. Its executables are KernelParams payloads: the suite's add is a
// kiln.elementwise kernel whose body adds its two parameters.
#include "hal/cpu/cpu_device.h"
#include "hal/cts/cts.h"
#include "kernels/common/kernel.h"

namespace kiln::hal::cts {
namespace {

StatusOr<ExecutableSpec> CpuAddF32() {
  KernelAttr body;
  body.name = "body";
  body.has_program = true;
  body.program.param_types = {ElementType::kF32, ElementType::kF32};
  ScalarInstr add;
  add.op = ScalarOp::kAdd;
  add.type = ElementType::kF32;
  add.num_operands = 2;
  add.operands[0] = 0;
  add.operands[1] = 1;
  body.program.instrs = {add};
  body.program.results = {2};
  auto params = std::make_shared<KernelParams>();
  params->kernel = "kiln.elementwise";
  params->attrs = {body};
  ExecutableSpec spec{params->kernel, {}};
  spec.Add<KernelParams>(kKernelFormat, std::move(params));
  return spec;
}

CtsDriver Cpu(CpuMode mode, const char* name) {
  return CtsDriver{name, [mode]() -> StatusOr<std::unique_ptr<Device>> { return CreateCpuDevice(mode, 2); },
                   CpuAddF32};
}

KILN_HAL_CTS_INSTANTIATE(Cpu, Cpu(CpuMode::kInline, "cpu_inline"), Cpu(CpuMode::kDeferred, "cpu_deferred"));

}  // namespace
}  // namespace kiln::hal::cts

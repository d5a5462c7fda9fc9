// Kiln's C++ API from an installed tree: compiles a StableHLO function in
// this process, loads the module, runs it on the CPU device and checks the
// result. Prints "ok: ..." on success.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "hal/devices.h"
#include "vm/context.h"
#include "vm/module.h"

int main() {
  const std::string source = R"(
func.func public @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %a, %b : tensor<4xf32>
  %1 = stablehlo.add %0, %a : tensor<4xf32>
  return %1 : tensor<4xf32>
}
)";
  kiln::compiler::CompileOptions options;
  options.target = "cpu";
  std::vector<std::string> warnings;
  auto bytes = kiln::compiler::Compile(source, "consumer.mlir", options, &warnings);
  if (!bytes.ok()) return std::fprintf(stderr, "compile: %s\n", bytes.status().ToString().c_str()), 1;
  auto module = kiln::vm::LoadModule(std::move(*bytes));
  if (!module.ok()) return std::fprintf(stderr, "load: %s\n", module.status().ToString().c_str()), 1;
  auto device = kiln::hal::CreateDeviceByName("cpu", 1);
  if (!device.ok()) return std::fprintf(stderr, "device: %s\n", device.status().ToString().c_str()), 1;
  auto context = kiln::vm::Context::Create(*module, device->get());
  if (!context.ok()) return std::fprintf(stderr, "context: %s\n", context.status().ToString().c_str()), 1;

  auto tensor = [](std::vector<float> v) {
    kiln::vm::HostTensor t;
    t.type = kiln::ElementType::kF32;
    t.dims = {static_cast<int64_t>(v.size())};
    t.data.resize(v.size() * sizeof(float));
    std::memcpy(t.data.data(), v.data(), t.data.size());
    return t;
  };
  auto results = (*context)->Invoke("main", {tensor({1, 2, 3, 4}), tensor({10, 20, 30, 40})});
  if (!results.ok()) return std::fprintf(stderr, "invoke: %s\n", results.status().ToString().c_str()), 1;
  float got[4];
  if (results->size() != 1 || results->at(0).data.size() != sizeof got)
    return std::fprintf(stderr, "unexpected results\n"), 1;
  std::memcpy(got, results->at(0).data.data(), sizeof got);
  const float want[4] = {11, 42, 93, 164};  // a*b + a
  for (int i = 0; i < 4; ++i)
    if (got[i] != want[i]) return std::fprintf(stderr, "element %d: %g, not %g\n", i, got[i], want[i]), 1;
  std::printf("ok: main(a, b) = a*b + a = [%g %g %g %g]\n", got[0], got[1], got[2], got[3]);
  return 0;
}

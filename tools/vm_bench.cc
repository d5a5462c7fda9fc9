// vm-bench OUT.kiln --function=NAME [--device=...] [--input=...]: times
// repeated invocations after warm-up; prints min/median/max.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "tools/common/guarded_main.h"
#include "tools/common/tool_support.h"
#include "vm/context.h"

namespace {

int Main(int argc, char** argv) {
  CLI::App app{"vm-bench: times a function of a Kiln module"};
  std::string path, function = "main", device_spec = "cpu";
  std::vector<std::string> inputs;
  int iterations = 20, warmup = 3, threads = 0;
  app.add_option("module", path, "module file (.kiln)")->required();
  app.add_option("--function", function, "function to time");
  app.add_option("--device", device_spec, "cpu, vulkan or vulkan:N");
  app.add_option("--input", inputs, "inputs, as for vm-run");
  app.add_option("--iterations", iterations, "timed invocations")->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "untimed invocations first");
  app.add_option("--threads", threads, "kernel threads on the cpu device, at most 1024 (default 0: all cores)")->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);
  auto fail = [](const kiln::Status& s) {
    std::cerr << "error: " << s.message() << "\n";
    return 1;
  };
  auto module = kiln::vm::LoadModuleFromFile(path);
  if (!module.ok()) return fail(module.status());
  std::vector<kiln::vm::HostTensor> args;
  for (const auto& text : inputs) {
    auto t = kiln::tools::ParseInput(text, kiln::tools::ArgumentType(**module, function, args.size()));
    if (!t.ok()) return fail(t.status());
    args.push_back(std::move(t.value()));
  }
  auto device = kiln::tools::CreateDevice(device_spec, threads);
  if (!device.ok()) return fail(device.status());
  auto context = kiln::vm::Context::Create(*module, device->get());
  if (!context.ok()) return fail(context.status());
  std::vector<double> ms;
  for (int i = 0; i < warmup + iterations; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = (*context)->Invoke(function, args);
    auto t1 = std::chrono::steady_clock::now();
    if (!r.ok()) return fail(r.status());
    if (i >= warmup) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%s on %s: %d runs, min %.4f ms, median %.4f ms, max %.4f ms\n", function.c_str(),
              (*device)->name().c_str(), iterations, ms.front(), ms[ms.size() / 2], ms.back());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return kiln::tools::GuardedMain("vm-bench", [&] { return Main(argc, argv); });
}

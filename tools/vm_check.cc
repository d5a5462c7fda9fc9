// vm-check OUT.kiln [--device=cpu|vulkan] [--stats]: runs every public
// function without arguments and evaluates its checks.
#include <CLI/CLI.hpp>

#include <iostream>

#include "tools/common/tool_support.h"
#include "vm/context.h"

int main(int argc, char** argv) {
  CLI::App app{"vm-check: runs the check tests of a Kiln module"};
  std::string module_path, device_spec = "cpu";
  bool stats = false;
  int replicas = 1, partitions = 1, threads = 0;
  app.add_option("module", module_path, "module file (.kiln)")->required();
  app.add_option("--device", device_spec, "cpu, vulkan or vulkan:N");
  app.add_flag("--stats", stats, "print the dispatches each device ran");
  app.add_option("--replicas", replicas, "replicas in the process grid");
  app.add_option("--partitions", partitions, "partitions in the process grid");
  app.add_option("--threads", threads, "kernel threads on the cpu device (default 0: all cores)")->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);

  if (replicas < 1 || partitions < 1 || replicas * partitions > 1) {
    std::cerr << "error: a process grid of " << replicas << "x" << partitions
              << " is not supported yet (collectives are planned work); use 1x1\n";
    return 1;
  }
  auto module = kiln::vm::LoadModuleFromFile(module_path);
  if (!module.ok()) {
    std::cerr << "error: " << module.status().message() << "\n";
    return 1;
  }
  auto device = kiln::tools::CreateDevice(device_spec, threads);
  if (!device.ok()) {
    std::cerr << "error: " << device.status().message() << "\n";
    return 1;
  }
  auto context = kiln::vm::Context::Create(*module, device->get());
  if (!context.ok()) {
    std::cerr << "error: " << context.status().message() << "\n";
    return 1;
  }
  int passed = 0, failed = 0;
  for (const auto& fn : (*module)->functions) {
    if (!fn.is_public || !fn.args.empty()) continue;
    (*context)->ClearCheckFailures();
    auto r = (*context)->Invoke(fn.name, {});
    if (!r.ok()) {
      std::cout << "FAIL " << fn.name << ": " << r.status().message() << "\n";
      ++failed;
    } else if (!(*context)->check_failures().empty()) {
      std::cout << "FAIL " << fn.name << ": " << (*context)->check_failures().front() << "\n";
      ++failed;
    } else {
      std::cout << "PASS " << fn.name << "\n";
      ++passed;
    }
  }
  if (stats) {
    auto s = (*device)->stats();
    std::cout << "stats: device " << (*device)->name() << " dispatches " << s.dispatches << " submissions "
              << s.submissions << "\n";
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}

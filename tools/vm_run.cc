// vm-run OUT.kiln [--function=NAME] [--device=cpu|vulkan[:N]] [--input=...]... [--output=@file.npy]...
#include <CLI/CLI.hpp>

#include <iostream>

#include "tools/common/tool_support.h"
#include "vm/context.h"

int main(int argc, char** argv) {
  CLI::App app{"vm-run: runs a function of a Kiln module"};
  std::string module_path, function = "main", device_spec = "cpu";
  std::vector<std::string> inputs, outputs;
  int threads = 0, replicas = 1, partitions = 1;
  bool list_devices = false;
  app.add_option("module", module_path, "module file (.kiln)");
  app.add_option("--function", function, "function to run (default: main)");
  app.add_option("--device", device_spec, "cpu, vulkan or vulkan:N");
  app.add_option("--input", inputs, "an input: 2x3xf32=1,2,3,4,5,6 | f32=7 | @x.npy");
  app.add_option("--output", outputs, "write a result to @file.npy (one per result)");
  app.add_option("--threads", threads, "kernel threads on the cpu device (default 0: all cores)")->check(CLI::NonNegativeNumber);
  app.add_option("--replicas", replicas, "replicas in the process grid");
  app.add_option("--partitions", partitions, "partitions in the process grid");
  app.add_flag("--list-devices", list_devices, "list the available devices");
  CLI11_PARSE(app, argc, argv);

  if (list_devices) {
    for (const auto& d : kiln::tools::ListDevices()) std::cout << d << "\n";
    return 0;
  }
  if (module_path.empty()) {
    std::cerr << "error: a module file is required\n";
    return 1;
  }
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
  std::vector<kiln::vm::HostTensor> args;
  for (const auto& text : inputs) {
    auto t = kiln::tools::ParseInput(text);
    if (!t.ok()) {
      std::cerr << "error: " << t.status().message() << "\n";
      return 1;
    }
    args.push_back(std::move(t.value()));
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
  auto results = (*context)->Invoke(function, args);
  if (!results.ok()) {
    std::cerr << "error: " << results.status().message() << "\n";
    return 1;
  }
  if (!outputs.empty() && outputs.size() != results->size()) {
    std::cerr << "error: " << results->size() << " results but " << outputs.size() << " --output files\n";
    return 1;
  }
  for (size_t i = 0; i < results->size(); ++i) {
    if (!outputs.empty()) {
      std::string path = outputs[i];
      if (!path.empty() && path[0] == '@') path = path.substr(1);
      auto s = kiln::tools::WriteNpy(path, (*results)[i]);
      if (!s.ok()) {
        std::cerr << "error: " << s.message() << "\n";
        return 1;
      }
    } else {
      std::cout << kiln::vm::FormatTensor((*results)[i]) << "\n";
    }
  }
  for (const auto& f : (*context)->check_failures()) std::cerr << "check failed: " << f << "\n";
  return (*context)->check_failures().empty() ? 0 : 1;
}

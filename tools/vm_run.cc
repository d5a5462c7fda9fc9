// vm-run OUT.kiln [--function=NAME] [--device=cpu|vulkan[:N]] [--input=...]... [--output=@file.npy]...
//        [--replicas=N --partitions=M] [--collective-timeout=SECONDS]
//
// With a process grid of more than one process (the flags, or the module's
// mhlo.num_replicas / mhlo.num_partitions), the function runs on every grid
// process, each in its own VM context on its own thread. Inputs are shared,
// or per process where their text names {replica}, {partition} or
// {process}; results are printed per process under "process (r, p):".
#include <CLI/CLI.hpp>

#include <iostream>

#include "tools/common/distributed.h"
#include "tools/common/grid_support.h"
#include "tools/common/guarded_main.h"
#include "tools/common/tool_support.h"
#include "vm/collectives/grid.h"
#include "vm/context.h"

namespace {

int Fail(const std::string& message) {
  std::cerr << "error: " << message << "\n";
  return 1;
}

// Prints or writes one process's results; false on an error.
bool Emit(const std::vector<kiln::vm::HostTensor>& results, const std::vector<std::string>& outputs,
          uint32_t r, uint32_t p, uint32_t partitions, int64_t print_max = -1) {
  if (!outputs.empty() && outputs.size() != results.size()) {
    std::cerr << "error: " << results.size() << " results but " << outputs.size() << " --output files\n";
    return false;
  }
  for (size_t i = 0; i < results.size(); ++i) {
    if (outputs.empty()) {
      std::cout << kiln::vm::FormatTensor(results[i], print_max) << "\n";
      continue;
    }
    std::string path = kiln::tools::ExpandProcess(outputs[i], r, p, partitions);
    if (!path.empty() && path[0] == '@') path = path.substr(1);
    if (results[i].is_tuple || results[i].is_token) {  // .npy holds one array
      std::cerr << "error: result " << i << " is a " << (results[i].is_tuple ? "tuple" : "token")
                << ", which cannot be written to .npy ('" << path << "')\n";
      return false;
    }
    auto s = kiln::tools::WriteNpy(path, results[i]);
    if (!s.ok()) {
      std::cerr << "error: " << s.message() << "\n";
      return false;
    }
  }
  return true;
}

int Main(int argc, char** argv) {
  // Under mpirun, MPI starts first (it may consume arguments of its own).
  auto dist = kiln::tools::Distributed::Start(&argc, &argv);
  if (!dist.ok()) return Fail(dist.status().message());
  CLI::App app{"vm-run: runs a function of a Kiln module"};
  std::string module_path, function = "main", device_spec = "cpu";
  std::vector<std::string> inputs, outputs;
  int threads = 0, replicas = 0, partitions = 0;
  double timeout_s = 60;
  bool list_devices = false;
  app.add_option("module", module_path, "module file (.kiln)");
  app.add_option("--function", function, "function to run (default: main)");
  app.add_option("--device", device_spec, "cpu, vulkan or vulkan:N");
  app.add_option("--input", inputs,
                 "an input: 2x3xf32=1,2,3,4,5,6 | f32=7 | @x.npy; {replica}, {partition}, {process} make it per process");
  app.add_option("--output", outputs, "write a result to @file.npy (one per result; placeholders as for --input)");
  app.add_option("--threads", threads, "kernel threads on the cpu device, at most 1024 (default 0: all cores)")->check(CLI::NonNegativeNumber);
  app.add_option("--replicas", replicas, "replicas in the process grid, at least 1 (default: the module's, else 1)");
  app.add_option("--partitions", partitions, "partitions in the process grid, at least 1 (default: the module's, else 1)");
  app.add_option("--collective-timeout", timeout_s, "seconds a collective waits for its peers (default 60)");
  app.add_flag("--list-devices", list_devices, "list the available devices");
  int64_t print_max = -1;
  app.add_option("--print-max-elements", print_max, "print at most N elements of each result (default: all)")->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);

  if (list_devices) {
    for (const auto& d : kiln::tools::ListDevices()) std::cout << d << "\n";
    return 0;
  }
  if (module_path.empty()) return Fail("a module file is required");
  auto timeout = kiln::tools::CollectiveTimeout(timeout_s);
  if (!timeout.ok()) return Fail(timeout.status().message());
  auto module = kiln::vm::LoadModuleFromFile(module_path);
  if (!module.ok()) return Fail(module.status().message());
  auto grid = kiln::tools::ResolveGrid(app.count("--replicas") ? std::optional<int>(replicas) : std::nullopt,
                                       app.count("--partitions") ? std::optional<int>(partitions) : std::nullopt, **module);
  if (!grid.ok()) return Fail(grid.status().message());
  auto device = kiln::tools::CreateDevice(device_spec, threads);
  if (!device.ok()) return Fail(device.status().message());

  // Inputs per process (the same text for all unless it names the process).
  std::vector<std::vector<kiln::vm::HostTensor>> args(grid->size());
  auto parse_inputs = [&](uint32_t id) -> kiln::Status {
    for (const auto& text : inputs) {
      std::string mine = kiln::tools::ExpandProcess(text, id / grid->partitions, id % grid->partitions, grid->partitions);
      if (id > 0 && mine == text && !args[0].empty()) {  // shared: parse once
        args[id].push_back(args[0][args[id].size()]);
        continue;
      }
      auto t = kiln::tools::ParseInput(mine, kiln::tools::ArgumentType(**module, function, args[id].size()));
      if (!t.ok()) return t.status();
      args[id].push_back(std::move(t.value()));
    }
    return kiln::Status::Ok();
  };

  if ((*dist)->active()) {
    // One grid process per rank; each rank reads its own inputs and prints
    // or writes its own results.
    const uint32_t n = static_cast<uint32_t>((*dist)->size()), id = static_cast<uint32_t>((*dist)->rank());
    if (grid->size() != n)
      return Fail("a process grid of " + std::to_string(grid->replicas) + "x" + std::to_string(grid->partitions) +
                  " needs exactly " + std::to_string(grid->size()) + " MPI ranks (mpirun -np " +
                  std::to_string(grid->size()) + "); this run has " + std::to_string(n));
    if (auto s = parse_inputs(id); !s.ok()) return Fail(s.message());
    auto context = kiln::vm::Context::Create(*module, device->get());
    if (!context.ok()) return Fail(context.status().message());
    auto env = std::make_shared<kiln::vm::GridEnvironment>();
    env->num_replicas = grid->replicas;
    env->num_partitions = grid->partitions;
    env->timeout = *timeout;
    env->transport = (*dist)->Transport(grid->replicas, grid->partitions);
    kiln::vm::InvokeOptions opts;
    opts.replica_id = id / grid->partitions;
    opts.partition_id = id % grid->partitions;
    opts.grid = env;
    opts.collective_timeout = *timeout;
    auto results = (*context)->Invoke(function, args[id], opts);
    env->transport->ProcessDone(id, results.ok() ? kiln::Status::Ok() : results.status());
    std::string name = kiln::vm::ProcessName(id, grid->partitions);
    if (!results.ok()) return Fail("process " + name + ": " + results.status().message());
    std::cout << "process " << name << ":\n";
    if (!Emit(*results, outputs, opts.replica_id, opts.partition_id, grid->partitions, print_max)) return 1;
    for (const auto& f : (*context)->check_failures()) std::cerr << "check failed in process " << name << ": " << f << "\n";
    return (*context)->check_failures().empty() ? 0 : 1;
  }

  for (uint32_t id = 0; id < grid->size(); ++id)
    if (auto s = parse_inputs(id); !s.ok()) return Fail(s.message());

  if (grid->size() == 1) {
    auto context = kiln::vm::Context::Create(*module, device->get());
    if (!context.ok()) return Fail(context.status().message());
    kiln::vm::InvokeOptions opts;
    opts.collective_timeout = *timeout;
    auto results = (*context)->Invoke(function, args[0], opts);
    if (!results.ok()) return Fail(results.status().message());
    if (!Emit(*results, outputs, 0, 0, 1, print_max)) return 1;
    for (const auto& f : (*context)->check_failures()) std::cerr << "check failed: " << f << "\n";
    return (*context)->check_failures().empty() ? 0 : 1;
  }

  kiln::vm::GridRun run;
  run.num_replicas = grid->replicas;
  run.num_partitions = grid->partitions;
  run.functions.assign(grid->size(), function);
  run.inputs = std::move(args);
  run.timeout = *timeout;
  auto result = kiln::vm::RunGrid(*module, device->get(), run);
  if (!result.ok()) return Fail(result.status().message());
  int status = 0;
  for (uint32_t id = 0; id < grid->size(); ++id) {
    const auto& p = result->processes[id];
    uint32_t r = id / grid->partitions, q = id % grid->partitions;
    std::cout << "process " << kiln::vm::ProcessName(id, grid->partitions) << ":\n";
    if (!p.status.ok()) {
      std::cerr << "error: process " << kiln::vm::ProcessName(id, grid->partitions) << ": " << p.status.message() << "\n";
      status = 1;
      continue;
    }
    if (!Emit(p.results, outputs, r, q, grid->partitions, print_max)) status = 1;
    for (const auto& f : p.check_failures) {
      std::cerr << "check failed in process " << kiln::vm::ProcessName(id, grid->partitions) << ": " << f << "\n";
      status = 1;
    }
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  return kiln::tools::GuardedMain("vm-run", [&] { return Main(argc, argv); });
}

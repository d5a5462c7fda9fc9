// vm-check OUT.kiln [--device=cpu|vulkan] [--stats] [--replicas=N --partitions=M]
//          [--collective-timeout=SECONDS]: runs every public function without
// arguments and evaluates its checks. With a process grid of more than one
// process (the flags, or the module's mhlo.num_replicas /
// mhlo.num_partitions) each function runs on every grid process and passes
// only if it passes on all of them.
#include <CLI/CLI.hpp>

#include <iostream>

#include "tools/common/grid_support.h"
#include "tools/common/tool_support.h"
#include "vm/context.h"
#include "vm/grid.h"

int main(int argc, char** argv) {
  CLI::App app{"vm-check: runs the check tests of a Kiln module"};
  std::string module_path, device_spec = "cpu";
  bool stats = false;
  int replicas = 0, partitions = 0, threads = 0;
  double timeout_s = 60;
  app.add_option("module", module_path, "module file (.kiln)")->required();
  app.add_option("--device", device_spec, "cpu, vulkan or vulkan:N");
  app.add_flag("--stats", stats, "print the dispatches each device ran");
  app.add_option("--replicas", replicas, "replicas in the process grid (default: the module's, else 1)");
  app.add_option("--partitions", partitions, "partitions in the process grid (default: the module's, else 1)");
  app.add_option("--collective-timeout", timeout_s, "seconds a collective waits for its peers (default 60)");
  app.add_option("--threads", threads, "kernel threads on the cpu device (default 0: all cores)")->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);

  auto fail = [](const std::string& m) {
    std::cerr << "error: " << m << "\n";
    return 1;
  };
  auto timeout = kiln::tools::CollectiveTimeout(timeout_s);
  if (!timeout.ok()) return fail(timeout.status().message());
  auto module = kiln::vm::LoadModuleFromFile(module_path);
  if (!module.ok()) return fail(module.status().message());
  auto grid = kiln::tools::ResolveGrid(replicas, partitions, **module);
  if (!grid.ok()) return fail(grid.status().message());
  auto device = kiln::tools::CreateDevice(device_spec, threads);
  if (!device.ok()) return fail(device.status().message());
  auto context = kiln::vm::Context::Create(*module, device->get());
  if (!context.ok()) return fail(context.status().message());
  int passed = 0, failed = 0;
  for (const auto& fn : (*module)->functions) {
    if (!fn.is_public || !fn.args.empty()) continue;
    std::string why;
    if (grid->size() == 1) {
      (*context)->ClearCheckFailures();
      kiln::vm::InvokeOptions opts;
      opts.collective_timeout = *timeout;
      auto r = (*context)->Invoke(fn.name, {}, opts);
      if (!r.ok()) why = r.status().message();
      else if (!(*context)->check_failures().empty()) why = (*context)->check_failures().front();
    } else {
      kiln::vm::GridRun run;
      run.num_replicas = grid->replicas;
      run.num_partitions = grid->partitions;
      run.functions.assign(grid->size(), fn.name);
      run.inputs.resize(grid->size());
      run.timeout = *timeout;
      auto r = kiln::vm::RunGrid(*module, device->get(), run);
      if (!r.ok()) {
        why = r.status().message();
      } else if (kiln::Status s = r->FirstError(grid->partitions); !s.ok()) {
        why = s.message();
      } else {
        for (size_t id = 0; id < r->processes.size() && why.empty(); ++id)
          if (!r->processes[id].check_failures.empty())
            why = "process " + kiln::vm::ProcessName(static_cast<uint32_t>(id), grid->partitions) + ": " +
                  r->processes[id].check_failures.front();
      }
    }
    if (why.empty()) {
      std::cout << "PASS " << fn.name << "\n";
      ++passed;
    } else {
      std::cout << "FAIL " << fn.name << ": " << why << "\n";
      ++failed;
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

// vm-check MODULE.kiln... [--device=cpu|vulkan] [--stats] [--replicas=N --partitions=M]
//          [--collective-timeout=SECONDS] [--timeout=SECONDS]: runs every public
// function without arguments and evaluates its checks; a public function
// with arguments is listed as skipped. --timeout limits each function: one
// that runs longer fails and the run goes on. With a process grid of more than one
// process (the flags, or the module's mhlo.num_replicas /
// mhlo.num_partitions) each function runs on every grid process and passes
// only if it passes on all of them. Several modules run one after the
// other on one device (a suite of small modules costs one process start,
// which matters under an emulator): each module's lines follow a line
// "== PATH" and end with its summary, and a last line sums them.
#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "hal/cpu/thread_pool.h"
#include "tools/cli/cli.h"

#include "tools/common/distributed.h"
#include "tools/common/parameters_option.h"
#include "tools/common/grid_support.h"
#include "tools/common/guarded_main.h"
#include "tools/common/tool_support.h"
#include "vm/collectives/grid.h"
#include "vm/context.h"

namespace {

// "2 passed, 1 failed", then ", 1 skipped" when a function was skipped.
std::string Summary(int passed, int failed, int skipped) {
  return std::to_string(passed) + " passed, " + std::to_string(failed) + " failed" +
         (skipped ? ", " + std::to_string(skipped) + " skipped" : "") + "\n";
}

// Under mpirun: every rank runs every test function, as its grid process
// when the module's grid has several processes (then it needs exactly that
// many ranks), else as a 1x1 grid whose interpreter.run_parallel grids run
// across the ranks. Rank 0 gathers each function's outcome and prints.
int RunUnderMpi(kiln::tools::Distributed& dist, const std::shared_ptr<const kiln::vm::LoadedModule>& module,
                kiln::hal::Device* device, kiln::vm::Context& context, const kiln::tools::GridShape& grid,
                std::chrono::milliseconds timeout, std::chrono::milliseconds call_timeout) {
  const uint32_t n = static_cast<uint32_t>(dist.size()), id = static_cast<uint32_t>(dist.rank());
  if (grid.size() > 1 && grid.size() != n) {
    if (id == 0)
      std::cerr << "error: the module's process grid of " << grid.replicas << "x" << grid.partitions
                << " needs exactly " << grid.size() << " MPI ranks (mpirun -np " << grid.size() << "); this run has "
                << n << "\n";
    return 1;
  }
  int passed = 0, failed = 0, skipped = 0;
  for (const auto& fn : module->functions) {
    if (!fn.is_public) continue;
    if (!fn.args.empty()) {
      if (id == 0) std::cout << "SKIP " << fn.name << " (takes arguments)\n";
      ++skipped;
      continue;
    }
    kiln::vm::InvokeOptions opts;
    opts.collective_timeout = timeout;
    opts.timeout = call_timeout;
    opts.run_grid = dist.GridRunner(device);
    if (grid.size() > 1) {
      opts.replica_id = id / grid.partitions;
      opts.partition_id = id % grid.partitions;
      opts.grid = std::make_shared<kiln::vm::GridEnvironment>();
      opts.grid->num_replicas = grid.replicas;
      opts.grid->num_partitions = grid.partitions;
      opts.grid->timeout = timeout;
      opts.grid->transport = dist.Transport(grid.replicas, grid.partitions);
    }
    context.ClearCheckFailures();
    auto r = context.Invoke(fn.name, {}, opts);
    std::string why = !r.ok() ? r.status().message()
                              : (context.check_failures().empty() ? "" : context.check_failures().front());
    if (opts.grid) opts.grid->transport->ProcessDone(id, r.ok() ? kiln::Status::Ok() : r.status());
    auto all = dist.Gather(why, timeout);
    if (!all.ok()) {
      why = all.status().message();
    } else {
      why.clear();
      for (size_t k = 0; k < all->size() && why.empty(); ++k)
        if (!(*all)[k].empty()) why = "rank " + std::to_string(k) + ": " + (*all)[k];
    }
    if (id == 0) std::cout << (why.empty() ? "PASS " : "FAIL ") << fn.name << (why.empty() ? "" : ": " + why) << "\n";
    (why.empty() ? passed : failed)++;
  }
  if (id == 0) std::cout << Summary(passed, failed, skipped);
  return failed == 0 ? 0 : 1;
}

struct Counts {
  int passed = 0, failed = 0, skipped = 0;
};

// Runs the test functions of the module at `path` on `device`, printing a
// line per function and the summary; an error (the module does not load,
// its grid or context cannot be made) is printed and returns nullopt.
std::optional<Counts> CheckModule(const std::string& path, kiln::hal::Device* device,
                                  const kiln::vm::LoadOptions& load_options, std::optional<int> replicas,
                                  std::optional<int> partitions, std::chrono::milliseconds timeout,
                                  std::chrono::milliseconds call_timeout) {
  auto fail = [&](const std::string& m) -> std::optional<Counts> {
    std::cout << std::flush;
    std::cerr << "error: " << m << "\n";
    return std::nullopt;
  };
  auto module = kiln::vm::LoadModuleFromFile(path, load_options);
  if (!module.ok()) return fail(module.status().message());
  auto grid = kiln::tools::ResolveGrid(replicas, partitions, **module);
  if (!grid.ok()) return fail(grid.status().message());
  auto context = kiln::vm::Context::Create(*module, device);
  if (!context.ok()) return fail(context.status().message());
  Counts c;
  for (const auto& fn : (*module)->functions) {
    if (!fn.is_public) continue;
    if (!fn.args.empty()) {  // a test takes no arguments; say so rather than leave it out silently
      std::cout << "SKIP " << fn.name << " (takes arguments)\n";
      ++c.skipped;
      continue;
    }
    std::string why;
    if (grid->size() == 1) {
      (*context)->ClearCheckFailures();
      kiln::vm::InvokeOptions opts;
      opts.collective_timeout = timeout;
      opts.timeout = call_timeout;
      auto r = (*context)->Invoke(fn.name, {}, opts);
      if (!r.ok()) why = r.status().message();
      else if (!(*context)->check_failures().empty()) why = (*context)->check_failures().front();
    } else {
      kiln::vm::GridRun run;
      run.num_replicas = grid->replicas;
      run.num_partitions = grid->partitions;
      run.functions.assign(grid->size(), fn.name);
      run.inputs.resize(grid->size());
      run.timeout = timeout;
      run.call_timeout = call_timeout;
      auto r = kiln::vm::RunGrid(*module, device, run);
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
      ++c.passed;
    } else {
      std::cout << "FAIL " << fn.name << ": " << why << "\n";
      ++c.failed;
    }
  }
  std::cout << Summary(c.passed, c.failed, c.skipped);
  return c;
}

int Main(int argc, char** argv) {
  // Under mpirun, MPI starts first (it may consume arguments of its own).
  auto dist = kiln::tools::Distributed::Start(&argc, &argv);
  if (!dist.ok()) {
    std::cerr << "error: " << dist.status().message() << "\n";
    return 1;
  }
  kiln::tools::CommandLine cli("vm-check", "runs the check tests of Kiln modules");
  std::vector<std::string> module_paths;
  std::string device_spec = "cpu";
  bool stats = false;
  int replicas = 0, partitions = 0, threads = 0;
  double timeout_s = 60, call_timeout_s = 0;
  cli.Positionals("modules", &module_paths, "module file (.kiln)");
  cli.Text("--device", &device_spec, "cpu, vulkan or vulkan:N");
  cli.Flag("--stats", &stats, "print the dispatches each device ran");
  cli.Integer("--replicas", &replicas, "replicas in the process grid", 1, 4096, "", "the module's, else 1");
  cli.Integer("--partitions", &partitions, "partitions in the process grid", 1, 4096, "", "the module's, else 1");
  cli.Seconds("--collective-timeout", &timeout_s, "how long a collective waits for its peers", 1e6);
  cli.Seconds("--timeout", &call_timeout_s, "each test function's time limit", 1e6, "none");
  cli.Integer("--threads", &threads, "kernel threads on the cpu device", 0, kiln::hal::ThreadPool::kMaxThreads,
              "0: KILN_THREADS if set, else one per core");
  std::vector<std::string> parameter_files;
  kiln::tools::AddParametersOption(cli, &parameter_files);
  if (auto exit = cli.Parse(argc, argv)) return *exit;

  auto fail = [](const std::string& m) {
    std::cerr << "error: " << m << "\n";
    return 1;
  };
  auto timeout = kiln::tools::CollectiveTimeout(timeout_s);
  if (!timeout.ok()) return fail(timeout.status().message());
  const std::chrono::milliseconds call_timeout(
      cli.Given("--timeout") ? std::max<int64_t>(1, static_cast<int64_t>(call_timeout_s * 1000.0 + 0.5)) : 0);
  auto load_options = kiln::tools::LoadOptionsWithParameters(parameter_files);
  if (!load_options.ok()) return fail(load_options.status().message());
  const std::optional<int> given_replicas = cli.Given("--replicas") ? std::optional<int>(replicas) : std::nullopt;
  const std::optional<int> given_partitions = cli.Given("--partitions") ? std::optional<int>(partitions) : std::nullopt;
  if ((*dist)->active()) {
    if (module_paths.size() != 1) return fail("under mpirun vm-check runs one module, not " + std::to_string(module_paths.size()));
    auto module = kiln::vm::LoadModuleFromFile(module_paths[0], *load_options);
    if (!module.ok()) return fail(module.status().message());
    auto grid = kiln::tools::ResolveGrid(given_replicas, given_partitions, **module);
    if (!grid.ok()) return fail(grid.status().message());
    auto device = kiln::tools::CreateDevice(device_spec, threads);
    if (!device.ok()) return fail(device.status().message());
    auto context = kiln::vm::Context::Create(*module, device->get());
    if (!context.ok()) return fail(context.status().message());
    return RunUnderMpi(**dist, *module, device->get(), **context, *grid, *timeout, call_timeout);
  }
  auto device = kiln::tools::CreateDevice(device_spec, threads);
  if (!device.ok()) return fail(device.status().message());
  const bool several = module_paths.size() > 1;
  Counts total;
  int unrun = 0;
  for (const std::string& path : module_paths) {
    if (several) std::cout << "== " << path << "\n";
    auto c = CheckModule(path, device->get(), *load_options, given_replicas, given_partitions, *timeout, call_timeout);
    if (!c) {
      ++unrun;
      continue;
    }
    total.passed += c->passed;
    total.failed += c->failed;
    total.skipped += c->skipped;
  }
  if (stats) {
    auto s = (*device)->stats();
    std::cout << "stats: device " << (*device)->name() << " dispatches " << s.dispatches << " submissions "
              << s.submissions << "\n";
  }
  if (several)
    std::cout << module_paths.size() << " modules" << (unrun ? " (" + std::to_string(unrun) + " could not run)" : "")
              << ": " << Summary(total.passed, total.failed, total.skipped);
  return total.failed == 0 && unrun == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return kiln::tools::GuardedMain("vm-check", [&] { return Main(argc, argv); });
}

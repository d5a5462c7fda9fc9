// vm-run OUT.kiln [--function=NAME] [--device=cpu|vulkan[:N]] [--input=...]... [--output=@file.npy]...
//        [--expected-output=...]... [--atol=X] [--rtol=X] [--profile] [--trace=FILE]
//        [--replicas=N --partitions=M] [--collective-timeout=SECONDS] [--timeout=SECONDS] [--max-memory=SIZE]
//        [--compare-with=reference|cpu [--compare-repro-dir=DIR] [--compare-source=FILE]]
//
// --expected-output (one per result, in order, written like an --input
// value) compares each result with a golden tensor (tools/common/
// expected_output.h) and exits 1 at a mismatch, naming the first element
// that differs.
//
// --compare-with=reference (cpu device) runs every dispatch on the reference
// kernels too, =cpu (vulkan device) on the CPU kernels, and reports the
// first that differs, with a repro directory (tools/common/compare_option.h);
// exit 1 where one differs.
//
// With a process grid of more than one process (the flags, or the module's
// mhlo.num_replicas / mhlo.num_partitions), the function runs on every grid
// process, each in its own VM context on its own thread. Inputs are shared,
// or per process where their text names {replica}, {partition} or
// {process}; results are printed per process under "process (r, p):".
#include <algorithm>
#include <iostream>
#include <limits>

#include "hal/cpu/thread_pool.h"
#include "tools/cli/cli.h"

#include "tools/common/byte_size.h"
#include "tools/common/compare_option.h"
#include "tools/common/distributed.h"
#include "tools/common/expected_output.h"
#include "tools/common/input_parse.h"
#include "tools/common/parameters_option.h"
#include "tools/common/profiling.h"
#include "tools/common/stepping_device.h"
#include "tools/common/grid_support.h"
#include "tools/common/guarded_main.h"
#include "tools/common/tool_support.h"
#include "vm/collectives/grid.h"
#include "vm/context.h"
#if KILN_HAVE_REPRO_MLIR
#include "tools/compare/repro_mlir.h"
#endif

namespace {

int Fail(const std::string& message) {
  std::cerr << "error: " << message << "\n";
  return 1;
}

// Prints or writes one process's results; false on an error. `header`
// ("process (r, p):") comes before printed results; results written to
// files print nothing.
bool Emit(const std::vector<kiln::vm::HostTensor>& results, const std::vector<std::string>& outputs,
          uint32_t r, uint32_t p, uint32_t partitions, int print_max, const std::string& header = "") {
  if (!outputs.empty() && outputs.size() != results.size()) {  // checked before the run; kept as a guard
    std::cerr << "error: " << kiln::tools::Count(results.size(), "result") << " but "
              << kiln::tools::Count(outputs.size(), "--output file") << "\n";
    return false;
  }
  if (outputs.empty() && !header.empty()) std::cout << header << "\n";
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

// The golden checks of one process's results: true when every expected
// output matches (or none was given); mismatches go to stderr.
bool CheckExpected(const std::vector<kiln::vm::HostTensor>& results, const std::vector<kiln::vm::HostTensor>& expected,
                   const kiln::tools::Tolerance& tol, const std::string& process = "") {
  bool ok = true;
  for (size_t i = 0; i < expected.size() && i < results.size(); ++i) {
    auto s = kiln::tools::CompareWithExpected(results[i], expected[i], tol, i);
    if (!s.ok()) {
      std::cerr << "error: " << (process.empty() ? "" : "process " + process + ": ") << s.message() << "\n";
      ok = false;
    }
  }
  if (ok && !expected.empty())
    std::cerr << (process.empty() ? "" : "process " + process + ": ") << kiln::tools::Count(expected.size(), "result")
              << " matched the expected output" << (expected.size() == 1 ? "" : "s") << "\n";
  return ok;
}

bool NamesProcess(const std::string& text) {
  return text.find("{replica}") != std::string::npos || text.find("{partition}") != std::string::npos ||
         text.find("{process}") != std::string::npos;
}

// What can be known wrong before running: the function (it must exist and
// be public, as in the C API), the number of --output files, and, in a grid
// of several processes, an --output every process would write.
kiln::Status CheckRun(const kiln::vm::LoadedModule& module, const std::string& function,
                      const std::vector<std::string>& outputs, size_t expected, uint32_t processes) {
  int f = module.FindFunction(function);
  std::string publics;
  for (const auto& fn : module.functions)
    if (fn.is_public) publics += (publics.empty() ? "" : ", ") + fn.name;
  if (publics.empty()) publics = "none";
  if (f < 0)
    return kiln::InvalidArgument("no function named '" + function + "' in the module (its public functions: " +
                                 publics + ")");
  const auto& fn = module.functions[f];
  if (!fn.is_public)
    return kiln::InvalidArgument("function '" + function +
                                 "' is private: only the module's public functions can be run (" + publics + ")");
  if (!outputs.empty() && outputs.size() != fn.results.size())
    return kiln::InvalidArgument("function '" + function + "' has " + kiln::tools::Count(fn.results.size(), "result") +
                                 ", but " + kiln::tools::Count(outputs.size(), "--output file") +
                                 (outputs.size() == 1 ? " was given" : " were given"));
  if (expected > 0 && expected != fn.results.size())
    return kiln::InvalidArgument("function '" + function + "' has " + kiln::tools::Count(fn.results.size(), "result") +
                                 ", but " + kiln::tools::Count(expected, "--expected-output") +
                                 (expected == 1 ? " was given" : " were given"));
  if (processes > 1)
    for (const auto& o : outputs)
      if (!NamesProcess(o))
        return kiln::InvalidArgument("--output '" + o + "' would be written by all " + std::to_string(processes) +
                                     " processes of the grid: name a file per process with {replica}, {partition} "
                                     "or {process}");
  return kiln::Status::Ok();
}

// repro.mlir of --compare-with, where vm-run has the compiler's parser.
kiln::tools::ReproMlirBuilder ReproBuilder() {
#if KILN_HAVE_REPRO_MLIR
  return [](const std::string& source, const std::string& file_name, const kiln::tools::DispatchMismatch& m,
            kiln::tools::ReproFiles* files) -> kiln::Status {
    auto program = kiln::tools::BuildReproMlir(source, file_name, m.function, m.line, m.col, m.inputs);
    if (!program.ok()) return program.status();
    files->mlir = program->mlir;
    files->num_args = program->num_args;
    return kiln::Status::Ok();
  };
#else
  return nullptr;
#endif
}

std::chrono::milliseconds Millis(double seconds) {
  return std::chrono::milliseconds(std::max<int64_t>(1, static_cast<int64_t>(seconds * 1000.0 + 0.5)));
}

int Main(int argc, char** argv) {
  // Under mpirun, MPI starts first (it may consume arguments of its own).
  auto dist = kiln::tools::Distributed::Start(&argc, &argv);
  if (!dist.ok()) return Fail(dist.status().message());
  kiln::tools::CommandLine cli("vm-run", "runs a function of a Kiln module");
  std::string module_path, function = "main", device_spec = "cpu";
  std::vector<std::string> inputs, outputs, expected_texts;
  kiln::tools::Tolerance tolerance;
  int threads = 0, replicas = 0, partitions = 0;
  double collective_timeout_s = 60, timeout_s = 0;
  bool list_devices = false;
  cli.Positional("module", &module_path, "module file (.kiln)", false);
  cli.Text("--function", &function, "the public function to run");
  cli.Text("--device", &device_spec, "cpu, vulkan or vulkan:N");
  cli.Repeated("--input", &inputs,
               "an input: 2x3xf32=1,2,3,4,5,6 | f32=7 | @x.npy; {replica}, {partition}, {process} make it per process");
  cli.Repeated("--output", &outputs, "write a result to @file.npy (one per result; placeholders as for --input)");
  cli.Repeated("--expected-output", &expected_texts,
               "a golden result, written like --input (one per result): exit 1 where a result differs");
  cli.Real("--atol", &tolerance.atol, "absolute tolerance of --expected-output for float and complex results", 0, 1e300);
  cli.Real("--rtol", &tolerance.rtol, "relative tolerance of --expected-output for float and complex results", 0, 1e300);
  cli.Integer("--threads", &threads, "kernel threads on the cpu device", 0, kiln::hal::ThreadPool::kMaxThreads,
              "0: KILN_THREADS if set, else one per core");
  cli.Integer("--replicas", &replicas, "replicas in the process grid", 1, 4096, "", "the module's, else 1");
  cli.Integer("--partitions", &partitions, "partitions in the process grid", 1, 4096, "", "the module's, else 1");
  cli.Seconds("--collective-timeout", &collective_timeout_s, "how long a collective waits for its peers", 1e6);
  cli.Seconds("--timeout", &timeout_s, "the run's time limit", 1e6, "none");
  std::string max_memory_text;
  cli.Text("--max-memory", &max_memory_text,
           "the device memory the run may hold at once (512M, 2G): a module declaring more is refused, a run "
           "needing more is stopped");
  cli.Flag("--list-devices", &list_devices, "list the available devices");
  int print_max = -1;
  cli.Integer("--print-max-elements", &print_max, "print at most N elements of each result", 0,
              std::numeric_limits<int>::max(), "", "all");
  std::vector<std::string> parameter_files;
  kiln::tools::AddParametersOption(cli, &parameter_files);
  kiln::tools::ProfilingFlags profiling;
  profiling.Add(cli);
  kiln::tools::CompareFlags compare;
  compare.Add(cli);
  if (auto exit = cli.Parse(argc, argv)) return *exit;

  if (list_devices) {
    for (const auto& d : kiln::tools::ListDevices()) std::cout << d << "\n";
    return 0;
  }
  if (module_path.empty()) return Fail("vm-run needs a module file (.kiln) ('vm-run --help' shows the usage)");
  auto timeout = kiln::tools::CollectiveTimeout(collective_timeout_s);
  if (!timeout.ok()) return Fail(timeout.status().message());
  const std::chrono::milliseconds call_timeout = cli.Given("--timeout") ? Millis(timeout_s) : std::chrono::milliseconds(0);
  auto load_options = kiln::tools::LoadOptionsWithParameters(parameter_files);
  if (!load_options.ok()) return Fail(load_options.status().message());
  auto module = kiln::vm::LoadModuleFromFile(module_path, *load_options);
  if (!module.ok()) return Fail(module.status().message());
  auto grid = kiln::tools::ResolveGrid(cli.Given("--replicas") ? std::optional<int>(replicas) : std::nullopt,
                                       cli.Given("--partitions") ? std::optional<int>(partitions) : std::nullopt, **module);
  if (!grid.ok()) return Fail(grid.status().message());
  if (auto s = CheckRun(**module, function, outputs, expected_texts.size(), grid->size()); !s.ok())
    return Fail(s.message());
  if (profiling.on() && (grid->size() > 1 || (*dist)->active()))
    return Fail("--trace and --profile profile a run of one process, not a grid of " + std::to_string(grid->size()));
  std::vector<kiln::vm::HostTensor> expected;
  for (const auto& text : expected_texts) {
    const int f = (*module)->FindFunction(function);
    const auto& sig = (*module)->functions[f].results[expected.size()];
    auto t = kiln::tools::ParseInput(text, sig.kind == kiln::vm::ValueSig::Kind::kTensor ? sig.type
                                                                                        : kiln::ElementType::kInvalid);
    if (!t.ok()) return Fail("--expected-output " + std::to_string(expected.size()) + ": " + t.status().message());
    expected.push_back(std::move(*t));
  }
  auto device = kiln::tools::CreateDevice(device_spec, threads);
  if (!device.ok()) return Fail(device.status().message());
  if (cli.Given("--max-memory")) {
    auto limit = kiln::tools::ParseByteSize("--max-memory", max_memory_text);
    if (!limit.ok()) return Fail(limit.status().message());
    (*device)->allocation_gate().set_limit(*limit);
  }
  if (auto s = compare.Check((*device)->name(), (*dist)->active() ? 2 : grid->size()); !s.ok()) return Fail(s.message());
  // The Vulkan device reports no dispatches: run its work one dispatch at a time.
  if (compare.with == "cpu") *device = kiln::tools::MakeSteppingDevice(std::move(*device));

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
    opts.timeout = call_timeout;
    auto results = (*context)->Invoke(function, args[id], opts);
    env->transport->ProcessDone(id, results.ok() ? kiln::Status::Ok() : results.status());
    std::string name = kiln::vm::ProcessName(id, grid->partitions);
    if (!results.ok()) return Fail("process " + name + ": " + results.status().message());
    if (!Emit(*results, outputs, opts.replica_id, opts.partition_id, grid->partitions, print_max,
              "process " + name + ":"))
      return 1;
    for (const auto& f : (*context)->check_failures()) std::cerr << "check failed in process " << name << ": " << f << "\n";
    const bool matched = CheckExpected(*results, expected, tolerance, name);
    return (*context)->check_failures().empty() && matched ? 0 : 1;
  }

  for (uint32_t id = 0; id < grid->size(); ++id)
    if (auto s = parse_inputs(id); !s.ok()) return Fail(s.message());

  if (grid->size() == 1) {
    auto context = kiln::vm::Context::Create(*module, device->get());
    if (!context.ok()) return Fail(context.status().message());
    kiln::vm::InvokeOptions opts;
    opts.collective_timeout = *timeout;
    opts.timeout = call_timeout;
    const auto profiler = profiling.Start(*module, device->get());
    opts.profiler = profiler.get();
    std::shared_ptr<kiln::tools::DispatchComparer> comparer;
    std::shared_ptr<kiln::vm::Profiler> tagger;  // the VM tags dispatches with their instruction for a profiler
    if (compare.on()) {
      kiln::tools::CompareTolerance tol;
      if (cli.Given("--atol")) tol.atol = tolerance.atol;
      if (cli.Given("--rtol")) tol.rtol = tolerance.rtol;
      auto c = compare.Start(*module, device->get(), tol, profiler);
      if (!c.ok()) return Fail(c.status().message());
      comparer = *c;
      if (!profiler) tagger = std::make_shared<kiln::vm::Profiler>(*module, (*device)->name());
      if (!profiler) opts.profiler = tagger.get();
    }
    auto results = (*context)->Invoke(function, args[0], opts);
    if (profiler || comparer) (*device)->SetDispatchObserver(nullptr);
    if (!results.ok()) {
      // A dispatch that differed before the failure may be its cause.
      if (comparer && comparer->mismatch()) compare.Finish(*comparer, **module, module_path, outputs, ReproBuilder());
      return Fail(results.status().message());
    }
    if (!Emit(*results, outputs, 0, 0, 1, print_max)) return 1;
    if (profiler)
      if (auto s = profiling.Finish(*profiler); !s.ok()) return Fail(s.message());
    for (const auto& f : (*context)->check_failures()) std::cerr << "check failed: " << f << "\n";
    const bool matched = CheckExpected(*results, expected, tolerance);
    const bool same = !comparer || compare.Finish(*comparer, **module, module_path, outputs, ReproBuilder());
    return (*context)->check_failures().empty() && matched && same ? 0 : 1;
  }

  kiln::vm::GridRun run;
  run.num_replicas = grid->replicas;
  run.num_partitions = grid->partitions;
  run.functions.assign(grid->size(), function);
  run.inputs = std::move(args);
  run.timeout = *timeout;
  run.call_timeout = call_timeout;
  auto result = kiln::vm::RunGrid(*module, device->get(), run);
  if (!result.ok()) return Fail(result.status().message());
  int status = 0;
  for (uint32_t id = 0; id < grid->size(); ++id) {
    const auto& p = result->processes[id];
    uint32_t r = id / grid->partitions, q = id % grid->partitions;
    if (!p.status.ok()) {
      std::cerr << "error: process " << kiln::vm::ProcessName(id, grid->partitions) << ": " << p.status.message() << "\n";
      status = 1;
      continue;
    }
    if (!Emit(p.results, outputs, r, q, grid->partitions, print_max, "process " + kiln::vm::ProcessName(id, grid->partitions) + ":"))
      status = 1;
    for (const auto& f : p.check_failures) {
      std::cerr << "check failed in process " << kiln::vm::ProcessName(id, grid->partitions) << ": " << f << "\n";
      status = 1;
    }
    if (!CheckExpected(p.results, expected, tolerance, kiln::vm::ProcessName(id, grid->partitions))) status = 1;
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  return kiln::tools::GuardedMain("vm-run", [&] { return Main(argc, argv); });
}

// vm-bench OUT.kiln [--function=NAME] [--device=...] [--input=...] [--iterations=N] [--warmup=N]
// [--timeout=SECONDS] [--stats] [--profile] [--trace=FILE]: times repeated
// invocations after warm-up; prints min/median/max. --timeout limits each
// invocation; --stats adds the memory figures of docs/memory.md; --profile
// and --trace profile the timed invocations (tools/common/profiling.h),
// which then pay for the timing of each dispatch.
#include <algorithm>
#include <chrono>
#include <climits>
#include <sys/resource.h>
#include <cstdio>
#include <iostream>

#include "hal/cpu/thread_pool.h"
#include "tools/cli/cli.h"
#include "tools/common/guarded_main.h"
#include "tools/common/parameters_option.h"
#include "tools/common/profiling.h"
#include "tools/common/tool_support.h"
#include "vm/context.h"

namespace {

int Main(int argc, char** argv) {
  kiln::tools::CommandLine cli("vm-bench", "times a function of a Kiln module");
  std::string path, function = "main", device_spec = "cpu";
  std::vector<std::string> inputs;
  int iterations = 20, warmup = 3, threads = 0;
  double timeout_s = 0;
  bool stats = false;
  cli.Positional("module", &path, "module file (.kiln)", true);
  cli.Text("--function", &function, "the public function to time");
  cli.Text("--device", &device_spec, "cpu, vulkan or vulkan:N");
  cli.Repeated("--input", &inputs, "an input, as for vm-run");
  cli.Integer("--iterations", &iterations, "timed invocations", 1, INT_MAX);
  cli.Integer("--warmup", &warmup, "untimed invocations first", 0, INT_MAX);
  cli.Integer("--threads", &threads, "kernel threads on the cpu device", 0, kiln::hal::ThreadPool::kMaxThreads,
              "0: KILN_THREADS if set, else one per core");
  cli.Seconds("--timeout", &timeout_s, "each invocation's time limit", 1e6, "none");
  cli.Flag("--stats", &stats,
           "also print the function's arena bytes, the device memory's high-water mark and the process's peak RSS");
  std::vector<std::string> parameter_files;
  kiln::tools::AddParametersOption(cli, &parameter_files);
  kiln::tools::ProfilingFlags profiling;
  profiling.Add(cli);
  if (auto exit = cli.Parse(argc, argv)) return *exit;
  auto fail = [](const kiln::Status& s) {
    std::cerr << "error: " << s.message() << "\n";
    return 1;
  };
  auto load_options = kiln::tools::LoadOptionsWithParameters(parameter_files);
  if (!load_options.ok()) return fail(load_options.status());
  auto module = kiln::vm::LoadModuleFromFile(path, *load_options);
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
  kiln::vm::InvokeOptions options;
  if (cli.Given("--timeout"))
    options.timeout = std::chrono::milliseconds(std::max<int64_t>(1, static_cast<int64_t>(timeout_s * 1000.0 + 0.5)));
  const auto profiler = profiling.Start(*module, device->get());
  std::vector<double> ms;
  // One results vector for every call, as an application calling in a loop
  // would keep it: each call's results land in the storage of the last's.
  std::vector<kiln::vm::HostTensor> results;
  for (int64_t i = 0; i < int64_t{warmup} + iterations; ++i) {
    if (profiler && i == warmup) {  // profile the timed invocations only
      profiler->Clear();
      options.profiler = profiler.get();
    }
    auto t0 = std::chrono::steady_clock::now();
    kiln::Status r = (*context)->Invoke(function, args, options, &results);
    auto t1 = std::chrono::steady_clock::now();
    if (!r.ok()) return fail(r);
    if (i >= warmup) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%s on %s: %d runs, min %.4f ms, median %.4f ms, max %.4f ms\n", function.c_str(),
              (*device)->name().c_str(), iterations, ms.front(), ms[ms.size() / 2], ms.back());
  if (profiler) {
    (*device)->SetDispatchObserver(nullptr);
    if (auto s = profiling.Finish(*profiler); !s.ok()) return fail(s);
  }
  if (stats) {
    // The arena of one activation of the timed function (its callees take
    // their own); the device's buffers at most alive at once, arenas and
    // pool allocations alike (on the cpu device, the buffer pool's
    // high-water mark); and ru_maxrss, which Linux reports in KiB.
    uint64_t arena = 0;
    for (const auto& f : (*module)->functions)
      if (f.name == function) arena = f.arena_bytes;
    const kiln::hal::DeviceStats ds = (*device)->stats();
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    std::printf(
        "stats: arena %llu bytes; device memory high-water %llu bytes (live now %llu); kernel state %llu bytes; "
        "peak RSS %lld KiB\n",
        static_cast<unsigned long long>(arena), static_cast<unsigned long long>(ds.peak_live_bytes),
        static_cast<unsigned long long>(ds.live_bytes), static_cast<unsigned long long>(ds.kernel_state_bytes),
        static_cast<long long>(ru.ru_maxrss));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return kiln::tools::GuardedMain("vm-bench", [&] { return Main(argc, argv); });
}

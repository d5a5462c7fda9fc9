// What profiling costs when it is off (docs/performance.md, "Profiling
// off"), side by side in one run. Off is the normal path: the interpreter
// tests one pointer per dispatch (InvokeOptions::profiler) and the CPU
// device loads one relaxed atomic per submission and tests a null
// shared_ptr per command (hal/cpu/cpu_device.cc, Execute). There is no
// build without those checks, so this measures
//   - Call/<program>/off: Context::Invoke with no profiler (what every app runs);
//   - Call/<program>/on:  the same with a vm::Profiler attached (each dispatch
//     timed and described), to show what the checks guard;
//   - OffChecks: exactly those checks, per dispatch, with one submission per
//     dispatch (the most there can be), so their share of a call is
//     dispatches x OffChecks / Call/off.
// Programs: add4 (one dispatch on tensor<4xf32>: the smallest call), chain64
// (64 dependent adds on tensor<4xf32>, unfused: 64 dispatches of almost no
// work, where a per-dispatch cost shows most) and mlp1 (examples/mlp.mlir at
// batch 1, when generated). One CPU thread, so the pool's wake-ups do not
// add noise; the driver mode from KILN_CPU_MODE as the tools take it.
//   ninja -C build kiln-profiling-bench
//   python3 examples/gen_mlp.py examples/mlp.mlir   # for the mlp1 rows
//   ./build/kiln-profiling-bench --benchmark_repetitions=10 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "hal/trace.h"
#include "vm/context.h"
#include "vm/profiler.h"

#ifndef KILN_SOURCE_DIR
#define KILN_SOURCE_DIR "."
#endif

namespace kiln {
namespace {

std::string ReadSource(const std::string& relative) {
  std::ifstream f(std::string(KILN_SOURCE_DIR) + "/" + relative);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// `n` dependent adds of tensor<4xf32>: with fusion off, n dispatches.
std::string ChainSource(int n) {
  std::string s = "func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n  %v0 = stablehlo.add %a, %b : tensor<4xf32>\n";
  for (int i = 1; i < n; ++i)
    s += "  %v" + std::to_string(i) + " = stablehlo.add %v" + std::to_string(i - 1) + ", %b : tensor<4xf32>\n";
  return s + "  return %v" + std::to_string(n - 1) + " : tensor<4xf32>\n}\n";
}

struct Program {
  std::shared_ptr<const vm::LoadedModule> module;
  std::vector<vm::HostTensor> inputs;
  std::string error;
};

const Program& Get(const std::string& name) {
  static std::map<std::string, Program> programs;
  auto it = programs.find(name);
  if (it != programs.end()) return it->second;
  Program& p = programs[name];
  std::string source;
  if (name == "add4") source = ChainSource(1);
  if (name == "chain64") source = ChainSource(64);
  if (name == "mlp1") source = ReadSource("examples/mlp.mlir");
  if (source.empty()) {
    p.error = "source not found (examples/mlp.mlir: run examples/gen_mlp.py examples/mlp.mlir)";
    return p;
  }
  compiler::CompileOptions options;
  options.target = "cpu";
  options.fuse = false;  // chain64 keeps its 64 dispatches
  std::vector<std::string> warnings;
  auto bytes = compiler::Compile(source, name + ".mlir", options, &warnings);
  if (!bytes.ok()) {
    p.error = bytes.status().message();
    return p;
  }
  auto module = vm::LoadModule(std::move(bytes.value()));
  if (!module.ok()) {
    p.error = module.status().message();
    return p;
  }
  p.module = *module;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (const auto& sig : p.module->functions[p.module->FindFunction("main")].args) {
    vm::HostTensor t;
    t.type = sig.type;
    t.dims = sig.dims;
    std::vector<float> v(t.NumElements());
    for (float& x : v) x = u(rng);
    t.data.resize(v.size() * 4);
    std::memcpy(t.data.data(), v.data(), t.data.size());
    p.inputs.push_back(std::move(t));
  }
  return p;
}

// One call of @main per iteration, the results' storage reused (as vm-bench
// and the C API call in a loop). `on`: a profiler records every call and
// dispatch; it is cleared every 1024 calls so its memory stays bounded
// (the clearing is timed with the rest, a small part of the "on" cost).
void BM_Call(benchmark::State& state, const std::string& name, bool on) {
  const Program& p = Get(name);
  if (!p.error.empty()) return state.SkipWithError(p.error.c_str());
  std::unique_ptr<hal::Device> device = hal::CreateCpuDevice(hal::CpuModeFromEnvironment(), 1);
  auto ctx = vm::Context::Create(p.module, device.get());
  if (!ctx.ok()) return state.SkipWithError(ctx.status().message().c_str());
  std::shared_ptr<vm::Profiler> profiler;
  vm::InvokeOptions options;
  if (on) {
    profiler = std::make_shared<vm::Profiler>(p.module, "cpu");
    if (!device->SetDispatchObserver(profiler)) return state.SkipWithError("the device takes no observer");
    options.profiler = profiler.get();
  }
  std::vector<vm::HostTensor> results;
  size_t calls = 0;
  for (auto _ : state) {
    Status s = (*ctx)->Invoke("main", p.inputs, options, &results);
    if (!s.ok()) return state.SkipWithError(s.message().c_str());
    benchmark::DoNotOptimize(results.data());
    if (on && ++calls % 1024 == 0) profiler->Clear();
  }
  if (on) device->SetDispatchObserver(nullptr);
  // Dispatches per call, from a profiled call (the same for off and on).
  auto counter = std::make_shared<vm::Profiler>(p.module, "cpu");
  device->SetDispatchObserver(counter);
  vm::InvokeOptions counted;
  counted.profiler = counter.get();
  (void)(*ctx)->Invoke("main", p.inputs, counted, &results);
  device->SetDispatchObserver(nullptr);
  state.counters["dispatches"] = static_cast<double>(counter->dispatch_count());
}

// The checks the off path makes, per dispatch, as the interpreter and the
// CPU device make them, with one submission per dispatch. DoNotOptimize's
// memory clobber makes each load happen every time, as it does in the VM,
// where other code runs between them.
void BM_OffChecks(benchmark::State& state) {
  vm::InvokeOptions options;                     // profiler: nullptr
  std::atomic<bool> has_observer{false};
  std::shared_ptr<hal::DispatchObserver> stored;  // never set
  uint64_t tags = 0, timed = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(&options);
    if (options.profiler) ++tags;  // vm/interpreter.cc: TagNextDispatch
    benchmark::DoNotOptimize(&has_observer);
    const std::shared_ptr<hal::DispatchObserver> observer =
        has_observer.load(std::memory_order_relaxed) ? std::atomic_load(&stored) : nullptr;
    benchmark::DoNotOptimize(observer.get());
    if (observer) ++timed;  // before the command
    if (observer) ++timed;  // after it
  }
  benchmark::DoNotOptimize(tags);
  benchmark::DoNotOptimize(timed);
}

BENCHMARK(BM_OffChecks);
BENCHMARK_CAPTURE(BM_Call, add4_off, std::string("add4"), false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Call, add4_on, std::string("add4"), true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Call, chain64_off, std::string("chain64"), false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Call, chain64_on, std::string("chain64"), true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Call, mlp1_off, std::string("mlp1"), false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Call, mlp1_on, std::string("mlp1"), true)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace kiln

BENCHMARK_MAIN();

// The invocation path, side by side in one run (docs/performance.md, "The
// call path"): for each program, the machine's copy bandwidth over the bytes
// of its inputs and outputs (memcpy), its kernel alone (its one dispatch,
// submitted on buffers allocated once), and the whole call (Context::Invoke
// on host tensors with the results vector reused, as vm-bench runs it; and
// kiln_session_call through the C API).
//   cmake -S . -B build-bench -G Ninja -DKILN_BUILD_BENCHMARKS=ON && cmake --build build-bench --target kiln-callpath-bench
//   python3 examples/gen_mlp.py examples/mlp.mlir   # for the MLP rows
//   ./build-bench/kiln-callpath-bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Programs: a 16M-element f32 add (64 MB in twice, 64 MB out), the
// elementwise chain of benchmarks/programs/elementwise_chain.mlir, the
// same chain at 16M elements, the MLP of examples/mlp.mlir at batch 1, and
// an add of two tensor<4xf32> (the per-call overhead). Threads: the CPU
// driver's default (KILN_THREADS, else one per core).
#include <benchmark/benchmark.h>

#include <cstdio>
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
#include "vm/context.h"
#include "vm/kiln.h"

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

std::string AddSource(int64_t n) {
  const std::string t = "tensor<" + std::to_string(n) + "xf32>";
  return "func.func @main(%a: " + t + ", %b: " + t + ") -> " + t + " {\n  %0 = stablehlo.add %a, %b : " + t +
         "\n  return %0 : " + t + "\n}\n";
}

// The chain of elementwise_chain.mlir at another size.
std::string ChainSource(int64_t n) {
  std::string s = ReadSource("benchmarks/programs/elementwise_chain.mlir");
  for (size_t at; (at = s.find("1048576")) != std::string::npos;) s.replace(at, 7, std::to_string(n));
  return s;
}

struct Program {
  std::shared_ptr<const vm::LoadedModule> module;
  std::vector<vm::HostTensor> inputs;
  size_t output_bytes = 0;
  std::string error;
};

// Compiles `source` and makes random inputs of its @main's argument shapes.
Program Make(const std::string& source, const std::string& function) {
  Program p;
  if (source.empty()) {
    p.error = "source not found (examples/mlp.mlir: run examples/gen_mlp.py examples/mlp.mlir)";
    return p;
  }
  std::vector<std::string> warnings;
  compiler::CompileOptions options;
  options.target = "cpu";
  auto bytes = compiler::Compile(source, "bench.mlir", options, &warnings);
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
  const int f = p.module->FindFunction(function);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  for (const auto& sig : p.module->functions[f].args) {
    vm::HostTensor t;
    t.type = sig.type;
    t.dims = sig.dims;
    std::vector<float> v(t.NumElements());
    for (float& x : v) x = u(rng);
    t.data.resize(v.size() * 4);
    std::memcpy(t.data.data(), v.data(), t.data.size());
    p.inputs.push_back(std::move(t));
  }
  for (const auto& sig : p.module->functions[f].results) {
    int64_t n = 1;
    for (int64_t d : sig.dims) n *= d;
    p.output_bytes += static_cast<size_t>(n) * StorageBytes(sig.type);
  }
  return p;
}

const Program& Get(const std::string& name) {
  static std::map<std::string, Program> programs;
  auto it = programs.find(name);
  if (it != programs.end()) return it->second;
  std::string source, function = "main";
  if (name == "add16M") source = AddSource(1 << 24);
  if (name == "add4") source = AddSource(4);
  if (name == "chain1M") source = ReadSource("benchmarks/programs/elementwise_chain.mlir");
  if (name == "chain16M") source = ChainSource(1 << 24);
  if (name == "mlp1") source = ReadSource("examples/mlp.mlir");
  return programs[name] = Make(source, function);
}

size_t InputBytes(const Program& p) {
  size_t n = 0;
  for (const auto& t : p.inputs) n += t.data.size();
  return n;
}

// One copy of the inputs and the outputs: memcpy over as many bytes, from
// and to memory touched before the loop, on one thread.
void BM_Copy(benchmark::State& state, const std::string& name) {
  const Program& p = Get(name);
  if (!p.error.empty()) return state.SkipWithError(p.error.c_str());
  const size_t bytes = InputBytes(p) + p.output_bytes;
  std::vector<uint8_t> from(bytes, 1), to(bytes, 2);
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), bytes);
    benchmark::DoNotOptimize(to.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes));
}

// The program's one dispatch alone: its executable on the CPU device, input
// and output buffers allocated once, submitted and waited for each time.
void BM_Kernel(benchmark::State& state, const std::string& name) {
  const Program& p = Get(name);
  if (!p.error.empty()) return state.SkipWithError(p.error.c_str());
  if (p.module->executables.size() != 1) return state.SkipWithError("not a one-dispatch program");
  auto device = hal::CreateCpuDevice(hal::CpuMode::kInline);
  hal::ExecutableSpec spec{p.module->executables[0].kernel, {}};
  spec.Add(kKernelFormat, std::shared_ptr<const KernelParams>(p.module, &p.module->executables[0]));
  auto exe = device->PrepareExecutable(spec);
  if (!exe.ok()) return state.SkipWithError(exe.status().message().c_str());
  std::vector<hal::BufferView> ins;
  for (const auto& t : p.inputs) {
    auto b = device->AllocateCopy(t.data.data(), t.data.size());
    ins.push_back(hal::BufferView{t.type, t.dims, *b, 0});
  }
  const auto& result = p.module->functions[p.module->FindFunction("main")].results[0];
  auto out = device->Allocate(p.output_bytes);
  const hal::BufferView out_view{result.type, result.dims, *out, 0};
  auto timeline = device->CreateSemaphore(0);
  uint64_t value = 0;
  for (int64_t i = -1; i < 0 || state.KeepRunning(); ++i) {  // i = -1: an untimed warm-up dispatch
    auto cb = device->CreateCommandBuffer();
    cb->Dispatch(*exe, ins, {out_view});
    ++value;
    Status s = device->Submit(std::move(cb), {}, hal::SemaphorePoint{timeline, value});
    if (s.ok()) s = timeline->Wait(value, std::chrono::hours(1));
    if (!s.ok()) return state.SkipWithError(s.message().c_str());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(InputBytes(p) + p.output_bytes));
}

// The whole call: Context::Invoke on host tensors (inputs read in place),
// results copied into the vector of the call before (vm-bench's loop).
void BM_Call(benchmark::State& state, const std::string& name) {
  const Program& p = Get(name);
  if (!p.error.empty()) return state.SkipWithError(p.error.c_str());
  auto device = hal::CreateCpuDevice(hal::CpuMode::kInline);
  auto context = vm::Context::Create(p.module, device.get());
  if (!context.ok()) return state.SkipWithError(context.status().message().c_str());
  // One untimed call first, as vm-bench's warm-up: the first call faults in
  // the pool's blocks and the results' storage, which later calls reuse.
  std::vector<vm::HostTensor> results;
  if (Status s = (*context)->Invoke("main", p.inputs, {}, &results); !s.ok())
    return state.SkipWithError(s.message().c_str());
  for (auto _ : state) {
    Status s = (*context)->Invoke("main", p.inputs, {}, &results);
    if (!s.ok()) return state.SkipWithError(s.message().c_str());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(InputBytes(p) + p.output_bytes));
}

// The same through the C API: kiln_session_call on the caller's memory,
// then kiln_results_free (whose storage the next call's results reuse).
void BM_CApiCall(benchmark::State& state, const std::string& name) {
  const Program& p = Get(name);
  if (!p.error.empty()) return state.SkipWithError(p.error.c_str());
  // The C API loads module files: the compiled module again, from memory.
  std::vector<std::string> warnings;
  compiler::CompileOptions options;
  options.target = "cpu";
  std::string source = name == "add16M" ? AddSource(1 << 24)
                       : name == "add4" ? AddSource(4)
                       : name == "chain16M" ? ChainSource(1 << 24)
                       : name == "mlp1" ? ReadSource("examples/mlp.mlir")
                                        : ReadSource("benchmarks/programs/elementwise_chain.mlir");
  auto bytes = compiler::Compile(source, "bench.mlir", options, &warnings);
  if (!bytes.ok()) return state.SkipWithError(bytes.status().message().c_str());
  kiln_module_t* module = nullptr;
  kiln_session_t* session = nullptr;
  if (kiln_status_t s = kiln_module_load_memory(bytes->data(), bytes->size(), &module)) {
    state.SkipWithError(kiln_status_message(s));
    return kiln_status_free(s);
  }
  if (kiln_status_t s = kiln_session_create(module, "cpu", &session)) {
    state.SkipWithError(kiln_status_message(s));
    kiln_status_free(s);
    return kiln_module_free(module);
  }
  std::vector<kiln_tensor_t> inputs;
  for (const auto& t : p.inputs)
    inputs.push_back(kiln_tensor_t{static_cast<int32_t>(t.type), static_cast<int32_t>(t.dims.size()), t.dims.data(),
                                   t.data.data(), t.data.size()});
  for (int64_t i = -1; i < 0 || state.KeepRunning(); ++i) {  // i = -1: an untimed warm-up call
    kiln_results_t* results = nullptr;
    if (kiln_status_t s = kiln_session_call(session, "main", inputs.data(), inputs.size(), &results)) {
      state.SkipWithError(kiln_status_message(s));
      kiln_status_free(s);
      break;
    }
    kiln_results_free(results);
  }
  kiln_session_free(session);
  kiln_module_free(module);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(InputBytes(p) + p.output_bytes));
}

void Register() {
  for (const char* name : {"add16M", "chain1M", "chain16M", "mlp1", "add4"}) {
    const bool large = name[0] != 'm' && std::string(name) != "add4";
    auto unit = large ? benchmark::kMillisecond : benchmark::kMicrosecond;
    for (auto [label, fn] : {std::pair{"Copy", &BM_Copy}, std::pair{"Kernel", &BM_Kernel}, std::pair{"Call", &BM_Call},
                             std::pair{"CApiCall", &BM_CApiCall}}) {
      if (!large && std::string(label) == "Copy") continue;
      if (std::string(name) == "mlp1" && std::string(label) == "Kernel") continue;
      benchmark::RegisterBenchmark((std::string(label) + "/" + name).c_str(), fn, std::string(name))
          ->UseRealTime()
          ->Unit(unit);
    }
  }
}

}  // namespace
}  // namespace kiln

int main(int argc, char** argv) {
  kiln::Register();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

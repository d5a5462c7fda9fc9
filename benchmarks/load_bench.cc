// Module load time and memory: a module holding 100 MB of constants
// (generated here), opened mapped (LoadModuleFromFile's default) and read
// into memory (LoadOptions::map_file = false, KILN_MAP_MODULES=0), its
// constants stored raw and zstd-compressed. Per variant: the time to open
// (timed), the process's RSS growth from before the open to after it, and
// the first call of a function that reads one element of every constant
// (constants are checked against their checksums and, if compressed,
// decompressed on first use) with the RSS growth after it. And the same
// weights external (docs/parameters.md): a small module and a 100 MB
// safetensors file, both mapped, the parameters bound at open and checked
// against their checksums on first use (ext) or not (ext_nocheck,
// KILN_VERIFY_CHECKSUMS=0). And, beside them, the raw module in format 0.4's
// layout (constants inside the FlatBuffer), the baseline of the data
// segment (format 0.5).
//   cmake -S . -B build-bench -G Ninja -DKILN_BUILD_BENCHMARKS=ON && cmake --build build-bench --target kiln-load-bench
//   ./build-bench/kiln-load-bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// The constants are f32 weights with a few significant bits of spread (as
// trained weights are: compressible, but not trivially), in 25 tensors of
// 4 MB; the raw variant disables compression. Run it with the file in the
// page cache (the first repetition puts it there): what is measured is the
// runtime's work, not the disk.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>

#include "compiler/externalize.h"
#include "compiler/module_builder.h"
#include "hal/cpu/cpu_device.h"
#include "vm/bytecode.h"
#include "vm/context.h"
#include "vm/module.h"
#include "vm/parameters.h"

namespace kiln {
namespace {

constexpr int kConstants = 25;

// 0 raw, 1 zstd, 2 external (the module; its weights in PATH.safetensors),
// 4 raw in format 0.4's layout (constants inside the FlatBuffer).
std::string WriteModule(int variant) {
  const bool compressed = variant == 1;
  compiler::ModuleBuilder mb;
  std::mt19937 rng(7);
  std::normal_distribution<float> weight(0.0f, 0.05f);
  for (int c = 0; c < kConstants; ++c) {
    compiler::ConstantOut k;
    k.type = ElementType::kF32;
    k.dims = {1024, 1024};
    k.data.resize(4u << 20);
    for (size_t i = 0; i < k.data.size(); i += 4) {
      // bf16-precision weights stored as f32: the low 16 bits are zero.
      float w = weight(rng);
      uint32_t bits;
      std::memcpy(&bits, &w, 4);
      bits &= 0xffff0000u;
      std::memcpy(&k.data[i], &bits, 4);
    }
    mb.AddConstant(std::move(k));
  }
  // main: element [0, 0] of every constant (a 1x1 slice), the last returned.
  KernelParams slice;
  slice.kernel = "stablehlo.slice";
  slice.attrs.push_back({"start_indices", {0, 0}, {}, "", false, {}});
  slice.attrs.push_back({"limit_indices", {1, 1}, {}, "", false, {}});
  slice.attrs.push_back({"strides", {1, 1}, {}, "", false, {}});
  const uint32_t exe = mb.AddExecutable(slice);
  compiler::FunctionOut f;
  f.name = "main";
  f.num_i64_registers = 1;
  f.num_ref_registers = 2;
  compiler::SigOut result;
  result.type = ElementType::kF32;
  result.dims = {1, 1};
  f.results = {result};
  vm::BytecodeWriter w;
  w.Op(vm::Opcode::kConstI64); w.U32(0); w.I64(1);
  for (uint32_t c = 0; c < kConstants; ++c) {
    w.Op(vm::Opcode::kConstRef); w.U32(0); w.U32(c);
    w.Op(vm::Opcode::kAlloc); w.U32(1); w.U32(static_cast<uint32_t>(ElementType::kF32)); w.List(std::vector<uint32_t>{0, 0});
    w.Op(vm::Opcode::kDispatch); w.U32(exe); w.List(std::vector<uint32_t>{0}); w.List(std::vector<uint32_t>{1});
  }
  w.Op(vm::Opcode::kReturn);
  w.List(std::vector<uint32_t>{1});
  f.bytecode = w.bytes();
  mb.functions.push_back(std::move(f));
  std::string path = std::string("/tmp/kiln-load-bench-") +
                     (variant == 2 ? "ext" : variant == 4 ? "raw04" : compressed ? "zstd" : "raw") + ".kiln";
  if (variant == 2) {
    auto params = compiler::ExternalizeConstants(&mb, 1, "", nullptr);
    if (!params.ok()) std::abort();
    std::ofstream(path + ".safetensors", std::ios::binary)
        .write(reinterpret_cast<const char*>(params->data()), static_cast<std::streamsize>(params->size()));
  }
  auto bytes = mb.Serialize(compressed ? 4096 : SIZE_MAX, variant == 4 ? compiler::ModuleBuilder::Layout::kInline04
                                                                      : compiler::ModuleBuilder::Layout::kDataSegment);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return path;
}

// The process's resident set, in bytes (/proc/self/statm's second field).
double RssBytes() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

// Args: variant (0 raw, 1 zstd, 2 external, 3 external with checksums
// off, 4 raw in format 0.4's layout), mapped (0/1; parameter files are
// always mapped).
void BM_Load(benchmark::State& state) {
  const int variant = static_cast<int>(state.range(0));
  vm::LoadOptions options;
  options.map_file = state.range(1) != 0;
  options.verify_checksums = variant != 3;
  // Written once each, when first asked for (a --benchmark_filter run
  // writes only its own).
  static std::string paths[5];
  std::string& path = paths[variant == 3 ? 2 : variant];
  if (path.empty()) path = WriteModule(variant == 3 ? 2 : variant);
  auto device = hal::CreateCpuDevice(hal::CpuMode::kInline, 1);
  double open_rss = 0, call_rss = 0, call_ms = 0;
  size_t file_bytes = 0;
  for (auto _ : state) {
    const double before = RssBytes();
    if (variant == 2 || variant == 3) {  // mapping and parsing the parameter file is part of the open
      auto set = std::make_shared<vm::ParameterSet>();
      if (Status s = set->AddSpec(path + ".safetensors"); !s.ok()) {
        state.SkipWithError(s.message().c_str());
        return;
      }
      options.parameters = std::move(set);
    }
    auto m = vm::LoadModuleFromFile(path, options);
    state.PauseTiming();
    if (!m.ok()) {
      state.SkipWithError(m.status().message().c_str());
      return;
    }
    open_rss += RssBytes() - before;
    file_bytes = (*m)->bytes->size();
    {
      const auto start = std::chrono::steady_clock::now();
      auto ctx = vm::Context::Create(*m, device.get());
      StatusOr<std::vector<vm::HostTensor>> r =
          ctx.ok() ? (*ctx)->Invoke("main", {}) : StatusOr<std::vector<vm::HostTensor>>(ctx.status());
      call_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      if (!r.ok()) {
        state.SkipWithError(r.status().message().c_str());
        return;
      }
      call_rss += RssBytes() - before;
    }
    m = Status(StatusCode::kInternal, "closed");  // unmapped or freed before the next open
    options.parameters = nullptr;
    state.ResumeTiming();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["file_MB"] = static_cast<double>(file_bytes) / 1e6;
  state.counters["open_rss_MB"] = open_rss / n / 1e6;
  state.counters["first_call_ms"] = call_ms / n;
  state.counters["call_rss_MB"] = call_rss / n / 1e6;
  const char* labels[] = {"raw", "zstd", "ext", "ext_nocheck", "raw, format 0.4"};
  state.SetLabel(std::string(labels[variant]) + (options.map_file ? ", mapped" : ", read"));
}
BENCHMARK(BM_Load)
    ->Args({4, 1})
    ->Args({0, 1})
    ->Args({0, 0})
    ->Args({1, 1})
    ->Args({1, 0})
    ->Args({2, 1})
    ->Args({3, 1})
    ->Unit(benchmark::kMillisecond)
    // A fixed count: an open of 0.1 ms would otherwise be repeated thousands
    // of times, each with its untimed first call hashing 100 MB.
    ->Iterations(10)
    ->UseRealTime();

}  // namespace
}  // namespace kiln

// Module load time: a module holding 100 MB of constants, read from a file
// and verified, stored raw and stored zstd-compressed (decompressed once at
// load); and the same weights external (docs/parameters.md): a small module
// and a 100 MB safetensors file, mapped and bound, checking each
// parameter's checksum (ext) or not (ext_nocheck, KILN_VERIFY_CHECKSUMS=0).
//   cmake -S . -B build-bench -G Ninja -DKILN_BUILD_BENCHMARKS=ON && cmake --build build-bench --target kiln-load-bench
//   ./build-bench/kiln-load-bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// The constants are f32 weights with a few significant bits of spread (as
// trained weights are: compressible, but not trivially), in 25 tensors of
// 4 MB; the raw variant disables compression.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>

#include "compiler/externalize.h"
#include "compiler/module_builder.h"
#include "vm/bytecode.h"
#include "vm/module.h"
#include "vm/parameters.h"

namespace kiln {
namespace {

// 0 raw, 1 zstd, 2 external (the module; its weights in PATH.safetensors).
std::string WriteModule(int variant) {
  const bool compressed = variant == 1;
  compiler::ModuleBuilder mb;
  std::mt19937 rng(7);
  std::normal_distribution<float> weight(0.0f, 0.05f);
  for (int c = 0; c < 25; ++c) {
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
  compiler::FunctionOut f;
  f.name = "main";
  vm::BytecodeWriter w;
  w.Op(vm::Opcode::kReturn);
  w.List({});
  f.bytecode = w.bytes();
  mb.functions.push_back(std::move(f));
  std::string path = std::string("/tmp/kiln-load-bench-") + (variant == 2 ? "ext" : compressed ? "zstd" : "raw") + ".kiln";
  if (variant == 2) {
    auto params = compiler::ExternalizeConstants(&mb, 1, "", nullptr);
    if (!params.ok()) std::abort();
    std::ofstream(path + ".safetensors", std::ios::binary)
        .write(reinterpret_cast<const char*>(params->data()), static_cast<std::streamsize>(params->size()));
  }
  auto bytes = mb.Serialize(compressed ? 4096 : SIZE_MAX);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return path;
}

void BM_Load(benchmark::State& state) {
  const int variant = static_cast<int>(state.range(0));  // 3: external, checksums off
  static std::string paths[3] = {WriteModule(0), WriteModule(1), WriteModule(2)};
  const std::string& path = paths[std::min(variant, 2)];
  vm::LoadOptions options;
  options.verify_checksums = variant != 3;
  size_t file_bytes = 0;
  for (auto _ : state) {
    if (variant >= 2) {  // mapping and parsing the parameter file is part of the load
      auto set = std::make_shared<vm::ParameterSet>();
      if (Status s = set->AddSpec(path + ".safetensors"); !s.ok()) {
        state.SkipWithError(s.message().c_str());
        return;
      }
      options.parameters = std::move(set);
    }
    auto m = vm::LoadModuleFromFile(path, options);
    if (!m.ok()) {
      state.SkipWithError(m.status().message().c_str());
      return;
    }
    file_bytes = (*m)->file.size();
    benchmark::DoNotOptimize(m);
  }
  state.counters["file_MB"] = static_cast<double>(file_bytes) / 1e6;
  state.counters["constant_MB/s"] =
      benchmark::Counter(100e6 * static_cast<double>(state.iterations()) / 1e6, benchmark::Counter::kIsRate);
  const char* labels[] = {"raw", "zstd", "ext", "ext_nocheck"};
  state.SetLabel(labels[variant]);
}
BENCHMARK(BM_Load)->Arg(0)->Arg(1)->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace kiln

// Front-end speed: parse and verify a ~30 MB StableHLO program.
//   cmake -S . -B build -DKILN_BUILD_BENCHMARKS=ON && cmake --build build --target kiln-parse-bench
//   ./build/kiln-parse-bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// The program mixes what real exports hold: many small elementwise and
// shape ops with locations, and large dense constants.
#include <benchmark/benchmark.h>

#include <string>

#include "compiler/parse/parser.h"
#include "compiler/verify/verifier.h"

namespace kiln {
namespace {

std::string MakeProgram(size_t target_bytes) {
  std::string s = "func.func @main(%arg0: tensor<16x16xf32>) -> tensor<16x16xf32> {\n";
  s += "  %c = stablehlo.constant dense<[";
  for (int i = 0; i < 200000; ++i) s += (i ? ", " : "") + std::to_string(i * 0.001f);
  s += "]> : tensor<200000xf32>\n";
  std::string prev = "%arg0";
  for (int i = 0; s.size() < target_bytes; ++i) {
    std::string a = "%a" + std::to_string(i), b = "%b" + std::to_string(i), t = "%t" + std::to_string(i);
    s += "  " + a + " = stablehlo.add " + prev + ", " + prev + " : tensor<16x16xf32> loc(\"model.py\":" +
         std::to_string(i) + ":7)\n";
    s += "  " + b + " = stablehlo.multiply " + a + ", " + prev + " : tensor<16x16xf32>\n";
    s += "  " + t + " = stablehlo.transpose " + b + ", dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>\n";
    prev = t;
  }
  s += "  func.return " + prev + " : tensor<16x16xf32>\n}\n";
  return s;
}

void BM_ParseAndVerify30MB(benchmark::State& state) {
  static const std::string program = MakeProgram(30u << 20);
  auto format = [](ir::Location, const std::string& m) { return m; };
  for (auto _ : state) {
    auto module = ir::ParseModule(program, "big.mlir");
    if (!module.ok()) {
      state.SkipWithError(module.status().message().c_str());
      break;
    }
    Status s = compiler::VerifyModule(**module, format);
    if (!s.ok()) state.SkipWithError(s.message().c_str());
    benchmark::DoNotOptimize(module);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(program.size()));
  state.counters["MB"] = static_cast<double>(program.size()) / (1 << 20);
}
BENCHMARK(BM_ParseAndVerify30MB)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace kiln

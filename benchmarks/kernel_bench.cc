// Google Benchmark timings of kernels. Build with -DKILN_BUILD_BENCHMARKS=ON:
//   cmake -S . -B build -DKILN_BUILD_BENCHMARKS=ON && cmake --build build --target kiln-kernel-bench
//   ./build/kiln-kernel-bench
// The reference kernels are the baseline the Highway kernels will be
// measured against.
#include <benchmark/benchmark.h>

#include <vector>

#include "kernels/reference/registry.h"

namespace kiln {
namespace {

void BM_ReferenceElementwiseAddF32(benchmark::State& state) {
  int64_t n = state.range(0);
  std::vector<float> a(n, 1.5f), b(n, 2.5f), c(n);
  std::vector<int64_t> dims = {n};
  KernelParams p;
  p.kernel = "kiln.elementwise";
  KernelAttr body;
  body.name = "body";
  body.has_program = true;
  body.program.param_types = {ElementType::kF32, ElementType::kF32};
  ScalarInstr add;
  add.op = ScalarOp::kAdd;
  add.type = ElementType::kF32;
  add.num_operands = 2;
  add.operands[0] = 0;
  add.operands[1] = 1;
  body.program.instrs = {add};
  body.program.results = {2};
  p.attrs.push_back(body);
  TensorRef in[2] = {{ElementType::kF32, dims, reinterpret_cast<uint8_t*>(a.data()), a.size() * 4},
                     {ElementType::kF32, dims, reinterpret_cast<uint8_t*>(b.data()), b.size() * 4}};
  TensorRef out[1] = {{ElementType::kF32, dims, reinterpret_cast<uint8_t*>(c.data()), c.size() * 4}};
  KernelFn fn = ref::FindReferenceKernel("kiln.elementwise");
  for (auto _ : state) {
    Status s = fn(KernelCall{p, in, out});
    benchmark::DoNotOptimize(c.data());
    if (!s.ok()) state.SkipWithError(s.message().c_str());
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_ReferenceElementwiseAddF32)->Arg(1 << 10)->Arg(1 << 16);

void BM_ReferenceDotGeneralF32(benchmark::State& state) {
  int64_t n = state.range(0);
  std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n);
  std::vector<int64_t> dims = {n, n};
  KernelParams p;
  p.kernel = "stablehlo.dot_general";
  p.attrs.push_back(KernelAttr{"lhs_contracting_dimensions", {1}, {}, "", false, {}});
  p.attrs.push_back(KernelAttr{"rhs_contracting_dimensions", {0}, {}, "", false, {}});
  TensorRef in[2] = {{ElementType::kF32, dims, reinterpret_cast<uint8_t*>(a.data()), a.size() * 4},
                     {ElementType::kF32, dims, reinterpret_cast<uint8_t*>(b.data()), b.size() * 4}};
  TensorRef out[1] = {{ElementType::kF32, dims, reinterpret_cast<uint8_t*>(c.data()), c.size() * 4}};
  KernelFn fn = ref::FindReferenceKernel("stablehlo.dot_general");
  for (auto _ : state) {
    Status s = fn(KernelCall{p, in, out});
    benchmark::DoNotOptimize(c.data());
    if (!s.ok()) state.SkipWithError(s.message().c_str());
  }
  state.SetItemsProcessed(state.iterations() * 2 * n * n * n);
}
BENCHMARK(BM_ReferenceDotGeneralF32)->Arg(64)->Arg(128);

}  // namespace
}  // namespace kiln

// Google Benchmark timings of kernels. Build with -DKILN_BUILD_BENCHMARKS=ON:
//   cmake -S . -B build -DKILN_BUILD_BENCHMARKS=ON && cmake --build build --target kiln-kernel-bench
//   ./build/kiln-kernel-bench
// The reference kernels are the baseline the Highway kernels (kernels/cpu)
// are measured against. GFLOP/s of dot_general: the "FLOPS" counter
// (2*n^3 per iteration).
//   ./build/kiln-kernel-bench --benchmark_filter=DotGeneral
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true   (one line)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "hal/cpu/thread_pool.h"
#include "hwy/aligned_allocator.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/registry.h"
#include "kernels/cpu/requantize.h"
#include "kernels/reference/registry.h"

namespace kiln {
namespace {

// The fast kernels run on a thread pool sized as the CPU driver's default
// (KILN_THREADS, else one per core: ThreadPool::ResolveThreads); times are
// wall-clock (UseRealTime). An invalid KILN_THREADS stops the benchmark.
TaskRunner* Pool() {
  static std::unique_ptr<hal::ThreadPool> pool = [] {
    auto p = hal::ThreadPool::Create(0);
    if (!p.ok()) {
      std::fprintf(stderr, "kiln-kernel-bench: %s\n", p.status().message().c_str());
      std::exit(1);
    }
    return std::move(p.value());
  }();
  return pool.get();
}

KernelParams ElementwiseParams(ScalarProgram program) {
  KernelParams p;
  p.kernel = "kiln.elementwise";
  KernelAttr body;
  body.name = "body";
  body.has_program = true;
  body.program = std::move(program);
  p.attrs.push_back(body);
  return p;
}

ScalarInstr Instr(ScalarOp op, std::initializer_list<uint16_t> operands) {
  ScalarInstr i;
  i.op = op;
  i.type = ElementType::kF32;
  i.num_operands = static_cast<uint8_t>(operands.size());
  size_t k = 0;
  for (uint16_t o : operands) i.operands[k++] = o;
  return i;
}

// a + b
ScalarProgram AddProgram() {
  ScalarProgram prog;
  prog.param_types = {ElementType::kF32, ElementType::kF32};
  prog.instrs = {Instr(ScalarOp::kAdd, {0, 1})};
  prog.results = {2};
  return prog;
}

// tanh(x * 0.5 + 1) * x - 0.25: what the compiler's fusion pass makes of the
// chain (splat constants inlined, one param).
ScalarProgram TanhChainProgram() {
  auto constant = [](double v) {
    ScalarInstr c = Instr(ScalarOp::kConstant, {});
    c.constant.re = v;
    return c;
  };
  ScalarProgram prog;
  prog.param_types = {ElementType::kF32};
  prog.instrs = {constant(0.5),  constant(1.0), constant(0.25),
                 Instr(ScalarOp::kMultiply, {0, 1}), Instr(ScalarOp::kAdd, {4, 2}), Instr(ScalarOp::kTanh, {5}),
                 Instr(ScalarOp::kMultiply, {6, 0}), Instr(ScalarOp::kSubtract, {7, 3})};
  prog.results = {8};
  return prog;
}

// logistic(a * b) + tanh(a): a small fused chain with transcendentals.
ScalarProgram ChainProgram() {
  ScalarProgram prog;
  prog.param_types = {ElementType::kF32, ElementType::kF32};
  prog.instrs = {Instr(ScalarOp::kMultiply, {0, 1}), Instr(ScalarOp::kLogistic, {2}), Instr(ScalarOp::kTanh, {0}),
                 Instr(ScalarOp::kAdd, {3, 4})};
  prog.results = {5};
  return prog;
}

struct AlignedFloats {
  AlignedFloats(int64_t n, float fill)
      : p(static_cast<float*>(::operator new(static_cast<size_t>(n) * 4 + 64, std::align_val_t(64)))),
        count(static_cast<size_t>(n)) {
    std::fill(p, p + n, fill);
  }
  ~AlignedFloats() { ::operator delete(p, std::align_val_t(64)); }
  float* data() { return p; }
  size_t size() const { return count; }
  float* p;
  size_t count;
};

void RunElementwise(benchmark::State& state, KernelFn fn, const KernelParams& p, TaskRunner* runner = nullptr) {
  int64_t n = state.range(0);
  // 64-byte aligned like the CPU driver's buffers (hal/cpu).
  AlignedFloats a(n, 1.5f), b(n, 2.5f), c(n, 0.0f);
  for (int64_t i = 0; i < n; ++i) a.data()[i] = static_cast<float>(i % 1000) * 0.01f - 5.0f;
  std::vector<int64_t> dims = {n};
  TensorRef in[2] = {{ElementType::kF32, dims, reinterpret_cast<uint8_t*>(a.data()), a.size() * 4},
                     {ElementType::kF32, dims, reinterpret_cast<uint8_t*>(b.data()), b.size() * 4}};
  TensorRef out[1] = {{ElementType::kF32, dims, reinterpret_cast<uint8_t*>(c.data()), c.size() * 4}};
  if (fn == nullptr) {
    state.SkipWithError("no kernel");
    return;
  }
  const size_t num_inputs = p.Program("body")->param_types.size();
  for (auto _ : state) {
    Status s = fn(KernelCall{p, std::span<const TensorRef>(in, num_inputs), out, runner});
    benchmark::DoNotOptimize(c.data());
    if (!s.ok()) state.SkipWithError(s.message().c_str());
  }
  state.SetItemsProcessed(state.iterations() * n);
  // Bytes read and written, to compare with a copy's bandwidth.
  state.SetBytesProcessed(state.iterations() * n * 4 * static_cast<int64_t>(num_inputs + 1));
}

void BM_ReferenceElementwiseAddF32(benchmark::State& state) {
  RunElementwise(state, ref::FindReferenceKernel("kiln.elementwise"), ElementwiseParams(AddProgram()));
}
void BM_CpuElementwiseAddF32(benchmark::State& state) {
  KernelParams p = ElementwiseParams(AddProgram());
  RunElementwise(state, cpu::FindCpuKernel(p), p);
}
void BM_ReferenceElementwiseChainF32(benchmark::State& state) {
  RunElementwise(state, ref::FindReferenceKernel("kiln.elementwise"), ElementwiseParams(ChainProgram()));
}
void BM_CpuElementwiseChainF32(benchmark::State& state) {
  KernelParams p = ElementwiseParams(ChainProgram());
  RunElementwise(state, cpu::FindCpuKernel(p), p);
}
void BM_CpuFusedTanhChainF32(benchmark::State& state) {
  KernelParams p = ElementwiseParams(TanhChainProgram());
  RunElementwise(state, cpu::FindCpuKernel(p), p, Pool());
}
// A batch norm and relu6 over a channel-last [rows][192] result, as the
// compiler fuses it into a convolution's epilogue: clamp(0, (x - mean) *
// scale + shift, 6), mean/scale/shift per channel (input_broadcast to the
// last axis), the clamp bounds constants, over 49,152 elements (192 KiB:
// one 16x16x192 image, the size the convolutions run their epilogue on,
// in cache).
void BM_CpuBatchNormRelu6ChannelLastF32(benchmark::State& state) {
  constexpr int64_t kChannels = 192;
  const int64_t n = state.range(0), rows = n / kChannels;
  auto constant = [](double v) {
    ScalarInstr c = Instr(ScalarOp::kConstant, {});
    c.constant.re = v;
    return c;
  };
  ScalarProgram prog;
  prog.param_types = {ElementType::kF32, ElementType::kF32, ElementType::kF32, ElementType::kF32};
  prog.instrs = {constant(0.0), constant(6.0), Instr(ScalarOp::kSubtract, {0, 1}), Instr(ScalarOp::kMultiply, {6, 2}),
                 Instr(ScalarOp::kAdd, {7, 3}), Instr(ScalarOp::kClamp, {4, 8, 5})};
  prog.results = {9};
  KernelParams p = ElementwiseParams(prog);
  KernelAttr map;
  map.name = "input_broadcast";
  map.ints = {2, 0, 1, 1, 1, 1, 1, 1, 1};
  p.attrs.push_back(map);
  AlignedFloats x(n, 0.0f), out(n, 0.0f), mean(kChannels, 0.1f), scale(kChannels, 1.5f), shift(kChannels, 0.25f);
  for (int64_t i = 0; i < n; ++i) x.data()[i] = static_cast<float>(i % 1000) * 0.01f - 5.0f;
  std::vector<int64_t> dims = {rows, kChannels}, cdims = {kChannels};
  auto ref = [](std::vector<int64_t>& d, AlignedFloats& a) {
    return TensorRef{ElementType::kF32, d, reinterpret_cast<uint8_t*>(a.data()), a.size() * 4};
  };
  TensorRef in[4] = {ref(dims, x), ref(cdims, mean), ref(cdims, scale), ref(cdims, shift)};
  TensorRef res[1] = {ref(dims, out)};
  // As a convolution runs its epilogue: over rows it has just written, in
  // cache, with ordinary stores.
  cpu::ElementwiseProblem problem;
  if (!cpu::MakeElementwiseProblem(KernelCall{p, std::span<const TensorRef>(in, 4), res, nullptr}, &prog,
                                   p.Find("input_broadcast"), dims, &problem)) {
    state.SkipWithError("the fast interpreter does not take the program");
    return;
  }
  problem.outputs = {res[0].data};
  problem.stream = false;
  for (auto _ : state) {
    cpu::RunElementwiseRange(problem, 0, problem.n);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_CpuBatchNormRelu6ChannelLastF32)->Arg(49152)->Unit(benchmark::kMicrosecond);
// The tanh form of gelu over a bias add, as the compiler fuses it into a
// transformer MLP's first product (examples/models/transformer.py):
// y = 0.5 x (1 + tanh(0.7978845608 (x + 0.044715 x^3))), x = acc + bias,
// over [64][1024] (256 KiB, in cache, as the product leaves it), one thread.
void BM_CpuGeluTanhEpilogueF32(benchmark::State& state) {
  constexpr int64_t kRowsG = 64, kColsG = 1024;
  auto constant = [](double v) {
    ScalarInstr c = Instr(ScalarOp::kConstant, {});
    c.constant.re = v;
    return c;
  };
  ScalarProgram prog;
  prog.param_types = {ElementType::kF32, ElementType::kF32};
  // 2..5 constants; 6 x; 7 x^2; 8 x^3; 9 0.044715 x^3; 10 x + that; 11 scaled;
  // 12 tanh; 13 1 + tanh; 14 0.5 x; 15 the result.
  prog.instrs = {constant(0.044715), constant(0.7978845608028654), constant(1.0), constant(0.5),
                 Instr(ScalarOp::kAdd, {0, 1}), Instr(ScalarOp::kMultiply, {6, 6}), Instr(ScalarOp::kMultiply, {7, 6}),
                 Instr(ScalarOp::kMultiply, {8, 2}), Instr(ScalarOp::kAdd, {6, 9}), Instr(ScalarOp::kMultiply, {10, 3}),
                 Instr(ScalarOp::kTanh, {11}), Instr(ScalarOp::kAdd, {12, 4}), Instr(ScalarOp::kMultiply, {6, 5}),
                 Instr(ScalarOp::kMultiply, {14, 13})};
  prog.results = {15};
  KernelParams p = ElementwiseParams(prog);
  KernelAttr map;
  map.name = "input_broadcast";
  map.ints = {2, 0, 1, 1, 1};
  p.attrs.push_back(map);
  const int64_t n = kRowsG * kColsG;
  AlignedFloats x(n, 0.0f), out(n, 0.0f), bias(kColsG, 0.01f);
  for (int64_t i = 0; i < n; ++i) x.data()[i] = static_cast<float>(i % 1000) * 0.006f - 3.0f;
  std::vector<int64_t> dims = {kRowsG, kColsG}, cdims = {kColsG};
  TensorRef in[2] = {{ElementType::kF32, dims, reinterpret_cast<uint8_t*>(x.data()), x.size() * 4},
                     {ElementType::kF32, cdims, reinterpret_cast<uint8_t*>(bias.data()), bias.size() * 4}};
  TensorRef res[1] = {{ElementType::kF32, dims, reinterpret_cast<uint8_t*>(out.data()), out.size() * 4}};
  KernelFn fn = cpu::FindCpuKernel(p);
  for (auto _ : state) {
    const Status s = fn(KernelCall{p, in, res, nullptr});
    if (!s.ok()) state.SkipWithError(s.message().c_str());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

BENCHMARK(BM_ReferenceElementwiseAddF32)->Arg(1 << 10)->Arg(1 << 16);
BENCHMARK(BM_CpuElementwiseAddF32)->Arg(1 << 10)->Arg(1 << 16);
BENCHMARK(BM_ReferenceElementwiseChainF32)->Arg(1 << 16);
BENCHMARK(BM_CpuElementwiseChainF32)->Arg(1 << 16);
BENCHMARK(BM_CpuGeluTanhEpilogueF32)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CpuFusedTanhChainF32)->Arg(1 << 16)->Arg(1 << 24)->UseRealTime()->Unit(benchmark::kMillisecond);

// Softmax and layer norm over rows of 4096x4096 f32, as the compiler emits
// them with producer fusion into reductions (kiln-compile --target cpu;
// compiler/passes/fuse_elementwise.h): the three dispatches over the whole
// tensor, with the exact programs and axis maps vm-dump shows (the per-row
// dispatches of 4096 elements in between are left out). Beside them a
// memcpy of the same 64 MB: bytes_per_second of every row counts 64 MB in
// + 64 MB out, so the ratio to BM_Memcpy64MB is the fraction of copy
// bandwidth.
constexpr int64_t kRows = 4096, kCols = 4096;

KernelAttr Ints(const char* name, std::vector<int64_t> v) { return KernelAttr{name, std::move(v), {}, "", false, {}}; }
KernelAttr ProgramAttr(const char* name, ScalarProgram prog) {
  return KernelAttr{name, {}, {}, "", true, std::move(prog)};
}

ScalarProgram Body(ScalarOp op) {
  ScalarProgram prog;
  prog.param_types = {ElementType::kF32, ElementType::kF32};
  prog.instrs = {Instr(op, {0, 1})};
  prog.results = {2};
  return prog;
}

KernelParams RowReduce(ScalarOp op) {
  KernelParams p;
  p.kernel = "stablehlo.reduce";
  p.attrs = {Ints("dimensions", {1}), ProgramAttr("body", Body(op))};
  return p;
}

// A reduce over rows of `input` (params: x, then per-row values) with x
// full-shaped and the others broadcast along the row.
KernelParams FusedRowReduce(ScalarOp op, ScalarProgram input, int64_t rows = kRows) {
  KernelParams p = RowReduce(op);
  std::vector<int64_t> map = {2, 0, 1};
  for (size_t i = 1; i < input.param_types.size(); ++i) map.insert(map.end(), {1, 0});
  p.attrs.push_back(ProgramAttr("input", std::move(input)));
  p.attrs.push_back(Ints("input_broadcast", std::move(map)));
  p.attrs.push_back(Ints("input_dims", {rows, kCols}));
  return p;
}

// exp(x - m): softmax's producer (params x, m).
ScalarProgram ExpShifted() {
  ScalarProgram prog;
  prog.param_types = {ElementType::kF32, ElementType::kF32};
  prog.instrs = {Instr(ScalarOp::kSubtract, {0, 1}), Instr(ScalarOp::kExponential, {2})};
  prog.results = {3};
  return prog;
}

// exp(x - m) / s: softmax's tail (params x, m, s), as the compiler emits it.
ScalarProgram SoftmaxTail() {
  ScalarProgram prog;
  prog.param_types = {ElementType::kF32, ElementType::kF32, ElementType::kF32};
  prog.instrs = {Instr(ScalarOp::kSubtract, {0, 1}), Instr(ScalarOp::kExponential, {3}),
                 Instr(ScalarOp::kDivide, {4, 2})};
  prog.results = {5};
  return prog;
}

// Dispatches `p` once per iteration, its plan kept in a state between
// iterations as the VM keeps an executable's.
void DispatchKeepingState(benchmark::State& state, const KernelParams& p, std::span<const TensorRef> in,
                          std::span<const TensorRef> out, TaskRunner* runner) {
  KernelFn fn = cpu::FindCpuKernel(p);
  if (fn == nullptr) {
    state.SkipWithError("no kernel");
    return;
  }
  KernelState kstate;
  for (auto _ : state) {
    KernelCall call{p, in, out, runner};
    call.state = &kstate;
    const Status s = fn(call);
    if (!s.ok()) state.SkipWithError(s.message().c_str());
    benchmark::DoNotOptimize(out[0].data);
  }
}

// (x - mean)^2: a layer norm's variance producer (params x, mean).
ScalarProgram SquaredDeviation() {
  ScalarProgram sq;
  sq.param_types = {ElementType::kF32, ElementType::kF32};
  sq.instrs = {Instr(ScalarOp::kSubtract, {0, 1}), Instr(ScalarOp::kMultiply, {2, 2})};
  sq.results = {3};
  return sq;
}

// (x - mean) * rs * g + beta: a layer norm's tail (params x, mean, rs, g,
// beta).
ScalarProgram LayerNormTail() {
  ScalarProgram tail;
  tail.param_types = {ElementType::kF32, ElementType::kF32, ElementType::kF32, ElementType::kF32, ElementType::kF32};
  tail.instrs = {Instr(ScalarOp::kSubtract, {0, 1}), Instr(ScalarOp::kMultiply, {5, 2}),
                 Instr(ScalarOp::kMultiply, {6, 3}), Instr(ScalarOp::kAdd, {7, 4})};
  tail.results = {8};
  return tail;
}

struct RowsBench {
  explicit RowsBench(int64_t rows = kRows)
      : x(rows * kCols, 0.0f), y(rows * kCols, 0.0f), a(rows, 0.0f), b(rows, 0.0f), dims{rows, kCols}, row_dims{rows} {
    for (int64_t i = 0; i < rows * kCols; ++i) x.data()[i] = static_cast<float>(i % 1013) * 0.01f - 5.0f;
  }
  AlignedFloats x, y, a, b, g{kCols, 1.25f}, beta{kCols, 0.5f};
  std::vector<int64_t> dims, row_dims, col_dims = {kCols}, scalar_dims = {};
  float zero = 0.0f, ninf = -INFINITY;
  TensorRef Full(AlignedFloats& t) { return {ElementType::kF32, dims, reinterpret_cast<uint8_t*>(t.data()), t.size() * 4}; }
  TensorRef Row(AlignedFloats& t) { return {ElementType::kF32, row_dims, reinterpret_cast<uint8_t*>(t.data()), t.size() * 4}; }
  TensorRef Col(AlignedFloats& t) { return {ElementType::kF32, col_dims, reinterpret_cast<uint8_t*>(t.data()), t.size() * 4}; }
  TensorRef Scalar(float* v) { return {ElementType::kF32, scalar_dims, reinterpret_cast<uint8_t*>(v), 4}; }
};

Status Dispatch(const KernelParams& p, std::initializer_list<TensorRef> in, TensorRef out) {
  KernelFn fn = cpu::FindCpuKernel(p);
  if (fn == nullptr) return Unimplemented("no kernel for " + p.kernel);
  std::vector<TensorRef> ins(in);
  return fn(KernelCall{p, ins, std::span<const TensorRef>(&out, 1), Pool()});
}

void BM_SoftmaxRows4096x4096(benchmark::State& state) {
  RowsBench t;
  const KernelParams max = RowReduce(ScalarOp::kMaximum), sum = FusedRowReduce(ScalarOp::kAdd, ExpShifted());
  KernelParams div = ElementwiseParams(SoftmaxTail());
  div.attrs.push_back(Ints("input_broadcast", {2, 0, 1, 1, 0, 1, 0}));
  for (auto _ : state) {
    Status s = Dispatch(max, {t.Full(t.x), t.Scalar(&t.ninf)}, t.Row(t.a));
    if (s.ok()) s = Dispatch(sum, {t.Full(t.x), t.Row(t.a), t.Scalar(&t.zero)}, t.Row(t.b));
    if (s.ok()) s = Dispatch(div, {t.Full(t.x), t.Row(t.a), t.Row(t.b)}, t.Full(t.y));
    if (!s.ok()) state.SkipWithError(s.message().c_str());
    benchmark::DoNotOptimize(t.y.data());
  }
  state.SetBytesProcessed(state.iterations() * kRows * kCols * 4 * 2);
}

void BM_LayerNormRows4096x4096(benchmark::State& state) {
  RowsBench t;
  const KernelParams sum = RowReduce(ScalarOp::kAdd);
  const ScalarProgram sq = SquaredDeviation();
  const KernelParams ssq = FusedRowReduce(ScalarOp::kAdd, sq);
  const ScalarProgram tail = LayerNormTail();
  KernelParams ln = ElementwiseParams(tail);
  ln.attrs.push_back(Ints("input_broadcast", {2, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1}));
  for (auto _ : state) {
    Status s = Dispatch(sum, {t.Full(t.x), t.Scalar(&t.zero)}, t.Row(t.a));
    // (mean and rsqrt(var + eps) are per-row dispatches of 4096 elements; here
    // the sums stand in for them, the work over the 16M elements is the same.)
    if (s.ok()) s = Dispatch(ssq, {t.Full(t.x), t.Row(t.a), t.Scalar(&t.zero)}, t.Row(t.b));
    if (s.ok()) s = Dispatch(ln, {t.Full(t.x), t.Row(t.a), t.Row(t.b), t.Col(t.g), t.Col(t.beta)}, t.Full(t.y));
    if (!s.ok()) state.SkipWithError(s.message().c_str());
    benchmark::DoNotOptimize(t.y.data());
  }
  state.SetBytesProcessed(state.iterations() * kRows * kCols * 4 * 2);
}

// The same softmax and layer norm as kiln.row_block dispatches, as the
// compiler now emits them (kernels/reference/row_block.h): the units are
// the dispatches above, run a block of rows at a time.
void AddUnit(KernelParams* p, int64_t k, const char* kernel, std::vector<int64_t> inputs, std::vector<int64_t> dims,
             const KernelParams& unit) {
  const std::string prefix = std::to_string(k) + ".";
  p->attrs.push_back(KernelAttr{prefix + "kernel", {}, {}, kernel, false, {}});
  p->attrs.push_back(Ints("", std::move(inputs)));
  p->attrs.back().name = prefix + "inputs";
  p->attrs.push_back(Ints("", std::move(dims)));
  p->attrs.back().name = prefix + "dims";
  for (KernelAttr a : unit.attrs) {
    a.name = prefix + a.name;
    p->attrs.push_back(std::move(a));
  }
}

void BM_SoftmaxRowBlock4096x4096(benchmark::State& state) {
  const int64_t rows = state.range(0);
  RowsBench t(rows);
  KernelParams div = ElementwiseParams(SoftmaxTail());
  div.attrs.push_back(Ints("input_broadcast", {2, 0, 1, 1, 0, 1, 0}));
  KernelParams p;
  p.kernel = "kiln.row_block";
  p.attrs.push_back(Ints("units", {3}));
  // inputs: 0 x, 1 -inf, 2 zero; units: 3 max, 4 sum, 5 tail
  AddUnit(&p, 0, "stablehlo.reduce", {0, 1}, {rows}, RowReduce(ScalarOp::kMaximum));
  AddUnit(&p, 1, "stablehlo.reduce", {0, 3, 2}, {rows}, FusedRowReduce(ScalarOp::kAdd, ExpShifted(), rows));
  AddUnit(&p, 2, "kiln.elementwise", {0, 3, 4}, {rows, kCols}, div);
  for (auto _ : state) {
    Status s = Dispatch(p, {t.Full(t.x), t.Scalar(&t.ninf), t.Scalar(&t.zero)}, t.Full(t.y));
    if (!s.ok()) state.SkipWithError(s.message().c_str());
    benchmark::DoNotOptimize(t.y.data());
  }
  state.SetBytesProcessed(state.iterations() * rows * kCols * 4 * 2);
}

void BM_LayerNormRowBlock4096x4096(benchmark::State& state) {
  const int64_t rows = state.range(0);
  RowsBench t(rows);
  const ScalarProgram sq = SquaredDeviation();
  const ScalarProgram tail = LayerNormTail();
  KernelParams ln = ElementwiseParams(tail);
  ln.attrs.push_back(Ints("input_broadcast", {2, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1}));
  KernelParams p;
  p.kernel = "kiln.row_block";
  p.attrs.push_back(Ints("units", {3}));
  // inputs: 0 x, 1 zero, 2 g, 3 beta; units: 4 sum, 5 sum of squares, 6 tail
  // (as above, the sums stand in for the per-row mean and rsqrt units)
  AddUnit(&p, 0, "stablehlo.reduce", {0, 1}, {rows}, RowReduce(ScalarOp::kAdd));
  AddUnit(&p, 1, "stablehlo.reduce", {0, 4, 1}, {rows}, FusedRowReduce(ScalarOp::kAdd, sq, rows));
  AddUnit(&p, 2, "kiln.elementwise", {0, 4, 5, 2, 3}, {rows, kCols}, ln);
  for (auto _ : state) {
    Status s = Dispatch(p, {t.Full(t.x), t.Scalar(&t.zero), t.Col(t.g), t.Col(t.beta)}, t.Full(t.y));
    if (!s.ok()) state.SkipWithError(s.message().c_str());
    benchmark::DoNotOptimize(t.y.data());
  }
  state.SetBytesProcessed(state.iterations() * rows * kCols * 4 * 2);
}

// A layer norm over the tokens of examples/models/transformer.py at batch
// 1: 64 rows of 256, the same units as BM_LayerNormRowBlock4096x4096 (the
// sums standing in for the mean and rsqrt units), the plan kept in a state
// as the VM keeps it.
void BM_LayerNormRowBlockTokens(benchmark::State& state) {
  const int64_t rows = 64, cols = 256;
  AlignedFloats x(rows * cols, 0.0f), y(rows * cols, 0.0f), g(cols, 1.25f), beta(cols, 0.5f);
  for (int64_t i = 0; i < rows * cols; ++i) x.data()[i] = static_cast<float>(i % 1013) * 0.01f - 5.0f;
  float zero = 0.0f;
  std::vector<int64_t> dims = {rows, cols}, col_dims = {cols}, scalar_dims = {};
  const ScalarProgram sq = SquaredDeviation();
  const ScalarProgram tail = LayerNormTail();
  KernelParams ln = ElementwiseParams(tail);
  ln.attrs.push_back(Ints("input_broadcast", {2, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1}));
  KernelParams ssq = RowReduce(ScalarOp::kAdd);
  ssq.attrs.push_back(ProgramAttr("input", sq));
  ssq.attrs.push_back(Ints("input_broadcast", {2, 0, 1, 1, 0}));
  ssq.attrs.push_back(Ints("input_dims", {rows, cols}));
  KernelParams p;
  p.kernel = "kiln.row_block";
  p.attrs.push_back(Ints("units", {3}));
  // inputs: 0 x, 1 zero, 2 g, 3 beta; units: 4 sum, 5 sum of squares, 6 tail
  AddUnit(&p, 0, "stablehlo.reduce", {0, 1}, {rows}, RowReduce(ScalarOp::kAdd));
  AddUnit(&p, 1, "stablehlo.reduce", {0, 4, 1}, {rows}, ssq);
  AddUnit(&p, 2, "kiln.elementwise", {0, 4, 5, 2, 3}, {rows, cols}, ln);
  auto ref = [](std::vector<int64_t>& d, AlignedFloats& a) {
    return TensorRef{ElementType::kF32, d, reinterpret_cast<uint8_t*>(a.data()), a.size() * 4};
  };
  const TensorRef in[4] = {ref(dims, x), {ElementType::kF32, scalar_dims, reinterpret_cast<uint8_t*>(&zero), 4},
                           ref(col_dims, g), ref(col_dims, beta)};
  const TensorRef out[1] = {ref(dims, y)};
  DispatchKeepingState(state, p, in, out, Pool());
  state.SetItemsProcessed(state.iterations() * rows * cols);
}

// softmax(x + bias) over short rows as the compiler emits it: range(0)
// rows of range(1) elements, the bias added in each unit's program, the
// dispatch's plan kept in its state as the VM keeps it. 10 columns: a
// classifier's head (examples/mlp.mlir; with one row this is per-dispatch
// overhead, about a sixth of the MLP's batch-1 call); 256 x 64: the
// attention scores of examples/models/transformer.py at batch 1 (4 heads,
// 64 tokens).
void BM_SoftmaxRowBlockClassifier(benchmark::State& state) {
  const int64_t rows = state.range(0), cols = state.range(1);
  AlignedFloats x(rows * cols, 0.0f), bias(cols, 0.0f), y(rows * cols, 0.0f);
  for (int64_t i = 0; i < rows * cols; ++i) x.data()[i] = static_cast<float>(i % 13) * 0.3f - 2.0f;
  for (int64_t i = 0; i < cols; ++i) bias.data()[i] = static_cast<float>(i) * 0.01f;
  float zero = 0.0f, ninf = -INFINITY;
  std::vector<int64_t> dims = {rows, cols}, bias_dims = {cols}, scalar_dims = {};
  auto program = [](std::vector<ScalarOp> ops) {  // x + bias, then ops on the running value and params 2, 3
    ScalarProgram prog;
    prog.param_types.assign(2 + (ops.size() + 1) / 2, ElementType::kF32);
    prog.instrs = {Instr(ScalarOp::kAdd, {0, 1})};
    uint16_t running = static_cast<uint16_t>(prog.param_types.size()), param = 2;
    for (ScalarOp op : ops) {
      prog.instrs.push_back(op == ScalarOp::kExponential ? Instr(op, {running}) : Instr(op, {running, param++}));
      ++running;
    }
    prog.results = {running};
    return prog;
  };
  KernelParams max = RowReduce(ScalarOp::kMaximum);
  max.attrs.push_back(ProgramAttr("input", program({})));
  max.attrs.push_back(Ints("input_broadcast", {2, 0, 1, 1, 1}));
  max.attrs.push_back(Ints("input_dims", {rows, cols}));
  KernelParams sum = RowReduce(ScalarOp::kAdd);
  sum.attrs.push_back(ProgramAttr("input", program({ScalarOp::kSubtract, ScalarOp::kExponential})));
  sum.attrs.push_back(Ints("input_broadcast", {2, 0, 1, 1, 1, 1, 0}));
  sum.attrs.push_back(Ints("input_dims", {rows, cols}));
  KernelParams tail = ElementwiseParams(program({ScalarOp::kSubtract, ScalarOp::kExponential, ScalarOp::kDivide}));
  tail.attrs.push_back(Ints("input_broadcast", {2, 0, 1, 1, 1, 1, 0, 1, 0}));
  KernelParams p;
  p.kernel = "kiln.row_block";
  p.attrs.push_back(Ints("units", {3}));
  // inputs: 0 x, 1 bias, 2 -inf, 3 zero; units: 4 max, 5 sum, 6 tail
  AddUnit(&p, 0, "stablehlo.reduce", {0, 1, 2}, {rows}, max);
  AddUnit(&p, 1, "stablehlo.reduce", {0, 1, 4, 3}, {rows}, sum);
  AddUnit(&p, 2, "kiln.elementwise", {0, 1, 4, 5}, {rows, cols}, tail);
  const TensorRef in[4] = {{ElementType::kF32, dims, reinterpret_cast<uint8_t*>(x.data()), x.size() * 4},
                           {ElementType::kF32, bias_dims, reinterpret_cast<uint8_t*>(bias.data()), bias.size() * 4},
                           {ElementType::kF32, scalar_dims, reinterpret_cast<uint8_t*>(&ninf), 4},
                           {ElementType::kF32, scalar_dims, reinterpret_cast<uint8_t*>(&zero), 4}};
  const TensorRef out[1] = {{ElementType::kF32, dims, reinterpret_cast<uint8_t*>(y.data()), y.size() * 4}};
  DispatchKeepingState(state, p, in, out, Pool());
  state.SetItemsProcessed(state.iterations() * rows);
}

void BM_Memcpy64MB(benchmark::State& state) {
  AlignedFloats x(kRows * kCols, 1.0f), y(kRows * kCols, 0.0f);
  for (auto _ : state) {
    std::memcpy(y.data(), x.data(), x.size() * 4);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetBytesProcessed(state.iterations() * kRows * kCols * 4 * 2);
}

BENCHMARK(BM_Memcpy64MB)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SoftmaxRows4096x4096)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LayerNormRows4096x4096)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SoftmaxRowBlock4096x4096)->Arg(kRows)->Arg(64)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LayerNormRowBlock4096x4096)->Arg(kRows)->Arg(64)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LayerNormRowBlockTokens)->UseRealTime();
BENCHMARK(BM_SoftmaxRowBlockClassifier)->Args({1, 10})->Args({64, 10})->Args({256, 64})->UseRealTime();

KernelParams MatmulParams() {
  KernelParams p;
  p.kernel = "stablehlo.dot_general";
  p.attrs.push_back(KernelAttr{"lhs_contracting_dimensions", {1}, {}, "", false, {}});
  p.attrs.push_back(KernelAttr{"rhs_contracting_dimensions", {0}, {}, "", false, {}});
  return p;
}

// C[m, n] = A[m, k] x B[k, n], f32; reports FLOPS (2 m k n per iteration).
// constant_b: B is a constant of the module (packed on the first call and
// kept in the dispatch's state, as the VM keeps it; fn must be the CPU's).
void RunDot(benchmark::State& state, KernelFn fn, const KernelParams& p, TaskRunner* runner, int64_t m, int64_t k,
            int64_t n, bool constant_b = false) {
  // Aligned as the runtime's buffers are (BM_CpuDotGeneralInt8).
  const size_t na = static_cast<size_t>(m * k), nb = static_cast<size_t>(k * n), nc = static_cast<size_t>(m * n);
  auto a = hwy::AllocateAligned<float>(na), b = hwy::AllocateAligned<float>(nb), c = hwy::AllocateAligned<float>(nc);
  for (size_t i = 0; i < na; ++i) a[i] = static_cast<float>(i % 7) * 0.25f - 0.5f;
  for (size_t i = 0; i < nb; ++i) b[i] = static_cast<float>(i % 5) * 0.125f - 0.25f;
  std::vector<int64_t> adims = {m, k}, bdims = {k, n}, cdims = {m, n};
  TensorRef in[2] = {{ElementType::kF32, adims, reinterpret_cast<uint8_t*>(a.get()), na * 4},
                     {ElementType::kF32, bdims, reinterpret_cast<uint8_t*>(b.get()), nb * 4}};
  TensorRef out[1] = {{ElementType::kF32, cdims, reinterpret_cast<uint8_t*>(c.get()), nc * 4}};
  if (fn == nullptr) {
    state.SkipWithError("no kernel");
    return;
  }
  if (constant_b) {
    in[1].constant_id = 1;
    DispatchKeepingState(state, p, in, out, runner);
  } else {
    for (auto _ : state) {
      Status s = fn(KernelCall{p, in, out, runner});
      benchmark::DoNotOptimize(c.get());
      if (!s.ok()) state.SkipWithError(s.message().c_str());
    }
  }
  state.SetItemsProcessed(state.iterations() * 2 * m * k * n);
  state.counters["FLOPS"] =
      benchmark::Counter(static_cast<double>(2 * m * k * n), benchmark::Counter::kIsIterationInvariantRate);
}

// Square products n x n x n (n = range(0)).
void BM_ReferenceDotGeneralF32(benchmark::State& state) {
  const int64_t n = state.range(0);
  RunDot(state, ref::FindReferenceKernel("stablehlo.dot_general"), MatmulParams(), nullptr, n, n, n);
}
void BM_CpuDotGeneralF32(benchmark::State& state) {
  KernelParams p = MatmulParams();
  const int64_t n = state.range(0);
  RunDot(state, cpu::FindCpuKernel(p), p, nullptr, n, n, n);
}
void BM_CpuDotGeneralF32Threads(benchmark::State& state) {
  KernelParams p = MatmulParams();
  const int64_t n = state.range(0);
  RunDot(state, cpu::FindCpuKernel(p), p, Pool(), n, n, n);
}
// The first layer of examples/mlp.mlir @main_b64: 64x784 x 784x128
// (range(0) = 1: one thread, else the pool).
void BM_CpuDotGeneralF32MlpLayer(benchmark::State& state) {
  KernelParams p = MatmulParams();
  RunDot(state, cpu::FindCpuKernel(p), p, state.range(0) == 1 ? nullptr : Pool(), 64, 784, 128);
}
// A layer of a batch-1 transformer (examples/models/transformer.py): 64
// tokens times constant weights, k x n = range(0) x range(1), B packed on
// the first call and kept in the dispatch's state as the VM keeps it; one
// thread.
void BM_CpuDotGeneralF32TokenLayer(benchmark::State& state) {
  KernelParams p = MatmulParams();
  RunDot(state, cpu::FindCpuKernel(p), p, nullptr, 64, state.range(0), state.range(1), /*constant_b=*/true);
}
// Batch-1 layer (GEMV): 1x4096 x 4096x4096 f32 on the pool (KILN_THREADS),
// bytes_per_second counting B's 64 MB read once: over BM_MemRead64MB's it
// is the fraction of the machine's read bandwidth the product streams at.
void BM_CpuGemvF32(benchmark::State& state) {
  KernelParams p = MatmulParams();
  RunDot(state, cpu::FindCpuKernel(p), p, Pool(), 1, 4096, 4096);
  state.SetBytesProcessed(state.iterations() * int64_t{4096} * 4096 * 4);
}
// Reading 64 MB (an XOR of its 64-bit words): the read bandwidth.
void BM_MemRead64MB(benchmark::State& state) {
  std::vector<uint64_t> x(size_t{8} << 20, 0x5a5a5a5a5a5a5a5aull);
  for (auto _ : state) {
    uint64_t acc = 0;
    for (uint64_t v : x) acc ^= v;
    benchmark::DoNotOptimize(acc);
  }
  state.SetBytesProcessed(state.iterations() * int64_t{64} << 20);
}
BENCHMARK(BM_MemRead64MB)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CpuGemvF32)->UseRealTime()->Unit(benchmark::kMillisecond);

// The pool's hand-off: one job of one empty task per worker (affine, as a
// batch-1 layer's split runs: range(0) = 1; or claimed in any order: 0),
// the time from publishing it to every worker having left it. What a
// dispatch split over the pool pays before its tasks' own work; the
// worker's start alone (cross-core cache-line transfers: the job word, its
// claim, the task's captures) is the larger part (docs/performance.md,
// "The pool's hand-off").
void BM_PoolHandoff(benchmark::State& state) {
  TaskRunner* pool = Pool();
  const int64_t tasks = pool->num_workers();
  struct alignas(64) Count {
    int64_t n = 0;
  };
  std::vector<Count> ran(static_cast<size_t>(tasks));  // a cache line per task: no false sharing
  auto task = [&](int64_t t, int) { ++ran[static_cast<size_t>(t)].n; };
  for (auto _ : state) {
    if (state.range(0) == 1) pool->RunAffine(tasks, task);
    else pool->Run(tasks, task);
  }
  for (const Count& r : ran)
    if (r.n != static_cast<int64_t>(state.iterations())) state.SkipWithError("a task did not run once per job");
}
BENCHMARK(BM_PoolHandoff)->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMicrosecond);

// The reference at 1024 takes tens of seconds per iteration; it is left out.
BENCHMARK(BM_ReferenceDotGeneralF32)->Arg(64)->Arg(128)->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CpuDotGeneralF32)->Arg(64)->Arg(128)->Arg(256)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CpuDotGeneralF32Threads)->Arg(1024)->Arg(2048)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CpuDotGeneralF32MlpLayer)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CpuDotGeneralF32TokenLayer)->Args({256, 256})->Args({256, 1024})->Args({1024, 256})->UseRealTime()->Unit(benchmark::kMicrosecond);

// The int8 GEMM (kernels/cpu/gemm_int8.cc): C[n, n] i32 = A[n, n] ui8 x
// B[n, n] i8 (the u8 x s8 form oneDNN's quantized Linear runs), OPS = 2 n^3
// per iteration. range(0) = n, range(1) = threads (1: the calling thread,
// else the pool); range(2) = 1: B a constant packed once and kept (the
// weights of a model), 0: packed on every call as the f32 rows above do.
void BM_CpuDotGeneralInt8(benchmark::State& state) {
  KernelParams p = MatmulParams();
  const int64_t n = state.range(0);
  // Aligned as the runtime's buffers are (a std::vector's 16-byte
  // alignment split every 64-byte row of C's tiles over two lines, and
  // where malloc placed them moved the time by 20%).
  const size_t count = static_cast<size_t>(n * n);
  auto a = hwy::AllocateAligned<uint8_t>(count), b = hwy::AllocateAligned<uint8_t>(count);
  auto c = hwy::AllocateAligned<int32_t>(count);
  for (size_t i = 0; i < count; ++i) a[i] = static_cast<uint8_t>(i * 7 % 251);
  for (size_t i = 0; i < count; ++i) b[i] = static_cast<uint8_t>(i * 13 % 253);
  std::vector<int64_t> dims = {n, n};
  TensorRef in[2] = {{ElementType::kUI8, dims, a.get(), count}, {ElementType::kSI8, dims, b.get(), count}};
  TensorRef out[1] = {{ElementType::kSI32, dims, reinterpret_cast<uint8_t*>(c.get()), count * 4}};
  KernelState kstate;
  if (state.range(2) == 1) in[1].constant_id = 1;
  KernelFn fn = cpu::FindCpuKernel(p);
  TaskRunner* runner = state.range(1) == 1 ? nullptr : Pool();
  for (auto _ : state) {
    KernelCall call{p, in, out, runner};
    call.state = &kstate;
    Status s = fn(call);
    benchmark::DoNotOptimize(c.get());
    if (!s.ok()) state.SkipWithError(s.message().c_str());
  }
  state.counters["OPS"] = benchmark::Counter(static_cast<double>(2 * n * n * n), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_CpuDotGeneralInt8)
    ->Args({1024, 1, 0})
    ->Args({1024, 1, 1})
    ->Args({1024, 2, 0})
    ->Args({1024, 2, 1})
    ->Args({256, 1, 1})
    ->Args({512, 1, 1})
    ->Args({2048, 2, 1})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

KernelAttr IntsAttr(const char* name, std::vector<int64_t> v) { return KernelAttr{name, std::move(v), {}, "", false, {}}; }

// The convolutions timed against torch (benchmarks/compare_peers.py):
//   0: 1x56x56x64 -> 64 channels, 3x3, padding 1, NHWC input, HWIO kernel
//      (a ResNet-50 stage-1 convolution);
//   1: the same in NCHW / OIHW, torch's own layout (torch-exported models);
//   2: depthwise 3x3, padding 1, 1x56x56x144 NHWC with a 3x3x1x144 kernel
//      (feature_group_count 144, a MobileNet-v2 stage-2 block);
//   3: the same depthwise convolution in NCHW / OIHW.
struct ConvCase {
  bool nchw;
  int64_t c, out, groups;
};
constexpr ConvCase kConvCases[] = {{false, 64, 64, 1}, {true, 64, 64, 1}, {false, 144, 144, 144}, {true, 144, 144, 144}};

double ConvFlops(const ConvCase& k) { return 2.0 * 56 * 56 * k.out * 9 * (k.c / k.groups); }

// `int8`: ui8 input (i8 where `signed_input`: TFLite's and JAX's
// activations) and i8 weights into i32 (the quantized 8-bit form), the
// weights a constant packed once and kept, as in a model; else f32.
void RunConv(benchmark::State& state, KernelFn fn, TaskRunner* runner, const ConvCase& k, bool int8 = false,
             bool signed_input = false) {
  KernelParams p;
  p.kernel = "stablehlo.convolution";
  const int64_t f = k.nchw ? 1 : 3;  // the feature dim of input and output
  std::vector<int64_t> sp = k.nchw ? std::vector<int64_t>{2, 3} : std::vector<int64_t>{1, 2};
  p.attrs = {IntsAttr("input_batch_dimension", {0}),  IntsAttr("input_feature_dimension", {f}),
             IntsAttr("input_spatial_dimensions", sp), IntsAttr("kernel_input_feature_dimension", {k.nchw ? 1 : 2}),
             IntsAttr("kernel_output_feature_dimension", {k.nchw ? 0 : 3}),
             IntsAttr("kernel_spatial_dimensions", k.nchw ? std::vector<int64_t>{2, 3} : std::vector<int64_t>{0, 1}),
             IntsAttr("output_batch_dimension", {0}), IntsAttr("output_feature_dimension", {f}),
             IntsAttr("output_spatial_dimensions", sp), IntsAttr("padding", {1, 1, 1, 1}),
             IntsAttr("feature_group_count", {k.groups}), IntsAttr("batch_group_count", {1})};
  const int64_t k_in = k.c / k.groups;
  std::vector<int64_t> in_dims = k.nchw ? std::vector<int64_t>{1, k.c, 56, 56} : std::vector<int64_t>{1, 56, 56, k.c};
  std::vector<int64_t> k_dims = k.nchw ? std::vector<int64_t>{k.out, k_in, 3, 3} : std::vector<int64_t>{3, 3, k_in, k.out};
  std::vector<int64_t> out_dims =
      k.nchw ? std::vector<int64_t>{1, k.out, 56, 56} : std::vector<int64_t>{1, 56, 56, k.out};
  std::vector<float> x(56 * 56 * k.c), w(9 * k_in * k.out), y(56 * 56 * k.out);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 13) * 0.1f - 0.6f;
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 7) * 0.01f - 0.03f;
  TensorRef in[2] = {{ElementType::kF32, in_dims, reinterpret_cast<uint8_t*>(x.data()), x.size() * 4},
                     {ElementType::kF32, k_dims, reinterpret_cast<uint8_t*>(w.data()), w.size() * 4}};
  TensorRef out[1] = {{ElementType::kF32, out_dims, reinterpret_cast<uint8_t*>(y.data()), y.size() * 4}};
  std::vector<uint8_t> x8(x.size()), w8(w.size());
  KernelState kstate;
  if (int8) {
    for (size_t i = 0; i < x8.size(); ++i) x8[i] = static_cast<uint8_t>(i * 7 % 251);
    for (size_t i = 0; i < w8.size(); ++i) w8[i] = static_cast<uint8_t>(i * 13 % 253);
    in[0] = {signed_input ? ElementType::kSI8 : ElementType::kUI8, in_dims, x8.data(), x8.size()};
    in[1] = {ElementType::kSI8, k_dims, w8.data(), w8.size()};
    in[1].constant_id = 1;
    out[0].type = ElementType::kSI32;  // y's bytes hold the i32 result
  }
  if (fn == nullptr) {
    state.SkipWithError("no kernel");
    return;
  }
  for (auto _ : state) {
    KernelCall call{p, in, out, runner};
    if (int8) call.state = &kstate;
    Status s = fn(call);
    benchmark::DoNotOptimize(y.data());
    if (!s.ok()) state.SkipWithError(s.message().c_str());
  }
  state.counters[int8 ? "OPS" : "FLOPS"] = benchmark::Counter(ConvFlops(k), benchmark::Counter::kIsIterationInvariantRate);
}
void BM_ReferenceConv56x56x64(benchmark::State& state) {
  RunConv(state, ref::FindReferenceKernel("stablehlo.convolution"), nullptr, kConvCases[0]);
}
// Arg: the kConvCases index.
void BM_CpuConv56x56Threads(benchmark::State& state) {
  KernelParams p;
  p.kernel = "stablehlo.convolution";
  RunConv(state, cpu::FindCpuKernel(p), Pool(), kConvCases[state.range(0)]);
}
BENCHMARK(BM_ReferenceConv56x56x64)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CpuConv56x56Threads)->DenseRange(0, 3)->UseRealTime()->Unit(benchmark::kMillisecond);
// The same convolutions in the quantized 8-bit form (ui8 x i8 -> i32).
// range(0) = the kConvCases index, range(1) = threads (1: the calling
// thread, else the pool).
// The requantize of an int8 convolution's accumulators (per-feature
// operand scales and folded zero points over 192 features, per-tensor
// result, the bounded form) over range(0) elements, one thread: 4 KiB of
// accumulators (an L1-resident tile), 192 KiB (one image of a 16 x 16 x 192
// activation, L2) and 12 MiB (64 images, memory).
void BM_CpuRequantizeRows(benchmark::State& state) {
  constexpr int64_t kFeatures = 192;
  const int64_t n = state.range(0);
  KernelParams p;
  p.kernel = "stablehlo.uniform_quantize";
  std::vector<double> scales;
  std::vector<int64_t> zps;
  for (int64_t j = 0; j < kFeatures; ++j) {
    scales.push_back(1e-4 * (1 + j % 7));
    zps.push_back(j % 11 - 5);
  }
  auto attr = [&](const char* name, std::vector<double> f, std::vector<int64_t> i) {
    KernelAttr a;
    a.name = name, a.floats = std::move(f), a.ints = std::move(i);
    p.attrs.push_back(std::move(a));
  };
  attr("operand_scales", scales, {});
  attr("operand_zero_points", {}, zps);
  attr("operand_quantized_dimension", {}, {1});
  attr("scales", {0.02}, {});
  attr("zero_points", {}, {-3});
  cpu::Requantizer rq;
  const std::vector<int64_t> dims = {n / kFeatures, kFeatures};
  if (!rq.Init(p, "operand_", dims, ElementType::kSI32, ElementType::kSI8)) {
    state.SkipWithError("requantize not taken");
    return;
  }
  // Cache-line aligned, as the kernels' scratch accumulators are.
  cpu::CacheLineVector<int32_t> q(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) q[static_cast<size_t>(i)] = static_cast<int32_t>((i * 7919) % 20000) - 10000;
  cpu::CacheLineVector<uint8_t> out(static_cast<size_t>(n));
  for (auto _ : state) {
    rq.Run(q.data(), 0, n, out.data(), /*q_bound=*/1 << 20);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_CpuRequantizeRows)->Arg(1 << 10)->Arg(192 << 8)->Arg(192 << 14)->UseRealTime();

void BM_CpuConvInt8(benchmark::State& state) {
  KernelParams p;
  p.kernel = "stablehlo.convolution";
  RunConv(state, cpu::FindCpuKernel(p), state.range(1) == 1 ? nullptr : Pool(), kConvCases[state.range(0)], true);
}
BENCHMARK(BM_CpuConvInt8)->ArgsProduct({{0, 1, 2, 3}, {1, 2}})->UseRealTime()->Unit(benchmark::kMillisecond);
// The same with i8 input (range(0) as above, one thread).
void BM_CpuConvInt8SignedInput(benchmark::State& state) {
  KernelParams p;
  p.kernel = "stablehlo.convolution";
  RunConv(state, cpu::FindCpuKernel(p), nullptr, kConvCases[state.range(0)], true, true);
}
BENCHMARK(BM_CpuConvInt8SignedInput)->DenseRange(0, 3)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kiln

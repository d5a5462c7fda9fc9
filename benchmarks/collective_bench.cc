// all_reduce bandwidth: 64 MB of f32 summed across 2 grid processes.
//
//   kiln-collective-bench                       in-process grid (threads)
//   mpirun -np 2 kiln-collective-bench          Kiln's MPI transport, and
//                                               MPI_Allreduce called directly
//
// Kiln's time per all_reduce is measured inside one invocation: a while
// loop of K all_reduces, timed for K = 0 and K = ITERS; the difference over
// ITERS excludes uploading the input and reading the result. Bandwidth =
// 64 MB / time per all_reduce (the "algorithm bandwidth" of MPI benchmarks).
// Prints the median of REPS repetitions.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "vm/context.h"
#include "vm/collectives/grid.h"
#ifdef KILN_HAVE_MPI
#include <mpi.h>

#include "vm/collectives/mpi/mpi_transport.h"
#endif

namespace {

constexpr int64_t kElements = 16 * 1024 * 1024;  // 64 MB of f32
constexpr int kIters = 8, kReps = 5;

const char* kProgram = R"(
func.func public @main(%x: tensor<16777216xf32>, %n: tensor<i32>) -> tensor<16777216xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = "stablehlo.while"(%c0, %x) ({
    ^bb0(%i: tensor<i32>, %acc: tensor<16777216xf32>):
      %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
  }, {
    ^bb0(%i: tensor<i32>, %acc: tensor<16777216xf32>):
      %a = "stablehlo.all_reduce"(%acc) ({
        ^bb0(%l: tensor<f32>, %m: tensor<f32>):
          %s = stablehlo.add %l, %m : tensor<f32>
          stablehlo.return %s : tensor<f32>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<16777216xf32>) -> tensor<16777216xf32>
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %c1 : tensor<i32>
      stablehlo.return %j, %a : tensor<i32>, tensor<16777216xf32>
  }) : (tensor<i32>, tensor<16777216xf32>) -> (tensor<i32>, tensor<16777216xf32>)
  return %r#1 : tensor<16777216xf32>
}
)";

std::vector<kiln::vm::HostTensor> Inputs(int32_t iterations) {
  kiln::vm::HostTensor x;
  x.type = kiln::ElementType::kF32;
  x.dims = {kElements};
  x.data.resize(kElements * 4);
  std::vector<float> ones(kElements, 1.0f / 1024);
  std::memcpy(x.data.data(), ones.data(), x.data.size());
  kiln::vm::HostTensor n;
  n.type = kiln::ElementType::kSI32;
  n.data.resize(4);
  std::memcpy(n.data.data(), &iterations, 4);
  return {x, n};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void Report(const char* what, double seconds_per_op) {
  double mb = kElements * 4 / 1e6;
  std::printf("%-40s %8.2f ms  %8.2f GB/s\n", what, seconds_per_op * 1e3, mb / 1e3 / seconds_per_op);
}

}  // namespace

int main(int argc, char** argv) {
  kiln::compiler::CompileOptions options;
  options.target = "cpu";
  auto bytes = kiln::compiler::Compile(kProgram, "collective_bench.mlir", options, nullptr);
  if (!bytes.ok()) {
    std::fprintf(stderr, "%s\n", bytes.status().message().c_str());
    return 1;
  }
  auto module = kiln::vm::LoadModule(std::move(bytes.value()));
  if (!module.ok()) {
    std::fprintf(stderr, "%s\n", module.status().message().c_str());
    return 1;
  }
  auto device = kiln::hal::CreateCpuDevice(kiln::hal::CpuMode::kInline);
  using Clock = std::chrono::steady_clock;

#ifdef KILN_HAVE_MPI
  if (kiln::vm::MpiSession::LaunchedByMpirun()) {
    auto session = kiln::vm::MpiSession::Init(&argc, &argv);
    if (!session.ok() || (*session)->size() != 2) {
      std::fprintf(stderr, "run with mpirun -np 2\n");
      return 1;
    }
    int rank = (*session)->rank();
    // MPI_Allreduce, directly.
    std::vector<float> in(kElements, 1.0f), out(kElements);
    std::vector<double> times;
    for (int r = 0; r < kReps + 1; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      auto t0 = Clock::now();
      for (int i = 0; i < kIters; ++i)
        MPI_Allreduce(in.data(), out.data(), static_cast<int>(kElements), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      if (r > 0) times.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / kIters);
    }
    if (rank == 0) Report("MPI_Allreduce (Open MPI, 2 ranks)", Median(times));
    // Kiln's MPI transport.
    auto context = kiln::vm::Context::Create(*module, device.get());
    if (!context.ok()) return 1;
    auto run = [&](int32_t iterations) {
      auto env = std::make_shared<kiln::vm::GridEnvironment>();
      env->num_replicas = 2;
      env->transport = kiln::vm::CreateMpiTransport(2, 1);
      kiln::vm::InvokeOptions opts;
      opts.replica_id = static_cast<uint32_t>(rank);
      opts.grid = env;
      auto inputs = Inputs(iterations);
      MPI_Barrier(MPI_COMM_WORLD);
      auto t0 = Clock::now();
      auto r = (*context)->Invoke("main", inputs, opts);
      double t = std::chrono::duration<double>(Clock::now() - t0).count();
      if (!r.ok()) std::fprintf(stderr, "%s\n", r.status().message().c_str());
      return t;
    };
    times.clear();
    for (int r = 0; r < kReps + 1; ++r) {
      double base = run(0), full = run(kIters);
      if (r > 0) times.push_back((full - base) / kIters);
    }
    if (rank == 0) Report("Kiln all_reduce, MPI transport", Median(times));
    return 0;
  }
#endif
  // The machine's copy bandwidth for scale: bytes read plus written per
  // second by memcpy of the same 64 MB (the in-process all_reduce moves
  // 2 x 64 MB in and 2 x 64 MB out per call, over both processes).
  {
    std::vector<uint8_t> from(kElements * 4, 1), to(kElements * 4, 0);
    std::vector<double> copies;
    for (int r = 0; r < kReps + 1; ++r) {
      auto t0 = Clock::now();
      std::memcpy(to.data(), from.data(), from.size());
      if (r > 0) copies.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    const double t = Median(copies);
    std::printf("%-40s %8.2f ms  %8.2f GB/s read+written\n", "memcpy 64 MB (1 thread)", t * 1e3,
                2 * kElements * 4 / 1e9 / t);
  }
  // In-process: two grid processes on two threads.
  auto run = [&](int32_t iterations) {
    kiln::vm::GridRun grid;
    grid.num_replicas = 2;
    grid.functions = {"main", "main"};
    grid.inputs = {Inputs(iterations), Inputs(iterations)};
    auto t0 = Clock::now();
    auto r = kiln::vm::RunGrid(*module, device.get(), grid);
    double t = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!r.ok() || !r->FirstError(1).ok()) std::fprintf(stderr, "grid failed\n");
    return t;
  };
  std::vector<double> times;
  for (int r = 0; r < kReps + 1; ++r) {
    double base = run(0), full = run(kIters);
    if (r > 0) times.push_back((full - base) / kIters);
  }
  Report("Kiln all_reduce, in-process (2 threads)", Median(times));
  std::printf("%-40s %8s     %8.2f GB/s read+written\n", "  the same, as bytes moved", "",
              4 * kElements * 4 / 1e9 / Median(times));
  return 0;
}

// Collectives beside what they run on, at 1 KB, 1 MB and 64 MB of f32 per
// process: all_reduce (sum), all_gather, reduce_scatter (sum), all_to_all,
// collective_permute (a ring) and collective_broadcast (root 0).
//
//   kiln-collective-bench [--sizes=1K,1M,64M] [--ops=all_reduce,...]
//       in-process grid of 2 (threads), beside 2 threads of memcpy, each
//       copying one process's bytes
//   mpirun -np N kiln-collective-bench [...]
//       Kiln's MPI transport with N ranks, beside the MPI call that does
//       the same (MPI_Allreduce, MPI_Allgather, MPI_Reduce_scatter_block,
//       MPI_Alltoall, MPI_Sendrecv, MPI_Bcast) on buffers of the same size
//
// Kiln's time per collective is measured inside one invocation: a while
// loop of K collectives, timed for K = ITERS and K = 2 ITERS; the difference
// of their medians over REPS repetitions, over ITERS, excludes uploading the
// input, reading the result and the first use of the result buffers (fresh
// pages), which a steady state does not pay. Prints that and the median of
// the peer's REPS repetitions (over MPI, Kiln's and the MPI call's
// repetitions alternate, so both see the same machine), and the
// ratio peer time / Kiln time (above 1: Kiln faster). Bandwidth = bytes per
// process / time (the "algorithm bandwidth" of MPI benchmarks).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "compiler/compile.h"
#include "hal/cpu/buffer_pool.h"
#include "hal/cpu/cpu_device.h"
#include "vm/collectives/grid.h"
#include "vm/context.h"
#ifdef KILN_HAVE_MPI
#include <mpi.h>

#include "vm/collectives/mpi/mpi_transport.h"
#endif

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kReps = 5;

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

int64_t ParseSize(const std::string& s) {
  int64_t n = std::stoll(s);
  if (s.back() == 'K') n <<= 10;
  if (s.back() == 'M') n <<= 20;
  return n;
}

std::string T(int64_t n) { return "tensor<" + std::to_string(n) + "xf32>"; }

std::string Groups(int n) {
  std::string g = "dense<[[";
  for (int i = 0; i < n; ++i) g += (i ? ", " : "") + std::to_string(i);
  return g + "]]> : tensor<1x" + std::to_string(n) + "xi64>";
}

const char* kSum = R"(({
        ^bb0(%l: tensor<f32>, %m: tensor<f32>):
          %s = stablehlo.add %l, %m : tensor<f32>
          stablehlo.return %s : tensor<f32>
      }))";

// The collective `op` of `elements` f32 per process among `n` processes, as
// one MLIR op from %x to %r, and the result's element count.
std::string Collective(const std::string& op, int64_t elements, int n, int64_t* result_elements) {
  *result_elements = elements;
  const std::string groups = "replica_groups = " + Groups(n);
  if (op == "all_reduce")
    return "\"stablehlo.all_reduce\"(%x) " + std::string(kSum) + " {" + groups + "} : (" + T(elements) + ") -> " +
           T(elements);
  if (op == "all_gather") {
    *result_elements = elements * n;
    return "\"stablehlo.all_gather\"(%x) {all_gather_dim = 0 : i64, " + groups + "} : (" + T(elements) + ") -> " +
           T(elements * n);
  }
  if (op == "reduce_scatter") {
    *result_elements = elements / n;
    return "\"stablehlo.reduce_scatter\"(%x) " + std::string(kSum) + " {scatter_dimension = 0 : i64, " + groups +
           "} : (" + T(elements) + ") -> " + T(elements / n);
  }
  if (op == "all_to_all")
    return "\"stablehlo.all_to_all\"(%x) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = " +
           std::to_string(n) + " : i64, " + groups + "} : (" + T(elements) + ") -> " + T(elements);
  if (op == "collective_permute") {
    std::string pairs = "dense<[";
    for (int i = 0; i < n; ++i) pairs += (i ? ", [" : "[") + std::to_string(i) + ", " + std::to_string((i + 1) % n) + "]";
    pairs += "]> : tensor<" + std::to_string(n) + "x2xi64>";
    return "\"stablehlo.collective_permute\"(%x) {source_target_pairs = " + pairs + "} : (" + T(elements) + ") -> " +
           T(elements);
  }
  if (op == "collective_broadcast")
    return "\"stablehlo.collective_broadcast\"(%x) {" + groups + "} : (" + T(elements) + ") -> " + T(elements);
  return "";
}

// @main(x, n): n times r := OP(x) in a while loop, r starting as zeros;
// returns r's first element, so that reading the result back (a fresh host
// tensor as large as r) does not add its page faults to the timings.
std::string Program(const std::string& op, int64_t elements, int n) {
  int64_t re = 0;
  const std::string c = Collective(op, elements, n, &re);
  const std::string x = T(elements), r = T(re);
  return "func.func public @main(%x0: " + x + ", %n: tensor<i32>) -> tensor<1xf32> {\n" +
         "  %c0 = stablehlo.constant dense<0> : tensor<i32>\n" +
         "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n" +
         "  %r0 = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> " + r + "\n" +
         "  %w:3 = \"stablehlo.while\"(%c0, %x0, %r0) ({\n" +
         "    ^bb0(%i: tensor<i32>, %x: " + x + ", %r: " + r + "):\n" +
         "      %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>\n" +
         "      stablehlo.return %p : tensor<i1>\n" + "  }, {\n" + "    ^bb0(%i: tensor<i32>, %x: " + x + ", %r: " + r +
         "):\n" + "      %y = " + c + "\n" + "      %c1 = stablehlo.constant dense<1> : tensor<i32>\n" +
         "      %j = stablehlo.add %i, %c1 : tensor<i32>\n" + "      stablehlo.return %j, %x, %y : tensor<i32>, " + x +
         ", " + r + "\n" + "  }) : (tensor<i32>, " + x + ", " + r + ") -> (tensor<i32>, " + x + ", " + r + ")\n" +
         "  %s = stablehlo.slice %w#2 [0:1] : (" + r + ") -> tensor<1xf32>\n" + "  return %s : tensor<1xf32>\n}\n";
}

kiln::vm::HostTensor F32(int64_t elements, float value) {
  kiln::vm::HostTensor t;
  t.type = kiln::ElementType::kF32;
  t.dims = {elements};
  std::vector<float> v(static_cast<size_t>(elements), value);
  t.data.resize(v.size() * 4);
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

std::vector<kiln::vm::HostTensor> Inputs(int64_t elements, int32_t iterations) {
  kiln::vm::HostTensor n;
  n.type = kiln::ElementType::kSI32;
  n.data.resize(4);
  std::memcpy(n.data.data(), &iterations, 4);
  return {F32(elements, 1.0f / 1024), n};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Repetitions of a collective by size: enough to time small ones.
int Iterations(int64_t bytes) { return bytes <= (1 << 12) ? 200 : bytes <= (1 << 21) ? 20 : 12; }

std::string SizeText(int64_t bytes) {
  return bytes >= (1 << 20) ? std::to_string(bytes >> 20) + " MB" : std::to_string(bytes >> 10) + " KB";
}

// kiln_s <= 0: the machine's noise (in the loops' fixed part: the first
// touch of the result buffers) exceeded the collectives' own time.
void Row(const std::string& op, int64_t bytes, const char* peer, double peer_s, double kiln_s) {
  if (kiln_s <= 0) {
    std::printf("| %s | %s | %s %.3f ms | noise | | |\n", op.c_str(), SizeText(bytes).c_str(), peer, peer_s * 1e3);
    std::fflush(stdout);
    return;
  }
  std::printf("| %s | %s | %s %.3f ms | %.3f ms | %.2f GB/s | %.2fx |\n", op.c_str(), SizeText(bytes).c_str(), peer,
              peer_s * 1e3, kiln_s * 1e3, static_cast<double>(bytes) / 1e9 / kiln_s, peer_s / kiln_s);
  std::fflush(stdout);
}

std::shared_ptr<const kiln::vm::LoadedModule> Compile(const std::string& text) {
  kiln::compiler::CompileOptions options;
  options.target = "cpu";
  auto bytes = kiln::compiler::Compile(text, "collective_bench.mlir", options, nullptr);
  if (!bytes.ok()) {
    std::fprintf(stderr, "%s\n", bytes.status().message().c_str());
    return nullptr;
  }
  auto module = kiln::vm::LoadModule(std::move(bytes.value()));
  if (!module.ok()) {
    std::fprintf(stderr, "%s\n", module.status().message().c_str());
    return nullptr;
  }
  return *module;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> ops = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_permute",
                                  "collective_broadcast"};
  std::vector<std::string> sizes = {"1K", "1M", "64M"};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--ops=", 0) == 0) ops = Split(a.substr(6));
    if (a.rfind("--sizes=", 0) == 0) sizes = Split(a.substr(8));
  }
  auto device = kiln::hal::CreateCpuDevice(kiln::hal::CpuMode::kInline);

#ifdef KILN_HAVE_MPI
  if (kiln::vm::MpiSession::LaunchedByMpirun()) {
    auto session = kiln::vm::MpiSession::Init(&argc, &argv);
    if (!session.ok()) return 1;
    const int rank = (*session)->rank(), n = (*session)->size();
    if (rank == 0) {
      std::printf("MPI, %d ranks: per process | op | size | the MPI call | Kiln | Kiln bandwidth | MPI / Kiln |\n", n);
      std::printf("| --- | --- | --- | --- | --- | --- |\n");
    }
    for (const auto& size : sizes)
      for (const auto& op : ops) {
        const int64_t bytes = ParseSize(size), elements = bytes / 4 / n * n;
        const int iters = Iterations(bytes);
        int64_t re = 0;
        Collective(op, elements, n, &re);
        // The MPI call, one repetition: ITERS calls on the same buffers.
        std::vector<float> in(static_cast<size_t>(elements), 1.0f), out(static_cast<size_t>(std::max(re, elements)));
        const int count = static_cast<int>(elements);
        auto peer_rep = [&] {
          MPI_Barrier(MPI_COMM_WORLD);
          auto t0 = Clock::now();
          for (int i = 0; i < iters; ++i) {
            if (op == "all_reduce") MPI_Allreduce(in.data(), out.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            if (op == "all_gather") MPI_Allgather(in.data(), count, MPI_FLOAT, out.data(), count, MPI_FLOAT, MPI_COMM_WORLD);
            if (op == "reduce_scatter")
              MPI_Reduce_scatter_block(in.data(), out.data(), count / n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            if (op == "all_to_all")
              MPI_Alltoall(in.data(), count / n, MPI_FLOAT, out.data(), count / n, MPI_FLOAT, MPI_COMM_WORLD);
            if (op == "collective_permute")
              MPI_Sendrecv(in.data(), count, MPI_FLOAT, (rank + 1) % n, 7, out.data(), count, MPI_FLOAT,
                           (rank + n - 1) % n, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (op == "collective_broadcast") {
              if (rank == 0) std::memcpy(out.data(), in.data(), in.size() * 4);
              MPI_Bcast(out.data(), count, MPI_FLOAT, 0, MPI_COMM_WORLD);
            }
          }
          return std::chrono::duration<double>(Clock::now() - t0).count() / iters;
        };
        // Kiln's MPI transport, one repetition: loops of ITERS and 2 ITERS.
        auto module = Compile(Program(op, elements, n));
        if (!module) return 1;
        auto context = kiln::vm::Context::Create(module, device.get());
        if (!context.ok()) return 1;
        auto run = [&](int32_t iterations) {
          auto env = std::make_shared<kiln::vm::GridEnvironment>();
          env->num_replicas = static_cast<uint32_t>(n);
          env->transport = kiln::vm::CreateMpiTransport(static_cast<uint32_t>(n), 1);
          kiln::vm::InvokeOptions opts;
          opts.replica_id = static_cast<uint32_t>(rank);
          opts.grid = env;
          auto inputs = Inputs(elements, iterations);
          MPI_Barrier(MPI_COMM_WORLD);
          auto t0 = Clock::now();
          auto r = (*context)->Invoke("main", inputs, opts);
          double t = std::chrono::duration<double>(Clock::now() - t0).count();
          if (!r.ok()) std::fprintf(stderr, "%s\n", r.status().message().c_str());
          return t;
        };
        // Interleaved, so that both see the same machine (the first
        // repetition of each warms up and is not counted).
        std::vector<double> peer_times, bases, fulls;
        for (int r = 0; r < kReps + 1; ++r) {
          double p = peer_rep(), base = run(iters), full = run(2 * iters);
          if (r > 0) {
            peer_times.push_back(p);
            bases.push_back(base);
            fulls.push_back(full);
          }
        }
        const double peer = Median(peer_times);
        if (rank == 0) Row(op, elements * 4, "", peer, (Median(fulls) - Median(bases)) / iters);
      }
    return 0;
  }
#endif
  // In-process: a grid of two processes on two threads, beside the
  // machine's memcpy bandwidth: two threads at once, each copying one
  // process's bytes (read + written: the copy a collective cannot do with
  // less), on buffers given huge pages as the CPU device's are.
  const int n = 2;
  std::printf("in-process, 2 threads: | op | size | memcpy | Kiln | Kiln bandwidth | memcpy / Kiln |\n");
  std::printf("| --- | --- | --- | --- | --- | --- |\n");
  for (const auto& size : sizes)
    for (const auto& op : ops) {
      const int64_t bytes = ParseSize(size), elements = bytes / 4 / n * n;
      const int iters = Iterations(bytes);
      int64_t re = 0;
      Collective(op, elements, n, &re);
      std::vector<double> copies;
      {
        // Blocks from the CPU device's own pool: huge pages as Kiln's buffers.
        kiln::hal::BufferPool pool(0);
        const size_t size = static_cast<size_t>(elements) * 4;
        std::vector<uint8_t*> from(n), to(n);
        std::vector<size_t> capacity(2 * n);
        for (int p = 0; p < n; ++p) {
          from[p] = pool.Acquire(size, &capacity[2 * p]);
          std::memset(from[p], 1, size);
          to[p] = pool.Acquire(size, &capacity[2 * p + 1]);
        }
        for (int r = 0; r < kReps + 1; ++r) {
          auto t0 = Clock::now();
          std::vector<std::thread> threads;
          for (int p = 0; p < n; ++p)
            threads.emplace_back([&, p] {
              for (int i = 0; i < iters; ++i) std::memcpy(to[p], from[p], size);
            });
          for (auto& t : threads) t.join();
          if (r > 0) copies.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / iters);
        }
        for (int p = 0; p < n; ++p) pool.Release(from[p], capacity[2 * p]), pool.Release(to[p], capacity[2 * p + 1]);
      }
      auto module = Compile(Program(op, elements, n));
      if (!module) return 1;
      auto run = [&](int32_t iterations) {
        kiln::vm::GridRun grid;
        grid.num_replicas = n;
        grid.functions = {"main", "main"};
        grid.inputs = {Inputs(elements, iterations), Inputs(elements, iterations)};
        auto t0 = Clock::now();
        auto r = kiln::vm::RunGrid(module, device.get(), grid);
        double t = std::chrono::duration<double>(Clock::now() - t0).count();
        if (!r.ok()) std::fprintf(stderr, "grid failed: %s\n", r.status().message().c_str());
        else if (kiln::Status e = r->FirstError(1); !e.ok())
          std::fprintf(stderr, "grid failed: %s\n", e.message().c_str());
        return t;
      };
      std::vector<double> bases, fulls;
      for (int r = 0; r < kReps + 1; ++r) {
        double base = run(iters), full = run(2 * iters);
        if (r > 0) bases.push_back(base), fulls.push_back(full);
      }
      Row(op, elements * 4, "", Median(copies), (Median(fulls) - Median(bases)) / iters);
    }
  return 0;
}

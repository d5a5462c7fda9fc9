// Process grids end to end: each process-group strategy of the spec on a
// 2x2 grid (expected values worked out by hand from the spec's formulas),
// the timeout error, a peer that never arrives, and mismatched collectives.
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "vm/collectives/grid.h"

namespace kiln {
namespace {

// Every process computes v = 10 * replica_id + partition_id as tensor<1xui32>
// and applies BODY to it (%v); functions are named per test.
std::string Program(const std::string& result_type, const std::string& body) {
  return R"(
module @grid {
  func.func public @main() -> )" + result_type + R"( {
    %r = stablehlo.replica_id : tensor<ui32>
    %p = stablehlo.partition_id : tensor<ui32>
    %c10 = stablehlo.constant dense<10> : tensor<ui32>
    %t = stablehlo.multiply %r, %c10 : tensor<ui32>
    %s = stablehlo.add %t, %p : tensor<ui32>
    %v = stablehlo.reshape %s : (tensor<ui32>) -> tensor<1xui32>
)" + body + R"(
  }
  func.func public @idle() -> tensor<1xui32> {
    %c = stablehlo.constant dense<7> : tensor<1xui32>
    return %c : tensor<1xui32>
  }
  func.func public @stuck() -> tensor<1xui32> {
    %tok = stablehlo.after_all : !stablehlo.token
    %x, %t2 = "stablehlo.recv"(%tok) {channel_handle = #stablehlo.channel_handle<handle = 9, type = 1>, is_host_transfer = false} : (!stablehlo.token) -> (tensor<1xui32>, !stablehlo.token)
    return %x : tensor<1xui32>
  }
}
)";
}

const char* kSum = R"(({
      ^bb0(%a: tensor<ui32>, %b: tensor<ui32>):
        %z = stablehlo.add %a, %b : tensor<ui32>
        stablehlo.return %z : tensor<ui32>
    }))";

std::vector<uint32_t> U32(const vm::HostTensor& t) {
  std::vector<uint32_t> v(t.data.size() / 4);
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

class Grid : public ::testing::TestWithParam<hal::CpuMode> {
 protected:
  // Runs `functions` (one per process, grid order) on a 2x2 grid.
  StatusOr<vm::GridResult> Run(const std::string& source, std::vector<std::string> functions,
                               std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    compiler::CompileOptions options;
    options.target = "cpu";
    auto bytes = compiler::Compile(source, "grid.mlir", options, nullptr);
    if (!bytes.ok()) return bytes.status();
    auto module = vm::LoadModule(std::move(bytes.value()));
    if (!module.ok()) return module.status();
    device_ = hal::CreateCpuDevice(GetParam());
    vm::GridRun run;
    run.num_replicas = 2;
    run.num_partitions = 2;
    run.functions = std::move(functions);
    run.inputs.resize(4);
    run.timeout = timeout;
    return vm::RunGrid(*module, device_.get(), run);
  }
  // The one result of each process, in grid order.
  std::vector<std::vector<uint32_t>> Values(const std::string& source, const std::string& result_type) {
    auto r = Run(source, {"main", "main", "main", "main"});
    EXPECT_TRUE(r.ok()) << r.status().message();
    std::vector<std::vector<uint32_t>> out;
    if (!r.ok()) return out;
    EXPECT_TRUE(r->FirstError(2).ok()) << r->FirstError(2).message();
    for (const auto& p : r->processes) {
      EXPECT_EQ(p.results.size(), 1u);
      out.push_back(p.results.empty() ? std::vector<uint32_t>{} : U32(p.results[0]));
    }
    (void)result_type;
    return out;
  }
  std::unique_ptr<hal::Device> device_;
};

using V = std::vector<std::vector<uint32_t>>;

TEST_P(Grid, ReplicaAndPartitionIds) {
  EXPECT_EQ(Values(Program("tensor<1xui32>", "    return %v : tensor<1xui32>"), ""), (V{{0}, {1}, {10}, {11}}));
}

TEST_P(Grid, CrossReplica) {
  // No channel: groups {(0,p), (1,p)} for each partition p.
  std::string body = R"(    %g = "stablehlo.all_gather"(%v) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<1xui32>) -> tensor<2xui32>
    return %g : tensor<2xui32>)";
  EXPECT_EQ(Values(Program("tensor<2xui32>", body), ""), (V{{0, 10}, {1, 11}, {0, 10}, {1, 11}}));
}

TEST_P(Grid, CrossReplicaAndPartition) {
  // A channel, no global ids: one group [(0,0), (1,0), (0,1), (1,1)].
  std::string body = R"(    %g = "stablehlo.all_gather"(%v) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<1xui32>) -> tensor<4xui32>
    return %g : tensor<4xui32>)";
  V want(4, {0, 10, 1, 11});
  EXPECT_EQ(Values(Program("tensor<4xui32>", body), ""), want);
}

TEST_P(Grid, FlattenedIds) {
  // Global ids r * 2 + p: groups {0, 3} and {2, 1}, in that order.
  std::string body = R"(    %g = "stablehlo.all_gather"(%v) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 3], [2, 1]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, use_global_device_ids} : (tensor<1xui32>) -> tensor<2xui32>
    return %g : tensor<2xui32>)";
  EXPECT_EQ(Values(Program("tensor<2xui32>", body), ""), (V{{0, 11}, {10, 1}, {10, 1}, {0, 11}}));
}

TEST_P(Grid, CrossPartitionAllToAll) {
  // A channel: groups {(r,0), (r,1)}; each process sends part k of [v, v+100] to member k.
  std::string body = R"(    %h = stablehlo.constant dense<100> : tensor<1xui32>
    %w = stablehlo.add %v, %h : tensor<1xui32>
    %x = stablehlo.concatenate %v, %w, dim = 0 : (tensor<1xui32>, tensor<1xui32>) -> tensor<2xui32>
    %g = "stablehlo.all_to_all"(%x) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<2xui32>) -> tensor<2xui32>
    return %g : tensor<2xui32>)";
  EXPECT_EQ(Values(Program("tensor<2xui32>", body), ""), (V{{0, 1}, {100, 101}, {10, 11}, {110, 111}}));
}

TEST_P(Grid, AllReduceAndReduceScatter) {
  // reduce_scatter over all four processes (flattened ids): each gets the
  // sum 0 + 1 + 10 + 11 = 22 of its quarter; all_reduce across replicas
  // (no channel) sums (0,p) and (1,p): 10 + 2p.
  std::string body = std::string(R"(    %x = stablehlo.concatenate %v, %v, %v, %v, dim = 0 : (tensor<1xui32>, tensor<1xui32>, tensor<1xui32>, tensor<1xui32>) -> tensor<4xui32>
    %g = "stablehlo.reduce_scatter"(%x) )") + kSum + R"( {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 0>, use_global_device_ids} : (tensor<4xui32>) -> tensor<1xui32>
    %a = "stablehlo.all_reduce"(%v) )" + kSum + R"( {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<1xui32>) -> tensor<1xui32>
    %m = stablehlo.concatenate %g, %a, dim = 0 : (tensor<1xui32>, tensor<1xui32>) -> tensor<2xui32>
    return %m : tensor<2xui32>)";
  EXPECT_EQ(Values(Program("tensor<2xui32>", body), ""), (V{{22, 10}, {22, 12}, {22, 10}, {22, 12}}));
}

TEST_P(Grid, RuntimeErrorInOneProcessFailsItsPeersQuickly) {
  // all_to_all whose group size differs from split_count is refused at run
  // time (the group size is only known there); peers do not hang.
  std::string body = R"(    %x = stablehlo.concatenate %v, %v, %v, %v, dim = 0 : (tensor<1xui32>, tensor<1xui32>, tensor<1xui32>, tensor<1xui32>) -> tensor<4xui32>
    %g = "stablehlo.all_to_all"(%x) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 4 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<4xui32>) -> tensor<4xui32>
    return %g : tensor<4xui32>)";
  auto r = Run(Program("tensor<4xui32>", body), {"main", "main", "main", "main"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  Status s = r->FirstError(2);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("a process group of 2 processes, but split_count is 4"), std::string::npos) << s.message();
}

TEST_P(Grid, CollectivePermuteAndBroadcast) {
  // permute across partitions (channel 1): (r,0) -> (r,1); (r,0) gets zeros.
  // broadcast across replicas from replica 1 of each partition.
  std::string body = R"(    %q = "stablehlo.collective_permute"(%v) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<1xui32>) -> tensor<1xui32>
    %b = "stablehlo.collective_broadcast"(%v) {replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<1xui32>) -> tensor<1xui32>
    %x = stablehlo.concatenate %q, %b, dim = 0 : (tensor<1xui32>, tensor<1xui32>) -> tensor<2xui32>
    return %x : tensor<2xui32>)";
  EXPECT_EQ(Values(Program("tensor<2xui32>", body), ""), (V{{0, 10}, {0, 11}, {0, 10}, {10, 11}}));
}

TEST_P(Grid, PermuteMeetsOnlyTheProcessesItsPairsName) {
  // Pairs [[1, 1]] across partitions: only (r, 1) take part (a self-loop);
  // (r, 0) run another function and nobody waits for them.
  std::string body = R"(    %q = "stablehlo.collective_permute"(%v) {source_target_pairs = dense<[[1, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<1xui32>) -> tensor<1xui32>
    return %q : tensor<1xui32>)";
  auto r = Run(Program("tensor<1xui32>", body), {"idle", "main", "idle", "main"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->FirstError(2).ok()) << r->FirstError(2).message();
  EXPECT_EQ(U32(r->processes[1].results[0]), (std::vector<uint32_t>{1}));
  EXPECT_EQ(U32(r->processes[3].results[0]), (std::vector<uint32_t>{11}));
}

const char* kAllReduce = R"(    %a = "stablehlo.all_reduce"(%v) ({
      ^bb0(%x: tensor<ui32>, %y: tensor<ui32>):
        %z = stablehlo.add %x, %y : tensor<ui32>
        stablehlo.return %z : tensor<ui32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<1xui32>) -> tensor<1xui32>
    return %a : tensor<1xui32>)";

TEST_P(Grid, PeerThatReturnsWithoutArrivingIsNamed) {
  // (1, 0) runs a function without the all_reduce: (0, 0) fails at once.
  auto t0 = std::chrono::steady_clock::now();
  auto r = Run(Program("tensor<1xui32>", kAllReduce), {"main", "main", "idle", "main"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->processes[1].status.ok());  // (0,1) and (1,1) form their own group
  EXPECT_TRUE(r->processes[3].status.ok());
  const Status& s = r->processes[0].status;
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("stablehlo.all_reduce (channel 0)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("process (1, 0) returned without reaching it"), std::string::npos) << s.message();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
}

TEST_P(Grid, TimeoutNamesCollectiveChannelAndMissingProcess) {
  // (1, 0) blocks in a recv nobody sends to: (0, 0) times out in its all_reduce.
  auto t0 = std::chrono::steady_clock::now();
  auto r = Run(Program("tensor<1xui32>", kAllReduce), {"main", "main", "stuck", "main"},
               std::chrono::milliseconds(300));
  ASSERT_TRUE(r.ok()) << r.status().message();
  // Whichever deadline passes first, (0, 0)'s error names its collective
  // and the process it waited for, and the grid's error is the timeout.
  const Status& mine = r->processes[0].status;
  ASSERT_FALSE(mine.ok());
  EXPECT_NE(mine.message().find("stablehlo.all_reduce (channel 0)"), std::string::npos) << mine.message();
  EXPECT_NE(mine.message().find("process (1, 0)"), std::string::npos) << mine.message();
  Status s = r->FirstError(2);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s.message();
  EXPECT_NE(s.message().find("timed out after 0.3 s"), std::string::npos) << s.message();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
}

TEST_P(Grid, RecvWithoutSenderTimesOut) {
  auto r = Run(Program("tensor<1xui32>", "    return %v : tensor<1xui32>"), {"stuck", "stuck", "stuck", "stuck"},
               std::chrono::milliseconds(200));
  ASSERT_TRUE(r.ok()) << r.status().message();
  Status s = r->FirstError(2);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("stablehlo.recv (channel 9)"), std::string::npos) << s.message();
}

TEST_P(Grid, MismatchedCollectivesAreReported) {
  std::string source = Program("tensor<1xui32>", kAllReduce);
  // A second function with an all_gather where main has its all_reduce.
  std::string gather = R"(
  func.func public @gather() -> tensor<1xui32> {
    %v = stablehlo.constant dense<1> : tensor<1xui32>
    %g = "stablehlo.all_gather"(%v) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<1xui32>) -> tensor<2xui32>
    %s = "stablehlo.slice"(%g) {start_indices = array<i64: 0>, limit_indices = array<i64: 1>, strides = array<i64: 1>} : (tensor<2xui32>) -> tensor<1xui32>
    return %s : tensor<1xui32>
  }
}
)";
  source = source.substr(0, source.rfind('}')) + gather;
  auto r = Run(source, {"main", "main", "gather", "main"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Status& s = r->processes[0].status;
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("mismatched collectives"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("stablehlo.all_gather"), std::string::npos) << s.message();
}

INSTANTIATE_TEST_SUITE_P(CpuModes, Grid, ::testing::Values(hal::CpuMode::kInline, hal::CpuMode::kDeferred),
                         [](const auto& info) { return info.param == hal::CpuMode::kInline ? "inline" : "deferred"; });

}  // namespace
}  // namespace kiln

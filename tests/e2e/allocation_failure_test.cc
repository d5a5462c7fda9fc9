// The allocation-failure sweep (docs/memory.md, "Memory limits"): for every
// k, the k-th device allocation of opening a module and calling a function
// fails on purpose (hal::AllocationGate::FailAllocation). Each such run must
// either succeed with the right results or fail with ResourceExhausted; the
// next call, with memory back, must succeed with the right results, on the
// same context when it opened. The sweep ends at the first k past the run's
// last allocation. ASan (the CI's sanitizer stage) turns a leak or a bad
// access on any error path into a failure. The programs: the MLP example and
// one conformance file per op family, on the CPU device in both driver modes
// and on Vulkan.
//
// Also the memory limit (Device::allocation_gate().set_limit): a module
// whose arena alone passes it is refused when a context opens it, and a
// call that needs more than it allows is stopped, naming the limit.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "compiler/parse/parser.h"
#include "hal/cpu/cpu_device.h"
#include "hal/devices.h"
#include "tests/support/host_tensor_util.h"
#include "vm/context.h"

namespace kiln {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<uint8_t> CompileOrDie(const std::string& text, const std::string& target, bool plan_memory = true) {
  compiler::CompileOptions options;
  options.target = target;
  options.plan_memory = plan_memory;
  auto bytes = compiler::Compile(text, "sweep.mlir", options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  return bytes.ok() ? std::move(bytes.value()) : std::vector<uint8_t>{};
}

bool SameResults(const std::vector<vm::HostTensor>& a, const std::vector<vm::HostTensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].dims != b[i].dims || a[i].type != b[i].type || a[i].data != b[i].data) return false;
  return true;
}

struct Call {
  std::string function;
  std::vector<vm::HostTensor> inputs;
};

// Runs `call` on a fresh context of `bytes`, with allocation `fail_at`
// (counted from the context's creation) failing; -1: none. Returns the
// status, the results, the allocations asked for, and the context (null if
// it did not open) for a second call.
struct Run {
  Status status;
  std::vector<vm::HostTensor> results;
  uint64_t allocations = 0;
  std::unique_ptr<vm::Context> context;
};

Run RunOnce(hal::Device* device, const std::shared_ptr<const vm::LoadedModule>& module, const Call& call,
            int64_t fail_at) {
  Run run;
  hal::AllocationGate& gate = device->allocation_gate();
  const uint64_t before = gate.allocations();
  gate.FailAllocation(fail_at);
  auto context = vm::Context::Create(module, device);
  if (!context.ok()) {
    run.status = context.status();
  } else {
    run.context = std::move(context.value());
    vm::InvokeOptions options;
    options.allow_private = true;
    options.print = [](const std::string&) {};
    run.status = run.context->Invoke(call.function, call.inputs, options, &run.results);
  }
  run.allocations = gate.allocations() - before;
  gate.FailAllocation(-1);
  return run;
}

// The sweep over one call; returns how many runs had an allocation fail
// (and failed for it). Calls the device cannot run are skipped.
int Sweep(hal::Device* device, const std::vector<uint8_t>& bytes, const Call& call, const std::string& what) {
  auto module = vm::LoadModule(std::vector<uint8_t>(bytes));
  if (!module.ok()) {
    ADD_FAILURE() << what << ": " << module.status().message();
    return 0;
  }
  Run clean = RunOnce(device, *module, call, -1);
  if (clean.status.code() == StatusCode::kUnimplemented) return 0;  // not on this device: the conformance tests say so
  if (!clean.status.ok()) {
    ADD_FAILURE() << what << ": the run without failures fails: " << clean.status.message();
    return 0;
  }
  if (clean.context && !clean.context->check_failures().empty()) {
    ADD_FAILURE() << what << ": " << clean.context->check_failures().front();
    return 0;
  }
  int failed_runs = 0;
  int64_t k = 0;
  for (;; ++k) {
    Run run = RunOnce(device, *module, call, k);
    const bool injected = run.allocations > static_cast<uint64_t>(k);
    if (!injected) {
      EXPECT_TRUE(run.status.ok()) << what << ", no allocation failed: " << run.status.message();
      break;
    }
    if (run.status.ok()) {
      // The failed allocation was one the runtime could do without (a
      // cache): the results must still be right.
      EXPECT_TRUE(SameResults(run.results, clean.results)) << what << ", allocation " << k << " failed: wrong results";
    } else {
      ++failed_runs;
      EXPECT_EQ(run.status.code(), StatusCode::kResourceExhausted)
          << what << ", allocation " << k << " failed: " << run.status.message();
    }
    // Memory is back: the same context (or a new one where it did not
    // open) runs the call right.
    std::vector<vm::HostTensor> again;
    std::unique_ptr<vm::Context> context = std::move(run.context);
    if (!context) {
      auto c = vm::Context::Create(*module, device);
      if (!c.ok()) {
        ADD_FAILURE() << what << ", after allocation " << k << " failed: " << c.status().message();
        break;
      }
      context = std::move(c.value());
    }
    context->ClearCheckFailures();
    vm::InvokeOptions options;
    options.allow_private = true;
    options.print = [](const std::string&) {};
    Status s = context->Invoke(call.function, call.inputs, options, &again);
    EXPECT_TRUE(s.ok()) << what << ", the call after allocation " << k << " failed: " << s.message();
    EXPECT_TRUE(context->check_failures().empty())
        << what << ", the call after allocation " << k << " failed: " << context->check_failures().front();
    if (s.ok()) {
      EXPECT_TRUE(SameResults(again, clean.results)) << what << ", after allocation " << k << " failed";
    }
    if (::testing::Test::HasFailure()) break;  // one report per program is enough
  }
  std::printf("%s: %lld allocations, %d runs failed with ResourceExhausted\n", what.c_str(),
              static_cast<long long>(k), failed_runs);
  return failed_runs;
}

// The MLP example (tests/data/mlp.mlir, generated at build time).
void SweepMlp(hal::Device* device, const std::string& target) {
  const std::vector<uint8_t> bytes = CompileOrDie(ReadFile(KILN_TEST_MLP_MLIR), target);
  auto module = vm::LoadModule(std::vector<uint8_t>(bytes));
  ASSERT_TRUE(module.ok()) << module.status().message();
  Call call{"main", {}};
  for (const auto& sig : (*module)->functions[(*module)->FindFunction("main")].args) {
    std::vector<float> values(1);
    for (int64_t d : sig.dims) values.resize(values.size() * static_cast<size_t>(d));
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 17) / 17.0f;
    call.inputs.push_back(test::HostTensorOf(sig.type, sig.dims, values));
  }
  EXPECT_GT(Sweep(device, bytes, call, "mlp on " + device->name()), 0);
}

// One conformance file per op family: every chunk's test functions.
void SweepConformance(hal::Device* device, const std::string& target) {
  const std::string dir = std::string(KILN_SHARED_DIR) + "/conformance/stablehlo-interpret/";
  int failed_runs = 0;
  for (const char* name : {"add", "dot_general", "convolution", "reduce", "reduce_window", "gather", "scatter", "sort",
                           "while", "select_and_scatter", "transpose", "concatenate"}) {
    const std::string source = ReadFile(dir + name + ".mlir");
    ASSERT_FALSE(source.empty()) << dir << name << ".mlir";
    for (const auto& chunk : ir::SplitChunks(source)) {
      compiler::CompileOptions options;
      options.target = target;
      auto bytes = compiler::Compile(chunk.text, dir + name + ".mlir", options, nullptr, chunk.first_line);
      if (!bytes.ok()) continue;  // a chunk the target does not support: the conformance tests' business
      auto module = vm::LoadModule(std::vector<uint8_t>(bytes.value()));
      ASSERT_TRUE(module.ok()) << module.status().message();
      for (const auto& fn : (*module)->functions) {
        if (!fn.args.empty() || !fn.results.empty()) continue;
        failed_runs += Sweep(device, bytes.value(), Call{fn.name, {}},
                             std::string(name) + ".mlir:" + std::to_string(chunk.first_line) + " @" + fn.name + " on " +
                                 device->name());
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
  EXPECT_GT(failed_runs, 0);
}

TEST(AllocationFailure, MlpOnTheInlineCpuDevice) {
  auto device = hal::CreateCpuDevice(hal::CpuMode::kInline, 2);
  SweepMlp(device.get(), "cpu");
}

TEST(AllocationFailure, MlpOnTheDeferredCpuDevice) {
  auto device = hal::CreateCpuDevice(hal::CpuMode::kDeferred, 2);
  SweepMlp(device.get(), "cpu");
}

TEST(AllocationFailure, ConformanceFilesOnTheCpuDevice) {
  auto device = hal::CreateCpuDevice(hal::CpuMode::kDeferred, 2);
  SweepConformance(device.get(), "cpu");
}

#ifdef KILN_HAVE_VULKAN
TEST(AllocationFailure, MlpOnTheVulkanDevice) {
  auto device = hal::CreateDeviceByName("vulkan");
  ASSERT_TRUE(device.ok()) << device.status().message();
  SweepMlp(device->get(), "all");
}

TEST(AllocationFailure, ConformanceFilesOnTheVulkanDevice) {
  auto device = hal::CreateDeviceByName("vulkan");
  ASSERT_TRUE(device.ok()) << device.status().message();
  SweepConformance(device->get(), "all");
}
#endif

// A function whose arena (two 1 MiB transients alive together) passes a
// 1 MiB limit is refused when opened; compiled without memory planning its
// transients come from the pool, and the call that needs them is stopped.
constexpr char kTwoTransients[] = R"(
func.func public @main(%x: tensor<512x512xf32>) -> tensor<f32> {
  %a = stablehlo.exponential %x : tensor<512x512xf32>
  %b = stablehlo.transpose %x, dims = [1, 0] : (tensor<512x512xf32>) -> tensor<512x512xf32>
  %c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%c init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<512x512xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
)";

TEST(MemoryLimit, ModuleWhoseArenaPassesTheLimitIsRefusedWhenOpened) {
  auto module = vm::LoadModule(CompileOrDie(kTwoTransients, "cpu"));
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto device = hal::CreateCpuDevice(hal::CpuMode::kInline, 1);
  device->allocation_gate().set_limit(1 << 20);
  auto context = vm::Context::Create(*module, device.get());
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(context.status().message().find("above the memory limit of 1048576 bytes"), std::string::npos)
      << context.status().message();
  device->allocation_gate().set_limit(64 << 20);
  EXPECT_TRUE(vm::Context::Create(*module, device.get()).ok());
}

TEST(MemoryLimit, CallThatNeedsMoreThanTheLimitIsStopped) {
  auto module = vm::LoadModule(CompileOrDie(kTwoTransients, "cpu", /*plan_memory=*/false));
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto device = hal::CreateCpuDevice(hal::CpuMode::kInline, 1);
  device->allocation_gate().set_limit(2 << 20);
  auto context = vm::Context::Create(*module, device.get());
  ASSERT_TRUE(context.ok()) << context.status().message();
  std::vector<vm::HostTensor> inputs{test::HostTensorOf(ElementType::kF32, {512, 512}, std::vector<float>(512 * 512, 0.25f))};
  auto r = (*context)->Invoke("main", inputs);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(r.status().message().find("memory limit of 2097152 bytes reached"), std::string::npos)
      << r.status().message();
  device->allocation_gate().set_limit(0);  // lifted: the same context runs it
  EXPECT_TRUE((*context)->Invoke("main", inputs).ok());
}

}  // namespace
}  // namespace kiln

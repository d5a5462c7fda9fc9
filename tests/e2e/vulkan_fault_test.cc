// Vulkan faults (docs/vulkan.md, "Faults"), simulated through the driver's
// test hook KILN_TEST_VULKAN_FAULT (hal/vulkan/fault_hook.h), since lavapipe
// neither loses its device nor runs out of memory:
//   - device loss at every submission of two MLP calls in turn: the call
//     that meets it and every later use of the device fail with Unavailable,
//     naming the loss, promptly; a new device then runs the call right;
//   - out-of-device-memory at every vkAllocateMemory of opening the module
//     and one call: each run succeeds with the right results or fails with
//     ResourceExhausted, and the next call, memory back, is right.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "hal/devices.h"
#include "tests/support/host_tensor_util.h"
#include "tests/support/scoped_env.h"
#include "vm/context.h"

#ifdef KILN_HAVE_VULKAN
namespace kiln {
namespace {

using Clock = std::chrono::steady_clock;

struct Mlp {
  std::shared_ptr<const vm::LoadedModule> module;
  std::vector<vm::HostTensor> inputs;
};

Mlp LoadMlp() {
  std::ifstream in(KILN_TEST_MLP_MLIR);
  std::stringstream text;
  text << in.rdbuf();
  compiler::CompileOptions options;
  options.target = "all";
  auto bytes = compiler::Compile(text.str(), "mlp.mlir", options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  Mlp mlp;
  if (!bytes.ok()) return mlp;
  auto module = vm::LoadModule(std::move(bytes.value()));
  EXPECT_TRUE(module.ok()) << module.status().message();
  if (!module.ok()) return mlp;
  mlp.module = *module;
  for (const auto& sig : mlp.module->functions[mlp.module->FindFunction("main")].args) {
    std::vector<float> values(1);
    for (int64_t d : sig.dims) values.resize(values.size() * static_cast<size_t>(d));
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 13) / 13.0f;
    mlp.inputs.push_back(test::HostTensorOf(sig.type, sig.dims, values));
  }
  return mlp;
}

StatusOr<std::unique_ptr<hal::Device>> OpenVulkan(const char* fault) {
  test::ScopedEnv env("KILN_TEST_VULKAN_FAULT", fault);
  return hal::CreateDeviceByName("vulkan");
}

Status Call(vm::Context& context, const Mlp& mlp, std::vector<vm::HostTensor>* results) {
  vm::InvokeOptions options;
  options.print = [](const std::string&) {};
  return context.Invoke("main", mlp.inputs, options, results);
}

bool Same(const std::vector<vm::HostTensor>& a, const std::vector<vm::HostTensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].dims != b[i].dims || a[i].data != b[i].data) return false;
  return true;
}

// The right results, from a device without faults.
std::vector<vm::HostTensor> CleanResults(const Mlp& mlp) {
  auto device = OpenVulkan(nullptr);
  EXPECT_TRUE(device.ok()) << device.status().message();
  std::vector<vm::HostTensor> results;
  if (!device.ok()) return results;
  auto context = vm::Context::Create(mlp.module, device->get());
  EXPECT_TRUE(context.ok()) << context.status().message();
  if (context.ok()) {
    EXPECT_TRUE(Call(**context, mlp, &results).ok());
  }
  return results;
}

TEST(VulkanFault, UnknownFaultIsRefused) {
  auto device = OpenVulkan("device_lost");
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.status().message().find("expected device_lost:N or out_of_device_memory:N"), std::string::npos)
      << device.status().message();
}

TEST(VulkanFault, DeviceLostAtEachSubmissionFailsClearlyAndANewDeviceRuns) {
  const Mlp mlp = LoadMlp();
  ASSERT_TRUE(mlp.module);
  const std::vector<vm::HostTensor> expected = CleanResults(mlp);
  ASSERT_FALSE(expected.empty());
  int lost_runs = 0;
  for (int n = 1; n <= 64; ++n) {
    const std::string fault = "device_lost:" + std::to_string(n);
    auto device = OpenVulkan(fault.c_str());
    ASSERT_TRUE(device.ok()) << device.status().message();
    auto context = vm::Context::Create(mlp.module, device->get());
    bool lost = !context.ok();
    if (context.ok()) {
      // Two calls: the loss meets the first or the second, and once lost,
      // every later call must fail too.
      for (int call = 0; call < 3; ++call) {
        std::vector<vm::HostTensor> results;
        const auto start = Clock::now();
        Status s = Call(**context, mlp, &results);
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        EXPECT_LT(seconds, 10.0) << fault << ", call " << call << " took " << seconds << " s";
        if (s.ok()) {
          EXPECT_FALSE(lost) << fault << ": call " << call << " succeeded on a lost device";
          EXPECT_TRUE(Same(results, expected)) << fault << ", call " << call;
          continue;
        }
        lost = true;
        EXPECT_EQ(s.code(), StatusCode::kUnavailable) << fault << ": " << s.message();
        EXPECT_NE(s.message().find("the Vulkan device was lost"), std::string::npos) << fault << ": " << s.message();
      }
    } else {
      EXPECT_EQ(context.status().code(), StatusCode::kUnavailable) << fault << ": " << context.status().message();
    }
    if (!lost) break;  // past the last submission of three calls
    ++lost_runs;
    // The app recreates the device (a new session); it runs right.
    if (context.ok()) context.value().reset();  // before its device
    device->reset();
    auto fresh = OpenVulkan(nullptr);
    ASSERT_TRUE(fresh.ok()) << fresh.status().message();
    auto again = vm::Context::Create(mlp.module, fresh->get());
    ASSERT_TRUE(again.ok()) << again.status().message();
    std::vector<vm::HostTensor> results;
    Status s = Call(**again, mlp, &results);
    ASSERT_TRUE(s.ok()) << fault << ", on a new device: " << s.message();
    EXPECT_TRUE(Same(results, expected)) << fault << ", on a new device";
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GE(lost_runs, 3);  // the MLP submits at least once per call
  std::printf("device lost at each of %d submissions: every one reported\n", lost_runs);
}

TEST(VulkanFault, OutOfDeviceMemoryAtEachAllocationFailsClearly) {
  const Mlp mlp = LoadMlp();
  ASSERT_TRUE(mlp.module);
  const std::vector<vm::HostTensor> expected = CleanResults(mlp);
  ASSERT_FALSE(expected.empty());
  int failed_runs = 0;
  int k = 1;
  for (; k <= 256; ++k) {
    const std::string fault = "out_of_device_memory:" + std::to_string(k);
    auto device = OpenVulkan(fault.c_str());
    ASSERT_TRUE(device.ok()) << device.status().message();
    auto context = vm::Context::Create(mlp.module, device->get());
    Status s = context.ok() ? Status::Ok() : context.status();
    std::vector<vm::HostTensor> results;
    if (s.ok()) s = Call(**context, mlp, &results);
    if (static_cast<uint64_t>(k) > (*device)->allocation_gate().allocations()) {
      // No allocation was the k-th: the sweep is done.
      EXPECT_TRUE(s.ok()) << fault << ": " << s.message();
      EXPECT_TRUE(Same(results, expected)) << fault;
      break;
    }
    if (s.ok()) {
      EXPECT_TRUE(Same(results, expected)) << fault;
    } else {
      ++failed_runs;
      EXPECT_EQ(s.code(), StatusCode::kResourceExhausted) << fault << ": " << s.message();
      EXPECT_NE(s.message().find("out of device memory"), std::string::npos) << fault << ": " << s.message();
    }
    // Memory is back (the fault fires once): the next call is right, on the
    // same context where it opened.
    if (!context.ok()) context = vm::Context::Create(mlp.module, device->get());
    ASSERT_TRUE(context.ok()) << fault << ", reopening: " << context.status().message();
    std::vector<vm::HostTensor> again;
    Status t = Call(**context, mlp, &again);
    ASSERT_TRUE(t.ok()) << fault << ", the next call: " << t.message();
    EXPECT_TRUE(Same(again, expected)) << fault << ", the next call";
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(failed_runs, 0);
  std::printf("out of device memory at each of %d allocations: %d runs failed with ResourceExhausted\n", k - 1,
              failed_runs);
}

}  // namespace
}  // namespace kiln
#endif  // KILN_HAVE_VULKAN

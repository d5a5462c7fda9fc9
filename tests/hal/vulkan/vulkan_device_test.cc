// The Vulkan driver (hal/vulkan): device enumeration and its errors,
// refusal of an allocation too large, and the staging path of devices
// without unified memory (forced), against the CPU device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <cstdlib>

#include "tests/hal/vulkan/vulkan_test_fixture.h"
#include "tests/support/scoped_env.h"

namespace kiln::vulkan_test {
namespace {

TEST_F(VulkanTest, ListsDevices) {
  auto devs = hal::ListVulkanDevices();
  ASSERT_TRUE(devs.ok()) << devs.status().message();
  ASSERT_FALSE(devs->empty());
  EXPECT_FALSE((*devs)[0].name.empty());
  EXPECT_NE(vulkan_->name().find("vulkan"), std::string::npos);
}

TEST_F(VulkanTest, OutOfRangeDeviceIsAClearError) {
  auto d = hal::CreateVulkanDevice(1000);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("no Vulkan device 1000"), std::string::npos) << d.status().message();
}

TEST_F(VulkanTest, HugeAllocationIsRefusedNotACrash) {
  auto b = vulkan_->Allocate(size_t{1} << 41);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kResourceExhausted);
}

// Device-local buffers with staging transfers (the path of GPUs without
// unified memory), forced on a unified device.
TEST_F(VulkanTest, StagingPathMatchesCpu) {
  auto d = [] {
    test::ScopedEnv staging("KILN_VULKAN_STAGING", "1");
    return hal::CreateVulkanDevice(-1);
  }();
  ASSERT_TRUE(d.ok()) << d.status().message();
  const char* src = R"(
func.func @main(%a: tensor<5x7xi16>) -> tensor<7x5xi16> {
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<5x7xi16>) -> tensor<7x5xi16>
  %1 = stablehlo.multiply %0, %0 : tensor<7x5xi16>
  return %1 : tensor<7x5xi16>
}
)";
  auto bytes = CompileAll(src, "vulkan");
  std::mt19937_64 rng(5);
  auto a = RandomBits(ElementType::kSI16, {5, 7}, rng);
  auto want = RunOn(cpu_.get(), bytes, "main", {a});
  auto got = RunOn(d->get(), bytes, "main", {a});
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ((*want)[0].data, (*got)[0].data);
}

}  // namespace
}  // namespace kiln::vulkan_test

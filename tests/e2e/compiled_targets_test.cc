// A module records the devices it was compiled for, and opening one compiled
// with --target=cpu on the Vulkan device fails at once with how to recompile
// it (the C++ context and the C API's session), not at its first call.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "hal/devices.h"
#include "vm/context.h"
#include "vm/kiln.h"

namespace kiln {
namespace {

std::vector<uint8_t> SpecModule(const std::string& target) {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/examples/spec_program.mlir");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  compiler::CompileOptions options;
  options.target = target;
  auto bytes = compiler::Compile(text, "spec_program.mlir", options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  return bytes.ok() ? bytes.value() : std::vector<uint8_t>{};
}

TEST(CompiledTargets, ModuleRecordsItsTargets) {
  auto cpu = vm::LoadModule(SpecModule("cpu"));
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  EXPECT_EQ((*cpu)->targets, std::vector<std::string>{"cpu"});
  auto all = vm::LoadModule(SpecModule("all"));
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ((*all)->targets, (std::vector<std::string>{"cpu", "vulkan"}));
}

#ifdef KILN_HAVE_VULKAN
constexpr char kRecompile[] =
    "this module was compiled with --target=cpu and has no Vulkan shaders; recompile it with --target=all or "
    "--target=vulkan";

TEST(CompiledTargets, CpuOnlyModuleIsRefusedWhenOpenedOnVulkan) {
  auto module = vm::LoadModule(SpecModule("cpu"));
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto device = hal::CreateDeviceByName("vulkan");
  ASSERT_TRUE(device.ok()) << device.status().message();
  auto ctx = vm::Context::Create(*module, device->get());
  ASSERT_FALSE(ctx.ok());
  EXPECT_NE(ctx.status().message().find(kRecompile), std::string::npos) << ctx.status().message();
  // The same module opens on the CPU, and a module for every target on Vulkan.
  auto cpu = hal::CreateDeviceByName("cpu");
  ASSERT_TRUE(cpu.ok());
  EXPECT_TRUE(vm::Context::Create(*module, cpu->get()).ok());
  auto all = vm::LoadModule(SpecModule("all"));
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(vm::Context::Create(*all, device->get()).ok());
}

TEST(CompiledTargets, CApiSessionOnVulkanIsRefusedAtCreate) {
  auto bytes = SpecModule("cpu");
  kiln_module_t* module = nullptr;
  ASSERT_EQ(kiln_module_load_memory(bytes.data(), bytes.size(), &module), nullptr);
  kiln_session_t* session = nullptr;
  kiln_status_t s = kiln_session_create(module, "vulkan", &session);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(kiln_status_message(s)).find(kRecompile), std::string::npos) << kiln_status_message(s);
  EXPECT_EQ(session, nullptr);
  kiln_status_free(s);
  kiln_module_free(module);
}
#endif

}  // namespace
}  // namespace kiln

// The CPU device prepares a kiln.row_block only when every unit kernel it
// may fall back to exists in this runtime (hal/cpu/cpu_device.cc): a unit
// kernel the build lacks (a selective build, KILN_KERNELS) or never had is
// refused by name at load, not at the call whose shape needs the fallback.
#include <gtest/gtest.h>

#include <memory>

#include "hal/cpu/cpu_device.h"
#include "kernels/common/kernel.h"

namespace kiln::hal {
namespace {

ExecutableSpec RowBlockSpec(const std::string& unit_kernel) {
  auto params = std::make_shared<KernelParams>();
  params->kernel = "kiln.row_block";
  params->attrs.push_back(KernelAttr{"units", {1}, {}, "", false, {}});
  params->attrs.push_back(KernelAttr{"0.kernel", {}, {}, unit_kernel, false, {}});
  params->attrs.push_back(KernelAttr{"0.inputs", {0}, {}, "", false, {}});
  params->attrs.push_back(KernelAttr{"0.dims", {2, 3}, {}, "", false, {}});
  ExecutableSpec spec{params->kernel, {}};
  spec.Add<KernelParams>(kKernelFormat, std::move(params));
  return spec;
}

TEST(CpuRowBlock, MissingUnitKernelIsRefusedAtPrepare) {
  auto device = CreateCpuDevice(CpuMode::kInline, 1);
  auto bad = device->PrepareExecutable(RowBlockSpec("stablehlo.no_such_kernel"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("no kernel 'stablehlo.no_such_kernel', which a kiln.row_block unit needs"),
            std::string::npos)
      << bad.status().message();
  auto good = device->PrepareExecutable(RowBlockSpec("stablehlo.reshape"));
  EXPECT_TRUE(good.ok()) << good.status().message();
}

}  // namespace
}  // namespace kiln::hal

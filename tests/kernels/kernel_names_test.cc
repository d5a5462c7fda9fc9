// The kernel table (kernels/kernels.def) against what module files and the
// registries rely on:
//  - append-only: the table starts with exactly the names released so far,
//    in order (kReleased below; new kernels are appended to kernels.def and
//    need no edit here until a format version is released with them);
//  - every kernels.def line has a reference kernel, and the reference
//    registry holds exactly the table's kernels, in its order;
//  - every fast CPU kernel is a kernels.def kernel, listed once, with a
//    reference kernel to fall back on.
// Registries are tables keyed by the kernels.def entry, so a kernel name
// outside kernels.def cannot be registered at all; these tests catch a
// table row that is missing, doubled or empty.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>

#include "kernels/cpu/registry.h"
#include "kernels/kernel_table.h"
#include "kernels/reference/registry.h"

namespace kiln {
namespace {

// Kernel names in module files written so far, in kernels.def order. Never
// edit a line; append the names of kernels.def's new lines when a module
// format version that carries them is released.
constexpr std::string_view kReleased[] = {
    "chlo.ragged_dot",
    "chlo.top_k",
    "kiln.copy",
    "kiln.elementwise",
    "stablehlo.batch_norm_grad",
    "stablehlo.batch_norm_inference",
    "stablehlo.batch_norm_training",
    "stablehlo.bitcast_convert",
    "stablehlo.broadcast_in_dim",
    "stablehlo.cholesky",
    "stablehlo.concatenate",
    "stablehlo.convolution",
    "stablehlo.dot",
    "stablehlo.dot_general",
    "stablehlo.dynamic_broadcast_in_dim",
    "stablehlo.dynamic_conv",
    "stablehlo.dynamic_gather",
    "stablehlo.dynamic_iota",
    "stablehlo.dynamic_pad",
    "stablehlo.dynamic_reshape",
    "stablehlo.dynamic_slice",
    "stablehlo.dynamic_update_slice",
    "stablehlo.fft",
    "stablehlo.gather",
    "stablehlo.iota",
    "stablehlo.map",
    "stablehlo.pad",
    "stablehlo.real_dynamic_slice",
    "stablehlo.reduce",
    "stablehlo.reduce_window",
    "stablehlo.reshape",
    "stablehlo.reverse",
    "stablehlo.rng",
    "stablehlo.rng_bit_generator",
    "stablehlo.scatter",
    "stablehlo.select_and_scatter",
    "stablehlo.slice",
    "stablehlo.sort",
    "stablehlo.transpose",
    "stablehlo.triangular_solve",
    "stablehlo.uniform_dequantize",
    "stablehlo.uniform_quantize",
    "chlo.scan",
};

TEST(KernelNames, TableStartsWithTheReleasedNamesInOrder) {
  ASSERT_GE(kKernelCount, std::size(kReleased)) << "kernels/kernels.def lost lines (names are append-only)";
  for (size_t i = 0; i < std::size(kReleased); ++i)
    EXPECT_EQ(kKernelTable[i].name, kReleased[i])
        << "kernels/kernels.def line " << i << " changed: names are never removed, renamed or reordered";
}

TEST(KernelNames, TableIsWellFormed) {
  std::set<std::string_view> seen;
  for (size_t i = 0; i < kKernelCount; ++i) {
    const KernelInfo& k = kKernelTable[i];
    EXPECT_EQ(static_cast<size_t>(k.id), i) << k.name;
    EXPECT_TRUE(seen.insert(k.name).second) << "listed twice: " << k.name;
    EXPECT_EQ(k.name.find_first_of(" \t\r\n"), std::string_view::npos) << "whitespace in '" << k.name << "'";
    EXPECT_NE(k.name.find('.'), std::string_view::npos) << "'" << k.name << "' has no dialect prefix";
    EXPECT_FALSE(FamilyName(k.family).empty()) << k.name;
    EXPECT_EQ(FindKernelId(k.name), k.id) << k.name;
  }
  EXPECT_EQ(FindKernelId("no.such_kernel"), std::nullopt);
}

TEST(KernelNames, EveryKernelHasAReferenceKernel) {
  for (const KernelInfo& k : kKernelTable) {
    EXPECT_NE(ref::FindReferenceKernel(k.id), nullptr) << k.name << " has no reference kernel";
    EXPECT_EQ(ref::FindReferenceKernel(k.name), ref::FindReferenceKernel(k.id)) << k.name;
  }
  EXPECT_EQ(ref::FindReferenceKernel("no.such_kernel"), nullptr);
}

TEST(KernelNames, ReferenceRegistryIsTheTable) {
  const auto& registered = ref::ReferenceKernels();
  ASSERT_EQ(registered.size(), kKernelCount);
  for (size_t i = 0; i < kKernelCount; ++i) {
    EXPECT_EQ(registered[i].name, kKernelTable[i].name);
    EXPECT_NE(registered[i].fn, nullptr) << registered[i].name;
  }
}

TEST(KernelNames, EveryCpuKernelIsInTheTableOnce) {
  std::set<KernelId> seen;
  ASSERT_FALSE(cpu::CpuKernels().empty());
  for (const cpu::CpuKernel& k : cpu::CpuKernels()) {
    ASSERT_LT(static_cast<size_t>(k.kernel), kKernelCount);
    const std::string_view name = KernelName(k.kernel);
    EXPECT_TRUE(seen.insert(k.kernel).second) << "fast kernel listed twice: " << name;
    EXPECT_NE(k.fn, nullptr) << name;
    EXPECT_NE(ref::FindReferenceKernel(k.kernel), nullptr) << name << ": a fast kernel without a reference";
  }
}

}  // namespace
}  // namespace kiln

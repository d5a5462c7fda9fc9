// The fixture of the Vulkan tests (tests/hal/vulkan: the driver;
// tests/compiler/vulkan: the shaders the compiler's vulkan target
// generates): the Vulkan device beside the CPU device, whose kernels are the
// reference, modules compiled for both, and their inputs. Runs on whatever
// Vulkan device the loader offers first by preference (lavapipe in CI), with
// the Khronos validation layer on (ctest sets KILN_VULKAN_VALIDATION=1).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "hal/vulkan/vulkan_device.h"
#include "tests/support/host_tensor_util.h"
#include "vm/context.h"

namespace kiln::vulkan_test {

using test::HostTensorOf;
using test::RandomF32;

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Runs function `fn` of the module on `device`.
inline StatusOr<std::vector<vm::HostTensor>> RunOn(hal::Device* device, const std::vector<uint8_t>& bytes,
                                                   const std::string& fn, const std::vector<vm::HostTensor>& inputs) {
  auto module = vm::LoadModule(bytes);
  if (!module.ok()) return module.status();
  auto ctx = vm::Context::Create(*module, device);
  if (!ctx.ok()) return ctx.status();
  return (*ctx)->Invoke(fn, inputs);
}

// The module compiled for `target` ("all": every target).
inline std::vector<uint8_t> CompileAll(const std::string& source, const std::string& target = "all") {
  compiler::CompileOptions options;
  options.target = target;
  auto bytes = compiler::Compile(source, "test.mlir", options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  return bytes.ok() ? bytes.value() : std::vector<uint8_t>{};
}

// `source` compiled for the vulkan target alone, every shader of which has
// `workgroup_size` invocations per work group (which shader a kernel took);
// empty (and a failure) if it does not compile or load.
inline std::vector<uint8_t> CompileForWorkGroups(const std::string& source, uint32_t workgroup_size) {
  auto bytes = CompileAll(source, "vulkan");
  if (bytes.empty()) return bytes;
  auto module = vm::LoadModule(bytes);
  EXPECT_TRUE(module.ok()) << module.status().message();
  if (!module.ok()) return {};
  for (const auto& variants : (*module)->vulkan_shaders)
    for (const auto& v : variants) EXPECT_EQ(v.workgroup_size, workgroup_size);
  return bytes;
}

// f32 results within a relative 2e-6 per contracted term (`terms`) of the
// CPU's (the sums run in the same order; multiply-adds may fuse
// differently); infinities and NaNs where the CPU has them.
inline void ExpectCloseF32(const vm::HostTensor& got, const vm::HostTensor& want, int64_t terms,
                           const std::string& what) {
  ASSERT_EQ(got.data.size(), want.data.size()) << what;
  const float tol = 2e-6f * static_cast<float>(terms + 1);
  for (size_t i = 0; i < want.data.size() / 4; ++i) {
    float w, v;
    std::memcpy(&w, want.data.data() + i * 4, 4);
    std::memcpy(&v, got.data.data() + i * 4, 4);
    if (std::isnan(w)) {
      ASSERT_TRUE(std::isnan(v)) << what << " element " << i;
    } else if (std::isinf(w)) {
      ASSERT_EQ(v, w) << what << " element " << i;
    } else {
      ASSERT_NEAR(v, w, tol * (1 + std::fabs(w))) << what << " element " << i;
    }
  }
}

// The Vulkan device (the loader's first by preference) and the CPU device;
// a test fails if the validation layer reported anything during it.
class VulkanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    validation_before_ = hal::VulkanValidationMessages();
    auto d = hal::CreateVulkanDevice(-1);
    ASSERT_TRUE(d.ok()) << d.status().message();
    vulkan_ = std::move(d.value());
    cpu_ = hal::CreateCpuDevice(hal::CpuMode::kInline);
  }
  void TearDown() override {
    vulkan_.reset();
    EXPECT_EQ(hal::VulkanValidationMessages(), validation_before_) << "the validation layer reported messages";
  }
  uint64_t validation_before_ = 0;
  std::unique_ptr<hal::Device> vulkan_, cpu_;
};

// Integers of type t: edge values first, then random bits.
inline vm::HostTensor RandomBits(ElementType t, std::vector<int64_t> dims, std::mt19937_64& rng) {
  vm::HostTensor h;
  h.type = t;
  h.dims = std::move(dims);
  size_t n = static_cast<size_t>(h.NumElements());
  size_t w = StorageBytes(t);
  h.data.resize(n * w);
  // Edge values first (0, 1, -1, the extremes, small shift amounts), then random bits.
  const int top = std::min(BitWidth(t), 64) - 1;  // (complex<f64>: 128 bits, edges in the low 64)
  const uint64_t edges[] = {0, 1, ~uint64_t{0}, uint64_t{1} << top, (uint64_t{1} << top) - 1,
                            2, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64};
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = i < std::size(edges) ? edges[i] : rng();
    if (i >= std::size(edges) && (rng() & 3) == 0) v &= 0x3f;  // small values: shift amounts, divisors
    if (i >= std::size(edges) && (rng() & 7) == 0) v = ~(v & 0x7);  // small negatives
    // Storage of signed narrow types is sign-extended; take the low bits.
    // Elements wider than 8 bytes take random bits above the first 8.
    std::memcpy(h.data.data() + i * w, &v, std::min<size_t>(w, 8));
    for (size_t off = 8; off < w; off += 8) {
      const uint64_t more = rng();
      std::memcpy(h.data.data() + i * w + off, &more, std::min<size_t>(w - off, 8));
    }
  }
  return h;
}

// f32 results within `tol` of the CPU's.
// Runs @main of `src` (compiled for the vulkan target alone: nothing may be
// refused) on both devices over random complex<f32> or complex<f64>
// operands of `shapes` (parts uniform in [-2, 2]), then `extra` inputs:
// each part of the result within 1e-5 (complex<f32>) or 1e-12
// (complex<f64>) times `terms` (the products summed) of 1 + |w|.
inline void ExpectComplexProgramMatchesCpu(hal::Device* cpu, hal::Device* vulkan, const std::string& src, bool f64,
                                           const std::vector<std::vector<int64_t>>& shapes, double terms,
                                           const std::vector<vm::HostTensor>& extra = {}) {
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> dist(-2, 2);
  std::vector<vm::HostTensor> in;
  for (const auto& dims : shapes) {
    vm::HostTensor h;
    h.type = f64 ? ElementType::kC128 : ElementType::kC64;
    h.dims = dims;
    const size_t parts = static_cast<size_t>(h.NumElements()) * 2;
    h.data.resize(parts * (f64 ? 8 : 4));
    for (size_t i = 0; i < parts; ++i) {
      const double v = dist(rng);
      const float f = static_cast<float>(v);
      std::memcpy(h.data.data() + i * (f64 ? 8 : 4), f64 ? static_cast<const void*>(&v) : &f, f64 ? 8 : 4);
    }
    in.push_back(std::move(h));
  }
  in.insert(in.end(), extra.begin(), extra.end());
  auto want = RunOn(cpu, bytes, "main", in);
  auto got = RunOn(vulkan, bytes, "main", in);
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  const auto& w = (*want)[0].data;
  const auto& g = (*got)[0].data;
  ASSERT_EQ(w.size(), g.size());
  const double tol = (f64 ? 1e-12 : 1e-5) * terms;
  for (size_t i = 0; i < w.size() / (f64 ? 8 : 4); ++i) {
    double x, y;
    if (f64) {
      std::memcpy(&x, w.data() + i * 8, 8);
      std::memcpy(&y, g.data() + i * 8, 8);
    } else {
      float xf, yf;
      std::memcpy(&xf, w.data() + i * 4, 4);
      std::memcpy(&yf, g.data() + i * 4, 4);
      x = xf, y = yf;
    }
    ASSERT_NEAR(y, x, tol * (1 + std::fabs(x))) << "part " << i;
  }
}

// One function of a compiled module on random f32 inputs of `shapes`,
// whose results ExpectCloseF32 compares with `terms` contracted terms.
struct F32Run {
  const char* fn;
  std::vector<std::vector<int64_t>> shapes;
  int64_t terms;
};
// Each run's first result on the Vulkan device against the CPU device's.
inline void ExpectF32RunsMatchCpu(hal::Device* cpu, hal::Device* vulkan, const std::vector<uint8_t>& bytes,
                                  const std::vector<F32Run>& runs, std::mt19937_64& rng) {
  for (const F32Run& r : runs) {
    std::vector<vm::HostTensor> in;
    for (const auto& s : r.shapes) in.push_back(RandomF32(s, rng));
    auto want = RunOn(cpu, bytes, r.fn, in);
    auto got = RunOn(vulkan, bytes, r.fn, in);
    ASSERT_TRUE(want.ok()) << r.fn << ": " << want.status().message();
    ASSERT_TRUE(got.ok()) << r.fn << ": " << got.status().message();
    ExpectCloseF32((*got)[0], (*want)[0], r.terms, r.fn);
  }
}

inline void ExpectNearF32(const vm::HostTensor& got, const vm::HostTensor& want, float tol) {
  ASSERT_EQ(got.data.size(), want.data.size());
  for (size_t i = 0; i < want.data.size() / 4; ++i) {
    float w, v;
    std::memcpy(&w, want.data.data() + i * 4, 4);
    std::memcpy(&v, got.data.data() + i * 4, 4);
    EXPECT_NEAR(v, w, tol) << "element " << i;
  }
}

}  // namespace kiln::vulkan_test

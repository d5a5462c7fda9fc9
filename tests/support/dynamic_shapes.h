// The dynamic-shape tests' harness (tests/e2e/dynamic_shapes_test.cc,
// tests/e2e/dynamic_shapes_ops_test.cc): a program template whose `$N`
// dimensions are `?` in the dynamic program and sizes in the static one; the
// dynamic program compiles once and runs on each shape, and each result must
// equal, in type, shape and bytes, that of the same program compiled with
// those shapes written in (the reference kernels' static-shape path).
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "tests/support/host_tensor_util.h"
#include "vm/context.h"

namespace kiln::test {

using Dims = std::map<std::string, int64_t>;

inline std::string Instantiate(const std::string& tmpl, const Dims* dims) {
  std::string out;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] != '$') {
      out += tmpl[i];
      continue;
    }
    std::string name(1, tmpl[++i]);
    out += dims ? std::to_string(dims->at(name)) : "?";
  }
  return out;
}

inline StatusOr<std::vector<vm::HostTensor>> CompileAndRun(const std::string& text,
                                                           const std::vector<vm::HostTensor>& in) {
  compiler::CompileOptions options;
  options.target = "cpu";
  auto bytes = compiler::Compile(text, "dynamic.mlir", options, nullptr);
  if (!bytes.ok()) return bytes.status();
  auto module = vm::LoadModule(*bytes);
  if (!module.ok()) return module.status();
  auto device = hal::CreateCpuDevice(hal::CpuModeFromEnvironment());
  auto ctx = vm::Context::Create(*module, device.get());
  if (!ctx.ok()) return ctx.status();
  return (*ctx)->Invoke("main", in);
}

// f32 values in quarter steps from -2 to 2, or i32 values from -100 to 100:
// exact in every reduction order.
inline vm::HostTensor RandomTensor(ElementType type, std::vector<int64_t> dims, uint32_t seed) {
  vm::HostTensor t;
  t.type = type;
  t.dims = std::move(dims);
  std::mt19937 rng(seed);
  int64_t n = t.NumElements();
  t.data.resize(n * StorageBytes(type));
  for (int64_t i = 0; i < n; ++i) {
    if (type == ElementType::kF32) {
      float v = static_cast<float>(static_cast<int>(rng() % 17) - 8) / 4.0f;
      std::memcpy(t.data.data() + i * 4, &v, 4);
    } else {
      int32_t v = static_cast<int32_t>(rng() % 201) - 100;
      std::memcpy(t.data.data() + i * 4, &v, 4);
    }
  }
  return t;
}

inline vm::HostTensor I64s(std::vector<int64_t> dims, const std::vector<int64_t>& values) {
  return HostTensorOf(ElementType::kSI64, std::move(dims), values);
}

struct DynamicCase {
  const char* name;
  const char* program;  // @main, with $X dimensions
  std::vector<Dims> shapes;
  std::function<std::vector<vm::HostTensor>(const Dims&)> inputs;
};

// Compiles `c`'s dynamic program once and checks it on each of its shapes;
// at least one input or result must be zero-sized.
inline void CheckDynamicCase(const DynamicCase& c) {
  compiler::CompileOptions options;
  options.target = "cpu";
  std::string dynamic_text = Instantiate(c.program, nullptr);
  auto bytes = compiler::Compile(dynamic_text, "dynamic.mlir", options, nullptr);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  auto module = vm::LoadModule(*bytes);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto device = hal::CreateCpuDevice(hal::CpuModeFromEnvironment());
  auto ctx = vm::Context::Create(*module, device.get());
  ASSERT_TRUE(ctx.ok()) << ctx.status().message();
  bool saw_empty = false;
  for (const Dims& dims : c.shapes) {
    auto inputs = c.inputs(dims);
    for (const auto& t : inputs) saw_empty |= t.NumElements() == 0;
    auto got = (*ctx)->Invoke("main", inputs);
    ASSERT_TRUE(got.ok()) << c.name << ": " << got.status().message();
    auto want = CompileAndRun(Instantiate(c.program, &dims), inputs);
    ASSERT_TRUE(want.ok()) << c.name << " (static): " << want.status().message();
    ASSERT_EQ(got->size(), want->size());
    for (size_t i = 0; i < got->size(); ++i) {
      EXPECT_EQ((*got)[i].type, (*want)[i].type);
      EXPECT_EQ((*got)[i].dims, (*want)[i].dims) << c.name << " result " << i;
      EXPECT_EQ((*got)[i].data, (*want)[i].data) << c.name << " result " << i;
      saw_empty |= (*got)[i].NumElements() == 0;
    }
  }
  EXPECT_TRUE(saw_empty) << c.name << ": no zero-sized tensor among its shapes";
}

}  // namespace kiln::test

// Compiles a StableHLO program, runs its @main once on a fresh CPU device and
// counts the dispatches that call took: how the fusion tests compare a fused
// program with the unfused one (same bits, fewer dispatches). Failures are
// reported as test failures and give an empty result.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "vm/context.h"
#include "vm/module.h"

namespace kiln::test {

struct CountedRun {
  std::vector<vm::HostTensor> outputs;
  uint64_t dispatches = 0;
};

struct CountedRunOptions {
  bool fuse = true;
  hal::CpuMode mode = hal::CpuMode::kInline;
  int threads = 2;
  std::string target = "cpu";
  std::string file_name = "test.mlir";  // for diagnostics
};

inline CountedRun CompileAndRunCounted(const std::string& source, const std::vector<vm::HostTensor>& inputs,
                                       const CountedRunOptions& o) {
  compiler::CompileOptions options;
  options.target = o.target;
  options.fuse = o.fuse;
  auto bytes = compiler::Compile(source, o.file_name, options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  CountedRun r;
  if (!bytes.ok()) return r;
  auto module = vm::LoadModule(bytes.value());
  EXPECT_TRUE(module.ok()) << module.status().message();
  if (!module.ok()) return r;
  auto device = hal::CreateCpuDevice(o.mode, o.threads);
  auto ctx = vm::Context::Create(*module, device.get());
  EXPECT_TRUE(ctx.ok()) << ctx.status().message();
  if (!ctx.ok()) return r;
  const uint64_t before = device->stats().dispatches;
  auto out = (*ctx)->Invoke("main", inputs);
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return r;
  r.outputs = std::move(out.value());
  r.dispatches = device->stats().dispatches - before;
  return r;
}

}  // namespace kiln::test

// Profiling (vm/profiler.h, hal/trace.h): every dispatch the device runs is
// reported once, labelled with its kernel and source line; calls are
// recorded; the table's shares sum to 100%; and the C API's
// profile_begin/end write the same trace.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "vm/context.h"
#include "vm/kiln.h"
#include "vm/profiler.h"

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<uint8_t> CompileMlp() {
  kiln::compiler::CompileOptions options;
  options.target = "cpu";
  auto bytes = kiln::compiler::Compile(ReadFile(KILN_TEST_MLP_MLIR), "mlp.mlir", options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = 0; (p = text.find(what, p)) != std::string::npos; p += what.size()) ++n;
  return n;
}

TEST(Profiler, EveryDispatchIsReportedOnceWithItsSourceLine) {
  for (auto mode : {kiln::hal::CpuMode::kInline, kiln::hal::CpuMode::kDeferred}) {
    auto module = kiln::vm::LoadModule(CompileMlp());
    ASSERT_TRUE(module.ok()) << module.status().message();
    auto device = kiln::hal::CreateCpuDevice(mode, 2);
    auto context = kiln::vm::Context::Create(*module, device.get());
    ASSERT_TRUE(context.ok());
    auto profiler = std::make_shared<kiln::vm::Profiler>(*module, device->name());
    ASSERT_TRUE(device->SetDispatchObserver(profiler));
    kiln::vm::HostTensor x;
    x.type = kiln::ElementType::kF32;
    x.dims = {64, 784};
    x.data.assign(64 * 784 * 4, 0);
    kiln::vm::InvokeOptions options;
    options.profiler = profiler.get();
    const uint64_t before = device->stats().dispatches;
    for (int i = 0; i < 3; ++i) ASSERT_TRUE((*context)->Invoke("main_b64", {x}, options).ok());
    const uint64_t dispatches = device->stats().dispatches - before;
    EXPECT_GT(dispatches, 0u);
    EXPECT_EQ(profiler->dispatch_count(), dispatches);
    EXPECT_EQ(profiler->call_count(), 3u);
    const std::string json = profiler->ChromeTraceJson();
    EXPECT_EQ(Count(json, "\"cat\": \"dispatch\""), dispatches);
    EXPECT_EQ(Count(json, "\"cat\": \"call\""), 3u);
    EXPECT_NE(json.find("\"location\": \"mlp.mlir:"), std::string::npos) << json.substr(0, 2000);
    EXPECT_NE(json.find("@main_b64\""), std::string::npos);
    EXPECT_NE(json.find("\"inputs\": \"64x784xf32, 784x128xf32"), std::string::npos);
    // Without a profiler in the options nothing is tagged, and once the
    // device's observer is gone nothing is reported.
    device->SetDispatchObserver(nullptr);
    ASSERT_TRUE((*context)->Invoke("main_b64", {x}).ok());
    EXPECT_EQ(profiler->dispatch_count(), dispatches);

    // The table: one row per (op, line), shares summing to 100%.
    const std::string table = profiler->ProfileTable();
    std::istringstream lines(table);
    std::string line;
    double shares = 0;
    int rows = 0;
    std::getline(lines, line);  // summary
    std::getline(lines, line);  // header
    while (std::getline(lines, line)) {
      shares += std::stod(line);
      ++rows;
    }
    EXPECT_GE(rows, 2) << table;
    EXPECT_NEAR(shares, 100.0, 0.1 * rows) << table;
  }
}

TEST(Profiler, CApiWritesTheTrace) {
  const std::vector<uint8_t> bytes = CompileMlp();
  kiln_module_t* module = nullptr;
  ASSERT_EQ(kiln_module_load_memory(bytes.data(), bytes.size(), &module), nullptr);
  kiln_session_t* session = nullptr;
  ASSERT_EQ(kiln_session_create(module, "cpu", &session), nullptr);
  kiln_status_t s = kiln_session_profile_end(session, nullptr, nullptr);
  EXPECT_EQ(kiln_status_code(s), KILN_STATUS_FAILED_PRECONDITION);  // not profiling
  kiln_status_free(s);
  ASSERT_EQ(kiln_session_profile_begin(session), nullptr);
  std::vector<float> x(784, 0.5f);
  const int64_t dims[] = {1, 784};
  kiln_tensor_t in = {KILN_TYPE_F32, 2, dims, x.data(), x.size() * sizeof(float)};
  for (int i = 0; i < 2; ++i) {
    kiln_results_t* results = nullptr;
    ASSERT_EQ(kiln_session_call(session, "main", &in, 1, &results), nullptr);
    kiln_results_free(results);
  }
  const std::string path = ::testing::TempDir() + "/kiln_profile_trace.json";
  char* table = nullptr;
  ASSERT_EQ(kiln_session_profile_end(session, path.c_str(), &table), nullptr);
  ASSERT_NE(table, nullptr);
  EXPECT_NE(std::string(table).find("stablehlo.dot_general"), std::string::npos) << table;
  kiln_string_free(table);
  const std::string json = ReadFile(path);
  EXPECT_EQ(Count(json, "\"cat\": \"call\""), 2u);
  EXPECT_GE(Count(json, "\"cat\": \"dispatch\""), 4u);
  std::remove(path.c_str());
  kiln_session_free(session);
  kiln_module_free(module);
}

}  // namespace

// Every op of the StableHLO spec compiles for the CPU target: walks the
// spec's op list and, for each op, finds a program that uses it (a chunk of
// the shared conformance suite or of tests/data/ops/) and compiles for the
// cpu target. Also runs tests/data/ops/spec_examples.mlir, the spec's own
// examples of the ops the shared suite does not exercise, and
// tests/data/ops/deprecated_ops.mlir, ops VHLO carries that the spec dropped.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "compiler/compile.h"
#include "compiler/parse/parser.h"
#include "hal/cpu/cpu_device.h"
#include "vm/context.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The `### name` headings of the spec's "## Ops" section; constant runs
// nothing and is left out.
std::vector<std::string> SpecOps() {
  std::ifstream in(std::string(KILN_SHARED_DIR) + "/reference/stablehlo-spec.md");
  std::vector<std::string> ops;
  bool in_ops = false;
  static const std::regex name(R"([a-z_0-9]+)");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) in_ops = line == "## Ops";
    else if (in_ops && line.rfind("### ", 0) == 0) {
      std::string op = line.substr(4);
      if (std::regex_match(op, name) && op != "constant") ops.push_back("stablehlo." + op);
    }
  }
  return ops;
}

std::vector<fs::path> ProgramFiles() {
  std::vector<fs::path> files;
  for (const char* dir : {KILN_SHARED_DIR "/conformance/stablehlo-interpret", KILN_SOURCE_DIR "/tests/data/ops"})
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.path().extension() == ".mlir") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::set<std::string> OpsOf(const ir::Module& m) {
  std::set<std::string> ops;
  std::function<void(const ir::Region&)> walk = [&](const ir::Region& r) {
    for (const auto& b : r.blocks)
      for (const auto& op : b->ops) {
        ops.insert(op->name);
        for (const auto& sub : op->regions) walk(*sub);
      }
  };
  for (const auto& f : m.functions) walk(f->body);
  return ops;
}

TEST(SpecOps, EveryOpCompilesForTheCpuTarget) {
  auto spec = SpecOps();
  ASSERT_GT(spec.size(), 100u) << "the spec's op list was not found";
  std::set<std::string> wanted(spec.begin(), spec.end());
  std::map<std::string, std::string> compiled_in;  // op -> a program that compiled
  std::map<std::string, std::string> last_error;
  compiler::CompileOptions options;
  options.target = "cpu";
  for (const auto& file : ProgramFiles()) {
    for (const auto& chunk : ir::SplitChunks(ReadFile(file))) {
      auto parsed = ir::ParseModule(chunk.text, file.string(), chunk.first_line);
      if (!parsed.ok()) continue;
      std::set<std::string> fresh;
      for (const auto& op : OpsOf(**parsed))
        if (wanted.count(op) && !compiled_in.count(op)) fresh.insert(op);
      if (fresh.empty()) continue;
      auto bytes = compiler::Compile(chunk.text, file.string(), options, nullptr, chunk.first_line);
      for (const auto& op : fresh) {
        if (bytes.ok()) compiled_in[op] = file.filename().string() + ":" + std::to_string(chunk.first_line);
        else last_error[op] = bytes.status().message();
      }
    }
  }
  for (const auto& op : spec) {
    if (compiled_in.count(op)) continue;
    auto e = last_error.find(op);
    ADD_FAILURE() << op << " has no CPU lowering: "
                  << (e == last_error.end() ? "no program under test uses it" : e->second);
  }
}

// Runs every test function of a file's chunks on the CPU; returns
// "name: failure" lines (empty when all pass) and counts them.
std::vector<std::string> RunChecks(const fs::path& file, int* functions) {
  std::vector<std::string> failures;
  compiler::CompileOptions options;
  options.target = "cpu";
  for (const auto& chunk : ir::SplitChunks(ReadFile(file))) {
    auto bytes = compiler::Compile(chunk.text, file.string(), options, nullptr, chunk.first_line);
    if (!bytes.ok()) {
      failures.push_back(bytes.status().message());
      continue;
    }
    auto module = vm::LoadModule(*bytes);
    if (!module.ok()) {
      failures.push_back(module.status().message());
      continue;
    }
    auto device = hal::CreateCpuDevice(hal::CpuModeFromEnvironment());
    auto ctx = vm::Context::Create(*module, device.get());
    if (!ctx.ok()) {
      failures.push_back(ctx.status().message());
      continue;
    }
    for (const auto& fn : (*module)->functions) {
      if (!fn.is_public || !fn.args.empty()) continue;
      ++*functions;
      (*ctx)->ClearCheckFailures();
      auto r = (*ctx)->Invoke(fn.name, {});
      if (!r.ok()) failures.push_back(fn.name + ": " + r.status().message());
      for (const auto& f : (*ctx)->check_failures()) failures.push_back(fn.name + ": " + f);
    }
  }
  return failures;
}

TEST(SpecOps, SpecExamplesOfOpsOutsideTheSharedSuitePass) {
  int functions = 0;
  auto failures = RunChecks(KILN_SOURCE_DIR "/tests/data/ops/spec_examples.mlir", &functions);
  EXPECT_GE(functions, 8);
  for (const auto& f : failures) ADD_FAILURE() << f;
}

TEST(SpecOps, DeprecatedOpsRunAsTheirDefinitions) {
  int functions = 0;
  auto failures = RunChecks(KILN_SOURCE_DIR "/tests/data/ops/deprecated_ops.mlir", &functions);
  EXPECT_EQ(functions, 12);
  for (const auto& f : failures) ADD_FAILURE() << f;
}

TEST(SpecOps, CustomCallCheckEqReportsAMismatch) {
  const char* src = R"(
func.func @mismatch() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.constant dense<[1, 3]> : tensor<2xi32>
  %eq = stablehlo.custom_call @check.eq(%a, %b) : (tensor<2xi32>, tensor<2xi32>) -> tensor<i1>
  check.expect_eq_const %eq, dense<false> : tensor<i1>
  func.return
}
)";
  fs::path tmp = fs::path(KILN_BINARY_DIR) / ("check_eq_mismatch_" + std::to_string(getpid()) + ".mlir");
  std::ofstream(tmp) << src;
  int functions = 0;
  auto failures = RunChecks(tmp, &functions);
  fs::remove(tmp);
  EXPECT_EQ(functions, 1);
  // The mismatch fails the function (check.eq), and its result is false (so
  // the expect_eq_const on it holds): exactly one failure, from check.eq.
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("check.eq failed"), std::string::npos) << failures[0];
}

}  // namespace
}  // namespace kiln

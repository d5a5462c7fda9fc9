// The module loader fuzzer's structure-aware mutator (tests/fuzz/
// module_mutator.h): it changes fields of real module files, both layouts,
// and every mutated file is either loaded or refused with a status (under
// the sanitizer build: without reading out of bounds); some of its changes
// keep a file the loader accepts, so the fuzzer gets past the verifier.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "tests/fuzz/module_mutator.h"
#include "tests/support/sanitizers.h"
#include "vm/module.h"

namespace kiln {
namespace {

std::vector<uint8_t> CompileMlp(bool format_04) {
  std::ifstream in(KILN_TEST_MLP_MLIR, std::ios::binary);
  std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  compiler::CompileOptions options;
  options.target = "all";
  options.format_04 = format_04;
  auto bytes = compiler::Compile(source, "mlp.mlir", options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

struct Tally {
  int changed = 0, loaded = 0, refused = 0;
};

Tally MutateMany(const std::vector<uint8_t>& module, int count) {
  vm::LoadOptions options;
  options.verify_checksums = false;  // as in the fuzzer: reach the checks behind them
  Tally tally;
  for (int seed = 0; seed < count; ++seed) {
    std::vector<uint8_t> bytes = module;
    const size_t size = fuzz::MutateModuleStructure(bytes.data(), module.size(), bytes.size(), seed);
    EXPECT_EQ(size, module.size()) << "seed " << seed << ": a valid module was not mutated";
    if (bytes != module) ++tally.changed;
    auto loaded = vm::LoadModule(bytes, options);
    if (loaded.ok()) {
      ++tally.loaded;
    } else {
      ++tally.refused;
      EXPECT_FALSE(loaded.status().message().empty());
    }
  }
  std::printf("%d mutations: %d changed the file; %d loaded, %d refused\n", count, tally.changed, tally.loaded,
              tally.refused);
  return tally;
}

// `count` mutations of the MLP module in one layout: most change the file
// (a few write the value a field already had: a copy from a field holding
// the same value, 0 over 0), and some still load while others are refused.
void ExpectFieldsChanged(bool format_04, int count) {
  const std::vector<uint8_t> module = CompileMlp(format_04);
  ASSERT_FALSE(module.empty());
  const Tally t = MutateMany(module, count);
  EXPECT_GT(t.changed, count * 8 / 10);
  EXPECT_GT(t.loaded, 0);
  EXPECT_GT(t.refused, 0);
}

// Fewer under the sanitizers, where each load takes about five times longer.
TEST(ModuleMutator, ChangesFieldsOfTheSegmentLayout) { ExpectFieldsChanged(false, test::kUnderSanitizer ? 400 : 1500); }

TEST(ModuleMutator, ChangesFieldsOfTheFormat04Layout) { ExpectFieldsChanged(true, test::kUnderSanitizer ? 150 : 500); }

TEST(ModuleMutator, LeavesOtherBytesAlone) {
  std::vector<uint8_t> bytes = {'n', 'o', 't', ' ', 'a', ' ', 'm', 'o', 'd', 'u', 'l', 'e', 0, 0, 0, 0};
  const std::vector<uint8_t> before = bytes;
  EXPECT_EQ(fuzz::MutateModuleStructure(bytes.data(), bytes.size(), bytes.size(), 1), 0u);
  EXPECT_EQ(bytes, before);
  EXPECT_EQ(fuzz::MutateModuleStructure(bytes.data(), 0, bytes.size(), 1), 0u);
}

}  // namespace
}  // namespace kiln

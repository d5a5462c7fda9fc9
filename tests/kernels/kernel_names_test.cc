// kernels/kernel_names.txt is the committed, append-only list of reference
// kernel names (module files refer to kernels by these names). Every
// registered kernel must be listed there, so adding a kernel without listing
// it fails here; lines are never removed or renamed.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "kernels/reference/registry.h"

namespace kiln::ref {
namespace {

std::vector<std::string> ReadNames() {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/kernels/kernel_names.txt");
  std::vector<std::string> names;
  std::string line;
  while (std::getline(in, line)) names.push_back(line);
  return names;
}

TEST(KernelNames, FileIsWellFormed) {
  auto names = ReadNames();
  ASSERT_FALSE(names.empty()) << "kernels/kernel_names.txt missing or empty";
  std::set<std::string> seen;
  for (const auto& n : names) {
    EXPECT_FALSE(n.empty()) << "blank line in kernel_names.txt";
    EXPECT_EQ(n.find_first_of(" \t\r"), std::string::npos) << "whitespace in '" << n << "'";
    EXPECT_TRUE(seen.insert(n).second) << "duplicate name '" << n << "'";
  }
}

TEST(KernelNames, EveryRegisteredKernelIsListed) {
  auto listed = ReadNames();
  std::set<std::string> names(listed.begin(), listed.end());
  std::set<std::string_view> registered;
  for (const KernelEntry& e : ReferenceKernels()) {
    EXPECT_TRUE(registered.insert(e.name).second) << "kernel registered twice: " << e.name;
    EXPECT_NE(e.fn, nullptr) << e.name;
    EXPECT_TRUE(names.count(std::string(e.name)))
        << "kernel '" << e.name << "' is not in kernels/kernel_names.txt (append it at the end)";
  }
}

TEST(KernelNames, LookupFindsEveryKernel) {
  for (const KernelEntry& e : ReferenceKernels()) EXPECT_EQ(FindReferenceKernel(e.name), e.fn) << e.name;
  EXPECT_EQ(FindReferenceKernel("no.such_kernel"), nullptr);
}

}  // namespace
}  // namespace kiln::ref

// fail.format's message (vm/format_message.h): JAX's shape-assertion
// placeholders as llvm::formatv and Python's str.format both read them.
#include <gtest/gtest.h>

#include <vector>

#include "vm/format_message.h"

namespace kiln::vm {
namespace {

TEST(FormatMessage, ReplacesPlaceholdersByIndex) {
  const std::vector<int64_t> v = {7, -3};
  EXPECT_EQ(FormatMessage("b = {0} from dim (= {0}); c = {1}", v), "b = 7 from dim (= 7); c = -3");
  EXPECT_EQ(FormatMessage("{1}{0}", v), "-37");
}

TEST(FormatMessage, LayoutAndFormatSpecsAreIgnored) {
  const std::vector<int64_t> v = {42};
  EXPECT_EQ(FormatMessage("[{0,5}] [{0:x}] [{0,-3:d}]", v), "[42] [42] [42]");
}

TEST(FormatMessage, DoubledBraceIsOneBrace) {
  const std::vector<int64_t> v = {1};
  EXPECT_EQ(FormatMessage("{{0}} is {0}", v), "{0}} is 1");
}

TEST(FormatMessage, AnythingElseIsCopied) {
  const std::vector<int64_t> v = {5};
  // A missing value, no digits, an unclosed brace, a huge index, a lone '}'.
  EXPECT_EQ(FormatMessage("{1} {} {x} {0 {99999999999999999999} }", v), "{1} {} {x} {0 {99999999999999999999} }");
  EXPECT_EQ(FormatMessage("{", v), "{");
  EXPECT_EQ(FormatMessage("", v), "");
  EXPECT_EQ(FormatMessage("no values {0}", {}), "no values {0}");
}

}  // namespace
}  // namespace kiln::vm

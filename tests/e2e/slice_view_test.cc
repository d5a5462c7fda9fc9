// Contiguous static slices as VM views (subview, compiler/lower/lower_ops.cc):
// a slice that is one run of its operand's bytes starting at a multiple of 64
// costs no dispatch and gives the copy's values; slices that are not one run,
// or start off the 64-byte grid, still run the slice kernel. The views are
// read by later dispatches, returned, taken of arguments and of planned
// (arena) intermediates.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tests/support/counted_run.h"
#include "tests/support/host_tensor_util.h"

namespace kiln {
namespace {

std::vector<float> Iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

std::vector<float> Floats(const vm::HostTensor& t) {
  std::vector<float> v(t.data.size() / 4);
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

// x[b0:b1, r0:r1, c0:c1] of x [4, 6, 32] = iota, times `scale`.
std::vector<float> Slice(int b0, int b1, int r0, int r1, int c0, int c1, float scale) {
  std::vector<float> v;
  for (int b = b0; b < b1; ++b)
    for (int r = r0; r < r1; ++r)
      for (int c = c0; c < c1; ++c) v.push_back(scale * static_cast<float>((b * 6 + r) * 32 + c));
  return v;
}

struct SliceCase {
  const char* start;
  const char* limit;
  const char* type;  // the result's
  int b0, b1, r0, r1, c0, c1;
  bool view;  // expected to cost no dispatch
};

TEST(SliceView, ContiguousAlignedSlicesAreViews) {
  const SliceCase cases[] = {
      {"1, 0, 0", "3, 6, 32", "2x6x32", 1, 3, 0, 6, 0, 32, true},       // whole rows of batch elements
      {"2, 1, 16", "3, 2, 32", "1x1x16", 2, 3, 1, 2, 16, 32, true},     // part of one row, 64-byte aligned
      {"3, 2, 0", "4, 5, 32", "1x3x32", 3, 4, 2, 5, 0, 32, true},       // rows of one batch element
      {"0, 0, 0", "4, 3, 32", "4x3x32", 0, 4, 0, 3, 0, 32, false},      // not one run
      {"0, 0, 3", "1, 1, 19", "1x1x16", 0, 1, 0, 1, 3, 19, false},      // one run, off the 64-byte grid
  };
  const std::vector<vm::HostTensor> in = {test::HostTensorOf(ElementType::kF32, {4, 6, 32}, Iota(4 * 6 * 32))};
  for (const SliceCase& c : cases) {
    SCOPED_TRACE(std::string(c.start) + " .. " + c.limit);
    const std::string t = std::string("tensor<") + c.type + "xf32>";
    const std::string slice = std::string("array<i64: ") + c.start + ">, limit_indices = array<i64: " + c.limit +
                              ">, strides = array<i64: 1, 1, 1>";
    // Of the argument, returned as it is.
    const std::string of_arg = "func.func @main(%x: tensor<4x6x32xf32>) -> " + t + " {\n" +
                               "  %s = \"stablehlo.slice\"(%x) {start_indices = " + slice + "} : (tensor<4x6x32xf32>) -> " +
                               t + "\n  return %s : " + t + "\n}\n";
    test::CountedRun a = test::CompileAndRunCounted(of_arg, in, {.threads = 1});
    ASSERT_EQ(a.outputs.size(), 1u);
    EXPECT_EQ(Floats(a.outputs[0]), Slice(c.b0, c.b1, c.r0, c.r1, c.c0, c.c1, 1.0f));
    EXPECT_EQ(a.dispatches, c.view ? 0u : 1u);
    // Of a planned intermediate, read by a later dispatch.
    const std::string of_temp = "func.func @main(%x: tensor<4x6x32xf32>) -> " + t + " {\n" +
                                "  %y = stablehlo.add %x, %x : tensor<4x6x32xf32>\n" +
                                "  %s = \"stablehlo.slice\"(%y) {start_indices = " + slice +
                                "} : (tensor<4x6x32xf32>) -> " + t + "\n  %z = stablehlo.multiply %s, %s : " + t +
                                "\n  return %z : " + t + "\n}\n";
    test::CountedRun b = test::CompileAndRunCounted(of_temp, in, {.threads = 1});
    ASSERT_EQ(b.outputs.size(), 1u);
    std::vector<float> want = Slice(c.b0, c.b1, c.r0, c.r1, c.c0, c.c1, 2.0f);
    for (float& v : want) v *= v;
    EXPECT_EQ(Floats(b.outputs[0]), want);
    EXPECT_EQ(b.dispatches, c.view ? 2u : 3u);
  }
}

}  // namespace
}  // namespace kiln

// Contiguous static slices as VM views (subview, compiler/lower/lower_ops.cc):
// a slice that is one run of its operand's bytes starting at a multiple of 64
// costs no dispatch and gives the copy's values; slices that are not one run,
// or start off the 64-byte grid, still run the slice kernel. The views are
// read by later dispatches, returned, taken of arguments and of planned
// (arena) intermediates. dynamic_slice likewise, at an offset computed in
// registers (subview.at).
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
    // A view costs no dispatch; a slice that is not one is read by the
    // multiply through its input_slices (fuse_elementwise.cc): no dispatch
    // of its own either.
    EXPECT_EQ(b.dispatches, 2u);
  }
}

// dynamic_slice with start indices on the scalar path (constants here) is a
// view (subview.at) where its result is one run whose steps are multiples of
// 64 bytes; the starts are clamped as the spec says (into [0, dim - size]).
TEST(SliceView, DynamicSlicesWithScalarStartsAreViews) {
  struct Case {
    int b, r, c;       // start indices, before clamping
    const char* type;  // the result's
    int sb, sr, sc;    // its sizes
    bool view;
  };
  const Case cases[] = {
      {1, 0, 0, "1x6x32", 1, 6, 32, true},   // one batch element
      {-3, 4, 7, "1x6x32", 1, 6, 32, true},  // clamped to 0; whole dims take 0 whatever the start
      {9, 0, 0, "1x6x32", 1, 6, 32, true},   // clamped to 3
      {2, 2, 0, "1x3x32", 1, 3, 32, true},   // rows of one batch element
      {2, 5, 0, "1x3x32", 1, 3, 32, true},   // the row start clamped to 3
      {3, 1, 16, "1x1x16", 1, 1, 16, false}, // the column step is 4 bytes: a dispatch
      {1, 0, 0, "2x6x32", 2, 6, 32, true},   // two batch elements
      {0, 1, 0, "2x3x32", 2, 3, 32, false},  // not one run
  };
  const std::vector<vm::HostTensor> in = {test::HostTensorOf(ElementType::kF32, {4, 6, 32}, Iota(4 * 6 * 32))};
  auto clamp = [](int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.b) + ", " + std::to_string(c.r) + ", " + std::to_string(c.c) + " -> " + c.type);
    const std::string t = std::string("tensor<") + c.type + "xf32>";
    const std::string program =
        "func.func @main(%x: tensor<4x6x32xf32>) -> " + t + " {\n" +
        "  %b = stablehlo.constant dense<" + std::to_string(c.b) + "> : tensor<i32>\n" +
        "  %r = stablehlo.constant dense<" + std::to_string(c.r) + "> : tensor<i32>\n" +
        "  %c = stablehlo.constant dense<" + std::to_string(c.c) + "> : tensor<i32>\n" +
        "  %s = stablehlo.dynamic_slice %x, %b, %r, %c, sizes = [" + std::to_string(c.sb) + ", " +
        std::to_string(c.sr) + ", " + std::to_string(c.sc) +
        "] : (tensor<4x6x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> " + t + "\n" +
        "  return %s : " + t + "\n}\n";
    test::CountedRun a = test::CompileAndRunCounted(program, in, {.threads = 1});
    ASSERT_EQ(a.outputs.size(), 1u);
    const int b0 = clamp(c.b, 4 - c.sb), r0 = clamp(c.r, 6 - c.sr), c0 = clamp(c.c, 32 - c.sc);
    EXPECT_EQ(Floats(a.outputs[0]), Slice(b0, b0 + c.sb, r0, r0 + c.sr, c0, c0 + c.sc, 1.0f));
    EXPECT_EQ(a.dispatches, c.view ? 0u : 1u);
  }
}

// A scan over a sequence: step i of x [4, 6, 32] read by dynamic_slice at the
// loop counter is a view; the sum over the steps is the copy's.
TEST(SliceView, ScanStepsAreViewsAtTheLoopCounter) {
  const std::string program = R"(
func.func @main(%x: tensor<4x6x32xf32>) -> tensor<6x32xf32> {
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %acc0 = stablehlo.constant dense<0.0> : tensor<6x32xf32>
  %r:2 = stablehlo.while(%i = %i0, %acc = %acc0) : tensor<i32>, tensor<6x32xf32>
  cond {
    %n = stablehlo.constant dense<4> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %s = stablehlo.dynamic_slice %x, %i, %z, %z, sizes = [1, 6, 32] : (tensor<4x6x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x6x32xf32>
    %s2 = stablehlo.reshape %s : (tensor<1x6x32xf32>) -> tensor<6x32xf32>
    %a = stablehlo.add %acc, %s2 : tensor<6x32xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %a : tensor<i32>, tensor<6x32xf32>
  }
  return %r#1 : tensor<6x32xf32>
}
)";
  const std::vector<vm::HostTensor> in = {test::HostTensorOf(ElementType::kF32, {4, 6, 32}, Iota(4 * 6 * 32))};
  test::CountedRun a = test::CompileAndRunCounted(program, in, {.threads = 1});
  ASSERT_EQ(a.outputs.size(), 1u);
  std::vector<float> want(6 * 32, 0.0f);
  for (int b = 0; b < 4; ++b)
    for (int k = 0; k < 6 * 32; ++k) want[k] += static_cast<float>(b * 6 * 32 + k);
  EXPECT_EQ(Floats(a.outputs[0]), want);
  EXPECT_EQ(a.dispatches, 4u) << "one add per step, no slice dispatch";
}

}  // namespace
}  // namespace kiln

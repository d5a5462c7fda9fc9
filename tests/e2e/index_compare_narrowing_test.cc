// The index-compare narrowing (compiler/passes/narrow_index_compares.h) run
// end to end: a program whose si64 index compares the fused build narrows
// to si32 gives the same bits as the unfused build, which compares in si64.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tests/support/counted_run.h"
#include "tests/support/host_tensor_util.h"

namespace kiln {
namespace {

using test::HostTensorOf;

// A causal and a band mask from si64 iotas, signed compares of
// converted narrow integers against constants at si32's ends, and si64
// indices converted to f32 and bf16.
constexpr char kMasks[] = R"(
func.func @main(%x: tensor<5x7xf32>, %i: tensor<5x7xi16>, %j: tensor<5x7xi32>) -> (tensor<5x7xf32>, tensor<5x7xi1>, tensor<5x7xi1>, tensor<5x7xi1>, tensor<5x7xf32>, tensor<5x7xbf16>) {
  %r = stablehlo.iota dim = 0 : tensor<5x7xi64>
  %c = stablehlo.iota dim = 1 : tensor<5x7xi64>
  %m = stablehlo.compare GE, %r, %c, SIGNED : (tensor<5x7xi64>, tensor<5x7xi64>) -> tensor<5x7xi1>
  %n = stablehlo.constant dense<-1.0e9> : tensor<5x7xf32>
  %0 = stablehlo.select %m, %x, %n : tensor<5x7xi1>, tensor<5x7xf32>
  %two = stablehlo.constant dense<[[2, 1, 0, -1, 2, 3, 2], [0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2], [-3, 4, -5, 6, 0, 1, 2]]> : tensor<5x7xi64>
  %d = stablehlo.subtract %c, %r : tensor<5x7xi64>
  %1 = stablehlo.compare LE, %d, %two, SIGNED : (tensor<5x7xi64>, tensor<5x7xi64>) -> tensor<5x7xi1>
  %a = stablehlo.convert %i : (tensor<5x7xi16>) -> tensor<5x7xi64>
  %b = stablehlo.convert %j : (tensor<5x7xi32>) -> tensor<5x7xi64>
  %2 = stablehlo.compare LT, %a, %b, SIGNED : (tensor<5x7xi64>, tensor<5x7xi64>) -> tensor<5x7xi1>
  %lo = stablehlo.constant dense<-2147483648> : tensor<i64>
  %lob = stablehlo.broadcast_in_dim %lo, dims = [] : (tensor<i64>) -> tensor<5x7xi64>
  %3 = stablehlo.compare GT, %b, %lob, SIGNED : (tensor<5x7xi64>, tensor<5x7xi64>) -> tensor<5x7xi1>
  %4 = stablehlo.and %2, %3 : tensor<5x7xi1>
  %p = stablehlo.convert %d : (tensor<5x7xi64>) -> tensor<5x7xf32>
  %q = stablehlo.convert %a : (tensor<5x7xi64>) -> tensor<5x7xbf16>
  return %0, %1, %2, %4, %p, %q : tensor<5x7xf32>, tensor<5x7xi1>, tensor<5x7xi1>, tensor<5x7xi1>, tensor<5x7xf32>, tensor<5x7xbf16>
}
)";

TEST(IndexCompareNarrowing, FusedAndUnfusedGiveTheSameBits) {
  std::vector<float> x(35);
  std::vector<int16_t> i(35);
  std::vector<int32_t> j(35);
  const int32_t edges[] = {std::numeric_limits<int32_t>::min(), -1, 0, 1, std::numeric_limits<int32_t>::max(), -32768,
                           32767};
  for (size_t k = 0; k < 35; ++k) {
    x[k] = 0.25f * static_cast<float>(k);
    i[k] = static_cast<int16_t>(static_cast<int>(k * 9973 % 65536) - 32768);
    // The edges themselves, and values near them, held within si32.
    const int64_t near = static_cast<int64_t>(edges[k % 7]) + (k % 3 == 0 ? 0 : static_cast<int64_t>(k % 5) - 2);
    j[k] = static_cast<int32_t>(std::clamp<int64_t>(near, std::numeric_limits<int32_t>::min(),
                                                     std::numeric_limits<int32_t>::max()));
  }
  const std::vector<vm::HostTensor> inputs = {HostTensorOf(ElementType::kF32, {5, 7}, x),
                                              HostTensorOf(ElementType::kSI16, {5, 7}, i),
                                              HostTensorOf(ElementType::kSI32, {5, 7}, j)};
  test::CountedRun fused = test::CompileAndRunCounted(kMasks, inputs, {.fuse = true, .file_name = "masks.mlir"});
  test::CountedRun unfused = test::CompileAndRunCounted(kMasks, inputs, {.fuse = false, .file_name = "masks.mlir"});
  ASSERT_EQ(fused.outputs.size(), 6u);
  ASSERT_EQ(unfused.outputs.size(), 6u);
  for (size_t o = 0; o < 6; ++o) EXPECT_TRUE(fused.outputs[o].data == unfused.outputs[o].data) << "output " << o;
}

}  // namespace
}  // namespace kiln

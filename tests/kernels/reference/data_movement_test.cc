// Tests of the reference data-movement kernels (broadcast, transpose,
// reshape, copy, slice, concatenate, pad, reverse, iota, bitcast_convert;
// sort and top_k are tested in indexing_test.cc). Expected values come from the StableHLO spec's examples or are
// worked out by hand.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernels/reference/registry.h"
#include "kernels/scalar/scalar.h"
#include "tests/kernels/tensor_test_util.h"

namespace kiln::ref {
namespace {

using namespace ::kiln::test;  // Tensor, Make, Zeros, Get, Ints, Prog, Call

using V = std::vector<int32_t>;
using V64 = std::vector<int64_t>;
constexpr ElementType kI32 = ElementType::kSI32;
constexpr ElementType kI64 = ElementType::kSI64;

// --- broadcast_in_dim --------------------------------------------------------

TEST(DataMovementKernels, BroadcastInDimSpecExample) {
  Tensor in = Make(kI32, {1, 3}, V{1, 2, 3});
  Tensor out = Zeros(kI32, {2, 3, 2});
  ASSERT_TRUE(Call("stablehlo.broadcast_in_dim", {Ints("broadcast_dimensions", {2, 1})}, {&in}, {&out}).ok());
  EXPECT_EQ(Get<int32_t>(out), (V{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
}

TEST(DataMovementKernels, BroadcastScalarAndZeroSized) {
  Tensor s = Make(ElementType::kF64, {}, std::vector<double>{2.5});
  Tensor out = Zeros(ElementType::kF64, {3});
  ASSERT_TRUE(Call("stablehlo.broadcast_in_dim", {Ints("broadcast_dimensions", {})}, {&s}, {&out}).ok());
  EXPECT_EQ(Get<double>(out), (std::vector<double>{2.5, 2.5, 2.5}));
  Tensor e = Zeros(kI32, {0, 2});
  Tensor out2 = Zeros(kI32, {3, 0, 2});
  EXPECT_TRUE(Call("stablehlo.broadcast_in_dim", {Ints("broadcast_dimensions", {1, 2})}, {&e}, {&out2}).ok());
}

TEST(DataMovementKernels, BroadcastInDimErrors) {
  Tensor in = Make(kI32, {2}, V{1, 2});
  Tensor out = Zeros(kI32, {3, 3});
  EXPECT_FALSE(Call("stablehlo.broadcast_in_dim", {Ints("broadcast_dimensions", {1})}, {&in}, {&out}).ok());
  EXPECT_FALSE(Call("stablehlo.broadcast_in_dim", {Ints("broadcast_dimensions", {2})}, {&in}, {&out}).ok());
  EXPECT_FALSE(Call("stablehlo.broadcast_in_dim", {}, {&in}, {&out}).ok());
  Tensor small = Zeros(kI32, {3, 2});
  small.bytes.resize(4);  // storage too small
  EXPECT_FALSE(Call("stablehlo.broadcast_in_dim", {Ints("broadcast_dimensions", {1})}, {&in}, {&small}).ok());
}

TEST(DataMovementKernels, DynamicBroadcastInDim) {
  Tensor in = Make(kI64, {1, 3}, V64{1, 2, 3});
  Tensor shape = Make(kI32, {3}, V{2, 3, 2});
  Tensor out = Zeros(kI64, {2, 3, 2});
  ASSERT_TRUE(
      Call("stablehlo.dynamic_broadcast_in_dim", {Ints("broadcast_dimensions", {2, 1})}, {&in, &shape}, {&out}).ok());
  EXPECT_EQ(Get<int64_t>(out), (V64{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
  Tensor bad_shape = Make(kI32, {3}, V{2, 3, 3});
  EXPECT_FALSE(Call("stablehlo.dynamic_broadcast_in_dim", {Ints("broadcast_dimensions", {2, 1})},
                   {&in, &bad_shape}, {&out})
                   .ok());
}

// --- transpose / reshape -------------------------------------------------------

TEST(DataMovementKernels, TransposeSpecExample) {
  Tensor in = Make(kI32, {2, 3, 2}, V{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  Tensor out = Zeros(kI32, {2, 3, 2});
  ASSERT_TRUE(Call("stablehlo.transpose", {Ints("permutation", {2, 1, 0})}, {&in}, {&out}).ok());
  EXPECT_EQ(Get<int32_t>(out), (V{1, 7, 3, 9, 5, 11, 2, 8, 4, 10, 6, 12}));
}

TEST(DataMovementKernels, TransposeNonSquare) {
  Tensor in = Make(ElementType::kUI8, {2, 3}, std::vector<uint8_t>{1, 2, 3, 4, 5, 6});
  Tensor out = Zeros(ElementType::kUI8, {3, 2});
  ASSERT_TRUE(Call("stablehlo.transpose", {Ints("permutation", {1, 0})}, {&in}, {&out}).ok());
  EXPECT_EQ(Get<uint8_t>(out), (std::vector<uint8_t>{1, 4, 2, 5, 3, 6}));
  EXPECT_FALSE(Call("stablehlo.transpose", {Ints("permutation", {0, 0})}, {&in}, {&out}).ok());
  EXPECT_FALSE(Call("stablehlo.transpose", {Ints("permutation", {0, 1})}, {&in}, {&out}).ok());
}

TEST(DataMovementKernels, ReshapeAndDynamicReshape) {
  Tensor in = Make(kI32, {2, 3}, V{1, 2, 3, 4, 5, 6});
  Tensor out = Zeros(kI32, {3, 2});
  ASSERT_TRUE(Call("stablehlo.reshape", {}, {&in}, {&out}).ok());
  EXPECT_EQ(Get<int32_t>(out), (V{1, 2, 3, 4, 5, 6}));
  Tensor shape = Make(kI64, {2}, V64{3, 2});
  Tensor out2 = Zeros(kI32, {3, 2});
  ASSERT_TRUE(Call("stablehlo.dynamic_reshape", {}, {&in, &shape}, {&out2}).ok());
  EXPECT_EQ(Get<int32_t>(out2), (V{1, 2, 3, 4, 5, 6}));
  Tensor wrong = Zeros(kI32, {4});
  EXPECT_FALSE(Call("stablehlo.reshape", {}, {&in}, {&wrong}).ok());
  Tensor wrong_type = Zeros(ElementType::kF32, {6});
  EXPECT_FALSE(Call("stablehlo.reshape", {}, {&in}, {&wrong_type}).ok());
}

TEST(DataMovementKernels, Copy) {
  Tensor in = Make(kI32, {2, 2}, V{1, 2, 3, 4});
  Tensor out = Zeros(kI32, {4});
  ASSERT_TRUE(Call("kiln.copy", {}, {&in}, {&out}).ok());
  EXPECT_EQ(Get<int32_t>(out), (V{1, 2, 3, 4}));
  Tensor bad = Zeros(kI32, {3});
  EXPECT_FALSE(Call("kiln.copy", {}, {&in}, {&bad}).ok());
}

// --- slice ------------------------------------------------------------------

TEST(DataMovementKernels, SliceSpecExample) {
  Tensor in = Make(kI64, {3, 4}, V64{0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1});
  Tensor out = Zeros(kI64, {2, 2});
  ASSERT_TRUE(Call("stablehlo.slice",
                  {Ints("start_indices", {1, 2}), Ints("limit_indices", {3, 4}), Ints("strides", {1, 1})},
                  {&in}, {&out})
                  .ok());
  EXPECT_EQ(Get<int64_t>(out), (V64{1, 1, 1, 1}));
}

TEST(DataMovementKernels, SliceStrided) {
  Tensor in = Make(kI32, {7}, V{0, 1, 2, 3, 4, 5, 6});
  Tensor out = Zeros(kI32, {3});
  ASSERT_TRUE(Call("stablehlo.slice", {Ints("start_indices", {1}), Ints("limit_indices", {7}), Ints("strides", {2})},
                  {&in}, {&out})
                  .ok());
  EXPECT_EQ(Get<int32_t>(out), (V{1, 3, 5}));
  // strides omitted: ones.
  Tensor out2 = Zeros(kI32, {2});
  ASSERT_TRUE(Call("stablehlo.slice", {Ints("start_indices", {5}), Ints("limit_indices", {7})}, {&in}, {&out2}).ok());
  EXPECT_EQ(Get<int32_t>(out2), (V{5, 6}));
  Tensor empty = Zeros(kI32, {0});
  EXPECT_TRUE(Call("stablehlo.slice", {Ints("start_indices", {3}), Ints("limit_indices", {3})}, {&in}, {&empty}).ok());
  EXPECT_FALSE(Call("stablehlo.slice", {Ints("start_indices", {5}), Ints("limit_indices", {8})}, {&in}, {&out2}).ok());
  EXPECT_FALSE(Call("stablehlo.slice", {Ints("start_indices", {5}), Ints("limit_indices", {7}), Ints("strides", {0})},
                   {&in}, {&out2})
                   .ok());
  EXPECT_FALSE(Call("stablehlo.slice", {Ints("start_indices", {4}), Ints("limit_indices", {7})}, {&in}, {&out2}).ok());
}

TEST(DataMovementKernels, RealDynamicSlice) {
  Tensor in = Make(kI32, {2, 5}, V{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  Tensor start = Make(kI64, {2}, V64{1, 0});
  Tensor limit = Make(kI64, {2}, V64{2, 5});
  Tensor strides = Make(kI64, {2}, V64{1, 2});
  Tensor out = Zeros(kI32, {1, 3});
  ASSERT_TRUE(Call("stablehlo.real_dynamic_slice", {}, {&in, &start, &limit, &strides}, {&out}).ok());
  EXPECT_EQ(Get<int32_t>(out), (V{5, 7, 9}));
}

// --- concatenate --------------------------------------------------------------

TEST(DataMovementKernels, ConcatenateSpecExample) {
  Tensor a = Make(kI64, {3, 2}, V64{1, 2, 3, 4, 5, 6});
  Tensor b = Make(kI64, {1, 2}, V64{7, 8});
  Tensor out = Zeros(kI64, {4, 2});
  ASSERT_TRUE(Call("stablehlo.concatenate", {Ints("dimension", {0})}, {&a, &b}, {&out}).ok());
  EXPECT_EQ(Get<int64_t>(out), (V64{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(DataMovementKernels, ConcatenateInnerDimWithEmpty) {
  Tensor a = Make(kI32, {2, 1}, V{1, 2});
  Tensor e = Zeros(kI32, {2, 0});
  Tensor b = Make(kI32, {2, 2}, V{3, 4, 5, 6});
  Tensor out = Zeros(kI32, {2, 3});
  ASSERT_TRUE(Call("stablehlo.concatenate", {Ints("dimension", {1})}, {&a, &e, &b}, {&out}).ok());
  EXPECT_EQ(Get<int32_t>(out), (V{1, 3, 4, 2, 5, 6}));
  Tensor bad = Zeros(kI32, {2, 4});
  EXPECT_FALSE(Call("stablehlo.concatenate", {Ints("dimension", {1})}, {&a, &b}, {&bad}).ok());
  EXPECT_FALSE(Call("stablehlo.concatenate", {Ints("dimension", {2})}, {&a, &b}, {&out}).ok());
}

// --- pad ----------------------------------------------------------------------

TEST(DataMovementKernels, PadSpecExample) {
  Tensor in = Make(kI32, {2, 3}, V{1, 2, 3, 4, 5, 6});
  Tensor pv = Make(kI32, {}, V{0});
  Tensor out = Zeros(kI32, {5, 9});
  ASSERT_TRUE(Call("stablehlo.pad",
                  {Ints("edge_padding_low", {0, 1}), Ints("edge_padding_high", {2, 1}),
                   Ints("interior_padding", {1, 2})},
                  {&in, &pv}, {&out})
                  .ok());
  EXPECT_EQ(Get<int32_t>(out), (V{0, 1, 0, 0, 2, 0, 0, 3, 0,  //
                                  0, 0, 0, 0, 0, 0, 0, 0, 0,  //
                                  0, 4, 0, 0, 5, 0, 0, 6, 0,  //
                                  0, 0, 0, 0, 0, 0, 0, 0, 0,  //
                                  0, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(DataMovementKernels, PadNegativeEdges) {
  // [1,2,3,4] interior 1 -> [1,p,2,p,3,p,4]; low -2, high -1 -> [2,p,3,p].
  Tensor in = Make(ElementType::kF32, {4}, std::vector<float>{1, 2, 3, 4});
  Tensor pv = Make(ElementType::kF32, {}, std::vector<float>{-1});
  Tensor out = Zeros(ElementType::kF32, {4});
  ASSERT_TRUE(Call("stablehlo.pad",
                  {Ints("edge_padding_low", {-2}), Ints("edge_padding_high", {-1}), Ints("interior_padding", {1})},
                  {&in, &pv}, {&out})
                  .ok());
  EXPECT_EQ(Get<float>(out), (std::vector<float>{2, -1, 3, -1}));
  // A zero-sized operand padded to [3].
  Tensor e = Zeros(ElementType::kF32, {0});
  Tensor out2 = Zeros(ElementType::kF32, {3});
  ASSERT_TRUE(Call("stablehlo.pad",
                  {Ints("edge_padding_low", {1}), Ints("edge_padding_high", {2}), Ints("interior_padding", {5})},
                  {&e, &pv}, {&out2})
                  .ok());
  EXPECT_EQ(Get<float>(out2), (std::vector<float>{-1, -1, -1}));
  EXPECT_FALSE(Call("stablehlo.pad",
                   {Ints("edge_padding_low", {1}), Ints("edge_padding_high", {1}), Ints("interior_padding", {0})},
                   {&in, &pv}, {&out})
                   .ok());
  EXPECT_FALSE(Call("stablehlo.pad",
                   {Ints("edge_padding_low", {0}), Ints("edge_padding_high", {3}), Ints("interior_padding", {-1})},
                   {&in, &pv}, {&out})
                   .ok());
}

// Padding attributes a hostile module can hold: sums and products that
// overflow int64 are refused, not wrapped (found by module_loader_fuzzer).
TEST(DataMovementKernels, PadRefusesOverflowingAttributes) {
  Tensor in = Make(ElementType::kF32, {4}, std::vector<float>{1, 2, 3, 4});
  Tensor pv = Make(ElementType::kF32, {}, std::vector<float>{-1});
  Tensor out = Zeros(ElementType::kF32, {4});
  const int64_t big = int64_t{1} << 62;
  EXPECT_FALSE(Call("stablehlo.pad",
                   {Ints("edge_padding_low", {0}), Ints("edge_padding_high", {0}), Ints("interior_padding", {big})},
                   {&in, &pv}, {&out})
                   .ok());
  EXPECT_FALSE(Call("stablehlo.pad",
                   {Ints("edge_padding_low", {INT64_MAX}), Ints("edge_padding_high", {INT64_MAX}),
                    Ints("interior_padding", {0})},
                   {&in, &pv}, {&out})
                   .ok());
  // low + high cancel exactly: the result is [4] again, and a position
  // that would overflow when mapped back is padding.
  Tensor out2 = Zeros(ElementType::kF32, {4});
  ASSERT_TRUE(Call("stablehlo.pad",
                  {Ints("edge_padding_low", {INT64_MIN + 8}), Ints("edge_padding_high", {INT64_MAX - 7}),
                   Ints("interior_padding", {0})},
                  {&in, &pv}, {&out2})
                  .ok());
  EXPECT_EQ(Get<float>(out2), (std::vector<float>{-1, -1, -1, -1}));
  // A one-element operand with the largest interior padding.
  Tensor one = Make(ElementType::kF32, {1}, std::vector<float>{7});
  Tensor out3 = Zeros(ElementType::kF32, {2});
  ASSERT_TRUE(Call("stablehlo.pad",
                  {Ints("edge_padding_low", {0}), Ints("edge_padding_high", {1}), Ints("interior_padding", {INT64_MAX})},
                  {&one, &pv}, {&out3})
                  .ok());
  EXPECT_EQ(Get<float>(out3), (std::vector<float>{7, -1}));
}

TEST(DataMovementKernels, DynamicPadSpecExample) {
  Tensor in = Make(kI64, {2, 3}, V64{1, 2, 3, 4, 5, 6});
  Tensor pv = Make(kI64, {}, V64{0});
  Tensor low = Make(kI64, {2}, V64{0, 1});
  Tensor high = Make(kI64, {2}, V64{2, 1});
  Tensor interior = Make(kI64, {2}, V64{1, 2});
  Tensor out = Zeros(kI64, {5, 9});
  ASSERT_TRUE(Call("stablehlo.dynamic_pad", {}, {&in, &pv, &low, &high, &interior}, {&out}).ok());
  auto r = Get<int64_t>(out);
  EXPECT_EQ(std::vector<int64_t>(r.begin(), r.begin() + 9), (V64{0, 1, 0, 0, 2, 0, 0, 3, 0}));
  EXPECT_EQ(std::vector<int64_t>(r.begin() + 18, r.begin() + 27), (V64{0, 4, 0, 0, 5, 0, 0, 6, 0}));
}

// --- reverse ------------------------------------------------------------------

TEST(DataMovementKernels, Reverse) {
  Tensor in = Make(kI32, {3, 2}, V{1, 2, 3, 4, 5, 6});
  Tensor out = Zeros(kI32, {3, 2});
  ASSERT_TRUE(Call("stablehlo.reverse", {Ints("dimensions", {1})}, {&in}, {&out}).ok());
  EXPECT_EQ(Get<int32_t>(out), (V{2, 1, 4, 3, 6, 5}));
  ASSERT_TRUE(Call("stablehlo.reverse", {Ints("dimensions", {0, 1})}, {&in}, {&out}).ok());
  EXPECT_EQ(Get<int32_t>(out), (V{6, 5, 4, 3, 2, 1}));
  EXPECT_FALSE(Call("stablehlo.reverse", {Ints("dimensions", {2})}, {&in}, {&out}).ok());
  EXPECT_FALSE(Call("stablehlo.reverse", {Ints("dimensions", {1, 1})}, {&in}, {&out}).ok());
}

// --- iota ---------------------------------------------------------------------

TEST(DataMovementKernels, IotaIntegers) {
  Tensor out = Zeros(kI32, {4, 5});
  ASSERT_TRUE(Call("stablehlo.iota", {Ints("iota_dimension", {0})}, {}, {&out}).ok());
  EXPECT_EQ(Get<int32_t>(out), (V{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3}));
  ASSERT_TRUE(Call("stablehlo.iota", {Ints("iota_dimension", {1})}, {}, {&out}).ok());
  EXPECT_EQ(Get<int32_t>(out), (V{0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4}));
  EXPECT_FALSE(Call("stablehlo.iota", {Ints("iota_dimension", {2})}, {}, {&out}).ok());
}

TEST(DataMovementKernels, IotaFloatComplexAndDynamic) {
  Tensor f = Zeros(ElementType::kF32, {3});
  ASSERT_TRUE(Call("stablehlo.iota", {Ints("iota_dimension", {0})}, {}, {&f}).ok());
  EXPECT_EQ(Get<float>(f), (std::vector<float>{0, 1, 2}));
  Tensor c = Zeros(ElementType::kC64, {2});
  ASSERT_TRUE(Call("stablehlo.iota", {Ints("iota_dimension", {0})}, {}, {&c}).ok());
  EXPECT_EQ(Get<float>(c), (std::vector<float>{0, 0, 1, 0}));
  Tensor shape = Make(kI64, {2}, V64{2, 2});
  Tensor d = Zeros(ElementType::kUI16, {2, 2});
  ASSERT_TRUE(Call("stablehlo.dynamic_iota", {Ints("iota_dimension", {1})}, {&shape}, {&d}).ok());
  EXPECT_EQ(Get<uint16_t>(d), (std::vector<uint16_t>{0, 1, 0, 1}));
  Tensor b = Zeros(ElementType::kI1, {2});
  EXPECT_FALSE(Call("stablehlo.iota", {Ints("iota_dimension", {0})}, {}, {&b}).ok());
}

// --- bitcast_convert ----------------------------------------------------------

TEST(DataMovementKernels, BitcastF64ToF16SpecExample) {
  Tensor in = Make(ElementType::kSI64, {}, V64{0x0123456789ABCDEF});
  Tensor out = Zeros(ElementType::kF16, {4});
  ASSERT_TRUE(Call("stablehlo.bitcast_convert", {}, {&in}, {&out}).ok());
  EXPECT_EQ(Get<uint16_t>(out), (std::vector<uint16_t>{0xCDEF, 0x89AB, 0x4567, 0x0123}));
  // And back.
  Tensor back = Zeros(ElementType::kF64, {});
  ASSERT_TRUE(Call("stablehlo.bitcast_convert", {}, {&out}, {&back}).ok());
  EXPECT_EQ(Get<int64_t>(back), (V64{0x0123456789ABCDEF}));
}

TEST(DataMovementKernels, BitcastI1AndI4) {
  // i64 0b...0110 -> 64 x i1, element k = bit k.
  Tensor in = Make(kI64, {}, V64{6});
  Tensor bits = Zeros(ElementType::kI1, {64});
  ASSERT_TRUE(Call("stablehlo.bitcast_convert", {}, {&in}, {&bits}).ok());
  auto b = Get<uint8_t>(bits);
  EXPECT_EQ(b[0], 0);
  EXPECT_EQ(b[1], 1);
  EXPECT_EQ(b[2], 1);
  EXPECT_EQ(b[3], 0);
  // ui8 0xF7 -> 2 x i4: low nibble 7, high nibble 0xF = -1 (stored sign-extended).
  Tensor byte = Make(ElementType::kUI8, {1}, std::vector<uint8_t>{0xF7});
  Tensor nib = Zeros(ElementType::kSI4, {1, 2});
  ASSERT_TRUE(Call("stablehlo.bitcast_convert", {}, {&byte}, {&nib}).ok());
  EXPECT_EQ(Get<int8_t>(nib), (std::vector<int8_t>{7, -1}));
  Tensor byte2 = Zeros(ElementType::kUI8, {1});
  ASSERT_TRUE(Call("stablehlo.bitcast_convert", {}, {&nib}, {&byte2}).ok());
  EXPECT_EQ(Get<uint8_t>(byte2), (std::vector<uint8_t>{0xF7}));
}

TEST(DataMovementKernels, BitcastComplexAndErrors) {
  // complex<f64>(0x0123456789ABCDEF, 0x0000000011111111) -> 2 x complex<f32>.
  Tensor in{ElementType::kC128, {}, std::vector<uint8_t>(16)};
  const uint64_t words[2] = {0x0123456789ABCDEF, 0x0000000011111111};
  std::memcpy(in.bytes.data(), words, 16);
  Tensor out = Zeros(ElementType::kC64, {2});
  ASSERT_TRUE(Call("stablehlo.bitcast_convert", {}, {&in}, {&out}).ok());
  EXPECT_EQ(Get<uint32_t>(out), (std::vector<uint32_t>{0x89ABCDEF, 0x01234567, 0x11111111, 0}));
  Tensor i32 = Make(kI32, {2}, V{1, 2});
  Tensor bad = Zeros(ElementType::kF64, {2});
  EXPECT_FALSE(Call("stablehlo.bitcast_convert", {}, {&i32}, {&bad}).ok());
  Tensor cplx = Zeros(ElementType::kC64, {});
  Tensor f64 = Zeros(ElementType::kF64, {});
  EXPECT_FALSE(Call("stablehlo.bitcast_convert", {}, {&f64}, {&cplx}).ok());
}

}  // namespace
}  // namespace kiln::ref

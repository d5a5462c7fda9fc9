// The fast CPU broadcast_in_dim, transpose, slice, concatenate and pad
// (kernels/cpu/data_movement.cc, data_movement_pad.cc) against the reference kernels, byte for byte: element types of 1, 2, 4, 8
// and 16 bytes (the last runs the reference), every permutation of rank 3,
// odd sizes around the 16x16 tiles, size-1 and zero-sized dims, broadcasts
// that expand, repeat and transpose, and sizes that split over the pool.
// These kernels are plain loops with no per-target (Highway) code but the
// transpose's tiles of 4- and 8-byte elements (transpose_tiles.h), so only
// the transpose tests run once per SIMD target.
#include "tests/kernels/cpu/hwy_test_util.h"  // first: the kernels' choice of targets

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/registry.h"
#include "kernels/reference/registry.h"
#include "tests/kernels/cpu/same_bytes_check.h"
#include "tests/kernels/cpu/test_pool.h"

namespace kiln::cpu {
namespace {

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

KernelParams Params(const char* kernel, const char* attr, std::vector<int64_t> v) {
  KernelParams p;
  p.kernel = kernel;
  KernelAttr a;
  a.name = attr;
  a.ints = std::move(v);
  p.attrs.push_back(a);
  return p;
}

void Check(const KernelParams& p, ElementType t, std::vector<int64_t> in_dims, std::vector<int64_t> out_dims,
           uint32_t seed) {
  SCOPED_TRACE(p.kernel + " " + std::string(Name(t)));
  std::mt19937 rng(seed);
  const size_t es = StorageBytes(t);
  std::vector<uint8_t> in(static_cast<size_t>(Count(in_dims)) * es);
  for (auto& b : in) b = static_cast<uint8_t>(rng());
  if (t == ElementType::kI1)
    for (auto& b : in) b &= 1;
  const size_t out_bytes = static_cast<size_t>(Count(out_dims)) * es;
  std::vector<uint8_t> got(out_bytes, 0xCD), threaded(out_bytes, 0xEF), want(out_bytes, 0);
  TensorRef ins[1] = {{t, in_dims, in.data(), in.size()}};
  TensorRef g[1] = {{t, out_dims, got.data(), got.size()}};
  TensorRef h[1] = {{t, out_dims, threaded.data(), threaded.size()}};
  TensorRef w[1] = {{t, out_dims, want.data(), want.size()}};
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  ASSERT_TRUE(ref::FindReferenceKernel(p.kernel)(KernelCall{p, ins, w}).ok());
  ASSERT_TRUE(fast(KernelCall{p, ins, g}).ok());
  ASSERT_TRUE(fast(KernelCall{p, ins, h, TestPool()}).ok());
  EXPECT_EQ(got, want);
  EXPECT_EQ(threaded, want);
}

void CheckTranspose(ElementType t, std::vector<int64_t> in_dims, std::vector<int64_t> perm, uint32_t seed) {
  std::vector<int64_t> out_dims;
  for (int64_t a : perm) out_dims.push_back(in_dims[a]);
  Check(Params("stablehlo.transpose", "permutation", perm), t, in_dims, out_dims, seed);
}

const ElementType kTypes[] = {ElementType::kF32, ElementType::kF16, ElementType::kSI8, ElementType::kF64,
                              ElementType::kI1, ElementType::kC128};

KILN_TEST_ALL_TARGETS(CpuTranspose, TwoDimensionalOddSizes) {
  for (ElementType t : kTypes)
    for (auto dims : std::vector<std::vector<int64_t>>{{1, 1}, {1, 5}, {5, 1}, {17, 33}, {16, 16}, {31, 65}, {0, 3}})
      CheckTranspose(t, dims, {1, 0}, 1);
}

KILN_TEST_ALL_TARGETS(CpuTranspose, EveryPermutationOfRankThreeAndFour) {
  std::vector<int64_t> perm = {0, 1, 2};
  do {
    for (ElementType t : kTypes) CheckTranspose(t, {5, 7, 19}, perm, 2);
  } while (std::next_permutation(perm.begin(), perm.end()));
  std::vector<int64_t> p4 = {0, 1, 2, 3};
  do {
    CheckTranspose(ElementType::kF32, {2, 3, 17, 5}, p4, 3);
  } while (std::next_permutation(p4.begin(), p4.end()));
}

KILN_TEST_ALL_TARGETS(CpuTranspose, LargeEnoughToSplit) {
  CheckTranspose(ElementType::kF32, {300, 257}, {1, 0}, 4);
  CheckTranspose(ElementType::kF64, {3, 130, 170}, {2, 0, 1}, 5);
}

KILN_TEST_ALL_TARGETS(CpuTranspose, ChannelsFirstAndLast) {
  // NCHW <-> NHWC at sizes that leave ragged edges around the 4x4 (4-byte)
  // and 2x2 (8-byte) vector tiles inside each 16x16 tile, and whole ones.
  for (ElementType t : {ElementType::kF32, ElementType::kF64, ElementType::kSI32, ElementType::kF16}) {
    CheckTranspose(t, {2, 6, 9, 13}, {0, 2, 3, 1}, 6);
    CheckTranspose(t, {2, 9, 13, 6}, {0, 3, 1, 2}, 7);
    CheckTranspose(t, {1, 32, 8, 16}, {0, 2, 3, 1}, 8);
    CheckTranspose(t, {3, 4, 21, 35}, {0, 1, 3, 2}, 9);
  }
}

TEST(CpuBroadcastInDim, ExpandRepeatAndTranspose) {
  struct Case {
    std::vector<int64_t> in, out, dims;
  };
  const Case cases[] = {{{5}, {3, 5}, {1}},          {{3}, {3, 5}, {0}},         {{1, 5}, {4, 5}, {0, 1}},
                        {{}, {7, 9}, {}},            {{3, 1}, {3, 4}, {0, 1}},   {{4, 3}, {3, 4}, {1, 0}},
                        {{2, 1, 3}, {2, 5, 3, 7}, {0, 1, 2}}, {{0}, {2, 0}, {1}}, {{257}, {300, 257}, {1}},
                        {{300}, {300, 257}, {0}}};
  for (const Case& c : cases)
    for (ElementType t : kTypes)
      Check(Params("stablehlo.broadcast_in_dim", "broadcast_dimensions", c.dims), t, c.in, c.out, 6);
}

// Nearest-neighbour upsampling as exporters write it (broadcast_in_dim to
// [N, C, H, s, W, s], then a reshape): each element repeated along the
// innermost axis, which gather.h merges into the row as a repeat (2 to 4;
// 5 stays a fill per element), also under a transposed row (a stride
// other than 1) and split over tasks that start mid-row.
TEST(CpuBroadcastInDim, RepeatedElementsAsUpsampling) {
  struct Case {
    std::vector<int64_t> in, out, dims;
  };
  const Case cases[] = {{{1, 3, 5, 7}, {1, 3, 5, 2, 7, 2}, {0, 1, 2, 4}},
                        {{2, 4, 3}, {2, 4, 3, 3}, {0, 1, 2}},
                        {{2, 4, 3}, {2, 4, 3, 4}, {0, 1, 2}},
                        {{2, 4, 3}, {2, 4, 3, 5}, {0, 1, 2}},
                        {{4, 3}, {3, 4, 2}, {1, 0}},
                        {{1, 9}, {1, 9, 3}, {0, 1}}};
  for (const Case& c : cases)
    for (ElementType t : kTypes)
      Check(Params("stablehlo.broadcast_in_dim", "broadcast_dimensions", c.dims), t, c.in, c.out, 7);
  Check(Params("stablehlo.broadcast_in_dim", "broadcast_dimensions", {0, 1, 2, 4}), ElementType::kF32,
        {2, 16, 37, 61}, {2, 16, 37, 3, 61, 3}, 8);
}

TEST(CpuSlice, StartsLimitsAndStrides) {
  struct Case {
    std::vector<int64_t> in, start, limit, strides;
  };
  const Case cases[] = {{{10}, {2}, {9}, {3}},          {{7, 9}, {1, 0}, {6, 9}, {1, 1}},
                        {{7, 9}, {0, 2}, {7, 7}, {2, 1}}, {{5, 6, 7}, {1, 2, 3}, {5, 6, 7}, {2, 3, 1}},
                        {{4, 4}, {2, 2}, {2, 4}, {1, 1}}, {{300, 260}, {3, 1}, {299, 259}, {1, 2}}};
  for (const Case& c : cases) {
    std::vector<int64_t> out;
    for (size_t d = 0; d < c.in.size(); ++d) out.push_back((c.limit[d] - c.start[d] + c.strides[d] - 1) / c.strides[d]);
    KernelParams p = Params("stablehlo.slice", "start_indices", c.start);
    KernelAttr l, st;
    l.name = "limit_indices";
    l.ints = c.limit;
    st.name = "strides";
    st.ints = c.strides;
    p.attrs.push_back(l);
    p.attrs.push_back(st);
    for (ElementType t : kTypes) Check(p, t, c.in, out, 7);
  }
}

// Unit strides take the memcpy-run path (slice_runs.h): a GRU's gate
// vectors at batch 1 and 64, cuts of the innermost, a middle and the
// outermost axis, whole tensors, zero-sized results, no strides attribute,
// and enough rows to split over the pool.
TEST(CpuSlice, UnitStridesAsRuns) {
  struct Case {
    std::vector<int64_t> in, start, limit;
  };
  const Case cases[] = {{{1, 384}, {0, 128}, {1, 256}},       {{64, 384}, {0, 256}, {64, 384}},
                        {{7, 13}, {2, 3}, {5, 12}},           {{3, 8, 5, 7}, {1, 2, 0, 0}, {3, 7, 5, 7}},
                        {{3, 8, 5, 7}, {0, 0, 1, 0}, {3, 8, 4, 7}}, {{9, 5}, {2, 0}, {8, 5}},
                        {{4, 6}, {0, 0}, {4, 6}},             {{17}, {3}, {16}},
                        {{6, 9}, {2, 4}, {2, 9}},             {{6, 9}, {1, 4}, {5, 4}},
                        {{2000, 300}, {1, 7}, {1999, 290}}};
  for (const Case& c : cases)
    for (bool with_strides : {true, false}) {
      std::vector<int64_t> out;
      for (size_t d = 0; d < c.in.size(); ++d) out.push_back(c.limit[d] - c.start[d]);
      KernelParams p = Params("stablehlo.slice", "start_indices", c.start);
      KernelAttr l, st;
      l.name = "limit_indices";
      l.ints = c.limit;
      p.attrs.push_back(l);
      if (with_strides) {
        st.name = "strides";
        st.ints.assign(c.in.size(), 1);
        p.attrs.push_back(st);
      }
      for (ElementType t : kTypes) Check(p, t, c.in, out, 9);
    }
}

TEST(CpuSlice, MalformedUnitStrideCallsAreRefused) {
  // Limits past the operand, a result of the wrong size, storage too small:
  // errors from the reference, never a read out of bounds.
  std::vector<float> in(35), out(64);
  const std::vector<int64_t> in_dims = {5, 7};
  auto run = [&](std::vector<int64_t> start, std::vector<int64_t> limit, std::vector<int64_t> out_dims, size_t in_bytes) {
    KernelParams p = Params("stablehlo.slice", "start_indices", start);
    KernelAttr l;
    l.name = "limit_indices";
    l.ints = limit;
    p.attrs.push_back(l);
    TensorRef i[1] = {{ElementType::kF32, in_dims, reinterpret_cast<uint8_t*>(in.data()), in_bytes}};
    TensorRef o[1] = {{ElementType::kF32, out_dims, reinterpret_cast<uint8_t*>(out.data()), out.size() * 4}};
    return FindCpuKernel(p)(KernelCall{p, i, o}).ok();
  };
  EXPECT_TRUE(run({1, 1}, {3, 4}, {2, 3}, 140));
  EXPECT_FALSE(run({1, 1}, {3, 8}, {2, 7}, 140));
  EXPECT_FALSE(run({1, 1}, {3, 4}, {2, 4}, 140));
  EXPECT_FALSE(run({1, 1}, {3, 4}, {2, 3}, 100));
  EXPECT_FALSE(run({-1, 1}, {3, 4}, {4, 3}, 140));
}

TEST(CpuConcatenate, EveryDimensionAndEmptyInputs) {
  std::mt19937 rng(8);
  for (ElementType t : kTypes) {
    for (int64_t dim = 0; dim < 3; ++dim) {
      std::vector<std::vector<int64_t>> in_dims = {{3, 4, 5}, {3, 4, 5}, {3, 4, 5}};
      in_dims[0][dim] = 2;
      in_dims[1][dim] = 0;  // an empty input contributes nothing
      in_dims[2][dim] = 7;
      std::vector<int64_t> out_dims = {3, 4, 5};
      out_dims[dim] = 9;
      const size_t es = StorageBytes(t);
      std::vector<std::vector<uint8_t>> data;
      std::vector<TensorRef> ins;
      for (auto& d : in_dims) {
        data.emplace_back(static_cast<size_t>(Count(d)) * es);
        for (auto& b : data.back()) b = static_cast<uint8_t>(rng()) & (t == ElementType::kI1 ? 1 : 0xff);
      }
      for (size_t i = 0; i < in_dims.size(); ++i) ins.push_back({t, in_dims[i], data[i].data(), data[i].size()});
      KernelParams p = Params("stablehlo.concatenate", "dimension", {dim});
      const size_t bytes = static_cast<size_t>(Count(out_dims)) * es;
      std::vector<uint8_t> got(bytes, 0xCD), threaded(bytes, 0xEF), want(bytes, 0);
      TensorRef g[1] = {{t, out_dims, got.data(), got.size()}};
      TensorRef h[1] = {{t, out_dims, threaded.data(), threaded.size()}};
      TensorRef w[1] = {{t, out_dims, want.data(), want.size()}};
      KernelFn fast = FindCpuKernel(p);
      ASSERT_NE(fast, nullptr);
      ASSERT_TRUE(ref::FindReferenceKernel(p.kernel)(KernelCall{p, ins, w}).ok());
      ASSERT_TRUE(fast(KernelCall{p, ins, g}).ok());
      ASSERT_TRUE(fast(KernelCall{p, ins, h, TestPool()}).ok());
      EXPECT_EQ(got, want) << "dimension " << dim;
      EXPECT_EQ(threaded, want) << "dimension " << dim;
    }
  }
}

// Pad (data_movement_pad.cc): edge padding on every axis, on some (the
// trailing unpadded axes merge into one run), none, zero-sized operands;
// interior and negative padding run the reference.
TEST(CpuPad, EdgePaddingAsFillAndRuns) {
  struct Case {
    std::vector<int64_t> in, lo, hi, interior;
  };
  const Case cases[] = {
      {{2, 3, 4}, {1, 2, 0}, {0, 1, 3}, {0, 0, 0}},  {{1, 9, 9, 5}, {0, 1, 1, 0}, {0, 1, 1, 0}, {0, 0, 0, 0}},
      {{4, 6}, {0, 0}, {0, 0}, {0, 0}},              {{3, 0, 2}, {1, 1, 1}, {2, 0, 1}, {0, 0, 0}},
      {{130, 257}, {3, 0}, {4, 0}, {0, 0}},          {{2, 5}, {1, 0}, {0, 2}, {0, 1}},
      {{4, 5}, {-1, 2}, {1, -2}, {0, 0}},
  };
  std::mt19937 rng(12);
  for (ElementType t : kTypes)
    for (const Case& c : cases) {
      KernelParams p = Params("stablehlo.pad", "edge_padding_low", c.lo);
      p.attrs.push_back(Params("", "edge_padding_high", c.hi).attrs[0]);
      p.attrs.push_back(Params("", "interior_padding", c.interior).attrs[0]);
      std::vector<int64_t> out_dims;
      for (size_t d = 0; d < c.in.size(); ++d)
        out_dims.push_back(c.lo[d] + c.hi[d] + (c.in[d] > 0 ? c.in[d] + (c.in[d] - 1) * c.interior[d] : 0));
      test::Tensor in = test::Zeros(t, c.in), value = test::Zeros(t, {});
      for (auto& b : in.bytes) b = static_cast<uint8_t>(rng()) & (t == ElementType::kI1 ? 1 : 0xff);
      for (auto& b : value.bytes) b = static_cast<uint8_t>(rng()) & (t == ElementType::kI1 ? 1 : 0xff);
      SCOPED_TRACE(std::string(Name(t)) + " rank " + std::to_string(c.in.size()));
      ExpectSameBytesAsReference(p, {in, value}, t, out_dims);
    }
}

// A zero-sized operand whose other dims multiply past int64 (the loader
// fuzzer's module): nothing to copy, and the strides' products must not be
// signed overflow (UBSan, in the sanitizer build).
TEST(CpuIota, EveryAxisAndType) {
  // Each index of the axis converted as the reference converts it (f16 and
  // bf16 rounding past 256 and 2048, ui8 wrapping past 255, complex), runs
  // of it along the inner axes, over the pool; zero-sized results.
  for (ElementType t : {ElementType::kSI32, ElementType::kF32, ElementType::kF16, ElementType::kBF16,
                        ElementType::kUI8, ElementType::kSI64, ElementType::kC64, ElementType::kF64,
                        ElementType::kUI32, ElementType::kUI64})
    for (const auto& [dims, axis] : std::vector<std::pair<std::vector<int64_t>, int64_t>>{
             {{5}, 0}, {{3, 300}, 1}, {{3, 300}, 0}, {{2, 2100, 3}, 1}, {{4, 0, 5}, 2}, {{64, 64}, 0}}) {
      SCOPED_TRACE(std::string(Name(t)) + " axis " + std::to_string(axis));
      const KernelParams p = Params("stablehlo.iota", "iota_dimension", {axis});
      const size_t bytes = static_cast<size_t>(Count(dims)) * StorageBytes(t);
      std::vector<uint8_t> got(bytes, 0xCD), threaded(bytes, 0xEF), want(bytes, 0);
      TensorRef g[1] = {{t, dims, got.data(), got.size()}}, h[1] = {{t, dims, threaded.data(), threaded.size()}},
                w[1] = {{t, dims, want.data(), want.size()}};
      KernelFn fast = FindCpuKernel(p);
      ASSERT_NE(fast, nullptr);
      ASSERT_TRUE(ref::FindReferenceKernel(p.kernel)(KernelCall{p, {}, w}).ok());
      ASSERT_TRUE(fast(KernelCall{p, {}, g}).ok());
      ASSERT_TRUE(fast(KernelCall{p, {}, h, TestPool()}).ok());
      EXPECT_EQ(got, want);
      EXPECT_EQ(threaded, want);
    }
}

TEST(CpuTranspose, ZeroSizedWithHugeDims) {
  const int64_t huge = int64_t{1} << 40;
  const std::vector<int64_t> in_dims = {0, huge, huge}, out_dims = {huge, huge, 0};
  TensorRef in[1] = {{ElementType::kF32, in_dims, nullptr, 0}};
  TensorRef out[1] = {{ElementType::kF32, out_dims, nullptr, 0}};
  KernelParams p = Params("stablehlo.transpose", "permutation", {2, 1, 0});
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  EXPECT_TRUE(fast(KernelCall{p, in, out}).ok());
}

// Padding attributes whose sum passes int64 (the loader fuzzer's module):
// the fast pad hands them to the reference, which refuses the call, and
// its own size check must not be signed overflow (UBSan).
TEST(CpuPad, OverflowingAttributesGoToTheReference) {
  const std::vector<int64_t> in_dims = {3}, out_dims = {8}, scalar;
  std::vector<uint8_t> in(12), value(4), out(32);
  TensorRef ins[2] = {{ElementType::kF32, in_dims, in.data(), in.size()}, {ElementType::kF32, scalar, value.data(), 4}};
  TensorRef outs[1] = {{ElementType::kF32, out_dims, out.data(), out.size()}};
  KernelParams p = Params("stablehlo.pad", "edge_padding_low", {INT64_MAX});
  p.attrs.push_back(Params("", "edge_padding_high", {5}).attrs[0]);
  p.attrs.push_back(Params("", "interior_padding", {0}).attrs[0]);
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  EXPECT_FALSE(fast(KernelCall{p, ins, outs}).ok());
}

}  // namespace
}  // namespace kiln::cpu

// Tests of the reference batch_norm_*, uniform_quantize/dequantize,
// rng_bit_generator and rng kernels. Values from the spec's examples, the
// conformance tests (quantized_ops.mlir), the Random123 known-answer vectors,
// or worked out by hand in the comments.
#include <cmath>
#include <cstring>

#include "tests/kernels/reference/numeric_test_util.h"

namespace kiln::ref::numeric_test {
namespace {

Tensor SpecOperand() { return T(kF64, {2, 2, 2}, {1, 2, 3, 4, 3, 4, 1, 2}); }

TEST(NumericBatchNorm, InferenceSpecExample) {
  Tensor x = SpecOperand();
  Tensor scale = T(kF64, {2}, {1, 1}), offset = T(kF64, {2}, {1, 1});
  Tensor mean = T(kF64, {2}, {2, 3}), var = T(kF64, {2}, {1, 1});
  Tensor out = Zeros(kF64, {2, 2, 2});
  ASSERT_TRUE(Call("stablehlo.batch_norm_inference", {Floats("epsilon", {0}), Int("feature_index", 2)},
                   {&x, &scale, &offset, &mean, &var}, {&out})
                  .ok());
  ExpectNear(D(out), {0, 0, 2, 2, 2, 2, 0, 0});
  Tensor bad = T(kF64, {3}, {1, 1, 1});
  EXPECT_FALSE(Call("stablehlo.batch_norm_inference", {Floats("epsilon", {0}), Int("feature_index", 2)},
                    {&x, &bad, &offset, &mean, &var}, {&out})
                   .ok());
  EXPECT_FALSE(Call("stablehlo.batch_norm_inference", {Floats("epsilon", {0}), Int("feature_index", 3)},
                    {&x, &scale, &offset, &mean, &var}, {&out})
                   .ok());
}

TEST(NumericBatchNorm, TrainingSpecExampleAndOddShape) {
  Tensor x = SpecOperand();
  Tensor scale = T(kF64, {2}, {1, 1}), offset = T(kF64, {2}, {1, 1});
  Tensor out = Zeros(kF64, {2, 2, 2}), mean = Zeros(kF64, {2}), var = Zeros(kF64, {2});
  ASSERT_TRUE(Call("stablehlo.batch_norm_training", {Floats("epsilon", {0}), Int("feature_index", 2)},
                   {&x, &scale, &offset}, {&out, &mean, &var})
                  .ok());
  ExpectNear(D(out), {0, 0, 2, 2, 2, 2, 0, 0});
  ExpectNear(D(mean), {2, 3});
  ExpectNear(D(var), {1, 1});
  // 3x2, feature_index 1: f0 = [1,2,3] (mean 2, var 2/3), f1 = [4,4,4].
  Tensor y = T(kF32, {3, 2}, {1, 4, 2, 4, 3, 4});
  Tensor s1 = T(kF32, {2}, {1, 1}), o0 = T(kF32, {2}, {0, 0});
  Tensor yo = Zeros(kF32, {3, 2}), ym = Zeros(kF32, {2}), yv = Zeros(kF32, {2});
  ASSERT_TRUE(Call("stablehlo.batch_norm_training", {Floats("epsilon", {1}), Int("feature_index", 1)},
                   {&y, &s1, &o0}, {&yo, &ym, &yv})
                  .ok());
  const double k = 1 / std::sqrt(2.0 / 3 + 1);
  ExpectNear(D(yo), {-k, 0, 0, 0, k, 0});
  ExpectNear(D(ym), {2, 4});
  ExpectNear(D(yv), {2.0 / 3, 0});
}

TEST(NumericBatchNorm, GradSpecExampleAndHandCase) {
  Tensor x = SpecOperand();
  Tensor scale = T(kF64, {2}, {1, 1}), mean = T(kF64, {2}, {2, 3}), var = T(kF64, {2}, {1, 1});
  Tensor g = T(kF64, {2, 2, 2}, std::vector<double>(8, 0.1));
  Tensor gx = Zeros(kF64, {2, 2, 2}), gs = Zeros(kF64, {2}), go = Zeros(kF64, {2});
  ASSERT_TRUE(Call("stablehlo.batch_norm_grad", {Floats("epsilon", {0}), Int("feature_index", 2)},
                   {&x, &scale, &mean, &var, &g}, {&gx, &gs, &go})
                  .ok());
  ExpectNear(D(gx), std::vector<double>(8, 0), 1e-12);
  ExpectNear(D(gs), {0, 0}, 1e-12);
  ExpectNear(D(go), {0.4, 0.4}, 1e-12);
  // x = [0,1,5], mean 2, var 4, scale 1, grad [1,0,0]:
  // grad_operand = [1/6, -1/4, 1/12], grad_scale = -1, grad_offset = 1.
  Tensor x3 = T(kF64, {3, 1}, {0, 1, 5});
  Tensor s3 = T(kF64, {1}, {1}), m3 = T(kF64, {1}, {2}), v3 = T(kF64, {1}, {4});
  Tensor g3 = T(kF64, {3, 1}, {1, 0, 0});
  Tensor gx3 = Zeros(kF64, {3, 1}), gs3 = Zeros(kF64, {1}), go3 = Zeros(kF64, {1});
  ASSERT_TRUE(Call("stablehlo.batch_norm_grad", {Floats("epsilon", {0}), Int("feature_index", 1)},
                   {&x3, &s3, &m3, &v3, &g3}, {&gx3, &gs3, &go3})
                  .ok());
  ExpectNear(D(gx3), {1.0 / 6, -0.25, 1.0 / 12}, 1e-12);
  ExpectNear(D(gs3), {-1}, 1e-12);
  ExpectNear(D(go3), {1}, 1e-12);
}

std::vector<KernelAttr> Q(std::vector<double> scales, std::vector<int64_t> zps, int64_t axis) {
  return {Floats("scales", scales), Ints("zero_points", zps), Int("quantized_dimension", axis)};
}

TEST(NumericQuantize, ConformanceExamples) {
  Tensor x = T(kF32, {2}, {4, 15});
  Tensor q = Zeros(kI8, {2});
  ASSERT_TRUE(Call("stablehlo.uniform_quantize", Q({0.1, 0.5}, {-30, -20}, 0), {&x}, {&q}).ok());
  EXPECT_EQ(D(q), (std::vector<double>{10, 10}));
  Tensor back = Zeros(kF32, {2});
  ASSERT_TRUE(Call("stablehlo.uniform_dequantize", Q({0.1, 0.5}, {-30, -20}, 0), {&q}, {&back}).ok());
  ExpectNear(D(back), {4, 15});
  // Requantize to {0.1:-20, 0.2:-30}: [20, 45].
  auto attrs = Q({0.1, 0.2}, {-20, -30}, 0);
  attrs.push_back(Floats("operand_scales", {0.1, 0.5}));
  attrs.push_back(Ints("operand_zero_points", {-30, -20}));
  attrs.push_back(Int("operand_quantized_dimension", 0));
  Tensor rq = Zeros(kI8, {2});
  ASSERT_TRUE(Call("stablehlo.uniform_quantize", attrs, {&q}, {&rq}).ok());
  EXPECT_EQ(D(rq), (std::vector<double>{20, 45}));
  // Per-tensor (quantized_add's operands): [1,2] at 0.1:-30 -> [-20,-10].
  Tensor a = T(kF32, {2}, {1, 2});
  Tensor qa = Zeros(kI8, {2});
  ASSERT_TRUE(Call("stablehlo.uniform_quantize", Q({0.1}, {-30}, -1), {&a}, {&qa}).ok());
  EXPECT_EQ(D(qa), (std::vector<double>{-20, -10}));
}

TEST(NumericQuantize, RoundingClampingAndStorageRange) {
  // Scale 1, zp 0: ties to even; clamped to the i8 range.
  Tensor x = T(kF32, {5}, {1000, -1000, 2.5, 3.5, -2.5});
  Tensor q = Zeros(kI8, {5});
  ASSERT_TRUE(Call("stablehlo.uniform_quantize", Q({1}, {0}, -1), {&x}, {&q}).ok());
  EXPECT_EQ(D(q), (std::vector<double>{127, -128, 2, 4, -2}));
  auto narrow = Q({1}, {0}, -1);
  narrow.push_back(Int("storage_min", -100));
  narrow.push_back(Int("storage_max", 100));
  ASSERT_TRUE(Call("stablehlo.uniform_quantize", narrow, {&x}, {&q}).ok());
  EXPECT_EQ(D(q), (std::vector<double>{100, -100, 2, 4, -2}));
  // ui8 storage, per-axis over dim 1 of a 2x2 (scales per column).
  Tensor m = T(kF64, {2, 2}, {1, 1, 2, 2});
  Tensor qm = Zeros(kU8, {2, 2});
  ASSERT_TRUE(Call("stablehlo.uniform_quantize", Q({0.5, 0.25}, {10, 0}, 1), {&m}, {&qm}).ok());
  EXPECT_EQ(D(qm), (std::vector<double>{12, 4, 14, 8}));
  Tensor dm = Zeros(kF64, {2, 2});
  ASSERT_TRUE(Call("stablehlo.uniform_dequantize", Q({0.5, 0.25}, {10, 0}, 1), {&qm}, {&dm}).ok());
  ExpectNear(D(dm), {1, 1, 2, 2});
  // Zero-sized.
  Tensor e = Zeros(kF32, {0}), eq = Zeros(kI8, {0});
  EXPECT_TRUE(Call("stablehlo.uniform_quantize", Q({1}, {0}, -1), {&e}, {&eq}).ok());
}

// 64-bit storage: int64's maximum rounds up to 2^63 in the expressed type,
// so values at or past it saturate to the maximum (a plain conversion of
// 2^63 would be undefined); NaN quantizes to 0; q - zero_point wraps in 64
// bits, as the spec's subtraction in the storage type.
TEST(NumericQuantize, SixtyFourBitStorageSaturates) {
  Tensor x = T(kF32, {6}, {1e30f, -1e30f, NAN, 9.3e18f, -9.3e18f, -7.0f});
  Tensor q = Zeros(kI64, {6});
  ASSERT_TRUE(Call("stablehlo.uniform_quantize", Q({1}, {3}, -1), {&x}, {&q}).ok());
  std::vector<int64_t> got(6);
  std::memcpy(got.data(), q.bytes.data(), 48);
  EXPECT_EQ(got, (std::vector<int64_t>{INT64_MAX, INT64_MIN, 0, INT64_MAX, INT64_MIN, -4}));
  Tensor back = Zeros(kF64, {6});
  ASSERT_TRUE(Call("stablehlo.uniform_dequantize", Q({1}, {3}, -1), {&q}, {&back}).ok());
  // INT64_MIN - 3 wraps to INT64_MAX - 2.
  EXPECT_EQ(D(back)[1], static_cast<double>(INT64_MAX - 2));
  EXPECT_EQ(D(back)[5], -7.0);
}

TEST(NumericQuantize, Errors) {
  Tensor x = T(kF32, {2}, {1, 2});
  Tensor q = Zeros(kI8, {2});
  EXPECT_FALSE(Call("stablehlo.uniform_quantize", {}, {&x}, {&q}).ok());                           // no scales
  EXPECT_FALSE(Call("stablehlo.uniform_quantize", Q({1, 2, 3}, {0, 0, 0}, 0), {&x}, {&q}).ok());  // 3 scales, dim 2
  EXPECT_FALSE(Call("stablehlo.uniform_quantize", Q({1, 2}, {0, 0}, -1), {&x}, {&q}).ok());       // per-tensor, 2
  Tensor f = Zeros(kF32, {2});
  EXPECT_FALSE(Call("stablehlo.uniform_quantize", Q({1}, {0}, -1), {&x}, {&f}).ok());  // float storage
  EXPECT_FALSE(Call("stablehlo.uniform_quantize", Q({1}, {0}, -1), {&q}, {&q}).ok());  // requantize w/o operand_*
  EXPECT_FALSE(Call("stablehlo.uniform_dequantize", Q({1}, {0}, -1), {&q}, {&q}).ok());  // int result
}

std::vector<double> RunBits(std::string alg, std::vector<double> state, ElementType t, std::vector<int64_t> dims,
                            std::vector<double>* new_state = nullptr) {
  Tensor s = T(kU64, {static_cast<int64_t>(state.size())}, state);
  Tensor os = Zeros(kU64, {static_cast<int64_t>(state.size())});
  Tensor out = Zeros(t, dims);
  Status st = Call("stablehlo.rng_bit_generator", {Str("rng_algorithm", alg)}, {&s}, {&os, &out});
  EXPECT_TRUE(st.ok()) << st.message();
  if (new_state) *new_state = D(os);
  return D(out);
}

TEST(NumericRngBitGenerator, KnownAnswers) {
  // Random123 known-answer vectors, counter = key = 0.
  EXPECT_EQ(RunBits("THREE_FRY", {0, 0}, kU32, {2}), (std::vector<double>{0x6b200159u, 0x99ba4efeu}));
  EXPECT_EQ(RunBits("PHILOX", {0, 0, 0}, kU32, {4}),
            (std::vector<double>{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  // The same words as one 64-bit element (first word = low half).
  Tensor s = T(kU64, {2}, {0, 0});
  Tensor os = Zeros(kU64, {2});
  Tensor out = Zeros(kU64, {1});
  ASSERT_TRUE(Call("stablehlo.rng_bit_generator", {Str("rng_algorithm", "THREE_FRY")}, {&s}, {&os, &out}).ok());
  uint64_t v;
  std::memcpy(&v, out.bytes.data(), 8);
  EXPECT_EQ(v, 0x99ba4efe6b200159ull);
}

TEST(NumericRngBitGenerator, DeterministicAndStateAdvances) {
  std::vector<double> s1, s2;
  auto a = RunBits("THREE_FRY", {7, 100}, kU32, {3, 3}, &s1);
  auto b = RunBits("THREE_FRY", {7, 100}, kU32, {3, 3});
  EXPECT_EQ(a, b);
  EXPECT_EQ(s1, (std::vector<double>{7, 106}));  // XLA's halves: 2x3 blocks
  auto c = RunBits("THREE_FRY", {7, 106}, kU32, {3, 3});
  EXPECT_NE(a, c);
  auto p = RunBits("PHILOX", {7, 100}, kU32, {3, 3}, &s2);
  EXPECT_EQ(s2, (std::vector<double>{7, 103}));  // 9 words -> 3 blocks of 4
  EXPECT_NE(a, p);
  EXPECT_EQ(RunBits("DEFAULT", {7, 100}, kU32, {3, 3}), p);
  // Float and narrow outputs fill every element; zero-sized leaves state.
  auto f = RunBits("PHILOX", {1, 2}, kF32, {5});
  EXPECT_EQ(f.size(), 5u);
  auto u8 = RunBits("PHILOX", {1, 2}, kU8, {4});
  for (double x : u8) EXPECT_LT(x, 256);
  std::vector<double> s3;
  RunBits("THREE_FRY", {1, 2}, kU32, {0}, &s3);
  EXPECT_EQ(s3, (std::vector<double>{1, 2}));
}

// THREE_FRY's 32-bit results in XLA's layout (threefry_layout.h): the
// words of block b are the halves of the 64-bit result's element b.
TEST(NumericRngBitGenerator, ThreeFry32InXlaLayout) {
  // XLA's own output for state [0, 0] and a 3x2 result (split dim 1).
  std::vector<double> st;
  EXPECT_EQ(RunBits("THREE_FRY", {0, 0}, kU32, {3, 2}, &st),
            (std::vector<double>{1797259609, 2579123966, 1351547692, 3235790642, 1688610540, 4229293427}));
  EXPECT_EQ(st, (std::vector<double>{0, 3}));
  Tensor s = T(kU64, {2}, {5, 9});
  Tensor os = Zeros(kU64, {2});
  Tensor blocks = Zeros(kU64, {8});
  ASSERT_TRUE(Call("stablehlo.rng_bit_generator", {Str("rng_algorithm", "THREE_FRY")}, {&s}, {&os, &blocks}).ok());
  uint64_t b[8];
  std::memcpy(b, blocks.bytes.data(), sizeof(b));
  auto lo = [&](int k) { return static_cast<double>(static_cast<uint32_t>(b[k])); };
  auto hi = [&](int k) { return static_cast<double>(static_cast<uint32_t>(b[k] >> 32)); };
  // 2x3: split dim 0 (the first even one), so row 0 holds the first words
  // of blocks 0..2 and row 1 their second words.
  EXPECT_EQ(RunBits("THREE_FRY", {5, 9}, kU32, {2, 3}, &st), (std::vector<double>{lo(0), lo(1), lo(2), hi(0), hi(1), hi(2)}));
  EXPECT_EQ(st, (std::vector<double>{5, 12}));
  // 3x3: no even dim, split dim 0 (the first largest) into 2 block rows;
  // the last block row's second words are dropped.
  EXPECT_EQ(RunBits("THREE_FRY", {5, 9}, kU32, {3, 3}, &st),
            (std::vector<double>{lo(0), lo(1), lo(2), hi(0), hi(1), hi(2), lo(3), lo(4), lo(5)}));
  EXPECT_EQ(st, (std::vector<double>{5, 15}));
  // 1-D: interleaved; a scalar: block 0's first word.
  EXPECT_EQ(RunBits("THREE_FRY", {5, 9}, kU32, {5}), (std::vector<double>{lo(0), hi(0), lo(1), hi(1), lo(2)}));
  EXPECT_EQ(RunBits("THREE_FRY", {5, 9}, kU32, {}, &st), (std::vector<double>{lo(0)}));
  EXPECT_EQ(st, (std::vector<double>{5, 10}));
  // 16-bit elements take the low half of the word a 32-bit one would.
  auto u16 = RunBits("THREE_FRY", {5, 9}, ElementType::kUI16, {2, 3});
  EXPECT_EQ(u16[4], static_cast<double>(static_cast<uint32_t>(b[1] >> 32) & 0xFFFFu));
}

TEST(NumericRngBitGenerator, Errors) {
  Tensor s = T(kU64, {3}, {0, 0, 0});
  Tensor os = Zeros(kU64, {3});
  Tensor out = Zeros(kU32, {2});
  EXPECT_FALSE(Call("stablehlo.rng_bit_generator", {Str("rng_algorithm", "THREE_FRY")}, {&s}, {&os, &out}).ok());
  EXPECT_FALSE(Call("stablehlo.rng_bit_generator", {Str("rng_algorithm", "MT")}, {&s}, {&os, &out}).ok());
  Tensor os2 = Zeros(kU64, {2});
  EXPECT_FALSE(Call("stablehlo.rng_bit_generator", {Str("rng_algorithm", "PHILOX")}, {&s}, {&os2, &out}).ok());
}

TEST(NumericRng, UniformNormalAndErrors) {
  Tensor shape = T(kI64, {2}, {3, 3});
  Tensor a = T(kI32, {}, {0}), b = T(kI32, {}, {3});
  Tensor out = Zeros(kI32, {3, 3});
  ASSERT_TRUE(Call("stablehlo.rng", {Str("rng_distribution", "UNIFORM")}, {&a, &b, &shape}, {&out}).ok());
  for (double v : D(out)) EXPECT_TRUE(v >= 0 && v < 3);
  Tensor out2 = Zeros(kI32, {3, 3});
  ASSERT_TRUE(Call("stablehlo.rng", {Str("rng_distribution", "UNIFORM")}, {&a, &b, &shape}, {&out2}).ok());
  EXPECT_EQ(D(out), D(out2));  // deterministic
  Tensor n = T(kI64, {1}, {4000});
  Tensor fa = T(kF32, {}, {2}), fb = T(kF32, {}, {5});
  Tensor fu = Zeros(kF32, {4000});
  ASSERT_TRUE(Call("stablehlo.rng", {Str("rng_distribution", "UNIFORM")}, {&fa, &fb, &n}, {&fu}).ok());
  double sum = 0;
  for (double v : D(fu)) {
    EXPECT_TRUE(v >= 2 && v < 5);
    sum += v;
  }
  EXPECT_NEAR(sum / 4000, 3.5, 0.1);
  Tensor mu = T(kF64, {}, {1}), sd = T(kF64, {}, {2});
  Tensor fn = Zeros(kF64, {4000});
  ASSERT_TRUE(Call("stablehlo.rng", {Str("rng_distribution", "NORMAL")}, {&mu, &sd, &n}, {&fn}).ok());
  double s1 = 0, s2 = 0;
  for (double v : D(fn)) {
    s1 += v;
    s2 += v * v;
  }
  const double mean = s1 / 4000;
  EXPECT_NEAR(mean, 1, 0.15);
  EXPECT_NEAR(std::sqrt(s2 / 4000 - mean * mean), 2, 0.15);
  // Errors: shape mismatch, NORMAL on integers, mixed types.
  Tensor wrong = Zeros(kI32, {9});
  EXPECT_FALSE(Call("stablehlo.rng", {Str("rng_distribution", "UNIFORM")}, {&a, &b, &shape}, {&wrong}).ok());
  EXPECT_FALSE(Call("stablehlo.rng", {Str("rng_distribution", "NORMAL")}, {&a, &b, &shape}, {&out}).ok());
  EXPECT_FALSE(Call("stablehlo.rng", {Str("rng_distribution", "UNIFORM")}, {&fa, &b, &shape}, {&out}).ok());
}

}  // namespace
}  // namespace kiln::ref::numeric_test

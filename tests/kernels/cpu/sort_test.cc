// The fast CPU sort for key comparators (kernels/cpu/numeric_sort.cc)
// against the reference kernel, byte for byte: a plain less-than and
// greater-than of floats (with NaNs and signed zeros: not a strict weak
// ordering, so the reference's merge sort decides), JAX's total-order key
// comparator (argsort: an iota operand carried along), integers signed and
// unsigned, a non-strict direction, sorting along an outer axis, several
// slices on the pool, results written over the inputs; and comparators of
// another form (two keys, operands crossed, a key too deep to compare),
// which the kernel leaves to the reference. And chlo.top_k's partial sort.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/registry.h"
#include "kernels/reference/registry.h"
#include "tests/kernels/cpu/test_pool.h"
#include "tests/kernels/tensor_test_util.h"

namespace kiln::cpu {
namespace {

using test::Tensor;
using E = ElementType;
using O = ScalarOp;

ScalarInstr Instr(O op, E type, std::vector<uint16_t> operands, int64_t attr0 = 0, int64_t attr1 = 0) {
  ScalarInstr in;
  in.op = op;
  in.type = type;
  in.num_operands = static_cast<uint8_t>(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) in.operands[i] = operands[i];
  in.attr0 = attr0;
  in.attr1 = attr1;
  return in;
}

ScalarInstr Constant(E type, int64_t i, double re) {
  ScalarInstr in = Instr(O::kConstant, type, {});
  in.constant.i = i;
  in.constant.re = re;
  return in;
}

constexpr int64_t kLT = static_cast<int64_t>(ComparisonDirection::kLT);
constexpr int64_t kGT = static_cast<int64_t>(ComparisonDirection::kGT);
constexpr int64_t kLE = static_cast<int64_t>(ComparisonDirection::kLE);
constexpr int64_t kEQ = static_cast<int64_t>(ComparisonDirection::kEQ);
constexpr int64_t kNE = static_cast<int64_t>(ComparisonDirection::kNE);
constexpr int64_t kFloat = static_cast<int64_t>(ComparisonType::kFloat);
constexpr int64_t kSigned = static_cast<int64_t>(ComparisonType::kSigned);
constexpr int64_t kUnsigned = static_cast<int64_t>(ComparisonType::kUnsigned);

// compare(dir, type) of operand `key`'s two elements; `types` the operands'.
ScalarProgram Plain(std::vector<E> types, size_t key, int64_t dir, int64_t ctype) {
  ScalarProgram p;
  for (E t : types) p.param_types.push_back(t), p.param_types.push_back(t);
  p.instrs = {Instr(O::kCompare, E::kI1, {static_cast<uint16_t>(2 * key), static_cast<uint16_t>(2 * key + 1)}, dir,
                    ctype)};
  p.results = {static_cast<uint16_t>(p.param_types.size())};
  return p;
}

// JAX's _sort_lt_comparator for one f32 key (then an i32 operand): -0 as
// +0, every NaN as one NaN, the bits as a signed integer flipped below zero,
// compared SIGNED by less-than.
ScalarProgram JaxTotalOrder() {
  ScalarProgram p;
  p.param_types = {E::kF32, E::kF32, E::kSI32, E::kSI32};
  std::vector<ScalarInstr>& v = p.instrs;
  v.push_back(Constant(E::kF32, 0, 0.0));                                    // 4
  v.push_back(Constant(E::kF32, 0, std::nan("")));                           // 5
  v.push_back(Constant(E::kUI32, 0x7fffffff, 0.0));                          // 6
  v.push_back(Constant(E::kSI32, 0, 0.0));                                   // 7
  auto key = [&](uint16_t x) {
    const uint16_t base = static_cast<uint16_t>(4 + v.size());
    v.push_back(Instr(O::kCompare, E::kI1, {x, 4}, kEQ, kFloat));                      // base: x == 0
    v.push_back(Instr(O::kSelect, E::kF32, {base, 4, x}));                              // +1
    v.push_back(Instr(O::kCompare, E::kI1, {static_cast<uint16_t>(base + 1), static_cast<uint16_t>(base + 1)}, kNE,
                      kFloat));                                                          // +2: isnan
    v.push_back(Instr(O::kSelect, E::kF32, {static_cast<uint16_t>(base + 2), 5, static_cast<uint16_t>(base + 1)}));
    v.push_back(Instr(O::kBitcastConvert, E::kSI32, {static_cast<uint16_t>(base + 3)}));  // +4 signed
    v.push_back(Instr(O::kBitcastConvert, E::kUI32, {static_cast<uint16_t>(base + 3)}));  // +5 unsigned
    v.push_back(Instr(O::kSubtract, E::kUI32, {6, static_cast<uint16_t>(base + 5)}));     // +6
    v.push_back(Instr(O::kBitcastConvert, E::kSI32, {static_cast<uint16_t>(base + 6)}));  // +7 flipped
    v.push_back(Instr(O::kCompare, E::kI1, {static_cast<uint16_t>(base + 4), 7}, kLT, kSigned));  // +8
    v.push_back(Instr(O::kSelect, E::kSI32,
                      {static_cast<uint16_t>(base + 8), static_cast<uint16_t>(base + 7),
                       static_cast<uint16_t>(base + 4)}));                             // +9: the key
    return static_cast<uint16_t>(base + 9);
  };
  const uint16_t kx = key(0), ky = key(1);
  v.push_back(Instr(O::kCompare, E::kI1, {kx, ky}, kLT, kSigned));
  p.results = {static_cast<uint16_t>(4 + v.size() - 1)};
  return p;
}

KernelParams Params(const ScalarProgram& cmp, int64_t dim) {
  return KernelParams{"stablehlo.sort", {test::Prog("comparator", cmp), test::Ints("dimension", {dim})}};
}

Tensor Floats(std::vector<int64_t> dims, std::mt19937& rng) {
  const int64_t n = test::Count(dims);
  std::vector<float> v(static_cast<size_t>(n));
  std::uniform_int_distribution<int> pick(0, 40);
  const float specials[] = {0.0f, -0.0f, std::nanf(""), -std::nanf(""), INFINITY, -INFINITY, 1.0f, 1.0f};
  for (auto& x : v) {
    const int k = pick(rng);
    x = k < 8 ? specials[k] : static_cast<float>(pick(rng) - 20) * 0.5f;  // many ties
  }
  return test::Make(E::kF32, dims, v);
}

Tensor Ints(E t, std::vector<int64_t> dims, std::mt19937& rng) {
  const int64_t n = test::Count(dims);
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (auto& x : v) x = static_cast<int32_t>(rng() % 7 == 0 ? rng() : rng() % 16);  // ties and extremes
  return test::Make(t, dims, v);
}

Tensor Iota(std::vector<int64_t> dims, int64_t dim) {
  const int64_t n = test::Count(dims);
  std::vector<int32_t> v(static_cast<size_t>(n));
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(dim) + 1; d < dims.size(); ++d) inner *= dims[d];
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>((i / inner) % dims[dim]);
  return test::Make(E::kSI32, dims, v);
}

// The fast kernel (claimed, on the calling thread, on the pool, and over its
// own inputs) against the reference.
void Check(const KernelParams& p, std::vector<Tensor> ins) {
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr) << "not claimed";
  std::vector<TensorRef> in;
  for (Tensor& t : ins) in.push_back(t.ref());
  std::vector<Tensor> want, got, pooled;
  for (const Tensor& t : ins) {
    want.push_back(test::Zeros(t.type, t.dims));
    got.push_back(want.back());
    pooled.push_back(want.back());
  }
  auto refs = [](std::vector<Tensor>& ts) {
    std::vector<TensorRef> r;
    for (Tensor& t : ts) r.push_back(t.ref());
    return r;
  };
  std::vector<TensorRef> w = refs(want), g = refs(got), h = refs(pooled);
  ASSERT_TRUE(ref::FindReferenceKernel(p.kernel)(KernelCall{p, in, w}).ok());
  ASSERT_TRUE(fast(KernelCall{p, in, g}).ok());
  ASSERT_TRUE(fast(KernelCall{p, in, h, TestPool()}).ok());
  std::vector<Tensor> inplace = ins;
  std::vector<TensorRef> io = refs(inplace);
  ASSERT_TRUE(fast(KernelCall{p, io, io}).ok());
  for (size_t i = 0; i < ins.size(); ++i) {
    EXPECT_EQ(got[i].bytes, want[i].bytes) << "operand " << i;
    EXPECT_EQ(pooled[i].bytes, want[i].bytes) << "operand " << i << " (pool)";
    EXPECT_EQ(inplace[i].bytes, want[i].bytes) << "operand " << i << " (in place)";
  }
}

TEST(CpuSort, KeyComparatorsMatchTheReference) {
  std::mt19937 rng(7);
  for (std::vector<int64_t> dims : {std::vector<int64_t>{1000}, std::vector<int64_t>{64, 37}, std::vector<int64_t>{3, 50, 4}}) {
    const int64_t last = static_cast<int64_t>(dims.size()) - 1;
    for (int64_t dim : {last, int64_t{0}}) {
      SCOPED_TRACE("rank " + std::to_string(dims.size()) + " dimension " + std::to_string(dim));
      {
        SCOPED_TRACE("f32 < (NaNs)");
        Check(Params(Plain({E::kF32}, 0, kLT, kFloat), dim), {Floats(dims, rng)});
      }
      {
        SCOPED_TRACE("f32 > with an i32 operand carried");
        Check(Params(Plain({E::kF32, E::kSI32}, 0, kGT, kFloat), dim), {Floats(dims, rng), Iota(dims, dim)});
      }
      {
        SCOPED_TRACE("JAX argsort (total-order key)");
        Check(Params(JaxTotalOrder(), dim), {Floats(dims, rng), Iota(dims, dim)});
      }
      {
        SCOPED_TRACE("i32 signed <, keyed on operand 1");
        Check(Params(Plain({E::kF32, E::kSI32}, 1, kLT, kSigned), dim), {Floats(dims, rng), Ints(E::kSI32, dims, rng)});
      }
      {
        SCOPED_TRACE("ui32 unsigned >");
        Check(Params(Plain({E::kUI32}, 0, kGT, kUnsigned), dim), {Ints(E::kUI32, dims, rng)});
      }
      {
        SCOPED_TRACE("i32 <= (not strict: the merge sort)");
        Check(Params(Plain({E::kSI32}, 0, kLE, kSigned), dim), {Ints(E::kSI32, dims, rng)});
      }
    }
  }
}

TEST(CpuSort, OtherComparatorsAreLeftToTheReference) {
  // Two keys (JAX's num_keys = 2): x0 < y0 || (x0 == y0 && x1 < y1).
  ScalarProgram two = Plain({E::kSI32, E::kSI32}, 0, kLT, kSigned);
  two.instrs = {Instr(O::kCompare, E::kI1, {0, 1}, kLT, kSigned), Instr(O::kCompare, E::kI1, {0, 1}, kEQ, kSigned),
                Instr(O::kCompare, E::kI1, {2, 3}, kLT, kSigned), Instr(O::kAnd, E::kI1, {5, 6}),
                Instr(O::kOr, E::kI1, {4, 7})};
  two.results = {8};
  EXPECT_EQ(FindCpuKernel(Params(two, 0)), nullptr);
  // Operands crossed: x0 < y1.
  ScalarProgram crossed = Plain({E::kSI32, E::kSI32}, 0, kLT, kSigned);
  crossed.instrs[0].operands[1] = 3;
  EXPECT_EQ(FindCpuKernel(Params(crossed, 0)), nullptr);
  // Different expressions on the two sides: -x < y.
  ScalarProgram lopsided;
  lopsided.param_types = {E::kSI32, E::kSI32};
  lopsided.instrs = {Instr(O::kNegate, E::kSI32, {0}), Instr(O::kCompare, E::kI1, {2, 1}, kLT, kSigned)};
  lopsided.results = {3};
  EXPECT_EQ(FindCpuKernel(Params(lopsided, 0)), nullptr);
  // A key of 20000 chained negations a side: matched without deep
  // recursion, and past the walk's budget, so left to the reference.
  ScalarProgram deep;
  deep.param_types = {E::kSI32, E::kSI32};
  for (int side = 0; side < 2; ++side)
    for (int i = 0; i < 20000; ++i) {
      const uint16_t prev = i == 0 ? static_cast<uint16_t>(side) : static_cast<uint16_t>(deep.num_values() - 1);
      deep.instrs.push_back(Instr(O::kNegate, E::kSI32, {prev}));
    }
  deep.instrs.push_back(Instr(O::kCompare, E::kI1, {static_cast<uint16_t>(2 + 19999), static_cast<uint16_t>(2 + 39999)},
                              kLT, kSigned));
  deep.results = {static_cast<uint16_t>(deep.num_values() - 1)};
  EXPECT_EQ(FindCpuKernel(Params(deep, 0)), nullptr);
}

// chlo.top_k (the same file): the k largest of each row, largest first,
// ties in index order, floats in the total order (NaNs of either sign,
// signed zeros, infinities), integers signed and unsigned, f16 and bf16,
// k from 0 to the whole row, i32 and i64 indices; on the pool too.
TEST(CpuTopK, MatchesTheReference) {
  std::mt19937 rng(11);
  struct Case {
    E type, index_type;
    int64_t rows, n, k;
  };
  const Case cases[] = {{E::kF32, E::kSI32, 7, 300, 5},   {E::kF32, E::kSI64, 3, 64, 64}, {E::kF32, E::kSI32, 4, 9, 0},
                        {E::kSI32, E::kSI32, 6, 1000, 17}, {E::kUI8, E::kSI32, 5, 40, 12}, {E::kF16, E::kSI32, 4, 50, 9},
                        {E::kBF16, E::kSI64, 2, 80, 3},    {E::kF64, E::kSI32, 3, 33, 33}, {E::kSI64, E::kSI64, 2, 20, 1}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(Name(c.type)) + " " + std::to_string(c.rows) + "x" + std::to_string(c.n) + " k=" +
                 std::to_string(c.k));
    const KernelParams p{"chlo.top_k", {test::Ints("k", {c.k})}};
    KernelFn fast = FindCpuKernel(p);
    ASSERT_NE(fast, nullptr);
    const size_t eb = StorageBytes(c.type);
    Tensor x = test::Zeros(c.type, {c.rows, c.n});
    for (auto& b : x.bytes) b = static_cast<uint8_t>(rng());
    // Ties: every third element repeats an earlier one of its row.
    for (int64_t r = 0; r < c.rows; ++r)
      for (int64_t j = 3; j < c.n; j += 3)
        std::memcpy(&x.bytes[(r * c.n + j) * eb], &x.bytes[(r * c.n + j - 1 - static_cast<int64_t>(rng() % 3)) * eb], eb);
    if (c.type == E::kF32) {
      const float specials[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.0f, 1.0f};
      for (size_t k = 0; k < std::size(specials); ++k) std::memcpy(&x.bytes[(k * 7 % c.n) * eb], &specials[k], eb);
    }
    for (bool pool : {false, true}) {
      Tensor wv = test::Zeros(c.type, {c.rows, c.k}), wi = test::Zeros(c.index_type, {c.rows, c.k});
      Tensor gv = wv, gi = wi;
      if (c.k > 0) {
        std::memset(gv.bytes.data(), 0x5A, gv.bytes.size());
        std::memset(gi.bytes.data(), 0x5A, gi.bytes.size());
      }
      TensorRef in[1] = {x.ref()};
      TensorRef w[2] = {wv.ref(), wi.ref()}, g[2] = {gv.ref(), gi.ref()};
      ASSERT_TRUE(ref::FindReferenceKernel(p.kernel)(KernelCall{p, in, w}).ok());
      ASSERT_TRUE(fast(pool ? KernelCall{p, in, g, TestPool()} : KernelCall{p, in, g}).ok());
      EXPECT_EQ(gv.bytes, wv.bytes) << "values";
      EXPECT_EQ(gi.bytes, wi.bytes) << "indices";
    }
  }
}

}  // namespace
}  // namespace kiln::cpu

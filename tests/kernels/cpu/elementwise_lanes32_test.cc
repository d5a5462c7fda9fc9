// The CPU elementwise programs over 32-bit lanes (kernels/cpu/
// elementwise_lanes32.cc) against the reference kernel: every op with a
// vector form there, for each of its operand types (si32, ui32, f32, i1),
// and the ones that escape to the reference's scalar evaluation (integer
// division, total-order compares, unsigned converts, transcendental
// functions), over values that probe wrapping, saturation, shift amounts
// past the width, NaN and signed zeros; then a mixed program (a causal
// mask from row and column indices broadcast, converts, a rank-0 param and
// constants). Each on every SIMD target, on the calling thread and on the
// pool: the reference's bits (any NaN matching any NaN).
#include "tests/kernels/cpu/hwy_test_util.h"  // first: the kernels' choice of targets

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
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

KernelParams Params(const ScalarProgram& prog, std::vector<int64_t> map = {}) {
  KernelParams p{"kiln.elementwise", {test::Prog("body", prog)}};
  if (!map.empty()) p.attrs.push_back(test::Ints("input_broadcast", std::move(map)));
  return p;
}

// n values of type t: special ones first, then random ones.
Tensor Values(E t, std::vector<int64_t> dims, std::mt19937& rng) {
  const int64_t n = test::Count(dims);
  if (t == E::kI1) {
    std::vector<uint8_t> v(static_cast<size_t>(n));
    for (auto& b : v) b = rng() & 1;
    return test::Make(t, dims, v);
  }
  if (t == E::kF32) {
    const float inf = std::numeric_limits<float>::infinity();
    const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.5f, -2.5f, 2147483648.0f, -2147483648.0f,
                              2147483520.0f, 3e9f, -3e9f, 4.3e9f, 4294967040.0f, inf, -inf,
                              std::numeric_limits<float>::quiet_NaN(), 1e-45f, -7.75f, 1e20f};
    std::vector<float> v(static_cast<size_t>(n));
    std::uniform_real_distribution<float> u(-1000.0f, 1000.0f);
    for (int64_t i = 0; i < n; ++i) {
      const size_t k = static_cast<size_t>(i) % 64;
      v[i] = k < std::size(specials) ? specials[k] : (k % 3 == 0 ? std::round(u(rng)) : u(rng));
    }
    std::shuffle(v.begin(), v.end(), rng);
    return test::Make(t, dims, v);
  }
  const uint32_t specials[] = {0u, 1u, 0xffffffffu, 0x80000000u, 0x7fffffffu, 31u, 32u, 33u, 64u,
                               static_cast<uint32_t>(-32), 2u, 5u, 0xfffffffbu};
  std::vector<uint32_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const size_t k = static_cast<size_t>(i) % 48;
    v[i] = k < std::size(specials) ? specials[k] : (k % 2 ? rng() : rng() % 70);
  }
  std::shuffle(v.begin(), v.end(), rng);
  return test::Make(t, dims, v);
}

// The fast kernel (calling thread and pool) against the reference.
void Check(const KernelParams& p, std::vector<Tensor> ins, E out_type, std::vector<int64_t> dims) {
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr) << "not claimed";
  Tensor want = test::Zeros(out_type, dims), got = want, threaded = want;
  std::memset(got.bytes.data(), 0x5A, got.bytes.size());
  std::memset(threaded.bytes.data(), 0xA5, threaded.bytes.size());
  std::vector<TensorRef> in;
  for (Tensor& t : ins) in.push_back(t.ref());
  TensorRef w[1] = {want.ref()}, g[1] = {got.ref()}, h[1] = {threaded.ref()};
  ASSERT_TRUE(ref::FindReferenceKernel(p.kernel)(KernelCall{p, in, w}).ok());
  ASSERT_TRUE(fast(KernelCall{p, in, g}).ok());
  ASSERT_TRUE(fast(KernelCall{p, in, h, TestPool()}).ok());
  EXPECT_EQ(got.bytes, threaded.bytes);
  const size_t es = StorageBytes(out_type);
  int bad = 0;
  for (int64_t i = 0; i < want.count() && bad < 5; ++i) {
    const uint8_t* a = got.bytes.data() + i * es;
    const uint8_t* b = want.bytes.data() + i * es;
    if (std::memcmp(a, b, es) == 0) continue;
    if (out_type == E::kF32 && std::isnan(got.Get(i)) && std::isnan(want.Get(i))) continue;
    ++bad;
    uint32_t ga = 0, wb = 0;
    std::memcpy(&ga, a, es);
    std::memcpy(&wb, b, es);
    ADD_FAILURE() << "element " << i << ": got 0x" << std::hex << ga << ", want 0x" << wb << std::dec;
  }
}

void CheckUnary(O op, E t, E rt, std::mt19937& rng, int64_t attr0 = 0, int64_t attr1 = 0) {
  ScalarProgram prog;
  prog.param_types = {t};
  prog.instrs = {Instr(op, rt, {0}, attr0, attr1)};
  prog.results = {1};
  for (int64_t n : {7, 300, 1500}) {
    SCOPED_TRACE(std::string(ScalarOpName(op)) + " " + std::string(Name(t)) + " -> " + std::string(Name(rt)) +
                 " n=" + std::to_string(n));
    Check(Params(prog), {Values(t, {n}, rng)}, rt, {n});
  }
}

void CheckBinary(O op, E t, E rt, std::mt19937& rng, int64_t attr0 = 0, int64_t attr1 = 0) {
  ScalarProgram prog;
  prog.param_types = {t, t};
  prog.instrs = {Instr(op, rt, {0, 1}, attr0, attr1)};
  prog.results = {2};
  for (int64_t n : {7, 300, 1500}) {
    SCOPED_TRACE(std::string(ScalarOpName(op)) + " " + std::string(Name(t)) + " n=" + std::to_string(n) +
                 " attrs " + std::to_string(attr0) + "," + std::to_string(attr1));
    Check(Params(prog), {Values(t, {n}, rng), Values(t, {n}, rng)}, rt, {n});
  }
}

KILN_TEST_ALL_TARGETS(CpuElementwiseLanes32, ArithmeticAndBitwiseOps) {
  std::mt19937 rng(1);
  for (E t : {E::kSI32, E::kUI32}) {
    for (O op : {O::kAdd, O::kSubtract, O::kMultiply, O::kAnd, O::kOr, O::kXor, O::kMaximum, O::kMinimum,
                 O::kShiftLeft, O::kShiftRightLogical, O::kShiftRightArithmetic, O::kDivide, O::kRemainder})
      CheckBinary(op, t, t, rng);
    for (O op : {O::kNot, O::kNegate, O::kPopcnt}) CheckUnary(op, t, t, rng);
  }
  CheckUnary(O::kAbs, E::kSI32, E::kSI32, rng);  // (signed only: the spec's types)
  for (O op : {O::kAnd, O::kOr, O::kXor}) CheckBinary(op, E::kI1, E::kI1, rng);
  CheckUnary(O::kNot, E::kI1, E::kI1, rng);
  // f32 ops inside such programs (here alone: a program of floats only is
  // the float interpreter's, so each also takes an i1 select below).
}

KILN_TEST_ALL_TARGETS(CpuElementwiseLanes32, ComparesEveryTypeAndDirection) {
  std::mt19937 rng(2);
  for (int64_t dir = 0; dir <= 5; ++dir) {
    for (E t : {E::kSI32, E::kUI32, E::kI1})
      for (ComparisonType ct : {ComparisonType::kNotype, ComparisonType::kSigned, ComparisonType::kUnsigned})
        CheckBinary(O::kCompare, t, E::kI1, rng, dir, static_cast<int64_t>(ct));
    for (ComparisonType ct : {ComparisonType::kNotype, ComparisonType::kFloat, ComparisonType::kTotalOrder})
      CheckBinary(O::kCompare, E::kF32, E::kI1, rng, dir, static_cast<int64_t>(ct));
  }
}

KILN_TEST_ALL_TARGETS(CpuElementwiseLanes32, ConvertsBetweenTheFourTypes) {
  std::mt19937 rng(3);
  for (E from : {E::kF32, E::kSI32, E::kUI32, E::kI1})
    for (E to : {E::kF32, E::kSI32, E::kUI32, E::kI1})
      if (from != E::kF32 || to != E::kF32) CheckUnary(O::kConvert, from, to, rng);
}

KILN_TEST_ALL_TARGETS(CpuElementwiseLanes32, FloatOpsBesideIntegers) {
  // select(k < 32, op(x, y), x) for each f32 op, k an i32: the integer
  // param makes it a lanes program (the float interpreter takes none).
  std::mt19937 rng(4);
  for (O op : {O::kAdd, O::kSubtract, O::kMultiply, O::kDivide, O::kMaximum, O::kMinimum, O::kSqrt, O::kFloor,
               O::kCeil, O::kRoundNearestEven, O::kNegate, O::kAbs, O::kExponential, O::kAtan2, O::kSine}) {
    const int arity = ScalarOpArity(op);
    ScalarProgram prog;
    prog.param_types = {E::kSI32, E::kF32, E::kF32};
    ScalarInstr limit = Instr(O::kConstant, E::kSI32, {});
    limit.constant.i = 32;
    prog.instrs = {limit,                                                                          // 3
                   Instr(O::kCompare, E::kI1, {0, 3}, static_cast<int64_t>(ComparisonDirection::kLT)),  // 4
                   arity == 1 ? Instr(op, E::kF32, {1}) : Instr(op, E::kF32, {1, 2}),              // 5
                   Instr(O::kSelect, E::kF32, {4, 5, 1})};                                         // 6
    prog.results = {6};
    SCOPED_TRACE(std::string(ScalarOpName(op)));
    for (int64_t n : {9, 777})
      Check(Params(prog), {Values(E::kSI32, {n}, rng), Values(E::kF32, {n}, rng), Values(E::kF32, {n}, rng)},
            E::kF32, {n});
  }
}

KILN_TEST_ALL_TARGETS(CpuElementwiseLanes32, CausalMaskWithBroadcastsAndConstants) {
  // select(row >= col, x * scale, -1e9) + f32(row - col), row [m] and col
  // [n] broadcast over [m, n], scale rank 0; and its i32 count
  // (row - col) >> 1 as a second program.
  std::mt19937 rng(5);
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {5, 37}, {64, 64}, {130, 300}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    std::vector<int32_t> rows(static_cast<size_t>(m)), cols(static_cast<size_t>(n));
    for (int64_t i = 0; i < m; ++i) rows[i] = static_cast<int32_t>(i);
    for (int64_t j = 0; j < n; ++j) cols[j] = static_cast<int32_t>(j);
    ScalarProgram prog;
    prog.param_types = {E::kSI32, E::kSI32, E::kF32, E::kF32};  // row, col, x, scale
    ScalarInstr neg = Instr(O::kConstant, E::kF32, {});
    neg.constant.re = -1e9;
    prog.instrs = {Instr(O::kCompare, E::kI1, {0, 1}, static_cast<int64_t>(ComparisonDirection::kGE),
                         static_cast<int64_t>(ComparisonType::kSigned)),  // 4
                   Instr(O::kMultiply, E::kF32, {2, 3}),                  // 5
                   neg,                                                   // 6
                   Instr(O::kSelect, E::kF32, {4, 5, 6}),                 // 7
                   Instr(O::kSubtract, E::kSI32, {0, 1}),                 // 8
                   Instr(O::kConvert, E::kF32, {8}),                      // 9
                   Instr(O::kAdd, E::kF32, {7, 9})};                      // 10
    prog.results = {10};
    const std::vector<int64_t> map = {1, 0, 1, 1, 2, 0, 1, 0};
    Check(Params(prog, map),
          {test::Make(E::kSI32, {m}, rows), test::Make(E::kSI32, {n}, cols), Values(E::kF32, {m, n}, rng),
           test::Make(E::kF32, {}, std::vector<float>{0.125f})},
          E::kF32, {m, n});
    ScalarProgram count;
    count.param_types = {E::kSI32, E::kSI32};
    ScalarInstr one = Instr(O::kConstant, E::kSI32, {});
    one.constant.i = 1;
    count.instrs = {Instr(O::kSubtract, E::kSI32, {0, 1}), one, Instr(O::kShiftRightArithmetic, E::kSI32, {2, 3})};
    count.results = {4};
    Check(Params(count, {1, 0, 1, 1}), {test::Make(E::kSI32, {m}, rows), test::Make(E::kSI32, {n}, cols)}, E::kSI32,
          {m, n});
  }
}

}  // namespace
}  // namespace kiln::cpu

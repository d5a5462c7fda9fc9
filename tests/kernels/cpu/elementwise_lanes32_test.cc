// The CPU elementwise programs over 32-bit lanes (kernels/cpu/
// elementwise_lanes32.cc) against the reference kernel: every op with a
// vector form there, for each of its operand types (si32, ui32, f32, i1),
// and the ones that escape to the reference's scalar evaluation (integer
// division, total-order compares, unsigned converts, transcendental
// functions), over values that probe wrapping, saturation, shift amounts
// past the width, NaN and signed zeros; then a mixed program (a causal
// mask from row and column indices broadcast, converts, a rank-0 param and
// constants). Each on every SIMD target, on the calling thread and on the
// pool: the reference's bits (any NaN matching any NaN). Also the programs
// with 64-bit integers (kernels/cpu/elementwise_lanes64.cc), every value
// held in 64 bits: the same ops over si64, ui64, f64 and the 32-bit types
// beside them.
#include "tests/kernels/cpu/hwy_test_util.h"  // first: the kernels' choice of targets

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/elementwise_lanes32.h"
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
  if (t == E::kF64) {
    const double inf = std::numeric_limits<double>::infinity();
    const double specials[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 9223372036854775808.0, -9223372036854775808.0,
                               9.3e18, -9.3e18, 2147483648.0, -2147483648.0, 2147483647.5, -2147483648.5, 4.3e9,
                               inf, -inf, std::numeric_limits<double>::quiet_NaN(), 1e-310, 1e300, 3.4028235e38,
                               1.0000000596046448, -7.75};
    std::vector<double> v(static_cast<size_t>(n));
    std::uniform_real_distribution<double> u(-1000.0, 1000.0);
    for (int64_t i = 0; i < n; ++i) {
      const size_t k = static_cast<size_t>(i) % 64;
      v[i] = k < std::size(specials) ? specials[k] : (k % 3 == 0 ? std::round(u(rng)) : u(rng));
    }
    std::shuffle(v.begin(), v.end(), rng);
    return test::Make(t, dims, v);
  }
  if (t == E::kSI64 || t == E::kUI64) {
    const uint64_t specials[] = {0u, 1u, ~uint64_t{0}, uint64_t{1} << 63, (uint64_t{1} << 63) - 1, uint64_t{1} << 53,
                                 (uint64_t{1} << 53) + 1, ~(uint64_t{1} << 53), uint64_t{1} << 31, uint64_t{1} << 32,
                                 0xffffffffu, 0x80000000u, ~uint64_t{0x80000000u}, 63u, 64u, 5u,
                                 (uint64_t{1} << 60) + 3};
    std::vector<uint64_t> v(static_cast<size_t>(n));
    std::mt19937_64 wide(rng());
    for (int64_t i = 0; i < n; ++i) {
      const size_t k = static_cast<size_t>(i) % 48;
      v[i] = k < std::size(specials) ? specials[k] : (k % 2 ? wide() : wide() % 70 - 20);
    }
    std::shuffle(v.begin(), v.end(), rng);
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
  if (StorageBytes(t) == 1 || StorageBytes(t) == 2) {  // si8, ui8, si16, ui16
    // The extremes and their neighbours, shift amounts around the width.
    const bool byte = StorageBytes(t) == 1;
    const uint16_t specials[] = {0, 1, 2, 5, 0xffff, 0x8000, 0x7fff, 0x80, 0x7f, 0xff, 0x100, 0x81, 0xfffb, 0xfb,
                                 7, 8, 9, 15, 16, 17, 31, 32, 0xffe0};
    std::vector<uint16_t> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const size_t k = static_cast<size_t>(i) % 48;
      v[i] = k < std::size(specials) ? specials[k] : static_cast<uint16_t>(k % 2 ? rng() : rng() % 40);
    }
    std::shuffle(v.begin(), v.end(), rng);
    if (!byte) return test::Make(t, dims, v);
    std::vector<uint8_t> b(v.size());
    for (size_t i = 0; i < v.size(); ++i) b[i] = static_cast<uint8_t>(v[i]);
    return test::Make(t, dims, b);
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
    if ((out_type == E::kF32 || out_type == E::kF64) && std::isnan(got.Get(i)) && std::isnan(want.Get(i))) continue;
    ++bad;
    uint64_t ga = 0, wb = 0;
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
  for (int64_t n : {7, 300, 1500, 8200}) {  // (8200: blocks of up to 4096, a tail)
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
  for (int64_t n : {7, 300, 1500, 8200}) {  // (8200: blocks of up to 4096, a tail)
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
  // bitcast_convert moves bits: signalling NaNs (0x7f800001, 0xff800005)
  // and every other pattern come back as they went in, both ways.
  for (E from : {E::kSI32, E::kUI32, E::kF32})
    for (E to : {E::kSI32, E::kUI32, E::kF32}) {
      if (from == to || (from != E::kF32 && to != E::kF32)) continue;
      ScalarProgram prog;
      prog.param_types = {from};
      prog.instrs = {Instr(O::kBitcastConvert, to, {0})};
      prog.results = {1};
      std::vector<uint32_t> bits = {0x7f800001u, 0xff800005u, 0x7fc00000u, 0x80000000u, 0x3f800000u, 0x7fbfffffu};
      for (int i = 0; i < 300; ++i) bits.push_back(rng());
      const int64_t n = static_cast<int64_t>(bits.size());
      SCOPED_TRACE(std::string(Name(from)) + " -> " + std::string(Name(to)));
      Tensor in = test::Make(from, {n}, bits);
      KernelFn fast = FindCpuKernel(Params(prog));
      ASSERT_NE(fast, nullptr);
      Tensor got = test::Zeros(to, {n});
      TensorRef i1[1] = {in.ref()}, o1[1] = {got.ref()};
      ASSERT_TRUE(fast(KernelCall{Params(prog), i1, o1}).ok());
      EXPECT_EQ(got.bytes, in.bytes);
    }
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

// 8- and 16-bit integers ride in the lanes sign- or zero-extended and wrap
// at their own width: every op over each of the four types, compares in
// every direction and comparison type (the other signedness escapes),
// converts to and from every lane type, bitcasts between the signednesses.
KILN_TEST_ALL_TARGETS(CpuElementwiseLanes32, NarrowIntegersWrapAtTheirWidth) {
  std::mt19937 rng(8);
  for (E t : {E::kSI8, E::kUI8, E::kSI16, E::kUI16}) {
    ScalarProgram add;  // (these are the lanes interpreter's now, not the reference's)
    add.param_types = {t, t};
    add.instrs = {Instr(O::kAdd, t, {0, 1})};
    add.results = {2};
    EXPECT_TRUE(IsLanes32Program(add));
    for (O op : {O::kAdd, O::kSubtract, O::kMultiply, O::kAnd, O::kOr, O::kXor, O::kMaximum, O::kMinimum,
                 O::kShiftLeft, O::kShiftRightLogical, O::kShiftRightArithmetic, O::kDivide, O::kRemainder})
      CheckBinary(op, t, t, rng);
    for (O op : {O::kNot, O::kNegate, O::kPopcnt, O::kCountLeadingZeros}) CheckUnary(op, t, t, rng);
    if (t == E::kSI8 || t == E::kSI16) CheckUnary(O::kAbs, t, t, rng);
    for (int64_t dir = 0; dir <= 5; ++dir)
      for (ComparisonType ct : {ComparisonType::kNotype, ComparisonType::kSigned, ComparisonType::kUnsigned})
        CheckBinary(O::kCompare, t, E::kI1, rng, dir, static_cast<int64_t>(ct));
    for (E other : {E::kF32, E::kSI32, E::kUI32, E::kI1, E::kSI8, E::kUI8, E::kSI16, E::kUI16}) {
      if (other == t) continue;
      CheckUnary(O::kConvert, t, other, rng);
      CheckUnary(O::kConvert, other, t, rng);
    }
  }
  for (auto [a, b] : std::vector<std::pair<E, E>>{{E::kSI8, E::kUI8}, {E::kSI16, E::kUI16}}) {
    CheckUnary(O::kBitcastConvert, a, b, rng);
    CheckUnary(O::kBitcastConvert, b, a, rng);
  }
}

KILN_TEST_ALL_TARGETS(CpuElementwiseLanes32, NarrowIntegerProgramWithBroadcastsAndConstants) {
  // An int8 network's integer tail: ((x + bias) * 3 >> s) as si16, clamped
  // to [-128, 127] and narrowed to si8, x [m, n] si8, bias [n] si16, s a
  // rank-0 ui8; and a ui8 image scaled to f32 beside a ui16 mask.
  std::mt19937 rng(9);
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 37}, {64, 64}, {70, 300}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    ScalarProgram prog;
    prog.param_types = {E::kSI8, E::kSI16, E::kUI8};  // x, bias, s
    ScalarInstr three = Instr(O::kConstant, E::kSI16, {});
    three.constant.i = 3;
    ScalarInstr lo = Instr(O::kConstant, E::kSI16, {}), hi = lo;
    lo.constant.i = -128;
    hi.constant.i = 127;
    prog.instrs = {Instr(O::kConvert, E::kSI16, {0}),                // 3
                   Instr(O::kAdd, E::kSI16, {3, 1}),                 // 4
                   three,                                            // 5
                   Instr(O::kMultiply, E::kSI16, {4, 5}),            // 6
                   Instr(O::kConvert, E::kSI16, {2}),                // 7
                   Instr(O::kShiftRightArithmetic, E::kSI16, {6, 7}),  // 8
                   lo,                                               // 9
                   hi,                                               // 10
                   Instr(O::kMaximum, E::kSI16, {8, 9}),             // 11
                   Instr(O::kMinimum, E::kSI16, {11, 10}),           // 12
                   Instr(O::kConvert, E::kSI8, {12})};               // 13
    prog.results = {13};
    EXPECT_TRUE(IsLanes32Program(prog));
    for (uint8_t shift : {0, 2, 9, 200}) {
      Check(Params(prog, {2, 0, 1, 1, 1, 0}),
            {Values(E::kSI8, {m, n}, rng), Values(E::kSI16, {n}, rng), test::Make(E::kUI8, {}, std::vector<uint8_t>{shift})},
            E::kSI8, {m, n});
    }
    ScalarProgram image;
    image.param_types = {E::kUI8, E::kUI16};
    ScalarInstr scale = Instr(O::kConstant, E::kF32, {});
    scale.constant.re = static_cast<float>(1.0 / 255);  // (constants are values of their type)
    ScalarInstr zero = Instr(O::kConstant, E::kUI16, {});
    image.instrs = {Instr(O::kConvert, E::kF32, {0}),                                                       // 2
                    scale,                                                                                  // 3
                    Instr(O::kMultiply, E::kF32, {2, 3}),                                                   // 4
                    zero,                                                                                   // 5
                    Instr(O::kCompare, E::kI1, {1, 5}, static_cast<int64_t>(ComparisonDirection::kNE)),    // 6
                    Instr(O::kSelect, E::kF32, {6, 4, 3})};                                                 // 7
    image.results = {7};
    EXPECT_TRUE(IsLanes32Program(image));
    Check(Params(image), {Values(E::kUI8, {m, n}, rng), Values(E::kUI16, {m, n}, rng)}, E::kF32, {m, n});
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

// stablehlo.reduce with bodies over 32-bit lanes (RunReduceLanes32): the
// argmax body JAX emits (value and index, ties to the lower index, NaN
// wins), an integer sum (folded one element at a time, wrapping), an i1
// "any", a ui32 max, and a max written as compare and select; reduced
// axes innermost, outermost and both, outputs past a block of lanes, and
// a rank-0 result.
KernelParams ReduceParams(const ScalarProgram& body, std::vector<int64_t> dims) {
  return KernelParams{"stablehlo.reduce", {test::Prog("body", body), test::Ints("dimensions", std::move(dims))}};
}

void CheckReduce(const ScalarProgram& body, std::vector<Tensor> ins, std::vector<int64_t> dims) {
  const KernelParams p = ReduceParams(body, dims);
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr) << "not claimed";
  std::vector<int64_t> out_dims;
  const auto& in_dims = ins[0].dims;
  for (size_t d = 0; d < in_dims.size(); ++d)
    if (std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) == dims.end()) out_dims.push_back(in_dims[d]);
  const size_t n = body.results.size();
  std::vector<Tensor> want, got, threaded;
  for (size_t j = 0; j < n; ++j) {
    want.push_back(test::Zeros(body.param_types[j], out_dims));
    got.push_back(want.back());
    threaded.push_back(want.back());
  }
  std::vector<TensorRef> in, w, g, h;
  for (Tensor& t : ins) in.push_back(t.ref());
  for (size_t j = 0; j < n; ++j) {
    w.push_back(want[j].ref());
    g.push_back(got[j].ref());
    h.push_back(threaded[j].ref());
  }
  ASSERT_TRUE(ref::FindReferenceKernel(p.kernel)(KernelCall{p, in, w}).ok());
  ASSERT_TRUE(fast(KernelCall{p, in, g}).ok());
  ASSERT_TRUE(fast(KernelCall{p, in, h, TestPool()}).ok());
  for (size_t j = 0; j < n; ++j) {
    EXPECT_EQ(got[j].bytes, want[j].bytes) << "result " << j;
    EXPECT_EQ(threaded[j].bytes, want[j].bytes) << "result " << j;
  }
}

Tensor Scalar0(E t, double v) {
  Tensor x = test::Zeros(t, {});
  if (t == E::kF32) {
    const float f = static_cast<float>(v);
    std::memcpy(x.bytes.data(), &f, 4);
  } else if (t == E::kI1) {
    x.bytes[0] = v != 0;
  } else if (StorageBytes(t) == 8) {
    const int64_t i = static_cast<int64_t>(v);
    std::memcpy(x.bytes.data(), &i, 8);
  } else {
    const int32_t i = static_cast<int32_t>(v);
    std::memcpy(x.bytes.data(), &i, 4);
  }
  return x;
}

// Results are written straight into their outputs, except where an output
// is the buffer of an input read in place (the VM reuses a dead input's
// buffer): there a later instruction must still read the input. Two
// outputs (one also an operand of the other), written in place over input
// 0 and, separately, into fresh buffers; whole and partial blocks.
KILN_TEST_ALL_TARGETS(CpuElementwiseLanes32, ResultsInPlaceOverAnInput) {
  std::mt19937 rng(77);
  ScalarProgram prog;
  prog.param_types = {E::kSI32, E::kSI32};
  prog.instrs = {Instr(O::kAdd, E::kSI32, {0, 1}),        // 2: x + y (output 0)
                 Instr(O::kMultiply, E::kSI32, {0, 2}),   // 3: x * (x + y): reads x after 2 is written
                 Instr(O::kXor, E::kSI32, {3, 0})};       // 4: (output 1)
  prog.results = {2, 4};
  const KernelParams p = Params(prog);
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  for (int64_t n : {256, 1000, 4096 + 16}) {
    SCOPED_TRACE(n);
    Tensor x = Values(E::kSI32, {n}, rng), y = Values(E::kSI32, {n}, rng);
    Tensor w0 = test::Zeros(E::kSI32, {n}), w1 = w0;
    {
      TensorRef in[2] = {x.ref(), y.ref()};
      TensorRef out[2] = {w0.ref(), w1.ref()};
      ASSERT_TRUE(ref::FindReferenceKernel(p.kernel)(KernelCall{p, in, out}).ok());
    }
    for (bool pool : {false, true}) {
      Tensor fresh0 = test::Zeros(E::kSI32, {n}), fresh1 = fresh0, inplace = x, other = fresh0;
      TensorRef in[2] = {x.ref(), y.ref()};
      TensorRef out[2] = {fresh0.ref(), fresh1.ref()};
      ASSERT_TRUE(fast(pool ? KernelCall{p, in, out, TestPool()} : KernelCall{p, in, out}).ok());
      EXPECT_EQ(fresh0.bytes, w0.bytes);
      EXPECT_EQ(fresh1.bytes, w1.bytes);
      TensorRef in2[2] = {inplace.ref(), y.ref()};
      TensorRef out2[2] = {inplace.ref(), other.ref()};  // output 0 over input 0
      ASSERT_TRUE(fast(pool ? KernelCall{p, in2, out2, TestPool()} : KernelCall{p, in2, out2}).ok());
      EXPECT_EQ(inplace.bytes, w0.bytes);
      EXPECT_EQ(other.bytes, w1.bytes);
    }
  }
}

constexpr int64_t kGT = static_cast<int64_t>(ComparisonDirection::kGT), kEQ = static_cast<int64_t>(ComparisonDirection::kEQ),
                  kLT = static_cast<int64_t>(ComparisonDirection::kLT), kNE = static_cast<int64_t>(ComparisonDirection::kNE);

// argmax: (a, i) vs (c, k): pick a when a > c, or a is NaN and c is not,
// or a == c and i < k.
ScalarProgram ArgmaxNaNFirst() {
  ScalarProgram argmax;
  argmax.param_types = {E::kF32, E::kSI32, E::kF32, E::kSI32};  // acc value, acc index, value, index
  argmax.instrs = {Instr(O::kCompare, E::kI1, {0, 2}, kGT),          // 4
                   Instr(O::kCompare, E::kI1, {0, 0}, kNE),          // 5 acc is NaN
                   Instr(O::kCompare, E::kI1, {2, 2}, kNE),          // 6 x is NaN
                   Instr(O::kNot, E::kI1, {6}),                      // 7
                   Instr(O::kAnd, E::kI1, {5, 7}),                   // 8
                   Instr(O::kCompare, E::kI1, {0, 2}, kEQ),          // 9
                   Instr(O::kCompare, E::kI1, {1, 3}, kLT),          // 10
                   Instr(O::kAnd, E::kI1, {9, 10}),                  // 11
                   Instr(O::kOr, E::kI1, {4, 8}),                    // 12
                   Instr(O::kOr, E::kI1, {12, 11}),                  // 13
                   Instr(O::kSelect, E::kF32, {13, 0, 2}),           // 14
                   Instr(O::kSelect, E::kSI32, {13, 1, 3})};         // 15
  argmax.results = {14, 15};
  return argmax;
}

KILN_TEST_ALL_TARGETS(CpuElementwiseLanes32, VariadicAndIntegerReduces) {
  std::mt19937 rng(6);
  const ScalarProgram argmax = ArgmaxNaNFirst();
  for (const auto& [dims, axes] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{7, 13}, {1}}, {{300, 17}, {1}}, {{40, 9}, {0}}, {{3, 5, 6}, {0, 2}}, {{50}, {0}}}) {
    SCOPED_TRACE(std::to_string(dims.size()) + "-d, " + std::to_string(axes.size()) + " axes");
    Tensor values = Values(E::kF32, dims, rng);
    // Ties: round some values to a few levels.
    for (int64_t i = 0; i < values.count(); i += 3) values.Set(i, std::round(values.Get(i) / 500));
    std::vector<int32_t> index(static_cast<size_t>(test::Count(dims)));
    for (size_t i = 0; i < index.size(); ++i) index[i] = static_cast<int32_t>(i % dims.back());
    CheckReduce(argmax, {values, test::Make(E::kSI32, dims, index), Scalar0(E::kF32, -INFINITY), Scalar0(E::kSI32, 0)},
                axes);
    // Integer sum, i1 any, ui32 max, f32 max through compare and select.
    ScalarProgram sum;
    sum.param_types = {E::kSI32, E::kSI32};
    sum.instrs = {Instr(O::kAdd, E::kSI32, {0, 1})};
    sum.results = {2};
    CheckReduce(sum, {Values(E::kSI32, dims, rng), Scalar0(E::kSI32, 7)}, axes);
    ScalarProgram any;
    any.param_types = {E::kI1, E::kI1};
    any.instrs = {Instr(O::kOr, E::kI1, {0, 1})};
    any.results = {2};
    Tensor bits = Values(E::kI1, dims, rng);
    for (auto& b : bits.bytes) b = (b && rng() % 8 == 0) ? 1 : 0;
    CheckReduce(any, {bits, Scalar0(E::kI1, 0)}, axes);
    ScalarProgram umax;
    umax.param_types = {E::kUI32, E::kUI32};
    umax.instrs = {Instr(O::kMaximum, E::kUI32, {0, 1})};
    umax.results = {2};
    CheckReduce(umax, {Values(E::kUI32, dims, rng), Scalar0(E::kUI32, 3)}, axes);
    ScalarProgram prod;  // f32 products: one element at a time, not a tree
    prod.param_types = {E::kF32, E::kF32};
    prod.instrs = {Instr(O::kMultiply, E::kF32, {0, 1})};
    prod.results = {2};
    Tensor near_one = Values(E::kF32, dims, rng);
    for (int64_t i = 0; i < near_one.count(); ++i)  // (finite: a NaN's payload through a product is the machine's)
      near_one.Set(i, std::isfinite(near_one.Get(i)) ? 1.0 + near_one.Get(i) * 1e-6 : 1.5);
    CheckReduce(prod, {near_one, Scalar0(E::kF32, 1.0)}, axes);
    ScalarProgram fmax;
    fmax.param_types = {E::kF32, E::kF32};
    fmax.instrs = {Instr(O::kCompare, E::kI1, {0, 1}, kGT), Instr(O::kSelect, E::kF32, {2, 0, 1})};
    fmax.results = {3};
    CheckReduce(fmax, {Values(E::kF32, dims, rng), Scalar0(E::kF32, -1e30)}, axes);
  }
}

// Programs with 64-bit integers (elementwise_lanes64.cc): each op with a
// vector form there and the ones that escape, over si64 and ui64 values
// (wrapping, 2^53, the sign bit), and beside them f32, f64, si32, ui32 and
// i1 values in programs that an si64 param makes 64-bit ones.
KILN_TEST_ALL_TARGETS(CpuElementwiseLanes64, IntegerOpsComparesAndConverts) {
  std::mt19937 rng(11);
  for (E t : {E::kSI64, E::kUI64}) {
    for (O op : {O::kAdd, O::kSubtract, O::kMultiply, O::kAnd, O::kOr, O::kXor, O::kMaximum, O::kMinimum,
                 O::kShiftLeft, O::kDivide, O::kRemainder})
      CheckBinary(op, t, t, rng);
    for (O op : {O::kNot, O::kNegate, O::kPopcnt}) CheckUnary(op, t, t, rng);
    for (int64_t dir = 0; dir <= 5; ++dir)
      for (ComparisonType ct : {ComparisonType::kNotype, ComparisonType::kSigned, ComparisonType::kUnsigned})
        CheckBinary(O::kCompare, t, E::kI1, rng, dir, static_cast<int64_t>(ct));
  }
  CheckUnary(O::kAbs, E::kSI64, E::kSI64, rng);
  for (E from : {E::kSI64, E::kUI64})
    for (E to : {E::kF32, E::kF64, E::kSI32, E::kUI32, E::kSI64, E::kUI64, E::kI1}) {
      CheckUnary(O::kConvert, from, to, rng);
      if (to != E::kI1 && to != from) CheckUnary(O::kConvert, to, from, rng);
    }
}

KILN_TEST_ALL_TARGETS(CpuElementwiseLanes64, NarrowerValuesBesideWideIntegers) {
  // op(x, y) for x, y of each narrower type, then select(k < 32, that,
  // x) with k an si64: the si64 param makes each a 64-bit program.
  std::mt19937 rng(12);
  struct Case {
    O op;
    E t;
  };
  std::vector<Case> cases;
  for (E t : {E::kF32, E::kF64})
    for (O op : {O::kAdd, O::kSubtract, O::kMultiply, O::kDivide, O::kMaximum, O::kMinimum, O::kSqrt, O::kNegate,
                 O::kAbs, O::kExponential})
      cases.push_back({op, t});
  for (E t : {E::kSI32, E::kUI32})
    for (O op : {O::kAdd, O::kSubtract, O::kMultiply, O::kAnd, O::kXor, O::kMaximum, O::kMinimum, O::kNot,
                 O::kNegate})
      cases.push_back({op, t});
  for (const Case& c : cases) {
    const int arity = ScalarOpArity(c.op);
    ScalarProgram prog;
    prog.param_types = {E::kSI64, c.t, c.t};
    ScalarInstr limit = Instr(O::kConstant, E::kSI64, {});
    limit.constant.i = 32;
    prog.instrs = {limit,                                                                          // 3
                   Instr(O::kCompare, E::kI1, {0, 3}, static_cast<int64_t>(ComparisonDirection::kLT)),  // 4
                   arity == 1 ? Instr(c.op, c.t, {1}) : Instr(c.op, c.t, {1, 2}),                  // 5
                   Instr(O::kSelect, c.t, {4, 5, 1})};                                             // 6
    prog.results = {6};
    SCOPED_TRACE(std::string(ScalarOpName(c.op)) + " " + std::string(Name(c.t)));
    for (int64_t n : {9, 777, 5000})
      Check(Params(prog), {Values(E::kSI64, {n}, rng), Values(c.t, {n}, rng), Values(c.t, {n}, rng)}, c.t, {n});
  }
  // Every convert among the five narrower types, each in a program with an
  // si64 param (doubled by an instruction whose value is not a result).
  for (E from : {E::kF32, E::kF64, E::kSI32, E::kUI32, E::kI1})
    for (E to : {E::kF32, E::kF64, E::kSI32, E::kUI32, E::kI1}) {
      ScalarProgram prog;
      prog.param_types = {from, E::kSI64};
      prog.instrs = {Instr(O::kConvert, to, {0}), Instr(O::kAdd, E::kSI64, {1, 1})};
      prog.results = {2};
      SCOPED_TRACE(std::string(Name(from)) + " -> " + std::string(Name(to)));
      for (int64_t n : {9, 2100})
        Check(Params(prog), {Values(from, {n}, rng), Values(E::kSI64, {n}, rng)}, to, {n});
    }
}

KILN_TEST_ALL_TARGETS(CpuElementwiseLanes64, FloatProgramsTheFloatInterpreterDeclines) {
  // f64 programs with an i1 result or an op of another result type
  // (is_finite feeding a select), total-order compares, and f32 beside
  // f64: the 64-bit lanes take them (escaping what has no vector form).
  std::mt19937 rng(14);
  for (int64_t dir = 0; dir <= 5; ++dir)
    for (ComparisonType ct : {ComparisonType::kNotype, ComparisonType::kFloat, ComparisonType::kTotalOrder})
      CheckBinary(O::kCompare, E::kF64, E::kI1, rng, dir, static_cast<int64_t>(ct));
  ScalarProgram finite;
  finite.param_types = {E::kF64};
  ScalarInstr zero = Instr(O::kConstant, E::kF64, {});
  zero.constant.re = 0.0;
  finite.instrs = {Instr(O::kIsFinite, E::kI1, {0}), zero, Instr(O::kSelect, E::kF64, {1, 0, 2})};
  finite.results = {3};
  for (int64_t n : {9, 2100}) Check(Params(finite), {Values(E::kF64, {n}, rng)}, E::kF64, {n});
  ScalarProgram mixed;  // f32(x64) * y32 + f32(x64 > y64 ? x64 : y64)
  mixed.param_types = {E::kF64, E::kF32, E::kF64};
  mixed.instrs = {Instr(O::kConvert, E::kF32, {0}),                                                 // 3
                  Instr(O::kMultiply, E::kF32, {3, 1}),                                             // 4
                  Instr(O::kCompare, E::kI1, {0, 2}, static_cast<int64_t>(ComparisonDirection::kGT)),  // 5
                  Instr(O::kSelect, E::kF64, {5, 0, 2}),                                            // 6
                  Instr(O::kConvert, E::kF32, {6}),                                                 // 7
                  Instr(O::kAdd, E::kF32, {4, 7})};                                                 // 8
  mixed.results = {8};
  for (int64_t n : {9, 2100})
    Check(Params(mixed), {Values(E::kF64, {n}, rng), Values(E::kF32, {n}, rng), Values(E::kF64, {n}, rng)}, E::kF32,
          {n});
}

KILN_TEST_ALL_TARGETS(CpuElementwiseLanes64, TorchStyleMaskFromLongIndices) {
  // select(row >= col, x, -1e9) with row and column indices of si64 read
  // through broadcasts (a row per index, a column per index), as
  // PyTorch's exports build a causal mask; and the same with x read in
  // place at an odd width.
  std::mt19937 rng(13);
  for (const auto& [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{37, 53}, {64, 1000}}) {
    ScalarProgram prog;
    prog.param_types = {E::kSI64, E::kSI64, E::kF32};
    ScalarInstr fill = Instr(O::kConstant, E::kF32, {});
    fill.constant.re = -1e9f;
    prog.instrs = {Instr(O::kCompare, E::kI1, {0, 1}, static_cast<int64_t>(ComparisonDirection::kGE),
                         static_cast<int64_t>(ComparisonType::kSigned)),  // 3
                   fill,                                                   // 4
                   Instr(O::kSelect, E::kF32, {3, 2, 4})};                 // 5
    prog.results = {5};
    std::vector<int64_t> r(static_cast<size_t>(rows)), c(static_cast<size_t>(cols));
    for (int64_t i = 0; i < rows; ++i) r[i] = i;
    for (int64_t j = 0; j < cols; ++j) c[j] = j - 3;
    // input_broadcast: per param its rank, then the output axis of each dim.
    Check(Params(prog, {1, 0, 1, 1, 2, 0, 1}),
          {test::Make(E::kSI64, {rows}, r), test::Make(E::kSI64, {cols}, c), Values(E::kF32, {rows, cols}, rng)},
          E::kF32, {rows, cols});
  }
}

// Reduces of a value and an index whose body only compares and selects
// (kernels/cpu/reduction_select.h) along rows of 64 elements or more: the
// body's table applied to vectors of elements at once. Against the
// reference, bit for bit, for the spellings exporters use -- the NaN-first
// argmax above, JAX's own (its "op" pair first), an argmin, a first-index
// argmax without NaN handling, a last-index one, the index operand first,
// unsigned indices compared unsigned, 64-bit indices, a body that picks by
// index alone -- over values with NaN, signed zeros, infinities and many ties, sorted and
// constant rows, iota and random indices, and initial values that are NaN
// or tie with the elements. A body with a total-order compare and reduced
// axes that are not innermost take the lane-by-lane fold instead (checked
// the same).
KILN_TEST_ALL_TARGETS(CpuReduceSelect, ArgmaxLikeBodiesAlongRows) {
  std::mt19937 rng(17);
  const int64_t kGE = static_cast<int64_t>(ComparisonDirection::kGE);
  auto argmax_pair = [](E value, E index, int v0, int i0, bool jax, int64_t value_dir, int64_t index_dir,
                        int64_t index_type) {
    // Params v0/i0 the accumulator's (2 + v0 / 2 + i0 the element's).
    ScalarProgram b;
    b.param_types.assign(4, E::kInvalid);
    b.param_types[v0] = b.param_types[2 + v0] = value;
    b.param_types[i0] = b.param_types[2 + i0] = index;
    const uint16_t av = static_cast<uint16_t>(v0), ai = static_cast<uint16_t>(i0), xv = static_cast<uint16_t>(2 + v0),
                   xi = static_cast<uint16_t>(2 + i0);
    if (jax) {
      // JAX's: pick_val = cmp(op, acc) | op != op; pick_idx = pick_val |
      // (op == acc & op_idx < acc_idx), "op" the first pair.
      b.instrs = {Instr(O::kCompare, E::kI1, {av, xv}, value_dir),             // 4
                  Instr(O::kCompare, E::kI1, {av, av}, kNE),                   // 5
                  Instr(O::kOr, E::kI1, {4, 5}),                               // 6 pick_val
                  Instr(O::kCompare, E::kI1, {av, xv}, kEQ),                   // 7
                  Instr(O::kCompare, E::kI1, {ai, xi}, index_dir, index_type), // 8
                  Instr(O::kAnd, E::kI1, {7, 8}),                              // 9
                  Instr(O::kOr, E::kI1, {6, 9}),                               // 10 pick_idx
                  Instr(O::kSelect, value, {6, av, xv}),                       // 11
                  Instr(O::kSelect, index, {10, ai, xi})};                     // 12
    } else {
      // keep = cmp(acc, x) | (acc == x & cmp(acc_idx, x_idx)), both by keep.
      b.instrs = {Instr(O::kCompare, E::kI1, {av, xv}, value_dir),              // 4
                  Instr(O::kCompare, E::kI1, {av, xv}, kEQ),                    // 5
                  Instr(O::kCompare, E::kI1, {ai, xi}, index_dir, index_type),  // 6
                  Instr(O::kAnd, E::kI1, {5, 6}),                               // 7
                  Instr(O::kOr, E::kI1, {4, 7}),                                // 8
                  Instr(O::kSelect, value, {8, av, xv}),                        // 9
                  Instr(O::kSelect, index, {8, ai, xi})};                       // 10
    }
    // The results: the last two instructions, the value's select first.
    const uint16_t last = static_cast<uint16_t>(3 + b.instrs.size());
    b.results.assign(2, 0);
    b.results[v0] = last - 1;
    b.results[i0] = last;
    return b;
  };
  const int64_t kSigned = static_cast<int64_t>(ComparisonType::kSigned),
                kUnsigned = static_cast<int64_t>(ComparisonType::kUnsigned);
  struct Case {
    const char* name;
    ScalarProgram body;
  };
  std::vector<Case> cases = {
      {"nan first", ArgmaxNaNFirst()},
      {"jax argmax", argmax_pair(E::kF32, E::kSI32, 0, 1, true, kGT, kLT, kSigned)},
      {"jax argmin", argmax_pair(E::kF32, E::kSI32, 0, 1, true, kLT, kLT, kSigned)},
      {"first index", argmax_pair(E::kF32, E::kSI32, 0, 1, false, kGT, kLT, kSigned)},
      {"last index", argmax_pair(E::kF32, E::kSI32, 0, 1, false, kGT, kGT, kSigned)},
      {"argmin >=", argmax_pair(E::kF32, E::kSI32, 0, 1, false, kLT, kGE, kSigned)},
      {"index first", argmax_pair(E::kF32, E::kSI32, 1, 0, true, kGT, kLT, kSigned)},
      {"unsigned", argmax_pair(E::kF32, E::kUI32, 0, 1, false, kGT, kLT, kUnsigned)},
      {"i64 index", argmax_pair(E::kF32, E::kSI64, 0, 1, true, kGT, kLT, kSigned)},
      {"ui64 index first", argmax_pair(E::kF32, E::kUI64, 1, 0, false, kLT, kGT, kUnsigned)},
  };
  {
    // The value by the indices alone, the index by the values alone.
    ScalarProgram b;
    b.param_types = {E::kF32, E::kSI32, E::kF32, E::kSI32};
    b.instrs = {Instr(O::kCompare, E::kI1, {1, 3}, kGT, kSigned), Instr(O::kCompare, E::kI1, {0, 2}, kLT),
                Instr(O::kSelect, E::kF32, {4, 0, 2}), Instr(O::kSelect, E::kSI32, {5, 1, 3})};
    b.results = {6, 7};
    cases.push_back({"crossed", b});
    ScalarProgram total = ArgmaxNaNFirst();  // a total-order compare: not this path's
    total.instrs[0].attr1 = static_cast<int64_t>(ComparisonType::kTotalOrder);
    cases.push_back({"total order", total});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const int vo = c.body.param_types[0] == E::kF32 ? 0 : 1;
    const E index_type = c.body.param_types[1 - vo];
    for (const auto& [dims, axes] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
             {{5, 64}, {1}}, {{3, 1000}, {1}}, {{9, 103}, {1}}, {{2, 4, 40}, {1, 2}}, {{70, 3}, {0}}}) {
      SCOPED_TRACE(std::to_string(dims.back()) + " per row, " + std::to_string(axes.size()) + " axes");
      const int64_t count = test::Count(dims), row = dims.back();
      for (int kind = 0; kind < 4; ++kind) {
        SCOPED_TRACE(kind);
        Tensor values = Values(E::kF32, dims, rng);
        for (int64_t i = 0; i < count; ++i) {
          if (kind == 1 && i % 2) values.Set(i, std::round(values.Get(i) / 400));  // ties
          if (kind == 2) values.Set(i, static_cast<double>(i % row) * 0.5);       // rising rows
          if (kind == 3) values.Set(i, (i / row) % 2 ? -0.0 : 0.0);               // constant rows
        }
        std::vector<int64_t> index(static_cast<size_t>(count));
        for (int64_t i = 0; i < count; ++i)
          index[i] = kind == 1 ? static_cast<int64_t>(rng() % 7) - 3
                   : kind == 3 ? static_cast<int64_t>(static_cast<int32_t>(rng())) * (i % 3 ? 1 : 3000000000LL)
                               : i % row;
        std::vector<int32_t> index32(index.begin(), index.end());
        const double init_value = kind == 0 ? -INFINITY : kind == 1 ? std::nan("") : 0.0;
        const double init_index = kind == 1 ? -1 : kind == 2 ? 5 : 0;
        std::vector<Tensor> ins(4);
        ins[vo] = values;
        ins[1 - vo] = StorageBytes(index_type) == 8 ? test::Make(index_type, dims, index)
                                                    : test::Make(index_type, dims, index32);
        ins[2 + vo] = Scalar0(E::kF32, init_value);
        ins[3 - vo] = Scalar0(index_type, init_index);
        CheckReduce(c.body, ins, axes);
      }
    }
  }
}

}  // namespace
}  // namespace kiln::cpu

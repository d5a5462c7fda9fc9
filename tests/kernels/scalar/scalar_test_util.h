// Helpers shared by the scalar-semantics tests (tests/kernels/scalar/):
// building Scalar values and one-instruction programs, and comparing doubles
// as values of a type (NaN equals NaN, -0 differs from +0).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/scalar/scalar.h"

namespace kiln::ref::scalar_test {

using ET = ElementType;
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline bool SameValue(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

#define EXPECT_SAME(a, b) EXPECT_PRED2(::kiln::ref::scalar_test::SameValue, a, b)

// The value stored in `t`'s encoding by the bit pattern `bits`.
inline double LoadBits(ET t, uint64_t bits) {
  uint8_t buf[16] = {};
  std::memcpy(buf, &bits, 8);
  return LoadScalar(t, buf).re;
}

inline Scalar I(int64_t v) {
  Scalar s;
  s.i = v;
  return s;
}
inline Scalar F(double v) {
  Scalar s;
  s.re = v;
  return s;
}
inline Scalar Cx(double re, double im) {
  Scalar s;
  s.re = re;
  s.im = im;
  return s;
}

// One instruction of result type `t` reading the values `ops`.
inline ScalarInstr Instr(ScalarOp op, ET t, std::initializer_list<uint16_t> ops, int64_t a0 = 0, int64_t a1 = 0) {
  ScalarInstr in;
  in.op = op;
  in.type = t;
  in.num_operands = static_cast<uint8_t>(ops.size());
  int k = 0;
  for (uint16_t o : ops) in.operands[k++] = o;
  in.attr0 = a0;
  in.attr1 = a1;
  return in;
}

// A program of one instruction: `op` on params of `operand_types` (in order),
// of result type `result`, whose value is the program's one result.
inline ScalarProgram OneInstr(ScalarOp op, ET result, std::vector<ET> operand_types, int64_t a0 = 0,
                              int64_t a1 = 0) {
  ScalarProgram p;
  p.param_types = std::move(operand_types);
  ScalarInstr in = Instr(op, result, {}, a0, a1);
  in.num_operands = static_cast<uint8_t>(p.param_types.size());
  for (uint16_t k = 0; k < in.num_operands; ++k) in.operands[k] = k;
  p.instrs.push_back(in);
  p.results = {static_cast<uint16_t>(p.param_types.size())};
  return p;
}

}  // namespace kiln::ref::scalar_test

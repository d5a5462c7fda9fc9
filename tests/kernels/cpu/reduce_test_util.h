// Shared by the fast CPU reduce and reduce_window tests: inputs with NaN,
// infinities and signed zeros, the parameters of a reduction with a one-op
// body, and the bit-for-bit comparison with the reference's result.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/common/kernel.h"
#include "tests/kernels/tensor_test_util.h"

namespace kiln::cpu::reduce_test {

using namespace ::kiln::test;  // Tensor, Count, Zeros

// f32 or f64 values in [-100, 100] with specials and zeros of both signs.
inline Tensor Random(ElementType t, std::vector<int64_t> dims, std::mt19937& rng) {
  Tensor x = Zeros(t, std::move(dims));
  std::uniform_real_distribution<double> u(-100.0, 100.0);
  const double specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e30, -1e30};
  for (int64_t i = 0; i < x.count(); ++i) {
    double v = (i % 53 == 7) ? specials[(i / 53) % 7] : u(rng);
    if (i % 11 == 3) v = 0.0;  // equal values: signed zeros meet
    if (i % 13 == 5) v = -0.0;
    x.Set(i, v);
  }
  return x;
}

// stablehlo.reduce over `dims` with the body (x, y) -> op(x, y) (or op(y, x)).
inline KernelParams ReduceParams(ElementType t, ScalarOp op, std::vector<int64_t> dims, bool swapped) {
  ScalarProgram prog;
  prog.param_types = {t, t};
  ScalarInstr in;
  in.op = op;
  in.type = t;
  in.num_operands = 2;
  in.operands[0] = swapped ? 1 : 0;
  in.operands[1] = swapped ? 0 : 1;
  prog.instrs = {in};
  prog.results = {2};
  KernelParams p;
  p.kernel = "stablehlo.reduce";
  KernelAttr d;
  d.name = "dimensions";
  d.ints = std::move(dims);
  p.attrs.push_back(d);
  KernelAttr body;
  body.name = "body";
  body.has_program = true;
  body.program = std::move(prog);
  p.attrs.push_back(std::move(body));
  return p;
}

// Equal values and equal signs of zero; any NaN where the reference has NaN.
inline void ExpectSameValues(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.dims, want.dims);
  int bad = 0;
  for (int64_t i = 0; i < want.count() && bad < 5; ++i) {
    const double g = got.Get(i), w = want.Get(i);
    const bool same = std::isnan(w) ? std::isnan(g) : (g == w && std::signbit(g) == std::signbit(w));
    bad += !same;
    EXPECT_TRUE(same) << "element " << i << ": got " << g << ", want " << w;
  }
}

}  // namespace kiln::cpu::reduce_test

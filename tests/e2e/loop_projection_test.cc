// The scan input-projection hoist (compiler/passes/hoist_loop_projection.cc):
// the pass moves a loop body's dot_general of a sliced, loop-invariant
// sequence out of the loop as one product over the whole sequence, and
// leaves alone the dots it must not move; compiled end to end, the hoisted
// program gives the unfused program's results, including steps whose index
// dynamic_slice clamps (the loop runs past the sequence's end).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "compiler/parse/parser.h"
#include "compiler/passes/hoist_loop_projection.h"
#include "tests/support/counted_run.h"
#include "tests/support/host_tensor_util.h"

namespace kiln {
namespace {

// A scan over x [B, T, K]: h = tanh(p^2 + h @ u) with p = proj(step i) +
// bias (the bias captured from outside the loop), for `steps` iterations. `sliced` spells the step's projection: "reshape" (JAX's form,
// the unit dim dropped before the dot) or "unit" (the dot keeps it).
std::string Scan(int64_t steps, const std::string& sliced, bool w_varies = false) {
  const std::string proj =
      sliced == "reshape"
          ? "    %r = stablehlo.reshape %s : (tensor<2x1x5xf32>) -> tensor<2x5xf32>\n"
            "    %p = stablehlo.dot_general %r, %w_, contracting_dims = [1] x [0] : (tensor<2x5xf32>, "
            "tensor<5x3xf32>) -> tensor<2x3xf32>\n"
          : "    %p1 = stablehlo.dot_general %s, %w_, contracting_dims = [2] x [0] : (tensor<2x1x5xf32>, "
            "tensor<5x3xf32>) -> tensor<2x1x3xf32>\n"
            "    %p = stablehlo.reshape %p1 : (tensor<2x1x3xf32>) -> tensor<2x3xf32>\n";
  const std::string w_next = w_varies ? "%w2" : "%w_";
  return R"(
func.func @main(%x: tensor<2x7x5xf32>, %w: tensor<5x3xf32>, %u: tensor<3x3xf32>, %bias: tensor<3xf32>) -> tensor<2x3xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %h0 = stablehlo.constant dense<0.0> : tensor<2x3xf32>
  %out:4 = stablehlo.while(%i = %c0, %h = %h0, %xs = %x, %w_ = %w) : tensor<i32>, tensor<2x3xf32>, tensor<2x7x5xf32>, tensor<5x3xf32>
  cond {
    %n = stablehlo.constant dense<)" +
         std::to_string(steps) + R"(> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %s = stablehlo.dynamic_slice %xs, %z, %i, %z, sizes = [2, 1, 5] : (tensor<2x7x5xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x1x5xf32>
)" + proj + R"(    %bb = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
    %pb = stablehlo.add %p, %bb : tensor<2x3xf32>
    %ps = stablehlo.multiply %pb, %pb : tensor<2x3xf32>
    %q = stablehlo.dot_general %h, %u, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
    %a = stablehlo.add %ps, %q : tensor<2x3xf32>
    %hn = stablehlo.tanh %a : tensor<2x3xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    %w2 = stablehlo.multiply %w_, %w_ : tensor<5x3xf32>
    stablehlo.return %i2, %hn, %xs, )" +
         w_next + R"( : tensor<i32>, tensor<2x3xf32>, tensor<2x7x5xf32>, tensor<5x3xf32>
  }
  func.return %out#1 : tensor<2x3xf32>
}
)";
}

// The names of the ops at the top of @main and of its loop's body.
void OpNames(const std::string& src, std::vector<std::string>* top, std::vector<std::string>* body) {
  auto m = ir::ParseModule(src, "scan.mlir");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_TRUE(compiler::HoistLoopInvariantProjections(m->get()).ok());
  const ir::Block& main = *(*m)->functions[0]->body.blocks[0];
  for (const auto& op : main.ops) {
    top->push_back(op->name);
    if (op->name == "stablehlo.while")
      for (const auto& b : op->regions[1]->blocks[0]->ops) body->push_back(b->name);
  }
}

int Count(const std::vector<std::string>& names, const std::string& name) {
  return static_cast<int>(std::count(names.begin(), names.end(), name));
}

TEST(LoopProjection, HoistsTheSlicedProjectionOnly) {
  for (const char* sliced : {"reshape", "unit"}) {
    SCOPED_TRACE(sliced);
    std::vector<std::string> top, body;
    OpNames(Scan(7, sliced), &top, &body);
    // The projection of x moved out, in JAX's form with its bias add (the
    // square of the step's value reads it twice: it stays; in the unit form
    // a reshape stands between the product and the add: it stays too); the
    // recurrent product h @ u stays.
    const bool with_bias = std::string(sliced) == "reshape";
    EXPECT_EQ(Count(top, "stablehlo.dot_general"), 1);
    EXPECT_EQ(Count(top, "stablehlo.add"), with_bias ? 1 : 0);
    EXPECT_EQ(Count(body, "stablehlo.broadcast_in_dim"), with_bias ? 0 : 1);
    EXPECT_EQ(Count(body, "stablehlo.multiply"), 2);
    EXPECT_EQ(Count(body, "stablehlo.dot_general"), 1);
    ASSERT_LT(std::find(top.begin(), top.end(), "stablehlo.dot_general") - top.begin(),
              std::find(top.begin(), top.end(), "stablehlo.while") - top.begin());
    EXPECT_EQ(Count(body, "stablehlo.dynamic_slice"), 1) << "of the hoisted product, not of x";
  }
}

TEST(LoopProjection, LeavesAVaryingWeightInTheLoop) {
  std::vector<std::string> top, body;
  OpNames(Scan(7, "reshape", /*w_varies=*/true), &top, &body);
  EXPECT_EQ(Count(top, "stablehlo.dot_general"), 0);
  EXPECT_EQ(Count(body, "stablehlo.dot_general"), 2);
}

TEST(LoopProjection, LeavesStepsOfManyRowsInTheLoop) {
  // 32 rows a step: the step's own GEMM reuses w (kMaxStepRows).
  const std::string src = R"(
func.func @main(%x: tensor<32x4x5xf32>, %w: tensor<5x3xf32>) -> tensor<32x3xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %h0 = stablehlo.constant dense<0.0> : tensor<32x3xf32>
  %out:2 = stablehlo.while(%i = %c0, %h = %h0) : tensor<i32>, tensor<32x3xf32>
  cond {
    %n = stablehlo.constant dense<4> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %s = stablehlo.dynamic_slice %x, %z, %i, %z, sizes = [32, 1, 5] : (tensor<32x4x5xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x1x5xf32>
    %r = stablehlo.reshape %s : (tensor<32x1x5xf32>) -> tensor<32x5xf32>
    %p = stablehlo.dot_general %r, %w, contracting_dims = [1] x [0] : (tensor<32x5xf32>, tensor<5x3xf32>) -> tensor<32x3xf32>
    %hn = stablehlo.add %h, %p : tensor<32x3xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %hn : tensor<i32>, tensor<32x3xf32>
  }
  func.return %out#1 : tensor<32x3xf32>
}
)";
  std::vector<std::string> top, body;
  OpNames(src, &top, &body);
  EXPECT_EQ(Count(top, "stablehlo.dot_general"), 0);
  EXPECT_EQ(Count(body, "stablehlo.dot_general"), 1);
}

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 0.5f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(LoopProjection, SameResultsAsTheLoopWithTheProductInside) {
  const std::vector<vm::HostTensor> in = {test::HostTensorOf(ElementType::kF32, {2, 7, 5}, Random(70, 1)),
                                          test::HostTensorOf(ElementType::kF32, {5, 3}, Random(15, 2)),
                                          test::HostTensorOf(ElementType::kF32, {3, 3}, Random(9, 3)),
                                          test::HostTensorOf(ElementType::kF32, {3}, Random(3, 4))};
  // 7 steps (the whole sequence), 3 (part of it) and 10 (steps 7..9 are
  // clamped to the last one, in x and in the hoisted product alike).
  for (int64_t steps : {7, 3, 10})
    for (const char* sliced : {"reshape", "unit"}) {
      SCOPED_TRACE(std::to_string(steps) + " steps, " + sliced);
      const std::string src = Scan(steps, sliced);
      const test::CountedRun inside = test::CompileAndRunCounted(src, in, {.fuse = false, .threads = 1});
      const test::CountedRun hoisted = test::CompileAndRunCounted(src, in, {.fuse = true, .threads = 1});
      ASSERT_EQ(inside.outputs.size(), 1u);
      ASSERT_EQ(hoisted.outputs.size(), 1u);
      const auto& a = inside.outputs[0].data;
      const auto& b = hoisted.outputs[0].data;
      ASSERT_EQ(a.size(), b.size());
      for (size_t k = 0; k < a.size() / 4; ++k) {
        float x, y;
        std::memcpy(&x, a.data() + 4 * k, 4);
        std::memcpy(&y, b.data() + 4 * k, 4);
        EXPECT_NEAR(x, y, 1e-6f) << "element " << k;
      }
    }
}

}  // namespace
}  // namespace kiln

// The quantized legalization (compiler/passes/legalize_quantized_ops.cc):
// which ops it rewrites into dequantize -> op -> quantize, which it leaves on
// the stored integers, which it requantizes, and the integer form of a
// contraction into its accumulation type; uses follow the moved results.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "compiler/parse/parser.h"
#include "compiler/passes/legalize.h"

namespace kiln::compiler {
namespace {

std::vector<std::string> OpNames(const ir::Function& f) {
  std::vector<std::string> names;
  for (const auto& op : f.body.blocks[0]->ops) names.push_back(op->name);
  return names;
}

std::unique_ptr<ir::Module> Legalized(const char* text) {
  auto m = ir::ParseModule(text, "t.mlir");
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (!m.ok()) return nullptr;
  EXPECT_TRUE(LegalizeQuantizedOps(m->get()).ok());
  return std::move(*m);
}

TEST(LegalizeQuantizedOps, DotGeneralBecomesDequantizeDotQuantize) {
  auto m = Legalized(R"(
func.func @main(%a: tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>, %b: tensor<3x4x!quant.uniform<i8:f32:1, {0.5, 0.25, 0.5, 1.0}>>) -> tensor<2x4x!quant.uniform<i8:f32, 0.3>> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>, tensor<3x4x!quant.uniform<i8:f32:1, {0.5, 0.25, 0.5, 1.0}>>) -> tensor<2x4x!quant.uniform<i8:f32, 0.3>>
  return %0 : tensor<2x4x!quant.uniform<i8:f32, 0.3>>
}
)");
  ASSERT_NE(m, nullptr);
  const ir::Function& f = *m->functions[0];
  EXPECT_EQ(OpNames(f), (std::vector<std::string>{"stablehlo.uniform_dequantize", "stablehlo.uniform_dequantize",
                                                  "stablehlo.dot_general", "stablehlo.uniform_quantize",
                                                  "func.return"}));
  const auto& ops = f.body.blocks[0]->ops;
  EXPECT_EQ(ops[2]->result()->type.ToString(), "tensor<2x4xf32>");
  EXPECT_EQ(ops[2]->operands[1], ops[1]->result());
  EXPECT_EQ(ops[3]->operands[0], ops[2]->result());
  // The return still reads the quantized result, now the quantize's.
  EXPECT_EQ(ops[4]->operands[0], ops[3]->result());
  EXPECT_EQ(ops[3]->result()->def, ops[3].get());
  EXPECT_TRUE(ops[3]->result()->type.is_quantized());
}

TEST(LegalizeQuantizedOps, HybridDotDequantizesOnlyTheRhs) {
  auto m = Legalized(R"(
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4x!quant.uniform<i8:f32:1, {0.5, 0.25, 0.5, 1.0}>>) -> tensor<2x4xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4x!quant.uniform<i8:f32:1, {0.5, 0.25, 0.5, 1.0}>>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(OpNames(*m->functions[0]),
            (std::vector<std::string>{"stablehlo.uniform_dequantize", "stablehlo.dot_general", "func.return"}));
}

TEST(LegalizeQuantizedOps, AccumulationTypeComputesInIntegers) {
  auto m = Legalized(R"(
func.func @main(%a: tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>, %b: tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> tensor<2x2x!quant.uniform<i32:f32:1, {0.25, 0.125}>> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>, tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> tensor<2x2x!quant.uniform<i32:f32:1, {0.25, 0.125}>>
  return %0 : tensor<2x2x!quant.uniform<i32:f32:1, {0.25, 0.125}>>
}
)");
  ASSERT_NE(m, nullptr);
  const ir::Function& f = *m->functions[0];
  const auto names = OpNames(f);
  // No dequantize or quantize: bitcasts, converts to f64 (exact for these
  // integers), the lhs zero point subtracted, the dot on f64, the sum
  // clamped to i32's range, converted and bitcast back.
  for (const auto& n : names) {
    EXPECT_NE(n, "stablehlo.uniform_dequantize");
    EXPECT_NE(n, "stablehlo.uniform_quantize");
  }
  const auto& ops = f.body.blocks[0]->ops;
  size_t dot = 0;
  while (dot < ops.size() && ops[dot]->name != "stablehlo.dot_general") ++dot;
  ASSERT_LT(dot, ops.size());
  EXPECT_EQ(ops[dot]->result()->type.ToString(), "tensor<2x2xf64>");
  EXPECT_EQ(ops[dot]->operands[0]->def->name, "stablehlo.subtract");
  ASSERT_LT(dot + 5, ops.size());
  EXPECT_EQ(ops[dot + 3]->name, "stablehlo.clamp");  // after its two bounds
  EXPECT_EQ(ops[dot + 3]->operands[1], ops[dot]->result());
  EXPECT_EQ(ops[dot + 4]->name, "stablehlo.convert");
  EXPECT_EQ(ops[dot + 4]->result()->type.ToString(), "tensor<2x2xi32>");
  EXPECT_EQ(ops[dot + 5]->name, "stablehlo.bitcast_convert");
  EXPECT_EQ(ops.back()->operands[0], ops[dot + 5]->result());
}

TEST(LegalizeQuantizedOps, ScalesOtherThanTheProductKeepTheDequantizedForm) {
  auto m = Legalized(R"(
func.func @main(%a: tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>, %b: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2x!quant.uniform<i32:f32, 0.3>> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>, tensor<3x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2x!quant.uniform<i32:f32, 0.3>>
  return %0 : tensor<2x2x!quant.uniform<i32:f32, 0.3>>
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(OpNames(*m->functions[0]).back(), "func.return");
  EXPECT_EQ(OpNames(*m->functions[0])[3], "stablehlo.uniform_quantize");
}

// The 8-bit form with an lhs zero point: the correction (z * weight sums)
// subtracted from the i32 product, or, when a requantize is its only
// reader, folded into that requantize's operand zero points.
TEST(LegalizeQuantizedOps, ZeroPointCorrectionFoldsIntoTheRequantize) {
  const char* program = R"(
func.func @main(%a: tensor<2x3x!quant.uniform<i8:f32, 0.5:-2>>) -> (tensor<2x2x!quant.uniform<i8:f32, 0.3:1>>{T}) {
  %w0 = stablehlo.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %w = stablehlo.bitcast_convert %w0 : (tensor<3x2xi8>) -> tensor<3x2x!quant.uniform<i8:f32, 0.25>>
  %0 = stablehlo.dot_general %a, %w, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:-2>>, tensor<3x2x!quant.uniform<i8:f32, 0.25>>) -> tensor<2x2x!quant.uniform<i32:f32, 0.125>>
  %1 = stablehlo.uniform_quantize %0 : (tensor<2x2x!quant.uniform<i32:f32, 0.125>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.3:1>>
  return %1{V} : tensor<2x2x!quant.uniform<i8:f32, 0.3:1>>{T}
}
)";
  // {T}, {V}: a second result, the product itself, or nothing.
  auto with = [&](const std::string& type, const std::string& value) {
    std::string text = program;
    for (size_t at; (at = text.find("{T}")) != std::string::npos;) text.replace(at, 3, type);
    for (size_t at; (at = text.find("{V}")) != std::string::npos;) text.replace(at, 3, value);
    return text;
  };
  const std::string folded = with("", ""), kept = with(", tensor<2x2x!quant.uniform<i32:f32, 0.125>>", ", %0");
  auto m = Legalized(folded.c_str());
  ASSERT_NE(m, nullptr);
  const auto names = OpNames(*m->functions[0]);
  EXPECT_EQ(std::count(names.begin(), names.end(), "stablehlo.subtract"), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "stablehlo.broadcast_in_dim"), 0);
  const auto& ops = m->functions[0]->body.blocks[0]->ops;
  const ir::Operation* quantize = nullptr;
  for (const auto& op : ops)
    if (op->name == "stablehlo.uniform_quantize") quantize = op.get();
  ASSERT_NE(quantize, nullptr);
  // Weight sums per column: 1 + 3 - 5 = -1 and -2 + 4 + 6 = 8, times z = -2.
  EXPECT_EQ(quantize->operands[0]->type.ToString(), "tensor<2x2x!quant.uniform<i32:f32:1, {0.125:2, 0.125:-16}>>");
  EXPECT_EQ(quantize->operands[0]->def->operands[0]->def->name, "stablehlo.dot_general");
  // The product also returned: its value keeps the subtract.
  auto k = Legalized(kept.c_str());
  ASSERT_NE(k, nullptr);
  const auto kept_names = OpNames(*k->functions[0]);
  EXPECT_EQ(std::count(kept_names.begin(), kept_names.end(), "stablehlo.subtract"), 1);
}

TEST(LegalizeQuantizedOps, OpsThatMoveValuesAndBodiesKeepTheStoredIntegers) {
  auto m = Legalized(R"(
func.func @main(%a: tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>, %z: tensor<!quant.uniform<i8:f32, 0.5:1>>) -> tensor<3x!quant.uniform<i8:f32, 0.5:1>> {
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<3x2x!quant.uniform<i8:f32, 0.5:1>>
  %r = stablehlo.reduce(%t init: %z) applies stablehlo.add across dimensions = [1] : (tensor<3x2x!quant.uniform<i8:f32, 0.5:1>>, tensor<!quant.uniform<i8:f32, 0.5:1>>) -> tensor<3x!quant.uniform<i8:f32, 0.5:1>>
  return %r : tensor<3x!quant.uniform<i8:f32, 0.5:1>>
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(OpNames(*m->functions[0]),
            (std::vector<std::string>{"stablehlo.transpose", "stablehlo.reduce", "func.return"}));
}

TEST(LegalizeQuantizedOps, AWiderBodyGetsItsOperandsRequantized) {
  auto m = Legalized(R"(
func.func @main(%a: tensor<4x!quant.uniform<i8:f32, 0.5>>, %z: tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<!quant.uniform<i32:f32, 0.5>> {
  %r = stablehlo.reduce(%a init: %z) across dimensions = [0] : (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<!quant.uniform<i32:f32, 0.5>>
   reducer(%x: tensor<!quant.uniform<i32:f32, 0.5>>, %y: tensor<!quant.uniform<i32:f32, 0.5>>) {
    %s = stablehlo.add %x, %y : tensor<!quant.uniform<i32:f32, 0.5>>
    stablehlo.return %s : tensor<!quant.uniform<i32:f32, 0.5>>
  }
  return %r : tensor<!quant.uniform<i32:f32, 0.5>>
}
)");
  ASSERT_NE(m, nullptr);
  const ir::Function& f = *m->functions[0];
  EXPECT_EQ(OpNames(f), (std::vector<std::string>{"stablehlo.uniform_quantize", "stablehlo.uniform_quantize",
                                                  "stablehlo.reduce", "func.return"}));
  EXPECT_EQ(f.body.blocks[0]->ops[0]->result()->type.ToString(), "tensor<4x!quant.uniform<i32:f32, 0.5:0>>");
}

TEST(LegalizeQuantizedOps, PerTensorElementwiseStaysPerAxisIsRewritten) {
  auto m = Legalized(R"(
func.func @main(%a: tensor<2x!quant.uniform<i8:f32, 0.5>>, %b: tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> (tensor<2x!quant.uniform<i8:f32, 0.5>>, tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) {
  %0 = stablehlo.add %a, %a : tensor<2x!quant.uniform<i8:f32, 0.5>>
  %1 = stablehlo.add %b, %b : tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
  return %0, %1 : tensor<2x!quant.uniform<i8:f32, 0.5>>, tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(OpNames(*m->functions[0]),
            (std::vector<std::string>{"stablehlo.add", "stablehlo.uniform_dequantize", "stablehlo.uniform_dequantize",
                                      "stablehlo.add", "stablehlo.uniform_quantize", "func.return"}));
}

}  // namespace
}  // namespace kiln::compiler

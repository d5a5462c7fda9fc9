// The IR legalizations (compiler/passes/legalize.h): chlo.broadcast_<op> as
// explicit broadcasts plus the elementwise op, uses following the moved
// result; deprecated ops as the spec ops that define them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/parse/parser.h"
#include "compiler/passes/legalize.h"

namespace kiln::compiler {
namespace {

ErrorFormatter Plain() {
  return [](ir::Location loc, const std::string& m) { return std::to_string(loc.line) + ": " + m; };
}

std::vector<std::string> OpNames(const ir::Function& f) {
  std::vector<std::string> names;
  for (const auto& op : f.body.blocks[0]->ops) names.push_back(op->name);
  return names;
}

TEST(LegalizeChloBroadcast, BroadcastsTheOperandsThenAppliesTheOp) {
  auto m = ir::ParseModule(R"(
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xi1> {
  %0 = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}
)", "t.mlir");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_TRUE(LegalizeChloBroadcast(m->get(), Plain()).ok());
  const ir::Function& f = *(*m)->functions[0];
  EXPECT_EQ(OpNames(f), (std::vector<std::string>{"stablehlo.broadcast_in_dim", "stablehlo.compare", "func.return"}));
  const auto& ops = f.body.blocks[0]->ops;
  const ir::Attribute* dims = ops[0]->GetAttr("broadcast_dimensions");
  ASSERT_NE(dims, nullptr);
  EXPECT_EQ(dims->AsInts(), (std::vector<int64_t>{1}));  // trailing alignment
  EXPECT_EQ(ops[0]->result()->type.dims, (std::vector<int64_t>{2, 3}));
  // The compare reads %a as it is and the broadcast's result; the return
  // still reads the (moved) result value, now defined by the compare.
  EXPECT_EQ(ops[1]->operands[1], ops[0]->result());
  EXPECT_NE(ops[1]->GetAttr("comparison_direction"), nullptr);
  EXPECT_EQ(ops[2]->operands[0], ops[1]->result());
  EXPECT_EQ(ops[1]->result()->def, ops[1].get());
}

TEST(LegalizeChloBroadcast, RefusesADynamicResultAtTheOp) {
  auto m = ir::ParseModule(R"(
func.func @main(%a: tensor<?xf32>, %b: tensor<f32>) -> tensor<?xf32> {
  %0 = chlo.broadcast_add %a, %b : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
)", "t.mlir");
  ASSERT_TRUE(m.ok()) << m.status().message();
  Status s = LegalizeChloBroadcast(m->get(), Plain());
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_NE(s.message().find("3: chlo.broadcast_add: a result of dynamic shape"), std::string::npos) << s.message();
}

TEST(LegalizeDeprecatedOps, BroadcastBecomesBroadcastInDimAfterTheNewDimensions) {
  auto m = ir::ParseModule(R"(
func.func @main(%a: tensor<2x3xf32>) -> tensor<4x5x2x3xf32> {
  %0 = "stablehlo.broadcast"(%a) {broadcast_sizes = array<i64: 4, 5>} : (tensor<2x3xf32>) -> tensor<4x5x2x3xf32>
  return %0 : tensor<4x5x2x3xf32>
}
)", "t.mlir");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_TRUE(LegalizeDeprecatedOps(m->get(), Plain()).ok());
  const ir::Function& f = *(*m)->functions[0];
  EXPECT_EQ(OpNames(f), (std::vector<std::string>{"stablehlo.broadcast_in_dim", "func.return"}));
  const auto& op = *f.body.blocks[0]->ops[0];
  ASSERT_NE(op.GetAttr("broadcast_dimensions"), nullptr);
  EXPECT_EQ(op.GetAttr("broadcast_dimensions")->AsInts(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(op.GetAttr("broadcast_sizes"), nullptr);
  EXPECT_EQ(op.result()->type.dims, (std::vector<int64_t>{4, 5, 2, 3}));
}

}  // namespace
}  // namespace kiln::compiler

namespace kiln::compiler {
namespace {

TEST(LegalizeBatchNormInference, BecomesPerFeatureScaleAndShift) {
  auto m = ir::ParseModule(R"(
func.func @main(%x: tensor<2x3x4xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4xf32> {
  %0 = "stablehlo.batch_norm_inference"(%x, %g, %b, %m, %v) {epsilon = 1.000000e-05 : f32, feature_index = 1 : i64} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
)", "t.mlir");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_TRUE(LegalizeBatchNormInference(m->get()).ok());
  const ir::Function& f = *(*m)->functions[0];
  EXPECT_EQ(OpNames(f), (std::vector<std::string>{"stablehlo.constant", "stablehlo.broadcast_in_dim", "stablehlo.add",
                                                  "stablehlo.sqrt", "stablehlo.divide", "stablehlo.broadcast_in_dim",
                                                  "stablehlo.subtract", "stablehlo.broadcast_in_dim",
                                                  "stablehlo.multiply", "stablehlo.broadcast_in_dim",
                                                  "stablehlo.add", "func.return"}));
  const auto& ops = f.body.blocks[0]->ops;
  // The per-feature vectors go along feature_index; the return reads the
  // final add, which took over the batch norm's result value.
  EXPECT_EQ(ops[5]->GetAttr("broadcast_dimensions")->AsInts(), (std::vector<int64_t>{1}));
  EXPECT_EQ(ops[5]->result()->type.dims, (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(ops[11]->operands[0], ops[10]->result());
  EXPECT_EQ(ops[10]->result()->def, ops[10].get());
}

TEST(LegalizeBatchNormInference, KeepsHalfPrecision) {
  auto m = ir::ParseModule(R"(
func.func @main(%x: tensor<2x3xf16>, %g: tensor<3xf16>) -> tensor<2x3xf16> {
  %0 = "stablehlo.batch_norm_inference"(%x, %g, %g, %g, %g) {epsilon = 1.000000e-05 : f32, feature_index = 1 : i64} : (tensor<2x3xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}
)", "t.mlir");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_TRUE(LegalizeBatchNormInference(m->get()).ok());
  EXPECT_EQ(OpNames(*(*m)->functions[0]),
            (std::vector<std::string>{"stablehlo.batch_norm_inference", "func.return"}));
}

}  // namespace
}  // namespace kiln::compiler

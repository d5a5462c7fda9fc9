// Functions written as blocks (cf.br / cf.cond_br, compiler/parse/
// structurize_cfg.h) and IREE's test forms: what the parser makes of them,
// and the malformed graphs it refuses at the right line. Their results are
// checked by tests/data/ops/iree_test_forms.mlir on both devices.
#include <gtest/gtest.h>

#include "tests/compiler/parse/parse_test_util.h"

namespace kiln::ir {
namespace {

constexpr const char* kLoop =
    "func.func @f(%a: tensor<i32>) -> tensor<i32> {\n"
    "  cf.br ^bb1(%a : tensor<i32>)\n"
    "^bb1(%x: tensor<i32>):\n"
    "  %lt = stablehlo.compare LT, %x, %a : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
    "  %c = tensor.extract %lt[] : tensor<i1>\n"
    "  cf.cond_br %c, ^bb1(%x : tensor<i32>), ^bb2\n"
    "^bb2:\n"
    "  return %x : tensor<i32>\n"
    "}\n";

TEST(ParseCfg, BlocksBecomeOneLoopOverACase) {
  auto m = MustParse(kLoop);
  ASSERT_NE(m, nullptr);
  const Function& f = *m->functions[0];
  ASSERT_EQ(f.body.blocks.size(), 1u);
  const Block& b = *f.body.blocks[0];
  ASSERT_EQ(b.args.size(), 1u);
  EXPECT_EQ(b.ops.back()->name, "func.return");
  const Operation& loop = *b.ops[b.ops.size() - 2];
  ASSERT_EQ(loop.name, "stablehlo.while");
  // State: the block index, ^bb1's argument, %x read in ^bb2, the result.
  // (%x is ^bb1's argument, so one slot serves both.)
  EXPECT_EQ(loop.results.size(), 3u);
  const Operation& sw = *loop.regions[1]->blocks[0]->ops[0];
  ASSERT_EQ(sw.name, "stablehlo.case");
  EXPECT_EQ(sw.regions.size(), 3u);  // one branch per block
  for (const auto& r : sw.regions) EXPECT_EQ(r->blocks[0]->ops.back()->name, "stablehlo.return");
}

TEST(ParseCfg, MalformedGraphsAreRefusedAtTheOp) {
  EXPECT_NE(ParseError("func.func @f() {\n  cf.br ^nowhere\n^bb1:\n  return\n}\n")
                .find("test.mlir:2:3: error: cf.br branches to ^nowhere, which is not a block of this function"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f(%a: tensor<i32>) {\n  cf.br ^bb1\n^bb1(%x: tensor<i32>):\n  return\n}\n")
                .find("test.mlir:2:3: error: cf.br passes 0 values to ^bb1, which takes 1"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f() {\n  cf.br ^bb1\n^bb1:\n  %0 = stablehlo.constant dense<1> : tensor<i32>\n}\n")
                .find("test.mlir:4:8: error: block ^bb1 must end with cf.br, cf.cond_br or return"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f() {\n  cf.br ^bb1\n^bb1:\n  return\n^bb1:\n  return\n}\n")
                .find("test.mlir:5:1: error: block ^bb1 is defined twice"),
            std::string::npos);
  // %v is defined in ^left and read in ^join, which ^right also reaches.
  EXPECT_NE(ParseError("func.func @f(%p: tensor<i1>) {\n"
                       "  %c = tensor.extract %p[] : tensor<i1>\n"
                       "  cf.cond_br %c, ^left, ^right\n"
                       "^left:\n"
                       "  %v = stablehlo.constant dense<1> : tensor<i32>\n"
                       "  cf.br ^join\n"
                       "^right:\n"
                       "  cf.br ^join\n"
                       "^join:\n"
                       "  %w = stablehlo.add %v, %v : tensor<i32>\n"
                       "  return\n"
                       "}\n")
                .find("test.mlir:10:8: error: stablehlo.add reads a value defined in block ^left, which does not "
                      "dominate block ^join"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f(%a: tensor<?xf32>) {\n  cf.br ^bb1(%a : tensor<?xf32>)\n^bb1(%x: tensor<?xf32>):\n"
                       "  return\n}\n")
                .find("a value carried between blocks must be a tensor of static shape, not tensor<?xf32>"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f() -> tensor<i32> {\n  cf.br ^bb1\n^bb1:\n  return\n}\n")
                .find("test.mlir:4:3: error: return has 0 operands, but the function returns 1 values"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f(%a: tensor<2xi1>) {\n  %c = tensor.extract %a[0] : tensor<2xi1>\n  return\n}\n")
                .find("rank-0 tensor only"),
            std::string::npos);
}

TEST(ParseIreeForms, ChecksConstantsAndCasts) {
  auto m = MustParse(
      "func.func @f() {\n"
      "  %a = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
      "  %d = flow.tensor.dynamic_constant dense<[1.0, 2.0]> : tensor<2xf32> -> tensor<?xf32>\n"
      "  %e = tensor.cast %a : tensor<2xf32> to tensor<?xf32>\n"
      "  check.expect_almost_eq(%d, %e, atol 1.0e-2, rtol 5.0e-1) : tensor<?xf32>\n"
      "  check.expect_almost_eq_const(%a, dense<[1.0, 2.0]> : tensor<2xf32>, 2.5e-1) : tensor<2xf32>\n"
      "  return\n"
      "}\n");
  ASSERT_NE(m, nullptr);
  const Block& b = *m->functions[0]->body.blocks[0];
  ASSERT_EQ(b.ops.size(), 5u);  // the cast binds %e to %a itself
  EXPECT_EQ(b.ops[0]->name, "stablehlo.constant");
  EXPECT_EQ(b.ops[1]->name, "stablehlo.constant");
  EXPECT_EQ(b.ops[1]->result()->type.ToString(), "tensor<?xf32>");
  const Operation& near = *b.ops[2];
  EXPECT_EQ(near.operands[1], b.ops[0]->result());
  ASSERT_NE(near.GetAttr("atol"), nullptr);
  EXPECT_DOUBLE_EQ(near.GetAttr("atol")->f, 1.0e-2);
  EXPECT_DOUBLE_EQ(near.GetAttr("rtol")->f, 5.0e-1);
  EXPECT_DOUBLE_EQ(b.ops[3]->GetAttr("atol")->f, 2.5e-1);
  // Older names: flow.tensor.constant (its `-> T'` optional) and
  // util.do_not_optimize with its operands in parentheses.
  auto old = MustParse(
      "func.func @f() {\n"
      "  %d = flow.tensor.constant dense<[1, 2]> : tensor<2xi32> -> tensor<?xi32>\n"
      "  %s = flow.tensor.constant dense<[3]> : tensor<1xi32>\n"
      "  %b = util.do_not_optimize(%d) : tensor<?xi32>\n"
      "  %c = util.optimization_barrier %s : tensor<1xi32>\n"
      "  return\n"
      "}\n");
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(FirstOp(*old, 0).result()->type.ToString(), "tensor<?xi32>");
  EXPECT_EQ(FirstOp(*old, 1).result()->type.ToString(), "tensor<1xi32>");
  EXPECT_EQ(FirstOp(*old, 2).name, "stablehlo.optimization_barrier");
  EXPECT_EQ(FirstOp(*old, 3).name, "stablehlo.optimization_barrier");
  // A cast that makes every dimension static is a reshape (checked when it
  // runs); a mix of both directions is refused, and a constant's dynamic
  // type must fit its value.
  auto r = MustParse("func.func @f(%a: tensor<?x2xf32>) {\n  %e = tensor.cast %a : tensor<?x2xf32> to tensor<3x2xf32>\n"
                     "  return\n}\n");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(FirstOp(*r).name, "stablehlo.reshape");
  EXPECT_EQ(FirstOp(*r).result()->type.ToString(), "tensor<3x2xf32>");
  EXPECT_NE(ParseError("func.func @f(%a: tensor<?x2xf32>) {\n  %e = tensor.cast %a : tensor<?x2xf32> to tensor<2x?xf32>\n"
                       "  return\n}\n")
                .find("test.mlir:2:44: error: tensor.cast to tensor<2x?xf32>"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f() {\n  %d = flow.tensor.dynamic_constant dense<[1, 2]> : tensor<2xi32> -> tensor<?x1xi32>\n"
                       "  return\n}\n")
                .find("must be tensor<2xi32> with dimensions made '?'"),
            std::string::npos);
}

// MHLO: an op StableHLO also has reads as StableHLO's, attributes too
// (the quoted enum form included); any other keeps its mhlo name.
// The generic forms of the ops the parser rewrites are refused (their
// custom forms carry the checks).
TEST(ParseIreeForms, GenericFormsOfRewrittenOpsAreRefused) {
  EXPECT_NE(ParseError("func.func @f() {\n  %0 = \"tensor.cast\"() : () -> tensor<f32>\n  return\n}\n")
                .find("test.mlir:2:8: error: tensor.cast is read in its custom form only"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f(%a: tensor<i1>) {\n  \"tensor.extract\"(%a) : (tensor<i1>) -> ()\n  return\n}\n")
                .find("tensor.extract is read in its custom form only"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f() {\n  \"cf.br\"() : () -> ()\n  return\n}\n")
                .find("cf.br is read in its custom form only"),
            std::string::npos);
}

TEST(ParseIreeForms, MhloReadsAsStablehlo) {
  auto m = MustParse(
      "func.func @f(%a: tensor<2xi32>, %b: tensor<2xi32>) {\n"
      "  %0 = \"mhlo.compare\"(%a, %b) {comparison_direction = #mhlo<\"comparison_direction LT\">} :"
      " (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>\n"
      "  %1 = mhlo.add %a, %b : tensor<2xi32>\n"
      "  %2 = \"mhlo.copy\"(%a) : (tensor<2xi32>) -> tensor<2xi32>\n"
      "  return\n"
      "}\n");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(FirstOp(*m, 0).name, "stablehlo.compare");
  ASSERT_NE(FirstOp(*m, 0).GetAttr("comparison_direction"), nullptr);
  EXPECT_EQ(FirstOp(*m, 0).GetAttr("comparison_direction")->str, "LT");
  EXPECT_EQ(FirstOp(*m, 1).name, "stablehlo.add");
  EXPECT_EQ(FirstOp(*m, 2).name, "mhlo.copy");
}

// MHLO's older generic form writes dimension numbers as dictionaries of
// dense vectors: they read as the structs the pretty forms give.
TEST(ParseIreeForms, MhloDimensionDictionariesReadAsStructs) {
  auto m = MustParse(
      "func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %i: tensor<2x1xi32>) {\n"
      "  %0 = \"mhlo.dot_general\"(%a, %b) {dot_dimension_numbers = {\n"
      "    lhs_batching_dimensions = dense<0> : tensor<1xi64>, lhs_contracting_dimensions = dense<2> : tensor<1xi64>,\n"
      "    rhs_batching_dimensions = dense<0> : tensor<1xi64>, rhs_contracting_dimensions = dense<1> : tensor<1xi64>}}"
      " : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>\n"
      "  %1 = \"mhlo.gather\"(%a, %i) {dimension_numbers = {collapsed_slice_dims = dense<0> : tensor<1xi64>,"
      " index_vector_dim = 1 : i64, offset_dims = dense<[1, 2]> : tensor<2xi64>, start_index_map = dense<0> :"
      " tensor<1xi64>}, slice_sizes = dense<[1, 3, 4]> : tensor<3xi64>} : (tensor<2x3x4xf32>, tensor<2x1xi32>) ->"
      " tensor<2x3x4xf32>\n"
      "  return\n"
      "}\n");
  ASSERT_NE(m, nullptr);
  const Operation& dot = FirstOp(*m, 0);
  EXPECT_EQ(dot.name, "stablehlo.dot_general");
  ASSERT_NE(dot.GetAttr("dot_dimension_numbers"), nullptr);
  EXPECT_EQ(dot.GetAttr("dot_dimension_numbers")->kind, Attribute::Kind::kStruct);
  EXPECT_EQ(dot.GetAttr("lhs_contracting_dimensions")->ints, std::vector<int64_t>{2});
  EXPECT_EQ(dot.GetAttr("rhs_batching_dimensions")->ints, std::vector<int64_t>{0});
  const Operation& gather = FirstOp(*m, 1);
  EXPECT_EQ(gather.GetAttr("offset_dims")->ints, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(gather.GetAttr("index_vector_dim")->i, 1);
  EXPECT_NE(ParseError("func.func @f(%a: tensor<2xf32>) {\n  %0 = \"mhlo.dot_general\"(%a, %a) {dot_dimension_numbers ="
                       " {lhs_contracting_dimensions = dense<0> : tensor<1xi64>, bogus = 1 : i64}} :"
                       " (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>\n  return\n}\n")
                .find("unknown field 'bogus' in #stablehlo.dot"),
            std::string::npos);
}

// Scalars are rank-0 tensors; linalg and tensor ops read as StableHLO ops
// (the programs run in tests/data/ops/iree_test_forms.mlir); the forms
// outside what they express are refused at the op.
TEST(ParseIreeForms, ScalarsAndLinalgFormsAndTheirRefusals) {
  auto m = MustParse("func.func @f(%a: i32, %b: f32) -> i32 {\n  %c = arith.constant 3 : i32\n"
                     "  %d = arith.addi %a, %c : i32\n  return %d : i32\n}\n");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->functions[0]->arg_types[0].ToString(), "tensor<i32>");
  EXPECT_EQ(m->functions[0]->result_types[0].ToString(), "tensor<i32>");
  EXPECT_EQ(FirstOp(*m, 0).name, "stablehlo.constant");
  EXPECT_EQ(FirstOp(*m, 1).name, "stablehlo.add");
  const std::string generic_head =
      "func.func @f(%a: tensor<2x3xf32>) {\n  %e = tensor.empty() : tensor<2xf32>\n"
      "  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],"
      " iterator_types = [\"parallel\", \"reduction\"]} ins(%a : tensor<2x3xf32>) outs(%e : tensor<2xf32>) {\n"
      "  ^bb0(%x: f32, %o: f32):\n";
  const std::string tail = "  } -> tensor<2xf32>\n  return\n}\n";
  EXPECT_NE(ParseError(generic_head + "    linalg.yield %x : f32\n" + tail)
                .find("test.mlir:3:8: error: linalg.generic with reduction loops must yield g(x, %out)"),
            std::string::npos);
  EXPECT_NE(ParseError(generic_head + "    %s = arith.addf %o, %o : f32\n    linalg.yield %s : f32\n" + tail)
                .find("must yield g(x, %out)"),
            std::string::npos);
  EXPECT_NE(ParseError("#m = affine_map<(d0) -> (d0 + 1)>\n").find("test.mlir:1:26: error: affine_map results other than "
                                                                  "dimensions and constants are not supported"),
            std::string::npos);
  // Offsets and sizes may be index values (real_dynamic_slice); strides
  // may not, and such a slice does not drop dimensions.
  EXPECT_NE(ParseError("func.func @f(%a: tensor<4xf32>, %i: index) {\n  %s = tensor.extract_slice %a[0] [2] [%i] :"
                       " tensor<4xf32> to tensor<2xf32>\n  return\n}\n")
                .find("only static strides are supported"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f(%a: tensor<2x4xf32>, %i: index) {\n  %s = tensor.extract_slice %a[0, %i] [1, 2] [1, 1] :"
                       " tensor<2x4xf32> to tensor<2xf32>\n  return\n}\n")
                .find("is not rank-reducing"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f(%a: tensor<?xf32>, %i: index) {\n  %d = tensor.dim %a, %i : tensor<?xf32>\n"
                       "  return\n}\n")
                .find("tensor.dim needs a constant index"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f(%a: f32) {\n  %d = arith.cmpf one, %a, %a : f32\n  return\n}\n")
                .find("arith.cmpf: this predicate is not supported"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @f(%a: tensor<2xf32>) {\n  %e = tensor.empty() : tensor<2xf32>\n"
                       "  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types ="
                       " [\"parallel\"]} outs(%e : tensor<2xf32>) {\n  ^bb0(%o: f32):\n"
                       "    %s = stablehlo.reduce_precision %a, format = e5m2 : tensor<2xf32>\n"
                       "    linalg.yield %o : f32\n  } -> tensor<2xf32>\n  return\n}\n")
                .find("linalg.generic's body reads a tensor from outside it"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::ir

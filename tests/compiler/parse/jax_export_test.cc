// Tests of two things JAX prints that are not StableHLO ops or attributes
// proper: dense_resource constants whose data is in the file's
// dialect_resources section (compiler/parse/parse_resources.cc), and
// Shardy's sharding annotations, accepted and ignored
// (compiler/parse/parse_shardy.cc).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tests/compiler/parse/parse_test_util.h"

namespace kiln::ir {
namespace {

// `body` as the ops of main (returning `result`), then the resource
// section `resources`.
std::string WithResources(const std::string& body, const std::string& resources,
                          const std::string& result = "tensor<3xf32>") {
  return "module @jit_f {\n  func.func public @main() -> " + result + " {\n" + body +
         "  }\n}\n\n{-#\n  dialect_resources: {\n    builtin: {\n" + resources + "\n    }\n  }\n#-}\n";
}

TEST(DenseResource, ConstantsReadTheirBlobs) {
  auto m = MustParse(WithResources(
      "    %c = stablehlo.constant dense_resource<weights> : tensor<3xf32>\n"
      "    %i = stablehlo.constant dense_resource<\"ids.0\"> : tensor<2xi32>\n"
      "    %b = stablehlo.constant dense_resource<mask> : tensor<2xi1>\n"
      "    return %c : tensor<3xf32>\n",
      "      weights: \"0x040000000000803F00000040000040C0\",\n"
      "      \"ids.0\": \"0x04000000FFFFFFFF07000000\",\n"
      "      mask: \"0x010000000100\""));
  ASSERT_TRUE(m);
  auto dense = [&](size_t i) { return FirstOp(*m, i).GetAttr("value"); };
  ASSERT_EQ(dense(0)->kind, Attribute::Kind::kDense);
  float f[3];
  ASSERT_EQ(dense(0)->dense_bytes.size(), sizeof f);
  std::memcpy(f, dense(0)->dense_bytes.data(), sizeof f);
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[1], 2.0f);
  EXPECT_EQ(f[2], -3.0f);
  EXPECT_EQ(dense(1)->AsInts(), (std::vector<int64_t>{-1, 7}));
  EXPECT_EQ(dense(2)->dense_bytes, (std::vector<uint8_t>{1, 0}));
}

// The same data as dense<...>: the printer and the rest of the compiler
// see an ordinary constant.
TEST(DenseResource, IsTheSameAsTheDenseConstant) {
  auto a = MustParse(WithResources("    %c = stablehlo.constant dense_resource<w> : tensor<2xf32>\n"
                                   "    return %c : tensor<2xf32>\n",
                                   "      w: \"0x040000000000803F00000040\"", "tensor<2xf32>"));
  auto b = MustParse("module @jit_f {\n  func.func public @main() -> tensor<2xf32> {\n"
                     "    %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
                     "    return %c : tensor<2xf32>\n  }\n}\n");
  ASSERT_TRUE(a && b);
  IrComparer cmp;
  EXPECT_TRUE(cmp.Modules(*a, *b)) << cmp.diff;
}

TEST(DenseResource, ElidedConstantSaysSo) {
  std::string m = ParseError(
      "func.func @main() -> tensor<2xf32> {\n"
      "  %c = stablehlo.constant dense_resource<__elided__> : tensor<2xf32>\n"
      "  return %c : tensor<2xf32>\n}\n");
  EXPECT_NE(m.find("test.mlir:2:27: error: this constant's data was elided when the program was printed "
                   "(dense_resource<__elided__>); print the program again with large constants kept"),
            std::string::npos)
      << m;
  std::string blob = ParseError(WithResources("    %c = stablehlo.constant dense_resource<w> : tensor<2xf32>\n"
                                              "    return %c : tensor<2xf32>\n",
                                              "      w: \"__elided__\"", "tensor<2xf32>"));
  EXPECT_NE(blob.find("the data of resource 'w' was elided when the program was printed"), std::string::npos) << blob;
}

TEST(DenseResource, MissingOrMalformedBlobsAreErrors) {
  const std::string use = "    %c = stablehlo.constant dense_resource<w> : tensor<2xf32>\n    return %c : tensor<2xf32>\n";
  std::string none = ParseError("module {\n  func.func @main() -> tensor<2xf32> {\n" + use + "  }\n}\n");
  EXPECT_NE(none.find("test.mlir:3:44: error: dense_resource<w>: the file has no blob of that name"), std::string::npos)
      << none;
  std::string other = ParseError(WithResources(use, "      v: \"0x040000000000803F00000040\"", "tensor<2xf32>"));
  EXPECT_NE(other.find("the file has no blob of that name"), std::string::npos) << other;
  std::string short_blob = ParseError(WithResources(use, "      w: \"0x040000000000803F\"", "tensor<2xf32>"));
  EXPECT_NE(short_blob.find("hex data has 4 bytes; tensor<2xf32> needs 8"), std::string::npos) << short_blob;
  std::string no_alignment = ParseError(WithResources(use, "      w: \"0x0400\"", "tensor<2xf32>"));
  EXPECT_NE(no_alignment.find("a blob starts with its 4-byte alignment"), std::string::npos) << no_alignment;
  std::string not_hex = ParseError(WithResources(use, "      w: true", "tensor<2xf32>"));
  EXPECT_NE(not_hex.find("resource 'w' must be a hex string"), std::string::npos) << not_hex;
}

// Other resources (other dialects', external ones) are skipped.
TEST(DenseResource, OtherResourceSectionsAreSkipped) {
  auto m = MustParse(WithResources("    %c = stablehlo.constant dense_resource<w> : tensor<1xf32>\n"
                                   "    return %c : tensor<1xf32>\n",
                                   "      w: \"0x040000000000803F\"\n    },\n    other: {\n      x: \"0x00\"",
                                   "tensor<1xf32>"));
  ASSERT_TRUE(m);
}

const char* kSharded = R"(module @jit_f attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=1], device_ids=[1, 0]>
  sdy.mesh @empty_mesh = <[]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", ?}, {}], replicated={"y"}>}) -> (tensor<8x4xf32> {jax.result_info = "", sdy.sharding = #sdy.sharding<@mesh, [{"x":(1)2}, {?}]>}) {
    %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<8x4xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {"y"}p1]> : tensor<8x4xf32>
    sdy.sharding_group %1 group_id=0 : tensor<8x4xf32>
    %2 = "sdy.sharding_constraint"(%1) <{sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}> : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %3 = sdy.reshard %2 <@mesh, [{}, {}]> : tensor<8x4xf32>
    %4 = stablehlo.add %3, %1 : tensor<8x4xf32>
    return %4 : tensor<8x4xf32>
  }
}
)";

TEST(Shardy, AnnotationsAreAcceptedAndIgnored) {
  auto m = MustParse(kSharded);
  ASSERT_TRUE(m);
  const Function& f = *m->functions.at(0);
  // The sharding attributes are gone; jax.result_info stays.
  for (const auto& [name, a] : f.attrs)
    if (name == "arg_attrs") ADD_FAILURE() << "arg_attrs kept: only sdy.sharding was there";
  const auto& ops = f.body.blocks.at(0)->ops;
  ASSERT_EQ(ops.size(), 3u);  // negate, add, return
  EXPECT_EQ(ops[0]->name, "stablehlo.negate");
  EXPECT_TRUE(ops[0]->attrs.empty());
  // The constraints and the reshard stand for their operand: add reads negate twice.
  EXPECT_EQ(ops[1]->name, "stablehlo.add");
  EXPECT_EQ(ops[1]->operands.at(0), ops[0]->result());
  EXPECT_EQ(ops[1]->operands.at(1), ops[0]->result());
}

// The same program without the annotations is the same IR.
TEST(Shardy, ProgramIsTheUnannotatedOne) {
  auto a = MustParse(kSharded);
  auto b = MustParse(R"(module @jit_f attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x4xf32>) -> (tensor<8x4xf32> {jax.result_info = ""}) {
    %0 = stablehlo.negate %arg0 : tensor<8x4xf32>
    %4 = stablehlo.add %0, %0 : tensor<8x4xf32>
    return %4 : tensor<8x4xf32>
  }
}
)");
  ASSERT_TRUE(a && b);
  IrComparer cmp;
  EXPECT_TRUE(cmp.Modules(*a, *b)) << cmp.diff;
}

TEST(Shardy, OpsThatChangeTheComputationAreRefusedByName) {
  std::string m = ParseError(R"(sdy.mesh @mesh = <["x"=2]>
func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<4xf32>) {
    sdy.return %arg1 : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
)");
  EXPECT_NE(m.find("test.mlir:3:8: error: sdy.manual_computation is not supported: Kiln accepts Shardy's sharding "
                   "annotations"),
            std::string::npos)
      << m;
  std::string t = ParseError(
      "func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {\n"
      "  %0 = sdy.sharding_constraint %a <@mesh, [{}]> : tensor<4xf32>\n  return %0 : tensor<8xf32>\n}\n");
  EXPECT_NE(t.find("sdy.sharding_constraint: the type tensor<4xf32> differs from the operand's, tensor<8xf32>"),
            std::string::npos)
      << t;
}


// CHLO's pretty top_k reads to the generic form's IR; a missing `k` is an
// error at the token.
TEST(JaxSyntax, ChloTopKPrettyFormIsTheGenericOne) {
  auto pretty = MustParse(R"(
func.func @f(%x: tensor<2x5xf32>) {
  %v, %i = chlo.top_k(%x, k = 3) : tensor<2x5xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
  func.return
})");
  auto generic = MustParse(R"(
func.func @f(%x: tensor<2x5xf32>) {
  %v, %i = "chlo.top_k"(%x) {k = 3 : i64} : (tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  func.return
})");
  ASSERT_TRUE(pretty && generic);
  EXPECT_EQ(PrintModule(*pretty), PrintModule(*generic));
  EXPECT_NE(ParseError("func.func @f(%x: tensor<5xf32>) {\n  %v, %i = chlo.top_k(%x, 3) : tensor<5xf32> -> "
                       "(tensor<3xf32>, tensor<3xi32>)\n  func.return\n}")
                .find("2:27: error: expected 'k'"),
            std::string::npos)
      << ParseError("func.func @f(%x: tensor<5xf32>) {\n  %v, %i = chlo.top_k(%x, 3) : tensor<5xf32> -> "
                    "(tensor<3xf32>, tensor<3xi32>)\n  func.return\n}");
}

// A comma before the closing '>' of a #stablehlo struct attribute changes
// nothing; two commas are still an error.
TEST(JaxSyntax, TrailingCommaInsideStablehloAttributes) {
  auto with = MustParse(R"(
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0],>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return
})");
  auto without = MustParse(R"(
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return
})");
  ASSERT_TRUE(with && without);
  EXPECT_EQ(PrintModule(*with), PrintModule(*without));
  EXPECT_NE(ParseError("func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {\n  %0 = \"stablehlo.dot_general\"(%a, "
                       "%b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1],,>} : "
                       "(tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>\n  func.return\n}")
                .find("error: "),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::ir

// Verifier tests for the structural ops: control flow (while, if, case),
// calls, composite, constant, tuples, optimization_barrier and the
// collectives: one malformed program per violated constraint, each rejected at
// the op's line:col with a precise message (verify_test_util.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/compiler/verify/verify_test_util.h"

namespace kiln::compiler {
namespace {

std::vector<Case> Cases() {
  return {
      {"while_cond", "%a: tensor<i64>",
       "  %r = stablehlo.while(%x = %a) : tensor<i64>\n   cond {\n    stablehlo.return %x : tensor<i64>\n  } do {\n"
       "    stablehlo.return %x : tensor<i64>\n  }",
       "stablehlo.while", "cond has type (tensor<i64>) -> (tensor<i64>), expected (tensor<i64>) -> tensor<i1> (C1)"},
      {"while_body", "%a: tensor<i64>, %p: tensor<i1>",
       "  %r = stablehlo.while(%x = %a) : tensor<i64>\n   cond {\n    stablehlo.return %p : tensor<i1>\n  } do {\n"
       "    stablehlo.return %p : tensor<i1>\n  }",
       "stablehlo.while", "body has type (tensor<i64>) -> (tensor<i1>), expected (tensor<i64>) -> (tensor<i64>) (C2)"},
      {"if_branches", "%p: tensor<i1>, %a: tensor<f32>, %b: tensor<i32>",
       "  %r = \"stablehlo.if\"(%p) ({\n    stablehlo.return %a : tensor<f32>\n  }, {\n"
       "    stablehlo.return %b : tensor<i32>\n  }) : (tensor<i1>) -> tensor<f32>",
       "stablehlo.if", "false_branch returns (tensor<i32>), but the first branch returns (tensor<f32>) (C2)"},
      {"if_results", "%p: tensor<i1>, %a: tensor<f32>",
       "  %r = \"stablehlo.if\"(%p) ({\n    stablehlo.return %a : tensor<f32>\n  }, {\n"
       "    stablehlo.return %a : tensor<f32>\n  }) : (tensor<i1>) -> tensor<i32>",
       "stablehlo.if", "(C3)"},
      {"if_pred", "%p: tensor<i32>, %a: tensor<f32>",
       "  %r = \"stablehlo.if\"(%p) ({\n    stablehlo.return %a : tensor<f32>\n  }, {\n"
       "    stablehlo.return %a : tensor<f32>\n  }) : (tensor<i32>) -> tensor<f32>",
       "stablehlo.if", "pred must be one tensor<i1>"},
      {"case_branches", "%i: tensor<i32>, %a: tensor<f32>, %b: tensor<2xf32>",
       "  %r = \"stablehlo.case\"(%i) ({\n    stablehlo.return %a : tensor<f32>\n  }, {\n"
       "    stablehlo.return %b : tensor<2xf32>\n  }) : (tensor<i32>) -> tensor<f32>",
       "stablehlo.case", "branch 1 returns (tensor<2xf32>), but the first branch returns (tensor<f32>) (C3)"},
      {"case_results", "%i: tensor<i32>, %a: tensor<f32>",
       "  %r = \"stablehlo.case\"(%i) ({\n    stablehlo.return %a : tensor<f32>\n  }) : (tensor<i32>) -> tensor<f64>",
       "stablehlo.case", "(C4)"},
      {"get_tuple_element_index", "%t: tuple<tensor<f32>, tensor<i32>>",
       "  %r = \"stablehlo.get_tuple_element\"(%t) {index = 2 : i32} : (tuple<tensor<f32>, tensor<i32>>) -> tensor<f32>",
       "stablehlo.get_tuple_element", "index 2 is out of range [0, 2) (C1)"},
      {"get_tuple_element_type", "%t: tuple<tensor<f32>, tensor<i32>>",
       "  %r = \"stablehlo.get_tuple_element\"(%t) {index = 1 : i32} : (tuple<tensor<f32>, tensor<i32>>) -> tensor<f32>",
       "stablehlo.get_tuple_element", "(C2)"},
      {"tuple_type", "%a: tensor<f32>",
       "  %r = \"stablehlo.tuple\"(%a) : (tensor<f32>) -> tuple<tensor<i32>>", "stablehlo.tuple", "(C1)"},
      {"all_gather_dim", "%a: tensor<2x2xf32>",
       "  %r = \"stablehlo.all_gather\"(%a) {all_gather_dim = 2 : i64, replica_groups = dense<[[0, 1]]> : "
       "tensor<1x2xi64>} : (tensor<2x2xf32>) -> tensor<2x4xf32>", "stablehlo.all_gather", "(C1)"},
      {"all_gather_groups", "%a: tensor<2x2xf32>",
       "  %r = \"stablehlo.all_gather\"(%a) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 0]]> : "
       "tensor<1x2xi64>} : (tensor<2x2xf32>) -> tensor<2x4xf32>", "stablehlo.all_gather",
       "replica_groups repeats id 0 (C2)"},
      {"all_gather_result", "%a: tensor<2x2xf32>",
       "  %r = \"stablehlo.all_gather\"(%a) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : "
       "tensor<1x2xi64>} : (tensor<2x2xf32>) -> tensor<2x2xf32>", "stablehlo.all_gather", "inferred shape [2, 4] (C6)"},
      {"all_to_all_split", "%a: tensor<3x2xf32>",
       "  %r = \"stablehlo.all_to_all\"(%a) {split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 2 : "
       "i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<3x2xf32>) -> tensor<1x4xf32>",
       "stablehlo.all_to_all", "split dimension size 3 is not divisible by split_count 2 (C2)"},
      {"reduce_scatter_dim", "%a: tensor<4xf32>",
       "  %r = \"stablehlo.reduce_scatter\"(%a) " + kAddF32 +
           " {scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> "
           "tensor<2xf32>",
       "stablehlo.reduce_scatter", "(C2)"},
      {"all_reduce_body", "%a: tensor<4xf32>",
       "  %r = \"stablehlo.all_reduce\"(%a) " + kAddI32 +
           " {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>",
       "stablehlo.all_reduce", "(C5)"},
      {"collective_permute_pairs", "%a: tensor<4xf32>",
       "  %r = \"stablehlo.collective_permute\"(%a) {source_target_pairs = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>} :"
       " (tensor<4xf32>) -> tensor<4xf32>", "stablehlo.collective_permute", "repeats source 0 (C2)"},
      {"call_arity", "%a: tensor<f32>", "  %r = func.call @f(%a, %a) : (tensor<f32>, tensor<f32>) -> tensor<f32>",
       "func.call", "func.call: passes 2 operands, but @f takes 1",
       "func.func private @f(%x: tensor<f32>) -> tensor<f32> {\n  func.return %x : tensor<f32>\n}\n"},
      {"call_types", "%a: tensor<f32>", "  %r = func.call @f(%a) : (tensor<f32>) -> tensor<i32>", "func.call",
       "result 0 has type tensor<i32>, but @f returns tensor<f32>",
       "func.func private @f(%x: tensor<f32>) -> tensor<f32> {\n  func.return %x : tensor<f32>\n}\n"},
      {"call_undefined", "%a: tensor<f32>", "  %r = func.call @g(%a) : (tensor<f32>) -> tensor<f32>", "func.call",
       "calls undefined function @g"},
      {"composite_types", "%a: tensor<f32>",
       "  %r = \"stablehlo.composite\"(%a) {name = \"my.op\", decomposition = @f} : (tensor<f32>) -> tensor<i32>",
       "stablehlo.composite", "(C4)",
       "func.func private @f(%x: tensor<f32>) -> tensor<f32> {\n  func.return %x : tensor<f32>\n}\n"},
      {"composite_name", "%a: tensor<f32>",
       "  %r = \"stablehlo.composite\"(%a) {name = \"myop\", decomposition = @f} : (tensor<f32>) -> tensor<f32>",
       "stablehlo.composite", "(C1)",
       "func.func private @f(%x: tensor<f32>) -> tensor<f32> {\n  func.return %x : tensor<f32>\n}\n"},
      {"constant_type", "", "  %r = \"stablehlo.constant\"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>",
       "stablehlo.constant", "(C1)"},
      {"optimization_barrier_types", "%a: tensor<f32>",
       "  %r = \"stablehlo.optimization_barrier\"(%a) : (tensor<f32>) -> tensor<i32>", "stablehlo.optimization_barrier",
       "(C1)"},
  };
}

TEST(VerifyStructural, RejectsMalformedPrograms) { ExpectRejected(Cases(), 24); }

}  // namespace
}  // namespace kiln::compiler

// Malformed forms of the ops the JAX legalizations rewrite (deprecated ops,
// CHLO constants, LAPACK's Cholesky, shape assertions; docs/jax.md): the
// verifier checks little of them, so each rewrite refuses what it cannot
// express with an error at the op, never a crash.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "compiler/compile.h"

namespace kiln::compiler {
namespace {

// `op` as the one op of @main(%a: tensor<2x2xf32>, %i: tensor<2xi32>).
std::string CompileError(const std::string& op) {
  const std::string src = "func.func @main(%a: tensor<2x2xf32>, %i: tensor<2xi32>) -> tensor<2x2xf32> {\n  " + op +
                          "\n  return %a : tensor<2x2xf32>\n}\n";
  CompileOptions options;
  options.target = "cpu";
  auto bytes = Compile(src, "t.mlir", options, nullptr);
  EXPECT_FALSE(bytes.ok()) << "compiled:\n" << src;
  return bytes.ok() ? "" : bytes.status().message();
}

TEST(JaxForms, MalformedOpsAreRefusedAtTheOp) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"(%0 = "stablehlo.einsum"(%a) {einsum_config = "ab,bc->ac"} : (tensor<2x2xf32>) -> tensor<2x2xf32>)",
       "2:8: error: stablehlo.einsum takes 2 tensor operands and returns 1 tensor"},
      {R"("stablehlo.einsum"(%a, %a) {einsum_config = "ab,bc->ac"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> ())",
       "2:3: error: stablehlo.einsum takes 2 tensor operands and returns 1 tensor"},
      {R"(%0 = "stablehlo.unary_einsum"(%a) : (tensor<2x2xf32>) -> tensor<2xf32>)",
       "error: stablehlo.unary_einsum needs a string attribute einsum_config"},
      {R"(%0 = "stablehlo.unary_einsum"(%a) {einsum_config = "a...->a"} : (tensor<2x2xf32>) -> tensor<2xf32>)",
       "error: stablehlo.unary_einsum 'a...->a': an ellipsis (...) is not supported"},
      {R"(%0 = "stablehlo.einsum"(%a, %a) {einsum_config = "ab,bc->az"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>)",
       "error: stablehlo.einsum 'ab,bc->az': result label 'z' is not an operand's"},
      {R"(%0 = "stablehlo.einsum"(%a, %a) {einsum_config = "abc,bc->a"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2xf32>)",
       "error: stablehlo.einsum 'abc,bc->a': 'abc' has 3 labels for an operand of rank 2"},
      {R"(%0 = "stablehlo.torch_index_select"(%a) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>)",
       "error: stablehlo.torch_index_select takes 2 tensor operands and returns 1 tensor"},
      {R"(%0 = "stablehlo.torch_index_select"(%a, %a) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2x2xf32>)",
       "error: stablehlo.torch_index_select: the index must be an integer tensor, not tensor<2x2xf32>"},
      {R"(%0 = "stablehlo.torch_index_select"(%a, %i) {dim = 5 : i64, batch_dims = 0 : i64} : (tensor<2x2xf32>, tensor<2xi32>) -> tensor<2x2x2xf32>)",
       "error: stablehlo.torch_index_select: needs 0 <= batch_dims <= dim < rank(operand)"},
      {R"(%0 = "stablehlo.torch_index_select"(%a, %i) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<2x2xf32>, tensor<2xi32>) -> tensor<3x2xf32>)",
       "error: stablehlo.torch_index_select gives tensor [2, 2], but the result is tensor<3x2xf32>"},
      {R"(%0 = "stablehlo.cross-replica-sum"(%a, %a) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>)",
       "error: stablehlo.cross-replica-sum takes 1 tensor operand and returns 1 tensor"},
      {R"(%0 = "stablehlo.trace"(%a) {tag = "x"} : (tensor<2x2xf32>) -> tensor<2x2xf32>)",
       "error: stablehlo.trace takes 1 tensor operand and returns 0 tensors"},
      {R"(%0 = "chlo.constant_like"(%a) : (tensor<2x2xf32>) -> tensor<2x2xf32>)",
       "error: chlo.constant_like needs an integer, float or boolean attribute value"},
      {R"(%0 = "chlo.constant"(%a) {value = dense<1.0> : tensor<2x2xf32>} : (tensor<2x2xf32>) -> tensor<2x2xf32>)",
       "error: chlo.constant takes no operands and a dense value of its result's type"},
      {R"(%0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<i32>))",
       "error: stablehlo.custom_call @lapack_spotrf_ffi (LAPACK's Cholesky factorization): needs "
       "mhlo.backend_config = {uplo = 76 : ui8}"},
      {R"(%0 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}} : (tensor<2x2xf32>) -> tensor<2x2xf32>)",
       "error: stablehlo.custom_call @lapack_spotrf_ffi (LAPACK's Cholesky factorization): expects one operand and "
       "two results (factor, info)"},
      {R"(%0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%i) {mhlo.backend_config = {uplo = 76 : ui8}} : (tensor<2xi32>) -> (tensor<2xi32>, tensor<i32>))",
       "the operand must be square float or complex matrices of static shape (the batch may be dynamic), not "
       "tensor<2xi32>"},
      {R"(stablehlo.custom_call @shape_assertion(%a) {error_message = "x"} : (tensor<2x2xf32>) -> ())",
       "error: stablehlo.custom_call @shape_assertion: the predicate (operand 0) must be tensor<i1>, not "
       "tensor<2x2xf32>"},
      {R"(stablehlo.custom_call @shape_assertion() {error_message = "x"} : () -> ())",
       "error: stablehlo.custom_call @shape_assertion: expects a predicate and at most 32 values, got 0 operands"},
      // Sub-axis sizes `(1)2` parse; groups named by mesh axes are refused.
      {R"(%0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "x", sub_axis_info = (1)2>, #stablehlo.axis_ref<name = "y">]>} : (tensor<2x2xf32>) -> tensor<2x2xf32>)",
       "2:8: error: stablehlo.all_reduce: replica_groups as mesh axes (#stablehlo.replica_group_mesh_axes) are not "
       "supported yet"},
  };
  for (const auto& [op, want] : cases) {
    const std::string m = CompileError(op);
    EXPECT_NE(m.find(want), std::string::npos) << op << "\n" << m;
  }
}

}  // namespace
}  // namespace kiln::compiler

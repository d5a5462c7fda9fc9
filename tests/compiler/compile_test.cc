// Tests of the compiler's diagnostics as a whole (compiler/compile.cc):
// warnings are full diagnostics at the op they are about, --target=vulkan
// errors point at the op rather than its function, a program without
// functions is warned about, and a JAX custom_call with index-typed layouts
// is refused for its target, not for its layouts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/compile.h"

namespace kiln::compiler {
namespace {

struct Result {
  bool ok = false;
  std::string error;
  std::vector<std::string> warnings;
};

Result CompileFor(const std::string& src, const std::string& target, const std::string& name = "t.mlir") {
  CompileOptions options;
  options.target = target;
  Result r;
  auto bytes = Compile(src, name, options, &r.warnings);
  r.ok = bytes.ok();
  if (!bytes.ok()) r.error = bytes.status().message();
  return r;
}

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// An f16 cholesky: the vulkan target's shaders factor f32, f64 and complex
// matrices only (a module for the vulkan target alone factors 16-bit ones
// in f32 between converts: compiler/passes/widen_narrow_factorizations.h).
const char* kCholesky =
    "func.func @main(%a: tensor<3x3xf16>) -> tensor<3x3xf16> {\n"
    "  %0 = stablehlo.add %a, %a : tensor<3x3xf16>\n"
    "  %1 = stablehlo.cholesky %0, lower = true : tensor<3x3xf16>\n"
    "  return %1 : tensor<3x3xf16>\n"
    "}\n";

TEST(CompileDiagnostics, VulkanWarningIsAtTheOp) {
  Result r = CompileFor(kCholesky, "all", "chol.mlir");
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_TRUE(StartsWith(r.warnings[0], "chol.mlir:3:8: warning: function 'main' is unavailable on the vulkan "
                                        "device: stablehlo.cholesky (f16): "))
      << r.warnings[0];
  EXPECT_NE(r.warnings[0].find("\n  %1 = stablehlo.cholesky %0, lower = true : tensor<3x3xf16>\n       ^"),
            std::string::npos)
      << r.warnings[0];
}

// jnp.linalg.eig (LAPACK's geev): no Vulkan shader yet.
const char* kEig =
    "func.func @main(%a: tensor<3x3xcomplex<f32>>) -> tensor<3xcomplex<f32>> {\n"
    "  %0 = stablehlo.add %a, %a : tensor<3x3xcomplex<f32>>\n"
    "  %1:6 = stablehlo.custom_call @lapack_cgeev_ffi(%0) {mhlo.backend_config = {compute_left = 78 : ui8, "
    "compute_right = 78 : ui8}, api_version = 4 : i32} : (tensor<3x3xcomplex<f32>>) -> (tensor<3xcomplex<f32>>, "
    "tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>, tensor<i32>, tensor<3x3xcomplex<f32>>, tensor<6xf32>)\n"
    "  return %1#0 : tensor<3xcomplex<f32>>\n"
    "}\n";

TEST(CompileDiagnostics, VulkanTargetErrorIsAtTheOp) {
  Result r = CompileFor(kEig, "vulkan", "eig.mlir");
  ASSERT_FALSE(r.ok);
  EXPECT_TRUE(StartsWith(r.error, "eig.mlir:3:10: error: function 'main' cannot run on the vulkan target: "
                                  "kiln.geev (complex<f32>,i32,f32): "))
      << r.error;
}

// For the vulkan target alone an f16 cholesky compiles: factored in f32
// between two converts.
TEST(CompileDiagnostics, SixteenBitCholeskyCompilesForVulkanAlone) {
  Result r = CompileFor(kCholesky, "vulkan", "chol.mlir");
  EXPECT_TRUE(r.ok) << r.error;
}

// Unavailable through a call: the op in the callee is the place to look.
TEST(CompileDiagnostics, UnavailableThroughACallPointsAtTheCalleesOp) {
  const std::string c = "tensor<3x3xcomplex<f32>>", w = "tensor<3xcomplex<f32>>";
  const std::string src =
      "func.func private @eig(%a: " + c + ") -> " + w + " {\n" +
      "  %0:6 = stablehlo.custom_call @lapack_cgeev_ffi(%a) {mhlo.backend_config = {compute_left = 78 : ui8, "
      "compute_right = 78 : ui8}, api_version = 4 : i32} : (" + c + ") -> (" + w + ", " + c + ", " + c +
      ", tensor<i32>, " + c + ", tensor<6xf32>)\n" +
      "  return %0#0 : " + w + "\n" +
      "}\n" +
      "func.func @main(%a: " + c + ") -> " + w + " {\n" +
      "  %0 = func.call @eig(%a) : (" + c + ") -> " + w + "\n" +
      "  return %0 : " + w + "\n" +
      "}\n";
  Result all = CompileFor(src, "all");
  ASSERT_TRUE(all.ok) << all.error;
  ASSERT_EQ(all.warnings.size(), 1u);  // the private callee is not warned about
  EXPECT_TRUE(StartsWith(all.warnings[0], "t.mlir:2:10: warning: function 'main' is unavailable on the vulkan "
                                          "device: kiln.geev (complex<f32>,i32,f32): calls 'eig': "))
      << all.warnings[0];
  Result vk = CompileFor(src, "vulkan");
  ASSERT_FALSE(vk.ok);
  EXPECT_TRUE(StartsWith(vk.error, "t.mlir:2:10: error: function 'eig' cannot run on the vulkan target: "))
      << vk.error;
}

// complex<f32> is a floating-point type: the reason names the types and
// says what is missing.
TEST(CompileDiagnostics, ComplexReasonNamesComplex) {
  const char* src =
      "func.func @main(%a: tensor<3x3xcomplex<f32>>) -> tensor<3xcomplex<f32>> {\n"
      "  %0:6 = stablehlo.custom_call @lapack_cgeev_ffi(%a) {mhlo.backend_config = {compute_left = 78 : ui8, "
      "compute_right = 78 : ui8}, api_version = 4 : i32} : (tensor<3x3xcomplex<f32>>) -> (tensor<3xcomplex<f32>>, "
      "tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>, tensor<i32>, tensor<3x3xcomplex<f32>>, tensor<6xf32>)\n"
      "  return %0#0 : tensor<3xcomplex<f32>>\n"
      "}\n";
  Result r = CompileFor(src, "all");
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("kiln.geev (complex<f32>,i32,f32): no shader for kernel kiln.geev yet"),
            std::string::npos)
      << r.warnings[0];
  EXPECT_EQ(r.warnings[0].find("non-float"), std::string::npos) << r.warnings[0];
}

// The Vulkan SVD keeps the bidiagonal in private arrays of 1,024 entries: a
// static shape whose smaller side exceeds that is refused by name (one
// within it is not).
TEST(CompileDiagnostics, VulkanSvdPastItsPrivateArraysIsRefused) {
  for (int64_t n : {1030, 1024}) {
    const std::string a = "tensor<1100x" + std::to_string(n) + "xf32>", s = "tensor<" + std::to_string(n) + "xf32>";
    const std::string src = "func.func @main(%a: " + a + ") -> " + s +
                            " {\n  %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = "
                            "78 : ui8}, api_version = 4 : i32} : (" + a + ") -> (" + a + ", " + s +
                            ", tensor<1x1xf32>, tensor<1x1xf32>, tensor<i32>)\n  return %0#1 : " + s + "\n}\n";
    Result r = CompileFor(src.c_str(), "all");
    ASSERT_TRUE(r.ok) << r.error;
    if (n > 1024) {
      ASSERT_EQ(r.warnings.size(), 1u);
      EXPECT_NE(r.warnings[0].find("kiln.gesdd (f32,i32): matrices whose smaller side is larger than 1024"),
                std::string::npos)
          << r.warnings[0];
    } else {
      EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
    }
  }
}

TEST(CompileDiagnostics, ProgramWithoutFunctionsIsWarnedAbout) {
  for (const char* src : {"", "// nothing\n", "module @empty {\n}\n"}) {
    Result r = CompileFor(src, "cpu", "empty.mlir");
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.warnings, std::vector<std::string>{"empty.mlir: warning: the program has no functions"}) << src;
  }
  Result r = CompileFor("func.func @f() {\n  return\n}\n", "cpu");
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.warnings.empty());
}

// As jax.jit(jnp.linalg.lu) prints it: the layouts are tensors of `index`.
// LU compiles (kiln.lu); the same call to a target Kiln does not run (the
// a LAPACK routine Kiln does not run) is refused naming it.
TEST(CompileDiagnostics, CustomCallWithIndexLayoutsCompilesOrIsRefusedForItsTarget) {
  const std::string src = R"(module @jit_lu attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3xf32>) -> (tensor<3x3xf32> {jax.result_info = "[0]"}, tensor<3xi32> {jax.result_info = "[1]"}) {
    %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%arg0) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<i32>)
    return %0#0, %0#1 : tensor<3x3xf32>, tensor<3xi32>
  }
}
)";
  Result r = CompileFor(src.c_str(), "cpu");
  EXPECT_TRUE(r.ok) << r.error;
  std::string svd = src;
  svd.replace(svd.find("lapack_sgetrf_ffi"), 17, "lapack_ssysv_ffi");
  svd.replace(svd.find("(tensor<3x3xf32>, tensor<3xi32>, tensor<i32>)"), 45, "(tensor<3x3xf32>, tensor<3xf32>, tensor<i32>)");
  svd.replace(svd.find("return %0#0, %0#1"), 17, "return %0#0, %0#2");
  svd.replace(svd.find("tensor<3xi32> {jax.result_info"), 13, "tensor<i32>");
  svd.replace(svd.find(": tensor<3x3xf32>, tensor<3xi32>\n"), 32, ": tensor<3x3xf32>, tensor<i32>");
  r = CompileFor(svd.c_str(), "cpu");
  ASSERT_FALSE(r.ok);
  EXPECT_TRUE(StartsWith(r.error, "t.mlir:3:12: error: stablehlo.custom_call @lapack_ssysv_ffi (a LAPACK routine "
                                  "Kiln does not run) is not supported yet"))
      << r.error;
}

}  // namespace
}  // namespace kiln::compiler

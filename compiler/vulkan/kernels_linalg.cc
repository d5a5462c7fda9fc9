// The vulkan target's shaders, part: linear algebra (kernels/kernels.def): triangular_solve.
// Shared helpers: compiler/vulkan/kernels.h.
#include "compiler/vulkan/kernels.h"

#include <algorithm>
#include <map>

namespace kiln::compiler::vulkan {

using C = GType::Class;

// triangular_solve (real types): see kernels/vulkan/triangular_solve.glsl.
StatusOr<ShaderSource> TriangularSolve(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 2 || u.out_types.size() != 1) return Refuse(u, "expected two operands and one result");
  const int r = w.rank(0);
  if (r < 2 || w.rank(1) != r || w.rank(2) != r) return Refuse(u, "bad ranks");
  for (size_t t = 0; t < 3; ++t) {
    if (w.type(t).cls == C::kComplex) return Refuse(u, "complex operands (the shader solves real systems only)");
    if (w.type(t).cls != C::kFloat) return Refuse(u, "operands that are not floating-point");
  }
  std::string ta(kp.Str("transpose_a"));
  if (ta.empty()) ta = "NO_TRANSPOSE";
  if (ta != "NO_TRANSPOSE" && ta != "TRANSPOSE" && ta != "ADJOINT") return Refuse(u, "unknown transpose_a");
  // The compute type: f32 for every float up to 32 bits, f64 for f64.
  bool wide = w.type(0).name == "double" || w.type(1).name == "double" || w.type(2).name == "double";
  KILN_ASSIGN_OR_RETURN(GType ct, GlslType(wide ? ElementType::kF64 : ElementType::kF32));
  w.features |= ct.features;
  KILN_ASSIGN_OR_RETURN(std::string ca, ConvertExpr(w.type(0), ct, w.Load(0, "i")));
  KILN_ASSIGN_OR_RETURN(std::string cb, ConvertExpr(w.type(1), ct, w.Load(1, "i")));
  KILN_ASSIGN_OR_RETURN(std::string cy, ConvertExpr(w.type(2), ct, w.Load(2, "i")));
  KILN_ASSIGN_OR_RETURN(std::string cv, ConvertExpr(ct, w.type(2), "v"));
  std::string fns = ct.name + " a_at(uint i) { return " + ca + "; }\n" + ct.name + " b_at(uint i) { return " + cb +
                    "; }\n" + ct.name + " y_at(uint i) { return " + cy + "; }\nvoid put(uint i, " + ct.name +
                    " v) { " + w.Store(2, "i", cv) + " }\n";
  // The output buffer is read back (y_at) after this invocation wrote it.
  std::string batches = "1u";
  for (int d = 0; d < r - 2; ++d) batches += " * " + w.Dim(2, d);
  auto flag = [&](const char* n) { return kp.Int(n) != 0 ? std::string("true") : std::string("false"); };
  std::string body = Fill(Template("triangular_solve.glsl"),
                          {{"FUNCTIONS", fns},
                           {"T", ct.name},
                           {"LEFT", flag("left_side")},
                           {"LOWER", flag("lower")},
                           {"UNIT", flag("unit_diagonal")},
                           {"TRANSPOSED", ta != "NO_TRANSPOSE" ? "true" : "false"},
                           {"M", w.Dim(0, r - 1)},
                           {"ROWS", w.Dim(1, r - 2)},
                           {"COLS", w.Dim(1, r - 1)},
                           {"BATCHES", batches}});
  return w.Finish(body, 64);
}

}  // namespace kiln::compiler::vulkan

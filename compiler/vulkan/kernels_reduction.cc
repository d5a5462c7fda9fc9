// The vulkan target's shaders, part: reduction (kernels/kernels.def): reduce (per output element or a work
// group per output), reduce_window, select_and_scatter.
// Shared helpers: compiler/vulkan/kernels.h.
#include "compiler/vulkan/kernels.h"

#include <algorithm>
#include <map>
#include <optional>

namespace kiln::compiler::vulkan {

using C = GType::Class;

// The number of reduced elements of a reduce dispatch when its input shape
// is static, else -1.
namespace {

int64_t StaticReducedCount(const KernelParams& kp, const DispatchUse& u) {
  std::vector<int64_t> dims;
  if (kp.Program("input")) {
    auto in = kp.Ints("input_dims");
    dims.assign(in.begin(), in.end());
  } else if (!u.in_dims.empty()) {
    dims = u.in_dims[0];
  } else {
    return -1;
  }
  int64_t count = 1;
  for (int64_t d : kp.Ints("dimensions")) {
    if (d < 0 || d >= static_cast<int64_t>(dims.size()) || dims[d] < 0) return -1;
    count *= dims[d];
  }
  return count;
}

// The reduced operand as the generators see it: a plain reduce reads it from
// its first n inputs; a reduce with a fused producer (docs/kernels.md,
// "Reduction order": attributes input, input_broadcast, input_dims) computes
// its one operand from the leading inputs with the "input" program, so the
// operand never exists in memory. The init values are the last n inputs.
struct Operand {
  const ScalarProgram* input = nullptr;
  size_t first_init = 0;                // index of the first init value
  int rank = 0;
  std::vector<std::string> dims;        // GLSL
  std::vector<GType> types;             // per result k
};

StatusOr<Operand> OperandOf(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w, size_t n) {
  Operand op;
  op.input = kp.Program("input");
  if (op.input == nullptr) {
    if (u.in_types.size() != 2 * n) return Refuse(u, "malformed reduce");
    op.first_init = n;
    op.rank = w.rank(0);
    op.dims = DimsOf(w, 0);
    for (size_t k = 0; k < n; ++k) {
      if (w.rank(k) != op.rank) return Refuse(u, "operand ranks differ");
      op.types.push_back(w.type(k));
    }
    return op;
  }
  const size_t np = op.input->param_types.size();
  if (n != 1 || op.input->results.size() != 1 || u.in_types.size() != np + 1)
    return Refuse(u, "a fused producer needs its params, one init value and one result");
  for (size_t t = 0; t < np; ++t)
    if (u.in_types[t] != op.input->param_types[t]) return Refuse(u, "operand types do not match the input program");
  op.first_init = np;
  for (int64_t d : kp.Ints("input_dims")) {
    if (d < 0 || d > UINT32_MAX) return Refuse(u, "input_dims unknown or out of range");
    op.dims.push_back(Uint(d));
  }
  op.rank = static_cast<int>(op.dims.size());
  KILN_ASSIGN_OR_RETURN(GType t, GlslType(op.input->ValueType(op.input->results[0])));
  op.types.push_back(t);
  return op;
}

// GLSL computing operand k's element at multi-index `idx` (linear index
// "src" declared): a load, or the producer's program on its inputs read
// through input_broadcast over the operand's axes (a size-1 dimension
// repeating), as kernels/reference/elementwise_inputs.h reads them.
StatusOr<std::string> OperandAt(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w, const Operand& op,
                                size_t k, const std::vector<std::string>& idx, const std::string& prefix,
                                std::string* code) {
  if (op.input == nullptr) return w.Load(k, "src");
  auto map = kp.Ints("input_broadcast");
  std::vector<std::string> params;
  size_t at = 0;
  for (size_t t = 0; t < op.input->param_types.size(); ++t) {
    if (map.empty()) {
      if (w.rank(t) != op.rank && w.rank(t) != 0) return Refuse(u, "an input of the producer has another rank");
      params.push_back(w.Load(t, w.rank(t) == op.rank ? "src" : "0u"));
      continue;
    }
    if (at >= map.size() || map[at] != w.rank(t) || at + 1 + map[at] > map.size())
      return Refuse(u, "input_broadcast does not match the operands");
    auto dims = DimsOf(w, t);
    std::vector<std::string> at_idx;
    for (int64_t d = 0; d < map[at]; ++d) {
      int64_t axis = map[at + 1 + d];
      if (axis < 0 || axis >= op.rank) return Refuse(u, "input_broadcast names an axis out of range");
      at_idx.push_back("(" + dims[d] + " == 1u ? 0u : " + idx[axis] + ")");
    }
    at += 1 + map[at];
    params.push_back(w.Load(t, at_idx.empty() ? "0u" : Linear(at_idx, dims)));
  }
  if (!map.empty() && at != map.size()) return Refuse(u, "input_broadcast does not match the operands");
  std::vector<std::string> results;
  KILN_RETURN_IF_ERROR(EmitScalarProgram(*op.input, params, prefix, code, &results, &w.features));
  return results[0];
}

// reduce with a work group per output element: kernels/vulkan/reduce_group.glsl.
StatusOr<ShaderSource> ReduceGroup(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const ScalarProgram* prog = kp.Program("body");
  const size_t n = u.out_types.size();
  KILN_ASSIGN_OR_RETURN(Operand op, OperandOf(kp, u, w, n));
  const int r = op.rank;
  std::vector<bool> reduced(r, false);
  for (int64_t d : kp.Ints("dimensions")) {
    if (d < 0 || d >= r || reduced[d]) return Refuse(u, "bad dimensions");
    reduced[d] = true;
  }
  auto dims = op.dims;
  std::vector<std::string> kept_dims, red_dims, idx(r), kept_names, red_names;
  for (int d = 0; d < r; ++d) {
    (reduced[d] ? red_dims : kept_dims).push_back(dims[d]);
    (reduced[d] ? red_names : kept_names).push_back((reduced[d] ? "j" : "o") + S(d));
    idx[d] = (reduced[d] ? "j" : "o") + S(d);
  }
  std::vector<GType> pt(2 * n);
  for (size_t k = 0; k < 2 * n; ++k) {
    KILN_ASSIGN_OR_RETURN(pt[k], GlslType(prog->param_types[k]));
  }
  std::vector<GType> res(n);
  for (size_t k = 0; k < n; ++k) {
    KILN_ASSIGN_OR_RETURN(res[k], GlslType(prog->ValueType(prog->results[k])));
  }
  std::string shared = "shared bool has_part[64];\n", declare, fold, publish, combine, move, finish, produce;
  std::string count = "1u";
  for (const auto& d : red_dims) count += " * " + d;
  declare += "  uint count = " + count + ";\n";
  // Runs the body on (a..., b...) and assigns the results (converted back to
  // the accumulator types) to `dst...`.
  auto apply = [&](const std::vector<std::string>& a, const std::vector<std::string>& b,
                   const std::vector<std::string>& dst, const std::string& prefix, const std::string& indent) -> StatusOr<std::string> {
    std::vector<std::string> params = a;
    params.insert(params.end(), b.begin(), b.end());
    std::string code, out;
    std::vector<std::string> results;
    KILN_RETURN_IF_ERROR(EmitScalarProgram(*prog, params, prefix, &code, &results, &w.features));
    out += indent + "{\n" + code;
    for (size_t k = 0; k < n; ++k) {
      KILN_ASSIGN_OR_RETURN(std::string back, ConvertExpr(res[k], pt[k], results[k]));
      out += indent + "  " + dst[k] + " = " + back + ";\n";
    }
    return out + indent + "}\n";
  };
  std::vector<std::string> acc, xs, part_a, part_b, inits;
  for (size_t k = 0; k < n; ++k) {
    std::string K = S(static_cast<int64_t>(k));
    shared += "shared " + pt[k].name + " part" + K + "[64];\n";
    declare += "  " + pt[k].name + " acc" + K + " = " + pt[k].name + "(0);\n";
    acc.push_back("acc" + K);
    KILN_ASSIGN_OR_RETURN(std::string at, OperandAt(kp, u, w, op, k, idx, "in", &produce));
    KILN_ASSIGN_OR_RETURN(std::string x, ConvertExpr(op.types[k], pt[n + k], at));
    xs.push_back(x);
    part_a.push_back("part" + K + "[lid]");
    part_b.push_back("part" + K + "[lid + s]");
    publish += "  part" + K + "[lid] = acc" + K + ";\n";
    move += "        part" + K + "[lid] = part" + K + "[lid + s];\n";
    const size_t init_at = op.first_init + k;
    KILN_ASSIGN_OR_RETURN(std::string init, ConvertExpr(w.type(init_at), pt[k], w.Load(init_at, "0u")));
    inits.push_back(init);
  }
  publish += "  has_part[lid] = has;\n";
  fold += Decompose("j", red_dims, red_names, "rem_j");
  fold += "      uint src = " + Linear(idx, dims) + ";\n" + produce;
  fold += "      if (!has) {\n";
  for (size_t k = 0; k < n; ++k) {
    KILN_ASSIGN_OR_RETURN(std::string first, ConvertExpr(pt[n + k], pt[k], xs[k]));
    fold += "        " + acc[k] + " = " + first + ";\n";
  }
  fold += "      } else {\n";
  KILN_ASSIGN_OR_RETURN(std::string f, apply(acc, xs, acc, "f", "        "));
  fold += f + "      }\n";
  KILN_ASSIGN_OR_RETURN(combine, apply(part_a, part_b, part_a, "c", "        "));
  // finish: init, folded with the combined part when there was any element.
  std::vector<std::string> fin;
  for (size_t k = 0; k < n; ++k) {
    std::string K = S(static_cast<int64_t>(k));
    finish += "    " + pt[k].name + " res" + K + " = " + inits[k] + ";\n";
    fin.push_back("res" + K);
  }
  std::vector<std::string> part0;
  for (size_t k = 0; k < n; ++k) part0.push_back("part" + S(static_cast<int64_t>(k)) + "[0]");
  KILN_ASSIGN_OR_RETURN(std::string fin_code, apply(fin, part0, fin, "e", "      "));
  finish += "    if (has_part[0]) " + fin_code;
  for (size_t k = 0; k < n; ++k) {
    KILN_ASSIGN_OR_RETURN(std::string v, ConvertExpr(pt[k], w.type(w.Out(k)), fin[k]));
    finish += "    " + w.Store(w.Out(k), "i", v) + "\n";
  }
  std::string body = Fill(Template("reduce_group.glsl"),
                          {{"SHARED", shared},
                           {"INDEX", Decompose("i", kept_dims, kept_names, "rem_o")},
                           {"DECLARE", declare},
                           {"FOLD", fold},
                           {"PUBLISH", publish},
                           {"COMBINE", combine},
                           {"MOVE", move},
                           {"FINISH", finish}});
  ShaderSource s = w.Finish(body, 64);
  s.grid = hal::ShaderGrid::kPerGroup;
  return s;
}

}  // namespace

namespace {

// reduce of one f32 operand over its innermost axes: one invocation per
// row, in the reference's order for float adds (kernels/vulkan/
// reduce_rows.glsl: the CPU device's bits), where this dispatch's shapes
// have at least 64 rows (the shader takes any shape; another dispatch of the
// same signature may run it with others); nullopt where the reduce is not
// of that form. On
// lavapipe a row sum of 4096 x 4096 f32 took 100 ms as a work group of 64
// per row (ReduceGroup: shared memory and barriers), 6.6-12 ms so with 16
// accumulators live (spilled), 3.7-5.0 ms with eight per pass over the row
// (4.3-7.1 with four; vm-bench --profile, rounds alternating).
std::optional<StatusOr<ShaderSource>> ReduceRows(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const ScalarProgram* prog = kp.Program("body");
  if (kp.Program("input") != nullptr || u.in_types.size() != 2 || u.out_types.size() != 1 || u.in_dims.empty())
    return std::nullopt;
  for (ElementType t : {u.in_types[0], u.in_types[1], u.out_types[0], prog->param_types[0], prog->param_types[1],
                        prog->ValueType(prog->results[0])})
    if (t != ElementType::kF32) return std::nullopt;
  const std::vector<int64_t>& dims = u.in_dims[0];
  const int64_t r = static_cast<int64_t>(dims.size());
  auto red = kp.Ints("dimensions");
  std::vector<bool> reduced(dims.size(), false);
  for (int64_t d : red) {
    if (d < 0 || d >= r || reduced[d]) return std::nullopt;
    reduced[d] = true;
  }
  // The reduced dims are the last ones: each result's elements are contiguous.
  const int64_t first_reduced = r - static_cast<int64_t>(red.size());
  int64_t rows = 1, n = 1;
  for (int64_t d = 0; d < r; ++d) {
    if (dims[d] < 0 || reduced[d] != (d >= first_reduced)) return std::nullopt;
    (d < first_reduced ? rows : n) *= dims[d];
  }
  if (red.empty() || rows < 64) return std::nullopt;
  std::string code;
  std::vector<std::string> results;
  Status s = EmitScalarProgram(*prog, {"a", "b"}, "v", &code, &results, &w.features);
  if (!s.ok()) return StatusOr<ShaderSource>(s);
  w.extensions.push_back("GL_EXT_control_flow_attributes");  // [[unroll]]
  const std::string body_function = "float kiln_body(float a, float b) {\n" + code + "  return " + results[0] + ";\n}\n";
  std::string row_length = "1u";
  for (int64_t d = first_reduced; d < r; ++d) row_length += " * " + w.Dim(0, static_cast<size_t>(d));
  ShaderSource src = w.Finish(Fill(Template("reduce_rows.glsl"),
                                   {{"ATEX", S(static_cast<int64_t>(1 + w.num_inputs() + 1))},
                                    {"BODY_FUNCTION", body_function},
                                    {"N", "(" + row_length + ")"},
                                    {"AOFF", S(w.OffsetWord(0))},
                                    {"STORE", "  " + w.Store(w.Out(0), "row", "result")}}),
                              8);
  src.features |= hal::kTexelInputs;
  src.texel_inputs = 0b1;
  return StatusOr<ShaderSource>(std::move(src));
}

}  // namespace

// reduce: f32 reductions of many rows over the innermost axes take
// ReduceRows; otherwise one invocation per output element folds the reduced
// elements in row-major order through the body (a scalar-expression
// program), and reductions of many elements (or of a size unknown at
// compile time) use a work group per output element instead (ReduceGroup).
StatusOr<ShaderSource> Reduce(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const ScalarProgram* prog = kp.Program("body");
  const size_t n = u.out_types.size();
  if (!prog || n == 0 || prog->param_types.size() != 2 * n || prog->results.size() != n)
    return Refuse(u, "malformed reduce");
  KILN_ASSIGN_OR_RETURN(Operand op, OperandOf(kp, u, w, n));
  const int r = op.rank;
  bool same_types = true;
  for (size_t k = 0; k < n; ++k) same_types = same_types && prog->param_types[k] == prog->param_types[n + k];
  const int64_t reduced_count = StaticReducedCount(kp, u);
  if (auto rows = ReduceRows(kp, u, w)) return std::move(*rows);
  if (same_types && (reduced_count < 0 || reduced_count >= 256)) return ReduceGroup(kp, u, w);
  std::vector<bool> reduced(r, false);
  for (int64_t d : kp.Ints("dimensions")) {
    if (d < 0 || d >= r || reduced[d]) return Refuse(u, "bad dimensions");
    reduced[d] = true;
  }
  auto dims = op.dims;
  std::vector<std::string> kept_dims, red_dims, idx(r);
  std::vector<std::string> kept_names, red_names;
  for (int d = 0; d < r; ++d) {
    if (reduced[d]) {
      red_dims.push_back(dims[d]);
      red_names.push_back("j" + S(d));
    } else {
      kept_dims.push_back(dims[d]);
      kept_names.push_back("o" + S(d));
    }
    idx[d] = (reduced[d] ? "j" : "o") + S(d);
  }
  std::vector<GType> pt(2 * n);
  for (size_t k = 0; k < 2 * n; ++k) {
    KILN_ASSIGN_OR_RETURN(pt[k], GlslType(prog->param_types[k]));
  }
  std::string s = Decompose("i", kept_dims, kept_names, "rem_o");
  std::vector<std::string> params;
  for (size_t k = 0; k < n; ++k) {
    const size_t init_at = op.first_init + k;
    KILN_ASSIGN_OR_RETURN(GType it, GlslType(u.in_types[init_at]));
    KILN_ASSIGN_OR_RETURN(std::string init, ConvertExpr(it, pt[k], w.Load(init_at, "0u")));
    s += "  " + pt[k].name + " acc" + S(static_cast<int64_t>(k)) + " = " + init + ";\n";
    params.push_back("acc" + S(static_cast<int64_t>(k)));
  }
  // The reduced elements in row-major order, one loop per reduced dim (a
  // linear count decomposed by divisions per element made a mean over 7x7
  // of 64x7x7x1280 NHWC take 7 ms on lavapipe).
  std::string close_loops = "  }\n";
  s += "  {\n";
  for (size_t d = 0; d < red_dims.size(); ++d) {
    s += "  for (uint " + red_names[d] + " = 0u; " + red_names[d] + " < " + red_dims[d] + "; ++" + red_names[d] + ") {\n";
    close_loops += "  }\n";
  }
  std::string lin = Linear(idx, dims);
  s += "  uint src = " + lin + ";\n";
  for (size_t k = 0; k < n; ++k) {
    std::string produce;
    KILN_ASSIGN_OR_RETURN(std::string at, OperandAt(kp, u, w, op, k, idx, "in", &produce));
    s += produce;
    KILN_ASSIGN_OR_RETURN(std::string x, ConvertExpr(op.types[k], pt[n + k], at));
    params.push_back(x);
  }
  std::string code;
  std::vector<std::string> results;
  KILN_RETURN_IF_ERROR(EmitScalarProgram(*prog, params, "v", &code, &results, &w.features));
  s += code;
  for (size_t k = 0; k < n; ++k) {
    KILN_ASSIGN_OR_RETURN(GType rt, GlslType(prog->ValueType(prog->results[k])));
    KILN_ASSIGN_OR_RETURN(std::string back, ConvertExpr(rt, pt[k], results[k]));
    s += "  acc" + S(static_cast<int64_t>(k)) + " = " + back + ";\n";
  }
  s += close_loops;
  for (size_t k = 0; k < n; ++k) {
    KILN_ASSIGN_OR_RETURN(std::string v, ConvertExpr(pt[k], w.type(w.Out(k)), "acc" + S(static_cast<int64_t>(k))));
    s += "  " + w.Store(w.Out(k), "i", v) + "\n";
  }
  return PerElement(w, s);
}

// reduce_window: one invocation per output element folds its window (taps
// on padding or base-dilation holes contribute the init value, as the spec
// pads with it) through the body, in row-major tap order.
StatusOr<ShaderSource> ReduceWindow(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const ScalarProgram* prog = kp.Program("body");
  const size_t n = u.out_types.size();
  if (!prog || n == 0 || u.in_types.size() != 2 * n || prog->param_types.size() != 2 * n || prog->results.size() != n)
    return Refuse(u, "malformed reduce_window");
  const int r = w.rank(0);
  auto ints = [&](const char* name, size_t count, int64_t fallback) {
    auto v = kp.Ints(name);
    std::vector<int64_t> x(v.begin(), v.end());
    if (x.empty()) x.assign(count, fallback);
    return x;
  };
  auto wd = ints("window_dimensions", r, 0), st = ints("window_strides", r, 1), bd = ints("base_dilations", r, 1),
       wdl = ints("window_dilations", r, 1), pad = ints("padding", 2 * r, 0);
  if (static_cast<int>(wd.size()) != r || static_cast<int>(st.size()) != r || static_cast<int>(bd.size()) != r ||
      static_cast<int>(wdl.size()) != r || static_cast<int>(pad.size()) != 2 * r)
    return Refuse(u, "bad window attributes");
  for (int d = 0; d < r; ++d)
    if (wd[d] < 1 || st[d] < 1 || bd[d] < 1 || wdl[d] < 1 || wd[d] > INT32_MAX || st[d] > INT32_MAX ||
        bd[d] > INT32_MAX || wdl[d] > INT32_MAX || pad[2 * d] < INT32_MIN || pad[2 * d] > INT32_MAX)
      return Refuse(u, "bad window attributes");
  std::vector<GType> pt(2 * n);
  for (size_t k = 0; k < 2 * n; ++k) {
    KILN_ASSIGN_OR_RETURN(pt[k], GlslType(prog->param_types[k]));
  }
  auto in_dims = DimsOf(w, 0);
  auto o = Names("o", w.rank(w.Out(0)));
  std::string s = OutputIndex(w);
  std::vector<std::string> params;
  for (size_t k = 0; k < n; ++k) {
    if (w.rank(k) != r || w.rank(w.Out(k)) != r) return Refuse(u, "operand ranks differ");
    KILN_ASSIGN_OR_RETURN(std::string init, ConvertExpr(w.type(n + k), pt[k], w.Load(n + k, "0u")));
    KILN_ASSIGN_OR_RETURN(std::string init_x, ConvertExpr(w.type(n + k), pt[n + k], w.Load(n + k, "0u")));
    s += "  " + pt[k].name + " acc" + S(static_cast<int64_t>(k)) + " = " + init + ";\n";
    s += "  " + pt[n + k].name + " pad" + S(static_cast<int64_t>(k)) + " = " + init_x + ";\n";
    params.push_back("acc" + S(static_cast<int64_t>(k)));
  }
  std::string close;
  std::vector<std::string> idx;
  std::string indent = "  ";
  s += "  bool inside = true;\n";
  for (int d = 0; d < r; ++d) {
    std::string wv = "w" + S(d), pos = "pos" + S(d);
    s += indent + "for (uint " + wv + " = 0u; " + wv + " < " + Uint(wd[d]) + "; ++" + wv + ") {\n";
    indent += "  ";
    s += indent + "int " + pos + " = int(" + o[d] + ") * " + S(st[d]) + " + int(" + wv + ") * " + S(wdl[d]) + " - (" +
         S(pad[2 * d]) + ");\n";
    s += indent + "bool in" + S(d) + " = " + (d ? "in" + S(d - 1) : std::string("true")) + " && " + pos + " >= 0 && " +
         pos + " % " + S(bd[d]) + " == 0 && uint(" + pos + " / " + S(bd[d]) + ") < " + in_dims[d] + ";\n";
    idx.push_back("uint(" + pos + " / " + S(bd[d]) + ")");
    close = indent.substr(2) + "}\n" + close;
  }
  std::string inside = r ? "in" + S(r - 1) : std::string("true");
  s += indent + "uint src = " + inside + " ? " + Linear(idx, in_dims) + " : 0u;\n";
  for (size_t k = 0; k < n; ++k) {
    KILN_ASSIGN_OR_RETURN(std::string x, ConvertExpr(w.type(k), pt[n + k], w.Load(k, "src")));
    params.push_back("(" + inside + " ? " + x + " : pad" + S(static_cast<int64_t>(k)) + ")");
  }
  std::string code;
  std::vector<std::string> results;
  KILN_RETURN_IF_ERROR(EmitScalarProgram(*prog, params, "v", &code, &results, &w.features));
  s += code;
  for (size_t k = 0; k < n; ++k) {
    KILN_ASSIGN_OR_RETURN(GType rt, GlslType(prog->ValueType(prog->results[k])));
    KILN_ASSIGN_OR_RETURN(std::string back, ConvertExpr(rt, pt[k], results[k]));
    s += indent + "acc" + S(static_cast<int64_t>(k)) + " = " + back + ";\n";
  }
  s += close;
  for (size_t k = 0; k < n; ++k) {
    KILN_ASSIGN_OR_RETURN(std::string v, ConvertExpr(pt[k], w.type(w.Out(k)), "acc" + S(static_cast<int64_t>(k))));
    s += "  " + w.Store(w.Out(k), "i", v) + "\n";
  }
  return PerElement(w, s);
}

// select_and_scatter: one invocation per result element (the operand's
// shape) visits, in row-major order, the source elements whose windows
// cover it; for each it picks the window's element as the reference does
// (the first element inside, replaced by x whenever select(pick, x) is
// false) and, where the pick is this element, folds the source value in
// with `scatter`, starting from init_value. O(windows covering an element x
// window size) per element: meant for pooling windows.
StatusOr<ShaderSource> SelectAndScatter(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const ScalarProgram* sel = kp.Program("select");
  const ScalarProgram* sct = kp.Program("scatter");
  if (!sel || !sct || u.in_types.size() != 3 || u.out_types.size() != 1 || sel->param_types.size() != 2 ||
      sel->results.size() != 1 || sct->param_types.size() != 2 || sct->results.size() != 1 ||
      sel->ValueType(sel->results[0]) != ElementType::kI1)
    return Refuse(u, "malformed select_and_scatter");
  const int r = w.rank(0);
  if (w.rank(1) != r || w.rank(2) != 0 || w.rank(w.Out(0)) != r) return Refuse(u, "operand ranks differ");
  auto ints = [&](const char* name, size_t count, int64_t fallback) {
    auto v = kp.Ints(name);
    std::vector<int64_t> x(v.begin(), v.end());
    if (x.empty()) x.assign(count, fallback);
    return x;
  };
  auto wd = ints("window_dimensions", r, 1), st = ints("window_strides", r, 1), pad = ints("padding", 2 * r, 0);
  if (static_cast<int>(wd.size()) != r || static_cast<int>(st.size()) != r || static_cast<int>(pad.size()) != 2 * r)
    return Refuse(u, "bad window attributes");
  for (int d = 0; d < r; ++d)
    if (wd[d] < 1 || st[d] < 1 || wd[d] > 65536 || st[d] > INT32_MAX || pad[2 * d] < INT32_MIN / 2 ||
        pad[2 * d] > INT32_MAX / 2)
      return Refuse(u, "bad window attributes");
  KILN_ASSIGN_OR_RETURN(GType sel0, GlslType(sel->param_types[0]));
  KILN_ASSIGN_OR_RETURN(GType sel1, GlslType(sel->param_types[1]));
  KILN_ASSIGN_OR_RETURN(GType acc_t, GlslType(sct->param_types[0]));
  KILN_ASSIGN_OR_RETURN(GType src_t, GlslType(sct->param_types[1]));
  KILN_ASSIGN_OR_RETURN(GType res_t, GlslType(sct->ValueType(sct->results[0])));
  const GType& op_t = w.type(0);
  auto in_dims = DimsOf(w, 0), src_dims = DimsOf(w, 1);
  auto o = Names("o", r);
  const std::string fn =
      "int kiln_cdiv(int a, int b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }\n"
      "int kiln_fdiv(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }\n";
  std::string s = OutputIndex(w);
  KILN_ASSIGN_OR_RETURN(std::string init, ConvertExpr(w.type(2), acc_t, w.Load(2, "0u")));
  s += "  " + acc_t.name + " acc = " + init + ";\n";
  // Source elements whose window covers o: s*stride - pad <= o <= s*stride - pad + wd - 1.
  for (int d = 0; d < r; ++d) {
    std::string x = "int(" + o[d] + ") + (" + S(pad[2 * d]) + ")";
    s += "  int lo" + S(d) + " = max(0, kiln_cdiv(" + x + " - " + S(wd[d] - 1) + ", " + S(st[d]) + "));\n";
    s += "  int hi" + S(d) + " = min(int(" + src_dims[d] + ") - 1, kiln_fdiv(" + x + ", " + S(st[d]) + "));\n";
  }
  std::string indent = "  ", close;
  std::vector<std::string> sidx;
  for (int d = 0; d < r; ++d) {
    s += indent + "for (int s" + S(d) + " = lo" + S(d) + "; s" + S(d) + " <= hi" + S(d) + "; ++s" + S(d) + ") {\n";
    close = indent + "}\n" + close;
    indent += "  ";
    sidx.push_back("uint(s" + S(d) + ")");
  }
  s += indent + "int picked = -1;\n" + indent + op_t.name + " pv = " + op_t.name + "(0);\n";
  std::string tap_close, tap_indent = indent;
  std::vector<std::string> pidx;
  for (int d = 0; d < r; ++d) {
    std::string t = "t" + S(d), pos = "p" + S(d);
    s += tap_indent + "for (int " + t + " = 0; " + t + " < " + S(wd[d]) + "; ++" + t + ") {\n";
    tap_close = tap_indent + "}\n" + tap_close;
    tap_indent += "  ";
    s += tap_indent + "int " + pos + " = s" + S(d) + " * " + S(st[d]) + " + " + t + " - (" + S(pad[2 * d]) + ");\n";
    s += tap_indent + "bool in" + S(d) + " = " + (d ? "in" + S(d - 1) : std::string("true")) + " && " + pos +
         " >= 0 && " + pos + " < int(" + in_dims[d] + ");\n";
    pidx.push_back("uint(" + pos + ")");
  }
  std::string inside = r ? "in" + S(r - 1) : std::string("true");
  s += tap_indent + "if (" + inside + ") {\n";
  s += tap_indent + "  uint at = " + Linear(pidx, in_dims) + ";\n";
  s += tap_indent + "  " + op_t.name + " xv = " + w.Load(0, "at") + ";\n";
  s += tap_indent + "  if (picked < 0) {\n" + tap_indent + "    picked = int(at);\n" + tap_indent + "    pv = xv;\n";
  s += tap_indent + "  } else {\n";
  {
    KILN_ASSIGN_OR_RETURN(std::string a, ConvertExpr(op_t, sel0, "pv"));
    KILN_ASSIGN_OR_RETURN(std::string b, ConvertExpr(op_t, sel1, "xv"));
    std::string code;
    std::vector<std::string> results;
    KILN_RETURN_IF_ERROR(EmitScalarProgram(*sel, {a, b}, "sel", &code, &results, &w.features));
    s += code;
    s += tap_indent + "    if (!(" + results[0] + ")) {\n" + tap_indent + "      picked = int(at);\n" + tap_indent +
         "      pv = xv;\n" + tap_indent + "    }\n";
  }
  s += tap_indent + "  }\n" + tap_indent + "}\n" + tap_close;
  s += indent + "if (picked == int(i)) {\n";
  {
    KILN_ASSIGN_OR_RETURN(std::string src, ConvertExpr(w.type(1), src_t, w.Load(1, Linear(sidx, src_dims))));
    std::string code;
    std::vector<std::string> results;
    KILN_RETURN_IF_ERROR(EmitScalarProgram(*sct, {"acc", src}, "sc", &code, &results, &w.features));
    s += code;
    KILN_ASSIGN_OR_RETURN(std::string back, ConvertExpr(res_t, acc_t, results[0]));
    s += indent + "  acc = " + back + ";\n";
  }
  s += indent + "}\n" + close;
  KILN_ASSIGN_OR_RETURN(std::string out, ConvertExpr(acc_t, w.type(w.Out(0)), "acc"));
  s += "  " + w.Store(w.Out(0), "i", out) + "\n";
  return w.Finish(fn + Fill(Template("per_element.glsl"), {{"BODY", s}}), 64);
}

// batch_norm_training and batch_norm_grad (float operands): see
// kernels/vulkan/batch_norm.glsl. Computes in f64, as the reference does, so
// the shader needs shaderFloat64 whatever the element type.
StatusOr<ShaderSource> BatchNorm(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const bool grad = kp.kernel == "stablehlo.batch_norm_grad";
  const size_t inputs = grad ? 5 : 3;
  if (u.in_types.size() != inputs || u.out_types.size() != 3) return Refuse(u, "unexpected operands");
  for (size_t t = 0; t < inputs + 3; ++t)
    if (w.type(t).cls != C::kFloat) return Refuse(u, "operands that are not floating-point");
  const int r = w.rank(0);
  const int64_t f = kp.Int("feature_index", -1);
  if (f < 0 || f >= r) return Refuse(u, "bad feature_index");
  KILN_ASSIGN_OR_RETURN(GType d, GlslType(ElementType::kF64));
  w.features |= d.features;
  auto widen = [&](size_t t, const std::string& i) -> StatusOr<std::string> {
    return ConvertExpr(w.type(t), d, w.Load(t, i));
  };
  auto narrow = [&](size_t t, const std::string& v) -> StatusOr<std::string> {
    KILN_ASSIGN_OR_RETURN(std::string e, ConvertExpr(d, w.type(t), v));
    return w.Store(t, "i", e);
  };
  KILN_ASSIGN_OR_RETURN(std::string x, widen(0, "i"));
  std::string fns = "double x_at(uint i) { return " + x + "; }\n";
  KILN_ASSIGN_OR_RETURN(std::string g, widen(grad ? 4 : 0, "i"));
  fns += "double g_at(uint i) { return " + g + "; }\n";
  fns += "double v_at(uint t, uint i) {\n";
  for (size_t t = 1; t < (grad ? 4u : 3u); ++t) {
    KILN_ASSIGN_OR_RETURN(std::string v, widen(t, "i"));
    fns += "  if (t == " + Uint(static_cast<int64_t>(t)) + ") return " + v + ";\n";
  }
  fns += "  return 0.0lf;\n}\n";
  KILN_ASSIGN_OR_RETURN(std::string s0, narrow(w.Out(0), "v"));
  KILN_ASSIGN_OR_RETURN(std::string s1, narrow(w.Out(1), "v"));
  KILN_ASSIGN_OR_RETURN(std::string s2, narrow(w.Out(2), "v"));
  fns += "void put(uint i, double v) { " + s0 + " }\nvoid put_a(uint i, double v) { " + s1 +
         " }\nvoid put_b(uint i, double v) { " + s2 + " }\n";
  std::string inner = "1u", outer = "1u";
  for (int a = 0; a < r; ++a) {
    if (a < f) outer += " * " + w.Dim(0, a);
    if (a > f) inner += " * " + w.Dim(0, a);
  }
  std::string body = Fill(Template("batch_norm.glsl"), {{"FUNCTIONS", fns},
                                                       {"FEATURES", w.Dim(0, static_cast<size_t>(f))},
                                                       {"INNER", inner},
                                                       {"OUTER", outer},
                                                       {"GRAD", grad ? "true" : "false"},
                                                       {"EPS", FloatConst(d, kp.Float("epsilon"))}});
  // Over the largest output: an empty operand still has per-feature results.
  ShaderSource src = w.Finish(body, 64);
  src.grid_args = {1};
  return src;
}

// chlo.scan: one invocation per lane (every index but the scan dimension's)
// carries the M carries along the lane, running the body on the N inputs'
// elements and the carries at each position (in reverse with is_reverse),
// storing the N outputs there and the final carries at the end, as the
// reference (kernels/reference/reduction_scan.cc) does.
StatusOr<ShaderSource> Scan(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const ScalarProgram* body = kp.Program("body");
  if (body == nullptr) return Refuse(u, "missing the body program");
  const size_t total = u.in_types.size();
  if (u.out_types.size() != total || total < 2 || body->param_types.size() != total || body->results.size() != total)
    return Refuse(u, "body signature mismatch");
  const int rank = w.rank(0);
  size_t n = 0;
  while (n < total && w.rank(n) == rank) ++n;
  if (n == 0 || n == total) return Refuse(u, "needs at least one input and one init");
  int64_t dim = kp.Int("dimension", 0);
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) return Refuse(u, "bad dimension");
  const bool reverse = kp.Int("is_reverse", 0) != 0;
  for (size_t k = 0; k < total; ++k) {
    if (u.in_types[k] != body->param_types[k]) return Refuse(u, "operand types differ from the body's");
    if (u.out_types[k] != body->ValueType(body->results[k])) return Refuse(u, "result types differ from the body's");
    if (k >= n && w.rank(k) != rank - 1) return Refuse(u, "bad carry rank");
  }
  const auto dims = DimsOf(w, 0);
  std::vector<std::string> lane_dims;
  for (int d = 0; d < rank; ++d)
    if (d != dim) lane_dims.push_back(dims[d]);
  std::string lanes = "1u", stride = "1u";
  for (const auto& d : lane_dims) lanes += " * " + d;
  for (int d = static_cast<int>(dim) + 1; d < rank; ++d) stride += " * " + dims[d];
  std::string b = "  uint lane = kiln_linear_id();\n  if (lane >= " + lanes + ") return;\n";
  auto l = Names("l", lane_dims.size());
  b += Decompose("lane", lane_dims, l, "rem_l");
  // The lane's element at scan position 0, in the full shape.
  std::vector<std::string> full;
  for (int d = 0, q = 0; d < rank; ++d) full.push_back(d == dim ? std::string("0u") : l[q++]);
  b += "  uint base = " + Linear(full, dims) + ";\n  uint len = " + dims[dim] + ", step_at = " + stride + ";\n";
  for (size_t c = n; c < total; ++c)
    b += "  " + w.type(c).name + " carry" + S(static_cast<int64_t>(c)) + " = " + w.Load(c, "lane") + ";\n";
  b += "  for (uint step = 0u; step < len; ++step) {\n";
  b += std::string("    uint pos = ") + (reverse ? "len - 1u - step" : "step") + ";\n";
  b += "    uint at = base + pos * step_at;\n";
  std::vector<std::string> params;
  for (size_t k = 0; k < total; ++k) params.push_back(k < n ? w.Load(k, "at") : "carry" + S(static_cast<int64_t>(k)));
  std::string code;
  std::vector<std::string> results;
  KILN_RETURN_IF_ERROR(EmitScalarProgram(*body, params, "v", &code, &results, &w.features));
  b += code;
  for (size_t k = 0; k < n; ++k) b += "    " + w.Store(w.Out(k), "at", results[k]) + "\n";
  for (size_t c = n; c < total; ++c) b += "    carry" + S(static_cast<int64_t>(c)) + " = " + results[c] + ";\n";
  b += "  }\n";
  for (size_t c = n; c < total; ++c)
    b += "  " + w.Store(w.Out(c), "lane", "carry" + S(static_cast<int64_t>(c))) + "\n";
  // Over the largest output: with a zero-length scan dimension the carries
  // still take the inits.
  ShaderSource src = w.Finish("void main() {\n" + b + "}\n", 64);
  src.grid_args = {1};
  return src;
}

}  // namespace kiln::compiler::vulkan

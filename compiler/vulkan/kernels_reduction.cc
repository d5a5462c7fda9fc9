// The vulkan target's shaders, part: Reductions: reduce (per output element or a work group per output),
// reduce_window, sort.
// Shared helpers: compiler/vulkan/kernels.h.
#include "compiler/vulkan/kernels.h"

#include <algorithm>
#include <map>

namespace kiln::compiler::vulkan {

using C = GType::Class;

// The number of reduced elements of a reduce dispatch when its input shape
// is static, else -1.
namespace {

int64_t StaticReducedCount(const KernelParams& kp, const DispatchUse& u) {
  if (u.in_dims.empty()) return -1;
  int64_t count = 1;
  for (int64_t d : kp.Ints("dimensions")) {
    if (d < 0 || d >= static_cast<int64_t>(u.in_dims[0].size()) || u.in_dims[0][d] < 0) return -1;
    count *= u.in_dims[0][d];
  }
  return count;
}

// reduce with a work group per output element: kernels/vulkan/reduce_group.glsl.
StatusOr<ShaderSource> ReduceGroup(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const ScalarProgram* prog = kp.Program("body");
  const size_t n = u.out_types.size();
  const int r = w.rank(0);
  std::vector<bool> reduced(r, false);
  for (int64_t d : kp.Ints("dimensions")) {
    if (d < 0 || d >= r || reduced[d]) return Refuse(u, "bad dimensions");
    reduced[d] = true;
  }
  auto dims = DimsOf(w, 0);
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
  std::string shared = "shared bool has_part[64];\n", declare, fold, publish, combine, move, finish;
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
    if (w.rank(k) != r) return Refuse(u, "operand ranks differ");
    shared += "shared " + pt[k].name + " part" + K + "[64];\n";
    declare += "  " + pt[k].name + " acc" + K + " = " + pt[k].name + "(0);\n";
    acc.push_back("acc" + K);
    KILN_ASSIGN_OR_RETURN(std::string x, ConvertExpr(w.type(k), pt[n + k], w.Load(k, "src")));
    xs.push_back(x);
    part_a.push_back("part" + K + "[lid]");
    part_b.push_back("part" + K + "[lid + s]");
    publish += "  part" + K + "[lid] = acc" + K + ";\n";
    move += "        part" + K + "[lid] = part" + K + "[lid + s];\n";
    KILN_ASSIGN_OR_RETURN(std::string init, ConvertExpr(w.type(n + k), pt[k], w.Load(n + k, "0u")));
    inits.push_back(init);
  }
  publish += "  has_part[lid] = has;\n";
  fold += Decompose("j", red_dims, red_names, "rem_j");
  fold += "      uint src = " + Linear(idx, dims) + ";\n";
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

// reduce: one invocation per output element folds the reduced elements in
// row-major order through the body (a scalar-expression program); reductions
// of many elements (or of a size unknown at compile time) use a work group
// per output element instead (ReduceGroup).
StatusOr<ShaderSource> Reduce(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const ScalarProgram* prog = kp.Program("body");
  const size_t n = u.out_types.size();
  if (!prog || n == 0 || u.in_types.size() != 2 * n || prog->param_types.size() != 2 * n ||
      prog->results.size() != n)
    return Refuse(u, "malformed reduce");
  const int r = w.rank(0);
  bool same_types = true;
  for (size_t k = 0; k < n; ++k) same_types = same_types && prog->param_types[k] == prog->param_types[n + k];
  const int64_t reduced_count = StaticReducedCount(kp, u);
  if (same_types && (reduced_count < 0 || reduced_count >= 256)) return ReduceGroup(kp, u, w);
  std::vector<bool> reduced(r, false);
  for (int64_t d : kp.Ints("dimensions")) {
    if (d < 0 || d >= r || reduced[d]) return Refuse(u, "bad dimensions");
    reduced[d] = true;
  }
  auto dims = DimsOf(w, 0);
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
    KILN_ASSIGN_OR_RETURN(GType it, GlslType(u.in_types[n + k]));
    KILN_ASSIGN_OR_RETURN(std::string init, ConvertExpr(it, pt[k], w.Load(n + k, "0u")));
    s += "  " + pt[k].name + " acc" + S(static_cast<int64_t>(k)) + " = " + init + ";\n";
    params.push_back("acc" + S(static_cast<int64_t>(k)));
  }
  std::string count = "1u";
  for (const auto& d : red_dims) count += " * " + d;
  s += "  uint count = " + count + ";\n  for (uint j = 0u; j < count; ++j) {\n";
  s += Decompose("j", red_dims, red_names, "rem_j");
  std::string lin = Linear(idx, dims);
  s += "  uint src = " + lin + ";\n";
  for (size_t k = 0; k < n; ++k) {
    if (w.rank(k) != r) return Refuse(u, "operand ranks differ");
    KILN_ASSIGN_OR_RETURN(GType it, GlslType(u.in_types[k]));
    KILN_ASSIGN_OR_RETURN(std::string x, ConvertExpr(it, pt[n + k], w.Load(k, "src")));
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
  s += "  }\n";
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

// sort: one invocation per 1-D slice along `dimension` copies the slice to
// the results and insertion-sorts it there (stable: an element moves before
// another only when comparator(it, other) holds). O(n^2) per slice.
StatusOr<ShaderSource> Sort(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const ScalarProgram* cmp = kp.Program("comparator");
  const size_t n = u.in_types.size();
  if (!cmp || n == 0 || u.out_types.size() != n || cmp->param_types.size() != 2 * n || cmp->results.size() != 1 ||
      cmp->ValueType(cmp->results[0]) != ElementType::kI1)
    return Refuse(u, "malformed sort");
  const int r = w.rank(0);
  int64_t dim = kp.Int("dimension", -1);
  if (dim < 0) dim += r;
  if (dim < 0 || dim >= r) return Refuse(u, "bad dimension");
  for (size_t k = 0; k < n; ++k)
    if (u.in_types[k] != u.out_types[k] || cmp->param_types[2 * k] != u.in_types[k] ||
        cmp->param_types[2 * k + 1] != u.in_types[k] || w.rank(k) != r || w.rank(w.Out(k)) != r)
      return Refuse(u, "operand, result and comparator types differ");
  std::string fn = "bool kiln_less(";
  std::vector<std::string> params;
  for (size_t k = 0; k < n; ++k) {
    const GType& g = w.type(k);
    std::string a = "a" + S(static_cast<int64_t>(k)), b = "b" + S(static_cast<int64_t>(k));
    fn += (k ? ", " : "") + g.name + " " + a + ", " + g.name + " " + b;
    params.push_back(a);
    params.push_back(b);
  }
  std::string code;
  std::vector<std::string> results;
  KILN_RETURN_IF_ERROR(EmitScalarProgram(*cmp, params, "v", &code, &results, &w.features));
  fn += ") {\n" + code + "  return " + results[0] + ";\n}\n";
  auto dims = DimsOf(w, 0);
  std::vector<std::string> outer_dims, outer_names, idx(r);
  for (int d = 0; d < r; ++d) {
    if (d == dim) {
      idx[d] = "0u";
      continue;
    }
    outer_dims.push_back(dims[d]);
    outer_names.push_back("o" + S(d));
    idx[d] = "o" + S(d);
  }
  std::string stride = "1u";
  for (int d = static_cast<int>(dim) + 1; d < r; ++d) stride += " * " + dims[d];
  std::string s = "  uint len = " + dims[dim] + ";\n  if (len == 0u || i >= p[0] / len) return;\n";
  s += Decompose("i", outer_dims, outer_names, "rem_o");
  s += "  uint base = " + Linear(idx, dims) + ", stride = " + stride + ";\n";
  s += "  for (uint j = 0u; j < len; ++j) {\n";
  for (size_t k = 0; k < n; ++k)
    s += "    " + w.Store(w.Out(k), "base + j * stride", w.Load(k, "base + j * stride")) + "\n";
  s += "  }\n  for (uint j = 1u; j < len; ++j) {\n";
  std::string key_args, cur_args;
  for (size_t k = 0; k < n; ++k) {
    std::string K = S(static_cast<int64_t>(k));
    s += "    " + w.type(k).name + " key" + K + " = " + w.Load(w.Out(k), "base + j * stride") + ";\n";
  }
  s += "    uint at = j;\n    while (at > 0u) {\n      uint prev = base + (at - 1u) * stride;\n";
  std::string args;
  for (size_t k = 0; k < n; ++k) {
    std::string K = S(static_cast<int64_t>(k));
    args += (k ? ", " : "") + std::string("key") + K + ", " + w.Load(w.Out(k), "prev");
  }
  s += "      if (!kiln_less(" + args + ")) break;\n";
  for (size_t k = 0; k < n; ++k)
    s += "      " + w.Store(w.Out(k), "base + at * stride", w.Load(w.Out(k), "prev")) + "\n";
  s += "      --at;\n    }\n";
  for (size_t k = 0; k < n; ++k)
    s += "    " + w.Store(w.Out(k), "base + at * stride", "key" + S(static_cast<int64_t>(k))) + "\n";
  s += "  }\n";
  return w.Finish(fn + Fill(Template("per_element.glsl"), {{"BODY", s}}), 64);
}

}  // namespace kiln::compiler::vulkan

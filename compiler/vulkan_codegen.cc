// The shader header (bindings, per-tensor load/store helpers) and the
// shaders of each kernel family, from the templates in kernels/vulkan/.
#include "compiler/vulkan_codegen.h"

#include <algorithm>
#include <map>

namespace kiln::compiler::vulkan {
namespace {

using C = GType::Class;

std::string S(int64_t v) { return std::to_string(v); }
std::string Uint(int64_t v) { return std::to_string(v) + "u"; }

// Replaces every "$KEY" of `text` (longer keys first, so $T never eats $TRANSPOSED).
std::string Fill(std::string text, const std::map<std::string, std::string>& values) {
  std::vector<std::pair<std::string, std::string>> order(values.begin(), values.end());
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [k, v] : order) {
    std::string key = "$" + k;
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + v.size()))
      text.replace(at, key.size(), v);
  }
  return text;
}

std::string SigType(const DispatchUse& u) {
  std::string s;
  auto add = [&](ElementType t) {
    std::string n(Name(t));
    if (s.find(n) == std::string::npos) s += (s.empty() ? "" : ",") + n;
  };
  for (auto t : u.in_types) add(t);
  for (auto t : u.out_types) add(t);
  return s;
}

Status Refuse(const DispatchUse& u, const std::string& why) {
  return Unimplemented(u.op + " (" + SigType(u) + ") is not supported by the vulkan target: " + why);
}

// GLSL that splits linear index `linear` over `dims` (row-major) into the
// variables named by `names` (one per dim; "" for a dim not needed).
std::string Decompose(const std::string& linear, const std::vector<std::string>& dims,
                      const std::vector<std::string>& names, const std::string& tmp) {
  if (dims.empty()) return "";
  std::string s = "  uint " + tmp + " = " + linear + ";\n";
  for (size_t k = dims.size(); k-- > 0;) {
    if (k == 0) {
      s += "  uint " + names[k] + " = " + tmp + ";\n";
    } else {
      s += "  uint " + names[k] + " = " + tmp + " % " + dims[k] + ";\n";
      s += "  " + tmp + " /= " + dims[k] + ";\n";
    }
  }
  return s;
}

// Row-major linear index of multi-index `idx` in a tensor of `dims`.
std::string Linear(const std::vector<std::string>& idx, const std::vector<std::string>& dims) {
  if (idx.empty()) return "0u";
  std::string s = idx[0];
  for (size_t k = 1; k < idx.size(); ++k) s = "(" + s + ") * " + dims[k] + " + " + idx[k];
  return s;
}

std::vector<std::string> DimsOf(const ShaderWriter& w, size_t t) {
  std::vector<std::string> d;
  for (int k = 0; k < w.rank(t); ++k) d.push_back(w.Dim(t, k));
  return d;
}

std::vector<std::string> Names(const std::string& prefix, size_t n) {
  std::vector<std::string> v;
  for (size_t k = 0; k < n; ++k) v.push_back(prefix + S(static_cast<int64_t>(k)));
  return v;
}

// The output's multi-index o0..oR-1 of invocation i.
std::string OutputIndex(const ShaderWriter& w) {
  size_t out = w.Out(0);
  return Decompose("i", DimsOf(w, out), Names("o", w.rank(out)), "rem_o");
}

ShaderSource PerElement(ShaderWriter& w, const std::string& body) {
  return w.Finish(Fill(Template("per_element.glsl"), {{"BODY", body}}), 64);
}

// --- kernels -----------------------------------------------------------------

// GLSL expressions reading dispatch inputs [first, first + types.size()) as
// program params of `types` for output invocation "i" (kernels/reference/
// elementwise_inputs.h): at that index, at the only element (rank 0), or,
// with an axis map (per input: rank r, then r output axes; "input_broadcast"),
// through it, a size-1 dimension repeating along its axis. The map needs the
// output multi-index o0..oR-1 declared (OutputIndex).
Status ReadInputs(const DispatchUse& u, ShaderWriter& w, std::span<const int64_t> map, size_t first,
                  const std::vector<ElementType>& types, std::vector<std::string>* params) {
  const int out_rank = w.rank(w.Out(0));
  auto o = Names("o", out_rank);
  size_t at = 0;
  for (size_t j = 0; j < types.size(); ++j) {
    const size_t t = first + j;
    if (t >= u.in_types.size() || u.in_types[t] != types[j]) return Refuse(u, "operand types do not match the body");
    if (map.empty()) {
      params->push_back(w.Load(t, w.rank(t) == out_rank ? "i" : "0u"));
      continue;
    }
    if (at >= map.size() || map[at] != w.rank(t) || at + 1 + map[at] > map.size())
      return Refuse(u, "input_broadcast does not match the operands");
    auto dims = DimsOf(w, t);
    std::vector<std::string> idx;
    for (int64_t d = 0; d < map[at]; ++d) {
      int64_t axis = map[at + 1 + d];
      if (axis < 0 || axis >= out_rank) return Refuse(u, "input_broadcast names an axis out of range");
      idx.push_back("(" + dims[d] + " == 1u ? 0u : " + o[axis] + ")");
    }
    at += 1 + map[at];
    params->push_back(w.Load(t, idx.empty() ? "0u" : Linear(idx, dims)));
  }
  if (!map.empty() && at != map.size()) return Refuse(u, "input_broadcast does not match the operands");
  return Status::Ok();
}

StatusOr<ShaderSource> Elementwise(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const ScalarProgram* prog = kp.Program("body");
  if (!prog) return Refuse(u, "missing body");
  if (prog->param_types.size() != u.in_types.size() || prog->results.size() != u.out_types.size())
    return Refuse(u, "operands do not match the body");
  auto map = kp.Ints("input_broadcast");
  std::string body = map.empty() ? "" : OutputIndex(w);
  std::vector<std::string> params;
  KILN_RETURN_IF_ERROR(ReadInputs(u, w, map, 0, prog->param_types, &params));
  std::vector<std::string> results;
  KILN_RETURN_IF_ERROR(EmitScalarProgram(*prog, params, "v", &body, &results, &w.features));
  for (size_t k = 0; k < results.size(); ++k) body += "  " + w.Store(w.Out(k), "i", results[k]) + "\n";
  return PerElement(w, body);
}

// How a producer (dot_general, convolution) stores its result `value` at
// output index "i": directly, or through its fused epilogue (kernels/
// reference/epilogue.h), whose other params are the dispatch inputs from
// `first_extra` on. `declare_index` declares the output multi-index the
// epilogue's axis map needs (the producer has not).
StatusOr<std::string> StoreResult(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w, size_t first_extra,
                                  const std::string& value, bool declare_index) {
  const size_t out = w.Out(0);
  const ScalarProgram* prog = kp.Program("epilogue");
  if (prog == nullptr) {
    if (u.in_types.size() != first_extra) return Refuse(u, "unexpected operands");
    return w.Store(out, "i", value);
  }
  if (prog->param_types.empty() || prog->results.size() != 1 ||
      prog->param_types.size() != u.in_types.size() - first_extra + 1 || prog->param_types[0] != u.out_types[0])
    return Refuse(u, "the epilogue does not match the operands");
  auto map = kp.Ints("epilogue_broadcast");
  std::string code;
  std::span<const int64_t> extra_map;
  if (!map.empty()) {
    const int64_t rank = w.rank(out);
    if (map[0] != rank || map.size() < static_cast<size_t>(rank) + 1) return Refuse(u, "bad epilogue_broadcast");
    for (int64_t a = 0; a < rank; ++a)
      if (map[1 + a] != a) return Refuse(u, "bad epilogue_broadcast");
    extra_map = map.subspan(static_cast<size_t>(rank) + 1);
    if (declare_index) code += OutputIndex(w);
  }
  std::vector<std::string> params = {"(" + value + ")"};
  std::vector<ElementType> extra(prog->param_types.begin() + 1, prog->param_types.end());
  KILN_RETURN_IF_ERROR(ReadInputs(u, w, extra_map, first_extra, extra, &params));
  std::vector<std::string> results;
  KILN_RETURN_IF_ERROR(EmitScalarProgram(*prog, params, "e", &code, &results, &w.features));
  return code + "  " + w.Store(out, "i", results[0]);
}

// Kernels that compute each output element from one input element (or a
// value): the body maps the output index o* to a source.
StatusOr<ShaderSource> IndexMap(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const std::string& k = kp.kernel;
  const size_t out = w.Out(0);
  const int r = w.rank(out);
  auto o = Names("o", r);
  std::string body = OutputIndex(w);
  auto in_dims = u.in_types.empty() ? std::vector<std::string>() : DimsOf(w, 0);
  auto copy_from = [&](size_t t, const std::vector<std::string>& idx) {
    return "  " + w.Store(out, "i", w.Load(t, Linear(idx, DimsOf(w, t)))) + "\n";
  };
  static const char* const kKnown[] = {"kiln.copy", "stablehlo.reshape", "stablehlo.dynamic_reshape",
                                      "stablehlo.broadcast_in_dim", "stablehlo.dynamic_broadcast_in_dim",
                                      "stablehlo.transpose", "stablehlo.slice", "stablehlo.reverse", "stablehlo.pad",
                                      "stablehlo.concatenate", "stablehlo.iota", "stablehlo.dynamic_iota",
                                      "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice"};
  if (std::find(std::begin(kKnown), std::end(kKnown), k) == std::end(kKnown))
    return Refuse(u, "no shader for kernel " + k + " yet");
  if (u.out_types.size() != 1) return Refuse(u, "expected one result");
  if (k == "stablehlo.dynamic_iota") {
    // The shape operand only restates the result's dimensions.
    int64_t dim = kp.Int("iota_dimension", -1);
    if (dim < 0 || dim >= r) return Refuse(u, "bad iota_dimension");
    KILN_ASSIGN_OR_RETURN(GType from, GlslType(ElementType::kUI32));
    KILN_ASSIGN_OR_RETURN(std::string v, ConvertExpr(from, w.type(out), o[dim]));
    return PerElement(w, body + "  " + w.Store(out, "i", v) + "\n");
  }
  if (k != "stablehlo.iota" && (u.in_types.empty() || u.in_types[0] != u.out_types[0]))
    return Refuse(u, "operand and result types differ");
  // A start index (rank-0 integer tensor `t`) clamped to [0, limit], as uint.
  auto start = [&](size_t t, const std::string& limit) -> StatusOr<std::string> {
    if (w.rank(t) != 0) return Refuse(u, "start indices must be rank 0");
    const GType& g = w.type(t);
    std::string v = w.Load(t, "0u");
    if (g.cls == C::kUnsigned) return "uint(min(" + v + ", " + g.name + "(" + limit + ")))";
    if (g.cls == C::kSigned)
      return "uint(clamp(" + v + ", " + g.name + "(0), " + g.name + "(" + limit + ")))";
    return Refuse(u, "non-integer start indices");
  };
  if (k == "stablehlo.dynamic_slice") {
    if (static_cast<int>(u.in_types.size()) != 1 + r || w.rank(0) != r) return Refuse(u, "bad operands");
    std::string s = body;
    std::vector<std::string> idx;
    for (int d = 0; d < r; ++d) {
      KILN_ASSIGN_OR_RETURN(std::string st, start(1 + d, in_dims[d] + " - " + w.Dim(out, d)));
      s += "  uint s" + S(d) + " = " + st + ";\n";
      idx.push_back("(s" + S(d) + " + " + o[d] + ")");
    }
    return PerElement(w, s + copy_from(0, idx));
  }
  if (k == "stablehlo.dynamic_update_slice") {
    if (static_cast<int>(u.in_types.size()) != 2 + r || w.rank(0) != r || w.rank(1) != r || u.in_types[1] != u.out_types[0])
      return Refuse(u, "bad operands");
    auto upd_dims = DimsOf(w, 1);
    std::string s = body + "  bool inside = true;\n";
    std::vector<std::string> idx;
    for (int d = 0; d < r; ++d) {
      KILN_ASSIGN_OR_RETURN(std::string st, start(2 + d, in_dims[d] + " - " + upd_dims[d]));
      s += "  uint s" + S(d) + " = " + st + ";\n";
      s += "  if (" + o[d] + " < s" + S(d) + " || " + o[d] + " - s" + S(d) + " >= " + upd_dims[d] + ") inside = false;\n";
      idx.push_back("(" + o[d] + " - s" + S(d) + ")");
    }
    s += "  if (inside) " + w.Store(out, "i", w.Load(1, Linear(idx, upd_dims))) + "\n";
    s += "  else " + w.Store(out, "i", w.Load(0, "i")) + "\n";
    return PerElement(w, s);
  }
  if (k == "kiln.copy" || k == "stablehlo.reshape" || k == "stablehlo.dynamic_reshape") {
    return PerElement(w, "  " + w.Store(out, "i", w.Load(0, "i")) + "\n");
  }
  if (k == "stablehlo.broadcast_in_dim" || k == "stablehlo.dynamic_broadcast_in_dim") {
    auto bd = kp.Ints("broadcast_dimensions");
    if (static_cast<int>(bd.size()) != w.rank(0)) return Refuse(u, "bad broadcast_dimensions");
    std::vector<std::string> idx;
    for (size_t d = 0; d < bd.size(); ++d) {
      if (bd[d] < 0 || bd[d] >= r) return Refuse(u, "bad broadcast_dimensions");
      idx.push_back("(" + in_dims[d] + " == 1u ? 0u : " + o[bd[d]] + ")");
    }
    return PerElement(w, body + copy_from(0, idx));
  }
  if (k == "stablehlo.transpose") {
    auto perm = kp.Ints("permutation");
    if (static_cast<int>(perm.size()) != r || w.rank(0) != r) return Refuse(u, "bad permutation");
    std::vector<std::string> idx(r);
    for (int d = 0; d < r; ++d) {
      if (perm[d] < 0 || perm[d] >= r) return Refuse(u, "bad permutation");
      idx[perm[d]] = o[d];
    }
    return PerElement(w, body + copy_from(0, idx));
  }
  if (k == "stablehlo.slice") {
    auto start = kp.Ints("start_indices");
    auto strides = kp.Ints("strides");
    if (static_cast<int>(start.size()) != r) return Refuse(u, "bad start_indices");
    std::vector<std::string> idx;
    for (int d = 0; d < r; ++d) {
      int64_t st = d < static_cast<int>(strides.size()) ? strides[d] : 1;
      if (start[d] < 0 || st < 1 || start[d] > UINT32_MAX || st > UINT32_MAX) return Refuse(u, "bad slice");
      idx.push_back("(" + Uint(start[d]) + " + " + o[d] + " * " + Uint(st) + ")");
    }
    return PerElement(w, body + copy_from(0, idx));
  }
  if (k == "stablehlo.reverse") {
    std::vector<bool> rev(r, false);
    for (int64_t d : kp.Ints("dimensions")) {
      if (d < 0 || d >= r) return Refuse(u, "bad dimensions");
      rev[d] = true;
    }
    std::vector<std::string> idx;
    for (int d = 0; d < r; ++d) idx.push_back(rev[d] ? "(" + in_dims[d] + " - 1u - " + o[d] + ")" : o[d]);
    return PerElement(w, body + copy_from(0, idx));
  }
  if (k == "stablehlo.pad") {
    auto lo = kp.Ints("edge_padding_low");
    auto interior = kp.Ints("interior_padding");
    if (static_cast<int>(lo.size()) != r || u.in_types.size() != 2) return Refuse(u, "bad padding");
    std::string s = body + "  bool inside = true;\n";
    std::vector<std::string> idx;
    for (int d = 0; d < r; ++d) {
      int64_t step = 1 + (d < static_cast<int>(interior.size()) ? interior[d] : 0);
      if (step < 1 || lo[d] < INT32_MIN || lo[d] > INT32_MAX || step > INT32_MAX) return Refuse(u, "bad padding");
      std::string q = "q" + S(d);
      s += "  int " + q + " = int(" + o[d] + ") - (" + S(lo[d]) + ");\n";
      s += "  if (" + q + " < 0 || " + q + " % " + S(step) + " != 0 || uint(" + q + " / " + S(step) + ") >= " +
           in_dims[d] + ") inside = false;\n";
      idx.push_back("uint(" + q + " / " + S(step) + ")");
    }
    s += "  if (inside) " + w.Store(out, "i", w.Load(0, Linear(idx, in_dims))) + "\n";
    s += "  else " + w.Store(out, "i", w.Load(1, "0u")) + "\n";
    return PerElement(w, s);
  }
  if (k == "stablehlo.concatenate") {
    int64_t dim = kp.Int("dimension", -1);
    if (dim < 0 || dim >= r) return Refuse(u, "bad dimension");
    std::string s = body + "  uint c = " + o[dim] + ";\n";
    for (size_t t = 0; t < u.in_types.size(); ++t) {
      if (u.in_types[t] != u.out_types[0] || w.rank(t) != r) return Refuse(u, "operand types differ");
      auto dims = DimsOf(w, t);
      std::vector<std::string> idx = o;
      idx[dim] = "c";
      s += "  if (c < " + dims[dim] + ") { " + w.Store(out, "i", w.Load(t, Linear(idx, dims))) + " return; }\n";
      s += "  c -= " + dims[dim] + ";\n";
    }
    return PerElement(w, s);
  }
  if (k == "stablehlo.iota") {
    int64_t dim = kp.Int("iota_dimension", -1);
    if (dim < 0 || dim >= r) return Refuse(u, "bad iota_dimension");
    KILN_ASSIGN_OR_RETURN(GType from, GlslType(ElementType::kUI32));
    KILN_ASSIGN_OR_RETURN(std::string v, ConvertExpr(from, w.type(out), o[dim]));
    return PerElement(w, body + "  " + w.Store(out, "i", v) + "\n");
  }
  return Refuse(u, "no shader for kernel " + k + " yet");  // unreachable: kKnown lists the cases above
}

// dot_general / dot: 16x16 output tiles per work group, operand tiles staged
// in shared memory. The output is viewed as [B, M, N]: batch dims, lhs free
// dims, rhs free dims (the spec's result order).
StatusOr<ShaderSource> DotGeneral(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() < 2 || u.out_types.size() != 1) return Refuse(u, "expected two operands and one result");
  const int lr = w.rank(0), rr = w.rank(1);
  std::vector<int64_t> lb, rb, lc, rc;
  if (kp.kernel == "stablehlo.dot") {
    if (lr < 1 || lr > 2 || rr < 1 || rr > 2) return Refuse(u, "dot of this rank");
    lc = {lr - 1};
    rc = {0};
  } else {
    auto get = [&](const char* n) {
      auto s = kp.Ints(n);
      return std::vector<int64_t>(s.begin(), s.end());
    };
    lb = get("lhs_batching_dimensions");
    rb = get("rhs_batching_dimensions");
    lc = get("lhs_contracting_dimensions");
    rc = get("rhs_contracting_dimensions");
  }
  if (lb.size() != rb.size() || lc.size() != rc.size()) return Refuse(u, "bad dimension numbers");
  std::vector<bool> lseen(lr, false), rseen(rr, false);
  for (auto* v : {&lb, &lc})
    for (int64_t d : *v) {
      if (d < 0 || d >= lr || lseen[d]) return Refuse(u, "bad dimension numbers");
      lseen[d] = true;
    }
  for (auto* v : {&rb, &rc})
    for (int64_t d : *v) {
      if (d < 0 || d >= rr || rseen[d]) return Refuse(u, "bad dimension numbers");
      rseen[d] = true;
    }
  std::vector<int64_t> lfree, rfree;
  for (int d = 0; d < lr; ++d)
    if (!lseen[d]) lfree.push_back(d);
  for (int d = 0; d < rr; ++d)
    if (!rseen[d]) rfree.push_back(d);
  const size_t out = w.Out(0);
  if (w.rank(out) != static_cast<int>(lb.size() + lfree.size() + rfree.size())) return Refuse(u, "bad result rank");
  const GType& rt = w.type(out);
  if (rt.cls == C::kBool) return Refuse(u, "boolean dot products");
  if (rt.cls == C::kComplex) return Refuse(u, "complex dot products");
  // Accumulate f16/bf16 in f32; round once at the end.
  const std::string acc = rt.name;
  auto ldims = DimsOf(w, 0), rdims = DimsOf(w, 1);
  auto product = [&](const std::vector<std::string>& dims, const std::vector<int64_t>& which) {
    std::string s = "1u";
    for (int64_t d : which) s += " * " + dims[d];
    return s;
  };
  // lhs element (b, m, k) and rhs element (b, k, n) as functions.
  auto at = [&](size_t t, const std::vector<std::string>& dims, const std::vector<int64_t>& batch,
                const std::vector<int64_t>& free, const std::vector<int64_t>& contract, bool free_first) {
    std::string f = acc + " at" + S(static_cast<int64_t>(t)) + "(uint b, uint x, uint y) {\n";
    std::vector<std::string> idx(dims.size());
    auto split = [&](const std::string& var, const std::vector<int64_t>& which, const std::string& tag) {
      std::vector<std::string> ds, ns;
      for (int64_t d : which) {
        ds.push_back(dims[d]);
        ns.push_back(tag + S(d));
        idx[d] = tag + S(d);
      }
      f += Decompose(var, ds, ns, "r" + tag);
    };
    split("b", batch, "b");
    split(free_first ? "x" : "y", free, "f");
    split(free_first ? "y" : "x", contract, "c");
    GType from = w.type(t);
    auto conv = ConvertExpr(from, rt, w.Load(t, Linear(idx, dims)));
    f += "  return " + (conv.ok() ? *conv : std::string("0")) + ";\n}\n";
    return f;
  };
  std::string fns = at(0, ldims, lb, lfree, lc, true) + at(1, rdims, rb, rfree, rc, false);
  std::string zero = rt.cls == C::kFloat ? (rt.name == "double" ? "0.0lf" : "0.0") : (rt.is_64() ? rt.name + "(0)" : rt.name + "(0)");
  std::string fix = rt.cls == C::kFloat ? (rt.type == ElementType::kF16 ? "kiln_round_f16(acc)"
                                           : rt.type == ElementType::kBF16 ? "kiln_round_bf16(acc)" : "acc")
                                        : (rt.bits < 32 ? (rt.cls == C::kSigned ? "bitfieldExtract(acc, 0, " + S(rt.bits) + ")"
                                                                                 : "(acc & " + Uint((int64_t{1} << rt.bits) - 1) + ")")
                                                        : "acc");
  for (size_t t = 0; t < 2; ++t) {
    KILN_ASSIGN_OR_RETURN(GType g, GlslType(u.in_types[t]));
    if (!ConvertExpr(g, rt, "x").ok()) return Refuse(u, "operand conversion");
    w.features |= g.features;
  }
  KILN_ASSIGN_OR_RETURN(std::string store, StoreResult(kp, u, w, 2, fix, true));
  std::string body = Fill(Template("dot_general.glsl"),
                          {{"ACC", acc},
                           {"ZERO", zero},
                           {"FUNCTIONS", fns},
                           {"M", product(ldims, lfree)},
                           {"N", product(rdims, rfree)},
                           {"K", product(ldims, lc)},
                           {"STORE", "const uint i = (b * M + m) * N + n;\n" + store}});
  ShaderSource s = w.Finish(body, 16, 16);
  s.grid = hal::ShaderGrid::kTiles;
  s.grid_args = {static_cast<uint32_t>(lb.size()), static_cast<uint32_t>(lfree.size()), 16, 16};
  return s;
}

// The number of reduced elements of a reduce dispatch when its input shape
// is static, else -1.
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

// triangular_solve (real types): see kernels/vulkan/triangular_solve.glsl.
StatusOr<ShaderSource> TriangularSolve(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 2 || u.out_types.size() != 1) return Refuse(u, "expected two operands and one result");
  const int r = w.rank(0);
  if (r < 2 || w.rank(1) != r || w.rank(2) != r) return Refuse(u, "bad ranks");
  for (size_t t = 0; t < 3; ++t)
    if (w.type(t).cls != C::kFloat) return Refuse(u, "non-float operands");
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

// convolution / dynamic_conv: see kernels/vulkan/convolution.glsl.
StatusOr<ShaderSource> Convolution(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const bool dynamic = kp.kernel == "stablehlo.dynamic_conv";
  const size_t operands = dynamic ? 3u : 2u;
  if (u.in_types.size() < operands || u.out_types.size() != 1) return Refuse(u, "bad operands");
  const int n = w.rank(0);
  const size_t out = w.Out(0);
  if (n < 2 || w.rank(1) != n || w.rank(out) != n) return Refuse(u, "bad ranks");
  const int ns = n - 2;
  auto ints = [&](const char* name, int64_t fallback) {
    auto v = kp.Ints(name);
    std::vector<int64_t> r(v.begin(), v.end());
    if (r.empty()) r.assign(ns, fallback);
    return r;
  };
  auto strides = ints("window_strides", 1), lhs_dil = ints("lhs_dilation", 1), rhs_dil = ints("rhs_dilation", 1),
       reversal = ints("window_reversal", 0);
  auto padding = ints("padding", 0);
  if (!dynamic && padding.size() == static_cast<size_t>(ns)) padding.assign(2 * ns, 0);
  auto isp = ints("input_spatial_dimensions", 0), ksp = ints("kernel_spatial_dimensions", 0),
       osp = ints("output_spatial_dimensions", 0);
  if (static_cast<int>(strides.size()) != ns || static_cast<int>(lhs_dil.size()) != ns ||
      static_cast<int>(rhs_dil.size()) != ns || static_cast<int>(reversal.size()) != ns ||
      static_cast<int>(isp.size()) != ns || static_cast<int>(ksp.size()) != ns || static_cast<int>(osp.size()) != ns ||
      (!dynamic && static_cast<int>(padding.size()) != 2 * ns))
    return Refuse(u, "bad window attributes");
  const int64_t ib = kp.Int("input_batch_dimension"), ifd = kp.Int("input_feature_dimension");
  const int64_t kif = kp.Int("kernel_input_feature_dimension"), kof = kp.Int("kernel_output_feature_dimension");
  const int64_t ob = kp.Int("output_batch_dimension"), ofd = kp.Int("output_feature_dimension");
  const int64_t fgc = kp.Int("feature_group_count", 1), bgc = kp.Int("batch_group_count", 1);
  auto in_range = [&](int64_t d) { return d >= 0 && d < n; };
  for (int64_t d : {ib, ifd, kif, kof, ob, ofd})
    if (!in_range(d)) return Refuse(u, "bad dimension numbers");
  for (int s = 0; s < ns; ++s)
    if (!in_range(isp[s]) || !in_range(ksp[s]) || !in_range(osp[s]) || strides[s] < 1 || lhs_dil[s] < 1 ||
        rhs_dil[s] < 1 || strides[s] > INT32_MAX || lhs_dil[s] > INT32_MAX || rhs_dil[s] > INT32_MAX)
      return Refuse(u, "bad window attributes");
  if (fgc < 1 || bgc < 1 || fgc > INT32_MAX || bgc > INT32_MAX) return Refuse(u, "bad group counts");
  const GType& rt = w.type(out);
  if (rt.cls == C::kBool || rt.cls == C::kComplex) return Refuse(u, "boolean or complex convolutions");
  KILN_ASSIGN_OR_RETURN(std::string la, ConvertExpr(w.type(0), rt, w.Load(0, "i")));
  KILN_ASSIGN_OR_RETURN(std::string ra, ConvertExpr(w.type(1), rt, w.Load(1, "i")));
  for (size_t t = 0; t < 2; ++t) w.features |= w.type(t).features;
  std::string fns = rt.name + " lhs_at(uint i) { return " + la + "; }\n" + rt.name + " rhs_at(uint i) { return " + ra +
                    "; }\n";
  auto ldims = DimsOf(w, 0), rdims = DimsOf(w, 1), odims = DimsOf(w, out);
  auto o = Names("o", n);
  std::vector<std::string> lidx(n), ridx(n);
  lidx[ib] = "lhs_batch";
  lidx[ifd] = "(feat_base + f)";
  ridx[kof] = "o_f";
  ridx[kif] = "f";
  std::string taps, close;
  std::string indent = "  ";
  for (int s = 0; s < ns; ++s) {
    std::string k = "k" + S(s), pos = "pos" + S(s);
    std::string kd = rdims[ksp[s]];
    std::string tap = reversal[s] ? "(int(" + kd + ") - 1 - int(" + k + "))" : "int(" + k + ")";
    std::string lo;
    if (dynamic) {
      const GType& pg = w.type(2);
      if (pg.cls != C::kSigned && pg.cls != C::kUnsigned) return Refuse(u, "non-integer padding");
      lo = "int(" + w.Load(2, Uint(2 * s)) + ")";
    } else {
      if (padding[2 * s] < INT32_MIN || padding[2 * s] > INT32_MAX) return Refuse(u, "bad padding");
      lo = "(" + S(padding[2 * s]) + ")";
    }
    taps += indent + "for (uint " + k + " = 0u; " + k + " < " + kd + "; ++" + k + ") {\n";
    indent += "  ";
    taps += indent + "int " + pos + " = int(" + o[osp[s]] + ") * " + S(strides[s]) + " + " + tap + " * " + S(rhs_dil[s]) +
            " - " + lo + ";\n";
    taps += indent + "if (" + pos + " < 0 || " + pos + " % " + S(lhs_dil[s]) + " != 0 || uint(" + pos + " / " +
            S(lhs_dil[s]) + ") >= " + ldims[isp[s]] + ") continue;\n";
    lidx[isp[s]] = "uint(" + pos + " / " + S(lhs_dil[s]) + ")";
    ridx[ksp[s]] = k;
    close = indent.substr(2) + "}\n" + close;
  }
  taps += indent + "for (uint f = 0u; f < k_in; ++f) acc += lhs_at(" + Linear(lidx, ldims) + ") * rhs_at(" +
          Linear(ridx, rdims) + ");\n" + close;
  std::string fix = rt.cls == C::kFloat ? (rt.type == ElementType::kF16 ? "kiln_round_f16(acc)"
                                           : rt.type == ElementType::kBF16 ? "kiln_round_bf16(acc)" : "acc")
                                        : (rt.bits < 32 ? (rt.cls == C::kSigned ? "bitfieldExtract(acc, 0, " + S(rt.bits) + ")"
                                                                                 : "(acc & " + Uint((int64_t{1} << rt.bits) - 1) + ")")
                                                        : "acc");
  KILN_ASSIGN_OR_RETURN(std::string store, StoreResult(kp, u, w, operands, fix, false));
  std::string body = Fill(Template("convolution.glsl"), {{"FUNCTIONS", fns},
                                                         {"INDEX", OutputIndex(w)},
                                                         {"K_IN", rdims[kif]},
                                                         {"K_OUT", rdims[kof]},
                                                         {"BATCH", ldims[ib]},
                                                         {"FGC", Uint(fgc)},
                                                         {"BGC", Uint(bgc)},
                                                         {"OB", o[ob]},
                                                         {"OF", o[ofd]},
                                                         {"A", rt.name},
                                                         {"TAPS", taps},
                                                         {"STORE", store}});
  return w.Finish(body, 64);
}

// uniform_quantize / uniform_dequantize, per tensor or per axis, in the
// expressed type, step by step as kernels/reference/quantization.cc.
StatusOr<ShaderSource> Quantization(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 1 || u.out_types.size() != 1 || w.rank(0) != w.rank(1)) return Refuse(u, "bad operands");
  const bool dequantize = kp.kernel == "stablehlo.uniform_dequantize";
  const GType& in = w.type(0);
  const GType& out = w.type(1);
  const int r = w.rank(0);
  std::string code;
  int slot_id = 0;
  // The scale and zero point of element i for the parameters under `prefix`
  // of a quantized tensor of type `q`: GLSL constants per slot.
  auto params = [&](const std::string& prefix, const GType& e, std::string* scale, std::string* zp) -> Status {
    const KernelAttr* s = kp.Find(prefix + "scales");
    if (!s || s->floats.empty()) return Refuse(u, "missing scales");
    auto zps = kp.Ints(prefix + "zero_points");
    std::vector<int64_t> z(zps.begin(), zps.end());
    if (z.empty()) z.assign(s->floats.size(), 0);
    if (z.size() != s->floats.size()) return Refuse(u, "scales and zero_points differ in length");
    for (int64_t v : z)
      if (v < INT32_MIN || v > INT32_MAX) return Refuse(u, "zero points beyond 32 bits");
    int64_t axis = kp.Int(prefix + "quantized_dimension", -1);
    std::string slot = "0u";
    std::string id = S(slot_id++);
    if (axis >= 0) {
      if (axis >= r) return Refuse(u, "bad quantized_dimension");
      std::string inner = "1u";
      for (int d = static_cast<int>(axis) + 1; d < r; ++d) inner += " * " + w.Dim(0, d);
      slot = "((i / (" + inner + ")) % " + w.Dim(0, static_cast<int>(axis)) + ")";
    } else if (s->floats.size() != 1) {
      return Refuse(u, "per-tensor quantization needs one scale");
    }
    std::string sc = "const " + e.name + " scales" + id + "[" + S(static_cast<int64_t>(s->floats.size())) + "] = " +
                     e.name + "[](";
    std::string zc = "const int zps" + id + "[" + S(static_cast<int64_t>(z.size())) + "] = int[](";
    for (size_t k = 0; k < z.size(); ++k) {
      sc += (k ? ", " : "") + FloatConst(e, s->floats[k]);
      zc += (k ? ", " : "") + std::string("int(") + S(z[k]) + ")";
    }
    code += "  " + sc + ");\n  " + zc + ");\n  uint slot" + id + " = " + slot + ";\n";
    *scale = "scales" + id + "[slot" + id + "]";
    *zp = "zps" + id + "[slot" + id + "]";
    return Status::Ok();
  };
  auto dequant = [&](const std::string& prefix, const GType& q, const GType& e, const std::string& v) -> StatusOr<std::string> {
    if (q.cls != C::kSigned && q.cls != C::kUnsigned) return Refuse(u, "non-integer quantized storage");
    if (q.bits >= 32) return Refuse(u, "32-bit quantized storage");
    std::string scale, zp;
    KILN_RETURN_IF_ERROR(params(prefix, e, &scale, &zp));
    return RoundTo(e, RoundTo(e, e.name + "(int(" + v + ") - " + zp + ")") + " * " + scale);
  };
  if (dequantize) {
    if (out.cls != C::kFloat) return Refuse(u, "a non-float result");
    KILN_ASSIGN_OR_RETURN(std::string x, dequant("", in, out, w.Load(0, "i")));
    return PerElement(w, code + "  " + w.Store(1, "i", x) + "\n");
  }
  if (out.cls != C::kSigned && out.cls != C::kUnsigned) return Refuse(u, "non-integer quantized storage");
  if (out.bits >= 32) return Refuse(u, "32-bit quantized storage");
  GType e = in;
  std::string x = w.Load(0, "i");
  if (in.cls != C::kFloat) {  // requantize through the expressed type
    std::string et(kp.Str("expressed_type"));
    auto t = ElementTypeFromName(et.empty() ? "f32" : et);
    if (!t) return Refuse(u, "bad expressed_type");
    KILN_ASSIGN_OR_RETURN(e, GlslType(*t));
    if (e.cls != C::kFloat) return Refuse(u, "bad expressed_type");
    KILN_ASSIGN_OR_RETURN(x, dequant("operand_", in, e, x));
  }
  w.features |= e.features;
  std::string scale, zp;
  KILN_RETURN_IF_ERROR(params("", e, &scale, &zp));
  const int64_t bits = out.bits;
  const int64_t lo_default = out.cls == C::kSigned ? -(int64_t{1} << (bits - 1)) : 0;
  const int64_t hi_default = out.cls == C::kSigned ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  const int64_t lo = kp.Int("storage_min", lo_default), hi = kp.Int("storage_max", hi_default);
  if (lo > hi || lo < INT32_MIN || hi > INT32_MAX) return Refuse(u, "bad storage range");
  std::string isnan = e.name == "double" ? "kiln_isnan_d" : "kiln_isnan";
  code += "  " + e.name + " v = " + RoundTo(e, x + " / " + scale) + ";\n";
  code += "  v = " + RoundTo(e, "v + " + e.name + "(" + zp + ")") + ";\n";
  code += "  if (" + isnan + "(v)) v = " + e.name + "(0);\n";
  code += "  v = roundEven(clamp(v, " + FloatConst(e, static_cast<double>(lo)) + ", " +
          FloatConst(e, static_cast<double>(hi)) + "));\n";
  code += "  int q = clamp(int(v), int(" + S(lo) + "), int(" + S(hi) + "));\n";
  code += "  " + w.Store(1, "i", out.name + "(q)") + "\n";
  return PerElement(w, code);
}

// map: the computation per element (operands converted to its parameters).
StatusOr<ShaderSource> Map(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const ScalarProgram* prog = kp.Program("computation");
  if (!prog || prog->param_types.size() != u.in_types.size() || prog->results.size() != 1 || u.out_types.size() != 1)
    return Refuse(u, "malformed map");
  auto dims = kp.Ints("dimensions");
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d] != static_cast<int64_t>(d)) return Refuse(u, "dimensions must be [0, ..., rank-1]");
  std::vector<std::string> params;
  for (size_t t = 0; t < u.in_types.size(); ++t) {
    if (w.rank(t) != w.rank(w.Out(0))) return Refuse(u, "operand ranks differ");
    KILN_ASSIGN_OR_RETURN(GType pt, GlslType(prog->param_types[t]));
    KILN_ASSIGN_OR_RETURN(std::string x, ConvertExpr(w.type(t), pt, w.Load(t, "i")));
    params.push_back(x);
  }
  std::string body;
  std::vector<std::string> results;
  KILN_RETURN_IF_ERROR(EmitScalarProgram(*prog, params, "v", &body, &results, &w.features));
  KILN_ASSIGN_OR_RETURN(GType rt, GlslType(prog->ValueType(prog->results[0])));
  KILN_ASSIGN_OR_RETURN(std::string v, ConvertExpr(rt, w.type(w.Out(0)), results[0]));
  return PerElement(w, body + "  " + w.Store(w.Out(0), "i", v) + "\n");
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

// gather / dynamic_gather: one invocation per result element computes its
// operand index as the spec does (full_start_index clamped to
// [0, dim - slice_size], + full_batching_index + full_window_index).
StatusOr<ShaderSource> Gather(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const bool dynamic = kp.kernel == "stablehlo.dynamic_gather";
  if (u.in_types.size() != (dynamic ? 3u : 2u) || u.out_types.size() != 1 || u.in_types[0] != u.out_types[0])
    return Refuse(u, "bad operands");
  const size_t out = w.Out(0);
  const int R = w.rank(out), r = w.rank(0), ir = w.rank(1);
  auto vec = [&](const char* name) {
    auto v = kp.Ints(name);
    return std::vector<int64_t>(v.begin(), v.end());
  };
  auto offset_dims = vec("offset_dims"), collapsed = vec("collapsed_slice_dims"),
       operand_batching = vec("operand_batching_dims"), indices_batching = vec("start_indices_batching_dims"),
       start_index_map = vec("start_index_map"), slice_sizes = vec("slice_sizes");
  const int64_t ivd = kp.Int("index_vector_dim", -1);
  auto has = [](const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  if (ivd < 0 || ivd > ir || (!dynamic && static_cast<int>(slice_sizes.size()) != r) ||
      operand_batching.size() != indices_batching.size() ||
      static_cast<int>(offset_dims.size() + collapsed.size() + operand_batching.size()) != r)
    return Refuse(u, "bad dimension numbers");
  for (int64_t d : start_index_map)
    if (d < 0 || d >= r) return Refuse(u, "bad start_index_map");
  for (size_t i = 0; i < operand_batching.size(); ++i)
    if (operand_batching[i] < 0 || operand_batching[i] >= r || indices_batching[i] < 0 || indices_batching[i] >= ir ||
        indices_batching[i] == ivd)
      return Refuse(u, "bad batching dims");
  const GType& it = w.type(1);
  if (it.cls != C::kSigned && it.cls != C::kUnsigned) return Refuse(u, "non-integer indices");
  std::vector<int64_t> batch_axes, window_axes;
  for (int d = 0; d < R; ++d)
    if (!has(offset_dims, d)) batch_axes.push_back(d);
  for (int d = 0; d < r; ++d)
    if (!has(collapsed, d) && !has(operand_batching, d)) window_axes.push_back(d);
  if (window_axes.size() != offset_dims.size() || static_cast<int>(batch_axes.size()) != ir - (ivd < ir ? 1 : 0))
    return Refuse(u, "bad dimension numbers");
  for (int64_t d : offset_dims)
    if (d < 0 || d >= R) return Refuse(u, "bad offset_dims");
  auto o = Names("o", R);
  auto odims = DimsOf(w, 0), idims = DimsOf(w, 1);
  std::string s = OutputIndex(w);
  for (int d = 0; d < r; ++d) s += "  int x" + S(d) + " = 0;\n";
  for (size_t k = 0; k < start_index_map.size(); ++k) {
    std::vector<std::string> at;
    for (int d = 0, b = 0; d < ir; ++d) at.push_back(d == ivd ? Uint(static_cast<int64_t>(k)) : o[batch_axes[b++]]);
    const int64_t od = start_index_map[k];
    std::string size = dynamic ? "int(" + w.Load(2, Uint(od)) + ")" : "(" + S(slice_sizes[od]) + ")";
    std::string v = w.Load(1, Linear(at, idims));
    std::string limit = "max(int(" + odims[od] + ") - " + size + ", 0)";
    std::string start = it.cls == C::kUnsigned ? "int(min(" + v + ", " + it.name + "(" + limit + ")))"
                                               : "int(clamp(" + v + ", " + it.name + "(0), " + it.name + "(" + limit + ")))";
    s += "  x" + S(od) + " += " + start + ";\n";
  }
  for (size_t i = 0; i < operand_batching.size(); ++i) {
    int64_t ds = indices_batching[i];
    s += "  x" + S(operand_batching[i]) + " += int(" + o[batch_axes[ds - (ds < ivd ? 0 : 1)]] + ");\n";
  }
  for (size_t k = 0; k < window_axes.size(); ++k)
    s += "  x" + S(window_axes[k]) + " += int(" + o[offset_dims[k]] + ");\n";
  std::vector<std::string> idx;
  std::string inside = "true";
  for (int d = 0; d < r; ++d) {
    idx.push_back("uint(x" + S(d) + ")");
    inside += " && x" + S(d) + " >= 0 && uint(x" + S(d) + ") < " + odims[d];
  }
  KILN_ASSIGN_OR_RETURN(GType u32, GlslType(ElementType::kUI32));
  KILN_ASSIGN_OR_RETURN(std::string zero, ConvertExpr(u32, w.type(out), "0u"));
  // Outside only for size-0 collapsed slices (the CPU device reports an error there).
  s += "  if (" + inside + ") " + w.Store(out, "i", w.Load(0, Linear(idx, odims))) + "\n";
  s += "  else " + w.Store(out, "i", zero) + "\n";
  return PerElement(w, s);
}

// scatter: one invocation per result element starts from the input's
// element and applies, in the reference's order (row-major over the
// updates), every update element whose result index is this element:
// result_index = full_start_index + full_batching_index + full_window_index,
// unclamped; update elements outside the result are skipped. Where the
// update window dims are the trailing dims of the updates, a scatter index
// reaches a given element through at most one window position, so the loop
// runs over the scatter indices; otherwise over every update element.
// No atomics, and duplicate indices give the CPU's results exactly.
StatusOr<ShaderSource> Scatter(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const ScalarProgram* prog = kp.Program("update_computation");
  const size_t n = u.out_types.size();
  if (!prog || n == 0 || u.in_types.size() != 2 * n + 1 || prog->param_types.size() != 2 * n ||
      prog->results.size() != n)
    return Refuse(u, "malformed scatter");
  const size_t ind = n;  // scatter_indices; the updates follow it
  const int r = w.rank(0), ir = w.rank(ind), U = w.rank(n + 1);
  std::vector<GType> pt(n);
  for (size_t k = 0; k < n; ++k) {
    if (w.rank(k) != r || w.rank(w.Out(k)) != r || w.rank(n + 1 + k) != U) return Refuse(u, "operand ranks differ");
    if (u.in_types[k] != u.out_types[k] || u.in_types[n + 1 + k] != u.out_types[k] ||
        prog->param_types[k] != u.out_types[k] || prog->param_types[n + k] != u.out_types[k] ||
        prog->ValueType(prog->results[k]) != u.out_types[k])
      return Refuse(u, "input, update, result and update_computation types differ");
    KILN_ASSIGN_OR_RETURN(pt[k], GlslType(u.out_types[k]));
  }
  auto vec = [&](const char* name) {
    auto v = kp.Ints(name);
    return std::vector<int64_t>(v.begin(), v.end());
  };
  auto uwd = vec("update_window_dims"), inserted = vec("inserted_window_dims"), ib = vec("input_batching_dims"),
       sib = vec("scatter_indices_batching_dims"), sd2od = vec("scatter_dims_to_operand_dims");
  const int64_t ivd = kp.Int("index_vector_dim", -1);
  auto has = [](const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  if (ivd < 0 || ivd > ir || ib.size() != sib.size() ||
      static_cast<int>(uwd.size() + inserted.size() + ib.size()) != r || !std::is_sorted(uwd.begin(), uwd.end()))
    return Refuse(u, "bad dimension numbers");
  for (int64_t d : uwd)
    if (d < 0 || d >= U) return Refuse(u, "bad update_window_dims");
  for (int64_t d : sd2od)
    if (d < 0 || d >= r) return Refuse(u, "bad scatter_dims_to_operand_dims");
  for (size_t k = 0; k < ib.size(); ++k)
    if (ib[k] < 0 || ib[k] >= r || sib[k] < 0 || sib[k] >= ir || sib[k] == ivd) return Refuse(u, "bad batching dims");
  // Operand dims covered by the update window; update dims that index the
  // scatter indices.
  std::vector<int64_t> window_axes, scatter_axes;
  for (int d = 0; d < r; ++d)
    if (!has(inserted, d) && !has(ib, d)) window_axes.push_back(d);
  for (int d = 0; d < U; ++d)
    if (!has(uwd, d)) scatter_axes.push_back(d);
  if (window_axes.size() != uwd.size() || static_cast<int>(scatter_axes.size()) != ir - (ivd < ir ? 1 : 0))
    return Refuse(u, "bad dimension numbers");
  const GType& it = w.type(ind);
  if (it.cls != C::kSigned && it.cls != C::kUnsigned) return Refuse(u, "non-integer indices");
  bool trailing = true;
  for (size_t k = 0; k < uwd.size(); ++k) trailing = trailing && uwd[k] == U - static_cast<int64_t>(uwd.size() - k);

  auto odims = DimsOf(w, 0), idims = DimsOf(w, ind), udims = DimsOf(w, n + 1);
  auto o = Names("o", r);
  std::string s = OutputIndex(w);
  for (size_t k = 0; k < n; ++k)
    s += "  " + pt[k].name + " acc" + S(static_cast<int64_t>(k)) + " = " + w.Load(k, "i") + ";\n";
  // The loop runs over the scatter indices (coordinates s0..) or over every
  // update element (u0..; its scatter coordinates are then sc, its window
  // coordinates wcoord).
  std::vector<std::string> sc, wcoord, loop_dims;
  std::string decompose;
  if (trailing) {
    for (int64_t d : scatter_axes) loop_dims.push_back(udims[d]);
    sc = Names("s", scatter_axes.size());
    decompose = Decompose("t", loop_dims, sc, "rem_t");
  } else {
    loop_dims = udims;
    auto all = Names("u", U);
    decompose = Decompose("t", loop_dims, all, "rem_t");
    for (int64_t d : scatter_axes) sc.push_back(all[d]);
    for (int64_t d : uwd) wcoord.push_back(all[d]);
  }
  std::string count = "1u";
  for (const auto& d : loop_dims) count += " * " + d;
  s += "  uint count = " + count + ";\n";
  s += "  for (uint t = 0u; t < count; ++t) {\n" + decompose;
  s += "    bool hit = true;\n";
  // base[d]: full_start_index + full_batching_index along operand dim d.
  std::vector<std::string> base(r, "0");
  for (size_t j = 0; j < sd2od.size(); ++j) {
    const int64_t od = sd2od[j];
    std::vector<std::string> at;
    for (int dd = 0, b = 0; dd < ir; ++dd) at.push_back(dd == ivd ? Uint(static_cast<int64_t>(j)) : sc[b++]);
    std::string v = w.Load(ind, Linear(at, idims));
    // Clamped to [-window size, dim], which keeps every miss a miss and
    // every value in int range.
    auto wk = std::find(window_axes.begin(), window_axes.end(), od);
    std::string wsize = wk == window_axes.end() ? "1" : "int(" + udims[uwd[wk - window_axes.begin()]] + ")";
    std::string hi = it.name + "(" + odims[od] + ")";
    std::string start = it.cls == C::kUnsigned
                            ? "int(min(" + v + ", " + hi + "))"
                            : "int(clamp(" + v + ", " + it.name + "(-max(" + wsize + ", 1)), " + hi + "))";
    s += "    int st" + S(od) + " = " + start + ";\n";
    base[od] = "st" + S(od);
  }
  for (size_t k = 0; k < ib.size(); ++k) {
    const int64_t ds = sib[k];
    base[ib[k]] += " + int(" + sc[ds - (ds < ivd ? 0 : 1)] + ")";
  }
  std::vector<std::string> wv;
  for (int d = 0; d < r; ++d) {
    auto wk = std::find(window_axes.begin(), window_axes.end(), d);
    std::string diff = "int(" + o[d] + ") - (" + base[d] + ")";
    if (wk == window_axes.end()) {
      s += "    hit = hit && " + diff + " == 0;\n";
      continue;
    }
    const size_t k = static_cast<size_t>(wk - window_axes.begin());
    if (trailing) {
      std::string name = "wv" + S(static_cast<int64_t>(k));
      s += "    int " + name + " = " + diff + ";\n";
      s += "    hit = hit && " + name + " >= 0 && " + name + " < int(" + udims[uwd[k]] + ");\n";
      wv.push_back("uint(" + name + ")");
    } else {
      s += "    hit = hit && " + diff + " == int(" + wcoord[k] + ");\n";
    }
  }
  std::string uidx = "t";
  if (trailing) {
    std::vector<std::string> coords(U);
    for (size_t j = 0; j < scatter_axes.size(); ++j) coords[scatter_axes[j]] = sc[j];
    for (size_t k = 0; k < uwd.size(); ++k) coords[uwd[k]] = wv[k];
    uidx = Linear(coords, udims);
  }
  s += "    if (hit) {\n      uint at = " + uidx + ";\n";
  std::vector<std::string> params;
  for (size_t k = 0; k < n; ++k) params.push_back("acc" + S(static_cast<int64_t>(k)));
  for (size_t k = 0; k < n; ++k) params.push_back(w.Load(n + 1 + k, "at"));
  std::string code;
  std::vector<std::string> results;
  KILN_RETURN_IF_ERROR(EmitScalarProgram(*prog, params, "v", &code, &results, &w.features));
  s += code;
  for (size_t k = 0; k < n; ++k) s += "      acc" + S(static_cast<int64_t>(k)) + " = " + results[k] + ";\n";
  s += "    }\n  }\n";
  for (size_t k = 0; k < n; ++k) s += "  " + w.Store(w.Out(k), "i", "acc" + S(static_cast<int64_t>(k))) + "\n";
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

// fft: see kernels/vulkan/fft.glsl.
StatusOr<ShaderSource> Fft(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 1 || u.out_types.size() != 1) return Refuse(u, "expected one operand and one result");
  std::string type(kp.Str("fft_type"));
  int kind = type == "FFT" ? 0 : type == "IFFT" ? 1 : type == "RFFT" ? 2 : type == "IRFFT" ? 3 : -1;
  if (kind < 0) return Refuse(u, "unknown fft_type");
  auto len = kp.Ints("fft_length");
  if (len.empty() || len.size() > 3 || static_cast<int>(len.size()) > w.rank(0)) return Refuse(u, "bad fft_length");
  std::vector<int64_t> n(3 - len.size(), 1);
  for (int64_t v : len) {
    if (v < 1 || v > 65535) return Refuse(u, "fft_length out of range");
    n.push_back(v);
  }
  const GType& in = w.type(0);
  const GType& out = w.type(1);
  const GType& cx = kind == 3 ? in : out;
  if (cx.cls != C::kComplex || (kind == 2 && in.cls != C::kFloat) || (kind == 3 && out.cls != C::kFloat) ||
      (kind < 2 && in.cls != C::kComplex))
    return Refuse(u, "operand types do not fit the fft_type");
  KILN_ASSIGN_OR_RETURN(std::string load, ConvertExpr(in, cx, w.Load(0, "i")));
  std::string store;
  if (kind == 3) {
    KILN_ASSIGN_OR_RETURN(GType part, GlslType(cx.type == ElementType::kC64 ? ElementType::kF32 : ElementType::kF64));
    KILN_ASSIGN_OR_RETURN(store, ConvertExpr(part, out, "v.x"));
  } else {
    KILN_ASSIGN_OR_RETURN(store, ConvertExpr(cx, out, "v"));
  }
  const bool dbl = cx.part == "double";
  std::string fns = "#define C " + cx.name + "\n#define P " + cx.part + "\n" + cx.name + " x_at(uint i) { return " +
                    load + "; }\nvoid put(uint i, " + cx.name + " v) { " + w.Store(1, "i", store) + " }\n" +
                    cx.part + " cosine(" + cx.part + " a) { return " + (dbl ? "kiln_cos_d(a)" : "cos(a)") + "; }\n" +
                    cx.part + " sine(" + cx.part + " a) { return " + (dbl ? "kiln_sin_d(a)" : "sin(a)") + "; }\n";
  std::string body = Fill(Template("fft.glsl"), {{"FUNCTIONS", fns},
                                                 {"N0", Uint(n[0])},
                                                 {"N1", Uint(n[1])},
                                                 {"N2", Uint(n[2])},
                                                 {"KIND", S(kind)}});
  return w.Finish(body, 64);
}

}  // namespace

// --- the shader header ---------------------------------------------------------

Status ShaderWriter::Begin() {
  const size_t nt = use_.in_types.size() + use_.out_types.size();
  uint32_t word = 1;
  for (size_t t = 0; t < nt; ++t) {
    ElementType et = t < use_.in_types.size() ? use_.in_types[t] : use_.out_types[t - use_.in_types.size()];
    auto g = GlslType(et);
    if (!g.ok()) return Unimplemented(use_.op + " (" + std::string(Name(et)) + ") is not supported by the vulkan target: " + g.status().message());
    types_.push_back(*g);
    features |= g->features;
    param_base_.push_back(word);
    word += 1 + static_cast<uint32_t>(rank(t));
  }
  for (size_t t = 0; t < nt; ++t) {
    const GType& g = types_[t];
    const bool input = t < use_.in_types.size();
    std::string T = S(static_cast<int64_t>(t)), B = S(static_cast<int64_t>(t + 1));
    helpers_ += "layout(std430, set = 0, binding = " + B + ") " + (input ? "restrict readonly " : "restrict ") + "buffer Tensor" + T +
                " { uint w[]; } t" + T + ";\n";
    std::string addr = "p[" + S(param_base_[t]) + "] + i * " + Uint(g.storage);
    // Loads: the element's bits, then its GLSL value.
    std::string bits, value;
    switch (g.storage) {
      case 1: bits = "(t" + T + ".w[a >> 2] >> ((a & 3u) * 8u)) & 0xffu"; break;
      case 2: bits = "(t" + T + ".w[a >> 2] >> ((a & 2u) * 8u)) & 0xffffu"; break;
      case 4: bits = "t" + T + ".w[a >> 2]"; break;
      case 8: bits = "uvec2(t" + T + ".w[a >> 2], t" + T + ".w[(a >> 2) + 1u])"; break;
      default:
        bits = "uvec4(t" + T + ".w[a >> 2], t" + T + ".w[(a >> 2) + 1u], t" + T + ".w[(a >> 2) + 2u], t" + T +
               ".w[(a >> 2) + 3u])";
        break;
    }
    switch (g.type) {
      case ElementType::kF16: value = "kiln_f16_to_f32(b)"; break;
      case ElementType::kBF16: value = "kiln_bf16_to_f32(b)"; break;
      case ElementType::kF32: value = "uintBitsToFloat(b)"; break;
      case ElementType::kF64: value = "packDouble2x32(b)"; break;
      case ElementType::kC64: value = "vec2(uintBitsToFloat(b.x), uintBitsToFloat(b.y))"; break;
      case ElementType::kC128: value = "dvec2(packDouble2x32(b.xy), packDouble2x32(b.zw))"; break;
      default:
        if (g.cls == C::kBool) value = "(b & 0xffu) != 0u";
        else if (g.is_64()) value = g.name + "(packUint2x32(b))";
        else if (g.bits >= 32) value = g.name + "(b)";
        else if (g.cls == C::kSigned) value = "bitfieldExtract(int(b), 0, " + S(g.bits) + ")";
        else value = "(b & " + Uint((int64_t{1} << g.bits) - 1) + ")";
    }
    std::string btype = g.storage == 16 ? "uvec4" : g.storage == 8 ? "uvec2" : "uint";
    helpers_ += g.name + " ld" + T + "(uint i) {\n  uint a = " + addr + ";\n  " + btype + " b = " + bits +
                ";\n  return " + value + ";\n}\n";
    if (input) continue;
    std::string to_bits;
    switch (g.type) {
      case ElementType::kF16: to_bits = "kiln_f32_to_f16(v)"; break;
      case ElementType::kBF16: to_bits = "kiln_f32_to_bf16(v)"; break;
      case ElementType::kF32: to_bits = "floatBitsToUint(v)"; break;
      case ElementType::kF64: to_bits = "unpackDouble2x32(v)"; break;
      case ElementType::kC64: to_bits = "uvec2(floatBitsToUint(v.x), floatBitsToUint(v.y))"; break;
      case ElementType::kC128: to_bits = "uvec4(unpackDouble2x32(v.x), unpackDouble2x32(v.y))"; break;
      default:
        if (g.cls == C::kBool) to_bits = "(v ? 1u : 0u)";
        else if (g.is_64()) to_bits = "unpackUint2x32(uint64_t(v))";
        else to_bits = "uint(v)";
    }
    helpers_ += "void st" + T + "(uint i, " + g.name + " v) {\n  uint a = " + addr + ";\n  " + btype + " b = " +
                to_bits + ";\n";
    switch (g.storage) {
      case 1:
      case 2: {
        // Neighbouring sub-word elements belong to other invocations: update
        // only this element's bits, atomically.
        std::string mask = g.storage == 1 ? "0xffu" : "0xffffu";
        std::string sh = g.storage == 1 ? "((a & 3u) * 8u)" : "((a & 2u) * 8u)";
        helpers_ += "  uint sh = " + sh + ";\n  atomicAnd(t" + T + ".w[a >> 2], ~(" + mask + " << sh));\n  atomicOr(t" +
                    T + ".w[a >> 2], (b & " + mask + ") << sh);\n";
        break;
      }
      case 4: helpers_ += "  t" + T + ".w[a >> 2] = b;\n"; break;
      case 8: helpers_ += "  t" + T + ".w[a >> 2] = b.x;\n  t" + T + ".w[(a >> 2) + 1u] = b.y;\n"; break;
      default:
        for (int q = 0; q < 4; ++q)
          helpers_ += "  t" + T + ".w[(a >> 2) + " + std::to_string(q) + "u] = b[" + std::to_string(q) + "];\n";
        break;
    }
    helpers_ += "}\n";
  }
  return Status::Ok();
}

ShaderSource ShaderWriter::Finish(const std::string& body, uint32_t local_x, uint32_t local_y) {
  ShaderSource s;
  s.features = features;
  s.workgroup_size = local_x * local_y;
  std::string head = "#version 450\n";
  if (features & (hal::kShaderInt64 | hal::kShaderFloat64))
    head += "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n";
  head += "layout(local_size_x = " + S(local_x) + ", local_size_y = " + S(local_y) + ") in;\n";
  head += Template("prelude.glsl");
  if (features & hal::kShaderInt64) head += Template("prelude_i64.glsl");
  if (features & hal::kShaderFloat64) head += std::string(Template("prelude64.glsl")) + Template("math64.glsl");
  s.glsl = head + helpers_ + body;
  return s;
}

StatusOr<ShaderSource> GenerateShader(const KernelParams& params, const DispatchUse& use) {
  ShaderWriter w(use);
  KILN_RETURN_IF_ERROR(w.Begin());
  if (use.out_types.empty()) return Refuse(use, "a dispatch without results");
  const std::string& k = params.kernel;
  if (k == "kiln.elementwise") return Elementwise(params, use, w);
  if (k == "stablehlo.dot_general" || k == "stablehlo.dot") return DotGeneral(params, use, w);
  if (k == "stablehlo.reduce") return Reduce(params, use, w);
  if (k == "stablehlo.triangular_solve") return TriangularSolve(params, use, w);
  if (k == "stablehlo.fft") return Fft(params, use, w);
  if (k == "stablehlo.map") return Map(params, use, w);
  if (k == "stablehlo.gather" || k == "stablehlo.dynamic_gather") return Gather(params, use, w);
  if (k == "stablehlo.sort") return Sort(params, use, w);
  if (k == "stablehlo.scatter") return Scatter(params, use, w);
  if (k == "stablehlo.select_and_scatter") return SelectAndScatter(params, use, w);
  if (k == "stablehlo.reduce_window") return ReduceWindow(params, use, w);
  if (k == "stablehlo.uniform_quantize" || k == "stablehlo.uniform_dequantize") return Quantization(params, use, w);
  if (k == "stablehlo.convolution" || k == "stablehlo.dynamic_conv") return Convolution(params, use, w);
  return IndexMap(params, use, w);
}

}  // namespace kiln::compiler::vulkan

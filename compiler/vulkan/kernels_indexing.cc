// The vulkan target's shaders, part: indexing (kernels/kernels.def): gather and scatter.
// Shared helpers: compiler/vulkan/kernels.h.
#include "compiler/vulkan/kernels.h"

#include <algorithm>
#include <map>

namespace kiln::compiler::vulkan {

using C = GType::Class;

// gather / dynamic_gather: one invocation per result element computes its
// operand index as the spec does (full_start_index clamped to
// [0, dim - slice_size], + full_batching_index + full_window_index).
StatusOr<ShaderSource> Gather(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const bool dynamic = IsKernel(kp, KernelId::kDynamicGather);
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

}  // namespace kiln::compiler::vulkan

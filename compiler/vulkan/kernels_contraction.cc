// The vulkan target's shaders, part: contraction (kernels/kernels.def): dot_general (with fused epilogues)
// and convolution.
// Shared helpers: compiler/vulkan/kernels.h.
#include "compiler/vulkan/kernels.h"

#include <algorithm>
#include <map>

namespace kiln::compiler::vulkan {

using C = GType::Class;

// dot_general / dot: f32 operands already laid out as [batch, M, K] x
// [batch, K or N, N or K] take the register-blocked shader
// (kernels_contraction_blocked.cc), f32 operands of any other layout its
// strided form; every other type (complex included) takes 16x16 output
// tiles per work group, operand tiles staged in shared memory. The output is viewed as [B, M, N]: batch dims, lhs free
// dims, rhs free dims (the spec's result order).
StatusOr<ShaderSource> DotGeneral(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() < 2 || u.out_types.size() != 1) return Refuse(u, "expected two operands and one result");
  const int lr = w.rank(0), rr = w.rank(1);
  std::vector<int64_t> lb, rb, lc, rc;
  if (IsKernel(kp, KernelId::kDot)) {
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
  // Accumulate f16/bf16 in f32; round once at the end.
  const std::string acc = rt.name;
  auto ldims = DimsOf(w, 0), rdims = DimsOf(w, 1);
  auto product = [&](const std::vector<std::string>& dims, const std::vector<int64_t>& which) {
    std::string s = "1u";
    for (int64_t d : which) s += " * " + dims[d];
    return s;
  };
  if (std::optional<int> layout = BlockedDotLayout(u, lr, rr, lb, rb, lc, rc, lfree, rfree))
    return DotGeneralBlocked(kp, u, w, *layout, lb.size(), lfree.size(), product(ldims, lfree),
                             product(rdims, rfree), product(ldims, lc));
  if (StridedDotTakes(u)) return DotGeneralStrided(kp, u, w, lb, rb, lc, rc, lfree, rfree);
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
  // The product of two operand elements (complex: kiln_cmul of the preludes).
  fns += acc + " kiln_dot_mul(" + acc + " x, " + acc + " y) { return " +
         (rt.cls == C::kComplex ? std::string("kiln_cmul(x, y)") : std::string("x * y")) + "; }\n";
  std::string zero = rt.cls == C::kFloat ? (rt.name == "double" ? "0.0lf" : "0.0") : (rt.is_64() ? rt.name + "(0)" : rt.name + "(0)");
  const std::string fix = AccumulatorValue(rt);
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

// convolution / dynamic_conv: see kernels/vulkan/convolution.glsl; f32
// convolutions with one batch group, no lhs dilation, static padding and a
// [b, spatial..., f] or [b, f, spatial...] result take the register-blocked
// shader (kernels_contraction_blocked.cc).
StatusOr<ShaderSource> Convolution(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const bool dynamic = IsKernel(kp, KernelId::kDynamicConv);
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
  if (rt.cls == C::kBool) return Refuse(u, "boolean convolutions");
  const ConvWindow window{strides, lhs_dil, rhs_dil, reversal, padding, isp, ksp, osp, ib, ifd, kif, kof, ob, ofd,
                          fgc, bgc, dynamic};
  if (std::optional<ConvOutputLayout> layout = BlockedConvLayout(u, window))
    return ConvolutionBlocked(kp, u, w, window, *layout);
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
  // Floats and complex numbers multiply padding zeros (0 * inf = NaN).
  const bool floats = rt.cls == C::kFloat || rt.cls == C::kComplex;
  std::string in_before = "true";  // floats: whether the taps so far are inside the lhs
  for (int s = 0; s < ns; ++s) {
    std::string k = "k" + S(s), pos = "pos" + S(s), in = "in" + S(s);
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
    const std::string outside = pos + " < 0 || " + pos + " % " + S(lhs_dil[s]) + " != 0 || uint(" + pos + " / " +
                                S(lhs_dil[s]) + ") >= " + ldims[isp[s]];
    if (floats) {
      // Padding and lhs holes are zeros of the spec's padded lhs: they take
      // part in the products (0 * inf = NaN), read as element 0 of the lhs.
      taps += indent + "const bool " + in + " = " + in_before + " && !(" + outside + ");\n";
      lidx[isp[s]] = "(" + in + " ? uint(" + pos + " / " + S(lhs_dil[s]) + ") : 0u)";
      in_before = in;
    } else {
      // Integers: a zero adds nothing, so padded taps are skipped.
      taps += indent + "if (" + outside + ") continue;\n";
      lidx[isp[s]] = "uint(" + pos + " / " + S(lhs_dil[s]) + ")";
    }
    ridx[ksp[s]] = k;
    close = indent.substr(2) + "}\n" + close;
  }
  const std::string lhs_value = "lhs_at(" + Linear(lidx, ldims) + ")";
  const std::string lhs_term = floats ? "(" + in_before + " ? " + lhs_value + " : " + rt.name + "(0))" : lhs_value;
  const std::string rhs_term = "rhs_at(" + Linear(ridx, rdims) + ")";
  taps += indent + "for (uint f = 0u; f < k_in; ++f) acc += " +
          (rt.cls == C::kComplex ? "kiln_cmul(" + lhs_term + ", " + rhs_term + ")" : lhs_term + " * " + rhs_term) +
          ";\n" + close;
  const std::string fix = AccumulatorValue(rt);
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

// chlo.ragged_dot, the three modes of the reference
// (kernels/reference/contraction_ragged_dot.cc): the lhs ragged dimension
// free (mode 1: each row's group picks the rhs group slice), contracting
// (mode 2: the result gains a leading group dimension, and group g sums the
// contracting positions in its range) or batching (mode 3: rows past the
// last group are zero). One invocation per result element reads the group
// sizes, then folds the contracting positions in the reference's order.
// Floats accumulate in the result type (the reference: in f64, rounded
// once), complex numbers in the result's part type (products by
// kiln_cmul), integers wrap in it, as the reference does.
StatusOr<ShaderSource> RaggedDot(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 3 || u.out_types.size() != 1) return Refuse(u, "expected three operands and one result");
  auto get = [&](const char* n) {
    auto s = kp.Ints(n);
    return std::vector<int64_t>(s.begin(), s.end());
  };
  const auto lb = get("lhs_batching_dimensions"), rb = get("rhs_batching_dimensions");
  const auto lc = get("lhs_contracting_dimensions"), rc = get("rhs_contracting_dimensions");
  const auto lr = get("lhs_ragged_dimensions"), rg = get("rhs_group_dimensions");
  const int lrank = w.rank(0), rrank = w.rank(1);
  if (lb.size() != rb.size() || lc.size() != rc.size() || lr.size() != 1 || rg.size() > 1)
    return Refuse(u, "bad dimension numbers");
  std::vector<bool> lseen(lrank, false), rseen(rrank, false);
  for (const auto* v : {&lb, &lc})
    for (int64_t d : *v) {
      if (d < 0 || d >= lrank || lseen[d]) return Refuse(u, "bad dimension numbers");
      lseen[d] = true;
    }
  for (const auto* v : {&rb, &rc, &rg})
    for (int64_t d : *v) {
      if (d < 0 || d >= rrank || rseen[d]) return Refuse(u, "bad dimension numbers");
      rseen[d] = true;
    }
  const int64_t ragged = lr[0];
  if (ragged < 0 || ragged >= lrank) return Refuse(u, "bad lhs_ragged_dimensions");
  auto contains = [](const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  const int mode = contains(lc, ragged) ? 2 : contains(lb, ragged) ? 3 : 1;
  if ((mode == 1) != (rg.size() == 1)) return Refuse(u, "bad rhs_group_dimensions");
  if (w.rank(2) != 1 || (w.type(2).cls != C::kSigned && w.type(2).cls != C::kUnsigned))
    return Refuse(u, "group_sizes must be a 1-D integer tensor");
  const size_t out = w.Out(0);
  const GType& rt = w.type(out);
  if (rt.cls == C::kBool) return Refuse(u, "boolean ragged dots");
  if (rt.cls != C::kFloat && rt.cls != C::kComplex && rt.bits < 32)
    return Refuse(u, "integer results narrower than 32 bits");
  std::vector<int64_t> lfree, rfree;
  for (int d = 0; d < lrank; ++d)
    if (!lseen[d]) lfree.push_back(d);
  for (int d = 0; d < rrank; ++d)
    if (!rseen[d]) rfree.push_back(d);
  const size_t orank = (mode == 2 ? 1 : 0) + lb.size() + lfree.size() + rfree.size();
  if (w.rank(out) != static_cast<int>(orank)) return Refuse(u, "bad result rank");
  const auto ld = DimsOf(w, 0), rd = DimsOf(w, 1);
  auto stride = [](const std::vector<std::string>& dims, int64_t d) {
    std::string s = "1u";
    for (size_t k = static_cast<size_t>(d) + 1; k < dims.size(); ++k) s += " * " + dims[k];
    return "(" + s + ")";
  };
  KILN_ASSIGN_OR_RETURN(std::string la, ConvertExpr(w.type(0), rt, w.Load(0, "i")));
  KILN_ASSIGN_OR_RETURN(std::string ra, ConvertExpr(w.type(1), rt, w.Load(1, "i")));
  std::string fns = rt.name + " lhs_at(uint i) { return " + la + "; }\n" + rt.name + " rhs_at(uint i) { return " + ra +
                    "; }\n";
  std::string b = OutputIndex(w);
  auto o = Names("o", orank);
  size_t q = 0;
  b += "  uint g = " + std::string(mode == 2 ? o[q++] : "0u") + ";\n";
  b += "  uint lbase = 0u, rbase = 0u, ragged_index = 0u;\n";
  for (size_t k = 0; k < lb.size(); ++k, ++q) {
    b += "  lbase += " + o[q] + " * " + stride(ld, lb[k]) + ";\n  rbase += " + o[q] + " * " + stride(rd, rb[k]) + ";\n";
    if (lb[k] == ragged) b += "  ragged_index = " + o[q] + ";\n";
  }
  for (int64_t d : lfree) {
    if (d == ragged) b += "  ragged_index = " + o[q] + ";\n";
    b += "  lbase += " + o[q++] + " * " + stride(ld, d) + ";\n";
  }
  for (int64_t d : rfree) b += "  rbase += " + o[q++] + " * " + stride(rd, d) + ";\n";
  // Group g covers ragged indices [start, end); mode 1 and 3 find the row's.
  const std::string gs = w.Load(2, "h");
  b += "  uint groups = " + w.Dim(2, 0) + ", start = 0u, end = 0u;\n  bool in_group = true;\n";
  if (mode == 2) {
    b += "  for (uint h = 0u; h <= g; ++h) { start = end; end += uint(" + gs + "); }\n";
  } else {
    b += "  g = groups;\n";
    b += "  for (uint h = 0u; h < groups; ++h) {\n    start = end;\n    end += uint(" + gs + ");\n";
    b += "    if (ragged_index < end) { g = h; break; }\n  }\n";
    b += "  in_group = g < groups;\n";
    if (mode == 1) b += "  if (in_group) rbase += g * " + stride(rd, rg[0]) + ";\n";
  }
  b += "  " + rt.name + " acc = " + rt.name + "(0);\n";
  std::vector<std::string> cdims;
  for (int64_t d : lc) cdims.push_back(ld[d]);
  std::string kcount = "1u";
  for (const auto& d : cdims) kcount += " * " + d;
  b += "  if (in_group) {\n    for (uint kf = 0u; kf < " + kcount + "; ++kf) {\n";
  if (!cdims.empty()) {
    auto c = Names("c", cdims.size());
    std::string dec = Decompose("kf", cdims, c, "rem_c");
    for (size_t pos = 0; (pos = dec.find("\n  ", pos)) != std::string::npos;) dec.replace(pos, 3, "\n      "), pos += 7;
    b += "    " + dec.substr(2);
    std::string loff = "0u", roff = "0u";
    for (size_t k = 0; k < lc.size(); ++k) {
      loff += " + " + c[k] + " * " + stride(ld, lc[k]);
      roff += " + " + c[k] + " * " + stride(rd, rc[k]);
      if (mode == 2 && lc[k] == ragged) b += "      if (" + c[k] + " < start || " + c[k] + " >= end) continue;\n";
    }
    const std::string l = "lhs_at(lbase + " + loff + ")", r = "rhs_at(rbase + " + roff + ")";
    const std::string prod = rt.cls == C::kComplex ? "kiln_cmul(" + l + ", " + r + ")" : l + " * " + r;
    b += "      acc = " + (rt.cls == C::kFloat ? RoundTo(rt, "acc + " + RoundTo(rt, prod)) : "acc + " + prod) + ";\n";
  }
  b += "    }\n  }\n  " + w.Store(out, "i", "acc") + "\n";
  return w.Finish(fns + Fill(Template("per_element.glsl"), {{"BODY", b}}), 64);
}

}  // namespace kiln::compiler::vulkan

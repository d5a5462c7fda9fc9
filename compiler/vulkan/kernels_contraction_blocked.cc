// The vulkan target's register-blocked contractions: dot_general
// (kernels/vulkan/dot_general_blocked.glsl), f32 contractions whose operands
// are already laid out as [batch, M, K] x [batch, K, N] or [batch, N, K] in
// memory, the forms of dense layers and batched matmuls, and its strided
// form (dot_general_strided.glsl) for f32 operands of any other layout and
// for 8- and 16-bit integer operands into i32 (int accumulators); and
// convolution (kernels/vulkan/convolution_blocked.glsl), f32 and small
// integer convolutions as an implicit GEMM over output positions x output
// features. DotGeneral and
// Convolution (kernels_contraction.cc) send every other type and form to
// their generic shaders.
#include "compiler/vulkan/kernels.h"

namespace kiln::compiler::vulkan {

namespace {

// Invocation tile (TM x TN outputs) and work-group shape (WX x WY
// invocations): 8x16 outputs per invocation in 8-wide groups along N (one
// lavapipe SIMD row per group). Measured at 1024^3 on lavapipe, loaded
// machine, one run: 8x8 472-552 ms, 8x16 310-389, 16x8 327-417, 16x16
// 250-346 but 3.3 s of JIT at the first dispatch (8x16: 1.2 s, 8x8: 0.7 s),
// which every test and first call pays (benchmarks/vulkan_gemm.sh).
constexpr uint32_t kTm = 8, kTn = 16, kWx = 8, kWy = 1;

// Rows per invocation tile: kTm, or for a product with fewer rows (known
// at compile time: a batch-1 dense layer, a GRU step) the power of two that
// covers them, so that no invocation loads and multiplies clamped copies of
// its last row (with M = 1, 7 of 8 rows were copies).
uint32_t TileRows(const DispatchUse& u, const std::vector<int64_t>& lfree) {
  if (u.in_dims.empty()) return kTm;
  int64_t m = 1;
  for (int64_t d : lfree) {
    if (d < 0 || static_cast<size_t>(d) >= u.in_dims[0].size() || u.in_dims[0][d] < 0) return kTm;
    m *= u.in_dims[0][d];
    if (m >= kTm) return kTm;
  }
  uint32_t tm = 1;
  while (tm < m) tm *= 2;
  return tm;
}

// The start of a tile column whose coordinate along output axis `axis` is
// `first` + c (StoreTile's column loop), leaving the loop at `size`.
std::string ColumnStart(int64_t axis, const std::string& first, const std::string& size) {
  const std::string o = "o" + std::to_string(axis);
  return "      const uint " + o + " = " + first + " + c;\n      if (" + o + " >= " + size + ") break;\n";
}

// A contraction's tile column: one element of the result's free rhs
// dims, which follow its first `before` dims; a column for the epilogue
// only where there is one such dim (several: no column).
EpilogueColumn ResultColumn(const ShaderWriter& w, size_t before) {
  EpilogueColumn column;
  const int64_t rank = w.rank(w.Out(0));
  if (static_cast<int64_t>(before) + 1 != rank) return column;
  column.axis = rank - 1;
  column.start = ColumnStart(column.axis, "n0", "N");
  return column;
}

bool IsRun(const std::vector<int64_t>& v, int64_t first) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != first + static_cast<int64_t>(i)) return false;
  return true;
}

}  // namespace

std::optional<int> BlockedDotLayout(const DispatchUse& u, int lr, int rr, const std::vector<int64_t>& lb,
                                    const std::vector<int64_t>& rb, const std::vector<int64_t>& lc,
                                    const std::vector<int64_t>& rc, const std::vector<int64_t>& lfree,
                                    const std::vector<int64_t>& rfree) {
  if (u.in_types.size() < 2 || u.out_types.size() != 1) return std::nullopt;
  if (u.in_types[0] != ElementType::kF32 || u.in_types[1] != ElementType::kF32 || u.out_types[0] != ElementType::kF32)
    return std::nullopt;
  const int64_t nb = static_cast<int64_t>(lb.size());
  if (!IsRun(lb, 0) || !IsRun(rb, 0)) return std::nullopt;
  // lhs: [batch, free, contracting].
  if (!IsRun(lfree, nb) || !IsRun(lc, nb + static_cast<int64_t>(lfree.size())) ||
      nb + static_cast<int64_t>(lfree.size() + lc.size()) != lr)
    return std::nullopt;
  if (nb + static_cast<int64_t>(rfree.size() + rc.size()) != rr) return std::nullopt;
  // rhs: [batch, contracting, free] (0) or [batch, free, contracting] (1).
  if (IsRun(rc, nb) && IsRun(rfree, nb + static_cast<int64_t>(rc.size()))) return 0;
  if (IsRun(rfree, nb) && IsRun(rc, nb + static_cast<int64_t>(rfree.size()))) return 1;
  return std::nullopt;
}

StatusOr<ShaderSource> DotGeneralBlocked(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w, int layout,
                                         size_t batch_dims, size_t m_dims, const std::string& m, const std::string& n,
                                         const std::string& k) {
  EpilogueColumn column = ResultColumn(w, batch_dims + m_dims);
  KILN_ASSIGN_OR_RETURN(std::string store, StoreResult(kp, u, w, 2, "v", true, &column));
  w.extensions.push_back("GL_EXT_control_flow_attributes");  // [[unroll]]
  std::vector<int64_t> lfree(m_dims);
  for (size_t i = 0; i < m_dims; ++i) lfree[i] = static_cast<int64_t>(batch_dims + i);
  const uint32_t tm = TileRows(u, lfree);
  // Both operands are also bound as texel buffers, after the storage bindings
  // (the parameters, the inputs, the output).
  const int64_t texel_binding = 1 + static_cast<int64_t>(w.num_inputs()) + 1;
  std::string body = Fill(Template("dot_general_blocked.glsl"),
                          {{"FUNCTIONS", ""},
                           {"SCALAR_CONTRACTION", Template("dot_general_strided_loop.glsl")},
                           {"TM", S(tm)},
                           {"TN", S(kTn)},
                           {"BT", S(layout)},
                           {"M", m},
                           {"N", n},
                           {"K", k},
                           {"AOFF", S(w.OffsetWord(0))},
                           {"ATEX", S(texel_binding)},
                           {"BTEX", S(texel_binding + 1)},
                           {"BOFF", S(w.OffsetWord(1))},
                           {"STORE_TILE", StoreTile(kp, "TM", "TN", "acc[r][c / 4u][c % 4u]",
                                                    "const uint m = m0 + r, n = n0 + c;", "m < M && n < N",
                                                    "        const uint i = (b * M + m) * N + n;\n" + store, column)}});
  ShaderSource s = w.Finish(body, kWx, kWy);
  s.grid = hal::ShaderGrid::kTiles;
  s.features |= hal::kTexelInputs;
  s.texel_inputs = 0b11;
  s.grid_args = {static_cast<uint32_t>(batch_dims), static_cast<uint32_t>(m_dims), kWy * tm, kWx * kTn};
  return s;
}

namespace {

// Convolution tile: TP output positions x TF output features per
// invocation, eight invocations per work group along the positions (along
// x: with the eight along y, lavapipe ran the 1x1 convolutions of an
// inverted residual block 2-4x slower).
constexpr uint32_t kConvTp = 8, kConvTf = 16, kConvLanes = 8;

// "(d[from] * d[from + 1] * ...)" of GLSL dimension expressions, "1u" when empty.
std::string ProductOf(const std::vector<std::string>& dims, size_t from, size_t to) {
  std::string s = "1u";
  for (size_t d = from; d < to; ++d) s += " * " + dims[d];
  return "(" + s + ")";
}

}  // namespace

// Integer operands the register-blocked shaders take (with an i32 result):
// 8- and 16-bit, read as storage words and summed in int accumulators,
// which wrap in 32 bits as the reference's sums do.
bool SmallIntegers(const DispatchUse& u) {
  auto small = [](ElementType e) {
    return e == ElementType::kSI8 || e == ElementType::kUI8 || e == ElementType::kSI16 || e == ElementType::kUI16;
  };
  return u.in_types.size() >= 2 && u.out_types.size() == 1 && small(u.in_types[0]) && small(u.in_types[1]) &&
         u.out_types[0] == ElementType::kSI32;
}

bool StridedDotTakes(const DispatchUse& u) {
  if (u.in_types.size() < 2 || u.out_types.size() != 1) return false;
  if (u.in_types[0] == ElementType::kF32 && u.in_types[1] == ElementType::kF32 && u.out_types[0] == ElementType::kF32)
    return true;
  return SmallIntegers(u);
}

StatusOr<ShaderSource> DotGeneralStrided(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w,
                                         const std::vector<int64_t>& lb, const std::vector<int64_t>& rb,
                                         const std::vector<int64_t>& lc, const std::vector<int64_t>& rc,
                                         const std::vector<int64_t>& lfree, const std::vector<int64_t>& rfree) {
  if (!StridedDotTakes(u)) return Refuse(u, "the strided blocked dot_general takes f32 and 8/16-bit integers only");
  EpilogueColumn column = ResultColumn(w, lb.size() + lfree.size());
  // Small integer operands (SmallIntegers) are read as words and summed in
  // int accumulators.
  const bool integer = u.in_types[0] != ElementType::kF32;
  KILN_ASSIGN_OR_RETURN(std::string store, StoreResult(kp, u, w, 2, "v", true, &column));
  w.extensions.push_back("GL_EXT_control_flow_attributes");  // [[unroll]]
  const uint32_t tm = TileRows(u, lfree);
  auto ldims = DimsOf(w, 0), rdims = DimsOf(w, 1);
  auto lstride = [&](int64_t d) { return ProductOf(ldims, static_cast<size_t>(d) + 1, ldims.size()); };
  auto rstride = [&](int64_t d) { return ProductOf(rdims, static_cast<size_t>(d) + 1, rdims.size()); };
  auto names = [](const std::string& prefix, size_t n) {
    std::vector<std::string> v;
    for (size_t i = 0; i < n; ++i) v.push_back(prefix + S(static_cast<int64_t>(i)));
    return v;
  };
  auto product = [](const std::vector<std::string>& dims, const std::vector<int64_t>& which) {
    std::string p = "1u";
    for (int64_t d : which) p += " * " + dims[d];
    return "(" + p + ")";
  };
  auto sizes = [](const std::vector<std::string>& dims, const std::vector<int64_t>& which) {
    std::vector<std::string> v;
    for (int64_t d : which) v.push_back(dims[d]);
    return v;
  };
  // The batch entry b, a row m and a column n split over their dims (the
  // output lists the batch dims, then lhs free, then rhs free dims).
  std::string batch = Decompose("b", sizes(ldims, lb), names("bi", lb.size()), "rem_b");
  for (size_t i = 0; i < lb.size(); ++i) {
    const std::string bi = "bi" + S(static_cast<int64_t>(i));
    batch += "  abase += " + bi + " * " + lstride(lb[i]) + ";\n  bbase += " + bi + " * " + rstride(rb[i]) + ";\n";
  }
  std::string row = Decompose("m", sizes(ldims, lfree), names("mi", lfree.size()), "rem_m") + "    row[r] = abase";
  for (size_t i = 0; i < lfree.size(); ++i) row += " + mi" + S(static_cast<int64_t>(i)) + " * " + lstride(lfree[i]);
  std::string col = Decompose("n", sizes(rdims, rfree), names("ni", rfree.size()), "rem_n") + "    col[c] = bbase";
  for (size_t i = 0; i < rfree.size(); ++i) col += " + ni" + S(static_cast<int64_t>(i)) + " * " + rstride(rfree[i]);
  // Texel bindings after the storage ones (the parameters, the inputs, the output).
  const int64_t texel_binding = 1 + static_cast<int64_t>(w.num_inputs()) + 1;
  // Loops over the first `count` contracting dims, in order, indented from
  // `indent`, and the operands' offsets of their indices.
  struct Loops {
    std::string open, close, ka = "0u", kb = "0u";
  };
  auto loops = [&](size_t count, std::string indent) {
    Loops l;
    for (size_t i = 0; i < count; ++i) {
      const std::string k = "k" + S(static_cast<int64_t>(i));
      l.open += indent + "for (uint " + k + " = 0u; " + k + " < " + ldims[lc[i]] + "; ++" + k + ") {\n";
      l.close = indent + "}\n" + l.close;
      indent += "  ";
      l.ka += " + " + k + " * " + lstride(lc[i]);
      l.kb += " + " + k + " * " + rstride(rc[i]);
    }
    return l;
  };
  // The contraction: one loop per contracting dim, in order.
  const Loops all = loops(lc.size(), "  ");
  // The vec4 forms, for f32 whose last contracting dim is the lhs's
  // innermost (WIDE 1: B's last contracting dim innermost too; WIDE 2: B's
  // last free dim innermost); loops over the other contracting dims, in
  // order, around the vec4 steps of the last.
  int wide = 0;
  if (!integer && !lc.empty() && lc.back() + 1 == static_cast<int64_t>(ldims.size()) && kTn % 4 == 0) {
    if (rc.back() + 1 == static_cast<int64_t>(rdims.size()))
      wide = 1;
    else if (!rfree.empty() && rfree.back() + 1 == static_cast<int64_t>(rdims.size()))
      wide = 2;
  }
  const Loops outer = loops(wide ? lc.size() - 1 : 0, "    ");
  std::string body = Fill(Template("dot_general_strided.glsl"),
                          {{"FUNCTIONS", ""},
                           {"WIDE", S(wide)},
                           {"K", wide ? ldims[lc.back()] : "0u"},
                           {"NL", wide == 2 ? rdims[rfree.back()] : "0u"},
                           {"BSTEP", wide == 2 ? rstride(rc.back()) : "0u"},
                           {"WK_OPEN", outer.open},
                           {"WK_CLOSE", outer.close},
                           {"WKA", outer.ka},
                           {"WKB", outer.kb},
                           {"TEXELS", integer ? "false" : "true"},
                           {"ACC", integer ? "int" : "float"},
                           {"SCALAR_CONTRACTION", Template("dot_general_strided_loop.glsl")},
                           {"TM", S(tm)},
                           {"TN", S(kTn)},
                           {"M", product(ldims, lfree)},
                           {"N", product(rdims, rfree)},
                           {"BATCH", batch},
                           {"ROW", row + ";\n"},
                           {"COL", col + ";\n"},
                           {"K_OPEN", all.open},
                           {"K_CLOSE", all.close},
                           {"KA", all.ka},
                           {"KB", all.kb},
                           {"AOFF", S(w.OffsetWord(0))},
                           {"BOFF", S(w.OffsetWord(1))},
                           {"ATEX", S(texel_binding)},
                           {"BTEX", S(texel_binding + 1)},
                           {"LHS_SIZE", ProductOf(ldims, 0, ldims.size())},
                           {"RHS_SIZE", ProductOf(rdims, 0, rdims.size())},
                           {"STORE_TILE", StoreTile(kp, "TM", "TN", "acc[r][c]", "const uint m = m0 + r, n = n0 + c;",
                                                    "m < M && n < N",
                                                    "        const uint i = (b * M + m) * N + n;\n" + store, column,
                                                    integer ? "int" : "float")}});
  ShaderSource s = w.Finish(body, kWx, kWy);
  s.grid = hal::ShaderGrid::kTiles;
  s.features |= hal::kTexelInputs;
  s.texel_inputs = 0b11;
  s.grid_args = {static_cast<uint32_t>(lb.size()), static_cast<uint32_t>(lfree.size()), kWy * tm, kWx * kTn};
  return s;
}

std::optional<ConvOutputLayout> BlockedConvLayout(const DispatchUse& u, const ConvWindow& c) {
  if (u.in_types.size() < 2 || u.out_types.size() != 1) return std::nullopt;
  const bool f32 =
      u.in_types[0] == ElementType::kF32 && u.in_types[1] == ElementType::kF32 && u.out_types[0] == ElementType::kF32;
  if (!f32 && !SmallIntegers(u)) return std::nullopt;
  if (c.bgc != 1 || c.dynamic || c.fgc > INT32_MAX) return std::nullopt;
  const int64_t ns = static_cast<int64_t>(c.osp.size());
  if (c.ob != 0) return std::nullopt;
  bool last = c.ofd == ns + 1, major = c.ofd == 1;
  for (int64_t s = 0; s < ns; ++s) {
    last = last && c.osp[s] == s + 1;
    major = major && c.osp[s] == s + 2;
  }
  if (last) return ConvOutputLayout::kFeatureLast;
  if (major) return ConvOutputLayout::kFeatureMajor;
  return std::nullopt;
}

StatusOr<ShaderSource> ConvolutionBlocked(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w,
                                          const ConvWindow& c, ConvOutputLayout layout) {
  // A tile column is one output feature.
  EpilogueColumn column{.axis = c.ofd, .start = ColumnStart(c.ofd, "f0", "F")};
  // Small integer operands (SmallIntegers) are read as words (their texel
  // views would hold the raw bytes) and summed in int accumulators, without
  // the vec4 paths.
  const bool integer = u.in_types[0] != ElementType::kF32;
  KILN_ASSIGN_OR_RETURN(std::string store, StoreResult(kp, u, w, 2, "v", true, &column));
  w.extensions.push_back("GL_EXT_control_flow_attributes");  // [[unroll]]
  const size_t ns = c.osp.size();
  const bool last = layout == ConvOutputLayout::kFeatureLast;
  auto ldims = DimsOf(w, 0), rdims = DimsOf(w, 1), odims = DimsOf(w, w.Out(0));
  auto lstride = [&](int64_t d) { return ProductOf(ldims, static_cast<size_t>(d) + 1, ldims.size()); };
  auto rstride = [&](int64_t d) { return ProductOf(rdims, static_cast<size_t>(d) + 1, rdims.size()); };
  // Output positions: [batch, spatial...] (feature last) or [spatial...] of
  // one batch entry (feature major, the batch entry from the grid's z).
  const size_t first_spatial = last ? 1 : 2;
  std::vector<std::string> pos_dims, pos_names;
  if (last) {
    pos_dims.push_back(odims[0]);
    pos_names.push_back("ob");
  }
  for (size_t s = 0; s < ns; ++s) {
    pos_dims.push_back(odims[first_spatial + s]);
    pos_names.push_back("os" + S(static_cast<int64_t>(s)));
  }
  std::string origin_decl, split = Decompose("pos", pos_dims, pos_names, "rem_p");
  split += "    lbase[r] = " + std::string(last ? "ob" : "b") + " * " + lstride(c.ib) + ";\n";
  std::string taps_open, taps_close, tap_position, indent = "  ";
  std::string in_range = "true", offset = "lbase[r]", wtap = "0u";
  for (size_t s = 0; s < ns; ++s) {
    const std::string ss = S(static_cast<int64_t>(s)), org = "org" + ss, k = "k" + ss, pos = "ps" + ss;
    if (c.padding[2 * s] < INT32_MIN || c.padding[2 * s] > INT32_MAX) return Refuse(u, "bad padding");
    origin_decl += "  int " + org + "[TP];\n";
    split += "    " + org + "[r] = int(os" + ss + ") * " + S(c.strides[s]) + " - (" + S(c.padding[2 * s]) + ");\n";
    const std::string kd = rdims[c.ksp[s]];
    taps_open += indent + "for (uint " + k + " = 0u; " + k + " < " + kd + "; ++" + k + ") {\n";
    taps_close = indent + "}\n" + taps_close;
    indent += "  ";
    const std::string tap = c.reversal[s] ? "(int(" + kd + ") - 1 - int(" + k + "))" : "int(" + k + ")";
    tap_position += "    const int " + pos + " = " + org + "[r] + " + tap + " * " + S(c.rhs_dil[s]) + ";\n";
    if (c.lhs_dil[s] == 1) {
      in_range += " && " + pos + " >= 0 && uint(" + pos + ") < " + ldims[c.isp[s]];
      offset += " + uint(" + pos + ") * " + lstride(c.isp[s]);
    } else {
      // With lhs dilation (a transposed convolution) a position between
      // two input elements is a hole: a zero, as padding is.
      const std::string d = S(c.lhs_dil[s]);
      in_range += " && " + pos + " >= 0 && " + pos + " % " + d + " == 0 && uint(" + pos + " / " + d + ") < " +
                  ldims[c.isp[s]];
      offset += " + uint(" + pos + " / " + d + ") * " + lstride(c.isp[s]);
    }
    wtap += " + " + k + " * " + rstride(c.ksp[s]);
  }
  tap_position += "    ok[r] = " + in_range + ";\n    off[r] = ok[r] ? " + offset + " : 0u;\n";
  // The unmasked offset too, for the row runs (below; unused elsewhere).
  tap_position += "    raw[r] = " + offset + ";\n";
  // Each tap's setup opens the loop body (the template repeats the loops
  // once per read path).
  taps_open += indent + "uint off[TP], raw[TP];\n" + indent + "bool ok[TP];\n" + indent +
               "[[unroll]] for (uint r = 0u; r < TP; ++r) {\n" + tap_position + indent + "}\n" + indent +
               "const uint wtap = " + wtap + ";\n";
  const std::string P = ProductOf(odims, last ? 0 : 2, last ? ns + 1 : ns + 2);
  // Both operands are also bound as texel buffers, after the storage
  // bindings (the parameters, the inputs, the output), and read through
  // them where their views are large enough; as vec4 texels where the
  // features are innermost in the input and the kernel (the shader checks
  // sizes and alignment when it runs), one component at a time otherwise.
  const bool kof_last = c.kof == static_cast<int64_t>(rdims.size()) - 1;
  const bool wide = c.ifd == static_cast<int64_t>(ldims.size()) - 1 && kof_last;
  // The vec4-kernel path serves where the vec4 one cannot (an NCHW input,
  // input features not a multiple of 4); left out where this use's static
  // dims say the vec4 one applies (each path lengthens lavapipe's pipeline
  // creation: the MobileNet block's cold start 4.4-4.7 -> 5.0-5.1 s with it in).
  auto known_multiple_of_4 = [&](size_t input, int64_t d) {
    return input < u.in_dims.size() && d < static_cast<int64_t>(u.in_dims[input].size()) &&
           u.in_dims[input][d] >= 0 && u.in_dims[input][d] % 4 == 0;
  };
  const bool kernel_vec4 = kof_last && !(wide && known_multiple_of_4(0, c.ifd) && known_multiple_of_4(1, c.kof));
  // Runs of four positions along the input's innermost dim (NCHW rows at
  // stride 1), for the vec4-kernel path without feature groups.
  const size_t xs = ns - 1;
  const bool row_runs = kernel_vec4 && ns > 0 && c.fgc == 1 && c.isp[xs] == static_cast<int64_t>(ldims.size()) - 1 &&
                        c.strides[xs] == 1 && c.lhs_dil[xs] == 1;
  const int64_t texel_binding = 1 + static_cast<int64_t>(w.num_inputs()) + 1;
  // The work group's eight invocations (lavapipe's SIMD lanes run along
  // x) take eight consecutive position tiles of one feature tile: with the
  // features last, the grid's x counts feature tiles and its y groups of
  // eight position tiles.
  std::string tile = last ? "  const uint p0 = (gl_WorkGroupID.y * gl_WorkGroupSize.x + gl_LocalInvocationID.x) * TP;\n"
                            "  const uint f0 = gl_WorkGroupID.x * TF;\n"
                          : "  const uint p0 = gl_GlobalInvocationID.x * TP, f0 = gl_GlobalInvocationID.y * TF;\n"
                            "  const uint b = gl_WorkGroupID.z;\n";
  std::string body = Fill(Template("convolution_blocked.glsl"),
                          {{"FUNCTIONS", ""},
                           {"SCALAR_CONTRACTION", Template("convolution_blocked_scalar.glsl")},
                           {"W4_CONTRACTION", Template("convolution_blocked_w4.glsl")},
                           {"TP", S(kConvTp)},
                           {"TF", S(kConvTf)},
                           {"P", P},
                           {"F", odims[c.ofd]},
                           {"K_IN", rdims[c.kif]},
                           {"GROUPED", c.fgc > 1 ? "1" : "0"},
                           {"FGC", S(c.fgc)},
                           {"TILE", tile},
                           {"ORIGIN_DECL", origin_decl},
                           {"SPLIT", split},
                           {"RS_O", rstride(c.kof)},
                           {"TAPS_OPEN", taps_open},
                           {"TAPS_CLOSE", taps_close},
                           {"LS_F", lstride(c.ifd)},
                           {"RS_I", rstride(c.kif)},
                           {"WIDE", wide && !integer ? "1" : "0"},
                           {"KOF_LAST", kernel_vec4 && !integer ? "1" : "0"},
                           {"ROW_RUNS", row_runs && !integer ? "1" : "0"},
                           {"OW", ns > 0 ? odims[first_spatial + xs] : "0u"},
                           {"TEXELS", integer ? "false" : "true"},
                           {"ACC", integer ? "int" : "float"},
                           {"ATEX", S(texel_binding)},
                           {"BTEX", S(texel_binding + 1)},
                           {"AOFF", S(w.OffsetWord(0))},
                           {"BOFF", S(w.OffsetWord(1))},
                           {"C_IN", ldims[c.ifd]},
                           {"LHS_SIZE", ProductOf(ldims, 0, ldims.size())},
                           {"RHS_SIZE", ProductOf(rdims, 0, rdims.size())},
                           {"STORE_TILE", StoreTile(kp, "TP", "TF", "acc[r][c]", "const uint pos = p0 + r, f = f0 + c;",
                                                    "pos < P && f < F",
                                                    std::string("        const uint i = ") +
                                                        (last ? "pos * F + f" : "(b * F + f) * P + pos") + ";\n" +
                                                        store,
                                                    column, integer ? "int" : "float")}});
  ShaderSource src = w.Finish(body, kConvLanes, 1);
  src.grid = hal::ShaderGrid::kTiles;
  src.features |= hal::kTexelInputs;
  src.texel_inputs = 0b11;
  src.grid_args = last ? std::vector<uint32_t>{0, static_cast<uint32_t>(ns + 1), kConvLanes * kConvTp, kConvTf}
                       : std::vector<uint32_t>{1, 1, kConvTf, kConvLanes * kConvTp};
  return src;
}

}  // namespace kiln::compiler::vulkan

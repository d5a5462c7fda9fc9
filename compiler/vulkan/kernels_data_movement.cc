// The vulkan target's shaders, part: data movement (kernels/kernels.def): the index map every
// data-movement kernel without a generator of its own uses (slice, transpose, pad, iota, ...): one
// invocation per output element copies or generates one value.
// Shared helpers: compiler/vulkan/kernels.h.
#include "compiler/vulkan/kernels.h"

#include <algorithm>
#include <map>
#include <optional>

namespace kiln::compiler::vulkan {

using C = GType::Class;

namespace {

// Elements of an f32 transpose per invocation.
constexpr uint32_t kTransposePerInvocation = 16;

// stablehlo.transpose of f32 (rank 1 or more): kTransposePerInvocation
// consecutive output elements per invocation. The first one's output index
// is decomposed once; each later one steps along the output's last dim,
// carrying into the dims before it, its input offset following by the
// input strides (no division per element: the index map's per-element
// decomposition and storage-buffer gather ran a 64x64x3x3 kernel's
// transpose at about 0.6 GB/s on lavapipe). The input is read one component
// of a texel at a time (a branch-free gather on lavapipe, a per-lane loop
// for a storage-buffer load) where its texel view reaches its end, the
// choice made once, outside the element loop (lavapipe runs both sides of
// a branch it cannot prove uniform); the elements are stored as vec4s where
// the output is 16-byte aligned and all of them exist. Past the last
// element the offsets are clamped and nothing is stored.
StatusOr<ShaderSource> TransposeF32(ShaderWriter& w, std::span<const int64_t> perm) {
  const size_t out = w.Out(0);
  const int r = w.rank(out);
  const auto odims = DimsOf(w, out), idims = DimsOf(w, 0);
  const auto o = Names("o", r);
  const std::string E = S(kTransposePerInvocation) + "u";
  std::string setup;
  for (int d = 0; d < r; ++d) {
    std::string stride = "1u";
    for (int k = static_cast<int>(perm[d]) + 1; k < r; ++k) stride += " * " + idims[k];
    setup += "  const uint kiln_st" + S(d) + " = " + stride + ";\n";
  }
  setup += Decompose("kiln_first", odims, o, "rem_o");
  setup += "  uint src = 0u";
  for (int d = 0; d < r; ++d) setup += " + " + o[d] + " * kiln_st" + S(d);
  setup += ";\n";
  // The next element: the last dim's index steps, wrapping into the one
  // before it (and so on); the input offset follows.
  std::string advance, close;
  for (int d = r - 1; d >= 0; --d) {
    const std::string D = S(d);
    advance += "      src += kiln_st" + D + ";\n      if (++" + o[d] + " == " + odims[d] + ") {\n        " + o[d] +
               " = 0u;\n        src -= " + odims[d] + " * kiln_st" + D + ";\n";
    close += "      }\n";
  }
  advance += close;
  const std::string off = "p[" + S(w.OffsetWord(out)) + "]";
  const std::string decls = w.TexelInputDecl(0, 0, "kiln_tex") + w.Vec4OutputDecl(out);
  std::string body = "void main() {\n  const uint kiln_first = kiln_linear_id() * " + E +
                     ";\n  if (kiln_first >= p[0]) return;\n" + setup;
  body += "  const uint a0 = p[" + S(w.OffsetWord(0)) + "] / 4u;\n  float v[" + E + "];\n";
  // (The view holds texels a0 / 4 .. (a0 + p[0] - 1) / 4, written so that
  // no term wraps around.)
  body += "  if (a0 / 4u < uint(textureSize(kiln_tex)) && ((a0 & 3u) + p[0] + 3u) / 4u <= uint(textureSize(kiln_tex)) - a0 / 4u) {\n    [[unroll]] for (uint k = 0u; k < " + E +
          "; ++k) {\n      const uint s = a0 + min(src, p[0] - 1u);\n      v[k] = texelFetch(kiln_tex, int(s >> 2u))[s & 3u];\n" +
          advance + "    }\n  } else {\n    [[unroll]] for (uint k = 0u; k < " + E + "; ++k) {\n      v[k] = " +
          w.Load(0, "min(src, p[0] - 1u)") + ";\n" + advance + "    }\n  }\n";
  body += "  if (kiln_first + " + E + " <= p[0] && (" + off + " & 15u) == 0u) {\n    [[unroll]] for (uint c = 0u; c < " + E +
          " / 4u; ++c)\n      " +
          w.Vec4Store(out, "kiln_first + 4u * c", "vec4(v[4u * c], v[4u * c + 1u], v[4u * c + 2u], v[4u * c + 3u])") + "\n" +
          "  } else {\n    for (uint k = 0u; k < " + E + " && kiln_first + k < p[0]; ++k) " +
          w.Store(out, "kiln_first + k", "v[k]") + "\n  }\n}\n";
  w.extensions.push_back("GL_EXT_control_flow_attributes");  // [[unroll]]
  ShaderSource src = w.Finish(decls + body, 64);
  src.grid_args = {0, kTransposePerInvocation};
  src.features |= hal::kTexelInputs;
  src.texel_inputs = 1;
  return src;
}

}  // namespace

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
  static constexpr KernelId kKnown[] = {
      KernelId::kCopy,          KernelId::kReshape,         KernelId::kDynamicReshape, KernelId::kBroadcastInDim,
      KernelId::kDynamicBroadcastInDim, KernelId::kTranspose, KernelId::kSlice,        KernelId::kReverse,
      KernelId::kPad,           KernelId::kConcatenate,     KernelId::kIota,           KernelId::kDynamicIota,
      KernelId::kDynamicSlice,  KernelId::kDynamicUpdateSlice, KernelId::kDynamicPad, KernelId::kRealDynamicSlice};
  const std::optional<KernelId> id = FindKernelId(k);
  if (!id || std::find(std::begin(kKnown), std::end(kKnown), *id) == std::end(kKnown))
    return Refuse(u, "no shader for kernel " + k + " yet");
  auto is = [&](KernelId want) { return *id == want; };
  if (u.out_types.size() != 1) return Refuse(u, "expected one result");
  if (is(KernelId::kDynamicIota)) {
    // The shape operand only restates the result's dimensions.
    int64_t dim = kp.Int("iota_dimension", -1);
    if (dim < 0 || dim >= r) return Refuse(u, "bad iota_dimension");
    KILN_ASSIGN_OR_RETURN(GType from, GlslType(ElementType::kUI32));
    KILN_ASSIGN_OR_RETURN(std::string v, ConvertExpr(from, w.type(out), o[dim]));
    return PerElement(w, body + "  " + w.Store(out, "i", v) + "\n");
  }
  if (!is(KernelId::kIota) && (u.in_types.empty() || u.in_types[0] != u.out_types[0]))
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
  if (is(KernelId::kDynamicSlice)) {
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
  if (is(KernelId::kRealDynamicSlice)) {
    // The result's shape came from ceil((limit - start) / stride) (a
    // run-time shape rule); element o reads start + o * stride. start is
    // clamped into the operand and stride to at least 1, and a result
    // element whose read would leave the operand (indices the spec rules
    // out, which the CPU refuses) is written as zero: no read out of
    // bounds.
    if (u.in_types.size() != 4 || w.rank(0) != r) return Refuse(u, "bad operands");
    std::string s = body + "  bool inside = true;\n";
    std::vector<std::string> idx;
    auto clamped = [&](size_t t, int d, const std::string& lo, const std::string& hi) -> StatusOr<std::string> {
      const GType& g = w.type(t);
      if (w.rank(t) != 1 || (g.cls != C::kSigned && g.cls != C::kUnsigned)) return Refuse(u, "bad index operands");
      return "uint(clamp(" + w.Load(t, Uint(d)) + ", " + g.name + "(" + lo + "), " + g.name + "(" + hi + ")))";
    };
    for (int d = 0; d < r; ++d) {
      KILN_ASSIGN_OR_RETURN(std::string st, clamped(1, d, "0u", in_dims[d]));
      KILN_ASSIGN_OR_RETURN(std::string step, clamped(3, d, "1u", "max(" + in_dims[d] + ", 1u)"));
      const std::string sd = "s" + S(d), td = "t" + S(d);
      s += "  uint " + sd + " = " + st + ", " + td + " = " + step + ";\n";
      s += "  if (" + o[d] + " >= (" + in_dims[d] + " - " + sd + " + " + td + " - 1u) / " + td + ") inside = false;\n";
      idx.push_back("(" + sd + " + " + o[d] + " * " + td + ")");
    }
    KILN_ASSIGN_OR_RETURN(GType index_type, GlslType(ElementType::kUI32));
    KILN_ASSIGN_OR_RETURN(std::string zero, ConvertExpr(index_type, w.type(out), "0u"));
    s += "  if (inside) " + w.Store(out, "i", w.Load(0, Linear(idx, in_dims))) + "\n";
    s += "  else " + w.Store(out, "i", zero) + "\n";
    return PerElement(w, s);
  }
  if (is(KernelId::kDynamicUpdateSlice)) {
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
  if (is(KernelId::kCopy) || is(KernelId::kReshape) || is(KernelId::kDynamicReshape)) {
    return PerElement(w, "  " + w.Store(out, "i", w.Load(0, "i")) + "\n");
  }
  if (is(KernelId::kBroadcastInDim) || is(KernelId::kDynamicBroadcastInDim)) {
    auto bd = kp.Ints("broadcast_dimensions");
    if (static_cast<int>(bd.size()) != w.rank(0)) return Refuse(u, "bad broadcast_dimensions");
    std::vector<std::string> idx;
    for (size_t d = 0; d < bd.size(); ++d) {
      if (bd[d] < 0 || bd[d] >= r) return Refuse(u, "bad broadcast_dimensions");
      idx.push_back("(" + in_dims[d] + " == 1u ? 0u : " + o[bd[d]] + ")");
    }
    return PerElement(w, body + copy_from(0, idx));
  }
  if (is(KernelId::kTranspose)) {
    auto perm = kp.Ints("permutation");
    if (static_cast<int>(perm.size()) != r || w.rank(0) != r) return Refuse(u, "bad permutation");
    std::vector<std::string> idx(r);
    for (int d = 0; d < r; ++d) {
      if (perm[d] < 0 || perm[d] >= r) return Refuse(u, "bad permutation");
      idx[perm[d]] = o[d];
    }
    if (r >= 1 && u.out_types[0] == ElementType::kF32) return TransposeF32(w, perm);
    return PerElement(w, body + copy_from(0, idx));
  }
  if (is(KernelId::kSlice)) {
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
  if (is(KernelId::kReverse)) {
    std::vector<bool> rev(r, false);
    for (int64_t d : kp.Ints("dimensions")) {
      if (d < 0 || d >= r) return Refuse(u, "bad dimensions");
      rev[d] = true;
    }
    std::vector<std::string> idx;
    for (int d = 0; d < r; ++d) idx.push_back(rev[d] ? "(" + in_dims[d] + " - 1u - " + o[d] + ")" : o[d]);
    return PerElement(w, body + copy_from(0, idx));
  }
  if (is(KernelId::kPad)) {
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
  if (is(KernelId::kDynamicPad)) {
    // pad with its low and interior padding read from operands 2 and 4 (the
    // high padding only restates the result's shape). Padding that breaks
    // the spec's constraints (a negative interior) gives padding values:
    // every read stays inside the operand.
    if (u.in_types.size() != 5 || w.rank(0) != r || w.rank(1) != 0) return Refuse(u, "bad operands");
    for (size_t t = 2; t < 5; ++t) {
      if (w.rank(t) != 1) return Refuse(u, "padding operands must be rank 1");
      if (w.type(t).cls != C::kSigned && w.type(t).cls != C::kUnsigned) return Refuse(u, "non-integer padding");
    }
    w.features |= hal::kShaderInt64;
    std::string s = body + "  bool inside = true;\n";
    std::vector<std::string> idx;
    for (int d = 0; d < r; ++d) {
      const std::string q = "q" + S(d), st = "st" + S(d);
      s += "  int64_t " + q + " = int64_t(" + o[d] + ") - int64_t(" + w.Load(2, Uint(d)) + ");\n";
      s += "  int64_t " + st + " = int64_t(" + w.Load(4, Uint(d)) + ") + 1;\n";
      s += "  if (" + st + " < 1 || " + q + " < 0 || " + q + " % " + st + " != 0 || " + q + " / " + st +
           " >= int64_t(" + in_dims[d] + ")) inside = false;\n";
      idx.push_back("uint(" + q + " / " + st + ")");
    }
    s += "  if (inside) " + w.Store(out, "i", w.Load(0, Linear(idx, in_dims))) + "\n";
    s += "  else " + w.Store(out, "i", w.Load(1, "0u")) + "\n";
    return PerElement(w, s);
  }
  if (is(KernelId::kConcatenate)) {
    int64_t dim = kp.Int("dimension", -1);
    if (dim < 0 || dim >= r) return Refuse(u, "bad dimension");
    // The operand holding the element: the first whose extent along the
    // dimension passes its index, the index then made relative to it. No
    // early return (a return per element kept the shader at one element per
    // invocation: two 64x64x32x32 f32 operands along dim 1 took 52-57 ms
    // on lavapipe).
    std::string s = body + "  uint c = " + o[dim] + ";\n  bool found = false;\n";
    for (size_t t = 0; t < u.in_types.size(); ++t) {
      if (u.in_types[t] != u.out_types[0] || w.rank(t) != r) return Refuse(u, "operand types differ");
      auto dims = DimsOf(w, t);
      std::vector<std::string> idx = o;
      idx[dim] = "c";
      s += "  if (!found && c < " + dims[dim] + ") { " + w.Store(out, "i", w.Load(t, Linear(idx, dims))) +
           " found = true; }\n";
      s += "  if (!found) c -= " + dims[dim] + ";\n";
    }
    return PerElement(w, s);
  }
  if (is(KernelId::kIota)) {
    int64_t dim = kp.Int("iota_dimension", -1);
    if (dim < 0 || dim >= r) return Refuse(u, "bad iota_dimension");
    KILN_ASSIGN_OR_RETURN(GType from, GlslType(ElementType::kUI32));
    KILN_ASSIGN_OR_RETURN(std::string v, ConvertExpr(from, w.type(out), o[dim]));
    return PerElement(w, body + "  " + w.Store(out, "i", v) + "\n");
  }
  return Refuse(u, "no shader for kernel " + k + " yet");  // unreachable: kKnown lists the cases above
}

// bitcast_convert between element widths (a same-width bitcast is an
// elementwise program): as kernels/reference, the operand's elements form
// one little-endian bit string (each element's BitWidth bits from its
// storage, complex real part first) that the result's elements read back
// in order. One invocation per result element gathers its bits one at a
// time from the operand's storage bytes and writes its own storage words
// (the bytes it shares a word with atomically, as the stores of
// codegen.cc); a sub-byte signed result is sign-extended in its byte.
StatusOr<ShaderSource> BitcastConvert(const KernelParams&, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 1 || u.out_types.size() != 1) return Refuse(u, "expected one operand and one result");
  const GType& in = w.type(0);
  const GType& out = w.type(1);
  if ((in.cls == C::kComplex) != (out.cls == C::kComplex)) return Refuse(u, "complex only converts to complex");
  if (out.bits > 128 || in.bits > 128) return Refuse(u, "elements wider than 128 bits");
  const std::string ib = Uint(in.bits), ob = Uint(out.bits);
  std::string body = "  uvec4 v = uvec4(0u);\n";
  body += "  for (uint b = 0u; b < " + ob + "; ++b) {\n";
  body += "    uint g = i * " + ob + " + b;\n";
  body += "    uint e = g / " + ib + ", wb = g % " + ib + ";\n";
  body += "    uint a = p[" + S(w.OffsetWord(0)) + "] + e * " + Uint(in.storage) + " + (wb >> 3u);\n";
  body += "    uint bit = (t0.w[a >> 2] >> ((a & 3u) * 8u + (wb & 7u))) & 1u;\n";
  body += "    v[b >> 5u] |= bit << (b & 31u);\n  }\n";
  if (out.bits < 8 && out.cls == C::kSigned)
    body += "  if (((v.x >> " + Uint(out.bits - 1) + ") & 1u) != 0u) v.x |= 0xffu & (0xffu << " + ob + ");\n";
  body += "  uint a = p[" + S(w.OffsetWord(1)) + "] + i * " + Uint(out.storage) + ";\n";
  if (out.storage >= 4) {
    for (int k = 0; k < out.storage / 4; ++k) body += "  t1.w[(a >> 2) + " + Uint(k) + "] = v[" + S(k) + "];\n";
  } else {
    const std::string mask = out.storage == 1 ? "0xffu" : "0xffffu";
    const std::string sh = out.storage == 1 ? "((a & 3u) * 8u)" : "((a & 2u) * 8u)";
    body += "  uint sh = " + sh + ";\n  atomicAnd(t1.w[a >> 2], ~(" + mask + " << sh));\n  atomicOr(t1.w[a >> 2], (v.x & " +
            mask + ") << sh);\n";
  }
  return PerElement(w, body);
}

}  // namespace kiln::compiler::vulkan

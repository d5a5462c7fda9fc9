// The shader header (bindings, per-tensor load/store helpers), the GLSL
// helpers the kernel families share (compiler/vulkan/kernels.h) and the choice
// of a family's generator per kernel; the families live in
// kernels_*.cc, their templates in kernels/vulkan/.
#include "compiler/vulkan/codegen.h"
#include "compiler/vulkan/kernels.h"
#include "kernels/kernel_table.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <set>
#include <map>

namespace kiln::compiler::vulkan {

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

namespace {

// For PerElements, in place of a body's leading OutputIndex: o0..oR-1 of
// the invocation's first element (kiln_first, or the last element where
// that is past it), declared once, and the step moving them to the next
// element at the end of each element's code (unless the next is past the
// last element), so that no element divides by the output's dims.
std::string FirstOutputIndex(const ShaderWriter& w) {
  size_t out = w.Out(0);
  return Decompose("min(kiln_first, p[0] - 1u)", DimsOf(w, out), Names("o", w.rank(out)), "rem_o");
}

std::string StepOutputIndex(const ShaderWriter& w) {
  const size_t out = w.Out(0);
  const int r = w.rank(out);
  if (r == 0) return "";
  const auto dims = DimsOf(w, out);
  // The last index steps; a wrap carries into the one before (o0 never
  // wraps: the element after the last is not stepped to). Built from o0
  // outwards, so the last index's test is the outermost.
  std::string step = "++o0;";
  for (int d = 1; d < r; ++d) {
    const std::string o = "o" + S(d);
    step = "if (++" + o + " == " + dims[d] + ") { " + o + " = 0u; " + step + " }";
  }
  return "  if (kiln_first + kiln_k + 1u < p[0]) { " + step + " }\n";
}

}  // namespace

ShaderSource PerElement(ShaderWriter& w, const std::string& body) { return PerElements(w, body, kPerInvocation); }

ShaderSource PerElements(ShaderWriter& w, const std::string& body_in, uint32_t per, const std::string& prefetch_in,
                         const std::string& decls, const std::string& after_in, bool body_stores, bool unroll) {
  // A body that returns early would skip the invocation's later elements.
  if (per <= 1 || body_in.find("return") != std::string::npos)
    return w.Finish(decls + Fill(Template("per_element.glsl"), {{"BODY", prefetch_in + body_in + after_in}}), 64);
  std::string body = body_in, prefetch = prefetch_in, after = after_in;
  // A body that starts by decomposing the output index (OutputIndex) and
  // neither breaks nor continues: the index is decomposed once per
  // invocation and stepped at the end of each element's code (divisions by
  // run-time dims per element are scalarised per lane on lavapipe: a
  // per-channel scale, shift and relu over 64x64x32x32 NCHW took 29 ms
  // instead of 13).
  const std::string index = OutputIndex(w);
  if (!index.empty() && body.compare(0, index.size(), index) == 0 && body.find("break") == std::string::npos &&
      body.find("continue") == std::string::npos) {
    body = body.substr(index.size()) + StepOutputIndex(w);
    prefetch = FirstOutputIndex(w) + prefetch;
  }
  // A sub-word output stored only at element i: its elements are gathered
  // into words (ShaderWriter's kiln_gbits) and written whole where the
  // invocation's elements all exist and start a word, bit by bit otherwise.
  // Element by element, each store is an atomic update of part of a word
  // (its neighbours may be another invocation's): an i8 pad of 62K
  // elements took 1.2 ms on lavapipe, an f32 -> bf16 convert of 256K 1 ms.
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = body.find(what); at != std::string::npos; at = body.find(what, at + 1)) ++n;
    return n;
  };
  for (size_t k = 0; k < w.num_outputs(); ++k) {
    const size_t out = w.Out(k);
    const int64_t bytes = w.type(out).storage;
    const std::string T = S(static_cast<int64_t>(out)), st = "st" + T + "(";
    const size_t stores = count(st);
    if (!body_stores || (bytes != 1 && bytes != 2) || stores == 0 || count(st + "i, ") != stores ||
        per * bytes % 4 != 0 || per * bytes / 4 > kGatheredWords)
      continue;
    const std::string words = S(static_cast<int64_t>(per * bytes / 4)), E = S(static_cast<int64_t>(per)) + "u";
    const std::string off = "p[" + S(w.OffsetWord(out)) + "]";
    // (The words: an array local to main, indexed by the element's place
    // in the invocation, kiln_k, constant where the element loop is
    // unrolled. A module-scope array written through a helper took 12% more
    // time in an f32 -> bf16 convert on lavapipe.)
    const std::string gathered = "kiln_gw" + T + "[(kiln_k * " + Uint(bytes) + ") >> 2] |= kiln_gbits" + T + "(kiln_k, ";
    for (size_t at = body.find(st + "i, "); at != std::string::npos; at = body.find(st + "i, ", at + gathered.size()))
      body.replace(at, st.size() + 3, gathered);
    prefetch = "  uint kiln_gw" + T + "[" + words + "];\n  [[unroll]] for (uint j = 0u; j < " + words + "; ++j) kiln_gw" + T +
               "[j] = 0u;\n" + prefetch;
    after += "  if (kiln_first < p[0]) {\n    const uint a0 = " + off + " + kiln_first * " + Uint(bytes) +
             ";\n    if (kiln_first + " + E + " <= p[0] && (a0 & 3u) == 0u) {\n      [[unroll]] for (uint j = 0u; j < " +
             words + "; ++j) t" + T + ".w[(a0 >> 2) + j] = kiln_gw" + T + "[j];\n    } else {\n      for (uint k = 0u; k < " +
             E + " && kiln_first + k < p[0]; ++k) kiln_stb" + T + "(kiln_first + k, kiln_gw" + T + "[(k * " + Uint(bytes) +
             ") >> 2] >> (((k * " + Uint(bytes) + ") & 3u) * 8u));\n    }\n  }\n";
  }
  // Where the body still stores, the loop ends at the last element;
  // where every store is gathered (or done after the loop), elements past
  // the last are computed at the last one's index and never written: an
  // exit per element of an unrolled loop made an f32 -> f16 multiply 18%
  // slower on lavapipe.
  bool stores_left = false;
  for (size_t k = 0; k < w.num_outputs(); ++k)
    stores_left = stores_left || count("st" + S(static_cast<int64_t>(w.Out(k))) + "(") > 0;
  w.extensions.push_back("GL_EXT_control_flow_attributes");  // [[unroll]], [[dont_unroll]]
  const std::string element = body_stores && stores_left
                                  ? "    const uint i = kiln_first + kiln_k;\n    if (i >= p[0]) break;"
                                  : "    const uint i = min(kiln_first + kiln_k, p[0] - 1u);";
  ShaderSource s = w.Finish(decls + Fill(Template("per_elements.glsl"), {{"BODY", body},
                                                                         {"PER", S(per)},
                                                                         {"PREFETCH", prefetch},
                                                                         {"AFTER", after},
                                                                         {"ELEMENT", element},
                                                                         {"LOOP_HINT", unroll ? "[[unroll]]" : "[[dont_unroll]]"}}),
                            64);
  s.grid_args = {0, per};
  return s;
}

// --- helpers the kernel families share ----------------------------------------

// GLSL expressions reading dispatch inputs [first, first + types.size()) as
// program params of `types` for output invocation "i" (kernels/reference/
// elementwise_inputs.h): at that index, at the only element (rank 0), or,
// with an axis map (per input: rank r, then r output axes; "input_broadcast"),
// through it, a size-1 dimension repeating along its axis. The map needs the
// output multi-index o0..oR-1 declared (OutputIndex). With `slices`
// (kiln.elementwise's "input_slices": per input 0, or r, r starts, r
// strides) a sliced input is read at start + output index * stride.
Status ReadInputs(const DispatchUse& u, ShaderWriter& w, std::span<const int64_t> map, size_t first,
                  const std::vector<ElementType>& types, std::vector<std::string>* params,
                  std::span<const int64_t> slices) {
  const int out_rank = w.rank(w.Out(0));
  auto o = Names("o", out_rank);
  if (!slices.empty() && map.empty()) return Refuse(u, "input_slices without input_broadcast");
  size_t at = 0, slice_at = 0;
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
    std::span<const int64_t> start, step;  // the input's slice, or none
    if (!slices.empty()) {
      if (slice_at >= slices.size()) return Refuse(u, "input_slices does not match the operands");
      const int64_t r = slices[slice_at];
      if (r != 0) {
        if (r != w.rank(t) || slices.size() - slice_at - 1 < 2 * static_cast<size_t>(r))
          return Refuse(u, "input_slices does not match the operands");
        start = slices.subspan(slice_at + 1, static_cast<size_t>(r));
        step = slices.subspan(slice_at + 1 + static_cast<size_t>(r), static_cast<size_t>(r));
      }
      slice_at += 1 + 2 * static_cast<size_t>(r);
    }
    std::vector<std::string> idx;
    for (int64_t d = 0; d < map[at]; ++d) {
      int64_t axis = map[at + 1 + d];
      if (axis < 0 || axis >= out_rank) return Refuse(u, "input_broadcast names an axis out of range");
      if (!start.empty()) {
        if (start[d] < 0 || step[d] < 1) return Refuse(u, "bad input_slices");
        idx.push_back("(" + std::to_string(start[d]) + "u + " + o[axis] + " * " + std::to_string(step[d]) + "u)");
      } else {
        idx.push_back("(" + dims[d] + " == 1u ? 0u : " + o[axis] + ")");
      }
    }
    at += 1 + map[at];
    params->push_back(w.Load(t, idx.empty() ? "0u" : Linear(idx, dims)));
  }
  if (!map.empty() && at != map.size()) return Refuse(u, "input_broadcast does not match the operands");
  if (slice_at != slices.size()) return Refuse(u, "input_slices does not match the operands");
  return Status::Ok();
}

std::string AccumulatorValue(const GType& rt) {
  if (rt.cls == C::kFloat) return RoundTo(rt, "acc");
  if (rt.bits >= 32 || rt.cls == C::kComplex || rt.cls == C::kBool) return "acc";
  if (rt.cls == C::kSigned) return "bitfieldExtract(acc, 0, " + S(rt.bits) + ")";
  return "(acc & " + Uint((int64_t{1} << rt.bits) - 1) + ")";
}

// How a producer (dot_general, convolution) stores its result `value` at
// output index "i": directly, or through its fused epilogue (kernels/
// reference/epilogue.h), whose other params are the dispatch inputs from
// `first_extra` on. `declare_index` declares the output multi-index the
// epilogue's axis map needs (the producer has not).
StatusOr<std::string> StoreResult(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w, size_t first_extra,
                                  const std::string& value, bool declare_index, EpilogueColumn* column) {
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
  }
  std::vector<std::string> params = {"(" + value + ")"};
  std::vector<ElementType> extra(prog->param_types.begin() + 1, prog->param_types.end());
  KILN_RETURN_IF_ERROR(ReadInputs(u, w, extra_map, first_extra, extra, &params));
  // Whether a read left per element needs the output multi-index.
  bool needs_index = !extra_map.empty();
  if (column != nullptr && column->axis >= 0) {
    // The reads that depend on the column's axis alone (a bias, a batch
    // norm's per-feature vectors, scalars) move to the column's code.
    const int64_t out_rank = w.rank(out);
    needs_index = false;
    size_t at = 0;
    for (size_t j = 0; j < extra.size(); ++j) {
      const size_t t = first_extra + j;
      bool by_column = extra_map.empty() && w.rank(t) == 0 && out_rank > 0;
      if (!extra_map.empty()) {
        const int64_t r = extra_map[at];
        by_column = true;
        for (int64_t d = 0; d < r; ++d) by_column = by_column && extra_map[at + 1 + d] == column->axis;
        at += 1 + static_cast<size_t>(r);
        needs_index = needs_index || !by_column;
      }
      if (!by_column) continue;
      const std::string name = "kiln_col" + std::to_string(j);
      column->code += "      const " + w.type(t).name + " " + name + " = " + params[1 + j] + ";\n";
      params[1 + j] = name;
    }
  }
  if (declare_index && needs_index) code += OutputIndex(w);
  std::vector<std::string> results;
  KILN_RETURN_IF_ERROR(EmitScalarProgram(*prog, params, "e", &code, &results, &w.features));
  return code + "  " + w.Store(out, "i", results[0]);
}

std::string StoreTile(const KernelParams& kp, const std::string& rows, const std::string& cols,
                      const std::string& acc, const std::string& coords, const std::string& guard,
                      const std::string& store, const EpilogueColumn& column, const std::string& acc_type) {
  const std::string body = "      " + coords + "\n      if (" + guard + ") {\n" + store + "\n      }\n";
  if (kp.Program("epilogue") == nullptr)
    return "  [[unroll]] for (uint r = 0u; r < " + rows + "; ++r)\n    [[unroll]] for (uint c = 0u; c < " + cols +
           "; ++c) {\n        const " + acc_type + " v = " + acc + ";\n" + body + "    }\n";
  // Unrolled, each element had its own copy of the epilogue: 128 of a
  // batch norm's index arithmetic and loads made lavapipe take 17 s to
  // compile a 1x1 convolution that alone took 1 s, and as long again at
  // every cold start. Staged, the registers are copied out once (constant
  // indices) and the epilogue's code appears once.
  std::string staged = "  " + acc_type + " tile[" + rows + " * " + cols + "];\n  [[unroll]] for (uint r = 0u; r < " + rows +
                       "; ++r)\n    [[unroll]] for (uint c = 0u; c < " + cols + "; ++c) tile[r * " + cols +
                       " + c] = " + acc + ";\n";
  if (column.code.empty())
    return staged + "  [[dont_unroll]] for (uint t = 0u; t < " + rows + " * " + cols +
           "; ++t) {\n      const uint r = t / " + cols + ", c = t % " + cols + ";\n      const " + acc_type + " v = tile[t];\n" +
           body + "  }\n";
  // Column by column, the reads that depend on the column alone made once
  // per column (lavapipe loads a storage buffer lane by lane: per element,
  // a batch norm's three vectors cost a third of a 1x1 convolution).
  return staged + "  [[dont_unroll]] for (uint c = 0u; c < " + cols + "; ++c) {\n" + column.start + column.code +
         "    [[dont_unroll]] for (uint r = 0u; r < " + rows + "; ++r) {\n      const " + acc_type + " v = tile[r * " + cols +
         " + c];\n" + body + "    }\n  }\n";
}

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
        if (IsMinifloat(g.type)) value = MinifloatCall("decode", g.type, "b");
        else if (g.cls == C::kBool) value = "(b & 0xffu) != 0u";
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
        if (IsMinifloat(g.type)) to_bits = MinifloatCall("encode", g.type, "v");
        else if (g.cls == C::kBool) to_bits = "(v ? 1u : 0u)";
        else if (g.is_64()) to_bits = "unpackUint2x32(uint64_t(v))";
        else to_bits = "uint(v)";
    }
    if (g.storage == 1 || g.storage == 2) {
      // Neighbouring sub-word elements belong to other invocations: a store
      // (st, and the edges of the gathered stores of PerElements) updates
      // only its element's bits, atomically. Gathered stores (PerElements):
      // an invocation's consecutive elements packed into words, each
      // element's bits placed by kiln_gbits at its place k in the
      // invocation.
      const std::string mask = g.storage == 1 ? "0xffu" : "0xffffu";
      helpers_ += "void kiln_stb" + T + "(uint i, uint b) {\n  uint a = " + addr + ";\n  uint sh = " +
                  (g.storage == 1 ? "((a & 3u) * 8u)" : "((a & 2u) * 8u)") + ";\n  atomicAnd(t" + T + ".w[a >> 2], ~(" +
                  mask + " << sh));\n  atomicOr(t" + T + ".w[a >> 2], (b & " + mask + ") << sh);\n}\n";
      helpers_ += "void st" + T + "(uint i, " + g.name + " v) { kiln_stb" + T + "(i, " + to_bits + "); }\n";
      helpers_ += "uint kiln_gbits" + T + "(uint k, " + g.name + " v) {\n  uint b = " + to_bits + ";\n  return (b & " +
                  mask + ") << (((k * " + Uint(g.storage) + ") & 3u) * 8u);\n}\n";
      continue;
    }
    helpers_ += "void st" + T + "(uint i, " + g.name + " v) {\n  uint a = " + addr + ";\n  " + btype + " b = " +
                to_bits + ";\n";
    switch (g.storage) {
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

namespace {

// `helpers + body` with every parameter word read at a constant index
// (p[N]) read once, at the start of main, into a private variable: lavapipe
// compiles each storage-buffer load to a loop over the lanes even where
// the address is uniform, and a per-element shader read its tensors'
// offsets and dims again for every load, store and index it computed (an
// add of two tensors: seven such loops per element instead of three). The
// words are read-only for the whole dispatch. Bodies without a main of the
// expected form are left as they are.
std::string HoistParamWords(const std::string& helpers, const std::string& body) {
  const std::string entry = "void main() {\n";
  const size_t at = body.find(entry);
  if (at == std::string::npos || body.find(entry, at + 1) != std::string::npos) return helpers + body;
  std::set<uint32_t> words;
  auto rewrite = [&words](const std::string& text) {
    std::string out;
    out.reserve(text.size());
    size_t i = 0;
    while (i < text.size()) {
      const bool boundary = i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_');
      if (boundary && text.compare(i, 2, "p[") == 0) {
        size_t j = i + 2;
        while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
        if (j > i + 2 && j < text.size() && text[j] == ']' && j - (i + 2) <= 6) {
          const std::string digits = text.substr(i + 2, j - (i + 2));
          words.insert(static_cast<uint32_t>(std::stoul(digits)));
          out += "kiln_p" + digits;
          i = j + 1;
          continue;
        }
      }
      out += text[i++];
    }
    return out;
  };
  const std::string h = rewrite(helpers), b = rewrite(body);
  if (words.empty()) return helpers + body;
  std::string decl, init;
  for (uint32_t k : words) {
    decl += "uint kiln_p" + S(k) + ";\n";
    init += "  kiln_p" + S(k) + " = p[" + S(k) + "];\n";
  }
  const size_t bat = b.find(entry) + entry.size();
  return decl + h + b.substr(0, bat) + init + b.substr(bat);
}

}  // namespace

std::string ShaderWriter::TexelInputDecl(uint32_t texel_inputs, size_t j, const std::string& name) const {
  const uint32_t before = texel_inputs & ((1u << j) - 1u);
  const size_t binding = 1 + num_inputs() + num_outputs() + static_cast<size_t>(std::popcount(before));
  return "layout(set = 0, binding = " + std::to_string(binding) + ") uniform samplerBuffer " + name + ";\n";
}

std::string ShaderWriter::TexelViewCovers(size_t t, const std::string& tex, const std::string& elements) const {
  const std::string at = "(p[" + std::to_string(OffsetWord(t)) + "] / 4u)", size = "uint(textureSize(" + tex + "))";
  const std::string texels = "((" + elements + ") / 4u + uint(((" + elements + ") & 3u) != 0u))";
  return "((" + at + " & 3u) == 0u && " + at + " / 4u <= " + size + " && " + texels + " <= " + size + " - " + at +
         " / 4u)";
}

std::string ShaderWriter::Vec4OutputDecl(size_t t) const {
  const std::string T = std::to_string(t);
  return "layout(std430, set = 0, binding = " + std::to_string(t + 1) + ") buffer Tensor" + T + "v { uvec4 w4[]; } t" +
         T + "v;\n";
}

std::string ShaderWriter::Vec4Store(size_t t, const std::string& first, const std::string& vec4) const {
  return "t" + std::to_string(t) + "v.w4[p[" + std::to_string(OffsetWord(t)) + "] / 16u + (" + first +
         ") / 4u] = floatBitsToUint(" + vec4 + ");";
}

ShaderSource ShaderWriter::Finish(const std::string& body, uint32_t local_x, uint32_t local_y) {
  ShaderSource s;
  s.features = features;
  s.workgroup_size = local_x * local_y;
  std::string head = "#version 450\n";
  if (features & (hal::kShaderInt64 | hal::kShaderFloat64))
    head += "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n";
  for (const std::string& e : extensions) head += "#extension " + e + " : require\n";
  head += "layout(local_size_x = " + S(local_x) + ", local_size_y = " + S(local_y) + ") in;\n";
  head += Template("math32.glsl");  // Kiln's own f32 math (the preludes' complex helpers use it)
  head += Template("prelude.glsl");
  // The f4/f6/f8 codecs only where a load, store or rounding uses one.
  if (body.find("kiln_mf_") != std::string::npos || helpers_.find("kiln_mf_") != std::string::npos)
    head += Template("minifloat.glsl");
  if (features & hal::kShaderInt64) head += Template("prelude_i64.glsl");
  if (features & hal::kShaderFloat64) head += std::string(Template("prelude64.glsl")) + Template("math64.glsl");
  // The special functions only where a scalar program calls one (scalar.cc).
  static const char* const kSpecial[] = {"kiln_lgamma_d(", "kiln_digamma_d(", "kiln_bessel_i1e_d(",
                                         "kiln_polygamma_d(", "kiln_zeta_d("};
  if (features & hal::kShaderFloat64) {
    for (const char* f : kSpecial) {
      if (body.find(f) != std::string::npos || helpers_.find(f) != std::string::npos) {
        head += Template("special64.glsl");
        break;
      }
    }
  }
  s.glsl = head + HoistParamWords(helpers_, body);
  return s;
}

// The shader generator of each kernel (kernels/kernels.def) that has its own;
// every other kernel is an index map (IndexMap: each result element copies
// or generates one value), which refuses what it cannot express.
struct KernelGenerator {
  KernelId kernel;
  ShaderGenerator* generate;
};
constexpr KernelGenerator kGenerators[] = {
    {KernelId::kElementwise, &Elementwise},
    {KernelId::kDotGeneral, &DotGeneral},
    {KernelId::kDot, &DotGeneral},
    {KernelId::kReduce, &Reduce},
    {KernelId::kRowBlock, &RowBlock},
    {KernelId::kTriangularSolve, &TriangularSolve},
    {KernelId::kCholesky, &Cholesky},
    {KernelId::kBitcastConvert, &BitcastConvert},
    {KernelId::kBatchNormTraining, &BatchNorm},
    {KernelId::kBatchNormGrad, &BatchNorm},
    {KernelId::kRaggedDot, &RaggedDot},
    {KernelId::kScan, &Scan},
    {KernelId::kGeqrf, &Qr},
    {KernelId::kOrgqr, &Qr},
    {KernelId::kLu, &Lu},
    {KernelId::kGtsv, &Gtsv},
    {KernelId::kSytrd, &Sytrd},
    {KernelId::kSyevd, &Syevd},
    {KernelId::kGeqp3, &Geqp3},
    {KernelId::kGesdd, &Svd},
    {KernelId::kGesvd, &Svd},
    {KernelId::kGehrd, &Gehrd},
    {KernelId::kFft, &Fft},
    {KernelId::kMap, &Map},
    {KernelId::kGather, &Gather},
    {KernelId::kDynamicGather, &Gather},
    {KernelId::kSort, &Sort},
    {KernelId::kTopK, &TopK},
    {KernelId::kRngBitGenerator, &RngBitGenerator},
    {KernelId::kRng, &Rng},
    {KernelId::kScatter, &Scatter},
    {KernelId::kSelectAndScatter, &SelectAndScatter},
    {KernelId::kReduceWindow, &ReduceWindow},
    {KernelId::kUniformQuantize, &Quantization},
    {KernelId::kUniformDequantize, &Quantization},
    {KernelId::kConvolution, &Convolution},
    {KernelId::kDynamicConv, &Convolution},
};

StatusOr<ShaderSource> GenerateShader(const KernelParams& params, const DispatchUse& use) {
  ShaderWriter w(use);
  KILN_RETURN_IF_ERROR(w.Begin());
  if (use.out_types.empty()) return Refuse(use, "a dispatch without results");
  if (const std::optional<KernelId> id = FindKernelId(params.kernel))
    for (const KernelGenerator& g : kGenerators)
      if (g.kernel == *id) return g.generate(params, use, w);
  return IndexMap(params, use, w);
}

}  // namespace kiln::compiler::vulkan

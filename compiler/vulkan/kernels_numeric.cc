// The vulkan target's shaders, part: numeric kernels (kernels/kernels.def):
// fft, sort, top_k, rng_bit_generator and rng.
// Shared helpers: compiler/vulkan/kernels.h.
#include "compiler/vulkan/kernels.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numbers>

namespace kiln::compiler::vulkan {

using C = GType::Class;

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

// chlo.top_k: one invocation per row (all dimensions but the last) keeps
// the row's k largest values and their indices in its results, in order,
// inserting each element of the row behind the ones not smaller than it, so
// that equal values keep the lower index first. "Larger" is the reference
// kernel's comparison (kernels/reference/numeric_sort.cc): the total order
// for floats (NaN above +inf), signed or unsigned for integers, translated
// from the same compare instruction as the other shaders' compares; f16 and
// bf16 are compared and moved as their bits. O(n * k) per row.
StatusOr<ShaderSource> TopK(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 1 || u.out_types.size() != 2) return Refuse(u, "expected one operand and two results");
  const ElementType t = u.in_types[0];
  if (u.out_types[0] != t || IsComplex(t) || !IsInteger(u.out_types[1]))
    return Refuse(u, "values must have the operand's non-complex type and indices an integer type");
  const int r = w.rank(0);
  if (r < 1 || w.rank(w.Out(0)) != r || w.rank(w.Out(1)) != r) return Refuse(u, "operand and results ranks differ");
  const int64_t k_attr = kp.Int("k", -1);
  if (k_attr < 0) return Refuse(u, "needs k >= 0");

  const size_t vals = w.Out(0), idxs = w.Out(1);
  std::string fn, g;
  std::function<std::string(const std::string&)> load_in, load_val;
  std::function<std::string(const std::string&, const std::string&)> store_val;
  if (IsFloat(t) && w.type(0).storage == 2) {
    // f16 and bf16 as their bits, so that a NaN's payload passes unchanged
    // (the float conversions quiet a signaling NaN), ordered by the bits'
    // total-order key: negative values reversed below the positive ones.
    g = "uint";
    const std::string in = S(w.OffsetWord(0)), out = S(w.OffsetWord(vals)), V = S(static_cast<int64_t>(vals));
    fn = "uint kiln_in_bits(uint i) { uint a = p[" + in + "] + i * 2u; return (t0.w[a >> 2] >> ((a & 2u) * 8u)) & 0xffffu; }\n"
         "uint kiln_val_bits(uint i) { uint a = p[" + out + "] + i * 2u; return (t" + V +
         ".w[a >> 2] >> ((a & 2u) * 8u)) & 0xffffu; }\n"
         "void kiln_put_bits(uint i, uint b) {\n  uint a = p[" + out + "] + i * 2u, sh = (a & 2u) * 8u;\n"
         "  atomicAnd(t" + V + ".w[a >> 2], ~(0xffffu << sh));\n  atomicOr(t" + V + ".w[a >> 2], b << sh);\n}\n"
         "uint kiln_key(uint b) { return (b & 0x8000u) != 0u ? (~b & 0xffffu) : (b | 0x8000u); }\n"
         "bool kiln_greater(uint a, uint b) { return kiln_key(a) > kiln_key(b); }\n";
    load_in = [](const std::string& i) { return "kiln_in_bits(" + i + ")"; };
    load_val = [](const std::string& i) { return "kiln_val_bits(" + i + ")"; };
    store_val = [](const std::string& i, const std::string& v) { return "kiln_put_bits(" + i + ", " + v + ");"; };
  } else {
    ScalarProgram greater;
    greater.param_types = {t, t};
    greater.instrs.push_back(GreaterThanInstr(t));
    greater.results = {2};
    std::string code;
    std::vector<std::string> results;
    KILN_RETURN_IF_ERROR(EmitScalarProgram(greater, {"a", "b"}, "v", &code, &results, &w.features));
    g = w.type(0).name;
    fn = "bool kiln_greater(" + g + " a, " + g + " b) {\n" + code + "  return " + results[0] + ";\n}\n";
    load_in = [&w](const std::string& i) { return w.Load(0, i); };
    load_val = [&w, vals](const std::string& i) { return w.Load(vals, i); };
    store_val = [&w, vals](const std::string& i, const std::string& v) { return w.Store(vals, i, v); };
  }
  KILN_ASSIGN_OR_RETURN(GType index_type, GlslType(ElementType::kUI32));
  KILN_ASSIGN_OR_RETURN(std::string index, ConvertExpr(index_type, w.type(w.Out(1)), "j"));

  // p[0] counts output 0's elements: rows * k invocations, the first `rows` work.
  std::string s = "  uint n = " + w.Dim(0, r - 1) + ", k = " + w.Dim(vals, r - 1) + ";\n";
  s += "  if (k == 0u || i >= p[0] / k) return;\n";
  s += "  uint in_base = i * n, out_base = i * k, filled = 0u;\n";
  s += "  for (uint j = 0u; j < n; ++j) {\n";
  s += "    " + g + " v = " + load_in("in_base + j") + ";\n";
  s += "    if (filled == k && !kiln_greater(v, " + load_val("out_base + k - 1u") + ")) continue;\n";
  s += "    uint at = filled < k ? filled : k - 1u;\n";
  s += "    if (filled < k) ++filled;\n";
  s += "    while (at > 0u && kiln_greater(v, " + load_val("out_base + at - 1u") + ")) {\n";
  s += "      " + store_val("out_base + at", load_val("out_base + at - 1u")) + "\n";
  s += "      " + w.Store(idxs, "out_base + at", w.Load(idxs, "out_base + at - 1u")) + "\n";
  s += "      --at;\n    }\n";
  s += "    " + store_val("out_base + at", "v") + "\n";
  s += "    " + w.Store(idxs, "out_base + at", index) + "\n";
  s += "  }\n";
  return w.Finish(fn + Fill(Template("per_element.glsl"), {{"BODY", s}}), 64);
}

// rng_bit_generator: see kernels/vulkan/random.glsl. One invocation per
// element of the bits (its one or two words of the stream); invocation 0
// also writes the advanced state. The grid runs over the larger output.
StatusOr<ShaderSource> RngBitGenerator(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 1 || u.out_types.size() != 2) return Refuse(u, "expected a state and two results");
  std::string_view alg = kp.Str("rng_algorithm");
  if (alg.empty() || alg == "DEFAULT") alg = "PHILOX";
  if (alg != "THREE_FRY" && alg != "PHILOX") return Refuse(u, "unknown rng_algorithm");
  const GType& state = w.type(0);
  const size_t out_state = w.Out(0), bits_out = w.Out(1);
  if (w.rank(0) != 1 || !state.is_64() || state.cls == C::kFloat || w.type(out_state).type != state.type)
    return Refuse(u, "the state must be a 1-D ui64 tensor");
  const GType& t = w.type(bits_out);
  if (t.cls == C::kComplex) return Refuse(u, "complex results");
  const bool threefry = alg == "THREE_FRY";
  const int per_element = t.bits > 32 ? 2 : 1;
  const std::vector<std::string> dims = DimsOf(w, bits_out);
  std::string count = "1u";
  for (const std::string& d : dims) count += " * " + d;
  // THREE_FRY's results of 32 bits or fewer: XLA's layout
  // (kernels/reference/threefry_layout.h): the result as [outer, split,
  // inner] around the split dim, hsplit = ceil(split / 2) blocks along it.
  const bool halves = threefry && per_element == 1;
  std::string layout;
  if (halves && !dims.empty()) {
    const std::string r = std::to_string(dims.size());
    layout += "  const uint d[" + r + "] = uint[" + r + "](";
    for (size_t k = 0; k < dims.size(); ++k) layout += (k ? ", " : "") + dims[k];
    layout += ");\n  uint s = " + r + "u;\n";
    layout += "  for (uint k = 0u; k < " + r + "u; ++k) if (s == " + r + "u && (d[k] & 1u) == 0u) s = k;\n";
    layout += "  if (s == " + r + "u) { s = 0u; for (uint k = 1u; k < " + r + "u; ++k) if (d[k] > d[s]) s = k; }\n";
    layout += "  uint inner = 1u;\n  for (uint k = s + 1u; k < " + r + "u; ++k) inner *= d[k];\n";
    layout += "  const uint split = d[s], hsplit = (split + 1u) / 2u;\n";
    layout += "  const uint64_t blocks_used = split == 0u ? 0ul : uint64_t(n / split) * uint64_t(hsplit);\n";
  } else if (halves) {
    layout += "  const uint inner = 1u, split = 1u, hsplit = 1u;\n  const uint64_t blocks_used = 1ul;\n";
  }
  std::string word = "uint64_t(i) * " + std::to_string(per_element) + "ul";
  if (halves)
    word = "2ul * uint64_t(((i / inner) / split * hsplit + ((i / inner) % split) / 2u) * inner + i % inner) + "
           "uint64_t(((i / inner) % split) & 1u)";
  std::string raw = "uint64_t(kiln_rng_word(tf, key, lo, hi, " + word + "))";
  if (per_element == 2)
    raw += " | (uint64_t(kiln_rng_word(tf, key, lo, hi, uint64_t(i) * 2ul + 1ul)) << 32)";
  const std::string bits = t.is_64() ? "raw" : t.bits < 32 ? "(uint(raw) & " + Uint((int64_t{1} << t.bits) - 1) + ")"
                                                           : "uint(raw)";
  std::string body = "  const bool tf = " + std::string(threefry ? "true" : "false") + ";\n";
  body += "  const uint words = " + w.Dim(0, 0) + ", n = " + count + ";\n" + layout;
  // A state of the wrong size (the CPU refuses the call): nothing is read.
  body += "  if (words != 2u && (tf || words != 3u)) return;\n";
  body += "  uint64_t key = uint64_t(" + w.Load(0, "0u") + "), lo = uint64_t(" + w.Load(0, "1u") +
          "), hi = words == 3u ? uint64_t(" + w.Load(0, "2u") + ") : 0ul;\n";
  body += "  if (i < n) {\n    uint64_t raw = " + raw + ";\n    " + w.Store(bits_out, "i", ValueFromBits(t, bits)) +
          "\n  }\n";
  body += "  if (i == 0u) {\n";
  body += "    uint64_t per_block = tf ? 2ul : 4ul, blocks = " +
          (halves ? std::string("blocks_used") : "(uint64_t(n) * " + std::to_string(per_element) +
                                                    "ul + per_block - 1ul) / per_block") + ";\n";
  body += "    uint64_t next = lo + blocks;\n";
  const std::string as = state.name;
  body += "    " + w.Store(out_state, "0u", as + "(key)") + "\n    " + w.Store(out_state, "1u", as + "(next)") + "\n";
  body += "    if (words == 3u) " + w.Store(out_state, "2u", as + "(hi + (next < lo ? 1ul : 0ul))") + "\n  }\n";
  w.features |= hal::kShaderInt64;
  ShaderSource src = w.Finish(std::string(Template("random.glsl")) + Fill(Template("per_element.glsl"), {{"BODY", body}}), 64);
  src.grid_args = {1};
  return src;
}

// rng: see kernels/vulkan/random.glsl; element i from its own 64 bits, as
// kernels/reference/numeric_random.cc. UNIFORM floats in f64 (rounded to
// the type directly: through f32 by round to odd), integers and booleans
// in 64-bit integers. NORMAL floats: the reference's Box-Muller in f64 with
// math64.glsl's log and cos (within a few f64 ulp of C's, so the result can
// differ from the CPU's in its last bits; rng's bits are
// implementation-defined), rounded to the type as UNIFORM's.
StatusOr<ShaderSource> Rng(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 3 || u.out_types.size() != 1) return Refuse(u, "expected a, b, a shape and one result");
  const size_t out = w.Out(0);
  const GType& t = w.type(out);
  if (w.rank(0) != 0 || w.rank(1) != 0 || w.type(0).type != t.type || w.type(1).type != t.type)
    return Refuse(u, "a and b must be scalars of the result's type");
  const std::string_view dist = kp.Str("rng_distribution");
  const bool normal = dist == "NORMAL";
  if (!normal && !dist.empty() && dist != "UNIFORM") return Refuse(u, "unknown rng_distribution");
  if (normal && t.cls != C::kFloat) return Refuse(u, "NORMAL needs a float type");
  if (t.cls == C::kComplex) return Refuse(u, "complex results");
  std::string body = "  uint64_t r = kiln_rng_bits(i);\n";
  const std::string a = w.Load(0, "0u"), b = w.Load(1, "0u");
  if (t.cls == C::kFloat) {
    w.features |= hal::kShaderFloat64 | hal::kShaderInt64;
    KILN_ASSIGN_OR_RETURN(GType f64, GlslType(ElementType::kF64));
    if (normal) {
      body += "  precise double u1 = (double(r >> 32) + 1.0) / 4294967296.0;\n";  // (0, 1]
      body += "  precise double u2 = double(r & 0xFFFFFFFFul) / 4294967296.0;\n";  // [0, 1)
      body += "  precise double x = double(" + a + ") + double(" + b + ") * sqrt(-2.0 * kiln_log_d(u1)) * kiln_cos_d(" +
              FloatConst(f64, 2.0 * std::numbers::pi) + " * u2);\n";
    } else {
      body += "  precise double u = double(r >> 11) * " + FloatConst(f64, 0x1.0p-53) + ";\n";
      body += "  precise double x = double(" + a + ") + (double(" + b + ") - double(" + a + ")) * u;\n";
    }
    const std::string v = t.name == "double" ? "x" : t.type == ElementType::kF32 ? "float(x)" : RoundTo(t, "kiln_d2f_odd(x)");
    body += "  " + t.name + " v = " + v + ";\n";
    if (!normal) body += "  if (!(v < " + b + ")) v = " + a + ";\n";
  } else {
    w.features |= hal::kShaderInt64;
    const bool is_unsigned = t.cls == C::kUnsigned || t.cls == C::kBool;
    auto widen = [&](const std::string& e) {
      if (t.cls == C::kBool) return "uint64_t(" + e + " ? 1u : 0u)";
      return is_unsigned ? "uint64_t(" + e + ")" : "uint64_t(int64_t(" + e + "))";
    };
    body += "  uint64_t ua = " + widen(a) + ", ub = " + widen(b) + ";\n";
    body += std::string("  bool less = ") + (is_unsigned ? "ua < ub" : "int64_t(ua) < int64_t(ub)") + ";\n";
    body += "  uint64_t raw = less ? ua + r % (ub - ua) : ua;\n";
    const std::string v = t.cls == C::kBool ? "(raw & 1ul) != 0ul" : t.is_64() ? t.name + "(raw)" : ValueFromBits(t, "uint(raw)");
    body += "  " + t.name + " v = less ? " + v + " : " + a + ";\n";
  }
  body += "  " + w.Store(out, "i", "v") + "\n";
  return w.Finish(std::string(Template("random.glsl")) + Fill(Template("per_element.glsl"), {{"BODY", body}}), 64);
}

}  // namespace kiln::compiler::vulkan

// The vulkan target's shaders, part: numeric kernels (kernels/kernels.def):
// fft, sort and top_k.
// Shared helpers: compiler/vulkan/kernels.h.
#include "compiler/vulkan/kernels.h"

#include <algorithm>
#include <functional>
#include <map>

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

}  // namespace kiln::compiler::vulkan

// The vulkan target's shaders, part: elementwise (kernels/kernels.def): elementwise ops, map and uniform
// (de)quantization: one invocation per output element.
// Shared helpers: compiler/vulkan/kernels.h.
#include "compiler/vulkan/kernels.h"

#include <cstring>

#include <algorithm>
#include <cctype>
#include <bit>
#include <map>

namespace kiln::compiler::vulkan {

using C = GType::Class;

namespace {

// Whether an elementwise program's code is light enough to unroll 16 times:
// at most 1,500 characters, calling at most two of Kiln's exp, log, tanh or logistic (each
// a few dozen operations once inlined) and otherwise only its conversions
// and tests. Unrolled, a program of complex functions took lavapipe minutes
// to compile (VulkanTest.ComplexFunctionsMatchTheCpu: 179 s cold); rolled,
// the loop indexes its arrays at run time, and the 16M-element chain of
// docs/performance.md took 55 ms instead of 29.
bool LightToUnroll(const std::string& code) {
  static const char* const kTranscendental[] = {"kiln_exp", "kiln_log", "kiln_tanh", "kiln_logistic"};
  static const char* const kCheap[] = {"kiln_m_isnan", "kiln_m_isinf", "kiln_m_signbit", "kiln_copysign", "kiln_nan",
                                       "kiln_inf", "kiln_trunc", "kiln_round_f16", "kiln_round_bf16",
                                       "kiln_f16_to_f32", "kiln_f32_to_f16", "kiln_bf16_to_f32", "kiln_f32_to_bf16",
                                       "kiln_fmax", "kiln_fmin"};
  if (code.size() > 1500) return false;
  int heavy = 0;
  for (size_t at = code.find("kiln_"); at != std::string::npos; at = code.find("kiln_", at + 1)) {
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(code[at - 1])) || code[at - 1] == '_')) continue;
    size_t end = at;
    while (end < code.size() && (std::isalnum(static_cast<unsigned char>(code[end])) || code[end] == '_')) ++end;
    if (end >= code.size() || code[end] != '(') continue;  // a variable (kiln_x0, kiln_k), not a call
    const std::string name = code.substr(at, end - at);
    bool known = false;
    for (const char* c : kCheap) known = known || name == c;
    if (known) continue;
    for (const char* t : kTranscendental) known = known || name == t;
    if (!known || ++heavy > 2) return false;
  }
  return true;
}

// Elements per invocation of an elementwise program, its loop unrolled: on
// lavapipe, 16M f32 elements of x * 2 took 29.6 ms at 4, 25.9 at 8, 22.5 at
// 16 and 27.8 at 32; tanh(x * 0.5 + 1) * x - 0.25 40.2, 36.5, 31.7 and 37.6
// ms (vm-bench --profile, two rounds alike). Creating the transformer
// block's pipelines cold took 4.5 s at 4, 4.9 s at 16.
constexpr uint32_t kElementwisePerInvocation = 16;
}  // namespace

StatusOr<ShaderSource> Elementwise(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  const ScalarProgram* prog = kp.Program("body");
  if (!prog) return Refuse(u, "missing body");
  if (prog->param_types.size() != u.in_types.size() || prog->results.size() != u.out_types.size())
    return Refuse(u, "operands do not match the body");
  auto map = kp.Ints("input_broadcast");
  std::string body = map.empty() ? "" : OutputIndex(w);
  std::vector<std::string> params;
  KILN_RETURN_IF_ERROR(ReadInputs(u, w, map, 0, prog->param_types, &params, kp.Ints("input_slices")));
  // Without an axis map every input of the output's rank is read at the
  // output's index: an f32 one is prefetched as the vec4 texels holding an
  // invocation's elements (gathers on lavapipe, where each storage-buffer
  // load is a loop over the lanes), where its offset is 16-byte aligned and
  // its texel view reaches its end (uniform over the dispatch), else from
  // its storage buffer.
  const uint32_t per = kElementwisePerInvocation;
  const std::string E = S(per) + "u";
  std::string decls, prefetch, fast = "true";
  uint32_t texel_inputs = 0;

  // (Only where each invocation takes several elements: not where the
  // program's code returns early, PerElements.)
  std::string plain = body;
  std::vector<std::string> results;
  KILN_RETURN_IF_ERROR(EmitScalarProgram(*prog, params, "v", &plain, &results, &w.features));
  const bool several = plain.find("return") == std::string::npos;
  std::string tex_reads, word_reads;
  for (size_t j = 0; j < params.size() && j < 32 && map.empty() && several; ++j) {
    if (u.in_types[j] != ElementType::kF32 || w.rank(j) != w.rank(w.Out(0))) continue;
    const std::string J = S(static_cast<int64_t>(j)), x = "kiln_x" + J, tex = "kiln_tex" + J;
    const std::string at = "(p[" + S(w.OffsetWord(j)) + "] / 4u)";
    decls += w.TexelInputDecl(texel_inputs, j, tex);
    texel_inputs |= 1u << j;
    fast += " && " + w.TexelViewCovers(j, tex, "p[0]");
    prefetch += "  float " + x + "[" + E + "];\n";
    // (Clamped to the view: the last invocation's texels may pass the end
    // of an exactly sized view, where a fetch is undefined without
    // robust buffer access; those lanes are never stored.)
    tex_reads += "      const vec4 q" + J + " = texelFetch(" + tex + ", int(min((" + at + " + kiln_first) / 4u + c, uint(textureSize(" +
                 tex + ")) - 1u)));\n";
    for (int c = 0; c < 4; ++c)
      tex_reads += "      " + x + "[4u * c + " + S(c) + "u] = q" + J + "[" + S(c) + "];\n";
    word_reads += "      " + x + "[k] = " + w.Load(j, "min(kiln_first + k, p[0] - 1u)") + ";\n";
    params[j] = x + "[kiln_k]";
  }
  if (texel_inputs != 0)
    prefetch += "  if (" + fast + ") {\n    [[unroll]] for (uint c = 0u; c < " + E + " / 4u; ++c) {\n" + tex_reads +
                "    }\n  } else {\n    [[unroll]] for (uint k = 0u; k < " + E + "; ++k) {\n" + word_reads +
                "    }\n  }\n";
  results.clear();
  KILN_RETURN_IF_ERROR(EmitScalarProgram(*prog, params, "v", &body, &results, &w.features));
  // An f32 result is gathered per invocation and written by 16-byte stores
  // where its offset is aligned and all the elements exist (one per-lane
  // loop on lavapipe instead of four), element by element otherwise; 8-
  // and 16-bit results are gathered into words by PerElements.
  std::string after;
  bool body_stores = false;
  for (size_t k = 0; k < results.size(); ++k) {
    const size_t t = w.Out(k);
    if (!several || u.out_types[k] != ElementType::kF32) {
      body += "  " + w.Store(t, "i", results[k]) + "\n";
      body_stores = true;
      continue;
    }
    const std::string T = S(static_cast<int64_t>(t)), y = "kiln_y" + T, off = "p[" + S(w.OffsetWord(t)) + "]";
    decls += w.Vec4OutputDecl(t);
    prefetch += "  float " + y + "[" + E + "];\n";
    body += "  " + y + "[kiln_k] = " + results[k] + ";\n";
    after += "  if (kiln_first + " + E + " <= p[0] && (" + off + " & 15u) == 0u) {\n    [[unroll]] for (uint c = 0u; c < " +
             E + " / 4u; ++c)\n      " +
             w.Vec4Store(t, "kiln_first + 4u * c",
                         "vec4(" + y + "[4u * c], " + y + "[4u * c + 1u], " + y + "[4u * c + 2u], " + y + "[4u * c + 3u])") +
             "\n" +
             "  } else {\n    for (uint k = 0u; k < " + E + " && kiln_first + k < p[0]; ++k) " +
             w.Store(t, "kiln_first + k", y + "[k]") + "\n  }\n";
  }
  ShaderSource src =
      PerElements(w, body, several ? per : 1, prefetch, decls, after, body_stores, LightToUnroll(body));
  if (texel_inputs != 0) {
    src.features |= hal::kTexelInputs;
    src.texel_inputs = texel_inputs;
  }
  return src;
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

// Elements per invocation of a quantization shader (its per-axis tables are
// copied once per invocation).
constexpr uint32_t kQuantizationPerInvocation = 16;

// uniform_quantize / uniform_dequantize, per tensor or per axis, in the
// expressed type, step by step as kernels/reference/elementwise_quantization.cc.
StatusOr<ShaderSource> Quantization(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  if (u.in_types.size() != 1 || u.out_types.size() != 1 || w.rank(0) != w.rank(1)) return Refuse(u, "bad operands");
  const bool dequantize = IsKernel(kp, KernelId::kUniformDequantize);
  const GType& in = w.type(0);
  const GType& out = w.type(1);
  const int r = w.rank(0);
  std::string code, tables, copies;
  int slot_id = 0;
  // The scale and zero point of element i for the parameters under `prefix`
  // of a quantized tensor of type `q`: GLSL constant arrays per slot, at
  // global scope, copied into local arrays once per invocation, which its
  // elements index (lavapipe materialized a constant array indexed by a
  // variable at every access: a per-axis requantize of 49K elements over
  // 192 features took 14 ms).
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
    const std::string n = S(static_cast<int64_t>(z.size()));
    std::string zc = "const int zps" + id + "[" + n + "] = int[](";
    for (size_t k = 0; k < z.size(); ++k) zc += (k ? ", " : "") + std::string("int(") + S(z[k]) + ")";
    tables += zc + ");\n";
    copies += "  int kiln_zps" + id + "[" + n + "] = zps" + id + ";\n";
    code += "  uint slot" + id + " = " + slot + ";\n";
    *zp = "kiln_zps" + id + "[slot" + id + "]";
    // f32 and f64 scales as their bits (a global constant's initializer
    // may not call uintBitsToFloat); other expressed types' roundings are
    // calls, so their scales stay a local array.
    if (e.type == ElementType::kF32 || e.type == ElementType::kF64) {
      const bool f32 = e.type == ElementType::kF32;
      std::string sc = std::string("const ") + (f32 ? "uint" : "uvec2") + " scale_bits" + id + "[" + n + "] = " +
                       (f32 ? "uint" : "uvec2") + "[](";
      for (size_t k = 0; k < z.size(); ++k) {
        sc += k ? ", " : "";
        if (f32) {
          const float f = static_cast<float>(s->floats[k]);
          uint32_t b;
          std::memcpy(&b, &f, 4);
          sc += S(static_cast<int64_t>(b)) + "u";
        } else {
          uint64_t b;
          std::memcpy(&b, &s->floats[k], 8);
          sc += "uvec2(" + S(static_cast<int64_t>(b & 0xffffffffu)) + "u, " + S(static_cast<int64_t>(b >> 32)) + "u)";
        }
      }
      tables += sc + ");\n";
      copies += std::string("  ") + (f32 ? "uint" : "uvec2") + " kiln_scale_bits" + id + "[" + n + "] = scale_bits" + id +
                ";\n";
      *scale = std::string(f32 ? "uintBitsToFloat" : "packDouble2x32") + "(kiln_scale_bits" + id + "[slot" + id + "])";
      return Status::Ok();
    }
    std::string sc = "const " + e.name + " scales" + id + "[" + n + "] = " + e.name + "[](";
    for (size_t k = 0; k < z.size(); ++k) sc += (k ? ", " : "") + FloatConst(e, s->floats[k]);
    code += "  " + sc + ");\n";
    *scale = "scales" + id + "[slot" + id + "]";
    return Status::Ok();
  };
  auto dequant = [&](const std::string& prefix, const GType& q, const GType& e, const std::string& v) -> StatusOr<std::string> {
    if (q.cls != C::kSigned && q.cls != C::kUnsigned) return Refuse(u, "non-integer quantized storage");
    std::string scale, zp;
    KILN_RETURN_IF_ERROR(params(prefix, e, &scale, &zp));
    if (q.bits == 64) {
      // q - zp wraps in 64 bits and converts through f64, as the reference
      // (its int64-to-float conversion rounds to double first).
      w.features |= hal::kShaderInt64 | hal::kShaderFloat64;
      return RoundTo(e, RoundTo(e, e.name + "(double(int64_t(" + v + ") - int64_t(" + zp + ")))") + " * " + scale);
    }
    if (q.bits == 32) {  // q - zp in 64 bits, as the reference: it never wraps
      w.features |= hal::kShaderInt64;
      return RoundTo(e, RoundTo(e, e.name + "(int64_t(" + v + ") - int64_t(" + zp + "))") + " * " + scale);
    }
    return RoundTo(e, RoundTo(e, e.name + "(int(" + v + ") - " + zp + ")") + " * " + scale);
  };
  if (dequantize) {
    if (out.cls != C::kFloat) return Refuse(u, "a result that is not a real floating-point type");
    KILN_ASSIGN_OR_RETURN(std::string x, dequant("", in, out, w.Load(0, "i")));
    return PerElements(w, code + "  " + w.Store(1, "i", x) + "\n", kQuantizationPerInvocation, copies, tables);
  }
  if (out.cls != C::kSigned && out.cls != C::kUnsigned) return Refuse(u, "non-integer quantized storage");
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
  // The reference's defaults: 64-bit storage, signed or not, spans int64.
  const int64_t lo_default = out.cls != C::kSigned ? 0 : bits >= 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
  const int64_t hi_default = bits >= 64                ? INT64_MAX
                             : out.cls == C::kSigned ? (int64_t{1} << (bits - 1)) - 1
                                                     : (int64_t{1} << bits) - 1;
  const int64_t lo = kp.Int("storage_min", lo_default), hi = kp.Int("storage_max", hi_default);
  if (lo > hi || lo < lo_default || hi > hi_default) return Refuse(u, "bad storage range");
  std::string isnan = e.name == "double" ? "kiln_isnan_d" : "kiln_isnan";
  code += "  precise " + e.name + " v = " + RoundTo(e, x + " / " + scale) + ";\n";
  code += "  v = " + RoundTo(e, "v + " + e.name + "(" + zp + ")") + ";\n";
  code += "  if (" + isnan + "(v)) v = " + e.name + "(0);\n";
  code += "  v = " + std::string(e.name == "double" ? "kiln_round_even_d" : "roundEven") + "(clamp(v, " + FloatConst(e, static_cast<double>(lo)) + ", " +
          FloatConst(e, static_cast<double>(hi)) + "));\n";
  // An int64 literal (INT64_MIN has none: its magnitude is past int64).
  auto i64 = [](int64_t v) { return v == INT64_MIN ? std::string("(-9223372036854775807l - 1l)") : S(v) + "l"; };
  if (bits == 64) {
    // 64-bit storage: hi rounds up to 2^63 in the expressed type, past
    // int64's range, which saturates to hi, as the reference does.
    w.features |= hal::kShaderInt64;
    code += "  int64_t q = v >= " + FloatConst(e, 0x1p63) + " ? " + i64(hi) + " : clamp(int64_t(v), " + i64(lo) + ", " +
            i64(hi) + ");\n";
  } else if (bits == 32) {
    // 32-bit storage: v can be 2^31 (the f32 nearest INT32_MAX); clamp as
    // the reference does, in 64 bits.
    w.features |= hal::kShaderInt64;
    code += "  int64_t q = clamp(int64_t(v), int64_t(" + S(lo) + "l), int64_t(" + S(hi) + "l));\n";
  } else {
    code += "  int q = clamp(int(v), int(" + S(lo) + "), int(" + S(hi) + "));\n";
  }
  code += "  " + w.Store(1, "i", out.name + "(q)") + "\n";
  return PerElements(w, code, kQuantizationPerInvocation, copies, tables);
}

}  // namespace kiln::compiler::vulkan

// The vulkan target's code generator: GLSL compute shaders from the
// templates in kernels/vulkan/, specialized per dispatch signature, compiled
// to SPIR-V with libshaderc at compile time (the runtime compiles nothing).
// See docs/vulkan.md for the storage scheme and the parameter layout.
#pragma once
#include <string>
#include <vector>

#include "compiler/module_builder.h"
#include "hal/vulkan/shader_abi.h"
#include "kernels/common/kernel.h"

namespace kiln::compiler::vulkan {

// How a GLSL shader computes with an element type.
struct GType {
  enum class Class { kBool, kSigned, kUnsigned, kFloat, kComplex };
  ElementType type = ElementType::kInvalid;
  Class cls = Class::kFloat;
  std::string name;   // GLSL type of the value: bool, int, uint, float, int64_t, uint64_t, double
  int bits = 0;       // value bits (1 for i1, 4 for i4, 16 for f16, ...)
  int storage = 0;    // storage bytes
  uint32_t features = 0;
  std::string part;    // complex: GLSL type of each part (float or double)
  bool is_64() const { return name == "int64_t" || name == "uint64_t" || name == "double"; }
};

// The GLSL form of an element type, or Unimplemented naming it.
StatusOr<GType> GlslType(ElementType t);

// A shader in GLSL plus how the driver launches it.
// Words of a sub-word output an invocation gathers before writing them
// (PerElements): 64 one-byte or 32 two-byte elements at most.
constexpr uint32_t kGatheredWords = 16;

struct ShaderSource {
  std::string glsl;
  uint32_t workgroup_size = 64;
  uint32_t features = 0;
  hal::ShaderGrid grid = hal::ShaderGrid::kPerElement;
  std::vector<uint32_t> grid_args;
  uint32_t texel_inputs = 0;  // hal::ShaderVariant::texel_inputs (needs kTexelInputs in features)
  // Whether shaderc optimizes the SPIR-V (spirv-opt's performance passes).
  // Off only where they miscompile a shader (the SVD's, on llvmpipe); the
  // driver compiles the SPIR-V with its own optimizer anyway.
  bool optimize = true;
};

// Builds the text of one shader: the header (version, extensions, bindings,
// per-tensor load/store functions) around a kernel body.
class ShaderWriter {
 public:
  explicit ShaderWriter(const DispatchUse& use) : use_(use) {}
  // Declares the bindings and load/store helpers; fails on an element type
  // the target cannot handle.
  Status Begin();
  // Index of tensor `t` (inputs first, then outputs) in parameter words.
  uint32_t OffsetWord(size_t t) const { return param_base_[t]; }
  std::string Dim(size_t t, size_t d) const { return "p[" + std::to_string(param_base_[t] + 1 + d) + "]"; }
  size_t num_inputs() const { return use_.in_types.size(); }
  size_t num_outputs() const { return use_.out_types.size(); }
  size_t Out(size_t k) const { return use_.in_types.size() + k; }
  const GType& type(size_t t) const { return types_[t]; }
  int rank(size_t t) const {
    return t < use_.in_ranks.size() ? use_.in_ranks[t] : use_.out_ranks[t - use_.in_ranks.size()];
  }
  // "ld3(i)" / "st4(i, v)".
  std::string Load(size_t t, const std::string& index) const { return "ld" + std::to_string(t) + "(" + index + ")"; }
  std::string Store(size_t t, const std::string& index, const std::string& v) const {
    return "st" + std::to_string(t) + "(" + index + ", " + v + ");";
  }
  // Texel views (hal::kTexelInputs) and 16-byte output views, shared by
  // the kernels that read f32 inputs as vec4 texels and store f32 results
  // four at a time:
  // - the declaration of input j's texel view `name`, where `texel_inputs`
  //   holds the texel inputs before j (their views are bound in input
  //   order after the tensors' storage buffers, vulkan_device.cc);
  std::string TexelInputDecl(uint32_t texel_inputs, size_t j, const std::string& name) const;
  // - whether tensor t's element offset is 16-byte aligned and its texel
  //   view `tex` holds `elements` (a uint expression) elements from there
  //   on (uniform over a dispatch; no term of it can wrap around);
  std::string TexelViewCovers(size_t t, const std::string& tex, const std::string& elements) const;
  // - the declaration of output t's 16-byte view, `t{t}v.w4[]`;
  std::string Vec4OutputDecl(size_t t) const;
  // - the store of four f32 values at element `first` (a multiple of four)
  //   of output t, whose offset is 16-byte aligned.
  std::string Vec4Store(size_t t, const std::string& first, const std::string& vec4) const;
  uint32_t features = 0;
  // GLSL extensions the body needs beyond the header's ("GL_EXT_control_flow_attributes").
  std::vector<std::string> extensions;
  // Assembles the shader; `body` is GLSL after the helpers (usually main()).
  ShaderSource Finish(const std::string& body, uint32_t local_x, uint32_t local_y = 1);

 private:
  const DispatchUse& use_;
  std::vector<GType> types_;
  std::vector<uint32_t> param_base_;
  std::string helpers_;
};

// Translates a scalar-expression program into GLSL statements. `params`
// are GLSL expressions holding the parameters (in their GLSL types); values
// are declared as `prefix` + index. Fails on an op/type it cannot translate
// exactly, naming both.
Status EmitScalarProgram(const ScalarProgram& program, const std::vector<std::string>& params,
                         const std::string& prefix, std::string* code, std::vector<std::string>* results,
                         uint32_t* features);

// A conversion between the GLSL forms of two element types, as
// stablehlo.convert does it.
StatusOr<std::string> ConvertExpr(const GType& from, const GType& to, const std::string& v);

// A float constant of type `t` (rounded to t), and an expression rounded to t.
std::string FloatConst(const GType& t, double v);
std::string RoundTo(const GType& t, const std::string& e);

// The value of type `t` whose encoding is `bits` (a uint expression, or a
// uint64_t one for 64-bit types), as bitcast_convert reads it.
std::string ValueFromBits(const GType& t, const std::string& bits);

// The float types narrower than 16 bits (f4E2M1FN, f6*, f8*): they compute
// in f32 and are decoded, rounded and encoded by the helpers of
// kernels/vulkan/minifloat.glsl, e.g. MinifloatCall("decode", t, "b") is
// "kiln_mf_decode(b, <t's format>)".
bool IsMinifloat(ElementType t);
std::string MinifloatCall(const std::string& fn, ElementType t, const std::string& arg);

// The shader for one dispatch signature of an executable.
StatusOr<ShaderSource> GenerateShader(const KernelParams& params, const DispatchUse& use);

// GLSL to SPIR-V with libshaderc (optimizing for performance unless
// `optimize` is false).
StatusOr<std::vector<uint32_t>> CompileGlsl(const std::string& glsl, const std::string& name, bool optimize = true);

// The embedded text of a template in kernels/vulkan (by file name).
const char* Template(const std::string& name);

}  // namespace kiln::compiler::vulkan

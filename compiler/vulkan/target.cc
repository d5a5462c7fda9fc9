#include "compiler/vulkan/target.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <string_view>

#include "compiler/vulkan/codegen.h"

#ifdef KILN_HAVE_SHADERC
#include <shaderc/shaderc.hpp>
#include <spirv-tools/optimizer.hpp>
#endif

namespace kiln::compiler {
namespace vulkan {

namespace {
struct TemplateEntry {
  const char* name;
  const char* text;
};
const TemplateEntry kTemplates[] = {
#include "kernels/vulkan_templates.inc"
};
}  // namespace

const char* Template(const std::string& name) {
  for (const auto& t : kTemplates)
    if (name == t.name) return t.text;
  return "";
}

#ifdef KILN_HAVE_SHADERC
namespace {

// spirv-opt's performance recipe (SPIRV-Tools' RegisterPerformancePasses, as
// shaderc runs it at its performance level) without its loop unrolling: the
// register-blocked shaders mark their tile loops [[unroll]], and unrolled
// before the other passes ran, a convolution's SPIR-V grew 25-fold and took
// about 1 s to optimize (a MobileNet block 4 s to compile; 0.1 s without).
// The loops keep their Unroll hint, which the driver's compiler honours
// (lavapipe ran the model suite's blocks as fast either way: benchmarks in
// docs/vulkan.md).
const char* const kPasses[] = {
    "--wrap-opkill", "--eliminate-dead-branches", "--merge-return", "--inline-entry-points-exhaustive",
    "--eliminate-dead-functions", "--eliminate-dead-code-aggressive", "--private-to-local",
    "--eliminate-local-single-block", "--eliminate-local-single-store", "--eliminate-dead-code-aggressive",
    "--scalar-replacement", "--convert-local-access-chains", "--eliminate-local-single-block",
    "--eliminate-local-single-store", "--eliminate-dead-code-aggressive", "--ssa-rewrite",
    "--eliminate-dead-code-aggressive", "--ccp", "--eliminate-dead-code-aggressive", "--eliminate-dead-branches",
    "--redundancy-elimination", "--combine-access-chains", "--simplify-instructions", "--scalar-replacement",
    "--convert-local-access-chains", "--eliminate-local-single-block", "--eliminate-local-single-store",
    "--eliminate-dead-code-aggressive", "--ssa-rewrite", "--eliminate-dead-code-aggressive", "--vector-dce",
    "--eliminate-dead-inserts", "--eliminate-dead-branches", "--simplify-instructions", "--if-conversion",
    "--copy-propagate-arrays", "--reduce-load-size", "--eliminate-dead-code-aggressive", "--merge-blocks",
    "--redundancy-elimination", "--eliminate-dead-branches", "--merge-blocks", "--simplify-instructions",
};

StatusOr<std::vector<uint32_t>> Optimize(std::vector<uint32_t> spirv, const std::string& name) {
  spvtools::Optimizer opt(SPV_ENV_VULKAN_1_1);
  std::string messages;
  opt.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t&, const char* m) {
    messages += m;
    messages += '\n';
  });
  if (!opt.RegisterPassesFromFlags(std::vector<std::string>(std::begin(kPasses), std::end(kPasses))))
    return Internal("spirv-opt refused Kiln's pass list: " + messages);
  std::vector<uint32_t> out;
  if (!opt.Run(spirv.data(), spirv.size(), &out))
    return Internal("spirv-opt failed on a shader the vulkan target generated (" + name + "): " + messages);
  return out;
}

}  // namespace
#endif

StatusOr<std::vector<uint32_t>> CompileGlsl(const std::string& glsl, const std::string& name, bool optimize) {
#ifdef KILN_HAVE_SHADERC
  // Identical shaders recur across functions and modules (the conformance
  // runner compiles hundreds of modules in one process).
  static std::mutex mu;
  static std::map<std::string, std::vector<uint32_t>> cache;
  {
    std::lock_guard<std::mutex> l(mu);
    auto it = cache.find(optimize ? glsl : "unoptimized\n" + glsl);
    if (it != cache.end()) return it->second;
  }
  // One compiler for the process: glslang rebuilds its built-in symbol
  // tables whenever the last compiler goes away, which dominates otherwise.
  static shaderc::Compiler& compiler = *new shaderc::Compiler;
  static std::mutex compile_mu;
  std::lock_guard<std::mutex> compile_lock(compile_mu);
  shaderc::CompileOptions options;
  options.SetTargetEnvironment(shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_1);
  auto result = compiler.CompileGlslToSpv(glsl, shaderc_compute_shader, name.c_str(), options);
  if (result.GetCompilationStatus() != shaderc_compilation_status_success)
    return Internal("the vulkan target generated a shader that does not compile (" + name +
                    "): " + result.GetErrorMessage());
  std::vector<uint32_t> spirv(result.cbegin(), result.cend());
  if (optimize) {
    KILN_ASSIGN_OR_RETURN(spirv, Optimize(std::move(spirv), name));
  }
  std::lock_guard<std::mutex> l(mu);
  cache[optimize ? glsl : "unoptimized\n" + glsl] = spirv;
  return spirv;
#else
  return Unimplemented("this build of the compiler has no shaderc (the vulkan target is disabled)");
#endif
}

}  // namespace vulkan

namespace {

// The shader of one dispatch signature, added to the module unless present.
Status EnsureShader(ModuleBuilder* out, const DispatchUse& use) {
  auto& variants = out->vulkan_shaders[use.executable];
  for (const auto& v : variants)
    if (v.input_types == use.in_types && v.output_types == use.out_types && v.input_ranks == use.in_ranks &&
        v.output_ranks == use.out_ranks)
      return Status::Ok();
  KILN_ASSIGN_OR_RETURN(vulkan::ShaderSource src, vulkan::GenerateShader(out->executables[use.executable], use));
  auto spirv = vulkan::CompileGlsl(src.glsl, use.op, src.optimize);
  // KILN_VULKAN_DUMP=1: the GLSL of a shader shaderc refuses; =all: of every shader.
  const char* dump = std::getenv("KILN_VULKAN_DUMP");
  if (dump != nullptr && (!spirv.ok() || std::string_view(dump) == "all"))
    std::fprintf(stderr, "// %s\n%s\n", use.op.c_str(), src.glsl.c_str());
  if (!spirv.ok()) return spirv.status();
  hal::ShaderVariant v;
  v.input_types = use.in_types;
  v.output_types = use.out_types;
  v.input_ranks = use.in_ranks;
  v.output_ranks = use.out_ranks;
  v.spirv = std::move(spirv.value());
  v.workgroup_size = src.workgroup_size;
  v.features = src.features;
  v.grid_kind = src.grid;
  v.grid_args = src.grid_args;
  v.texel_inputs = src.texel_inputs;
  variants.push_back(std::move(v));
  return Status::Ok();
}

// Splits "OP (TYPE) is not supported ...: REASON" into its parts for the
// module's unavailable record.
UnavailableOut Describe(const DispatchUse& use, const Status& s) {
  UnavailableOut u;
  u.device = "vulkan";
  u.op = use.op;
  std::vector<std::string> seen;  // each type once: "i8,f32"
  std::string types;
  for (const auto* list : {&use.in_types, &use.out_types})
    for (auto t : *list) {
      std::string n(Name(t));
      if (std::find(seen.begin(), seen.end(), n) != seen.end()) continue;
      seen.push_back(n);
      types += (types.empty() ? "" : ",") + n;
    }
  u.type = types;
  // The record names op and type already; keep the reason alone.
  const std::string marker = "is not supported by the vulkan target: ";
  size_t at = s.message().find(marker);
  u.reason = at == std::string::npos ? s.message() : s.message().substr(at + marker.size());
  return u;
}

}  // namespace

Status AddVulkanTarget(const ir::Module& module, const CompileOptions& options, const ErrorFormatter& format_error,
                       const ErrorFormatter& format_warning, ModuleBuilder* out, std::vector<std::string>* warnings) {
  const std::vector<FunctionUses>& uses = out->function_uses;
  out->vulkan_shaders.resize(out->executables.size());
  const size_t nf = out->functions.size();
  std::vector<bool> unavailable(nf, false);
  std::vector<UnavailableOut> why(nf);
  // Where the op that made each function unavailable is (for a function
  // unavailable through a call: the op in the callee).
  std::vector<ir::Location> where(nf);
  std::vector<bool> through_call(nf, false);
  for (size_t f = 0; f < nf; ++f) {
    for (size_t d = uses[f].dispatch_begin; d < uses[f].dispatch_end && !unavailable[f]; ++d) {
      const DispatchUse& use = out->dispatch_uses[d];
      Status s = EnsureShader(out, use);
      if (s.ok()) continue;
      if (s.code() != StatusCode::kUnimplemented && s.code() != StatusCode::kInternal) return s;
      unavailable[f] = true;
      why[f] = Describe(use, s);
      where[f] = use.loc;
    }
  }
  // A function that calls an unavailable one is unavailable too.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t f = 0; f < nf; ++f) {
      if (unavailable[f]) continue;
      for (size_t c = uses[f].call_begin; c < uses[f].call_end; ++c) {
        uint32_t callee = out->call_uses[c];
        if (callee < nf && unavailable[callee]) {
          unavailable[f] = true;
          why[f] = why[callee];
          why[f].reason = "calls '" + out->functions[callee].name + "': " + why[callee].reason;
          where[f] = where[callee];
          through_call[f] = true;
          changed = true;
          break;
        }
      }
    }
  }
  auto describe = [&](size_t f) { return why[f].op + " (" + why[f].type + "): " + why[f].reason; };
  if (options.target == "vulkan") {
    // The error points at the op itself: of a function that cannot run for
    // its own op when there is one (a caller's reason is that function).
    for (bool via_call : {false, true})
      for (size_t f = 0; f < nf; ++f)
        if (unavailable[f] && through_call[f] == via_call)
          return Unimplemented(format_error(where[f], "function '" + out->functions[f].name +
                                                          "' cannot run on the vulkan target: " + describe(f)));
  }
  for (size_t f = 0; f < nf; ++f) {
    if (!unavailable[f]) continue;
    out->functions[f].unavailable.push_back(why[f]);
    if (warnings && out->functions[f].is_public)
      warnings->push_back(format_warning(where[f], "function '" + out->functions[f].name +
                                                       "' is unavailable on the vulkan device: " + describe(f)));
  }
  return Status::Ok();
}

}  // namespace kiln::compiler

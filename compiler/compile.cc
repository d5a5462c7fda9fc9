// The compiler's pipeline, in order: parse -> verify -> IR passes -> lower to
// bytecode -> vulkan target -> serialize. Each stage is its own room
// (compiler/parse, verify, passes, lower, vulkan) and knows nothing of the
// stages after it; this file is the only place that sequences them.
#include "compiler/compile.h"

#include "compiler/externalize.h"
#include "compiler/lower/lowering.h"
#include "compiler/parse/parser.h"
#include "compiler/passes/conv_kernel_layout.h"
#include "compiler/passes/fold_transpose.h"
#include "compiler/passes/fold_widening_converts.h"
#include "compiler/passes/narrow_index_compares.h"
#include "compiler/passes/hoist_loop_projection.h"
#include "compiler/passes/legalize.h"
#include "compiler/passes/params_from_args.h"
#include "compiler/passes/platform_index.h"
#include "compiler/passes/quantized_integer_contraction.h"
#include "compiler/passes/widen_narrow_contractions.h"
#include "compiler/passes/widen_narrow_factorizations.h"
#include "compiler/verify/verifier.h"
#include "compiler/vulkan/target.h"

namespace kiln::compiler {

StatusOr<std::vector<uint8_t>> Compile(std::string_view source, std::string_view file_name,
                                       const CompileOptions& options, std::vector<std::string>* warnings,
                                       int first_line, std::vector<uint8_t>* parameters) {
  ErrorFormatter format = [&](ir::Location loc, const std::string& message) {
    return ir::FormatDiagnostic(file_name, source, first_line, loc, "error", message);
  };
  ErrorFormatter format_warning = [&](ir::Location loc, const std::string& message) {
    return ir::FormatDiagnostic(file_name, source, first_line, loc, "warning", message);
  };
  KILN_ASSIGN_OR_RETURN(auto module, ir::ParseModule(source, file_name, first_line));
  KILN_RETURN_IF_ERROR(VerifyModule(*module, format));
  // Custom calls that stand for ops become those ops, verified as the
  // parser's are (before any pass adds Kiln's own ops, and before
  // InlineCallsInBodies: the new ops' bodies call the calls' computations).
  bool rewrote_calls = false;
  KILN_RETURN_IF_ERROR(LegalizeMhloCustomCalls(module.get(), format, &rewrote_calls));
  if (rewrote_calls) KILN_RETURN_IF_ERROR(VerifyModule(*module, format));
  // Not an error: a test file's chunk may hold none. The module is valid
  // (and empty), but compiling nothing is rarely what was meant.
  if (module->functions.empty() && warnings)
    warnings->push_back(format_warning(ir::Location{}, "the program has no functions"));
  if (options.target != "cpu" && options.target != "vulkan" && options.target != "all")
    return InvalidArgument("unknown target '" + options.target + "' (expected cpu, vulkan or all)");
  KILN_RETURN_IF_ERROR(BindPlatformIndex(module.get(), options.platforms, format, format_warning, warnings));
  KILN_RETURN_IF_ERROR(ParamsFromArgs(module.get(), options.params_from_args, options.params_scope, format));
  FoldImmutableGlobals(module.get());
  KILN_RETURN_IF_ERROR(InlineCallsInBodies(module.get(), format));
  KILN_RETURN_IF_ERROR(LegalizeChloConstants(module.get(), format));
  KILN_RETURN_IF_ERROR(LegalizeDeprecatedOps(module.get(), format));
  LegalizeIreeRngStates(module.get());
  ApplyDotAlgorithms(module.get());
  KILN_RETURN_IF_ERROR(LegalizeLinalgCustomCalls(module.get(), format));
  KILN_RETURN_IF_ERROR(LegalizeChloBroadcast(module.get(), format));
  KILN_RETURN_IF_ERROR(LegalizeQuantizedOps(module.get()));
  // Its output is meant to fuse back into one dispatch; unfused, lowering
  // builds the same program from the quantized op itself.
  if (options.fuse) KILN_RETURN_IF_ERROR(LegalizeQuantized(module.get(), format));
  if (options.fuse) KILN_RETURN_IF_ERROR(LegalizeBatchNormInference(module.get()));
  if (options.fuse) ExpandIotas(module.get());
  if (options.fuse) NarrowIndexCompares(module.get());
  // The CPU's int8 contractions requantize their own accumulators and pad
  // with the zero point themselves; the Vulkan device's shaders take these
  // ops apart.
  // The CPU's contractions also widen f16/bf16 operands themselves (the
  // Vulkan device's blocked shader reads f32 only).
  if (options.fuse && options.target == "cpu") {
    FuseRequantizeIntoContractions(module.get());
    FoldZeroPointPadsIntoConvolutions(module.get());
    FoldWideningConvertsIntoContractions(module.get());
  }
  // The Vulkan shaders factor in the element type: 16-bit matrices are
  // factored in f32 between converts there (the CPU widens them itself).
  if (options.target == "vulkan") WidenNarrowFactorizations(module.get());
  // The blocked convolution shader reads four output features of a kernel
  // row at once where they are innermost: constant kernels are laid out so
  // (the CPU packs constant kernels once from any layout).
  if (options.target != "cpu") MoveConstantConvKernelFeaturesLast(module.get());
  // Its register-blocked contraction shaders read f32: 16-bit contractions
  // are computed in f32 between converts there.
  if (options.target == "vulkan") WidenNarrowContractions(module.get());
  // The GEMM reads any operand layout through offset tables; a transpose
  // feeding it would only cost a copy.
  if (options.fuse) KILN_RETURN_IF_ERROR(FoldTransposesIntoDots(module.get()));
  // A scan's per-step input projection becomes one GEMM before the loop.
  if (options.fuse) KILN_RETURN_IF_ERROR(HoistLoopInvariantProjections(module.get()));
  ModuleBuilder builder;
  KILN_RETURN_IF_ERROR(LowerModule(*module, options, format, &builder));
  if (options.target != "cpu") {
    KILN_RETURN_IF_ERROR(AddVulkanTarget(*module, options, format, format_warning, &builder, warnings));
    builder.targets.push_back("vulkan");
  }
  if (options.externalize_min_bytes) {
    if (!parameters) return InvalidArgument("externalized constants need a parameter file to go to");
    KILN_ASSIGN_OR_RETURN(*parameters, ExternalizeConstants(&builder, *options.externalize_min_bytes,
                                                            options.params_scope, nullptr));
  }
  return builder.Serialize(4096, options.format_04 ? ModuleBuilder::Layout::kInline04
                                                  : ModuleBuilder::Layout::kDataSegment);
}

StatusOr<std::string> CompileToIrText(std::string_view source, std::string_view file_name) {
  ErrorFormatter format = [&](ir::Location loc, const std::string& message) {
    return ir::FormatDiagnostic(file_name, source, 1, loc, "error", message);
  };
  KILN_ASSIGN_OR_RETURN(auto module, ir::ParseModule(source, file_name));
  KILN_RETURN_IF_ERROR(VerifyModule(*module, format));
  return ir::PrintModule(*module);
}

}  // namespace kiln::compiler

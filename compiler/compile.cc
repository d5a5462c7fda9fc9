#include "compiler/compile.h"

#include "compiler/parse/parser.h"
#include "compiler/verify/verifier.h"

namespace kiln::compiler {

StatusOr<std::vector<uint8_t>> Compile(std::string_view source, std::string_view file_name,
                                       const CompileOptions& options, std::vector<std::string>* warnings,
                                       int first_line) {
  auto format = [&](ir::Location loc, const std::string& message) {
    return ir::FormatDiagnostic(file_name, source, first_line, loc, "error", message);
  };
  KILN_ASSIGN_OR_RETURN(auto module, ir::ParseModule(source, file_name, first_line));
  KILN_RETURN_IF_ERROR(VerifyModule(*module, format));
  ModuleBuilder builder;
  KILN_RETURN_IF_ERROR(LowerModule(*module, options, format, &builder, warnings));
  return builder.Serialize();
}

StatusOr<std::string> CompileToIrText(std::string_view source, std::string_view file_name) {
  auto format = [&](ir::Location loc, const std::string& message) {
    return ir::FormatDiagnostic(file_name, source, 1, loc, "error", message);
  };
  KILN_ASSIGN_OR_RETURN(auto module, ir::ParseModule(source, file_name));
  KILN_RETURN_IF_ERROR(VerifyModule(*module, format));
  return ir::PrintModule(*module);
}

}  // namespace kiln::compiler

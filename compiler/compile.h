// The compiler's entry points: source text in, module bytes (or IR text) out.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/options.h"
#include "kernels/common/status.h"

namespace kiln::compiler {

// Parses, verifies and lowers one program; errors are full diagnostics
// ("file:line:col: error: ..." with the source line and a caret, or
// "file: error: ..." about the whole file). Each warning is a full
// diagnostic too ("file:line:col: warning: ..." with the source line and a
// caret, or "file: warning: ..."), ready to print as it is. With
// options.externalize_min_bytes, `parameters` receives the safetensors file
// of the constants moved out of the module (required then).
StatusOr<std::vector<uint8_t>> Compile(std::string_view source, std::string_view file_name,
                                       const CompileOptions& options, std::vector<std::string>* warnings,
                                       int first_line = 1, std::vector<uint8_t>* parameters = nullptr);

// Parses and verifies, then prints the IR in the generic form.
StatusOr<std::string> CompileToIrText(std::string_view source, std::string_view file_name);

}  // namespace kiln::compiler

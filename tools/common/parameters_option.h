// The tools' --parameters=[scope=]FILE (repeatable): the safetensors files
// bound to a module's external constants (docs/parameters.md).
#pragma once
#include <string>
#include <vector>

#include "kernels/common/status.h"
#include "tools/cli/cli.h"
#include "vm/module.h"

namespace kiln::tools {

void AddParametersOption(CommandLine& cli, std::vector<std::string>* specs);

// The default load options (DefaultLoadOptions) with `specs`' files mapped
// and bound; an unreadable or malformed file is an error naming it.
StatusOr<vm::LoadOptions> LoadOptionsWithParameters(const std::vector<std::string>& specs);

}  // namespace kiln::tools

#include "tools/common/parameters_option.h"

#include "vm/parameters.h"

namespace kiln::tools {

void AddParametersOption(CommandLine& cli, std::vector<std::string>* specs) {
  cli.Repeated("--parameters", specs,
               "[SCOPE=]FILE: a safetensors file of the module's external weights (kiln-compile --externalize), "
               "mapped read-only; repeat for more files or scopes");
}

StatusOr<vm::LoadOptions> LoadOptionsWithParameters(const std::vector<std::string>& specs) {
  vm::LoadOptions options = vm::DefaultLoadOptions();
  if (specs.empty()) return options;
  auto set = std::make_shared<vm::ParameterSet>();
  for (const auto& spec : specs) KILN_RETURN_IF_ERROR(set->AddSpec(spec));
  options.parameters = std::move(set);
  return options;
}

}  // namespace kiln::tools

// kiln.custom_call: a stablehlo.custom_call whose target the application
// registered as a host function (kernels/common/user_ops.h). The function
// gets views of the dispatch's operands and results. The target is looked
// up per call: the CPU device refused a session where it was not
// registered, and this covers one unregistered since.
#include <string>

#include "kernels/common/user_ops.h"
#include "kernels/reference/kernels.h"

namespace kiln::ref {

// This file's kernel of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::CustomCall(const KernelCall& call) {
  const std::string_view target = UserOpTarget(call.params);
  std::shared_ptr<const UserOpFn> fn = FindUserOp(target);
  if (!fn)
    return NotFound("custom_call @" + std::string(target) +
                         ": no host function is registered under that target (kiln_register_custom_call)");
  const KernelAttr* config = call.params.Find("backend_config");
  Status s = (*fn)(call.inputs, call.outputs, config ? std::string_view(config->str) : std::string_view());
  if (s.ok()) return s;
  return Status(s.code(), "custom_call @" + std::string(target) + ": " + s.message());
}

}  // namespace kiln::ref

// The process's user ops: host functions an application registers under a
// `stablehlo.custom_call` target name (kiln_register_custom_call in
// vm/kiln.h). The compiler keeps a custom_call whose target it does not know
// as a dispatch of the kernel "kiln.custom_call" (attribute
// call_target_name, and backend_config when the op has a string one); the
// CPU device resolves the name here when it prepares the executable (a
// session of a module naming an unregistered target is refused, naming
// it), and the kernel calls the function with views of the dispatch's
// operands and results.
#pragma once
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/common/kernel.h"

namespace kiln {

// Fills `outputs` (shapes and types fixed by the program; the bytes are the
// function's to write) from `inputs`. A failure fails the call with its
// message.
using UserOpFn = std::function<Status(std::span<const TensorRef> inputs, std::span<const TensorRef> outputs,
                                      std::string_view backend_config)>;

// Registers `fn` under `target`, replacing an earlier one (each dispatch
// looks its target up, so later calls run the new one). Thread-safe.
void RegisterUserOp(std::string target, UserOpFn fn);
// Removes the function of `target`; false if there was none. Later calls
// of it fail; one running keeps its copy until it returns.
bool UnregisterUserOp(std::string_view target);
// The function registered under `target`, or null.
std::shared_ptr<const UserOpFn> FindUserOp(std::string_view target);

// The custom_call target of a "kiln.custom_call" dispatch (its
// call_target_name attribute), or empty.
std::string_view UserOpTarget(const KernelParams& params);

}  // namespace kiln

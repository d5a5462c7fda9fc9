// The C API's value names (vm/kiln.h): the names a function's arguments
// and results carry from the source, as the module records them.
#include <string>

#include "vm/c_api_internal.h"
#include "vm/kiln.h"

using namespace kiln::capi;  // NOLINT: the entry points' shared helpers

namespace {

kiln_status_t ValueName(const char* entry, const char* what, const kiln_module_t* module, size_t function,
                        size_t i, bool result, const char** out) {
  return Guard(entry, [&]() -> kiln_status_t {
    if (!out) return Invalid(std::string(entry) + ": out_name is required");
    const kiln::vm::LoadedFunction* f = nullptr;
    if (kiln_status_t s = PublicFunction(entry, module, function, &f)) return s;
    const auto& list = result ? f->results : f->args;
    if (i >= list.size())
      return Error(KILN_STATUS_OUT_OF_RANGE, std::string(entry) + ": " + what + " " + std::to_string(i) +
                                                 " out of range ('" + f->name + "' has " +
                                                 std::to_string(list.size()) + ")");
    *out = list[i].name.c_str();  // the module's, which outlives this call's caller's use (kiln.h)
    return nullptr;
  });
}

}  // namespace

kiln_status_t kiln_module_function_arg_name(const kiln_module_t* module, size_t function, size_t arg,
                                            const char** out_name) {
  return ValueName("kiln_module_function_arg_name", "argument", module, function, arg, false, out_name);
}

kiln_status_t kiln_module_function_result_name(const kiln_module_t* module, size_t function, size_t result,
                                               const char** out_name) {
  return ValueName("kiln_module_function_result_name", "result", module, function, result, true, out_name);
}

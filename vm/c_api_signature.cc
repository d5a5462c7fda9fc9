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
    const kiln::vm::ValueSig* sig = nullptr;
    if (kiln_status_t s = PublicValue(entry, what, module, function, i, result, &sig)) return s;
    *out = sig->name.c_str();  // the module's, which outlives this call's caller's use (kiln.h)
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

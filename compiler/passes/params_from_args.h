// --params-from-args (docs/parameters.md): named arguments of public
// functions become parameters, bound from a safetensors file at run time
// instead of passed on each call. How JAX exports pass a weight pytree:
// every leaf is an argument named by its `jax.arg_info` attribute
// ("params['dense']['kernel']").
#pragma once
#include <string>
#include <vector>

#include "compiler/diagnostics.h"
#include "compiler/ir.h"
#include "kernels/common/status.h"

namespace kiln::compiler {

// An argument's name: its `jax.arg_info` string, or "" if it has none.
std::string ArgumentName(const ir::Function& fn, size_t index);

// Whether `name` is selected by `selectors`: "all" selects every named
// argument; NAME selects the argument named NAME and, as a pytree prefix,
// every one whose name continues with '[' or '.' after it ("params" selects
// "params['w']" and "params.b").
bool ArgumentSelected(const std::string& name, const std::vector<std::string>& selectors);

// Replaces each selected argument of each public function by a
// `kiln.parameter` op (attributes `key`: the argument's name, `scope`)
// whose result takes the argument's uses, and drops the argument from the
// signature. Refused, at the function: a selected argument of a function
// that func.call calls (its callers pass it), or one that is not a tensor of
// static shape. A selector that selects nothing is an error naming the
// arguments there are.
Status ParamsFromArgs(ir::Module* module, const std::vector<std::string>& selectors, const std::string& scope,
                      const ErrorFormatter& format_error);

}  // namespace kiln::compiler

// The names a function's arguments and results carry in the source, kept in
// the module's signatures (TensorSig.name) so an app can bind inputs by name
// and label outputs (kiln_module_function_arg_name, vm-dump, Python).
#pragma once
#include <string>

#include "compiler/ir.h"

namespace kiln::compiler {

// Argument `index`'s name: its `jax.arg_info` string ("params['w']", "x");
// else its `tf_saved_model.index_path` (["a", "b"] gives "a.b"); else the
// index'th of the function's `tf.entry_function = {inputs = "a,b"}`; else "".
std::string ArgumentSourceName(const ir::Function& fn, size_t index);

// Result `index`'s name the same way: `jax.result_info` ("[0]", "['y']";
// JAX writes "" for a lone result, which is no name), then
// `tf_saved_model.index_path`, then tf.entry_function's `outputs`.
std::string ResultSourceName(const ir::Function& fn, size_t index);

}  // namespace kiln::compiler

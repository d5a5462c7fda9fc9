// JAX's multi-platform exports (jax.export with platforms=[...] of more than
// one platform) take the index of the platform they run on as their first
// argument, `%arg0: tensor<i32> {jax.global_constant = "_platform_index"}`
// (i32 or i64), and pick each platform's lowering with stablehlo.case on it.
// The module does not say which platform has which index: the export's
// platform list does (jax.export's `Exported.platforms`), given to Kiln as
// `platforms` (kiln-compile --platforms=cpu,cuda). Kiln runs the cpu
// lowering on every device.
#pragma once
#include <string>
#include <vector>

#include "compiler/diagnostics.h"
#include "compiler/ir.h"
#include "kernels/common/status.h"

namespace kiln::compiler {

// With `platforms` given: in each public function, an argument marked
// jax.global_constant = "_platform_index" becomes a constant, the index of
// "cpu" in `platforms` (compared case-insensitively), and leaves the
// signature. Refused: `platforms` without cpu, and a marked argument of a
// function another function calls (it passes the index itself). Without
// `platforms` the argument stays an argument (the caller passes the index)
// and a warning names the flag.
Status BindPlatformIndex(ir::Module* module, const std::vector<std::string>& platforms,
                         const ErrorFormatter& format_error, const ErrorFormatter& format_warning,
                         std::vector<std::string>* warnings);

}  // namespace kiln::compiler

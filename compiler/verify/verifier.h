// The IR verifier: the spec's constraints on each op (operand and result
// types, shapes, attributes). Runs after parsing, before lowering.
#pragma once
#include "compiler/diagnostics.h"
#include "compiler/ir.h"
#include "kernels/common/status.h"

namespace kiln::compiler {

Status VerifyModule(const ir::Module& module, const ErrorFormatter& format_error);

}  // namespace kiln::compiler

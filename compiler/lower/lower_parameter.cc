// kiln.parameter, the argument --params-from-args turned into a parameter
// (compiler/passes/params_from_args.h): a constant without data whose bytes
// a parameter file supplies at run time. The compiler never sees them, so
// the module records no checksum for it; the runtime checks its key, type
// and shape. Part of FunctionLowering (compiler/lower/function_lowering.h).
#include "compiler/lower/function_lowering.h"

namespace kiln::compiler {

using vm::Opcode;

Status FunctionLowering::LowerParameter(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  const ir::Attribute* key = op.GetAttr("key");
  const ir::Attribute* scope = op.GetAttr("scope");
  if (!key || !scope || op.results.size() != 1 || !op.result()->type.HasStaticShape())
    return Internal("kiln.parameter needs a key, a scope and one result of static shape");
  ConstantOut c;
  c.type = op.result()->type.element;
  c.dims = op.result()->type.dims;
  c.parameter = ParameterOut{scope->str, key->str, false, 0};
  uint32_t index = mb_->AddConstant(std::move(c));
  uint32_t reg = NewRef();
  body_.Emit(Opcode::kConstRef, reg, index);
  ref_of_[op.result()] = reg;
  return Status::Ok();
}

}  // namespace kiln::compiler

// ml_program.global_load / global_store of a mutable module global
// (ModuleBuilder::globals): the VM's global.load and global.store, which
// read and replace the calling context's value. Part of FunctionLowering
// (compiler/lower/function_lowering.h).
#include "compiler/lower/function_lowering.h"

namespace kiln::compiler {

using vm::Opcode;

namespace {

StatusOr<uint32_t> GlobalIndex(const ir::Operation& op, const ModuleBuilder& mb) {
  const ir::Attribute* name = op.GetAttr("global");
  if (name)
    for (size_t i = 0; i < mb.globals.size(); ++i)
      if (mb.globals[i].name == name->str) return static_cast<uint32_t>(i);
  return Internal(op.name + " names no mutable global");
}

}  // namespace

Status FunctionLowering::LowerGlobalLoad(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  KILN_ASSIGN_OR_RETURN(uint32_t g, GlobalIndex(op, *mb_));
  body_.Emit(Opcode::kGlobalLoad, Define(op.result()), g);
  return Status::Ok();
}

Status FunctionLowering::LowerGlobalStore(const ir::Operation& op, const std::vector<Slot>*, ir::Location*) {
  KILN_ASSIGN_OR_RETURN(uint32_t g, GlobalIndex(op, *mb_));
  body_.Emit(Opcode::kGlobalStore, g, Ref(op.operands[0]));
  return Status::Ok();
}

}  // namespace kiln::compiler

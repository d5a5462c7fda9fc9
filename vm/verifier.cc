// The bytecode verifier: after it accepts a function, the interpreter can
// index registers, constants, executables, functions and strings without
// further checks, and control never runs past the end of the code.
#include <vector>

#include "kernels/common/scalar_program.h"
#include "vm/module.h"

namespace kiln::vm {

namespace {
// scalar.op evaluates the ops the table marks kVmInteger (scalar_ops.def),
// on integer and boolean types only, with as many operand registers as the op
// takes.
template <typename Bad>
Status VerifyScalarOp(const Instruction& ins, const Bad& bad) {
  const auto& o = ins.operands;
  ScalarOp op;
  if (!ScalarOpFromCode(static_cast<uint32_t>(o[1].value), &op)) return bad(ins.pc, "scalar.op: unknown op");
  if (!HasScalarOpFact(op, kVmInteger))
    return bad(ins.pc, "scalar.op: " + std::string(ScalarOpName(op)) + " is not an integer op");
  for (int k : {2, 3}) {
    auto t = static_cast<ElementType>(o[k].value);
    if (!IsInteger(t) && !IsBool(t)) return bad(ins.pc, "scalar.op on a non-integer type");
  }
  if (static_cast<int>(o[5].list.size()) != ScalarOpArity(op)) return bad(ins.pc, "scalar.op: wrong operand count");
  const int64_t attr0 = static_cast<int32_t>(o[4].value & 0xffffffffu), attr1 = static_cast<int32_t>(o[4].value >> 32);
  if (op == ScalarOp::kCompare && (attr0 < 0 || attr0 > 5 || attr1 < 0 || attr1 > 4))
    return bad(ins.pc, "scalar.op: invalid comparison");
  return Status::Ok();
}
}  // namespace

Status DecodeAndVerifyFunction(const LoadedModule& module, LoadedFunction& fn, std::span<const uint8_t> code) {
  auto bad = [&](uint32_t pc, const std::string& what) {
    return DataLoss("invalid module: function '" + fn.name + "' at bytecode offset " + std::to_string(pc) +
                    ": " + what);
  };
  if (code.empty()) return bad(0, "has no code");
  // The instruction at each byte offset of the code (kNotAnInstruction where none begins).
  constexpr uint32_t kNotAnInstruction = UINT32_MAX;
  std::vector<uint32_t> index_of_pc(code.size(), kNotAnInstruction);
  fn.code.clear();
  for (uint32_t pc = 0; pc < code.size();) {
    Instruction ins;
    if (!DecodeInstruction(code, pc, &ins)) return bad(pc, "unknown opcode or truncated instruction");
    index_of_pc[pc] = static_cast<uint32_t>(fn.code.size());
    pc = ins.next_pc;
    fn.code.push_back(std::move(ins));
  }
  auto in_range = [](uint64_t v, size_t n) { return v < n; };
  for (Instruction& ins : fn.code) {
    for (Operand& o : ins.operands) {
      switch (o.kind) {
        case 'i':
          if (!in_range(o.value, fn.num_i64_registers)) return bad(ins.pc, "i64 register out of range");
          break;
        case 'r':
          if (!in_range(o.value, fn.num_ref_registers)) return bad(ins.pc, "ref register out of range");
          break;
        case 'I':
          for (uint32_t r : o.list)
            if (!in_range(r, fn.num_i64_registers)) return bad(ins.pc, "i64 register out of range");
          if (o.list.size() > 64) return bad(ins.pc, "more than 64 dimensions");
          break;
        case 'R':
          for (uint32_t r : o.list)
            if (!in_range(r, fn.num_ref_registers)) return bad(ins.pc, "ref register out of range");
          break;
        case 'c':
          if (!in_range(o.value, module.constants.size())) return bad(ins.pc, "constant index out of range");
          break;
        case 'e':
          if (!in_range(o.value, module.executables.size())) return bad(ins.pc, "executable index out of range");
          break;
        case 'f':
          if (!in_range(o.value, module.functions.size())) return bad(ins.pc, "function index out of range");
          break;
        case 's':
          if (!in_range(o.value, module.strings.size())) return bad(ins.pc, "string index out of range");
          break;
        case 'g':
          if (!in_range(o.value, module.globals.size())) return bad(ins.pc, "global index out of range");
          break;
        case 't':
          if (!ElementTypeFromCode(static_cast<uint32_t>(o.value))) return bad(ins.pc, "unknown element type");
          break;
        case 'p': {
          if (o.value >= index_of_pc.size() || index_of_pc[o.value] == kNotAnInstruction)
            return bad(ins.pc, "jump target is not an instruction");
          o.value = index_of_pc[o.value];
          break;
        }
        default:
          break;
      }
    }
    if (ins.op == Opcode::kCall) {
      const LoadedFunction& callee = module.functions[ins.operands[0].value];
      if (ins.operands[1].list.size() != callee.args.size() ||
          ins.operands[2].list.size() != callee.results.size())
        return bad(ins.pc, "call to '" + callee.name + "' with the wrong number of arguments or results");
    }
    for (size_t k = 0; k < 4 && k < ins.operands.size(); ++k) ins.a[k] = static_cast<uint32_t>(ins.operands[k].value);
    if (ins.op == Opcode::kScalarOp) KILN_RETURN_IF_ERROR(VerifyScalarOp(ins, bad));
    // The view's end depends on dimensions known at run time (checked there).
    if ((ins.op == Opcode::kArenaView || ins.op == Opcode::kArenaViewInPlace) && ins.operands[2].value >= fn.arena_bytes)
      return bad(ins.pc, "arena.view at offset " + std::to_string(ins.operands[2].value) +
                             " outside the function's arena of " + std::to_string(fn.arena_bytes) + " bytes");
    // The planner places every tensor at a multiple of 64 bytes, the
    // alignment the kernels assume of every buffer (a view at offset 1 made
    // a kernel store a 4-byte element at an odd address).
    if ((ins.op == Opcode::kArenaView || ins.op == Opcode::kArenaViewInPlace) && ins.operands[2].value % 64 != 0)
      return bad(ins.pc, "arena.view at offset " + std::to_string(ins.operands[2].value) +
                             ", not a multiple of 64 bytes");
    // A subview's offset likewise (its end is checked at run time, against
    // its operand's size).
    if (ins.op == Opcode::kSubview && (static_cast<int64_t>(ins.operands[2].value) < 0 || ins.operands[2].value % 64 != 0))
      return bad(ins.pc, "subview at byte offset " + std::to_string(static_cast<int64_t>(ins.operands[2].value)) +
                             ", not a non-negative multiple of 64 bytes");
    if (ins.op == Opcode::kReturn && ins.operands[0].list.size() != fn.results.size())
      return bad(ins.pc, "returns " + std::to_string(ins.operands[0].list.size()) + " values, the signature has " +
                             std::to_string(fn.results.size()));
  }
  Opcode last = fn.code.back().op;
  if (last != Opcode::kReturn && last != Opcode::kBr && last != Opcode::kFail && last != Opcode::kFailFormat)
    return bad(fn.code.back().pc, "control can fall off the end of the function");
  return Status::Ok();
}

}  // namespace kiln::vm

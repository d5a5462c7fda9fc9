// The compiler's typed bytecode emitter (vm::BytecodeWriter::Emit): operands
// are checked against the opcode's kinds in vm/opcodes.def before anything is
// written, and what it writes decodes back to the operands given.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "vm/bytecode.h"

namespace kiln::vm {
namespace {

TEST(BytecodeWriter, EmitWritesWhatTheDecoderReads) {
  BytecodeWriter w;
  const std::vector<uint32_t> dims = {7, 8};
  ASSERT_EQ(w.Emit(Opcode::kAlloc, 3u, 4u, dims), 0u);  // no target: the opcode's offset
  ASSERT_TRUE(w.error().empty()) << w.error();
  Instruction in;
  ASSERT_TRUE(DecodeInstruction(w.bytes(), 0, &in));
  EXPECT_EQ(in.op, Opcode::kAlloc);
  ASSERT_EQ(in.operands.size(), 3u);
  EXPECT_EQ(in.operands[0].value, 3u);
  EXPECT_EQ(in.operands[1].value, 4u);
  EXPECT_EQ(in.operands[2].list, dims);
  EXPECT_EQ(in.next_pc, w.pc());
}

TEST(BytecodeWriter, EmitReturnsTheTargetOffsetForPatching) {
  BytecodeWriter w;
  w.Emit(Opcode::kConstI64, 0u, int64_t{-5});
  const uint32_t at = w.Emit(Opcode::kBrIf, 0u, BytecodeTarget{0});
  EXPECT_EQ(at, 13u + 1 + 4);  // after const.i64 (1 + 4 + 8), br.if's opcode and register
  w.PatchTarget(at, 42);
  Instruction in;
  ASSERT_TRUE(DecodeInstruction(w.bytes(), 13, &in));
  EXPECT_EQ(in.op, Opcode::kBrIf);
  EXPECT_EQ(in.operands[1].value, 42u);
}

TEST(BytecodeWriter, MisorderedOperandsAreRefusedAndNothingIsWritten) {
  BytecodeWriter w;
  const std::vector<uint32_t> dims = {7};
  // alloc is "rtI": the list given first is caught.
  EXPECT_EQ(w.Emit(Opcode::kAlloc, dims, 3u, 4u), UINT32_MAX);
  EXPECT_EQ(w.pc(), 0u);
  EXPECT_NE(w.error().find("alloc"), std::string::npos) << w.error();
  // br.if is "ip": a target where the register goes is caught.
  BytecodeWriter b;
  EXPECT_EQ(b.Emit(Opcode::kBrIf, BytecodeTarget{8}, 1u), UINT32_MAX);
  EXPECT_FALSE(b.error().empty());
  // check.close is "rrkk": u32 immediates where i64 ones belong are caught.
  BytecodeWriter c;
  EXPECT_EQ(c.Emit(Opcode::kCheckClose, 1u, 2u, 3u, 0u), UINT32_MAX);
  EXPECT_FALSE(c.error().empty());
}

TEST(BytecodeWriter, MissingOrExtraOperandsAreRefused) {
  BytecodeWriter w;
  EXPECT_EQ(w.Emit(Opcode::kDim, 1u, 2u), UINT32_MAX);  // "iru": one short
  BytecodeWriter x;
  EXPECT_EQ(x.Emit(Opcode::kMakeToken, 1u, 2u), UINT32_MAX);  // "r": one extra
  EXPECT_EQ(x.pc(), 0u);
  // The first error is kept; a later good instruction is still written.
  EXPECT_NE(x.Emit(Opcode::kMakeToken, 1u), UINT32_MAX);
  EXPECT_NE(x.error().find("token.make"), std::string::npos) << x.error();
  EXPECT_EQ(x.pc(), 5u);
}

}  // namespace
}  // namespace kiln::vm

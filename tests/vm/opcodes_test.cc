// The instruction table is a format contract: opcodes are append-only.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>

#include "vm/bytecode.h"
#include "vm/module.h"

namespace kiln::vm {
namespace {

TEST(Opcodes, MatchTheCommittedLock) {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/vm/opcodes.lock");
  ASSERT_TRUE(in) << "vm/opcodes.lock missing";
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    int code;
    std::string mnemonic, kinds;
    ls >> code >> mnemonic >> kinds;
    const OpcodeInfo& info = GetOpcodeInfo(static_cast<uint8_t>(code));
    EXPECT_EQ(info.mnemonic, mnemonic) << "opcode " << code << " was renamed or removed";
    EXPECT_EQ(info.kinds, kinds) << "opcode " << code << " changed its operands";
    ++rows;
  }
  // Every opcode in the table is in the lock (new ones must be appended).
  int in_table = 0;
  for (int c = 0; c <= kMaxOpcode; ++c) in_table += !GetOpcodeInfo(static_cast<uint8_t>(c)).mnemonic.empty();
  EXPECT_EQ(rows, in_table) << "append new opcodes to vm/opcodes.lock";
}

// What vm/bytecode.h derives from the table follows an appended row:
// kMaxOpcode is the largest code in the lock, every row of the lock is known
// to GetOpcodeInfo with an effect line, and nothing past kMaxOpcode is.
// (The interpreter's label table is checked when vm/interpreter.cc compiles:
// one entry per row, and a row without a body leaves a label undefined.)
TEST(Opcodes, DerivedConstantsFollowTheTable) {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/vm/opcodes.lock");
  ASSERT_TRUE(in);
  std::string line;
  int max_code = 0, rows = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    int code = std::stoi(line);
    EXPECT_LE(code, kMaxOpcode) << "opcode " << code << " is beyond kMaxOpcode";
    EXPECT_FALSE(GetOpcodeInfo(static_cast<uint8_t>(code)).effect.empty()) << "opcode " << code << " has no effect";
    max_code = std::max(max_code, code);
    ++rows;
  }
  EXPECT_EQ(max_code, kMaxOpcode);
  EXPECT_EQ(rows, kNumOpcodes);
  for (int c = 1; c <= kMaxOpcode; ++c)
    EXPECT_FALSE(GetOpcodeInfo(static_cast<uint8_t>(c)).mnemonic.empty()) << "opcode " << c << " is missing";
  for (int c = kMaxOpcode + 1; c < 256; ++c)
    EXPECT_TRUE(GetOpcodeInfo(static_cast<uint8_t>(c)).mnemonic.empty()) << "opcode " << c;
  EXPECT_TRUE(GetOpcodeInfo(0).mnemonic.empty());
}

// docs/bytecode.md's instruction table is generated from the table
// (scripts/gen_bytecode_doc.py): every row is on the page with its effect.
TEST(Opcodes, TheBytecodePageListsEveryRow) {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/docs/bytecode.md");
  ASSERT_TRUE(in);
  std::stringstream page;
  page << in.rdbuf();
  const std::string text = page.str();
  for (int c = 1; c <= kMaxOpcode; ++c) {
    const OpcodeInfo& info = GetOpcodeInfo(static_cast<uint8_t>(c));
    std::string row = "| " + std::to_string(c) + " | `" + std::string(info.mnemonic) + "` |";
    size_t at = text.find(row);
    ASSERT_NE(at, std::string::npos) << "docs/bytecode.md lacks " << info.mnemonic
                                     << ": run scripts/gen_bytecode_doc.py";
    std::string effect(info.effect);
    for (size_t p = 0; (p = effect.find('|', p)) != std::string::npos; p += 2) effect.insert(p, "\\");
    const std::string line = text.substr(at, text.find('\n', at) - at);
    EXPECT_NE(line.find(effect), std::string::npos) << "stale effect for " << info.mnemonic << ": " << line;
  }
}

TEST(Bytecode, RoundTripsThroughWriterAndDecoder) {
  BytecodeWriter w;
  w.Op(Opcode::kAlloc);
  w.U32(3);
  w.U32(27);
  std::vector<uint32_t> dims = {0, 1};
  w.List(dims);
  w.Op(Opcode::kConstI64);
  w.U32(1);
  w.I64(-5);
  Instruction ins;
  ASSERT_TRUE(DecodeInstruction(w.bytes(), 0, &ins));
  EXPECT_EQ(ins.op, Opcode::kAlloc);
  ASSERT_EQ(ins.operands.size(), 3u);
  EXPECT_EQ(ins.operands[0].value, 3u);
  EXPECT_EQ(ins.operands[2].list, dims);
  ASSERT_TRUE(DecodeInstruction(w.bytes(), ins.next_pc, &ins));
  EXPECT_EQ(ins.op, Opcode::kConstI64);
  EXPECT_EQ(static_cast<int64_t>(ins.operands[1].value), -5);
  EXPECT_EQ(ins.next_pc, w.bytes().size());
}

TEST(Bytecode, DecoderRefusesTruncationAndHostileCounts) {
  BytecodeWriter w;
  w.Op(Opcode::kReturn);
  w.U32(0xffffffffu);  // a list count far beyond the code
  Instruction ins;
  EXPECT_FALSE(DecodeInstruction(w.bytes(), 0, &ins));
  std::vector<uint8_t> unknown = {200};
  EXPECT_FALSE(DecodeInstruction(unknown, 0, &ins));
  BytecodeWriter t;
  t.Op(Opcode::kConstI64);
  t.U32(0);
  EXPECT_FALSE(DecodeInstruction(t.bytes(), 0, &ins));  // missing the i64
}

// A one-function module to run the verifier on.
LoadedModule ModuleWithResults(size_t results) {
  LoadedModule m;
  m.functions.resize(1);
  m.functions[0].name = "f";
  m.functions[0].results.resize(results);
  m.functions[0].num_i64_registers = 2;
  m.functions[0].num_ref_registers = 2;
  return m;
}

TEST(Verifier, AcceptsAWellFormedFunction) {
  LoadedModule m = ModuleWithResults(0);
  BytecodeWriter w;
  w.Op(Opcode::kConstI64);
  w.U32(1);
  w.I64(7);
  w.Op(Opcode::kReturn);
  w.List({});
  EXPECT_TRUE(DecodeAndVerifyFunction(m, m.functions[0], w.bytes()).ok());
}

TEST(Verifier, RefusesOutOfRangeOperands) {
  struct Case {
    const char* what;
    std::function<void(BytecodeWriter&)> emit;
  };
  std::vector<Case> cases = {
      {"i64 register", [](BytecodeWriter& w) { w.Op(Opcode::kConstI64); w.U32(2); w.I64(0); }},
      {"ref register", [](BytecodeWriter& w) { w.Op(Opcode::kMovRef); w.U32(0); w.U32(9); }},
      {"constant", [](BytecodeWriter& w) { w.Op(Opcode::kConstRef); w.U32(0); w.U32(0); }},
      {"executable", [](BytecodeWriter& w) { w.Op(Opcode::kDispatch); w.U32(0); w.List({}); w.List({}); }},
      {"function", [](BytecodeWriter& w) { w.Op(Opcode::kCall); w.U32(5); w.List({}); w.List({}); }},
      {"jump target", [](BytecodeWriter& w) { w.Op(Opcode::kBr); w.U32(3); }},
      {"element type", [](BytecodeWriter& w) { w.Op(Opcode::kAlloc); w.U32(0); w.U32(99); w.List({}); }},
  };
  for (const auto& c : cases) {
    LoadedModule m = ModuleWithResults(0);
    BytecodeWriter w;
    c.emit(w);
    w.Op(Opcode::kReturn);
    w.List({});
    Status s = DecodeAndVerifyFunction(m, m.functions[0], w.bytes());
    EXPECT_FALSE(s.ok()) << c.what;
    EXPECT_NE(s.message().find(c.what), std::string::npos) << s.message();
  }
}

TEST(Verifier, RefusesFallThroughAndWrongReturnArity) {
  LoadedModule m = ModuleWithResults(1);
  BytecodeWriter w;
  w.Op(Opcode::kConstI64);
  w.U32(0);
  w.I64(1);
  EXPECT_FALSE(DecodeAndVerifyFunction(m, m.functions[0], w.bytes()).ok());
  BytecodeWriter r;
  r.Op(Opcode::kReturn);
  r.List({});
  Status s = DecodeAndVerifyFunction(m, m.functions[0], r.bytes());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("returns 0 values"), std::string::npos) << s.message();
}

TEST(Verifier, RewritesJumpTargetsToInstructionIndices) {
  LoadedModule m = ModuleWithResults(0);
  BytecodeWriter w;
  w.Op(Opcode::kBr);
  w.U32(5);  // the return below starts at byte 5
  w.Op(Opcode::kReturn);
  w.List({});
  ASSERT_TRUE(DecodeAndVerifyFunction(m, m.functions[0], w.bytes()).ok());
  EXPECT_EQ(m.functions[0].code[0].operands[0].value, 1u);
}

}  // namespace
}  // namespace kiln::vm

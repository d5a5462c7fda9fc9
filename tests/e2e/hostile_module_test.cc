// Hostile module files: each is well-formed enough to reach a verifier or
// the interpreter, and each must be refused at load or stopped at run time
// with a clear error — never a crash, a hang or an out-of-bounds access
// (CI runs this under AddressSanitizer and UBSan). They are loaded as the
// tools load files, mapped read-only (tests/support/mapped_module.h).
#include <gtest/gtest.h>
#include <zstd.h>

#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/module_builder.h"
#include "hal/cpu/cpu_device.h"
#include "schema/module_checksum.h"
#include "schema/module_generated.h"
#include "vm/bytecode.h"
#include "tests/support/mapped_module.h"
#include "vm/context.h"

namespace kiln {
namespace {

using compiler::ConstantOut;
using compiler::FunctionOut;
using compiler::ModuleBuilder;
using compiler::SigOut;
using vm::BytecodeWriter;
using vm::Opcode;

SigOut F32Sig(std::vector<int64_t> dims) {
  SigOut s;
  s.type = ElementType::kF32;
  s.dims = std::move(dims);
  return s;
}

// A module with one public function `main` of the given bytecode.
ModuleBuilder OneFunction(std::function<void(BytecodeWriter&, ModuleBuilder&)> emit, std::vector<SigOut> args = {},
                          std::vector<SigOut> results = {}) {
  ModuleBuilder mb;
  FunctionOut f;
  f.name = "main";
  f.args = std::move(args);
  f.results = std::move(results);
  f.num_i64_registers = 8;
  f.num_ref_registers = 8;
  BytecodeWriter w;
  emit(w, mb);
  f.bytecode = w.bytes();
  mb.functions.push_back(std::move(f));
  return mb;
}

// Loads `bytes` and, if the loader accepts them, runs main; returns the
// first error.
Status LoadAndRun(const std::vector<uint8_t>& bytes, const std::vector<vm::HostTensor>& inputs = {}) {
  auto module = test::LoadMapped(bytes);
  if (!module.ok()) return module.status();
  auto device = hal::CreateCpuDevice(hal::CpuModeFromEnvironment());
  auto ctx = vm::Context::Create(*module, device.get());
  if (!ctx.ok()) return ctx.status();
  auto r = (*ctx)->Invoke("main", inputs);
  return r.ok() ? Status::Ok() : r.status();
}

void ExpectRefused(const Status& s, const std::string& needle) {
  ASSERT_FALSE(s.ok()) << "accepted; expected an error containing '" << needle << "'";
  EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
}

vm::HostTensor F32s(std::vector<int64_t> dims, float value) {
  vm::HostTensor t;
  t.type = ElementType::kF32;
  t.dims = std::move(dims);
  t.data.resize(t.NumElements() * 4);
  for (int64_t i = 0; i < t.NumElements(); ++i) std::memcpy(t.data.data() + i * 4, &value, 4);
  return t;
}

TEST(HostileModule, EndlessRecursionStopsWithAnError) {
  auto mb = OneFunction([](BytecodeWriter& w, ModuleBuilder&) {
    w.Op(Opcode::kCall);
    w.U32(0);  // main calls itself
    w.List({});
    w.List({});
    w.Op(Opcode::kReturn);
    w.List({});
  });
  ExpectRefused(LoadAndRun(mb.Serialize()), "call stack overflow");
}

TEST(HostileModule, GlobalsAreCheckedAtLoadAndStore) {
  // An instruction naming a global the module does not have.
  auto mb = OneFunction([](BytecodeWriter& w, ModuleBuilder&) {
    w.Op(Opcode::kGlobalLoad); w.U32(0); w.U32(3);
    w.Op(Opcode::kReturn); w.List({});
  });
  ExpectRefused(LoadAndRun(mb.Serialize()), "global index out of range");
  // A global whose initial value is no constant.
  mb = OneFunction([](BytecodeWriter& w, ModuleBuilder&) { w.Op(Opcode::kReturn); w.List({}); });
  mb.globals.push_back(compiler::GlobalOut{"g", 7, true});
  ExpectRefused(LoadAndRun(mb.Serialize()), "global 0 'g': its initial value is no constant of the module");
  // A store of a tensor of another shape than the global's, and one to a
  // global the module declares immutable.
  for (bool is_mutable : {true, false}) {
    mb = OneFunction([is_mutable](BytecodeWriter& w, ModuleBuilder& m) {
      ConstantOut c;
      c.type = ElementType::kF32;
      c.dims = {2};
      c.data.assign(8, 0);
      const uint32_t k = m.AddConstant(c);
      c.dims = {3};
      c.data.assign(12, 0);
      const uint32_t other = m.AddConstant(c);
      m.globals.push_back(compiler::GlobalOut{"g", k, true});
      w.Op(Opcode::kConstRef); w.U32(0); w.U32(other);
      w.Op(Opcode::kGlobalStore); w.U32(0); w.U32(is_mutable ? 0 : 1);
      w.Op(Opcode::kReturn); w.List({});
    });
    if (is_mutable) {
      ExpectRefused(LoadAndRun(mb.Serialize()), "global.store: the value is not a tensor of global 'g''s type and shape");
    } else {
      mb.globals[0].is_mutable = false;
      ExpectRefused(LoadAndRun(mb.Serialize()), "global 'g' is not mutable");
    }
  }
}

TEST(HostileModule, LongLoopsStillRun) {
  // The other side of the recursion bound: a long but finite loop of
  // branches (10^5 steps) is legitimate and must run to its end.
  auto mb = OneFunction([](BytecodeWriter& w, ModuleBuilder&) {
    w.Op(Opcode::kConstI64); w.U32(0); w.I64(0);       // i = 0
    w.Op(Opcode::kConstI64); w.U32(1); w.I64(1);       // one
    w.Op(Opcode::kConstI64); w.U32(2); w.I64(100000);  // n
    uint32_t loop = w.pc();
    w.Op(Opcode::kAddI64); w.U32(0); w.U32(0); w.U32(1);
    w.Op(Opcode::kCmpLtI64); w.U32(3); w.U32(0); w.U32(2);
    w.Op(Opcode::kBrIf); w.U32(3); w.U32(loop);
    w.Op(Opcode::kReturn); w.List({});
  });
  EXPECT_TRUE(LoadAndRun(mb.Serialize()).ok());
}

TEST(HostileModule, OutOfRangeIndicesAreRefusedAtLoad) {
  struct Case {
    const char* what;
    std::function<void(BytecodeWriter&)> emit;
  };
  std::vector<Case> cases = {
      {"register", [](BytecodeWriter& w) { w.Op(Opcode::kConstI64); w.U32(1000); w.I64(0); }},
      {"register", [](BytecodeWriter& w) { w.Op(Opcode::kMovRef); w.U32(0); w.U32(0xffffffffu); }},
      {"constant", [](BytecodeWriter& w) { w.Op(Opcode::kConstRef); w.U32(0); w.U32(7); }},
      {"executable", [](BytecodeWriter& w) { w.Op(Opcode::kDispatch); w.U32(3); w.List({}); w.List({}); }},
      {"function", [](BytecodeWriter& w) { w.Op(Opcode::kCall); w.U32(9); w.List({}); w.List({}); }},
      {"jump target", [](BytecodeWriter& w) { w.Op(Opcode::kBr); w.U32(1u << 30); }},
      {"string", [](BytecodeWriter& w) { w.Op(Opcode::kFail); w.U32(42); }},
  };
  for (const auto& c : cases) {
    auto mb = OneFunction([&](BytecodeWriter& w, ModuleBuilder&) {
      c.emit(w);
      w.Op(Opcode::kReturn);
      w.List({});
    });
    Status s = LoadAndRun(mb.Serialize());
    EXPECT_FALSE(s.ok()) << c.what;
    EXPECT_NE(s.message().find(c.what), std::string::npos) << c.what << ": " << s.message();
  }
}

// scalar.op evaluates integer ops on i64 registers: anything else is refused.
TEST(HostileModule, MalformedScalarOpsAreRefusedAtLoad) {
  auto scalar_op = [](uint32_t op, ElementType type, std::vector<uint32_t> regs, int64_t attrs = 0) {
    return [=](BytecodeWriter& w) {
      w.Op(Opcode::kScalarOp); w.U32(0); w.U32(op); w.U32(static_cast<uint32_t>(type));
      w.U32(static_cast<uint32_t>(type)); w.I64(attrs); w.List(regs);
    };
  };
  const auto add = static_cast<uint32_t>(ScalarOp::kAdd), tanh = static_cast<uint32_t>(ScalarOp::kTanh),
             cmp = static_cast<uint32_t>(ScalarOp::kCompare);
  std::vector<std::pair<const char*, std::function<void(BytecodeWriter&)>>> cases = {
      {"unknown op", scalar_op(999, ElementType::kSI32, {1, 2})},
      {"not an integer op", scalar_op(tanh, ElementType::kSI32, {1})},
      {"non-integer type", scalar_op(add, ElementType::kF32, {1, 2})},
      {"wrong operand count", scalar_op(add, ElementType::kSI32, {1, 2, 3})},
      {"invalid comparison", scalar_op(cmp, ElementType::kSI32, {1, 2}, 77)},
      {"register out of range", scalar_op(add, ElementType::kSI32, {1, 4000})},
  };
  for (const auto& c : cases) {
    const char* what = c.first;
    const auto& emit = c.second;  // a plain reference: clang 14 cannot capture a structured binding
    auto mb = OneFunction([&](BytecodeWriter& w, ModuleBuilder&) {
      emit(w);
      w.Op(Opcode::kReturn);
      w.List({});
    });
    Status s = LoadAndRun(mb.Serialize());
    EXPECT_FALSE(s.ok()) << what;
    EXPECT_NE(s.message().find(what), std::string::npos) << what << ": " << s.message();
  }
}

// The VM accepts in scalar.op exactly the ops scalar_ops.def marks kVmInteger.
TEST(HostileModule, ScalarOpAcceptsExactlyTheTablesIntegerOps) {
  int refused = 0;
  for (int c = 1; c <= kMaxScalarOpCode; ++c) {
    const auto op = static_cast<ScalarOp>(c);
    std::vector<uint32_t> regs(ScalarOpArity(op), 1);
    auto mb = OneFunction([&](BytecodeWriter& w, ModuleBuilder&) {
      w.Op(Opcode::kScalarOp); w.U32(0); w.U32(static_cast<uint32_t>(c));
      w.U32(static_cast<uint32_t>(ElementType::kSI32)); w.U32(static_cast<uint32_t>(ElementType::kSI32));
      w.I64(0); w.List(regs);
      w.Op(Opcode::kReturn);
      w.List({});
    });
    Status s = LoadAndRun(mb.Serialize());
    const bool called_non_integer = s.message().find("is not an integer op") != std::string::npos;
    EXPECT_EQ(called_non_integer, !HasScalarOpFact(op, kVmInteger)) << ScalarOpName(op) << ": " << s.message();
    refused += called_non_integer;
  }
  EXPECT_GT(refused, 0);
  EXPECT_LT(refused, kMaxScalarOpCode);
}

TEST(HostileModule, FallingOffTheEndIsRefused) {
  auto mb = OneFunction([](BytecodeWriter& w, ModuleBuilder&) {
    w.Op(Opcode::kConstI64);
    w.U32(0);
    w.I64(1);
  });
  EXPECT_FALSE(LoadAndRun(mb.Serialize()).ok());
}

TEST(HostileModule, HugeAllocationsAreErrors) {
  for (int64_t d : {int64_t{1} << 40, int64_t{1} << 62, int64_t{-5}}) {
    auto mb = OneFunction([&](BytecodeWriter& w, ModuleBuilder&) {
      w.Op(Opcode::kConstI64); w.U32(0); w.I64(d);
      w.Op(Opcode::kAlloc); w.U32(0); w.U32(static_cast<uint32_t>(ElementType::kF32)); w.List(std::vector<uint32_t>{0, 0});
      w.Op(Opcode::kReturn); w.List({});
    });
    EXPECT_FALSE(LoadAndRun(mb.Serialize()).ok()) << d;
  }
}

TEST(HostileModule, ReshapeBeyondTheBufferIsAnError) {
  auto mb = OneFunction(
      [](BytecodeWriter& w, ModuleBuilder&) {
        w.Op(Opcode::kConstI64); w.U32(0); w.I64(1000);
        w.Op(Opcode::kReshape); w.U32(1); w.U32(0); w.List(std::vector<uint32_t>{0});
        w.Op(Opcode::kReturn); w.List({});
      },
      {F32Sig({4})});
  EXPECT_FALSE(LoadAndRun(mb.Serialize(), {F32s({4}, 1)}).ok());
}

TEST(HostileModule, SubviewsOutsideTheirOperandAreErrors) {
  // Argument tensor<32xf32> (128 bytes). Each case: byte offset, dims.
  struct Case {
    int64_t offset, d;
    const char* needle;
  };
  // subview takes the offset as an immediate (a bad one refused at load),
  // subview.at from a register (refused when it runs).
  for (Opcode op : {Opcode::kSubview, Opcode::kSubviewAt})
    for (const Case& c : {Case{64, 17, "outside its operand"}, Case{192, 0, "outside its operand"},
                          Case{int64_t{1} << 62, 1, "outside its operand"}, Case{64, -1, "invalid dimensions"},
                          Case{0, int64_t{1} << 62, "outside its operand"},  // 2^62 f32: 2^64 bytes, wrapping to 0
                          Case{32, 1, "not a non-negative multiple of 64"},
                          Case{-64, 1, "not a non-negative multiple of 64"}}) {
      SCOPED_TRACE(std::string(op == Opcode::kSubview ? "subview " : "subview.at ") + std::to_string(c.offset) +
                   ", " + std::to_string(c.d));
      auto mb = OneFunction(
          [&](BytecodeWriter& w, ModuleBuilder&) {
            w.Op(Opcode::kConstI64); w.U32(0); w.I64(c.d);
            if (op == Opcode::kSubview) {
              w.Op(Opcode::kSubview); w.U32(1); w.U32(0); w.I64(c.offset); w.List(std::vector<uint32_t>{0});
            } else {
              w.Op(Opcode::kConstI64); w.U32(1); w.I64(c.offset);
              w.Op(Opcode::kSubviewAt); w.U32(1); w.U32(0); w.U32(1); w.List(std::vector<uint32_t>{0});
            }
            w.Op(Opcode::kReturn); w.List({});
          },
          {F32Sig({32})});
      ExpectRefused(LoadAndRun(mb.Serialize(), {F32s({32}, 1)}), c.needle);
    }
  // The last 16 elements: inside, accepted.
  auto mb = OneFunction(
      [](BytecodeWriter& w, ModuleBuilder&) {
        w.Op(Opcode::kConstI64); w.U32(0); w.I64(16);
        w.Op(Opcode::kSubview); w.U32(1); w.U32(0); w.I64(64); w.List(std::vector<uint32_t>{0});
        w.Op(Opcode::kReturn); w.List({});
      },
      {F32Sig({32})});
  EXPECT_TRUE(LoadAndRun(mb.Serialize(), {F32s({32}, 1)}).ok());
}

TEST(HostileModule, DispatchParametersInconsistentWithBuffersAreErrors) {
  // Each dispatch reads its single tensor<4xf32> argument into a tensor<2xf32>
  // with attributes that do not fit; the kernel or the HAL must refuse.
  std::vector<KernelParams> bad;
  {
    KernelParams p;
    p.kernel = "stablehlo.slice";
    p.attrs.push_back({"start_indices", {100}, {}, "", false, {}});
    p.attrs.push_back({"limit_indices", {102}, {}, "", false, {}});
    p.attrs.push_back({"strides", {1}, {}, "", false, {}});
    bad.push_back(p);
  }
  {
    KernelParams p;
    p.kernel = "stablehlo.transpose";
    p.attrs.push_back({"permutation", {5}, {}, "", false, {}});
    bad.push_back(p);
  }
  {
    KernelParams p;
    p.kernel = "stablehlo.broadcast_in_dim";
    p.attrs.push_back({"broadcast_dimensions", {3}, {}, "", false, {}});
    bad.push_back(p);
  }
  {
    KernelParams p;
    p.kernel = "stablehlo.dot_general";
    p.attrs.push_back({"lhs_contracting_dimensions", {7}, {}, "", false, {}});
    p.attrs.push_back({"rhs_contracting_dimensions", {0}, {}, "", false, {}});
    bad.push_back(p);
  }
  {
    KernelParams p;
    p.kernel = "stablehlo.gather";
    bad.push_back(p);  // no attributes at all
  }
  for (const auto& params : bad) {
    auto mb = OneFunction(
        [&](BytecodeWriter& w, ModuleBuilder& m) {
          uint32_t exe = m.AddExecutable(params);
          w.Op(Opcode::kConstI64); w.U32(0); w.I64(2);
          w.Op(Opcode::kAlloc); w.U32(1); w.U32(static_cast<uint32_t>(ElementType::kF32)); w.List(std::vector<uint32_t>{0});
          w.Op(Opcode::kDispatch); w.U32(exe); w.List(std::vector<uint32_t>{0, 0}); w.List(std::vector<uint32_t>{1});
          w.Op(Opcode::kReturn); w.List(std::vector<uint32_t>{1});
        },
        {F32Sig({4})}, {F32Sig({2})});
    Status s = LoadAndRun(mb.Serialize(), {F32s({4}, 1)});
    EXPECT_FALSE(s.ok()) << params.kernel;
    // The error names the kernel's op once ("op: op: ..." said it twice).
    const std::string named = params.kernel + ":";
    size_t first = s.message().find(named);
    EXPECT_NE(first, std::string::npos) << s.message();
    EXPECT_EQ(s.message().find(named, first + 1), std::string::npos) << s.message();
  }
}

TEST(HostileModule, EpiloguesThatDoNotFitTheirDispatchAreErrors) {
  // dot_general of two tensor<4xf32> into a rank-0 result, with fused
  // epilogues (kernels/reference/epilogue.h) that do not fit: more params
  // than extra inputs, a first param not of the result type, a map that
  // reads the result elsewhere, an extra input of the wrong shape.
  auto add_program = [](ElementType first) {
    ScalarProgram prog;
    prog.param_types = {first, ElementType::kF32};
    ScalarInstr add;
    add.op = ScalarOp::kAdd;
    add.type = ElementType::kF32;
    add.num_operands = 2;
    add.operands[0] = 0;
    add.operands[1] = 1;
    prog.instrs = {add};
    prog.results = {2};
    return prog;
  };
  struct Case {
    ScalarProgram program;
    std::vector<int64_t> map;  // empty: none
    std::vector<uint32_t> inputs;
  };
  const std::vector<Case> cases = {
      {add_program(ElementType::kF32), {}, {0, 0, 1}},           // well-formed: runs
      {add_program(ElementType::kF32), {}, {0, 0}},              // the program's second param has no input
      {add_program(ElementType::kSI32), {}, {0, 0, 1}},          // param 0 is not f32
      {add_program(ElementType::kF32), {1, 0, 0}, {0, 0, 1}},    // param 0 read through a rank-1 map
      {add_program(ElementType::kF32), {}, {0, 0, 0}},           // extra input tensor<4xf32> for a rank-0 result
  };
  for (size_t c = 0; c < cases.size(); ++c) {
    KernelParams p;
    p.kernel = "stablehlo.dot_general";
    p.attrs.push_back({"lhs_contracting_dimensions", {0}, {}, "", false, {}});
    p.attrs.push_back({"rhs_contracting_dimensions", {0}, {}, "", false, {}});
    p.attrs.push_back({"epilogue", {}, {}, "", true, cases[c].program});
    if (!cases[c].map.empty()) p.attrs.push_back({"epilogue_broadcast", cases[c].map, {}, "", false, {}});
    auto mb = OneFunction(
        [&](BytecodeWriter& w, ModuleBuilder& m) {
          uint32_t exe = m.AddExecutable(p);
          w.Op(Opcode::kAlloc); w.U32(2); w.U32(static_cast<uint32_t>(ElementType::kF32)); w.List(std::vector<uint32_t>{});
          w.Op(Opcode::kDispatch); w.U32(exe); w.List(cases[c].inputs); w.List(std::vector<uint32_t>{2});
          w.Op(Opcode::kReturn); w.List(std::vector<uint32_t>{2});
        },
        {F32Sig({4}), F32Sig({})}, {F32Sig({})});
    Status s = LoadAndRun(mb.Serialize(), {F32s({4}, 1), F32s({}, 1)});
    if (c == 0) {
      EXPECT_TRUE(s.ok()) << s.message();
    } else {
      EXPECT_FALSE(s.ok()) << "case " << c;
    }
  }
}

TEST(HostileModule, UnknownKernelIsRefusedNamingIt) {
  auto mb = OneFunction([](BytecodeWriter& w, ModuleBuilder& m) {
    KernelParams p;
    p.kernel = "stablehlo.no_such_kernel";
    uint32_t exe = m.AddExecutable(p);
    w.Op(Opcode::kDispatch); w.U32(exe); w.List({}); w.List({});
    w.Op(Opcode::kReturn); w.List({});
  });
  ExpectRefused(LoadAndRun(mb.Serialize()), "stablehlo.no_such_kernel");
}

// A constant written straight through FlatBuffers, to lie: its stored
// bytes `data` at `data_offset` of a data segment of `segment_size` bytes
// (format 0.5; the file holds `data` there, or at the segment's start if the
// offset is huge), the
// segment declared at `segment_offset` (0: right after the metadata,
// 64-byte aligned). With valid checksums, so the loader's structural checks
// are what refuse it.
struct LyingConstant {
  std::vector<int64_t> dims;
  fb::Compression compression = fb::Compression::None;
  uint64_t raw_size = 0;
  std::vector<uint8_t> data;
  uint64_t data_offset = 0;
  std::optional<uint64_t> data_size;       // default: data.size()
  std::optional<uint64_t> segment_size;    // default: data_offset + data.size()
  std::optional<uint64_t> segment_offset;  // default: after the metadata
  bool also_inline = false;                // a `data` vector too, as 0.4 wrote
};

std::vector<uint8_t> ModuleWithConstant(const LyingConstant& k) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.ForceDefaults(true);
  const uint64_t data_size = k.data_size.value_or(k.data.size());
  const uint64_t segment_size = k.segment_size.value_or(k.data_offset + k.data.size());
  auto c = fb::CreateConstant(fbb, static_cast<uint8_t>(ElementType::kF32), fbb.CreateVector(k.dims), k.compression,
                              k.raw_size, k.also_inline ? fbb.CreateVector(k.data) : 0, 0, 0, k.data_offset,
                              data_size);
  std::vector<flatbuffers::Offset<fb::Constant>> constants = {c};
  auto m = fb::CreateModule(fbb, vm::kFormatMajor, vm::kFormatMinor, fbb.CreateString("m"), fbb.CreateString(""),
                            fbb.CreateVector(std::vector<flatbuffers::Offset<fb::Function>>{}),
                            fbb.CreateVector(constants), 0, 0, 1, 1, 0, 0, 0, segment_size);
  fbb.Finish(m, fb::ModuleIdentifier());
  std::vector<uint8_t> file(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  const uint64_t metadata = (file.size() + 63) / 64 * 64;
  const uint64_t segment_offset = k.segment_offset.value_or(metadata);
  const fb::Module* root = fb::GetModule(file.data());
  flatbuffers::WriteScalar(file.data() + (fb::StoredField(root, fb::Module::VT_DATA_SEGMENT_OFFSET) - file.data()),
                           segment_offset);
  // The file: metadata, padding, then the segment's bytes as far as they
  // go (a lying size may claim more than there is).
  file.resize(metadata);
  std::vector<uint8_t> segment;
  if (k.data_offset < 4096) {
    segment.resize(k.data_offset + k.data.size());
    std::copy(k.data.begin(), k.data.end(), segment.begin() + static_cast<std::ptrdiff_t>(k.data_offset));
  } else {  // a huge lying offset: the bytes are at the segment's start
    segment = k.data;
  }
  file.insert(file.end(), segment.begin(), segment.end());
  // Sealing reads the constant's bytes where the file says they are; for a
  // range that lies, seal what is in range (the checksum then mismatches,
  // but the structural check comes first).
  EXPECT_TRUE(fb::SealModule(&file) || segment_offset > file.size());
  return file;
}

// Loads `bytes` and reads constant 0 (its first use: checksum, zstd frame
// check, decompression); the first error.
Status LoadAndReadConstant(const std::vector<uint8_t>& bytes) {
  auto module = test::LoadMapped(bytes);
  if (!module.ok()) return module.status();
  auto data = (*module)->constants.at(0).Data();
  return data.ok() ? Status::Ok() : data.status();
}

TEST(HostileModule, ConstantSizesThatLieAreRefused) {
  std::vector<uint8_t> sixteen(16, 0);
  EXPECT_TRUE(LoadAndReadConstant(ModuleWithConstant({{4}, fb::Compression::None, 16, sixteen})).ok())
      << "the honest constant must load";
  // Shape says 2^40 elements, data has 4.
  ExpectRefused(LoadAndReadConstant(ModuleWithConstant({{int64_t{1} << 40}, fb::Compression::None, 16, sixteen})),
                "constant 0 is too large");
  // Shape and data disagree.
  ExpectRefused(LoadAndReadConstant(ModuleWithConstant({{8}, fb::Compression::None, 32, sixteen})),
                "constant 0 holds 16 bytes, expected 32");
  // Negative dimension.
  ExpectRefused(LoadAndReadConstant(ModuleWithConstant({{-4}, fb::Compression::None, 16, sixteen})),
                "constant 0 has dimension -4");

  // A zstd frame of 4096 bytes, declared as 16 GiB raw / as the shape's size but
  // decompressing to something else. Opening does not read the frame (it
  // would touch the constant's pages): its first use refuses it.
  std::vector<uint8_t> raw(4096, 7);
  std::vector<uint8_t> frame(ZSTD_compressBound(raw.size()));
  frame.resize(ZSTD_compress(frame.data(), frame.size(), raw.data(), raw.size(), 3));
  EXPECT_TRUE(LoadAndReadConstant(ModuleWithConstant({{1024}, fb::Compression::Zstd, 4096, frame})).ok())
      << "the honest frame must load";
  ExpectRefused(LoadAndReadConstant(
                    ModuleWithConstant({{int64_t{1} << 32}, fb::Compression::Zstd, uint64_t{1} << 34, frame})),
                "constant 0 has a zstd frame whose size does not match its shape");
  ExpectRefused(LoadAndReadConstant(ModuleWithConstant({{2048}, fb::Compression::Zstd, 8192, frame})),
                "constant 0 has a zstd frame whose size does not match its shape");
  ExpectRefused(LoadAndReadConstant(ModuleWithConstant({{512}, fb::Compression::Zstd, 2048, frame})),
                "constant 0 has a zstd frame whose size does not match its shape");
  // Garbage claiming to be zstd.
  ExpectRefused(LoadAndReadConstant(ModuleWithConstant({{4}, fb::Compression::Zstd, 16, sixteen})),
                "constant 0 has a zstd frame whose size does not match its shape");
}

// Format 0.5's data segment and the constants' ranges in it: every range
// that leaves the file or the segment is refused at load, before anything
// reads through it (ASan and the mapping's end catch a read that slips by).
TEST(HostileModule, DataSegmentRangesThatLieAreRefused) {
  const std::vector<uint8_t> sixteen(16, 1);
  auto with = [&](auto edit) {
    LyingConstant k{{4}, fb::Compression::None, 16, sixteen};
    edit(k);
    return LoadAndReadConstant(ModuleWithConstant(k));
  };
  EXPECT_TRUE(with([](LyingConstant&) {}).ok());
  // The constant's range past the segment's end; its offset past it; an
  // offset + size that wraps around 2^64.
  ExpectRefused(with([](LyingConstant& k) { k.segment_size = 8; }), "run past the data segment of 8 bytes");
  ExpectRefused(with([](LyingConstant& k) { k.data_offset = 64; k.segment_size = 16; }),
                "16 bytes at offset 64 run past the data segment of 16 bytes");
  ExpectRefused(with([](LyingConstant& k) { k.data_offset = ~uint64_t{0} - 63; k.segment_size = 16; }),
                "run past the data segment");
  ExpectRefused(with([](LyingConstant& k) { k.data_size = ~uint64_t{0}; }), "run past the data segment");
  // A misaligned constant (it would be used in place by the SIMD kernels).
  ExpectRefused(with([](LyingConstant& k) { k.data_offset = 4; }), "are not 64-byte aligned");
  // The segment past the file's end (a truncated file), its size past it,
  // its offset wrapping, misaligned, or inside the metadata's FlatBuffer
  // (which must then verify within the bytes before it).
  ExpectRefused(with([](LyingConstant& k) { k.segment_offset = uint64_t{1} << 40; }),
                "runs past the end of the file");
  ExpectRefused(with([](LyingConstant& k) { k.segment_size = uint64_t{1} << 40; }),
                "runs past the end of the file");
  ExpectRefused(with([](LyingConstant& k) { k.segment_size = ~uint64_t{0}; }), "runs past the end of the file");
  ExpectRefused(with([](LyingConstant& k) { k.segment_offset = 0; }), "FlatBuffers verification failed");
  ExpectRefused(with([&](LyingConstant& k) {
                  k.segment_offset = (ModuleWithConstant({{4}, fb::Compression::None, 16, sixteen}).size() - 16) + 8;
                }),
                "not 64-byte aligned");
  ExpectRefused(with([](LyingConstant& k) { k.segment_offset = 64; }), "FlatBuffers verification failed");
  // A 0.5 constant that also has a `data` vector, as 0.4 wrote it.
  ExpectRefused(with([](LyingConstant& k) { k.also_inline = true; }),
                "constant 0 carries a data vector (from format 0.5 on its bytes lie in the data segment)");
}

// A 0.5 file without a data segment: refused, not read as 0.4.
TEST(HostileModule, Format05WithoutADataSegmentIsRefused) {
  flatbuffers::FlatBufferBuilder fbb;  // no ForceDefaults: the segment fields are left out
  auto m = fb::CreateModule(fbb, vm::kFormatMajor, vm::kFormatMinor, fbb.CreateString("m"));
  fbb.Finish(m, fb::ModuleIdentifier());
  std::vector<uint8_t> file(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  vm::LoadOptions unchecked;
  unchecked.verify_checksums = false;
  ExpectRefused(test::LoadMapped(file, unchecked).status(), "the file has no data segment");
}

// A value's name reaches apps as a C string and terminals as text: one
// that is too long, not UTF-8 or holds a control character (a NUL would cut
// it short) is refused at load, naming the value; any other loads as is.
TEST(HostileModule, ValueNamesThatAreNotCleanTextAreRefused) {
  auto with_names = [](std::string arg, std::string result) {
    SigOut a = F32Sig({2}), r = F32Sig({2});
    a.name = std::move(arg);
    r.name = std::move(result);
    ModuleBuilder mb = OneFunction(
        [](BytecodeWriter& w, ModuleBuilder&) {
          const uint32_t r0[] = {0};
          w.Op(Opcode::kReturn);
          w.List(r0);
        },
        {a}, {r});
    return test::LoadMapped(mb.Serialize());
  };
  const std::string nul("a\0b", 3);
  ExpectRefused(with_names(nul, "").status(), "function 'main' argument 0 has a name with a control character");
  ExpectRefused(with_names("x", "\x1b[2J").status(), "function 'main' result 0 has a name with a control character");
  ExpectRefused(with_names("\xff", "").status(), "argument 0 has a name that is not valid UTF-8");
  ExpectRefused(with_names("\xc3", "").status(), "not valid UTF-8");          // cut short
  ExpectRefused(with_names("\xc0\xaf", "").status(), "not valid UTF-8");      // overlong '/'
  ExpectRefused(with_names("\xed\xa0\x80", "").status(), "not valid UTF-8");  // a surrogate
  ExpectRefused(with_names(std::string(vm::kMaxValueNameBytes + 1, 'a'), "").status(), "at most 4096");
  auto ok = with_names("params['w'] \xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5", std::string(vm::kMaxValueNameBytes, 'r'));
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ((*ok)->functions[0].args[0].name, "params['w'] \xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5");
  EXPECT_EQ((*ok)->functions[0].results[0].name.size(), vm::kMaxValueNameBytes);
}

}  // namespace
// Function.donations (schema/README.md): an argument or result out of
// range, a donated token, or a repeat is refused at load, naming it.
TEST(HostileModule, BadDonationsAreRefused) {
  auto with = [](std::vector<FunctionOut::Donation> d, bool token_arg = false) {
    SigOut token;
    token.kind = 1;
    auto mb = OneFunction(
        [](BytecodeWriter& w, ModuleBuilder&) {
          const uint32_t r0[] = {0};
          w.Op(Opcode::kReturn);
          w.List(r0);
        },
        {token_arg ? token : F32Sig({2}), F32Sig({2})}, {F32Sig({2})});
    mb.functions[0].donations = std::move(d);
    return LoadAndRun(mb.Serialize(), {F32s({2}, 1), F32s({2}, 2)});
  };
  ExpectRefused(with({{2, 0}}), "donation of argument 2, which it does not have");
  ExpectRefused(with({{0, 1}}), "donation of argument 0 to result 1, which it does not have");
  ExpectRefused(with({{0, -2}}), "to result -2, which it does not have");
  ExpectRefused(with({{0, 0}, {1, 0}}), "repeats an argument or a result");
  ExpectRefused(with({{0, -1}, {0, -1}}), "repeats an argument or a result");
  ExpectRefused(with({{0, -1}}, true), "donation of argument 0, which is not a tensor");
  // Well formed: loads and runs (host inputs donate nothing).
  EXPECT_TRUE(with({{1, 0}}).ok());
}

}  // namespace kiln

// Mapped modules (vm/module_bytes.h, docs/deploying.md): a file is mapped
// read-only and verified in place; the CPU uses uncompressed constants in
// place, so nothing may write one (a write would fault on the mapping: it is
// refused); constants are checked against their checksums and decompressed
// on first use, a damaged one failing only the calls that use it; borrowed
// bytes are released once, when the module is gone; and a file truncated
// under its mapping is the documented SIGBUS.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/module_builder.h"
#include "hal/cpu/cpu_device.h"
#include "kernels/common/file_io.h"
#include "schema/module_generated.h"
#include "schema/module_layout.h"
#include "tests/support/mapped_module.h"
#include "tests/support/sanitizers.h"
#include "vm/bytecode.h"
#include "vm/context.h"
#include "vm/kiln.h"

namespace kiln {
namespace {

using compiler::ModuleBuilder;
using vm::BytecodeWriter;
using vm::Opcode;

constexpr int64_t kBig = 1024;  // elements of constant 0

compiler::SigOut F32Sig(std::vector<int64_t> dims) {
  compiler::SigOut s;
  s.type = ElementType::kF32;
  s.dims = std::move(dims);
  return s;
}

compiler::ConstantOut F32Constant(std::vector<float> values) {
  compiler::ConstantOut c;
  c.type = ElementType::kF32;
  c.dims = {static_cast<int64_t>(values.size())};
  c.data.resize(values.size() * 4);
  std::memcpy(c.data.data(), values.data(), c.data.size());
  return c;
}

std::vector<float> BigValues() {
  std::vector<float> v(kBig);
  for (int64_t i = 0; i < kBig; ++i) v[i] = static_cast<float>(i % 7) * 0.5f;  // compressible
  return v;
}

void AddFunction(ModuleBuilder& mb, const std::string& name, std::vector<compiler::SigOut> args,
                 std::vector<compiler::SigOut> results, const std::function<void(BytecodeWriter&)>& emit) {
  compiler::FunctionOut f;
  f.name = name;
  f.args = std::move(args);
  f.results = std::move(results);
  f.num_i64_registers = 4;
  f.num_ref_registers = 4;
  BytecodeWriter w;
  emit(w);
  f.bytecode = w.bytes();
  mb.functions.push_back(std::move(f));
}

// Constant 0: f32[1024]; constant 1: f32[4] = 1..4.
//   first() -> constant 0;  second() -> a copy of constant 1 made by a dispatch;
//   write_constant() dispatches into constant 1;
//   write_argument(x) dispatches into its argument.
std::vector<uint8_t> TestModule(size_t compress_min_bytes = SIZE_MAX) {
  ModuleBuilder mb;
  mb.AddConstant(F32Constant(BigValues()));
  mb.AddConstant(F32Constant({1, 2, 3, 4}));
  KernelParams copy;  // a rank-1 transpose: a copy
  copy.kernel = "stablehlo.transpose";
  copy.attrs.push_back({"permutation", {0}, {}, "", false, {}});
  const uint32_t exe = mb.AddExecutable(copy);
  AddFunction(mb, "first", {}, {F32Sig({kBig})}, [](BytecodeWriter& w) {
    w.Op(Opcode::kConstRef); w.U32(0); w.U32(0);
    w.Op(Opcode::kReturn); w.List(std::vector<uint32_t>{0});
  });
  AddFunction(mb, "second", {}, {F32Sig({4})}, [&](BytecodeWriter& w) {
    w.Op(Opcode::kConstRef); w.U32(0); w.U32(1);
    w.Op(Opcode::kConstI64); w.U32(0); w.I64(4);
    w.Op(Opcode::kAlloc); w.U32(1); w.U32(static_cast<uint32_t>(ElementType::kF32)); w.List(std::vector<uint32_t>{0});
    w.Op(Opcode::kDispatch); w.U32(exe); w.List(std::vector<uint32_t>{0}); w.List(std::vector<uint32_t>{1});
    w.Op(Opcode::kReturn); w.List(std::vector<uint32_t>{1});
  });
  AddFunction(mb, "write_constant", {}, {F32Sig({4})}, [&](BytecodeWriter& w) {
    w.Op(Opcode::kConstRef); w.U32(0); w.U32(1);
    w.Op(Opcode::kDispatch); w.U32(exe); w.List(std::vector<uint32_t>{0}); w.List(std::vector<uint32_t>{0});
    w.Op(Opcode::kReturn); w.List(std::vector<uint32_t>{0});
  });
  AddFunction(mb, "write_argument", {F32Sig({4})}, {F32Sig({4})}, [&](BytecodeWriter& w) {
    w.Op(Opcode::kDispatch); w.U32(exe); w.List(std::vector<uint32_t>{0}); w.List(std::vector<uint32_t>{0});
    w.Op(Opcode::kReturn); w.List(std::vector<uint32_t>{0});
  });
  return mb.Serialize(compress_min_bytes);
}

std::vector<float> Floats(const vm::HostTensor& t) {
  std::vector<float> v(t.data.size() / 4);
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

// The byte offset of constant `index`'s stored data in the file.
size_t DataOffset(const std::vector<uint8_t>& bytes, size_t index) {
  const fb::Module* m = fb::GetModule(bytes.data());
  return static_cast<size_t>(fb::StoredBytes(bytes.data(), bytes.size(), *m, *m->constants()->Get(index)).data() -
                             bytes.data());
}

bool Inside(const uint8_t* p, const vm::LoadedModule& m) {
  return p >= m.bytes->data() && p < m.bytes->data() + m.bytes->size();
}

// The resident bytes of the mapping that starts at `start`, from
// /proc/self/smaps (its Rss line, in KiB); -1 if there is none.
long MappingRssKiB(const void* start) {
  FILE* f = std::fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  bool in = false;
  long rss = -1;
  while (std::fgets(line, sizeof line, f)) {
    unsigned long begin = 0, end = 0;
    if (std::sscanf(line, "%lx-%lx ", &begin, &end) == 2) {  // a mapping's first line
      in = begin == reinterpret_cast<uintptr_t>(start);
      continue;
    }
    if (in && std::sscanf(line, "Rss: %ld kB", &rss) == 1) break;
  }
  std::fclose(f);
  return rss;
}

// Format 0.5 puts the constants in a data segment after the metadata, and
// the loader verifies a copy of the metadata read with pread: opening a
// mapped file maps none of its pages into the process, however large its
// constants and however the page cache holds them (a fault on one byte of
// a 2 MiB folio maps all of it). Format 0.4's layout, checked the same way,
// maps pages of every constant (the verifier reads each one's length).
TEST(MappedModule, OpeningMapsNoneOfTheFilesPages) {
  for (auto layout : {ModuleBuilder::Layout::kDataSegment, ModuleBuilder::Layout::kInline04}) {
    ModuleBuilder mb;
    for (int c = 0; c < 3; ++c) {
      std::vector<float> values(size_t{1} << 20);  // 4 MiB each
      for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>((i * 2654435761u + c) % 1000003);
      mb.AddConstant(F32Constant(std::move(values)));
    }
    const std::vector<uint8_t> bytes = mb.Serialize(SIZE_MAX, layout);
    const std::string path = test::WriteTempModule(bytes);
    ASSERT_TRUE(ReadFile(path).ok());  // in the page cache, as a module opened before is
    vm::LoadOptions options;
    auto module = vm::LoadModuleFromFile(path, options);
    unlink(path.c_str());
    ASSERT_TRUE(module.ok()) << module.status().message();
    const vm::ModuleBytes& b = *(*module)->bytes;
    ASSERT_EQ(b.source(), vm::ModuleBytes::Source::kMapped);
    const long opened = MappingRssKiB(b.data());
    auto data = (*module)->constants[1].Data();
    ASSERT_TRUE(data.ok()) << data.status().message();
    const long used = MappingRssKiB(b.data());
    if (layout == ModuleBuilder::Layout::kDataSegment) {
      EXPECT_NE(b.metadata().data(), b.data()) << "the metadata is read, not used through the mapping";
      EXPECT_EQ(opened, 0) << "opening mapped pages of the file";
      EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data() + b.metadata().size()) % fb::kSegmentAlignment, 0u);
    } else {
      EXPECT_EQ(b.metadata().data(), b.data());
      EXPECT_GT(opened, 0) << "0.4's verifier reads a word of every constant";
    }
    // The first use reads the constant (its checksum), through the mapping.
    EXPECT_GE(used, opened + 1024) << "the first use maps the constant's pages (KiB)";
  }
}

TEST(MappedModule, UncompressedConstantsAreUsedInPlace) {
  auto module = test::LoadMapped(TestModule());
  ASSERT_TRUE(module.ok()) << module.status().message();
  const vm::LoadedConstant& k = (*module)->constants[0];
  EXPECT_FALSE(k.compressed);
  auto data = k.Data();
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(*data, k.stored);
  EXPECT_TRUE(Inside(*data, **module));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*data) % 64, 0u) << "constant data are 64-byte aligned in the file";

  auto device = hal::CreateCpuDevice(hal::CpuModeFromEnvironment(), 1);
  auto ctx = vm::Context::Create(*module, device.get());
  ASSERT_TRUE(ctx.ok()) << ctx.status().message();
  auto r = (*ctx)->Invoke("first", {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Floats((*r)[0]), BigValues());
  // A copy would be one of the device's buffers; the wrapped mapping is not.
  EXPECT_LT(device->stats().live_bytes, static_cast<uint64_t>(kBig) * 4);
}

TEST(MappedModule, ReadingInsteadOfMappingGivesTheSameResults) {
  const std::string path = test::WriteTempModule(TestModule());
  vm::LoadOptions read;
  read.map_file = false;
  auto owned = vm::LoadModuleFromFile(path, read);
  auto mapped = vm::LoadModuleFromFile(path);
  unlink(path.c_str());
  ASSERT_TRUE(owned.ok() && mapped.ok());
  EXPECT_EQ((*owned)->bytes->source(), vm::ModuleBytes::Source::kOwned);
  EXPECT_EQ((*mapped)->bytes->source(), vm::ModuleBytes::Source::kMapped);
  auto device = hal::CreateCpuDevice(hal::CpuModeFromEnvironment(), 1);
  for (const auto& m : {*owned, *mapped}) {
    auto ctx = vm::Context::Create(m, device.get());
    ASSERT_TRUE(ctx.ok());
    auto r = (*ctx)->Invoke("second", {});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(Floats((*r)[0]), (std::vector<float>{1, 2, 3, 4}));
  }
}

TEST(MappedModule, EnvironmentChoosesReading) {
  ASSERT_EQ(setenv("KILN_MAP_MODULES", "0", 1), 0);
  EXPECT_FALSE(vm::DefaultLoadOptions().map_file);
  const std::string path = test::WriteTempModule(TestModule());
  auto m = vm::LoadModuleFromFile(path);
  ASSERT_EQ(unsetenv("KILN_MAP_MODULES"), 0);
  EXPECT_TRUE(vm::DefaultLoadOptions().map_file);
  unlink(path.c_str());
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ((*m)->bytes->source(), vm::ModuleBytes::Source::kOwned);
}

// A dispatch that writes a constant (or an argument) is refused, in both CPU
// modes, instead of faulting on the read-only mapping; the context stays
// usable and the constant unchanged.
TEST(MappedModule, WritesToConstantsAndArgumentsAreRefused) {
  auto module = test::LoadMapped(TestModule());
  ASSERT_TRUE(module.ok()) << module.status().message();
  for (hal::CpuMode mode : {hal::CpuMode::kInline, hal::CpuMode::kDeferred}) {
    auto device = hal::CreateCpuDevice(mode, 1);
    auto ctx = vm::Context::Create(*module, device.get());
    ASSERT_TRUE(ctx.ok());
    auto w = (*ctx)->Invoke("write_constant", {});
    ASSERT_FALSE(w.ok());
    EXPECT_NE(w.status().message().find("writes to read-only memory (a module constant"), std::string::npos)
        << w.status().message();
    vm::HostTensor x;
    x.type = ElementType::kF32;
    x.dims = {4};
    x.data.assign(16, 0);
    auto a = (*ctx)->Invoke("write_argument", {x});
    ASSERT_FALSE(a.ok());
    EXPECT_NE(a.status().message().find("read-only memory"), std::string::npos) << a.status().message();
    EXPECT_EQ(x.data, std::vector<uint8_t>(16, 0));
    auto r = (*ctx)->Invoke("second", {});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(Floats((*r)[0]), (std::vector<float>{1, 2, 3, 4}));
  }
}

// Opening does not read the constants' data: a damaged constant loads, fails
// each call that uses it with the checksum's message, and leaves the calls
// that do not use it working.
TEST(MappedModule, DamagedConstantFailsItsFirstUseOnly) {
  std::vector<uint8_t> bytes = TestModule();
  bytes[DataOffset(bytes, 0) + 100] ^= 0x04;
  auto module = test::LoadMapped(bytes);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto device = hal::CreateCpuDevice(hal::CpuModeFromEnvironment(), 1);
  auto ctx = vm::Context::Create(*module, device.get());
  ASSERT_TRUE(ctx.ok()) << ctx.status().message();
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto r = (*ctx)->Invoke("first", {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(r.status().message().find("constant 0's data does not match its checksum"), std::string::npos)
        << r.status().message();
    auto ok = (*ctx)->Invoke("second", {});
    ASSERT_TRUE(ok.ok()) << ok.status().message();
    EXPECT_EQ(Floats((*ok)[0]), (std::vector<float>{1, 2, 3, 4}));
  }
  // A trusted file skips the check and runs with the damaged value.
  vm::LoadOptions trusted;
  trusted.verify_checksums = false;
  auto unchecked = test::LoadMapped(bytes, trusted);
  ASSERT_TRUE(unchecked.ok());
  auto ctx2 = vm::Context::Create(*unchecked, device.get());
  ASSERT_TRUE(ctx2.ok());
  auto r = (*ctx2)->Invoke("first", {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NE(Floats((*r)[0]), BigValues());
}

TEST(MappedModule, CompressedConstantsAreDecompressedOnFirstUse) {
  auto module = test::LoadMapped(TestModule(/*compress_min_bytes=*/1024));
  ASSERT_TRUE(module.ok()) << module.status().message();
  const vm::LoadedConstant& k = (*module)->constants[0];
  ASSERT_TRUE(k.compressed) << "the test constant should compress";
  EXPECT_LT(k.stored_size, k.size);
  auto device = hal::CreateCpuDevice(hal::CpuModeFromEnvironment(), 1);
  auto ctx = vm::Context::Create(*module, device.get());
  ASSERT_TRUE(ctx.ok());
  auto r = (*ctx)->Invoke("first", {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Floats((*r)[0]), BigValues());
  // Decompressed once, into memory the module owns, shared by every use.
  auto a = k.Data(), b = k.Data();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_FALSE(Inside(*a, **module));
}

TEST(MappedModule, BorrowedBytesAreReleasedOnceWhenTheModuleIsGone) {
  const std::vector<uint8_t> bytes = TestModule();
  int released = 0;
  auto module = vm::LoadModuleBorrowed(bytes, [&] { ++released; });
  ASSERT_TRUE(module.ok()) << module.status().message();
  EXPECT_EQ((*module)->bytes->source(), vm::ModuleBytes::Source::kBorrowed);
  EXPECT_EQ((*module)->bytes->data(), bytes.data()) << "borrowed, not copied";
  auto device = hal::CreateCpuDevice(hal::CpuModeFromEnvironment(), 1);
  auto ctx = vm::Context::Create(*module, device.get());
  ASSERT_TRUE(ctx.ok());
  module = Status(StatusCode::kInternal, "dropped");  // the context still holds the module
  auto r = (*ctx)->Invoke("second", {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(released, 0);
  ctx = Status(StatusCode::kInternal, "dropped");
  EXPECT_EQ(released, 1);

  // A refused load gives the bytes back before it returns.
  const std::vector<uint8_t> junk(64, 0x5a);
  auto refused = vm::LoadModuleBorrowed(junk, [&] { ++released; });
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(released, 2);
}

void CountRelease(void* user_data) { ++*static_cast<int*>(user_data); }

TEST(MappedModule, CApiLoadsBorrowedBytesAndTakesLoadOptions) {
  const std::vector<uint8_t> bytes = TestModule();
  kiln_load_options_t options;
  kiln_load_options_init(&options);
  EXPECT_EQ(options.verify_checksums, 1);
  EXPECT_EQ(options.map_file, 1);
  int released = 0;
  kiln_module_t* module = nullptr;
  ASSERT_EQ(kiln_module_load_memory_borrowed(bytes.data(), bytes.size(), CountRelease, &released, &options, &module),
            nullptr);
  kiln_session_t* session = nullptr;
  ASSERT_EQ(kiln_session_create(module, "cpu", &session), nullptr);
  kiln_module_free(module);  // the session keeps it
  kiln_results_t* results = nullptr;
  ASSERT_EQ(kiln_session_call(session, "second", nullptr, 0, &results), nullptr);
  kiln_tensor_t out;
  ASSERT_EQ(kiln_results_get(results, 0, &out), nullptr);
  ASSERT_EQ(out.byte_size, 16u);
  float got[4];
  std::memcpy(got, out.data, 16);
  EXPECT_EQ(got[3], 4.0f);
  kiln_results_free(results);
  EXPECT_EQ(released, 0);
  kiln_session_free(session);
  EXPECT_EQ(released, 1);

  // A struct not from kiln_load_options_init is refused and nothing is taken.
  kiln_load_options_t bad = options;
  bad.struct_size = 3;
  kiln_status_t s = kiln_module_load_memory_borrowed(bytes.data(), bytes.size(), CountRelease, &released, &bad, &module);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(kiln_status_message(s)).find("kiln_load_options_init"), std::string::npos);
  kiln_status_free(s);
  EXPECT_EQ(released, 1);

  // Reading instead of mapping, through the options.
  const std::string path = test::WriteTempModule(bytes);
  options.map_file = 0;
  ASSERT_EQ(kiln_module_load_file_with_options(path.c_str(), &options, &module), nullptr);
  kiln_module_free(module);
  unlink(path.c_str());
}

// The documented hazard: a file truncated while it is mapped takes the
// process down with SIGBUS when a constant in the cut-off part is touched.
// (Replace module files by renaming a new one over them; docs/deploying.md.)
TEST(MappedModuleDeathTest, TruncatingAMappedFileIsSigbus) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<float> big(1 << 16, 1.0f);  // 256 KB: many pages past the metadata
  ModuleBuilder mb;
  mb.AddConstant(F32Constant(big));
  AddFunction(mb, "first", {}, {F32Sig({1 << 16})}, [](BytecodeWriter& w) {
    w.Op(Opcode::kConstRef); w.U32(0); w.U32(0);
    w.Op(Opcode::kReturn); w.List(std::vector<uint32_t>{0});
  });
  const std::string path = test::WriteTempModule(mb.Serialize(SIZE_MAX));
  auto run = [&path] {
    auto module = vm::LoadModuleFromFile(path);
    if (!module.ok()) std::exit(2);
    if (truncate(path.c_str(), 0) != 0) std::exit(3);
    auto device = hal::CreateCpuDevice(hal::CpuMode::kInline, 1);
    auto ctx = vm::Context::Create(*module, device.get());
    if (!ctx.ok()) std::exit(4);
    (void)(*ctx)->Invoke("first", {});
    std::exit(0);
  };
#if defined(KILN_TEST_UNDER_ASAN)
  // AddressSanitizer catches the SIGBUS, reports it and aborts.
  EXPECT_DEATH(run(), "AddressSanitizer: BUS");
#else
  EXPECT_EXIT(run(), ::testing::KilledBySignal(SIGBUS), "");
#endif
  unlink(path.c_str());
}

}  // namespace
}  // namespace kiln

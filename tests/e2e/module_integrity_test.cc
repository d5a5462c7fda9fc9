// The module file's checksums (schema/module_checksum.h): a corrupted file
// is refused at load (its metadata) or at a constant's first use (its
// data), never run with wrong weights or handed to a driver
// with a broken shader; the opt-out for trusted files; and the bit-flip
// sweep over the MLP example compiled for every target, run on the CPU and on
// the Vulkan device.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "hal/devices.h"
#include "schema/module_checksum.h"
#include "schema/module_generated.h"
#include "schema/module_layout.h"
#include "tests/support/host_tensor_util.h"
#include "tests/support/mapped_module.h"
#include "tests/support/sanitizers.h"
#include "vm/context.h"

namespace kiln {
namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// examples/mlp.mlir (written at build time by examples/gen_mlp.py) compiled
// for every target, once for all tests here.
const std::vector<uint8_t>& MlpModule() {
  static const std::vector<uint8_t> bytes = [] {
    std::string source = ReadText(KILN_TEST_MLP_MLIR);
    EXPECT_FALSE(source.empty()) << KILN_TEST_MLP_MLIR;
    compiler::CompileOptions options;
    options.target = "all";
    auto b = compiler::Compile(source, "mlp.mlir", options, nullptr);
    EXPECT_TRUE(b.ok()) << b.status().message();
    return b.ok() ? b.value() : std::vector<uint8_t>{};
  }();
  return bytes;
}

// The same in format 0.4's layout (constants inside the FlatBuffer), from
// which the files of older formats below are made.
const std::vector<uint8_t>& MlpModule04() {
  static const std::vector<uint8_t> bytes = [] {
    compiler::CompileOptions options;
    options.target = "all";
    options.format_04 = true;
    auto b = compiler::Compile(ReadText(KILN_TEST_MLP_MLIR), "mlp.mlir", options, nullptr);
    EXPECT_TRUE(b.ok()) << b.status().message();
    return b.ok() ? b.value() : std::vector<uint8_t>{};
  }();
  return bytes;
}

// @main's input: one 1x784 f32 image of fixed values.
std::vector<vm::HostTensor> MlpInput() {
  std::vector<float> image(784);
  for (size_t i = 0; i < image.size(); ++i) image[i] = static_cast<float>((i * 37) % 101) / 100.0f;
  return {test::HostTensorOf(ElementType::kF32, {1, 784}, image)};
}

vm::LoadOptions Verified() { return vm::LoadOptions{}; }
vm::LoadOptions Unverified() {
  vm::LoadOptions o;
  o.verify_checksums = false;
  return o;
}

// The index, byte offset and size of the largest constant's data (the
// first layer's weights).
struct ConstantData {
  size_t index, offset, size;
};
ConstantData LargestConstant(const std::vector<uint8_t>& bytes) {
  const fb::Module* m = fb::GetModule(bytes.data());
  ConstantData best{0, 0, 0};
  for (size_t i = 0; i < m->constants()->size(); ++i) {
    const std::span<const uint8_t> data = fb::StoredBytes(bytes.data(), bytes.size(), *m, *m->constants()->Get(i));
    if (data.size() > best.size) best = {i, static_cast<size_t>(data.data() - bytes.data()), data.size()};
  }
  return best;
}

// The byte offset of the first Vulkan shader's SPIR-V words.
size_t FirstShaderOffset(const std::vector<uint8_t>& bytes) {
  const fb::Module* m = fb::GetModule(bytes.data());
  for (const auto* e : *m->executables())
    if (e->vulkan_variants() && e->vulkan_variants()->size())
      return reinterpret_cast<const uint8_t*>(e->vulkan_variants()->Get(0)->spirv()->data()) - bytes.data();
  return 0;
}

std::string Message(const Status& s) { return s.message(); }

StatusOr<std::vector<vm::HostTensor>> RunMain(std::shared_ptr<const vm::LoadedModule> module, hal::Device* device);

// A constant's data are checked on its first use, not at load (so opening
// costs the same whatever the constants weigh): the damaged module loads,
// and the call that uses the constant fails naming it.
TEST(ModuleIntegrity, CorruptedConstantIsRefusedAtFirstUse) {
  auto bytes = MlpModule();
  ASSERT_FALSE(bytes.empty());
  ConstantData c = LargestConstant(bytes);
  ASSERT_GT(c.size, 100000u);
  bytes[c.offset + c.size / 2] ^= 0x10;  // one bit of a weight
  auto loaded = vm::LoadModule(bytes, Verified());
  ASSERT_TRUE(loaded.ok()) << Message(loaded.status());
  auto cpu = hal::CreateCpuDevice(hal::CpuMode::kInline, 1);
  auto refused = RunMain(*loaded, cpu.get());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(Message(refused.status()).find("constant " + std::to_string(c.index) + "'s data does not match its checksum"),
            std::string::npos)
      << Message(refused.status());
  // A trusted file skips the check: the same bytes run, with the flipped weight.
  auto trusted = vm::LoadModule(bytes, Unverified());
  ASSERT_TRUE(trusted.ok());
  EXPECT_TRUE(RunMain(*trusted, cpu.get()).ok());
}

TEST(ModuleIntegrity, CorruptedShaderIsRefused) {
  auto bytes = MlpModule();
  size_t shader = FirstShaderOffset(bytes);
  ASSERT_GT(shader, 0u) << "the module has no Vulkan shader";
  bytes[shader + 40] ^= 0x01;
  auto refused = vm::LoadModule(bytes, Verified());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(Message(refused.status()).find("the file is corrupted (its checksum does not match)"), std::string::npos)
      << Message(refused.status());
}

TEST(ModuleIntegrity, EnvironmentTurnsVerificationOffForDefaultLoads) {
  auto bytes = MlpModule();
  ConstantData c = LargestConstant(bytes);
  bytes[c.offset + 3] ^= 0x80;
  auto cpu = hal::CreateCpuDevice(hal::CpuMode::kInline, 1);
  auto runs = [&] {
    auto m = vm::LoadModule(bytes);
    return m.ok() && RunMain(*m, cpu.get()).ok();
  };
  ASSERT_EQ(setenv("KILN_VERIFY_CHECKSUMS", "0", 1), 0);
  EXPECT_FALSE(vm::DefaultLoadOptions().verify_checksums);
  EXPECT_TRUE(runs());
  ASSERT_EQ(setenv("KILN_VERIFY_CHECKSUMS", "1", 1), 0);
  EXPECT_TRUE(vm::DefaultLoadOptions().verify_checksums);
  EXPECT_FALSE(runs());
  ASSERT_EQ(unsetenv("KILN_VERIFY_CHECKSUMS"), 0);
  EXPECT_FALSE(runs());
}

// A module of `minor` version with one constant, its checksum fields stored
// (sealed) or left out.
std::vector<uint8_t> TinyModule(uint16_t minor, bool with_checksums) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.ForceDefaults(with_checksums);  // without: the zero checksums are not stored
  std::vector<uint8_t> data(16, 7);
  auto c = fb::CreateConstant(fbb, static_cast<uint8_t>(ElementType::kF32), fbb.CreateVector(std::vector<int64_t>{4}),
                              fb::Compression::None, 16, fbb.CreateVector(data));
  std::vector<flatbuffers::Offset<fb::Constant>> constants = {c};
  auto m = fb::CreateModule(fbb, vm::kFormatMajor, minor, fbb.CreateString("m"), fbb.CreateString(""), 0,
                            fbb.CreateVector(constants));
  fbb.Finish(m, fb::ModuleIdentifier());
  std::vector<uint8_t> file(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  if (with_checksums) {
    EXPECT_TRUE(fb::SealModule(&file));
  }
  return file;
}

TEST(ModuleIntegrity, ChecksumsAreRequiredFromVersion03) {
  EXPECT_TRUE(vm::LoadModule(TinyModule(3, true), Verified()).ok());
  auto refused = vm::LoadModule(TinyModule(3, false), Verified());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(Message(refused.status()).find("has no checksum"), std::string::npos) << Message(refused.status());
  EXPECT_TRUE(vm::LoadModule(TinyModule(3, false), Unverified()).ok());
  // Files of 0.2 and before carry none and load as before.
  EXPECT_TRUE(vm::LoadModule(TinyModule(2, false), Verified()).ok());
}

TEST(ModuleIntegrity, LoweringTheVersionDoesNotSkipTheCheck) {
  // A stored checksum is checked whatever the version says, so a flip that
  // makes a 0.3 file read as 0.2 is still caught.
  auto bytes = MlpModule();
  const fb::Module* m = fb::GetModule(bytes.data());
  const uint8_t* minor = fb::StoredField(m, fb::Module::VT_VERSION_MINOR);
  ASSERT_NE(minor, nullptr);
  bytes[minor - bytes.data()] = 2;
  auto refused = vm::LoadModule(bytes, Verified());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(Message(refused.status()).find("checksum does not match"), std::string::npos) << Message(refused.status());
}

// `bytes` as a format 0.2 writer left them: version 0.2, and no targets and
// no checksums (their vtable entries cleared, as if never written).
std::vector<uint8_t> AsFormat02(std::vector<uint8_t> bytes) {
  auto clear = [&](const void* table, flatbuffers::voffset_t field) {
    const uint8_t* t = static_cast<const uint8_t*>(table);
    const uint8_t* vtable = t - flatbuffers::ReadScalar<flatbuffers::soffset_t>(t);
    if (field < flatbuffers::ReadScalar<flatbuffers::voffset_t>(vtable))
      flatbuffers::WriteScalar<flatbuffers::voffset_t>(bytes.data() + (vtable + field - bytes.data()), 0);
  };
  const fb::Module* m = fb::GetModule(bytes.data());
  bytes[fb::StoredField(m, fb::Module::VT_VERSION_MINOR) - bytes.data()] = 2;
  for (const auto* c : *m->constants()) clear(c, fb::Constant::VT_CHECKSUM);
  clear(m, fb::Module::VT_CHECKSUM);
  clear(m, fb::Module::VT_TARGETS);
  return bytes;
}

// Runs @main on `device` in a fresh context, as a user opening the file
// would; the error if the module cannot be opened or run.
StatusOr<std::vector<vm::HostTensor>> RunMain(std::shared_ptr<const vm::LoadedModule> module, hal::Device* device) {
  auto ctx = vm::Context::Create(std::move(module), device);
  if (!ctx.ok()) return ctx.status();
  return (*ctx)->Invoke("main", MlpInput());
}

bool SameBits(const std::vector<vm::HostTensor>& a, const std::vector<vm::HostTensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].type != b[i].type || a[i].dims != b[i].dims || a[i].data != b[i].data) return false;
  return true;
}

// A file of format 0.2 carries no checksum, so nothing vouches for its
// shaders: it still loads and runs on the CPU (whose kernels read only
// verified parameters), but a Vulkan device refuses to open it rather than
// hand a possibly damaged shader to a driver that may crash on it (lavapipe
// did, on single flipped bits). Skipping checksums (a trusted file) opens it.
TEST(ModuleIntegrity, ShadersWithoutAChecksumNeverReachTheDriver) {
  auto old = AsFormat02(MlpModule04());
  size_t shader = FirstShaderOffset(old);
  ASSERT_GT(shader, 0u);
  old[shader + 40] ^= 0x04;  // a damaged shader, undetectable without a checksum
  auto module = vm::LoadModule(old, Verified());
  ASSERT_TRUE(module.ok()) << Message(module.status());
  EXPECT_EQ((*module)->version_minor, 2);
  EXPECT_TRUE((*module)->targets.empty());
  auto cpu = hal::CreateCpuDevice(hal::CpuMode::kInline, 1);
  auto reference = vm::LoadModule(MlpModule(), Verified());
  ASSERT_TRUE(reference.ok());
  auto want = RunMain(*reference, cpu.get());
  auto got = RunMain(*module, cpu.get());
  ASSERT_TRUE(want.ok() && got.ok()) << Message(got.status());
  EXPECT_TRUE(SameBits(*got, *want));
#ifdef KILN_HAVE_VULKAN
  auto vulkan = hal::CreateDeviceByName("vulkan");
  ASSERT_TRUE(vulkan.ok()) << Message(vulkan.status());
  auto ctx = vm::Context::Create(*module, vulkan->get());
  ASSERT_FALSE(ctx.ok());
  EXPECT_NE(Message(ctx.status()).find("this module (format 0.2) carries no checksum, so its Vulkan shaders cannot be "
                                       "checked before they reach the driver; recompile it"),
            std::string::npos)
      << Message(ctx.status());
  auto trusted = vm::LoadModule(AsFormat02(MlpModule04()), Unverified());
  ASSERT_TRUE(trusted.ok());
  EXPECT_FALSE((*trusted)->unchecked);
  auto intact = RunMain(*trusted, vulkan->get());
  EXPECT_TRUE(intact.ok()) << Message(intact.status());
#endif
}

// A format 0.4 file (constants inside the FlatBuffer, before the data
// segment), written at build time by kiln-compile --format=0.4: it still
// loads, mapped and read, with its constants in place, and gives results
// bit-identical to the current format's.
TEST(ModuleIntegrity, Format04FilesStillLoadAndRun) {
  auto cpu = hal::CreateCpuDevice(hal::CpuMode::kInline, 1);
  auto current = vm::LoadModule(MlpModule(), Verified());
  ASSERT_TRUE(current.ok()) << Message(current.status());
  EXPECT_EQ((*current)->version_minor, vm::kFormatMinor);
  auto want = RunMain(*current, cpu.get());
  ASSERT_TRUE(want.ok()) << Message(want.status());
  for (bool map : {true, false}) {
    vm::LoadOptions options;
    options.map_file = map;
    auto old = vm::LoadModuleFromFile(KILN_TEST_MLP_04_KILN, options);
    ASSERT_TRUE(old.ok()) << Message(old.status());
    EXPECT_EQ((*old)->version_minor, 4);
    EXPECT_EQ((*old)->bytes->source(), map ? vm::ModuleBytes::Source::kMapped : vm::ModuleBytes::Source::kOwned);
    // No data segment: the metadata is the whole file, read in place.
    EXPECT_EQ((*old)->bytes->metadata().data(), (*old)->bytes->data());
    for (const auto& c : (*old)->constants) {
      EXPECT_GE(c.stored, (*old)->bytes->data());
      EXPECT_LE(c.stored + c.stored_size, (*old)->bytes->data() + (*old)->bytes->size());
    }
    auto got = RunMain(*old, cpu.get());
    ASSERT_TRUE(got.ok()) << Message(got.status());
    EXPECT_TRUE(SameBits(*got, *want));
  }
}

// Every 7th byte of the MLP module compiled for every target, each flipped
// once (bit (i/7) mod 8, so every bit position is hit): each flipped module is
// refused at load, or, loaded, gives results bit-identical to the unflipped
// module's on the CPU and on the Vulkan device, or fails the run (a flip in a
// constant's data: checked on first use). Each flipped module is loaded in
// place from read-only memory, as a mapped file is (test::ReadOnlyBytes):
// a write to a constant would fault. Nothing may crash. The sweep runs as
// kShards tests over interleaved flips, so ctest -j spreads it over cores.
// It flips every 7th byte; every 29th under the sanitizers (a fixed sample,
// the bit still rotating through all eight).
constexpr size_t kShards = 4;
constexpr size_t kFlipEvery = test::kUnderSanitizer ? 29 : 7;
class BitFlipSweep : public ::testing::TestWithParam<size_t> {};

TEST_P(BitFlipSweep, EveryFlipIsRefusedOrHarmless) {
  const size_t shard = GetParam();
  const std::vector<uint8_t>& original = MlpModule();
  ASSERT_FALSE(original.empty());
  auto reference = vm::LoadModule(original, Verified());
  ASSERT_TRUE(reference.ok()) << Message(reference.status());
  auto cpu = hal::CreateCpuDevice(hal::CpuMode::kInline, 1);
  auto want_cpu = RunMain(*reference, cpu.get());
  ASSERT_TRUE(want_cpu.ok()) << Message(want_cpu.status());
#ifdef KILN_HAVE_VULKAN
  auto vulkan = hal::CreateDeviceByName("vulkan");
  ASSERT_TRUE(vulkan.ok()) << Message(vulkan.status());
  auto want_vulkan = RunMain(*reference, vulkan->get());
  ASSERT_TRUE(want_vulkan.ok()) << Message(want_vulkan.status());
#endif

  const auto start = std::chrono::steady_clock::now();
  size_t flips = 0, refused = 0, identical = 0;
  test::ReadOnlyBytes bytes(original);
  for (size_t i = kFlipEvery * shard; i < original.size(); i += kFlipEvery * kShards) {
    const uint8_t bit = static_cast<uint8_t>(1u << ((i / kFlipEvery) % 8));
    bytes.Flip(i, bit);
    struct Unflip {
      test::ReadOnlyBytes& b;
      size_t i;
      uint8_t bit;
      ~Unflip() { b.Flip(i, bit); }
    } unflip{bytes, i, bit};  // after the module below is gone
    ++flips;
    auto module = vm::LoadModuleBorrowed(bytes.span(), {}, Verified());
    if (!module.ok()) {
      ++refused;
      EXPECT_FALSE(Message(module.status()).empty());
      continue;
    }
    // Loaded: the flip must not change a result (or it must refuse to run).
    auto got_cpu = RunMain(*module, cpu.get());
    EXPECT_TRUE(!got_cpu.ok() || SameBits(*got_cpu, *want_cpu)) << "byte " << i << ": different CPU results";
#ifdef KILN_HAVE_VULKAN
    auto got_vulkan = RunMain(*module, vulkan->get());
    EXPECT_TRUE(!got_vulkan.ok() || SameBits(*got_vulkan, *want_vulkan))
        << "byte " << i << ": different Vulkan results";
    if (got_cpu.ok() && got_vulkan.ok()) ++identical;
#else
    if (got_cpu.ok()) ++identical;
#endif
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%zu-byte module, shard %zu of %zu: %zu flips, %zu refused at load, %zu loaded and ran "
              "bit-identically (%.1f s)\n",
              original.size(), shard, kShards, flips, refused, identical, seconds);
  // The shards together flip every kFlipEvery-th byte once.
  const size_t all = (original.size() + kFlipEvery - 1) / kFlipEvery;
  EXPECT_EQ(flips, all / kShards + (shard < all % kShards ? 1 : 0));
}

INSTANTIATE_TEST_SUITE_P(ModuleIntegrity, BitFlipSweep, ::testing::Range<size_t>(0, kShards));

}  // namespace
}  // namespace kiln

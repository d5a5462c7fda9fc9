// A module file after loading and verification: everything the interpreter
// needs, decoded once, with every index checked.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hal/hal.h"
#include "hal/vulkan/shader_abi.h"
#include "kernels/common/kernel.h"
#include "kernels/common/status.h"
#include "schema/format_version.h"
#include "vm/bytecode.h"

namespace kiln::vm {

struct ValueSig {
  enum class Kind : uint8_t { kTensor = 0, kToken = 1, kTuple = 2 };
  Kind kind = Kind::kTensor;
  ElementType type = ElementType::kInvalid;
  std::vector<int64_t> dims;  // -1 = dynamic
  std::string ToString() const;
};

struct SourceLoc {
  uint32_t pc = 0, line = 0, col = 0;
};

struct UnavailableOn {
  std::string device, op, type, reason;
};

struct LoadedFunction {
  std::string name;
  bool is_public = false;
  std::vector<ValueSig> args, results;
  uint32_t num_i64_registers = 0;
  uint32_t num_ref_registers = 0;
  // Pre-decoded instructions; jump targets ('p' operands) are rewritten from
  // byte offsets to instruction indices by the verifier.
  std::vector<Instruction> code;
  std::vector<SourceLoc> locations;  // by byte pc, ascending
  std::vector<UnavailableOn> unavailable;
  // Memory planning (format 0.4, docs/memory.md; zero in older files): the
  // arena each activation takes for arena.view, and the compiler's figures.
  uint64_t arena_bytes = 0;
  uint64_t transient_bytes = 0, pool_transient_bytes = 0;
  uint32_t dynamic_allocs = 0;
  // The source line:col of the instruction at `index`, or "" if unknown.
  std::string LocationOf(size_t index) const;
};

struct LoadedConstant {
  ElementType type = ElementType::kInvalid;
  std::vector<int64_t> dims;
  std::vector<uint8_t> decompressed;  // owns the data if it was compressed
  const uint8_t* data = nullptr;      // points into the file or `decompressed`
  size_t size = 0;
  size_t stored_size = 0;             // bytes in the file
  bool compressed = false;
};

struct LoadedModule {
  uint16_t version_major = 0, version_minor = 0;
  std::string name, source_file;
  std::vector<LoadedFunction> functions;
  std::vector<LoadedConstant> constants;
  std::vector<KernelParams> executables;
  // Per executable, the compute shaders of the Vulkan target (may be empty).
  std::vector<std::vector<hal::ShaderVariant>> vulkan_shaders;
  std::vector<std::string> strings;
  uint32_t num_replicas = 1, num_partitions = 1;
  // The devices the module carries executables for (format 0.3; empty in
  // older files): "cpu", and "vulkan" unless compiled with --target=cpu.
  std::vector<std::string> targets;
  // Checksums were asked for (LoadOptions::verify_checksums) but the file,
  // of format 0.2 or older, carries none: nothing vouches for its shaders,
  // so a Vulkan device refuses to open it (vm/context.cc).
  bool unchecked = false;
  std::vector<uint8_t> file;  // the module bytes; constants point into it

  int FindFunction(std::string_view function_name) const;
};

struct LoadOptions {
  // Check the module's checksums (format 0.3; schema/module_checksum.h): the
  // metadata's (bytecode, executables, shaders, every table) and each
  // constant's data. A file that fails is refused as corrupted. Turn it off
  // only for a file you trust (one you compiled and stored yourself); the
  // structural checks below still run.
  bool verify_checksums = true;
};

// The defaults, except that KILN_VERIFY_CHECKSUMS=0 in the environment turns
// checksum verification off (for the tools and the C API, which take these).
LoadOptions DefaultLoadOptions();

// Verifies and loads a module: the identifier, the FlatBuffers structure, the
// version, the checksums (unless options say otherwise), then every table,
// constant and instruction (schema/README.md). A bad file is refused with a
// message that says what is wrong; nothing here trusts the file.
StatusOr<std::shared_ptr<const LoadedModule>> LoadModule(std::vector<uint8_t> bytes,
                                                         const LoadOptions& options = DefaultLoadOptions());
StatusOr<std::shared_ptr<const LoadedModule>> LoadModuleFromFile(const std::string& path,
                                                                 const LoadOptions& options = DefaultLoadOptions());

// The bytecode verifier (vm/verifier.cc): decodes every function and checks
// every operand against the module, rewriting jump targets to instruction
// indices. Called by LoadModule.
Status DecodeAndVerifyFunction(const LoadedModule& module, LoadedFunction& function,
                      std::span<const uint8_t> bytecode);

}  // namespace kiln::vm

// A module file after loading and verification: everything the interpreter
// needs, decoded once, with every index checked.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hal/hal.h"
#include "hal/vulkan/shader_abi.h"
#include "kernels/common/kernel.h"
#include "kernels/common/status.h"
#include "schema/format_version.h"
#include "vm/bytecode.h"
#include "vm/module_bytes.h"

namespace kiln::vm {

struct ValueSig {
  enum class Kind : uint8_t { kTensor = 0, kToken = 1, kTuple = 2 };
  Kind kind = Kind::kTensor;
  ElementType type = ElementType::kInvalid;
  std::vector<int64_t> dims;  // -1 = dynamic
  // The name the source gave the value (jax.arg_info, jax.result_info, ...;
  // compiler/lower/value_names.h); "" when it has none. Checked at load:
  // UTF-8 without control characters, at most kMaxValueNameBytes.
  std::string name;
  std::string ToString() const;
};

inline constexpr size_t kMaxValueNameBytes = 4096;

struct SourceLoc {
  uint32_t pc = 0, line = 0, col = 0;
};

struct UnavailableOn {
  std::string device, op, type, reason;
};

// A donated argument (tf.aliasing_output, jax.buffer_donor): a device buffer
// passed for it may become result `output` (-1: the first result of its type
// and shape). Context::Invoke's CallInput says what the runtime does.
struct ArgDonation {
  uint32_t arg = 0;
  int32_t output = -1;
};

struct LoadedFunction {
  std::string name;
  bool is_public = false;
  std::vector<ValueSig> args, results;
  std::vector<ArgDonation> donations;  // by argument, ascending
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

class ParameterFile;
class ParameterSet;

// Format 0.4: where an external constant's bytes come from (vm/parameters.h).
struct ParameterRef {
  std::string scope, key;
  uint64_t checksum = 0;
  bool has_checksum = false;
};

// A constant of the module. Opening checks its type, shape, sizes and zstd
// frame header; its data are checked against its checksum and, if
// compressed, decompressed on first use (Data), so opening a module costs
// the same whatever the size of its constants.
class LoadedConstant {
 public:
  ElementType type = ElementType::kInvalid;
  std::vector<int64_t> dims;
  size_t size = 0;                   // bytes of the elements
  size_t stored_size = 0;            // bytes in the file
  bool compressed = false;
  // The stored data, inside the module's bytes; for a bound external
  // constant, its tensor inside the mapped parameter file.
  const uint8_t* stored = nullptr;
  bool verify = false;               // check `checksum` on first use
  uint64_t checksum = 0;
  size_t index = 0;                  // for messages
  // An external constant (format 0.4): its parameter, and once bound
  // (vm/parameters.h BindParameter), the mapped file that `stored` points
  // into, kept alive with the module. An unbound one has no data, and a
  // context refuses the module.
  std::optional<ParameterRef> parameter;
  bool bound = false;
  std::shared_ptr<const ParameterFile> parameter_file;

  LoadedConstant();
  LoadedConstant(LoadedConstant&&) noexcept;
  ~LoadedConstant();
  // The elements (`size` bytes): the stored bytes in place when
  // uncompressed, else a copy decompressed once that the module owns. The
  // first call checks the checksum (a parameter's against the module's
  // record of it) and decompresses; a failure (the data do not match their
  // checksum, the frame does not decompress) is returned by this and every
  // later call. Safe from several threads.
  StatusOr<const uint8_t*> Data() const;

 private:
  struct FirstUse;
  std::unique_ptr<FirstUse> first_use_;
};

// A module global (added within format 0.5): each context's value of it starts as
// constant `initial`, whose type and dims are the global's.
struct LoadedGlobal {
  std::string name;
  uint32_t initial = 0;
  bool is_mutable = true;
};

struct LoadedModule {
  uint16_t version_major = 0, version_minor = 0;
  std::string name, source_file;
  std::vector<LoadedFunction> functions;
  std::vector<LoadedConstant> constants;
  std::vector<LoadedGlobal> globals;
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
  // The module's bytes (mapped, read or borrowed); constants point into them.
  std::unique_ptr<ModuleBytes> bytes;

  int FindFunction(std::string_view function_name) const;
};

struct LoadOptions {
  // Check the module's checksums (format 0.3; schema/module_checksum.h): the
  // metadata's (bytecode, executables, shaders, every table) when it is
  // opened, and each constant's data on the constant's first use. A file
  // that fails is refused as corrupted (a constant's failure is an error of
  // the call that uses it). Turn it off only for a file you trust (one you
  // compiled and stored yourself); the structural checks below still run.
  bool verify_checksums = true;
  // LoadModuleFromFile maps the file read-only instead of reading it: opening
  // reads only the metadata, and uncompressed constants are used in place on
  // the CPU. The file must then stay as it is while the module lives: one
  // truncated under a mapping makes the process fail with SIGBUS when a
  // constant in the cut-off part is touched (docs/deploying.md). Off, the
  // file is read into memory the module owns.
  bool map_file = true;
  // The parameter files to bind external constants to (format 0.4,
  // vm/parameters.h): each parameter whose scope has a file here is bound
  // at load (its key, type and shape checked; its checksum on first use,
  // vm/parameters.h); one whose scope has
  // none stays unbound, and a context refuses the module until it is bound.
  std::shared_ptr<const ParameterSet> parameters;
};

// The defaults, except that KILN_VERIFY_CHECKSUMS=0 in the environment turns
// checksum verification off and KILN_MAP_MODULES=0 makes files read instead
// of mapped (for the tools and the C API, which take these).
LoadOptions DefaultLoadOptions();

// Verifies and loads a module: the identifier, the FlatBuffers structure, the
// version, the checksums (unless options say otherwise), then every table,
// constant and instruction (schema/README.md). A bad file is refused with a
// message that says what is wrong; nothing here trusts the file.
StatusOr<std::shared_ptr<const LoadedModule>> LoadModule(std::vector<uint8_t> bytes,
                                                         const LoadOptions& options = DefaultLoadOptions());
// The same over bytes already in place (a mapping, a borrowed buffer).
StatusOr<std::shared_ptr<const LoadedModule>> LoadModuleBytes(std::unique_ptr<ModuleBytes> bytes,
                                                              const LoadOptions& options = DefaultLoadOptions());
// The file, mapped or read as options.map_file says.
StatusOr<std::shared_ptr<const LoadedModule>> LoadModuleFromFile(const std::string& path,
                                                                 const LoadOptions& options = DefaultLoadOptions());
// The caller's bytes, verified and used in place, not copied: they must stay
// alive and unchanged until `release` runs (once, when the module and every
// context and buffer holding it are gone, or before this returns when the
// load fails). `release` may be empty.
StatusOr<std::shared_ptr<const LoadedModule>> LoadModuleBorrowed(std::span<const uint8_t> bytes,
                                                                 std::function<void()> release,
                                                                 const LoadOptions& options = DefaultLoadOptions());

// The bytecode verifier (vm/verifier.cc): decodes every function and checks
// every operand against the module, rewriting jump targets to instruction
// indices. Called by LoadModule.
Status DecodeAndVerifyFunction(const LoadedModule& module, LoadedFunction& function,
                      std::span<const uint8_t> bytecode);

}  // namespace kiln::vm

// What the compiler accumulates for one module before it is serialized:
// functions (bytecode, registers, locations), constants and executables.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir.h"
#include "hal/vulkan/shader_abi.h"
#include "kernels/common/kernel.h"

namespace kiln::compiler {

struct SigOut {
  uint8_t kind = 0;  // 0 tensor, 1 token, 2 tuple
  ElementType type = ElementType::kInvalid;
  std::vector<int64_t> dims;  // -1 = dynamic
  std::string name;           // from the source's attributes (compiler/passes/value_names.h); "" = none
};

struct UnavailableOut {
  std::string device, op, type, reason;
};

struct FunctionOut {
  std::string name;
  bool is_public = true;
  std::vector<SigOut> args, results;
  uint32_t num_i64_registers = 0, num_ref_registers = 0;
  std::vector<uint8_t> bytecode;
  struct Loc { uint32_t pc, line, col; };
  std::vector<Loc> locations;
  std::vector<UnavailableOut> unavailable;
  // Donated arguments (tf.aliasing_output, jax.buffer_donor): the argument's
  // index and the result it may become (-1: any of its type and shape).
  struct Donation { uint32_t arg; int32_t output; };
  std::vector<Donation> donations;
  // Memory planning's figures (compiler/passes/memory_plan.h; docs/memory.md).
  struct Memory {
    uint64_t arena_bytes = 0;      // the arena of one activation
    uint64_t transient_bytes = 0;  // every statically sized alloc's bytes, summed (unplanned)
    uint64_t pool_bytes = 0;       // those left to the pool (escaping), summed
    uint32_t dynamic_allocs = 0;   // allocs sized at run time (always the pool)
  } memory;
};

// Format 0.4: an external constant's parameter (compiler/externalize.h).
struct ParameterOut {
  std::string scope, key;
  bool has_checksum = false;  // false: the compiler never saw the bytes
  uint64_t checksum = 0;      // xxHash64 (seed 0) of the bytes
};

struct ConstantOut {
  ElementType type = ElementType::kInvalid;
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;  // storage encoding, uncompressed; empty for a parameter
  std::optional<ParameterOut> parameter;
};

// A module global (ir::Global; added within format 0.5) that functions store to: its
// initial value is constant `initial`. (Loads of the others were folded
// into constants: compiler/passes/fold_immutable_globals.cc.)
struct GlobalOut {
  std::string name;
  uint32_t initial = 0;
  bool is_mutable = true;
};

// A dispatch as lowering emitted it: which executable, for which source op,
// with which operand element types and ranks. The vulkan target compiles one
// shader per distinct signature of an executable from these.
struct DispatchUse {
  uint32_t executable = 0;
  std::string op;    // the source op's name
  ir::Location loc;  // and where it is (a fused chain: the op it is emitted at)
  std::vector<ElementType> in_types, out_types;
  std::vector<uint8_t> in_ranks, out_ranks;
  // The inputs' static dimensions where known (-1: dynamic): a hint for
  // choosing a kernel's strategy, never baked into a shader (shaders are
  // shared by every dispatch of the same signature).
  std::vector<std::vector<int64_t>> in_dims;
};

// What lowering one function added to ModuleBuilder::dispatch_uses and
// ModuleBuilder::call_uses (half-open ranges).
struct FunctionUses {
  size_t dispatch_begin = 0, dispatch_end = 0;
  size_t call_begin = 0, call_end = 0;
};

class ModuleBuilder {
 public:
  // Appended while functions are lowered (in order); LowerModule splits
  // them per function into function_uses (one entry per function).
  std::vector<DispatchUse> dispatch_uses;
  std::vector<uint32_t> call_uses;  // callee function indices
  std::vector<FunctionUses> function_uses;
  std::string name, source_file;
  uint32_t num_replicas = 1, num_partitions = 1;
  std::vector<FunctionOut> functions;
  std::vector<ConstantOut> constants;
  std::vector<GlobalOut> globals;  // global.load / global.store operands index it
  std::vector<KernelParams> executables;
  // Per executable, the Vulkan target's shaders, one per signature.
  std::vector<std::vector<hal::ShaderVariant>> vulkan_shaders;
  std::vector<std::string> strings;
  // The devices the module carries executables for ("cpu", "vulkan"),
  // recorded so a runtime can say how to recompile for another device.
  std::vector<std::string> targets = {"cpu"};

  uint32_t AddConstant(ConstantOut c);
  uint32_t AddExecutable(KernelParams p);  // identical executables are shared
  uint32_t AddString(const std::string& s);

  // Where the constants' stored bytes go: the data segment after the
  // FlatBuffer (format 0.5, schema/module_layout.h), or `data` vectors inside
  // it as format 0.4 wrote them (kept so tests can check that a 0.4 file
  // still loads; nothing ships it).
  enum class Layout { kDataSegment, kInline04 };

  // Serializes to the FlatBuffers module format (schema/module.fbs) with its
  // checksums (schema/module_checksum.h); constants of at least
  // `compress_min_bytes` are zstd-compressed when that saves at least 10%.
  std::vector<uint8_t> Serialize(size_t compress_min_bytes = 4096, Layout layout = Layout::kDataSegment) const;

 private:
  std::map<std::string, uint32_t> executable_index_;
  std::map<std::string, uint32_t> string_index_;
};

}  // namespace kiln::compiler

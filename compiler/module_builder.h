// What the compiler accumulates for one module before it is serialized:
// functions (bytecode, registers, locations), constants and executables.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kernels/common/kernel.h"

namespace kiln::compiler {

struct SigOut {
  uint8_t kind = 0;  // 0 tensor, 1 token, 2 tuple
  ElementType type = ElementType::kInvalid;
  std::vector<int64_t> dims;  // -1 = dynamic
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
};

struct ConstantOut {
  ElementType type = ElementType::kInvalid;
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;  // storage encoding, uncompressed
};

class ModuleBuilder {
 public:
  std::string name, source_file;
  uint32_t num_replicas = 1, num_partitions = 1;
  std::vector<FunctionOut> functions;
  std::vector<ConstantOut> constants;
  std::vector<KernelParams> executables;
  std::vector<std::string> strings;

  uint32_t AddConstant(ConstantOut c);
  uint32_t AddExecutable(KernelParams p);  // identical executables are shared
  uint32_t AddString(const std::string& s);

  // Serializes to the FlatBuffers module format (schema/module.fbs);
  // constants of at least `compress_min_bytes` are zstd-compressed when that
  // saves at least 10%.
  std::vector<uint8_t> Serialize(size_t compress_min_bytes = 4096) const;

 private:
  std::map<std::string, uint32_t> executable_index_;
  std::map<std::string, uint32_t> string_index_;
};

}  // namespace kiln::compiler

// The MLIR bytecode container (llvm-project mlir/docs/BytecodeFormat.md),
// versions 0 to 6: the header, the sections, the string table, the dialect
// section with op names and dialect versions, the attribute/type offset table,
// the properties and resource sections, and the IR section as a tree of ops
// whose operands are resolved to value numbers. Attributes and types stay
// encoded here (entries with their dialect and bytes); builtin_encodings.h and
// vhlo_encodings.h decode them.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/parse/bytecode/cursor.h"

namespace kiln::ir::bytecode {

struct RawOp;

struct RawBlock {
  struct Arg {
    uint64_t type = 0;
    uint32_t value = 0;
  };
  std::vector<Arg> args;
  std::vector<RawOp> ops;
};

struct RawRegion {
  std::vector<RawBlock> blocks;
};

struct RawOp {
  uint64_t name = 0;  // index into BytecodeFile::op_names
  size_t offset = 0;  // where the op starts in the file
  uint64_t location = 0;
  bool has_attrs = false;
  uint64_t attrs = 0;  // a dictionary attribute
  bool has_properties = false;
  Span properties;
  std::vector<uint64_t> result_types;
  std::vector<uint32_t> results;   // value numbers (unique in the file)
  std::vector<uint32_t> operands;  // value numbers
  std::vector<RawRegion> regions;
};

struct BytecodeFile {
  struct Dialect {
    std::string_view name;
    bool has_version = false;
    Span version;
  };
  struct OpName {
    uint32_t dialect = 0;
    std::string_view name;
    std::string full;  // dialect.name
  };
  struct Entry {  // an attribute or a type, still encoded
    uint32_t dialect = 0;
    bool custom = false;  // else the assembly-format text, NUL-terminated
    Span data;
  };

  uint64_t version = 0;
  std::string_view producer;
  std::vector<std::string_view> strings;
  std::vector<Dialect> dialects;
  std::vector<OpName> op_names;
  std::vector<Entry> attrs, types;
  std::vector<Span> properties;                    // each op's properties blob
  std::vector<std::pair<std::string_view, Span>> resources;  // dialect resource key -> blob
  RawBlock top;  // the top-level block (holds the module op)

  std::string_view String(uint64_t i, size_t offset) const {
    if (i >= strings.size()) Fail(offset, "string index " + std::to_string(i) + " out of range");
    return strings[i];
  }
};

// Reads the whole container; throws BytecodeError on malformed input. The
// returned spans point into `bytes`, which must outlive the result.
BytecodeFile ReadContainer(std::string_view bytes);

}  // namespace kiln::ir::bytecode

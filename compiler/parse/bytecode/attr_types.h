// Decoded attributes and types of an MLIR bytecode file, read lazily by
// index from BytecodeFile's entries. The builtin dialect's encodings are in
// builtin_encodings.cc, VHLO's in vhlo_encodings.cc; an entry stored as
// assembly text (a dialect without a custom encoding) keeps its text, which
// the text parser reads when the program is rebuilt (vhlo_to_ir.cc).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compiler/parse/bytecode/bytecode_reader.h"

namespace kiln::ir::bytecode {

struct TypeInfo {
  enum class Kind {
    kInt,       // bits, is_unsigned; bits == 1 is i1
    kIndex,
    kFloat,     // name: f32, bf16, f8E4M3FN, ...; bits
    kComplex,   // element
    kTensor,    // shape (kDynamic = INT64_MIN), element, bounds when has_bounds
    kUnranked,  // element
    kTuple,     // elements
    kToken,
    kFunction,  // elements = inputs, results
    kFuture,    // elements: !stablehlo.future<...> of async_start
    kNone,
    kQuant,     // text holds the !quant.uniform<...> spelling; element = storage
    kOther,     // text holds the spelling (buffers, witness, asm fallback)
  };
  Kind kind = Kind::kOther;
  int bits = 0;
  bool is_unsigned = false;
  std::string name;
  std::vector<int64_t> shape;
  bool has_bounds = false;
  std::vector<int64_t> bounds;
  uint64_t element = 0;           // type index
  std::vector<uint64_t> elements; // type indices
  std::vector<uint64_t> results;  // type indices
  std::string text;
};

struct AttrInfo {
  enum class Kind {
    kArray,     // elements
    kBool,      // b
    kEnum,      // name (the enum's VHLO name, e.g. comparison_direction), str
    kDict,      // pairs
    kFloat,     // type, bits (the raw bit pattern)
    kInt,       // type, i
    kString,    // str
    kTensor,    // type, data (one element for a splat)
    kType,      // type
    kTypeExtensions,  // ints = bounds
    kOutputOperandAlias,  // ints = output tuple indices, i = operand, ints2
    kResultAccuracy,  // f1 = atol, f2 = rtol, i = ulps, elements[0] = mode
    kUnit,
    kSymbolRef,  // str
    kLocation,
    kText,       // assembly-format fallback: str
    kDenseArray, // type (element), i = size, data
    kSubAxisInfo,  // ints = {pre_size, size}
    kAxisRef,      // elements = {name, sub_axis_info?}
    kMeshAxes,     // elements = {mesh, axes}
  };
  Kind kind = Kind::kUnit;
  bool b = false;
  int64_t i = 0;
  uint64_t bits = 0;
  double f1 = 0, f2 = 0;
  uint64_t type = 0;
  std::string name, str;
  std::vector<uint64_t> elements;
  std::vector<std::pair<uint64_t, uint64_t>> pairs;
  std::vector<int64_t> ints, ints2;
  Span data;
};

class AttrTypeTable;

// Per-dialect decoders: read one custom-encoded entry.
void DecodeBuiltinAttr(AttrTypeTable& t, Cursor& c, AttrInfo* out);
void DecodeBuiltinType(AttrTypeTable& t, Cursor& c, TypeInfo* out);
void DecodeVhloAttr(AttrTypeTable& t, Cursor& c, AttrInfo* out);
void DecodeVhloType(AttrTypeTable& t, Cursor& c, TypeInfo* out);

class AttrTypeTable {
 public:
  explicit AttrTypeTable(const BytecodeFile& f);
  const AttrInfo& Attr(uint64_t index, size_t offset);
  const TypeInfo& Type(uint64_t index, size_t offset);
  // Reads an attribute/type reference (a varint index) and decodes it.
  const AttrInfo& ReadAttr(Cursor& c) {
    size_t at = c.offset();
    return Attr(c.VarInt(), at);
  }
  const TypeInfo& ReadType(Cursor& c) {
    size_t at = c.offset();
    return Type(c.VarInt(), at);
  }
  uint64_t ReadTypeIndex(Cursor& c) {
    size_t at = c.offset();
    uint64_t i = c.VarInt();
    Type(i, at);
    return i;
  }
  uint64_t ReadAttrIndex(Cursor& c) {
    size_t at = c.offset();
    uint64_t i = c.VarInt();
    Attr(i, at);
    return i;
  }
  std::string_view String(Cursor& c) {
    size_t at = c.offset();
    return file_.String(c.VarInt(), at);
  }
  const BytecodeFile& file() const { return file_; }

 private:
  enum class State : uint8_t { kUnread, kReading, kDone };
  const BytecodeFile& file_;
  std::vector<std::unique_ptr<AttrInfo>> attrs_;
  std::vector<std::unique_ptr<TypeInfo>> types_;
  std::vector<State> attr_state_, type_state_;
  int depth_ = 0;
};

// A debug location attribute as MLIR's loc(...) body text
// ("file":line:col, "name"(...), callsite(... at ...), fused[...]), which
// the text parser reads into an op's origin; "unknown" for unknown
// locations and for anything else.
std::string LocationText(AttrTypeTable& t, uint64_t index, int depth = 0);
// `s` as an MLIR string literal (quotes, escapes).
std::string QuoteString(std::string_view s);

// The StableHLO spelling of a type (tensor<2x?xf32>, !stablehlo.token, ...).
std::string TypeText(AttrTypeTable& t, uint64_t index);

}  // namespace kiln::ir::bytecode

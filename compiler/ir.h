// Kiln's own SSA IR for StableHLO programs: modules of functions, whose
// bodies are blocks of operations with typed values, attributes and regions.
// The parser builds it from either MLIR syntax (generic or pretty); the
// printer writes it back in the generic form; the verifier checks it; the
// lowering turns it into VM bytecode and executables.
//
// Attribute normalization: whatever syntax an op was written in, its
// attributes are stored under the names of the generic form
// ("comparison_direction", "dot_dimension_numbers", "iota_dimension", ...).
// Structured dialect attributes (#stablehlo.dot<...>, #stablehlo.gather<...>,
// #stablehlo.scatter<...>, #stablehlo.conv<...>) are kStruct attributes whose
// fields carry the spec's names (e.g. conv: input_batch_dimension,
// input_feature_dimension, input_spatial_dimensions,
// kernel_input_feature_dimension, kernel_output_feature_dimension,
// kernel_spatial_dimensions, output_batch_dimension,
// output_feature_dimension, output_spatial_dimensions). Enum attributes
// (#stablehlo<comparison_direction LT>) are kEnum with str = "LT".
// Operation::GetAttr finds a name at the top level or inside a struct.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernels/common/element_type.h"

namespace kiln::ir {

struct Location {
  int line = 0;  // 1-based; 0 = unknown
  int col = 0;
  // Where the program's producer says the op came from (its debug
  // location, MLIR's loc(...)): "file:line:col", or a quoted name; empty
  // if it gave none. Diagnostics add it as a note (FormatDiagnostic).
  std::string origin;
};

// A quantized element type: !quant.uniform<storage[:expressed], scale:zp>,
// per-tensor (one scale) or per-axis (quantized_dimension >= 0).
struct QuantType {
  ElementType storage = ElementType::kInvalid;
  int64_t storage_min = 0, storage_max = 0;  // defaults to the storage type's range
  ElementType expressed = ElementType::kInvalid;
  int32_t quantized_dimension = -1;
  std::vector<double> scales;
  std::vector<int64_t> zero_points;
  bool operator==(const QuantType&) const = default;
};

// The values of integer storage of `bits` bits (1 to 64), signed or not:
// [-2^(bits-1), 2^(bits-1) - 1] or [0, 2^bits - 1], u64's maximum held as
// INT64_MAX (storage_max's type). Both readers of quantized types take a
// storage type's default range from here (64-bit storage's bounds are
// INT64_MIN and INT64_MAX themselves, which plain shifts overflow: found by
// parser_fuzzer and bytecode_fuzzer under UBSan).
inline std::pair<int64_t, int64_t> IntegerStorageRange(int bits, bool is_signed) {
  const int value_bits = is_signed ? bits - 1 : bits;
  const int64_t lo = !is_signed ? 0 : value_bits >= 63 ? INT64_MIN : -(int64_t{1} << value_bits);
  const int64_t hi = value_bits >= 63 ? INT64_MAX : (int64_t{1} << value_bits) - 1;
  return {lo, hi};
}

struct Type {
  // kFuture: !stablehlo.future<T...> of async_start; its types are in
  // tuple_elements.
  enum class Kind : uint8_t { kTensor, kToken, kTuple, kFuture };
  static constexpr int64_t kDynamic = INT64_MIN;  // a `?` dimension

  Kind kind = Kind::kTensor;
  ElementType element = ElementType::kInvalid;  // for quantized: the storage type
  std::vector<int64_t> dims;
  std::vector<int64_t> bounds;                  // bounded `?` dims (#stablehlo.bounds), or empty
  std::shared_ptr<const QuantType> quant;       // set for quantized tensors
  std::vector<Type> tuple_elements;             // kTuple, kFuture

  static Type Tensor(ElementType e, std::vector<int64_t> d) {
    Type t;
    t.element = e;
    t.dims = std::move(d);
    return t;
  }
  static Type Token() { Type t; t.kind = Kind::kToken; return t; }
  bool is_tensor() const { return kind == Kind::kTensor; }
  bool is_token() const { return kind == Kind::kToken; }
  bool is_tuple() const { return kind == Kind::kTuple; }
  bool is_future() const { return kind == Kind::kFuture; }
  bool is_quantized() const { return quant != nullptr; }
  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  bool HasStaticShape() const;
  int64_t NumElements() const;  // -1 if dynamic
  bool operator==(const Type& o) const;
  bool operator!=(const Type& o) const { return !(*this == o); }
  std::string ToString() const;  // MLIR spelling: tensor<2x?xf32>, !stablehlo.token, tuple<...>
};

// A splat dense value of at least this many bytes keeps one element
// (Attribute::dense_splat).
constexpr size_t kCompactSplatBytes = 64 * 1024;

struct Attribute;
// A named attribute, defined after Attribute (std::pair would need the
// complete type at this point, which clang's libstdc++ checks).
struct NamedAttr;

struct Attribute {
  enum class Kind : uint8_t {
    kUnit,      // `unit` or a bare name in a dict
    kBool,      // true / false
    kInt,       // 3 : i64 (type in `type`, defaults to i64)
    kFloat,     // 1.0 : f32
    kString,    // "text"
    kEnum,      // #stablehlo<comparison_direction LT>, or a bare keyword: str = "LT"
    kIntArray,  // array<i64: 1, 2> or [1, 2] inside dialect attributes
    kDense,     // dense<...> : tensor<...>
    kArray,     // [attr, attr, ...]
    kDict,      // {name = attr, ...}
    kStruct,    // #stablehlo.dot<...> etc.: str = "#stablehlo.dot", fields
    kSymbol,    // @name
    kType,      // a type used as an attribute
  };
  Kind kind = Kind::kUnit;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string str;               // string, enum value, symbol name, struct name
  std::vector<int64_t> ints;     // kIntArray
  Type type;                     // kInt/kFloat/kDense value type; kType; kIntArray: element type only (i64, i1, ...)
  // kDense: every element in its storage encoding (element_type.h), row-major,
  // splats expanded -- except a splat of kCompactSplatBytes or more, kept as
  // its one element with dense_splat set (`dense<0.0> : tensor<1024x1024x
  // 256xf32>` would otherwise take 1 GiB while compiling; lowering turns it
  // into a fill). Read elements through DenseElementCount()/DenseElement(k),
  // or ExpandedDenseBytes(). For quantized tensors, the storage type's encoding.
  std::vector<uint8_t> dense_bytes;
  bool dense_splat = false;
  std::vector<Attribute> elements;  // kArray
  std::vector<NamedAttr> fields;    // kDict, kStruct

  const Attribute* Field(std::string_view name) const;
  // kDense: the number of elements the value holds, element k's bytes, and
  // every element's bytes (a compact splat expanded).
  size_t DenseElementCount() const;
  const uint8_t* DenseElement(size_t k) const;
  std::vector<uint8_t> ExpandedDenseBytes() const;
  // Integer array view of kIntArray, kDense of integers, kArray of kInt, or kInt.
  std::optional<std::vector<int64_t>> AsInts() const;
  bool operator==(const Attribute& o) const;
};

// Sets `a`'s dense bytes to `count` copies of the `width`-byte `element`:
// one copy with dense_splat set when they would take kCompactSplatBytes or
// more.
void FillDenseSplat(Attribute* a, const uint8_t* element, size_t width, uint64_t count);
// A dense attribute of `type` (static) whose every element is `element`
// (its storage bytes).
Attribute DenseSplat(const Type& type, const uint8_t* element);

struct NamedAttr {
  NamedAttr() = default;
  NamedAttr(std::string n, Attribute a) : first(std::move(n)), second(std::move(a)) {}
  std::string first;  // the name
  Attribute second;   // the value
  bool operator==(const NamedAttr& o) const { return first == o.first && second == o.second; }
};

// Attribute makers for the parser's and the rewrites' new attributes.
inline Attribute IntAttr(int64_t v, ElementType et = ElementType::kSI64) {
  Attribute a;
  a.kind = Attribute::Kind::kInt;
  a.i = v;
  a.type = Type::Tensor(et, {});
  return a;
}
inline Attribute IntArrayAttr(std::vector<int64_t> v, ElementType et = ElementType::kSI64) {
  Attribute a;
  a.kind = Attribute::Kind::kIntArray;
  a.ints = std::move(v);
  a.type = Type::Tensor(et, {});
  return a;
}
inline Attribute BoolAttr(bool v) {
  Attribute a;
  a.kind = Attribute::Kind::kBool;
  a.b = v;
  return a;
}
inline Attribute EnumAttr(std::string_view v) {  // comparison_direction = EQ, ...
  Attribute a;
  a.kind = Attribute::Kind::kEnum;
  a.str = std::string(v);
  return a;
}
inline Attribute SymbolAttr(std::string_view name) {  // @name
  Attribute a;
  a.kind = Attribute::Kind::kSymbol;
  a.str = std::string(name);
  return a;
}

struct Operation;
struct Block;

struct Value {
  Type type;
  Operation* def = nullptr;  // defining op, or null for a block argument
  int index = 0;             // result number or block argument number
  Block* owner_block = nullptr;  // for block arguments
};

struct Region;

struct Block {
  std::vector<std::unique_ptr<Value>> args;
  std::vector<std::unique_ptr<Operation>> ops;
  Region* parent = nullptr;
  std::string label;  // `^bb1` as written (without '^'); empty for an unlabelled entry block
};

struct Region {
  std::vector<std::unique_ptr<Block>> blocks;
  Operation* parent = nullptr;
};

struct Operation {
  std::string name;  // the op's full name: stablehlo.add, func.return, check.expect_eq_const, chlo.erf
  std::vector<Value*> operands;
  std::vector<std::unique_ptr<Value>> results;
  std::vector<NamedAttr> attrs;
  std::vector<std::unique_ptr<Region>> regions;
  Location loc;
  Block* parent = nullptr;

  const Attribute* GetAttr(std::string_view attr_name) const;  // top level, then struct fields
  Value* result(int i = 0) const { return results[i].get(); }
  void SetAttr(std::string attr_name, Attribute a);
};

// A new operation, not yet in a block's list (its `parent` set to `block`),
// and a new result appended to an operation.
std::unique_ptr<Operation> NewOperation(std::string name, Location loc, Block* block = nullptr);
Value* AddResult(Operation* op, Type type);

struct Function {
  std::string name;  // without '@'
  bool is_public = true;
  std::vector<Type> arg_types;
  std::vector<Type> result_types;
  std::vector<NamedAttr> attrs;
  Region body;       // one block (parse/structurize_cfg.h makes it so); its args are the function's arguments
  Location loc;
};

// A module-level variable (`ml_program.global`, IREE's `util.global`): a
// tensor each session holds, starting at `initial`, that functions read with
// ml_program.global_load and, when mutable, replace with
// ml_program.global_store (docs/jax.md, "Module globals").
struct Global {
  std::string name;  // without '@'
  bool is_mutable = false;
  Type type;          // a tensor of static shape
  Attribute initial;  // kDense of `type`, or kUnit: zeros
  Location loc;

  // `initial`, or the zeros of `type` (a compact splat when large).
  Attribute InitialValue() const;
};

struct Module {
  std::string name;       // from `module @name`, may be empty
  std::string file_name;  // for diagnostics
  std::vector<NamedAttr> attrs;
  std::vector<Global> globals;
  std::vector<std::unique_ptr<Function>> functions;

  Function* FindFunction(std::string_view function_name) const;
  const Global* FindGlobal(std::string_view global_name) const;
};

}  // namespace kiln::ir

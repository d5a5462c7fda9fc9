// Element types: the enum, its properties, and its storage encoding.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kiln {

enum class ElementType : uint8_t {
  kInvalid = 0,
#define KILN_ELEMENT_TYPE(name, code, mlir, bytes, kind, bits) name = code,
#include "kernels/common/element_types.def"
#undef KILN_ELEMENT_TYPE
};

enum class ElementKind : uint8_t { kInvalid, kBool, kSigned, kUnsigned, kFloat, kComplex };

constexpr int kMaxElementTypeCode = 30;

struct ElementTypeInfo {
  std::string_view mlir_name;  // "f32", "ui8", "complex<f32>"
  uint8_t storage_bytes;       // bytes per element in a buffer
  ElementKind kind;
  uint8_t bits;                // value width (i4 -> 4, complex<f32> -> 64)
};

const ElementTypeInfo& GetInfo(ElementType t);
inline size_t StorageBytes(ElementType t) { return GetInfo(t).storage_bytes; }
inline ElementKind KindOf(ElementType t) { return GetInfo(t).kind; }
inline int BitWidth(ElementType t) { return GetInfo(t).bits; }
inline std::string_view Name(ElementType t) { return GetInfo(t).mlir_name; }
inline bool IsInteger(ElementType t) {
  auto k = KindOf(t);
  return k == ElementKind::kSigned || k == ElementKind::kUnsigned;
}
inline bool IsFloat(ElementType t) { return KindOf(t) == ElementKind::kFloat; }
inline bool IsComplex(ElementType t) { return KindOf(t) == ElementKind::kComplex; }
inline bool IsBool(ElementType t) { return t == ElementType::kI1; }
// The real part type of a complex type (complex<f32> -> f32); t itself otherwise.
ElementType ComplexPartType(ElementType t);
// A known code from the module file, or nullopt.
std::optional<ElementType> ElementTypeFromCode(uint32_t code);
// Parses an MLIR spelling ("f32", "i1", "ui4", "complex<f64>").
std::optional<ElementType> ElementTypeFromName(std::string_view name);

}  // namespace kiln

#include "kernels/common/element_type.h"

namespace kiln {
namespace {
constexpr ElementTypeInfo kInvalidInfo{"invalid", 0, ElementKind::kInvalid, 0};
struct Table {
  ElementTypeInfo rows[kMaxElementTypeCode + 1];
  constexpr Table() : rows{} {
    for (auto& r : rows) r = kInvalidInfo;
#define KILN_ELEMENT_TYPE(name, code, mlir, bytes, kind, bits) \
  rows[code] = ElementTypeInfo{mlir, bytes, ElementKind::kind, bits};
#include "kernels/common/element_types.def"
#undef KILN_ELEMENT_TYPE
  }
};
constexpr Table kTable;
}  // namespace

const ElementTypeInfo& GetInfo(ElementType t) {
  auto c = static_cast<unsigned>(t);
  return c <= kMaxElementTypeCode ? kTable.rows[c] : kInvalidInfo;
}

ElementType ComplexPartType(ElementType t) {
  if (t == ElementType::kC64) return ElementType::kF32;
  if (t == ElementType::kC128) return ElementType::kF64;
  return t;
}

std::optional<ElementType> ElementTypeFromCode(uint32_t code) {
  if (code == 0 || code > kMaxElementTypeCode) return std::nullopt;
  return static_cast<ElementType>(code);
}

std::optional<ElementType> ElementTypeFromName(std::string_view name) {
  if (name == "ui1") return std::nullopt;
  for (int c = 1; c <= kMaxElementTypeCode; ++c)
    if (kTable.rows[c].mlir_name == name) return static_cast<ElementType>(c);
  // MLIR also spells signed integers "si8" etc.
  if (name.size() > 2 && name[0] == 's' && name[1] == 'i') {
    std::string s = "i";
    s += name.substr(2);
    for (int c = 1; c <= kMaxElementTypeCode; ++c)
      if (kTable.rows[c].mlir_name == s && kTable.rows[c].kind == ElementKind::kSigned)
        return static_cast<ElementType>(c);
  }
  return std::nullopt;
}

}  // namespace kiln

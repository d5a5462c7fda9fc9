// The safetensors dtype names of Kiln's element types (format 0.4, external
// weights; docs/parameters.md): a contract of the compiler, which writes
// parameter files, and the runtime, which reads them, so it lives beside
// the schema as schema/module_checksum.h does. Header-only.
#pragma once
#include <optional>
#include <string_view>

#include "kernels/common/element_type.h"

namespace kiln {

struct SafetensorsDtypeName {
  ElementType type;
  const char* name;
};

// F8_E4M3 is PyTorch's float8_e4m3fn (finite, no infinities), as
// safetensors documents it. Types without a row (i2, i4, ui2, ui4, f4, f6,
// the other f8 kinds, complex<f64>) have no safetensors name and stay
// inline in the module.
inline constexpr SafetensorsDtypeName kSafetensorsDtypes[] = {
    {ElementType::kI1, "BOOL"},     {ElementType::kSI8, "I8"},         {ElementType::kSI16, "I16"},
    {ElementType::kSI32, "I32"},    {ElementType::kSI64, "I64"},       {ElementType::kUI8, "U8"},
    {ElementType::kUI16, "U16"},    {ElementType::kUI32, "U32"},       {ElementType::kUI64, "U64"},
    {ElementType::kF16, "F16"},     {ElementType::kBF16, "BF16"},      {ElementType::kF32, "F32"},
    {ElementType::kF64, "F64"},     {ElementType::kF8E4M3FN, "F8_E4M3"}, {ElementType::kF8E5M2, "F8_E5M2"},
    {ElementType::kF8E8M0FNU, "F8_E8M0"}, {ElementType::kC64, "C64"},
};

// The dtype for `type`, or null where safetensors has none.
inline const char* SafetensorsDtype(ElementType type) {
  for (const auto& d : kSafetensorsDtypes)
    if (d.type == type) return d.name;
  return nullptr;
}

inline std::optional<ElementType> ElementTypeFromSafetensors(std::string_view dtype) {
  for (const auto& d : kSafetensorsDtypes)
    if (dtype == d.name) return d.type;
  return std::nullopt;
}

}  // namespace kiln

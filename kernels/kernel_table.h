// The kernel table of kernels/kernels.def as C++: KernelId, KernelFamily and
// name lookup. Header-only and free of kernel code, so the compiler can ask
// "does this kernel exist" without linking any kernel library.
#pragma once
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>

namespace kiln {

enum class KernelFamily : uint8_t {
  kElementwise,
  kDataMovement,
  kIndexing,
  kContraction,
  kReduction,
  kLinalg,
  kNumeric,
};

// One value per kernels.def line, in its order (kernels.def's Id column).
enum class KernelId : uint16_t {
#define KILN_KERNEL(id, name, family) k##id,
#include "kernels/kernels.def"
#undef KILN_KERNEL
};

struct KernelInfo {
  KernelId id;
  std::string_view name;  // the module format's name, "stablehlo.dot_general"
  KernelFamily family;
};

inline constexpr KernelInfo kKernelTable[] = {
#define KILN_KERNEL(id, name, family) {KernelId::k##id, name, KernelFamily::family},
#include "kernels/kernels.def"
#undef KILN_KERNEL
};
inline constexpr size_t kKernelCount = std::size(kKernelTable);

constexpr std::string_view KernelName(KernelId id) { return kKernelTable[static_cast<size_t>(id)].name; }
constexpr KernelFamily FamilyOf(KernelId id) { return kKernelTable[static_cast<size_t>(id)].family; }

// The kernel of a module-format name, or nullopt. A linear scan: the table is
// short, and it runs once per executable (and per reference fallback).
constexpr std::optional<KernelId> FindKernelId(std::string_view name) {
  for (const KernelInfo& k : kKernelTable)
    if (k.name == name) return k.id;
  return std::nullopt;
}

// The family's file-name stem: "elementwise", "data_movement", ...
constexpr std::string_view FamilyName(KernelFamily f) {
  switch (f) {
    case KernelFamily::kElementwise: return "elementwise";
    case KernelFamily::kDataMovement: return "data_movement";
    case KernelFamily::kIndexing: return "indexing";
    case KernelFamily::kContraction: return "contraction";
    case KernelFamily::kReduction: return "reduction";
    case KernelFamily::kLinalg: return "linalg";
    case KernelFamily::kNumeric: return "numeric";
  }
  return "";
}

namespace kernel_table_internal {
constexpr bool NamesDistinct() {
  for (size_t i = 0; i < kKernelCount; ++i)
    for (size_t j = i + 1; j < kKernelCount; ++j)
      if (kKernelTable[i].name == kKernelTable[j].name) return false;
  return true;
}
}  // namespace kernel_table_internal
static_assert(kernel_table_internal::NamesDistinct(), "kernels/kernels.def lists a kernel name twice");

}  // namespace kiln

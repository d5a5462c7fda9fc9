// The module format version: the compiler writes it, the runtime's loader
// checks it (vm/module_loader.cc). A shared contract of both sides, so it
// lives beside the schema rather than in a runtime header the compiler
// does not link. Rules for bumping it: schema/README.md.
#pragma once
#include <cstdint>

namespace kiln {

// A loader accepts its own major version and any minor version up to its own.
constexpr uint16_t kFormatMajor = 0;
constexpr uint16_t kFormatMinor = 5;

// The VM and the compiler's serializer name them as vm::kFormat*.
namespace vm {
using kiln::kFormatMajor;
using kiln::kFormatMinor;
}  // namespace vm

}  // namespace kiln

// Sizes in bytes as the tools' options take them (--max-memory=SIZE):
// a whole number with an optional binary suffix, K, M or G (KiB, MiB, GiB;
// "KiB", "MB" and lower case are read the same).
#pragma once
#include <cstdint>
#include <string>

#include "kernels/common/status.h"

namespace kiln::tools {

// "4096" -> 4096, "64M" -> 67108864, "1g" -> 1073741824; an error naming
// `option` for anything else, zero, or more than 2^50 bytes.
StatusOr<uint64_t> ParseByteSize(const std::string& option, const std::string& text);

}  // namespace kiln::tools

// A structural check of a SPIR-V module before it reaches the driver: a
// driver may crash on malformed SPIR-V rather than refuse it. The module's
// checksum (schema/module_checksum.h) already refuses a corrupted file; this
// catches a malformed shader in a file whose checksum was skipped or
// recomputed. It is not SPIR-V validation (SPIRV-Tools' validator would
// add about 1.5 MB to the runtime): it checks the header, that every
// instruction's word count stays inside the module, that every result and
// result-type id is under the header's bound and defined once, and that a
// GLCompute entry point named "main" exists.
#pragma once
#include <cstdint>
#include <span>

#include "kernels/common/status.h"

namespace kiln::hal::vk {

// Ok, or InvalidArgument saying what is malformed.
Status CheckSpirvStructure(std::span<const uint32_t> words);

}  // namespace kiln::hal::vk

// A test hook: KILN_TEST_BREAK_KERNEL=<kernel name> (e.g.
// stablehlo.dot_general, kiln.elementwise) makes the CPU device perturb the
// outputs of every dispatch of that kernel after it runs, so that a test can
// check that vm-run --compare-with=reference finds the broken op
// (docs/debugging.md). Unset (the only setting outside such tests), the
// device checks one bool per executable, decided when it is prepared.
#pragma once
#include <span>
#include <string_view>

#include "kernels/common/kernel.h"

namespace kiln::hal {

// True when KILN_TEST_BREAK_KERNEL names `kernel` (read once per process).
bool KernelBrokenForTest(std::string_view kernel);

// Perturbs every element of `outputs` well beyond any tolerance: floats by
// 1e-2 * |x| + 0.25, complex numbers in both parts, integers by one,
// booleans flipped.
void BreakOutputsForTest(std::span<const TensorRef> outputs);

}  // namespace kiln::hal

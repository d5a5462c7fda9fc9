// Runs the Highway kernel tests once per SIMD target: every target that is
// compiled into kernels/cpu (the same HWY_TARGETS, from
// kernels/cpu/hwy_targets.h) and that this CPU supports, not only the best
// one, so that code paths of narrower targets (SSE4, NEON, the scalar
// fallback) are tested on a machine that would never choose them.
#pragma once
#include "kernels/cpu/hwy_targets.h"  // first: the kernels' choice of targets

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace kiln::cpu {

// The targets ForEachTarget runs: every target compiled in and supported,
// best first; or, with KILN_TEST_BEST_TARGET_ONLY=1 in the environment, the
// best one alone. The arm64 check (scripts/arm64_check.sh) sets it: it runs
// the tests once on an SVE CPU and once on a NEON-only one under the
// emulator, so each target runs once instead of NEON twice.
inline std::vector<int64_t> TestedTargets() {
  std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  const char* best_only = std::getenv("KILN_TEST_BEST_TARGET_ONLY");
  if (best_only && std::string(best_only) == "1" && targets.size() > 1) targets.resize(1);
  return targets;
}

// Calls fn once per target (TestedTargets) with dispatch restricted to that target:
// SetSupportedTargetsForTest resets Highway's chosen target, so the next
// HWY_DYNAMIC_DISPATCH in the kernels chooses again among the targets
// allowed (hwy_targets_test.cc checks that it does). Failures name the
// target; afterwards the normal choice is restored.
template <typename Fn>
void ForEachTarget(Fn&& fn) {
  const std::vector<int64_t> targets = TestedTargets();
  ASSERT_FALSE(targets.empty());
  for (int64_t t : targets) {
    hwy::SetSupportedTargetsForTest(t);
    SCOPED_TRACE(std::string("Highway target ") + hwy::TargetName(t));
    fn();
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace kiln::cpu

// TEST whose body runs once per Highway target (ForEachTarget). The test
// keeps its suite and name, so ctest and filters (`-R '^Cpu'`) see one test.
#define KILN_TEST_ALL_TARGETS(suite, name)                                       \
  void suite##_##name##_Body();                                                  \
  TEST(suite, name) { ::kiln::cpu::ForEachTarget([] { suite##_##name##_Body(); }); } \
  void suite##_##name##_Body()

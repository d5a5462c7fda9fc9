// The per-target loop of the Highway kernel tests (hwy_test_util.h) really
// switches targets: a function compiled for every target, as the kernels
// are (the same kernels/cpu/hwy_targets.h, foreach_target.h and
// HWY_DYNAMIC_DISPATCH), reports the target it was dispatched to.
#include "kernels/cpu/hwy_targets.h"  // first: the kernels' choice of targets

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tests/kernels/cpu/hwy_targets_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {
// Per target: the target it was compiled for.
int64_t CompiledTarget() { return HWY_TARGET; }
}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <set>

#include "tests/kernels/cpu/hwy_test_util.h"

namespace kiln::cpu {
namespace {

HWY_EXPORT(CompiledTarget);

int64_t Dispatched() { return HWY_DYNAMIC_DISPATCH(CompiledTarget)(); }

TEST(CpuHighwayTargets, EachIterationDispatchesToItsTarget) {
  const int64_t best = Dispatched();
  std::vector<int64_t> seen;
  ForEachTarget([&] { seen.push_back(Dispatched()); });
  EXPECT_EQ(seen, TestedTargets());
  // Each target once, so the loop is no repetition of the best target.
  EXPECT_EQ(std::set<int64_t>(seen.begin(), seen.end()).size(), seen.size());
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.front(), best) << hwy::TargetName(seen.front()) << " vs " << hwy::TargetName(best);
  // Afterwards the normal choice again.
  EXPECT_EQ(Dispatched(), best) << hwy::TargetName(Dispatched());
}

}  // namespace
}  // namespace kiln::cpu
#endif  // HWY_ONCE

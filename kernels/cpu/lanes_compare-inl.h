// The compare of the lane interpreters (elementwise_lanes32.cc,
// elementwise_lanes64.cc), per Highway target: dst = 1 where `dir` holds
// between the lanes of a and b (each viewed through `as`: its float or
// signed-integer view, biased for unsigned orders), else 0, one loop per
// direction (the direction chosen outside the loop). Integer ge and le are
// !(a < b) and !(a > b), which hold for integers (never NaN); kFloat says
// which the views are.
// Included inside HWY_NAMESPACE by each file (hn is hwy::HWY_NAMESPACE).

template <bool kFloat, class DU, class As>
HWY_INLINE bool CompareLanes(DU du, ComparisonDirection dir, const As& as, const hn::TFromD<DU>* a,
                             const hn::TFromD<DU>* b, hn::TFromD<DU>* dst, size_t count) {
  using T = hn::TFromD<DU>;
  const auto one = hn::Set(du, T{1});
  const size_t N = hn::Lanes(du);
  auto run = [&](auto pred, auto negate) {
    for (size_t i = 0; i < count; i += N) {
      const auto m = hn::RebindMask(du, pred(as(hn::LoadU(du, a + i)), as(hn::LoadU(du, b + i))));
      if constexpr (decltype(negate)::value) {
        hn::StoreU(hn::IfThenZeroElse(m, one), du, dst + i);
      } else {
        hn::StoreU(hn::IfThenElseZero(m, one), du, dst + i);
      }
    }
    return true;
  };
  using Yes = std::true_type;
  using No = std::false_type;
  auto eq = [](auto x, auto y) { return hn::Eq(x, y); };
  auto lt = [](auto x, auto y) { return hn::Lt(x, y); };
  auto gt = [](auto x, auto y) { return hn::Gt(x, y); };
  switch (dir) {
    case ComparisonDirection::kEQ: return run(eq, No());
    case ComparisonDirection::kNE: return run(eq, Yes());
    case ComparisonDirection::kGT: return run(gt, No());
    case ComparisonDirection::kLT: return run(lt, No());
    case ComparisonDirection::kGE:
      if constexpr (kFloat) return run([](auto x, auto y) { return hn::Ge(x, y); }, No());
      return run(lt, Yes());
    case ComparisonDirection::kLE:
      if constexpr (kFloat) return run([](auto x, auto y) { return hn::Le(x, y); }, No());
      return run(gt, Yes());
  }
  return false;
}

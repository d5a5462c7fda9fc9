// The select-only two-operand reduce of reduction_select.h (argmax, argmin).
//
// Each row is folded from the initial values, acc = body(acc, x), in the
// reference's order. A vector of elements is tested at once against the
// accumulator: an element may change it only in the cases (value class,
// index relation) where the body's table picks anything of the element.
// Vectors with no such element are skipped whole; the first such element
// is applied alone through the table, then the scan goes on after it. On
// random data the maximum changes a handful of times per row, so a row
// costs about one pass of compares; on a sorted row every element is a
// scalar step (still the reference's result).
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/reduction_select.cc"
#include "kernels/cpu/hwy_targets.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#ifndef KILN_CPU_REDUCTION_SELECT_SHARED
#define KILN_CPU_REDUCTION_SELECT_SHARED
#include "kernels/common/kernel_state.h"
#include "kernels/common/parallel.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/reduction_select.h"

namespace kiln::cpu {

// One call's rows: each output folds `n` contiguous elements.
struct SelectFoldProblem {
  const uint32_t* values = nullptr;  // f32 bits
  const void* indices = nullptr;     // 32- or 64-bit (index_bytes)
  uint32_t init_value = 0;
  uint64_t init_index = 0;
  uint32_t* out_values = nullptr;
  void* out_indices = nullptr;
  size_t index_bytes = 4;
  size_t n = 0;
  SelectFoldTable table;
  // Per value class: the index relations (bit r) in which the body picks
  // the element's value or index (in no other case does an element change
  // the accumulator), and the one compare that finds the classes picked
  // in every relation, where there is one (MayChangeMode).
  uint8_t relations[kNumValueClasses] = {};
  int mode = 0;
};

// The sets of value classes (of a non-NaN accumulator) MayChange tests in
// one compare; kMayChangeAny tests them one by one.
enum MayChangeMode : int {
  kMayChangeAny = 0,
  kMayChangeNotGreater,       // acc <= x or x NaN
  kMayChangeNotLess,          // acc >= x or x NaN
  kMayChangeNotGreaterEqual,  // acc < x or x NaN
  kMayChangeNotLessEqual,     // acc > x or x NaN
};

inline bool IsNaNBits(uint32_t bits) { return (bits & 0x7fffffffu) > 0x7f800000u; }

// The reference's step acc = body(acc, x) through the table.
template <typename IndexT>
inline void SelectStep(const SelectFoldProblem& p, uint32_t& acc_value, IndexT& acc_index, uint32_t x_value,
                       IndexT x_index) {
  float a, x;
  std::memcpy(&a, &acc_value, 4);
  std::memcpy(&x, &x_value, 4);
  const bool a_nan = IsNaNBits(acc_value), x_nan = IsNaNBits(x_value);
  const int cls = a_nan ? (x_nan ? kBothNaN : kAccNaN)
                        : x_nan ? kElementNaN : a < x ? kAccLess : a == x ? kAccEqual : kAccGreater;
  int rel;
  if (p.table.unsigned_index) {
    rel = acc_index < x_index ? kIndexLess : acc_index == x_index ? kIndexEqual : kIndexGreater;
  } else {
    using Signed = std::make_signed_t<IndexT>;
    const Signed ai = static_cast<Signed>(acc_index), xi = static_cast<Signed>(x_index);
    rel = ai < xi ? kIndexLess : ai == xi ? kIndexEqual : kIndexGreater;
  }
  const uint8_t pick = p.table.pick[cls][rel];
  if (pick & 1) acc_value = x_value;
  if (pick & 2) acc_index = x_index;
}

}  // namespace kiln::cpu
#endif  // KILN_CPU_REDUCTION_SELECT_SHARED

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Lanes of the index relations in `set` (bit r: relation r of acc's index
// to the element's), from the signed compares of the (flipped) indices.
template <class DI, class VI = hn::Vec<DI>>
HWY_INLINE hn::Mask<DI> Relations(DI di, uint8_t set, VI ia, VI ix) {
  if (set == 7) return hn::Not(hn::FirstN(di, 0));
  hn::Mask<DI> m = hn::FirstN(di, 0);
  if (set & (1 << kIndexLess)) m = hn::Or(m, hn::Lt(ia, ix));
  if (set & (1 << kIndexEqual)) m = hn::Or(m, hn::Eq(ia, ix));
  if (set & (1 << kIndexGreater)) m = hn::Or(m, hn::Gt(ia, ix));
  return m;
}

// The lanes whose element may change the accumulator (a, ia): those whose
// case (value class, index relation) the table picks anything of the
// element in. kMode tests the classes picked in every index relation in
// one compare where it can; a class picked in only some (ties broken by
// index) is tested with the indices.
// Without index vectors (64-bit indices beside 32-bit values) a class
// picked in some relations is tested as if picked in all: the scalar step
// then finds that such an element changes nothing.
template <int kMode, bool kIndexVectors, class DF, class DI, class V = hn::Vec<DF>, class VI = hn::Vec<DI>>
HWY_INLINE hn::Mask<DF> MayChange(DF df, DI di, const SelectFoldProblem& p, bool a_nan, V a, V x, VI ia, VI ix) {
  using MF = hn::Mask<DF>;
  const MF none = hn::FirstN(df, 0);
  auto in = [&](int cls, MF m) {
    const uint8_t set = p.relations[cls];
    if (set == 0) return none;
    if (set == 7 || !kIndexVectors) return m;
    return hn::And(m, hn::RebindMask(df, Relations(di, set, ia, ix)));
  };
  // (NaN lanes as x != x by Not(Eq): Highway's float Ne is an ordered
  // compare on some targets, false for NaN.)
  const MF x_nan = hn::Not(hn::Eq(x, x));
  if (a_nan) return hn::Or(in(kAccNaN, hn::Not(x_nan)), in(kBothNaN, x_nan));
  MF m;
  if constexpr (kMode == kMayChangeNotGreater) {
    m = hn::Not(hn::Gt(a, x));  // less, equal, the element NaN (argmax)
  } else if constexpr (kMode == kMayChangeNotLess) {
    m = hn::Not(hn::Lt(a, x));  // greater, equal, the element NaN (argmin)
  } else if constexpr (kMode == kMayChangeNotGreaterEqual) {
    m = hn::Not(hn::Ge(a, x));  // less, the element NaN
  } else if constexpr (kMode == kMayChangeNotLessEqual) {
    m = hn::Not(hn::Le(a, x));  // greater, the element NaN
  } else {
    return hn::Or(hn::Or(in(kAccLess, hn::Lt(a, x)), in(kAccEqual, hn::Eq(a, x))),
                  hn::Or(in(kAccGreater, hn::Gt(a, x)), in(kElementNaN, x_nan)));
  }
  if (p.relations[kAccEqual] != 0 && p.relations[kAccEqual] != 7) {
    // Ties, broken by the indices (argmax's first index): only where
    // there are any.
    const MF eq = hn::Eq(a, x);
    if (!hn::AllFalse(df, eq)) m = hn::Or(m, in(kAccEqual, eq));
  }
  return m;
}

template <int kMode, typename IndexT>
void SelectFoldRowsIn(const SelectFoldProblem& p, size_t r0, size_t r1) {
  constexpr bool kIndexVectors = sizeof(IndexT) == 4;
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::RebindToUnsigned<decltype(df)> du;
  const size_t N = hn::Lanes(df);
  // Signed order of unsigned indices: both sides with the top bit flipped.
  const auto flip = hn::Set(du, p.table.unsigned_index ? 0x80000000u : 0u);
  for (size_t r = r0; r < r1; ++r) {
    const uint32_t* xv = p.values + r * p.n;
    const IndexT* xi = static_cast<const IndexT*>(p.indices) + r * p.n;
    uint32_t acc_value = p.init_value;
    IndexT acc_index = static_cast<IndexT>(p.init_index);
    // (Index vectors only of 32-bit indices.)
    auto index_vector = [&](IndexT i) { return hn::BitCast(di, hn::Xor(hn::Set(du, static_cast<uint32_t>(i)), flip)); };
    auto a = hn::BitCast(df, hn::Set(du, acc_value));
    auto ia = index_vector(acc_index);
    bool a_nan = IsNaNBits(acc_value);
    size_t j = 0;
    while (j + N <= p.n) {
      const auto x = hn::BitCast(df, hn::LoadU(du, xv + j));
      auto ix = ia;
      if constexpr (kIndexVectors) ix = hn::BitCast(di, hn::Xor(hn::LoadU(du, xi + j), flip));
      const intptr_t first = hn::FindFirstTrue(df, MayChange<kMode, kIndexVectors>(df, di, p, a_nan, a, x, ia, ix));
      if (first < 0) {
        j += N;
        continue;
      }
      // The first such element through the body's table (it may still
      // change nothing: a picked value with the accumulator's bits, or a
      // class tested without the indices), then on from the next element.
      j += static_cast<size_t>(first);
      SelectStep(p, acc_value, acc_index, xv[j], xi[j]);
      ++j;
      a = hn::BitCast(df, hn::Set(du, acc_value));
      ia = index_vector(acc_index);
      a_nan = IsNaNBits(acc_value);
    }
    for (; j < p.n; ++j) SelectStep(p, acc_value, acc_index, xv[j], xi[j]);
    p.out_values[r] = acc_value;
    static_cast<IndexT*>(p.out_indices)[r] = acc_index;
  }
}

template <typename IndexT>
void SelectFoldRowsOf(const SelectFoldProblem& p, size_t r0, size_t r1) {
  switch (p.mode) {
    case kMayChangeNotGreater: return SelectFoldRowsIn<kMayChangeNotGreater, IndexT>(p, r0, r1);
    case kMayChangeNotLess: return SelectFoldRowsIn<kMayChangeNotLess, IndexT>(p, r0, r1);
    case kMayChangeNotGreaterEqual: return SelectFoldRowsIn<kMayChangeNotGreaterEqual, IndexT>(p, r0, r1);
    case kMayChangeNotLessEqual: return SelectFoldRowsIn<kMayChangeNotLessEqual, IndexT>(p, r0, r1);
    default: return SelectFoldRowsIn<kMayChangeAny, IndexT>(p, r0, r1);
  }
}

// Rows [r0, r1).
void SelectFoldRows(const SelectFoldProblem& p, size_t r0, size_t r1) {
  if (p.index_bytes == 8) return SelectFoldRowsOf<uint64_t>(p, r0, r1);
  SelectFoldRowsOf<uint32_t>(p, r0, r1);
}

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(SelectFoldRows);

namespace {

enum class Relation { kLess, kEqual, kGreater, kUnordered };

inline Relation Reverse(Relation r) {
  return r == Relation::kLess ? Relation::kGreater : r == Relation::kGreater ? Relation::kLess : r;
}

inline bool Holds(ComparisonDirection dir, Relation r) {
  switch (dir) {
    case ComparisonDirection::kEQ: return r == Relation::kEqual;
    case ComparisonDirection::kNE: return r != Relation::kEqual;
    case ComparisonDirection::kLT: return r == Relation::kLess;
    case ComparisonDirection::kLE: return r == Relation::kLess || r == Relation::kEqual;
    case ComparisonDirection::kGT: return r == Relation::kGreater;
    case ComparisonDirection::kGE: return r == Relation::kGreater || r == Relation::kEqual;
  }
  return false;
}

// A value of the body in one case: a truth value (i1) or the param it is.
struct Abstract {
  bool truth = false;
  int param = -1;
};

// The body's two results (as params) in case (cls, rel); false if a
// result is not the param of its operand.
bool EvaluateCase(const ScalarProgram& body, int value_param, int cls, int rel, int results[2]) {
  const size_t params = body.param_types.size();
  std::vector<Abstract> v(body.num_values());
  for (size_t j = 0; j < params; ++j) v[j].param = static_cast<int>(j);
  const int acc_v = value_param;
  auto is_nan = [&](int param) {
    return param == acc_v ? (cls == kAccNaN || cls == kBothNaN) : (cls == kElementNaN || cls == kBothNaN);
  };
  auto relation = [&](int a, int b) {
    if (a % 2 == value_param % 2) {  // values
      if (a == b) return is_nan(a) ? Relation::kUnordered : Relation::kEqual;
      if (cls >= kAccNaN) return Relation::kUnordered;
      const Relation r = cls == kAccLess ? Relation::kLess : cls == kAccEqual ? Relation::kEqual : Relation::kGreater;
      return a == acc_v ? r : Reverse(r);
    }
    if (a == b) return Relation::kEqual;  // indices
    const Relation r = rel == kIndexLess ? Relation::kLess : rel == kIndexEqual ? Relation::kEqual : Relation::kGreater;
    return a < 2 ? r : Reverse(r);
  };
  for (size_t k = 0; k < body.instrs.size(); ++k) {
    const ScalarInstr& in = body.instrs[k];
    Abstract& out = v[params + k];
    const Abstract* a = in.num_operands > 0 ? &v[in.operands[0]] : nullptr;
    const Abstract* b = in.num_operands > 1 ? &v[in.operands[1]] : nullptr;
    switch (in.op) {
      case ScalarOp::kConstant: out.truth = in.constant.i != 0; break;
      case ScalarOp::kCompare:
        out.truth = Holds(static_cast<ComparisonDirection>(in.attr0), relation(a->param, b->param));
        break;
      case ScalarOp::kAnd: out.truth = a->truth && b->truth; break;
      case ScalarOp::kOr: out.truth = a->truth || b->truth; break;
      case ScalarOp::kXor: out.truth = a->truth != b->truth; break;
      case ScalarOp::kNot: out.truth = !a->truth; break;
      case ScalarOp::kSelect: out = a->truth ? *b : v[in.operands[2]]; break;
      default: return false;
    }
  }
  for (int o = 0; o < 2; ++o) {
    const int p = v[body.results[o]].param;
    if (p < 0 || p % 2 != o) return false;
    results[o] = p;
  }
  return true;
}

}  // namespace

bool AnalyzeSelectFold(const ScalarProgram& body, SelectFoldTable* table) {
  if (body.param_types.size() != 4 || body.results.size() != 2) return false;
  const auto& t = body.param_types;
  int value_param = -1;
  for (int j = 0; j < 2; ++j)
    if (t[j] == ElementType::kF32) value_param = j;
  if (value_param < 0) return false;
  const ElementType index_type = t[1 - value_param];
  if ((index_type != ElementType::kSI32 && index_type != ElementType::kUI32 && index_type != ElementType::kSI64 &&
       index_type != ElementType::kUI64) ||
      t[2] != t[0] || t[3] != t[1])
    return false;
  // The ops, their types, and one signedness for the index compares.
  int index_signedness = -1;  // 0 signed, 1 unsigned
  for (size_t k = 0; k < body.instrs.size(); ++k) {
    const ScalarInstr& in = body.instrs[k];
    if (in.num_operands != ScalarOpArity(in.op)) return false;
    for (size_t o = 0; o < in.num_operands; ++o)
      if (in.operands[o] >= 4 + k) return false;
    auto type_of = [&](size_t o) { return body.ValueType(in.operands[o]); };
    switch (in.op) {
      case ScalarOp::kConstant:
        if (in.type != ElementType::kI1) return false;
        break;
      case ScalarOp::kCompare: {
        if (in.type != ElementType::kI1 || type_of(0) != type_of(1)) return false;
        const auto ct = static_cast<ComparisonType>(in.attr1);
        if (in.attr0 < 0 || in.attr0 > static_cast<int64_t>(ComparisonDirection::kLT)) return false;
        if (type_of(0) == ElementType::kF32) {
          if (ct != ComparisonType::kFloat && ct != ComparisonType::kNotype) return false;
        } else if (type_of(0) == index_type) {
          const bool natural_unsigned = index_type == ElementType::kUI32 || index_type == ElementType::kUI64;
          const int s = ct == ComparisonType::kSigned     ? 0
                        : ct == ComparisonType::kUnsigned ? 1
                        : ct == ComparisonType::kNotype   ? (natural_unsigned ? 1 : 0)
                                                          : -1;
          if (s < 0 || (index_signedness >= 0 && s != index_signedness)) return false;
          index_signedness = s;
        } else {
          return false;
        }
        break;
      }
      case ScalarOp::kAnd:
      case ScalarOp::kOr:
      case ScalarOp::kXor:
        if (in.type != ElementType::kI1 || type_of(0) != ElementType::kI1 || type_of(1) != ElementType::kI1)
          return false;
        break;
      case ScalarOp::kNot:
        if (in.type != ElementType::kI1 || type_of(0) != ElementType::kI1) return false;
        break;
      case ScalarOp::kSelect:
        if (type_of(0) != ElementType::kI1 || type_of(1) != in.type || type_of(2) != in.type) return false;
        break;
      default: return false;
    }
  }
  for (int o = 0; o < 2; ++o)
    if (body.results[o] >= body.num_values() || body.ValueType(body.results[o]) != t[o]) return false;
  table->value_operand = value_param;
  table->unsigned_index = index_signedness == 1;
  for (int cls = 0; cls < kNumValueClasses; ++cls)
    for (int rel = 0; rel < kNumIndexRelations; ++rel) {
      int res[2];
      if (!EvaluateCase(body, value_param, cls, rel, res)) return false;
      const int index_param = 1 - value_param;
      table->pick[cls][rel] = static_cast<uint8_t>((res[value_param] >= 2 ? 1 : 0) | (res[index_param] >= 2 ? 2 : 0));
    }
  return true;
}

namespace {

// Rows of fewer elements fold faster side by side in lanes
// (elementwise_lanes32.h) than one at a time here.
constexpr int64_t kMinRow = 64;

struct SelectFoldPlan : KernelPlan {
  bool fast = false;
  SelectFoldProblem problem;
  size_t rows = 0;
};

bool PlanSelectFold(const KernelCall& call, SelectFoldPlan* plan) {
  const ScalarProgram* body = call.params.Program("body");
  SelectFoldProblem& p = plan->problem;
  if (body == nullptr || call.params.Program("input") != nullptr || call.inputs.size() != 4 ||
      call.outputs.size() != 2 || !AnalyzeSelectFold(*body, &p.table))
    return false;
  const int vo = p.table.value_operand, io = 1 - vo;
  const TensorRef& values = call.inputs[vo];
  const TensorRef& indices = call.inputs[io];
  const int64_t rank = values.rank();
  // The reduced axes: the innermost ones, each once.
  const auto listed = call.params.Ints("dimensions");
  std::vector<int64_t> dims(listed.begin(), listed.end());
  std::sort(dims.begin(), dims.end());
  if (dims.empty() || std::adjacent_find(dims.begin(), dims.end()) != dims.end() || dims.back() != rank - 1 ||
      dims.front() != rank - static_cast<int64_t>(dims.size()))
    return false;
  const size_t kept = static_cast<size_t>(rank) - dims.size();
  int64_t n = 1;
  for (int64_t d : dims) n *= values.dims[d];
  if (n < kMinRow) return false;
  if (!StorageOk(values, body->param_types[vo]) || !StorageOk(indices, body->param_types[io]) ||
      !std::equal(values.dims.begin(), values.dims.end(), indices.dims.begin(), indices.dims.end()))
    return false;
  for (int o = 0; o < 2; ++o) {
    const TensorRef& init = call.inputs[2 + o];
    const TensorRef& out = call.outputs[o];
    if (!StorageOk(init, body->param_types[o]) || init.rank() != 0 || !StorageOk(out, body->param_types[o]) ||
        !std::equal(out.dims.begin(), out.dims.end(), values.dims.begin(), values.dims.begin() + kept))
      return false;
  }
  p.n = static_cast<size_t>(n);
  p.index_bytes = StorageBytes(indices.type);
  plan->rows = static_cast<size_t>(values.NumElements()) / p.n;
  for (int cls = 0; cls < kNumValueClasses; ++cls)
    for (int rel = 0; rel < kNumIndexRelations; ++rel)
      if (p.table.pick[cls][rel] != 0) p.relations[cls] |= static_cast<uint8_t>(1 << rel);
  // The classes picked in every relation, and ties picked in some.
  const auto& rs = p.relations;
  const bool lt = rs[kAccLess] == 7, gt = rs[kAccGreater] == 7, nan = rs[kElementNaN] == 7;
  const bool eq = rs[kAccEqual] == 7;  // (a partial one MayChange adds with the indices)
  const bool partial = (rs[kAccLess] != 0 && !lt) || (rs[kAccGreater] != 0 && !gt) || (rs[kElementNaN] != 0 && !nan);
  p.mode = !nan || partial ? kMayChangeAny
           : lt && eq && !gt ? kMayChangeNotGreater
           : gt && eq && !lt ? kMayChangeNotLess
           : lt && !eq && !gt ? kMayChangeNotGreaterEqual
           : gt && !eq && !lt ? kMayChangeNotLessEqual
                              : kMayChangeAny;
  return true;
}

}  // namespace

bool RunSelectFold(const KernelCall& call) {
  // (Every lane-by-lane reduce passes here first: its one operand leaves
  // before the plan lookup.)
  if (call.inputs.size() != 4 || call.outputs.size() != 2) return false;
  PlanKey key(kPlanSelectFold);
  key.AddPointer(call.params.Program("body")).Add(call.params.Ints("dimensions"));
  for (const TensorRef& t : call.inputs) AddShape(key, t);
  for (const TensorRef& t : call.outputs) AddShape(key, t);
  PlanLease<SelectFoldPlan> lease(call.state, key);
  if (lease.get() == nullptr) {
    auto plan = std::make_unique<SelectFoldPlan>();
    plan->fast = PlanSelectFold(call, plan.get());
    lease.Set(std::move(plan));
  }
  if (!lease.get()->fast) return false;
  SelectFoldProblem& p = lease.get()->problem;
  const int vo = p.table.value_operand, io = 1 - vo;
  p.values = reinterpret_cast<const uint32_t*>(call.inputs[vo].data);
  p.indices = call.inputs[io].data;
  std::memcpy(&p.init_value, call.inputs[2 + vo].data, 4);
  p.init_index = 0;
  std::memcpy(&p.init_index, call.inputs[2 + io].data, p.index_bytes);  // (little-endian: the low bytes)
  p.out_values = reinterpret_cast<uint32_t*>(call.outputs[vo].data);
  p.out_indices = call.outputs[io].data;
  const size_t rows = lease.get()->rows;
  // Tasks of about 64K elements; each row folds on one thread.
  const size_t per_task = std::max<size_t>(1, (size_t{1} << 16) / p.n);
  const int64_t tasks = static_cast<int64_t>((rows + per_task - 1) / per_task);
  ParallelFor(call.runner, tasks, [&](int64_t t, int) {
    const size_t r0 = static_cast<size_t>(t) * per_task;
    HWY_DYNAMIC_DISPATCH(SelectFoldRows)(p, r0, std::min(rows, r0 + per_task));
  });
  return true;
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE

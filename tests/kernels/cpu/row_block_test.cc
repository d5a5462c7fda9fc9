// kiln.row_block (kernels/reference/row_block.h): the fast CPU kernel
// (kernels/cpu/reduction_row_block.cc) against the reference on random
// inputs with NaN, infinities and signed zeros: softmax (max, fused sum of
// exp(x - max), tail) with jax's [R] -> [R, 1] reshapes, and a layer norm
// with per-row elementwise units (mean, rsqrt(var + eps)), f32 and f64, odd
// sizes, rows longer than the reducer's scratch, one row, enough rows to
// split over the pool. Results are bit-identical with and without the pool;
// a row block the fast kernel does not take (a per-row value read across
// rows) still gives the reference's result, and malformed ones are errors.
// The fast row block also gives exactly the bits of its units run as
// dispatches of their own through the fast kernels (the unfused program).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/kernel_state.h"
#include "kernels/cpu/registry.h"
#include "kernels/reference/registry.h"
#include "kernels/reference/row_block.h"
#include "tests/kernels/cpu/hwy_test_util.h"
#include "tests/kernels/cpu/reduce_test_util.h"
#include "tests/kernels/cpu/test_pool.h"

namespace kiln::cpu {
namespace {

using namespace reduce_test;

KernelAttr IntsAttr(std::string name, std::vector<int64_t> v) { return KernelAttr{std::move(name), std::move(v), {}, "", false, {}}; }
KernelAttr StrAttr(std::string name, std::string s) { return KernelAttr{std::move(name), {}, {}, std::move(s), false, {}}; }
KernelAttr ProgAttr(std::string name, ScalarProgram p) { return KernelAttr{std::move(name), {}, {}, "", true, std::move(p)}; }

ScalarInstr I(ScalarOp op, ElementType t, std::vector<uint16_t> operands) {
  ScalarInstr in;
  in.op = op;
  in.type = t;
  in.num_operands = static_cast<uint8_t>(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) in.operands[i] = operands[i];
  return in;
}

ScalarInstr Const(ElementType t, double v) {
  ScalarInstr in;
  in.op = ScalarOp::kConstant;
  in.type = t;
  in.constant.re = v;
  return in;
}

ScalarProgram Prog(std::vector<ElementType> params, std::vector<ScalarInstr> instrs) {
  ScalarProgram p;
  p.param_types = std::move(params);
  p.instrs = std::move(instrs);
  p.results = {static_cast<uint16_t>(p.num_values() - 1)};
  return p;
}

struct Builder {
  KernelParams p{"kiln.row_block", {}};
  int64_t units = 0;
  void Unit(std::string kernel, std::vector<int64_t> inputs, std::vector<int64_t> dims, std::vector<KernelAttr> attrs) {
    const std::string k = std::to_string(units++) + ".";
    p.attrs.push_back(StrAttr(k + "kernel", std::move(kernel)));
    p.attrs.push_back(IntsAttr(k + "inputs", std::move(inputs)));
    p.attrs.push_back(IntsAttr(k + "dims", std::move(dims)));
    for (KernelAttr& a : attrs) {
      a.name = k + a.name;
      p.attrs.push_back(std::move(a));
    }
  }
  KernelParams Done() {
    KernelParams out = p;
    out.attrs.insert(out.attrs.begin(), IntsAttr("units", {units}));
    return out;
  }
};

// The units of `p` run as dispatches of their own through the fast
// kernels (the reference where there is none): what the compiler emits
// without row blocks.
Tensor RunUnfused(const KernelParams& p, const std::vector<TensorRef>& ins, ElementType t,
                  const std::vector<int64_t>& out_dims) {
  std::vector<ref::RowBlockUnit> units;
  EXPECT_TRUE(ref::ParseRowBlock(p, ins.size(), &units).ok());
  std::vector<Tensor> temps;
  temps.reserve(units.size());
  std::vector<TensorRef> values = ins;
  for (size_t k = 0; k < units.size(); ++k) {
    const ref::RowBlockUnit& u = units[k];
    temps.push_back(Zeros(t, k + 1 == units.size() ? out_dims : u.dims));
    std::vector<TensorRef> unit_ins;
    for (int64_t v : u.inputs) unit_ins.push_back(values[static_cast<size_t>(v)]);
    TensorRef o[1] = {temps.back().ref()};
    KernelFn fn = FindCpuKernel(u.params);
    if (fn == nullptr) fn = ref::FindReferenceKernel(u.params.kernel);
    Status s = fn(KernelCall{u.params, unit_ins, o, TestPool()});
    EXPECT_TRUE(s.ok()) << s.message();
    values.push_back(o[0]);
  }
  return temps.back();
}

// Runs `p` fast (inline and on the pool), unit by unit through the fast
// kernels, and in the reference. The fast row block must give the bits of
// the fast units at every thread count, and the reference's bits unless the
// programs hold ops the fast interpreter computes to a few ULP (exp, rsqrt:
// `approx`), where it must be within 1e-5 relative.
void Compare(const KernelParams& p, std::vector<Tensor> ins, ElementType t, std::vector<int64_t> out_dims,
             bool approx) {
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  std::vector<TensorRef> refs;
  for (Tensor& x : ins) refs.push_back(x.ref());
  const size_t bytes = static_cast<size_t>(Count(out_dims)) * StorageBytes(t);
  Tensor got{t, out_dims, std::vector<uint8_t>(bytes, 0xAB)}, threaded = got, want = got;
  TensorRef o1[1] = {got.ref()}, o2[1] = {threaded.ref()}, o3[1] = {want.ref()};
  Status s = fast(KernelCall{p, refs, o1});
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE(fast(KernelCall{p, refs, o2, TestPool()}).ok());
  s = ref::FindReferenceKernel("kiln.row_block")(KernelCall{p, refs, o3});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(threaded.bytes, got.bytes);
  // With the executable's state (kernels/common/kernel_state.h) the plan
  // built on the first call is reused: the bits are the same, and they
  // follow new contents at the same addresses (the plan keeps no data).
  {
    KernelState state;
    Tensor kept = got;
    TensorRef o4[1] = {kept.ref()};
    ASSERT_TRUE(fast(KernelCall{p, refs, o4, TestPool(), false, &state}).ok());
    EXPECT_EQ(kept.bytes, got.bytes);
    Tensor& x = ins[0];
    const std::vector<uint8_t> original = x.bytes;
    for (int64_t i = 0; i < x.count(); ++i) x.Set(i, x.Get(i) * 0.5 - 0.25);
    Tensor fresh = got;
    TensorRef o5[1] = {fresh.ref()};
    ASSERT_TRUE(fast(KernelCall{p, refs, o5}).ok());
    ASSERT_TRUE(fast(KernelCall{p, refs, o4, TestPool(), false, &state}).ok());
    EXPECT_EQ(kept.bytes, fresh.bytes);
    std::copy(original.begin(), original.end(), x.bytes.begin());  // the same address
  }
  ExpectSameValues(got, RunUnfused(p, refs, t, out_dims));
  if (!approx) {
    ExpectSameValues(got, want);
    return;
  }
  int bad = 0;
  for (int64_t i = 0; i < want.count() && bad < 5; ++i) {
    const double g = got.Get(i), w = want.Get(i);
    const bool ok = std::isnan(w) ? std::isnan(g) : std::isinf(w) ? g == w : std::fabs(g - w) <= 1e-5 * std::fabs(w) + 1e-30;
    if (!ok) ++bad;
    EXPECT_TRUE(ok) << "element " << i << ": got " << g << ", want " << w;
  }
}

std::vector<int64_t> Outer(const std::vector<int64_t>& dims) { return {dims.begin(), dims.end() - 1}; }
std::vector<int64_t> Keep(const std::vector<int64_t>& dims) {
  std::vector<int64_t> d = Outer(dims);
  d.push_back(1);
  return d;
}
std::vector<int64_t> Iota(size_t n) {
  std::vector<int64_t> v;
  for (size_t i = 0; i < n; ++i) v.push_back(static_cast<int64_t>(i));
  return v;
}

// Softmax as the compiler forms it from jax.nn.softmax: inputs x, -inf,
// 0; units max, [R, 1] reshape, sum of exp(x - max), reshape, tail.
KernelParams Softmax(ElementType t, const std::vector<int64_t>& dims) {
  const int64_t last = static_cast<int64_t>(dims.size()) - 1;
  const auto outer = Outer(dims), keep = Keep(dims);
  Builder b;
  const ScalarProgram max = Prog({t, t}, {I(ScalarOp::kMaximum, t, {0, 1})});
  const ScalarProgram add = Prog({t, t}, {I(ScalarOp::kAdd, t, {0, 1})});
  std::vector<int64_t> keep_map = {static_cast<int64_t>(keep.size())};
  for (int64_t a : Iota(keep.size())) keep_map.push_back(a);
  std::vector<int64_t> full_map = {static_cast<int64_t>(dims.size())};
  for (int64_t a : Iota(dims.size())) full_map.push_back(a);
  b.Unit("stablehlo.reduce", {0, 1}, outer, {IntsAttr("dimensions", {last}), ProgAttr("body", max)});  // value 3
  b.Unit("stablehlo.broadcast_in_dim", {3}, keep, {IntsAttr("broadcast_dimensions", Iota(outer.size()))});  // 4
  std::vector<int64_t> map = full_map;
  map.insert(map.end(), keep_map.begin(), keep_map.end());
  const ScalarProgram exp = Prog({t, t}, {I(ScalarOp::kSubtract, t, {0, 1}), I(ScalarOp::kExponential, t, {2})});
  b.Unit("stablehlo.reduce", {0, 4, 2}, outer,
         {IntsAttr("dimensions", {last}), ProgAttr("body", add), ProgAttr("input", exp), IntsAttr("input_broadcast", map),
          IntsAttr("input_dims", dims)});  // 5
  b.Unit("stablehlo.reshape", {5}, keep, {});  // 6
  map.insert(map.end(), keep_map.begin(), keep_map.end());
  b.Unit("kiln.elementwise", {0, 4, 6}, dims,
         {ProgAttr("body", Prog({t, t, t}, {I(ScalarOp::kSubtract, t, {0, 1}), I(ScalarOp::kExponential, t, {3}),
                                             I(ScalarOp::kDivide, t, {4, 2})})),
          IntsAttr("input_broadcast", map)});
  return b.Done();
}

void CheckSoftmax(ElementType t, std::vector<int64_t> dims, uint32_t seed) {
  SCOPED_TRACE(std::string(t == ElementType::kF32 ? "f32 " : "f64 ") + std::to_string(dims.back()));
  std::mt19937 rng(seed);
  Tensor ninf = Zeros(t, {}), zero = Zeros(t, {});
  ninf.Set(0, -INFINITY);
  Compare(Softmax(t, dims), {Random(t, dims, rng), ninf, zero}, t, dims, /*approx=*/true);
}

KILN_TEST_ALL_TARGETS(CpuRowBlock, SoftmaxMatchesTheReference) {
  for (ElementType t : {ElementType::kF32, ElementType::kF64}) {
    CheckSoftmax(t, {67, 333}, 1);
    CheckSoftmax(t, {2, 3, 17}, 2);
    CheckSoftmax(t, {1, 1}, 3);
    CheckSoftmax(t, {5}, 4);                // one row, rank 1
    CheckSoftmax(t, {3, 40001}, 5);         // rows longer than the scratch
    CheckSoftmax(t, {1000, 64}, 6);         // many blocks over the pool
  }
}

// Layer norm: inputs x, 0, g (a column), n (a per-row constant tensor);
// units sum, mean = sum / n, sum of (x - mean)^2, rs = rsqrt(ssq / n + 1e-5)
// (a program with a constant), tail (x - mean) * rs * g.
void CheckLayerNorm(ElementType t, std::vector<int64_t> dims, uint32_t seed) {
  SCOPED_TRACE(std::string(t == ElementType::kF32 ? "f32 " : "f64 ") + std::to_string(dims.back()));
  const int64_t last = static_cast<int64_t>(dims.size()) - 1;
  const auto outer = Outer(dims);
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> full_map = {rank};
  for (int64_t a : Iota(dims.size())) full_map.push_back(a);
  std::vector<int64_t> row_map = {rank - 1};
  for (int64_t a : Iota(outer.size())) row_map.push_back(a);
  Builder b;
  const ScalarProgram add = Prog({t, t}, {I(ScalarOp::kAdd, t, {0, 1})});
  b.Unit("stablehlo.reduce", {0, 1}, outer, {IntsAttr("dimensions", {last}), ProgAttr("body", add)});  // 4
  b.Unit("kiln.elementwise", {4, 3}, outer, {ProgAttr("body", Prog({t, t}, {I(ScalarOp::kDivide, t, {0, 1})}))});  // 5
  std::vector<int64_t> map = full_map;
  map.insert(map.end(), row_map.begin(), row_map.end());
  b.Unit("stablehlo.reduce", {0, 5, 1}, outer,
         {IntsAttr("dimensions", {last}), ProgAttr("body", add),
          ProgAttr("input", Prog({t, t}, {I(ScalarOp::kSubtract, t, {0, 1}), I(ScalarOp::kMultiply, t, {2, 2})})),
          IntsAttr("input_broadcast", map), IntsAttr("input_dims", dims)});  // 6
  b.Unit("kiln.elementwise", {6, 3}, outer,
         {ProgAttr("body", Prog({t, t}, {Const(t, 1e-5), I(ScalarOp::kDivide, t, {0, 1}), I(ScalarOp::kAdd, t, {3, 2}),
                                         I(ScalarOp::kRsqrt, t, {4})}))});  // 7
  std::vector<int64_t> tail_map = full_map;
  tail_map.insert(tail_map.end(), row_map.begin(), row_map.end());
  tail_map.insert(tail_map.end(), row_map.begin(), row_map.end());
  tail_map.insert(tail_map.end(), {1, last});
  b.Unit("kiln.elementwise", {0, 5, 7, 2}, dims,
         {ProgAttr("body", Prog({t, t, t, t}, {I(ScalarOp::kSubtract, t, {0, 1}), I(ScalarOp::kMultiply, t, {4, 2}),
                                                I(ScalarOp::kMultiply, t, {5, 3})})),
          IntsAttr("input_broadcast", tail_map)});
  std::mt19937 rng(seed);
  Tensor zero = Zeros(t, {}), g = Random(t, {dims.back()}, rng), n = Zeros(t, outer);
  for (int64_t i = 0; i < n.count(); ++i) n.Set(i, static_cast<double>(dims.back()));
  Compare(b.Done(), {Random(t, dims, rng), zero, g, n}, t, dims, /*approx=*/true);
}

KILN_TEST_ALL_TARGETS(CpuRowBlock, LayerNormMatchesTheReference) {
  for (ElementType t : {ElementType::kF32, ElementType::kF64}) {
    CheckLayerNorm(t, {2, 45, 200}, 7);
    CheckLayerNorm(t, {7, 1}, 8);
    CheckLayerNorm(t, {9, 4099}, 9);
    CheckLayerNorm(t, {2, 20000}, 10);
  }
}

// A tail that computes its reduce's producer again (the row block reads the
// producer's values from its per-block buffer instead, row_block_reuse.h)
// and still needs part of it: inputs x, 0; units s = sum(x), q = sum((x -
// s)^2) with the square fused, tail (x - s)^2 / q + (x - s). Exact (no
// transcendental), f32 and f64, rows shorter and longer than a block (the
// longer ones are not cached), over the pool.
void CheckReusedProducer(ElementType t, std::vector<int64_t> dims, uint32_t seed) {
  SCOPED_TRACE(std::string(t == ElementType::kF32 ? "f32 " : "f64 ") + std::to_string(dims.back()));
  const int64_t last = static_cast<int64_t>(dims.size()) - 1;
  const auto outer = Outer(dims);
  std::vector<int64_t> map = {static_cast<int64_t>(dims.size())};
  for (int64_t a : Iota(dims.size())) map.push_back(a);
  map.push_back(static_cast<int64_t>(outer.size()));
  for (int64_t a : Iota(outer.size())) map.push_back(a);
  Builder b;
  const ScalarProgram add = Prog({t, t}, {I(ScalarOp::kAdd, t, {0, 1})});
  b.Unit("stablehlo.reduce", {0, 1}, outer, {IntsAttr("dimensions", {last}), ProgAttr("body", add)});  // 2
  b.Unit("stablehlo.reduce", {0, 2, 1}, outer,
         {IntsAttr("dimensions", {last}), ProgAttr("body", add),
          ProgAttr("input", Prog({t, t}, {I(ScalarOp::kSubtract, t, {0, 1}), I(ScalarOp::kMultiply, t, {2, 2})})),
          IntsAttr("input_broadcast", map), IntsAttr("input_dims", dims)});  // 3
  std::vector<int64_t> tail_map = map;
  tail_map.push_back(static_cast<int64_t>(outer.size()));
  for (int64_t a : Iota(outer.size())) tail_map.push_back(a);
  b.Unit("kiln.elementwise", {0, 2, 3}, dims,
         {ProgAttr("body", Prog({t, t, t}, {I(ScalarOp::kSubtract, t, {0, 1}), I(ScalarOp::kMultiply, t, {3, 3}),
                                             I(ScalarOp::kDivide, t, {4, 2}), I(ScalarOp::kAdd, t, {5, 3})})),
          IntsAttr("input_broadcast", tail_map)});
  std::mt19937 rng(seed);
  Compare(b.Done(), {Random(t, dims, rng), Zeros(t, {})}, t, dims, /*approx=*/false);
}

KILN_TEST_ALL_TARGETS(CpuRowBlock, TailReusesProducerValues) {
  for (ElementType t : {ElementType::kF32, ElementType::kF64}) {
    CheckReusedProducer(t, {37, 515}, 21);
    CheckReusedProducer(t, {3, 7, 1}, 22);
    CheckReusedProducer(t, {400, 99}, 23);    // many blocks over the pool
    CheckReusedProducer(t, {2, 40001}, 24);   // rows longer than a block
  }
}

// A tail reading the per-row max reversed (row r reads row R-1-r's value):
// rows of a block could read values not computed yet, so the fast kernel
// must leave it to the reference, and the result is still right.
KILN_TEST_ALL_TARGETS(CpuRowBlock, CrossRowReadsRunTheReference) {
  const ElementType t = ElementType::kF32;
  Builder b;
  b.Unit("stablehlo.reduce", {0, 1}, {40}, {IntsAttr("dimensions", {1}),
                                            ProgAttr("body", Prog({t, t}, {I(ScalarOp::kMaximum, t, {0, 1})}))});
  // The per-row value read along the output's column axis instead.
  b.Unit("kiln.elementwise", {0, 2}, {40, 40},
         {ProgAttr("body", Prog({t, t}, {I(ScalarOp::kSubtract, t, {0, 1})})),
          IntsAttr("input_broadcast", {2, 0, 1, 1, 1})});
  std::mt19937 rng(11);
  Tensor ninf = Zeros(t, {});
  ninf.Set(0, -INFINITY);
  Tensor x = Random(t, {40, 40}, rng);
  Compare(b.Done(), {x, ninf}, t, {40, 40}, /*approx=*/false);
  Tensor got = Zeros(t, {40, 40});
  std::vector<TensorRef> refs = {x.ref(), ninf.ref()};
  TensorRef o[1] = {got.ref()};
  const KernelParams p = b.Done();
  ASSERT_TRUE(FindCpuKernel(p)(KernelCall{p, refs, o, TestPool()}).ok());
  // Column 1 subtracts row 1's maximum (NaN if the row holds one).
  double m = -INFINITY;
  for (int c = 0; c < 40; ++c) m = std::isnan(x.Get(40 + c)) || std::isnan(m) ? NAN : std::max(m, x.Get(40 + c));
  for (int r = 0; r < 40; ++r) {
    const float want = static_cast<float>(x.Get(r * 40 + 1) - m);
    if (std::isnan(want)) EXPECT_TRUE(std::isnan(got.Get(r * 40 + 1))) << r;
    else EXPECT_EQ(got.Get(r * 40 + 1), want) << r;
  }
}

KILN_TEST_ALL_TARGETS(CpuRowBlock, MalformedRowBlocksAreErrors) {
  const ElementType t = ElementType::kF32;
  std::mt19937 rng(12);
  Tensor x = Random(t, {4, 8}, rng), ninf = Zeros(t, {}), zero = Zeros(t, {});
  std::vector<TensorRef> refs = {x.ref(), ninf.ref(), zero.ref()};
  Tensor got = Zeros(t, {4, 8});
  TensorRef o[1] = {got.ref()};
  auto expect_error = [&](KernelParams p, const char* what) {
    SCOPED_TRACE(what);
    EXPECT_FALSE(FindCpuKernel(p)(KernelCall{p, refs, o, TestPool()}).ok());
    EXPECT_FALSE(ref::FindReferenceKernel("kiln.row_block")(KernelCall{p, refs, o}).ok());
  };
  KernelParams good = Softmax(t, {4, 8});
  ASSERT_TRUE(FindCpuKernel(good)(KernelCall{good, refs, o}).ok());
  KernelParams p = good;
  p.attrs[0].ints = {0};
  expect_error(p, "no units");
  p = good;
  p.attrs[0].ints = {1000000};
  expect_error(p, "too many units");
  p = good;
  for (KernelAttr& a : p.attrs)
    if (a.name == "2.inputs") a.ints = {0, 5, 2};  // unit 2 reading unit 2's own result
  expect_error(p, "a forward reference");
  p = good;
  for (KernelAttr& a : p.attrs)
    if (a.name == "0.kernel") a.str = "stablehlo.sort";
  expect_error(p, "a kernel that cannot be a unit");
  p = good;
  for (KernelAttr& a : p.attrs)
    if (a.name == "1.dims") a.ints = {int64_t{1} << 40, int64_t{1} << 40};
  expect_error(p, "overflowing dims");
  p = good;
  for (KernelAttr& a : p.attrs)
    if (a.name == "4.dims") a.ints = {4, 9};
  expect_error(p, "a tail of the wrong shape");
  p = good;
  std::erase_if(p.attrs, [](const KernelAttr& a) { return a.name == "3.inputs"; });
  expect_error(p, "a unit without inputs");
}

}  // namespace
}  // namespace kiln::cpu

// The fast CPU kiln.elementwise (kernels/cpu) against the reference kernel:
// every supported op on random values and special values (NaN, +-inf, +-0,
// subnormals, overflow and underflow edges), odd sizes around the SIMD width
// and the interpreter's block size, rank-0 broadcast, i1 predicates, several
// outputs, and the fallbacks. add/sub/mul/div/sqrt/neg/abs/max/min/compare/
// select must match exactly; exp/log/tanh/logistic/rsqrt within a few ULP;
// NaN and infinity results exactly (NaN payloads are not compared).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/kernels.h"
#include "kernels/common/kernel_state.h"
#include "kernels/cpu/registry.h"
#include "kernels/reference/registry.h"
#include "tests/kernels/cpu/hwy_test_util.h"
#include "tests/kernels/cpu/test_pool.h"
#include "tests/kernels/tensor_test_util.h"

namespace kiln::cpu {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr ElementType F32 = ElementType::kF32;
constexpr ElementType I1 = ElementType::kI1;

using namespace ::kiln::test;  // Tensor, Make, Get, Count

Tensor F(std::vector<int64_t> dims, const std::vector<float>& v) { return Make(F32, std::move(dims), v); }
Tensor B(std::vector<int64_t> dims, const std::vector<uint8_t>& v) { return Make(I1, std::move(dims), v); }

// Special values first, then random values of every magnitude (random bit
// patterns) and moderate values, so every size sees both.
std::vector<float> Values(int64_t n, std::mt19937& rng) {
  static const float specials[] = {0.0f,   -0.0f, 1.0f,  -1.0f, kInf,  -kInf, kNaN, -kNaN,
                                   1e-40f, -1e-40f, 3.4e38f, -3.4e38f, 88.7f, 88.73f, -87.4f, -103.9f,
                                   -104.5f, 0.5f,  2.0f,  9.1f,  -9.1f, 20.0f, -20.0f, 1e-20f};
  std::vector<float> v(static_cast<size_t>(n));
  std::uniform_real_distribution<float> u(-10.0f, 10.0f);
  std::uniform_int_distribution<uint32_t> bits;
  for (int64_t i = 0; i < n; ++i) {
    if (i < static_cast<int64_t>(std::size(specials))) {
      v[i] = specials[i];
    } else if (i % 3 == 0) {
      uint32_t b = bits(rng);
      std::memcpy(&v[i], &b, 4);
    } else {
      v[i] = u(rng);
    }
  }
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

ScalarInstr Instr(ScalarOp op, ElementType t, std::vector<uint16_t> operands, int64_t attr0 = 0) {
  ScalarInstr i;
  i.op = op;
  i.type = t;
  i.num_operands = static_cast<uint8_t>(operands.size());
  for (size_t k = 0; k < operands.size(); ++k) i.operands[k] = operands[k];
  i.attr0 = attr0;
  return i;
}

ScalarInstr Constant(float v) {
  ScalarInstr i;
  i.op = ScalarOp::kConstant;
  i.type = F32;
  i.constant.re = v;
  return i;
}

KernelParams Params(ScalarProgram program) {
  KernelParams p;
  p.kernel = "kiln.elementwise";
  KernelAttr a;
  a.name = "body";
  a.has_program = true;
  a.program = std::move(program);
  p.attrs.push_back(std::move(a));
  return p;
}

// Params(program) with an `input_broadcast` attribute: the inputs' maps
// one after another, each [rank, result axis of each operand axis].
KernelParams ParamsWithBroadcast(const ScalarProgram& program, std::vector<int64_t> maps) {
  KernelParams params = Params(program);
  KernelAttr map;
  map.name = "input_broadcast";
  map.ints = std::move(maps);
  params.attrs.push_back(map);
  return params;
}
KernelParams ParamsWithBroadcast(const ScalarProgram& program,
                                 std::initializer_list<const std::vector<int64_t>*> maps) {
  std::vector<int64_t> all;
  for (const auto* m : maps) all.insert(all.end(), m->begin(), m->end());
  return ParamsWithBroadcast(program, std::move(all));
}

// Distance in units in the last place (ordered integer representation).
int64_t UlpDistance(float a, float b) {
  auto key = [](float x) {
    int32_t i;
    std::memcpy(&i, &x, 4);
    return i < 0 ? -static_cast<int64_t>(i & 0x7fffffff) : static_cast<int64_t>(i);
  };
  return std::llabs(key(a) - key(b));
}

// Runs both kernels; returns the largest ULP distance seen (NaN and infinity
// results must agree exactly).
int64_t Compare(const KernelParams& p, std::vector<Tensor> ins, std::vector<int64_t> out_dims, size_t num_outputs = 1) {
  KernelFn fast = FindCpuKernel(p);
  EXPECT_NE(fast, nullptr);
  if (!fast) return 1 << 30;
  KernelFn ref = ref::FindReferenceKernel(p.kernel);
  std::vector<Tensor> got, want;
  for (size_t o = 0; o < num_outputs; ++o) {
    got.push_back(F(out_dims, std::vector<float>(Count(out_dims), 777.0f)));
    want.push_back(F(out_dims, std::vector<float>(Count(out_dims), 0.0f)));
  }
  std::vector<TensorRef> in_refs, got_refs, want_refs;
  for (auto& t : ins) in_refs.push_back(t.ref());
  for (auto& t : got) got_refs.push_back(t.ref());
  for (auto& t : want) want_refs.push_back(t.ref());
  Status sf = fast(KernelCall{p, in_refs, got_refs});
  Status sr = ref(KernelCall{p, in_refs, want_refs});
  EXPECT_TRUE(sr.ok()) << sr.message();
  EXPECT_TRUE(sf.ok()) << sf.message();
  // Split over the thread pool: bit-identical to the single-threaded run.
  for (size_t o = 0; o < num_outputs; ++o) {
    Tensor threaded = F(out_dims, std::vector<float>(Count(out_dims), -1.0f));
    std::vector<TensorRef> t_refs;
    for (size_t q = 0; q < num_outputs; ++q) t_refs.push_back(q == o ? threaded.ref() : got[q].ref());
    std::vector<Tensor> saved = got;
    Status st = fast(KernelCall{p, in_refs, t_refs, TestPool()});
    EXPECT_TRUE(st.ok()) << st.message();
    EXPECT_EQ(threaded.bytes, saved[o].bytes) << "threaded output " << o << " differs";
  }
  // With the executable's state (kernels/common/kernel_state.h): the plan
  // of the first call is reused by the next, which must give the same bits
  // and follow new input contents at the same addresses.
  {
    KernelState state;
    std::vector<Tensor> kept = got;
    std::vector<TensorRef> k_refs;
    for (auto& t : kept) k_refs.push_back(t.ref());
    EXPECT_TRUE(fast(KernelCall{p, in_refs, k_refs, TestPool(), false, &state}).ok());
    for (size_t o = 0; o < num_outputs; ++o) EXPECT_EQ(kept[o].bytes, got[o].bytes) << "output " << o;
    const std::vector<uint8_t> original = ins[0].bytes;
    std::reverse(ins[0].bytes.begin(), ins[0].bytes.end());  // other values (bytes of an i1: still 0 or 1)
    std::vector<Tensor> fresh = got;
    std::vector<TensorRef> f_refs;
    for (auto& t : fresh) f_refs.push_back(t.ref());
    EXPECT_TRUE(fast(KernelCall{p, in_refs, f_refs}).ok());
    EXPECT_TRUE(fast(KernelCall{p, in_refs, k_refs, nullptr, false, &state}).ok());
    for (size_t o = 0; o < num_outputs; ++o) EXPECT_EQ(kept[o].bytes, fresh[o].bytes) << "output " << o;
    ins[0].bytes = original;  // assigned in place: the same address
  }
  int64_t worst = 0;
  int bad = 0;
  for (size_t o = 0; o < num_outputs; ++o) {
    auto g = Get<float>(got[o]), w = Get<float>(want[o]);
    for (size_t i = 0; i < w.size() && bad < 10; ++i) {
      if (std::isnan(w[i]) || std::isnan(g[i]) || std::isinf(w[i]) || std::isinf(g[i])) {
        const bool same = std::isnan(w[i]) ? std::isnan(g[i]) : g[i] == w[i];
        if (!same) {
          ++bad;
          std::vector<float> x;
          ADD_FAILURE() << "output " << o << " element " << i << ": got " << g[i] << ", want " << w[i]
                        << " (input 0: " << (ins[0].type == F32 && ins[0].dims == out_dims ? Get<float>(ins[0])[i] : 0.0f)
                        << ")";
        }
        continue;
      }
      const int64_t u = UlpDistance(g[i], w[i]);
      if (u > worst) worst = u;
    }
  }
  return worst;
}

// The fast kernel against the reference for outputs of the inputs' float
// type (f32 or f64), single-threaded and on the pool: the number of
// elements whose bits differ (any NaN matching any NaN).
int64_t CompareExact(const KernelParams& p, std::vector<Tensor> ins, std::vector<int64_t> out_dims,
                     size_t num_outputs) {
  KernelFn fast = FindCpuKernel(p);
  EXPECT_NE(fast, nullptr);
  if (!fast) return 1 << 30;
  const ElementType t = ins[0].type;
  std::vector<Tensor> got, threaded, want;
  for (size_t o = 0; o < num_outputs; ++o) {
    got.push_back(Zeros(t, out_dims));
    threaded.push_back(Zeros(t, out_dims));
    want.push_back(Zeros(t, out_dims));
  }
  std::vector<TensorRef> in_refs, g, h, w;
  for (auto& x : ins) in_refs.push_back(x.ref());
  for (size_t o = 0; o < num_outputs; ++o) {
    g.push_back(got[o].ref());
    h.push_back(threaded[o].ref());
    w.push_back(want[o].ref());
  }
  EXPECT_TRUE(fast(KernelCall{p, in_refs, g}).ok());
  EXPECT_TRUE(fast(KernelCall{p, in_refs, h, TestPool()}).ok());
  EXPECT_TRUE(ref::FindReferenceKernel(p.kernel)(KernelCall{p, in_refs, w}).ok());
  int64_t bad = 0;
  for (size_t o = 0; o < num_outputs; ++o) {
    EXPECT_EQ(got[o].bytes, threaded[o].bytes) << "output " << o;
    for (int64_t i = 0; i < got[o].count(); ++i) {
      const double a = got[o].Get(i), b = want[o].Get(i);
      const bool same = std::isnan(b) ? std::isnan(a)
                                      : std::memcmp(got[o].bytes.data() + i * StorageBytes(t),
                                                    want[o].bytes.data() + i * StorageBytes(t), StorageBytes(t)) == 0;
      if (!same && ++bad <= 5) ADD_FAILURE() << "output " << o << " element " << i << ": got " << a << ", want " << b;
    }
  }
  return bad;
}

ScalarProgram Unary(ScalarOp op) {
  ScalarProgram prog;
  prog.param_types = {F32};
  prog.instrs = {Instr(op, F32, {0})};
  prog.results = {1};
  return prog;
}

ScalarProgram Binary(ScalarOp op) {
  ScalarProgram prog;
  prog.param_types = {F32, F32};
  prog.instrs = {Instr(op, F32, {0, 1})};
  prog.results = {2};
  return prog;
}

// Sizes around the SIMD width, the block size and the pool's task size.
const int64_t kSizes[] = {1, 3, 17, 63, 65, 130, 511, 512, 513, 1500, 32768 + 513, 100003};

KILN_TEST_ALL_TARGETS(CpuElementwise, ExactBinaryOps) {
  std::mt19937 rng(1);
  for (ScalarOp op : {ScalarOp::kAdd, ScalarOp::kSubtract, ScalarOp::kMultiply, ScalarOp::kDivide,
                      ScalarOp::kMaximum, ScalarOp::kMinimum}) {
    SCOPED_TRACE(std::string(ScalarOpName(op)));
    for (int64_t n : kSizes) {
      SCOPED_TRACE(n);
      auto a = Values(n, rng), b = Values(n, rng);
      // Equal pairs, including +0/-0 and NaN against NaN.
      for (int64_t i = 0; i + 1 < n; i += 7) b[i] = a[i];
      if (n > 4) a[1] = 0.0f, b[1] = -0.0f, a[2] = -0.0f, b[2] = 0.0f, a[3] = kNaN, b[4] = kNaN;
      EXPECT_EQ(Compare(Params(Binary(op)), {F({n}, a), F({n}, b)}, {n}), 0);
    }
  }
}

KILN_TEST_ALL_TARGETS(CpuElementwise, MaximumMinimumSignedZerosAndNaN) {
  // The reference picks +0 for max(-0, +0) and -0 for min; NaN wins.
  std::vector<float> a = {0.0f, -0.0f, kNaN, 1.0f, kNaN, -kInf};
  std::vector<float> b = {-0.0f, 0.0f, 1.0f, kNaN, kNaN, kNaN};
  for (ScalarOp op : {ScalarOp::kMaximum, ScalarOp::kMinimum}) {
    KernelParams p = Params(Binary(op));
    Tensor x = F({6}, a), y = F({6}, b), out = F({6}, std::vector<float>(6));
    TensorRef in[2] = {x.ref(), y.ref()};
    TensorRef o[1] = {out.ref()};
    ASSERT_TRUE(FindCpuKernel(p)(KernelCall{p, in, o}).ok());
    auto r = Get<float>(out);
    const bool is_max = op == ScalarOp::kMaximum;
    EXPECT_EQ(std::signbit(r[0]), !is_max);
    EXPECT_EQ(std::signbit(r[1]), !is_max);
    for (int i = 2; i < 6; ++i) EXPECT_TRUE(std::isnan(r[i])) << i;
  }
}

KILN_TEST_ALL_TARGETS(CpuElementwise, ClampMatchesTheReference) {
  // clamp(min, x, max), relu6's form: bounds as whole tensors (any order,
  // NaN and signed zeros included) and as rank-0 broadcasts.
  std::mt19937 rng(11);
  ScalarProgram prog;
  prog.param_types = {F32, F32, F32};
  prog.instrs = {Instr(ScalarOp::kClamp, F32, {0, 1, 2})};
  prog.results = {3};
  for (int64_t n : kSizes) {
    SCOPED_TRACE(n);
    auto lo = Values(n, rng), x = Values(n, rng), hi = Values(n, rng);
    for (int64_t i = 0; i + 2 < n; i += 5) x[i] = lo[i], hi[i + 1] = x[i + 1];
    EXPECT_EQ(Compare(Params(prog), {F({n}, lo), F({n}, x), F({n}, hi)}, {n}), 0);
  }
  ScalarProgram relu6;
  relu6.param_types = {F32};
  relu6.instrs = {Constant(0.0f), Constant(6.0f), Instr(ScalarOp::kClamp, F32, {1, 0, 2})};
  relu6.results = {3};
  ASSERT_TRUE(ElementwiseApplies(Params(relu6)));
  for (int64_t n : kSizes) EXPECT_EQ(Compare(Params(relu6), {F({n}, Values(n, rng))}, {n}), 0);
}

KILN_TEST_ALL_TARGETS(CpuElementwise, ExactUnaryOps) {
  std::mt19937 rng(2);
  for (ScalarOp op : {ScalarOp::kNegate, ScalarOp::kAbs, ScalarOp::kSqrt}) {
    SCOPED_TRACE(std::string(ScalarOpName(op)));
    for (int64_t n : kSizes) EXPECT_EQ(Compare(Params(Unary(op)), {F({n}, Values(n, rng))}, {n}), 0);
  }
}

KILN_TEST_ALL_TARGETS(CpuElementwise, TranscendentalsWithinUlps) {
  std::mt19937 rng(3);
  struct Case {
    ScalarOp op;
    int64_t max_ulp;
  };
  for (Case c : {Case{ScalarOp::kExponential, 2}, Case{ScalarOp::kLog, 2}, Case{ScalarOp::kTanh, 4},
                 Case{ScalarOp::kLogistic, 4}, Case{ScalarOp::kRsqrt, 2}, Case{ScalarOp::kErf, 2}}) {
    SCOPED_TRACE(std::string(ScalarOpName(c.op)));
    int64_t worst = 0;
    for (int64_t n : kSizes) worst = std::max(worst, Compare(Params(Unary(c.op)), {F({n}, Values(n, rng))}, {n}));
    // A dense sweep of the interesting range and of the tails.
    std::vector<float> sweep;
    for (float x = -110.0f; x <= 110.0f; x += 0.0137f) sweep.push_back(x);
    for (float x = 1e-38f; x < 1e38f; x *= 1.37f) sweep.push_back(x), sweep.push_back(-x);
    for (int i = 1; i < 2000; ++i) sweep.push_back(88.70f + i * 1e-5f), sweep.push_back(-87.0f - i * 0.01f);
    // Runs of consecutive floats where tanh is weakest: just below and above
    // powers of two (small |x|), around its range-reduction steps
    // |x| = (j + 1/2) ln2/2, and around its clamp (f32 tanh rounds to 1 from
    // 9.0109 on; the formula is replaced by +-1 above 10).
    auto around = [&sweep](float c) {
      float lo = c, hi = c;
      for (int i = 0; i < 1000; ++i) {
        lo = std::nextafter(lo, 0.0f), hi = std::nextafter(hi, kInf);
        sweep.push_back(lo), sweep.push_back(hi), sweep.push_back(-lo);
      }
    };
    for (float c = 1.0f / 256; c <= 2.0f; c *= 2) around(c);
    for (int j = 0; j < 4; ++j) around(static_cast<float>((j + 0.5) * 0.34657359027997264));
    for (float c : {9.0f, 9.0109f, 10.0f}) around(c);
    for (float c : {1.0f, 3.92f, 4.0f}) around(c);  // erf's split, its rounding to 1 and its clamp
    for (float x = 8.5f; x <= 10.5f; x += 1e-4f) sweep.push_back(x);
    const int64_t n = static_cast<int64_t>(sweep.size());
    worst = std::max(worst, Compare(Params(Unary(c.op)), {F({n}, sweep)}, {n}));
    EXPECT_LE(worst, c.max_ulp);
    std::printf("%s: max %lld ulp\n", std::string(ScalarOpName(c.op)).c_str(), static_cast<long long>(worst));
  }
}

KILN_TEST_ALL_TARGETS(CpuElementwise, SpecialValuesOfTranscendentals) {
  std::vector<float> x = {kNaN, kInf, -kInf, 0.0f, -0.0f, -1.0f, 1e-45f, 89.0f, -200.0f, 3.4e38f, -3.4e38f};
  const int64_t n = static_cast<int64_t>(x.size());
  for (ScalarOp op : {ScalarOp::kExponential, ScalarOp::kLog, ScalarOp::kTanh, ScalarOp::kLogistic,
                      ScalarOp::kRsqrt, ScalarOp::kSqrt, ScalarOp::kErf}) {
    SCOPED_TRACE(std::string(ScalarOpName(op)));
    EXPECT_LE(Compare(Params(Unary(op)), {F({n}, x)}, {n}), 4);
  }
}

// Ops without a vector form of their own inside a vector program: each
// element through the reference's scalar evaluation (ScalarEscape), and
// floor, ceil, round_nearest_even, sign and square in exact vector forms;
// bit-identical to the reference in f32 and f64 (erf's f64 form escapes),
// NaN, infinities and zeros of either sign among the inputs.
KILN_TEST_ALL_TARGETS(CpuElementwise, ScalarEscapesAndExactRoundingOps) {
  std::mt19937 rng(12);
  using O = ScalarOp;
  for (ElementType t : {F32, ElementType::kF64}) {
    ScalarProgram prog;
    prog.param_types = {t, t};
    prog.instrs = {Instr(O::kMultiply, t, {0, 1}),         // 2
                   Instr(O::kSine, t, {2}),                // 3
                   Instr(O::kAtan2, t, {3, 1}),            // 4
                   Instr(O::kFloor, t, {2}),               // 5
                   Instr(O::kCeil, t, {0}),                // 6
                   Instr(O::kRoundNearestEven, t, {2}),    // 7
                   Instr(O::kSign, t, {0}),                // 8
                   Instr(O::kSquare, t, {1}),              // 9
                   Instr(O::kRoundNearestAfz, t, {2}),     // 10
                   Instr(O::kPower, t, {9, 0}),            // 11
                   Instr(O::kAdd, t, {4, 5}),              // 12
                   Instr(O::kSubtract, t, {12, 6}),        // 13
                   Instr(O::kMultiply, t, {13, 8}),        // 14
                   Instr(O::kAdd, t, {14, 7}),             // 15
                   Instr(O::kLgamma, t, {9})};             // 16
    prog.results = {15, 10, 11, 16};
    if (t == ElementType::kF64) {
      prog.instrs.push_back(Instr(O::kErf, t, {0}));  // 17: f64 erf escapes
      prog.results.push_back(17);
    }
    for (int64_t n : {1, 17, 600, 5000}) {
      SCOPED_TRACE(std::to_string(n) + (t == F32 ? " f32" : " f64"));
      std::vector<float> x = Values(n, rng), y = Values(n, rng);
      for (int64_t i = 0; i < n; ++i) x[i] = std::round(x[i] * 4) / 8;  // halves: the rounding ties
      const float specials[] = {kNaN, kInf, -kInf, 0.0f, -0.0f, 2.5f, -2.5f, 0.5f, -0.5f};
      for (int64_t i = 0; i < n && i < 9; ++i) x[i] = specials[i];
      std::vector<Tensor> ins = {F({n}, x), F({n}, y)};
      if (t == ElementType::kF64) {
        for (auto& in : ins) {
          std::vector<double> v;
          for (float e : Get<float>(in)) v.push_back(e);
          in = Make(ElementType::kF64, {n}, v);
        }
      }
      EXPECT_EQ(CompareExact(Params(prog), ins, {n}, prog.results.size()), 0);
    }
  }
}

// Fused broadcasts of lower-rank operands (input_broadcast): select(p[m],
// a[m, n] + bias[n], a * t[n, m]^T) - one[1, n] over odd shapes, including
// ones that split into several blocks and pool tasks. Exact.
KILN_TEST_ALL_TARGETS(CpuElementwise, BroadcastInputsReadInPlace) {
  std::mt19937 rng(11);
  ScalarProgram prog;
  prog.param_types = {F32, F32, I1, F32, F32};  // a, bias, p, t, one
  prog.instrs = {Instr(ScalarOp::kAdd, F32, {0, 1}),          // 5
                 Instr(ScalarOp::kMultiply, F32, {0, 3}),     // 6
                 Instr(ScalarOp::kSelect, F32, {2, 5, 6}),    // 7
                 Instr(ScalarOp::kSubtract, F32, {7, 4})};    // 8
  prog.results = {8};
  const int64_t shapes[][2] = {{1, 1}, {3, 17}, {17, 3}, {5, 130}, {129, 513}, {700, 101}};
  for (const auto& sh : shapes) {
    const int64_t m = sh[0], n = sh[1];
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    KernelParams params = ParamsWithBroadcast(
        prog, std::vector<int64_t>{2, 0, 1, /*bias*/ 1, 1, /*p*/ 1, 0, /*t*/ 2, 1, 0, /*one*/ 2, 0, 1});
    std::vector<uint8_t> pred(static_cast<size_t>(m));
    for (auto& b : pred) b = rng() % 2;
    EXPECT_EQ(Compare(params, {F({m, n}, Values(m * n, rng)), F({n}, Values(n, rng)), B({m}, pred),
                               F({n, m}, Values(n * m, rng)), F({1, n}, Values(n, rng))},
                      {m, n}),
              0);
  }
}

// Inputs read through static slices (input_slices, a fused stablehlo.slice):
// tanh(a[s0] * b[s1]) + c over rows shorter than a block (the kernel cuts
// blocks at row ends), longer ones, and odd ones, with column offsets, row
// and column strides, and a plain output-shaped input beside them. Within
// the transcendental's ULPs of the reference, like tanh elsewhere.
KILN_TEST_ALL_TARGETS(CpuElementwise, SlicedInputsReadInPlace) {
  std::mt19937 rng(53);
  ScalarProgram prog;
  prog.param_types = {F32, F32, F32};  // a (sliced), b (sliced), c
  prog.instrs = {Instr(ScalarOp::kMultiply, F32, {0, 1}), Instr(ScalarOp::kTanh, F32, {3}),
                 Instr(ScalarOp::kAdd, F32, {4, 2})};
  prog.results = {5};
  struct Case {
    int64_t m, n;  // output
    int64_t sa[4], sb[4];  // starts then strides of a and b (2-d)
  };
  const Case cases[] = {{9, 128, {0, 256, 1, 1}, {1, 0, 1, 1}},     // a GRU gate: rows of 128
                        {64, 128, {0, 128, 1, 1}, {0, 0, 2, 1}},
                        {7, 70, {2, 3, 1, 2}, {0, 1, 3, 3}},
                        {5, 600, {0, 7, 1, 1}, {3, 0, 1, 1}},     // rows longer than a block
                        {33, 17, {1, 1, 2, 1}, {0, 2, 1, 1}}};   // rows shorter than four vectors
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n));
    // Each source just large enough for its slice (the last element read is its last).
    const int64_t am = c.sa[0] + (c.m - 1) * c.sa[2] + 1, an = c.sa[1] + (c.n - 1) * c.sa[3] + 1;
    const int64_t bm = c.sb[0] + (c.m - 1) * c.sb[2] + 1, bn = c.sb[1] + (c.n - 1) * c.sb[3] + 1;
    KernelParams params = ParamsWithBroadcast(prog, std::vector<int64_t>{2, 0, 1, 2, 0, 1, 2, 0, 1});
    KernelAttr slices;
    slices.name = "input_slices";
    slices.ints = {2, c.sa[0], c.sa[1], c.sa[2], c.sa[3], 2, c.sb[0], c.sb[1], c.sb[2], c.sb[3], 0};
    params.attrs.push_back(slices);
    EXPECT_LE(Compare(params,
                      {F({am, an}, Values(am * an, rng)), F({bm, bn}, Values(bm * bn, rng)),
                       F({c.m, c.n}, Values(c.m * c.n, rng))},
                      {c.m, c.n}),
              4);
  }
}

KILN_TEST_ALL_TARGETS(CpuElementwise, SlicesReadingPastTheInputAreRefused) {
  ScalarProgram prog = Binary(ScalarOp::kAdd);
  KernelFn fast = FindCpuKernel(Params(prog));
  ASSERT_NE(fast, nullptr);
  Tensor a = F({4, 8}, std::vector<float>(32, 1.0f)), b = F({2, 4}, std::vector<float>(8, 2.0f));
  Tensor out = F({2, 4}, std::vector<float>(8));
  TensorRef in[2] = {a.ref(), b.ref()};
  TensorRef o[1] = {out.ref()};
  // Rows 2 and 4 of a: past its 4 rows; a start past the end; a zero stride;
  // an entry of the wrong rank; entries missing.
  const std::vector<std::vector<int64_t>> bad = {{2, 2, 0, 2, 1, 0},  {2, 0, 8, 1, 1, 0}, {2, 0, 0, 0, 1, 0},
                                                 {1, 0, 1, 0},       {2, 0, 0, 1, 1}};
  for (const auto& ints : bad) {
    KernelParams params = Params(prog);
    params.attrs.push_back(KernelAttr{"input_broadcast", {2, 0, 1, 2, 0, 1}, {}, "", false, {}});
    params.attrs.push_back(KernelAttr{"input_slices", ints, {}, "", false, {}});
    Status s = fast(KernelCall{params, in, o});
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("input_slices"), std::string::npos) << s.message();
  }
}

// Per-feature vectors over a channel-last result, as a convolution's batch
// norm epilogue reads them: clamp((x - mean[f]) * scale[f] + shift[f], 0, 6)
// over [B, H, W, F] with F odd, a multiple of the block, and above the
// repeated-vector limit (8192); ranges long enough for the repeated vector
// and short ones (gathered). Exact (the same bits as the reference).
KILN_TEST_ALL_TARGETS(CpuElementwise, PerFeatureVectorsOverChannelLastResults) {
  std::mt19937 rng(29);
  ScalarProgram prog;
  prog.param_types = {F32, F32, F32, F32, F32, F32};  // x, mean, scale, shift, lo, hi
  prog.instrs = {Instr(ScalarOp::kSubtract, F32, {0, 1}),     // 6
                 Instr(ScalarOp::kMultiply, F32, {6, 2}),     // 7
                 Instr(ScalarOp::kAdd, F32, {7, 3}),          // 8
                 Instr(ScalarOp::kClamp, F32, {4, 8, 5})};    // 9
  prog.results = {9};
  const int64_t shapes[][4] = {{2, 16, 16, 192}, {3, 5, 7, 33}, {1, 9, 9, 7}, {1, 2, 3, 512},
                               {2, 4, 4, 1000},  {1, 1, 3, 9000}, {1, 1, 1, 5}};
  for (const auto& sh : shapes) {
    const int64_t f = sh[3];
    SCOPED_TRACE(std::to_string(sh[0] * sh[1] * sh[2]) + " x " + std::to_string(f));
    KernelParams params = ParamsWithBroadcast(prog, std::vector<int64_t>{4, 0, 1, 2, 3, 1, 3, 1, 3, 1, 3, 0, 0});
    const int64_t n = sh[0] * sh[1] * sh[2] * f;
    EXPECT_EQ(Compare(params,
                      {F({sh[0], sh[1], sh[2], f}, Values(n, rng)), F({f}, Values(f, rng)), F({f}, Values(f, rng)),
                       F({f}, Values(f, rng)), F({}, {0.0f}), F({}, {6.0f})},
                      {sh[0], sh[1], sh[2], f}),
              0);
  }
}

// The same batch norm and clamp over channel-first (NCHW) results: each
// per-feature value is constant over a run of the spatial elements, which
// a block meets as splats (runs of 256, of 45 and of 16 elements: several
// per block, and blocks ending inside a run), and a run longer than a
// block over short rows.
KILN_TEST_ALL_TARGETS(CpuElementwise, PerFeatureValuesOverChannelFirstResults) {
  std::mt19937 rng(37);
  ScalarProgram prog;
  prog.param_types = {F32, F32, F32, F32, F32, F32};  // x, mean, scale, shift, lo, hi
  prog.instrs = {Instr(ScalarOp::kSubtract, F32, {0, 1}), Instr(ScalarOp::kMultiply, F32, {6, 2}),
                 Instr(ScalarOp::kAdd, F32, {7, 3}), Instr(ScalarOp::kClamp, F32, {4, 8, 5})};
  prog.results = {9};
  const int64_t shapes[][4] = {{2, 5, 16, 16}, {3, 7, 9, 5}, {1, 33, 4, 4}, {2, 3, 64, 16}, {1, 2, 1, 3}};
  for (const auto& sh : shapes) {
    const int64_t f = sh[1];
    SCOPED_TRACE(std::to_string(sh[0]) + "x" + std::to_string(f) + "x" + std::to_string(sh[2] * sh[3]));
    KernelParams params = ParamsWithBroadcast(prog, std::vector<int64_t>{4, 0, 1, 2, 3, 1, 1, 1, 1, 1, 1, 0, 0});
    const int64_t n = sh[0] * f * sh[2] * sh[3];
    EXPECT_EQ(Compare(params,
                      {F({sh[0], f, sh[2], sh[3]}, Values(n, rng)), F({f}, Values(f, rng)), F({f}, Values(f, rng)),
                       F({f}, Values(f, rng)), F({}, {0.0f}), F({}, {6.0f})},
                      {sh[0], f, sh[2], sh[3]}),
              0);
  }
}

// Chain programs (each instruction takes the one before it, the rest params
// and constants) run with the running value in registers
// (kernels/cpu/elementwise.cc, ChainOf): the same bits as the reference with
// the running value on either side of each op, starting from a param or a
// constant, clamp bounds per element or splat, a value with itself (x * x),
// every size around the vector and block widths; and a program that is not
// a chain (an earlier value read again).
KILN_TEST_ALL_TARGETS(CpuElementwise, ChainProgramsMatchTheReferenceExactly) {
  std::mt19937 rng(31);
  using O = ScalarOp;
  std::vector<ScalarProgram> programs;
  {  // ((p1 - x) / p2 max 0.5) min p1, then -|.|: running value on the right, then left
    ScalarProgram prog;
    prog.param_types = {F32, F32, F32};
    prog.instrs = {Instr(O::kSubtract, F32, {1, 0}), Instr(O::kDivide, F32, {3, 2}), Constant(0.5f),
                   Instr(O::kMaximum, F32, {5, 4}), Instr(O::kMinimum, F32, {1, 6}), Instr(O::kAbs, F32, {7}),
                   Instr(O::kNegate, F32, {8})};
    prog.results = {9};
    programs.push_back(prog);
  }
  {  // clamp(p1, 3 - x * p2, p2): starts from a constant's side, per-element bounds
    ScalarProgram prog;
    prog.param_types = {F32, F32, F32};
    prog.instrs = {Constant(3.0f), Instr(O::kMultiply, F32, {0, 2}), Instr(O::kSubtract, F32, {3, 4}),
                   Instr(O::kClamp, F32, {1, 5, 2})};
    prog.results = {6};
    programs.push_back(prog);
  }
  {  // a chain that starts from a constant: (2 / p0) + p1
    ScalarProgram prog;
    prog.param_types = {F32, F32};
    prog.instrs = {Constant(2.0f), Instr(O::kDivide, F32, {2, 0}), Instr(O::kAdd, F32, {3, 1})};
    prog.results = {4};
    programs.push_back(prog);
  }
  {  // ((3 + p0 / 3) - 3) * p1: splat operands on either side (loaded once per step)
    ScalarProgram prog;
    prog.param_types = {F32, F32};
    prog.instrs = {Constant(3.0f), Instr(O::kDivide, F32, {0, 2}), Instr(O::kAdd, F32, {2, 3}),
                   Instr(O::kSubtract, F32, {4, 2}), Instr(O::kMultiply, F32, {5, 1})};
    prog.results = {6};
    programs.push_back(prog);
  }
  {  // x * x + x: the running value with itself (a self step), then a param
    ScalarProgram prog;
    prog.param_types = {F32};
    prog.instrs = {Instr(O::kMultiply, F32, {0, 0}), Instr(O::kAdd, F32, {1, 0})};
    prog.results = {2};
    programs.push_back(prog);
  }
  {  // (x - p1) * (x - p1) + p2: a norm's squared deviation, self step mid-chain
    ScalarProgram prog;
    prog.param_types = {F32, F32, F32};
    prog.instrs = {Instr(O::kSubtract, F32, {0, 1}), Instr(O::kMultiply, F32, {3, 3}), Instr(O::kAdd, F32, {4, 2})};
    prog.results = {5};
    programs.push_back(prog);
  }
  {  // not a chain: a = x + p1; (a * p1) + a reads an earlier value again
    ScalarProgram prog;
    prog.param_types = {F32, F32};
    prog.instrs = {Instr(O::kAdd, F32, {0, 1}), Instr(O::kMultiply, F32, {2, 1}), Instr(O::kAdd, F32, {3, 2})};
    prog.results = {4};
    programs.push_back(prog);
  }
  for (size_t k = 0; k < programs.size(); ++k) {
    SCOPED_TRACE("program " + std::to_string(k));
    const size_t params = programs[k].param_types.size();
    for (int64_t n : kSizes) {
      SCOPED_TRACE(n);
      std::vector<Tensor> ins;
      for (size_t q = 0; q < params; ++q) ins.push_back(F({n}, Values(n, rng)));
      EXPECT_EQ(Compare(Params(programs[k]), ins, {n}), 0);
    }
  }
}

// Chains with unary and transcendental steps (exp, log, tanh, logistic,
// sqrt, rsqrt; ChainEight passes its eight running vectors through the
// transcendental ones together): the same bits as the same program run
// instruction by instruction (made a non-chain by a trailing instruction
// that reads an earlier value again and is not the result; a NaN is a NaN,
// its payload unspecified as in the reference), and within the
// transcendentals' ULP bounds of the reference.
KILN_TEST_ALL_TARGETS(CpuElementwise, TranscendentalChainsMatchTheInstructionForm) {
  std::mt19937 rng(37);
  using O = ScalarOp;
  std::vector<ScalarProgram> programs;
  {  // exp(x - p1) / p2: softmax's tail
    ScalarProgram prog;
    prog.param_types = {F32, F32, F32};
    prog.instrs = {Instr(O::kSubtract, F32, {0, 1}), Instr(O::kExponential, F32, {3}),
                   Instr(O::kDivide, F32, {4, 2})};
    prog.results = {5};
    programs.push_back(prog);
  }
  {  // rsqrt(|logistic(tanh(log(sqrt(|x|) + p1) * p2))|): every unary step kind
    ScalarProgram prog;
    prog.param_types = {F32, F32, F32};
    prog.instrs = {Instr(O::kAbs, F32, {0}),      Instr(O::kSqrt, F32, {3}),        Instr(O::kAdd, F32, {4, 1}),
                   Instr(O::kLog, F32, {5}),      Instr(O::kMultiply, F32, {6, 2}), Instr(O::kTanh, F32, {7}),
                   Instr(O::kLogistic, F32, {8}), Instr(O::kAbs, F32, {9}),         Instr(O::kRsqrt, F32, {10})};
    prog.results = {11};
    programs.push_back(prog);
  }
  auto run = [](const ScalarProgram& prog, std::vector<Tensor>& ins, int64_t n) {
    KernelParams params = Params(prog);
    KernelFn fast = FindCpuKernel(params);
    EXPECT_NE(fast, nullptr);
    Tensor out = F({n}, std::vector<float>(static_cast<size_t>(n), 777.0f));
    std::vector<TensorRef> in_refs;
    for (auto& t : ins) in_refs.push_back(t.ref());
    TensorRef out_ref = out.ref();
    if (fast) {
      EXPECT_TRUE(fast(KernelCall{params, in_refs, std::span<const TensorRef>(&out_ref, 1)}).ok());
    }
    return out;
  };
  for (size_t k = 0; k < programs.size(); ++k) {
    SCOPED_TRACE("program " + std::to_string(k));
    ScalarProgram broken = programs[k];
    const uint16_t first = static_cast<uint16_t>(broken.param_types.size());
    broken.instrs.push_back(Instr(O::kAdd, F32, {first, first}));
    for (int64_t n : kSizes) {
      SCOPED_TRACE(n);
      std::vector<Tensor> ins;
      for (size_t q = 0; q < programs[k].param_types.size(); ++q) ins.push_back(F({n}, Values(n, rng)));
      const std::vector<float> chain = Get<float>(run(programs[k], ins, n));
      const std::vector<float> steps = Get<float>(run(broken, ins, n));
      int64_t differ = 0;
      for (size_t i = 0; i < chain.size(); ++i)
        differ += std::isnan(chain[i]) ? !std::isnan(steps[i]) : std::memcmp(&chain[i], &steps[i], 4) != 0;
      EXPECT_EQ(differ, 0);
      EXPECT_LE(Compare(Params(programs[k]), ins, {n}), 8);
    }
  }
}

// maximum/minimum/clamp of a chain against splat bounds (a relu, a relu6, as
// epilogues have them) take one compare and blend where that is exact
// (elementwise.cc, SplatMaxMinExact): every bound sign and zero, NaN and
// infinite bounds, both operand orders, bounds as constants and as rank-0
// inputs, over values with zeros of both signs, NaN and infinities. Exact.
KILN_TEST_ALL_TARGETS(CpuElementwise, SplatBoundsOfChainsMatchTheReferenceExactly) {
  std::mt19937 rng(59);
  using O = ScalarOp;
  // Compare's ULP distance takes -0 for +0; these must be the same bits
  // (NaN: any NaN).
  auto Compare = [](const KernelParams& p, std::vector<Tensor> ins, std::vector<int64_t> dims) {
    Tensor got = F(dims, std::vector<float>(Count(dims), 777.0f)), want = got;
    std::vector<TensorRef> in_refs;
    for (auto& t : ins) in_refs.push_back(t.ref());
    TensorRef g[1] = {got.ref()}, w[1] = {want.ref()};
    EXPECT_TRUE(FindCpuKernel(p)(KernelCall{p, in_refs, g}).ok());
    EXPECT_TRUE(ref::FindReferenceKernel(p.kernel)(KernelCall{p, in_refs, w}).ok());
    int64_t differ = 0;
    const auto gv = Get<float>(got), wv = Get<float>(want);
    for (size_t i = 0; i < gv.size(); ++i) {
      uint32_t a, b;
      std::memcpy(&a, &gv[i], 4);
      std::memcpy(&b, &wv[i], 4);
      if (std::isnan(wv[i]) ? !std::isnan(gv[i]) : a != b) ++differ;
    }
    return differ;
  };
  const float bounds[] = {0.0f, -0.0f, 6.0f, -6.0f, kNaN, kInf, -kInf, 1e-40f};
  for (float lo : bounds)
    for (float hi : bounds) {
      SCOPED_TRACE(std::to_string(lo) + " " + std::to_string(hi));
      std::vector<ScalarProgram> programs;
      {  // clamp(lo, x * y, hi), constant bounds
        ScalarProgram prog;
        prog.param_types = {F32, F32};
        prog.instrs = {Constant(lo), Constant(hi), Instr(O::kMultiply, F32, {0, 1}), Instr(O::kClamp, F32, {2, 4, 3})};
        prog.results = {5};
        programs.push_back(prog);
      }
      {  // min(hi, max(x + y, lo)): the running value on either side
        ScalarProgram prog;
        prog.param_types = {F32, F32};
        prog.instrs = {Constant(lo), Constant(hi), Instr(O::kAdd, F32, {0, 1}), Instr(O::kMaximum, F32, {4, 2}),
                       Instr(O::kMinimum, F32, {3, 5})};
        prog.results = {6};
        programs.push_back(prog);
      }
      for (const ScalarProgram& prog : programs) {
        const int64_t n = 1000;
        EXPECT_EQ(Compare(Params(prog), {F({n}, Values(n, rng)), F({n}, Values(n, rng))}, {n}), 0);
      }
      // max(lo, x) then clamp(lo, ., hi) with the bounds as rank-0 inputs.
      ScalarProgram prog;
      prog.param_types = {F32, F32, F32};
      prog.instrs = {Instr(O::kMaximum, F32, {1, 0}), Instr(O::kClamp, F32, {1, 3, 2})};
      prog.results = {4};
      const int64_t n = 777;
      EXPECT_EQ(Compare(Params(prog), {F({n}, Values(n, rng)), F({}, {lo}), F({}, {hi})}, {n}), 0);
    }
}

// A fused chain: r0 = tanh(a * b + c) / 2 * max(a, 0.5); r1 = logistic(a)
// with c a rank-0 input broadcast to every element. (Products, not sums, after
// the inexact op, so that its few-ULP error is not magnified by cancellation.)
KILN_TEST_ALL_TARGETS(CpuElementwise, FusedChainWithBroadcastAndTwoOutputs) {
  std::mt19937 rng(4);
  ScalarProgram prog;
  prog.param_types = {F32, F32, F32};
  prog.instrs = {Instr(ScalarOp::kMultiply, F32, {0, 1}),  // 3
                 Instr(ScalarOp::kAdd, F32, {3, 2}),       // 4
                 Instr(ScalarOp::kTanh, F32, {4}),         // 5
                 Constant(2.0f),                           // 6
                 Instr(ScalarOp::kDivide, F32, {5, 6}),    // 7
                 Constant(0.5f),                           // 8
                 Instr(ScalarOp::kMaximum, F32, {0, 8}),   // 9
                 Instr(ScalarOp::kMultiply, F32, {7, 9}),  // 10
                 Instr(ScalarOp::kLogistic, F32, {0})};    // 11
  prog.results = {10, 11};
  for (int64_t n : kSizes) {
    SCOPED_TRACE(n);
    EXPECT_LE(Compare(Params(prog), {F({n}, Values(n, rng)), F({n}, Values(n, rng)), F({}, {0.25f})}, {n}, 2), 8);
  }
  // Multi-dimensional shapes.
  EXPECT_LE(Compare(Params(prog), {F({3, 17, 5}, Values(255, rng)), F({3, 17, 5}, Values(255, rng)), F({}, {-1.0f})},
                    {3, 17, 5}, 2),
            8);
}

KILN_TEST_ALL_TARGETS(CpuElementwise, SelectAndCompare) {
  std::mt19937 rng(5);
  // select(pred_input, a, b) with an i1 input, and select(a < b, b, a).
  ScalarProgram prog;
  prog.param_types = {I1, F32, F32};
  prog.instrs = {Instr(ScalarOp::kSelect, F32, {0, 1, 2}),
                 Instr(ScalarOp::kCompare, I1, {1, 2}, static_cast<int64_t>(ComparisonDirection::kLT)),
                 Instr(ScalarOp::kSelect, F32, {4, 2, 1})};
  prog.results = {3, 5};
  for (int64_t n : kSizes) {
    SCOPED_TRACE(n);
    std::vector<uint8_t> pred(n);
    for (auto& v : pred) v = rng() & 1;
    EXPECT_EQ(Compare(Params(prog), {B({n}, pred), F({n}, Values(n, rng)), F({n}, Values(n, rng))}, {n}, 2), 0);
    // A rank-0 predicate.
    EXPECT_EQ(Compare(Params(prog), {B({}, {1}), F({n}, Values(n, rng)), F({n}, Values(n, rng))}, {n}, 2), 0);
  }
  // Every comparison direction, NaN operands included (NE is true for NaN).
  for (int64_t dir = 0; dir <= 5; ++dir) {
    ScalarProgram c;
    c.param_types = {F32, F32};
    c.instrs = {Instr(ScalarOp::kCompare, I1, {0, 1}, dir), Constant(1.0f), Constant(-1.0f),
                Instr(ScalarOp::kSelect, F32, {2, 3, 4})};
    c.results = {5};
    auto a = Values(130, rng), b = Values(130, rng);
    for (int i = 0; i < 130; i += 5) b[i] = a[i];
    EXPECT_EQ(Compare(Params(c), {F({130}, a), F({130}, b)}, {130}), 0) << dir;
  }
}

// Chains over whole rows with a per-row value (elementwise.cc, ChainRows: a
// row block's tail, a norm's affine step): params read in place along the row (full-size, a
// per-column vector, a row of a lower-rank operand broadcast over outer
// axes), one value per row (splatted per row, max/min/clamp against it in
// the short form only where that row's value allows: NaN and zeros of
// either sign among the per-row values), rank-0 params and constants; rows
// of whole vectors and not (those take the block path), rank 2 and 3.
// Bit-identical to the reference, single-threaded and on the pool.
KILN_TEST_ALL_TARGETS(CpuElementwise, ChainsOverRowsMatchTheReferenceExactly) {
  std::mt19937 rng(43);
  using O = ScalarOp;
  struct Shape {
    std::vector<int64_t> out;
  };
  for (const Shape& sh : {Shape{{3, 64}}, Shape{{5, 4096}}, Shape{{7, 80}}, Shape{{4, 100}}, Shape{{2, 3, 128}},
                          Shape{{9, 1024}}}) {
    const std::vector<int64_t>& dims = sh.out;
    const int64_t rank = static_cast<int64_t>(dims.size());
    const int64_t cols = dims.back();
    std::vector<int64_t> row_dims(dims.begin(), dims.end() - 1);
    const int64_t rows = Count(row_dims), n = rows * cols;
    SCOPED_TRACE(std::to_string(rows) + " rows of " + std::to_string(cols));
    // Maps: full-size, per-row ([outer...] -> axes 0..rank-2), per-column.
    std::vector<int64_t> full_map = {rank}, row_map = {rank - 1}, col_map = {1, rank - 1};
    for (int64_t a = 0; a < rank; ++a) full_map.push_back(a);
    for (int64_t a = 0; a + 1 < rank; ++a) row_map.push_back(a);
    auto row_values = [&] {
      std::vector<float> v = Values(rows, rng);
      if (rows > 3) v[1] = -0.0f, v[2] = 0.0f, v[3] = kNaN;
      return v;
    };
    {  // (x - m) * rs * g + b: a layer norm's tail
      ScalarProgram prog;
      prog.param_types = {F32, F32, F32, F32, F32};
      prog.instrs = {Instr(O::kSubtract, F32, {0, 1}), Instr(O::kMultiply, F32, {5, 2}),
                     Instr(O::kMultiply, F32, {6, 3}), Instr(O::kAdd, F32, {7, 4})};
      prog.results = {8};
      KernelParams params = ParamsWithBroadcast(prog, {&full_map, &row_map, &row_map, &col_map, &col_map});
      EXPECT_EQ(Compare(params,
                        {F(dims, Values(n, rng)), F(row_dims, row_values()), F(row_dims, row_values()),
                         F({cols}, Values(cols, rng)), F({cols}, Values(cols, rng))},
                        dims),
                0);
    }
    {  // clamp(m, min(max(x, m) * 2, c), hi) - lo: per-row bounds, a rank-0 bound, constants
      ScalarProgram prog;
      prog.param_types = {F32, F32, F32, F32};  // x, m (per row), hi (rank 0), lo (per row)
      prog.instrs = {Instr(O::kMaximum, F32, {0, 1}), Constant(2.0f), Instr(O::kMultiply, F32, {4, 5}),
                     Constant(0.0f), Instr(O::kMinimum, F32, {6, 7}), Instr(O::kClamp, F32, {1, 8, 2}),
                     Instr(O::kSubtract, F32, {9, 3})};
      prog.results = {10};
      const std::vector<int64_t> scalar_map = {0};
      KernelParams params = ParamsWithBroadcast(prog, {&full_map, &row_map, &scalar_map, &row_map});
      for (float hi : {6.0f, -0.0f, kNaN}) {
        EXPECT_EQ(Compare(params, {F(dims, Values(n, rng)), F(row_dims, row_values()), F({}, {hi}),
                                   F(row_dims, row_values())},
                          dims),
                  0)
            << hi;
      }
    }
    if (rank == 3) {  // (x + w) * m: w of [dims[1], cols] broadcast over axis 0 (a row run at an offset)
      ScalarProgram prog;
      prog.param_types = {F32, F32, F32};
      prog.instrs = {Instr(O::kAdd, F32, {0, 1}), Instr(O::kMultiply, F32, {3, 2})};
      prog.results = {4};
      const std::vector<int64_t> plane_map = {2, 1, 2};
      KernelParams params = ParamsWithBroadcast(prog, {&full_map, &plane_map, &row_map});
      EXPECT_EQ(Compare(params,
                        {F(dims, Values(n, rng)), F({dims[1], cols}, Values(dims[1] * cols, rng)),
                         F(row_dims, row_values())},
                        dims),
                0);
    }
  }
}

// Chains over rows of several trailing axes (ChainRows takes as many as
// every param allows): a per-channel batch norm and relu6 over NCHW planes
// of 8 x 8 and 4 x 16 (a row of one axis is too short to run there, the
// collapsed plane is not), a per-channel value beside an operand along the
// plane broadcast over batch and channels (a run over the collapsed axes),
// per-channel values with NaN and zeros of either sign; planes of 4 x 4,
// too short even collapsed, and a row axis where one param breaks the
// collapse. Bit-identical to the reference, single-threaded and on the pool.
KILN_TEST_ALL_TARGETS(CpuElementwise, ChainsOverCollapsedTrailingAxesMatchTheReference) {
  std::mt19937 rng(47);
  using O = ScalarOp;
  for (const std::vector<int64_t>& dims :
       std::vector<std::vector<int64_t>>{{2, 6, 8, 8}, {3, 5, 4, 16}, {2, 3, 4, 4}, {1, 7, 16, 16}}) {
    const int64_t n = Count(dims), channels = dims[1];
    SCOPED_TRACE(std::to_string(dims[2]) + " x " + std::to_string(dims[3]) + " planes");
    const std::vector<int64_t> full_map = {4, 0, 1, 2, 3}, channel_map = {1, 1}, plane_map = {2, 2, 3},
                               row_map = {3, 0, 1, 2};
    auto channel_values = [&] {
      std::vector<float> v = Values(channels, rng);
      v[0] = -0.0f, v[1] = 0.0f, v[channels - 1] = kNaN;
      return v;
    };
    {  // clamp(0, (x - m) * s + b, 6), m, s, b per channel
      ScalarProgram prog;
      prog.param_types = {F32, F32, F32, F32};
      prog.instrs = {Constant(0.0f), Constant(6.0f), Instr(O::kSubtract, F32, {0, 1}),
                     Instr(O::kMultiply, F32, {6, 2}), Instr(O::kAdd, F32, {7, 3}), Instr(O::kClamp, F32, {4, 8, 5})};
      prog.results = {9};
      EXPECT_EQ(Compare(ParamsWithBroadcast(prog, {&full_map, &channel_map, &channel_map, &channel_map}),
                        {F(dims, Values(n, rng)), F({channels}, channel_values()), F({channels}, channel_values()),
                         F({channels}, Values(channels, rng))},
                        dims),
                0);
    }
    {  // max(x * p, c): p along the plane (a run over both trailing axes), c per channel
      ScalarProgram prog;
      prog.param_types = {F32, F32, F32};
      prog.instrs = {Instr(O::kMultiply, F32, {0, 1}), Instr(O::kMaximum, F32, {3, 2})};
      prog.results = {4};
      EXPECT_EQ(Compare(ParamsWithBroadcast(prog, {&full_map, &plane_map, &channel_map}),
                        {F(dims, Values(n, rng)), F({dims[2], dims[3]}, Values(dims[2] * dims[3], rng)),
                         F({channels}, channel_values())},
                        dims),
                0);
    }
    {  // (x - m) * r: m per channel, r per row of the plane (rows of one axis only)
      ScalarProgram prog;
      prog.param_types = {F32, F32, F32};
      prog.instrs = {Instr(O::kSubtract, F32, {0, 1}), Instr(O::kMultiply, F32, {3, 2})};
      prog.results = {4};
      const int64_t rows = n / dims[3];
      EXPECT_EQ(Compare(ParamsWithBroadcast(prog, {&full_map, &channel_map, &row_map}),
                        {F(dims, Values(n, rng)), F({channels}, channel_values()),
                         F({dims[0], dims[1], dims[2]}, Values(rows, rng))},
                        dims),
                0);
    }
  }
}

// Chains over whole rows with per-column operands (elementwise_chain-inl.h,
// ChainColumns: a batch norm and its clamp over a channel-last result, a
// bias and activation): a column of vectors down eight rows at a time, the
// rows left over one at a time, groups of rows that span several calls'
// worth of columns; per-column values as the other operand on either side,
// as clamp/max/min bounds with NaN and zeros of either sign among them
// (the exact form), beside rank-0 bounds and constants (the short form),
// two full-size params, unary steps; and shapes the form does not
// take (fewer than eight rows, rows of part vectors). Bit-identical to the
// reference, single-threaded and on the pool.
KILN_TEST_ALL_TARGETS(CpuElementwise, ChainsOverColumnsMatchTheReferenceExactly) {
  std::mt19937 rng(44);
  using O = ScalarOp;
  for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{
           {8, 64}, {9, 192}, {2, 16, 16, 48}, {37, 1024}, {3, 64}, {20, 100}, {1, 40, 256}}) {
    const int64_t rank = static_cast<int64_t>(dims.size());
    const int64_t cols = dims.back(), n = Count(dims);
    SCOPED_TRACE(std::to_string(n / cols) + " rows of " + std::to_string(cols));
    std::vector<int64_t> full_map = {rank}, col_map = {1, rank - 1};
    for (int64_t a = 0; a < rank; ++a) full_map.push_back(a);
    auto col_values = [&] {
      std::vector<float> v = Values(cols, rng);
      v[1] = -0.0f, v[2] = 0.0f, v[3] = kNaN;
      return v;
    };
    {  // clamp(0, (x - m) * s + b, 6): a batch norm and relu6
      ScalarProgram prog;
      prog.param_types = {F32, F32, F32, F32};
      prog.instrs = {Constant(0.0f), Constant(6.0f), Instr(O::kSubtract, F32, {0, 1}),
                     Instr(O::kMultiply, F32, {6, 2}), Instr(O::kAdd, F32, {7, 3}), Instr(O::kClamp, F32, {4, 8, 5})};
      prog.results = {9};
      EXPECT_EQ(Compare(ParamsWithBroadcast(prog, {&full_map, &col_map, &col_map, &col_map}),
                        {F(dims, Values(n, rng)), F({cols}, Values(cols, rng)), F({cols}, Values(cols, rng)),
                         F({cols}, Values(cols, rng))},
                        dims),
                0);
    }
    {  // min(m / max(x * y, lo), hi) with per-column lo, hi, m; a rank-0 clamp after
      ScalarProgram prog;
      prog.param_types = {F32, F32, F32, F32, F32, F32};  // x, y, lo, m, hi (per column), c (rank 0)
      prog.instrs = {Instr(O::kMultiply, F32, {0, 1}), Instr(O::kMaximum, F32, {6, 2}),
                     Instr(O::kDivide, F32, {3, 7}), Instr(O::kMinimum, F32, {4, 8}),
                     Instr(O::kClamp, F32, {4, 9, 5})};
      prog.results = {10};
      std::vector<int64_t> scalar_map = {0};
      for (float c : {3.0f, -0.0f, kNaN}) {
        EXPECT_EQ(Compare(ParamsWithBroadcast(prog, {&full_map, &full_map, &col_map, &col_map, &col_map, &scalar_map}),
                          {F(dims, Values(n, rng)), F(dims, Values(n, rng)), F({cols}, col_values()),
                           F({cols}, col_values()), F({cols}, col_values()), F({}, {c})},
                          dims),
                  0)
            << c;
      }
    }
    {  // sqrt(abs(x + b)) * s (unary steps; exact, unlike the transcendental ones)
      ScalarProgram prog;
      prog.param_types = {F32, F32, F32};
      prog.instrs = {Instr(O::kAdd, F32, {0, 1}), Instr(O::kAbs, F32, {3}), Instr(O::kSqrt, F32, {4}),
                     Instr(O::kMultiply, F32, {5, 2})};
      prog.results = {6};
      EXPECT_EQ(Compare(ParamsWithBroadcast(prog, {&full_map, &col_map, &col_map}),
                        {F(dims, Values(n, rng)), F({cols}, Values(cols, rng)), F({cols}, col_values())}, dims),
                0);
    }
  }
}

KILN_TEST_ALL_TARGETS(CpuElementwise, ResultIsAParamAndZeroElements) {
  std::mt19937 rng(6);
  ScalarProgram prog;
  prog.param_types = {F32, F32};
  prog.instrs = {Instr(ScalarOp::kAdd, F32, {0, 1})};
  prog.results = {1, 2};
  EXPECT_EQ(Compare(Params(prog), {F({65}, Values(65, rng)), F({65}, Values(65, rng))}, {65}, 2), 0);
  EXPECT_EQ(Compare(Params(prog), {F({0, 3}, {}), F({0, 3}, {})}, {0, 3}, 2), 0);
  // Rank-0 output, rank-0 inputs.
  EXPECT_EQ(Compare(Params(prog), {F({}, {1.5f}), F({}, {2.0f})}, {}, 2), 0);
}

// f64 programs of the exact ops: every op of one chain, a broadcast rank-0
// input and a compare/select, on special and random values; bit-identical to
// the reference (NaN as NaN), single-threaded and on the pool.
KILN_TEST_ALL_TARGETS(CpuElementwise, F64ExactOps) {
  constexpr ElementType F64 = ElementType::kF64;
  ScalarProgram prog;
  prog.param_types = {F64, F64, F64};  // a, b, c (rank 0)
  prog.instrs = {Instr(ScalarOp::kAdd, F64, {0, 1}),        // 3
                 Instr(ScalarOp::kSubtract, F64, {3, 2}),   // 4
                 Instr(ScalarOp::kMultiply, F64, {4, 0}),   // 5
                 Instr(ScalarOp::kDivide, F64, {5, 1}),     // 6
                 Instr(ScalarOp::kMaximum, F64, {6, 0}),    // 7
                 Instr(ScalarOp::kMinimum, F64, {7, 1}),    // 8
                 Instr(ScalarOp::kNegate, F64, {8}),        // 9
                 Instr(ScalarOp::kAbs, F64, {9}),           // 10
                 Instr(ScalarOp::kSqrt, F64, {10}),         // 11
                 Instr(ScalarOp::kCompare, I1, {0, 1}, static_cast<int64_t>(ComparisonDirection::kLT)),  // 12
                 Instr(ScalarOp::kSelect, F64, {12, 11, 9})};  // 13
  prog.results = {13, 4};
  KernelParams params = Params(prog);
  KernelFn fast = FindCpuKernel(params);
  ASSERT_NE(fast, nullptr);
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> u(-1e3, 1e3);
  const double specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 4.9e-324, 1.7e308, -1.0};
  for (int64_t n : kSizes) {
    SCOPED_TRACE(n);
    std::vector<double> a(n), b(n);
    for (int64_t i = 0; i < n; ++i) {
      a[i] = i % 9 == 4 ? specials[(i / 9) % 8] : u(rng);
      b[i] = i % 7 == 2 ? specials[(i / 7) % 8] : (i % 5 == 0 ? a[i] : u(rng));
    }
    double c = 0.5;
    std::vector<int64_t> dims = {n};
    std::vector<double> got0(n, 7), got1(n, 7), thr0(n, 9), thr1(n, 9), want0(n), want1(n);
    auto ref_of = [&](std::vector<double>& v, std::vector<int64_t>& d) {
      return TensorRef{F64, d, reinterpret_cast<uint8_t*>(v.data()), v.size() * 8};
    };
    std::vector<int64_t> scalar_dims;
    std::vector<double> cv = {c};
    TensorRef in[3] = {ref_of(a, dims), ref_of(b, dims), ref_of(cv, scalar_dims)};
    TensorRef g[2] = {ref_of(got0, dims), ref_of(got1, dims)};
    TensorRef h[2] = {ref_of(thr0, dims), ref_of(thr1, dims)};
    TensorRef w[2] = {ref_of(want0, dims), ref_of(want1, dims)};
    ASSERT_TRUE(fast(KernelCall{params, in, g}).ok());
    ASSERT_TRUE(fast(KernelCall{params, in, h, TestPool()}).ok());
    ASSERT_TRUE(ref::FindReferenceKernel("kiln.elementwise")(KernelCall{params, in, w}).ok());
    EXPECT_EQ(std::memcmp(got0.data(), thr0.data(), n * 8), 0);
    EXPECT_EQ(std::memcmp(got1.data(), thr1.data(), n * 8), 0);
    int bad = 0;
    for (int64_t i = 0; i < n && bad < 5; ++i)
      for (auto [gv, wv] : {std::pair{got0[i], want0[i]}, std::pair{got1[i], want1[i]}}) {
        const bool same = std::isnan(wv) ? std::isnan(gv) : std::memcmp(&gv, &wv, 8) == 0;
        bad += !same;
        EXPECT_TRUE(same) << "element " << i << ": got " << gv << ", want " << wv;
      }
  }
  // The f32 approximations are not used for f64: an f64 exp is the
  // reference's, bit for bit (the 64-bit lanes evaluate it element by
  // element through the reference's scalar code).
  ScalarProgram e = Unary(ScalarOp::kExponential);
  e.param_types = {F64};
  e.instrs[0].type = F64;
  KernelFn exp_fast = FindCpuKernel(Params(e));
  ASSERT_NE(exp_fast, nullptr);
  {
    std::vector<double> x = {0.5, -3.25, 700.0, -745.5, 1e-300, 88.7, 1.0 / 3.0}, got(x.size()), want(x.size());
    std::vector<int64_t> d = {static_cast<int64_t>(x.size())};
    TensorRef in[1] = {{F64, d, reinterpret_cast<uint8_t*>(x.data()), x.size() * 8}};
    TensorRef g[1] = {{F64, d, reinterpret_cast<uint8_t*>(got.data()), got.size() * 8}};
    TensorRef w[1] = {{F64, d, reinterpret_cast<uint8_t*>(want.data()), want.size() * 8}};
    ASSERT_TRUE(exp_fast(KernelCall{Params(e), in, g}).ok());
    ASSERT_TRUE(ref::FindReferenceKernel("kiln.elementwise")(KernelCall{Params(e), in, w}).ok());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * 8), 0);
  }
}

KILN_TEST_ALL_TARGETS(CpuElementwise, UnsupportedProgramsAreNotClaimed) {
  // 4-bit integer programs: neither the float interpreter's vector forms
  // or escapes (float results only) nor the 32-bit lanes'
  // (elementwise_lanes32.cc: f32, 8- to 32-bit integers and i1 values) nor
  // the 64-bit lanes' (elementwise_lanes64.cc: programs with 64-bit values,
  // f64 programs with i1 results among them).
  ScalarProgram i4 = Binary(ScalarOp::kMultiply);
  i4.param_types = {ElementType::kSI4, ElementType::kSI4};
  i4.instrs[0].type = ElementType::kSI4;
  EXPECT_EQ(FindCpuKernel(Params(i4)), nullptr);
  KernelParams no_body;
  no_body.kernel = "kiln.elementwise";
  EXPECT_EQ(FindCpuKernel(no_body), nullptr);
}

KILN_TEST_ALL_TARGETS(CpuElementwise, BadCallsGetTheReferenceError) {
  KernelParams p = Params(Binary(ScalarOp::kAdd));
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  // An input that is neither output-shaped nor rank 0.
  Tensor a = F({4}, {1, 2, 3, 4}), b = F({2}, {1, 2}), out = F({4}, std::vector<float>(4));
  TensorRef in[2] = {a.ref(), b.ref()};
  TensorRef o[1] = {out.ref()};
  Status s = fast(KernelCall{p, in, o});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("neither output-shaped nor rank 0"), std::string::npos) << s.message();
  // Wrong input count.
  TensorRef one[1] = {a.ref()};
  EXPECT_FALSE(fast(KernelCall{p, one, o}).ok());
}

}  // namespace
}  // namespace kiln::cpu

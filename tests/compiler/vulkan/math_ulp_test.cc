// Kiln's own transcendental functions on the Vulkan device
// (kernels/vulkan/math32.glsl, math64.glsl) against the CPU device, in ulp:
// random bit patterns (every binade, subnormals, NaNs), uniform ranges and
// edge values (+-0, +-inf, NaN, the smallest subnormal, the largest float,
// overflow and underflow thresholds, huge arguments of sin/cos/tan, exact
// cases such as pow(x, 0)). Zero, infinite and NaN results must match
// exactly (the sign of a zero included); everything else within 3 ulp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "tests/hal/vulkan/vulkan_test_fixture.h"

namespace kiln::vulkan_test {
namespace {

template <typename F>
using Bits = std::conditional_t<sizeof(F) == 4, uint32_t, uint64_t>;

// The distance in representable values between a and b (both not NaN).
template <typename F>
uint64_t UlpDistance(F a, F b) {
  using U = Bits<F>;
  using S = std::make_signed_t<U>;
  auto key = [](F v) {
    U u;
    std::memcpy(&u, &v, sizeof(F));
    const U sign = U{1} << (sizeof(F) * 8 - 1);
    // order negatives below positives; -0 and +0 are one step apart
    return (u & sign) ? -static_cast<S>(u & ~sign) - 1 : static_cast<S>(u);
  };
  S ka = key(a), kb = key(b);
  return ka > kb ? static_cast<uint64_t>(ka - kb) : static_cast<uint64_t>(kb - ka);
}

template <typename F>
vm::HostTensor Tensor(const std::vector<F>& v) {
  vm::HostTensor h;
  h.type = sizeof(F) == 4 ? ElementType::kF32 : ElementType::kF64;
  h.dims = {static_cast<int64_t>(v.size())};
  h.data.resize(v.size() * sizeof(F));
  std::memcpy(h.data.data(), v.data(), h.data.size());
  return h;
}

template <typename F>
std::vector<F> Values(const vm::HostTensor& h) {
  std::vector<F> v(h.data.size() / sizeof(F));
  std::memcpy(v.data(), h.data.data(), h.data.size());
  return v;
}

// Edge values, then random bit patterns, then uniform values in [-10, 10]
// and [-1.2, 1.2], `n` of each.
template <typename F>
std::vector<F> Inputs(std::mt19937_64& rng, size_t n) {
  const F inf = std::numeric_limits<F>::infinity();
  const F big = std::numeric_limits<F>::max(), tiny = std::numeric_limits<F>::denorm_min();
  std::vector<F> v = {F(0), F(-0.0), inf, -inf, std::numeric_limits<F>::quiet_NaN(), F(1), F(-1), F(0.5), F(-0.5),
                      F(2), tiny, -tiny, std::numeric_limits<F>::min(), big, -big, F(88.72), F(-88.72), F(89),
                      F(-103.9), F(-104.5), F(709.78), F(-745.1), F(0.625), F(0.3466), F(10), F(3.95), F(4),
                      F(1e-10), F(-1e-10), F(1e10), F(1e20), F(1e30), F(1e38), F(-1e38), F(0.7853981633974483),
                      F(1.5707963267948966), F(3.141592653589793), F(4.71238898038469), F(1e4), F(1e5),
                      F(8388608), F(16777216), F(0.41421356), F(2.41421356), F(0.99999994), F(1.0000001),
                      F(-0.29289321), F(17.5), F(-17.5), F(27), F(-8), F(0.1), F(0.47), F(0.502), F(-0.9)};
  if (sizeof(F) == 8)
    for (double d : {1e100, 1e200, 1e300, 1e-300, 1e15, 1e22, 5e-324, 0.9999999999999999, -708.4})
      v.push_back(static_cast<F>(d));
  using U = Bits<F>;
  for (size_t i = 0; i < n; ++i) {
    U u = static_cast<U>(rng());
    F f;
    std::memcpy(&f, &u, sizeof(F));
    v.push_back(f);
  }
  std::uniform_real_distribution<double> wide(-10, 10), unit(-1.2, 1.2);
  for (size_t i = 0; i < n; ++i) v.push_back(static_cast<F>(wide(rng)));
  for (size_t i = 0; i < n; ++i) v.push_back(static_cast<F>(unit(rng)));
  return v;
}

// Second operands of pow and atan2: special values first, then uniform in
// [-5, 5], [-40, 40] and small integers.
template <typename F>
std::vector<F> SecondInputs(std::mt19937_64& rng, size_t count) {
  const F inf = std::numeric_limits<F>::infinity();
  const F special[] = {F(0), F(-0.0), F(1), F(-1), inf, -inf, std::numeric_limits<F>::quiet_NaN(), F(2), F(3),
                       F(0.5), F(-2), F(1e30), F(-1e30)};
  std::vector<F> v;
  std::uniform_real_distribution<double> a(-5, 5), b(-40, 40);
  std::uniform_int_distribution<int> c(-10, 10);
  for (size_t i = 0; i < count; ++i) {
    if (i < 60) v.push_back(special[i % 13]);
    else if (i % 3 == 0) v.push_back(static_cast<F>(a(rng)));
    else if (i % 3 == 1) v.push_back(static_cast<F>(b(rng)));
    else v.push_back(static_cast<F>(c(rng)));
  }
  return v;
}

struct MathOp {
  const char* name;  // stablehlo.X, or chlo.X in the generic form
  int arity;
};

template <typename F>
void ExpectWithin3Ulp(hal::Device* cpu, hal::Device* vulkan, const std::vector<MathOp>& ops,
                      const std::vector<F>& x, const std::vector<F>& y, const char* type) {
  const std::string ty = "tensor<" + std::to_string(x.size()) + "x" + type + ">";
  std::string src;
  for (const MathOp& op : ops) {
    std::string name = op.name;
    std::string fn = name.substr(name.find('.') + 1);
    src += "func.func @" + fn + "(%x: " + ty + ", %y: " + ty + ") -> " + ty + " {\n";
    if (name.rfind("chlo.", 0) == 0)
      src += "  %r = \"" + name + "\"(%x) : (" + ty + ") -> " + ty + "\n";
    else if (op.arity == 2)
      src += "  %r = " + name + " %x, %y : " + ty + "\n";
    else
      src += "  %r = " + name + " %x : " + ty + "\n";
    src += "  return %r : " + ty + "\n}\n";
  }
  auto bytes = CompileAll(src, "vulkan");  // a single target: nothing may be refused
  ASSERT_FALSE(bytes.empty());
  for (const MathOp& op : ops) {
    std::string name = op.name;
    std::string fn = name.substr(name.find('.') + 1);
    auto want = RunOn(cpu, bytes, fn, {Tensor(x), Tensor(y)});
    auto got = RunOn(vulkan, bytes, fn, {Tensor(x), Tensor(y)});
    ASSERT_TRUE(want.ok()) << fn << ": " << want.status().message();
    ASSERT_TRUE(got.ok()) << fn << ": " << got.status().message();
    std::vector<F> w = Values<F>((*want)[0]), g = Values<F>((*got)[0]);
    ASSERT_EQ(w.size(), g.size());
    uint64_t worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < w.size(); ++i) {
      bool exact = std::isnan(w[i]) || std::isinf(w[i]) || w[i] == 0;
      if (std::isnan(w[i])) {
        EXPECT_TRUE(std::isnan(g[i])) << type << " " << fn << "(" << x[i] << ", " << y[i] << "): " << g[i]
                                      << ", the CPU device gives NaN";
        continue;
      }
      uint64_t d = std::isnan(g[i]) ? UINT64_MAX : UlpDistance(w[i], g[i]);
      if (exact) {
        EXPECT_EQ(d, 0u) << type << " " << fn << "(" << x[i] << ", " << y[i] << "): " << g[i] << ", the CPU device gives "
                         << w[i];
      }
      if (d > worst) worst = d, at = i;
    }
    EXPECT_LE(worst, 3u) << type << " " << fn << "(" << x[at] << ", " << y[at] << "): " << g[at]
                         << ", the CPU device gives " << w[at];
    if (fn == "sqrt") {
      EXPECT_EQ(worst, 0u) << "sqrt must be correctly rounded";
    }
    ::testing::Test::RecordProperty(std::string(type) + "_" + fn + "_max_ulp", static_cast<int>(worst));
  }
}

TEST_F(VulkanTest, F32TranscendentalsWithin3UlpOfCpu) {
  std::mt19937_64 rng(20261126);
  std::vector<float> x = Inputs<float>(rng, 3000);
  std::vector<float> y = SecondInputs<float>(rng, x.size());
  std::vector<MathOp> ops = {
      {"stablehlo.exponential", 1}, {"stablehlo.exponential_minus_one", 1}, {"stablehlo.log", 1},
      {"stablehlo.log_plus_one", 1}, {"stablehlo.tanh", 1}, {"stablehlo.logistic", 1}, {"stablehlo.sine", 1},
      {"stablehlo.cosine", 1}, {"stablehlo.tan", 1}, {"stablehlo.sqrt", 1}, {"stablehlo.rsqrt", 1},
      {"stablehlo.cbrt", 1}, {"stablehlo.power", 2}, {"stablehlo.atan2", 2}, {"chlo.acos", 1}, {"chlo.asin", 1},
      {"chlo.atan", 1}, {"chlo.sinh", 1}, {"chlo.cosh", 1}, {"chlo.asinh", 1}, {"chlo.acosh", 1},
      {"chlo.atanh", 1}, {"chlo.erf", 1}, {"chlo.erfc", 1}, {"chlo.erf_inv", 1}};
  ExpectWithin3Ulp<float>(cpu_.get(), vulkan_.get(), ops, x, y, "f32");
}

// pow(x, y) near 1 and near the overflow threshold, where log x must be
// carried in more than f32 precision.
TEST_F(VulkanTest, F32PowWithin3UlpOfCpuWhereLogXNeedsExtraPrecision) {
  std::mt19937_64 rng(7);
  std::vector<float> x, y;
  std::uniform_real_distribution<double> near1(0.999, 1.001), big(1, 1e30), e(-1, 1);
  for (int i = 0; i < 3000; ++i) {
    float a = static_cast<float>(near1(rng));
    x.push_back(a);
    y.push_back(static_cast<float>(e(rng) * 80 / std::abs(std::log(static_cast<double>(a)) + 1e-30)));
    float b = static_cast<float>(big(rng));
    x.push_back(b);
    y.push_back(static_cast<float>(e(rng) * 88 / std::log(static_cast<double>(b) + 1e-30)));
  }
  ExpectWithin3Ulp<float>(cpu_.get(), vulkan_.get(), {{"stablehlo.power", 2}}, x, y, "f32");
}

TEST_F(VulkanTest, F64TranscendentalsWithin3UlpOfCpu) {
  std::mt19937_64 rng(20261127);
  std::vector<double> x = Inputs<double>(rng, 3000);
  std::vector<double> y = SecondInputs<double>(rng, x.size());
  std::vector<MathOp> ops = {
      {"stablehlo.exponential", 1}, {"stablehlo.exponential_minus_one", 1}, {"stablehlo.log", 1},
      {"stablehlo.log_plus_one", 1}, {"stablehlo.tanh", 1}, {"stablehlo.logistic", 1}, {"stablehlo.sqrt", 1},
      {"stablehlo.rsqrt", 1}, {"stablehlo.cbrt", 1}, {"stablehlo.power", 2}, {"stablehlo.atan2", 2},
      {"chlo.acos", 1}, {"chlo.asin", 1}, {"chlo.atan", 1}, {"chlo.sinh", 1}, {"chlo.cosh", 1},
      {"chlo.asinh", 1}, {"chlo.acosh", 1}, {"chlo.atanh", 1}, {"chlo.erf", 1}, {"chlo.erfc", 1},
      {"chlo.erf_inv", 1}};
  ExpectWithin3Ulp<double>(cpu_.get(), vulkan_.get(), ops, x, y, "f64");
}

// f64 erf, erfc and erf_inv over their ranges (kernels/scalar/
// error_function.cc and math64.glsl share the algorithm: the Taylor series
// in double-double up to 3.5, the continued fraction beyond): both sides
// of the switch at 3.5 and of 6 (where erf rounds to 1), erfc's tail out
// to its underflow near 27.2, tiny arguments, and erf_inv near 0 and +-1.
TEST_F(VulkanTest, F64ErrorFunctionsWithin3UlpOfCpuOverTheirRanges) {
  std::mt19937_64 rng(20261202);
  std::vector<double> x = {3.5, -3.5, 6.0, -6.0, 27.3, 27.2, 26.5, 1e-300, -1e-300, 5e-324, 0.9999999999999999,
                           -0.9999999999999999, 1 - 1e-10, 0.5, 1e-8};
  for (double c : {3.5, -3.5, 6.0, -6.0}) {
    double lo = c, hi = c;
    for (int i = 0; i < 8; ++i) lo = std::nextafter(lo, -INFINITY), hi = std::nextafter(hi, INFINITY), x.push_back(lo), x.push_back(hi);
  }
  std::uniform_real_distribution<double> mid(-6.5, 6.5), tail(3.4, 27.5), small(-0.01, 0.01), unit(-1, 1);
  for (int i = 0; i < 1500; ++i) {
    x.push_back(mid(rng));
    x.push_back(tail(rng));
    x.push_back(small(rng));
    x.push_back(unit(rng));
    x.push_back(std::copysign(1 - std::ldexp(1.0, -static_cast<int>(rng() % 52) - 1), unit(rng)));  // near +-1
  }
  ExpectWithin3Ulp<double>(cpu_.get(), vulkan_.get(), {{"chlo.erf", 1}, {"chlo.erfc", 1}, {"chlo.erf_inv", 1}}, x, x,
                           "f64");
}

// f64 sin, cos and tan (kernels/vulkan/math64.glsl): near the multiples of
// pi/2 and pi/4 (a few ulp either side: the reduction's cancellation, which
// a reassociated reduction once got wrong by 1e-11 relative), uniform over
// [-10, 10] and [-1e5, 1e5] (Cody-Waite), both sides of 2^20 where the
// Payne-Hanek reduction takes over, log-uniform up to the largest double,
// and doubles near a multiple of pi/2 (5261692873635770 2^499 and others
// of its kind; 6381956970095103 2^797, the nearest of all, is checked
// against its exact values below); tan there too (near the odd multiples of
// pi/2 it is -cos r / sin r of a tiny r).
TEST_F(VulkanTest, F64SinCosTanWithin3UlpOfCpu) {
  std::mt19937_64 rng(5);
  std::vector<double> x;
  for (int k = -64; k <= 64; ++k) {
    double c = k * 0.7853981633974483;
    for (int i = 0; i < 4; ++i) c = std::nextafter(c, -INFINITY);
    for (int i = 0; i < 9; ++i, c = std::nextafter(c, INFINITY)) x.push_back(c);
  }
  std::uniform_real_distribution<double> small(-10, 10), big(-1e5, 1e5), exponent(5, 308), sign(-1, 1);
  for (int i = 0; i < 2000; ++i) x.push_back(small(rng)), x.push_back(big(rng));
  for (int i = 0; i < 2000; ++i) x.push_back(std::copysign(std::pow(10.0, exponent(rng)), sign(rng)));
  for (double c : {1048576.0, 1048576.0 * 1.5707963267948966, 67108864.0, 1e8}) {
    for (int i = 0; i < 4; ++i) c = std::nextafter(c, -INFINITY);
    for (int i = 0; i < 9; ++i, c = std::nextafter(c, INFINITY)) x.push_back(c), x.push_back(-c);
  }
  for (double c : {std::ldexp(5261692873635770.0, 499), std::ldexp(8919302781369317.0, 222),
                   std::ldexp(6411027962775774.0, -48)})
    x.push_back(c), x.push_back(-c);
  x.push_back(std::numeric_limits<double>::max());
  ExpectWithin3Ulp<double>(cpu_.get(), vulkan_.get(),
                           {{"stablehlo.sine", 1}, {"stablehlo.cosine", 1}, {"stablehlo.tan", 1}}, x, x, "f64");
}

// x = 6381956970095103 2^797 is the double nearest a multiple of pi/2
// (k pi/2 + r with k = 1 mod 4 and r = 4.6871659242546276e-19: 61 bits of
// x 2/pi cancel). cos x = -sin r and tan x = -cot r, rounded, computed
// offline from 1,800 bits of pi: the Vulkan device within 1 ulp of those.
// (glibc's cos, which the CPU device calls, gives 8 ulp off here.)
TEST_F(VulkanTest, F64CosAndTanOfTheHardestArgumentAreExact) {
  auto bytes = CompileAll(R"(
func.func @cos(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = stablehlo.cosine %x : tensor<2xf64>
  return %0 : tensor<2xf64>
}
func.func @tan(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = stablehlo.tan %x : tensor<2xf64>
  return %0 : tensor<2xf64>
}
)");
  ASSERT_FALSE(bytes.empty());
  const double x = std::ldexp(6381956970095103.0, 797);
  auto bits = [](uint64_t u) {
    double d;
    std::memcpy(&d, &u, sizeof d);
    return d;
  };
  const double want_cos = bits(0xbc214ae72e6ba22full), want_tan = bits(0xc3bd9ba9a7975636ull);
  const vm::HostTensor in = HostTensorOf(ElementType::kF64, {2}, std::vector<double>{x, -x});
  for (const auto& [fn, want, odd] : {std::tuple{"cos", want_cos, false}, std::tuple{"tan", want_tan, true}}) {
    auto got = RunOn(vulkan_.get(), bytes, fn, {in});
    ASSERT_TRUE(got.ok()) << got.status().message();
    double v[2];
    std::memcpy(v, (*got)[0].data.data(), sizeof v);
    EXPECT_LE(UlpDistance(v[0], want), 1u) << fn << ": " << v[0] << " against " << want;
    EXPECT_LE(UlpDistance(v[1], odd ? -want : want), 1u) << fn << "(-x): " << v[1];
  }
}

// The special functions (kernels/vulkan/special64.glsl: lgamma, digamma,
// bessel_i1e, polygamma, zeta) compute in f64 on the device, as the
// reference does on the CPU, with other f64 building blocks (Lanczos for
// lgamma where the reference calls C's lgamma; Kiln's own log, pow, tan):
// f32 results within 3 ulp of the CPU's, or, next to a zero of the function
// (where an f64 absolute error of ~1e-15 is many f32 ulps of a tiny result),
// within 1e-12 absolute; f64 results within 1e-13 relative (1e-14 absolute
// near zeros). NaN, infinite and zero results match exactly.
template <typename F>
void ExpectSpecialFunctionsMatch(hal::Device* cpu, hal::Device* vulkan, const char* type) {
  std::mt19937_64 rng(20261202);
  const size_t n = 4000;
  const F inf = std::numeric_limits<F>::infinity(), nan = std::numeric_limits<F>::quiet_NaN();
  // Unary arguments: specials, poles, the zeros of lgamma (1, 2) and of
  // digamma (1.4616...), then uniform over [-20, 40], [0, 3] and [-600, 600].
  std::vector<F> x = {F(0), F(-0.0), inf, -inf, nan, F(1), F(2), F(-1), F(-2), F(0.5), F(-0.5), F(1.4616321),
                      F(1e-30), F(-1e-30), F(1e30), F(3e38), F(-3.5), F(170.6), F(171.7), F(500), F(501), F(-501)};
  for (F c : {F(1), F(2), F(1.4616321449683622)}) {
    F lo = c, hi = c;
    for (int i = 0; i < 20; ++i) lo = std::nextafter(lo, F(0)), hi = std::nextafter(hi, inf), x.push_back(lo), x.push_back(hi);
  }
  std::uniform_real_distribution<double> wide(-20, 40), unit(0, 3), bessel(-600, 600);
  while (x.size() < n) {
    x.push_back(static_cast<F>(wide(rng)));
    x.push_back(static_cast<F>(unit(rng)));
    x.push_back(static_cast<F>(bessel(rng)));
  }
  x.resize(n);
  // Binary: zeta(s, q) with s in [1, 12] (integers among them) and q in
  // [-6, 10] (negative q, integer and not, included); polygamma(k, x) with
  // k in 0..6 (and -1, 1.5: NaN) and x as zeta's q.
  std::vector<F> s(n), q(n), k(n);
  std::uniform_real_distribution<double> sd(1, 12), qd(-6, 10);
  std::uniform_int_distribution<int> kd(-1, 6);
  for (size_t i = 0; i < n; ++i) {
    s[i] = static_cast<F>(i % 4 == 0 ? std::round(sd(rng)) : sd(rng));
    q[i] = static_cast<F>(i % 7 == 0 ? std::round(qd(rng)) : qd(rng));
    k[i] = static_cast<F>(i % 50 == 0 ? 1.5 : kd(rng));
  }
  const std::string ty = "tensor<" + std::to_string(n) + "x" + type + ">";
  std::string src;
  for (const char* fn : {"lgamma", "digamma", "bessel_i1e"})
    src += "func.func @" + std::string(fn) + "(%x: " + ty + ", %y: " + ty + ") -> " + ty + " {\n  %r = \"chlo." + fn +
           "\"(%x) : (" + ty + ") -> " + ty + "\n  return %r : " + ty + "\n}\n";
  for (const char* fn : {"zeta", "polygamma"})
    src += "func.func @" + std::string(fn) + "(%x: " + ty + ", %y: " + ty + ") -> " + ty + " {\n  %r = \"chlo." + fn +
           "\"(%x, %y) : (" + ty + ", " + ty + ") -> " + ty + "\n  return %r : " + ty + "\n}\n";
  auto bytes = CompileAll(src, "vulkan");  // a single target: nothing may be refused
  ASSERT_FALSE(bytes.empty());
  struct Case {
    const char* fn;
    const std::vector<F>* a;
    const std::vector<F>* b;
  };
  for (Case c : {Case{"lgamma", &x, &x}, Case{"digamma", &x, &x}, Case{"bessel_i1e", &x, &x}, Case{"zeta", &s, &q},
                 Case{"polygamma", &k, &q}}) {
    auto want = RunOn(cpu, bytes, c.fn, {Tensor(*c.a), Tensor(*c.b)});
    auto got = RunOn(vulkan, bytes, c.fn, {Tensor(*c.a), Tensor(*c.b)});
    ASSERT_TRUE(want.ok()) << c.fn << ": " << want.status().message();
    ASSERT_TRUE(got.ok()) << c.fn << ": " << got.status().message();
    std::vector<F> w = Values<F>((*want)[0]), g = Values<F>((*got)[0]);
    ASSERT_EQ(w.size(), g.size());
    int bad = 0;
    for (size_t i = 0; i < w.size() && bad < 10; ++i) {
      const auto where = [&] {
        char text[160];
        std::snprintf(text, sizeof text, "%s %s(%.17g, %.17g): %.17g, the CPU device gives %.17g", type, c.fn,
                      double((*c.a)[i]), double((*c.b)[i]), double(g[i]), double(w[i]));
        return std::string(text);
      };
      bool ok;
      if (std::isnan(w[i])) ok = std::isnan(g[i]);
      else if (std::isinf(w[i]) || w[i] == 0) ok = !std::isnan(g[i]) && UlpDistance(w[i], g[i]) == 0;
      else if (std::isnan(g[i])) ok = false;
      else if (sizeof(F) == 4) ok = UlpDistance(w[i], g[i]) <= 3 || std::abs(double(w[i]) - double(g[i])) <= 1e-12;
      else ok = std::abs(double(w[i]) - double(g[i])) <= std::max(1e-13 * std::abs(double(w[i])), 1e-14);
      if (!ok) ADD_FAILURE() << where(), ++bad;
    }
  }
}

TEST_F(VulkanTest, F32SpecialFunctionsMatchTheCpu) { ExpectSpecialFunctionsMatch<float>(cpu_.get(), vulkan_.get(), "f32"); }
TEST_F(VulkanTest, F64SpecialFunctionsMatchTheCpu) { ExpectSpecialFunctionsMatch<double>(cpu_.get(), vulkan_.get(), "f64"); }

// Complex functions (prelude.glsl, math64.glsl: built on the exact real
// ones; chlo.sinh and chlo.cosh of complex<f32> among them) against the CPU device on random values with parts in [-3, 3] and
// on 0, 1, -1, +-i, 2 (a zero base of power included): within 1e-5
// (complex<f32>) or 1e-12 (complex<f64>) of 1 + |w| ((1 + |w|)^2 for tan
// and tanh), both parts; a non-finite part on the CPU must be non-finite
// here.
template <typename F>
void ExpectComplexFunctionsMatch(hal::Device* cpu, hal::Device* vulkan, const char* type, double tol) {
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> part(-3, 3);
  const size_t n = 2000;
  std::vector<F> x(2 * n), y(2 * n);
  for (size_t i = 0; i < 2 * n; ++i) x[i] = static_cast<F>(part(rng)), y[i] = static_cast<F>(part(rng));
  const F specials[][2] = {{0, 0}, {1, 0}, {-1, 0}, {0, 1}, {0, -1}, {2, 0}};
  for (size_t i = 0; i < std::size(specials); ++i) x[2 * i] = specials[i][0], x[2 * i + 1] = specials[i][1];
  const std::string ty = "tensor<" + std::to_string(n) + "x" + type + ">";
  std::vector<const char*> unary = {"exponential", "log",      "sqrt",         "rsqrt",
                                    "tanh",        "sine",     "cosine",       "tan",
                                    "cbrt",        "logistic", "log_plus_one", "exponential_minus_one"};
  unary.push_back("chlo.sinh"), unary.push_back("chlo.cosh");
  const char* binary[] = {"power", "atan2", "divide", "multiply"};
  std::string src;
  for (const char* fn : unary) {
    const std::string name = fn, chlo = name.rfind("chlo.", 0) == 0 ? name.substr(5) : "";
    if (!chlo.empty())
      src += "func.func @" + chlo + "(%x: " + ty + ", %y: " + ty + ") -> " + ty + " {\n  %r = \"" + name + "\"(%x) : (" +
             ty + ") -> " + ty + "\n  return %r : " + ty + "\n}\n";
    else
      src += "func.func @" + name + "(%x: " + ty + ", %y: " + ty + ") -> " + ty + " {\n  %r = stablehlo." + name +
             " %x : " + ty + "\n  return %r : " + ty + "\n}\n";
  }
  for (const char* fn : binary)
    src += "func.func @" + std::string(fn) + "(%x: " + ty + ", %y: " + ty + ") -> " + ty + " {\n  %r = stablehlo." +
           fn + " %x, %y : " + ty + "\n  return %r : " + ty + "\n}\n";
  auto bytes = CompileAll(src, "vulkan");  // a single target: nothing may be refused
  ASSERT_FALSE(bytes.empty());
  auto tensor = [&](const std::vector<F>& v) {
    vm::HostTensor h = Tensor(v);
    h.type = sizeof(F) == 4 ? ElementType::kC64 : ElementType::kC128;
    h.dims = {static_cast<int64_t>(n)};
    return h;
  };
  std::vector<std::string> fns;
  for (const char* fn : unary) fns.push_back(std::string(fn).rfind("chlo.", 0) == 0 ? std::string(fn + 5) : fn);
  fns.insert(fns.end(), std::begin(binary), std::end(binary));
  for (const std::string& fn : fns) {
    auto want = RunOn(cpu, bytes, fn, {tensor(x), tensor(y)});
    auto got = RunOn(vulkan, bytes, fn, {tensor(x), tensor(y)});
    ASSERT_TRUE(want.ok()) << fn << ": " << want.status().message();
    ASSERT_TRUE(got.ok()) << fn << ": " << got.status().message();
    std::vector<F> w = Values<F>((*want)[0]), g = Values<F>((*got)[0]);
    ASSERT_EQ(w.size(), g.size());
    int bad = 0;
    for (size_t i = 0; i < n && bad < 5; ++i) {
      const double wr = w[2 * i], wi = w[2 * i + 1], gr = g[2 * i], gi = g[2 * i + 1];
      // atan2 of the specials lies on its branch cut (x / sqrt(x^2) = -1):
      // the sign of a zero decides between pi and -pi.
      if (fn == "atan2" && i < std::size(specials)) continue;
      bool ok;
      if (!std::isfinite(wr) || !std::isfinite(wi)) {
        ok = !std::isfinite(gr) || !std::isfinite(gi);
      } else {
        // tan and tanh near their poles: the derivative is 1 + w^2.
        const double m = 1 + std::hypot(wr, wi);
        const double bound = tol * (fn == "tan" || fn == "tanh" ? m * m : m);
        ok = std::abs(gr - wr) <= bound && std::abs(gi - wi) <= bound;
      }
      if (!ok) {
        ADD_FAILURE() << type << " " << fn << "((" << x[2 * i] << ", " << x[2 * i + 1] << "), (" << y[2 * i] << ", "
                      << y[2 * i + 1] << ")): (" << gr << ", " << gi << "), the CPU device gives (" << wr << ", " << wi
                      << ")";
        ++bad;
      }
    }
  }
}

TEST_F(VulkanTest, ComplexFunctionsMatchTheCpu) {
  ExpectComplexFunctionsMatch<float>(cpu_.get(), vulkan_.get(), "complex<f32>", 1e-5);
  ExpectComplexFunctionsMatch<double>(cpu_.get(), vulkan_.get(), "complex<f64>", 1e-12);
}

// chlo's inverse functions of complex numbers (math64.glsl: Hull et al.'s
// asin and acos, Kahan's atanh, the others by rotation) against the CPU
// device (glibc's casin, cacos, catan, casinh, cacosh, catanh): every pair
// of 16 edge values (signed zeros, +-1 and their neighbours, tiny and huge
// values, infinities, NaN), parts uniform in [-3, 3], magnitudes spread
// over the type's exponent range, points near the unit circle. Each part
// within `max_ulps` of the CPU's (complex<f32> rounds an f64 result once),
// NaN where the CPU has NaN, zeros and infinities with the CPU's sign.
template <typename F>
void ExpectComplexInverseFunctionsMatch(hal::Device* cpu, hal::Device* vulkan, const char* type, uint64_t max_ulps) {
  const F inf = std::numeric_limits<F>::infinity(), nan = std::numeric_limits<F>::quiet_NaN();
  const F tiny = std::numeric_limits<F>::min() * 4, huge = std::numeric_limits<F>::max() / 4;
  const F eps = std::numeric_limits<F>::epsilon();
  const F edges[] = {0, -F(0), 1, -1, F(0.5), 2, F(1e-30), F(1e30), inf, -inf, nan, 1 - eps, 1 + eps, tiny, -tiny, huge};
  std::vector<F> x;
  for (F re : edges)
    for (F im : edges) x.push_back(re), x.push_back(im);
  std::mt19937_64 rng(47);
  std::uniform_real_distribution<double> part(-3, 3), angle(-M_PI, M_PI), unit(-1, 1);
  const double max_exp = sizeof(F) == 4 ? 37 : 300;
  std::uniform_real_distribution<double> exponent(-max_exp, max_exp);
  for (int i = 0; i < 600; ++i) x.push_back(static_cast<F>(part(rng))), x.push_back(static_cast<F>(part(rng)));
  for (int i = 0; i < 600; ++i) {
    const double m = std::pow(10.0, exponent(rng)), a = angle(rng);
    x.push_back(static_cast<F>(m * std::cos(a))), x.push_back(static_cast<F>(m * std::sin(a)));
  }
  for (int i = 0; i < 300; ++i) {
    const double m = 1 + 1e-6 * unit(rng), a = angle(rng);
    x.push_back(static_cast<F>(m * std::cos(a))), x.push_back(static_cast<F>(m * std::sin(a)));
  }
  const size_t n = x.size() / 2;
  const std::string ty = "tensor<" + std::to_string(n) + "x" + type + ">";
  const char* fns[] = {"asin", "acos", "atan", "asinh", "acosh", "atanh"};
  std::string src;
  for (const char* fn : fns)
    src += "func.func @" + std::string(fn) + "(%x: " + ty + ") -> " + ty + " {\n  %r = chlo." + fn + " %x : " + ty +
           " -> " + ty + "\n  return %r : " + ty + "\n}\n";
  auto bytes = CompileAll(src, "vulkan");  // a single target: nothing may be refused
  ASSERT_FALSE(bytes.empty());
  vm::HostTensor z = Tensor(x);
  z.type = sizeof(F) == 4 ? ElementType::kC64 : ElementType::kC128;
  z.dims = {static_cast<int64_t>(n)};
  for (const char* fn : fns) {
    auto want = RunOn(cpu, bytes, fn, {z});
    auto got = RunOn(vulkan, bytes, fn, {z});
    ASSERT_TRUE(want.ok()) << fn << ": " << want.status().message();
    ASSERT_TRUE(got.ok()) << fn << ": " << got.status().message();
    std::vector<F> w = Values<F>((*want)[0]), g = Values<F>((*got)[0]);
    ASSERT_EQ(w.size(), g.size());
    int bad = 0;
    for (size_t i = 0; i < w.size() && bad < 5; ++i) {
      const bool ok = std::isnan(w[i]) ? std::isnan(g[i])
                      : w[i] == 0 || std::isinf(w[i])
                          ? UlpDistance(w[i], g[i]) == 0
                          : !std::isnan(g[i]) && UlpDistance(w[i], g[i]) <= max_ulps;
      if (!ok) {
        ADD_FAILURE() << type << " " << fn << "(" << x[i & ~size_t{1}] << ", " << x[i | 1] << ") part " << (i & 1)
                      << ": " << g[i] << ", the CPU device gives " << w[i];
        ++bad;
      }
    }
  }
}

TEST_F(VulkanTest, ComplexInverseFunctionsMatchTheCpu) {
  ExpectComplexInverseFunctionsMatch<float>(cpu_.get(), vulkan_.get(), "complex<f32>", 1);
  ExpectComplexInverseFunctionsMatch<double>(cpu_.get(), vulkan_.get(), "complex<f64>", 6);
}

// chlo.next_after and stablehlo.reduce_precision work on the encoding:
// bit for bit as the CPU device, f16, bf16, f32 and f64.
// complex<f64> sinh and cosh where cosh x overflows or nearly does (|x|
// from 709 to 760, y near a zero of cos or sin and elsewhere): finite
// products stay finite, within 1e-12 relative of the CPU's (glibc's
// csinh/ccosh); infinities and zeros where the CPU has them.
TEST_F(VulkanTest, ComplexF64SinhCoshPastTheOverflowOfCoshX) {
  std::vector<double> parts;
  for (double x : {709.0, 709.8, 710.4, -711.0, 720.0, -744.5, 745.0, 760.0})
    for (double y : {0.0, -0.0, 0.3, -1.2, 1.5707963267948966, -1.5707963267948966, 3.141592653589793, 2.5})
      parts.push_back(x), parts.push_back(y);
  const int64_t n = static_cast<int64_t>(parts.size() / 2);
  const std::string ty = "tensor<" + std::to_string(n) + "xcomplex<f64>>";
  std::string src;
  for (const char* fn : {"sinh", "cosh"})
    src += "func.func @" + std::string(fn) + "(%x: " + ty + ") -> " + ty + " {\n  %r = \"chlo." + fn + "\"(%x) : (" + ty +
           ") -> " + ty + "\n  return %r : " + ty + "\n}\n";
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  vm::HostTensor z = Tensor(parts);
  z.type = ElementType::kC128;
  z.dims = {n};
  for (const char* fn : {"sinh", "cosh"}) {
    auto want = RunOn(cpu_.get(), bytes, fn, {z});
    auto got = RunOn(vulkan_.get(), bytes, fn, {z});
    ASSERT_TRUE(want.ok() && got.ok());
    std::vector<double> w = Values<double>((*want)[0]), g = Values<double>((*got)[0]);
    for (size_t i = 0; i < w.size(); ++i) {
      const std::string where = std::string(fn) + "(" + std::to_string(parts[i & ~size_t{1}]) + ", " +
                                std::to_string(parts[i | 1]) + ") part " + std::to_string(i & 1);
      if (!std::isfinite(w[i]) || w[i] == 0) {
        EXPECT_EQ(UlpDistance(w[i], g[i]), 0u) << where << ": " << g[i] << ", the CPU gives " << w[i];
      } else {
        EXPECT_NEAR(g[i], w[i], 1e-12 * std::abs(w[i])) << where;
      }
    }
  }
}

TEST_F(VulkanTest, NextAfterAndReducePrecisionAreBitIdenticalToCpu) {
  std::mt19937_64 rng(11);
  for (const char* type : {"f16", "bf16", "f32", "f64"}) {
    const int64_t n = 2000;
    auto et = ElementTypeFromName(type);
    ASSERT_TRUE(et.has_value());
    vm::HostTensor a = RandomBits(*et, {n}, rng), b = RandomBits(*et, {n}, rng);
    // a few equal pairs, zeros and infinities among the random bits
    size_t w = StorageBytes(*et);
    for (int i = 0; i < 8; ++i) std::memcpy(&b.data[i * w], &a.data[i * w], w);
    std::memset(&a.data[8 * w], 0, 2 * w);
    const std::string ty = "tensor<" + std::to_string(n) + "x" + type + ">";
    std::string src = "func.func @main(%a: " + ty + ", %b: " + ty + ") -> (" + ty + ", " + ty + ", " + ty + ", " + ty +
                      ") {\n  %n = \"chlo.next_after\"(%a, %b) : (" + ty + ", " + ty + ") -> " + ty + "\n";
    src += "  %p = stablehlo.reduce_precision %a, format = e5m2 : " + ty + "\n";
    src += "  %q = stablehlo.reduce_precision %a, format = e8m7 : " + ty + "\n";
    src += "  %s = stablehlo.reduce_precision %a, format = e4m0 : " + ty + "\n";
    src += "  return %n, %p, %q, %s : " + ty + ", " + ty + ", " + ty + ", " + ty + "\n}\n";
    auto bytes = CompileAll(src, "vulkan");
    ASSERT_FALSE(bytes.empty()) << type;
    auto want = RunOn(cpu_.get(), bytes, "main", {a, b});
    auto got = RunOn(vulkan_.get(), bytes, "main", {a, b});
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    // NaN results compare as NaN: their payload is the storage conversion's
    // (f16 NaNs pass through f32), not the op's.
    auto is_nan = [&](const uint8_t* p) {
      uint64_t v = 0;
      std::memcpy(&v, p, w);
      int mbits = *et == ElementType::kF16 ? 10 : *et == ElementType::kBF16 ? 7 : *et == ElementType::kF32 ? 23 : 52;
      int ebits = static_cast<int>(w * 8) - 1 - mbits;
      uint64_t e = (v >> mbits) & ((uint64_t{1} << ebits) - 1), m = v & ((uint64_t{1} << mbits) - 1);
      return e == (uint64_t{1} << ebits) - 1 && m != 0;
    };
    for (size_t r = 0; r < want->size(); ++r)
      for (int64_t i = 0; i < n; ++i) {
        const uint8_t* pw = &(*want)[r].data[i * w];
        const uint8_t* pg = &(*got)[r].data[i * w];
        if (is_nan(pw) && is_nan(pg)) continue;
        ASSERT_EQ(0, std::memcmp(pw, pg, w)) << type << " result " << r << " element " << i;
      }
  }
}

}  // namespace
}  // namespace kiln::vulkan_test

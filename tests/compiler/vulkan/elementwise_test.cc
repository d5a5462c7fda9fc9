// The vulkan target's elementwise shaders (compiler/vulkan/kernels_
// elementwise.cc, compiler/vulkan/scalar.cc) against the CPU device: every
// integer op of the scalar-op table, quantization to and from 32- and
// 64-bit storage, and comparisons of complex numbers, bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/hal/vulkan/vulkan_test_fixture.h"

namespace kiln::vulkan_test {
namespace {

// Every integer op of the scalar-op table the target translates, on every
// integer type, over random inputs with the edge values: results must be
// bit-identical to the CPU device's (the reference kernels).
TEST_F(VulkanTest, IntegerOpsAreBitIdenticalToCpu) {
  const char* types[] = {"i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64"};
  const char* binary[] = {"add", "subtract", "multiply", "divide", "remainder", "and", "or", "xor",
                          "shift_left", "shift_right_arithmetic", "shift_right_logical", "maximum", "minimum", "power"};
  const char* unary[] = {"abs", "negate", "not", "popcnt", "count_leading_zeros", "sign"};
  std::mt19937_64 rng(20261123);
  const int64_t n = 1000;
  for (const char* t : types) {
    std::string ty = "tensor<" + std::to_string(n) + "x" + t + ">";
    std::string src = "func.func @main(%a: " + ty + ", %b: " + ty + ", %f: tensor<" + std::to_string(n) + "xf32>) -> (";
    std::string body, rets, rtypes;
    int k = 0;
    auto add = [&](const std::string& line, const std::string& type) {
      body += "  %r" + std::to_string(k) + " = " + line + "\n";
      rets += (k ? ", %r" : "%r") + std::to_string(k);
      rtypes += (k ? ", " : "") + type;
      ++k;
    };
    for (const char* op : binary) add(std::string("stablehlo.") + op + " %a, %b : " + ty, ty);
    for (const char* op : unary)
      if (t[0] != 'u' || (std::string(op) != "abs" && std::string(op) != "sign"))  // signed operands only
        add(std::string("stablehlo.") + op + " %a : " + ty, ty);
    std::string bt = "tensor<" + std::to_string(n) + "xi1>";
    for (const char* dir : {"LT", "EQ", "GE"}) {
      add("stablehlo.compare " + std::string(dir) + ", %a, %b : (" + ty + ", " + ty + ") -> " + bt, bt);
    }
    add("stablehlo.select %r" + std::to_string(k - 1) + ", %a, %b : " + bt + ", " + ty, ty);
    for (const char* to : {"i8", "i32", "ui16", "i64", "f32"}) {
      std::string tt = "tensor<" + std::to_string(n) + "x" + to + ">";
      add("stablehlo.convert %a : (" + ty + ") -> " + tt, tt);
    }
    add("stablehlo.convert %f : (tensor<" + std::to_string(n) + "xf32>) -> " + ty, ty);
    src += rtypes + ") {\n" + body + "  return " + rets + " : " + rtypes + "\n}\n";
    auto bytes = CompileAll(src, "vulkan");
    ASSERT_FALSE(bytes.empty()) << t;
    auto et = ElementTypeFromName(t);
    ASSERT_TRUE(et.has_value());
    vm::HostTensor a = RandomBits(*et, {n}, rng), b = RandomBits(*et, {n}, rng);
    vm::HostTensor f;
    f.type = ElementType::kF32;
    f.dims = {n};
    f.data.resize(n * 4);
    for (int64_t i = 0; i < n; ++i) {
      float x = i == 0 ? NAN : i == 1 ? INFINITY : i == 2 ? -INFINITY : i == 3 ? 3e38f
                : static_cast<float>(std::ldexp(static_cast<double>(static_cast<int64_t>(rng())) / 9.2e18, static_cast<int>(rng() % 70)));
      std::memcpy(f.data.data() + i * 4, &x, 4);
    }
    auto want = RunOn(cpu_.get(), bytes, "main", {a, b, f});
    auto got = RunOn(vulkan_.get(), bytes, "main", {a, b, f});
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_EQ(want->size(), got->size());
    for (size_t r = 0; r < want->size(); ++r) {
      const auto& w = (*want)[r].data;
      const auto& g = (*got)[r].data;
      ASSERT_EQ(w.size(), g.size());
      size_t bytes_per = StorageBytes((*want)[r].type);
      for (size_t i = 0; i < w.size(); i += bytes_per)
        ASSERT_EQ(0, std::memcmp(&w[i], &g[i], bytes_per))
            << t << " result " << r << " (" << Name((*want)[r].type) << ") element " << i / bytes_per;
    }
  }
}

// uniform_quantize into i32 and ui32 storage and back (a quantized
// matmul's accumulator type): values past the storage range saturate (the
// f32 nearest INT32_MAX is 2^31), NaN quantizes to 0, q - zero_point is
// formed without wrapping; per tensor and per axis.
TEST_F(VulkanTest, QuantizationWith32BitStorageMatchesCpu) {
  const int64_t rows = 4, n = 600;
  const std::string ft = "tensor<" + std::to_string(rows) + "x" + std::to_string(n) + "xf32>";
  const std::string qi = "tensor<" + std::to_string(rows) + "x" + std::to_string(n) + "x!quant.uniform<i32:f32, 0.5:7>>";
  const std::string qu = "tensor<" + std::to_string(rows) + "x" + std::to_string(n) + "x!quant.uniform<u32:f32, 3.0:1000>>";
  const std::string qa = "tensor<" + std::to_string(rows) + "x" + std::to_string(n) +
                         "x!quant.uniform<i32:f32:0, {0.25:-100, 1.5:0, 1000.0:2147483647, 0.001:-2147483648}>>";
  const std::string src = "func.func @main(%x: " + ft + ") -> (" + ft + ", " + ft + ", " + ft + ") {\n" +
                          "  %a = stablehlo.uniform_quantize %x : (" + ft + ") -> " + qi + "\n" +
                          "  %b = stablehlo.uniform_quantize %x : (" + ft + ") -> " + qu + "\n" +
                          "  %c = stablehlo.uniform_quantize %x : (" + ft + ") -> " + qa + "\n" +
                          "  %da = stablehlo.uniform_dequantize %a : (" + qi + ") -> " + ft + "\n" +
                          "  %db = stablehlo.uniform_dequantize %b : (" + qu + ") -> " + ft + "\n" +
                          "  %dc = stablehlo.uniform_dequantize %c : (" + qa + ") -> " + ft + "\n" +
                          "  return %da, %db, %dc : " + ft + ", " + ft + ", " + ft + "\n}\n";
  auto bytes = CompileAll(src, "vulkan");  // a single target: nothing may be refused
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> wide(-1.5e10, 1.5e10), small(-1000, 1000);
  std::vector<float> x(rows * n);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 2 ? wide(rng) : small(rng));
  const float specials[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1073741823.5f, 1073741824.0f, -1073741824.0f,
                            2147483648.0f, -2147483648.0f, 4294967296.0f, 3.5f, 2.5f, -2.5f};
  for (size_t k = 0; k < std::size(specials); ++k) x[k * 41 % x.size()] = specials[k];
  vm::HostTensor in;
  in.type = ElementType::kF32;
  in.dims = {rows, n};
  in.data.resize(x.size() * 4);
  std::memcpy(in.data.data(), x.data(), in.data.size());
  auto want = RunOn(cpu_.get(), bytes, "main", {in});
  auto got = RunOn(vulkan_.get(), bytes, "main", {in});
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  for (size_t r = 0; r < 3; ++r) {
    std::vector<float> w(x.size()), g(x.size());
    std::memcpy(w.data(), (*want)[r].data.data(), w.size() * 4);
    std::memcpy(g.data(), (*got)[r].data.data(), g.size() * 4);
    int bad = 0;
    for (size_t i = 0; i < w.size() && bad < 5; ++i)
      if (std::memcmp(&w[i], &g[i], 4) != 0)
        ADD_FAILURE() << "result " << r << " x = " << x[i] << ": " << g[i] << ", the CPU device gives " << w[i], ++bad;
  }
}

// uniform_quantize into 64-bit storage (i64 and ui64; f32 and f64
// expressed; a requantization) and back: values past int64 saturate (its
// maximum rounds up to 2^63 in the expressed type), NaN quantizes to 0,
// q - zero_point wraps in 64 bits as the spec's subtraction in the storage
// type does; bit for bit as the CPU.
TEST_F(VulkanTest, QuantizationWith64BitStorageMatchesCpu) {
  const int64_t n = 1200;
  const std::string N = std::to_string(n);
  const std::string f32 = "tensor<" + N + "xf32>", f64 = "tensor<" + N + "xf64>";
  const std::string qa = "tensor<" + N + "x!quant.uniform<i64:f32, 0.5:3>>";
  const std::string qb = "tensor<" + N + "x!quant.uniform<i64:f64, 1.0e-10:-5>>";
  const std::string qc = "tensor<" + N + "x!quant.uniform<ui64:f32, 2.0:7>>";
  const std::string qd = "tensor<" + N + "x!quant.uniform<i64:f32, 0.25:-1>>";
  const std::string src =
      "func.func @main(%x: " + f32 + ") -> (" + f32 + ", " + f64 + ", " + f32 + ", " + f32 + ") {\n" +
      "  %a = stablehlo.uniform_quantize %x : (" + f32 + ") -> " + qa + "\n" +
      "  %y = stablehlo.convert %x : (" + f32 + ") -> " + f64 + "\n" +
      "  %b = stablehlo.uniform_quantize %y : (" + f64 + ") -> " + qb + "\n" +
      "  %c = stablehlo.uniform_quantize %x : (" + f32 + ") -> " + qc + "\n" +
      "  %d = stablehlo.uniform_quantize %a : (" + qa + ") -> " + qd + "\n" +
      "  %da = stablehlo.uniform_dequantize %a : (" + qa + ") -> " + f32 + "\n" +
      "  %db = stablehlo.uniform_dequantize %b : (" + qb + ") -> " + f64 + "\n" +
      "  %dc = stablehlo.uniform_dequantize %c : (" + qc + ") -> " + f32 + "\n" +
      "  %dd = stablehlo.uniform_dequantize %d : (" + qd + ") -> " + f32 + "\n" +
      "  return %da, %db, %dc, %dd : " + f32 + ", " + f64 + ", " + f32 + ", " + f32 + "\n}\n";
  auto bytes = CompileAll(src, "vulkan");  // a single target: nothing may be refused
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> exponent(-12, 21), unit(-1, 1);
  std::vector<float> x(n);
  for (float& v : x) v = static_cast<float>(unit(rng) * std::pow(10.0, exponent(rng)));
  const float specials[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 9.2233715e18f, 9.223372e18f, -9.223372e18f,
                            1.8446744e19f, 3.5f, 2.5f, -2.5f};
  for (size_t k = 0; k < std::size(specials); ++k) x[k * 37 % x.size()] = specials[k];
  auto want = RunOn(cpu_.get(), bytes, "main", {HostTensorOf(ElementType::kF32, {n}, x)});
  auto got = RunOn(vulkan_.get(), bytes, "main", {HostTensorOf(ElementType::kF32, {n}, x)});
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  for (size_t r = 0; r < 4; ++r) {
    const size_t w = r == 1 ? 8 : 4;  // the f64 result
    int bad = 0;
    for (int64_t i = 0; i < n && bad < 5; ++i)
      if (std::memcmp(&(*want)[r].data[i * w], &(*got)[r].data[i * w], w) != 0)
        ADD_FAILURE() << "result " << r << " x = " << x[i] << ": the CPU device's bytes differ", ++bad;
  }
}

// An f32 (f64: 8 bytes) element as a double.
double FloatAt(const uint8_t* p, bool f64) {
  if (f64) {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  float f;
  std::memcpy(&f, p, 4);
  return f;
}

// Whether two float elements are the same bits, any NaN matching any NaN.
bool SameFloat(const uint8_t* a, const uint8_t* b, bool f64) {
  return std::memcmp(a, b, f64 ? 8 : 4) == 0 || (std::isnan(FloatAt(a, f64)) && std::isnan(FloatAt(b, f64)));
}

// Rounding of f32 and f64 by Kiln's own floor-based trunc and roundEven
// (kernels/vulkan/math32.glsl, prelude64.glsl): lavapipe's built-ins on an
// AVX2 host left doubles from 2^31 on unrounded and rounded ties toward
// zero (1.5 to 1), and its float trunc left 1e10 as it was. Ties, values
// past 2^31 and 2^52, signed zeros, NaN and infinities, through
// round_nearest_even, round_nearest_afz, remainder (whose quotient is
// truncated) and convert to si64, bit for bit as the CPU device (any NaN
// for a NaN).
TEST_F(VulkanTest, RoundingOfTiesAndLargeValuesMatchesCpu) {
  const std::vector<double> specials = {0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, -3.5, 4194304.5, -4194303.5,
                                        -0.4, 0.4, 0.0, -0.0, 2147483648.75, -3221225471.5, 1e10 + 0.5,
                                        13085551757807.5, -792947118.51, 4503599627370497.0, 3e15, 1e300,
                                        INFINITY, -INFINITY, NAN, 7.0, -7.7, 1099511627776.25};
  for (const char* t : {"f32", "f64"}) {
    const bool f64 = std::string(t) == "f64";
    const int64_t n = static_cast<int64_t>(specials.size());
    const std::string ty = "tensor<" + std::to_string(n) + "x" + t + ">";
    const std::string i64 = "tensor<" + std::to_string(n) + "xi64>";
    const std::string src = "func.func @main(%x: " + ty + ") -> (" + ty + ", " + ty + ", " + ty + ", " + i64 +
                            ") {\n" +
                            "  %c = stablehlo.constant dense<3.0> : " + ty + "\n" +
                            "  %e = stablehlo.round_nearest_even %x : " + ty + "\n" +
                            "  %a = stablehlo.round_nearest_afz %x : " + ty + "\n" +
                            "  %r = stablehlo.remainder %x, %c : " + ty + "\n" +
                            "  %i = stablehlo.convert %x : (" + ty + ") -> " + i64 + "\n" +
                            "  return %e, %a, %r, %i : " + ty + ", " + ty + ", " + ty + ", " + i64 + "\n}\n";
    auto bytes = CompileAll(src, "vulkan");
    ASSERT_FALSE(bytes.empty()) << t;
    vm::HostTensor x;
    x.type = f64 ? ElementType::kF64 : ElementType::kF32;
    x.dims = {n};
    for (double v : specials) {
      if (f64) {
        x.data.insert(x.data.end(), reinterpret_cast<const uint8_t*>(&v), reinterpret_cast<const uint8_t*>(&v) + 8);
      } else {
        const float f = static_cast<float>(v);
        x.data.insert(x.data.end(), reinterpret_cast<const uint8_t*>(&f), reinterpret_cast<const uint8_t*>(&f) + 4);
      }
    }
    auto want = RunOn(cpu_.get(), bytes, "main", {x});
    auto got = RunOn(vulkan_.get(), bytes, "main", {x});
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    const char* names[] = {"round_nearest_even", "round_nearest_afz", "remainder", "convert"};
    for (size_t r = 0; r < 4; ++r) {
      const size_t w = r == 3 || f64 ? 8 : 4;
      for (int64_t i = 0; i < n; ++i) {
        const double v = specials[static_cast<size_t>(i)];
        const uint8_t* a = &(*want)[r].data[i * w];
        const uint8_t* b = &(*got)[r].data[i * w];
        if (r < 3 ? !SameFloat(a, b, f64) : std::memcmp(a, b, w) != 0)
          ADD_FAILURE() << t << " " << names[r] << " of " << v << ": the CPU device's bytes differ";
      }
    }
  }
}

// stablehlo.remainder by long division of the significands (prelude.glsl,
// math64.glsl): exact for every pair, as the CPU's fmod, where a - b *
// trunc(a / b) lost the quotient's low bits past 2^24 (f32: 1e10 % 3 gave
// 0). Random pairs over the whole exponent range, subnormals among them,
// both signs, with zeros, infinities and NaN; bit for bit (any NaN).
TEST_F(VulkanTest, RemainderIsExactForEveryPair) {
  std::mt19937_64 rng(20261204);
  for (const char* t : {"f32", "f64"}) {
    const bool f64 = std::string(t) == "f64";
    const int64_t n = 4000;
    const std::string ty = "tensor<" + std::to_string(n) + "x" + t + ">";
    const std::string src = "func.func @main(%x: " + ty + ", %y: " + ty + ") -> " + ty + " {\n" +
                            "  %r = stablehlo.remainder %x, %y : " + ty + "\n" + "  return %r : " + ty + "\n}\n";
    auto bytes = CompileAll(src, "vulkan");
    ASSERT_FALSE(bytes.empty()) << t;
    const int max_exp = f64 ? 1023 : 127, min_exp = f64 ? -1074 : -149;
    std::uniform_int_distribution<int> exp(min_exp, max_exp);
    std::uniform_real_distribution<double> unit(1.0, 2.0);
    const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -3.0, 1e10, 3.0};
    vm::HostTensor x, y;
    for (vm::HostTensor* h : {&x, &y}) {
      h->type = f64 ? ElementType::kF64 : ElementType::kF32;
      h->dims = {n};
      for (int64_t i = 0; i < n; ++i) {
        double v = std::ldexp(unit(rng), exp(rng)) * (rng() % 2 ? -1 : 1);
        if (i % 97 < 9) v = specials[i % 97];
        if (h == &y && i % 5 == 0) v = std::ldexp(unit(rng), exp(rng) % 8);  // small divisors: long quotients
        if (f64) {
          h->data.insert(h->data.end(), reinterpret_cast<const uint8_t*>(&v), reinterpret_cast<const uint8_t*>(&v) + 8);
        } else {
          const float f = static_cast<float>(v);
          h->data.insert(h->data.end(), reinterpret_cast<const uint8_t*>(&f), reinterpret_cast<const uint8_t*>(&f) + 4);
        }
      }
    }
    auto want = RunOn(cpu_.get(), bytes, "main", {x, y});
    auto got = RunOn(vulkan_.get(), bytes, "main", {x, y});
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    const size_t w = f64 ? 8 : 4;
    int bad = 0;
    for (int64_t i = 0; i < n && bad < 5; ++i) {
      const uint8_t* a = &(*want)[0].data[i * w];
      const uint8_t* b = &(*got)[0].data[i * w];
      if (SameFloat(a, b, f64)) continue;
      ++bad;
      ADD_FAILURE() << t << " element " << i << ": CPU " << FloatAt(a, f64) << ", Vulkan " << FloatAt(b, f64);
    }
  }
}

// stablehlo.compare of complex numbers: lexicographic on (real, imaginary)
// in every direction (FLOAT, the one comparison type complex operands
// take), complex<f32> and complex<f64>, over parts drawn from a few values (so that equal real
// parts are common) with NaN, signed zeros and infinities among them:
// the same booleans as the CPU device.
TEST_F(VulkanTest, ComplexComparisonsMatchCpu) {
  const int64_t n = 4096;
  const double parts[] = {0.0, -0.0, 1.0, -1.0, 2.5, NAN, -NAN, INFINITY, -INFINITY};
  std::mt19937_64 rng(17);
  for (const char* type : {"complex<f32>", "complex<f64>"}) {
    const bool f32 = std::string(type) == "complex<f32>";
    const std::string ty = "tensor<" + std::to_string(n) + "x" + type + ">";
    const std::string bt = "tensor<" + std::to_string(n) + "xi1>";
    std::string src = "func.func @main(%a: " + ty + ", %b: " + ty + ") -> (";
    std::string body, names;
    int k = 0;
    for (const char* dir : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
      const std::string r = "%r" + std::to_string(k++);
      body += "  " + r + " = stablehlo.compare " + dir + ", %a, %b, FLOAT : (" + ty + ", " + ty + ") -> " + bt + "\n";
      names += (names.empty() ? "" : ", ") + r;
    }
    for (int i = 0; i < k; ++i) src += (i ? ", " : "") + bt;
    src += ") {\n" + body + "  return " + names + " : ";
    for (int i = 0; i < k; ++i) src += (i ? ", " : "") + bt;
    src += "\n}\n";
    auto bytes = CompileAll(src, "vulkan");  // a single target: nothing may be refused
    ASSERT_FALSE(bytes.empty()) << type;
    auto operand = [&] {
      vm::HostTensor h;
      h.type = f32 ? ElementType::kC64 : ElementType::kC128;
      h.dims = {n};
      h.data.resize(static_cast<size_t>(n) * (f32 ? 8 : 16));
      for (int64_t i = 0; i < 2 * n; ++i) {
        const double v = parts[rng() % std::size(parts)];
        if (f32) {
          const float f = static_cast<float>(v);
          std::memcpy(&h.data[i * 4], &f, 4);
        } else {
          std::memcpy(&h.data[i * 8], &v, 8);
        }
      }
      return h;
    };
    vm::HostTensor a = operand(), b = operand();
    auto want = RunOn(cpu_.get(), bytes, "main", {a, b});
    auto got = RunOn(vulkan_.get(), bytes, "main", {a, b});
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    for (int r = 0; r < k; ++r) {
      int bad = 0;
      for (int64_t i = 0; i < n && bad < 3; ++i)
        if ((*want)[r].data[i] != (*got)[r].data[i])
          ADD_FAILURE() << type << " comparison " << r << " element " << i << ": " << int((*got)[r].data[i])
                        << ", the CPU device gives " << int((*want)[r].data[i]),
              ++bad;
    }
  }
}

}  // namespace
}  // namespace kiln::vulkan_test

// The vulkan target's linear-algebra shaders (compiler/vulkan/kernels_linalg.cc:
// stablehlo.cholesky, kiln.lu, kiln.geqrf/orgqr, kiln.gehrd, kiln.sytrd, kiln.syevd, kiln.geqp3,
// kiln.gesdd/gesvd,
// stablehlo.triangular_solve; the batch norms
// of kernels_reduction.cc and chlo.ragged_dot of kernels_contraction.cc)
// against the CPU device: batched, lower and upper, square and rectangular, f32 and f64
// (and complex for the solve, cholesky, LU and QR), with a matrix that is not positive definite
// and singular ones among them. Pivots and info must match exactly,
// factors and solutions within a relative tolerance (the CPU works in f64
// for f32 operands, the shaders in the element type).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/scalar/scalar.h"
#include "tests/hal/vulkan/vulkan_test_fixture.h"

namespace kiln::vulkan_test {
namespace {

std::string Shape(const std::vector<int64_t>& dims, const char* type) {
  std::string s = "tensor<";
  for (int64_t d : dims) s += std::to_string(d) + "x";
  return s + type + ">";
}

// `v` holds the elements' parts (complex: real, imaginary) as doubles.
vm::HostTensor Matrices(const std::vector<double>& v, const std::vector<int64_t>& dims, bool f64,
                        bool complex = false) {
  vm::HostTensor h;
  h.type = complex ? (f64 ? ElementType::kC128 : ElementType::kC64) : f64 ? ElementType::kF64 : ElementType::kF32;
  h.dims = dims;
  h.data.resize(v.size() * (f64 ? 8 : 4));
  for (size_t i = 0; i < v.size(); ++i) {
    if (f64) {
      std::memcpy(&h.data[i * 8], &v[i], 8);
    } else {
      const float f = static_cast<float>(v[i]);
      std::memcpy(&h.data[i * 4], &f, 4);
    }
  }
  return h;
}

// The matrices of v as f16 or bf16 (rounded to nearest, as the reference's codec rounds).
vm::HostTensor HalfMatrices(const std::vector<double>& v, const std::vector<int64_t>& dims, ElementType type) {
  vm::HostTensor h;
  h.type = type;
  h.dims = dims;
  h.data.resize(v.size() * 2);
  for (size_t i = 0; i < v.size(); ++i) ref::StoreScalar(type, Scalar{0, v[i], 0}, &h.data[i * 2]);
  return h;
}

std::vector<double> Doubles(const vm::HostTensor& h) {  // complex: the parts
  if (h.type == ElementType::kF16 || h.type == ElementType::kBF16) {
    std::vector<double> v(h.data.size() / 2);
    for (size_t i = 0; i < v.size(); ++i) v[i] = ref::LoadScalar(h.type, &h.data[i * 2]).re;
    return v;
  }
  const bool f64 = h.type == ElementType::kF64 || h.type == ElementType::kC128;
  std::vector<double> v(h.data.size() / (f64 ? 8 : 4));
  for (size_t i = 0; i < v.size(); ++i) {
    if (f64) {
      std::memcpy(&v[i], &h.data[i * 8], 8);
    } else {
      float f;
      std::memcpy(&f, &h.data[i * 4], 4);
      v[i] = f;
    }
  }
  return v;
}

void ExpectClose(const vm::HostTensor& want, const vm::HostTensor& got, double tol, const std::string& what) {
  std::vector<double> w = Doubles(want), g = Doubles(got);
  ASSERT_EQ(w.size(), g.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < w.size() && bad < 10; ++i) {
    const bool ok = std::isnan(w[i]) ? std::isnan(g[i]) : std::abs(w[i] - g[i]) <= tol * (1 + std::abs(w[i]));
    if (!ok) ADD_FAILURE() << what << " element " << i << ": " << g[i] << ", the CPU device gives " << w[i], ++bad;
  }
}

// Runs function `fn` of `bytes` on both devices: the results named by
// `close` (the first ones) within `tol` of the CPU's (ExpectClose), the
// rest (pivots, info) equal, named by `exact`. The Vulkan device's results
// go to `got` for further checks.
void ExpectFactorsMatch(hal::Device* cpu, hal::Device* vulkan, const std::vector<uint8_t>& bytes, const std::string& fn,
                        const std::vector<vm::HostTensor>& in, double tol, const std::vector<const char*>& close,
                        const std::vector<const char*>& exact, std::vector<vm::HostTensor>* got) {
  auto want = RunOn(cpu, bytes, fn, in);
  auto result = RunOn(vulkan, bytes, fn, in);
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_EQ(want->size(), close.size() + exact.size());
  for (size_t r = 0; r < close.size(); ++r) ExpectClose((*want)[r], (*result)[r], tol, close[r]);
  for (size_t r = 0; r < exact.size(); ++r)
    EXPECT_EQ((*want)[close.size() + r].data, (*result)[close.size() + r].data) << exact[r];
  *got = std::move(*result);
}

// The first element of an si32 result (a batch's first info).
int32_t FirstInt(const vm::HostTensor& t) {
  int32_t v = 0;
  std::memcpy(&v, t.data.data(), 4);
  return v;
}

// `batch` n x n matrices b b^H + n I (b normal; re, im interleaved when
// complex), row-major, except the last: its diagonal entry at n/2 is -1, so
// it is not positive definite and the factor's NaNs start at that pivot.
// With `noise_unless_lower` set, the triangle a factorization of that side
// does not read is replaced by large noise.
std::vector<double> PositiveDefiniteBatch(std::mt19937_64& rng, int64_t batch, int64_t n, bool complex,
                                          std::optional<bool> noise_unless_lower = std::nullopt) {
  using cd = std::complex<double>;
  std::normal_distribution<double> normal;
  std::vector<double> a;
  for (int64_t bi = 0; bi < batch; ++bi) {
    std::vector<cd> b(n * n);
    for (cd& x : b) x = cd(normal(rng), complex ? normal(rng) : 0.0);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        cd s = i == j ? static_cast<double>(n) : 0.0;
        for (int64_t q = 0; q < n; ++q) s += b[i * n + q] * std::conj(b[j * n + q]);
        if (bi == batch - 1 && i == j && i == n / 2) s = -1.0;
        if (noise_unless_lower && !(*noise_unless_lower ? i >= j : i <= j))
          s = cd(1e3 * normal(rng), complex ? 1e3 * normal(rng) : 0.0);
        a.push_back(s.real());
        if (complex) a.push_back(s.imag());
      }
  }
  return a;
}

TEST_F(VulkanTest, CholeskyMatchesCpu) {
  std::mt19937_64 rng(20261202);
  for (const char* type : {"f32", "f64", "complex<f32>", "complex<f64>"})
    for (bool lower : {true, false})
      for (int64_t n : {1, 5, 17}) {
        const int64_t batch = 3;
        const bool f64 = std::string(type).find("64") != std::string::npos;
        const bool complex = std::string(type).rfind("complex", 0) == 0;
        SCOPED_TRACE(std::string(type) + (lower ? " lower" : " upper") + " n=" + std::to_string(n));
        // The triangle the factorization must not read is noise.
        const std::vector<double> a = PositiveDefiniteBatch(rng, batch, n, complex, lower);
        const std::vector<int64_t> dims = {batch, n, n};
        const std::string ty = Shape(dims, type);
        const std::string src = "func.func @main(%a: " + ty + ") -> " + ty + " {\n  %l = stablehlo.cholesky %a, lower = " +
                                (lower ? "true" : "false") + " : " + ty + "\n  return %l : " + ty + "\n}\n";
        auto bytes = CompileAll(src, "vulkan");  // a single target: nothing may be refused
        ASSERT_FALSE(bytes.empty());
        vm::HostTensor x = Matrices(a, dims, f64, complex);
        auto want = RunOn(cpu_.get(), bytes, "main", {x});
        auto got = RunOn(vulkan_.get(), bytes, "main", {x});
        ASSERT_TRUE(want.ok()) << want.status().message();
        ASSERT_TRUE(got.ok()) << got.status().message();
        ExpectClose((*want)[0], (*got)[0], f64 ? 1e-12 : 2e-5, "factor");
      }
}

// f16 and bf16 matrices: the Vulkan target factors them in f32 between
// converts (compiler/passes/widen_narrow_factorizations.h), the CPU in f64
// (Cholesky) or f32 (LU) before rounding once to the 16-bit type: factors
// within a few of the type's ulps, LU's pivots and info equal.
TEST_F(VulkanTest, SixteenBitFactorizationsMatchCpu) {
  std::mt19937_64 rng(20261204);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (ElementType type : {ElementType::kF16, ElementType::kBF16}) {
    const char* name = type == ElementType::kF16 ? "f16" : "bf16";
    const double ulp = type == ElementType::kF16 ? 0x1p-10 : 0x1p-7;
    for (bool lower : {true, false}) {
      const int64_t batch = 2, n = 9;
      SCOPED_TRACE(std::string(name) + (lower ? " lower" : " upper"));
      const std::vector<double> a = PositiveDefiniteBatch(rng, batch, n, false);
      const std::vector<int64_t> dims = {batch, n, n};
      const std::string ty = Shape(dims, name);
      const std::string src = "func.func @main(%a: " + ty + ") -> " + ty + " {\n  %l = stablehlo.cholesky %a, lower = " +
                              (lower ? "true" : "false") + " : " + ty + "\n  return %l : " + ty + "\n}\n";
      auto bytes = CompileAll(src, "vulkan");  // a single target: nothing may be refused
      ASSERT_FALSE(bytes.empty());
      const vm::HostTensor x = HalfMatrices(a, dims, type);
      auto want = RunOn(cpu_.get(), bytes, "main", {x});
      auto got = RunOn(vulkan_.get(), bytes, "main", {x});
      ASSERT_TRUE(want.ok()) << want.status().message();
      ASSERT_TRUE(got.ok()) << got.status().message();
      ExpectClose((*want)[0], (*got)[0], 4 * ulp, "factor");
    }
    for (auto [batch, m, n] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{3, 6, 6}, {2, 7, 3}, {2, 4, 7}}) {
      SCOPED_TRACE(std::string(name) + " lu " + std::to_string(m) + "x" + std::to_string(n));
      std::vector<double> a(batch * m * n);
      for (double& v : a) v = uniform(rng);
      for (int64_t i = 0; i < m; ++i) a[i * n] = 0.0;  // a zero first column: info
      const std::vector<int64_t> dims = {batch, m, n}, pivots = {batch, std::min(m, n)}, info = {batch};
      const std::string ty = Shape(dims, name), pt = Shape(pivots, "i32"), it = Shape(info, "i32");
      const std::string src = "func.func @main(%a: " + ty + ") -> (" + ty + ", " + pt + ", " + it +
                              ") {\n  %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {mhlo.backend_config = {}, "
                              "api_version = 4 : i32} : (" + ty + ") -> (" + ty + ", " + pt + ", " + it +
                              ")\n  return %0#0, %0#1, %0#2 : " + ty + ", " + pt + ", " + it + "\n}\n";
      auto bytes = CompileAll(src, "vulkan");
      ASSERT_FALSE(bytes.empty());
      std::vector<vm::HostTensor> got;
      ExpectFactorsMatch(cpu_.get(), vulkan_.get(), bytes, "main", {HalfMatrices(a, dims, type)}, 4 * ulp, {"lu"},
                         {"pivots", "info"}, &got);
      if (!got.empty()) EXPECT_EQ(FirstInt(got[2]), 1) << "the zero column is step 1's pivot";
    }
  }
}

TEST_F(VulkanTest, LuMatchesCpu) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> uniform(-1, 1);
  struct Case {
    int64_t batch, m, n;
  };
  for (const char* type : {"f32", "f64", "complex<f32>", "complex<f64>"})
    for (Case c : {Case{3, 6, 6}, Case{2, 4, 7}, Case{2, 7, 3}, Case{1, 1, 1}, Case{2, 33, 33}}) {
      const bool complex = std::string(type).rfind("complex", 0) == 0;
      const bool f64 = std::string(type).find("64") != std::string::npos;
      const int64_t parts = complex ? 2 : 1;
      SCOPED_TRACE(std::string(type) + " " + std::to_string(c.batch) + "x" + std::to_string(c.m) + "x" +
                   std::to_string(c.n));
      std::vector<double> a(c.batch * c.m * c.n * parts);
      for (double& x : a) x = uniform(rng);
      // The first matrix: a zero column (a zero pivot: info) and equal
      // magnitudes in another (the first of them is the pivot; complex:
      // equal |re| + |im|).
      for (int64_t i = 0; i < c.m; ++i) {
        for (int64_t q = 0; q < parts; ++q) {
          if (c.n > 1) a[(i * c.n + 1) * parts + q] = 0.0;
          if (c.n > 2) a[(i * c.n + 2) * parts + q] = (i % 2 ? -0.25 : 0.25) * (q == 1 && i % 3 ? -1 : 1) * (complex ? 1 : 2);
        }
      }
      const std::vector<int64_t> dims = {c.batch, c.m, c.n}, pivots = {c.batch, std::min(c.m, c.n)},
                                 info = {c.batch};
      const std::string ty = Shape(dims, type), pt = Shape(pivots, "i32"), it = Shape(info, "i32");
      // As JAX lowers jnp.linalg.lu_factor on the CPU (LAPACK's getrf through
      // XLA's FFI), which the compiler turns into kiln.lu.
      const std::string target = std::string("lapack_") + (complex ? (f64 ? "z" : "c") : (f64 ? "d" : "s")) + "getrf_ffi";
      const std::string src = "func.func @main(%a: " + ty + ") -> (" + ty + ", " + pt + ", " + it +
                              ") {\n  %0:3 = stablehlo.custom_call @" + target +
                              "(%a) {mhlo.backend_config = {}, api_version = 4 : i32} : (" + ty + ") -> (" + ty + ", " +
                              pt + ", " + it + ")\n  return %0#0, %0#1, %0#2 : " + ty + ", " + pt + ", " + it +
                              "\n}\n";
      auto bytes = CompileAll(src, "vulkan");
      ASSERT_FALSE(bytes.empty());
      std::vector<vm::HostTensor> got;
      ExpectFactorsMatch(cpu_.get(), vulkan_.get(), bytes, "main", {Matrices(a, dims, f64, complex)},
                         f64 ? 1e-12 : 1e-5, {"lu"}, {"pivots", "info"}, &got);
      if (c.n > 1 && !got.empty()) EXPECT_EQ(FirstInt(got[2]), 2) << "the zero column is step 2's pivot";
    }
}

// kiln.gtsv (jaxlib's ?gtsv_ffi, lax.linalg.tridiagonal_solve) against the
// CPU over batches of random systems, real and complex, with several
// right-hand sides: the sub-diagonal scaled up in some rows so that rows
// interchange, a zero pivot in the first system of each batch (info and the
// part-way results as LAPACK leaves them), and n = 0, 1, 2.
TEST_F(VulkanTest, TridiagonalSolveMatchesCpu) {
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> uniform(-1, 1);
  struct Case {
    int64_t batch, n, nrhs;
  };
  for (const char* type : {"f32", "f64", "complex<f32>", "complex<f64>"})
    for (Case c : {Case{3, 9, 2}, Case{2, 2, 3}, Case{2, 1, 1}, Case{2, 0, 2}, Case{1, 40, 1}}) {
      const bool complex = std::string(type).rfind("complex", 0) == 0;
      const bool f64 = std::string(type).find("64") != std::string::npos;
      const int64_t parts = complex ? 2 : 1;
      SCOPED_TRACE(std::string(type) + " " + std::to_string(c.batch) + "x" + std::to_string(c.n) + "x" +
                   std::to_string(c.nrhs));
      std::vector<double> dl(c.batch * c.n * parts), d(dl.size()), du(dl.size()), b(c.batch * c.n * c.nrhs * parts);
      for (auto* v : {&dl, &d, &du, &b})
        for (double& x : *v) x = uniform(rng);
      for (size_t i = 0; i < dl.size(); i += 3 * parts) dl[i] *= 8;  // |dl| > |d|: rows interchange
      if (c.n > 3)  // system 0: row 1 eliminated to an exact zero pivot
        for (int64_t q = 0; q < parts; ++q) d[1 * parts + q] = 0, dl[1 * parts + q] = 0, dl[2 * parts + q] = 0;
      const std::vector<int64_t> diag = {c.batch, c.n}, rhs = {c.batch, c.n, c.nrhs}, info = {c.batch};
      const std::string dt = Shape(diag, type), bt = Shape(rhs, type), it = Shape(info, "i32");
      const std::string target = std::string("lapack_") + (complex ? (f64 ? "z" : "c") : (f64 ? "d" : "s")) + "gtsv_ffi";
      const std::string src = "func.func @main(%dl: " + dt + ", %d: " + dt + ", %du: " + dt + ", %b: " + bt +
                              ") -> (" + dt + ", " + dt + ", " + dt + ", " + bt + ", " + it +
                              ") {\n  %0:5 = stablehlo.custom_call @" + target +
                              "(%dl, %d, %du, %b) {mhlo.backend_config = {}} : (" + dt + ", " + dt + ", " + dt + ", " +
                              bt + ") -> (" + dt + ", " + dt + ", " + dt + ", " + bt + ", " + it +
                              ")\n  return %0#0, %0#1, %0#2, %0#3, %0#4 : " + dt + ", " + dt + ", " + dt + ", " + bt +
                              ", " + it + "\n}\n";
      auto bytes = CompileAll(src, "vulkan");
      ASSERT_FALSE(bytes.empty());
      const std::vector<vm::HostTensor> in = {Matrices(dl, diag, f64, complex), Matrices(d, diag, f64, complex),
                                              Matrices(du, diag, f64, complex), Matrices(b, rhs, f64, complex)};
      std::vector<vm::HostTensor> got;
      ExpectFactorsMatch(cpu_.get(), vulkan_.get(), bytes, "main", in, f64 ? 1e-12 : 1e-5,
                         {"dl", "d", "du", "solution"}, {"info"}, &got);
      if (c.n > 3 && !got.empty()) EXPECT_EQ(FirstInt(got[4]), 2) << "system 0's zero pivot is U(2, 2)";
    }
}

// kiln.sytrd (jaxlib's ?sytrd_ffi / ?hetrd_ffi, lax.linalg.tridiagonal)
// against the CPU: both triangles, every type, batches of random matrices
// (the other triangle random too: it must come back as given), n = 0, 1,
// 2, 6 and 17, one column already reduced (a zero tau) and one of tiny
// entries (larfg's rescaling).
TEST_F(VulkanTest, TridiagonalReductionMatchesCpu) {
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> uniform(-1, 1);
  const int64_t sizes[] = {6, 17, 2, 1, 0}, batch = 2;
  for (const char* type : {"f32", "f64", "complex<f32>", "complex<f64>"})
    for (char uplo : {'L', 'U'}) {
      const bool complex = std::string(type).rfind("complex", 0) == 0;
      const bool f64 = std::string(type).find("64") != std::string::npos;
      const int64_t parts = complex ? 2 : 1;
      SCOPED_TRACE(std::string(type) + " " + uplo);
      // One module per type and triangle, a function per size (one shader).
      std::string src;
      for (int64_t n : sizes) {
        const std::vector<int64_t> dims = {batch, n, n};
        const std::string at = Shape(dims, type), rt = f64 ? "f64" : "f32";
        const int64_t nt = std::max<int64_t>(n - 1, 0);
        const std::string results = at + ", " + Shape({batch, n}, rt.c_str()) + ", " + Shape({batch, nt}, rt.c_str()) +
                                    ", " + Shape({batch, nt}, type) + ", " + Shape({batch}, "i32");
        const std::string target =
            std::string("lapack_") + (complex ? (f64 ? "zhetrd" : "chetrd") : (f64 ? "dsytrd" : "ssytrd")) + "_ffi";
        src += "func.func @n" + std::to_string(n) + "(%a: " + at + ") -> (" + results +
               ") {\n  %0:5 = stablehlo.custom_call @" + target + "(%a) {mhlo.backend_config = {uplo = " +
               std::to_string(int(uplo)) + " : ui8}, api_version = 4 : i32} : (" + at + ") -> (" + results +
               ")\n  return %0#0, %0#1, %0#2, %0#3, %0#4 : " + results + "\n}\n";
      }
      auto bytes = CompileAll(src, "vulkan");
      ASSERT_FALSE(bytes.empty());
      for (int64_t n : sizes) {
        SCOPED_TRACE("n = " + std::to_string(n));
        std::vector<double> a(batch * n * n * parts);
        for (double& x : a) x = uniform(rng);
        if (n == 6) {
          // Matrix 0: column 0 (lower) / 5 (upper) zero beyond the first
          // off-diagonal; matrix 1: that column's entries tiny.
          for (int64_t k = 2; k < n; ++k)
            for (int64_t q = 0; q < parts; ++q) {
              const int64_t r = uplo == 'L' ? k : n - 1 - k, c = uplo == 'L' ? 0 : n - 1;
              a[(r * n + c) * parts + q] = 0;
              a[(n * n + r * n + c) * parts + q] = f64 ? 1e-300 : 1e-39;
            }
        }
        std::vector<vm::HostTensor> got;
        ExpectFactorsMatch(cpu_.get(), vulkan_.get(), bytes, "n" + std::to_string(n),
                           {Matrices(a, {batch, n, n}, f64, complex)}, f64 ? 1e-12 : 2e-5, {"a", "d", "e", "tau"},
                           {"info"}, &got);
      }
    }
}

// Eigenvectors (batch x n x n, as columns; `parts` doubles per element)
// from the Vulkan device beside the CPU's: each column of unit length
// with A v = w v (the residual within tol times A's largest entry and n),
// and equal to the CPU's column; where `same_signs` is false a column may
// be the CPU's times -1 (or a unit phase): the two devices round the
// reduction differently, and in f32 a sweep more or less of steqr flips a
// vector's sign as legitimately as LAPACK's own rounding would. Without
// vectors (`vectors` false) both must be zero, and for a matrix holding a
// NaN or an infinity both NaN.
void ExpectEigenvectors(const std::vector<double>& a, const vm::HostTensor& want_t, const vm::HostTensor& got_t,
                        const std::vector<double>& w, int64_t batch, int64_t n, bool complex, bool lower, bool vectors,
                        double tol, bool same_signs) {
  using C = std::complex<double>;
  const int64_t parts = complex ? 2 : 1;
  const std::vector<double> want = Doubles(want_t), got = Doubles(got_t);
  ASSERT_EQ(want.size(), got.size());
  auto at = [&](const std::vector<double>& v, int64_t b, int64_t r, int64_t c) {
    const size_t i = static_cast<size_t>(((b * n + r) * n + c) * parts);
    return C(v[i], complex ? v[i + 1] : 0);
  };
  for (int64_t b = 0; b < batch; ++b) {
    bool finite = true;
    double amax = 0;
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < n; ++c) {
        const C x = at(a, b, r, c);
        finite = finite && std::isfinite(x.real()) && std::isfinite(x.imag());
        amax = std::max(amax, std::abs(x));
      }
    for (int64_t j = 0; j < n; ++j) {
      if (!vectors || !finite) {
        for (int64_t r = 0; r < n; ++r) {
          const C g = at(got, b, r, j), v = at(want, b, r, j);
          if (!finite) EXPECT_TRUE(std::isnan(g.real()) && std::isnan(v.real())) << "matrix " << b;
          else EXPECT_EQ(g, v) << "matrix " << b << " (" << r << ", " << j << ")";
        }
        continue;
      }
      C dot = 0;
      double norm2 = 0;
      for (int64_t r = 0; r < n; ++r) dot += std::conj(at(want, b, r, j)) * at(got, b, r, j), norm2 += std::norm(at(got, b, r, j));
      EXPECT_NEAR(std::sqrt(norm2), 1.0, tol) << "matrix " << b << " column " << j;
      const C phase = std::abs(dot) > 0 ? dot / std::abs(dot) : C(1);
      if (same_signs) EXPECT_NEAR(std::abs(phase - C(1)), 0.0, tol) << "matrix " << b << " column " << j << "'s sign";
      double err = 0, res = 0;
      for (int64_t r = 0; r < n; ++r) {
        err = std::max(err, std::abs(at(got, b, r, j) - phase * at(want, b, r, j)));
        C av = 0;
        for (int64_t k = 0; k < n; ++k) {
          const bool stored = lower ? r >= k : r <= k;
          const C x = stored ? at(a, b, r, k) : std::conj(at(a, b, k, r));
          av += (r == k ? C(x.real()) : x) * at(got, b, k, j);
        }
        res = std::max(res, std::abs(av - w[b * n + j] * at(got, b, r, j)));
      }
      EXPECT_LE(err, tol) << "matrix " << b << " column " << j;
      EXPECT_LE(res, tol * n * std::max(amax, 1e-300)) << "matrix " << b << " column " << j << "'s residual";
    }
  }
}

// kiln.syevd (jaxlib's ?syevd_ffi / ?heevd_ffi, jnp.linalg.eigh) against
// the CPU: every type, both triangles, with and without vectors, batches of
// random matrices (the other triangle random too: it must be ignored), n =
// 0, 1, 2, 6 and 17; among the n = 6 ones a diagonal matrix, one with a
// column already reduced (a zero tau), one of tiny and one of huge entries
// (syevd's scaling, whose eigenvalues are compared relative to their own
// size) and one holding a NaN (info 1, NaN results). The shader forms Q
// and rotates it where the CPU rotates the identity and applies Q after,
// so vectors agree within rounding, with the same signs.
TEST_F(VulkanTest, SymmetricEigenMatchesCpu) {
  std::mt19937_64 rng(47);
  std::uniform_real_distribution<double> uniform(-1, 1);
  const int64_t sizes[] = {6, 17, 2, 1, 0}, batch = 2;
  for (const char* type : {"f32", "f64", "complex<f32>", "complex<f64>"})
    for (char uplo : {'L', 'U'})
      for (char mode : {'V', 'N'}) {
        const bool complex = std::string(type).rfind("complex", 0) == 0;
        const bool f64 = std::string(type).find("64") != std::string::npos;
        const int64_t parts = complex ? 2 : 1;
        SCOPED_TRACE(std::string(type) + " " + uplo + " " + mode);
        const std::string target =
            std::string("lapack_") + (complex ? (f64 ? "zheevd" : "cheevd") : (f64 ? "dsyevd" : "ssyevd")) + "_ffi";
        std::string src;
        for (int64_t n : sizes) {
          const std::string at = Shape({batch, n, n}, type);
          const std::string results = at + ", " + Shape({batch, n}, f64 ? "f64" : "f32") + ", " + Shape({batch}, "i32");
          src += "func.func @n" + std::to_string(n) + "(%a: " + at + ") -> (" + results + ") {\n  %0:3 = " +
                 "stablehlo.custom_call @" + target + "(%a) {mhlo.backend_config = {mode = " + std::to_string(int(mode)) +
                 " : ui8, uplo = " + std::to_string(int(uplo)) + " : ui8}, api_version = 4 : i32} : (" + at + ") -> (" +
                 results + ")\n  return %0#0, %0#1, %0#2 : " + results + "\n}\n";
        }
        auto bytes = CompileAll(src, "vulkan");
        ASSERT_FALSE(bytes.empty());
        const double tol = f64 ? 1e-9 : 2e-3;
        for (int64_t n : sizes)
          for (int variant = 0; variant < (n == 6 ? 4 : 1); ++variant) {
            SCOPED_TRACE("n = " + std::to_string(n) + ", variant " + std::to_string(variant));
            std::vector<double> a(batch * n * n * parts);
            for (double& x : a) x = uniform(rng);
            double scale = 1;
            if (variant == 1) {
              // Matrix 0 diagonal; matrix 1 with column 0 (lower) / 5
              // (upper) zero beyond the first off-diagonal.
              for (int64_t r = 0; r < n; ++r)
                for (int64_t c = 0; c < n; ++c)
                  if (r != c)
                    for (int64_t q = 0; q < parts; ++q) a[(r * n + c) * parts + q] = 0;
              for (int64_t k = 2; k < n; ++k)
                for (int64_t q = 0; q < parts; ++q) {
                  const int64_t r = uplo == 'L' ? k : n - 1 - k, c = uplo == 'L' ? 0 : n - 1;
                  a[(n * n + r * n + c) * parts + q] = 0;
                }
            } else if (variant == 2 || variant == 3) {
              scale = variant == 2 ? (f64 ? 1e-300 : 1e-30) : (f64 ? 1e300 : 1e30);
              for (double& x : a) x *= scale;
              if (variant == 3) a[(n * n + n + 2) * parts] = std::nan("");  // matrix 1: (1, 2), both triangles
              if (variant == 3) a[(n * n + 2 * n + 1) * parts] = std::nan("");
            }
            const vm::HostTensor in = Matrices(a, {batch, n, n}, f64, complex);
            auto want = RunOn(cpu_.get(), bytes, "n" + std::to_string(n), {in});
            auto got = RunOn(vulkan_.get(), bytes, "n" + std::to_string(n), {in});
            ASSERT_TRUE(want.ok()) << want.status().message();
            ASSERT_TRUE(got.ok()) << got.status().message();
            EXPECT_EQ((*want)[2].data, (*got)[2].data) << "info";
            ExpectClose((*want)[1], (*got)[1], tol, "w");
            ExpectEigenvectors(Doubles(in), (*want)[0], (*got)[0], Doubles((*got)[1]), batch, n, complex, uplo == 'L',
                               mode == 'V', tol, f64 || n <= 6);
            if (variant == 3) EXPECT_EQ(std::isnan(Doubles((*got)[1])[n]), true) << "matrix 1 holds a NaN";
            if (scale != 1) {  // the eigenvalues relative to their size
              std::vector<double> w = Doubles((*want)[1]), g = Doubles((*got)[1]);
              for (size_t i = 0; i < w.size(); ++i)
                if (!std::isnan(w[i])) EXPECT_NEAR(g[i] / scale, w[i] / scale, tol * 4) << "eigenvalue " << i;
            }
          }
      }
}

// kiln.geqp3 (jaxlib's ?geqp3_ffi, QR with column pivoting) against the
// CPU: every type, tall, wide and square batches, free columns, fixed ones
// (jpvt != 0, moved to the front), and columns that tie or vanish (a zero
// column, two of one norm); the
// pivots must be the CPU's exactly, the factor and tau within rounding.
TEST_F(VulkanTest, PivotedQrMatchesCpu) {
  std::mt19937_64 rng(53);
  std::uniform_real_distribution<double> uniform(-1, 1);
  const int64_t shapes[][2] = {{7, 5}, {4, 6}, {6, 6}, {1, 3}, {3, 1}, {0, 2}, {2, 0}}, batch = 3;
  for (const char* type : {"f32", "f64", "complex<f32>", "complex<f64>"}) {
    const bool complex = std::string(type).rfind("complex", 0) == 0;
    const bool f64 = std::string(type).find("64") != std::string::npos;
    const int64_t parts = complex ? 2 : 1;
    SCOPED_TRACE(type);
    const std::string target = std::string("lapack_") + (complex ? (f64 ? "z" : "c") : (f64 ? "d" : "s")) + "geqp3_ffi";
    std::string src;
    for (const auto& mn : shapes) {
      const int64_t m = mn[0], n = mn[1];
      const std::string at = Shape({batch, m, n}, type), pt = Shape({batch, n}, "i32");
      const std::string tt = Shape({batch, std::min(m, n)}, type);
      const std::string fn = "m" + std::to_string(m) + "n" + std::to_string(n);
      // Returned as (a, tau, jpvt): the factors within rounding first.
      src += "func.func @" + fn + "(%a: " + at + ", %p: " + pt + ") -> (" + at + ", " + tt + ", " + pt +
             ") {\n  %0:3 = stablehlo.custom_call @" + target + "(%a, %p) {mhlo.backend_config = {}} : (" + at + ", " +
             pt + ") -> (" + at + ", " + pt + ", " + tt + ")\n  return %0#0, %0#2, %0#1 : " + at + ", " + tt + ", " + pt +
             "\n}\n";
    }
    auto bytes = CompileAll(src, "vulkan");
    ASSERT_FALSE(bytes.empty());
    for (const auto& mn : shapes) {
      const int64_t m = mn[0], n = mn[1];
      SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n));
      std::vector<double> a(batch * m * n * parts);
      for (double& x : a) x = uniform(rng);
      std::vector<int32_t> jpvt(batch * n, 0);
      if (n >= 3 && m >= 2) {
        // Matrix 1: column 2 fixed, column 0 zero; matrix 2: column 0
        // fixed, and column 2 column 1 with every other row negated (the
        // same norm, so the two tie; a plain copy would leave a remainder
        // of rounding noise, which no two devices factor alike).
        jpvt[n + 2] = 1;
        for (int64_t r = 0; r < m; ++r)
          for (int64_t q = 0; q < parts; ++q) {
            a[((m * n) + r * n) * parts + q] = 0;
            a[((2 * m * n) + r * n + 2) * parts + q] = (r % 2 ? -1 : 1) * a[((2 * m * n) + r * n + 1) * parts + q];
          }
        jpvt[2 * n] = 7;
      }
      vm::HostTensor p;
      p.type = ElementType::kSI32;
      p.dims = {batch, n};
      p.data.resize(jpvt.size() * 4);
      if (!jpvt.empty()) std::memcpy(p.data.data(), jpvt.data(), p.data.size());
      std::vector<vm::HostTensor> got;
      const std::string fn = "m" + std::to_string(m) + "n" + std::to_string(n);
      ExpectFactorsMatch(cpu_.get(), vulkan_.get(), bytes, fn, {Matrices(a, {batch, m, n}, f64, complex), p},
                         f64 ? 1e-12 : 2e-5, {"a", "tau"}, {"jpvt"}, &got);
    }
  }
}

// Singular vectors from the Vulkan device beside the CPU's (u: batch x m x
// uc, vt: batch x vr x n, `parts` doubles per element, s the CPU's
// singular values): for each of the k singular triplets the pair (u_i,
// v_i) equals the CPU's times one common sign (or unit phase), within tol;
// for a zero singular value u_i and v_i each have their own sign, and of
// a matrix that is not square only the vector on the shorter side (v
// tall, u wide) is unique, and only it is compared. U's columns past k (mode 'A', m > k) and VT's rows past k
// come from the same reflectors and must equal the CPU's, unless the
// matrix has a zero singular value (then they are a basis of a null space
// that rounding picks). Without vectors,
// and for a matrix holding a NaN, both must be the CPU's exactly (zero,
// or NaN).
void ExpectSingularVectors(const std::vector<double>& want_u, const std::vector<double>& got_u,
                           const std::vector<double>& want_vt, const std::vector<double>& got_vt,
                           const std::vector<double>& s, int64_t batch, int64_t m, int64_t n, int64_t uc, int64_t vr,
                           bool complex, bool vectors, const std::vector<bool>& finite, double tol) {
  using C = std::complex<double>;
  const int64_t parts = complex ? 2 : 1, k = std::min(m, n);
  auto at = [&](const std::vector<double>& v, int64_t rows, int64_t cols, int64_t b, int64_t r, int64_t c) {
    const size_t i = static_cast<size_t>(((b * rows + r) * cols + c) * parts);
    return C(v[i], complex ? v[i + 1] : 0);
  };
  ASSERT_EQ(want_u.size(), got_u.size());
  ASSERT_EQ(want_vt.size(), got_vt.size());
  auto same = [](double w, double g) { return std::isnan(w) ? std::isnan(g) : w == g; };
  for (int64_t b = 0; b < batch; ++b) {
    if (!vectors || !finite[b]) {
      for (size_t i = 0; i < want_u.size(); ++i)
        if (!vectors || i / (m * uc * parts) == static_cast<size_t>(b))
          EXPECT_TRUE(same(want_u[i], got_u[i])) << "u element " << i;
      for (size_t i = 0; i < want_vt.size(); ++i)
        if (!vectors || i / (vr * n * parts) == static_cast<size_t>(b))
          EXPECT_TRUE(same(want_vt[i], got_vt[i])) << "vt element " << i;
      continue;
    }
    const bool singular = k > 0 && s[b * k + k - 1] <= tol * s[b * k];
    for (int64_t j = 0; j < std::max(uc, vr); ++j) {
      const bool null = m != n && singular && (j >= k || s[b * k + j] <= tol * s[b * k]);
      const bool check_u = j < uc && !(null && m > n), check_v = j < vr && !(null && m < n);
      // The phases that take the CPU's u_j and vt's row j to the device's:
      // one for the pair, or (a zero singular value pairs no phases) each
      // its own.
      C du = 0, dv = 0;
      if (check_u)
        for (int64_t r = 0; r < m; ++r) du += std::conj(at(want_u, m, uc, b, r, j)) * at(got_u, m, uc, b, r, j);
      if (check_v)
        for (int64_t c = 0; c < n; ++c) dv += std::conj(at(want_vt, vr, n, b, j, c)) * at(got_vt, vr, n, b, j, c);
      auto unit = [](C z) { return std::abs(z) > 0 ? z / std::abs(z) : C(1); };
      const bool zero = j < k && s[b * k + j] <= tol * s[b * k];
      const C pu = j < k ? unit(du) : C(1);
      const C pv = j >= k ? C(1) : (zero || !check_u) ? unit(dv) : std::conj(pu);
      double err = 0;
      if (check_u)
        for (int64_t r = 0; r < m; ++r)
          err = std::max(err, std::abs(at(got_u, m, uc, b, r, j) - pu * at(want_u, m, uc, b, r, j)));
      if (check_v)
        for (int64_t c = 0; c < n; ++c)
          err = std::max(err, std::abs(at(got_vt, vr, n, b, j, c) - pv * at(want_vt, vr, n, b, j, c)));
      EXPECT_LE(err, tol) << "matrix " << b << " vector " << j;
    }
  }
}

// kiln.gesdd and kiln.gesvd (jaxlib's ?gesdd_ffi / ?gesvd_ffi,
// jnp.linalg.svd) against the CPU: every type, both routines and modes
// 'A', 'S' and 'N' over tall, wide and square matrices, with the QR (LQ)
// first and without (a wide matrix's lower bidiagonal form), each a batch
// of a random matrix, one with a zero column (tall) or row (wide), one
// holding a NaN (info 1, NaN results) and one of tiny entries (the
// scaling; singular values compared relative to their matrix's largest);
// and the shapes at the edges: one column (gesdd's 1 x 1 bidiagonal, its
// sign in U), one row (gesvd's, in VT) and no columns. Singular values
// within rounding of the CPU's, info equal, the vectors as
// ExpectSingularVectors.
TEST_F(VulkanTest, SingularValueDecompositionMatchesCpu) {
  std::mt19937_64 rng(59);
  std::uniform_real_distribution<double> uniform(-1, 1);
  struct Case {
    const char* routine;
    char mode;
    int64_t m, n;
    bool every_type;  // else f32 only
  };
  // gesdd takes the QR first from m >= 11k/6 (17k/9 complex), gesvd from
  // m >= 1.6k: 9 x 4, 4 x 9 and (gesvd) 6 x 4 with it, 4 x 6 and 4 x 5
  // without (lower). The shape is a run-time parameter: each routine and
  // mode is one shader, which lavapipe takes seconds to build, so the
  // types other than f32 run three of them.
  const Case cases[] = {{"gesdd", 'A', 9, 4, true},  {"gesdd", 'A', 4, 6, true},  {"gesdd", 'A', 5, 5, true},
                        {"gesdd", 'A', 3, 1, true},  {"gesdd", 'A', 3, 0, true},  {"gesvd", 'S', 4, 9, true},
                        {"gesvd", 'S', 4, 5, true},  {"gesvd", 'S', 6, 4, true},  {"gesvd", 'S', 1, 3, true},
                        {"gesdd", 'N', 4, 9, true},  {"gesdd", 'N', 5, 4, true},  {"gesdd", 'S', 4, 9, false},
                        {"gesvd", 'A', 4, 5, false}, {"gesvd", 'N', 5, 5, false}};
  const int64_t batch = 4;
  for (const char* type : {"f32", "f64", "complex<f32>", "complex<f64>"})
    for (const Case& c : cases) {
      if (!c.every_type && std::string(type) != "f32") continue;
      const bool complex = std::string(type).rfind("complex", 0) == 0;
      const bool f64 = std::string(type).find("64") != std::string::npos;
      const int64_t parts = complex ? 2 : 1, m = c.m, n = c.n, k = std::min(m, n);
      const int64_t uc = c.mode == 'A' ? m : k, vr = c.mode == 'A' ? n : k;
      SCOPED_TRACE(std::string(type) + " " + c.routine + " " + c.mode + " " + std::to_string(m) + " x " +
                   std::to_string(n));
      const std::string target =
          std::string("lapack_") + (complex ? (f64 ? "z" : "c") : (f64 ? "d" : "s")) + c.routine + "_ffi";
      const std::string at = Shape({batch, m, n}, type);
      const std::string results = at + ", " + Shape({batch, k}, f64 ? "f64" : "f32") + ", " +
                                  Shape({batch, m, uc}, type) + ", " + Shape({batch, vr, n}, type) + ", " +
                                  Shape({batch}, "i32");
      const std::string src = "func.func @main(%a: " + at + ") -> (" + results + ") {\n  %0:5 = stablehlo.custom_call @" +
                              target + "(%a) {mhlo.backend_config = {mode = " + std::to_string(int(c.mode)) +
                              " : ui8}, api_version = 4 : i32} : (" + at + ") -> (" + results +
                              ")\n  return %0#0, %0#1, %0#2, %0#3, %0#4 : " + results + "\n}\n";
      auto bytes = CompileAll(src, "vulkan");
      ASSERT_FALSE(bytes.empty());
      const double tol = f64 ? 1e-9 : 2e-3;
      std::vector<double> a(batch * m * n * parts);
      for (double& x : a) x = uniform(rng);
      std::vector<bool> finite(batch, true);
      std::vector<double> scale(batch, 1.0);
      if (k > 1) {
        // Matrix 1: its second column (tall) or row (wide) zero; matrix 2
        // holds a NaN; matrix 3 tiny.
        for (int64_t i = 0; i < std::max(m, n); ++i)
          for (int64_t q = 0; q < parts; ++q) a[(m * n + (m >= n ? i * n + 1 : n + i)) * parts + q] = 0;
        a[(2 * m * n + n + 1) * parts] = std::nan("");
        finite[2] = false;
        scale[3] = f64 ? 1e-300 : 1e-30;
        for (int64_t i = 0; i < m * n * parts; ++i) a[3 * m * n * parts + i] *= scale[3];
      }
      const vm::HostTensor in = Matrices(a, {batch, m, n}, f64, complex);
      auto want = RunOn(cpu_.get(), bytes, "main", {in});
      auto got = RunOn(vulkan_.get(), bytes, "main", {in});
      ASSERT_TRUE(want.ok()) << want.status().message();
      ASSERT_TRUE(got.ok()) << got.status().message();
      EXPECT_EQ((*want)[4].data, (*got)[4].data) << "info";
      EXPECT_EQ((*want)[0].data, (*got)[0].data) << "a (zero)";
      const std::vector<double> ws = Doubles((*want)[1]), gs = Doubles((*got)[1]);
      ASSERT_EQ(ws.size(), gs.size());
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t i = 0; i < k; ++i) {
          const double w = ws[b * k + i] / scale[b], g = gs[b * k + i] / scale[b];
          if (std::isnan(w)) EXPECT_TRUE(std::isnan(g)) << "s " << b << ", " << i;
          else EXPECT_NEAR(g, w, tol * std::max(ws[b * k] / scale[b], 1.0)) << "s " << b << ", " << i;
        }
      ExpectSingularVectors(Doubles((*want)[2]), Doubles((*got)[2]), Doubles((*want)[3]), Doubles((*got)[3]), ws,
                            batch, m, n, uc, vr, complex, c.mode != 'N', finite, tol);
    }
}

// Every form of triangular_solve (left and right side, lower and upper,
// no transpose, transpose and adjoint, unit diagonal or not) over a batch
// of two well-conditioned systems, real and complex.
TEST_F(VulkanTest, TriangularSolveMatchesCpu) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> uniform(-1, 1);
  const int64_t batch = 2, m = 5, k = 3;
  for (const char* type : {"f32", "f64", "complex<f32>", "complex<f64>"}) {
    SCOPED_TRACE(type);
    const bool complex = std::string(type).rfind("complex", 0) == 0;
    const bool f64 = std::string(type).find("64") != std::string::npos;
    const int parts = complex ? 2 : 1;
    std::vector<double> a(batch * m * m * parts), bl(batch * m * k * parts), br(batch * k * m * parts);
    for (double& x : a) x = uniform(rng);
    for (int64_t bi = 0; bi < batch; ++bi)
      for (int64_t i = 0; i < m; ++i) a[((bi * m + i) * m + i) * parts] += 4.0;  // a strong diagonal
    for (double& x : bl) x = uniform(rng);
    for (double& x : br) x = uniform(rng);
    const std::string at = Shape({batch, m, m}, type), lt = Shape({batch, m, k}, type), rt = Shape({batch, k, m}, type);
    std::string src;
    std::vector<std::string> fns;
    for (bool left : {true, false})
      for (bool lower : {true, false})
        for (const char* ta : {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"})
          for (bool unit : {false, true}) {
            const std::string fn = std::string("solve_") + (left ? "l" : "r") + (lower ? "lo" : "up") + "_" + ta +
                                   (unit ? "_unit" : "");
            const std::string bt = left ? lt : rt;
            src += "func.func @" + fn + "(%a: " + at + ", %b: " + bt + ") -> " + bt +
                   " {\n  %x = \"stablehlo.triangular_solve\"(%a, %b) {left_side = " + (left ? "true" : "false") +
                   ", lower = " + (lower ? "true" : "false") + ", unit_diagonal = " + (unit ? "true" : "false") +
                   ", transpose_a = #stablehlo<transpose " + ta + ">} : (" + at + ", " + bt + ") -> " + bt +
                   "\n  return %x : " + bt + "\n}\n";
            fns.push_back(fn);
          }
    auto bytes = CompileAll(src, "vulkan");
    ASSERT_FALSE(bytes.empty());
    auto tensor = [&](const std::vector<double>& v, std::vector<int64_t> dims) {
      vm::HostTensor h = Matrices(v, dims, f64);
      if (complex) h.type = f64 ? ElementType::kC128 : ElementType::kC64;
      return h;
    };
    for (const std::string& fn : fns) {
      SCOPED_TRACE(fn);
      const bool left = fn[6] == 'l';
      std::vector<vm::HostTensor> in = {tensor(a, {batch, m, m}),
                                        left ? tensor(bl, {batch, m, k}) : tensor(br, {batch, k, m})};
      auto want = RunOn(cpu_.get(), bytes, fn, in);
      auto got = RunOn(vulkan_.get(), bytes, fn, in);
      ASSERT_TRUE(want.ok()) << want.status().message();
      ASSERT_TRUE(got.ok()) << got.status().message();
      vm::HostTensor w = (*want)[0], g = (*got)[0];
      w.type = g.type = f64 ? ElementType::kF64 : ElementType::kF32;  // compare part by part
      ExpectClose(w, g, f64 ? 1e-12 : 1e-5, "solution");
    }
  }
}

// batch_norm_training and batch_norm_grad (compiler/vulkan/kernels_reduction.cc)
// over every feature axis position, f32 and f64: both devices compute in f64
// and round once, in the same order. An empty operand still has its
// per-feature results (NaN means and variances, zero gradient sums).
TEST_F(VulkanTest, BatchNormTrainingAndGradMatchCpu) {
  std::mt19937_64 rng(17);
  std::normal_distribution<double> normal(0.5, 2.0);
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{2, 3, 4, 5}, std::vector<int64_t>{2, 0, 4, 5}})
  for (bool f64 : {false, true})
    for (int64_t feature : {0, 1, 3}) {
      if (dims[1] == 0 && feature == 1) continue;  // (no features: nothing to compute)
      const char* type = f64 ? "f64" : "f32";
      SCOPED_TRACE(std::string(type) + " feature_index " + std::to_string(feature) + (dims[1] == 0 ? " empty" : ""));
      const int64_t nf = dims[feature];
      const std::string xt = Shape(dims, type), vt = Shape({nf}, type);
      const std::string attrs = "epsilon = 1.0e-3 : f32, feature_index = " + std::to_string(feature) + " : i64";
      const std::string src =
          "func.func @train(%x: " + xt + ", %s: " + vt + ", %o: " + vt + ") -> (" + xt + ", " + vt + ", " + vt +
          ") {\n  %y, %m, %v = \"stablehlo.batch_norm_training\"(%x, %s, %o) {" + attrs + "} : (" + xt + ", " + vt +
          ", " + vt + ") -> (" + xt + ", " + vt + ", " + vt + ")\n  return %y, %m, %v : " + xt + ", " + vt + ", " + vt +
          "\n}\n" + "func.func @grad(%x: " + xt + ", %s: " + vt + ", %m: " + vt + ", %v: " + vt + ", %g: " + xt +
          ") -> (" + xt + ", " + vt + ", " + vt + ") {\n  %gx, %gs, %go = \"stablehlo.batch_norm_grad\"(%x, %s, %m, %v, %g) {" +
          attrs + "} : (" + xt + ", " + vt + ", " + vt + ", " + vt + ", " + xt + ") -> (" + xt + ", " + vt + ", " + vt +
          ")\n  return %gx, %gs, %go : " + xt + ", " + vt + ", " + vt + "\n}\n";
      auto bytes = CompileAll(src, "vulkan");
      ASSERT_FALSE(bytes.empty());
      auto random = [&](int64_t n, bool positive) {
        std::vector<double> v(n);
        for (double& e : v) e = positive ? std::abs(normal(rng)) + 0.1 : normal(rng);
        return v;
      };
      const int64_t n = dims[0] * dims[1] * dims[2] * dims[3];
      std::vector<vm::HostTensor> tin = {Matrices(random(n, false), dims, f64), Matrices(random(nf, false), {nf}, f64),
                                         Matrices(random(nf, false), {nf}, f64)};
      std::vector<vm::HostTensor> gin = {tin[0], tin[1], Matrices(random(nf, false), {nf}, f64),
                                         Matrices(random(nf, true), {nf}, f64), Matrices(random(n, false), dims, f64)};
      for (const char* fn : {"train", "grad"}) {
        const auto& in = std::string(fn) == "train" ? tin : gin;
        auto want = RunOn(cpu_.get(), bytes, fn, in);
        auto got = RunOn(vulkan_.get(), bytes, fn, in);
        ASSERT_TRUE(want.ok()) << want.status().message();
        ASSERT_TRUE(got.ok()) << got.status().message();
        for (size_t r = 0; r < 3; ++r)
          ExpectClose((*want)[r], (*got)[r], f64 ? 1e-13 : 1e-7, std::string(fn) + " result " + std::to_string(r));
      }
    }
}

// chlo.ragged_dot (compiler/vulkan/kernels_contraction.cc) in its three
// modes: the ragged dim free (with an rhs group dim, and a batch dim
// beside it), contracting (a leading group dim in the result) and batching;
// group sizes with an empty group and a sum short of the ragged dim (the
// rows past the last group are zero); f32 within rounding, i32 bit for bit.
TEST_F(VulkanTest, RaggedDotMatchesCpu) {
  struct Case {
    const char* name;
    std::vector<int64_t> lhs, rhs, out;
    const char* dims;  // the #chlo.ragged_dot attribute's body
  };
  const Case cases[] = {
      {"free", {11, 5}, {3, 5, 7}, {11, 7},
       "lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], "
       "rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]"},
      {"free_batched", {2, 11, 5}, {3, 2, 5, 7}, {2, 11, 7},
       "lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], "
       "rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]"},
      {"contracting", {11, 9}, {9, 7}, {3, 11, 7},
       "lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], "
       "rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1], rhs_group_dimensions = []"},
      {"batching", {9, 11, 5}, {9, 5, 7}, {9, 11, 7},
       "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], "
       "rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = []"}};
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (const char* type : {"f32", "i32"})
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(type) + " " + c.name);
      const std::string lt = Shape(c.lhs, type), rt = Shape(c.rhs, type), ot = Shape(c.out, type),
                        gt = Shape({3}, "i64");
      const std::string src = "func.func @main(%l: " + lt + ", %r: " + rt + ", %g: " + gt + ") -> " + ot +
                              " {\n  %x = \"chlo.ragged_dot\"(%l, %r, %g) {ragged_dot_dimension_numbers = "
                              "#chlo.ragged_dot<" + c.dims + ">} : (" + lt + ", " + rt + ", " + gt + ") -> " + ot +
                              "\n  return %x : " + ot + "\n}\n";
      auto bytes = CompileAll(src, "vulkan");
      ASSERT_FALSE(bytes.empty());
      auto tensor = [&](const std::vector<int64_t>& dims) {
        int64_t n = 1;
        for (int64_t d : dims) n *= d;
        std::vector<double> v(n);
        for (double& e : v) e = uniform(rng);
        vm::HostTensor h = Matrices(v, dims, false);
        if (std::string(type) == "i32") {
          for (int64_t i = 0; i < n; ++i) {
            const int32_t x = static_cast<int32_t>(v[i] * 1000);
            std::memcpy(&h.data[i * 4], &x, 4);
          }
          h.type = ElementType::kSI32;
        }
        return h;
      };
      // Group sizes 4, 0, 3: 7 of the ragged dim's 9 or 11 (a zero group).
      vm::HostTensor g;
      g.type = ElementType::kSI64;
      g.dims = {3};
      const int64_t sizes[3] = {4, 0, 3};
      g.data.resize(24);
      std::memcpy(g.data.data(), sizes, 24);
      std::vector<vm::HostTensor> in = {tensor(c.lhs), tensor(c.rhs), g};
      auto want = RunOn(cpu_.get(), bytes, "main", in);
      auto got = RunOn(vulkan_.get(), bytes, "main", in);
      ASSERT_TRUE(want.ok()) << want.status().message();
      ASSERT_TRUE(got.ok()) << got.status().message();
      if (std::string(type) == "i32") EXPECT_EQ((*want)[0].data, (*got)[0].data);
      else ExpectClose((*want)[0], (*got)[0], 1e-6, "result");
    }
}

// complex<f32> and complex<f64> ragged dots, the free mode (each row's
// group picks its rhs slice, rows past the groups zero) against the CPU.
TEST_F(VulkanTest, ComplexRaggedDotMatchesCpu) {
  vm::HostTensor g;
  g.type = ElementType::kSI64;
  g.dims = {3};
  const int64_t sizes[3] = {4, 0, 3};
  g.data.resize(24);
  std::memcpy(g.data.data(), sizes, 24);
  for (const char* type : {"complex<f32>", "complex<f64>"}) {
    SCOPED_TRACE(type);
    const std::string t = type;
    const std::string lt = Shape({11, 5}, type), rt = Shape({3, 5, 7}, type), ot = Shape({11, 7}, type),
                      gt = Shape({3}, "i64");
    const std::string src = "func.func @main(%l: " + lt + ", %r: " + rt + ", %g: " + gt + ") -> " + ot +
                            " {\n  %x = \"chlo.ragged_dot\"(%l, %r, %g) {ragged_dot_dimension_numbers = "
                            "#chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], "
                            "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], "
                            "lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>} : (" +
                            lt + ", " + rt + ", " + gt + ") -> " + ot + "\n  return %x : " + ot + "\n}\n";
    ExpectComplexProgramMatchesCpu(cpu_.get(), vulkan_.get(), src, t == "complex<f64>", {{11, 5}, {3, 5, 7}}, 5, {g});
  }
}

// QR as JAX lowers jnp.linalg.qr on the CPU (LAPACK's geqrf, then orgqr),
// which the compiler turns into kiln.geqrf and kiln.orgqr: square, tall,
// wide (geqrf only) and batched, real and complex, with a zero column and
// a column of tiny values (larfg's rescaling) among them.
TEST_F(VulkanTest, QrMatchesCpu) {
  std::mt19937_64 rng(41);
  std::uniform_real_distribution<double> uniform(-1, 1);
  struct Case {
    int64_t batch, m, n;
  };
  for (const char* type : {"f32", "f64", "complex<f32>", "complex<f64>"})
    for (Case c : {Case{1, 4, 4}, Case{2, 6, 4}, Case{1, 3, 5}, Case{3, 7, 2}}) {
      const bool complex = std::string(type).rfind("complex", 0) == 0;
      const bool f64 = std::string(type).find("64") != std::string::npos;
      const int64_t parts = complex ? 2 : 1;
      SCOPED_TRACE(std::string(type) + " " + std::to_string(c.batch) + "x" + std::to_string(c.m) + "x" +
                   std::to_string(c.n));
      const int64_t k = std::min(c.m, c.n);
      std::vector<double> a(c.batch * c.m * c.n * parts);
      for (double& v : a) v = uniform(rng);
      for (int64_t r = 0; r < c.m; ++r)
        for (int64_t q = 0; q < parts; ++q) {
          if (c.n > 1) a[(r * c.n + 1) * parts + q] = 0.0;                                   // a zero column
          if (c.n > 2) a[(r * c.n + 2) * parts + q] = (f64 ? 1e-300 : 1e-36) * uniform(rng);  // tiny: rescaled
        }
      // A column whose entries below the diagonal are zero but whose
      // diagonal is not real: complex larfg still reflects (tau != 0).
      if (complex && c.n > 3 && c.m > 3)
        for (int64_t r = 4; r < c.m; ++r) a[(r * c.n + 3) * parts] = a[(r * c.n + 3) * parts + 1] = 0.0;
      const std::string at = Shape({c.batch, c.m, c.n}, type), tt = Shape({c.batch, k}, type),
                        it = Shape({c.batch}, "i32"), wt = Shape({64}, type);
      const std::string p = complex ? (f64 ? "z" : "c") : (f64 ? "d" : "s");
      std::string src = "func.func @main(%a: " + at + ") -> (" + at + ", " + tt + ", " + it + ", " + at +
                        ") {\n  %0:4 = stablehlo.custom_call @lapack_" + p +
                        "geqrf_ffi(%a) {mhlo.backend_config = {}, api_version = 4 : i32} : (" + at + ") -> (" + at +
                        ", " + tt + ", " + it + ", " + wt + ")\n";
      if (c.m >= c.n) {
        src += "  %1:3 = stablehlo.custom_call @lapack_" + p + (complex ? "ungqr" : "orgqr") +
               "_ffi(%0#0, %0#1) {mhlo.backend_config = {}, "
               "api_version = 4 : i32} : (" + at + ", " + tt + ") -> (" + at + ", " + it + ", " + wt + ")\n";
        src += "  return %0#0, %0#1, %0#2, %1#0 : " + at + ", " + tt + ", " + it + ", " + at + "\n}\n";
      } else {
        src += "  return %0#0, %0#1, %0#2, %0#0 : " + at + ", " + tt + ", " + it + ", " + at + "\n}\n";
      }
      auto bytes = CompileAll(src, "vulkan");
      ASSERT_FALSE(bytes.empty());
      vm::HostTensor x = Matrices(a, {c.batch, c.m, c.n}, f64, complex);
      auto want = RunOn(cpu_.get(), bytes, "main", {x});
      auto got = RunOn(vulkan_.get(), bytes, "main", {x});
      ASSERT_TRUE(want.ok()) << want.status().message();
      ASSERT_TRUE(got.ok()) << got.status().message();
      const double tol = f64 ? 1e-12 : 2e-5;
      ExpectClose((*want)[0], (*got)[0], tol, "factors");
      ExpectClose((*want)[1], (*got)[1], tol, "tau");
      EXPECT_EQ((*want)[2].data, (*got)[2].data) << "info";
      ExpectClose((*want)[3], (*got)[3], tol, "q");
    }
}

// LAPACK's Hessenberg reduction as JAX calls it (@lapack_?gehrd_ffi, which
// the compiler turns into kiln.gehrd): real and complex, batched, n 1, 5
// and 6, the whole matrix (low 1, high n) and a partial range (low 2, high
// n - 1), against the CPU device.
TEST_F(VulkanTest, GehrdMatchesCpu) {
  std::mt19937_64 rng(43);
  std::uniform_real_distribution<double> uniform(-1, 1);
  struct Case {
    int64_t batch, n, low, high;
  };
  for (const char* type : {"f32", "f64", "complex<f32>", "complex<f64>"})
    for (Case c : {Case{2, 5, 1, 5}, Case{1, 1, 1, 1}, Case{2, 6, 2, 5}}) {
      const bool complex = std::string(type).rfind("complex", 0) == 0;
      const bool f64 = std::string(type).find("64") != std::string::npos;
      SCOPED_TRACE(std::string(type) + " " + std::to_string(c.batch) + "x" + std::to_string(c.n) + " low " +
                   std::to_string(c.low) + " high " + std::to_string(c.high));
      std::vector<double> a(c.batch * c.n * c.n * (complex ? 2 : 1));
      for (double& v : a) v = uniform(rng);
      const std::string at = Shape({c.batch, c.n, c.n}, type), tt = Shape({c.batch, std::max<int64_t>(c.n - 1, 0)}, type),
                        it = Shape({c.batch}, "i32");
      const std::string p = complex ? (f64 ? "z" : "c") : (f64 ? "d" : "s");
      const std::string src = "func.func @main(%a: " + at + ") -> (" + at + ", " + tt + ", " + it +
                              ") {\n  %0:3 = stablehlo.custom_call @lapack_" + p +
                              "gehrd_ffi(%a) {mhlo.backend_config = {high = " + std::to_string(c.high) +
                              " : i32, low = " + std::to_string(c.low) + " : i32}, api_version = 4 : i32} : (" + at +
                              ") -> (" + at + ", " + tt + ", " + it + ")\n  return %0#0, %0#1, %0#2 : " + at + ", " +
                              tt + ", " + it + "\n}\n";
      auto bytes = CompileAll(src, "vulkan");
      ASSERT_FALSE(bytes.empty());
      vm::HostTensor x = Matrices(a, {c.batch, c.n, c.n}, f64, complex);
      auto want = RunOn(cpu_.get(), bytes, "main", {x});
      auto got = RunOn(vulkan_.get(), bytes, "main", {x});
      ASSERT_TRUE(want.ok()) << want.status().message();
      ASSERT_TRUE(got.ok()) << got.status().message();
      const double tol = f64 ? 1e-12 : 2e-5;
      ExpectClose((*want)[0], (*got)[0], tol, "h");
      ExpectClose((*want)[1], (*got)[1], tol, "tau");
      EXPECT_EQ((*want)[2].data, (*got)[2].data) << "info";
    }
}

}  // namespace
}  // namespace kiln::vulkan_test

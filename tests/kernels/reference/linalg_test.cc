// Tests of the reference linear-algebra kernels: triangular_solve,
// cholesky, kiln.lu, kiln.geqrf, kiln.orgqr, kiln.syevd, kiln.gesdd and kiln.gesvd.
// Right-hand sides are built from a known x (b = op(a) x), so the expected
// result is x.
#include <cmath>
#include <random>

#include "tests/kernels/reference/numeric_test_util.h"

namespace kiln::ref::numeric_test {
namespace {

std::vector<KernelAttr> TS(bool left, bool lower, bool unit, std::string transpose) {
  return {Int("left_side", left), Int("lower", lower), Int("unit_diagonal", unit), Str("transpose_a", transpose)};
}

// a = [[2,0,0],[1,4,0],[3,2,5]] with junk in the unused upper triangle.
Tensor LowerA(ElementType t) { return T(t, {3, 3}, {2, 99, 99, 1, 4, 99, 3, 2, 5}); }

TEST(NumericTriangularSolve, LeftLowerNoTranspose) {
  Tensor a = LowerA(kF32);
  Tensor b = T(kF32, {3, 1}, {2, 9, 22});  // a x, x = [1,2,3]
  Tensor out = Zeros(kF32, {3, 1});
  ASSERT_TRUE(Call("stablehlo.triangular_solve", TS(true, true, false, "NO_TRANSPOSE"), {&a, &b}, {&out}).ok());
  ExpectNear(D(out), {1, 2, 3});
}

TEST(NumericTriangularSolve, LeftLowerTranspose) {
  Tensor a = LowerA(kF64);
  Tensor b = T(kF64, {3, 1}, {13, 14, 15});  // a^T x, x = [1,2,3]
  Tensor out = Zeros(kF64, {3, 1});
  ASSERT_TRUE(Call("stablehlo.triangular_solve", TS(true, true, false, "TRANSPOSE"), {&a, &b}, {&out}).ok());
  ExpectNear(D(out), {1, 2, 3}, 1e-12);
}

TEST(NumericTriangularSolve, RightSideAndUpper) {
  Tensor a = LowerA(kF32);
  Tensor b = T(kF32, {1, 3}, {13, 14, 15});  // x a, x = [1,2,3]
  Tensor out = Zeros(kF32, {1, 3});
  ASSERT_TRUE(Call("stablehlo.triangular_solve", TS(false, true, false, "NO_TRANSPOSE"), {&a, &b}, {&out}).ok());
  ExpectNear(D(out), {1, 2, 3});
  // Upper: a = [[2,1,3],[0,4,2],[0,0,5]] (junk below); a x = [13,14,15].
  Tensor u = T(kF32, {3, 3}, {2, 1, 3, -7, 4, 2, -7, -7, 5});
  Tensor bu = T(kF32, {3, 1}, {13, 14, 15});
  ASSERT_TRUE(Call("stablehlo.triangular_solve", TS(true, false, false, "NO_TRANSPOSE"), {&u, &bu}, {&out}).ok() ==
              false);  // out has the wrong shape for a 3x1 b
  Tensor ou = Zeros(kF32, {3, 1});
  ASSERT_TRUE(Call("stablehlo.triangular_solve", TS(true, false, false, "NO_TRANSPOSE"), {&u, &bu}, {&ou}).ok());
  ExpectNear(D(ou), {1, 2, 3});
  // Right side, upper, transposed: x u^T = b with x = [1,2,3]:
  // u^T = [[2,0,0],[1,4,0],[3,2,5]] -> x u^T = [2+2+9, 8+6, 15] = [13,14,15].
  Tensor br = T(kF32, {1, 3}, {13, 14, 15});
  Tensor orr = Zeros(kF32, {1, 3});
  ASSERT_TRUE(Call("stablehlo.triangular_solve", TS(false, false, false, "TRANSPOSE"), {&u, &br}, {&orr}).ok());
  ExpectNear(D(orr), {1, 2, 3});
}

TEST(NumericTriangularSolve, UnitDiagonalIgnoresDiagonal) {
  Tensor a = T(kF32, {2, 2}, {7, 0, 2, 9});  // treated as [[1,0],[2,1]]
  Tensor b = T(kF32, {2, 1}, {1, 3});
  Tensor out = Zeros(kF32, {2, 1});
  ASSERT_TRUE(Call("stablehlo.triangular_solve", TS(true, true, true, "NO_TRANSPOSE"), {&a, &b}, {&out}).ok());
  ExpectNear(D(out), {1, 1});
}

TEST(NumericTriangularSolve, ComplexAdjoint) {
  // a = [[2,0],[1+i,3]], a^H = [[2,1-i],[0,3]]; x = [1, i]: a^H x = [3+i, 3i].
  Tensor a = TC(kC64, {2, 2}, {{2, 0}, {0, 0}, {1, 1}, {3, 0}});
  Tensor b = TC(kC64, {2, 1}, {{3, 1}, {0, 3}});
  Tensor out = Zeros(kC64, {2, 1});
  ASSERT_TRUE(Call("stablehlo.triangular_solve", TS(true, true, false, "ADJOINT"), {&a, &b}, {&out}).ok());
  ExpectNearC(C(out), {{1, 0}, {0, 1}});
}

TEST(NumericTriangularSolve, ConformanceComplexAdjoint) {
  // triangular_solve.mlir: complex_example_adjoint.
  Tensor a = TC(kC64, {3, 3}, {{1, 1}, {0, 0}, {0, 0}, {2, -2}, {3, 4}, {0, 0}, {4, -3}, {5, 5}, {6, -8}});
  Tensor b = TC(kC64, {3, 1}, {{7, -2}, {8, 4}, {9, -5}});
  Tensor out = Zeros(kC64, {3, 1});
  ASSERT_TRUE(Call("stablehlo.triangular_solve", TS(true, true, false, "ADJOINT"), {&a, &b}, {&out}).ok());
  ExpectNearC(C(out), {{7.18, 2.679999}, {-0.08, 3.16}, {0.14, -1.02}}, 1e-4);
}

TEST(NumericTriangularSolve, BatchesZeroSizedAndErrors) {
  Tensor a = T(kF32, {2, 1, 1}, {2, 4});
  Tensor b = T(kF32, {2, 1, 1}, {6, 8});
  Tensor out = Zeros(kF32, {2, 1, 1});
  ASSERT_TRUE(Call("stablehlo.triangular_solve", TS(true, true, false, "NO_TRANSPOSE"), {&a, &b}, {&out}).ok());
  ExpectNear(D(out), {3, 2});
  Tensor a0 = Zeros(kF32, {0, 0});
  Tensor b0 = Zeros(kF32, {0, 2});
  Tensor o0 = Zeros(kF32, {0, 2});
  EXPECT_TRUE(Call("stablehlo.triangular_solve", TS(true, true, false, "NO_TRANSPOSE"), {&a0, &b0}, {&o0}).ok());
  Tensor rect = T(kF32, {1, 2}, {1, 2});
  Tensor b2 = T(kF32, {1, 1}, {1});
  Tensor o2 = Zeros(kF32, {1, 1});
  EXPECT_FALSE(Call("stablehlo.triangular_solve", TS(true, true, false, "NO_TRANSPOSE"), {&rect, &b2}, {&o2}).ok());
  Tensor sq = T(kF32, {2, 2}, {1, 0, 0, 1});
  EXPECT_FALSE(Call("stablehlo.triangular_solve", TS(true, true, false, "NO_TRANSPOSE"), {&sq, &b2}, {&o2}).ok());
  Tensor bi = T(kI32, {2, 1}, {1, 1});
  Tensor oi = Zeros(kI32, {2, 1});
  Tensor ai = T(kI32, {2, 2}, {1, 0, 0, 1});
  EXPECT_FALSE(Call("stablehlo.triangular_solve", TS(true, true, false, "NO_TRANSPOSE"), {&ai, &bi}, {&oi}).ok());
  Tensor b3 = T(kF32, {2, 1}, {1, 1});
  Tensor o3 = Zeros(kF32, {2, 1});
  EXPECT_FALSE(Call("stablehlo.triangular_solve", TS(true, true, false, "CONJ"), {&sq, &b3}, {&o3}).ok());
}

TEST(NumericCholesky, LowerAndUpperReal) {
  // A = L L^T with L = [[2,0,0],[6,1,0],[-8,5,3]].
  Tensor a = T(kF64, {3, 3}, {4, 999, 999, 12, 37, 999, -16, -43, 98});
  Tensor out = Zeros(kF64, {3, 3});
  ASSERT_TRUE(Call("stablehlo.cholesky", {Int("lower", 1)}, {&a}, {&out}).ok());
  ExpectNear(D(out), {2, 0, 0, 6, 1, 0, -8, 5, 3}, 1e-12);
  Tensor au = T(kF32, {3, 3}, {4, 12, -16, 999, 37, -43, 999, 999, 98});
  Tensor ou = Zeros(kF32, {3, 3});
  ASSERT_TRUE(Call("stablehlo.cholesky", {Int("lower", 0)}, {&au}, {&ou}).ok());
  ExpectNear(D(ou), {2, 6, -8, 0, 1, 5, 0, 0, 3});
}

TEST(NumericCholesky, ComplexAndBatch) {
  // L = [[2,0],[1+i,1]] -> A = [[4, 2-2i],[2+2i, 3]].
  Tensor a = TC(kC128, {2, 2}, {{4, 0}, {2, -2}, {2, 2}, {3, 0}});
  Tensor out = Zeros(kC128, {2, 2});
  ASSERT_TRUE(Call("stablehlo.cholesky", {Int("lower", 1)}, {&a}, {&out}).ok());
  ExpectNearC(C(out), {{2, 0}, {0, 0}, {1, 1}, {1, 0}}, 1e-12);
  ASSERT_TRUE(Call("stablehlo.cholesky", {Int("lower", 0)}, {&a}, {&out}).ok());
  ExpectNearC(C(out), {{2, 0}, {1, -1}, {0, 0}, {1, 0}}, 1e-12);
  Tensor batch = T(kF32, {2, 1, 1}, {9, 16});
  Tensor ob = Zeros(kF32, {2, 1, 1});
  ASSERT_TRUE(Call("stablehlo.cholesky", {Int("lower", 1)}, {&batch}, {&ob}).ok());
  ExpectNear(D(ob), {3, 4});
  Tensor e = Zeros(kF32, {0, 2, 2}), eo = Zeros(kF32, {0, 2, 2});
  EXPECT_TRUE(Call("stablehlo.cholesky", {Int("lower", 1)}, {&e}, {&eo}).ok());
  Tensor rect = T(kF32, {1, 2}, {1, 2});
  Tensor orect = Zeros(kF32, {1, 2});
  EXPECT_FALSE(Call("stablehlo.cholesky", {Int("lower", 1)}, {&rect}, {&orect}).ok());
}

// kiln.lu on random matrices (square, wide, tall; batched): the factors
// rebuild the row-permuted input (P A = L U within f64 rounding), every
// multiplier is at most 1 in magnitude (partial pivoting), the pivots are
// 1-based rows at or below their step, and info is 0 for these full-rank
// matrices; a matrix with a zero column reports its step.
TEST(NumericLu, FactorsRebuildThePermutedInput) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-4.0, 4.0);
  for (auto [m, n] : {std::pair<int64_t, int64_t>{5, 5}, {3, 6}, {6, 3}, {1, 4}, {4, 1}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    const int64_t k = std::min(m, n), batches = 2;
    std::vector<double> vals(static_cast<size_t>(batches * m * n));
    for (double& v : vals) v = u(rng);
    Tensor a = T(kF64, {batches, m, n}, vals);
    Tensor lu = Zeros(kF64, {batches, m, n}), ipiv = Zeros(kI32, {batches, k}), info = Zeros(kI32, {batches});
    ASSERT_TRUE(Call("kiln.lu", {}, {&a}, {&lu, &ipiv, &info}).ok());
    const std::vector<double> f = D(lu), p = D(ipiv), in = D(info);
    for (int64_t b = 0; b < batches; ++b) {
      EXPECT_EQ(in[b], 0);
      // Apply the row swaps to a copy of the input.
      std::vector<double> pa(vals.begin() + b * m * n, vals.begin() + (b + 1) * m * n);
      for (int64_t j = 0; j < k; ++j) {
        const int64_t row = static_cast<int64_t>(p[b * k + j]) - 1;
        ASSERT_GE(row, j);
        ASSERT_LT(row, m);
        for (int64_t c = 0; c < n; ++c) std::swap(pa[j * n + c], pa[row * n + c]);
      }
      const double* x = f.data() + b * m * n;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t c = 0; c < n; ++c) {
          double sum = 0;
          for (int64_t q = 0; q <= std::min(i, c) && q < k; ++q) sum += (q == i ? 1.0 : x[i * n + q]) * (q <= c ? x[q * n + c] : 0.0);
          EXPECT_NEAR(sum, pa[i * n + c], 1e-12) << "row " << i << " col " << c;
          if (c < i && c < k) {
            EXPECT_LE(std::abs(x[i * n + c]), 1.0);
          }
        }
    }
  }
  // A zero first column: info 1, and the rest still factored.
  Tensor z = T(kF32, {2, 2}, {0, 1, 0, 2});
  Tensor lu = Zeros(kF32, {2, 2}), ipiv = Zeros(kI32, {2}), info = Zeros(kI32, {});
  ASSERT_TRUE(Call("kiln.lu", {}, {&z}, {&lu, &ipiv, &info}).ok());
  EXPECT_EQ(D(info)[0], 1);
  ExpectNear(D(lu), {0, 1, 0, 2});
  // Wrong result shapes and integer operands are refused.
  Tensor bad = Zeros(kI32, {3});
  EXPECT_FALSE(Call("kiln.lu", {}, {&z}, {&lu, &bad, &info}).ok());
  Tensor zi = T(kI32, {2, 2}, {1, 2, 3, 4}), lui = Zeros(kI32, {2, 2});
  EXPECT_FALSE(Call("kiln.lu", {}, {&zi}, {&lui, &ipiv, &info}).ok());
}

// kiln.geqrf then kiln.orgqr on random real and complex matrices (square
// and tall, batched): Q has orthonormal columns, R (geqrf's upper
// triangle) is upper triangular with a real diagonal and Q R rebuilds the
// input; info and the workspace come back zero.
TEST(NumericQr, QTimesRRebuildsTheInput) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  for (ElementType t : {kF64, kC128})
    for (auto [m, n] : {std::pair<int64_t, int64_t>{4, 4}, {5, 3}, {3, 1}}) {
      SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + (t == kF64 ? " f64" : " c128"));
      const int64_t batches = 2, k = std::min(m, n);
      std::vector<std::complex<double>> vals(static_cast<size_t>(batches * m * n));
      for (auto& v : vals) v = {u(rng), t == kC128 ? u(rng) : 0.0};
      Tensor a = TC(t, {batches, m, n}, vals);
      Tensor f = Zeros(t, {batches, m, n}), tau = Zeros(t, {batches, k}), info = Zeros(kI32, {batches});
      Tensor work = T(t, {7}, {9, 9, 9, 9, 9, 9, 9});
      ASSERT_TRUE(Call("kiln.geqrf", {}, {&a}, {&f, &tau, &info, &work}).ok());
      ExpectNear(D(info), {0, 0});
      ExpectNear(D(work), std::vector<double>(7, 0.0));
      Tensor q = Zeros(t, {batches, m, n});
      ASSERT_TRUE(Call("kiln.orgqr", {}, {&f, &tau}, {&q}).ok());
      const auto fr = C(f), qq = C(q);
      for (int64_t b = 0; b < batches; ++b) {
        const std::complex<double>* Q = qq.data() + b * m * n;
        const std::complex<double>* F = fr.data() + b * m * n;
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            std::complex<double> dot = 0;
            for (int64_t r = 0; r < m; ++r) dot += std::conj(Q[r * n + i]) * Q[r * n + j];
            EXPECT_NEAR(std::abs(dot - (i == j ? 1.0 : 0.0)), 0.0, 1e-12) << "Q^H Q at " << i << ", " << j;
          }
        // LAPACK's R has a real diagonal, its last entry too (larfg turns a
        // complex alpha real even with nothing below it).
        for (int64_t i = 0; i < k; ++i) EXPECT_EQ(F[i * n + i].imag(), 0.0) << "R's diagonal at " << i;
        for (int64_t r = 0; r < m; ++r)
          for (int64_t c = 0; c < n; ++c) {
            std::complex<double> sum = 0;
            for (int64_t q2 = 0; q2 <= std::min(c, k - 1); ++q2) sum += Q[r * n + q2] * F[q2 * n + c];
            EXPECT_NEAR(std::abs(sum - vals[b * m * n + r * n + c]), 0.0, 1e-12) << "Q R at " << r << ", " << c;
          }
      }
    }
  // orgqr needs k <= n <= m and tau of the operand's type.
  Tensor wide = Zeros(kF64, {2, 3}), tau = Zeros(kF64, {2}), q = Zeros(kF64, {2, 3});
  EXPECT_FALSE(Call("kiln.orgqr", {}, {&wide, &tau}, {&q}).ok());
  Tensor sq = Zeros(kF64, {2, 2}), tau32 = Zeros(kF32, {2}), q2 = Zeros(kF64, {2, 2});
  EXPECT_FALSE(Call("kiln.orgqr", {}, {&sq, &tau32}, {&q2}).ok());
}

// kiln.syevd (LAPACK's symmetric and Hermitian eigendecomposition): on
// random symmetric / Hermitian matrices (some with repeated eigenvalues),
// read from either triangle with noise in the other (and in a complex
// diagonal's imaginary parts), f32, f64, complex<f32> and complex<f64>:
// ascending real eigenvalues, a v_j = w_j v_j, orthonormal v (the signs
// and phases are LAPACK's, checked against its own values in
// tests/data/jax/eigh_lapack.mlir); the values alone (compute_v = 0: zero
// vectors, the same values); a NaN gives info 1 and NaNs.
TEST(NumericSyevd, EigenpairsOfHermitianMatrices) {
  using cd = std::complex<double>;
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (ElementType t : {kF64, kF32, kC128, kC64})
    for (int64_t n : {1, 2, 5, 17})
      for (bool lower : {true, false}) {
        const bool complex = IsComplex(t), single = t == kF32 || t == kC64;
        const ElementType rt = complex ? ComplexPartType(t) : t;
        SCOPED_TRACE(std::to_string(n) + (lower ? " lower " : " upper ") + std::string(Name(t)));
        auto round = [&](double x) { return single ? static_cast<double>(static_cast<float>(x)) : x; };
        const int64_t batches = 2;
        std::vector<cd> herm(static_cast<size_t>(batches * n * n)), vals(herm.size());
        for (int64_t b = 0; b < batches; ++b)
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j <= i; ++j) {
              // Batch 1 is diagonal-heavy with repeats: 3 I plus a rank-one term.
              cd x = b == 0 ? cd(round(u(rng)), i != j && complex ? round(u(rng)) : 0.0)
                            : cd((i == j ? 3.0 : 0.0) + (i % 2 == 0 && j % 2 == 0 ? 1.0 : 0.0), 0.0);
              if (b == 1 && complex && i != j && i % 2 == 0 && j % 2 == 0) x = {0.0, 1.0};
              herm[(b * n + i) * n + j] = x;
              herm[(b * n + j) * n + i] = std::conj(x);
            }
        for (int64_t b = 0; b < batches; ++b)
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) {
              const bool read = lower ? i >= j : i <= j;
              const cd h = herm[(b * n + i) * n + j];
              vals[(b * n + i) * n + j] = !read ? cd(1e3 * u(rng), complex ? 1e3 * u(rng) : 0.0)
                                          : i == j && complex ? cd(h.real(), 1e3 * u(rng))  // ignored
                                                               : h;
            }
        Tensor a = TC(t, {batches, n, n}, vals);
        Tensor v = Zeros(t, {batches, n, n}), w = Zeros(rt, {batches, n}), info = Zeros(kI32, {batches});
        Tensor work = T(t, {5}, {9, 9, 9, 9, 9});
        std::vector<KernelAttr> attrs = {Ints("lower", {lower ? 1 : 0}), Ints("compute_v", {1})};
        ASSERT_TRUE(Call("kiln.syevd", attrs, {&a}, {&v, &w, &info, &work}).ok());
        ExpectNear(D(info), {0, 0});
        ExpectNear(D(work), std::vector<double>(5, 0.0));
        const double tol = single ? 2e-5 : 1e-10;
        const auto vv = C(v);
        const auto ww = D(w);
        for (int64_t b = 0; b < batches; ++b) {
          const cd* V = vv.data() + b * n * n;
          const double* W = ww.data() + b * n;
          const cd* A = herm.data() + b * n * n;
          for (int64_t j = 0; j + 1 < n; ++j) EXPECT_LE(W[j], W[j + 1]) << "ascending";
          for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < n; ++i) {
              cd av = 0;
              for (int64_t k = 0; k < n; ++k) av += A[i * n + k] * V[k * n + j];
              EXPECT_NEAR(std::abs(av - W[j] * V[i * n + j]), 0.0, tol * 10) << "a v = w v at " << i << ", " << j;
            }
            for (int64_t k = 0; k < n; ++k) {
              cd dot = 0;
              for (int64_t i = 0; i < n; ++i) dot += std::conj(V[i * n + j]) * V[i * n + k];
              EXPECT_NEAR(std::abs(dot - (j == k ? 1.0 : 0.0)), 0.0, tol) << "v^H v at " << j << ", " << k;
            }
          }
        }
        Tensor v0 = Zeros(t, {batches, n, n}), w0 = Zeros(rt, {batches, n}), info0 = Zeros(kI32, {batches});
        std::vector<KernelAttr> values_only = {Ints("lower", {lower ? 1 : 0}), Ints("compute_v", {0})};
        ASSERT_TRUE(Call("kiln.syevd", values_only, {&a}, {&v0, &w0, &info0}).ok());
        ExpectNear(D(w0), ww, 0.0);
        ExpectNearC(C(v0), std::vector<cd>(static_cast<size_t>(batches * n * n), 0.0), 0.0);
      }
  Tensor bad = T(kF32, {2, 2}, {1.0, std::nan(""), std::nan(""), 1.0});
  Tensor v = Zeros(kF32, {2, 2}), w = Zeros(kF32, {2}), info = Zeros(kI32, {});
  ASSERT_TRUE(Call("kiln.syevd", {Ints("lower", {1}), Ints("compute_v", {1})}, {&bad}, {&v, &w, &info}).ok());
  ExpectNear(D(info), {1});
  EXPECT_TRUE(std::isnan(D(w)[0]) && std::isnan(D(v)[0]));
  Tensor badc = TC(kC64, {2, 2}, {{1.0, 0.0}, {0.0, 0.0}, {0.0, std::nan("")}, {1.0, 0.0}});
  Tensor vc = Zeros(kC64, {2, 2}), wc = Zeros(kF32, {2}), infoc = Zeros(kI32, {});
  ASSERT_TRUE(Call("kiln.syevd", {Ints("lower", {1}), Ints("compute_v", {1})}, {&badc}, {&vc, &wc, &infoc}).ok());
  ExpectNear(D(infoc), {1});
  EXPECT_TRUE(std::isnan(D(wc)[0]) && std::isnan(D(vc)[0]));
  Tensor rect = Zeros(kF64, {2, 3}), vr = Zeros(kF64, {2, 3}), wr = Zeros(kF64, {2}), ir = Zeros(kI32, {});
  EXPECT_FALSE(Call("kiln.syevd", {}, {&rect}, {&vr, &wr, &ir}).ok());
  // Complex eigenvalues are real: of the operand's real type, not complex.
  Tensor sq = Zeros(kC64, {2, 2}), vs = Zeros(kC64, {2, 2}), wrong = Zeros(kC64, {2}), is = Zeros(kI32, {});
  EXPECT_FALSE(Call("kiln.syevd", {}, {&sq}, {&vs, &wrong, &is}).ok());
}

// kiln.gesdd and kiln.gesvd (LAPACK's SVDs): tall, wide and square, one
// of them of rank one, f32, f64, complex<f32> and complex<f64>, modes 'A',
// 'S' and 'N': s (real) descending and the same in every mode, u diag(s)
// vt = a, u and vt with orthonormal columns / rows (the full ones square
// unitary). (The vectors' signs, LAPACK's own: tests/data/jax/
// svd_signs_lapack.mlir.)
TEST(NumericGesdd, FactorsRebuildTheInput) {
  for (const char* kernel : {"kiln.gesdd", "kiln.gesvd"}) {
    SCOPED_TRACE(kernel);
    using cd = std::complex<double>;
    std::mt19937 rng(21);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    for (ElementType t : {kF64, kF32, kC128, kC64})
      for (auto [m, n] : {std::pair<int64_t, int64_t>{5, 3}, {3, 5}, {4, 4}, {1, 3}, {6, 2}}) {
        const bool complex = IsComplex(t), single = t == kF32 || t == kC64;
        const ElementType rt = complex ? ComplexPartType(t) : t;
        auto round = [&](double x) { return single ? static_cast<double>(static_cast<float>(x)) : x; };
        const int64_t batches = 2, k = std::min(m, n);
        std::vector<cd> vals(static_cast<size_t>(batches * m * n));
        for (auto& v : vals) v = {round(u(rng)), complex ? round(u(rng)) : 0.0};
        for (int64_t i = 0; i < m; ++i)  // batch 1: rank one
          for (int64_t j = 0; j < n; ++j)
            vals[m * n + i * n + j] =
                cd(i + 1.0, complex ? 0.5 * i : 0.0) * cd(j % 2 ? -0.5 : 1.0, complex ? 0.25 : 0.0);
        Tensor a = TC(t, {batches, m, n}, vals);
        std::vector<double> s_thin;
        for (int64_t mode : {int64_t{'S'}, int64_t{'A'}, int64_t{'N'}}) {
          SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + " mode " + static_cast<char>(mode) + " " +
                       std::string(Name(t)));
          const int64_t uc = mode == 'A' ? m : k, vr = mode == 'A' ? n : k;
          Tensor ap = Zeros(t, {batches, m, n}), s = Zeros(rt, {batches, k}), uu = Zeros(t, {batches, m, uc}),
                 vt = Zeros(t, {batches, vr, n}), info = Zeros(kI32, {batches});
          ASSERT_TRUE(Call(kernel, {Ints("mode", {mode})}, {&a}, {&ap, &s, &uu, &vt, &info}).ok());
          ExpectNear(D(info), {0, 0});
          const auto S = D(s);
          const auto U = C(uu), V = C(vt);
          if (mode == 'S') s_thin = S;
          else ExpectNear(S, s_thin, 0.0);
          if (mode == 'N') continue;
          const double tol = single ? 3e-5 : 1e-10;
          for (int64_t b = 0; b < batches; ++b) {
            const cd* Ub = U.data() + b * m * uc;
            const cd* Vb = V.data() + b * vr * n;
            const double* Sb = S.data() + b * k;
            for (int64_t j = 0; j + 1 < k; ++j) EXPECT_GE(Sb[j], Sb[j + 1]) << "descending";
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j < n; ++j) {
                cd x = 0;
                for (int64_t q = 0; q < k; ++q) x += Ub[i * uc + q] * Sb[q] * Vb[q * n + j];
                EXPECT_NEAR(std::abs(x - vals[b * m * n + i * n + j]), 0.0, tol * 10) << "u s vt at " << i << ", " << j;
              }
            for (int64_t p = 0; p < uc; ++p)
              for (int64_t q = 0; q < uc; ++q) {
                cd d = 0;
                for (int64_t i = 0; i < m; ++i) d += std::conj(Ub[i * uc + p]) * Ub[i * uc + q];
                EXPECT_NEAR(std::abs(d - (p == q ? 1.0 : 0.0)), 0.0, tol) << "u^H u at " << p << ", " << q;
              }
            for (int64_t p = 0; p < vr; ++p)
              for (int64_t q = 0; q < vr; ++q) {
                cd d = 0;
                for (int64_t j = 0; j < n; ++j) d += Vb[p * n + j] * std::conj(Vb[q * n + j]);
                EXPECT_NEAR(std::abs(d - (p == q ? 1.0 : 0.0)), 0.0, tol) << "vt vt^H at " << p << ", " << q;
              }
          }
        }
      }
  }
  // Singular values are real: of the operand's real type.
  Tensor a = Zeros(kC64, {2, 2}), ap = Zeros(kC64, {2, 2}), s = Zeros(kC64, {2}), uu = Zeros(kC64, {2, 2}),
         vt = Zeros(kC64, {2, 2}), info = Zeros(kI32, {});
  EXPECT_FALSE(Call("kiln.gesdd", {Ints("mode", {'S'})}, {&a}, {&ap, &s, &uu, &vt, &info}).ok());
}

}  // namespace
}  // namespace kiln::ref::numeric_test

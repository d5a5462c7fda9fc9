// Tests of the reference reductions to condensed form
// (kernels/reference/linalg_condensed.cc): kiln.gehrd (Hessenberg) and
// kiln.sytrd (tridiagonal), on random real and complex matrices of every
// float and complex type, batched. Q is formed from the reflectors the way
// LAPACK's orghr / orgtr would (H = I - tau v v^H, v's unit entry implied),
// then Q^H a Q must be the condensed matrix the kernel wrote and Q unitary.
#include <cmath>
#include <random>

#include "tests/kernels/reference/numeric_test_util.h"

namespace kiln::ref::numeric_test {
namespace {

using cd = std::complex<double>;
using Matrix = std::vector<cd>;  // n x n, row-major

Matrix Identity(int64_t n) {
  Matrix q(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) q[i * n + i] = 1.0;
  return q;
}

// q := q (I - tau v v^H).
void TimesReflector(Matrix& q, int64_t n, const std::vector<cd>& v, cd tau) {
  for (int64_t r = 0; r < n; ++r) {
    cd w = 0;
    for (int64_t k = 0; k < n; ++k) w += q[r * n + k] * v[k];
    for (int64_t k = 0; k < n; ++k) q[r * n + k] -= tau * w * std::conj(v[k]);
  }
}

// q^H a q.
Matrix Similar(const Matrix& q, const Matrix& a, int64_t n) {
  Matrix aq(a.size(), 0.0), out(a.size(), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t k = 0; k < n; ++k) aq[i * n + j] += a[i * n + k] * q[k * n + j];
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t k = 0; k < n; ++k) out[i * n + j] += std::conj(q[k * n + i]) * aq[k * n + j];
  return out;
}

void ExpectUnitary(const Matrix& q, int64_t n, double tol) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      cd d = 0;
      for (int64_t k = 0; k < n; ++k) d += std::conj(q[k * n + i]) * q[k * n + j];
      EXPECT_NEAR(std::abs(d - (i == j ? 1.0 : 0.0)), 0.0, tol) << "Q^H Q at " << i << ", " << j;
    }
}

struct Case {
  ElementType type;
  bool complex, single;
  double tol;
};

std::vector<Case> Types() {
  return {{kF64, false, false, 1e-12}, {kF32, false, true, 2e-5}, {kC128, true, false, 1e-12}, {kC64, true, true, 2e-5}};
}

double Round(const Case& t, double x) { return t.single ? static_cast<double>(static_cast<float>(x)) : x; }

// kiln.gehrd, LAPACK's ?gehrd: with low = 1, high = n on any matrix, and
// with 1 < low <= high < n on one that is upper triangular outside rows and
// columns low..high (what ?gehrd assumes there, as balancing leaves it):
// h upper Hessenberg with real subdiagonal entries where a reflector was
// made, tau zero outside low - 1 .. high - 2, Q = H(low-1) ... H(high-2)
// unitary and Q^H a Q = h.
TEST(NumericGehrd, HessenbergFormIsSimilarToTheInput) {
  std::mt19937 rng(31);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  for (const Case& t : Types())
    for (int64_t n : {1, 2, 5, 8})
      for (bool partial : {false, true}) {
        if (partial && n < 5) continue;
        const int64_t low = partial ? 2 : 1, high = partial ? n - 1 : n;
        SCOPED_TRACE(std::string(Name(t.type)) + " n=" + std::to_string(n) + " low=" + std::to_string(low) +
                     " high=" + std::to_string(high));
        const int64_t batches = 2, nt = std::max<int64_t>(n - 1, 0);
        std::vector<cd> vals(static_cast<size_t>(batches * n * n));
        for (int64_t b = 0; b < batches; ++b)
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) {
              const bool outside = i > j && (j < low - 1 || i >= high);  // below the diagonal, outside low..high
              vals[(b * n + i) * n + j] = outside ? cd(0.0) : cd(Round(t, u(rng)), t.complex ? Round(t, u(rng)) : 0.0);
            }
        Tensor a = TC(t.type, {batches, n, n}, vals);
        Tensor h = Zeros(t.type, {batches, n, n}), tau = Zeros(t.type, {batches, nt}), info = Zeros(kI32, {batches});
        ASSERT_TRUE(Call("kiln.gehrd", {Ints("low", {low}), Ints("high", {high})}, {&a}, {&h, &tau, &info}).ok());
        ExpectNear(D(info), {0, 0});
        const auto H = C(h), TAU = C(tau);
        for (int64_t b = 0; b < batches; ++b) {
          const cd* hb = H.data() + b * n * n;
          Matrix q = Identity(n), ab(vals.begin() + b * n * n, vals.begin() + (b + 1) * n * n), hess(n * n, 0.0);
          for (int64_t i = 0; i < nt; ++i) {
            const cd ti = TAU[b * nt + i];
            if (i < low - 1 || i >= high - 1) {
              EXPECT_EQ(ti, cd(0.0)) << "tau " << i << " outside low..high";
              continue;
            }
            EXPECT_EQ(hb[(i + 1) * n + i].imag(), 0.0) << "the subdiagonal entry below column " << i << " is real";
            std::vector<cd> v(static_cast<size_t>(n), 0.0);
            v[i + 1] = 1.0;
            for (int64_t k = i + 2; k < high; ++k) v[k] = hb[k * n + i];
            TimesReflector(q, n, v, ti);
          }
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = std::max<int64_t>(i - 1, 0); j < n; ++j) hess[i * n + j] = hb[i * n + j];
          ExpectUnitary(q, n, t.tol);
          const Matrix s = Similar(q, ab, n);
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j)
              EXPECT_NEAR(std::abs(s[i * n + j] - hess[i * n + j]), 0.0, t.tol * 20) << "Q^H a Q at " << i << ", " << j;
        }
      }
  Tensor a = Zeros(kF32, {3, 3}), h = Zeros(kF32, {3, 3}), tau = Zeros(kF32, {2}), info = Zeros(kI32, {});
  EXPECT_FALSE(Call("kiln.gehrd", {Ints("low", {0}), Ints("high", {3})}, {&a}, {&h, &tau, &info}).ok());
  EXPECT_FALSE(Call("kiln.gehrd", {Ints("low", {2}), Ints("high", {4})}, {&a}, {&h, &tau, &info}).ok());
  Tensor rect = Zeros(kF32, {2, 3}), hr = Zeros(kF32, {2, 3});
  EXPECT_FALSE(Call("kiln.gehrd", {}, {&rect}, {&hr, &tau, &info}).ok());
}

// kiln.sytrd, LAPACK's ?sytrd / ?hetrd, from either triangle with noise in
// the other (and in a complex diagonal's imaginary parts): the other
// triangle comes back as given, the named one holds d on the diagonal and
// e next to it; Q (lower: H(0) ... H(n-2), v in column i below row i + 1;
// upper: H(n-2) ... H(0), v in column i + 1 above row i) is unitary and Q^H
// a Q is the real tridiagonal matrix of d and e.
TEST(NumericSytrd, TridiagonalFormIsSimilarToTheInput) {
  std::mt19937 rng(32);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  for (const Case& t : Types())
    for (int64_t n : {1, 2, 5, 8})
      for (bool lower : {true, false}) {
        SCOPED_TRACE(std::string(Name(t.type)) + " n=" + std::to_string(n) + (lower ? " lower" : " upper"));
        const ElementType rt = t.complex ? ComplexPartType(t.type) : t.type;
        const int64_t batches = 2, nt = std::max<int64_t>(n - 1, 0);
        std::vector<cd> herm(static_cast<size_t>(batches * n * n)), vals(herm.size());
        for (int64_t b = 0; b < batches; ++b)
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j <= i; ++j) {
              const cd x(Round(t, u(rng)), t.complex && i != j ? Round(t, u(rng)) : 0.0);
              herm[(b * n + i) * n + j] = x;
              herm[(b * n + j) * n + i] = std::conj(x);
            }
        for (size_t e = 0; e < vals.size(); ++e) {
          const int64_t i = static_cast<int64_t>(e) / n % n, j = static_cast<int64_t>(e) % n;
          const bool named = lower ? i >= j : i <= j;
          vals[e] = !named ? cd(Round(t, 100 * u(rng)), t.complex ? Round(t, 100 * u(rng)) : 0.0)
                    : i == j && t.complex ? cd(herm[e].real(), Round(t, u(rng)))  // ignored
                                          : herm[e];
        }
        Tensor a = TC(t.type, {batches, n, n}, vals);
        Tensor out = Zeros(t.type, {batches, n, n}), d = Zeros(rt, {batches, n}), e = Zeros(rt, {batches, nt}),
               tau = Zeros(t.type, {batches, nt}), info = Zeros(kI32, {batches});
        ASSERT_TRUE(Call("kiln.sytrd", {Ints("lower", {lower ? 1 : 0})}, {&a}, {&out, &d, &e, &tau, &info}).ok());
        ExpectNear(D(info), {0, 0});
        const auto O = C(out), TAU = C(tau);
        const auto DD = D(d), EE = D(e);
        for (int64_t b = 0; b < batches; ++b) {
          const cd* ob = O.data() + b * n * n;
          Matrix q = Identity(n), tri(static_cast<size_t>(n * n), 0.0);
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) {
              const bool named = lower ? i >= j : i <= j;
              if (!named) {
                EXPECT_EQ(ob[i * n + j], vals[(b * n + i) * n + j]) << "the other triangle at " << i << ", " << j;
              }
            }
          for (int64_t i = 0; i < n; ++i) {
            EXPECT_EQ(ob[i * n + i], cd(DD[b * n + i])) << "d on the diagonal at " << i;
            tri[i * n + i] = DD[b * n + i];
          }
          for (int64_t i = 0; i < nt; ++i) {
            EXPECT_EQ(lower ? ob[(i + 1) * n + i] : ob[i * n + i + 1], cd(EE[b * nt + i])) << "e at " << i;
            tri[(i + 1) * n + i] = tri[i * n + i + 1] = EE[b * nt + i];
          }
          for (int64_t s = 0; s < nt; ++s) {
            const int64_t i = lower ? s : nt - 1 - s;  // Q's factors in product order
            std::vector<cd> v(static_cast<size_t>(n), 0.0);
            if (lower) {
              v[i + 1] = 1.0;
              for (int64_t k = i + 2; k < n; ++k) v[k] = ob[k * n + i];
            } else {
              v[i] = 1.0;
              for (int64_t k = 0; k < i; ++k) v[k] = ob[k * n + i + 1];
            }
            TimesReflector(q, n, v, TAU[b * nt + i]);
          }
          ExpectUnitary(q, n, t.tol);
          const Matrix s = Similar(q, Matrix(herm.begin() + b * n * n, herm.begin() + (b + 1) * n * n), n);
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j)
              EXPECT_NEAR(std::abs(s[i * n + j] - tri[i * n + j]), 0.0, t.tol * 20) << "Q^H a Q at " << i << ", " << j;
        }
      }
  // d and e are of the operand's real type.
  Tensor a = Zeros(kC64, {2, 2}), out = Zeros(kC64, {2, 2}), d = Zeros(kC64, {2}), e = Zeros(kF32, {1}),
         tau = Zeros(kC64, {1}), info = Zeros(kI32, {});
  EXPECT_FALSE(Call("kiln.sytrd", {}, {&a}, {&out, &d, &e, &tau, &info}).ok());
}

}  // namespace
}  // namespace kiln::ref::numeric_test

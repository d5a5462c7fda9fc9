// Tests of the reference general eigendecomposition kiln.geev
// (kernels/reference/linalg_geev.cc) on random real and complex matrices
// of every type LAPACK's ?geev takes, batched, and on matrices that
// balancing permutes and scales: a v = lambda v and u^H a = lambda u^H for
// every eigenpair, unit vectors whose largest entry is real (positive for
// complex matrices), a real matrix's eigenvalues in conjugate pairs (the
// one with positive imaginary part first) with conjugate vectors. That the
// order, signs and phases are LAPACK's is checked against LAPACK's own
// values in tests/data/jax/eig_lapack.mlir.
#include <cmath>
#include <limits>
#include <random>

#include "tests/kernels/reference/numeric_test_util.h"

namespace kiln::ref::numeric_test {
namespace {

using cd = std::complex<double>;

struct Case {
  ElementType type, vectors;
  bool complex, single;
  double tol;
};

std::vector<Case> Types() {
  return {{kF64, kC128, false, false, 1e-11},
          {kF32, kC64, false, true, 3e-4},
          {kC128, kC128, true, false, 1e-11},
          {kC64, kC64, true, true, 3e-4}};
}

double Round(const Case& t, double x) { return t.single ? static_cast<double>(static_cast<float>(x)) : x; }

struct Result {
  std::vector<cd> w, vl, vr;
  std::vector<double> wi;  // real matrices: the imaginary parts as the kernel wrote them
  int info = -1;
};

// Runs kiln.geev on `batches` n x n matrices `vals` of type t.
Result RunGeev(const Case& t, int64_t batches, int64_t n, const std::vector<cd>& vals, bool left = true,
               bool right = true) {
  Tensor a = TC(t.type, {batches, n, n}, vals);
  Tensor wr = Zeros(t.type, {batches, n}), wi = Zeros(t.type, {batches, n});
  Tensor vl = Zeros(t.vectors, {batches, n, n}), vr = Zeros(t.vectors, {batches, n, n});
  Tensor info = Zeros(kI32, {batches});
  std::vector<Tensor*> outs = t.complex ? std::vector<Tensor*>{&wr, &vl, &vr, &info}
                                        : std::vector<Tensor*>{&wr, &wi, &vl, &vr, &info};
  Result r;
  const Status s = Call("kiln.geev", {Int("compute_left", left), Int("compute_right", right)}, {&a}, outs);
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return r;
  r.w = C(wr);
  if (!t.complex) {
    r.wi = D(wi);
    for (size_t i = 0; i < r.w.size(); ++i) r.w[i] = cd(r.w[i].real(), r.wi[i]);
  }
  r.vl = C(vl);
  r.vr = C(vr);
  const std::vector<double> infos = D(info);
  r.info = 0;
  for (double x : infos) r.info = std::max(r.info, static_cast<int>(x));
  return r;
}

// Every relation geev's results satisfy, for batch b.
void ExpectEigenpairs(const Case& t, int64_t n, const std::vector<cd>& vals, const Result& r, int64_t b) {
  const cd* a = vals.data() + b * n * n;
  double norm = 0;
  for (int64_t i = 0; i < n * n; ++i) norm = std::max(norm, std::abs(a[i]));
  const double tol = t.tol * std::max(norm, 1.0) * n;
  for (int64_t j = 0; j < n; ++j) {
    SCOPED_TRACE("eigenpair " + std::to_string(j));
    const cd lambda = r.w[b * n + j];
    if (!t.complex && j > 0 && lambda.imag() < 0) {  // the second of a pair: the first's conjugate
      EXPECT_EQ(lambda, std::conj(r.w[b * n + j - 1]));
      EXPECT_GT(r.w[b * n + j - 1].imag(), 0.0);
    }
    for (bool left : {false, true}) {
      const std::vector<cd>& v = left ? r.vl : r.vr;
      auto at = [&](int64_t i) { return v[(b * n + i) * n + j]; };
      double vnorm = 0;
      int64_t big = 0;
      for (int64_t i = 0; i < n; ++i) {
        vnorm += std::norm(at(i));
        if (std::norm(at(i)) > std::norm(at(big)) * (1 + 1e-6)) big = i;
      }
      EXPECT_NEAR(std::sqrt(vnorm), 1.0, t.tol * 10) << (left ? "left" : "right") << " vector's 2-norm";
      if (lambda.imag() == 0 && !t.complex) {
        for (int64_t i = 0; i < n; ++i) EXPECT_EQ(at(i).imag(), 0.0) << "a real eigenvalue's vector is real";
      } else {
        // Within rounding, several entries can share the largest modulus;
        // the one the kernel made real is among them.
        bool real_at_max = false;
        for (int64_t i = 0; i < n; ++i)
          if (std::abs(std::abs(at(i)) - std::abs(at(big))) <= t.tol && at(i).imag() == 0 &&
              (!t.complex || at(i).real() > 0))
            real_at_max = true;
        EXPECT_TRUE(real_at_max) << (left ? "left" : "right") << " vector's largest entry is real"
                                 << (t.complex ? " and positive" : "");
      }
      if (!t.complex && lambda.imag() < 0) {
        for (int64_t i = 0; i < n; ++i)
          EXPECT_EQ(at(i), std::conj(v[(b * n + i) * n + j - 1])) << "a pair's vectors are conjugate";
      }
      for (int64_t i = 0; i < n; ++i) {
        cd residual = 0;  // (a v - lambda v)_i, or (u^H a - lambda u^H)_i
        for (int64_t k = 0; k < n; ++k) residual += left ? std::conj(at(k)) * a[k * n + i] : a[i * n + k] * at(k);
        residual -= left ? lambda * std::conj(at(i)) : lambda * at(i);
        EXPECT_NEAR(std::abs(residual), 0.0, tol) << (left ? "u^H a = lambda u^H" : "a v = lambda v") << " at " << i;
      }
    }
  }
}

TEST(NumericGeev, EigenpairsOfRandomMatrices) {
  std::mt19937 rng(7);
  std::normal_distribution<double> g;
  for (const Case& t : Types())
    for (int64_t n : {1, 2, 3, 5, 8}) {
      SCOPED_TRACE(std::string(Name(t.type)) + " n=" + std::to_string(n));
      const int64_t batches = 2;
      std::vector<cd> vals(static_cast<size_t>(batches * n * n));
      for (cd& x : vals) x = cd(Round(t, g(rng)), t.complex ? Round(t, g(rng)) : 0.0);
      const Result r = RunGeev(t, batches, n, vals);
      EXPECT_EQ(r.info, 0);
      for (int64_t b = 0; b < batches && r.info == 0; ++b) ExpectEigenpairs(t, n, vals, r, b);
    }
}

// Balancing: rows and columns that isolate an eigenvalue are permuted out
// (an upper triangular matrix with a few entries below the diagonal), and
// a matrix whose rows and columns differ by powers of two in scale is
// scaled; both must come back to the eigenvectors of the matrix as given.
TEST(NumericGeev, BalancedMatricesGiveTheEigenvectorsOfTheInput) {
  std::mt19937 rng(11);
  std::normal_distribution<double> g;
  for (const Case& t : Types()) {
    SCOPED_TRACE(Name(t.type));
    const int64_t n = 6;
    std::vector<cd> vals(static_cast<size_t>(2 * n * n), 0.0);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i; j < n; ++j) vals[i * n + j] = cd(Round(t, g(rng)), t.complex ? Round(t, g(rng)) : 0.0);
    vals[3 * n + 1] = 2.0;
    vals[4 * n + 2] = 0.5;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        vals[n * n + i * n + j] = cd(Round(t, g(rng) * std::ldexp(1.0, static_cast<int>(3 * (i - j)))),
                                     t.complex ? Round(t, g(rng) * std::ldexp(1.0, static_cast<int>(3 * (i - j)))) : 0.0);
    const Result r = RunGeev(t, 2, n, vals);
    EXPECT_EQ(r.info, 0);
    for (int64_t b = 0; b < 2 && r.info == 0; ++b) ExpectEigenpairs(t, n, vals, r, b);
  }
}

TEST(NumericGeev, VectorsNotAskedForComeBackZeroAndTheValuesStay) {
  std::mt19937 rng(3);
  std::normal_distribution<double> g;
  for (const Case& t : Types()) {
    SCOPED_TRACE(Name(t.type));
    const int64_t n = 4;
    std::vector<cd> vals(static_cast<size_t>(n * n));
    for (cd& x : vals) x = cd(Round(t, g(rng)), t.complex ? Round(t, g(rng)) : 0.0);
    const Result both = RunGeev(t, 1, n, vals), right = RunGeev(t, 1, n, vals, false, true),
                 none = RunGeev(t, 1, n, vals, false, false);
    for (const cd& x : right.vl) EXPECT_EQ(x, cd(0.0));
    for (const cd& x : none.vr) EXPECT_EQ(x, cd(0.0));
    EXPECT_EQ(right.vr, both.vr);
    for (int64_t j = 0; j < n; ++j)  // without the Schur form LAPACK's QR touches less, so rounding may differ
      EXPECT_NEAR(std::abs(none.w[j] - both.w[j]), 0.0, t.tol * 10) << "eigenvalue " << j;
  }
}

TEST(NumericGeev, NonFiniteInputGivesNanValuesAndInfoAndShapesAreChecked) {
  for (const Case& t : Types()) {
    SCOPED_TRACE(Name(t.type));
    std::vector<cd> vals = {1.0, 2.0, std::numeric_limits<double>::quiet_NaN(), 4.0};
    const Result r = RunGeev(t, 1, 2, vals);
    EXPECT_EQ(r.info, 1);
    EXPECT_TRUE(std::isnan(r.w[0].real()));
  }
  Tensor a = Zeros(kF32, {2, 3}), w = Zeros(kF32, {2}), v = Zeros(kC64, {2, 3}), info = Zeros(kI32, {});
  EXPECT_FALSE(Call("kiln.geev", {}, {&a}, {&w, &w, &v, &v, &info}).ok()) << "a rectangular matrix";
  Tensor sq = Zeros(kF32, {2, 2}), vf = Zeros(kF32, {2, 2});
  EXPECT_FALSE(Call("kiln.geev", {}, {&sq}, {&w, &w, &vf, &vf, &info}).ok()) << "real eigenvectors";
  Tensor h = Zeros(kF16, {2, 2}), wh = Zeros(kF16, {2}), vh = Zeros(kC64, {2, 2});
  EXPECT_FALSE(Call("kiln.geev", {}, {&h}, {&wh, &wh, &vh, &vh, &info}).ok()) << "f16 (LAPACK has no ?geev for it)";
}

}  // namespace
}  // namespace kiln::ref::numeric_test

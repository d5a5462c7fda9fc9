// The transpose-into-dot fold (compiler/passes/fold_transpose.cc), end to
// end: a transpose feeding a dot_general costs no dispatch of its own, the
// folded program matches a double-precision product of the explicitly
// transposed operands (f32 and f64, odd sizes), gives the same bits at 1, 2
// and 4 threads, and a fold that would reorder the result is not made.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "tests/support/host_tensor_util.h"
#include "vm/context.h"
#include "tests/support/counted_run.h"

namespace kiln {
namespace {

using Dims = std::vector<int64_t>;

using Result = test::CountedRun;

Result CompileAndRun(const std::string& source, bool fuse, int threads, const std::vector<vm::HostTensor>& inputs) {
  return test::CompileAndRunCounted(source, inputs, {.fuse = fuse, .threads = threads, .file_name = "fold.mlir"});
}

int64_t Count(const Dims& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

// y = transpose(x, perm): y dim i is x dim perm[i].
std::vector<double> Transpose(const std::vector<double>& x, const Dims& xd, const Dims& perm) {
  const size_t r = xd.size();
  Dims yd(r), xs(r, 1), idx(r, 0);
  for (size_t i = 0; i < r; ++i) yd[i] = xd[perm[i]];
  for (size_t i = r - 1; i-- > 0;) xs[i] = xs[i + 1] * xd[i + 1];
  std::vector<double> y(x.size());
  for (size_t o = 0; o < y.size(); ++o) {
    int64_t off = 0;
    for (size_t i = 0; i < r; ++i) off += idx[i] * xs[perm[i]];
    y[o] = x[off];
    for (size_t i = r; i-- > 0;)
      if (++idx[i] < yd[i]) break; else idx[i] = 0;
  }
  return y;
}

// C[b][m][n] = sum_k A[b][m][k] * B[b][k][n] in double.
std::vector<double> Matmul(const std::vector<double>& a, const std::vector<double>& b, int64_t bs, int64_t m,
                           int64_t k, int64_t n) {
  std::vector<double> c(static_cast<size_t>(bs * m * n), 0.0);
  for (int64_t q = 0; q < bs; ++q)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p)
        for (int64_t j = 0; j < n; ++j) c[(q * m + i) * n + j] += a[(q * m + i) * k + p] * b[(q * k + p) * n + j];
  return c;
}

template <typename T>
vm::HostTensor Tensor(ElementType type, const Dims& dims, const std::vector<double>& v) {
  std::vector<T> t(v.begin(), v.end());
  return test::HostTensorOf(type, dims, t);
}

// Values exact in f32, so that a copied f32 element equals its double.
std::vector<double> Random(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> d;
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = static_cast<float>(d(rng));
  return v;
}

template <typename T>
void ExpectNear(const vm::HostTensor& got, const std::vector<double>& expect, double tol) {
  ASSERT_EQ(got.data.size(), expect.size() * sizeof(T));
  for (size_t i = 0; i < expect.size(); ++i) {
    T g;
    std::memcpy(&g, got.data.data() + i * sizeof(T), sizeof(T));
    ASSERT_NEAR(g, expect[i], tol * (1 + std::fabs(expect[i]))) << "element " << i;
  }
}

std::string Ty(const Dims& d, const char* e) {
  std::string s = "tensor<";
  for (int64_t x : d) s += std::to_string(x) + "x";
  return s + e + ">";
}

// Batched product whose lhs is transpose(x [K, B, M], [1, 2, 0]) = [B, M, K]
// and whose rhs is transpose(w [B, N, K], [0, 2, 1]) = [B, K, N]: both fold.
template <typename T>
void BatchedBothSides(ElementType type, const char* e, double tol) {
  const int64_t B = 3, M = 37, K = 29, N = 19;
  const Dims xd = {K, B, M}, wd = {B, N, K};
  const std::string src = "func.func @main(%x: " + Ty(xd, e) + ", %w: " + Ty(wd, e) + ") -> " + Ty({B, M, N}, e) +
                          " {\n  %a = stablehlo.transpose %x, dims = [1, 2, 0] : (" + Ty(xd, e) + ") -> " +
                          Ty({B, M, K}, e) + "\n  %b = stablehlo.transpose %w, dims = [0, 2, 1] : (" + Ty(wd, e) +
                          ") -> " + Ty({B, K, N}, e) +
                          "\n  %c = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x "
                          "[1] : (" +
                          Ty({B, M, K}, e) + ", " + Ty({B, K, N}, e) + ") -> " + Ty({B, M, N}, e) +
                          "\n  return %c : " + Ty({B, M, N}, e) + "\n}\n";
  const auto x = Random(Count(xd), 1), w = Random(Count(wd), 2);
  const auto expect = Matmul(Transpose(x, xd, {1, 2, 0}), Transpose(w, wd, {0, 2, 1}), B, M, K, N);
  const std::vector<vm::HostTensor> in = {Tensor<T>(type, xd, x), Tensor<T>(type, wd, w)};
  const Result unfused = CompileAndRun(src, false, 1, in);
  EXPECT_EQ(unfused.dispatches, 3u);
  Result first;
  for (int threads : {1, 2, 4}) {
    Result r = CompileAndRun(src, true, threads, in);
    EXPECT_EQ(r.dispatches, 1u) << "both transposes are read in place";
    ASSERT_EQ(r.outputs.size(), 1u);
    ExpectNear<T>(r.outputs[0], expect, tol);
    if (threads == 1) first = std::move(r);
    else EXPECT_EQ(r.outputs[0].data, first.outputs[0].data) << threads << " threads";
  }
}

TEST(TransposeFold, BatchedBothSidesF32) { BatchedBothSides<float>(ElementType::kF32, "f32", 1e-4); }
TEST(TransposeFold, BatchedBothSidesF64) { BatchedBothSides<double>(ElementType::kF64, "f64", 1e-11); }

// Attention's output projection: lhs = reshape(transpose(o [B, H, S, D],
// [0, 2, 1, 3]), [B, S, H*D]) times w [H*D, N]. Folded, the dot contracts
// o's H and D and reads w as [H, D, N]; with `merge_free` the reshape also
// merges B and S ([B*S, H*D]), which would reshape the result: not folded.
template <typename T>
void OutputProjection(ElementType type, const char* e, double tol, bool merge_free) {
  const int64_t B = 2, H = 3, S = 13, D = 7, N = 11;
  const Dims od = {B, H, S, D}, wd = {H * D, N}, td = {B, S, H, D};
  const Dims xd = merge_free ? Dims{B * S, H * D} : Dims{B, S, H * D};
  const Dims rd = merge_free ? Dims{B * S, N} : Dims{B, S, N};
  const int64_t c = merge_free ? 1 : 2;
  const std::string src = "func.func @main(%o: " + Ty(od, e) + ", %w: " + Ty(wd, e) + ") -> " + Ty(rd, e) +
                          " {\n  %t = stablehlo.transpose %o, dims = [0, 2, 1, 3] : (" + Ty(od, e) + ") -> " +
                          Ty(td, e) + "\n  %x = stablehlo.reshape %t : (" + Ty(td, e) + ") -> " + Ty(xd, e) +
                          "\n  %c = stablehlo.dot_general %x, %w, contracting_dims = [" + std::to_string(c) +
                          "] x [0] : (" + Ty(xd, e) + ", " + Ty(wd, e) + ") -> " + Ty(rd, e) +
                          "\n  return %c : " + Ty(rd, e) + "\n}\n";
  const auto o = Random(Count(od), 5), w = Random(Count(wd), 6);
  const auto expect = Matmul(Transpose(o, od, {0, 2, 1, 3}), w, 1, B * S, H * D, N);
  const std::vector<vm::HostTensor> in = {Tensor<T>(type, od, o), Tensor<T>(type, wd, w)};
  EXPECT_EQ(CompileAndRun(src, false, 1, in).dispatches, 2u);
  Result first;
  for (int threads : {1, 2, 4}) {
    Result r = CompileAndRun(src, true, threads, in);
    EXPECT_EQ(r.dispatches, merge_free ? 2u : 1u);
    ASSERT_EQ(r.outputs.size(), 1u);
    ExpectNear<T>(r.outputs[0], expect, tol);
    if (threads == 1) first = std::move(r);
    else EXPECT_EQ(r.outputs[0].data, first.outputs[0].data) << threads << " threads";
  }
}

TEST(TransposeFold, OutputProjectionF32) { OutputProjection<float>(ElementType::kF32, "f32", 1e-4, false); }
TEST(TransposeFold, OutputProjectionF64) { OutputProjection<double>(ElementType::kF64, "f64", 1e-11, false); }
TEST(TransposeFold, MergedFreeDimsAreNotFolded) { OutputProjection<float>(ElementType::kF32, "f32", 1e-4, true); }

// lhs = transpose(x [M2, M1, K], [1, 0, 2]) = [M1, M2, K]: its free dims
// would come out in the other order, so the transpose stays; a transpose
// that another op also reads stays for that op while the dot reads x.
TEST(TransposeFold, ReorderedFreeDimsAndSharedTransposesStay) {
  const int64_t M1 = 5, M2 = 7, K = 9, N = 11;
  const std::string src = R"(
func.func @main(%x: tensor<7x5x9xf32>, %w: tensor<11x9xf32>) -> (tensor<5x7x11xf32>, tensor<9x11xf32>) {
  %a = stablehlo.transpose %x, dims = [1, 0, 2] : (tensor<7x5x9xf32>) -> tensor<5x7x9xf32>
  %b = stablehlo.transpose %w, dims = [1, 0] : (tensor<11x9xf32>) -> tensor<9x11xf32>
  %c = stablehlo.dot_general %a, %b, contracting_dims = [2] x [0] : (tensor<5x7x9xf32>, tensor<9x11xf32>) -> tensor<5x7x11xf32>
  return %c, %b : tensor<5x7x11xf32>, tensor<9x11xf32>
}
)";
  const auto x = Random(M2 * M1 * K, 3), w = Random(N * K, 4);
  const auto wt = Transpose(w, {N, K}, {1, 0});
  const auto expect = Matmul(Transpose(x, {M2, M1, K}, {1, 0, 2}), wt, 1, M1 * M2, K, N);
  const std::vector<vm::HostTensor> in = {Tensor<float>(ElementType::kF32, {M2, M1, K}, x),
                                          Tensor<float>(ElementType::kF32, {N, K}, w)};
  const Result r = CompileAndRun(src, true, 2, in);
  EXPECT_EQ(r.dispatches, 3u) << "both transposes still run (one for the dot, one for the result)";
  ASSERT_EQ(r.outputs.size(), 2u);
  ExpectNear<float>(r.outputs[0], expect, 1e-4);
  ExpectNear<float>(r.outputs[1], wt, 0);
}

}  // namespace
}  // namespace kiln

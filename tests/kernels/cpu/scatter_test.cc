// The fast CPU scatter of whole rows (kernels/cpu/indexing_scatter.cc)
// against the reference kernel, byte for byte: replace and add update
// computations, element types of 1 to 8 bytes (add: f32, f64, i32, ui64),
// index types i32, i64 and ui8, repeated indices (applied in order, so a
// repeated add sums in the reference's order and a repeated set keeps the
// last), indices past either end (their rows skipped), one and two indexed
// axes, the implicit index vector, zero rows, the thread pool; and scatters
// of another form, which run the reference.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/registry.h"
#include "kernels/reference/registry.h"
#include "tests/kernels/cpu/test_pool.h"
#include "tests/kernels/tensor_test_util.h"

namespace kiln::cpu {
namespace {

using test::Count;

struct Case {
  std::vector<int64_t> operand, indices, updates, update_window_dims, inserted, to_operand;
  int64_t index_vector_dim;
};

ScalarProgram UpdateProgram(ElementType t, bool add) {
  ScalarProgram prog;
  prog.param_types = {t, t};
  if (add) {
    ScalarInstr in;
    in.op = ScalarOp::kAdd;
    in.type = t;
    in.num_operands = 2;
    in.operands[0] = 0;
    in.operands[1] = 1;
    prog.instrs = {in};
    prog.results = {2};
  } else {
    prog.results = {1};
  }
  return prog;
}

KernelParams Params(const Case& c, ElementType t, bool add) {
  KernelParams p{"stablehlo.scatter",
                 {test::Ints("update_window_dims", c.update_window_dims), test::Ints("inserted_window_dims", c.inserted),
                  test::Ints("scatter_dims_to_operand_dims", c.to_operand),
                  test::Ints("index_vector_dim", {c.index_vector_dim}),
                  test::Prog("update_computation", UpdateProgram(t, add))}};
  return p;
}

void Check(const Case& c, ElementType t, ElementType it, bool add, uint32_t seed) {
  SCOPED_TRACE(std::string(Name(t)) + " indices " + std::string(Name(it)) + (add ? " add" : " set") + " seed " +
               std::to_string(seed));
  std::mt19937 rng(seed);
  const KernelParams p = Params(c, t, add);
  auto random_bytes = [&](const std::vector<int64_t>& dims, ElementType type) {
    std::vector<uint8_t> v(static_cast<size_t>(Count(dims)) * StorageBytes(type));
    if (type == ElementType::kF32 || type == ElementType::kF64) {  // finite values: sums stay comparable
      for (int64_t i = 0; i < Count(dims); ++i) {
        const double x = static_cast<double>(static_cast<int>(rng() % 2001) - 1000) / 7.0;
        if (type == ElementType::kF32) reinterpret_cast<float*>(v.data())[i] = static_cast<float>(x);
        else reinterpret_cast<double*>(v.data())[i] = x;
      }
    } else {
      for (auto& b : v) b = static_cast<uint8_t>(rng());
    }
    return v;
  };
  std::vector<uint8_t> in = random_bytes(c.operand, t), upd = random_bytes(c.updates, t);
  // Indices from -3 to 3 past the end (few distinct values: repeats).
  std::vector<uint8_t> idx(static_cast<size_t>(Count(c.indices)) * StorageBytes(it));
  for (int64_t i = 0; i < Count(c.indices); ++i) {
    const int64_t v = static_cast<int64_t>(rng() % (c.operand[0] + 6)) - (it == ElementType::kUI8 ? 0 : 3);
    if (it == ElementType::kSI32) reinterpret_cast<int32_t*>(idx.data())[i] = static_cast<int32_t>(v);
    if (it == ElementType::kSI64) reinterpret_cast<int64_t*>(idx.data())[i] = v;
    if (it == ElementType::kUI8) idx[i] = static_cast<uint8_t>(v);
  }
  const size_t out_bytes = in.size();
  std::vector<uint8_t> got(out_bytes, 0xCD), threaded(out_bytes, 0xEF), want(out_bytes, 0);
  TensorRef ins[3] = {{t, c.operand, in.data(), in.size()}, {it, c.indices, idx.data(), idx.size()},
                      {t, c.updates, upd.data(), upd.size()}};
  TensorRef g[1] = {{t, c.operand, got.data(), got.size()}};
  TensorRef h[1] = {{t, c.operand, threaded.data(), threaded.size()}};
  TensorRef w[1] = {{t, c.operand, want.data(), want.size()}};
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  ASSERT_TRUE(ref::FindReferenceKernel(p.kernel)(KernelCall{p, ins, w}).ok());
  ASSERT_TRUE(fast(KernelCall{p, ins, g}).ok());
  ASSERT_TRUE(fast(KernelCall{p, ins, h, TestPool()}).ok());
  EXPECT_EQ(got, want);
  EXPECT_EQ(threaded, want);
}

TEST(CpuScatter, RowsMatchTheReference) {
  const Case cases[] = {
      // x.at[ids].set(rows): [1000, 64] by [256, 1] (explicit index vector)
      {{50, 64}, {256, 1}, {256, 64}, {1}, {0}, {0}, 1},
      // implicit index vector, rank-3 rows
      {{20, 3, 5}, {40}, {40, 3, 5}, {1, 2}, {0}, {0}, 1},
      // two indexed axes, batched indices [4, 6, 2]
      {{7, 9, 4}, {4, 6, 2}, {4, 6, 4}, {2}, {0, 1}, {0, 1}, 2},
      // zero rows
      {{10, 8}, {0, 1}, {0, 8}, {1}, {0}, {0}, 1},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    for (ElementType t : {ElementType::kF32, ElementType::kSI8, ElementType::kF16, ElementType::kF64})
      for (ElementType it : {ElementType::kSI32, ElementType::kSI64, ElementType::kUI8}) Check(c, t, it, false, seed++);
    for (ElementType t : {ElementType::kF32, ElementType::kF64, ElementType::kSI32, ElementType::kUI64})
      for (ElementType it : {ElementType::kSI32, ElementType::kUI8}) Check(c, t, it, true, seed++);
  }
}

TEST(CpuScatter, OtherFormsRunTheReference) {
  // Windows that are not whole rows (update window [.., 32] of 64
  // columns), and an update computation that multiplies: the reference's
  // results through the fast kernel's entry, or not claimed at all.
  Check({{50, 64}, {16, 1}, {16, 32}, {1}, {0}, {0}, 1}, ElementType::kF32, ElementType::kSI32, false, 90);
  KernelParams mul = Params({{50, 64}, {16, 1}, {16, 64}, {1}, {0}, {0}, 1}, ElementType::kF32, true);
  for (KernelAttr& a : mul.attrs)
    if (a.name == "update_computation") a.program.instrs[0].op = ScalarOp::kMultiply;
  EXPECT_EQ(FindCpuKernel(mul), nullptr);
}

}  // namespace
}  // namespace kiln::cpu

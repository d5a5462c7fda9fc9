// The fast CPU gather of whole rows (kernels/cpu/indexing_gather.cc) against
// the reference kernel, byte for byte: element types of 1, 2, 4 and 8 bytes,
// index types i32, i64 and ui8, out-of-range and negative starts (clamped),
// one and two indexed axes, the implicit index vector, odd sizes, zero rows,
// the thread pool; and gathers of another form (which run the reference).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/registry.h"
#include "kernels/reference/registry.h"
#include "tests/kernels/cpu/test_pool.h"

namespace kiln::cpu {
namespace {

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

struct Case {
  std::vector<int64_t> operand, indices, out, offset_dims, collapsed, start_index_map, slice_sizes;
  int64_t index_vector_dim;
};

KernelParams Params(const Case& c) {
  KernelParams p;
  p.kernel = "stablehlo.gather";
  auto add = [&](const char* name, std::vector<int64_t> v) {
    KernelAttr a;
    a.name = name;
    a.ints = std::move(v);
    p.attrs.push_back(a);
  };
  add("offset_dims", c.offset_dims);
  add("collapsed_slice_dims", c.collapsed);
  add("start_index_map", c.start_index_map);
  add("index_vector_dim", {c.index_vector_dim});
  add("slice_sizes", c.slice_sizes);
  return p;
}

void Check(const Case& c, ElementType t, ElementType it, uint32_t seed) {
  SCOPED_TRACE(std::string(Name(t)) + " indices " + std::string(Name(it)) + " seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const KernelParams p = Params(c);
  std::vector<uint8_t> in(static_cast<size_t>(Count(c.operand)) * StorageBytes(t));
  for (auto& b : in) b = static_cast<uint8_t>(rng());
  // Starts from -3 to past the end, so clamping is exercised both ways.
  std::vector<uint8_t> idx(static_cast<size_t>(Count(c.indices)) * StorageBytes(it));
  for (int64_t i = 0; i < Count(c.indices); ++i) {
    const int64_t v = static_cast<int64_t>(rng() % (c.operand[0] + 6)) - (it == ElementType::kUI8 ? 0 : 3);
    if (it == ElementType::kSI32) reinterpret_cast<int32_t*>(idx.data())[i] = static_cast<int32_t>(v);
    if (it == ElementType::kSI64) reinterpret_cast<int64_t*>(idx.data())[i] = v;
    if (it == ElementType::kUI8) idx[i] = static_cast<uint8_t>(v);
  }
  const size_t out_bytes = static_cast<size_t>(Count(c.out)) * StorageBytes(t);
  std::vector<uint8_t> got(out_bytes, 0xCD), threaded(out_bytes, 0xEF), want(out_bytes, 0);
  TensorRef ins[2] = {{t, c.operand, in.data(), in.size()}, {it, c.indices, idx.data(), idx.size()}};
  TensorRef g[1] = {{t, c.out, got.data(), got.size()}};
  TensorRef h[1] = {{t, c.out, threaded.data(), threaded.size()}};
  TensorRef w[1] = {{t, c.out, want.data(), want.size()}};
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  ASSERT_TRUE(ref::FindReferenceKernel(p.kernel)(KernelCall{p, ins, w}).ok());
  ASSERT_TRUE(fast(KernelCall{p, ins, g}).ok());
  ASSERT_TRUE(fast(KernelCall{p, ins, h, TestPool()}).ok());
  EXPECT_EQ(got, want);
  EXPECT_EQ(threaded, want);
}

TEST(CpuGather, RowsMatchTheReference) {
  const Case cases[] = {
      // JAX's table[ids]: ids [B, L, 1], a [V, D] table.
      {{37, 13}, {5, 7, 1}, {5, 7, 13}, {2}, {0}, {0}, {1, 13}, 2},
      // The implicit index vector (ids [B, L]).
      {{37, 13}, {5, 7}, {5, 7, 13}, {2}, {0}, {0}, {1, 13}, 2},
      // Rows of rank 2, a rank-0 batch (one row), many rows over the pool.
      {{9, 3, 5}, {11, 1}, {11, 3, 5}, {1, 2}, {0}, {0}, {1, 3, 5}, 1},
      {{9, 3, 5}, {1}, {3, 5}, {0, 1}, {0}, {0}, {1, 3, 5}, 0},
      {{1000, 64}, {4096, 1}, {4096, 64}, {1}, {0}, {0}, {1, 64}, 1},
      // Two indexed axes: starts (i, j) of a [7, 6, 5] operand.
      {{7, 6, 5}, {4, 3, 2}, {4, 3, 5}, {2}, {0, 1}, {0, 1}, {1, 1, 5}, 2},
      // Zero rows.
      {{37, 13}, {0, 1}, {0, 13}, {1}, {0}, {0}, {1, 13}, 1},
  };
  uint32_t seed = 1;
  for (const Case& c : cases)
    for (ElementType t : {ElementType::kSI8, ElementType::kF16, ElementType::kF32, ElementType::kF64})
      for (ElementType it : {ElementType::kSI32, ElementType::kSI64, ElementType::kUI8}) Check(c, t, it, seed++);
}

TEST(CpuGather, OtherFormsRunTheReference) {
  const Case cases[] = {
      // Partial rows (slice size 4 of 13), a column gather (start_index_map [1]),
      // the index vector first, offset dims before the batch dims.
      {{37, 13}, {5, 1}, {5, 4}, {1}, {0}, {0}, {1, 4}, 1},
      {{13, 37}, {5, 1}, {5, 13}, {1}, {1}, {1}, {13, 1}, 1},
      {{37, 13}, {1, 5}, {5, 13}, {1}, {0}, {0}, {1, 13}, 0},
      {{37, 13}, {5, 1}, {13, 5}, {0}, {0}, {0}, {1, 13}, 1},
  };
  uint32_t seed = 100;
  for (const Case& c : cases) Check(c, ElementType::kF32, ElementType::kSI32, seed++);
}

TEST(CpuGather, MalformedCallsAreRefused) {
  // Storage smaller than the dims say: an error, never a read past the end.
  const Case c = {{37, 13}, {5, 1}, {5, 13}, {1}, {0}, {0}, {1, 13}, 1};
  const KernelParams p = Params(c);
  std::vector<float> table(10), out(65);
  std::vector<int32_t> idx(5, 0);
  TensorRef ins[2] = {{ElementType::kF32, c.operand, reinterpret_cast<uint8_t*>(table.data()), 40},
                      {ElementType::kSI32, c.indices, reinterpret_cast<uint8_t*>(idx.data()), 20}};
  TensorRef o[1] = {{ElementType::kF32, c.out, reinterpret_cast<uint8_t*>(out.data()), 260}};
  EXPECT_FALSE(FindCpuKernel(p)(KernelCall{p, ins, o}).ok());
}

}  // namespace
}  // namespace kiln::cpu

// The check the exact fast CPU kernels share (integer, quantized and data
// movement kernels): the fast kernel, on the calling thread and on the test
// pool, writes the same bytes as the reference kernel.
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernels/cpu/registry.h"
#include "kernels/reference/registry.h"
#include "tests/kernels/cpu/test_pool.h"
#include "tests/kernels/tensor_test_util.h"

namespace kiln::cpu {

inline void ExpectSameBytesAsReference(const KernelParams& p, std::vector<test::Tensor> inputs, ElementType out_type,
                                       const std::vector<int64_t>& out_dims) {
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  KernelFn ref = ref::FindReferenceKernel(p.kernel);
  ASSERT_NE(ref, nullptr);
  test::Tensor want = test::Zeros(out_type, out_dims), got = want, threaded = want;
  std::memset(got.bytes.data(), 0x5A, got.bytes.size());  // every byte must be written
  std::memset(threaded.bytes.data(), 0xA5, threaded.bytes.size());
  std::vector<TensorRef> in;
  for (test::Tensor& t : inputs) in.push_back(t.ref());
  TensorRef w[1] = {want.ref()}, g[1] = {got.ref()}, t[1] = {threaded.ref()};
  ASSERT_TRUE(ref(KernelCall{p, in, w, nullptr}).ok());
  ASSERT_TRUE(fast(KernelCall{p, in, g, nullptr}).ok());
  ASSERT_TRUE(fast(KernelCall{p, in, t, TestPool()}).ok());
  EXPECT_EQ(got.bytes, want.bytes);
  EXPECT_EQ(threaded.bytes, want.bytes);
}

}  // namespace kiln::cpu

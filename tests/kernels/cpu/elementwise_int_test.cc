// The fast i32 add/subtract of kiln.elementwise (kernels/cpu/elementwise_int.cc)
// against the reference, byte for byte: a row broadcast along either axis
// (the int8 GEMM's zero-point correction), operands in either order, sums
// that wrap, odd sizes, the pool; other integer programs keep the reference.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu/registry.h"
#include "kernels/reference/registry.h"
#include "tests/kernels/cpu/same_bytes_check.h"
#include "tests/kernels/cpu/test_pool.h"
#include "tests/kernels/tensor_test_util.h"

namespace kiln::cpu {
namespace {

using namespace ::kiln::test;

ScalarProgram AddSub(ScalarOp op, uint16_t a, uint16_t b) {
  ScalarProgram p;
  p.param_types = {ElementType::kSI32, ElementType::kSI32};
  ScalarInstr i;
  i.op = op;
  i.type = ElementType::kSI32;
  i.num_operands = 2;
  i.operands[0] = a;
  i.operands[1] = b;
  p.instrs.push_back(i);
  p.results = {2};
  return p;
}

Tensor RandomI32(std::vector<int64_t> dims, std::mt19937& rng) {
  Tensor x = Zeros(ElementType::kSI32, std::move(dims));
  for (auto& b : x.bytes) b = static_cast<uint8_t>(rng());
  return x;
}

void Check(const KernelParams& p, Tensor a, Tensor b, std::vector<int64_t> out_dims) {
  ExpectSameBytesAsReference(p, {std::move(a), std::move(b)}, ElementType::kSI32, out_dims);
}

TEST(CpuElementwiseInt, AddSubtractWithABroadcastRow) {
  std::mt19937 rng(6);
  for (ScalarOp op : {ScalarOp::kAdd, ScalarOp::kSubtract})
    for (int64_t m : {1, 3, 17, 130, 700})
      for (int64_t n : {1, 17, 65, 1030}) {
        // input 0 a row [n] broadcast along axis 1, input 1 the [m, n] product:
        // the order the compiler emits, and the other operand order.
        KernelParams p{"kiln.elementwise", {Prog("body", AddSub(op, 1, 0)), Ints("input_broadcast", {1, 1, 2, 0, 1})}};
        Check(p, RandomI32({n}, rng), RandomI32({m, n}, rng), {m, n});
        KernelParams q{"kiln.elementwise", {Prog("body", AddSub(op, 0, 1)), Ints("input_broadcast", {1, 0, 2, 0, 1})}};
        Check(q, RandomI32({m}, rng), RandomI32({m, n}, rng), {m, n});
      }
}

TEST(CpuElementwiseInt, FourBitProgramsKeepTheReference) {
  // (8- to 64-bit integer programs: elementwise_lanes32_test.cc.)
  ScalarProgram p = AddSub(ScalarOp::kMultiply, 0, 1);
  p.param_types = {ElementType::kSI4, ElementType::kSI4};
  p.instrs[0].type = ElementType::kSI4;
  EXPECT_EQ(FindCpuKernel(KernelParams{"kiln.elementwise", {Prog("body", p)}}), nullptr);
}

}  // namespace
}  // namespace kiln::cpu

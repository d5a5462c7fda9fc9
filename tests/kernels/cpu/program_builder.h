// Builds a kiln.elementwise scalar program one instruction at a time, for
// the tests of the CPU's program kernels; values are numbered params first,
// as ScalarProgram numbers them.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/common/kernel.h"
#include "kernels/common/scalar_program.h"
#include "kernels/scalar/scalar.h"
#include "tests/kernels/tensor_test_util.h"

namespace kiln::cpu {

struct ProgramBuilder {
  ScalarProgram p;
  explicit ProgramBuilder(std::vector<ElementType> params) { p.param_types = std::move(params); }
  uint16_t Op(ScalarOp op, ElementType t, std::vector<uint16_t> operands) {
    ScalarInstr i;
    i.op = op;
    i.type = t;
    i.num_operands = static_cast<uint8_t>(operands.size());
    for (size_t k = 0; k < operands.size(); ++k) i.operands[k] = operands[k];
    p.instrs.push_back(i);
    return static_cast<uint16_t>(p.param_types.size() + p.instrs.size() - 1);
  }
  // A float constant, rounded to its type as the compiler writes it.
  uint16_t Const(double v, ElementType t = ElementType::kF32) {
    const uint16_t r = Op(ScalarOp::kConstant, t, {});
    p.instrs.back().constant.re = ref::RoundToFloatType(t, v);
    return r;
  }
  // The program with these results, as a kiln.elementwise kernel's params.
  KernelParams Kernel(std::vector<uint16_t> results) {
    p.results = std::move(results);
    return KernelParams{"kiln.elementwise", {test::Prog("body", p)}};
  }
};

}  // namespace kiln::cpu

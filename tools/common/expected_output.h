// vm-run's golden checks (--expected-output, --atol, --rtol), as IREE's
// iree-run-module --expected_output: a result is compared with an expected
// tensor given like an --input value.
#pragma once
#include <cstddef>
#include <string>

#include "kernels/common/status.h"
#include "vm/host_tensor.h"

namespace kiln::tools {

// Floating-point and complex elements match where |got - want| <= atol +
// rtol * |want| (numpy's allclose; complex parts separately), NaN matches
// NaN and an infinity only itself; integers, booleans and quantized storage
// match exactly.
struct Tolerance {
  double atol = 1e-5;
  double rtol = 1e-5;
};

// Ok when result `index` matches `want` (same element type, same shape,
// every element within `tol`); otherwise FailedPrecondition naming the
// result, the first mismatching element (its index per dimension and flat)
// with both values, and how many elements differ.
Status CompareWithExpected(const vm::HostTensor& got, const vm::HostTensor& want, const Tolerance& tol, size_t index);

}  // namespace kiln::tools

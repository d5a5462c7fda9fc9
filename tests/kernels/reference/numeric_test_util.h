// Test helpers for the numeric reference kernels: type-generic tensors built
// from doubles (stored through StoreScalar) and region-program builders.
// The tensor, the attribute makers and Call are those of
// tests/kernels/tensor_test_util.h.
#pragma once
#include <gtest/gtest.h>

#include <complex>
#include <string>
#include <vector>

#include "kernels/reference/registry.h"
#include "kernels/scalar/scalar.h"
#include "tests/kernels/tensor_test_util.h"

namespace kiln::ref::numeric_test {

using test::Call;
using test::Count;
using test::Int;
using test::Ints;
using test::Floats;
using test::Prog;
using test::Str;
using test::Tensor;
using test::Zeros;

// Elements given as doubles; integers are converted exactly (|v| < 2^53).
inline Tensor T(ElementType t, std::vector<int64_t> dims, std::vector<double> vals) {
  Tensor x = Zeros(t, std::move(dims));
  EXPECT_EQ(static_cast<int64_t>(vals.size()), Count(x.dims));
  for (size_t i = 0; i < vals.size() && i < static_cast<size_t>(Count(x.dims)); ++i) {
    Scalar s;
    if (IsFloat(t) || IsComplex(t)) {
      s.re = vals[i];
      s = ConvertScalar(ElementType::kF64, t, s);
    } else {
      s.i = static_cast<int64_t>(vals[i]);
    }
    StoreScalar(t, s, x.bytes.data() + i * StorageBytes(t));
  }
  return x;
}

inline Tensor TC(ElementType t, std::vector<int64_t> dims, std::vector<std::complex<double>> vals) {
  Tensor x = Zeros(t, std::move(dims));
  EXPECT_EQ(static_cast<int64_t>(vals.size()), Count(x.dims));
  for (size_t i = 0; i < vals.size(); ++i) {
    Scalar s;
    s.re = vals[i].real();
    s.im = vals[i].imag();
    s = ConvertScalar(ElementType::kC128, t, s);
    StoreScalar(t, s, x.bytes.data() + i * StorageBytes(t));
  }
  return x;
}

// Values as doubles (ints via .i, floats via .re).
inline std::vector<double> D(const Tensor& x) {
  std::vector<double> v;
  for (int64_t i = 0; i < Count(x.dims); ++i) {
    Scalar s = LoadScalar(x.type, x.bytes.data() + i * StorageBytes(x.type));
    if (IsFloat(x.type) || IsComplex(x.type)) v.push_back(s.re);
    else if (KindOf(x.type) == ElementKind::kUnsigned) v.push_back(static_cast<double>(static_cast<uint64_t>(s.i)));
    else v.push_back(static_cast<double>(s.i));
  }
  return v;
}

inline std::vector<std::complex<double>> C(const Tensor& x) {
  std::vector<std::complex<double>> v;
  for (int64_t i = 0; i < Count(x.dims); ++i) {
    Scalar s = LoadScalar(x.type, x.bytes.data() + i * StorageBytes(x.type));
    v.emplace_back(s.re, s.im);
  }
  return v;
}

inline void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

inline void ExpectNearC(const std::vector<std::complex<double>>& got, const std::vector<std::complex<double>>& want,
                        double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i].real(), want[i].real(), tol) << "real at " << i;
    EXPECT_NEAR(got[i].imag(), want[i].imag(), tol) << "imag at " << i;
  }
}

// A region (x0..x{n-1}, y0..y{n-1}) -> (op(x0, y0), ...) of element type t.
inline ScalarProgram Binary(ScalarOp op, ElementType t, size_t n = 1, int64_t attr0 = 0, ElementType result = ElementType::kInvalid) {
  ScalarProgram p;
  p.param_types.assign(2 * n, t);
  for (size_t k = 0; k < n; ++k) {
    ScalarInstr in;
    in.op = op;
    in.type = result == ElementType::kInvalid ? t : result;
    in.num_operands = 2;
    in.operands[0] = static_cast<uint16_t>(k);
    in.operands[1] = static_cast<uint16_t>(n + k);
    in.attr0 = attr0;
    p.instrs.push_back(in);
    p.results.push_back(static_cast<uint16_t>(2 * n + k));
  }
  return p;
}

// compare(x, y, direction) -> i1.
inline ScalarProgram Compare(ComparisonDirection dir, ElementType t) {
  ScalarProgram p = Binary(ScalarOp::kCompare, t, 1, static_cast<int64_t>(dir), ElementType::kI1);
  p.instrs[0].attr1 = static_cast<int64_t>(IsFloat(t) ? ComparisonType::kFloat : ComparisonType::kSigned);
  return p;
}

constexpr ElementType kF32 = ElementType::kF32;
constexpr ElementType kF64 = ElementType::kF64;
constexpr ElementType kF16 = ElementType::kF16;
constexpr ElementType kBF16 = ElementType::kBF16;
constexpr ElementType kC64 = ElementType::kC64;
constexpr ElementType kC128 = ElementType::kC128;
constexpr ElementType kI8 = ElementType::kSI8;
constexpr ElementType kI32 = ElementType::kSI32;
constexpr ElementType kI64 = ElementType::kSI64;
constexpr ElementType kU8 = ElementType::kUI8;
constexpr ElementType kU32 = ElementType::kUI32;
constexpr ElementType kU64 = ElementType::kUI64;
constexpr ElementType kBool = ElementType::kI1;

}  // namespace kiln::ref::numeric_test

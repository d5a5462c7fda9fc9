// Test helpers for the numeric reference kernels: type-generic tensors built
// from doubles (stored through StoreScalar), attribute and region-program
// builders, and a call helper that looks kernels up in AddNumericKernels.
#pragma once
#include <gtest/gtest.h>

#include <complex>
#include <string>
#include <vector>

#include "kernels/reference/registry.h"
#include "kernels/scalar/scalar.h"

namespace kiln::ref::numeric_test {

struct Tensor {
  ElementType type = ElementType::kInvalid;
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;
  TensorRef ref() { return {type, dims, bytes.data(), bytes.size()}; }
};

inline int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

inline Tensor Zeros(ElementType t, std::vector<int64_t> dims) {
  Tensor x{t, std::move(dims), {}};
  x.bytes.assign(Count(x.dims) * StorageBytes(t), 0);
  return x;
}

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

inline KernelAttr Ints(std::string name, std::vector<int64_t> v) {
  KernelAttr a;
  a.name = std::move(name);
  a.ints = std::move(v);
  return a;
}
inline KernelAttr Int(std::string name, int64_t v) { return Ints(std::move(name), {v}); }
inline KernelAttr Floats(std::string name, std::vector<double> v) {
  KernelAttr a;
  a.name = std::move(name);
  a.floats = std::move(v);
  return a;
}
inline KernelAttr Str(std::string name, std::string v) {
  KernelAttr a;
  a.name = std::move(name);
  a.str = std::move(v);
  return a;
}
inline KernelAttr Prog(std::string name, ScalarProgram p) {
  KernelAttr a;
  a.name = std::move(name);
  a.has_program = true;
  a.program = std::move(p);
  return a;
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

inline KernelFn Find(std::string_view name) {
  static const std::vector<KernelEntry> all = [] {
    std::vector<KernelEntry> v;
    AddNumericKernels(v);
    return v;
  }();
  for (const auto& e : all)
    if (e.name == name) return e.fn;
  return nullptr;
}

inline Status Call(std::string_view name, std::vector<KernelAttr> attrs, std::vector<Tensor*> ins,
                   std::vector<Tensor*> outs) {
  KernelParams params{std::string(name), std::move(attrs)};
  std::vector<TensorRef> in_refs, out_refs;
  for (Tensor* t : ins) in_refs.push_back(t->ref());
  for (Tensor* t : outs) out_refs.push_back(t->ref());
  KernelFn fn = Find(name);
  if (fn == nullptr) return Unimplemented(std::string(name));
  return fn(KernelCall{params, in_refs, out_refs});
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

// The tensors of the kernel tests (tests/kernels/reference and
// tests/kernels/cpu): bytes with a type and dims that a kernel reads and
// writes through a TensorRef, built from typed values and read back, and
// the kernel attributes the tests pass. One copy for every kernel test.
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/common/kernel.h"
#include "kernels/reference/registry.h"

namespace kiln::test {

inline int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

struct Tensor {
  ElementType type = ElementType::kInvalid;
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;

  TensorRef ref() { return {type, dims, bytes.data(), bytes.size()}; }
  int64_t count() const { return Count(dims); }
  // Element i of an f32 or f64 tensor, as a double (the SIMD kernels' types).
  double Get(int64_t i) const {
    if (type == ElementType::kF64) {
      double v;
      std::memcpy(&v, bytes.data() + i * 8, 8);
      return v;
    }
    float v;
    std::memcpy(&v, bytes.data() + i * 4, 4);
    return v;
  }
  void Set(int64_t i, double v) {
    if (type == ElementType::kF64) {
      std::memcpy(bytes.data() + i * 8, &v, 8);
    } else {
      float f = static_cast<float>(v);
      std::memcpy(bytes.data() + i * 4, &f, 4);
    }
  }
};

inline Tensor Zeros(ElementType t, std::vector<int64_t> dims) {
  Tensor x{t, std::move(dims), {}};
  x.bytes.assign(static_cast<size_t>(x.count()) * StorageBytes(t), 0);
  return x;
}

// A tensor of the given values, stored as they are (V must have the
// element type's storage size).
template <typename V>
Tensor Make(ElementType t, std::vector<int64_t> dims, const std::vector<V>& vals) {
  EXPECT_EQ(sizeof(V), StorageBytes(t));
  Tensor x{t, std::move(dims), std::vector<uint8_t>(vals.size() * sizeof(V))};
  if (!vals.empty()) std::memcpy(x.bytes.data(), vals.data(), x.bytes.size());
  return x;
}

// The stored elements, as V.
template <typename V>
std::vector<V> Get(const Tensor& t) {
  std::vector<V> v(t.bytes.size() / sizeof(V));
  if (!v.empty()) std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
  return v;
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

// Runs the reference kernel `name` on the tensors (Unimplemented when no
// reference kernel has that name).
inline Status Call(std::string_view name, std::vector<KernelAttr> attrs, std::vector<Tensor*> ins,
                   std::vector<Tensor*> outs) {
  KernelParams params{std::string(name), std::move(attrs)};
  std::vector<TensorRef> in_refs, out_refs;
  for (Tensor* t : ins) in_refs.push_back(t->ref());
  for (Tensor* t : outs) out_refs.push_back(t->ref());
  KernelFn fn = ref::FindReferenceKernel(name);
  if (fn == nullptr) return Unimplemented(std::string(name));
  return fn(KernelCall{params, in_refs, out_refs});
}

}  // namespace kiln::test

// Helpers every fast CPU kernel uses to decide whether it takes a call, and
// to hand the call to the reference kernel when it does not (registry.h).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/common/kernel.h"
#include "kernels/reference/numeric_util.h"
#include "kernels/reference/registry.h"

namespace kiln::cpu {

// Runs the reference kernel of the call's kernel name: the fallback of every
// fast kernel for calls it does not handle (the reference gives the error).
inline Status RunReference(const KernelCall& call) {
  KernelFn ref = ref::FindReferenceKernel(call.params.kernel);
  if (ref == nullptr) return Unimplemented(call.params.kernel + ": no reference kernel");
  return ref(call);
}

// True if `t` has non-negative dims and a buffer that holds all its elements
// (a fast kernel reads raw pointers; the reference reports the error).
inline bool StorageOk(const TensorRef& t) {
  for (int64_t d : t.dims)
    if (d < 0) return false;
  const int64_t n = t.NumElements();
  if (n > 0 && t.data == nullptr) return false;
  return static_cast<uint64_t>(n) * StorageBytes(t.type) <= t.byte_size;
}
// The same, and the element type is `type`.
inline bool StorageOk(const TensorRef& t, ElementType type) { return t.type == type && StorageOk(t); }

// Adds what StorageOk and a kernel's shape checks read of `t` to a plan key
// (kernels/common/kernel_state.h): type, dims, byte size, and whether it has
// storage at all; not the address, which a plan keyed on this must not keep.
inline void AddShape(PlanKey& key, const TensorRef& t) {
  key.Add(static_cast<int64_t>(t.type)).Add(t.dims).Add(static_cast<int64_t>(t.byte_size)).Add(t.data == nullptr);
}

// Row-major element strides of `dims`. A tensor with elements has every
// partial product below its element count; one without (a 0 dim) may have
// products past int64 (a hostile module's dims), which wrap here
// (unsigned: defined) and are never used, since it has nothing to read.
inline std::vector<int64_t> Strides(std::span<const int64_t> dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;)
    s[i - 1] = static_cast<int64_t>(static_cast<uint64_t>(s[i]) * static_cast<uint64_t>(dims[i]));
  return s;
}

// `count` values of an int-array attribute, or `fallback` repeated when it is
// absent; false when present with another length.
using ref::numeric::IntsOr;

}  // namespace kiln::cpu

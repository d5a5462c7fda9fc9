// Where rng_bit_generator's THREE_FRY puts its words in a result of 32-bit
// (or narrower) elements: XLA's layout, which JAX's exports expect bit for
// bit. XLA splits the result shape in two along one dim (the first of even
// size, else the first of the largest size), runs one Threefry block per
// element of the half shape (that dim halved, rounded up; counter = the
// element's row-major index there), and puts a block's first word in the
// even and its second word in the odd position along the split dim; an odd
// split dim drops the last block row's second words. The Vulkan shader
// (kernels/vulkan/random.glsl's caller) computes the same.
#pragma once
#include <cstdint>
#include <span>

namespace kiln::ref {

struct ThreeFryHalves {
  // The result viewed as [outer, split, inner]; half = ceil(split / 2).
  int64_t outer = 1, split = 1, half = 1, inner = 1;

  static ThreeFryHalves Of(std::span<const int64_t> dims) {
    ThreeFryHalves h;
    if (dims.empty()) return h;  // a scalar: one block, its first word
    size_t s = dims.size();
    for (size_t k = 0; k < dims.size() && s == dims.size(); ++k)
      if (dims[k] % 2 == 0) s = k;
    if (s == dims.size()) {
      s = 0;
      for (size_t k = 1; k < dims.size(); ++k)
        if (dims[k] > dims[s]) s = k;
    }
    h.split = dims[s];
    h.half = (dims[s] + 1) / 2;
    h.outer = 1;
    for (size_t k = 0; k < s; ++k) h.outer *= dims[k];
    for (size_t k = s + 1; k < dims.size(); ++k) h.inner *= dims[k];
    return h;
  }
  // Blocks the result takes (the state advances by as many).
  int64_t Blocks() const { return outer * half * inner; }
  // The word of the stream (2 * block + word in block) that element i of
  // the result (row-major) holds.
  int64_t Word(int64_t i) const {
    const int64_t in = i % inner, rest = i / inner, at = rest % split, o = rest / split;
    return 2 * ((o * half + at / 2) * inner + in) + (at & 1);
  }
};

}  // namespace kiln::ref

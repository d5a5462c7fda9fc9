// Transposes of small 2-D blocks for the CPU data-movement kernels
// (data_movement.cc): 4x4 tiles of 4-byte elements and 2x2 tiles of 8-byte
// elements through 128-bit vector interleaves (every target has them), the
// block's ragged edges element by element. Pure copies: the same bits as
// any other order.
#pragma once
#include <cstdint>

namespace kiln::cpu {

// dst[c * dst_stride + r] = src[r * src_stride + c] for r < rows, c < cols,
// for elements of `bytes` = 4 or 8 bytes (strides in elements).
void TransposeBlock(const void* src, int64_t src_stride, void* dst, int64_t dst_stride, int64_t rows, int64_t cols,
                    int bytes);

}  // namespace kiln::cpu

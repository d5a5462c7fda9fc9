// The block transposes of transpose_tiles.h, per Highway target.
#include <cstddef>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/transpose_tiles.cc"
#include "kernels/cpu/hwy_targets.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/cpu/transpose_tiles.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <typename T>
void TransposeScalar(const T* src, int64_t ss, T* dst, int64_t ds, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t r = r0; r < r1; ++r) dst[c * ds + r] = src[r * ss + c];
}

#if HWY_TARGET == HWY_SCALAR
// (No 128-bit vectors on the scalar target: element by element.)
void Transpose32(const uint32_t* src, int64_t ss, uint32_t* dst, int64_t ds, int64_t rows, int64_t cols) {
  TransposeScalar(src, ss, dst, ds, 0, rows, 0, cols);
}
void Transpose64(const uint64_t* src, int64_t ss, uint64_t* dst, int64_t ds, int64_t rows, int64_t cols) {
  TransposeScalar(src, ss, dst, ds, 0, rows, 0, cols);
}
#else
// 4x4 tiles of 32-bit elements: rows r..r+3 loaded as four vectors,
// interleaved by 32 and then 64 bits into columns c..c+3.
void Transpose32(const uint32_t* src, int64_t ss, uint32_t* dst, int64_t ds, int64_t rows, int64_t cols) {
  const hn::FixedTag<uint32_t, 4> d;
  const hn::FixedTag<uint64_t, 2> d64;
  const int64_t r4 = rows / 4 * 4, c4 = cols / 4 * 4;
  for (int64_t r = 0; r < r4; r += 4)
    for (int64_t c = 0; c < c4; c += 4) {
      const auto a0 = hn::LoadU(d, src + r * ss + c), a1 = hn::LoadU(d, src + (r + 1) * ss + c),
                 a2 = hn::LoadU(d, src + (r + 2) * ss + c), a3 = hn::LoadU(d, src + (r + 3) * ss + c);
      const auto t0 = hn::BitCast(d64, hn::InterleaveLower(d, a0, a1));  // a0[0] a1[0] a0[1] a1[1]
      const auto t1 = hn::BitCast(d64, hn::InterleaveLower(d, a2, a3));
      const auto t2 = hn::BitCast(d64, hn::InterleaveUpper(d, a0, a1));  // a0[2] a1[2] a0[3] a1[3]
      const auto t3 = hn::BitCast(d64, hn::InterleaveUpper(d, a2, a3));
      hn::StoreU(hn::BitCast(d, hn::InterleaveLower(d64, t0, t1)), d, dst + c * ds + r);
      hn::StoreU(hn::BitCast(d, hn::InterleaveUpper(d64, t0, t1)), d, dst + (c + 1) * ds + r);
      hn::StoreU(hn::BitCast(d, hn::InterleaveLower(d64, t2, t3)), d, dst + (c + 2) * ds + r);
      hn::StoreU(hn::BitCast(d, hn::InterleaveUpper(d64, t2, t3)), d, dst + (c + 3) * ds + r);
    }
  TransposeScalar(src, ss, dst, ds, 0, r4, c4, cols);
  TransposeScalar(src, ss, dst, ds, r4, rows, 0, cols);
}

// 2x2 tiles of 64-bit elements.
void Transpose64(const uint64_t* src, int64_t ss, uint64_t* dst, int64_t ds, int64_t rows, int64_t cols) {
  const hn::FixedTag<uint64_t, 2> d;
  const int64_t r2 = rows / 2 * 2, c2 = cols / 2 * 2;
  for (int64_t r = 0; r < r2; r += 2)
    for (int64_t c = 0; c < c2; c += 2) {
      const auto a0 = hn::LoadU(d, src + r * ss + c), a1 = hn::LoadU(d, src + (r + 1) * ss + c);
      hn::StoreU(hn::InterleaveLower(d, a0, a1), d, dst + c * ds + r);
      hn::StoreU(hn::InterleaveUpper(d, a0, a1), d, dst + (c + 1) * ds + r);
    }
  TransposeScalar(src, ss, dst, ds, 0, r2, c2, cols);
  TransposeScalar(src, ss, dst, ds, r2, rows, 0, cols);
}
#endif  // HWY_TARGET == HWY_SCALAR

void TransposeBlockT(const void* src, int64_t ss, void* dst, int64_t ds, int64_t rows, int64_t cols, int bytes) {
  if (bytes == 4) {
    Transpose32(static_cast<const uint32_t*>(src), ss, static_cast<uint32_t*>(dst), ds, rows, cols);
  } else {
    Transpose64(static_cast<const uint64_t*>(src), ss, static_cast<uint64_t*>(dst), ds, rows, cols);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kiln::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(TransposeBlockT);

void TransposeBlock(const void* src, int64_t src_stride, void* dst, int64_t dst_stride, int64_t rows, int64_t cols,
                    int bytes) {
  HWY_DYNAMIC_DISPATCH(TransposeBlockT)(src, src_stride, dst, dst_stride, rows, cols, bytes);
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE

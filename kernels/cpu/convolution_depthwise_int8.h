// The depthwise convolution of the quantized 8-bit form (i8/ui8 input and
// weights into an i32 result) with the features innermost in the (padded)
// input and in the result: one vector of features per output position and
// tap. contraction_convolution.cc validates the call, pads the input and
// builds the offset tables; implemented in convolution_depthwise_int8.cc.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/common/kernel.h"
#include "kernels/cpu/aligned_scratch.h"

namespace kiln::cpu {

class Requantizer;  // kernels/cpu/requantize.h

struct DepthwiseInt8Args {
  const void* input = nullptr;  // i8 or ui8, features contiguous
  bool input_signed = false;
  const uint8_t* weights = nullptr;  // i8 or ui8
  bool weights_signed = false;
  int32_t* output = nullptr;  // features contiguous
  int64_t features = 0, taps = 0, positions = 0;
  const int64_t* tap_offsets = nullptr;         // [taps]: input elements from a position's window origin
  const int64_t* weight_tap_offsets = nullptr;  // [taps]: the tap's weights (feature 0)
  int64_t weight_feature_step = 1;              // between features' weights
  const int64_t* position_in = nullptr;         // [positions]: a window's origin in the input
  const int64_t* position_out = nullptr;        // [positions]: its result's feature 0
  // A fused requantize (contraction_convolution.cc, ChunkRequantize): each
  // task's accumulators go to the thread's scratch and are requantized
  // into requantized_out (8-bit, element position_out[p] + c), `output`
  // unused. Needs the positions' results contiguous in order
  // (position_out[p] = position_out[0] + p * features).
  const Requantizer* requantize = nullptr;
  uint8_t* requantized_out = nullptr;
  int64_t q_bound = INT64_MAX;
  // The element of position p's feature 0 is output[position_out[p] - out_base].
  int64_t out_base = 0;
};

// out[position_out[p] + c] = sum_t in[position_in[p] + tap_offsets[t] + c] *
// w[weight_tap_offsets[t] + c * weight_feature_step], in wrapping i32.
void DepthwiseInt8(const DepthwiseInt8Args& a, TaskRunner* runner);

// The same over two spatial dims, read row by row from the unpadded input
// (convolution_depthwise_int8_rows.cc). Taps are t = ky * kw + kx
// (weight_tap_offsets in that order); `a.input` is the unpadded input,
// whose elements outside it read as pad_byte; position_in, tap_offsets and
// position_out are not used (the steps below say where things are).
struct DepthwiseRowGeometry {
  int64_t batch = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kh = 0, kw = 0, stride_y = 1, stride_x = 1, dil_y = 1, dil_x = 1, pad_top = 0, pad_left = 0;
  int64_t in_batch_step = 0, in_row_step = 0, in_col_step = 0;     // input elements; features at step 1
  int64_t out_batch_step = 0, out_row_step = 0, out_col_step = 0;  // result elements; features at step 1
  uint8_t pad_byte = 0;
};
// Whether DepthwiseInt8Rows takes `a` (its types and features) and `g` on
// this CPU and Highway target (AVX-512 VNNI, one signed side, kernels at
// least two wide, rows that fit the thread's scratch). `requantized`: the
// call will set a.requantize, which needs each output row's results
// contiguous (out_col_step == features).
bool DepthwiseInt8RowsApplies(const DepthwiseInt8Args& a, const DepthwiseRowGeometry& g, bool requantized);
// The weights as DepthwiseInt8Rows reads them: a function of a's weights,
// types, features and tap offsets and g's kh and kw only, so that a
// constant kernel's can be kept between calls (KernelState).
struct DepthwiseRowWeights {
  int64_t features = 0, padded_features = 0;  // padded: a multiple of 8
  int64_t quads = 0;                          // per kernel row: ceil(kw / 4)
  int64_t kh = 0, kw = 0;
  bool flip_input = false;             // i8 input read as u8
  bool weights_unsigned_side = false;  // i8 input, u8 weights
  // Each from a cache line's start, as the row product loads them 64
  // bytes at a time.
  CacheLineVector<uint8_t> weights;  // [kh][quads][padded_features][4 kernel columns]
  CacheLineVector<int32_t> start;    // [padded_features]: 0, or -128 x the feature's weight sum
};
DepthwiseRowWeights DepthwiseInt8RowWeights(const DepthwiseInt8Args& a, const DepthwiseRowGeometry& g);
void DepthwiseInt8Rows(const DepthwiseInt8Args& a, const DepthwiseRowGeometry& g, const DepthwiseRowWeights& w,
                       TaskRunner* runner);
// Tests: interleave the rows with the AVX2 byte shuffles even where the
// CPU has AVX-512 VBMI (whose vpermt2b does it in two steps a block).
void SetDepthwiseRowsVbmiDisabledForTest(bool disabled);

// The planar form (NCHW): features apart, each output row a vector run
// along the last spatial dim (input and output contiguous there, stride 1).
// out[out_plane[p] + y * out_row_step + x] = sum over taps t of
//   in[in_plane[p] + y * in_row_step + tap_offsets[t] + x] * w[weight_plane[p] + weight_tap_offsets[t]]
// for planes p (a batch element and feature), rows y < rows, x < cols.
struct PlanarDepthwiseInt8Args {
  const void* input = nullptr;
  bool input_signed = false;
  const uint8_t* weights = nullptr;
  bool weights_signed = false;
  int32_t* output = nullptr;
  int64_t planes = 0, rows = 0, cols = 0, taps = 0;
  int64_t in_row_step = 0, out_row_step = 0;
  const int64_t* in_plane = nullptr;            // [planes]
  const int64_t* out_plane = nullptr;           // [planes]
  const int64_t* weight_plane = nullptr;        // [planes]
  const int64_t* tap_offsets = nullptr;         // [taps], input elements
  const int64_t* weight_tap_offsets = nullptr;  // [taps]
};
void PlanarDepthwiseInt8(const PlanarDepthwiseInt8Args& a, TaskRunner* runner);

}  // namespace kiln::cpu

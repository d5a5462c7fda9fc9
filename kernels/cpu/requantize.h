// The fast requantize (requantize.cc): i32 accumulators to 8-bit storage
// with the reference's arithmetic, bit for bit. Used by the
// stablehlo.uniform_quantize kernel and by the int8 contractions whose
// requantize the compiler fused into them (kernels/reference/epilogue.h
// "requantizing producers"), which run it on each chunk of accumulators
// while the chunk is in cache.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "kernels/cpu/aligned_scratch.h"
#include "kernels/common/kernel.h"
#include "kernels/common/parallel.h"

namespace kiln::cpu {

namespace requant {
struct Run;  // one run of the vector loops (requantize.cc)
}  // namespace requant

class Requantizer {
 public:
  // Reads the operand's quantization under `operand_prefix` and the
  // result's under the plain names, for tensors of `dims`. False where the
  // reference must run: other types, a non-f32 expressed type, or
  // attributes that do not fit (the reference reports malformed ones).
  bool Init(const KernelParams& p, std::string_view operand_prefix, std::span<const int64_t> dims, ElementType in,
            ElementType out);
  // Elements [begin, end) of the (row-major) tensor: q[0, end - begin) into
  // out[0, end - begin) (8-bit elements), on the calling thread. `q_bound`:
  // a bound on |q| the caller knows (a product's depth times its largest
  // term), which spares the overflow checks of q - zero point.
  void Run(const int32_t* q, int64_t begin, int64_t end, uint8_t* out, int64_t q_bound = INT64_MAX) const;
  // A tile of accumulators: for each r < rows, q[r * q_stride, + cols) are
  // elements [begin + r * row_step, + cols) of the tensor, stored at the
  // same offsets of `out` (the tensor's first element), on the calling
  // thread. One dispatch for the whole tile.
  void RunTile(const int32_t* q, int64_t q_stride, int64_t rows, int64_t cols, int64_t begin, int64_t row_step,
               uint8_t* out, int64_t q_bound = INT64_MAX) const;
  // The same split between the runner's threads where it is large.
  void RunParallel(const int32_t* q, int64_t begin, int64_t end, uint8_t* out, TaskRunner* runner,
                   int64_t q_bound = INT64_MAX) const;

 private:
  struct Side {
    std::vector<float> scales;
    std::vector<float> zero_points;  // f32(zp), as the reference converts it
    std::vector<int64_t> zero_points_int;
    int64_t inner = 1, axis_size = 1;
    bool per_axis = false;
  };
  static bool ReadSide(const KernelParams& p, const std::string& prefix, std::span<const int64_t> dims, Side* s);

  Side src_, dst_;
  float lo_ = 0, hi_ = 0;
  bool is_signed_ = true;
  // Per-axis along the innermost axis only (a channel-last product's
  // per-feature parameters): they are laid out per lane of a row of `row_`
  // elements, and runs read them side by side.
  bool rows_ = false;
  int64_t row_ = 0;
  // Per lane of a row, each from a cache line's start (the vector loops
  // read them 64 bytes at a time).
  CacheLineVector<float> s_in_, s_out_, z_out_;
  CacheLineVector<float> r_out_;  // 1 / s_out_ where the scales allow (requant::Run::r_out), else empty
  CacheLineVector<int32_t> z_in_;
  bool z_in_zero_ = true;
  int64_t max_z_in_ = 0;  // the largest |zero point| of the rows' operand
  bool no_nan_ = false;   // no result can be NaN (Init)
  // The run over whole rows' lanes (rows_ only) for accumulators bounded by q_bound.
  requant::Run LanesRun(int64_t q_bound) const;
  double max_ratio_ = 0, max_z_out_ = 0;  // of the rows: bounds for Run's quotients
};

// A requantizing producer (ref::HasRequantize) run whole: `producer` (given
// ref::ProductParams) into i32 scratch, then the fast requantize into the
// output; where the requantize is not one the fast path takes, the
// reference's (ref::RunWithRequantize).
Status RunRequantizing(const KernelCall& call, KernelFn producer);

}  // namespace kiln::cpu

// The packed, cache-blocked GEMM behind dot_general and convolution
// (implemented in gemm.cc, dispatched to the best Highway target).
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/common/kernel.h"
#include "kernels/common/kernel_selection.h"

namespace kiln::cpu {

// Whether the GEMM reads an A packed once (GemmProblem::a_packed): not in
// selective builds, where A is packed per call (a minimal runtime's size
// budget, scripts/selective_check.sh); callers pack A only where it is.
inline constexpr bool kGemmReadsPackedA = !KILN_SELECTIVE_BUILD;

// Rows of A up to which the unpacked row-streaming path is used (the
// adapter skips building the contraction tables such a product never reads).
constexpr int64_t kGemvRows = 4;

// B of a feature-major convolution (NCHW) given as the windows of its
// unpadded input rather than through b_k/b_n over a zero-padded copy: the
// packing generates the implicit im2col itself, zeros where a window hangs
// over the border. For depth p = (feature f, tap ty, tap tx), row-major over
// (features, taps_y, taps_x), and column j = (output row y, output column
// x), row-major over (output rows, out_cols):
//   B[b][p][j] = b[b_batch[b] + f * feature_step + iy * row_step + ix]
//   iy = y * stride_y + ty * dil_y - pad_y,  ix = x * stride_x + tx * dil_x - pad_x
// and 0 where iy is outside [0, rows) or ix outside [0, cols). One spatial
// dim is rows = taps_y = 1.
struct ConvWindows {
  int64_t feature_step = 0, row_step = 0;  // input element steps (a column's is 1)
  int64_t rows = 1, cols = 1;              // the input's spatial size
  int64_t taps_y = 1, taps_x = 1, stride_y = 1, stride_x = 1, dil_y = 1, dil_x = 1, pad_y = 0, pad_x = 0;
  int64_t out_cols = 1;                    // the output's columns
};

// Takes finished tiles of an 8-bit integer GEMM's C instead of C in memory
// (RunGemmInt8 with GemmProblem::sink): the sums C[b][i0 + r][j0 + c] for
// r < rows, c < cols at tile[r * ld + c], valid during the call only. A
// consumer that reduces each tile at once (a fused requantize) then reads
// it from L1 and no i32 result is ever stored. Called from the pool's
// threads at once, for disjoint tiles that together cover C once.
class GemmTileSink {
 public:
  virtual ~GemmTileSink() = default;
  virtual void Take(int64_t b, int64_t i0, int64_t j0, const int32_t* tile, int64_t ld, int64_t rows,
                    int64_t cols) const = 0;
};

// A batched GEMM C[b][i][j] = sum_p A[b][i][p] * B[b][p][j] over operands
// addressed through offset tables (in elements): A[b][i][p] is
// a[a_batch[b] + a_m[i] + a_k[p]], B[b][p][j] is b[b_batch[b] + b_k[p] +
// b_n[j]]; C is dense [batch][m][n]. Any operand layout (transposed,
// batch or contracting dims anywhere, a convolution's windows) is described
// by these tables; the packing routines gather through them.
struct GemmProblem {
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  int64_t batch = 0, m = 0, n = 0, k = 0;
  std::vector<int64_t> a_batch, a_m, a_k;
  std::vector<int64_t> b_batch, b_k, b_n;
  // a_k and b_k are left empty when no path reads them: m <= kGemvRows
  // rows, a_k_contiguous, b_n_contiguous and b_k_step != 0 (gemm.cc).
  bool a_k_contiguous = false;  // a_k[p] == p
  bool b_n_contiguous = false;  // b_n[j] == j
  int64_t b_k_step = 0;         // s where b_k[p] == p * s for all p, else 0
  TaskRunner* runner = nullptr; // the driver's pool, or null
  // B already packed (PackWholeB of this problem's B and tables), or null:
  // the packing paths read their panels from here instead of packing B
  // again (weights packed once, contraction_dot_general.cc).
  const void* b_packed = nullptr;
  // A already packed (PackWholeA of this problem's A and tables, entries
  // 0 .. a_packed_period - 1), or null: batch entry bi reads the panels of
  // entry bi % a_packed_period instead of packing A or gathering it (a
  // feature-major convolution's constant weights, the same for every image:
  // the period is the feature group count).
  const void* a_packed = nullptr;
  int64_t a_packed_period = 1;
  // B as a convolution's windows (ConvWindows), or null: the packing (or,
  // where rows are at least a vector at stride 1, the micro-kernel reading a
  // padded copy of the input) reads b, b_batch and these, not b_k/b_n. Needs b_n_contiguous false, so that
  // every path packs B.
  const ConvWindows* b_windows = nullptr;
  // The 8-bit integer GEMM only: C's tiles go to the sink, and c is unused.
  const GemmTileSink* sink = nullptr;
  // The bf16 GEMM only: C's elements are f32, or each f32 sum rounded once
  // (to nearest even) to kBF16 or kF16 as its tile is finished, c then
  // pointing at 16-bit elements: a 16-bit result without an f32 copy of it.
  ElementType c_type = ElementType::kF32;
};

// Runs `p` for element type f32 or f64 (sums in the element type).
void RunGemm(const GemmProblem& p, ElementType type);

// The f32 product `p` whose B holds f16 or bf16 (`b_type`) bits instead of
// f32, where RunGemm would stream B (at most kGemvRows rows over contiguous
// B rows: batch-1 layers): B is widened (exactly) as it is read by that
// same row-streaming product. False (nothing run) where that path does not
// apply, and in selective builds.
bool RunGemvHalfB(const GemmProblem& p, ElementType b_type);

// Whether RunGemm packs B for `p` (every path but the row-streaming one of
// at most kGemvRows rows over contiguous B rows, which reads B in place).
bool GemmPacksB(const GemmProblem& p);
// The elements PackWholeB writes for `p` (b, b_batch, b_k/b_k_step, b_n,
// batch, n, k set), and the packing itself into `out` (that many elements
// of `type`, aligned for the SIMD target). The layout is that of the
// Highway target chosen now (its panel width, GemmPanelWidth): fixed for a
// process, but tests switch targets, so a kept copy is keyed on the width.
size_t PackedBElements(const GemmProblem& p, ElementType type);
void PackWholeB(const GemmProblem& p, ElementType type, void* out);
// How many times PackWholeB has run in this process (a test hook: a
// constant operand is packed once, not per call).
uint64_t WholeBPacks();
// The same for A: the elements PackWholeA writes for batch entries
// [0, entries) of `p` (a, a_batch, a_m, a_k or a_k_contiguous, m, k set),
// every block of the contraction and of the rows in MR-high panels, and the
// packing itself into `out`. Keyed like PackWholeB's (the panel height
// follows the target's panel width). WholeAPacks counts the packings.
size_t PackedAElements(const GemmProblem& p, int64_t entries);
void PackWholeA(const GemmProblem& p, int64_t entries, ElementType type, void* out);
uint64_t WholeAPacks();
// How many products RunGemvHalfB has run in this process (tests assert
// that batch-1 layers over 16-bit weights take it).
uint64_t GemvHalfBRuns();
// How many products have read their convolution windows in place from
// padded planes (gemm.cc, WindowPlanes) rather than packing them: NCHW
// convolutions with stride 1 along rows of at least a vector (a test hook).
uint64_t WindowsReadInPlace();
size_t GemmPanelWidth(ElementType type);

}  // namespace kiln::cpu

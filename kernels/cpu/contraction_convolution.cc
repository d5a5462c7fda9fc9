// Fast stablehlo.convolution for f32/f64 as one GEMM (implicit im2col):
//   rows    m = (output batch, output spatial position)
//   columns n = output feature (within a feature group)
//   depth   p = (kernel spatial tap, input feature)
// With the input's spatial dims zero-padded into a scratch copy first (only
// when the padding is nonzero), the input element of (m, p) lies at
// row_offset[m] + depth_offset[p], a sum of independent parts, so the GEMM's
// packing gathers the convolution windows straight from the input through
// offset tables: no im2col matrix is materialised. Any dimension numbers,
// strides, kernel dilation, window reversal and feature groups (the GEMM's
// batch) are handled; lhs dilation, batch groups and negative padding run
// the reference kernel. A feature-major result (NCHW) swaps the roles: the
// weights are A and the windows B, so the GEMM writes the result in place.
// Depthwise and thin grouped convolutions go to the direct kernels of
// convolution_direct.h instead.
//
// A fused epilogue (kernels/reference/epilogue.h) runs on the fast
// elementwise interpreter over each chunk of the result as soon as it is
// computed (whole batch elements, or the direct kernels' row tasks).
//
// Constant weights are packed once and kept in the executable's state
// (kernel_state.h): the channel-last product's B, and the feature-major
// product's A (f32/f64), whose panels then serve every image and do not
// depend on the kernel's layout (OIHW rows packed, or IHWO, as the Vulkan
// target lays constant kernels out, gathered).
//
// Accumulation is in the element type, like dot_general (see registry.h).
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "kernels/common/kernel_selection.h"
#include "kernels/common/kernel_state.h"
#include "kernels/common/parallel.h"
#include "kernels/cpu/aligned_scratch.h"
#include "kernels/cpu/convolution_depthwise_int8.h"
#include "kernels/cpu/convolution_direct.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/thread_scratch.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/gemm_bf16.h"
#include "kernels/cpu/gemm_int8.h"
#include "kernels/cpu/half_float.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cpu/requantize.h"
#include "kernels/reference/epilogue.h"
#include "kernels/scalar/scalar.h"

namespace kiln::cpu {
namespace {

// The zero-padded input of the GEMM paths, per thread (thread_scratch.h):
// the whole input, or one chunk's (a tag of its own: the calling thread
// holds the whole input's lease, empty, while it pads a chunk, and a second
// lease of one tag on a thread gets a fresh allocation).
struct PaddedInputScratch;
struct PaddedChunkScratch;
// f16/bf16 operands widened to f32, and the f32 sums of a 16-bit result.
struct WidenedLhsScratch;
struct WidenedRhsScratch;
struct WidenedOutScratch;
struct RequantizedProductScratch;
struct GroupedProductScratch;  // a product whose [group][row][feature] is not the result's layout

// Constant convolution weights packed whole (the channel-last product's B,
// the feature-major product's A), kept across calls in the executable's
// state.
struct PackedWeightsPlan : KernelPlan {
  hwy::AlignedFreeUniquePtr<uint8_t[]> data;
  // bf16 weights holding a subnormal, which the bf16 GEMM would read as
  // zero (gemm_bf16.h): found once, when the weights would be packed; they
  // are not, and every call declines the bf16 GEMM.
  bool bf16_subnormals = false;
};

// Offsets (row-major over `sizes`) of sum_i index_i * step_i.
std::vector<int64_t> Combine(const std::vector<int64_t>& sizes, const std::vector<int64_t>& steps) {
  std::vector<int64_t> out = {0};
  for (size_t a = 0; a < sizes.size(); ++a) {
    std::vector<int64_t> next;
    next.reserve(out.size() * static_cast<size_t>(sizes[a]));
    for (int64_t base : out)
      for (int64_t i = 0; i < sizes[a]; ++i) next.push_back(base + i * steps[a]);
    out = std::move(next);
  }
  return out;
}

// Writes `in` padded into `out`, a tensor of dims `padded_dims` (each dim d
// grown by lo[d] before and the rest after), every padding byte `fill` (0,
// or an 8-bit convolution's padding_value), one innermost row at a time:
// every byte of `out` is written once (no filling pass first). The
// rows are split over the pool (a memory-bound copy a single core would
// hold the others up on).
void PadInto(const TensorRef& in, const std::vector<int64_t>& lo, const std::vector<int64_t>& padded_dims,
             size_t elem, uint8_t* out, TaskRunner* runner, uint8_t fill) {
  // Trailing dims without padding (the features of NHWC) are one element of
  // their whole size: rows of pixels, not one short row per pixel.
  size_t rank = in.dims.size();
  while (rank > 1 && padded_dims[rank - 1] == in.dims[rank - 1]) {
    elem *= static_cast<size_t>(in.dims[rank - 1]);
    --rank;
  }
  if (rank < in.dims.size()) {
    const std::vector<int64_t> dims(in.dims.begin(), in.dims.begin() + static_cast<std::ptrdiff_t>(rank));
    TensorRef collapsed = in;
    collapsed.dims = std::span<const int64_t>(dims);
    PadInto(collapsed, std::vector<int64_t>(lo.begin(), lo.begin() + static_cast<std::ptrdiff_t>(rank)),
            std::vector<int64_t>(padded_dims.begin(), padded_dims.begin() + static_cast<std::ptrdiff_t>(rank)), elem,
            out, runner, fill);
    return;
  }
  const int64_t row = padded_dims[rank - 1], inner = in.dims[rank - 1];
  const auto is = Strides(in.dims);
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d) rows *= padded_dims[d];
  // At least 64 KiB per task.
  const int64_t per_task = std::max<int64_t>(1, (int64_t{64} << 10) / std::max<int64_t>(1, row * static_cast<int64_t>(elem)));
  const int64_t tasks = std::min<int64_t>((rows + per_task - 1) / per_task, 2 * NumWorkers(runner));
  ParallelFor(runner, tasks, [&](int64_t task, int) {
    const int64_t r0 = rows * task / tasks, r1 = rows * (task + 1) / tasks;
    // The padded row's index (the last entry unused), of row r0.
    std::vector<int64_t> idx(rank, 0);
    for (int64_t rest = r0, d = static_cast<int64_t>(rank) - 2; d >= 0; --d) {
      idx[d] = rest % padded_dims[d];
      rest /= padded_dims[d];
    }
    for (int64_t r = r0; r < r1; ++r) {
      uint8_t* dst = out + static_cast<size_t>(r * row) * elem;
      bool inside = true;
      int64_t src = 0;
      for (size_t d = 0; d + 1 < rank && inside; ++d) {
        const int64_t i = idx[d] - lo[d];
        inside = i >= 0 && i < in.dims[d];
        src += i * is[d];
      }
      if (!inside) {
        std::memset(dst, fill, static_cast<size_t>(row) * elem);
      } else {
        const int64_t before = lo[rank - 1], after = row - before - inner;
        std::memset(dst, fill, static_cast<size_t>(before) * elem);
        if (inner > 0) std::memcpy(dst + before * elem, in.data + src * elem, static_cast<size_t>(inner) * elem);
        std::memset(dst + (before + inner) * elem, fill, static_cast<size_t>(after) * elem);
      }
      for (size_t d = rank - 1; d-- > 0;) {
        if (++idx[d] < padded_dims[d]) break;
        idx[d] = 0;
      }
    }
  });
}

// Runs fn(b0, nb, runner) over the batch in chunks of `chunk` elements.
// With at least two chunks per worker the chunks run side by side, each on
// one thread (fn gets no runner: its padding, product and epilogue run
// without a barrier between them); otherwise one after another, each
// spread over the pool. A batch element's result is the same either way
// (the product's order over the contraction does not depend on the split).
template <class F>
void ForEachBatchChunk(int64_t batch, int64_t chunk, TaskRunner* runner, const F& fn) {
  const int64_t chunks = (batch + chunk - 1) / chunk;
  const int workers = NumWorkers(runner);
  if (workers > 1 && chunks >= 2 * workers) {
    ParallelFor(runner, chunks, [&](int64_t c, int) { fn(c * chunk, std::min(chunk, batch - c * chunk), nullptr); });
    return;
  }
  for (int64_t b0 = 0; b0 < batch; b0 += chunk) fn(b0, std::min(chunk, batch - b0), runner);
}

// `epilogue` (may be null): the fused elementwise program over the output,
// which the direct path applies to each task's rows and the GEMM paths that
// write the result in place to each chunk of batch elements while in cache
// (*epilogue_done is then set); the other paths leave it to the caller.
bool Half(ElementType t) { return t == ElementType::kF16 || t == ElementType::kBF16; }
Status WidenedConvolution(const KernelCall& call, const ElementwiseProblem* epilogue, bool* epilogue_done);

Status RequantizedConvolution(const KernelCall& call);

// A requantize fused into the int8 product (RequantizedConvolution): the
// chunked GEMM paths and the NHWC depthwise one compute each chunk (or
// task) of accumulators into the thread's scratch and requantize it into
// `out` (8-bit, the result's layout) right away; the call's i32 output is
// then never written. A path without chunks sets `handled` to false and
// returns before doing anything.
struct ChunkRequantize {
  const Requantizer* rq = nullptr;
  uint8_t* out = nullptr;
  int64_t q_bound = INT64_MAX;
  bool handled = true;
};

// The int8 GEMM's tiles of a chunk's product requantized into the result
// as each is finished (GemmTileSink), so the i32 accumulators never leave
// L1: C element (b, i, j) of the chunk is result element
// first + (b * m + i) * n + j (the chunk's C has the result's layout).
class RequantizeTiles final : public GemmTileSink {
 public:
  RequantizeTiles(const ChunkRequantize& rq, int64_t first, int64_t m, int64_t n)
      : rq_(rq), first_(first), m_(m), n_(n) {}
  void Take(int64_t b, int64_t i0, int64_t j0, const int32_t* tile, int64_t ld, int64_t rows,
            int64_t cols) const override {
    rq_.rq->RunTile(tile, ld, rows, cols, first_ + (b * m_ + i0) * n_ + j0, n_, rq_.out, rq_.q_bound);
  }

 private:
  const ChunkRequantize& rq_;
  int64_t first_, m_, n_;
};

// A constant kernel's weights laid out for DepthwiseInt8Rows.
struct DepthwiseRowsPlan : KernelPlan {
  DepthwiseRowWeights w;
};

// What PlainConvolution derives from a call's attributes, operand types and
// shapes, and from what its caller asked (a fused epilogue, a fused
// requantize, the bf16 GEMM): checked and computed on an executable's first
// dispatch of that signature (PlanConvolution) and kept in its state
// (KernelState), so that later calls only fill in addresses. Built on every
// call, its few dozen small tables (attribute lists, strides, offset
// tables, the GEMM's index tables) were about a tenth of a batch-1 int8
// MobileNet block.
struct ConvLayout : KernelPlan {
  enum class Path : uint8_t {
    kFallback,         // the reference runs it (or the caller's fallback)
    kEmpty,            // no result elements
    kDirect,           // DirectConvolution (f32/f64 depthwise and thin groups)
    kRequantDeclined,  // a fused requantize that no chunked path takes
    kDepthwiseRows,    // int8 NHWC depthwise, row by row (DepthwiseInt8Rows)
    kDepthwise,        // int8 NHWC depthwise (DepthwiseInt8)
    kPlanarDepthwise,  // int8 NCHW depthwise (PlanarDepthwiseInt8)
    kFeatureMajor,     // the GEMM with the kernel as A and the windows as B
    kChannelLast,      // the GEMM with the windows as A and the kernel as B
  };
  Path path = Path::kFallback;
  ConvGeometry geom;
  bool int8 = false;
  bool feature_major = false, direct = false, chunk_int8 = false;
  bool pad_per_chunk = false, pad_whole = false;
  uint8_t pad_byte = 0;
  size_t elem = 0, in_elem = 0;          // bytes of a result element and of an input element
  std::vector<int64_t> lo, padded_dims;  // the padded input: dim d grown by lo[d] before
  std::vector<int64_t> ps, rs, os;       // strides of the padded input, the kernel and the result
  int64_t out_per_group = 0, chunk = 1, padded_total = 0, padded_per_batch = 0, lhs_batch_step = 0;
  // The depthwise paths' arguments less the call's addresses, and their tables.
  DepthwiseInt8Args depthwise;
  DepthwiseRowGeometry rows;
  PlanarDepthwiseInt8Args planar;
  std::vector<int64_t> weight_offsets, tap_offsets, position_in, position_out, in_plane, out_plane, weight_plane;
  // The GEMM paths' problem less the call's addresses (`win`: the
  // feature-major product's b_windows); the channel-last product's rows
  // when its chunks take slices of them, and where its C rows go when C
  // is not the result's layout.
  GemmProblem gemm;
  ConvWindows win;
  std::vector<int64_t> all_rows, orow;
  int64_t rows_per_batch = 0;

  // The bytes of its tables (KernelPlan::bytes).
  size_t TableBytes() const {
    size_t n = 0;
    for (const std::vector<int64_t>* v :
         {&geom.isp, &geom.ksp, &geom.osp, &geom.strides, &geom.rhs_dil, &geom.reversal, &geom.padding,
          &geom.spatial_out, &geom.kdims, &lo, &padded_dims, &ps, &rs, &os, &weight_offsets, &tap_offsets,
          &position_in, &position_out, &in_plane, &out_plane, &weight_plane, &all_rows, &orow, &gemm.a_batch,
          &gemm.a_m, &gemm.a_k, &gemm.b_batch, &gemm.b_k, &gemm.b_n})
      n += v->size() * sizeof(int64_t);
    return n;
  }
};

// Fills `L` for a call of these operands and attributes (PlainConvolution's
// checks; `has_epilogue`, `has_requant` and `bf16` as its arguments). The
// path stays kFallback where no fast path takes the call.
void PlanConvolution(const KernelParams& p, const TensorRef& lhs, const TensorRef& rhs, const TensorRef& out,
                     bool has_epilogue, bool has_requant, bool bf16, ConvLayout* L) {
  using Path = ConvLayout::Path;
  L->path = Path::kFallback;
  const ElementType t = out.type;
  // i8/ui8 operands into an i32 result (the quantized 8-bit form): the
  // int8 GEMM (gemm_int8.h), integer sums exact like the reference's.
  const bool int8 = Int8GemmTypes(lhs.type, rhs.type, t);
  L->int8 = int8;
  if (has_requant && !int8) return;
  if (bf16 && (lhs.type != ElementType::kBF16 || rhs.type != ElementType::kBF16 || t != ElementType::kF32)) return;
  if (!int8 && t != ElementType::kF32 && t != ElementType::kF64) return;
  if (int8 || bf16 ? !StorageOk(lhs) || !StorageOk(rhs) || !StorageOk(out, int8 ? out.type : t)
                   : !StorageOk(lhs, t) || !StorageOk(rhs, t) || !StorageOk(out, t))
    return;
  const int64_t rank = lhs.rank();
  if (rank < 2 || rhs.rank() != rank || out.rank() != rank) return;
  const size_t ns = static_cast<size_t>(rank - 2);
  ConvGeometry& geom = L->geom;
  std::vector<int64_t> lhs_dil;
  if (!IntsOr(p, "window_strides", ns, 1, &geom.strides) || !IntsOr(p, "lhs_dilation", ns, 1, &lhs_dil) ||
      !IntsOr(p, "rhs_dilation", ns, 1, &geom.rhs_dil) || !IntsOr(p, "window_reversal", ns, 0, &geom.reversal) ||
      !IntsOr(p, "padding", 2 * ns, 0, &geom.padding))
    return;
  const std::vector<int64_t>& strides = geom.strides;
  const std::vector<int64_t>& rhs_dil = geom.rhs_dil;
  const std::vector<int64_t>& reversal = geom.reversal;
  const std::vector<int64_t>& padding = geom.padding;
  for (size_t s = 0; s < ns; ++s)
    if (strides[s] <= 0 || lhs_dil[s] != 1 || rhs_dil[s] <= 0 || padding[2 * s] < 0 || padding[2 * s + 1] < 0)
      return;
  // The padded elements' stored value (an 8-bit convolution's zero point:
  // compiler/passes/quantized_integer_contraction.h), as one byte.
  const int64_t pad_value = p.Int("padding_value", 0);
  const bool pad_fits = lhs.type == ElementType::kSI8   ? pad_value >= -128 && pad_value <= 127
                        : lhs.type == ElementType::kUI8 ? pad_value >= 0 && pad_value <= 255
                                                        : pad_value == 0;
  if (!pad_fits || (pad_value != 0 && !int8)) return;
  L->pad_byte = static_cast<uint8_t>(pad_value);
  const int64_t ib = p.Int("input_batch_dimension"), ifd = p.Int("input_feature_dimension");
  const int64_t kif = p.Int("kernel_input_feature_dimension"), kof = p.Int("kernel_output_feature_dimension");
  const int64_t ob = p.Int("output_batch_dimension"), ofd = p.Int("output_feature_dimension");
  auto isp = p.Ints("input_spatial_dimensions");
  auto ksp = p.Ints("kernel_spatial_dimensions");
  auto osp = p.Ints("output_spatial_dimensions");
  if (isp.size() != ns || ksp.size() != ns || osp.size() != ns) return;
  // Every axis list must be a permutation of the tensor's axes.
  auto permutation = [&](int64_t a, int64_t b, std::span<const int64_t> rest) {
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    std::vector<int64_t> all = {a, b};
    all.insert(all.end(), rest.begin(), rest.end());
    for (int64_t x : all) {
      if (x < 0 || x >= rank || seen[x]) return false;
      seen[x] = true;
    }
    return true;
  };
  if (!permutation(ib, ifd, isp) || !permutation(kif, kof, ksp) || !permutation(ob, ofd, osp)) return;
  const int64_t fgc = p.Int("feature_group_count", 1), bgc = p.Int("batch_group_count", 1);
  if (fgc < 1 || bgc != 1) return;
  const int64_t batch = lhs.dims[ib], in_feat = lhs.dims[ifd];
  const int64_t k_in = rhs.dims[kif], k_out = rhs.dims[kof];
  if (in_feat % fgc != 0 || k_in * fgc != in_feat || k_out % fgc != 0) return;
  // The result shape the reference would compute; anything else is its error.
  geom.spatial_out.assign(ns, 0);
  geom.kdims.assign(ns, 0);
  std::vector<int64_t>& spatial_out = geom.spatial_out;
  std::vector<int64_t>& kdims = geom.kdims;
  for (size_t s = 0; s < ns; ++s) {
    const int64_t d = lhs.dims[isp[s]], k = rhs.dims[ksp[s]];
    kdims[s] = k;
    const int64_t padded = padding[2 * s] + d + padding[2 * s + 1];
    const int64_t win = k == 0 ? 0 : (k - 1) * rhs_dil[s] + 1;
    spatial_out[s] = (padded <= 0 || win > padded) ? 0 : (padded - win) / strides[s] + 1;
    if (out.dims[osp[s]] != spatial_out[s]) return;
  }
  if (out.dims[ob] != batch || out.dims[ofd] != k_out) return;
  if (out.NumElements() == 0) {
    L->path = Path::kEmpty;
    return;
  }
  // The fast paths materialise the padded input (the direct path with its
  // features rounded up and repeated per group output): huge padding with
  // strides that skip it (a hostile or odd module) goes to the reference,
  // which does not, rather than allocating without bound.
  double padded_elems = static_cast<double>(batch) * static_cast<double>(in_feat + 64) * 64.0;
  for (size_t s = 0; s < ns; ++s)
    padded_elems *= static_cast<double>(lhs.dims[isp[s]]) + static_cast<double>(padding[2 * s]) +
                    static_cast<double>(padding[2 * s + 1]);
  if (padded_elems > 64.0 * static_cast<double>(lhs.NumElements() + out.NumElements()) * 64.0 + double(1 << 24))
    return;

  geom.rank = rank;
  geom.ib = ib, geom.ifd = ifd, geom.kif = kif, geom.kof = kof, geom.ob = ob, geom.ofd = ofd;
  geom.isp.assign(isp.begin(), isp.end());
  geom.ksp.assign(ksp.begin(), ksp.end());
  geom.osp.assign(osp.begin(), osp.end());
  geom.fgc = fgc, geom.batch = batch, geom.in_feat = in_feat, geom.k_in = k_in, geom.k_out = k_out;
  if (!int8 && !bf16 && DirectConvolutionApplies(geom)) {
    L->path = Path::kDirect;
    return;
  }

  // A feature-major result (NCHW: batch, feature, spatial...) is, per batch
  // and group, weights [feature][depth] x windows [depth][position]: the
  // GEMM with the kernel as A and the input windows as B writes it in place
  // (and a 1x1 convolution's B is the input itself, rows of positions).
  bool feature_major = ob == 0 && ofd == 1;
  for (size_t s = 0; s < ns && feature_major; ++s) feature_major = osp[s] == static_cast<int64_t>(s + 2);
  // The channel-last product's C is the result itself (one group, dims
  // ordered batch, spatial..., feature).
  bool direct = fgc == 1 && ob == 0 && ofd == rank - 1;
  for (size_t s = 0; s < ns && direct; ++s) direct = osp[s] == static_cast<int64_t>(s + 1);
  L->feature_major = feature_major, L->direct = direct;
  // The bf16 GEMM takes the channel-last product of one group, whose A
  // (the windows) it reads in place where features come in pairs.
  if (bf16 && (!direct || feature_major)) return;
  // Padded, over one or two spatial dims whose input rows are contiguous
  // (NCHW, NCW) and not reversed, the feature-major product packs its
  // windows straight from the unpadded input (ConvWindows in gemm.h)
  // instead of reading them from a padded copy.
  bool windows = feature_major && (ns == 1 || ns == 2) && isp[ns - 1] == rank - 1 &&
                 std::any_of(padding.begin(), padding.end(), [](int64_t v) { return v != 0; });
  for (size_t s = 0; s < ns && windows; ++s) windows = reversal[s] == 0;
  windows = windows && !int8;
  // An int8 depthwise convolution in planes (NCHW: the last spatial dim
  // innermost in input and result, stride 1 along it) runs on
  // PlanarDepthwiseInt8 over the whole padded input.
  const bool planar_depthwise8 = int8 && fgc == in_feat && k_in == 1 && k_out == fgc && ns == 2 &&
                                 isp[1] == rank - 1 && osp[1] == rank - 1 && strides[1] == 1 &&
                                 kdims[0] * kdims[1] <= 64;
  // The int8 GEMM packs its A whole: it runs on chunks of whole batch
  // elements (about 256 KiB of result each) wherever the result allows.
  const bool chunk_int8 = int8 && direct;
  L->chunk_int8 = chunk_int8;

  // The padded input (or the input itself when there is no padding):
  // elements of `in_elem` bytes, the result's of `elem`.
  const size_t elem = StorageBytes(t), in_elem = StorageBytes(lhs.type);
  L->elem = elem, L->in_elem = in_elem;
  L->lo.assign(static_cast<size_t>(rank), 0);
  L->padded_dims.assign(lhs.dims.begin(), lhs.dims.end());
  bool any_padding = false;
  for (size_t s = 0; s < ns && !windows; ++s) {
    L->lo[isp[s]] = padding[2 * s];
    L->padded_dims[isp[s]] += padding[2 * s] + padding[2 * s + 1];
    any_padding |= padding[2 * s] != 0 || padding[2 * s + 1] != 0;
  }
  L->ps = Strides(L->padded_dims), L->rs = Strides(rhs.dims), L->os = Strides(out.dims);
  const std::vector<int64_t>&ps = L->ps, &rs = L->rs, &os = L->os;
  const int64_t out_per_group = k_out / fgc;
  L->out_per_group = out_per_group;

  // The paths below that run the product in chunks of whole batch elements
  // pad each chunk's input right before its product (a few hundred KiB,
  // still in cache when the product reads it) when the batch dim is the
  // input's outermost; the others pad the whole input first.
  const bool chunked = !planar_depthwise8 && (feature_major || (direct && (has_epilogue || chunk_int8)));
  const bool pad_per_chunk = any_padding && chunked && ib == 0;
  L->pad_per_chunk = pad_per_chunk;
  // Batch elements per chunk: about 256 KiB of result each.
  const int64_t result_per_batch = batch == 0 ? 0 : out.NumElements() / batch;
  L->chunk =
      std::max<int64_t>(1, (int64_t{256} << 10) / static_cast<int64_t>(elem) / std::max<int64_t>(1, result_per_batch));
  int64_t padded_total = 1;
  for (int64_t d : L->padded_dims) padded_total *= d;
  L->padded_total = padded_total;
  L->padded_per_batch = batch == 0 ? 0 : padded_total / batch;
  L->lhs_batch_step = Strides(lhs.dims)[0];
  const bool depthwise_nhwc =
      int8 && fgc == in_feat && k_in == 1 && k_out == fgc && ps[ifd] == 1 && os[ofd] == 1 && !pad_per_chunk;
  if (has_requant) {
    // The depthwise tasks' results must be contiguous runs of the result:
    // batch, spatial dims in order, features last.
    bool channel_last_out = ob == 0 && ofd == rank - 1;
    for (size_t s = 0; s < ns && channel_last_out; ++s) channel_last_out = osp[s] == static_cast<int64_t>(s + 1);
    const bool gemm_chunks = !planar_depthwise8 && !depthwise_nhwc && (feature_major || (direct && chunk_int8));
    if (!int8 || !((depthwise_nhwc && channel_last_out) || gemm_chunks)) {
      L->path = Path::kRequantDeclined;
      return;
    }
  }
  // The NHWC depthwise convolution over two spatial dims, row by row from
  // the unpadded input (DepthwiseInt8Rows), where the CPU and the types allow.
  bool depthwise_rows = false;
  if (depthwise_nhwc) {
    DepthwiseInt8Args& a = L->depthwise;
    a.input_signed = lhs.type == ElementType::kSI8;
    a.weights_signed = rhs.type == ElementType::kSI8;
    a.features = k_out;
    a.weight_feature_step = rs[kof];
    if (ns == 2) {
      DepthwiseRowGeometry& rows = L->rows;
      const auto ls = Strides(lhs.dims);
      rows.batch = batch, rows.in_h = lhs.dims[isp[0]], rows.in_w = lhs.dims[isp[1]];
      rows.out_h = spatial_out[0], rows.out_w = spatial_out[1], rows.kh = kdims[0], rows.kw = kdims[1];
      rows.stride_y = strides[0], rows.stride_x = strides[1], rows.dil_y = rhs_dil[0], rows.dil_x = rhs_dil[1];
      rows.pad_top = padding[0], rows.pad_left = padding[2];
      rows.in_batch_step = ls[ib], rows.in_row_step = ls[isp[0]], rows.in_col_step = ls[isp[1]];
      rows.out_batch_step = os[ob], rows.out_row_step = os[osp[0]], rows.out_col_step = os[osp[1]];
      rows.pad_byte = L->pad_byte;
      depthwise_rows = DepthwiseInt8RowsApplies(a, rows, has_requant);
    }
  }
  L->pad_whole = any_padding && !pad_per_chunk && !depthwise_rows;
  if (depthwise_nhwc) {
    // Depthwise with the features innermost (NHWC): one vector of features
    // per position and tap (convolution_depthwise_int8.h).
    std::vector<int64_t> row_sizes = {batch}, in_steps = {ps[ib]}, out_steps = {os[ob]};
    std::vector<int64_t> tap_steps, w_steps;
    for (size_t s = 0; s < ns; ++s) {
      row_sizes.push_back(spatial_out[s]);
      in_steps.push_back(strides[s] * ps[isp[s]]);
      out_steps.push_back(os[osp[s]]);
      tap_steps.push_back(rhs_dil[s] * ps[isp[s]]);
      w_steps.push_back(reversal[s] ? -rs[ksp[s]] : rs[ksp[s]]);
    }
    L->weight_offsets = Combine(kdims, w_steps);
    int64_t w_base = 0;  // a reversed dim's first tap reads the last weight
    for (size_t s = 0; s < ns; ++s)
      if (reversal[s]) w_base += (kdims[s] - 1) * rs[ksp[s]];
    for (int64_t& o : L->weight_offsets) o += w_base;
    DepthwiseInt8Args& a = L->depthwise;
    a.taps = static_cast<int64_t>(L->weight_offsets.size());
    a.weight_tap_offsets = L->weight_offsets.data();
    if (depthwise_rows) {
      L->path = Path::kDepthwiseRows;
      return;
    }
    L->position_in = Combine(row_sizes, in_steps), L->position_out = Combine(row_sizes, out_steps);
    L->tap_offsets = Combine(kdims, tap_steps);
    a.positions = static_cast<int64_t>(L->position_in.size());
    a.tap_offsets = L->tap_offsets.data();
    a.position_in = L->position_in.data(), a.position_out = L->position_out.data();
    L->path = Path::kDepthwise;
    return;
  }
  if (planar_depthwise8) {
    // Depthwise in planes (NCHW): a vector run along each output row.
    for (int64_t ky = 0; ky < kdims[0]; ++ky)
      for (int64_t kx = 0; kx < kdims[1]; ++kx) {
        L->tap_offsets.push_back(ky * rhs_dil[0] * ps[isp[0]] + kx * rhs_dil[1]);
        L->weight_offsets.push_back((reversal[0] ? kdims[0] - 1 - ky : ky) * rs[ksp[0]] +
                                    (reversal[1] ? kdims[1] - 1 - kx : kx) * rs[ksp[1]]);
      }
    L->in_plane = Combine({batch, k_out}, {ps[ib], ps[ifd]});
    L->out_plane = Combine({batch, k_out}, {os[ob], os[ofd]});
    L->weight_plane = Combine({batch, k_out}, {0, rs[kof]});
    PlanarDepthwiseInt8Args& a = L->planar;
    a.input_signed = lhs.type == ElementType::kSI8;
    a.weights_signed = rhs.type == ElementType::kSI8;
    a.planes = batch * k_out, a.rows = spatial_out[0], a.cols = spatial_out[1];
    a.taps = static_cast<int64_t>(L->tap_offsets.size());
    a.in_row_step = strides[0] * ps[isp[0]], a.out_row_step = os[osp[0]];
    a.in_plane = L->in_plane.data(), a.out_plane = L->out_plane.data(), a.weight_plane = L->weight_plane.data();
    a.tap_offsets = L->tap_offsets.data(), a.weight_tap_offsets = L->weight_offsets.data();
    L->path = Path::kPlanarDepthwise;
    return;
  }
  GemmProblem& g = L->gemm;
  if (feature_major) {
    // Depth: (input feature, kernel taps...), so that OIHW weights are
    // contiguous rows of A.
    std::vector<int64_t> depth_sizes = {k_in}, in_steps = {ps[ifd]}, w_steps = {rs[kif]};
    int64_t in_base = 0;
    for (size_t s = 0; s < ns; ++s) {
      depth_sizes.push_back(kdims[s]);
      w_steps.push_back(rs[ksp[s]]);
      if (reversal[s]) {
        in_base += (kdims[s] - 1) * rhs_dil[s] * ps[isp[s]];
        in_steps.push_back(-rhs_dil[s] * ps[isp[s]]);
      } else {
        in_steps.push_back(rhs_dil[s] * ps[isp[s]]);
      }
    }
    std::vector<int64_t> pos_sizes, pos_steps;
    for (size_t s = 0; s < ns; ++s) {
      pos_sizes.push_back(spatial_out[s]);
      pos_steps.push_back(strides[s] * ps[isp[s]]);
    }
    g.batch = batch * fgc;
    g.a_m = Combine({out_per_group}, {rs[kof]});
    g.a_k = Combine(depth_sizes, w_steps);
    g.a_batch = Combine({batch, fgc}, {0, out_per_group * rs[kof]});
    g.b_batch = Combine({batch, fgc}, {ps[ib], k_in * ps[ifd]});
    g.m = out_per_group;
    g.n = 1;
    for (int64_t d : pos_sizes) g.n *= d;
    g.k = static_cast<int64_t>(g.a_k.size());
    g.a_k_contiguous = true;
    for (size_t i = 0; i < g.a_k.size() && g.a_k_contiguous; ++i) g.a_k_contiguous = g.a_k[i] == static_cast<int64_t>(i);
    if (windows) {  // ps are the input's own strides (no padding)
      ConvWindows& win = L->win;
      const size_t x = ns - 1;
      win.feature_step = ps[ifd];
      win.cols = lhs.dims[isp[x]], win.taps_x = kdims[x], win.stride_x = strides[x];
      win.dil_x = rhs_dil[x], win.pad_x = padding[2 * x], win.out_cols = spatial_out[x];
      if (ns == 2) {
        win.row_step = ps[isp[0]], win.rows = lhs.dims[isp[0]], win.taps_y = kdims[0];
        win.stride_y = strides[0], win.dil_y = rhs_dil[0], win.pad_y = padding[0];
      }
      g.b_windows = &win;
    } else {
      g.b_k = Combine(depth_sizes, in_steps);
      for (auto& o : g.b_k) o += in_base;
      g.b_n = Combine(pos_sizes, pos_steps);
      g.b_n_contiguous = true;
      for (size_t j = 0; j < g.b_n.size() && g.b_n_contiguous; ++j) g.b_n_contiguous = g.b_n[j] == static_cast<int64_t>(j);
      // b_k[p] == p * step for every p (a 1x1 convolution: one plane apart).
      g.b_k_step = g.k > 1 && g.b_k[0] == 0 ? g.b_k[1] : 0;
      for (size_t p = 0; p < g.b_k.size() && g.b_k_step != 0; ++p)
        if (g.b_k[p] != static_cast<int64_t>(p) * g.b_k_step) g.b_k_step = 0;
    }
    L->path = Path::kFeatureMajor;
    return;
  }

  // Rows: (batch, output spatial...), row-major.
  std::vector<int64_t> row_sizes = {batch}, row_steps = {ps[ib]};
  for (size_t s = 0; s < ns; ++s) {
    row_sizes.push_back(spatial_out[s]);
    row_steps.push_back(strides[s] * ps[isp[s]]);
  }
  g.a_m = Combine(row_sizes, row_steps);
  // Depth: (kernel taps..., input feature); the input tap is reversed where
  // window_reversal says so, the kernel tap is not.
  std::vector<int64_t> depth_sizes, a_steps, b_steps;
  int64_t a_base = 0;
  for (size_t s = 0; s < ns; ++s) {
    depth_sizes.push_back(kdims[s]);
    if (reversal[s]) {
      a_base += (kdims[s] - 1) * rhs_dil[s] * ps[isp[s]];
      a_steps.push_back(-rhs_dil[s] * ps[isp[s]]);
    } else {
      a_steps.push_back(rhs_dil[s] * ps[isp[s]]);
    }
    b_steps.push_back(rs[ksp[s]]);
  }
  depth_sizes.push_back(k_in);
  a_steps.push_back(ps[ifd]);
  b_steps.push_back(rs[kif]);
  g.a_k = Combine(depth_sizes, a_steps);
  for (auto& o : g.a_k) o += a_base;
  g.b_k = Combine(depth_sizes, b_steps);
  g.b_n = Combine({out_per_group}, {rs[kof]});
  g.a_batch = Combine({fgc}, {k_in * ps[ifd]});
  g.b_batch = Combine({fgc}, {out_per_group * rs[kof]});
  g.batch = fgc;
  g.m = static_cast<int64_t>(g.a_m.size());
  g.n = out_per_group;
  g.k = static_cast<int64_t>(g.a_k.size());
  for (size_t i = 0; i < g.a_k.size() && (g.a_k_contiguous = g.a_k[i] == static_cast<int64_t>(i)); ++i) {}
  g.b_n_contiguous = rs[kof] == 1 || out_per_group == 1;
  if (direct && (has_epilogue || chunk_int8)) {
    // Each chunk takes its slice of the rows; the problem is copied
    // without them (a copy of every row per chunk would cost more than a
    // 1x1 convolution's product).
    L->rows_per_batch = batch == 0 ? 0 : g.m / batch;
    L->all_rows = std::move(g.a_m);
    g.a_m.clear();
  } else if (!direct) {
    std::vector<int64_t> orow_steps = {os[ob]};
    for (size_t s = 0; s < ns; ++s) orow_steps.push_back(os[osp[s]]);
    L->orow = Combine(row_sizes, orow_steps);
  }
  L->path = Path::kChannelLast;
}

// The bf16 GEMM's caller (WidenedConvolution): bf16 operands into an f32
// result on the bf16 GEMM (gemm_bf16.h; the caller checked the CPU and the
// operands). A layout it does not take sets `declined` and returns before
// writing anything (the caller then widens the operands). `half_out`: the
// 16-bit result the f32 one stands for, or null; where the product is
// written whole in the result's layout, its sums are rounded into it as
// the tiles finish (`narrowed` set) and the f32 result is not written.
struct Bf16Caller {
  bool declined = true;  // until the caller offers the call (then the layout may decline it)
  const TensorRef* half_out = nullptr;
  bool narrowed = false;
};

Status PlainConvolution(const KernelCall& call, const ElementwiseProblem* epilogue, bool* epilogue_done,
                        ChunkRequantize* requant = nullptr, Bf16Caller* bf16_caller = nullptr) {
  using Path = ConvLayout::Path;
  const auto& p = call.params;
  if (requant == nullptr && ref::HasRequantize(p)) return RequantizedConvolution(call);  // the caller applies an epilogue
  const bool bf16 = bf16_caller != nullptr;
  // What the layout leaves to the reference, a fused requantize's caller
  // runs instead (ChunkRequantize: nothing is written here), and the bf16
  // GEMM's caller widens.
  auto fallback = [&] {
    if (bf16) {
      bf16_caller->declined = true;
      return Status::Ok();
    }
    if (requant == nullptr) return RunReference(call);
    requant->handled = false;
    return Status::Ok();
  };
  if (call.inputs.size() != 2 || call.outputs.size() != 1) return fallback();
  const TensorRef& lhs = call.inputs[0];
  const TensorRef& rhs = call.inputs[1];
  const TensorRef& out = call.outputs[0];
  const ElementType t = out.type;
  if constexpr (!KILN_SELECTIVE_BUILD)
    if (!bf16 && (Half(lhs.type) || Half(rhs.type) || Half(t))) return WidenedConvolution(call, epilogue, epilogue_done);
  PlanKey key(kPlanConvLayout);
  key.Add(epilogue != nullptr).Add(requant != nullptr).Add(bf16).Add(Int8DotProductEnabled());
  AddShape(key, lhs);
  AddShape(key, rhs);
  AddShape(key, out);
  PlanLease<ConvLayout> lease(call.state, key);
  if (lease.get() == nullptr) {
    auto fresh = std::make_unique<ConvLayout>();
    PlanConvolution(p, lhs, rhs, out, epilogue != nullptr, requant != nullptr, bf16, fresh.get());
    fresh->bytes = fresh->TableBytes();
    lease.Set(std::move(fresh));
  }
  ConvLayout& L = *lease.get();
  switch (L.path) {
    case Path::kFallback:
      return fallback();
    case Path::kEmpty:
      return Status::Ok();
    case Path::kDirect:
      DirectConvolution(L.geom, lhs, rhs, out, call.runner, epilogue);
      if (epilogue_done != nullptr) *epilogue_done = epilogue != nullptr;
      return Status::Ok();
    case Path::kRequantDeclined:
      requant->handled = false;
      return Status::Ok();
    default:
      break;
  }
  const ConvGeometry& geom = L.geom;
  const int64_t batch = geom.batch, fgc = geom.fgc;
  const bool int8 = L.int8, feature_major = L.feature_major, direct = L.direct;
  const size_t elem = L.elem, in_elem = L.in_elem;
  const std::vector<int64_t>& ps = L.ps;
  // The product, on the GEMM of the operand types (the feature-major
  // product's A is the kernel, its B the input).
  auto run_gemm = [&](const GemmProblem& g) {
    if (bf16) {
      RunGemmBf16(g);
    } else if (int8) {
      RunGemmInt8(g, feature_major ? rhs.type : lhs.type, feature_major ? lhs.type : rhs.type);
    } else {
      RunGemm(g, t);
    }
  };
  // With a fused requantize (ChunkRequantize): a chunk's product, result
  // elements [first, first + batch * m * n), each tile requantized into
  // the result as the int8 GEMM finishes it (RequantizeTiles).
  auto run_requantized = [&](GemmProblem& gc, int64_t first) {
    const RequantizeTiles sink(*requant, first, gc.m, gc.n);
    gc.sink = &sink;
    gc.c = nullptr;
    run_gemm(gc);
    gc.sink = nullptr;
  };
  // A chunk's product, batch elements [b0, b0 + nb) of per_batch result
  // elements each: requantized tile by tile, or into the result and the
  // epilogue over it right after, while it is in cache.
  auto run_chunk = [&](GemmProblem& gc, int64_t b0, int64_t nb, int64_t per_batch, TaskRunner* runner) {
    if (requant != nullptr) return run_requantized(gc, b0 * per_batch);
    gc.c = out.data + static_cast<size_t>(b0 * per_batch) * elem;
    run_gemm(gc);
    if (epilogue != nullptr)
      RunElementwiseRangeParallel(*epilogue, static_cast<size_t>(b0 * per_batch),
                                  static_cast<size_t>((b0 + nb) * per_batch), runner);
  };

  ScratchLease<PaddedInputScratch, uint8_t> padded_storage(L.pad_whole ? static_cast<size_t>(L.padded_total) * in_elem
                                                                       : 0);
  const void* input = lhs.data;
  if (L.pad_whole) {
    PadInto(lhs, L.lo, L.padded_dims, in_elem, padded_storage.get(), call.runner, L.pad_byte);
    input = padded_storage.get();
  }
  // Pads batch elements [b0, b0 + nb) into `dst` (pad_per_chunk); the
  // product then reads them at offsets less b0 * ps[0].
  auto pad_chunk = [&](int64_t b0, int64_t nb, uint8_t* dst, TaskRunner* runner) {
    std::vector<int64_t> part_dims(lhs.dims.begin(), lhs.dims.end()), part_padded = L.padded_dims;
    part_dims[0] = part_padded[0] = nb;
    TensorRef part = lhs;
    part.dims = std::span<const int64_t>(part_dims);
    part.data = lhs.data + static_cast<size_t>(b0 * L.lhs_batch_step) * in_elem;
    PadInto(part, L.lo, part_padded, in_elem, dst, runner, L.pad_byte);
  };
  if (L.path == Path::kDepthwiseRows || L.path == Path::kDepthwise) {
    DepthwiseInt8Args a = L.depthwise;
    a.weights = rhs.data;
    a.output = reinterpret_cast<int32_t*>(out.data);
    if (requant != nullptr) {
      a.output = nullptr;
      a.requantize = requant->rq, a.requantized_out = requant->out, a.q_bound = requant->q_bound;
    }
    if (L.path == Path::kDepthwise) {
      a.input = input;
      DepthwiseInt8(a, call.runner);
      return Status::Ok();
    }
    a.input = lhs.data;  // the rows read the unpadded input
    // A constant kernel's weights are laid out once (KernelState).
    if (rhs.constant_id != 0 && call.state != nullptr) {
      PlanKey wkey(kPlanDepthwiseRows);
      wkey.Add(static_cast<int64_t>(rhs.constant_id)).AddPointer(rhs.data).Add(static_cast<int64_t>(lhs.type));
      AddShape(wkey, rhs);
      wkey.Add(a.weight_feature_step).Add(std::span<const int64_t>(L.weight_offsets)).Add(L.rows.kh).Add(L.rows.kw);
      PlanLease<DepthwiseRowsPlan> kept(call.state, wkey);
      if (kept.get() == nullptr) {
        auto fresh = std::make_unique<DepthwiseRowsPlan>();
        fresh->w = DepthwiseInt8RowWeights(a, L.rows);
        fresh->bytes = fresh->w.weights.size() + fresh->w.start.size() * sizeof(int32_t);
        kept.Set(std::move(fresh));
      }
      DepthwiseInt8Rows(a, L.rows, kept.get()->w, call.runner);
      return Status::Ok();
    }
    DepthwiseInt8Rows(a, L.rows, DepthwiseInt8RowWeights(a, L.rows), call.runner);
    return Status::Ok();
  }
  if (L.path == Path::kPlanarDepthwise) {
    PlanarDepthwiseInt8Args a = L.planar;
    a.input = input;
    a.weights = rhs.data;
    a.output = reinterpret_cast<int32_t*>(out.data);
    PlanarDepthwiseInt8(a, call.runner);
    return Status::Ok();
  }
  // The GEMM paths. The layout's problem takes this call's addresses; a
  // product of one chunk (the whole batch) runs on it as it is, and only
  // several chunks copy it, each with its slice.
  GemmProblem& g = L.gemm;
  g.runner = call.runner;
  g.sink = nullptr;
  g.b_packed = nullptr;
  g.c_type = ElementType::kF32;
  const int64_t chunk = L.chunk;
  g.a_packed = nullptr;
  if (feature_major) {
    g.a = rhs.data;
    g.b = input;
    g.c = out.data;
    // Constant f32/f64 weights: A packed once, one entry per feature group
    // (a_batch repeats them for every image). A's tables follow from the
    // weights' shape and this executable's attributes, so the key is the
    // buffer's id, address, shape and panel width, as B's below.
    std::optional<PlanLease<PackedWeightsPlan>> packed_a;
    if (kGemmReadsPackedA && rhs.constant_id != 0 && call.state != nullptr && !int8 && !bf16 && g.m > kGemvRows) {
      PlanKey akey(kPlanConvPackedA);
      akey.Add(static_cast<int64_t>(rhs.constant_id)).AddPointer(rhs.data).Add(static_cast<int64_t>(GemmPanelWidth(t)));
      AddShape(akey, rhs);
      packed_a.emplace(call.state, akey);
      if (packed_a->get() == nullptr) {
        auto a = std::make_unique<PackedWeightsPlan>();
        a->bytes = PackedAElements(g, fgc) * StorageBytes(t);
        a->data = AllocateAlignedOrThrow<uint8_t>(std::max<size_t>(a->bytes, 64));
        PackWholeA(g, fgc, t, a->data.get());
        packed_a->Set(std::move(a));
      }
      g.a_packed = packed_a->get()->data.get();
      g.a_packed_period = fgc;
    }
    if (epilogue == nullptr && !L.pad_per_chunk && !int8) {
      RunGemm(g, t);
      return Status::Ok();
    }
    // The product in chunks of whole batch elements of about 256 KiB of
    // result, each followed by the epilogue over that chunk while it is
    // still in cache. The chunking depends on the shapes only, so results
    // do not depend on the thread count.
    const int64_t per_batch = fgc * g.m * g.n;  // result elements of one batch element
    ForEachBatchChunk(batch, chunk, call.runner, [&](int64_t b0, int64_t nb, TaskRunner* runner) {
      const bool whole = nb == batch;
      GemmProblem copy;
      if (!whole) {
        copy = g;
        copy.a_batch.assign(g.a_batch.begin() + b0 * fgc, g.a_batch.begin() + (b0 + nb) * fgc);
        copy.b_batch.assign(g.b_batch.begin() + b0 * fgc, g.b_batch.begin() + (b0 + nb) * fgc);
      }
      GemmProblem& gc = whole ? g : copy;
      gc.runner = runner;
      ScratchLease<PaddedChunkScratch, uint8_t> padded(L.pad_per_chunk ? static_cast<size_t>(nb * L.padded_per_batch) * in_elem : 0);
      if (L.pad_per_chunk) {
        pad_chunk(b0, nb, padded.get(), runner);
        gc.b = padded.get();
        if (!whole)
          for (int64_t& o : gc.b_batch) o -= b0 * ps[0];
      }
      gc.batch = nb * fgc;
      run_chunk(gc, b0, nb, per_batch, runner);
    });
    if (epilogue_done != nullptr) *epilogue_done = epilogue != nullptr;
    return Status::Ok();
  }

  g.a = input;
  g.b = rhs.data;
  // Weights packed once, as dot_general's constant B: constant weights
  // (a module constant or a bound parameter) are packed into panels on the
  // first call that packs them and reused by every later call. B's tables
  // depend on the weights' shape and the executable's attributes only, so
  // the entry is keyed on the buffer's id, address, shape and panel width.
  // A chunk of at most kGemvRows rows reads B in place and ignores it.
  std::optional<PlanLease<PackedWeightsPlan>> packed;
  if (rhs.constant_id != 0 && call.state != nullptr && (int8 || bf16 || GemmPacksB(g))) {
    PlanKey bkey(kPlanConvPackedB);
    bkey.Add(static_cast<int64_t>(rhs.constant_id)).AddPointer(rhs.data);
    // The layout: the int8 GEMM's (negative), the bf16 GEMM's (0), or the
    // f32 panel width.
    bkey.Add(int8 ? -Int8PackedLayout() - 1 : bf16 ? 0 : static_cast<int64_t>(GemmPanelWidth(t)));
    AddShape(bkey, rhs);
    packed.emplace(call.state, bkey);
    if (packed->get() == nullptr) {
      auto b = std::make_unique<PackedWeightsPlan>();
      b->bf16_subnormals = bf16 && Bf16HasSubnormals(reinterpret_cast<const uint16_t*>(rhs.data), rhs.NumElements());
      b->bytes = b->bf16_subnormals ? 0
                 : int8             ? PackedBBytesInt8(g)
                 : bf16             ? PackedBBytesBf16(g)
                                    : PackedBElements(g, t) * StorageBytes(t);
      if (!b->bf16_subnormals) {  // (bf16 weights with subnormals: nothing packed, the call falls back)
        b->data = AllocateAlignedOrThrow<uint8_t>(std::max<size_t>(b->bytes, 64));
        if (bf16)
          PackWholeBBf16(g, b->data.get());
        else if (int8)
          PackWholeBInt8(g, rhs.type, b->data.get());
        else
          PackWholeB(g, t, b->data.get());
      }
      packed->Set(std::move(b));
    }
    if (packed->get()->bf16_subnormals) return fallback();
    g.b_packed = packed->get()->data.get();
  }

  // C is [group][row][feature]; when that is the result's own layout
  // (`direct`) it is written in place, else into the thread's kept scratch
  // (aligned, not page-faulted or zeroed anew per call) and copied.
  ScratchLease<GroupedProductScratch, uint8_t> c_storage(
      direct ? 0 : static_cast<size_t>(fgc * g.m * g.n) * elem);
  if (direct && (epilogue != nullptr || L.chunk_int8)) {
    // As the feature-major path: chunks of whole batch elements (about
    // 256 KiB of result), each followed by its epilogue while in cache.
    const int64_t rows_per_batch = L.rows_per_batch;
    const int64_t per_batch = rows_per_batch * g.n;
    ForEachBatchChunk(batch, chunk, call.runner, [&](int64_t b0, int64_t nb, TaskRunner* runner) {
      const bool whole = nb == batch;
      GemmProblem copy;
      if (!whole) copy = g;
      GemmProblem& gc = whole ? g : copy;
      gc.runner = runner;
      gc.a_m.assign(L.all_rows.begin() + b0 * rows_per_batch, L.all_rows.begin() + (b0 + nb) * rows_per_batch);
      ScratchLease<PaddedChunkScratch, uint8_t> padded(L.pad_per_chunk ? static_cast<size_t>(nb * L.padded_per_batch) * in_elem : 0);
      if (L.pad_per_chunk) {
        pad_chunk(b0, nb, padded.get(), runner);
        gc.a = padded.get();
        for (int64_t& o : gc.a_m) o -= b0 * ps[0];
      }
      gc.m = nb * rows_per_batch;
      run_chunk(gc, b0, nb, per_batch, runner);
    });
    if (epilogue_done != nullptr) *epilogue_done = epilogue != nullptr;
    return Status::Ok();
  }
  if (direct && bf16 && bf16_caller->half_out != nullptr) {
    g.c = bf16_caller->half_out->data;
    g.c_type = bf16_caller->half_out->type;
    bf16_caller->narrowed = true;
  } else if (direct) {
    g.c = out.data;
  } else {
    g.c = c_storage.get();
  }
  run_gemm(g);
  if (!direct) {
    const std::vector<int64_t>& os = L.os;
    const int64_t ofd = geom.ofd, out_per_group = L.out_per_group;
    // A group's features are one run when the feature dim is innermost.
    const bool runs = os[ofd] == 1;
    for (int64_t gi = 0; gi < fgc; ++gi)
      for (int64_t m = 0; m < g.m; ++m) {
        const uint8_t* src = c_storage.get() + (gi * g.m + m) * g.n * elem;
        uint8_t* dst = out.data + (L.orow[m] + gi * out_per_group * os[ofd]) * elem;
        if (runs) {
          std::memcpy(dst, src, static_cast<size_t>(g.n) * elem);
        } else {
          for (int64_t n = 0; n < g.n; ++n) std::memcpy(dst + n * os[ofd] * elem, src + n * elem, elem);
        }
      }
  }
  return Status::Ok();
}

// f16/bf16 operands and results on the f32 paths: operands widened exactly
// to f32, the convolution summed in f32, a 16-bit result rounded to nearest
// even from the f32 sum (the reference sums in f64 and rounds once: the two
// differ by the f32 sum's error, within the contraction bound the tests
// state). The widened weights are a per-call copy (no packed weights kept
// across calls for them yet). A fused epilogue runs here only over an f32
// result; over a 16-bit one the caller applies it.
Status WidenedConvolution(const KernelCall& call, const ElementwiseProblem* epilogue, bool* epilogue_done) {
  const TensorRef& lhs = call.inputs[0];
  const TensorRef& rhs = call.inputs[1];
  const TensorRef& out = call.outputs[0];
  auto usable = [](const TensorRef& x) { return (x.type == ElementType::kF32 || Half(x.type)) && StorageOk(x); };
  if (!usable(lhs) || !usable(rhs) || !usable(out)) return RunReference(call);
  // Per-thread scratch kept across calls (thread_scratch.h): no fresh,
  // page-faulting allocation per call.
  auto f32_size = [](const TensorRef& x) { return Half(x.type) ? static_cast<size_t>(x.NumElements()) : 0; };
  ScratchLease<WidenedOutScratch, float> o_storage(f32_size(out));
  auto as_f32 = [](const TensorRef& x, float* storage) {
    TensorRef w = x;
    w.type = ElementType::kF32;
    w.data = reinterpret_cast<uint8_t*>(storage);
    w.byte_size = static_cast<size_t>(x.NumElements()) * sizeof(float);
    w.constant_id = 0;  // a copy made per call: not a constant to key kept state on
    return w;
  };
  auto widened = [&](const TensorRef& x, float* storage) {
    if (!Half(x.type)) return x;
    WidenToF32(reinterpret_cast<const uint16_t*>(x.data), x.type == ElementType::kBF16, x.NumElements(), storage);
    return as_f32(x, storage);
  };
  const TensorRef o = Half(out.type) ? as_f32(out, o_storage.get()) : out;
  const int64_t n_out = out.NumElements();
  const bool f32_out = !Half(out.type);
  // bf16 operands without subnormals: the bf16 GEMM on them as they are,
  // where the layout suits it (gemm_bf16.h).
  // Constant weights are scanned for subnormals once, where they are
  // packed (PackedWeightsPlan), not on every call.
  const bool rhs_kept = rhs.constant_id != 0 && call.state != nullptr;
  Bf16Caller bf16_caller{.half_out = f32_out ? nullptr : &out};
  if (lhs.type == ElementType::kBF16 && rhs.type == ElementType::kBF16 && GemmBf16Available() &&
      !Bf16HasSubnormals(reinterpret_cast<const uint16_t*>(lhs.data), lhs.NumElements(), call.runner) &&
      (rhs_kept || !Bf16HasSubnormals(reinterpret_cast<const uint16_t*>(rhs.data), rhs.NumElements(), call.runner))) {
    bf16_caller.declined = false;  // (unless the layout declines it)
    const TensorRef in[2] = {lhs, rhs};
    KILN_RETURN_IF_ERROR(PlainConvolution(KernelCall{call.params, in, std::span<const TensorRef>(&o, 1), call.runner,
                                                     call.without_epilogue, call.state},
                                          f32_out ? epilogue : nullptr, f32_out ? epilogue_done : nullptr, nullptr,
                                          &bf16_caller));
  }
  if (bf16_caller.declined) {
    ScratchLease<WidenedLhsScratch, float> l_storage(f32_size(lhs));
    // Constant 16-bit weights (a bf16 model's, or f32 activations over bf16
    // weights) are widened once into the executable's state and keep their
    // constant id there: the f32 GEMM then packs them once too.
    std::optional<PlanLease<PackedWeightsPlan>> kept;
    if (Half(rhs.type) && rhs.constant_id != 0 && call.state != nullptr) {
      PlanKey key(kPlanWidenedConvWeights);
      key.Add(static_cast<int64_t>(rhs.constant_id)).AddPointer(rhs.data);
      AddShape(key, rhs);
      kept.emplace(call.state, key);
      if (kept->get() == nullptr) {
        auto w = std::make_unique<PackedWeightsPlan>();
        w->bytes = static_cast<size_t>(rhs.NumElements()) * sizeof(float);
        w->data = AllocateAlignedOrThrow<uint8_t>(std::max<size_t>(w->bytes, 64));
        WidenToF32(reinterpret_cast<const uint16_t*>(rhs.data), rhs.type == ElementType::kBF16, rhs.NumElements(),
                   reinterpret_cast<float*>(w->data.get()));
        kept->Set(std::move(w));
      }
    }
    ScratchLease<WidenedRhsScratch, float> r_storage(kept ? 0 : f32_size(rhs));
    TensorRef wide_rhs = rhs;
    if (kept) {
      wide_rhs = as_f32(rhs, reinterpret_cast<float*>(kept->get()->data.get()));
      wide_rhs.constant_id = rhs.constant_id;  // the widened copy is a function of the constant
    }
    const TensorRef in[2] = {widened(lhs, l_storage.get()), kept ? wide_rhs : widened(rhs, r_storage.get())};
    KILN_RETURN_IF_ERROR(PlainConvolution(KernelCall{call.params, in, std::span<const TensorRef>(&o, 1), call.runner,
                                                     call.without_epilogue, call.state},
                                          f32_out ? epilogue : nullptr, f32_out ? epilogue_done : nullptr));
  }
  if (Half(out.type) && !bf16_caller.narrowed)
    NarrowFromF32Parallel(o_storage.get(), out.type == ElementType::kBF16, n_out, reinterpret_cast<uint16_t*>(out.data),
                          call.runner);
  return Status::Ok();
}

Status PlainConvolutionCall(const KernelCall& call) { return PlainConvolution(call, nullptr, nullptr); }

// A convolution whose requantize the compiler fused into it (kernels/
// reference/epilogue.h): the product's chunked paths requantize each chunk
// of accumulators while it is in cache (ChunkRequantize), so the i32
// accumulators never go to memory; other layouts run the whole product
// into scratch, then the requantize.
#if !KILN_SELECTIVE_BUILD
struct RequantizedConvPlan : KernelPlan {
  Requantizer rq;
  KernelParams product_params;  // ref::ProductParams of the call's
  bool ok = false;              // whether rq.Init took the call
};
#endif

Status RequantizedConvolution(const KernelCall& call) {
#if KILN_SELECTIVE_BUILD
  return ref::RunWithRequantize(call, &PlainConvolutionCall);
#else
  const KernelParams& p = call.params;
  if (call.inputs.size() != 2 || call.outputs.size() != 1) return ref::RunWithRequantize(call, &PlainConvolutionCall);
  const TensorRef& lhs = call.inputs[0];
  const TensorRef& rhs = call.inputs[1];
  const TensorRef& out = call.outputs[0];
  if (!StorageOk(out)) return RunRequantizing(call, &PlainConvolutionCall);
  // The requantize's parameters and the product's attributes depend on the
  // executable's attributes and the result's shape only: built once per
  // executable and shape (KernelState), not per dispatch.
  PlanKey key(kPlanRequantizedConv);
  AddShape(key, out);
  PlanLease<RequantizedConvPlan> plan(call.state, key);
  if (plan.get() == nullptr) {
    auto fresh = std::make_unique<RequantizedConvPlan>();
    fresh->ok = fresh->rq.Init(p, "product_", out.dims, ElementType::kSI32, out.type);
    if (fresh->ok) fresh->product_params = ref::ProductParams(p);
    plan.Set(std::move(fresh));
  }
  if (!plan.get()->ok) return RunRequantizing(call, &PlainConvolutionCall);
  const Requantizer& rq = plan.get()->rq;
  const KernelParams& product_params = plan.get()->product_params;
  // |accumulator| <= depth * the largest |term| (8-bit operands): the
  // requantize then needs no overflow checks on q - zero point.
  const int64_t kof = p.Int("kernel_output_feature_dimension", -1);
  const int64_t out_features = kof >= 0 && kof < rhs.rank() ? rhs.dims[kof] : 0;
  auto largest = [](ElementType e) { return e == ElementType::kUI8 ? int64_t{255} : int64_t{128}; };
  const int64_t depth = out_features > 0 ? rhs.NumElements() / out_features : INT32_MAX;
  const int64_t q_bound = depth < (int64_t{1} << 40) ? depth * largest(lhs.type) * largest(rhs.type) : INT64_MAX;
  // The product's i32 output as the paths see it: its type and shape; the
  // handled paths write only through `chunks`, never to its data.
  TensorRef product = out;
  product.type = ElementType::kSI32;
  product.byte_size = static_cast<size_t>(out.NumElements()) * sizeof(int32_t);
  product.constant_id = 0;
  ChunkRequantize chunks;
  chunks.rq = &rq, chunks.out = out.data, chunks.q_bound = q_bound;
  KILN_RETURN_IF_ERROR(PlainConvolution(KernelCall{product_params, call.inputs, std::span<const TensorRef>(&product, 1),
                                                   call.runner, /*without_epilogue=*/true, call.state},
                                        nullptr, nullptr, &chunks));
  if (!chunks.handled) return RunRequantizing(call, &PlainConvolutionCall);
  return Status::Ok();
#endif
}

// The epilogue's fast elementwise problem over the call's output (param 0
// the output itself, then the dispatch's inputs after the two operands), or
// false when ref::RunWithEpilogue should run the call (no epilogue, a
// malformed one it reports, or one the fast interpreter does not take).
bool FusedEpilogue(const KernelCall& call, ElementwiseProblem* p) {
  const ScalarProgram* program = call.params.Program("epilogue");
  if (program == nullptr || call.without_epilogue || call.inputs.size() < 2 || call.outputs.size() != 1)
    return false;
  const TensorRef& out = call.outputs[0];
  if (call.inputs.size() - 1 != program->param_types.size() || program->results.size() != 1 ||
      program->param_types[0] != out.type || !StorageOk(out))
    return false;
  const KernelAttr* map = call.params.Find("epilogue_broadcast");
  if (map != nullptr) {
    const int64_t rank = out.rank();
    bool identity = !map->ints.empty() && map->ints[0] == rank && map->ints.size() > static_cast<size_t>(rank);
    for (int64_t a = 0; identity && a < rank; ++a) identity = map->ints[1 + a] == a;
    if (!identity) return false;
  }
  std::vector<TensorRef> inputs = {out};
  inputs.insert(inputs.end(), call.inputs.begin() + 2, call.inputs.end());
  const KernelCall as_elementwise{call.params, inputs, call.outputs, call.runner};
  if (!MakeElementwiseProblem(as_elementwise, program, map, out.dims, p) || p->type != out.type) return false;
  p->outputs = {out.data};
  p->stream = false;  // applied to rows just written, still in cache
  return true;
}

// A fused epilogue's problem for one signature of shapes (FusedEpilogue),
// kept per executable: building it (stride tables, checks) cost more heap
// traffic per call than the rest of a small convolution.
struct ConvEpiloguePlan : KernelPlan {
  bool fast = false;  // false: ref::RunWithEpilogue runs these shapes
  ElementwiseProblem problem;
};

}  // namespace

Status Convolution(const KernelCall& call) {
  const ScalarProgram* program = call.params.Program("epilogue");
  if (program == nullptr || call.without_epilogue || call.outputs.size() != 1 || call.inputs.size() < 2)
    return ref::RunWithEpilogue(call, 2, &PlainConvolutionCall, &RunElementwiseProgram);
  PlanKey key(kPlanConvEpilogue);
  key.AddPointer(program).AddPointer(call.params.Find("epilogue_broadcast"));
  for (const TensorRef& t : call.inputs) AddShape(key, t);
  AddShape(key, call.outputs[0]);
  PlanLease<ConvEpiloguePlan> lease(call.state, key);
  if (lease.get() == nullptr) {
    auto plan = std::make_unique<ConvEpiloguePlan>();
    plan->fast = FusedEpilogue(call, &plan->problem);
    lease.Set(std::move(plan));
  }
  if (!lease.get()->fast) return ref::RunWithEpilogue(call, 2, &PlainConvolutionCall, &RunElementwiseProgram);
  // This call's addresses: param 0 is the output, then the inputs after
  // the two operands.
  ElementwiseProblem& epilogue = lease.get()->problem;
  epilogue.inputs[0] = call.outputs[0].data + epilogue.input_offsets[0];
  for (size_t i = 1; i < epilogue.inputs.size(); ++i)
    epilogue.inputs[i] = call.inputs[i + 1].data + epilogue.input_offsets[i];
  epilogue.outputs[0] = call.outputs[0].data;
  bool done = false;
  KILN_RETURN_IF_ERROR(PlainConvolution(
      KernelCall{call.params, call.inputs.subspan(0, 2), call.outputs, call.runner, /*without_epilogue=*/true,
                 call.state},
      &epilogue, &done));
  if (!done) RunElementwiseRangeParallel(epilogue, 0, epilogue.n, call.runner);  // one pass over the whole result
  return Status::Ok();
}

}  // namespace kiln::cpu

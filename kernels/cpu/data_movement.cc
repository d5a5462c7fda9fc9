// Fast stablehlo.broadcast_in_dim, transpose and slice for every element
// type of 1, 2, 4 or 8 bytes (others run the reference kernel), and
// concatenate for every type. The first three read the operand through
// per-result-axis strides (gather.h):
//  - broadcast_in_dim: a broadcast axis has stride 0 (runs are fills);
//  - slice: strides scaled by the slice's strides, from the start offset
//    (unit strides: contiguous runs copied with memcpy, slice_runs.h);
//  - transpose: where the result's innermost axis is not the operand's,
//    tiles of kTile x kTile elements are copied so that reads and writes
//    both stay within a few cache lines (a plain strided gather would touch
//    one line per element on one side), 4- and 8-byte elements through
//    vector interleaves (transpose_tiles.h).
// Results are copies of operand elements, so they equal the reference's
// bit for bit. Work is split over the thread pool by ranges of the result.
// concatenate copies each input's rows into its band of the result; iota
// converts each index of its axis once (as the reference converts it) and
// fills the runs of the result that hold it.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/common/kernel_selection.h"
#include "kernels/cpu/gather.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cpu/slice_runs.h"
#include "kernels/cpu/transpose_tiles.h"
#include "kernels/scalar/scalar.h"

namespace kiln::cpu {
namespace {

constexpr size_t kTaskElements = size_t{1} << 16;
constexpr int64_t kTile = 16;


// out[i] = in[sum_a index_a(i) * strides[a]] over the whole result.
template <typename T>
void StridedCopy(const TensorRef& in, int64_t base, const TensorRef& out, const std::vector<int64_t>& strides,
                 TaskRunner* runner) {
  const T* src = reinterpret_cast<const T*>(in.data) + base;
  T* dst = reinterpret_cast<T*>(out.data);
  const std::vector<int64_t> dims(out.dims.begin(), out.dims.end());
  const size_t n = static_cast<size_t>(out.NumElements());
  const size_t rank = dims.size();
  // A transpose whose innermost result axis is strided in the operand, and
  // some other result axis k reads the operand contiguously: tile (k, last).
  int64_t k = -1;
  if (rank >= 2 && strides[rank - 1] > 1)
    for (size_t a = 0; a + 1 < rank; ++a)
      if (strides[a] == 1 && dims[a] > 1) k = static_cast<int64_t>(a);
  if (k < 0) {
    const int64_t tasks = static_cast<int64_t>((n + kTaskElements - 1) / kTaskElements);
    ParallelFor(runner, tasks, [&](int64_t t, int) {
      const size_t begin = static_cast<size_t>(t) * kTaskElements;
      GatherBlock(src, strides, dims, begin, std::min(kTaskElements, n - begin), dst + begin);
    });
    return;
  }
  // Outer positions: every result axis except k and the last.
  const auto os = Strides(dims);
  const int64_t dk = dims[k], dl = dims[rank - 1];
  const int64_t sk_out = os[k], sl_in = strides[rank - 1];
  std::vector<int64_t> outer_dims, outer_in, outer_out;
  for (size_t a = 0; a + 1 < rank; ++a)
    if (static_cast<int64_t>(a) != k) {
      outer_dims.push_back(dims[a]);
      outer_in.push_back(strides[a]);
      outer_out.push_back(os[a]);
    }
  int64_t outer = 1;
  for (int64_t d : outer_dims) outer *= d;
  // Tasks of kTile result columns l (operand rows) by up to kChunk result
  // rows k (contiguous in the operand): each reads kTile runs of up to
  // kChunk elements and writes whole kTile-element pieces of result rows.
  // (Tiles along k, each reading every l's row for 16 elements, ran at a
  // quarter of the in-cache speed on 8x64x56x56 NCHW -> NHWC: 64 short
  // read streams at once.)
  constexpr int64_t kChunk = KILN_SELECTIVE_BUILD ? kTile : 16 * kTile;  // (selective builds: 16 x 16 tiles)
  const int64_t tiles_l = (dl + kTile - 1) / kTile, chunks_k = (dk + kChunk - 1) / kChunk;
  ParallelFor(runner, outer * tiles_l * chunks_k, [&](int64_t t, int) {
    int64_t o = t / (tiles_l * chunks_k), in_off = 0, out_off = 0;
    for (size_t a = outer_dims.size(); a-- > 0;) {
      const int64_t i = o % outer_dims[a];
      o /= outer_dims[a];
      in_off += i * outer_in[a];
      out_off += i * outer_out[a];
    }
    const int64_t l0 = (t / chunks_k % tiles_l) * kTile, l1 = std::min(dl, l0 + kTile);
    const int64_t k0 = (t % chunks_k) * kChunk, k1 = std::min(dk, k0 + kChunk);
    // (Not in selective builds, held to their size: the loop below.)
    if constexpr (!KILN_SELECTIVE_BUILD && (sizeof(T) == 4 || sizeof(T) == 8)) {
      // The block: operand rows l (sl_in apart, contiguous along k) into
      // result rows k (sk_out apart, contiguous along l).
      TransposeBlock(src + in_off + k0 + l0 * sl_in, sl_in, dst + out_off + k0 * sk_out + l0, sk_out, l1 - l0,
                     k1 - k0, static_cast<int>(sizeof(T)));
      return;
    }
    for (int64_t kk = k0; kk < k1; ++kk) {
      T* d = dst + out_off + kk * sk_out;
      const T* s = src + in_off + kk;
      for (int64_t l = l0; l < l1; ++l) d[l] = s[l * sl_in];
    }
  });
}

// `base`: the operand element that result element 0 reads.
Status Copy(const KernelCall& call, const std::vector<int64_t>& strides, int64_t base = 0) {
  const TensorRef& in = call.inputs[0];
  const TensorRef& out = call.outputs[0];
  if (out.NumElements() == 0) return Status::Ok();
  switch (StorageBytes(out.type)) {
    case 1: StridedCopy<uint8_t>(in, base, out, strides, call.runner); break;
    case 2: StridedCopy<uint16_t>(in, base, out, strides, call.runner); break;
    case 4: StridedCopy<uint32_t>(in, base, out, strides, call.runner); break;
    case 8: StridedCopy<uint64_t>(in, base, out, strides, call.runner); break;
    default: return RunReference(call);
  }
  return Status::Ok();
}

bool Unary(const KernelCall& call) {
  if (call.inputs.size() != 1 || call.outputs.size() != 1) return false;
  const TensorRef& in = call.inputs[0];
  const TensorRef& out = call.outputs[0];
  const size_t bytes = StorageBytes(out.type);
  return in.type == out.type && StorageOk(in) && StorageOk(out) && out.rank() <= 16 &&
         (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8);
}

}  // namespace

Status BroadcastInDim(const KernelCall& call) {
  if (!Unary(call)) return RunReference(call);
  const TensorRef& in = call.inputs[0];
  const TensorRef& out = call.outputs[0];
  auto bdims = call.params.Ints("broadcast_dimensions");
  if (static_cast<int64_t>(bdims.size()) != in.rank()) return RunReference(call);
  const auto is = Strides(in.dims);
  std::vector<int64_t> strides(out.dims.size(), 0);
  std::vector<bool> used(out.dims.size(), false);
  for (int64_t d = 0; d < in.rank(); ++d) {
    const int64_t b = bdims[d];
    if (b < 0 || b >= out.rank() || used[b]) return RunReference(call);
    used[b] = true;
    if (in.dims[d] != 1 && in.dims[d] != out.dims[b]) return RunReference(call);
    strides[b] = in.dims[d] == 1 ? 0 : is[d];
  }
  return Copy(call, strides);
}

Status Transpose(const KernelCall& call) {
  if (!Unary(call)) return RunReference(call);
  const TensorRef& in = call.inputs[0];
  const TensorRef& out = call.outputs[0];
  auto perm = call.params.Ints("permutation");
  if (static_cast<int64_t>(perm.size()) != in.rank() || out.rank() != in.rank()) return RunReference(call);
  const auto is = Strides(in.dims);
  std::vector<int64_t> strides(perm.size());
  std::vector<bool> used(perm.size(), false);
  for (size_t d = 0; d < perm.size(); ++d) {
    if (perm[d] < 0 || perm[d] >= in.rank() || used[perm[d]] || out.dims[d] != in.dims[perm[d]])
      return RunReference(call);
    used[perm[d]] = true;
    strides[d] = is[perm[d]];
  }
  return Copy(call, strides);
}

Status Slice(const KernelCall& call) {
  if (!Unary(call)) return RunReference(call);
  const TensorRef& in = call.inputs[0];
  const TensorRef& out = call.outputs[0];
  const size_t rank = in.dims.size();
  auto start = call.params.Ints("start_indices");
  auto limit = call.params.Ints("limit_indices");
  // Unit strides (JAX's x[:, a:b], a GRU's gate vectors): memcpy runs and no
  // allocation, as dynamic_slice (slice_runs.h); the general form below
  // builds stride tables per dispatch.
  if (!call.params.Has("strides") || std::all_of(call.params.Ints("strides").begin(), call.params.Ints("strides").end(),
                                                 [](int64_t x) { return x == 1; })) {
    bool ok = rank <= static_cast<size_t>(kMaxSliceRank) && start.size() == rank && limit.size() == rank &&
              out.dims.size() == rank && (!call.params.Has("strides") || call.params.Ints("strides").size() == rank);
    for (size_t d = 0; ok && d < rank; ++d)
      ok = 0 <= start[d] && start[d] <= limit[d] && limit[d] <= in.dims[d] && out.dims[d] == limit[d] - start[d];
    if (!ok) return RunReference(call);
    CopySliceRuns(in, out, start.data(), call.runner);
    return Status::Ok();
  }
  std::vector<int64_t> step(rank, 1);
  if (call.params.Has("strides")) step.assign(call.params.Ints("strides").begin(), call.params.Ints("strides").end());
  if (start.size() != rank || limit.size() != rank || step.size() != rank || out.dims.size() != rank)
    return RunReference(call);
  const auto is = Strides(in.dims);
  std::vector<int64_t> strides(rank);
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (!(0 <= start[d] && start[d] <= limit[d] && limit[d] <= in.dims[d]) || step[d] <= 0 ||
        out.dims[d] != SliceExtent(start[d], limit[d], step[d]))
      return RunReference(call);
    // A step past the end (out dim 1) is never taken; is[d] * step[d] may overflow.
    strides[d] = out.dims[d] > 1 ? is[d] * step[d] : 0;
    base += start[d] * is[d];
  }
  return Copy(call, strides, out.NumElements() == 0 ? 0 : base);
}

Status Concatenate(const KernelCall& call) {
  if (call.inputs.empty() || call.outputs.size() != 1) return RunReference(call);
  const TensorRef& out = call.outputs[0];
  const int64_t dim = call.params.Int("dimension", -1);
  if (!StorageOk(out) || dim < 0 || dim >= out.rank()) return RunReference(call);
  int64_t total = 0;
  for (const TensorRef& in : call.inputs) {
    if (!StorageOk(in) || in.type != out.type || in.rank() != out.rank()) return RunReference(call);
    for (int64_t d = 0; d < out.rank(); ++d)
      if (d != dim && in.dims[d] != out.dims[d]) return RunReference(call);
    total += in.dims[dim];
  }
  if (total != out.dims[dim]) return RunReference(call);
  if (out.NumElements() == 0) return Status::Ok();
  // Rows: the dims before `dim`; each input contributes a contiguous band of
  // in.dims[dim..] elements to every result row.
  const size_t eb = StorageBytes(out.type);
  int64_t rows = 1, out_row = 1;
  for (int64_t d = 0; d < dim; ++d) rows *= out.dims[d];
  for (int64_t d = dim; d < out.rank(); ++d) out_row *= out.dims[d];
  std::vector<int64_t> band_offset, band_size;
  int64_t offset = 0;
  for (const TensorRef& in : call.inputs) {
    const int64_t band = rows == 0 ? 0 : in.NumElements() / rows;
    band_offset.push_back(offset);
    band_size.push_back(band);
    offset += band;
  }
  const int64_t rows_per_task = std::max<int64_t>(1, static_cast<int64_t>(kTaskElements) / std::max<int64_t>(1, out_row));
  ParallelFor(call.runner, (rows + rows_per_task - 1) / rows_per_task, [&](int64_t t, int) {
    for (int64_t r = t * rows_per_task; r < std::min(rows, (t + 1) * rows_per_task); ++r)
      for (size_t i = 0; i < call.inputs.size(); ++i)
        if (band_size[i] > 0)
          std::memcpy(out.data + (r * out_row + band_offset[i]) * eb, call.inputs[i].data + r * band_size[i] * eb,
                      static_cast<size_t>(band_size[i]) * eb);
  });
  return Status::Ok();
}

// Writes 0, 1, ..., len - 1 as `type` for the common index types, converted
// directly: the reference's conversion of each index (about 10 ns apiece)
// was most of a 1-D iota's time. Below 2^24 every index is exact in each of
// them. False for the other types, and in selective builds, which are held
// to their size and convert through the reference.
static bool FillCommonIndices(ElementType type, int64_t len, uint8_t* values) {
  if constexpr (KILN_SELECTIVE_BUILD) return false;
  auto fill = [&](auto zero) {
    using T = decltype(zero);
    for (int64_t i = 0; i < len; ++i) {
      const T v = static_cast<T>(i);
      std::memcpy(values + i * sizeof(T), &v, sizeof(T));
    }
    return true;
  };
  const bool small = len <= (int64_t{1} << 24);
  switch (type) {
    case ElementType::kSI32: return small && fill(int32_t{});
    case ElementType::kUI32: return small && fill(uint32_t{});
    case ElementType::kSI64: return fill(int64_t{});
    case ElementType::kUI64: return fill(uint64_t{});
    case ElementType::kF32: return small && fill(float{});
    case ElementType::kF64: return small && fill(double{});
    default: return false;
  }
}

Status Iota(const KernelCall& call) {
  if (!call.inputs.empty() || call.outputs.size() != 1) return RunReference(call);
  const TensorRef& out = call.outputs[0];
  const int64_t axis = call.params.Int("iota_dimension", -1);
  const size_t es = StorageBytes(out.type);
  if (axis < 0 || axis >= out.rank() || out.type == ElementType::kI1 || !StorageOk(out) || es == 0 || es > 16)
    return RunReference(call);  // its error, or a type it stores otherwise
  if (out.NumElements() == 0) return Status::Ok();
  // The axis's values, converted once; then the result as [outer][axis][inner].
  const int64_t len = out.dims[axis];
  std::vector<uint8_t> values(static_cast<size_t>(len) * es);
  if (!FillCommonIndices(out.type, len, values.data()))
    for (int64_t i = 0; i < len; ++i) {
      Scalar v;
      v.i = i;
      ref::StoreScalar(out.type, ref::ConvertScalar(ElementType::kSI64, out.type, v), values.data() + i * es);
    }
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= out.dims[a];
  for (int64_t a = axis + 1; a < out.rank(); ++a) inner *= out.dims[a];
  const size_t run = static_cast<size_t>(inner) * es;  // bytes of one index's run
  ParallelFor(call.runner, outer, [&](int64_t o, int) {
    uint8_t* dst = out.data + static_cast<size_t>(o * len) * run;
    if (inner == 1) {  // the axis is innermost: the values themselves
      std::memcpy(dst, values.data(), values.size());
      return;
    }
    for (int64_t i = 0; i < len; ++i, dst += run) {
      const uint8_t* v = values.data() + i * es;
      // Doubling copies: the first element, then as much again each time.
      std::memcpy(dst, v, es);
      for (size_t filled = es; filled < run;) {
        const size_t n = std::min(filled, run - filled);
        std::memcpy(dst + filled, dst, n);
        filled += n;
      }
    }
  });
  return Status::Ok();
}

}  // namespace kiln::cpu

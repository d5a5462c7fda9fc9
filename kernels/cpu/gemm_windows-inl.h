// Convolution windows for the GEMM of gemm.cc (GemmProblem::b_windows), per
// Highway target: included by gemm.cc inside its target namespace, after
// CopyRun and the operand views (AView, BView), which it uses.
//
// B of a feature-major (NCHW) convolution is its input's windows. Two ways
// to feed them to the micro-kernel, both from the unpadded input:
// - packed (PackWindows): each block's B rows generated into panels from a
//   small zero-padded copy of the plane rows the block reads;
// - read in place (WindowPlanes): the whole input copied once into
//   zero-padded planes (in stride_x phases per row), each contraction step
//   then a fixed offset into them (MakeWindowPlanes' step table), so the
//   micro-kernel loads a vector of output columns as consecutive elements.
// (No include guard of its own: it is part of gemm.cc's per-target pass.)

// The columns of a convolution's input rows as its windows read them: from
// input column -pad_x to the last one a window reaches.
inline int64_t PaddedCols(const ConvWindows& w) { return (w.out_cols - 1) * w.stride_x + (w.taps_x - 1) * w.dil_x + 1; }

// buf[r][0, bcols) = input plane row iy_min + r, columns from -pad_x on, zero
// outside the input (pads may also be negative: cropped).
template <class D, typename T = hn::TFromD<D>>
void FillPaddedRows(D d, const ConvWindows& w, const T* plane, int64_t iy_min, int64_t brows, int64_t bcols,
                    T* HWY_RESTRICT buf) {
  const int64_t ix_min = -w.pad_x;
  const int64_t copy_lo = std::clamp<int64_t>(-ix_min, 0, bcols), copy_hi = std::clamp<int64_t>(w.cols - ix_min, copy_lo, bcols);
  for (int64_t r = 0; r < brows; ++r) {
    T* HWY_RESTRICT row = buf + r * bcols;
    const int64_t iy = iy_min + r;
    if (iy < 0 || iy >= w.rows) {
      std::fill(row, row + bcols, T(0));
      continue;
    }
    std::fill(row, row + copy_lo, T(0));
    CopyRun(d, plane + iy * w.row_step + ix_min + copy_lo, row + copy_lo, static_cast<size_t>(copy_hi - copy_lo));
    std::fill(row + copy_hi, row + bcols, T(0));
  }
}

// PackB for B given as a convolution's windows (GemmProblem::b_windows):
// the same panels, generated from the unpadded input. The rows of one input
// plane that the block's columns read are copied zero-padded into a small
// per-thread buffer (in L1), once per feature; the columns are cut once into
// segments, each within one output row and one panel, and each B row (one
// feature and tap) is then a copy of one buffer row per segment (strided
// when stride_x > 1), a feature's taps segment by segment so that each
// panel's rows are written in order. The plane after the current one is prefetched: the
// input is read here for the first time (no padded copy brought it in).
template <typename T>
void PackWindows(const GemmProblem& p, const T* b, int64_t bbase, size_t pc, size_t kc, size_t jc, size_t nc,
                 size_t nr, T* HWY_RESTRICT out) {
  const ConvWindows& w = *p.b_windows;
  const hn::ScalableTag<T> d;
  struct Segment {
    size_t dst;         // offset of its first column in row 0 of the block
    int64_t len, y, x;  // columns, output row and column of the first
  };
  std::vector<Segment> segments;
  int64_t y = static_cast<int64_t>(jc) / w.out_cols, x = static_cast<int64_t>(jc) % w.out_cols;
  const int64_t y_first = y;
  for (size_t done = 0; done < nc;) {
    const size_t pos = done % nr;
    const int64_t len = std::min<int64_t>({w.out_cols - x, static_cast<int64_t>(nr - pos), static_cast<int64_t>(nc - done)});
    segments.push_back(Segment{done / nr * kc * nr + pos, len, y, x});
    done += static_cast<size_t>(len);
    if ((x += len) == w.out_cols) x = 0, ++y;
  }
  const int64_t y_last = segments.back().y;
  // The buffer: input rows [iy_min, iy_min + brows) by PaddedCols columns
  // from -pad_x, zero outside the input.
  const int64_t iy_min = y_first * w.stride_y - w.pad_y;
  const int64_t brows = (y_last - y_first) * w.stride_y + (w.taps_y - 1) * w.dil_y + 1;
  const int64_t bcols = PaddedCols(w);
  ScratchLease<GemmScratchWindows, T> buffer(static_cast<size_t>(brows * bcols));
  T* HWY_RESTRICT buf = buffer.get();
  const size_t last_cols = nc - (nc - 1) / nr * nr;  // the last panel's columns
  // The depth index pc as (feature, tap row, tap column), stepped along.
  const int64_t taps = w.taps_y * w.taps_x;
  int64_t f = static_cast<int64_t>(pc) / taps, ty = static_cast<int64_t>(pc) % taps / w.taps_x,
          tx = static_cast<int64_t>(pc) % w.taps_x;
  for (size_t q = 0; q < kc;) {
    {  // a new feature: its rows into the buffer
      const T* plane = b + bbase + f * w.feature_step;
      FillPaddedRows(d, w, plane, iy_min, brows, bcols, buf);
      const char* next = reinterpret_cast<const char*>(plane + w.feature_step + (iy_min > 0 ? iy_min : 0) * w.row_step);
      for (int64_t o = 0; o < std::min<int64_t>(brows * w.row_step * static_cast<int64_t>(sizeof(T)), 4096); o += 64)
        __builtin_prefetch(next + o);
    }
    // The B rows of this feature's taps in the block, [q, q_end): segment
    // by segment, so that each panel's rows are written one after another
    // (row after row of one panel is contiguous) rather than one row across
    // every panel at a time.
    const int64_t tap0 = ty * w.taps_x + tx;
    const size_t q_end = std::min(kc, q + static_cast<size_t>(taps - tap0));
    for (const Segment& s : segments) {
      const T* from = buf + (s.y - y_first) * w.stride_y * bcols + s.x * w.stride_x;
      int64_t sy = ty, sx = tx;
      for (size_t r = q; r < q_end; ++r) {
        const T* src = from + (sy * w.dil_y) * bcols + sx * w.dil_x;
        T* HWY_RESTRICT dst = out + s.dst + r * nr;
        if (w.stride_x == 1) {
          CopyRun(d, src, dst, static_cast<size_t>(s.len));
        } else {
          for (int64_t i = 0; i < s.len; ++i) dst[i] = src[i * w.stride_x];
        }
        if (++sx == w.taps_x) sx = 0, ++sy;
      }
    }
    for (size_t r = q; r < q_end; ++r) {
      T* HWY_RESTRICT last = out + (nc - 1) / nr * kc * nr + r * nr;
      for (size_t j = last_cols; j < nr; ++j) last[j] = T(0);
    }
    q = q_end;
    tx = 0, ty = 0, ++f;
  }
}

// A convolution's input (GemmProblem::b_windows) as zero-padded planes, so
// that the micro-kernel reads its windows in place instead of packing them:
// each vector of output columns (rows of at least a vector; with a stride
// along rows, of a phase of the row) is then N consecutive elements of a
// padded row at a fixed offset per (feature, tap), or, where it crosses
// into the next output row, the first lanes of one such run and the rest
// of the next row's (two loads and a blend). One copy of the input
// replaces writing every element once per tap (PackWindows).
struct WindowPlanes {
  int64_t rows = 0, cols = 0;  // per plane, padded (cols: stride_x phases of phase_len)
  int64_t phase_len = 0;       // with a stride along rows, each padded row is in phases (FillPhasedRows)
  int64_t features = 0;        // planes per batch entry
  const int64_t* ko = nullptr;  // per contraction step (feature, tap row, tap column): its offset
  size_t PerBatch() const { return static_cast<size_t>(features * rows * cols); }
  // Elements past the last batch entry's planes that a run crossing into
  // the next output row may read (lanes it then discards): the next output
  // row's and a padded row's worth, and two vectors (of at most 64 lanes).
  int64_t row_pitch = 0;  // padded elements from one output row to the next
  size_t Slack() const { return static_cast<size_t>(row_pitch + cols + 128); }
};

// Whether the windows of `p` are read in place: a convolution's B, not
// packed at load, a stride of at most 4 along rows (each padded row then
// stored in that many phases: WindowPlanes), output rows of at least a
// vector.
template <typename T>
bool ReadsWindowsInPlace(const GemmProblem& p) {
  if constexpr (!KernelSelected("stablehlo.convolution")) {
    return false;
  } else {
    const ConvWindows* w = p.b_windows;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(hn::ScalableTag<T>()));
    return w != nullptr && p.b_packed == nullptr && w->stride_x <= 4 && w->out_cols >= lanes;
  }
}

// The entries of the step table MakeWindowPlanes fills (the caller's
// scratch: a table per call on the heap cost as much as filling it).
inline size_t WindowStepsSize(const GemmProblem& p) {
  return static_cast<size_t>(p.k + p.b_windows->taps_x);
}

// The step table's scratch (a ScratchLease), or nothing in a selective
// build without the convolution, the only product whose windows are read
// in place.
template <bool kConvolution>
struct WindowStepsLease {
  explicit WindowStepsLease(size_t) {}
  int64_t* get() const { return nullptr; }
};
template <>
struct WindowStepsLease<true> : ScratchLease<GemmScratchSteps, int64_t> {
  using ScratchLease::ScratchLease;
};
using WindowSteps = WindowStepsLease<KernelSelected("stablehlo.convolution")>;

inline WindowPlanes MakeWindowPlanes(const GemmProblem& p, int64_t* steps) {
  const ConvWindows& w = *p.b_windows;
  WindowPlanes planes;
  const int64_t out_rows = p.n / w.out_cols, taps = w.taps_y * w.taps_x;
  planes.rows = (out_rows - 1) * w.stride_y + (w.taps_y - 1) * w.dil_y + 1;
  planes.phase_len = (PaddedCols(w) + w.stride_x - 1) / w.stride_x;
  planes.cols = w.stride_x * planes.phase_len;
  planes.row_pitch = w.stride_y * planes.cols;
  planes.features = p.k / taps;
  // Tap column e = tx * dil_x of output column x is padded column
  // x * stride_x + e: element x + e / stride_x of phase e % stride_x. Per
  // tap column once, then step q = (f * taps_y + ty) * taps_x + tx by
  // nested loops: with a division per step this table took 5% of a
  // batch-1 ResNet block (a 64 -> 64 3x3 convolution has 576 steps).
  int64_t* column = steps + p.k;
  for (int64_t tx = 0; tx < w.taps_x; ++tx) {
    const int64_t e = tx * w.dil_x;
    column[tx] = e % w.stride_x * planes.phase_len + e / w.stride_x;
  }
  planes.ko = steps;
  int64_t* ko = steps;
  for (int64_t f = 0; f < planes.features; ++f)
    for (int64_t ty = 0; ty < w.taps_y; ++ty) {
      const int64_t row = (f * planes.rows + ty * w.dil_y) * planes.cols;
      for (int64_t tx = 0; tx < w.taps_x; ++tx) *ko++ = row + column[tx];
    }
  return planes;
}

// buf[r] = input plane row iy_min + r in `stride_x` phases of `phase_len`
// elements (element m of phase q is padded column m * stride_x + q, input
// column m * stride_x + q - pad_x), zero outside the input. Stride 1 is
// FillPaddedRows; stride 2 splits column pairs with vector loads.
template <class D, typename T = hn::TFromD<D>>
void FillPhasedRows(D d, const ConvWindows& w, const T* plane, int64_t iy_min, int64_t brows, int64_t phase_len,
                    T* HWY_RESTRICT buf) {
  const int64_t s = w.stride_x, cols = s * phase_len;
  if (s == 1) return FillPaddedRows(d, w, plane, iy_min, brows, cols, buf);
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  auto ceil_div = [&](int64_t a) { return a <= 0 ? 0 : (a + s - 1) / s; };
  for (int64_t r = 0; r < brows; ++r) {
    T* HWY_RESTRICT row = buf + r * cols;
    const int64_t iy = iy_min + r;
    if (iy < 0 || iy >= w.rows) {
      std::fill(row, row + cols, T(0));
      continue;
    }
    const T* src = plane + iy * w.row_step;
    int64_t m0[4], m1[4];
    for (int64_t q = 0; q < s; ++q) {
      m0[q] = std::min(ceil_div(w.pad_x - q), phase_len);
      m1[q] = std::clamp(ceil_div(w.cols + w.pad_x - q), m0[q], phase_len);
      T* ph = row + q * phase_len;
      std::fill(ph, ph + m0[q], T(0));
      std::fill(ph + m1[q], ph + phase_len, T(0));
    }
    // Element m of phase q: [m0[q], m1[q]) read the input. With stride 2,
    // where both phases read it (each pair of input columns c, c + 1 with
    // c + pad_x even), vectors of pairs are split at once.
    int64_t both = 0, both_end = 0;
    if (s == 2) {
      both = std::max(m0[0], m0[1]);
      both_end = std::max(both, std::min(m1[0], m1[1]));
      if (both_end - both >= N) {
        auto split = [&](int64_t k) {
          hn::Vec<D> even, odd;
          hn::LoadInterleaved2(d, src + 2 * k - w.pad_x, even, odd);
          hn::StoreU(even, d, row + k);
          hn::StoreU(odd, d, row + phase_len + k);
        };
        for (int64_t k = both; k + N <= both_end; k += N) split(k);
        split(both_end - N);  // the last vector, overlapping the one before
      } else {
        both_end = both;  // too short: one by one below
      }
    }
    for (int64_t q = 0; q < s; ++q) {
      T* ph = row + q * phase_len;
      for (int64_t m = m0[q]; m < m1[q]; ++m) {
        if (m == both && both < both_end) m = both_end;  // (split above)
        if (m >= m1[q]) break;
        ph[m] = src[m * s + q - w.pad_x];
      }
    }
  }
}

// The padded planes of batch entries [b0, b1) into `out` (planes.PerBatch()
// elements each), one task per feature, in one hand-off.
template <typename T>
void FillWindowPlanes(const GemmProblem& p, const WindowPlanes& planes, int64_t b0, int64_t b1, T* out,
                      TaskRunner* runner) {
  if constexpr (KernelSelected("stablehlo.convolution")) {  // (only the convolution reads windows in place)
    const hn::ScalableTag<T> d;
    const ConvWindows& w = *p.b_windows;
    const int64_t plane = planes.rows * planes.cols;
    ParallelFor(runner, (b1 - b0) * planes.features, [&](int64_t t, int) {
      const int64_t bi = b0 + t / planes.features, f = t % planes.features;
      const T* b = static_cast<const T*>(p.b) + p.b_batch[bi];
      FillPhasedRows(d, w, b + f * w.feature_step, -w.pad_y, planes.rows, planes.phase_len, out + t * plane);
    });
  }
}

template <typename T>
BView<T> WindowsView(const GemmProblem& p, const WindowPlanes& planes, const T* data, size_t pc, size_t col0) {
  BView<T> v;
  v.data = data;
  v.ko = planes.ko + pc;
  v.col0 = col0;
  v.out_cols = static_cast<size_t>(p.b_windows->out_cols);
  v.row_pitch = static_cast<size_t>(planes.row_pitch);
  return v;
}

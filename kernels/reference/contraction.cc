// Reference contraction kernels: stablehlo.dot_general, stablehlo.dot,
// stablehlo.convolution and stablehlo.dynamic_conv.
//
// Arithmetic (see numeric::Accumulator): operands are first converted to the
// result element type (the spec's preferred_element_type case); integer and
// boolean sums of products go through EvalScalarInstr kMultiply/kAdd in the
// result type (exact spec semantics incl. wraparound); float and complex sums
// accumulate in (complex) double and are rounded once to the result type.
// Quantized operands are not handled here (the compiler lowers quantized
// dot/convolution to dequantize -> op -> quantize).
#include <string>
#include <vector>

#include "kernels/reference/elementwise_inputs.h"
#include "kernels/reference/epilogue.h"
#include "kernels/reference/numeric_util.h"
#include "kernels/reference/kernels.h"

namespace kiln::ref {
namespace {

using numeric::Accumulator;
using numeric::CheckAxes;
using numeric::CheckCall;
using numeric::CheckDims;
using numeric::KernelName;
using numeric::Load;
using numeric::Store;

// Loads element `i` of `t` converted to `to`.
Scalar LoadAs(const TensorRef& t, int64_t i, ElementType to) {
  Scalar s = Load(t, i);
  return t.type == to ? s : ConvertScalar(t.type, to, s);
}

// f32 or f64 operands of the result's own type: the products are read in
// place as T, skipping the generic load and conversion per product (which
// cost about half of a kernel test's time, and more under the sanitizers and
// the emulator). The sums are the Accumulator's exactly: the real part of a
// (complex) double accumulation of real products is the double sum of the
// products, in the same order, rounded once by FromDouble.
bool ReadsInPlace(const TensorRef& lhs, const TensorRef& rhs, ElementType rt) {
  return (rt == ElementType::kF32 || rt == ElementType::kF64) && lhs.type == rt && rhs.type == rt;
}

// Calls fn(a, b) with both operands' data typed as the result's element
// type (f32 or f64; ReadsInPlace).
template <class Fn>
void WithTypedOperands(const TensorRef& lhs, const TensorRef& rhs, const Fn& fn) {
  if (lhs.type == ElementType::kF32)
    fn(reinterpret_cast<const float*>(lhs.data), reinterpret_cast<const float*>(rhs.data));
  else
    fn(reinterpret_cast<const double*>(lhs.data), reinterpret_cast<const double*>(rhs.data));
}

Status DotGeneralImpl(const KernelCall& c, const TensorRef& lhs, const TensorRef& rhs, const TensorRef& out,
                      std::span<const int64_t> lb, std::span<const int64_t> rb, std::span<const int64_t> lc,
                      std::span<const int64_t> rc) {
  const std::string name = KernelName(c);
  if (lb.size() != rb.size()) return InvalidArgument(name + ": batching dimension counts differ");
  if (lc.size() != rc.size()) return InvalidArgument(name + ": contracting dimension counts differ");
  std::vector<bool> lseen, rseen;
  KILN_RETURN_IF_ERROR(CheckAxes(c, lb, lhs.rank(), "lhs batching/contracting", &lseen));
  KILN_RETURN_IF_ERROR(CheckAxes(c, lc, lhs.rank(), "lhs batching/contracting", &lseen));
  KILN_RETURN_IF_ERROR(CheckAxes(c, rb, rhs.rank(), "rhs batching/contracting", &rseen));
  KILN_RETURN_IF_ERROR(CheckAxes(c, rc, rhs.rank(), "rhs batching/contracting", &rseen));
  for (size_t i = 0; i < lb.size(); ++i)
    if (lhs.dims[lb[i]] != rhs.dims[rb[i]]) return InvalidArgument(name + ": batching dimension sizes differ");
  for (size_t i = 0; i < lc.size(); ++i)
    if (lhs.dims[lc[i]] != rhs.dims[rc[i]]) return InvalidArgument(name + ": contracting dimension sizes differ");

  std::vector<int64_t> lfree, rfree;
  for (int64_t d = 0; d < lhs.rank(); ++d)
    if (!lseen[d]) lfree.push_back(d);
  for (int64_t d = 0; d < rhs.rank(); ++d)
    if (!rseen[d]) rfree.push_back(d);

  // Result dims = batch dims, lhs free dims, rhs free dims.
  std::vector<int64_t> expected;
  for (int64_t d : lb) expected.push_back(lhs.dims[d]);
  for (int64_t d : lfree) expected.push_back(lhs.dims[d]);
  for (int64_t d : rfree) expected.push_back(rhs.dims[d]);
  KILN_RETURN_IF_ERROR(CheckDims(c, out, expected, "result"));
  const ElementType rt = out.type;
  if (IsComplex(lhs.type) != IsComplex(rt) && IsComplex(lhs.type))
    return InvalidArgument(name + ": complex operands need a complex result");
  if (out.NumElements() == 0) return Status::Ok();

  auto ls = RowMajorStrides(lhs.dims), rs = RowMajorStrides(rhs.dims);
  // Offsets of every contracting position, row-major over the contracting dims.
  std::vector<int64_t> cdims;
  for (int64_t d : lc) cdims.push_back(lhs.dims[d]);
  std::vector<int64_t> loff, roff;
  if (NumElementsOf(cdims) > 0) {
    std::vector<int64_t> ci(cdims.size(), 0);
    do {
      int64_t lo = 0, ro = 0;
      for (size_t k = 0; k < ci.size(); ++k) {
        lo += ci[k] * ls[lc[k]];
        ro += ci[k] * rs[rc[k]];
      }
      loff.push_back(lo);
      roff.push_back(ro);
    } while (NextIndex(cdims, ci));
  }

  Accumulator acc(rt);
  const bool in_place = ReadsInPlace(lhs, rhs, rt);
  std::vector<int64_t> oi(out.rank(), 0);
  int64_t linear = 0;
  do {
    int64_t lbase = 0, rbase = 0;
    size_t p = 0;
    for (size_t k = 0; k < lb.size(); ++k, ++p) {
      lbase += oi[p] * ls[lb[k]];
      rbase += oi[p] * rs[rb[k]];
    }
    for (int64_t d : lfree) lbase += oi[p++] * ls[d];
    for (int64_t d : rfree) rbase += oi[p++] * rs[d];
    if (in_place) {
      double sum = 0;
      WithTypedOperands(lhs, rhs, [&](const auto* a, const auto* b) {
        for (size_t k = 0; k < loff.size(); ++k)
          sum += static_cast<double>(a[lbase + loff[k]]) * static_cast<double>(b[rbase + roff[k]]);
      });
      Store(out, linear++, numeric::FromDouble(rt, sum));
      continue;
    }
    acc.Reset();
    for (size_t k = 0; k < loff.size(); ++k)
      acc.AddProduct(LoadAs(lhs, lbase + loff[k], rt), LoadAs(rhs, rbase + roff[k], rt));
    Store(out, linear++, acc.Result());
  } while (NextIndex(out.dims, oi));
  return Status::Ok();
}

Status DotGeneral(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 2, 1));
  const auto& p = c.params;
  return DotGeneralImpl(c, c.inputs[0], c.inputs[1], c.outputs[0], p.Ints("lhs_batching_dimensions"),
                        p.Ints("rhs_batching_dimensions"), p.Ints("lhs_contracting_dimensions"),
                        p.Ints("rhs_contracting_dimensions"));
}

// Legacy dot: rank-1/2 operands; contracts lhs's last dim with rhs's first.
Status Dot(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 2, 1));
  const TensorRef& lhs = c.inputs[0];
  const TensorRef& rhs = c.inputs[1];
  if (lhs.rank() < 1 || lhs.rank() > 2 || rhs.rank() < 1 || rhs.rank() > 2)
    return InvalidArgument(KernelName(c) + ": operands must have rank 1 or 2");
  const int64_t lc[1] = {lhs.rank() - 1};
  const int64_t rc[1] = {0};
  return DotGeneralImpl(c, lhs, rhs, c.outputs[0], {}, {}, lc, rc);
}

// Convolution per the spec's reframing: for every result element, sum over
// the kernel's spatial window and input features of lhs * rhs, where the lhs
// position is found in the padded, base-dilated lhs (holes and padding
// are zeros: they add 0 * weight, which only an infinite or NaN weight
// notices). `padding` is (N-2)x2 row-major.
Status ConvolutionImpl(const KernelCall& c, const std::vector<int64_t>& padding) {
  const std::string name = KernelName(c);
  const auto& p = c.params;
  const TensorRef& lhs = c.inputs[0];
  const TensorRef& rhs = c.inputs[1];
  const TensorRef& out = c.outputs[0];
  const int64_t n = lhs.rank();
  if (n < 2 || rhs.rank() != n || out.rank() != n)
    return InvalidArgument(name + ": lhs, rhs and result must have the same rank >= 2");
  const size_t ns = static_cast<size_t>(n - 2);
  std::vector<int64_t> strides, lhs_dil, rhs_dil, reversal;
  if (!numeric::IntsOr(p, "window_strides", ns, 1, &strides) ||
      !numeric::IntsOr(p, "lhs_dilation", ns, 1, &lhs_dil) || !numeric::IntsOr(p, "rhs_dilation", ns, 1, &rhs_dil) ||
      !numeric::IntsOr(p, "window_reversal", ns, 0, &reversal))
    return InvalidArgument(name + ": window attribute has the wrong length");
  if (padding.size() != 2 * ns) return InvalidArgument(name + ": padding must be (N-2)x2");
  for (size_t i = 0; i < ns; ++i)
    if (strides[i] <= 0 || lhs_dil[i] <= 0 || rhs_dil[i] <= 0)
      return InvalidArgument(name + ": strides and dilations must be positive");

  const int64_t ib = p.Int("input_batch_dimension"), ifd = p.Int("input_feature_dimension");
  const int64_t kif = p.Int("kernel_input_feature_dimension"), kof = p.Int("kernel_output_feature_dimension");
  const int64_t ob = p.Int("output_batch_dimension"), ofd = p.Int("output_feature_dimension");
  auto isp = p.Ints("input_spatial_dimensions");
  auto ksp = p.Ints("kernel_spatial_dimensions");
  auto osp = p.Ints("output_spatial_dimensions");
  if (isp.size() != ns || ksp.size() != ns || osp.size() != ns)
    return InvalidArgument(name + ": spatial dimension lists must have N-2 entries");
  {
    std::vector<bool> s1, s2, s3;
    const int64_t a1[2] = {ib, ifd}, a2[2] = {kif, kof}, a3[2] = {ob, ofd};
    KILN_RETURN_IF_ERROR(CheckAxes(c, a1, n, "input dimensions", &s1));
    KILN_RETURN_IF_ERROR(CheckAxes(c, isp, n, "input dimensions", &s1));
    KILN_RETURN_IF_ERROR(CheckAxes(c, a2, n, "kernel dimensions", &s2));
    KILN_RETURN_IF_ERROR(CheckAxes(c, ksp, n, "kernel dimensions", &s2));
    KILN_RETURN_IF_ERROR(CheckAxes(c, a3, n, "output dimensions", &s3));
    KILN_RETURN_IF_ERROR(CheckAxes(c, osp, n, "output dimensions", &s3));
  }
  const int64_t fgc = p.Int("feature_group_count", 1), bgc = p.Int("batch_group_count", 1);
  if (fgc <= 0 || bgc <= 0 || (fgc > 1 && bgc > 1))
    return InvalidArgument(name + ": invalid feature_group_count/batch_group_count");
  const int64_t batch = lhs.dims[ib], in_feat = lhs.dims[ifd];
  const int64_t k_in = rhs.dims[kif], k_out = rhs.dims[kof];
  if (batch % bgc != 0 || in_feat % fgc != 0 || k_in * fgc != in_feat || k_out % fgc != 0 || k_out % bgc != 0)
    return InvalidArgument(name + ": feature/batch dimensions do not match the group counts");

  // Expected result shape (C25).
  std::vector<int64_t> expected(n, 0);
  expected[ob] = batch / bgc;
  expected[ofd] = k_out;
  for (size_t s = 0; s < ns; ++s) {
    const int64_t d = lhs.dims[isp[s]], k = rhs.dims[ksp[s]];
    const int64_t dilated_in = d == 0 ? 0 : (d - 1) * lhs_dil[s] + 1;
    const int64_t padded = padding[2 * s] + dilated_in + padding[2 * s + 1];
    const int64_t dilated_win = k == 0 ? 0 : (k - 1) * rhs_dil[s] + 1;
    expected[osp[s]] = (padded <= 0 || dilated_win > padded) ? 0 : (padded - dilated_win) / strides[s] + 1;
  }
  KILN_RETURN_IF_ERROR(CheckDims(c, out, expected, "result"));
  const ElementType rt = out.type;
  if (out.NumElements() == 0) return Status::Ok();

  auto ls = RowMajorStrides(lhs.dims), rs = RowMajorStrides(rhs.dims), os = RowMajorStrides(out.dims);
  std::vector<int64_t> kdims(ns);
  for (size_t s = 0; s < ns; ++s) kdims[s] = rhs.dims[ksp[s]];
  const bool empty_kernel = NumElementsOf(kdims) == 0 || k_in == 0;
  const int64_t out_per_fgroup = k_out / fgc, out_per_bgroup = k_out / bgc;
  const int64_t batch_per_group = batch / bgc;

  // The stored value of padded elements (attribute padding_value, which the
  // CPU target's compiler sets on the 8-bit form: compiler/passes/
  // quantized_integer_contraction.h); 0 by default, as the spec's padding.
  const int64_t pad_value = p.Int("padding_value", 0);
  if (pad_value != 0) {
    if (!IsInteger(lhs.type) || !IsInteger(rt))
      return InvalidArgument(name + ": padding_value applies to integer convolutions only");
    for (size_t s = 0; s < ns; ++s)
      if (lhs_dil[s] != 1) return InvalidArgument(name + ": padding_value needs lhs_dilation 1");
  }
  Scalar pad_scalar;
  pad_scalar.i = pad_value;

  Accumulator acc(rt);
  const bool in_place = ReadsInPlace(lhs, rhs, rt);
  double sum = 0;  // the in-place sum (ReadsInPlace)
  std::vector<int64_t> oi(n, 0), ki(ns, 0);
  do {
    const int64_t o_b = oi[ob], o_f = oi[ofd];
    // Group selection: feature groups pick a slice of input features; batch
    // groups pick a slice of the lhs batch.
    const int64_t feat_base = (o_f / out_per_fgroup) * k_in;
    const int64_t lhs_batch = (o_f / out_per_bgroup) * batch_per_group + o_b;
    acc.Reset();
    sum = 0;
    if (!empty_kernel) {
      std::fill(ki.begin(), ki.end(), 0);
      do {
        // lhs spatial position for this kernel tap, or skip (padding / hole).
        int64_t loff = lhs_batch * ls[ib], roff = o_f * rs[kof];
        bool inside = true;
        for (size_t s = 0; s < ns && inside; ++s) {
          const int64_t tap = reversal[s] ? kdims[s] - 1 - ki[s] : ki[s];
          const int64_t pos = oi[osp[s]] * strides[s] + tap * rhs_dil[s] - padding[2 * s];
          if (pos < 0 || pos % lhs_dil[s] != 0 || pos / lhs_dil[s] >= lhs.dims[isp[s]]) inside = false;
          loff += (pos / lhs_dil[s]) * ls[isp[s]];
          roff += ki[s] * rs[ksp[s]];
        }
        if (!inside) {
          roff = o_f * rs[kof];
          for (size_t s = 0; s < ns; ++s) roff += ki[s] * rs[ksp[s]];
          if (pad_value == 0) {
            // The spec's padded lhs holds zeros that take part in the
            // products: they change a float sum only where a weight is
            // infinite or NaN (0 * inf = NaN), and an integer sum never.
            if (in_place) {
              WithTypedOperands(lhs, rhs, [&](const auto*, const auto* b) {
                for (int64_t f = 0; f < k_in; ++f) sum += 0.0 * static_cast<double>(b[roff + f * rs[kif]]);
              });
            } else if (acc.wide) {
              for (int64_t f = 0; f < k_in; ++f) acc.AddProduct(Scalar{}, LoadAs(rhs, roff + f * rs[kif], rt));
            }
            continue;
          }
          // A padded element (lhs_dilation is 1: no holes) holds pad_value.
          for (int64_t f = 0; f < k_in; ++f) acc.AddProduct(pad_scalar, LoadAs(rhs, roff + f * rs[kif], rt));
          continue;  // (integer types: never the in-place f32/f64 sum)
        }
        if (in_place) {
          WithTypedOperands(lhs, rhs, [&](const auto* a, const auto* b) {
            for (int64_t f = 0; f < k_in; ++f)
              sum += static_cast<double>(a[loff + (feat_base + f) * ls[ifd]]) * static_cast<double>(b[roff + f * rs[kif]]);
          });
        } else {
          for (int64_t f = 0; f < k_in; ++f)
            acc.AddProduct(LoadAs(lhs, loff + (feat_base + f) * ls[ifd], rt), LoadAs(rhs, roff + f * rs[kif], rt));
        }
      } while (NextIndex(kdims, ki));
    }
    Store(out, LinearIndex(oi, os), in_place ? numeric::FromDouble(rt, sum) : acc.Result());
  } while (NextIndex(out.dims, oi));
  return Status::Ok();
}

Status Convolution(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 2, 1));
  const int64_t ns = std::max<int64_t>(c.inputs[0].rank() - 2, 0);
  std::vector<int64_t> padding;
  if (!numeric::IntsOr(c.params, "padding", 2 * ns, 0, &padding))
    return InvalidArgument(KernelName(c) + ": padding must be (N-2)x2");
  return ConvolutionImpl(c, padding);
}

// dynamic_conv: like convolution, with padding as a third operand ((N-2)x2
// tensor of any integer type).
Status DynamicConv(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 3, 1));
  const TensorRef& pad = c.inputs[2];
  const int64_t ns = std::max<int64_t>(c.inputs[0].rank() - 2, 0);
  if (!IsInteger(pad.type) || pad.rank() != 2 || pad.dims[0] != ns || pad.dims[1] != 2)
    return InvalidArgument(KernelName(c) + ": padding operand must be an integer (N-2)x2 tensor");
  std::vector<int64_t> padding(2 * ns);
  for (int64_t i = 0; i < 2 * ns; ++i) padding[i] = Load(pad, i).i;
  // Only the first two inputs are lhs/rhs; ConvolutionImpl reads inputs[0..1].
  return ConvolutionImpl(c, padding);
}

// The producer, requantizing its accumulators where the compiler fused a
// requantize into it (epilogue.h).
template <KernelFn kProducer>
Status Requantizing(const KernelCall& c) {
  return RunWithRequantize(c, kProducer);
}

// The producer with its fused elementwise epilogue, if any (epilogue.h).
template <KernelFn kProducer>
Status WithEpilogue(const KernelCall& c) {
  return RunWithEpilogue(c, 2, &Requantizing<kProducer>, &RunElementwiseProgram);
}

}  // namespace

// This file's kernels of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::DotGeneral(const KernelCall& call) { return ref::WithEpilogue<ref::DotGeneral>(call); }
Status kernel::Dot(const KernelCall& call) { return ref::WithEpilogue<ref::Dot>(call); }
Status kernel::Convolution(const KernelCall& call) { return ref::WithEpilogue<ref::Convolution>(call); }
Status kernel::DynamicConv(const KernelCall& call) { return ref::DynamicConv(call); }

}  // namespace kiln::ref

// Reference quantization kernels: stablehlo.uniform_quantize and
// stablehlo.uniform_dequantize.
//
// Quantized tensors arrive as their storage type (i8, ui4, ...). The
// quantization parameters of the quantized side arrive as attributes:
//   scales (floats), zero_points (ints), quantized_dimension (int, -1 or
//   absent = per-tensor), storage_min / storage_max (ints, default: the
//   storage type's full range);
// and, for a uniform_quantize whose operand is itself quantized (requantize),
// operand_scales, operand_zero_points, operand_quantized_dimension (and
// optionally operand_storage_min/max, unused) describe the operand. The
// expressed type of a requantize is attr `expressed_type` (an MLIR spelling
// such as "f32") when given, else f32.
//
// Arithmetic follows the spec's helpers, each step rounded in the expressed
// type through EvalScalarInstr:
//   dequantize(q) = convert(q - zp, E) * scale
//   quantize(x)   = convert(round_nearest_even(clamp(min, x / scale + zp, max)), storage)
// (q - zp is formed in 64-bit integers, so it never wraps.)
#include <cmath>
#include <string>
#include <vector>

#include "kernels/reference/numeric_util.h"
#include "kernels/reference/kernels.h"

namespace kiln::ref {
namespace {

using numeric::CheckCall;
using numeric::CheckDims;
using numeric::Eval2;
using numeric::KernelName;
using numeric::Load;
using numeric::Store;

struct QuantParams {
  std::vector<double> scales;
  std::vector<int64_t> zero_points;
  int64_t axis = -1;  // -1: per-tensor
  int64_t storage_min = 0, storage_max = 0;
  int64_t inner = 1, axis_size = 1;
  // Index of the scale / zero point for element `linear`.
  size_t Slot(int64_t linear) const { return axis < 0 ? 0 : static_cast<size_t>((linear / inner) % axis_size); }
};

Status ReadParams(const KernelCall& c, const TensorRef& t, const std::string& prefix, QuantParams* q) {
  const std::string name = KernelName(c);
  const auto& p = c.params;
  const KernelAttr* s = p.Find(prefix + "scales");
  if (!s || s->floats.empty()) return InvalidArgument(name + ": missing " + prefix + "scales");
  q->scales = s->floats;
  auto zp = p.Ints(prefix + "zero_points");
  q->zero_points.assign(zp.begin(), zp.end());
  if (q->zero_points.empty()) q->zero_points.assign(q->scales.size(), 0);
  if (q->zero_points.size() != q->scales.size())
    return InvalidArgument(name + ": " + prefix + "scales and zero_points differ in length");
  q->axis = p.Int(prefix + "quantized_dimension", -1);
  if (q->axis >= 0) {
    if (q->axis >= t.rank()) return InvalidArgument(name + ": quantized_dimension out of range");
    q->axis_size = t.dims[q->axis];
    q->inner = 1;
    for (int64_t d = q->axis + 1; d < t.rank(); ++d) q->inner *= t.dims[d];
    if (static_cast<int64_t>(q->scales.size()) != q->axis_size)
      return InvalidArgument(name + ": per-axis scales must have one entry per slice");
  } else if (q->scales.size() != 1) {
    return InvalidArgument(name + ": per-tensor quantization needs exactly one scale");
  }
  if (!IsInteger(t.type)) return InvalidArgument(name + ": quantized storage must be an integer type");
  const int bits = BitWidth(t.type);
  const bool is_signed = KindOf(t.type) == ElementKind::kSigned;
  int64_t lo = !is_signed ? 0 : bits >= 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
  int64_t hi = bits >= 64 ? INT64_MAX : (is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1);
  q->storage_min = p.Int(prefix + "storage_min", lo);
  q->storage_max = p.Int(prefix + "storage_max", hi);
  if (q->storage_min > q->storage_max) return InvalidArgument(name + ": storage_min > storage_max");
  return Status::Ok();
}

Scalar FloatScalar(ElementType e, double v) { return numeric::FromDouble(e, v); }

// dequantize one stored integer into expressed type `e`.
Scalar Dequantize(const QuantParams& q, ElementType e, int64_t stored, int64_t linear) {
  const size_t k = q.Slot(linear);
  Scalar diff;
  // x_storage - zero_point in 64 bits: exact for storage up to 32 bits;
  // 64-bit storage wraps, as the spec's subtraction in the storage type.
  diff.i = static_cast<int64_t>(static_cast<uint64_t>(stored) - static_cast<uint64_t>(q.zero_points[k]));
  const Scalar x = ConvertScalar(ElementType::kSI64, e, diff);
  return Eval2(ScalarOp::kMultiply, e, x, FloatScalar(e, q.scales[k]));
}

// quantize one expressed value (type `e`) into storage type `st`.
Scalar Quantize(const QuantParams& q, ElementType e, ElementType st, const Scalar& x, int64_t linear) {
  const size_t k = q.Slot(linear);
  Scalar scaled = Eval2(ScalarOp::kDivide, e, x, FloatScalar(e, q.scales[k]));
  Scalar zp;
  zp.i = q.zero_points[k];
  scaled = Eval2(ScalarOp::kAdd, e, scaled, ConvertScalar(ElementType::kSI64, e, zp));
  double v = scaled.re;
  const double lo = FloatScalar(e, static_cast<double>(q.storage_min)).re;
  const double hi = FloatScalar(e, static_cast<double>(q.storage_max)).re;
  if (std::isnan(v)) v = 0;  // implementation-defined; NaN quantizes to 0
  v = std::min(std::max(v, lo), hi);
  v = std::nearbyint(v);  // the default rounding mode: to nearest, ties to even
  Scalar r;
  // The clamp's upper bound INT64_MAX rounds up to 2^63 in the expressed
  // type, past int64's range: that saturates to storage_max.
  r.i = v >= 0x1p63 ? q.storage_max : std::min(std::max(static_cast<int64_t>(v), q.storage_min), q.storage_max);
  return r;
}

Status UniformDequantize(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 1, 1));
  const TensorRef& in = c.inputs[0];
  const TensorRef& out = c.outputs[0];
  if (!IsFloat(out.type)) return InvalidArgument(KernelName(c) + ": result must be a float tensor");
  KILN_RETURN_IF_ERROR(CheckDims(c, out, in.dims, "result"));
  QuantParams q;
  KILN_RETURN_IF_ERROR(ReadParams(c, in, "", &q));
  for (int64_t i = 0; i < in.NumElements(); ++i) Store(out, i, Dequantize(q, out.type, Load(in, i).i, i));
  return Status::Ok();
}

Status UniformQuantize(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 1, 1));
  const TensorRef& in = c.inputs[0];
  const TensorRef& out = c.outputs[0];
  KILN_RETURN_IF_ERROR(CheckDims(c, out, in.dims, "result"));
  QuantParams q;
  KILN_RETURN_IF_ERROR(ReadParams(c, out, "", &q));
  if (IsFloat(in.type)) {
    for (int64_t i = 0; i < in.NumElements(); ++i) Store(out, i, Quantize(q, in.type, out.type, Load(in, i), i));
    return Status::Ok();
  }
  // Requantize: dequantize with the operand's parameters, then quantize.
  if (!c.params.Has("operand_scales"))
    return InvalidArgument(KernelName(c) + ": a non-float operand needs operand_scales (requantize)");
  QuantParams oq;
  KILN_RETURN_IF_ERROR(ReadParams(c, in, "operand_", &oq));
  ElementType e = ElementType::kF32;
  if (!c.params.Str("expressed_type").empty()) {
    auto t = ElementTypeFromName(c.params.Str("expressed_type"));
    if (!t || !IsFloat(*t)) return InvalidArgument(KernelName(c) + ": bad expressed_type");
    e = *t;
  }
  for (int64_t i = 0; i < in.NumElements(); ++i)
    Store(out, i, Quantize(q, e, out.type, Dequantize(oq, e, Load(in, i).i, i), i));
  return Status::Ok();
}

}  // namespace

// This file's kernels of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::UniformQuantize(const KernelCall& call) { return ref::UniformQuantize(call); }
Status kernel::UniformDequantize(const KernelCall& call) { return ref::UniformDequantize(call); }

}  // namespace kiln::ref

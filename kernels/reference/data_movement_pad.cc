// Reference kernels: pad, dynamic_pad, iota, dynamic_iota, bitcast_convert
// (between different bit widths; equal widths work too).
#include <cstring>
#include <string>
#include <vector>

#include "kernels/reference/kernels.h"
#include "kernels/scalar/scalar.h"
#include "kernels/reference/tensor_index.h"

namespace kiln::ref {


namespace {

// pad: result[low + operand_index * (interior + 1)] = operand[operand_index];
// every other result element is padding_value. Negative edge padding just
// moves positions out of the result, so walking the result and mapping back
// handles it.
Status PadImpl(const char* op, const KernelCall& call, std::span<const int64_t> low,
               std::span<const int64_t> high, std::span<const int64_t> interior) {
  const TensorRef& in = call.inputs[0];
  const TensorRef& pad_value = call.inputs[1];
  const TensorRef& out = call.outputs[0];
  KILN_RETURN_IF_ERROR(CheckStorage(pad_value, std::string(op) + " padding_value"));
  if (pad_value.type != in.type || pad_value.rank() != 0)
    return InvalidArgument(std::string(op) + ": padding_value must be a rank-0 tensor of the operand type");
  const size_t rank = in.dims.size();
  if (low.size() != rank || high.size() != rank || interior.size() != rank || out.dims.size() != rank)
    return InvalidArgument(std::string(op) + ": padding sizes must equal operand and result rank");
  for (size_t d = 0; d < rank; ++d) {
    if (interior[d] < 0) return InvalidArgument(std::string(op) + ": interior_padding must be >= 0");
    // in + low + max(in - 1, 0) * interior + high, refusing overflow (a
    // hostile module can hold any padding attribute).
    int64_t expect = 0;
    bool overflow = __builtin_mul_overflow(std::max<int64_t>(in.dims[d] - 1, 0), interior[d], &expect);
    overflow |= __builtin_add_overflow(expect, in.dims[d], &expect);
    overflow |= __builtin_add_overflow(expect, low[d], &expect);
    overflow |= __builtin_add_overflow(expect, high[d], &expect);
    if (overflow || out.dims[d] != expect)
      return InvalidArgument(std::string(op) + ": result dim " + std::to_string(d) +
                             " does not match the padding");
  }
  auto in_strides = RowMajorStrides(in.dims);
  CopyByIndex(
      in, out,
      [&](std::span<const int64_t> ri) -> int64_t {
        int64_t src = 0;
        for (size_t d = 0; d < rank; ++d) {
          // Overflow here means a position far outside the operand: padding.
          int64_t r = 0, step = 0;
          if (__builtin_sub_overflow(ri[d], low[d], &r) || r < 0) return -1;
          if (__builtin_add_overflow(interior[d], int64_t{1}, &step)) {
            if (r != 0) return -1;  // only the first element is not padding
            continue;
          }
          if (r % step != 0 || r / step >= in.dims[d]) return -1;
          src += (r / step) * in_strides[d];
        }
        return src;
      },
      pad_value.data);
  return Status::Ok();
}

Status Pad(const KernelCall& call) {
  const char* op = "stablehlo.pad";
  KILN_RETURN_IF_ERROR(CheckUnary(call, op, 2));
  // interior_padding may be omitted: default zeros.
  std::vector<int64_t> interior(call.inputs[0].dims.size(), 0);
  if (call.params.Has("interior_padding")) {
    auto s = call.params.Ints("interior_padding");
    interior.assign(s.begin(), s.end());
  }
  return PadImpl(op, call, call.params.Ints("edge_padding_low"), call.params.Ints("edge_padding_high"),
                 interior);
}

Status DynamicPad(const KernelCall& call) {
  const char* op = "stablehlo.dynamic_pad";
  KILN_RETURN_IF_ERROR(CheckUnary(call, op, 5));
  std::vector<int64_t> low, high, interior;
  KILN_RETURN_IF_ERROR(ReadIntegerTensor(call.inputs[2], "stablehlo.dynamic_pad edge_padding_low", &low));
  KILN_RETURN_IF_ERROR(ReadIntegerTensor(call.inputs[3], "stablehlo.dynamic_pad edge_padding_high", &high));
  KILN_RETURN_IF_ERROR(ReadIntegerTensor(call.inputs[4], "stablehlo.dynamic_pad interior_padding", &interior));
  return PadImpl(op, call, low, high, interior);
}

// iota: output[index] = convert(index[iota_dimension]). The spec allows
// integer, float and complex results (not i1).
Status IotaImpl(const char* op, const TensorRef& out, int64_t iota_dim) {
  KILN_RETURN_IF_ERROR(CheckStorage(out, std::string(op) + " result"));
  if (iota_dim < 0 || iota_dim >= out.rank())
    return InvalidArgument(std::string(op) + ": iota_dimension out of range");
  if (IsBool(out.type))
    return InvalidArgument(std::string(op) + ": result must have an integer, float or complex type");
  if (out.NumElements() == 0) return Status::Ok();
  std::vector<int64_t> idx(out.dims.size(), 0);
  int64_t linear = 0;
  do {
    Scalar v;
    v.i = idx[iota_dim];
    StoreScalar(out.type, ConvertScalar(ElementType::kSI64, out.type, v), out.At(linear));
    ++linear;
  } while (NextIndex(out.dims, idx));
  return Status::Ok();
}

Status Iota(const KernelCall& call) {
  if (!call.inputs.empty() || call.outputs.size() != 1)
    return InvalidArgument("stablehlo.iota: expects no inputs and 1 output");
  return IotaImpl("stablehlo.iota", call.outputs[0], call.params.Int("iota_dimension", -1));
}

Status DynamicIota(const KernelCall& call) {
  const char* op = "stablehlo.dynamic_iota";
  if (call.inputs.size() != 1 || call.outputs.size() != 1)
    return InvalidArgument(std::string(op) + ": expects 1 input and 1 output");
  KILN_RETURN_IF_ERROR(CheckShapeOperand(call.inputs[0], call.outputs[0], op));
  return IotaImpl(op, call.outputs[0], call.params.Int("iota_dimension", -1));
}

// bitcast_convert: the operand's elements form one little-endian bit string
// (element 0 in the lowest bits, each element contributing BitWidth bits of
// its in-memory representation; complex = real part then imaginary part),
// which the result's elements then read back in the same order.
// A stored element is StorageBytes little-endian bytes; sub-byte types keep
// their value bits in the low bits of their byte.
void AppendBits(ElementType t, const uint8_t* p, std::vector<uint8_t>& bits) {
  const int width = BitWidth(t);
  for (int b = 0; b < width; ++b) bits.push_back((p[b / 8] >> (b % 8)) & 1);
}

void StoreBits(ElementType t, const uint8_t* bits, uint8_t* p) {
  const int width = BitWidth(t);
  const size_t bytes = StorageBytes(t);
  std::memset(p, 0, bytes);
  for (int b = 0; b < width; ++b)
    if (bits[b]) p[b / 8] |= static_cast<uint8_t>(1u << (b % 8));
  // Sub-byte signed integers are stored sign-extended to their byte.
  if (width < 8 && KindOf(t) == ElementKind::kSigned && bits[width - 1])
    p[0] |= static_cast<uint8_t>(0xFFu << width);
}

Status BitcastConvert(const KernelCall& call) {
  const char* op = "stablehlo.bitcast_convert";
  if (call.inputs.size() != 1 || call.outputs.size() != 1)
    return InvalidArgument(std::string(op) + ": expects 1 input and 1 output");
  const TensorRef& in = call.inputs[0];
  const TensorRef& out = call.outputs[0];
  KILN_RETURN_IF_ERROR(CheckStorage(in, std::string(op) + " operand"));
  KILN_RETURN_IF_ERROR(CheckStorage(out, std::string(op) + " result"));
  const int in_bits = BitWidth(in.type), out_bits = BitWidth(out.type);
  if (IsComplex(in.type) != IsComplex(out.type))
    return InvalidArgument(std::string(op) + ": complex only converts to complex");
  // Shape rule (C1): the narrower side has one extra trailing dimension
  // holding wide/narrow elements.
  const TensorRef& wide = in_bits >= out_bits ? in : out;
  const TensorRef& narrow = in_bits >= out_bits ? out : in;
  const int wide_bits = std::max(in_bits, out_bits), narrow_bits = std::min(in_bits, out_bits);
  bool shape_ok;
  if (in_bits == out_bits) {
    shape_ok = std::equal(in.dims.begin(), in.dims.end(), out.dims.begin(), out.dims.end());
  } else {
    shape_ok = narrow.rank() == wide.rank() + 1 &&
               std::equal(wide.dims.begin(), wide.dims.end(), narrow.dims.begin()) &&
               narrow.dims[wide.rank()] * narrow_bits == wide_bits;
  }
  if (!shape_ok) return InvalidArgument(std::string(op) + ": result shape does not fit the bit widths");
  std::vector<uint8_t> bits;  // one entry per bit: simple, and sizes here are small
  bits.reserve(static_cast<size_t>(in.NumElements()) * in_bits);
  for (int64_t e = 0; e < in.NumElements(); ++e) AppendBits(in.type, in.At(e), bits);
  for (int64_t e = 0; e < out.NumElements(); ++e)
    StoreBits(out.type, bits.data() + static_cast<size_t>(e) * out_bits, out.At(e));
  return Status::Ok();
}

}  // namespace

// This file's kernels of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::BitcastConvert(const KernelCall& call) { return ref::BitcastConvert(call); }
Status kernel::DynamicIota(const KernelCall& call) { return ref::DynamicIota(call); }
Status kernel::DynamicPad(const KernelCall& call) { return ref::DynamicPad(call); }
Status kernel::Iota(const KernelCall& call) { return ref::Iota(call); }
Status kernel::Pad(const KernelCall& call) { return ref::Pad(call); }

}  // namespace kiln::ref

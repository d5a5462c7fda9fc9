// Verifier checks of the data-movement ops: broadcast, broadcast_in_dim,
// transpose, reshape, slice, concatenate, pad, reverse, iota,
// get_dimension_size and the dynamic_* shape ops.
#include <algorithm>
#include <set>

#include "compiler/verify/verify_util.h"
#include "compiler/op_names.h"
#include "kernels/common/kernel.h"

namespace kiln::compiler::verify {
namespace {

bool PerAxis(const ir::Type& t) { return t.quant && t.quant->quantized_dimension >= 0; }

// C1 of broadcast_in_dim/transpose/reshape: same element type, except that
// per-axis quantization parameters may differ.
std::string ElementPreserved(const ir::Operation& op, const ir::Type& in, const ir::Type& out, std::string_view c) {
  bool ok = PerAxis(in) ? (out.is_quantized() && in.element == out.element &&
                           in.quant->expressed == out.quant->expressed)
                        : SameElement(in, out);
  if (!ok)
    return Msg(op, "operand type " + TypeStr(in) + " and result type " + TypeStr(out) +
                       " must have the same element type", c);
  return "";
}

std::string BroadcastInDim(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(OneToOne(op));
  const ir::Type& in = op.operands[0]->type;
  const ir::Type& rt = op.result()->type;
  KILN_VERIFY_TRY(ElementPreserved(op, in, rt, "C1"));
  auto dims = Ints(op, "broadcast_dimensions");
  if (!dims) return Msg(op, "needs a broadcast_dimensions attribute");
  KILN_VERIFY_TRY(CheckSize(op, *dims, in.rank(), "broadcast_dimensions", "C2", "the operand rank"));
  KILN_VERIFY_TRY(CheckRange(op, *dims, rt.rank(), "broadcast_dimensions", "C3"));
  KILN_VERIFY_TRY(CheckUnique(op, *dims, "broadcast_dimensions", "C4"));
  for (int64_t d = 0; d < in.rank(); ++d) {
    int64_t od = in.dims[d], rd = rt.dims[(*dims)[d]];
    if (od != 1 && !DimsCompatible(od, rd))
      return Msg(op, "operand dimension " + Num(d) + " of size " + DimStr(od) + " cannot broadcast to result dimension " +
                         Num((*dims)[d]) + " of size " + DimStr(rd) + " (" + TypeStr(in) + " -> " + TypeStr(rt) + ")",
                 "C5");
  }
  return "";
}

// The deprecated broadcast (still in VHLO; XLA's Broadcast): new leading
// dimensions of sizes `broadcast_sizes`, then the operand's dimensions.
// compiler/passes/legalize_deprecated.cc rewrites it to broadcast_in_dim.
std::string Broadcast(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(OneToOne(op));
  const ir::Type& in = op.operands[0]->type;
  const ir::Type& rt = op.result()->type;
  KILN_VERIFY_TRY(ElementPreserved(op, in, rt, "C1"));
  auto sizes = Ints(op, "broadcast_sizes");
  if (!sizes) return Msg(op, "needs a broadcast_sizes attribute");
  const int64_t added = static_cast<int64_t>(sizes->size());
  if (PerAxis(in) && (!PerAxis(rt) || rt.quant->quantized_dimension != in.quant->quantized_dimension + added))
    return Msg(op, "the result's quantized dimension must be the operand's moved by the " + Num(added) +
                       " new leading dimensions");
  for (int64_t s : *sizes)
    if (s < 0) return Msg(op, "broadcast_sizes must be non-negative, got " + Num(s));
  std::vector<int64_t> expected = *sizes;
  expected.insert(expected.end(), in.dims.begin(), in.dims.end());
  bool ok = static_cast<int64_t>(expected.size()) == rt.rank();
  for (size_t i = 0; ok && i < expected.size(); ++i) ok = DimsCompatible(expected[i], rt.dims[i]);
  if (!ok)
    return Msg(op, "result type " + TypeStr(rt) + " must have the dimensions broadcast_sizes followed by the operand's (" +
                       TypeStr(in) + ")");
  return "";
}

std::string DynamicBroadcastInDim(const ir::Operation& op, const Context& ctx) {
  KILN_VERIFY_TRY(BroadcastInDim(op, ctx));
  const ir::Type& rt = op.result()->type;
  if (op.operands.size() >= 2) {
    const ir::Type& os = op.operands[1]->type;
    if (os.rank() == 1 && os.dims[0] != kDyn && os.dims[0] != rt.rank())
      return Msg(op, "output_dimensions " + TypeStr(os) + " must have " + Num(rt.rank()) + " elements", "C7");
  }
  std::vector<int64_t> all;
  for (const char* n : {"known_expanding_dimensions", "known_nonexpanding_dimensions"}) {
    if (auto v = Ints(op, n)) {
      KILN_VERIFY_TRY(CheckRange(op, *v, op.operands[0]->type.rank(), n,
                                 std::string_view(n) == "known_expanding_dimensions" ? "C9" : "C10"));
      all.insert(all.end(), v->begin(), v->end());
    }
  }
  return CheckUnique(op, all, "known_expanding_dimensions + known_nonexpanding_dimensions", "C8");
}

std::string Transpose(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(OneToOne(op));
  const ir::Type& in = op.operands[0]->type;
  const ir::Type& rt = op.result()->type;
  KILN_VERIFY_TRY(ElementPreserved(op, in, rt, "C1"));
  auto perm = Ints(op, "permutation");
  if (!perm) return Msg(op, "needs a permutation attribute");
  std::vector<int64_t> sorted = *perm;
  std::sort(sorted.begin(), sorted.end());
  bool is_perm = static_cast<int64_t>(sorted.size()) == in.rank();
  for (size_t i = 0; is_perm && i < sorted.size(); ++i) is_perm = sorted[i] == static_cast<int64_t>(i);
  if (!is_perm)
    return Msg(op, "permutation " + IntsStr(*perm) + " is not a permutation of [0, " + Num(in.rank()) + ")", "C2");
  std::vector<int64_t> shape;
  for (int64_t p : *perm) shape.push_back(in.dims[p]);
  return CheckResultShape(op, rt, shape, "C3");
}

std::string Reshape(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(OneToOne(op));
  const ir::Type& in = op.operands[0]->type;
  const ir::Type& rt = op.result()->type;
  KILN_VERIFY_TRY(ElementPreserved(op, in, rt, "C1"));
  int64_t a = in.NumElements(), r = rt.NumElements();
  if (a >= 0 && r >= 0 && a != r)
    return Msg(op, "operand " + TypeStr(in) + " has " + Num(a) + " elements, but result " + TypeStr(rt) + " has " +
                       Num(r), "C2");
  if (op_names::IsKernelOp(op.name, KernelId::kDynamicReshape) && op.operands.size() == 2) {
    const ir::Type& os = op.operands[1]->type;
    if (os.rank() == 1 && os.dims[0] != kDyn && os.dims[0] != rt.rank())
      return Msg(op, "output_shape " + TypeStr(os) + " must have " + Num(rt.rank()) + " elements", "C4");
  }
  return "";
}

std::string Slice(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(OneToOne(op));
  const ir::Type& in = op.operands[0]->type;
  const ir::Type& rt = op.result()->type;
  if (!SameElement(in, rt))
    return Msg(op, "operand type " + TypeStr(in) + " and result type " + TypeStr(rt) +
                       " must have the same element type", "C1");
  auto start = Ints(op, "start_indices"), limit = Ints(op, "limit_indices"), strides = Ints(op, "strides");
  if (!start || !limit || !strides) return Msg(op, "needs start_indices, limit_indices and strides");
  KILN_VERIFY_TRY(CheckSize(op, *start, in.rank(), "start_indices", "C2", "the operand rank"));
  KILN_VERIFY_TRY(CheckSize(op, *limit, in.rank(), "limit_indices", "C2", "the operand rank"));
  KILN_VERIFY_TRY(CheckSize(op, *strides, in.rank(), "strides", "C2", "the operand rank"));
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < in.rank(); ++d) {
    int64_t s = (*start)[d], l = (*limit)[d], st = (*strides)[d], n = in.dims[d];
    if (s < 0 || s > l || (n != kDyn && l > n))
      return Msg(op, "dimension " + Num(d) + ": need 0 <= start " + Num(s) + " <= limit " + Num(l) +
                         " <= size " + DimStr(n), "C3");
    if (st <= 0) return Msg(op, "strides " + IntsStr(*strides) + " must be positive", "C4");
    shape.push_back(SliceExtent(s, l, st));
  }
  return CheckResultShape(op, rt, shape, "C5");
}

std::string Concatenate(const ir::Operation& op, const Context&) {
  if (op.operands.empty()) return Msg(op, "needs at least one input", "C3");
  KILN_VERIFY_TRY(OneToOne(op));
  const ir::Type& in0 = op.operands[0]->type;
  const ir::Type& rt = op.result()->type;
  auto dim = Int(op, "dimension");
  if (!dim) return Msg(op, "needs a dimension attribute");
  if (*dim < 0 || *dim >= in0.rank())
    return Msg(op, "dimension " + Num(*dim) + " is out of range [0, " + Num(in0.rank()) + ")", "C4");
  std::vector<int64_t> shape = in0.dims;
  shape[*dim] = 0;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const ir::Type& t = op.operands[i]->type;
    if (!SameBaselineElement(t, in0))
      return Msg(op, "input " + Num(i) + " type " + TypeStr(t) + " and input 0 type " + TypeStr(in0) +
                         " must have the same element type", "C1");
    bool ok = t.rank() == in0.rank();
    for (int64_t d = 0; ok && d < t.rank(); ++d)
      if (d != *dim && !DimsCompatible(t.dims[d], in0.dims[d])) ok = false;
    if (!ok)
      return Msg(op, "input " + Num(i) + " type " + TypeStr(t) + " and input 0 type " + TypeStr(in0) +
                         " must have the same shape except in dimension " + Num(*dim), "C2");
    int64_t n = t.dims[*dim];
    shape[*dim] = (shape[*dim] == kDyn || n == kDyn) ? kDyn : shape[*dim] + n;
    for (int64_t d = 0; d < t.rank(); ++d)
      if (d != *dim && shape[d] == kDyn) shape[d] = t.dims[d];
  }
  if (!SameBaselineElement(rt, in0))
    return Msg(op, "result type " + TypeStr(rt) + " must have the element type of input 0 " + TypeStr(in0), "C5");
  return CheckResultShape(op, rt, shape, "C6");
}

std::string Pad(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(OneToOne(op));
  if (op.operands.size() < 2) return Msg(op, "expects an operand and a padding_value");
  const ir::Type& in = op.operands[0]->type;
  const ir::Type& pv = op.operands[1]->type;
  const ir::Type& rt = op.result()->type;
  if (!SameBaselineElement(in, pv) || !SameBaselineElement(in, rt))
    return Msg(op, "operand " + TypeStr(in) + ", padding_value " + TypeStr(pv) + " and result " + TypeStr(rt) +
                       " must have the same element type", "C1");
  if (pv.rank() != 0 && op_names::IsKernelOp(op.name, KernelId::kPad))
    return Msg(op, "padding_value type " + TypeStr(pv) + " must be rank 0");
  if (!op_names::IsKernelOp(op.name, KernelId::kPad)) return "";  // dynamic_pad: the paddings are operands
  auto lo = Ints(op, "edge_padding_low"), hi = Ints(op, "edge_padding_high"), in_pad = Ints(op, "interior_padding");
  if (!lo || !hi || !in_pad) return Msg(op, "needs edge_padding_low, edge_padding_high and interior_padding");
  KILN_VERIFY_TRY(CheckSize(op, *lo, in.rank(), "edge_padding_low", "C2", "the operand rank"));
  KILN_VERIFY_TRY(CheckSize(op, *hi, in.rank(), "edge_padding_high", "C2", "the operand rank"));
  KILN_VERIFY_TRY(CheckSize(op, *in_pad, in.rank(), "interior_padding", "C2", "the operand rank"));
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if ((*in_pad)[d] < 0) return Msg(op, "interior_padding " + IntsStr(*in_pad) + " must be non-negative", "C3");
    int64_t n = in.dims[d];
    if (n == kDyn) {
      shape.push_back(kDyn);
      continue;
    }
    int64_t r = n + (*lo)[d] + (*hi)[d] + std::max<int64_t>(n - 1, 0) * (*in_pad)[d];
    if (r < 0)
      return Msg(op, "dimension " + Num(d) + " of size " + Num(n) + " padded to negative size " + Num(r), "C4");
    shape.push_back(r);
  }
  return CheckResultShape(op, rt, shape, "C4");
}

std::string Reverse(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(OneToOne(op));
  const ir::Type& in = op.operands[0]->type;
  const ir::Type& rt = op.result()->type;
  if (!TypesCompatible(in, rt))
    return Msg(op, "operand type " + TypeStr(in) + " and result type " + TypeStr(rt) + " must be the same", "C1");
  auto dims = Ints(op, "dimensions");
  if (!dims) return Msg(op, "needs a dimensions attribute");
  KILN_VERIFY_TRY(CheckUnique(op, *dims, "dimensions", "C2"));
  return CheckRange(op, *dims, rt.rank(), "dimensions", "C3");
}

std::string Iota(const ir::Operation& op, const Context&) {
  if (op.results.size() != 1 || !op.result()->type.is_tensor()) return Msg(op, "expects one tensor result");
  const ir::Type& rt = op.result()->type;
  auto d = Int(op, "iota_dimension");
  if (!d) return Msg(op, "needs an iota_dimension attribute");
  if (*d < 0 || *d >= rt.rank())
    return Msg(op, "iota_dimension " + Num(*d) + " is out of range [0, " + Num(rt.rank()) + ") of result type " +
                       TypeStr(rt), "C1");
  if (op_names::IsKernelOp(op.name, KernelId::kDynamicIota) && !op.operands.empty()) {
    const ir::Type& os = op.operands[0]->type;
    if (os.rank() == 1 && os.dims[0] != kDyn && os.dims[0] != rt.rank())
      return Msg(op, "output_shape " + TypeStr(os) + " must have " + Num(rt.rank()) + " elements", "C2");
  }
  return "";
}

std::string GetDimensionSize(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(OneToOne(op));
  const ir::Type& in = op.operands[0]->type;
  auto d = Int(op, "dimension");
  if (!d) return Msg(op, "needs a dimension attribute");
  if (*d < 0 || *d >= in.rank())
    return Msg(op, "dimension " + Num(*d) + " is out of range [0, " + Num(in.rank()) + ") of operand type " +
                   TypeStr(in), "C1");
  const ir::Type& rt = op.result()->type;
  if (rt.rank() != 0 || rt.element != ElementType::kSI32)
    return Msg(op, "result type " + TypeStr(rt) + " must be tensor<i32>");
  return "";
}

}  // namespace

void RegisterDataMovement(Registry* r) {
  (*r)["stablehlo.broadcast"] = &Broadcast;
  (*r)["stablehlo.broadcast_in_dim"] = &BroadcastInDim;
  (*r)["stablehlo.dynamic_broadcast_in_dim"] = &DynamicBroadcastInDim;
  (*r)["stablehlo.transpose"] = &Transpose;
  (*r)["stablehlo.reshape"] = &Reshape;
  (*r)["stablehlo.dynamic_reshape"] = &Reshape;
  (*r)["stablehlo.slice"] = &Slice;
  (*r)["stablehlo.concatenate"] = &Concatenate;
  (*r)["stablehlo.pad"] = &Pad;
  (*r)["stablehlo.dynamic_pad"] = &Pad;
  (*r)["stablehlo.reverse"] = &Reverse;
  (*r)["stablehlo.iota"] = &Iota;
  (*r)["stablehlo.dynamic_iota"] = &Iota;
  (*r)["stablehlo.get_dimension_size"] = &GetDimensionSize;
}

}  // namespace kiln::compiler::verify

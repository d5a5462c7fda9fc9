// Verifier checks of the contractions: dot_general, dot, convolution.
#include <algorithm>

#include "compiler/verify/verify_util.h"

namespace kiln::compiler::verify {
namespace {

std::vector<int64_t> Or(std::optional<std::vector<int64_t>> v) { return v ? *v : std::vector<int64_t>{}; }
bool Contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }
std::vector<int64_t> Cat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Number of elements of an array-like attribute, or -1 when absent.
int64_t AttrSize(const ir::Operation& op, std::string_view name) {
  const ir::Attribute* a = op.GetAttr(name);
  if (!a) return -1;
  switch (a->kind) {
    case ir::Attribute::Kind::kArray: return static_cast<int64_t>(a->elements.size());
    case ir::Attribute::Kind::kIntArray: return static_cast<int64_t>(a->ints.size());
    case ir::Attribute::Kind::kDense: return a->type.NumElements();
    default: return 1;
  }
}

std::string Binary(const ir::Operation& op) {
  if (op.operands.size() != 2 || op.results.size() != 1 || !AllTensors(op))
    return Msg(op, "expects lhs and rhs tensors and one tensor result");
  return "";
}

std::string QuantizedOperands(const ir::Operation& op, std::string_view c_quant, std::string_view c_storage,
                              std::string_view c_plain) {
  const ir::Type& l = op.operands[0]->type;
  const ir::Type& r = op.operands[1]->type;
  const ir::Type& rt = op.result()->type;
  if (!l.is_quantized() && !r.is_quantized() && !rt.is_quantized()) return "";
  if (l.is_quantized() && (!rt.is_quantized() || !r.is_quantized()))
    return Msg(op, "with quantized lhs " + TypeStr(l) + ", rhs " + TypeStr(r) + " and result " + TypeStr(rt) +
                       " must be quantized", c_quant);
  if (l.is_quantized() && l.element != r.element)
    return Msg(op, "lhs " + TypeStr(l) + " and rhs " + TypeStr(r) + " must have the same storage type", c_storage);
  if (!l.is_quantized() && r.is_quantized() && (r.quant->expressed != l.element || rt.element != l.element))
    return Msg(op, "lhs " + TypeStr(l) + ", the expressed type of rhs " + TypeStr(r) + " and result " + TypeStr(rt) +
                       " must have the same element type", c_plain);
  return "";
}

std::string DotGeneral(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(Binary(op));
  const ir::Type& l = op.operands[0]->type;
  const ir::Type& r = op.operands[1]->type;
  const ir::Type& rt = op.result()->type;
  auto lb = Or(Ints(op, "lhs_batching_dimensions")), rb = Or(Ints(op, "rhs_batching_dimensions"));
  auto lc = Or(Ints(op, "lhs_contracting_dimensions")), rc = Or(Ints(op, "rhs_contracting_dimensions"));
  if (lb.size() != rb.size())
    return Msg(op, "lhs_batching_dimensions " + IntsStr(lb) + " and rhs_batching_dimensions " + IntsStr(rb) +
                       " must have the same size", "C1");
  if (lc.size() != rc.size())
    return Msg(op, "lhs_contracting_dimensions " + IntsStr(lc) + " and rhs_contracting_dimensions " + IntsStr(rc) +
                       " must have the same size", "C2");
  KILN_VERIFY_TRY(CheckUnique(op, Cat(lb, lc), "lhs_batching_dimensions + lhs_contracting_dimensions", "C3"));
  KILN_VERIFY_TRY(CheckUnique(op, Cat(rb, rc), "rhs_batching_dimensions + rhs_contracting_dimensions", "C4"));
  KILN_VERIFY_TRY(CheckRange(op, lb, l.rank(), "lhs_batching_dimensions", "C5"));
  KILN_VERIFY_TRY(CheckRange(op, lc, l.rank(), "lhs_contracting_dimensions", "C6"));
  KILN_VERIFY_TRY(CheckRange(op, rb, r.rank(), "rhs_batching_dimensions", "C7"));
  KILN_VERIFY_TRY(CheckRange(op, rc, r.rank(), "rhs_contracting_dimensions", "C8"));
  for (size_t i = 0; i < lb.size(); ++i)
    if (!DimsCompatible(l.dims[lb[i]], r.dims[rb[i]]))
      return Msg(op, "batching dimension sizes differ: lhs dimension " + Num(lb[i]) + " is " + DimStr(l.dims[lb[i]]) +
                         ", rhs dimension " + Num(rb[i]) + " is " + DimStr(r.dims[rb[i]]), "C9");
  for (size_t i = 0; i < lc.size(); ++i)
    if (!DimsCompatible(l.dims[lc[i]], r.dims[rc[i]]))
      return Msg(op, "contracting dimension sizes differ: lhs dimension " + Num(lc[i]) + " is " +
                         DimStr(l.dims[lc[i]]) + ", rhs dimension " + Num(rc[i]) + " is " + DimStr(r.dims[rc[i]]),
                 "C10");
  int64_t pc = AttrSize(op, "precision_config");
  if (pc > 2) return Msg(op, "precision_config has " + Num(pc) + " elements, expected 2", "C11");
  std::vector<int64_t> shape;
  for (int64_t d : lb) shape.push_back(l.dims[d]);
  for (int64_t d = 0; d < l.rank(); ++d)
    if (!Contains(lb, d) && !Contains(lc, d)) shape.push_back(l.dims[d]);
  for (int64_t d = 0; d < r.rank(); ++d)
    if (!Contains(rb, d) && !Contains(rc, d)) shape.push_back(r.dims[d]);
  KILN_VERIFY_TRY(CheckResultShape(op, rt, shape, "C12"));
  if (!l.is_quantized() && !r.is_quantized() && l.element != r.element)
    return Msg(op, "lhs " + TypeStr(l) + " and rhs " + TypeStr(r) + " must have the same element type", "C13");
  if (r.is_quantized()) {
    for (int64_t z : r.quant->zero_points)
      if (z != 0) return Msg(op, "rhs " + TypeStr(r) + " must have zero points 0", "C15");
    if (r.quant->quantized_dimension >= 0 && Contains(rc, r.quant->quantized_dimension))
      return Msg(op, "rhs quantization dimension " + Num(r.quant->quantized_dimension) +
                         " must not be a contracting dimension", "C16");
  }
  return QuantizedOperands(op, "C14", "C17", "C20");
}

std::string Dot(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(Binary(op));
  const ir::Type& l = op.operands[0]->type;
  const ir::Type& r = op.operands[1]->type;
  const ir::Type& rt = op.result()->type;
  if (l.rank() < 1 || l.rank() > 2 || r.rank() < 1 || r.rank() > 2)
    return Msg(op, "lhs " + TypeStr(l) + " and rhs " + TypeStr(r) + " must have rank 1 or 2");
  if (!DimsCompatible(l.dims.back(), r.dims[0]))
    return Msg(op, "contracting dimension sizes differ: lhs " + TypeStr(l) + ", rhs " + TypeStr(r));
  if (!l.is_quantized() && !r.is_quantized() && l.element != r.element)
    return Msg(op, "lhs " + TypeStr(l) + " and rhs " + TypeStr(r) + " must have the same element type");
  std::vector<int64_t> shape;
  if (l.rank() == 2) shape.push_back(l.dims[0]);
  if (r.rank() == 2) shape.push_back(r.dims[1]);
  return CheckResultShape(op, rt, shape, "");
}

std::string Convolution(const ir::Operation& op, const Context&) {
  if (op.operands.size() < 2 || op.results.size() != 1 || !AllTensors(op))
    return Msg(op, "expects lhs and rhs tensors and one tensor result");
  const ir::Type& l = op.operands[0]->type;
  const ir::Type& r = op.operands[1]->type;
  const ir::Type& rt = op.result()->type;
  int64_t n = l.rank();
  if (r.rank() != n) return Msg(op, "lhs " + TypeStr(l) + " and rhs " + TypeStr(r) + " must have the same rank", "C1");
  if (n < 2) return Msg(op, "lhs " + TypeStr(l) + " must have rank at least 2", "C1");
  int64_t s = n - 2;
  auto ones = std::vector<int64_t>(s, 1);
  auto strides = Ints(op, "window_strides").value_or(ones);
  KILN_VERIFY_TRY(CheckSize(op, strides, s, "window_strides", "C2", "the number of spatial dimensions"));
  for (int64_t v : strides)
    if (v <= 0) return Msg(op, "window_strides " + IntsStr(strides) + " must be positive", "C3");
  std::vector<int64_t> pad(2 * s, 0);
  if (op.GetAttr("padding")) {
    auto m = Matrix2D(op, "padding");
    bool empty_ok = m && m->v.empty() && s == 0;
    if (!empty_ok && (!m || m->rows != s || m->cols != 2)) {
      auto flat = Ints(op, "padding");
      if (!(flat && flat->empty() && s == 0))
        return Msg(op, "padding must have shape [" + Num(s) + ", 2]" +
                           (m ? ", got [" + Num(m->rows) + ", " + Num(m->cols) + "]" : std::string()), "C4");
    }
    if (m && !empty_ok && m->rows == s) pad = m->v;
  }
  auto lhs_dil = Ints(op, "lhs_dilation").value_or(ones);
  KILN_VERIFY_TRY(CheckSize(op, lhs_dil, s, "lhs_dilation", "C5", "the number of spatial dimensions"));
  for (int64_t v : lhs_dil)
    if (v <= 0) return Msg(op, "lhs_dilation " + IntsStr(lhs_dil) + " must be positive", "C6");
  auto rhs_dil = Ints(op, "rhs_dilation").value_or(ones);
  KILN_VERIFY_TRY(CheckSize(op, rhs_dil, s, "rhs_dilation", "C7", "the number of spatial dimensions"));
  for (int64_t v : rhs_dil)
    if (v <= 0) return Msg(op, "rhs_dilation " + IntsStr(rhs_dil) + " must be positive", "C8");
  int64_t wr = AttrSize(op, "window_reversal");
  if (wr >= 0 && wr != s)
    return Msg(op, "window_reversal has " + Num(wr) + " elements, expected " + Num(s), "C9");
  auto ib = Int(op, "input_batch_dimension"), iff = Int(op, "input_feature_dimension");
  auto is = Ints(op, "input_spatial_dimensions");
  auto kif = Int(op, "kernel_input_feature_dimension"), kof = Int(op, "kernel_output_feature_dimension");
  auto ks = Ints(op, "kernel_spatial_dimensions");
  auto ob = Int(op, "output_batch_dimension"), of = Int(op, "output_feature_dimension");
  auto os = Ints(op, "output_spatial_dimensions");
  if (!ib || !iff || !is || !kif || !kof || !ks || !ob || !of || !os)
    return Msg(op, "needs dimension_numbers with every input, kernel and output dimension");
  int64_t fgc = Int(op, "feature_group_count").value_or(1), bgc = Int(op, "batch_group_count").value_or(1);
  if (fgc <= 0) return Msg(op, "feature_group_count " + Num(fgc) + " must be positive", "C21");
  if (bgc <= 0) return Msg(op, "batch_group_count " + Num(bgc) + " must be positive", "C22");
  if (fgc != 1 && bgc != 1)
    return Msg(op, "feature_group_count " + Num(fgc) + " and batch_group_count " + Num(bgc) +
                       " cannot both be greater than 1", "C23");
  KILN_VERIFY_TRY(CheckSize(op, *is, s, "input_spatial_dimensions", "C12", "the number of spatial dimensions"));
  std::vector<int64_t> in_dims = Cat(Cat({*ib}, *is), {*iff});
  KILN_VERIFY_TRY(CheckUnique(op, in_dims, "input dimensions", "C13"));
  KILN_VERIFY_TRY(CheckRange(op, in_dims, n, "input dimensions", "C13"));
  KILN_VERIFY_TRY(CheckSize(op, *ks, s, "kernel_spatial_dimensions", "C17", "the number of spatial dimensions"));
  std::vector<int64_t> k_dims = Cat(*ks, {*kif, *kof});
  KILN_VERIFY_TRY(CheckUnique(op, k_dims, "kernel dimensions", "C18"));
  KILN_VERIFY_TRY(CheckRange(op, k_dims, n, "kernel dimensions", "C18"));
  KILN_VERIFY_TRY(CheckSize(op, *os, s, "output_spatial_dimensions", "C19", "the number of spatial dimensions"));
  std::vector<int64_t> o_dims = Cat(Cat({*ob}, *os), {*of});
  KILN_VERIFY_TRY(CheckUnique(op, o_dims, "output dimensions", "C20"));
  KILN_VERIFY_TRY(CheckRange(op, o_dims, n, "output dimensions", "C20"));
  int64_t lb = l.dims[*ib], lf = l.dims[*iff], rif = r.dims[*kif], rof = r.dims[*kof];
  if (lb != kDyn && lb % bgc != 0)
    return Msg(op, "input batch dimension size " + Num(lb) + " is not divisible by batch_group_count " + Num(bgc),
               "C10");
  if (lf != kDyn && lf % fgc != 0)
    return Msg(op, "input feature dimension size " + Num(lf) + " is not divisible by feature_group_count " + Num(fgc),
               "C11");
  if (lf != kDyn && rif != kDyn && rif != lf / fgc)
    return Msg(op, "kernel input feature dimension size " + Num(rif) + " must be " + Num(lf / fgc) +
                       " (input features / feature_group_count)", "C14");
  if (rof != kDyn && rof % bgc != 0)
    return Msg(op, "kernel output feature dimension size " + Num(rof) + " is not divisible by batch_group_count " +
                       Num(bgc), "C15");
  if (rof != kDyn && rof % fgc != 0)
    return Msg(op, "kernel output feature dimension size " + Num(rof) + " is not divisible by feature_group_count " +
                       Num(fgc), "C16");
  int64_t pc = AttrSize(op, "precision_config");
  if (pc > 2) return Msg(op, "precision_config has " + Num(pc) + " elements, expected 2", "C24");
  if (rt.rank() != n) return Msg(op, "result type " + TypeStr(rt) + " must have rank " + Num(n), "C26");
  std::vector<int64_t> shape(n, kDyn);
  shape[*ob] = lb == kDyn ? kDyn : lb / bgc;
  shape[*of] = rof;
  for (int64_t i = 0; i < s; ++i) {
    int64_t in = l.dims[(*is)[i]], k = r.dims[(*ks)[i]];
    if (in == kDyn || k == kDyn) continue;
    int64_t dil_in = in == 0 ? 0 : (in - 1) * lhs_dil[i] + 1;
    int64_t padded = pad[2 * i] + dil_in + pad[2 * i + 1];
    int64_t dil_k = k == 0 ? 0 : (k - 1) * rhs_dil[i] + 1;
    bool empty = padded <= 0 || dil_k > padded;
    shape[(*os)[i]] = empty ? 0 : (padded - dil_k) / strides[i] + 1;
  }
  KILN_VERIFY_TRY(CheckResultShape(op, rt, shape, "C25"));
  // The result may widen (i8 x i8 -> i32), as dot_general's may.
  if (!l.is_quantized() && !r.is_quantized() && !rt.is_quantized() && l.element != r.element)
    return Msg(op, "lhs " + TypeStr(l) + " and rhs " + TypeStr(r) + " must have the same element type", "C27");
  if (r.is_quantized() && r.quant->quantized_dimension >= 0 && r.quant->quantized_dimension != *kof)
    return Msg(op, "rhs quantization dimension " + Num(r.quant->quantized_dimension) +
                       " must be the kernel output feature dimension " + Num(*kof), "C29");
  if (rt.is_quantized() && rt.quant->quantized_dimension >= 0 && rt.quant->quantized_dimension != *of)
    return Msg(op, "result quantization dimension " + Num(rt.quant->quantized_dimension) +
                       " must be the output feature dimension " + Num(*of), "C30");
  return QuantizedOperands(op, "C28", "C31", "C34");
}

}  // namespace

void RegisterContraction(Registry* r) {
  (*r)["stablehlo.dot_general"] = &DotGeneral;
  (*r)["stablehlo.dot"] = &Dot;
  (*r)["stablehlo.convolution"] = &Convolution;
}

}  // namespace kiln::compiler::verify

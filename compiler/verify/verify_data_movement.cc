// Verifier checks of the data-movement ops: broadcast, broadcast_in_dim, transpose,
// reshape, slice, concatenate, pad, reverse, iota, dynamic_slice,
// dynamic_update_slice, gather, scatter, sort, get_dimension_size and the
// dynamic_* shape ops.
#include <algorithm>
#include <set>

#include "compiler/verify/verify_util.h"

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

std::string OneToOne(const ir::Operation& op) {
  if (op.operands.empty() || op.results.size() != 1 || !AllTensors(op))
    return Msg(op, "expects tensor operands and one tensor result");
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
  if (op.name == "stablehlo.dynamic_reshape" && op.operands.size() == 2) {
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
    shape.push_back((l - s + st - 1) / st);
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
  if (pv.rank() != 0 && op.name == "stablehlo.pad")
    return Msg(op, "padding_value type " + TypeStr(pv) + " must be rank 0");
  if (op.name != "stablehlo.pad") return "";  // dynamic_pad: the paddings are operands
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
  if (op.name == "stablehlo.dynamic_iota" && !op.operands.empty()) {
    const ir::Type& os = op.operands[0]->type;
    if (os.rank() == 1 && os.dims[0] != kDyn && os.dims[0] != rt.rank())
      return Msg(op, "output_shape " + TypeStr(os) + " must have " + Num(rt.rank()) + " elements", "C2");
  }
  return "";
}

std::string CheckIndexScalars(const ir::Operation& op, size_t first, std::string_view c) {
  for (size_t i = first; i < op.operands.size(); ++i) {
    const ir::Type& t = op.operands[i]->type;
    if (t.rank() != 0 || !IsInteger(t.element))
      return Msg(op, "start index " + Num(i - first) + " type " + TypeStr(t) + " must be a rank-0 integer tensor");
    if (!TypesCompatible(t, op.operands[first]->type))
      return Msg(op, "start indices must have the same type, got " + TypeStr(op.operands[first]->type) + " and " +
                         TypeStr(t), c);
  }
  return "";
}

std::string DynamicSlice(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(OneToOne(op));
  const ir::Type& in = op.operands[0]->type;
  const ir::Type& rt = op.result()->type;
  if (!SameElement(in, rt))
    return Msg(op, "operand type " + TypeStr(in) + " and result type " + TypeStr(rt) +
                       " must have the same element type", "C1");
  auto sizes = Ints(op, "slice_sizes");
  if (!sizes) return Msg(op, "needs a slice_sizes attribute");
  int64_t n_idx = static_cast<int64_t>(op.operands.size()) - 1;
  if (n_idx != in.rank())
    return Msg(op, "has " + Num(n_idx) + " start indices, expected " + Num(in.rank()) + " (the operand rank)", "C2");
  KILN_VERIFY_TRY(CheckSize(op, *sizes, in.rank(), "slice_sizes", "C2", "the operand rank"));
  KILN_VERIFY_TRY(CheckIndexScalars(op, 1, "C3"));
  for (int64_t d = 0; d < in.rank(); ++d)
    if ((*sizes)[d] < 0 || (in.dims[d] != kDyn && (*sizes)[d] > in.dims[d]))
      return Msg(op, "slice_sizes " + IntsStr(*sizes) + " must be within the operand shape " + ShapeStr(in.dims),
                 "C4");
  return CheckResultShape(op, rt, *sizes, "C5");
}

std::string DynamicUpdateSlice(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(OneToOne(op));
  if (op.operands.size() < 2) return Msg(op, "expects an operand and an update");
  const ir::Type& in = op.operands[0]->type;
  const ir::Type& up = op.operands[1]->type;
  const ir::Type& rt = op.result()->type;
  if (!TypesCompatible(in, rt))
    return Msg(op, "operand type " + TypeStr(in) + " and result type " + TypeStr(rt) + " must be the same", "C1");
  if (!SameElement(up, in))
    return Msg(op, "update type " + TypeStr(up) + " and operand type " + TypeStr(in) +
                       " must have the same element type", "C2");
  if (up.rank() != in.rank())
    return Msg(op, "update type " + TypeStr(up) + " and operand type " + TypeStr(in) + " must have the same rank",
               "C3");
  int64_t n_idx = static_cast<int64_t>(op.operands.size()) - 2;
  if (n_idx != in.rank())
    return Msg(op, "has " + Num(n_idx) + " start indices, expected " + Num(in.rank()) + " (the operand rank)", "C4");
  KILN_VERIFY_TRY(CheckIndexScalars(op, 2, "C5"));
  for (int64_t d = 0; d < in.rank(); ++d)
    if (up.dims[d] != kDyn && in.dims[d] != kDyn && up.dims[d] > in.dims[d])
      return Msg(op, "update type " + TypeStr(up) + " does not fit in operand type " + TypeStr(in), "C6");
  return "";
}

std::vector<int64_t> Or(std::optional<std::vector<int64_t>> v) { return v ? *v : std::vector<int64_t>{}; }
bool Contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }
std::vector<int64_t> Cat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::string Gather(const ir::Operation& op, const Context&) {
  if (op.operands.size() < 2 || op.results.size() != 1 || !AllTensors(op))
    return Msg(op, "expects operand and start_indices tensors and one tensor result");
  const ir::Type& in = op.operands[0]->type;
  const ir::Type& idx = op.operands[1]->type;
  const ir::Type& rt = op.result()->type;
  bool dynamic = op.name == "stablehlo.dynamic_gather";
  auto offset_dims = Or(Ints(op, "offset_dims")), collapsed = Or(Ints(op, "collapsed_slice_dims"));
  auto operand_batching = Or(Ints(op, "operand_batching_dims"));
  auto idx_batching = Or(Ints(op, "start_indices_batching_dims"));
  auto start_index_map = Or(Ints(op, "start_index_map"));
  auto ivd_opt = Int(op, "index_vector_dim");
  int64_t ivd = ivd_opt ? *ivd_opt : idx.rank();
  std::optional<std::vector<int64_t>> sizes = Ints(op, "slice_sizes");
  int64_t n_offset = static_cast<int64_t>(offset_dims.size()), n_coll = static_cast<int64_t>(collapsed.size()),
          n_ob = static_cast<int64_t>(operand_batching.size());
  if (in.rank() != n_offset + n_coll + n_ob)
    return Msg(op, "operand rank " + Num(in.rank()) + " must equal size(offset_dims) + size(collapsed_slice_dims) + "
                   "size(operand_batching_dims) = " + Num(n_offset + n_coll + n_ob), "C1");
  if (ivd < 0 || ivd > idx.rank())
    return Msg(op, "index_vector_dim " + Num(ivd) + " is out of range [0, " + Num(idx.rank()) + "]", "C2");
  int64_t want_map = ivd < idx.rank() ? idx.dims[ivd] : 1;
  if (want_map != kDyn && static_cast<int64_t>(start_index_map.size()) != want_map)
    return Msg(op, "start_index_map " + IntsStr(start_index_map) + " must have " + Num(want_map) +
                   " elements (the index vector size)", "C3");
  KILN_VERIFY_TRY(CheckUnique(op, offset_dims, "offset_dims", "C4"));
  KILN_VERIFY_TRY(CheckSorted(op, offset_dims, "offset_dims", "C4"));
  KILN_VERIFY_TRY(CheckRange(op, offset_dims, rt.rank(), "offset_dims", "C5"));
  KILN_VERIFY_TRY(CheckUnique(op, Cat(collapsed, operand_batching), "collapsed_slice_dims + operand_batching_dims", "C6"));
  KILN_VERIFY_TRY(CheckSorted(op, collapsed, "collapsed_slice_dims", "C7"));
  KILN_VERIFY_TRY(CheckRange(op, collapsed, in.rank(), "collapsed_slice_dims", "C8"));
  KILN_VERIFY_TRY(CheckSorted(op, operand_batching, "operand_batching_dims", "C10"));
  KILN_VERIFY_TRY(CheckRange(op, operand_batching, in.rank(), "operand_batching_dims", "C11"));
  KILN_VERIFY_TRY(CheckUnique(op, idx_batching, "start_indices_batching_dims", "C13"));
  KILN_VERIFY_TRY(CheckRange(op, idx_batching, idx.rank(), "start_indices_batching_dims", "C14"));
  if (Contains(idx_batching, ivd))
    return Msg(op, "index_vector_dim " + Num(ivd) + " must not be in start_indices_batching_dims " +
                   IntsStr(idx_batching), "C15");
  if (idx_batching.size() != operand_batching.size())
    return Msg(op, "operand_batching_dims " + IntsStr(operand_batching) + " and start_indices_batching_dims " +
                   IntsStr(idx_batching) + " must have the same size", "C16");
  for (size_t i = 0; i < operand_batching.size(); ++i)
    if (!DimsCompatible(in.dims[operand_batching[i]], idx.dims[idx_batching[i]]))
      return Msg(op, "operand batching dimension " + Num(operand_batching[i]) + " of size " +
                     DimStr(in.dims[operand_batching[i]]) + " differs from start_indices dimension " +
                     Num(idx_batching[i]) + " of size " + DimStr(idx.dims[idx_batching[i]]), "C17");
  KILN_VERIFY_TRY(CheckUnique(op, Cat(start_index_map, operand_batching), "start_index_map + operand_batching_dims", "C18"));
  KILN_VERIFY_TRY(CheckRange(op, start_index_map, in.rank(), "start_index_map", "C19"));
  if (!SameElement(in, rt))
    return Msg(op, "operand type " + TypeStr(in) + " and result type " + TypeStr(rt) +
                   " must have the same element type", "C23");
  if (dynamic && !sizes) return "";  // slice_sizes is an operand
  if (!sizes) return Msg(op, "needs a slice_sizes attribute");
  KILN_VERIFY_TRY(CheckSize(op, *sizes, in.rank(), "slice_sizes", "C20", "the operand rank"));
  for (int64_t d = 0; d < in.rank(); ++d)
    if ((*sizes)[d] < 0 || (in.dims[d] != kDyn && (*sizes)[d] > in.dims[d]))
      return Msg(op, "slice_sizes " + IntsStr(*sizes) + " must be within the operand shape " + ShapeStr(in.dims),
                 "C21");
  for (int64_t d : collapsed)
    if ((*sizes)[d] > 1)
      return Msg(op, "slice_sizes[" + Num(d) + "] = " + Num((*sizes)[d]) + " of a collapsed dimension must be <= 1",
                 "C9");
  for (int64_t d : operand_batching)
    if ((*sizes)[d] > 1)
      return Msg(op, "slice_sizes[" + Num(d) + "] = " + Num((*sizes)[d]) + " of a batching dimension must be <= 1",
                 "C12");
  std::vector<int64_t> batch, offset;
  for (int64_t d = 0; d < idx.rank(); ++d)
    if (d != ivd) batch.push_back(idx.dims[d]);
  for (int64_t d = 0; d < in.rank(); ++d)
    if (!Contains(collapsed, d) && !Contains(operand_batching, d)) offset.push_back((*sizes)[d]);
  std::vector<int64_t> shape;
  size_t bi = 0, oi = 0;
  for (size_t r = 0; r < batch.size() + offset.size(); ++r) {
    if (Contains(offset_dims, static_cast<int64_t>(r))) shape.push_back(oi < offset.size() ? offset[oi++] : kDyn);
    else shape.push_back(bi < batch.size() ? batch[bi++] : kDyn);
  }
  return CheckResultShape(op, rt, shape, "C22");
}

std::string Scatter(const ir::Operation& op, const Context&) {
  size_t total = op.operands.size();
  if (total < 3 || total % 2 == 0 || !AllTensors(op))
    return Msg(op, "expects N inputs, scatter_indices and N updates (tensors), got " + Num(total) + " operands", "C5");
  size_t n = (total - 1) / 2;
  const ir::Type& in0 = op.operands[0]->type;
  const ir::Type& idx = op.operands[n]->type;
  const ir::Type& up0 = op.operands[n + 1]->type;
  for (size_t i = 1; i < n; ++i)
    if (!ShapesCompatible(op.operands[i]->type, in0))
      return Msg(op, "input " + Num(i) + " type " + TypeStr(op.operands[i]->type) + " must have the shape of input 0 " +
                     TypeStr(in0), "C1");
  for (size_t i = 1; i < n; ++i)
    if (!ShapesCompatible(op.operands[n + 1 + i]->type, up0))
      return Msg(op, "update " + Num(i) + " type " + TypeStr(op.operands[n + 1 + i]->type) +
                     " must have the shape of update 0 " + TypeStr(up0), "C3");
  for (size_t i = 0; i < n; ++i)
    if (!SameBaselineElement(op.operands[n + 1 + i]->type, op.operands[i]->type))
      return Msg(op, "update " + Num(i) + " type " + TypeStr(op.operands[n + 1 + i]->type) +
                     " must have the element type of input " + Num(i) + " " + TypeStr(op.operands[i]->type), "C6");
  auto uwd = Or(Ints(op, "update_window_dims")), iwd = Or(Ints(op, "inserted_window_dims"));
  auto ibd = Or(Ints(op, "input_batching_dims")), sibd = Or(Ints(op, "scatter_indices_batching_dims"));
  auto sdod = Or(Ints(op, "scatter_dims_to_operand_dims"));
  auto ivd_opt = Int(op, "index_vector_dim");
  int64_t ivd = ivd_opt ? *ivd_opt : idx.rank();
  int64_t sum = static_cast<int64_t>(uwd.size() + iwd.size() + ibd.size());
  if (in0.rank() != sum)
    return Msg(op, "input rank " + Num(in0.rank()) + " must equal size(update_window_dims) + "
                   "size(inserted_window_dims) + size(input_batching_dims) = " + Num(sum), "C2");
  KILN_VERIFY_TRY(CheckUnique(op, uwd, "update_window_dims", "C7"));
  KILN_VERIFY_TRY(CheckSorted(op, uwd, "update_window_dims", "C7"));
  KILN_VERIFY_TRY(CheckRange(op, uwd, up0.rank(), "update_window_dims", "C8"));
  KILN_VERIFY_TRY(CheckUnique(op, Cat(iwd, ibd), "inserted_window_dims + input_batching_dims", "C9"));
  KILN_VERIFY_TRY(CheckSorted(op, iwd, "inserted_window_dims", "C10"));
  KILN_VERIFY_TRY(CheckRange(op, iwd, in0.rank(), "inserted_window_dims", "C11"));
  KILN_VERIFY_TRY(CheckSorted(op, ibd, "input_batching_dims", "C12"));
  KILN_VERIFY_TRY(CheckRange(op, ibd, in0.rank(), "input_batching_dims", "C13"));
  KILN_VERIFY_TRY(CheckUnique(op, sibd, "scatter_indices_batching_dims", "C14"));
  KILN_VERIFY_TRY(CheckRange(op, sibd, idx.rank(), "scatter_indices_batching_dims", "C15"));
  if (Contains(sibd, ivd))
    return Msg(op, "index_vector_dim " + Num(ivd) + " must not be in scatter_indices_batching_dims " + IntsStr(sibd),
               "C16");
  if (ibd.size() != sibd.size())
    return Msg(op, "input_batching_dims " + IntsStr(ibd) + " and scatter_indices_batching_dims " + IntsStr(sibd) +
                   " must have the same size", "C17");
  for (size_t i = 0; i < ibd.size(); ++i)
    if (!DimsCompatible(in0.dims[ibd[i]], idx.dims[sibd[i]]))
      return Msg(op, "input batching dimension " + Num(ibd[i]) + " of size " + DimStr(in0.dims[ibd[i]]) +
                     " differs from scatter_indices dimension " + Num(sibd[i]) + " of size " +
                     DimStr(idx.dims[sibd[i]]), "C18");
  if (ivd < 0 || ivd > idx.rank())
    return Msg(op, "index_vector_dim " + Num(ivd) + " is out of range [0, " + Num(idx.rank()) + "]", "C22");
  int64_t want = ivd < idx.rank() ? idx.dims[ivd] : 1;
  if (want != kDyn && static_cast<int64_t>(sdod.size()) != want)
    return Msg(op, "scatter_dims_to_operand_dims " + IntsStr(sdod) + " must have " + Num(want) +
                   " elements (the index vector size)", "C19");
  KILN_VERIFY_TRY(CheckUnique(op, Cat(sdod, ibd), "scatter_dims_to_operand_dims + input_batching_dims", "C20"));
  KILN_VERIFY_TRY(CheckRange(op, sdod, in0.rank(), "scatter_dims_to_operand_dims", "C21"));
  // C4: the updates' shape.
  std::vector<int64_t> scatter_sizes, window_bounds;
  for (int64_t d = 0; d < idx.rank(); ++d)
    if (d != ivd) scatter_sizes.push_back(idx.dims[d]);
  for (int64_t d = 0; d < in0.rank(); ++d)
    if (!Contains(iwd, d) && !Contains(ibd, d)) window_bounds.push_back(in0.dims[d]);
  if (up0.rank() != static_cast<int64_t>(scatter_sizes.size() + uwd.size()))
    return Msg(op, "updates type " + TypeStr(up0) + " must have rank " + Num(scatter_sizes.size() + uwd.size()) +
                   " (scatter dimensions plus update_window_dims)", "C4");
  size_t si = 0, wi = 0;
  for (int64_t d = 0; d < up0.rank(); ++d) {
    int64_t u = up0.dims[d];
    if (Contains(uwd, d)) {
      int64_t b = wi < window_bounds.size() ? window_bounds[wi] : kDyn;
      ++wi;
      if (u != kDyn && b != kDyn && u > b)
        return Msg(op, "updates dimension " + Num(d) + " of size " + Num(u) + " exceeds the input window size " +
                       Num(b), "C4");
    } else {
      int64_t s = si < scatter_sizes.size() ? scatter_sizes[si] : kDyn;
      ++si;
      if (!DimsCompatible(u, s))
        return Msg(op, "updates dimension " + Num(d) + " of size " + DimStr(u) +
                       " must match the scatter_indices dimension of size " + DimStr(s), "C4");
    }
  }
  if (op.results.size() != n)
    return Msg(op, "has " + Num(op.results.size()) + " results, expected " + Num(n), "C24");
  std::vector<const ir::Type*> inputs;
  for (size_t i = 0; i < n; ++i) inputs.push_back(&op.operands[i]->type);
  std::vector<ir::Type> e;
  if (!op.regions.empty())
    KILN_VERIFY_TRY(CheckReducerBody(op, *op.regions[0], "update_computation", inputs, "C23", &e));
  for (size_t i = 0; i < n; ++i) {
    const ir::Type& r = op.result(static_cast<int>(i))->type;
    if (!ShapesCompatible(r, *inputs[i]))
      return Msg(op, "result " + Num(i) + " type " + TypeStr(r) + " must have the shape of input " + Num(i) + " " +
                     TypeStr(*inputs[i]), "C24");
    if (i < e.size() && !SameBaselineElement(r, e[i]))
      return Msg(op, "result " + Num(i) + " type " + TypeStr(r) + " must have the element type of the "
                     "update_computation's result " + TypeStr(e[i]), "C25");
  }
  return "";
}

std::string Sort(const ir::Operation& op, const Context&) {
  if (op.operands.empty()) return Msg(op, "needs at least one input", "C1");
  if (!AllTensors(op)) return Msg(op, "operands and results must be tensors");
  if (op.results.size() != op.operands.size())
    return Msg(op, "has " + Num(op.operands.size()) + " inputs but " + Num(op.results.size()) + " results", "C2");
  const ir::Type& in0 = op.operands[0]->type;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const ir::Type& t = op.operands[i]->type;
    const ir::Type& r = op.result(static_cast<int>(i))->type;
    if (!TypesCompatible(t, r))
      return Msg(op, "input " + Num(i) + " type " + TypeStr(t) + " and result type " + TypeStr(r) + " must be the same",
                 "C2");
    if (!ShapesCompatible(t, in0))
      return Msg(op, "input " + Num(i) + " type " + TypeStr(t) + " must have the shape of input 0 " + TypeStr(in0),
                 "C3");
  }
  int64_t r = in0.rank();
  auto dim = Int(op, "dimension");
  int64_t d = dim ? *dim : -1;
  if (d < -r || d >= r) return Msg(op, "dimension " + Num(d) + " is out of range [" + Num(-r) + ", " + Num(r) + ")", "C4");
  if (op.regions.empty()) return Msg(op, "needs a comparator region", "C5");
  RegionSig s = Signature(*op.regions[0]);
  if (!s.ok) return Msg(op, "comparator must be one block ending in stablehlo.return", "C5");
  bool ok = s.inputs.size() == 2 * op.operands.size() && s.outputs.size() == 1 && s.outputs[0]->is_tensor() &&
            s.outputs[0]->rank() == 0 && s.outputs[0]->element == ElementType::kI1;
  for (size_t i = 0; ok && i < op.operands.size(); ++i)
    for (int k = 0; k < 2; ++k) {
      const ir::Type& a = *s.inputs[2 * i + k];
      if (!a.is_tensor() || a.rank() != 0 || !SameBaselineElement(a, op.operands[i]->type)) ok = false;
    }
  if (!ok)
    return Msg(op, "comparator has type " + TypesStr(s.inputs) + " -> " + TypesStr(s.outputs) +
                   ", expected two rank-0 arguments per input of its element type and one tensor<i1> result", "C5");
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
  (*r)["stablehlo.dynamic_slice"] = &DynamicSlice;
  (*r)["stablehlo.dynamic_update_slice"] = &DynamicUpdateSlice;
  (*r)["stablehlo.gather"] = &Gather;
  (*r)["stablehlo.dynamic_gather"] = &Gather;
  (*r)["stablehlo.scatter"] = &Scatter;
  (*r)["stablehlo.sort"] = &Sort;
  (*r)["stablehlo.get_dimension_size"] = &GetDimensionSize;
}

}  // namespace kiln::compiler::verify

// Verifier checks of the indexing ops, whose operands hold positions:
// dynamic_slice, dynamic_update_slice, gather (and dynamic_gather) and
// scatter.
#include <algorithm>
#include <set>

#include "compiler/verify/verify_util.h"
#include "compiler/op_names.h"

namespace kiln::compiler::verify {
namespace {

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
  bool dynamic = op_names::IsKernelOp(op.name, KernelId::kDynamicGather);
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

}  // namespace

void RegisterIndexing(Registry* r) {
  (*r)["stablehlo.dynamic_slice"] = &DynamicSlice;
  (*r)["stablehlo.dynamic_update_slice"] = &DynamicUpdateSlice;
  (*r)["stablehlo.gather"] = &Gather;
  (*r)["stablehlo.dynamic_gather"] = &Gather;
  (*r)["stablehlo.scatter"] = &Scatter;
}

}  // namespace kiln::compiler::verify

// Reference chlo.ragged_dot: a dot_general whose lhs has one "ragged"
// dimension split into consecutive groups by `group_sizes` (1-D, any integer
// type). Attributes (flattened ragged_dot_dimension_numbers):
// lhs/rhs_batching_dimensions, lhs/rhs_contracting_dimensions,
// lhs_ragged_dimensions (one entry), rhs_group_dimensions (0 or 1 entry).
// Modes, by where the ragged dimension sits in lhs:
//  1. a free (non-contracting, non-batch) dim; rhs has a group dim G.
//     result = batch + lhs free + rhs free; row m of group g uses rhs[g].
//  2. a contracting dim; rhs has no group dim. result = [G] + batch + lhs
//     free + rhs free; result[g] contracts only over group g's slice.
//  3. a batch dim; rhs has no group dim. result = the plain dot_general.
// Rows (modes 1, 3) past sum(group_sizes) are zero. Arithmetic as for
// dot_general (numeric::Accumulator).
#include <string>
#include <vector>

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

bool Contains(std::span<const int64_t> v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

Status RaggedDot(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 3, 1));
  const TensorRef& lhs = c.inputs[0];
  const TensorRef& rhs = c.inputs[1];
  const TensorRef& gs = c.inputs[2];
  const TensorRef& out = c.outputs[0];
  const std::string name = KernelName(c);
  const auto& p = c.params;
  auto lb = p.Ints("lhs_batching_dimensions"), rb = p.Ints("rhs_batching_dimensions");
  auto lc = p.Ints("lhs_contracting_dimensions"), rc = p.Ints("rhs_contracting_dimensions");
  auto lr = p.Ints("lhs_ragged_dimensions"), rg = p.Ints("rhs_group_dimensions");
  if (lb.size() != rb.size() || lc.size() != rc.size()) return InvalidArgument(name + ": dimension lists differ in length");
  if (lr.size() != 1 || rg.size() > 1) return InvalidArgument(name + ": need one ragged dim and at most one group dim");
  if (gs.rank() != 1 || !IsInteger(gs.type)) return InvalidArgument(name + ": group_sizes must be a 1-D integer tensor");
  std::vector<bool> lseen, rseen;
  KILN_RETURN_IF_ERROR(CheckAxes(c, lb, lhs.rank(), "lhs dims", &lseen));
  KILN_RETURN_IF_ERROR(CheckAxes(c, lc, lhs.rank(), "lhs dims", &lseen));
  KILN_RETURN_IF_ERROR(CheckAxes(c, rb, rhs.rank(), "rhs dims", &rseen));
  KILN_RETURN_IF_ERROR(CheckAxes(c, rc, rhs.rank(), "rhs dims", &rseen));
  KILN_RETURN_IF_ERROR(CheckAxes(c, rg, rhs.rank(), "rhs dims", &rseen));
  const int64_t ragged = lr[0];
  if (ragged < 0 || ragged >= lhs.rank()) return InvalidArgument(name + ": lhs_ragged_dimensions out of range");
  for (size_t i = 0; i < lb.size(); ++i)
    if (lhs.dims[lb[i]] != rhs.dims[rb[i]]) return InvalidArgument(name + ": batching dimension sizes differ");
  for (size_t i = 0; i < lc.size(); ++i)
    if (lhs.dims[lc[i]] != rhs.dims[rc[i]]) return InvalidArgument(name + ": contracting dimension sizes differ");
  const int mode = Contains(lc, ragged) ? 2 : Contains(lb, ragged) ? 3 : 1;
  const int64_t groups = gs.dims[0];
  if (mode == 1 && (rg.size() != 1 || rhs.dims[rg[0]] != groups))
    return InvalidArgument(name + ": a ragged free dimension needs an rhs group dimension of size G");
  if (mode != 1 && !rg.empty()) return InvalidArgument(name + ": rhs_group_dimensions must be empty in this mode");

  // Group g covers ragged indices [start[g], start[g+1]).
  std::vector<int64_t> start(groups + 1, 0);
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t sz = Load(gs, g).i;
    if (sz < 0) return InvalidArgument(name + ": negative group size");
    start[g + 1] = start[g] + sz;
  }
  if (start[groups] > lhs.dims[ragged]) return InvalidArgument(name + ": group sizes exceed the ragged dimension");
  auto group_of = [&](int64_t m) {
    for (int64_t g = 0; g < groups; ++g)
      if (m < start[g + 1]) return g;
    return int64_t{-1};  // past the last group
  };

  std::vector<int64_t> lfree, rfree;
  for (int64_t d = 0; d < lhs.rank(); ++d)
    if (!lseen[d]) lfree.push_back(d);
  for (int64_t d = 0; d < rhs.rank(); ++d)
    if (!rseen[d]) rfree.push_back(d);
  std::vector<int64_t> expected;
  if (mode == 2) expected.push_back(groups);
  for (int64_t d : lb) expected.push_back(lhs.dims[d]);
  for (int64_t d : lfree) expected.push_back(lhs.dims[d]);
  for (int64_t d : rfree) expected.push_back(rhs.dims[d]);
  KILN_RETURN_IF_ERROR(CheckDims(c, out, expected, "result"));
  if (out.NumElements() == 0) return Status::Ok();

  auto ls = RowMajorStrides(lhs.dims), rs = RowMajorStrides(rhs.dims);
  std::vector<int64_t> cdims;
  for (int64_t d : lc) cdims.push_back(lhs.dims[d]);
  std::vector<int64_t> loff, roff, cragged;  // cragged: ragged coordinate (mode 2)
  if (NumElementsOf(cdims) > 0) {
    std::vector<int64_t> ci(cdims.size(), 0);
    do {
      int64_t lo = 0, ro = 0, rv = 0;
      for (size_t k = 0; k < ci.size(); ++k) {
        lo += ci[k] * ls[lc[k]];
        ro += ci[k] * rs[rc[k]];
        if (lc[k] == ragged) rv = ci[k];
      }
      loff.push_back(lo);
      roff.push_back(ro);
      cragged.push_back(rv);
    } while (NextIndex(cdims, ci));
  }

  const ElementType rt = out.type;
  auto load_as = [&](const TensorRef& t, int64_t i) {
    Scalar s = Load(t, i);
    return t.type == rt ? s : ConvertScalar(t.type, rt, s);
  };
  Accumulator acc(rt);
  std::vector<int64_t> oi(out.rank(), 0);
  int64_t linear = 0;
  do {
    size_t q = 0;
    int64_t g = mode == 2 ? oi[q++] : 0;
    int64_t lbase = 0, rbase = 0, ragged_index = -1;
    for (size_t k = 0; k < lb.size(); ++k, ++q) {
      lbase += oi[q] * ls[lb[k]];
      rbase += oi[q] * rs[rb[k]];
      if (lb[k] == ragged) ragged_index = oi[q];
    }
    for (int64_t d : lfree) {
      if (d == ragged) ragged_index = oi[q];
      lbase += oi[q++] * ls[d];
    }
    for (int64_t d : rfree) rbase += oi[q++] * rs[d];
    acc.Reset();
    bool active = true;
    if (mode != 2) {
      g = group_of(ragged_index);
      active = g >= 0;
      if (mode == 1 && active) rbase += g * rs[rg[0]];
    }
    if (active)
      for (size_t k = 0; k < loff.size(); ++k) {
        if (mode == 2 && (cragged[k] < start[g] || cragged[k] >= start[g + 1])) continue;
        acc.AddProduct(load_as(lhs, lbase + loff[k]), load_as(rhs, rbase + roff[k]));
      }
    numeric::Store(out, linear++, acc.Result());
  } while (NextIndex(out.dims, oi));
  return Status::Ok();
}

}  // namespace

// This file's kernels of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::RaggedDot(const KernelCall& call) { return ref::RaggedDot(call); }

}  // namespace kiln::ref

// Verifier checks of the collectives' attributes and bodies: all_gather,
// all_reduce, reduce_scatter, all_to_all, collective_permute and
// collective_broadcast (replica groups, channel ids, per-group shapes).
#include <algorithm>
#include <set>

#include "compiler/verify/verify_util.h"

namespace kiln::compiler::verify {
namespace {

std::string ReplicaGroups(const ir::Operation& op, std::string_view c_unique, int64_t* group_size) {
  *group_size = -1;
  const ir::Attribute* groups = op.GetAttr("replica_groups");
  if (!groups) return "";
  // StableHLO 1.x's groups named by the axes of a Shardy mesh.
  if (groups->kind == ir::Attribute::Kind::kStruct && groups->str == "#stablehlo.replica_group_mesh_axes")
    return Msg(op, "replica_groups as mesh axes (#stablehlo.replica_group_mesh_axes) are not supported yet");
  auto m = Matrix2D(op, "replica_groups");
  if (!m) return Msg(op, "replica_groups must be a 2-D integer tensor");
  std::set<int64_t> seen;
  for (int64_t v : m->v)
    if (v >= 0 && !seen.insert(v).second)
      return Msg(op, "replica_groups repeats id " + Num(v), c_unique);
  // With a channel and without use_global_device_ids (cross_replica_and_partition)
  // a process group spans every partition too: its size is unknown here.
  bool global_ids = Bool(op, "use_global_device_ids").value_or(false);
  bool cross_partition = !global_ids && op.GetAttr("handle") && Int(op, "handle").value_or(0) > 0;
  if (m->rows > 0 && !cross_partition) *group_size = m->cols;
  return "";
}

std::string ChannelIds(const ir::Operation& op, std::string_view c) {
  if (!Bool(op, "use_global_device_ids").value_or(false)) return "";
  auto h = Int(op, "handle");
  if (!h || *h <= 0) return Msg(op, "use_global_device_ids needs a channel_id > 0", c);
  return "";
}

std::string AllGather(const ir::Operation& op, const Context&) {
  if (op.operands.empty() || op.results.size() != op.operands.size() || !AllTensors(op))
    return Msg(op, "expects N tensor operands and N tensor results");
  auto d = Int(op, "all_gather_dim");
  if (!d) return Msg(op, "needs an all_gather_dim attribute");
  int64_t g;
  KILN_VERIFY_TRY(ReplicaGroups(op, "C2", &g));
  KILN_VERIFY_TRY(ChannelIds(op, "C5"));
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const ir::Type& t = op.operands[i]->type;
    const ir::Type& r = op.result(static_cast<int>(i))->type;
    if (*d < 0 || *d >= t.rank())
      return Msg(op, "all_gather_dim " + Num(*d) + " is out of range [0, " + Num(t.rank()) + ")", "C1");
    std::vector<int64_t> shape = t.dims;
    shape[*d] = (g < 0 || shape[*d] == kDyn) ? kDyn : shape[*d] * g;
    if (!SameElement(t, r)) return Msg(op, "operand " + TypeStr(t) + " and result " + TypeStr(r) + " element types differ", "C6");
    KILN_VERIFY_TRY(CheckResultShape(op, r, shape, "C6"));
  }
  return "";
}

std::string CollectiveBody(const ir::Operation& op, size_t n_inputs, std::string_view c_body, std::string_view c_elem,
                           std::vector<ir::Type>* e) {
  if (op.regions.empty()) return "";
  std::vector<const ir::Type*> ins;
  for (size_t i = 0; i < n_inputs; ++i) ins.push_back(&op.operands[i]->type);
  // all_reduce's body is per operand: (tensor<E>, tensor<E>) -> tensor<E>.
  std::vector<const ir::Type*> one(ins.begin(), ins.begin() + std::min<size_t>(1, ins.size()));
  KILN_VERIFY_TRY(CheckReducerBody(op, *op.regions[0], "computation", one, c_body, e));
  for (size_t i = 0; i < op.results.size() && !e->empty(); ++i)
    if (!SameBaselineElement(op.result(static_cast<int>(i))->type, (*e)[0]) &&
        !op.result(static_cast<int>(i))->type.is_quantized())
      return Msg(op, "result type " + TypeStr(op.result(static_cast<int>(i))->type) +
                         " must have the computation's element type " + TypeStr((*e)[0]), c_elem);
  return "";
}

std::string AllReduce(const ir::Operation& op, const Context&) {
  if (op.operands.empty() || op.results.size() != op.operands.size() || !AllTensors(op))
    return Msg(op, "expects N tensor operands and N tensor results");
  int64_t g;
  KILN_VERIFY_TRY(ReplicaGroups(op, "C1", &g));
  KILN_VERIFY_TRY(ChannelIds(op, "C4"));
  std::vector<ir::Type> e;
  KILN_VERIFY_TRY(CollectiveBody(op, op.operands.size(), "C5", "C7", &e));
  for (size_t i = 0; i < op.operands.size(); ++i)
    if (!ShapesCompatible(op.operands[i]->type, op.result(static_cast<int>(i))->type))
      return Msg(op, "operand " + TypeStr(op.operands[i]->type) + " and result " +
                         TypeStr(op.result(static_cast<int>(i))->type) + " must have the same shape", "C6");
  return "";
}

std::string ReduceScatter(const ir::Operation& op, const Context&) {
  if (op.operands.size() != 1 || op.results.size() != 1 || !AllTensors(op))
    return Msg(op, "expects one tensor operand and one tensor result");
  const ir::Type& t = op.operands[0]->type;
  const ir::Type& r = op.result()->type;
  auto d = Int(op, "scatter_dimension");
  if (!d) return Msg(op, "needs a scatter_dimension attribute");
  if (*d < 0 || *d >= t.rank())
    return Msg(op, "scatter_dimension " + Num(*d) + " is out of range [0, " + Num(t.rank()) + ")", "C2");
  int64_t g;
  KILN_VERIFY_TRY(ReplicaGroups(op, "C3", &g));
  KILN_VERIFY_TRY(ChannelIds(op, "C6"));
  if (g > 0 && t.dims[*d] != kDyn && t.dims[*d] % g != 0)
    return Msg(op, "scatter dimension size " + Num(t.dims[*d]) + " is not divisible by the group size " + Num(g), "C1");
  std::vector<ir::Type> e;
  KILN_VERIFY_TRY(CollectiveBody(op, 1, "C7", "C9", &e));
  std::vector<int64_t> shape = t.dims;
  shape[*d] = (g <= 0 || shape[*d] == kDyn) ? kDyn : shape[*d] / g;
  return CheckResultShape(op, r, shape, "C8");
}

std::string AllToAll(const ir::Operation& op, const Context&) {
  if (op.operands.empty() || op.results.size() != op.operands.size() || !AllTensors(op))
    return Msg(op, "expects N tensor operands and N tensor results");
  auto sd = Int(op, "split_dimension"), cd = Int(op, "concat_dimension"), sc = Int(op, "split_count");
  if (!sd || !cd || !sc) return Msg(op, "needs split_dimension, concat_dimension and split_count");
  if (*sc <= 0) return Msg(op, "split_count " + Num(*sc) + " must be positive", "C4");
  int64_t g;
  KILN_VERIFY_TRY(ReplicaGroups(op, "C5", &g));
  if (g >= 0 && g != *sc) return Msg(op, "replica groups of size " + Num(g) + " must have split_count " + Num(*sc) + " ids", "C8");
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const ir::Type& t = op.operands[i]->type;
    const ir::Type& r = op.result(static_cast<int>(i))->type;
    if (*sd < 0 || *sd >= t.rank())
      return Msg(op, "split_dimension " + Num(*sd) + " is out of range [0, " + Num(t.rank()) + ")", "C1");
    if (*cd < 0 || *cd >= t.rank())
      return Msg(op, "concat_dimension " + Num(*cd) + " is out of range [0, " + Num(t.rank()) + ")", "C3");
    if (t.dims[*sd] != kDyn && t.dims[*sd] % *sc != 0)
      return Msg(op, "split dimension size " + Num(t.dims[*sd]) + " is not divisible by split_count " + Num(*sc), "C2");
    std::vector<int64_t> shape = t.dims;
    if (*sd != *cd) {
      if (shape[*sd] != kDyn) shape[*sd] /= *sc;
      if (shape[*cd] != kDyn) shape[*cd] *= *sc;
    }
    if (!SameElement(t, r)) return Msg(op, "operand " + TypeStr(t) + " and result " + TypeStr(r) + " element types differ", "C9");
    KILN_VERIFY_TRY(CheckResultShape(op, r, shape, "C9"));
  }
  return "";
}

std::string PermutePairs(const ir::Operation& op) {
  if (!op.GetAttr("source_target_pairs")) return "";
  auto m = Matrix2D(op, "source_target_pairs");
  if (!m || (m->rows > 0 && m->cols != 2))
    return Msg(op, "source_target_pairs must have shape [N, 2]", "C1");
  std::set<int64_t> src, dst;
  for (int64_t i = 0; i < m->rows; ++i) {
    if (!src.insert(m->at(i, 0)).second) return Msg(op, "source_target_pairs repeats source " + Num(m->at(i, 0)), "C2");
    if (!dst.insert(m->at(i, 1)).second) return Msg(op, "source_target_pairs repeats target " + Num(m->at(i, 1)), "C3");
    if (m->at(i, 0) < 0 || m->at(i, 1) < 0) return Msg(op, "source_target_pairs must be non-negative", "C4");
  }
  return "";
}

std::string CollectivePermute(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(PermutePairs(op));
  if (op.operands.size() == 1 && op.results.size() == 1 &&
      !TypesCompatible(op.operands[0]->type, op.result()->type))
    return Msg(op, "operand " + TypeStr(op.operands[0]->type) + " and result " + TypeStr(op.result()->type) +
                       " must have the same type", "C5");
  return "";
}

std::string CollectiveBroadcast(const ir::Operation& op, const Context&) {
  int64_t g;
  KILN_VERIFY_TRY(ReplicaGroups(op, "C1", &g));
  if (op.operands.size() == op.results.size())
    for (size_t i = 0; i < op.operands.size(); ++i)
      if (!TypesCompatible(op.operands[i]->type, op.result(static_cast<int>(i))->type))
        return Msg(op, "operand " + TypeStr(op.operands[i]->type) + " and result " +
                           TypeStr(op.result(static_cast<int>(i))->type) + " must have the same type", "C3");
  return "";
}

}  // namespace

void RegisterCollectives(Registry* r) {
  (*r)["stablehlo.all_gather"] = &AllGather;
  (*r)["stablehlo.all_reduce"] = &AllReduce;
  (*r)["stablehlo.reduce_scatter"] = &ReduceScatter;
  (*r)["stablehlo.all_to_all"] = &AllToAll;
  (*r)["stablehlo.collective_permute"] = &CollectivePermute;
  (*r)["stablehlo.collective_broadcast"] = &CollectiveBroadcast;
}

}  // namespace kiln::compiler::verify

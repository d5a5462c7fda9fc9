// The row-block planner of elementwise fusion (compiler/passes/
// fuse_elementwise.h, "Row blocks"; compiler/passes/fusion_internal.h).
#include <algorithm>
#include <string>

#include "compiler/lower/kernel_params.h"
#include "compiler/op_names.h"
#include "compiler/passes/fusion_internal.h"

namespace kiln::compiler::fusion_internal {

namespace {

// Row blocks (kernels/reference/row_block.h): an elementwise group over
// [..., N] (the tail) with the dispatches that compute the per-row values
// it reads, when nothing else reads those values: reduces of the innermost
// axis of a [..., N] operand (fused producers included), elementwise ops
// and groups over the per-row values, and jax's [R] -> [R, 1] reshapes. The
// dispatch runs each of them as it would run alone (kiln.row_block's units,
// in block order), so results are unchanged; the CPU kernel takes a block
// of rows through all of them while it is in cache.
struct RowBlockPlanner {
  const Users& users;
  const std::map<const ir::Operation*, const ir::Operation*>& root_of;
  std::map<const ir::Operation*, FusedGroup>* groups;
  std::set<const ir::Operation*>* fused_away;
  std::map<const ir::Operation*, size_t> order;
  std::set<const ir::Operation*> taken;  // units of a row block already planned
  std::vector<int64_t> full, rows;        // the tail's dims and its rows' dims
  int64_t outer = 1;

  const ir::Operation* RootOf(const ir::Operation* op) const {
    auto it = root_of.find(op);
    return it == root_of.end() ? op : it->second;
  }
  bool IsRowValue(const ir::Value* v) const {
    if (!v->type.is_tensor() || v->type.is_quantized() || !v->type.HasStaticShape()) return false;
    std::vector<int64_t> keep = rows;
    keep.push_back(1);
    return v->type.dims == rows || v->type.dims == keep;
  }
  // The unit of the dispatch that op (a group root or a lone op) emits, or
  // false when it cannot be one.
  bool MakeUnit(const ir::Operation* op, KernelParams* params, std::vector<const ir::Value*>* inputs) const {
    if (op->results.size() != 1 || !IsRowValue(op->result())) return false;
    const int64_t last = static_cast<int64_t>(full.size()) - 1;
    auto it = groups->find(op);
    const bool is_reduce = op_names::IsKernelOp(op->name, KernelId::kReduce);
    if (is_reduce) {
      if (op->operands.size() != 2 || op->operands[0]->type.dims != full || op->result()->type.dims != rows) return false;
      const ir::Attribute* dims = op->GetAttr("dimensions");
      auto axes = dims ? dims->AsInts() : std::nullopt;
      if (!axes || *axes != std::vector<int64_t>{last}) return false;
      if (it != groups->end()) {
        *params = it->second.params;
        *inputs = it->second.inputs;
      } else {
        auto p = KernelParamsForOp(*op);
        if (!p.ok()) return false;
        *params = std::move(p.value());
        inputs->assign(op->operands.begin(), op->operands.end());
      }
      return true;
    }
    if (it != groups->end()) {
      // (A group reading a slice's operand through "input_slices" stays a
      // dispatch of its own: row blocks read their units' inputs whole.)
      if (it->second.params.kernel != "kiln.elementwise" || it->second.params.Find("input_slices")) return false;
      *params = it->second.params;
      *inputs = it->second.inputs;
      return true;
    }
    const Kind kind = Classify(*op);
    if (kind == Kind::kElementwise) {
      FusedGroup g;
      if (!BuildGroup({op}, &g)) return false;
      *params = std::move(g.params);
      *inputs = std::move(g.inputs);
      return true;
    }
    // A broadcast or reshape that only inserts size-1 dims into a per-row value.
    const bool reshape = op_names::IsKernelOp(op->name, KernelId::kReshape);
    if ((kind == Kind::kBroadcast || reshape) && op->operands.size() == 1 && IsRowValue(op->operands[0])) {
      if (kind == Kind::kBroadcast) {
        const ir::Attribute* bd = op->GetAttr("broadcast_dimensions");
        auto axes = bd ? bd->AsInts() : std::nullopt;
        if (!axes || !std::is_sorted(axes->begin(), axes->end()) ||
            std::adjacent_find(axes->begin(), axes->end()) != axes->end())
          return false;
      }
      auto p = KernelParamsForOp(*op);
      if (!p.ok()) return false;
      *params = std::move(p.value());
      inputs->assign(op->operands.begin(), op->operands.end());
      return true;
    }
    return false;
  }

  void Plan(const ir::Operation* tail) {
    const FusedGroup& tg = groups->at(tail);
    const ir::Type& t = tail->result()->type;
    if (tg.params.kernel != "kiln.elementwise" || tg.params.Find("input_slices") || t.rank() < 2 ||
        !t.HasStaticShape() || taken.count(tail))
      return;
    full = t.dims;
    rows.assign(full.begin(), full.end() - 1);
    outer = 1;
    for (int64_t d : rows) outer *= d;
    struct Unit {
      KernelParams params;
      std::vector<const ir::Value*> inputs;
    };
    std::map<const ir::Operation*, Unit> units;
    units[tail] = Unit{tg.params, tg.inputs};
    std::vector<const ir::Operation*> work{tail};
    while (!work.empty()) {
      const ir::Operation* u = work.back();
      work.pop_back();
      for (const ir::Value* v : units.at(u).inputs) {
        const ir::Operation* d = v->def;
        if (d == nullptr || !order.count(d) || units.count(d) || taken.count(d) || fused_away->count(d)) continue;
        Unit unit;
        if (!MakeUnit(d, &unit.params, &unit.inputs)) continue;
        units[d] = std::move(unit);
        work.push_back(d);
      }
    }
    // A unit whose result something outside the row block reads stays a
    // dispatch of its own (and so, in turn, do the units it reads).
    for (bool changed = true; changed;) {
      changed = false;
      for (auto it = units.begin(); it != units.end();) {
        bool outside = false;
        if (it->first != tail) {
          auto us = users.find(it->first->result());
          if (us != users.end())
            for (const ir::Operation* user : us->second) outside = outside || !units.count(RootOf(user));
        }
        if (outside) {
          it = units.erase(it);
          changed = true;
        } else {
          ++it;
        }
      }
    }
    std::vector<const ir::Operation*> ordered;
    bool has_reduce = false;
    for (const auto& [op, unit] : units) {
      ordered.push_back(op);
      has_reduce = has_reduce || unit.params.kernel == "stablehlo.reduce";
    }
    if (!has_reduce) return;
    std::sort(ordered.begin(), ordered.end(),
              [&](const ir::Operation* a, const ir::Operation* b) { return order.at(a) < order.at(b); });
    std::vector<const ir::Value*> external;
    for (const ir::Operation* op : ordered)
      for (const ir::Value* v : units.at(op).inputs)
        if (!(v->def && units.count(v->def)) && std::find(external.begin(), external.end(), v) == external.end())
          external.push_back(v);
    std::map<const ir::Value*, int64_t> index;
    for (size_t i = 0; i < external.size(); ++i) index[external[i]] = static_cast<int64_t>(i);
    KernelParams p;
    p.kernel = "kiln.row_block";
    p.attrs.push_back(KernelAttr{"units", {static_cast<int64_t>(ordered.size())}, {}, "", false, {}});
    FusedGroup g;
    g.root = tail;
    g.inputs = external;
    for (size_t k = 0; k < ordered.size(); ++k) {
      const ir::Operation* op = ordered[k];
      const Unit& unit = units.at(op);
      const std::string prefix = std::to_string(k) + ".";
      std::vector<int64_t> ins;
      for (const ir::Value* v : unit.inputs) ins.push_back(index.at(v));
      p.attrs.push_back(KernelAttr{prefix + "kernel", {}, {}, unit.params.kernel, false, {}});
      p.attrs.push_back(KernelAttr{prefix + "inputs", std::move(ins), {}, "", false, {}});
      p.attrs.push_back(KernelAttr{prefix + "dims", op->result()->type.dims, {}, "", false, {}});
      for (const KernelAttr& a : unit.params.attrs) {
        KernelAttr copy = a;
        copy.name = prefix + a.name;
        p.attrs.push_back(std::move(copy));
      }
      index[op->result()] = static_cast<int64_t>(external.size() + k);
      auto git = groups->find(op);
      g.num_ops += git != groups->end() ? git->second.num_ops : 1;
      taken.insert(op);
      if (op != tail) {
        fused_away->insert(op);
        if (git != groups->end()) groups->erase(git);
      }
    }
    g.params = std::move(p);
    (*groups)[tail] = std::move(g);
  }
};

}  // namespace

void PlanRowBlocks(const ir::Block& block, const Users& users,
                   const std::map<const ir::Operation*, const ir::Operation*>& root_of,
                   std::map<const ir::Operation*, FusedGroup>* groups, std::set<const ir::Operation*>* fused_away) {
  RowBlockPlanner planner{users, root_of, groups, fused_away, {}, {}, {}, {}, 1};
  for (size_t i = 0; i < block.ops.size(); ++i) planner.order[block.ops[i].get()] = i;
  // Later tails first: a tail's units are never another row block's tail.
  for (size_t i = block.ops.size(); i-- > 0;) {
    const ir::Operation* op = block.ops[i].get();
    if (groups->count(op) && !fused_away->count(op)) planner.Plan(op);
  }
  for (const auto& op : block.ops)
    for (const auto& r : op->regions)
      for (const auto& b : r->blocks) PlanRowBlocks(*b, users, root_of, groups, fused_away);
}

}  // namespace kiln::compiler::fusion_internal

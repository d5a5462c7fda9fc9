// Plans the elementwise chains of a function that lowering emits as one
// kiln.elementwise dispatch each (compiler/passes/fuse_elementwise.h).
#include "compiler/passes/fuse_elementwise.h"
#include "compiler/passes/fusion_internal.h"
#include "compiler/op_names.h"
#include "compiler/passes/scalar_plan.h"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "compiler/lower/kernel_params.h"
#include "kernels/scalar/scalar.h"

namespace kiln::compiler {

namespace {

// Keeps programs (and the per-value scratch of the kernels that run them)
// small; a longer chain is split into several dispatches.
constexpr size_t kMaxGroupOps = 200;

using fusion_internal::Kind;
using fusion_internal::Users;

// kReinterpret: a bitcast_convert between a per-tensor quantized tensor and
// its storage type (compiler/passes/legalize_quantized.cc), the same stored
// integers under another type: no step, its result is its operand's value
// (as lowering aliases it when it stands alone).
bool IsReinterpret(const ir::Operation& op) {
  if (!op_names::IsKernelOp(op.name, KernelId::kBitcastConvert) || op.operands.size() != 1 || op.results.size() != 1)
    return false;
  const ir::Type& a = op.operands[0]->type;
  const ir::Type& b = op.result()->type;
  if (!a.is_tensor() || !b.is_tensor() || a.is_quantized() == b.is_quantized() || !a.HasStaticShape()) return false;
  const ir::Type& q = a.is_quantized() ? a : b;
  return a.element == b.element && a.dims == b.dims && q.quant->scales.size() == 1 && q.quant->zero_points.size() == 1;
}

}  // namespace

std::optional<std::vector<int64_t>> fusion_internal::FusibleSlice(const ir::Operation& op) {
  if (!op_names::IsKernelOp(op.name, KernelId::kSlice) || op.operands.size() != 1 || op.results.size() != 1)
    return std::nullopt;
  const ir::Type& in = op.operands[0]->type;
  const ir::Type& out = op.result()->type;
  if (!in.is_tensor() || !out.is_tensor() || in.is_quantized() || out.is_quantized() || !in.HasStaticShape() ||
      !out.HasStaticShape() || in.rank() == 0 || in.rank() != out.rank() || in.dims == out.dims ||
      in.element != out.element)
    return std::nullopt;
  // f32 and f64 only: the CPU device's kernels for other element types
  // (integers, f16/bf16, quantized) hand a sliced read to the reference
  // kernel, slower than the slice's own copy.
  if (in.element != ElementType::kF32 && in.element != ElementType::kF64) return std::nullopt;
  auto ints = [&](const char* name) {
    const ir::Attribute* a = op.GetAttr(name);
    return a ? a->AsInts() : std::nullopt;
  };
  const auto start = ints("start_indices"), strides = ints("strides");
  const size_t rank = static_cast<size_t>(in.rank());
  if (!start || !strides || start->size() != rank || strides->size() != rank) return std::nullopt;
  std::vector<int64_t> slice = *start;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t b = (*start)[d], st = (*strides)[d], n = out.dims[d];
    if (b < 0 || st < 1 || (n > 0 && (b >= in.dims[d] || (in.dims[d] - 1 - b) / st < n - 1))) return std::nullopt;
  }
  slice.insert(slice.end(), strides->begin(), strides->end());
  return slice;
}

Kind fusion_internal::Classify(const ir::Operation& op) {
  if (op.results.size() != 1 || !op.regions.empty()) return Kind::kNone;
  if (IsReinterpret(op)) return Kind::kReinterpret;
  const ir::Type& rt = op.result()->type;
  if (!rt.is_tensor() || rt.is_quantized() || !rt.HasStaticShape()) return Kind::kNone;
  for (const ir::Value* v : op.operands)
    if (!v->type.is_tensor() || v->type.is_quantized() || !v->type.HasStaticShape()) return Kind::kNone;
  if (op_names::IsKernelOp(op.name, KernelId::kBroadcastInDim)) return op.operands.size() == 1 ? Kind::kBroadcast : Kind::kNone;
  if (op_names::IsConstant(op.name)) return Kind::kNone;  // a kConstRef; splats are inlined below
  if (ElementwiseScalarOp(op.name) == ScalarOp::kInvalid) return Kind::kNone;
  if (op_names::IsKernelOp(op.name, KernelId::kBitcastConvert) &&
      (op.operands.size() != 1 || StorageBytes(op.operands[0]->type.element) != StorageBytes(rt.element) ||
       op.operands[0]->type.rank() != rt.rank()))
    return Kind::kNone;
  // Operands of the result's shape, or rank 0 (select's predicate, clamp's bounds).
  for (const ir::Value* v : op.operands)
    if (v->type.dims != rt.dims && v->type.rank() != 0) return Kind::kNone;
  return Kind::kElementwise;
}

namespace {
using fusion_internal::Classify;

// A dense constant whose elements are all equal becomes a kConstant step.
bool SplatConstant(const ir::Value* v, Scalar* value) {
  const ir::Operation* def = v->def;
  if (def == nullptr || !op_names::IsConstant(def->name) || v->type.is_quantized()) return false;
  const ir::Attribute* a = def->GetAttr("value");
  if (a == nullptr || a->kind != ir::Attribute::Kind::kDense) return false;
  const size_t bytes = StorageBytes(v->type.element);
  const int64_t n = v->type.NumElements();
  if (a->dense_splat && bytes != 0 && a->dense_bytes.size() == bytes) {  // kept compact by the parser
    *value = ref::LoadScalar(v->type.element, a->dense_bytes.data());
    return true;
  }
  if (bytes == 0 || n < 1 || a->dense_bytes.size() != static_cast<size_t>(n) * bytes) return false;
  const uint8_t* first = a->dense_bytes.data();
  for (int64_t i = 1; i < n; ++i)
    if (std::memcmp(first, first + i * bytes, bytes) != 0) return false;
  *value = ref::LoadScalar(v->type.element, first);
  return true;
}

// Whether an operand of `op` is a splat constant of rank above 0.
bool ReadsSplat(const ir::Operation& op) {
  Scalar unused;
  for (const ir::Value* v : op.operands)
    if (v->type.rank() > 0 && SplatConstant(v, &unused)) return true;
  return false;
}

void CollectUses(const ir::Block& block, Users* users) {
  for (const auto& op : block.ops) {
    for (const ir::Value* v : op->operands) (*users)[v].push_back(op.get());
    for (const auto& r : op->regions)
      for (const auto& b : r->blocks) CollectUses(*b, users);
  }
}

// The identity axis map of `v` (0, 1, ..., rank - 1): how an output-shaped
// input is read.
std::vector<int64_t> IdentityAxes(const ir::Value* v) {
  std::vector<int64_t> axes;
  for (int64_t a = 0; a < v->type.rank(); ++a) axes.push_back(a);
  return axes;
}

}  // namespace

bool fusion_internal::BuildGroup(const std::vector<const ir::Operation*>& members, FusedGroup* g) {
  const std::set<const ir::Operation*> in_group(members.begin(), members.end());
  const std::vector<int64_t>& out_dims = members.back()->result()->type.dims;
  // An input is a value read through an axis map (a broadcast_in_dim of a
  // lower-rank operand reads that operand in place) and, for a member
  // slice's operand, through that static slice (its starts then strides).
  struct Input {
    const ir::Value* value;
    std::vector<int64_t> axes;   // the output axis of each of its dims
    std::vector<int64_t> slice;  // "input_slices" entry (starts, strides) or empty
    bool operator<(const Input& o) const { return std::tie(value, axes, slice) < std::tie(o.value, o.axes, o.slice); }
  };
  std::vector<Input> params;
  std::vector<std::pair<const ir::Value*, Scalar>> constants;
  std::set<Input> seen;
  std::set<const ir::Value*> seen_constants;
  auto note = [&](const ir::Value* v, std::vector<int64_t> axes, std::vector<int64_t> slice = {}) {
    if (v->def && in_group.count(v->def)) return;
    Scalar s;
    if (slice.empty() && SplatConstant(v, &s)) {
      if (seen_constants.insert(v).second) constants.push_back({v, s});
      return;
    }
    Input in{v, std::move(axes), std::move(slice)};
    if (seen.insert(in).second) params.push_back(std::move(in));
  };
  for (const ir::Operation* op : members) {
    if (auto slice = fusion_internal::FusibleSlice(*op)) {
      note(op->operands[0], IdentityAxes(op->operands[0]), std::move(*slice));
      continue;
    }
    if (Classify(*op) == Kind::kBroadcast) {
      const ir::Attribute* dims = op->GetAttr("broadcast_dimensions");
      auto axes = dims ? dims->AsInts() : std::optional<std::vector<int64_t>>(std::vector<int64_t>{});
      if (!axes || static_cast<int64_t>(axes->size()) != op->operands[0]->type.rank()) return false;
      note(op->operands[0], *axes);
    } else {
      for (const ir::Value* v : op->operands) note(v, v->type.rank() == 0 ? std::vector<int64_t>{} : IdentityAxes(v));
    }
  }
  ScalarProgram prog;
  std::map<Input, uint16_t> index_of_input;
  std::map<const ir::Value*, uint16_t> index;  // values computed or read as themselves
  std::vector<int64_t> input_broadcast, input_slices;
  bool needs_map = false, sliced = false;
  for (const Input& in : params) {
    const uint16_t i = static_cast<uint16_t>(prog.param_types.size());
    index_of_input[in] = i;
    if (in.slice.empty() && (in.axes.empty() || in.axes == IdentityAxes(in.value))) index[in.value] = i;
    prog.param_types.push_back(in.value->type.element);
    input_broadcast.push_back(in.value->type.rank());
    input_broadcast.insert(input_broadcast.end(), in.axes.begin(), in.axes.end());
    input_slices.push_back(in.slice.empty() ? 0 : in.value->type.rank());
    input_slices.insert(input_slices.end(), in.slice.begin(), in.slice.end());
    sliced = sliced || !in.slice.empty();
    const bool trivial = in.slice.empty() && (in.value->type.rank() == 0 ||
                                              (in.value->type.dims == out_dims && in.axes == IdentityAxes(in.value)));
    needs_map = needs_map || !trivial;
  }
  for (const auto& [v, s] : constants) {
    ScalarInstr c;
    c.op = ScalarOp::kConstant;
    c.type = v->type.element;
    c.constant = s;
    index[v] = static_cast<uint16_t>(params.size() + prog.instrs.size());
    prog.instrs.push_back(c);
  }
  for (const ir::Operation* op : members) {
    if (auto slice = fusion_internal::FusibleSlice(*op)) {
      index[op->result()] = index_of_input.at(Input{op->operands[0], IdentityAxes(op->operands[0]), std::move(*slice)});
      continue;
    }
    if (Classify(*op) == Kind::kBroadcast) {
      const ir::Value* operand = op->operands[0];
      const ir::Attribute* dims = op->GetAttr("broadcast_dimensions");
      const std::vector<int64_t> axes = dims ? dims->AsInts().value_or(std::vector<int64_t>{}) : std::vector<int64_t>{};
      auto it = index_of_input.find(Input{operand, axes});
      if (it != index_of_input.end()) {
        index[op->result()] = it->second;
      } else if (index.count(operand) && (seen_constants.count(operand) || operand->type.rank() == 0 ||
                                          axes == IdentityAxes(operand))) {
        // A splat constant (one value everywhere), or a member broadcast to itself.
        index[op->result()] = index.at(operand);
      } else {
        return false;  // e.g. a member transposed by its broadcast: not expressible
      }
      continue;
    }
    if (Classify(*op) == Kind::kReinterpret) {
      if (!index.count(op->operands[0])) return false;
      index[op->result()] = index.at(op->operands[0]);
      continue;
    }
    std::vector<uint16_t> operands;
    for (const ir::Value* v : op->operands) {
      if (!index.count(v)) return false;
      operands.push_back(index.at(v));
    }
    auto in = ScalarInstrForOp(*op, operands);
    if (!in.ok()) return false;
    index[op->result()] = static_cast<uint16_t>(params.size() + prog.instrs.size());
    prog.instrs.push_back(in.value());
  }
  prog.results.push_back(index.at(members.back()->result()));
  if (!ref::VerifyScalarProgram(prog).ok()) return false;
  g->root = members.back();
  for (const Input& in : params) g->inputs.push_back(in.value);
  g->num_ops = static_cast<int>(members.size());
  std::vector<KernelAttr> extra;
  if (needs_map) {
    KernelAttr map;
    map.name = "input_broadcast";
    map.ints = std::move(input_broadcast);
    extra.push_back(std::move(map));
  }
  if (sliced) {
    KernelAttr slices;
    slices.name = "input_slices";
    slices.ints = std::move(input_slices);
    extra.push_back(std::move(slices));
  }
  g->params = ElementwiseKernel(std::move(prog), std::move(extra));
  return true;
}

namespace {

using fusion_internal::BuildGroup;

// A dot_general, dot or convolution that lowering would emit as one plain
// dispatch (quantized operands take another path there).
bool IsProducer(const ir::Operation* op) {
  if (op == nullptr || op->results.size() != 1 ||
      !op_names::IsEpilogueProducer(op->name))
    return false;
  return std::all_of(op->operands.begin(), op->operands.end(), [](const ir::Value* v) {
    return v->type.is_tensor() && !v->type.is_quantized() && v->type.HasStaticShape();
  });
}

// The group's input that a producer op of this block computes and that only
// the group reads, at the output's own index and with the output's type (so
// the epilogue may run over the producer's result in place); -1 if none.
int EpilogueInput(const FusedGroup& g, const std::set<const ir::Operation*>& members,
                  const std::set<const ir::Operation*>& block_ops, const Users& users) {
  const ir::Type& out = g.root->result()->type;
  const KernelAttr* map = g.params.Find("input_broadcast");
  size_t at = 0;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const ir::Value* v = g.inputs[i];
    bool identity = true;
    if (map) {
      const int64_t rank = map->ints[at];
      for (int64_t a = 0; a < rank; ++a) identity = identity && map->ints[at + 1 + a] == a;
      at += 1 + static_cast<size_t>(rank);
    }
    const ir::Operation* def = v->def;
    if (!identity || !IsProducer(def) || !block_ops.count(def) || v->type.dims != out.dims ||
        v->type.element != out.element || v->type.is_quantized() || !IsFloat(out.element) ||
        std::count(g.inputs.begin(), g.inputs.end(), v) != 1)
      continue;
    auto it = users.find(v);
    if (it == users.end()) continue;
    if (std::all_of(it->second.begin(), it->second.end(), [&](const ir::Operation* u) { return members.count(u); }))
      return static_cast<int>(i);
  }
  return -1;
}

// Turns an elementwise group into the epilogue of the producer of its input
// `k`: the dispatch becomes the producer's, with the group's program as
// "epilogue" (param 0 = the producer's result) and the producer's operands
// ahead of the group's other inputs.
bool MakeEpilogue(FusedGroup* g, size_t k) {
  if (g->params.Find("input_slices")) return false;  // epilogues read no slices
  const ir::Operation* producer = g->inputs[k]->def;
  auto params = KernelParamsForOp(*producer);
  if (!params.ok()) return false;
  ScalarProgram prog = g->params.Program("body") ? *g->params.Program("body") : ScalarProgram{};
  const size_t num_params = prog.param_types.size();
  if (prog.results.size() != 1 || k >= num_params) return false;
  // Param k moves to 0; params before it shift up by one.
  auto remap = [&](uint16_t v) -> uint16_t {
    if (v >= num_params) return v;
    if (v == k) return 0;
    return v < k ? static_cast<uint16_t>(v + 1) : v;
  };
  for (ScalarInstr& in : prog.instrs)
    for (int o = 0; o < in.num_operands; ++o) in.operands[o] = remap(in.operands[o]);
  for (uint16_t& r : prog.results) r = remap(r);
  std::rotate(prog.param_types.begin(), prog.param_types.begin() + k, prog.param_types.begin() + k + 1);
  KernelParams p = std::move(params.value());
  if (const KernelAttr* map = g->params.Find("input_broadcast")) {
    // The same per-param entries (rank, axes...), param k's first.
    std::vector<std::vector<int64_t>> entries;
    for (size_t at = 0; at < map->ints.size(); at += 1 + static_cast<size_t>(map->ints[at]))
      entries.emplace_back(map->ints.begin() + at, map->ints.begin() + at + 1 + map->ints[at]);
    std::rotate(entries.begin(), entries.begin() + k, entries.begin() + k + 1);
    KernelAttr m;
    m.name = "epilogue_broadcast";
    for (const auto& e : entries) m.ints.insert(m.ints.end(), e.begin(), e.end());
    p.attrs.push_back(std::move(m));
  }
  KernelAttr body;
  body.name = "epilogue";
  body.has_program = true;
  body.program = std::move(prog);
  p.attrs.push_back(std::move(body));
  std::vector<const ir::Value*> inputs(producer->operands.begin(), producer->operands.end());
  for (size_t i = 0; i < g->inputs.size(); ++i)
    if (i != k) inputs.push_back(g->inputs[i]);
  g->inputs = std::move(inputs);
  g->params = std::move(p);
  g->num_ops += 1;
  return true;
}

void PlanBlock(const ir::Block& block, const Users& users, const std::set<const ir::Operation*>& dead,
               std::set<const ir::Operation*>* fused_away,
               std::map<const ir::Operation*, FusedGroup>* groups, std::set<const ir::Operation*>* grouped,
               std::map<const ir::Operation*, const ir::Operation*>* root_of) {
  // Walk backwards: an op joins the group of its users when all of them are
  // in one group of this block and it has that group's shape.
  std::map<const ir::Operation*, size_t> group_of;
  std::vector<std::vector<const ir::Operation*>> members;  // reverse block order
  std::vector<const std::vector<int64_t>*> shape;
  std::map<const ir::Operation*, std::set<size_t>> shared_broadcasts;  // the groups each joined
  for (size_t i = block.ops.size(); i-- > 0;) {
    const ir::Operation* op = block.ops[i].get();
    // A static slice joins the group of its users (which then read its
    // operand through "input_slices") but is never a group of its own.
    const bool slice = fusion_internal::FusibleSlice(*op).has_value();
    if ((Classify(*op) == Kind::kNone && !slice) || dead.count(op)) continue;
    size_t g = SIZE_MAX;
    bool joins = true;
    auto it = users.find(op->result());
    if (it == users.end()) joins = false;
    else
      for (const ir::Operation* u : it->second) {
        auto gu = group_of.find(u);
        if (gu == group_of.end() || (g != SIZE_MAX && g != gu->second)) {
          joins = false;
          break;
        }
        // A slice is read by the program's steps only (not by a member
        // broadcast, whose operand is read through the axis map).
        if (slice && Classify(*u) != Kind::kElementwise) joins = false;
        g = gu->second;
      }
    if (slice) {
      if (joins && g != SIZE_MAX && op->result()->type.dims == *shape[g] && members[g].size() < kMaxGroupOps) {
        members[g].push_back(op);
        group_of[op] = g;
      }
      continue;
    }
    if (joins && g != SIZE_MAX && op->result()->type.dims == *shape[g] && members[g].size() < kMaxGroupOps) {
      members[g].push_back(op);
      group_of[op] = g;
      continue;
    }
    // A broadcast whose users are elementwise ops of several groups of its
    // shape joins each of them: each reads its operand through the axis
    // map (a row of indices, a bias shared by two programs), and no
    // full-size copy is written, provided every one of those groups forms
    // (below).
    std::set<size_t> user_groups;
    bool shared = !joins && it != users.end() && Classify(*op) == Kind::kBroadcast;
    for (size_t u = 0; shared && u < it->second.size(); ++u) {
      auto gu = group_of.find(it->second[u]);
      shared = gu != group_of.end() && Classify(*it->second[u]) == Kind::kElementwise &&
               op->result()->type.dims == *shape[gu->second] && members[gu->second].size() < kMaxGroupOps;
      if (shared) user_groups.insert(gu->second);
    }
    if (shared && user_groups.size() > 1) {
      // Not in group_of: its operand, which each of these groups reads in
      // place, must be written, so it joins none of them (it would be
      // fused away in one while the others read it).
      for (size_t ug : user_groups) members[ug].push_back(op);
      shared_broadcasts[op] = std::move(user_groups);
      continue;
    }
    group_of[op] = members.size();
    members.push_back({op});
    shape.push_back(&op->result()->type.dims);
  }
  std::set<const ir::Operation*> block_ops;
  for (const auto& op : block.ops) block_ops.insert(op.get());
  std::vector<bool> formed(members.size(), false);
  for (size_t gi = 0; gi < members.size(); ++gi) {
    auto& m = members[gi];
    std::reverse(m.begin(), m.end());
    // A lone elementwise op is worth a group only as a producer's epilogue.
    const bool may_be_epilogue = Classify(*m.back()) == Kind::kElementwise;
    if (m.size() < 2 && !may_be_epilogue) continue;
    FusedGroup g;
    if (!BuildGroup(m, &g)) continue;
    bool epilogue = false;
    if (may_be_epilogue) {
      const int k = EpilogueInput(g, std::set<const ir::Operation*>(m.begin(), m.end()), block_ops, users);
      const ir::Operation* producer = k >= 0 ? g.inputs[k]->def : nullptr;
      epilogue = k >= 0 && MakeEpilogue(&g, static_cast<size_t>(k));
      if (epilogue) fused_away->insert(producer);
    }
    // A lone op that reads a splat constant is a group too: the splat becomes
    // a constant step of its program and needs no tensor (a large one would
    // otherwise be written out in full, LowerConstant).
    if (m.size() < 2 && !epilogue && !ReadsSplat(*m.back())) continue;
    formed[gi] = true;
    for (size_t i = 0; i + 1 < m.size(); ++i)
      if (!shared_broadcasts.count(m[i])) fused_away->insert(m[i]);
    for (const ir::Operation* member : m) {
      if (shared_broadcasts.count(member)) continue;
      grouped->insert(member);
      (*root_of)[member] = g.root;
    }
    (*groups)[g.root] = std::move(g);
  }
  // A shared broadcast is left out only where every group it joined formed;
  // otherwise it is written for the ops of the group that did not (the
  // others still read its operand in place).
  for (const auto& [op, in] : shared_broadcasts)
    if (std::all_of(in.begin(), in.end(), [&](size_t gi) { return formed[gi]; })) {
      fused_away->insert(op);
      grouped->insert(op);
    }
  for (const auto& op : block.ops)
    for (const auto& r : op->regions)
      for (const auto& b : r->blocks) PlanBlock(*b, users, dead, fused_away, groups, grouped, root_of);
}

// A splat constant that only group members read is a kConstant step of
// their programs (BuildGroup inlines every splat a member reads), so it needs
// no tensor of its own either. Rank-0 integer constants stay: the scalar path
// (scalar_plan.h) may compute a member in registers and read them there.
void DropInlinedConstants(const ir::Block& block, const Users& users, const std::set<const ir::Operation*>& grouped,
                          std::set<const ir::Operation*>* fused_away) {
  for (const auto& op : block.ops) {
    for (const auto& r : op->regions)
      for (const auto& b : r->blocks) DropInlinedConstants(*b, users, grouped, fused_away);
    if (!op_names::IsConstant(op->name) || op->results.size() != 1) continue;
    Scalar unused;
    auto it = users.find(op->result());
    if (it == users.end() || IsScalarType(op->result()->type) || !SplatConstant(op->result(), &unused)) continue;
    if (std::all_of(it->second.begin(), it->second.end(), [&](const ir::Operation* u) { return grouped.count(u); }))
      fused_away->insert(op.get());
  }
}

}  // namespace

namespace {

// Producer fusion into reductions: a single-operand reduce whose operand an
// elementwise chain of its block computes gets that chain as its "input"
// program (kernels/reference/reduction.cc), so the reduce reads the chain's
// inputs and the operand is never materialised. The chain is every
// elementwise op (and broadcast_in_dim) of the operand's shape the operand
// depends on within the block; values of another shape (a per-row mean
// broadcast back along the reduced axis) are read through the axis map.
// Members may have other users: those still compute them (normally, or
// recomputed inside their own group), because an elementwise op costs less
// than writing and reading back its result.
void PlanReduces(const ir::Block& block, std::map<const ir::Operation*, FusedGroup>* groups,
                 std::map<const ir::Operation*, std::vector<const ir::Operation*>>* members_of) {
  std::map<const ir::Operation*, size_t> order;
  for (size_t i = 0; i < block.ops.size(); ++i) order[block.ops[i].get()] = i;
  for (const auto& opp : block.ops) {
    const ir::Operation& op = *opp;
    for (const auto& r : op.regions)
      for (const auto& b : r->blocks) PlanReduces(*b, groups, members_of);
    if (!op_names::IsKernelOp(op.name, KernelId::kReduce) || op.operands.size() != 2 || op.results.size() != 1)
      continue;
    const ir::Value* operand = op.operands[0];
    const ir::Type& rt = op.result()->type;
    if (!operand->type.is_tensor() || operand->type.is_quantized() || !operand->type.HasStaticShape() ||
        !rt.is_tensor() || rt.is_quantized() || !rt.HasStaticShape())
      continue;
    const ir::Operation* def = operand->def;
    if (def == nullptr || !order.count(def) || Classify(*def) == Kind::kNone) continue;
    std::vector<const ir::Operation*> members;
    std::set<const ir::Operation*> seen{def};
    std::vector<const ir::Operation*> work{def};
    while (!work.empty() && members.size() < kMaxGroupOps) {
      const ir::Operation* m = work.back();
      work.pop_back();
      members.push_back(m);
      if (Classify(*m) == Kind::kBroadcast) continue;  // its operand is read through the axis map
      for (const ir::Value* v : m->operands) {
        const ir::Operation* d = v->def;
        if (d == nullptr || !order.count(d) || seen.count(d) || Classify(*d) == Kind::kNone ||
            v->type.dims != operand->type.dims)
          continue;
        seen.insert(d);
        work.push_back(d);
      }
    }
    if (!work.empty()) continue;  // too long a chain
    std::sort(members.begin(), members.end(),
              [&](const ir::Operation* a, const ir::Operation* b) { return order.at(a) < order.at(b); });
    FusedGroup g;
    if (!BuildGroup(members, &g)) continue;
    auto params = KernelParamsForOp(op);
    const ScalarProgram* prog = g.params.Program("body");
    if (!params.ok() || prog == nullptr) continue;
    KernelParams p = std::move(params.value());
    KernelAttr input;
    input.name = "input";
    input.has_program = true;
    input.program = *prog;
    p.attrs.push_back(std::move(input));
    if (const KernelAttr* map = g.params.Find("input_broadcast")) {
      KernelAttr m = *map;
      p.attrs.push_back(std::move(m));
    }
    KernelAttr dims;
    dims.name = "input_dims";
    dims.ints = operand->type.dims;
    p.attrs.push_back(std::move(dims));
    FusedGroup rg;
    rg.root = &op;
    rg.inputs = g.inputs;
    rg.inputs.push_back(op.operands[1]);  // the init value
    rg.params = std::move(p);
    rg.num_ops = g.num_ops + 1;
    (*groups)[&op] = std::move(rg);
    (*members_of)[&op] = std::move(members);
  }
}

// The uses that remain once fused reduces read their chains' inputs: a
// fused reduce no longer reads its operand, and a chain member nothing else
// needs (dead: added to `dead`) no longer reads its operands.
Users LiveUses(const Users& users, const std::map<const ir::Operation*, std::vector<const ir::Operation*>>& members_of,
               const std::map<const ir::Operation*, FusedGroup>& groups, std::set<const ir::Operation*>* dead) {
  Users live = users;
  auto drop = [&](const ir::Value* v, const ir::Operation* user) {
    auto& list = live[v];
    auto it = std::find(list.begin(), list.end(), user);
    if (it != list.end()) list.erase(it);
  };
  std::vector<const ir::Operation*> candidates;
  for (const auto& [reduce, members] : members_of) {
    drop(reduce->operands[0], reduce);
    // It reads its chain's inputs itself (so they stay materialised).
    for (const ir::Value* v : groups.at(reduce).inputs) live[v].push_back(reduce);
    candidates.insert(candidates.end(), members.begin(), members.end());
  }
  // Until nothing changes: a member whose result nobody reads is dead.
  for (bool changed = true; changed;) {
    changed = false;
    for (const ir::Operation* m : candidates) {
      if (dead->count(m) || !live[m->result()].empty()) continue;
      dead->insert(m);
      for (const ir::Value* v : m->operands) drop(v, m);
      changed = true;
    }
  }
  return live;
}

}  // namespace

StatusOr<ElementwiseFusion> ElementwiseFusion::Plan(const ir::Function& fn, bool fuse_reductions) {
  ElementwiseFusion f;
  Users all_uses;
  for (const auto& b : fn.body.blocks) CollectUses(*b, &all_uses);
  std::map<const ir::Operation*, std::vector<const ir::Operation*>> members_of;
  if (fuse_reductions)
    for (const auto& b : fn.body.blocks) PlanReduces(*b, &f.groups_, &members_of);
  std::set<const ir::Operation*> dead;
  const Users users = LiveUses(all_uses, members_of, f.groups_, &dead);
  // Dead chain members are computed only inside their reduces.
  f.fused_away_ = dead;
  std::set<const ir::Operation*> grouped = dead;
  std::map<const ir::Operation*, const ir::Operation*> root_of;
  for (const auto& b : fn.body.blocks) PlanBlock(*b, users, dead, &f.fused_away_, &f.groups_, &grouped, &root_of);
  for (const auto& b : fn.body.blocks) DropInlinedConstants(*b, users, grouped, &f.fused_away_);
  if (fuse_reductions)
    for (const auto& b : fn.body.blocks) fusion_internal::PlanRowBlocks(*b, users, root_of, &f.groups_, &f.fused_away_);
  return f;
}

}  // namespace kiln::compiler

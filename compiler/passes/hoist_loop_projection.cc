// The scan input-projection hoist (compiler/passes/hoist_loop_projection.h).
#include "compiler/passes/hoist_loop_projection.h"
#include "compiler/passes/rewrite_util.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace kiln::compiler {
namespace {

// The most bytes a hoisted product may hold (it replaces one step's worth).
constexpr int64_t kMaxHoistedBytes = int64_t{256} << 20;

// Hoisted only when a step's product has at most this many rows (the lhs's
// free elements): such a product streams all of w for little work (a
// matrix-vector product at batch 1), and one GEMM over the sequence reads w
// once. A step of many rows already reuses w within its own GEMM, and the
// whole-sequence product, too big for the cache, made the loop slower
// (the GRU of examples/models at batch 64: 2.3 ms in the loop, 2.6 ms
// hoisted, vm-bench medians).
constexpr int64_t kMaxStepRows = 16;


// True if `op` is `outer` or nested inside one of its regions.
bool Within(const ir::Operation* op, const ir::Operation* outer) {
  while (op != nullptr) {
    if (op == outer) return true;
    const ir::Block* b = op->parent;
    op = (b && b->parent) ? b->parent->parent : nullptr;
  }
  return false;
}

// The value outside `loop` that `v` (used at the top of its body) equals on
// every iteration: the loop operand of a body argument the body returns
// unchanged, or `v` itself when it is defined outside the loop; else null.
ir::Value* InvariantOutside(ir::Value* v, ir::Operation* loop, const ir::Block& body, const ir::Operation& ret) {
  if (v->def == nullptr) {
    if (v->owner_block == &body) {
      const size_t i = static_cast<size_t>(v->index);
      if (i < ret.operands.size() && ret.operands[i] == v && i < loop->operands.size()) return loop->operands[i];
      return nullptr;
    }
    const ir::Block* b = v->owner_block;
    const ir::Operation* owner = (b && b->parent) ? b->parent->parent : nullptr;
    return Within(owner, loop) ? nullptr : v;
  }
  return Within(v->def, loop) ? nullptr : v;
}

void ReplaceUses(ir::Block* block, const ir::Value* from, ir::Value* to) {
  for (auto& op : block->ops) {
    for (ir::Value*& v : op->operands)
      if (v == from) v = to;
    for (auto& r : op->regions)
      for (auto& b : r->blocks) ReplaceUses(b.get(), from, to);
  }
}

int CountUses(const ir::Block& block, const ir::Value* v) {
  int n = 0;
  for (const auto& op : block.ops) {
    n += static_cast<int>(std::count(op->operands.begin(), op->operands.end(), v));
    for (const auto& r : op->regions)
      for (const auto& b : r->blocks) n += CountUses(*b, v);
  }
  return n;
}

// The one op that reads `v` (once), or null.
ir::Operation* SoleUser(ir::Block& block, const ir::Value* v) {
  ir::Operation* user = nullptr;
  int uses = 0;
  for (auto& op : block.ops)
    for (const ir::Value* o : op->operands)
      if (o == v) {
        user = op.get();
        ++uses;
      }
  return uses == 1 && CountUses(block, v) == 1 ? user : nullptr;
}

// Elementwise ops that may move out with the product when their other
// operand is loop-invariant.
bool IsInvariantCombiner(const ir::Operation& op) {
  static const char* const kOps[] = {"stablehlo.add", "stablehlo.subtract", "stablehlo.multiply",
                                     "stablehlo.divide", "stablehlo.maximum", "stablehlo.minimum"};
  if (op.operands.size() != 2 || op.results.size() != 1) return false;
  return std::any_of(std::begin(kOps), std::end(kOps), [&](const char* n) { return op.name == n; });
}


std::unique_ptr<ir::Operation> NewOp(const char* name, const ir::Operation& at, ir::Block* block, ir::Type type) {
  auto op = std::make_unique<ir::Operation>();
  op->name = name;
  op->loc = at.loc;
  op->parent = block;
  auto r = std::make_unique<ir::Value>();
  r->type = std::move(type);
  r->def = op.get();
  op->results.push_back(std::move(r));
  return op;
}

// One hoistable dot of a loop body, found by Match.
struct Projection {
  ir::Operation* dot = nullptr;
  ir::Operation* slice = nullptr;    // the dynamic_slice of x
  ir::Operation* reshape = nullptr;  // dropping its unit dim, or null
  ir::Value* x = nullptr;            // x and w outside the loop
  ir::Value* w = nullptr;
  int64_t t = 0;                     // the sliced dim of x
};

std::optional<Projection> Match(ir::Operation* dot, ir::Operation* loop, const ir::Block& body,
                                const ir::Operation& ret) {
  if (dot->name != "stablehlo.dot_general" || dot->operands.size() != 2 || dot->results.size() != 1)
    return std::nullopt;
  Projection p;
  p.dot = dot;
  p.w = InvariantOutside(dot->operands[1], loop, body, ret);
  if (p.w == nullptr) return std::nullopt;
  ir::Value* lhs = dot->operands[0];
  ir::Operation* def = lhs->def;
  if (def && def->name == "stablehlo.reshape" && def->parent == &body && def->operands.size() == 1) {
    p.reshape = def;
    def = def->operands[0]->def;
  }
  if (!def || def->name != "stablehlo.dynamic_slice" || def->parent != &body || def->operands.size() < 2 ||
      def->results.size() != 1)
    return std::nullopt;
  p.slice = def;
  p.x = InvariantOutside(def->operands[0], loop, body, ret);
  if (p.x == nullptr) return std::nullopt;
  const ir::Type& xt = p.x->type;
  const ir::Type& st = def->result()->type;
  for (const ir::Type* ty : std::initializer_list<const ir::Type*>{&xt, &st, &lhs->type, &p.w->type, &dot->result()->type})
    if (!ty->is_tensor() || ty->is_quantized() || !ty->HasStaticShape()) return std::nullopt;
  if (st.dims.size() != xt.dims.size() || def->operands.size() != xt.dims.size() + 1) return std::nullopt;
  // Exactly one dim sliced, to size 1.
  int64_t sliced = -1;
  for (size_t d = 0; d < xt.dims.size(); ++d) {
    if (st.dims[d] == xt.dims[d]) continue;
    if (st.dims[d] != 1 || sliced >= 0) return std::nullopt;
    sliced = static_cast<int64_t>(d);
  }
  if (sliced < 0) return std::nullopt;
  p.t = sliced;
  if (p.reshape) {
    std::vector<int64_t> dropped = st.dims;
    dropped.erase(dropped.begin() + sliced);
    if (lhs->type.dims != dropped) return std::nullopt;
  }
  ir::Attribute* fields[4] = {DotDimField(dot, "lhs_batching_dimensions"), DotDimField(dot, "lhs_contracting_dimensions"),
                              DotDimField(dot, "rhs_batching_dimensions"), DotDimField(dot, "rhs_contracting_dimensions")};
  for (ir::Attribute* f : fields)
    if (f == nullptr) return std::nullopt;
  // Without the reshape the unit dim is the dot's own: it must stay free.
  const int64_t lrank = lhs->type.rank();
  std::vector<bool> named(static_cast<size_t>(lrank), false);
  for (int k = 0; k < 2; ++k)
    for (int64_t d : fields[k]->ints) {
      if (d < 0 || d >= lrank) return std::nullopt;  // the verifier's to report
      if (!p.reshape && d == sliced) return std::nullopt;
      named[static_cast<size_t>(d)] = true;
    }
  int64_t rows = 1;
  for (int64_t d = 0; d < lrank; ++d)
    if (!named[static_cast<size_t>(d)]) rows *= lhs->type.dims[static_cast<size_t>(d)];
  if (rows > kMaxStepRows) return std::nullopt;
  return p;
}

// Rewrites one match: the whole-sequence dot goes into `outer` before
// `loop` (at *loop_at, which moves on), the body's dot becomes a slice of it.
void Hoist(const Projection& p, ir::Operation* loop, ir::Block* outer, size_t* loop_at, ir::Block* body) {
  ir::Operation* dot = p.dot;
  const int64_t xrank = p.x->type.rank();
  // lhs dim k of the body's dot is x dim xdim(k).
  auto xdim = [&](int64_t k) { return p.reshape && k >= p.t ? k + 1 : k; };
  std::vector<int64_t> lb = DotDimField(dot, "lhs_batching_dimensions")->ints;
  std::vector<int64_t> lc = DotDimField(dot, "lhs_contracting_dimensions")->ints;
  for (int64_t& d : lb) d = xdim(d);
  for (int64_t& d : lc) d = xdim(d);
  const std::vector<int64_t>& rb = DotDimField(dot, "rhs_batching_dimensions")->ints;
  const std::vector<int64_t>& rc = DotDimField(dot, "rhs_contracting_dimensions")->ints;
  // The result: batching dims, x's free dims, w's free dims; t's place in it.
  std::vector<int64_t> ydims;
  for (int64_t d : lb) ydims.push_back(p.x->type.dims[d]);
  int64_t t_pos = -1;
  for (int64_t d = 0; d < xrank; ++d) {
    if (std::count(lb.begin(), lb.end(), d) || std::count(lc.begin(), lc.end(), d)) continue;
    if (d == p.t) t_pos = static_cast<int64_t>(ydims.size());
    ydims.push_back(p.x->type.dims[d]);
  }
  for (int64_t d = 0; d < p.w->type.rank(); ++d)
    if (!std::count(rb.begin(), rb.end(), d) && !std::count(rc.begin(), rc.end(), d)) ydims.push_back(p.w->type.dims[d]);

  ir::Type ytype = dot->result()->type;
  ytype.dims = ydims;
  auto whole = NewOp("stablehlo.dot_general", *dot, outer, ytype);
  whole->operands = {p.x, p.w};
  whole->attrs = dot->attrs;
  DotDimField(whole.get(), "lhs_batching_dimensions")->ints = lb;
  DotDimField(whole.get(), "lhs_contracting_dimensions")->ints = lc;
  ir::Value* ys = whole->result();
  outer->ops.insert(outer->ops.begin() + static_cast<std::ptrdiff_t>(*loop_at), std::move(whole));
  ++*loop_at;

  // The elementwise ops that only combine the step's product with
  // loop-invariant values (a bias add, a scale) move out too, as the same
  // op over the whole sequence: the body dot's result dim r is dim ymap(r)
  // of ys (the reshape form lacks t's unit dim).
  auto ymap = [&](int64_t r) { return p.reshape && r >= t_pos ? r + 1 : r; };
  ir::Value* step_value = dot->result();  // what the body's slice replaces
  std::vector<ir::Operation*> moved;
  for (;;) {
    ir::Operation* user = SoleUser(*body, step_value);
    if (!user || !IsInvariantCombiner(*user) || user->parent != body) break;
    const int side = user->operands[0] == step_value ? 0 : 1;
    ir::Value* other = user->operands[1 - side];
    if (other == step_value) break;
    // other = broadcast_in_dim(v, dims) of an invariant v, or invariant itself.
    ir::Value* v = InvariantOutside(other, loop, *body, *body->ops.back());
    std::vector<int64_t> dims;
    if (v != nullptr) {
      for (int64_t r = 0; r < other->type.rank(); ++r) dims.push_back(ymap(r));
    } else if (other->def && other->def->name == "stablehlo.broadcast_in_dim" && other->def->parent == body &&
               other->def->operands.size() == 1) {
      v = InvariantOutside(other->def->operands[0], loop, *body, *body->ops.back());
      const ir::Attribute* bd = other->def->GetAttr("broadcast_dimensions");
      auto ints = bd ? bd->AsInts() : std::nullopt;
      if (!ints || static_cast<int64_t>(ints->size()) != (v ? v->type.rank() : -1)) break;
      for (int64_t r : *ints) dims.push_back(ymap(r));
    }
    if (v == nullptr || v->type.is_quantized() || !v->type.HasStaticShape()) break;
    if (user->result()->type.element != ytype.element || user->result()->type.dims != step_value->type.dims) break;
    auto bcast = NewOp("stablehlo.broadcast_in_dim", *user, outer, ir::Type::Tensor(v->type.element, ydims));
    bcast->operands = {v};
    bcast->attrs.emplace_back("broadcast_dimensions", ir::IntArrayAttr(dims));
    ir::Value* bv = bcast->result();
    auto combined = NewOp(user->name.c_str(), *user, outer, ytype);
    combined->operands = side == 0 ? std::vector<ir::Value*>{ys, bv} : std::vector<ir::Value*>{bv, ys};
    combined->attrs = user->attrs;
    ys = combined->result();
    for (auto* added : {&bcast, &combined}) {
      outer->ops.insert(outer->ops.begin() + static_cast<std::ptrdiff_t>(*loop_at), std::move(*added));
      ++*loop_at;
    }
    moved.push_back(user);
    step_value = user->result();
  }

  // In the body: ys sliced at step i (the same index operand; 0 elsewhere).
  std::vector<std::unique_ptr<ir::Operation>> added;
  ir::Value* step = p.slice->operands[1 + static_cast<size_t>(p.t)];
  ir::Type zero_type = step->type;
  auto zero = NewOp("stablehlo.constant", *dot, body, zero_type);
  ir::Attribute za;
  za.kind = ir::Attribute::Kind::kDense;
  za.type = zero_type;
  za.dense_bytes.assign(StorageBytes(zero_type.element), 0);
  zero->attrs.emplace_back("value", std::move(za));
  ir::Value* zero_v = zero->result();
  added.push_back(std::move(zero));
  ir::Type row_type = ytype;
  row_type.dims[static_cast<size_t>(t_pos)] = 1;
  auto row = NewOp("stablehlo.dynamic_slice", *dot, body, row_type);
  row->operands.push_back(ys);
  for (int64_t d = 0; d < static_cast<int64_t>(ydims.size()); ++d) row->operands.push_back(d == t_pos ? step : zero_v);
  row->attrs.emplace_back("slice_sizes", ir::IntArrayAttr(row_type.dims));
  ir::Value* result = row->result();
  added.push_back(std::move(row));
  if (row_type.dims != dot->result()->type.dims) {
    auto reshape = NewOp("stablehlo.reshape", *dot, body, dot->result()->type);
    reshape->operands = {result};
    result = reshape->result();
    added.push_back(std::move(reshape));
  }
  ReplaceUses(body, step_value, result);
  auto at = std::find_if(body->ops.begin(), body->ops.end(), [&](const auto& op) { return op.get() == dot; });
  const auto pos = at - body->ops.begin();
  body->ops.insert(body->ops.begin() + pos, std::make_move_iterator(added.begin()), std::make_move_iterator(added.end()));
  // The body's dot and the ops moved with it (last first: each reads the
  // one before), then the reshape, slice and broadcasts nothing reads now.
  std::vector<ir::Operation*> maybe_dead = {p.reshape, p.slice};
  for (ir::Operation* m : moved)
    for (ir::Value* o : m->operands)
      if (o->def && o->def->parent == body && o->def->name == "stablehlo.broadcast_in_dim") maybe_dead.push_back(o->def);
  for (auto it = moved.rbegin(); it != moved.rend(); ++it)
    std::erase_if(body->ops, [&](const auto& op) { return op.get() == *it; });
  std::erase_if(body->ops, [&](const auto& op) { return op.get() == dot; });
  for (ir::Operation* dead : maybe_dead) {
    if (dead == nullptr || CountUses(*body, dead->result()) != 0) continue;
    std::erase_if(body->ops, [&](const auto& op) { return op.get() == dead; });
  }
}

void HoistInBlock(ir::Block* block) {
  for (size_t i = 0; i < block->ops.size(); ++i) {
    ir::Operation* op = block->ops[i].get();
    for (auto& r : op->regions)
      for (auto& b : r->blocks) HoistInBlock(b.get());
    if (op->name != "stablehlo.while" || op->regions.size() != 2 || op->regions[1]->blocks.size() != 1) continue;
    ir::Block* body = op->regions[1]->blocks[0].get();
    if (body->ops.empty()) continue;
    const ir::Operation& ret = *body->ops.back();
    if (ret.name != "stablehlo.return" || ret.operands.size() != body->args.size()) continue;
    // Each hoist moves the body's ops: look again from the top.
    for (bool again = true; again;) {
      again = false;
      for (size_t k = 0; k < body->ops.size() && !again; ++k) {
        auto p = Match(body->ops[k].get(), op, *body, ret);
        if (!p) continue;
        const double bytes = static_cast<double>(StorageBytes(p->dot->result()->type.element)) *
                             static_cast<double>(p->dot->result()->type.NumElements()) *
                             static_cast<double>(p->x->type.dims[static_cast<size_t>(p->t)]);
        if (bytes > static_cast<double>(kMaxHoistedBytes)) continue;
        Hoist(*p, op, block, &i, body);
        again = true;
      }
    }
  }
}

}  // namespace

Status HoistLoopInvariantProjections(ir::Module* module) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) HoistInBlock(b.get());
  return Status::Ok();
}

}  // namespace kiln::compiler

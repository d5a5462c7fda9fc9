// Control-flow graphs into one block: see structurize_cfg.h for the form.
#include "compiler/parse/structurize_cfg.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "kernels/common/element_type.h"

namespace kiln::ir {
namespace {

bool IsCfgOp(const std::string& name) { return name == "cf.br" || name == "cf.cond_br"; }
bool IsTerminator(const std::string& name) { return IsCfgOp(name) || name == "func.return"; }

class Structurizer {
 public:
  Structurizer(Function* f, CfgError* error) : f_(*f), error_(*error) {}

  bool Run() {
    const size_t n = f_.body.blocks.size();
    for (size_t k = 0; k < n; ++k) index_of_[f_.body.blocks[k].get()] = k;
    for (size_t k = 1; k < n; ++k) by_label_[f_.body.blocks[k]->label] = k;
    if (!ReadSuccessors()) return false;
    Dominators();
    if (!FindSlots()) return false;
    Build();
    return true;
  }

 private:
  bool Fail(Location loc, std::string message) {
    error_.loc = loc;
    error_.message = std::move(message);
    return false;
  }

  // Each block's terminator and successors (with the operands they pass).
  struct Edge {
    size_t target;
    std::vector<Value*> args;
  };
  bool ReadSuccessors() {
    const size_t n = f_.body.blocks.size();
    edges_.resize(n);
    for (size_t k = 0; k < n; ++k) {
      Block& b = *f_.body.blocks[k];
      if (b.ops.empty() || !IsTerminator(b.ops.back()->name)) {
        Location at = b.ops.empty() ? f_.loc : b.ops.back()->loc;
        return Fail(at, "block " + Name(k) + " must end with cf.br, cf.cond_br or return");
      }
      for (size_t i = 0; i + 1 < b.ops.size(); ++i)
        if (IsTerminator(b.ops[i]->name))
          return Fail(b.ops[i]->loc, b.ops[i]->name + " must be the last operation of its block");
      const Operation& t = *b.ops.back();
      if (t.name == "func.return") {
        if (t.operands.size() != f_.result_types.size())
          return Fail(t.loc, "return has " + std::to_string(t.operands.size()) + " operands, but the function returns " +
                                 std::to_string(f_.result_types.size()) + " values");
        for (size_t i = 0; i < t.operands.size(); ++i)
          if (t.operands[i]->type != f_.result_types[i])
            return Fail(t.loc, "return operand " + std::to_string(i) + " has type " + t.operands[i]->type.ToString() +
                                   ", but the function returns " + f_.result_types[i].ToString());
        continue;
      }
      auto target = [&](const char* attr, std::vector<Value*> args) -> bool {
        const Attribute* a = t.GetAttr(attr);
        auto it = a ? by_label_.find(a->str) : by_label_.end();
        if (it == by_label_.end())
          return Fail(t.loc, t.name + " branches to ^" + (a ? a->str : std::string("?")) +
                                 ", which is not a block of this function (the entry block cannot be a successor)");
        const Block& s = *f_.body.blocks[it->second];
        if (args.size() != s.args.size())
          return Fail(t.loc, t.name + " passes " + std::to_string(args.size()) + " values to ^" + s.label + ", which takes " +
                                 std::to_string(s.args.size()));
        for (size_t i = 0; i < args.size(); ++i)
          if (args[i]->type != s.args[i]->type)
            return Fail(t.loc, t.name + ": value " + std::to_string(i) + " for ^" + s.label + " has type " +
                                   args[i]->type.ToString() + ", but the block argument is " + s.args[i]->type.ToString());
        edges_[k].push_back({it->second, std::move(args)});
        return true;
      };
      if (t.name == "cf.br") {
        if (!target("dest", t.operands)) return false;
        continue;
      }
      const Attribute* count = t.GetAttr("true_operand_count");
      if (t.operands.empty() || !count || count->i < 0 || static_cast<size_t>(count->i) > t.operands.size() - 1)
        return Fail(t.loc, "cf.cond_br needs a condition and its successors' operands");
      const Type& c = t.operands[0]->type;
      if (!c.is_tensor() || c.rank() != 0 || c.element != ElementType::kI1)
        return Fail(t.loc, "cf.cond_br's condition must be tensor<i1> (or i1 read by tensor.extract), not " + c.ToString());
      auto first = t.operands.begin() + 1, split = first + count->i;
      if (!target("true_dest", {first, split}) || !target("false_dest", {split, t.operands.end()})) return false;
    }
    return true;
  }

  // dom_[b][a]: block a dominates block b (reachable blocks only).
  void Dominators() {
    const size_t n = f_.body.blocks.size();
    reachable_.assign(n, false);
    std::vector<size_t> stack = {0};
    reachable_[0] = true;
    std::vector<std::vector<size_t>> preds(n);
    while (!stack.empty()) {
      size_t k = stack.back();
      stack.pop_back();
      for (const Edge& e : edges_[k]) {
        preds[e.target].push_back(k);
        if (!reachable_[e.target]) reachable_[e.target] = true, stack.push_back(e.target);
      }
    }
    dom_.assign(n, std::vector<bool>(n, true));
    dom_[0].assign(n, false);
    dom_[0][0] = true;
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t b = 1; b < n; ++b) {
        if (!reachable_[b]) continue;
        std::vector<bool> d(n, true);
        for (size_t p : preds[b])
          for (size_t a = 0; a < n; ++a) d[a] = d[a] && dom_[p][a];
        d[b] = true;
        if (d != dom_[b]) dom_[b] = std::move(d), changed = true;
      }
    }
  }

  // The values the state carries: every argument of a block after the
  // entry, and every op result read in another block than its own.
  bool FindSlots() {
    const size_t n = f_.body.blocks.size();
    auto add = [&](Value* v, size_t home) {
      if (slot_of_.count(v)) return;
      slot_of_[v] = slots_.size();
      slots_.push_back(v);
      slot_home_.push_back(home);
    };
    for (size_t k = 1; k < n; ++k)
      for (auto& a : f_.body.blocks[k]->args) add(a.get(), k);
    for (size_t k = 0; k < n; ++k) {
      std::function<bool(const Operation&)> visit = [&](const Operation& op) -> bool {
        for (Value* v : op.operands) {
          size_t home = HomeBlock(v);
          if (home == SIZE_MAX || home == k) continue;  // a function argument, or local
          if (reachable_[k] && !dom_[k][home])
            return Fail(op.loc, op.name + " reads a value defined in block " + Name(home) +
                                    ", which does not dominate block " + Name(k));
          add(v, home);
        }
        for (const auto& r : op.regions)
          for (const auto& b : r->blocks)
            for (const auto& inner : b->ops)
              if (!visit(*inner)) return false;
        return true;
      };
      for (const auto& op : f_.body.blocks[k]->ops)
        if (!visit(*op)) return false;
    }
    for (Value* v : slots_) {
      const Type& t = v->type;
      if (!t.is_tensor() || !t.HasStaticShape() || t.is_quantized()) {
        Location at = v->def ? v->def->loc : f_.loc;
        return Fail(at, "a value carried between blocks must be a tensor of static shape, not " + t.ToString());
      }
    }
    for (const Type& t : f_.result_types)
      if (!t.is_tensor() || !t.HasStaticShape() || t.is_quantized())
        return Fail(f_.loc, "a function written as blocks must return tensors of static shape, not " + t.ToString());
    return true;
  }

  // The block that defines v: its op's outermost enclosing top-level block,
  // or its argument's block; SIZE_MAX for the entry block's values.
  size_t HomeBlock(const Value* v) const {
    const Block* b = v->def ? v->def->parent : v->owner_block;
    while (b && b->parent && b->parent->parent) b = b->parent->parent->parent;  // op -> block -> region -> op
    auto it = index_of_.find(b);
    // The entry block's values (its arguments and op results) stay outside
    // the loop (Build), readable everywhere: not carried.
    if (it == index_of_.end() || it->second == 0) return SIZE_MAX;
    return it->second;
  }

  std::string Name(size_t k) const { return k == 0 ? "the entry block" : "^" + f_.body.blocks[k]->label; }

  // --- building the one block ---

  static std::unique_ptr<Operation> NewOp(std::string name, Location loc) { return NewOperation(std::move(name), loc); }
  Value* Append(Block* b, std::unique_ptr<Operation> op) {
    op->parent = b;
    b->ops.push_back(std::move(op));
    Operation* o = b->ops.back().get();
    return o->results.empty() ? nullptr : o->result();
  }
  Value* Constant(Block* b, Type t, int64_t value, Location loc) {
    auto op = NewOp("stablehlo.constant", loc);
    const size_t w = StorageBytes(t.element);
    std::vector<uint8_t> one(w, 0);
    if (value) std::memcpy(one.data(), &value, std::min(w, sizeof value));
    op->attrs.emplace_back("value", DenseSplat(t, one.data()));
    AddResult(op.get(), t);
    return Append(b, std::move(op));
  }
  std::unique_ptr<Region> NewRegion(Operation* parent) {
    auto r = std::make_unique<Region>();
    r->parent = parent;
    auto b = std::make_unique<Block>();
    b->parent = r.get();
    r->blocks.push_back(std::move(b));
    return r;
  }
  Value* AddArg(Block* b, Type t) {
    auto v = std::make_unique<Value>();
    v->type = std::move(t);
    v->owner_block = b;
    v->index = static_cast<int>(b->args.size());
    b->args.push_back(std::move(v));
    return b->args.back().get();
  }
  void Return(Block* b, std::vector<Value*> values, Location loc) {
    auto r = NewOp("stablehlo.return", loc);
    r->operands = std::move(values);
    Append(b, std::move(r));
  }

  void Build() {
    const size_t n = f_.body.blocks.size();
    const Location loc = f_.body.blocks[0]->ops.back()->loc;
    const Type index_type = Type::Tensor(ElementType::kSI32, {});
    std::vector<Type> state_types = {index_type};
    for (Value* v : slots_) state_types.push_back(v->type);
    for (const Type& t : f_.result_types) state_types.push_back(t);
    const size_t results_at = 1 + slots_.size();

    // The entry block runs once, first (nothing branches to it): its ops
    // stay in the function's one block, before the loop, where every block
    // reads their values directly; its terminator gives the loop's first
    // state (the placeholders, its successor's arguments set).
    auto entry = std::make_unique<Block>();
    entry->parent = &f_.body;
    Block* e = entry.get();
    Block& first = *f_.body.blocks[0];
    for (auto& a : first.args) {
      a->owner_block = e;
      e->args.push_back(std::move(a));
    }
    std::unique_ptr<Operation> first_term = std::move(first.ops.back());
    first.ops.pop_back();
    for (auto& op : first.ops) {
      op->parent = e;
      e->ops.push_back(std::move(op));
    }
    first.ops.clear();
    std::vector<Value*> placeholders;
    for (const Type& t : state_types) placeholders.push_back(Constant(e, t, 0, loc));
    std::vector<Value*> initial = Leave(*first_term, 0, e, [&](Value* v) { return Current(v, 0, placeholders); },
                                        placeholders, results_at);
    dropped_.push_back(std::move(first_term));

    auto loop = NewOp("stablehlo.while", loc);
    loop->operands = initial;
    for (const Type& t : state_types) AddResult(loop.get(), t);
    // cond: index != n (the exit).
    auto cond = NewRegion(loop.get());
    Block* cb = cond->blocks[0].get();
    std::vector<Value*> cargs;
    for (const Type& t : state_types) cargs.push_back(AddArg(cb, t));
    Value* exit = Constant(cb, index_type, static_cast<int64_t>(n), loc);
    auto ne = NewOp("stablehlo.compare", loc);
    ne->attrs.emplace_back("comparison_direction", EnumAttr("NE"));
    ne->operands = {cargs[0], exit};
    AddResult(ne.get(), Type::Tensor(ElementType::kI1, {}));
    Return(cb, {Append(cb, std::move(ne))}, loc);
    // body: case (index) { the entry's branch, never taken | block 1 | ... }.
    auto body = NewRegion(loop.get());
    Block* bb = body->blocks[0].get();
    std::vector<Value*> state;
    for (const Type& t : state_types) state.push_back(AddArg(bb, t));
    auto sw = NewOp("stablehlo.case", loc);
    sw->operands = {state[0]};
    for (const Type& t : state_types) AddResult(sw.get(), t);
    auto unused = NewRegion(sw.get());
    Return(unused->blocks[0].get(), state, loc);
    sw->regions.push_back(std::move(unused));
    for (size_t k = 1; k < n; ++k) sw->regions.push_back(Branch(k, sw.get(), state, results_at));
    Operation* sw_op = sw.get();
    Append(bb, std::move(sw));
    std::vector<Value*> next;
    for (auto& r : sw_op->results) next.push_back(r.get());
    Return(bb, next, loc);
    loop->regions.push_back(std::move(cond));
    loop->regions.push_back(std::move(body));
    Operation* loop_op = loop.get();
    Append(e, std::move(loop));
    auto ret = NewOp("func.return", loc);
    for (size_t i = 0; i < f_.result_types.size(); ++i) ret->operands.push_back(loop_op->result(static_cast<int>(results_at + i)));
    Append(e, std::move(ret));

    // The old blocks' ops now live in the branches; the values they owned
    // (block arguments) are replaced, so the blocks may go.
    keep_alive_ = std::move(f_.body.blocks);
    f_.body.blocks.clear();
    f_.body.blocks.push_back(std::move(entry));
  }

  // What value v is inside block k's code, where `state` holds the carried
  // values: a carried value from the state, unless block k defines it (its
  // own ops read it directly); anything else as it is.
  Value* Current(Value* v, size_t k, const std::vector<Value*>& state) const {
    auto it = slot_of_.find(v);
    if (it == slot_of_.end()) return v;
    if (v->def && slot_home_[it->second] == k) return v;
    return state[1 + it->second];
  }

  // The state block k's terminator `term` leaves, its new ops appended to
  // `out`: the successor's index and arguments set, every other slot as
  // `cur` reads it, the results from `state` (or a return's operands).
  std::vector<Value*> Leave(const Operation& term, size_t k, Block* out, const std::function<Value*(Value*)>& cur,
                            const std::vector<Value*>& state, size_t results_at) {
    const Location loc = term.loc;
    const Type index_type = Type::Tensor(ElementType::kSI32, {});
    auto after = [&](const Edge& edge) {
      std::vector<Value*> s(state.size());
      s[0] = Constant(out, index_type, static_cast<int64_t>(edge.target), loc);
      for (size_t i = 0; i < slots_.size(); ++i) s[1 + i] = cur(slots_[i]);
      for (size_t r = results_at; r < state.size(); ++r) s[r] = state[r];
      const Block& target = *f_.body.blocks[edge.target];
      for (size_t a = 0; a < edge.args.size(); ++a) s[1 + slot_of_.at(target.args[a].get())] = cur(edge.args[a]);
      return s;
    };
    if (term.name == "func.return") {
      std::vector<Value*> s(state.size());
      s[0] = Constant(out, index_type, static_cast<int64_t>(f_.body.blocks.size()), loc);
      for (size_t i = 0; i < slots_.size(); ++i) s[1 + i] = cur(slots_[i]);
      for (size_t r = 0; r < term.operands.size() && results_at + r < state.size(); ++r)
        s[results_at + r] = cur(term.operands[r]);
      return s;
    }
    if (term.name == "cf.br") return after(edges_[k][0]);
    // cf.cond_br: the two states, chosen by the condition.
    std::vector<Value*> t = after(edges_[k][0]), f = after(edges_[k][1]), s(state.size());
    Value* c = cur(term.operands[0]);
    for (size_t i = 0; i < state.size(); ++i) {
      if (t[i] == f[i]) {
        s[i] = t[i];
        continue;
      }
      auto sel = NewOp("stablehlo.select", loc);
      sel->operands = {c, t[i], f[i]};
      AddResult(sel.get(), t[i]->type);
      s[i] = Append(out, std::move(sel));
    }
    return s;
  }

  // Block k as a case branch: its ops (their reads of carried values
  // redirected to `state`), then the state its terminator leaves.
  std::unique_ptr<Region> Branch(size_t k, Operation* parent, const std::vector<Value*>& state, size_t results_at) {
    auto region = NewRegion(parent);
    Block* out = region->blocks[0].get();
    Block& in = *f_.body.blocks[k];
    auto cur = [&](Value* v) { return Current(v, k, state); };
    std::function<void(Operation&)> redirect = [&](Operation& op) {
      for (Value*& v : op.operands) v = cur(v);
      for (auto& r : op.regions)
        for (auto& b : r->blocks)
          for (auto& inner : b->ops) redirect(*inner);
    };
    std::unique_ptr<Operation> term = std::move(in.ops.back());
    in.ops.pop_back();
    for (auto& op : in.ops) {
      redirect(*op);
      op->parent = out;
      out->ops.push_back(std::move(op));
    }
    in.ops.clear();
    Return(out, Leave(*term, k, out, cur, state, results_at), term->loc);
    dropped_.push_back(std::move(term));
    return region;
  }

  Function& f_;
  CfgError& error_;
  std::map<const Block*, size_t> index_of_;
  std::map<std::string, size_t> by_label_;
  std::vector<std::vector<Edge>> edges_;
  std::vector<bool> reachable_;
  std::vector<std::vector<bool>> dom_;
  std::map<const Value*, size_t> slot_of_;
  std::vector<Value*> slots_;
  std::vector<size_t> slot_home_;  // the block defining each slot's value
  // The old blocks and terminators: they own values no op reads any more.
  std::vector<std::unique_ptr<Block>> keep_alive_;
  std::vector<std::unique_ptr<Operation>> dropped_;
};

}  // namespace

bool NeedsStructurizing(const Function& f) {
  if (f.body.blocks.size() > 1) return true;
  return f.body.blocks.size() == 1 && !f.body.blocks[0]->ops.empty() && IsCfgOp(f.body.blocks[0]->ops.back()->name);
}

bool StructurizeCfg(Function* f, CfgError* error) {
  if (f->body.blocks.size() > kMaxFunctionBlocks) {
    error->loc = f->loc;
    error->message = "a function may have at most " + std::to_string(kMaxFunctionBlocks) + " blocks";
    return false;
  }
  return Structurizer(f, error).Run();
}

}  // namespace kiln::ir

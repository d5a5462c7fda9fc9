// Helpers of the IR -> IR rewrites that replace one op by several
// (compiler/passes/legalize_deprecated.cc, legalize_linalg_calls.cc): new
// ops at the replaced op's location, spliced in where it stood; attribute
// builders and accessors the other rewrites share.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir.h"
#include "compiler/ir_emit.h"
#include "kernels/common/scalar_program.h"
#include "kernels/kernel_table.h"
#include "kernels/scalar/scalar.h"

namespace kiln::compiler {

using Ops = std::vector<std::unique_ptr<ir::Operation>>;

// Adds, per value, how many operands of `block`'s ops (nested regions
// included) read it: the folds count before and after to drop the ops they
// left unread.
inline void CountUses(const ir::Block& block, std::map<const ir::Value*, int>* uses) {
  for (const auto& op : block.ops) {
    for (const ir::Value* v : op->operands) ++(*uses)[v];
    for (const auto& r : op->regions)
      for (const auto& b : r->blocks) CountUses(*b, uses);
  }
}

// The int-array field `name` (lhs_batching_dimensions, ...) of a
// dot_general's dot_dimension_numbers, or null.
inline ir::Attribute* DotDimField(ir::Operation* dot, std::string_view name) {
  for (auto& [an, a] : dot->attrs)
    if (an == "dot_dimension_numbers" && a.kind == ir::Attribute::Kind::kStruct)
      for (auto& [fn, f] : a.fields)
        if (fn == name && f.kind == ir::Attribute::Kind::kIntArray) return &f;
  return nullptr;
}

inline std::string Dims(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + (d[i] < 0 ? std::string("?") : std::to_string(d[i]));
  return s + "]";
}

// A new op named `name` at `at`'s place, with one result of `type`.
inline ir::Operation* NewOp(Ops* ops, const ir::Operation& at, ir::Block* block, std::string_view name,
                     std::vector<ir::Value*> operands, ir::Type type) {
  auto op = std::make_unique<ir::Operation>();
  op->name = std::string(name);
  op->loc = at.loc;
  op->parent = block;
  op->operands = std::move(operands);
  auto r = std::make_unique<ir::Value>();
  r->type = std::move(type);
  r->def = op.get();
  op->results.push_back(std::move(r));
  ops->push_back(std::move(op));
  return ops->back().get();
}

// Gives `op` a fresh first result of `wide` type and appends to `after` a
// convert from it to the old result's type, which takes over the old
// result (its users read the convert's now). The widening rewrites'
// narrowing step (widen_narrow_factorizations.cc, widen_narrow_contractions.cc).
inline void NarrowResultAfter(Ops* after, ir::Operation& op, ir::Block* block, const ir::Type& wide) {
  auto fresh = std::make_unique<ir::Value>();
  fresh->type = wide;
  fresh->def = &op;
  std::unique_ptr<ir::Value> old = std::move(op.results[0]);
  op.results[0] = std::move(fresh);
  ir::Operation* narrow =
      NewOp(after, op, block, std::string(ScalarOpName(ScalarOp::kConvert)), {op.results[0].get()}, old->type);
  narrow->results[0] = std::move(old);
  narrow->results[0]->def = narrow;
  narrow->results[0]->index = 0;
}

// Puts `ops` where block->ops[at] stands; the last of them takes over the
// old op's results (same types). Returns how many ops stand there now.
inline size_t Splice(ir::Block* block, size_t at, Ops ops) {
  ir::Operation& old = *block->ops[at];
  ir::Operation& last = *ops.back();
  last.results = std::move(old.results);
  for (auto& r : last.results) r->def = &last;
  const size_t n = ops.size();
  block->ops[at] = std::move(ops.back());
  ops.pop_back();
  block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at), std::make_move_iterator(ops.begin()),
                    std::make_move_iterator(ops.end()));
  return n;
}

// An emitter (compiler/ir_emit.h) adding ops at `at`'s place to `ops`.
inline ir::EmitFn Emitter(Ops* ops, const ir::Operation& at, ir::Block* block) {
  return [ops, &at, block](std::string name, std::vector<ir::Value*> operands, ir::Type type) {
    return NewOp(ops, at, block, name, std::move(operands), std::move(type));
  };
}

// A 1-D si32 tensor of the sizes `dims`: the static ones as constants,
// each dynamic one (`?`) read when it runs from the same dimension of
// `source` (stablehlo.get_dimension_size). What dynamic_broadcast_in_dim
// and dynamic_gather take as their shape operand.
inline ir::Value* ShapeTensor(Ops* ops, const ir::Operation& at, ir::Block* block, const std::vector<int64_t>& dims,
                              ir::Value* source) {
  const ir::EmitFn emit = Emitter(ops, at, block);
  return ir::ShapeTensor(
      emit, dims, [&](size_t k) { return ir::DimensionOf(emit, source, static_cast<int64_t>(k), ElementType::kSI32); },
      ElementType::kSI32);
}

// `v` broadcast to `dims` (broadcast_in_dim with `broadcast_dimensions`);
// when some of `dims` are dynamic, dynamic_broadcast_in_dim to the sizes
// `source` has there (ShapeTensor).
inline ir::Value* BroadcastTo(Ops* ops, const ir::Operation& at, ir::Block* block, ir::Value* v,
                              const std::vector<int64_t>& dims, std::vector<int64_t> broadcast_dimensions,
                              ir::Value* source = nullptr) {
  const ir::EmitFn emit = Emitter(ops, at, block);
  ir::DynamicSizeFn dynamic;
  if (source != nullptr)
    dynamic = [&](size_t k) { return ir::DimensionOf(emit, source, static_cast<int64_t>(k), ElementType::kSI32); };
  return ir::BroadcastTo(emit, v, broadcast_dimensions, dims, dynamic, ElementType::kSI32);
}

// A rank-0 constant `value` of `e` (an integer, also for float and
// complex types), broadcast to `dims` (static, or dynamic where `source`
// has those sizes: BroadcastTo).
inline ir::Value* Splat(Ops* ops, const ir::Operation& at, ir::Block* block, ElementType e,
                        const std::vector<int64_t>& dims, int64_t value, ir::Value* source = nullptr) {
  ir::Attribute v;
  v.kind = ir::Attribute::Kind::kDense;
  v.type = ir::Type::Tensor(e, {});
  v.dense_bytes.resize(StorageBytes(e));
  ref::StoreScalar(e, Scalar{value, static_cast<double>(value), 0}, v.dense_bytes.data());
  ir::Operation* c = NewOp(ops, at, block, ScalarOpName(ScalarOp::kConstant), {}, ir::Type::Tensor(e, {}));
  c->attrs.emplace_back("value", std::move(v));
  return BroadcastTo(ops, at, block, c->result(), dims, {}, source);
}

// dot_general with the given dimension numbers; the result has `dims`.
inline ir::Value* DotGeneral(Ops* ops, const ir::Operation& at, ir::Block* block, ir::Value* lhs, ir::Value* rhs,
                      std::vector<int64_t> lb, std::vector<int64_t> rb, std::vector<int64_t> lc,
                      std::vector<int64_t> rc, std::vector<int64_t> dims) {
  ir::Operation* d = NewOp(ops, at, block, KernelName(KernelId::kDotGeneral), {lhs, rhs},
                           ir::Type::Tensor(lhs->type.element, std::move(dims)));
  ir::Attribute nums;
  nums.kind = ir::Attribute::Kind::kStruct;
  nums.str = "#stablehlo.dot";
  nums.fields.emplace_back("lhs_batching_dimensions", ir::IntArrayAttr(std::move(lb)));
  nums.fields.emplace_back("rhs_batching_dimensions", ir::IntArrayAttr(std::move(rb)));
  nums.fields.emplace_back("lhs_contracting_dimensions", ir::IntArrayAttr(std::move(lc)));
  nums.fields.emplace_back("rhs_contracting_dimensions", ir::IntArrayAttr(std::move(rc)));
  d->attrs.emplace_back("dot_dimension_numbers", std::move(nums));
  return d->result();
}

// Walks every op of `block`, the blocks of its regions first, calling
// rewrite(block, i) on each, which returns how many ops stand where
// block->ops[i] stood (1 when it left the op alone).
template <typename Rewrite>
void RewriteEachOp(ir::Block* block, const Rewrite& rewrite) {
  for (size_t i = 0; i < block->ops.size();) {
    for (auto& region : block->ops[i]->regions)
      for (auto& b : region->blocks) RewriteEachOp(b.get(), rewrite);
    i += rewrite(block, i);
  }
}

// Puts `before` in front of block->ops[at] and `after` behind it, the op
// itself staying; returns how many ops stand there now.
inline size_t SpliceAround(ir::Block* block, size_t at, Ops before, Ops after) {
  const size_t n = before.size() + 1 + after.size();
  block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at + 1), std::make_move_iterator(after.begin()),
                    std::make_move_iterator(after.end()));
  block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at), std::make_move_iterator(before.begin()),
                    std::make_move_iterator(before.end()));
  return n;
}

// Gives `op` a fresh result k of `type` and returns the old one, uses and
// all, for an op after it to take over (TakeOver).
inline std::unique_ptr<ir::Value> ReplaceResult(ir::Operation* op, size_t k, ir::Type type) {
  std::unique_ptr<ir::Value> old = std::move(op->results[k]);
  auto fresh = std::make_unique<ir::Value>();
  fresh->type = std::move(type);
  fresh->def = op;
  fresh->index = static_cast<int>(k);
  op->results[k] = std::move(fresh);
  return old;
}

// Makes `v` (from ReplaceResult) the only result of `taker` (made by NewOp).
inline void TakeOver(ir::Operation* taker, std::unique_ptr<ir::Value> v) {
  v->def = taker;
  v->index = 0;
  taker->results[0] = std::move(v);
}

// Like Splice, for an op of several results: takers[k] (among `ops`, one
// result each, which no other new op reads) takes over the old op's result k.
inline size_t SpliceTakingOver(ir::Block* block, size_t at, Ops ops, const std::vector<ir::Operation*>& takers) {
  ir::Operation& old = *block->ops[at];
  for (size_t k = 0; k < takers.size(); ++k) {
    takers[k]->results[0] = std::move(old.results[k]);
    takers[k]->results[0]->def = takers[k];
    takers[k]->results[0]->index = 0;
  }
  const size_t n = ops.size();
  block->ops.erase(block->ops.begin() + static_cast<std::ptrdiff_t>(at));
  block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at), std::make_move_iterator(ops.begin()),
                    std::make_move_iterator(ops.end()));
  return n;
}

}  // namespace kiln::compiler

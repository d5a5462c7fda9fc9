// Inlines func.call ops inside the bodies of ops whose bodies become scalar
// programs (reduce, reduce_window, sort, scatter, select_and_scatter, map,
// the collectives' reducers, ...; compiler/passes/legalize.h). JAX and the
// StableHLO tools print such a body as a call to a private function when the
// reducer was a named computation; a scalar program has no calls, so the
// callee's ops take the call's place. Control flow (while, if, case) keeps
// its calls: the VM runs those as calls.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/op_names.h"
#include "compiler/passes/legalize.h"

namespace kiln::compiler {
namespace {

// Regions the VM runs as code (while, if, case, async_start) keep calls.
bool KeepsCalls(const ir::Operation& op) { return op_names::HasVmRegions(op.name); }

bool IsCall(const ir::Operation& op) { return op.name == op_names::kFuncCall; }
bool IsReturn(const ir::Operation& op) { return op_names::IsReturn(op.name); }

using ValueMap = std::map<const ir::Value*, ir::Value*>;

ir::Value* Mapped(const ValueMap& map, ir::Value* v) {
  auto it = map.find(v);
  return it == map.end() ? v : it->second;
}

std::unique_ptr<ir::Operation> CloneOp(const ir::Operation& op, ir::Block* parent, ValueMap* map);

void CloneRegion(const ir::Region& from, ir::Region* to, ir::Operation* parent, ValueMap* map) {
  to->parent = parent;
  for (const auto& b : from.blocks) {
    auto nb = std::make_unique<ir::Block>();
    nb->parent = to;
    for (const auto& a : b->args) {
      auto na = std::make_unique<ir::Value>(*a);
      na->owner_block = nb.get();
      (*map)[a.get()] = na.get();
      nb->args.push_back(std::move(na));
    }
    for (const auto& o : b->ops) nb->ops.push_back(CloneOp(*o, nb.get(), map));
    to->blocks.push_back(std::move(nb));
  }
}

std::unique_ptr<ir::Operation> CloneOp(const ir::Operation& op, ir::Block* parent, ValueMap* map) {
  auto c = std::make_unique<ir::Operation>();
  c->name = op.name;
  c->attrs = op.attrs;
  c->loc = op.loc;
  c->parent = parent;
  for (ir::Value* v : op.operands) c->operands.push_back(Mapped(*map, v));
  for (const auto& r : op.results) {
    auto nr = std::make_unique<ir::Value>(*r);
    nr->def = c.get();
    (*map)[r.get()] = nr.get();
    c->results.push_back(std::move(nr));
  }
  for (const auto& r : op.regions) {
    auto nr = std::make_unique<ir::Region>();
    CloneRegion(*r, nr.get(), c.get(), map);
    c->regions.push_back(std::move(nr));
  }
  return c;
}

void ReplaceUses(ir::Block* block, const ValueMap& map) {
  for (auto& op : block->ops) {
    for (auto*& v : op->operands) v = Mapped(map, v);
    for (auto& r : op->regions)
      for (auto& b : r->blocks) ReplaceUses(b.get(), map);
  }
}

// A recursive function would inline forever: past this many inlined calls
// in one body, the body is refused.
constexpr int kMaxInlinedCalls = 4096;

// Inlines every call in `block` and the blocks nested in it. A call's copy
// takes its place and is scanned in turn, so calls in the callee are
// inlined too.
Status InlineBlock(const ir::Module& module, ir::Block* block, int* budget, const ErrorFormatter& format) {
  for (size_t i = 0; i < block->ops.size();) {
    ir::Operation& op = *block->ops[i];
    if (!IsCall(op)) {
      for (auto& r : op.regions)
        for (auto& b : r->blocks) KILN_RETURN_IF_ERROR(InlineBlock(module, b.get(), budget, format));
      ++i;
      continue;
    }
    const ir::Attribute* callee_attr = op.GetAttr("callee");
    const std::string name = callee_attr ? callee_attr->str : std::string();
    const ir::Function* callee = module.FindFunction(name);
    if (!callee || callee->body.blocks.size() != 1)
      return InvalidArgument(format(op.loc, "func.call in a body: no function @" + name + " with a body to inline"));
    if (--*budget < 0)
      return InvalidArgument(format(op.loc, "func.call @" + name + " in a body: more than " +
                                                std::to_string(kMaxInlinedCalls) +
                                                " calls to inline (a recursive function cannot be inlined)"));
    const ir::Block& body = *callee->body.blocks[0];
    if (body.args.size() != op.operands.size() || body.ops.empty() || !IsReturn(*body.ops.back()) ||
        body.ops.back()->operands.size() != op.results.size())
      return InvalidArgument(
          format(op.loc, "func.call @" + name + " in a body does not match the callee's arguments and results"));
    ValueMap map;
    for (size_t a = 0; a < body.args.size(); ++a) map[body.args[a].get()] = op.operands[a];
    std::vector<std::unique_ptr<ir::Operation>> copies;
    for (size_t k = 0; k + 1 < body.ops.size(); ++k) copies.push_back(CloneOp(*body.ops[k], block, &map));
    ValueMap results;
    for (size_t r = 0; r < op.results.size(); ++r)
      results[op.results[r].get()] = Mapped(map, body.ops.back()->operands[r]);
    // The call's results are used only after it, in this block or the
    // regions nested in it.
    ReplaceUses(block, results);
    block->ops.erase(block->ops.begin() + static_cast<std::ptrdiff_t>(i));
    block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(i), std::make_move_iterator(copies.begin()),
                      std::make_move_iterator(copies.end()));
    // Not advancing: the copies are scanned next.
  }
  return Status::Ok();
}

void ForEachBodyBlock(ir::Block* block, const std::function<void(ir::Block*)>& f) {
  for (auto& op : block->ops)
    for (auto& r : op->regions)
      for (auto& b : r->blocks) {
        if (KeepsCalls(*op)) ForEachBodyBlock(b.get(), f);
        else f(b.get());
      }
}

}  // namespace

Status InlineCallsInBodies(ir::Module* module, const ErrorFormatter& format_error) {
  Status status = Status::Ok();
  for (auto& fn : module->functions)
    for (auto& b : fn->body.blocks)
      ForEachBodyBlock(b.get(), [&](ir::Block* body) {
        int budget = kMaxInlinedCalls;
        if (status.ok()) status = InlineBlock(*module, body, &budget, format_error);
      });
  return status;
}

}  // namespace kiln::compiler

// The transpose-into-dot fold (compiler/passes/fold_transpose.h). Batching
// and contracting dims come in lhs/rhs pairs, so any permutation of them is
// expressible by renaming; free dims are not named by the dot (the result
// takes them in operand order), so their order must survive the fold.
#include "compiler/passes/fold_transpose.h"
#include "compiler/passes/rewrite_util.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace kiln::compiler {
namespace {

constexpr const char* kDimFields[2][2] = {{"lhs_batching_dimensions", "lhs_contracting_dimensions"},
                                          {"rhs_batching_dimensions", "rhs_contracting_dimensions"}};


// Folds operand `side` (0 lhs, 1 rhs) of `dot` if it is a transpose whose
// fold keeps the result; true if it did.
bool FoldOperand(ir::Operation* dot, int side) {
  ir::Value* x = dot->operands[side];
  ir::Operation* t = x->def;
  if (!t || t->name != "stablehlo.transpose" || t->operands.size() != 1) return false;
  const ir::Attribute* pa = t->GetAttr("permutation");
  auto perm = pa ? pa->AsInts() : std::nullopt;
  const int64_t rank = x->type.rank();
  if (!perm || static_cast<int64_t>(perm->size()) != rank || t->operands[0]->type.rank() != rank) return false;
  ir::Attribute* batch = DotDimField(dot, kDimFields[side][0]);
  ir::Attribute* contract = DotDimField(dot, kDimFields[side][1]);
  if (!batch || !contract) return false;
  std::vector<bool> named(static_cast<size_t>(rank), false);
  for (const ir::Attribute* f : {batch, contract})
    for (int64_t d : f->ints) {
      if (d < 0 || d >= rank || named[d]) return false;  // the verifier's to report
      named[d] = true;
    }
  int64_t last = -1;
  for (int64_t d = 0; d < rank; ++d) {
    if (named[d]) continue;
    const int64_t to = (*perm)[d];
    if (to < 0 || to >= rank || to < last) return false;
    last = to;
  }
  for (ir::Attribute* f : {batch, contract})
    for (int64_t& d : f->ints) d = (*perm)[d];
  dot->operands[side] = t->operands[0];
  return true;
}

// x = reshape(transpose(y, perm)) where the reshape only merges runs of
// the transpose's dims, each run of more than one dim merged into a
// contracting dim of x (attention's heads-back-to-rows, then the output
// projection: [B, H, S, D] -> [B, S, H, D] -> [B, S, H*D] contracted with
// W [H*D, N]). The dot then reads y, contracting each run's dims of y, and
// the other operand is reshaped (a view) to split its paired dim into the
// run's sizes. Returns the reshape to insert before the dot (it owns the
// new operand value), or null if nothing was folded.
std::unique_ptr<ir::Operation> FoldMergedOperand(ir::Operation* dot, int side) {
  ir::Value* x = dot->operands[side];
  ir::Operation* r = x->def;
  if (!r || r->name != "stablehlo.reshape" || r->operands.size() != 1) return nullptr;
  ir::Value* tv = r->operands[0];
  ir::Operation* t = tv->def;
  if (!t || t->name != "stablehlo.transpose" || t->operands.size() != 1) return nullptr;
  ir::Value* other = dot->operands[1 - side];
  const ir::Attribute* pa = t->GetAttr("permutation");
  auto perm = pa ? pa->AsInts() : std::nullopt;
  const auto& td = tv->type.dims;
  const auto& xd = x->type.dims;
  if (!perm || perm->size() != td.size() || t->operands[0]->type.rank() != tv->type.rank()) return nullptr;
  if (!tv->type.HasStaticShape() || !x->type.HasStaticShape() || !other->type.HasStaticShape()) return nullptr;
  if (other->type.is_quantized() || x->type.is_quantized()) return nullptr;
  // The runs: x dim i is the product of td[run[i]..run[i+1]), every dim > 0.
  std::vector<size_t> run = {0};
  for (int64_t size : xd) {
    if (size <= 0) return nullptr;
    int64_t prod = 1;
    size_t e = run.back();
    if (e == td.size()) return nullptr;
    do prod *= td[e++];  // at least one dim: a dim of 1 is its own run
    while (e < td.size() && prod < size);
    if (prod != size) return nullptr;
    run.push_back(e);
  }
  if (run.back() != td.size()) return nullptr;
  ir::Attribute* batch[2] = {DotDimField(dot, kDimFields[0][0]), DotDimField(dot, kDimFields[1][0])};
  ir::Attribute* contract[2] = {DotDimField(dot, kDimFields[0][1]), DotDimField(dot, kDimFields[1][1])};
  if (!batch[0] || !batch[1] || !contract[0] || !contract[1]) return nullptr;
  const int64_t rank = x->type.rank(), orank = other->type.rank();
  std::vector<int> role(static_cast<size_t>(rank), 0);  // 0 free, 1 batching, 2 contracting
  for (int k = 0; k < 2; ++k)
    for (int64_t d : (k ? contract : batch)[side]->ints) {
      if (d < 0 || d >= rank || role[d]) return nullptr;
      role[d] = k + 1;
    }
  bool merges = false;
  int64_t last = -1;
  for (int64_t d = 0; d < rank; ++d) {
    const size_t len = run[d + 1] - run[d];
    if (len > 1) {
      if (role[d] != 2) return nullptr;  // a merged free or batching dim would reshape the result
      merges = true;
    }
    if (role[d] == 0) {
      const int64_t to = (*perm)[run[d]];
      if (to < last) return nullptr;
      last = to;
    }
  }
  if (!merges) return nullptr;
  // The other operand's dims, its paired contracting dims split into runs.
  const auto& oc = contract[1 - side]->ints;
  const auto& xc = contract[side]->ints;
  if (oc.size() != xc.size()) return nullptr;
  std::vector<int64_t> split(static_cast<size_t>(orank), -1);  // other dim -> x dim it pairs with
  for (size_t i = 0; i < oc.size(); ++i) {
    if (oc[i] < 0 || oc[i] >= orank || split[oc[i]] != -1) return nullptr;
    split[oc[i]] = xc[i];
  }
  std::vector<int64_t> odims, first(static_cast<size_t>(orank));  // first new dim of each old one
  for (int64_t d = 0; d < orank; ++d) {
    first[d] = static_cast<int64_t>(odims.size());
    if (split[d] < 0) {
      odims.push_back(other->type.dims[d]);
    } else {
      for (size_t e = run[split[d]]; e < run[split[d] + 1]; ++e) odims.push_back(td[e]);
    }
  }
  // Rename: this side's dims through the runs and perm, the other's through first.
  std::vector<int64_t> nb, nc, ob, ocn;
  for (int64_t d : batch[side]->ints) nb.push_back((*perm)[run[d]]);
  for (int64_t d : batch[1 - side]->ints) {
    if (d < 0 || d >= orank) return nullptr;
    ob.push_back(first[d]);
  }
  for (size_t i = 0; i < xc.size(); ++i)
    for (size_t e = run[xc[i]], j = 0; e < run[xc[i] + 1]; ++e, ++j) {
      nc.push_back((*perm)[e]);
      ocn.push_back(first[oc[i]] + static_cast<int64_t>(j));
    }
  auto reshape = std::make_unique<ir::Operation>();
  reshape->name = "stablehlo.reshape";
  reshape->operands = {other};
  reshape->loc = dot->loc;
  reshape->parent = dot->parent;
  auto v = std::make_unique<ir::Value>();
  v->type = other->type;
  v->type.dims = odims;
  v->type.bounds.clear();
  v->def = reshape.get();
  reshape->results.push_back(std::move(v));
  batch[side]->ints = nb;
  contract[side]->ints = nc;
  batch[1 - side]->ints = ob;
  contract[1 - side]->ints = ocn;
  dot->operands[side] = t->operands[0];
  dot->operands[1 - side] = reshape->result();
  return reshape;
}

void FoldBlock(ir::Block* block, const std::map<const ir::Value*, int>& before) {
  bool folded = false;
  for (size_t i = 0; i < block->ops.size(); ++i) {
    ir::Operation* op = block->ops[i].get();
    for (auto& r : op->regions)
      for (auto& b : r->blocks) FoldBlock(b.get(), before);
    if (op->name != "stablehlo.dot_general" || op->operands.size() != 2) continue;
    for (int side = 0; side < 2; ++side) {
      if (auto reshape = FoldMergedOperand(op, side)) {
        block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(i), std::move(reshape));
        ++i;  // the dot moved one on
        folded = true;
        break;  // the other operand is now that reshape: nothing more to fold
      }
    }
    for (int side = 0; side < 2; ++side) folded |= FoldOperand(op, side);
  }
  if (!folded) return;
  // Drop the transposes and reshapes of this block that no op reads any
  // more (they had users before the fold: an op unused in the source stays
  // as written); reshapes first, which may leave their transposes unread.
  for (const char* name : {"stablehlo.reshape", "stablehlo.transpose"}) {
    std::map<const ir::Value*, int> now;
    CountUses(*block, &now);
    std::erase_if(block->ops, [&](const std::unique_ptr<ir::Operation>& op) {
      if (op->name != name || op->results.size() != 1) return false;
      const ir::Value* v = op->result();
      return before.count(v) && !now.count(v);
    });
  }
}

}  // namespace

Status FoldTransposesIntoDots(ir::Module* module) {
  for (auto& f : module->functions) {
    std::map<const ir::Value*, int> before;
    for (const auto& b : f->body.blocks) CountUses(*b, &before);
    for (auto& b : f->body.blocks) FoldBlock(b.get(), before);
  }
  return Status::Ok();
}

}  // namespace kiln::compiler

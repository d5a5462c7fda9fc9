// IREE's tests and programs pass stablehlo.rng_bit_generator a
// tensor<4xi32> state, which the spec's (C2) does not allow (it asks for 2
// ui64 words, 3 for PHILOX). IREE reads such a state as the 64-bit key
// (words 0 and 1, low word first) and the 64-bit counter (words 2 and 3,
// HIGH word first), and its PHILOX puts the key in the upper half of the
// 128-bit counter as well; its new state keeps words 0 and 1 and holds the
// advanced counter in words 2 and 3, low word first. This rewrite expresses
// that in spec ops around a spec rng_bit_generator:
//   key = bitcast_convert(state[0:2]) : ui64, counter = bitcast_convert(
//   [state[3], state[2]]) : ui64, the op on [key, counter] (THREE_FRY) or
//   [key, counter, key] (PHILOX, DEFAULT), and the output state
//   concatenate(state[0:2], bitcast_convert(new counter) : 2 words).
// The bits are then the spec op's (Kiln's, which are XLA's), as IREE's are.
#include <memory>
#include <string>
#include <vector>

#include "compiler/op_names.h"
#include "compiler/passes/legalize.h"
#include "compiler/passes/rewrite_util.h"

namespace kiln::compiler {
namespace {

bool IsIreeState(const ir::Type& t) {
  return t.is_tensor() && t.quant == nullptr && t.rank() == 1 && t.dims[0] == 4 &&
         (t.element == ElementType::kSI32 || t.element == ElementType::kUI32);
}

ir::Value* Slice1D(Ops* ops, const ir::Operation& at, ir::Block* block, ir::Value* v, int64_t begin, int64_t end) {
  ir::Operation* s = NewOp(ops, at, block, KernelName(KernelId::kSlice), {v},
                           ir::Type::Tensor(v->type.element, {end - begin}));
  s->attrs.emplace_back("start_indices", ir::IntArrayAttr({begin}));
  s->attrs.emplace_back("limit_indices", ir::IntArrayAttr({end}));
  s->attrs.emplace_back("strides", ir::IntArrayAttr({1}));
  return s->result();
}

ir::Operation* Concat(Ops* ops, const ir::Operation& at, ir::Block* block, std::vector<ir::Value*> parts) {
  int64_t n = 0;
  for (const ir::Value* p : parts) n += p->type.dims[0];
  const ElementType e = parts[0]->type.element;
  ir::Operation* c = NewOp(ops, at, block, KernelName(KernelId::kConcatenate), std::move(parts),
                           ir::Type::Tensor(e, {n}));
  c->attrs.emplace_back("dimension", ir::IntAttr(0));
  return c;
}

// Rewrites block->ops[at] (an rng_bit_generator of IREE's state); returns
// how many ops stand where it stood.
size_t Rewrite(ir::Block* block, size_t at) {
  ir::Operation& op = *block->ops[at];
  ir::Value* state = op.operands[0];
  const ElementType word = state->type.element;
  const ir::Attribute* alg = op.GetAttr("rng_algorithm");
  const bool three_fry = alg != nullptr && alg->str == "THREE_FRY";  // else PHILOX (DEFAULT is PHILOX)
  const ir::Type u64 = ir::Type::Tensor(ElementType::kUI64, {});
  const ir::Type u64x1 = ir::Type::Tensor(ElementType::kUI64, {1});

  Ops before;
  ir::Value* key_words = Slice1D(&before, op, block, state, 0, 2);
  ir::Value* hi = Slice1D(&before, op, block, state, 2, 3);
  ir::Value* lo = Slice1D(&before, op, block, state, 3, 4);
  ir::Value* counter_words = Concat(&before, op, block, {lo, hi})->result();
  auto to_u64x1 = [&](ir::Value* words) {
    ir::Value* v = NewOp(&before, op, block, KernelName(KernelId::kBitcastConvert), {words}, u64)->result();
    return NewOp(&before, op, block, KernelName(KernelId::kReshape), {v}, u64x1)->result();
  };
  ir::Value* key = to_u64x1(key_words);
  ir::Value* counter = to_u64x1(counter_words);
  std::vector<ir::Value*> parts = {key, counter};
  if (!three_fry) parts.push_back(key);
  ir::Value* spec_state = Concat(&before, op, block, parts)->result();

  // The op itself now reads and writes the spec state; its old first
  // result (IREE's new state) goes to the last op after it.
  const int64_t words = static_cast<int64_t>(parts.size());
  std::unique_ptr<ir::Value> iree_new_state = ReplaceResult(&op, 0, ir::Type::Tensor(ElementType::kUI64, {words}));
  op.operands[0] = spec_state;

  Ops after;
  ir::Value* next = Slice1D(&after, op, block, op.results[0].get(), 1, 2);
  ir::Value* next_words =
      NewOp(&after, op, block, KernelName(KernelId::kBitcastConvert), {next}, ir::Type::Tensor(word, {1, 2}))->result();
  next_words = NewOp(&after, op, block, KernelName(KernelId::kReshape), {next_words}, ir::Type::Tensor(word, {2}))
                   ->result();
  TakeOver(Concat(&after, op, block, {key_words, next_words}), std::move(iree_new_state));
  return SpliceAround(block, at, std::move(before), std::move(after));
}

}  // namespace

void LegalizeIreeRngStates(ir::Module* module) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks)
      RewriteEachOp(b.get(), [](ir::Block* block, size_t i) -> size_t {
        const ir::Operation& op = *block->ops[i];
        const bool iree = op.name == KernelName(KernelId::kRngBitGenerator) && op.operands.size() == 1 &&
                          op.results.size() == 2 && IsIreeState(op.operands[0]->type);
        return iree ? Rewrite(block, i) : 1;
      });
}

}  // namespace kiln::compiler

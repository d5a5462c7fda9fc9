// The index-compare narrowing (compiler/passes/narrow_index_compares.h).
#include "compiler/passes/narrow_index_compares.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string_view>
#include <utility>

#include "compiler/passes/rewrite_util.h"
#include "kernels/kernel_table.h"

namespace kiln::compiler {
namespace {

constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min(), kI32Max = std::numeric_limits<int32_t>::max();

bool IsPlainTensor(const ir::Type& t, ElementType e) {
  return t.is_tensor() && !t.is_quantized() && t.element == e && t.HasStaticShape();
}

bool IsNarrowInteger(ElementType e) {
  return e == ElementType::kSI8 || e == ElementType::kSI16 || e == ElementType::kUI8 || e == ElementType::kUI16;
}

// The si32 form of a constant's si64 dense value, or false if an element
// lies outside si32.
bool NarrowDense(const ir::Attribute& wide, ir::Attribute* narrow) {
  if (wide.kind != ir::Attribute::Kind::kDense || wide.type.element != ElementType::kSI64) return false;
  const size_t count = wide.DenseElementCount();
  std::vector<uint8_t> bytes;
  bytes.reserve(count * 4);
  for (size_t k = 0; k < count; ++k) {
    int64_t v;
    std::memcpy(&v, wide.DenseElement(k), 8);
    if (v < kI32Min || v > kI32Max) return false;
    const int32_t n = static_cast<int32_t>(v);
    const auto* p = reinterpret_cast<const uint8_t*>(&n);
    bytes.insert(bytes.end(), p, p + 4);
  }
  *narrow = wide;
  narrow->type.element = ElementType::kSI32;
  if (wide.dense_splat) {
    FillDenseSplat(narrow, bytes.data(), 4, static_cast<uint64_t>(std::max<int64_t>(1, narrow->type.NumElements())));
  } else {
    narrow->dense_bytes = std::move(bytes);
    narrow->dense_splat = false;
  }
  return true;
}

class Narrower {
 public:
  Narrower(ir::Block* block, const ir::Operation& at, Ops* ops) : block_(block), at_(at), ops_(ops) {}

  // The si32 form of si64 value `v` (a clone of its computation, added to
  // ops_), or null where its values are not known to fit. Memoized per
  // block, so compares that share an index tensor share its si32 form.
  ir::Value* Narrow(ir::Value* v, std::map<const ir::Value*, ir::Value*>* memo) {
    if (auto it = memo->find(v); it != memo->end()) return it->second;
    ir::Value* n = Make(v, memo);
    if (n != nullptr) (*memo)[v] = n;
    return n;
  }

 private:
  ir::Value* Make(ir::Value* v, std::map<const ir::Value*, ir::Value*>* memo) {
    const ir::Operation* def = v->def;
    // Only ops of this block (an index computed outside a region is left as
    // it is) and tensors of static shape.
    if (def == nullptr || def->parent != block_ || def->results.size() != 1 || !def->regions.empty() ||
        !IsPlainTensor(v->type, ElementType::kSI64))
      return nullptr;
    const ir::Type narrow_type = ir::Type::Tensor(ElementType::kSI32, v->type.dims);
    auto clone = [&](std::vector<ir::Value*> operands) {
      ir::Operation* op = NewOp(ops_, at_, block_, def->name, std::move(operands), narrow_type);
      op->attrs = def->attrs;
      return op;
    };
    if (def->name == KernelName(KernelId::kIota)) {
      const ir::Attribute* d = def->GetAttr("iota_dimension");
      if (d == nullptr || d->kind != ir::Attribute::Kind::kInt || d->i < 0 || d->i >= v->type.rank() ||
          v->type.dims[static_cast<size_t>(d->i)] - 1 > kI32Max)
        return nullptr;
      return clone({})->result();
    }
    if (def->name == ScalarOpName(ScalarOp::kConstant)) {
      const ir::Attribute* value = def->GetAttr("value");
      ir::Attribute narrow;
      if (value == nullptr || !NarrowDense(*value, &narrow)) return nullptr;
      ir::Operation* op = clone({});
      op->SetAttr("value", std::move(narrow));
      return op->result();
    }
    if (def->name == KernelName(KernelId::kBroadcastInDim) || def->name == KernelName(KernelId::kReshape)) {
      if (def->operands.size() != 1) return nullptr;
      ir::Value* in = Narrow(def->operands[0], memo);
      return in == nullptr ? nullptr : clone({in})->result();
    }
    if (def->name == ScalarOpName(ScalarOp::kConvert) && def->operands.size() == 1) {
      ir::Value* in = def->operands[0];
      if (!in->type.is_tensor() || in->type.is_quantized()) return nullptr;
      if (in->type.element == ElementType::kSI32) return in;
      if (IsNarrowInteger(in->type.element)) return clone({in})->result();
    }
    return nullptr;
  }

  ir::Block* block_;
  const ir::Operation& at_;
  Ops* ops_;
};

void NarrowBlock(ir::Block* block) {
  std::map<const ir::Value*, ir::Value*> memo;
  for (size_t i = 0; i < block->ops.size(); ++i) {
    ir::Operation& op = *block->ops[i];
    for (auto& r : op.regions)
      for (auto& b : r->blocks) NarrowBlock(b.get());
    if (op.name != ScalarOpName(ScalarOp::kCompare) || op.operands.size() != 2 ||
        !IsPlainTensor(op.operands[0]->type, ElementType::kSI64) ||
        !IsPlainTensor(op.operands[1]->type, ElementType::kSI64))
      continue;
    Ops ops;
    Narrower narrower(block, op, &ops);
    std::map<const ir::Value*, ir::Value*> trial = memo;
    ir::Value* a = narrower.Narrow(op.operands[0], &trial);
    ir::Value* b = a == nullptr ? nullptr : narrower.Narrow(op.operands[1], &trial);
    if (a == nullptr || b == nullptr) continue;  // (the clones made for a alone are dropped with `ops`)
    memo = std::move(trial);
    op.operands = {a, b};
    const size_t added = ops.size();
    block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(i), std::make_move_iterator(ops.begin()),
                      std::make_move_iterator(ops.end()));
    i += added;
  }
}

// Removes the index ops the rewrite left unread (they had readers before),
// outermost first, until none is left.
void DropUnread(ir::Function* f, const std::map<const ir::Value*, int>& before) {
  for (bool dropped = true; dropped;) {
    dropped = false;
    std::map<const ir::Value*, int> now;
    for (const auto& b : f->body.blocks) CountUses(*b, &now);
    auto drop = [&](auto&& self, ir::Block* block) -> void {
      for (auto& op : block->ops)
        for (auto& r : op->regions)
          for (auto& b : r->blocks) self(self, b.get());
      const size_t n = block->ops.size();
      std::erase_if(block->ops, [&](const std::unique_ptr<ir::Operation>& op) {
        if (op->results.size() != 1 || !op->regions.empty()) return false;
        const std::string_view name = op->name;
        if (name != KernelName(KernelId::kIota) && name != ScalarOpName(ScalarOp::kConstant) &&
            name != KernelName(KernelId::kBroadcastInDim) && name != KernelName(KernelId::kReshape) &&
            name != ScalarOpName(ScalarOp::kConvert))
          return false;
        const ir::Value* v = op->result();
        return before.count(v) && !now.count(v);
      });
      dropped |= block->ops.size() != n;
    };
    for (auto& b : f->body.blocks) drop(drop, b.get());
  }
}

}  // namespace

void NarrowIndexCompares(ir::Module* module) {
  for (auto& f : module->functions) {
    std::map<const ir::Value*, int> before;
    for (const auto& b : f->body.blocks) CountUses(*b, &before);
    for (auto& b : f->body.blocks) NarrowBlock(b.get());
    DropUnread(f.get(), before);
  }
}

}  // namespace kiln::compiler

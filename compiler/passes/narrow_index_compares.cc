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
#include <vector>

#include "compiler/passes/rewrite_util.h"
#include "kernels/common/element_type.h"
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

// The si32 form of a constant's si64 dense value and the range of its
// elements, or false if an element lies outside si32.
bool NarrowDense(const ir::Attribute& wide, ir::Attribute* narrow, int64_t* lo, int64_t* hi) {
  if (wide.kind != ir::Attribute::Kind::kDense || wide.type.element != ElementType::kSI64) return false;
  // (A compact splat holds one element: read once, not once per element.)
  const size_t count = wide.dense_splat ? 1 : wide.DenseElementCount();
  if (count == 0) return false;
  std::vector<uint8_t> bytes;
  bytes.reserve(count * 4);
  *lo = kI32Max;
  *hi = kI32Min;
  for (size_t k = 0; k < count; ++k) {
    int64_t v;
    std::memcpy(&v, wide.DenseElement(k), 8);
    if (v < kI32Min || v > kI32Max) return false;
    *lo = std::min(*lo, v);
    *hi = std::max(*hi, v);
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

// The ops an si64 index is followed through (Narrower::Make takes each of
// them; DropUnread removes those the rewrite left unread).
bool IsFollowedOp(std::string_view name) {
  return name == KernelName(KernelId::kIota) || name == ScalarOpName(ScalarOp::kConstant) ||
         name == KernelName(KernelId::kBroadcastInDim) || name == KernelName(KernelId::kReshape) ||
         name == ScalarOpName(ScalarOp::kConvert) || name == ScalarOpName(ScalarOp::kAdd) ||
         name == ScalarOpName(ScalarOp::kSubtract) || name == ScalarOpName(ScalarOp::kMinimum) ||
         name == ScalarOpName(ScalarOp::kMaximum) || name == ScalarOpName(ScalarOp::kNegate);
}

// A value's si32 form and the range its values lie in.
struct Narrowed {
  ir::Value* value = nullptr;  // null: not known to fit
  int64_t lo = 0, hi = 0;
};

class Narrower {
 public:
  Narrower(ir::Block* block, const ir::Operation& at, Ops* ops) : block_(block), at_(at), ops_(ops) {}

  // The si32 form of si64 value `v` (a clone of its computation, added to
  // ops_) where every value it and the values it is computed from take
  // fits in si32, else a null value. Memoized per block, so compares that
  // share an index tensor share its si32 form. Every entry this narrower
  // adds is recorded, so a failed attempt can take its entries back out
  // (Forget) without copying the memo per attempt.
  Narrowed Narrow(ir::Value* v, std::map<const ir::Value*, Narrowed>* memo) {
    if (auto it = memo->find(v); it != memo->end()) return it->second;
    Narrowed n = Make(v, memo);
    if (n.value != nullptr && (n.lo < kI32Min || n.hi > kI32Max)) n = Narrowed{};
    if (n.value != nullptr) {
      (*memo)[v] = n;
      added_.push_back(v);
    }
    return n;
  }

  // Removes the entries this narrower added (their clones are dropped with
  // its ops).
  void Forget(std::map<const ir::Value*, Narrowed>* memo) const {
    for (const ir::Value* v : added_) memo->erase(v);
  }

 private:
  Narrowed Make(ir::Value* v, std::map<const ir::Value*, Narrowed>* memo) {
    const ir::Operation* def = v->def;
    // Only ops of this block (an index computed outside a region is left as
    // it is) and tensors of static shape.
    if (def == nullptr || def->parent != block_ || def->results.size() != 1 || !def->regions.empty() ||
        !IsPlainTensor(v->type, ElementType::kSI64))
      return {};
    const ir::Type narrow_type = ir::Type::Tensor(ElementType::kSI32, v->type.dims);
    auto clone = [&](std::vector<ir::Value*> operands) {
      ir::Operation* op = NewOp(ops_, at_, block_, def->name, std::move(operands), narrow_type);
      op->attrs = def->attrs;
      return op;
    };
    const std::string_view name = def->name;
    if (name == KernelName(KernelId::kIota)) {
      const ir::Attribute* d = def->GetAttr("iota_dimension");
      if (d == nullptr || d->kind != ir::Attribute::Kind::kInt || d->i < 0 || d->i >= v->type.rank()) return {};
      const int64_t size = v->type.dims[static_cast<size_t>(d->i)];
      if (size < 1 || size - 1 > kI32Max) return {};
      return {clone({})->result(), 0, size - 1};
    }
    if (name == ScalarOpName(ScalarOp::kConstant)) {
      const ir::Attribute* value = def->GetAttr("value");
      ir::Attribute narrow;
      int64_t lo = 0, hi = 0;
      if (value == nullptr || !NarrowDense(*value, &narrow, &lo, &hi)) return {};
      ir::Operation* op = clone({});
      op->SetAttr("value", std::move(narrow));
      return {op->result(), lo, hi};
    }
    if (name == KernelName(KernelId::kBroadcastInDim) || name == KernelName(KernelId::kReshape)) {
      if (def->operands.size() != 1) return {};
      const Narrowed in = Narrow(def->operands[0], memo);
      if (in.value == nullptr) return {};
      return {clone({in.value})->result(), in.lo, in.hi};
    }
    if (name == ScalarOpName(ScalarOp::kConvert) && def->operands.size() == 1) {
      ir::Value* in = def->operands[0];
      if (!in->type.is_tensor() || in->type.is_quantized()) return {};
      const ElementType e = in->type.element;
      if (e == ElementType::kSI32) return {in, kI32Min, kI32Max};
      if (!IsNarrowInteger(e)) return {};
      const bool is_signed = e == ElementType::kSI8 || e == ElementType::kSI16;
      const int bits = e == ElementType::kSI8 || e == ElementType::kUI8 ? 8 : 16;
      const auto [lo, hi] = ir::IntegerStorageRange(bits, is_signed);
      return {clone({in})->result(), lo, hi};
    }
    // Arithmetic whose every value stays within si32 gives the same values
    // in si32 (bounds from the operands' ranges; the result's range is
    // checked by Narrow).
    const bool add = name == ScalarOpName(ScalarOp::kAdd), sub = name == ScalarOpName(ScalarOp::kSubtract);
    const bool min = name == ScalarOpName(ScalarOp::kMinimum), max = name == ScalarOpName(ScalarOp::kMaximum);
    if ((add || sub || min || max) && def->operands.size() == 2) {
      const Narrowed a = Narrow(def->operands[0], memo);
      const Narrowed b = a.value == nullptr ? Narrowed{} : Narrow(def->operands[1], memo);
      if (b.value == nullptr) return {};
      // (Each bound is within si32, so these sums cannot overflow int64.)
      const int64_t lo = add ? a.lo + b.lo : sub ? a.lo - b.hi : min ? std::min(a.lo, b.lo) : std::max(a.lo, b.lo);
      const int64_t hi = add ? a.hi + b.hi : sub ? a.hi - b.lo : min ? std::min(a.hi, b.hi) : std::max(a.hi, b.hi);
      return {clone({a.value, b.value})->result(), lo, hi};
    }
    if (name == ScalarOpName(ScalarOp::kNegate) && def->operands.size() == 1) {
      const Narrowed a = Narrow(def->operands[0], memo);
      if (a.value == nullptr) return {};
      return {clone({a.value})->result(), -a.hi, -a.lo};
    }
    return {};
  }

  ir::Block* block_;
  const ir::Operation& at_;
  Ops* ops_;
  std::vector<const ir::Value*> added_;
};

void NarrowBlock(ir::Block* block) {
  std::map<const ir::Value*, Narrowed> memo;
  for (size_t i = 0; i < block->ops.size(); ++i) {
    ir::Operation& op = *block->ops[i];
    for (auto& r : op.regions)
      for (auto& b : r->blocks) NarrowBlock(b.get());
    const bool compare = op.name == ScalarOpName(ScalarOp::kCompare) && op.operands.size() == 2 &&
                         IsPlainTensor(op.operands[0]->type, ElementType::kSI64) &&
                         IsPlainTensor(op.operands[1]->type, ElementType::kSI64);
    // A convert of an si64 index to a float type (PyTorch's positions as
    // floats: arange(n).float()) or to si32 gives the same values from its
    // si32 form.
    const bool convert = op.name == ScalarOpName(ScalarOp::kConvert) && op.operands.size() == 1 &&
                         op.results.size() == 1 && IsPlainTensor(op.operands[0]->type, ElementType::kSI64) &&
                         op.result()->type.is_tensor() && !op.result()->type.is_quantized() &&
                         (IsFloat(op.result()->type.element) || op.result()->type.element == ElementType::kSI32);
    if (!compare && !convert) continue;
    Ops ops;
    Narrower narrower(block, op, &ops);
    const Narrowed a = narrower.Narrow(op.operands[0], &memo);
    const Narrowed b = a.value == nullptr || !compare ? a : narrower.Narrow(op.operands[1], &memo);
    if (b.value == nullptr) {  // (the clones made for a alone are dropped with `ops`)
      narrower.Forget(&memo);
      continue;
    }
    if (compare) {
      op.operands = {a.value, b.value};
    } else {
      op.operands = {a.value};
    }
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
        if (!IsFollowedOp(op->name)) return false;
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

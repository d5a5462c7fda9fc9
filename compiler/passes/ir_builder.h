// Emits new IR ops for the legalization passes (compiler/passes/legalize.h):
// each op defines one value, sits at `at`'s location in `block`, and is
// appended to `out` for the pass to splice in where the rewritten op stood.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir.h"
#include "kernels/common/scalar_program.h"
#include "kernels/kernel_table.h"
#include "kernels/scalar/scalar.h"

namespace kiln::compiler {

class IrBuilder {
 public:
  IrBuilder(const ir::Operation& at, ir::Block* block, std::vector<std::unique_ptr<ir::Operation>>* out)
      : at_(at), block_(block), out_(out) {}

  ir::Value* Op(std::string_view name, std::vector<ir::Value*> operands, ir::Type type) {
    auto op = NewOp(name);
    op->operands = std::move(operands);
    return Result(std::move(op), std::move(type));
  }
  ir::Value* Scalar1(ScalarOp s, ir::Value* a) { return Op(ScalarOpName(s), {a}, a->type); }
  ir::Value* Scalar2(ScalarOp s, ir::Value* a, ir::Value* b) { return Op(ScalarOpName(s), {a, b}, a->type); }

  // `v` broadcast into `dims` along `map` (broadcast_in_dim).
  ir::Value* Broadcast(ir::Value* v, std::vector<int64_t> map, const std::vector<int64_t>& dims) {
    auto b = NewOp(KernelName(KernelId::kBroadcastInDim));
    b->operands.push_back(v);
    ir::Attribute a;
    a.kind = ir::Attribute::Kind::kIntArray;
    a.type.element = ElementType::kSI64;
    a.ints = std::move(map);
    b->attrs.emplace_back("broadcast_dimensions", std::move(a));
    return Result(std::move(b), ir::Type::Tensor(v->type.element, dims));
  }

  // `v` rounded to float type `e`, as the scalar program's kConstant steps
  // hold it, broadcast to `dims`: a rank-0 constant (what stays in the
  // module) and a broadcast_in_dim, which fusion reads back as one
  // kConstant step.
  ir::Value* Splat(ElementType e, const std::vector<int64_t>& dims, double v) {
    auto op = NewOp(ScalarOpName(ScalarOp::kConstant));
    ir::Attribute a;
    a.kind = ir::Attribute::Kind::kDense;
    a.type = ir::Type::Tensor(e, {});
    Scalar s;
    s.re = ref::RoundToFloatType(e, v);
    a.dense_bytes.resize(StorageBytes(e));
    ref::StoreScalar(e, s, a.dense_bytes.data());
    op->attrs.emplace_back("value", std::move(a));
    ir::Value* c = Result(std::move(op), ir::Type::Tensor(e, {}));
    return dims.empty() ? c : Broadcast(c, {}, dims);
  }

 private:
  std::unique_ptr<ir::Operation> NewOp(std::string_view name) {
    auto op = std::make_unique<ir::Operation>();
    op->name = std::string(name);
    op->loc = at_.loc;
    op->parent = block_;
    return op;
  }
  ir::Value* Result(std::unique_ptr<ir::Operation> op, ir::Type type) {
    auto r = std::make_unique<ir::Value>();
    r->type = std::move(type);
    r->def = op.get();
    ir::Value* v = r.get();
    op->results.push_back(std::move(r));
    out_->push_back(std::move(op));
    return v;
  }

  const ir::Operation& at_;
  ir::Block* block_;
  std::vector<std::unique_ptr<ir::Operation>>* out_;
};

}  // namespace kiln::compiler

#include "compiler/ir_emit.h"

#include "kernels/scalar/scalar.h"

namespace kiln::ir {

Value* DimensionOf(const EmitFn& emit, Value* v, int64_t d, ElementType type) {
  Operation* size = emit("stablehlo.get_dimension_size", {v}, Type::Tensor(ElementType::kSI32, {}));
  size->attrs.emplace_back("dimension", IntAttr(d));
  if (type == ElementType::kSI32) return size->result();
  return emit("stablehlo.convert", {size->result()}, Type::Tensor(type, {}))->result();
}

Value* ShapeTensor(const EmitFn& emit, const std::vector<int64_t>& dims, const DynamicSizeFn& dynamic,
                   ElementType type) {
  const Type one = Type::Tensor(type, {1});
  std::vector<Value*> parts;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] != Type::kDynamic) {
      Operation* c = emit("stablehlo.constant", {}, one);
      uint8_t bytes[8] = {};
      ref::StoreScalar(type, Scalar{dims[k], static_cast<double>(dims[k]), 0}, bytes);
      c->attrs.emplace_back("value", DenseSplat(one, bytes));
      parts.push_back(c->result());
    } else {
      parts.push_back(emit("stablehlo.reshape", {dynamic(k)}, one)->result());
    }
  }
  if (parts.size() == 1) return parts[0];
  Operation* cat = emit("stablehlo.concatenate", parts, Type::Tensor(type, {static_cast<int64_t>(dims.size())}));
  cat->attrs.emplace_back("dimension", IntAttr(0));
  return cat->result();
}

Value* BroadcastTo(const EmitFn& emit, Value* v, const std::vector<int64_t>& map, const std::vector<int64_t>& dims,
                   const DynamicSizeFn& dynamic, ElementType type) {
  const Type t = Type::Tensor(v->type.element, dims);
  const bool is_static = t.HasStaticShape() || !dynamic;
  std::vector<Value*> args = {v};
  if (!is_static) args.push_back(ShapeTensor(emit, dims, dynamic, type));
  Operation* b = emit(is_static ? "stablehlo.broadcast_in_dim" : "stablehlo.dynamic_broadcast_in_dim", args, t);
  b->attrs.emplace_back("broadcast_dimensions", IntArrayAttr(map));
  return b->result();
}

}  // namespace kiln::ir

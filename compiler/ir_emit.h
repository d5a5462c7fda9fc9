// Ops built through an emitter: the parser (which places new ops before the
// op it is reading, compiler/parse/) and the IR -> IR rewrites (which
// collect them to splice in, compiler/passes/rewrite_util.h) share these
// builders of shape operands and broadcasts.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "compiler/ir.h"

namespace kiln::ir {

// Adds op `name` with `operands` and one result of `type`; returns it.
using EmitFn = std::function<Operation*(std::string name, std::vector<Value*> operands, Type type)>;
// Gives the rank-0 size (of the shape tensor's element type) of dynamic
// dimension k.
using DynamicSizeFn = std::function<Value*(size_t k)>;

// Dimension `d` of `v` when it runs (get_dimension_size), as a rank-0
// tensor of `type` (si32, or si64 through a convert).
Value* DimensionOf(const EmitFn& emit, Value* v, int64_t d, ElementType type);

// A 1-D tensor of `type` (si32 or si64) holding `dims`: the static sizes as
// constants, each dynamic one (`?`) the value `dynamic(k)` gives. What
// dynamic_broadcast_in_dim, dynamic_gather and real_dynamic_slice take.
Value* ShapeTensor(const EmitFn& emit, const std::vector<int64_t>& dims, const DynamicSizeFn& dynamic,
                   ElementType type);

// `v` broadcast to a tensor of `dims` (broadcast_in_dim with
// broadcast_dimensions `map`); where some of `dims` are dynamic and
// `dynamic` is given, dynamic_broadcast_in_dim to a shape tensor of `type`
// built from it.
Value* BroadcastTo(const EmitFn& emit, Value* v, const std::vector<int64_t>& map, const std::vector<int64_t>& dims,
                   const DynamicSizeFn& dynamic, ElementType type);

}  // namespace kiln::ir

// The linalg and tensor ops IREE's tests build tensors with, read as
// StableHLO at parse time (docs/jax.md, "IREE's test forms"):
//
//   tensor.empty() : T, linalg.init_tensor [..] : T   zeros of T (the ops
//                                                      after them overwrite it)
//   linalg.fill ins(%v : f32) outs(%e : T) -> T        broadcast_in_dim of %v
//   linalg.generic {indexing_maps = [...], iterator_types = [...]}
//       ins(%a, ... : A, ...) outs(%o : O) { ^bb0(%x: f32, ..., %out: f32): ...
//       linalg.yield %y : f32 } -> O
//
// A generic whose loops are all parallel is a stablehlo.map over the
// iteration space: each operand broadcast into it by its indexing map
// (broadcast_in_dim with the map's results as dimensions; so maps are
// projected permutations), `linalg.index d` an iota along d, each scalar the
// body reads from outside it broadcast too, the body (already StableHLO ops
// on rank-0 tensors: the parser reads arith and math ops as such) as the
// map's, then the result transposed by the output's map. A generic with
// reduction loops must yield `g(x, %out)` (or `g(%out, x)`) for an
// associative op g (add, multiply, maximum, minimum, and, or, xor) and an x
// that does not read %out: x is mapped as above, reduced over the reduction
// loops with g from g's identity (stablehlo.reduce), transposed by the
// output's map and combined with the outs value by g. The reduction's order
// is stablehlo.reduce's, not linalg's sequential one: float sums may differ
// in the last bits. Dynamic sizes are read from the operands that have them
// (dynamic_broadcast_in_dim, dynamic_iota). Anything else is refused at the
// op.
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "compiler/ir_emit.h"
#include "compiler/parse/parser_impl.h"
#include "kernels/scalar/scalar.h"

namespace kiln::ir::detail {
namespace {

Attribute Ints(std::vector<int64_t> v) { return IntArrayAttr(std::move(v)); }

// Sizes the linalg forms compute (from `index` values) are i64.
constexpr ElementType kShapeType = ElementType::kSI64;

// A constant of `type` whose every element is `s` (a compact splat when large).
Attribute Splat(const Type& type, const Scalar& s) {
  std::vector<uint8_t> one(StorageBytes(type.element));
  ref::StoreScalar(type.element, s, one.data());
  return DenseSplat(type, one.data());
}

// The identity of a reduction op on `e`, or false if `name` is none.
bool Identity(std::string_view name, ElementType e, Scalar* s) {
  const bool is_float = IsFloat(e);
  const int bits = BitWidth(e);
  const bool is_unsigned = KindOf(e) == ElementKind::kUnsigned || IsBool(e);
  const int64_t int_min = is_unsigned ? 0 : (bits >= 64 ? INT64_MIN : -(int64_t{1} << (bits - 1)));
  const int64_t int_max = is_unsigned ? (bits >= 64 ? -1 : (int64_t{1} << bits) - 1)
                                      : (bits >= 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1);
  *s = Scalar{};
  if (name == "stablehlo.add" || name == "stablehlo.or" || name == "stablehlo.xor") return true;
  if (name == "stablehlo.multiply") {
    s->i = 1;
    s->re = 1;
    return true;
  }
  if (name == "stablehlo.and") {
    s->i = -1;
    return !is_float;
  }
  if (name == "stablehlo.maximum") {
    s->re = -std::numeric_limits<double>::infinity();
    s->i = int_min;
    return true;
  }
  if (name == "stablehlo.minimum") {
    s->re = std::numeric_limits<double>::infinity();
    s->i = int_max;
    return true;
  }
  return false;
}

// Every op of `block` and of the regions nested in it.
void ForEachOp(Block* block, const std::function<void(Operation*)>& f) {
  for (auto& op : block->ops) {
    f(op.get());
    for (auto& r : op->regions)
      for (auto& b : r->blocks) ForEachOp(b.get(), f);
  }
}

bool DefinedIn(const Value* v, const Block* body) {
  const Block* b = v->def ? v->def->parent : v->owner_block;
  while (b) {
    if (b == body) return true;
    const Operation* holder = b->parent ? b->parent->parent : nullptr;
    b = holder ? holder->parent : nullptr;
  }
  return false;
}

}  // namespace

// The parts of an affine_map attribute: affine_map<(d0, d1)[s0] -> (d1, 0)>,
// kept as a struct {dims, results}; results other than dimensions and
// constants are refused.
Attribute Parser::ParseAffineMap() {
  Advance();  // affine_map
  Expect(Tok::kLess, "after affine_map");
  std::map<std::string, int64_t> dims;
  Expect(Tok::kLParen, "to open the map's dimensions");
  while (!cur_.is(Tok::kRParen)) {
    if (!cur_.is(Tok::kIdent)) FailExpected("a dimension name");
    dims.emplace(std::string(cur_.text), static_cast<int64_t>(dims.size()));
    Advance();
    if (!Consume(Tok::kComma)) break;
  }
  Expect(Tok::kRParen, "to close the map's dimensions");
  if (cur_.is(Tok::kLSquare)) SkipBalanced(Tok::kLSquare, Tok::kRSquare);  // symbols
  Expect(Tok::kArrow, "in affine_map");
  Expect(Tok::kLParen, "to open the map's results");
  // A dimension d_k as k; a constant c (an index fixed along that operand
  // dimension) as -1 - c.
  std::vector<int64_t> results;
  while (!cur_.is(Tok::kRParen)) {
    const bool compound = Peek().is(Tok::kPlus) || Peek().is(Tok::kStar) || Peek().is(Tok::kMinus);
    if (cur_.is(Tok::kInteger) && !compound) {
      results.push_back(-1 - ParseIntLiteral(false));
    } else {
      auto it = cur_.is(Tok::kIdent) ? dims.find(std::string(cur_.text)) : dims.end();
      if (it == dims.end() || compound) Fail(cur_, "affine_map results other than dimensions and constants are not supported");
      results.push_back(it->second);
      Advance();
    }
    if (!Consume(Tok::kComma)) break;
  }
  Expect(Tok::kRParen, "to close the map's results");
  Expect(Tok::kGreater, "to close affine_map");
  Attribute a;
  a.kind = Attribute::Kind::kStruct;
  a.str = "affine_map";
  a.fields.emplace_back("dims", IntAttr(static_cast<int64_t>(dims.size())));
  a.fields.emplace_back("results", Ints(std::move(results)));
  return a;
}

// tensor.empty() : T, tensor.empty(%d, ...) : T, linalg.init_tensor [..] : T.
void Parser::ParseEmptyTensor(Operation* op, int num_results) {
  Token at = cur_;
  // The sizes of the dynamic dimensions, in order: tensor.empty(%d0, %d1),
  // linalg.init_tensor [%d0, 128] (whose static sizes repeat the type's).
  std::vector<Value*> sizes;
  const bool parens = cur_.is(Tok::kLParen), square = cur_.is(Tok::kLSquare);
  if (parens || square) {
    Advance();
    while (!cur_.is(parens ? Tok::kRParen : Tok::kRSquare)) {
      if (cur_.is(Tok::kValueId)) {
        sizes.push_back(ParseValueUse());
      } else {
        ParseIntLiteral(false);  // a static size (the older tensor.empty(12, 15) too)
      }
      if (!Consume(Tok::kComma)) break;
    }
    Expect(parens ? Tok::kRParen : Tok::kRSquare, "to close the sizes");
  }
  if (cur_.is(Tok::kLBrace)) SkipBalanced(Tok::kLBrace, Tok::kRBrace);
  Expect(Tok::kColon, "and the tensor's type");
  at = cur_;
  Type t = ParseType();
  if (!t.is_tensor() || t.is_quantized()) Fail(at, op->name + " of type " + t.ToString() + " is not supported");
  size_t dynamic = 0;
  for (int64_t d : t.dims) dynamic += d == Type::kDynamic;
  if (sizes.size() != dynamic) Fail(at, op->name + " needs one size per dynamic dimension of " + t.ToString());
  for (Value* v : sizes)
    if (v->type != Type::Tensor(ElementType::kSI64, {})) Fail(at, op->name + ": a size must be an index");
  if (t.HasStaticShape()) {
    op->name = "stablehlo.constant";
    op->attrs.emplace_back("value", Splat(t, Scalar{}));
    SetResultTypes(op, {t}, num_results, at);
    return;
  }
  // Zeros broadcast to the run-time shape.
  EmitFn emit = [&](std::string name, std::vector<Value*> args, Type rt) {
    return EmitBefore(op, std::move(name), std::move(args), std::move(rt));
  };
  Operation* zero = emit("stablehlo.constant", {}, Type::Tensor(t.element, {}));
  zero->attrs.emplace_back("value", Splat(Type::Tensor(t.element, {}), Scalar{}));
  size_t next = 0;
  Value* shape = ShapeTensor(emit, t.dims, [&](size_t) { return sizes[next++]; }, kShapeType);
  op->name = "stablehlo.dynamic_broadcast_in_dim";
  op->operands = {zero->result(), shape};
  op->attrs.emplace_back("broadcast_dimensions", Ints({}));
  SetResultTypes(op, {t}, num_results, at);
}

// tensor.dim %x, %c : T (%c a constant index): its size as an index.
void Parser::ParseTensorDim(Operation* op, int num_results) {
  Token at = cur_;
  Value* x = ParseValueUse();
  Expect(Tok::kComma, "after the tensor");
  Token it = cur_;
  Value* index = ParseValueUse();
  if (cur_.is(Tok::kLBrace)) SkipBalanced(Tok::kLBrace, Tok::kRBrace);
  Expect(Tok::kColon, "and the tensor's type");
  Token tt = cur_;
  if (ParseType() != x->type) Fail(tt, "tensor.dim: the tensor has type " + x->type.ToString());
  const Operation* c = index->def;
  const Attribute* v = c && c->name == "stablehlo.constant" ? c->GetAttr("value") : nullptr;
  if (!v || v->kind != Attribute::Kind::kDense || v->type != Type::Tensor(ElementType::kSI64, {}))
    Fail(it, "tensor.dim needs a constant index");
  const int64_t d = ref::LoadScalar(ElementType::kSI64, v->DenseElement(0)).i;
  if (d < 0 || d >= x->type.rank()) Fail(it, "tensor.dim: dimension " + std::to_string(d) + " is out of range");
  Operation* size = EmitBefore(op, "stablehlo.get_dimension_size", {x}, Type::Tensor(ElementType::kSI32, {}));
  size->attrs.emplace_back("dimension", IntAttr(d));
  op->name = "stablehlo.convert";
  op->operands = {size->result()};
  SetResultTypes(op, {Type::Tensor(ElementType::kSI64, {})}, num_results, at);
}

// ins(%a, %b : A, B) or outs(...): the values, their types checked.
std::vector<Value*> Parser::ParseLinalgOperands(const char* keyword) {
  std::vector<Value*> values;
  if (!ConsumeIdent(keyword)) return values;
  Expect(Tok::kLParen, "after ins/outs");
  values = ParseValueUseList();
  if (!values.empty()) {
    Expect(Tok::kColon, "and the operands' types");
    for (size_t k = 0; k < values.size(); ++k) {
      if (k) Expect(Tok::kComma, "between the operands' types");
      Token at = cur_;
      Type t = ParseType();
      if (t != values[k]->type) Fail(at, "operand has type " + values[k]->type.ToString() + ", not " + t.ToString());
    }
  }
  Expect(Tok::kRParen, "to close ins/outs");
  return values;
}

// linalg.fill ins(%v : T) outs(%e : T') -> T'
void Parser::ParseLinalgFill(Operation* op, int num_results) {
  Token at = cur_;
  if (cur_.is(Tok::kLBrace)) SkipBalanced(Tok::kLBrace, Tok::kRBrace);
  std::vector<Value*> ins = ParseLinalgOperands("ins");
  std::vector<Value*> outs = ParseLinalgOperands("outs");
  if (ins.size() != 1 || outs.size() != 1) Fail(at, "linalg.fill takes one value and one output");
  Type t = outs[0]->type;
  if (Consume(Tok::kArrow)) {
    Token rt = cur_;
    Type r = ParseType();
    if (r != t) Fail(rt, "linalg.fill's result type " + r.ToString() + " is not its output's " + t.ToString());
  }
  if (ins[0]->type.rank() != 0 || ins[0]->type.element != t.element)
    Fail(at, "linalg.fill's value must be a scalar of the output's element type");
  if (t.HasStaticShape()) {
    op->name = "stablehlo.broadcast_in_dim";
    op->operands = {ins[0]};
  } else {
    EmitFn emit = [&](std::string name, std::vector<Value*> args, Type rt) {
      return EmitBefore(op, std::move(name), std::move(args), std::move(rt));
    };
    Value* shape = ShapeTensor(emit, t.dims, [&](size_t k) { return DimensionOf(emit, outs[0], static_cast<int64_t>(k), kShapeType); },
                                kShapeType);
    op->name = "stablehlo.dynamic_broadcast_in_dim";
    op->operands = {ins[0], shape};
  }
  op->attrs.emplace_back("broadcast_dimensions", Ints({}));
  SetResultTypes(op, {t}, num_results, at);
}

// iree_linalg_ext.sort dimension(D) outs(%k, %v, ... : K, V, ...) {
//   ^bb0(%lhs_k, %rhs_k, %lhs_v, %rhs_v, ...): ... iree_linalg_ext.yield %less : i1 } -> K, V, ...
// (IREE's sort, in place on its outputs): stablehlo.sort of the outputs
// along D with the same comparator, whose block arguments pair each
// operand's lhs and rhs as stablehlo.sort's do.
void Parser::ParseLinalgExtSort(Operation* op, int num_results) {
  Token at = cur_;
  ExpectIdent("dimension");
  Expect(Tok::kLParen, "after dimension");
  const int64_t dimension = ParseIntLiteral(false);
  Expect(Tok::kRParen, "to close the dimension");
  if (cur_.is(Tok::kLBrace)) SkipBalanced(Tok::kLBrace, Tok::kRBrace);
  std::vector<Value*> outs = ParseLinalgOperands("outs");
  if (outs.empty()) Fail(at, "iree_linalg_ext.sort needs outs(...) to sort");
  auto body = std::make_unique<Region>();
  body->parent = op;
  ParseRegion(body.get(), nullptr);
  std::vector<Type> types;
  for (const Value* v : outs) types.push_back(v->type);
  if (Consume(Tok::kArrow)) {
    Token rt = cur_;
    if (ParseTypeList() != types) Fail(rt, "iree_linalg_ext.sort: the result types must be the outputs' types");
  }
  op->name = "stablehlo.sort";
  op->operands = outs;
  op->attrs.emplace_back("dimension", IntAttr(dimension));
  op->attrs.emplace_back("is_stable", BoolAttr(false));
  op->regions.push_back(std::move(body));
  SetResultTypes(op, types, num_results, at);  // the verifier checks the rest as stablehlo.sort's
}

void Parser::ParseLinalgGeneric(Operation* op, int num_results) {
  Token at = cur_;
  // Errors about the op as a whole point at its name.
  auto fail = [&](const std::string& message) -> void { throw ParseError{op->loc, message}; };
  std::vector<NamedAttr> attrs;
  if (cur_.is(Tok::kLBrace)) attrs = ParseAttrDict();
  std::vector<Value*> ins = ParseLinalgOperands("ins");
  std::vector<Value*> outs = ParseLinalgOperands("outs");
  if (ConsumeIdent("attrs")) {
    Expect(Tok::kEqual, "after attrs");
    SkipBalanced(Tok::kLBrace, Tok::kRBrace);
  }
  auto body = std::make_unique<Region>();
  ParseRegion(body.get(), nullptr);
  std::vector<Type> result_types;
  if (Consume(Tok::kArrow)) result_types = ParseTypeList();
  auto find = [&](const char* name) -> const Attribute* {
    for (const auto& [n, a] : attrs)
      if (n == name) return &a;
    return nullptr;
  };
  const Attribute* maps_attr = find("indexing_maps");
  const Attribute* iters_attr = find("iterator_types");
  if (!maps_attr || maps_attr->kind != Attribute::Kind::kArray || !iters_attr ||
      iters_attr->kind != Attribute::Kind::kArray)
    fail("linalg.generic needs indexing_maps and iterator_types");
  if (outs.size() != 1 || result_types.size() != 1) fail("linalg.generic with one output is supported");
  const size_t n_in = ins.size();
  std::vector<Value*> operands = ins;
  operands.push_back(outs[0]);
  if (maps_attr->elements.size() != operands.size()) fail("linalg.generic needs one indexing map per operand");
  const int64_t loops = static_cast<int64_t>(iters_attr->elements.size());
  std::vector<bool> reduction(loops);
  for (int64_t d = 0; d < loops; ++d) {
    const Attribute& it = iters_attr->elements[d];
    std::string kind = it.kind == Attribute::Kind::kString ? it.str : it.kind == Attribute::Kind::kEnum ? it.str : "";
    if (kind.rfind("#linalg.iterator_type<", 0) == 0) kind = kind.substr(22, kind.size() - 23);
    if (kind != "parallel" && kind != "reduction") fail("linalg.generic: unknown iterator type '" + kind + "'");
    reduction[d] = kind == "reduction";
  }
  // The maps, and the iteration space's size from the operands' shapes.
  std::vector<std::vector<int64_t>> maps;
  std::vector<int64_t> sizes(loops, -1);
  std::vector<std::pair<size_t, int64_t>> provider(loops);  // (operand, dim) giving a loop's dynamic size
  for (size_t k = 0; k < operands.size(); ++k) {
    const Attribute& m = maps_attr->elements[k];
    const Attribute* dims = m.Field("dims");
    const Attribute* results = m.Field("results");
    if (m.kind != Attribute::Kind::kStruct || m.str != "affine_map" || !dims || !results || dims->i != loops)
      fail("linalg.generic: indexing map " + std::to_string(k) + " must be an affine_map of " +
                   std::to_string(loops) + " dimensions");
    const Type& t = operands[k]->type;
    if (!t.is_tensor() || static_cast<int64_t>(results->ints.size()) != t.rank())
      fail("linalg.generic: indexing map " + std::to_string(k) + " does not fit operand type " + t.ToString());
    std::set<int64_t> seen;
    for (size_t j = 0; j < results->ints.size(); ++j) {
      const int64_t d = results->ints[j];
      if (d < 0) {  // a constant index along this dimension
        if (t.dims[j] == Type::kDynamic || -1 - d >= t.dims[j])
          fail("linalg.generic: indexing map " + std::to_string(k) + " reads index " + std::to_string(-1 - d) +
               " of a dimension of size " + (t.dims[j] == Type::kDynamic ? std::string("?") : std::to_string(t.dims[j])));
        continue;
      }
      if (!seen.insert(d).second) fail("linalg.generic: indexing map " + std::to_string(k) + " repeats a dimension");
      if (t.dims[j] == Type::kDynamic) {
        if (sizes[d] == -1) {
          sizes[d] = Type::kDynamic;
          provider[d] = {k, static_cast<int64_t>(j)};
        }
        continue;
      }
      if (sizes[d] >= 0 && sizes[d] != t.dims[j])
        fail("linalg.generic: loop " + std::to_string(d) + " has sizes " + std::to_string(sizes[d]) + " and " +
                     std::to_string(t.dims[j]));
      sizes[d] = t.dims[j];
    }
    maps.push_back(results->ints);
  }
  for (int64_t d = 0; d < loops; ++d)
    if (sizes[d] == -1) fail("linalg.generic: no operand gives loop " + std::to_string(d) + "'s size");
  if (body->blocks.size() != 1) fail("linalg.generic needs a body of one block");
  Block* bb = body->blocks[0].get();
  if (bb->args.size() != operands.size()) fail("linalg.generic's body takes one argument per operand");
  for (size_t k = 0; k < operands.size(); ++k)
    if (bb->args[k]->type != Type::Tensor(operands[k]->type.element, {}))
      fail("linalg.generic's body argument " + std::to_string(k) + " must be " +
                   std::string(Name(operands[k]->type.element)));
  if (bb->ops.empty() || bb->ops.back()->name != "stablehlo.return" || bb->ops.back()->operands.size() != 1)
    fail("linalg.generic's body must end in linalg.yield of one value");

  Block* block = op->parent;
  const Location loc = op->loc;
  auto in_space = [&](ElementType e) { return Type::Tensor(e, sizes); };
  std::vector<std::unique_ptr<Operation>> emitted;
  EmitFn emit = [&](std::string name, std::vector<Value*> args, Type t) {
    emitted.push_back(NewOperation(std::move(name), loc, block));
    emitted.back()->operands = std::move(args);
    AddResult(emitted.back().get(), std::move(t));
    return emitted.back().get();
  };
  // A loop's size at run time (its provider's dimension), computed once.
  std::map<size_t, Value*> loop_sizes;
  auto loop_size = [&](size_t d) {
    Value*& v = loop_sizes[d];
    if (!v) v = DimensionOf(emit, operands[provider[d].first], provider[d].second, kShapeType);
    return v;
  };
  // An operand broadcast into the iteration space by its map.
  auto broadcast = [&](Value* v, std::vector<int64_t> map) -> Value* {
    if (std::any_of(map.begin(), map.end(), [](int64_t d) { return d < 0; })) {
      // The constant indices: a slice of one there, then a reshape without those dimensions.
      std::vector<int64_t> start, limit, strides, kept_dims, kept_map;
      for (size_t j = 0; j < map.size(); ++j) {
        const int64_t c = map[j] < 0 ? -1 - map[j] : 0;
        start.push_back(c);
        limit.push_back(map[j] < 0 ? c + 1 : v->type.dims[j]);
        strides.push_back(1);
        if (map[j] >= 0) kept_dims.push_back(v->type.dims[j]), kept_map.push_back(map[j]);
      }
      if (!v->type.HasStaticShape()) fail("linalg.generic: a constant index into an operand of dynamic shape is not supported");
      std::vector<int64_t> one_dims = limit;
      for (size_t j = 0; j < map.size(); ++j) one_dims[j] -= start[j];
      Operation* slice = emit("stablehlo.slice", {v}, Type::Tensor(v->type.element, one_dims));
      slice->attrs.emplace_back("start_indices", Ints(start));
      slice->attrs.emplace_back("limit_indices", Ints(limit));
      slice->attrs.emplace_back("strides", Ints(strides));
      v = emit("stablehlo.reshape", {slice->result()}, Type::Tensor(v->type.element, kept_dims))->result();
      map = kept_map;
    }
    bool identity = static_cast<int64_t>(map.size()) == loops;
    for (size_t j = 0; identity && j < map.size(); ++j) identity = map[j] == static_cast<int64_t>(j);
    if (identity && v->type == in_space(v->type.element)) return v;
    return BroadcastTo(emit, v, map, sizes, loop_size, kShapeType);
  };
  auto new_arg = [&](Type t) {
    auto v = std::make_unique<Value>();
    v->type = std::move(t);
    v->index = static_cast<int>(bb->args.size());
    v->owner_block = bb;
    bb->args.push_back(std::move(v));
    return bb->args.back().get();
  };
  auto replace_uses = [&](Value* from, Value* to) {
    ForEachOp(bb, [&](Operation* o) {
      for (Value*& u : o->operands)
        if (u == from) u = to;
    });
  };
  std::vector<Value*> map_inputs;
  for (size_t k = 0; k < operands.size(); ++k) map_inputs.push_back(broadcast(operands[k], maps[k]));
  // linalg.index d: an iota along d; scalars read from outside: broadcast.
  std::map<int64_t, Value*> index_args;
  std::vector<Operation*> index_ops;
  ForEachOp(bb, [&](Operation* o) {
    if (o->name == "linalg.index") index_ops.push_back(o);
  });
  for (Operation* o : index_ops) {
    const Attribute* d = o->GetAttr("dim");
    if (!d || d->i < 0 || d->i >= loops) fail("linalg.index names no loop of this linalg.generic");
    Value*& arg = index_args[d->i];
    if (!arg) {
      const bool is_static = in_space(ElementType::kSI64).HasStaticShape();
      std::vector<Value*> shape;
      if (!is_static) shape.push_back(ShapeTensor(emit, sizes, loop_size, kShapeType));
      Operation* iota = emit(is_static ? "stablehlo.iota" : "stablehlo.dynamic_iota", shape, in_space(ElementType::kSI64));
      iota->attrs.emplace_back("iota_dimension", IntAttr(d->i));
      map_inputs.push_back(iota->result());
      arg = new_arg(Type::Tensor(ElementType::kSI64, {}));
    }
    replace_uses(o->result(), arg);
  }
  std::erase_if(bb->ops, [](const std::unique_ptr<Operation>& o) { return o->name == "linalg.index"; });
  std::map<Value*, Value*> captured;
  ForEachOp(bb, [&](Operation* o) {
    for (Value*& u : o->operands) {
      if (DefinedIn(u, bb)) continue;
      if (u->type.rank() != 0) fail("linalg.generic's body reads a tensor from outside it");
      Value*& arg = captured[u];
      if (!arg) {
        map_inputs.push_back(BroadcastTo(emit, u, {}, sizes, loop_size, kShapeType));
        arg = new_arg(u->type);
      }
      u = arg;
    }
  });

  Value* out_arg = bb->args[n_in].get();
  Operation* yield = bb->ops.back().get();
  const Type result = result_types[0];
  if (result != outs[0]->type) fail("linalg.generic's result type " + result.ToString() + " is not its output's");
  std::vector<int64_t> dimensions(loops);
  for (int64_t d = 0; d < loops; ++d) dimensions[d] = d;
  auto make_map = [&](ElementType e) {
    Operation* m = emit("stablehlo.map", map_inputs, in_space(e));
    m->attrs.emplace_back("dimensions", Ints(dimensions));
    body->parent = m;
    m->regions.push_back(std::move(body));
    return m->result();
  };
  // Out's map read as a permutation of `dims` (the iteration dims it
  // holds, ascending): the transpose from that order to out's.
  // The output's map without its constant results, which may only fix
  // index 0 of a dimension of size 1 (the value is reshaped to add them).
  std::vector<int64_t> out_map;
  for (size_t j = 0; j < maps[n_in].size(); ++j) {
    const int64_t d = maps[n_in][j];
    if (d >= 0) out_map.push_back(d);
    else if (d != -1 || result.dims[j] != 1)
      fail("linalg.generic: an output map's constant result must be 0 on a dimension of size 1");
  }
  auto to_out = [&](Value* v, const std::vector<int64_t>& dims) -> Value* {
    std::vector<int64_t> perm, out_dims;
    for (int64_t d : out_map) {
      perm.push_back(std::find(dims.begin(), dims.end(), d) - dims.begin());
      out_dims.push_back(sizes[d]);
    }
    bool identity = true;
    for (size_t j = 0; j < perm.size(); ++j) identity = identity && perm[j] == static_cast<int64_t>(j);
    if (!identity) {
      Operation* t = emit("stablehlo.transpose", {v}, Type::Tensor(result.element, out_dims));
      t->attrs.emplace_back("permutation", Ints(perm));
      v = t->result();
    }
    if (out_map.size() != maps[n_in].size()) v = emit("stablehlo.reshape", {v}, result)->result();
    return v;
  };
  Value* value = nullptr;
  if (std::find(reduction.begin(), reduction.end(), true) == reduction.end()) {
    if (static_cast<int64_t>(out_map.size()) != loops) fail("linalg.generic: the output's map must use every loop");
    value = to_out(make_map(result.element), dimensions);
  } else {
    // yield g(x, %out): x mapped, reduced with g, combined with outs.
    Value* y = yield->operands[0];
    Operation* g = y->def && y->def->parent == bb ? y->def : nullptr;
    Scalar identity;
    if (!g || g->operands.size() != 2 || !Identity(g->name, result.element, &identity) ||
        (g->operands[0] == out_arg) == (g->operands[1] == out_arg))
      fail("linalg.generic with reduction loops must yield g(x, %out) for g add, multiply, maximum, minimum, "
               "and, or or xor");
    Value* x = g->operands[0] == out_arg ? g->operands[1] : g->operands[0];
    const std::string g_name = g->name;
    yield->operands[0] = x;
    std::erase_if(bb->ops, [&](const std::unique_ptr<Operation>& o) { return o.get() == g; });
    bool reads_out = false;
    ForEachOp(bb, [&](Operation* o) {
      for (Value* u : o->operands) reads_out = reads_out || u == out_arg;
    });
    if (reads_out || x->type.element != result.element)
      fail("linalg.generic with reduction loops: the reduced value may not read %out itself");
    Value* mapped = make_map(result.element);
    std::vector<int64_t> reduced, kept;
    for (int64_t d = 0; d < loops; ++d) (reduction[d] ? reduced : kept).push_back(d);
    std::vector<int64_t> kept_sizes;
    for (int64_t d : kept) kept_sizes.push_back(sizes[d]);
    if (out_map.size() != kept.size() || !std::is_permutation(out_map.begin(), out_map.end(), kept.begin()))
      fail("linalg.generic: the output's map must use exactly the parallel loops");
    Operation* init = emit("stablehlo.constant", {}, Type::Tensor(result.element, {}));
    init->attrs.emplace_back("value", Splat(Type::Tensor(result.element, {}), identity));
    Operation* reduce = emit("stablehlo.reduce", {mapped, init->result()}, Type::Tensor(result.element, kept_sizes));
    reduce->attrs.emplace_back("dimensions", Ints(reduced));
    auto region = std::make_unique<Region>();
    region->parent = reduce;
    auto rb = std::make_unique<Block>();
    rb->parent = region.get();
    for (int k = 0; k < 2; ++k) {
      auto v = std::make_unique<Value>();
      v->type = Type::Tensor(result.element, {});
      v->index = k;
      v->owner_block = rb.get();
      rb->args.push_back(std::move(v));
    }
    auto combine = NewOperation(g_name, loc, rb.get());
    combine->operands = {rb->args[0].get(), rb->args[1].get()};
    Value* c = AddResult(combine.get(), Type::Tensor(result.element, {}));
    auto ret = NewOperation("stablehlo.return", loc, rb.get());
    ret->operands = {c};
    rb->ops.push_back(std::move(combine));
    rb->ops.push_back(std::move(ret));
    region->blocks.push_back(std::move(rb));
    reduce->regions.push_back(std::move(region));
    Value* r = to_out(reduce->result(), kept);
    value = emit(g_name, {outs[0], r}, result)->result();
  }
  // The last op emitted becomes `op` (ParseOperation binds its results).
  std::unique_ptr<Operation> last = std::move(emitted.back());
  emitted.pop_back();
  for (auto& e : emitted) block->ops.push_back(std::move(e));
  if (last->result() != value) fail("linalg.generic: internal error");
  op->name = last->name;
  op->operands = last->operands;
  op->attrs = std::move(last->attrs);
  op->regions = std::move(last->regions);
  for (auto& r : op->regions) r->parent = op;
  SetResultTypes(op, {result}, num_results, at);
  // Ops emitted before read `last`'s result nowhere (it is the last); the
  // map's region may have moved into `op`, whose blocks keep their values.
}

// Whether `size` elements from `offset`, `stride` apart, lie within [0, n)
// (computed without overflow).
static bool SliceFits(int64_t offset, int64_t size, int64_t stride, int64_t n) {
  if (offset < 0 || size < 0 || stride < 1 || offset > n) return false;
  if (size == 0) return true;
  return size == 1 ? offset < n : offset < n && stride <= (n - 1 - offset) / (size - 1);
}

// linalg's named ops on tensors:
//   linalg.matmul / batch_matmul / matvec / vecmat / dot ins(%a, %b : A, B) outs(%c : C) [-> C]
//     %c + dot_general(%a, %b) (operands first converted to C's element type,
//     as linalg casts them)
//   linalg.transpose ins(%x : X) outs(%y : Y) permutation = [..]   stablehlo.transpose
//   linalg.broadcast ins(%x : X) outs(%y : Y) dimensions = [..]    broadcast_in_dim
//     over the dimensions of Y not listed (those are the added ones)
void Parser::ParseLinalgNamed(Operation* op, int num_results) {
  const std::string name = op->name;
  Token at = cur_;
  if (cur_.is(Tok::kLBrace)) SkipBalanced(Tok::kLBrace, Tok::kRBrace);
  std::vector<Value*> ins = ParseLinalgOperands("ins");
  std::vector<Value*> outs = ParseLinalgOperands("outs");
  std::vector<int64_t> listed;
  const bool transpose = name == "linalg.transpose", broadcast = name == "linalg.broadcast";
  if (transpose || broadcast) {
    ExpectIdent(transpose ? "permutation" : "dimensions");
    Expect(Tok::kEqual, "before the list");
    listed = ParseStaticList(transpose ? "permutation" : "dimensions");
  }
  if (cur_.is(Tok::kLBrace)) SkipBalanced(Tok::kLBrace, Tok::kRBrace);
  if (outs.size() != 1) Fail(at, name + " takes one output");
  const Type out = outs[0]->type;
  if (Consume(Tok::kArrow)) {
    Token rt = cur_;
    if (ParseType() != out) Fail(rt, name + ": the result type must be the output's " + out.ToString());
  }
  if (transpose || broadcast) {
    if (ins.size() != 1) Fail(at, name + " takes one input");
    op->operands = {ins[0]};
    if (transpose) {
      op->name = "stablehlo.transpose";
      op->attrs.emplace_back("permutation", Ints(listed));
    } else {
      std::vector<int64_t> kept;
      for (int64_t d = 0; d < out.rank(); ++d)
        if (std::find(listed.begin(), listed.end(), d) == listed.end()) kept.push_back(d);
      op->name = "stablehlo.broadcast_in_dim";
      op->attrs.emplace_back("broadcast_dimensions", Ints(kept));
    }
    SetResultTypes(op, {out}, num_results, at);  // the verifier checks the rest as the StableHLO op's
    return;
  }
  if (ins.size() != 2) Fail(at, name + " takes two inputs");
  // Dimension numbers per op: (lhs batch, rhs batch, lhs contracting, rhs contracting).
  std::vector<int64_t> lb, rb, lc, rc;
  if (name == "linalg.matmul") lc = {1}, rc = {0};
  else if (name == "linalg.batch_matmul") lb = {0}, rb = {0}, lc = {2}, rc = {1};
  else if (name == "linalg.matvec") lc = {1}, rc = {0};
  else if (name == "linalg.vecmat") lc = {0}, rc = {0};
  else lc = {0}, rc = {0};  // linalg.dot
  auto emit = [&](std::string n, std::vector<Value*> args, Type t) {
    return EmitBefore(op, std::move(n), std::move(args), std::move(t))->result();
  };
  std::vector<Value*> args;
  for (Value* v : ins) {
    if (!v->type.is_tensor() || v->type.is_quantized()) Fail(at, name + " on " + v->type.ToString() + " is not supported");
    args.push_back(v->type.element == out.element ? v : emit("stablehlo.convert", {v}, Type::Tensor(out.element, v->type.dims)));
  }
  Attribute dnums;
  dnums.kind = Attribute::Kind::kStruct;
  dnums.str = "#stablehlo.dot";
  dnums.fields.emplace_back("lhs_batching_dimensions", Ints(lb));
  dnums.fields.emplace_back("rhs_batching_dimensions", Ints(rb));
  dnums.fields.emplace_back("lhs_contracting_dimensions", Ints(lc));
  dnums.fields.emplace_back("rhs_contracting_dimensions", Ints(rc));
  Value* product = emit("stablehlo.dot_general", args, out);
  product->def->attrs.emplace_back("dot_dimension_numbers", std::move(dnums));
  op->name = "stablehlo.add";
  op->operands = {outs[0], product};
  SetResultTypes(op, {out}, num_results, at);
}

// [a, %i, ...]: the offsets, sizes or strides of a slice, each an integer
// literal or an index value.
Parser::MixedList Parser::ParseMixedList(const char* what) {
  Expect(Tok::kLSquare, what);
  MixedList l;
  while (!cur_.is(Tok::kRSquare)) {
    if (cur_.is(Tok::kValueId)) {
      Token at = cur_;
      Value* x = ParseValueUse();
      if (x->type != Type::Tensor(ElementType::kSI64, {})) Fail(at, std::string(what) + ": a dynamic entry must be an index");
      l.values.push_back(Type::kDynamic);
      l.dynamic.push_back(x);
    } else {
      if (!cur_.is(Tok::kInteger) && !cur_.is(Tok::kMinus)) Fail(cur_, std::string("expected ") + what);
      l.values.push_back(ParseIntLiteral(true));
      l.dynamic.push_back(nullptr);
    }
    if (!Consume(Tok::kComma)) break;
  }
  Expect(Tok::kRSquare, what);
  return l;
}

// [a, b, ...] of integer literals only.
std::vector<int64_t> Parser::ParseStaticList(const char* what) {
  Token at = cur_;
  MixedList l = ParseMixedList(what);
  if (std::find(l.values.begin(), l.values.end(), Type::kDynamic) != l.values.end())
    Fail(at, std::string("only static ") + what + " are supported");
  return l.values;
}

// tensor.expand_shape %x [[0, 1]] [output_shape [..]] : T into T',
// tensor.collapse_shape %x [[0, 1]] : T into T': a stablehlo.reshape.
void Parser::ParseReassociation(Operation* op, int num_results) {
  Token at = cur_;
  Value* x = ParseValueUse();
  SkipBalanced(Tok::kLSquare, Tok::kRSquare);
  if (ConsumeIdent("output_shape")) SkipBalanced(Tok::kLSquare, Tok::kRSquare);
  if (cur_.is(Tok::kLBrace)) SkipBalanced(Tok::kLBrace, Tok::kRBrace);
  Expect(Tok::kColon, "and the operand's type");
  Token ft = cur_;
  if (ParseType() != x->type) Fail(ft, op->name + ": the operand has type " + x->type.ToString());
  ExpectIdent("into");
  Token tt = cur_;
  Type to = ParseType();
  if (!to.HasStaticShape() || !x->type.HasStaticShape() || to.NumElements() != x->type.NumElements() ||
      to.element != x->type.element)
    Fail(tt, op->name + " to " + to.ToString() + " is not supported (static shapes of the same size are)");
  op->name = "stablehlo.reshape";
  op->operands = {x};
  SetResultTypes(op, {to}, num_results, at);
}

// tensor.extract_slice %x[offsets] [sizes] [strides] : T to T' (static; T'
// may drop unit dimensions): stablehlo.slice, then a reshape if it does.
void Parser::ParseExtractSlice(Operation* op, int num_results) {
  Token at = cur_;
  Value* x = ParseValueUse();
  const MixedList mixed_offsets = ParseMixedList("offsets"), mixed_sizes = ParseMixedList("sizes");
  std::vector<int64_t> offsets = mixed_offsets.values, sizes = mixed_sizes.values,
                       strides = ParseStaticList("strides");
  if (cur_.is(Tok::kLBrace)) SkipBalanced(Tok::kLBrace, Tok::kRBrace);
  Expect(Tok::kColon, "and the operand's type");
  Token ft = cur_;
  if (ParseType() != x->type) Fail(ft, "tensor.extract_slice: the operand has type " + x->type.ToString());
  ExpectIdent("to");
  Token tt = cur_;
  Type to = ParseType();
  const size_t rank = static_cast<size_t>(x->type.rank());
  const auto is_dynamic = [](int64_t v) { return v == Type::kDynamic; };
  if (std::any_of(offsets.begin(), offsets.end(), is_dynamic) || std::any_of(sizes.begin(), sizes.end(), is_dynamic) ||
      !x->type.HasStaticShape()) {
    ExtractDynamicSlice(op, num_results, at, x, mixed_offsets, mixed_sizes, strides, tt, to);
    return;
  }
  if (offsets.size() != rank || sizes.size() != rank || strides.size() != rank)
    Fail(at, "tensor.extract_slice needs an offset, size and stride per dimension");
  std::vector<int64_t> limits(rank);
  for (size_t d = 0; d < rank; ++d) {
    if (!SliceFits(offsets[d], sizes[d], strides[d], x->type.dims[d]))
      Fail(at, "tensor.extract_slice: the slice must lie within the operand (sizes from 0, strides from 1)");
    limits[d] = sizes[d] == 0 ? offsets[d] : offsets[d] + (sizes[d] - 1) * strides[d] + 1;
  }
  const Type sliced = Type::Tensor(x->type.element, sizes);
  if (to.element != x->type.element || !to.HasStaticShape() || to.NumElements() != sliced.NumElements())
    Fail(tt, "tensor.extract_slice to " + to.ToString() + " does not fit the slice " + sliced.ToString());
  auto slice_attrs = [&](Operation* o) {
    o->attrs.emplace_back("start_indices", Ints(offsets));
    o->attrs.emplace_back("limit_indices", Ints(limits));
    o->attrs.emplace_back("strides", Ints(strides));
  };
  if (to == sliced) {
    op->name = "stablehlo.slice";
    op->operands = {x};
    slice_attrs(op);
    SetResultTypes(op, {to}, num_results, at);
    return;
  }
  Operation* slice = EmitBefore(op, "stablehlo.slice", {x}, sliced);
  slice_attrs(slice);
  op->name = "stablehlo.reshape";
  op->operands = {slice->result()};
  SetResultTypes(op, {to}, num_results, at);
}

// tensor.extract_slice with offsets or sizes known at run time (or of an
// operand of dynamic shape), strides static: stablehlo.real_dynamic_slice
// from the offsets to min(offset + size * stride, the operand's size) per
// dimension (the limit past the last element read, within the operand; a
// size of 0 gives an empty slice). Not rank-reducing.
void Parser::ExtractDynamicSlice(Operation* op, int num_results, const Token& at, Value* x, const MixedList& offsets,
                                 const MixedList& sizes, const std::vector<int64_t>& strides, const Token& tt,
                                 const Type& to) {
  const size_t rank = static_cast<size_t>(x->type.rank());
  if (offsets.values.size() != rank || sizes.values.size() != rank || strides.size() != rank)
    Fail(at, "tensor.extract_slice needs an offset, size and stride per dimension");
  std::vector<int64_t> sliced(rank);
  for (size_t d = 0; d < rank; ++d) {
    if (strides[d] < 1) Fail(at, "tensor.extract_slice: strides start from 1");
    if (offsets.values[d] != Type::kDynamic && offsets.values[d] < 0) Fail(at, "tensor.extract_slice: an offset is negative");
    if (sizes.values[d] != Type::kDynamic && sizes.values[d] < 0) Fail(at, "tensor.extract_slice: a size is negative");
    sliced[d] = sizes.values[d];
  }
  const Type sliced_type = Type::Tensor(x->type.element, sliced);
  bool fits = to.is_tensor() && to.element == x->type.element && to.rank() == static_cast<int64_t>(rank);
  for (size_t d = 0; fits && d < rank; ++d)
    fits = sliced[d] == Type::kDynamic || to.dims[d] == Type::kDynamic || to.dims[d] == sliced[d];
  if (!fits)
    Fail(tt, "tensor.extract_slice to " + to.ToString() + " does not fit the slice " + sliced_type.ToString() +
                 " (a slice with sizes or offsets known at run time is not rank-reducing)");
  EmitFn emit = [&](std::string name, std::vector<Value*> args, Type t) {
    return EmitBefore(op, std::move(name), std::move(args), std::move(t));
  };
  const Type index = Type::Tensor(ElementType::kSI64, {});
  auto constant = [&](int64_t v) {
    Operation* c = emit("stablehlo.constant", {}, index);
    Scalar s;
    s.i = v;
    c->attrs.emplace_back("value", Splat(index, s));
    return c->result();
  };
  auto entry = [&](const MixedList& l, size_t d) { return l.values[d] == Type::kDynamic ? l.dynamic[d] : constant(l.values[d]); };
  std::vector<Value*> limits(rank);
  for (size_t d = 0; d < rank; ++d) {
    Value* span = emit("stablehlo.multiply", {entry(sizes, d), constant(strides[d])}, index)->result();
    Value* end = emit("stablehlo.add", {entry(offsets, d), span}, index)->result();
    Value* dim = x->type.dims[d] == Type::kDynamic ? DimensionOf(emit, x, static_cast<int64_t>(d), kShapeType) : constant(x->type.dims[d]);
    limits[d] = emit("stablehlo.minimum", {end, dim}, index)->result();
  }
  Value* start = ShapeTensor(emit, offsets.values, [&](size_t d) { return offsets.dynamic[d]; }, kShapeType);
  Value* limit = ShapeTensor(emit, std::vector<int64_t>(rank, Type::kDynamic), [&](size_t d) { return limits[d]; },
                             kShapeType);
  Value* step = ShapeTensor(emit, strides, [](size_t) -> Value* { return nullptr; }, kShapeType);
  op->name = "stablehlo.real_dynamic_slice";
  op->operands = {x, start, limit, step};
  SetResultTypes(op, {to}, num_results, at);
}

// tensor.insert_slice %s into %d[offsets] [sizes] [strides] : S into D
// (static): %s padded into D's shape (low = offset, interior = stride - 1)
// selected over %d where a mask padded the same way is true.
void Parser::ParseInsertSlice(Operation* op, int num_results) {
  Token at = cur_;
  Value* src = ParseValueUse();
  ExpectIdent("into");
  Value* dst = ParseValueUse();
  std::vector<int64_t> offsets = ParseStaticList("offsets"), sizes = ParseStaticList("sizes"),
                       strides = ParseStaticList("strides");
  if (cur_.is(Tok::kLBrace)) SkipBalanced(Tok::kLBrace, Tok::kRBrace);
  Expect(Tok::kColon, "and the source's type");
  Token st = cur_;
  if (ParseType() != src->type) Fail(st, "tensor.insert_slice: the source has type " + src->type.ToString());
  ExpectIdent("into");
  Token dt = cur_;
  if (ParseType() != dst->type) Fail(dt, "tensor.insert_slice: the destination has type " + dst->type.ToString());
  const Type& d = dst->type;
  const size_t rank = static_cast<size_t>(d.rank());
  if (offsets.size() != rank || sizes.size() != rank || strides.size() != rank || !d.HasStaticShape() ||
      !src->type.HasStaticShape() || src->type.element != d.element)
    Fail(at, "tensor.insert_slice needs an offset, size and stride per dimension of static shapes");
  std::vector<int64_t> low(rank), high(rank), interior(rank);
  for (size_t k = 0; k < rank; ++k) {
    if (sizes[k] < 1 || !SliceFits(offsets[k], sizes[k], strides[k], d.dims[k]))
      Fail(at, "tensor.insert_slice: the slice must lie within the destination (sizes and strides from 1)");
    low[k] = offsets[k];
    interior[k] = strides[k] - 1;
    high[k] = d.dims[k] - (offsets[k] + (sizes[k] - 1) * strides[k] + 1);
  }
  const Type placed = Type::Tensor(d.element, sizes);
  if (placed.NumElements() != src->type.NumElements()) Fail(at, "tensor.insert_slice: the sizes do not fit the source");
  auto emit = [&](std::string name, std::vector<Value*> args, Type t) {
    return EmitBefore(op, std::move(name), std::move(args), std::move(t))->result();
  };
  auto constant = [&](const Type& t, int64_t i) {
    Value* v = emit("stablehlo.constant", {}, t);
    Scalar s;
    s.i = i;
    s.re = static_cast<double>(i);
    v->def->attrs.emplace_back("value", Splat(t, s));
    return v;
  };
  auto pad = [&](Value* v, Value* fill) {
    Value* p = emit("stablehlo.pad", {v, fill}, Type::Tensor(v->type.element, d.dims));
    p->def->attrs.emplace_back("edge_padding_low", Ints(low));
    p->def->attrs.emplace_back("edge_padding_high", Ints(high));
    p->def->attrs.emplace_back("interior_padding", Ints(interior));
    return p;
  };
  Value* s = src->type == placed ? src : emit("stablehlo.reshape", {src}, placed);
  Value* values = pad(s, constant(Type::Tensor(d.element, {}), 0));
  Value* mask = pad(constant(Type::Tensor(ElementType::kI1, sizes), 1), constant(Type::Tensor(ElementType::kI1, {}), 0));
  op->name = "stablehlo.select";
  op->operands = {mask, values, dst};
  SetResultTypes(op, {d}, num_results, at);
}

Operation* Parser::EmitBefore(Operation* anchor, std::string name, std::vector<Value*> operands, Type type) {
  Block* block = anchor->parent;
  auto op = NewOperation(std::move(name), anchor->loc, block);
  op->operands = std::move(operands);
  AddResult(op.get(), std::move(type));
  block->ops.push_back(std::move(op));
  return block->ops.back().get();
}

}  // namespace kiln::ir::detail

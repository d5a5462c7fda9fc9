// Module globals: MLIR's `ml_program.global` and IREE's `util.global`, and
// the ops that read and write them (docs/jax.md, "Module globals").
//
// Declarations (module level) become ir::Global:
//   ml_program.global private mutable @g(dense<2.0> : tensor<f32>) : tensor<f32>
//   ml_program.global private mutable @g : tensor<4xf32>            (zeros)
//   util.global private mutable @g = dense<2.0> : tensor<f32>
//   util.global private @w {attrs} = #util.byte_pattern<1> : tensor<8xf32>
//   util.global private @g : tensor<4xf32> [= initial]
// Every use is one of two IR ops, the generic forms MLIR gives ml_program's:
//   %v = "ml_program.global_load"() {global = @g} : () -> T
//   "ml_program.global_store"(%v) {global = @g} : (T) -> ()
// read from ml_program.global_load / global_load_const / global_store and
// util.global.load / store / load.indirect / store.indirect. An
// `util.global.address` is an op of the pointee's tensor type that only the
// indirect forms may read; they take its symbol, and it is removed
// (RemoveGlobalAddresses).
#include <algorithm>
#include <functional>

#include "compiler/parse/parser_impl.h"

namespace kiln::ir::detail {
namespace {

constexpr std::string_view kAddress = "util.global.address";

}  // namespace

void Parser::ParseGlobal(Module* m) {
  Token start = cur_;
  const bool is_util = cur_.IsIdent("util.global");
  Advance();
  Global g;
  g.loc = LocOf(start);
  // Visibility does not matter to Kiln: a global is never an entry point.
  if (cur_.IsIdent("private") || cur_.IsIdent("public") || cur_.IsIdent("nested")) Advance();
  if (ConsumeIdent("mutable")) g.is_mutable = true;
  Token name_tok = cur_;
  g.name = ParseSymbolName();
  if (m->FindGlobal(g.name) || m->FindFunction(g.name)) Fail(name_tok, "symbol '@" + g.name + "' is defined twice");
  // An initial value: a dense attribute, or IREE's byte pattern (every byte
  // of the storage is the pattern modulo 256).
  bool byte_pattern = false;
  int64_t pattern = 0;
  Token init_tok = cur_;
  auto parse_initial = [&] {
    init_tok = cur_;
    if (cur_.is(Tok::kHashId) && cur_.text == "#util.byte_pattern") {
      Advance();
      Expect(Tok::kLess, "after #util.byte_pattern");
      pattern = ParseIntLiteral(true);
      Expect(Tok::kGreater, "to close #util.byte_pattern");
      byte_pattern = true;
      if (Consume(Tok::kColon)) g.type = ParseType();
      return;
    }
    if (cur_.is(Tok::kHashId) && cur_.text == "#ml_program.extern")
      Fail(cur_, "an external global (#ml_program.extern) is not supported; give its initial value");
    g.initial = ParseAttribute();
    if (g.initial.kind != Attribute::Kind::kDense)
      Fail(init_tok, "a global's initial value must be dense<...> : tensor<...> or #util.byte_pattern<N>");
  };
  if (is_util) {
    if (cur_.is(Tok::kLBrace)) SkipBalanced(Tok::kLBrace, Tok::kRBrace);  // inlining policy and the like: hints
    if (Consume(Tok::kColon)) {
      g.type = ParseType();
      if (Consume(Tok::kEqual)) parse_initial();
    } else {
      Expect(Tok::kEqual, "or ':' after the global's name");
      parse_initial();
      if (!byte_pattern && g.type.dims.empty() && g.type.element == ElementType::kInvalid) g.type = g.initial.type;
    }
  } else {
    if (Consume(Tok::kLParen)) {
      parse_initial();
      Expect(Tok::kRParen, "to close the initial value");
    }
    if (cur_.is(Tok::kLBrace)) SkipBalanced(Tok::kLBrace, Tok::kRBrace);
    Expect(Tok::kColon, "and the global's type");
    g.type = ParseType();
  }
  if (g.type.element == ElementType::kInvalid && g.initial.kind == Attribute::Kind::kDense) g.type = g.initial.type;
  if (!g.type.is_tensor() || g.type.element == ElementType::kInvalid)
    Fail(name_tok, "global '@" + g.name + "' needs a tensor type");
  if (!g.type.HasStaticShape())
    Fail(name_tok, "global '@" + g.name + "' has type " + g.type.ToString() + "; Kiln's globals have static shapes");
  if (g.initial.kind == Attribute::Kind::kDense && g.initial.type != g.type)
    Fail(init_tok, "the initial value has type " + g.initial.type.ToString() + ", the global " + g.type.ToString());
  if (byte_pattern) {
    // The storage bytes of the type, each the pattern's low byte.
    Attribute zero;
    zero.kind = Attribute::Kind::kDense;
    zero.type = g.type;
    // Types narrower than their storage (i1, i4, ...) would get bytes that
    // are no value of theirs.
    if (static_cast<size_t>(BitWidth(g.type.element)) != 8 * StorageBytes(g.type.element))
      Fail(init_tok, "#util.byte_pattern needs an element type that fills its bytes, not " +
                         std::string(Name(g.type.element)));
    const size_t bytes = static_cast<size_t>(g.type.NumElements()) * StorageBytes(g.type.element);
    zero.dense_bytes.assign(bytes, static_cast<uint8_t>(static_cast<uint64_t>(pattern) % 256));
    g.initial = std::move(zero);
  }
  SkipLocation();
  m->globals.push_back(std::move(g));
}

// ml_program.global_load[_const] @g : T, ml_program.global_store @g = %v : T,
// util.global.load [immutable] @g : T, util.global.store %v, @g : T,
// util.global.address [immutable] @g : !util.ptr<T>,
// util.global.load.indirect [immutable] %p : !util.ptr<T> -> T,
// util.global.store.indirect %v, %p : T -> !util.ptr<T>.
void Parser::ParseGlobalOp(Operation* op, int num_results) {
  const std::string n = op->name;
  auto pointer_type = [&] {  // !util.ptr<T>: T
    if (!cur_.is(Tok::kBangId) || cur_.text != "!util.ptr") FailExpected("!util.ptr<...>");
    Advance();
    Expect(Tok::kLess, "after !util.ptr");
    Type t = ParseType();
    Expect(Tok::kGreater, "to close !util.ptr");
    return t;
  };
  auto address_of = [&](const Value* p, const Token& at) {
    if (!p->def || p->def->name != kAddress) Fail(at, n + " reads a pointer that util.global.address defines");
    return p->def->GetAttr("global")->str;
  };
  Token at = cur_;
  ConsumeIdent("immutable");
  std::string global;
  Value* stored = nullptr;
  Type t;
  if (n == "ml_program.global_load" || n == "ml_program.global_load_const" || n == "util.global.load" ||
      n == kAddress) {
    global = ParseSymbolName();
    if (cur_.is(Tok::kLBrace)) MergeAttrs(op, ParseAttrDict());
    Expect(Tok::kColon, "and the global's type");
    t = n == kAddress ? pointer_type() : ParseType();
  } else if (n == "ml_program.global_store") {
    global = ParseSymbolName();
    Expect(Tok::kEqual, "after the global's name");
    stored = ParseValueUse();
    if (cur_.is(Tok::kLBrace)) MergeAttrs(op, ParseAttrDict());
    Expect(Tok::kColon, "and the value's type");
    t = ParseType();
  } else if (n == "util.global.store") {
    stored = ParseValueUse();
    Expect(Tok::kComma, "after the stored value");
    global = ParseSymbolName();
    if (cur_.is(Tok::kLBrace)) MergeAttrs(op, ParseAttrDict());
    Expect(Tok::kColon, "and the value's type");
    t = ParseType();
  } else if (n == "util.global.load.indirect") {
    Token pt = cur_;
    Value* p = ParseValueUse();
    global = address_of(p, pt);
    Expect(Tok::kColon, "and the pointer's type");
    pointer_type();
    Expect(Tok::kArrow, "and the loaded type");
    t = ParseType();
  } else {  // util.global.store.indirect
    stored = ParseValueUse();
    Expect(Tok::kComma, "after the stored value");
    Token pt = cur_;
    Value* p = ParseValueUse();
    global = address_of(p, pt);
    Expect(Tok::kColon, "and the value's type");
    t = ParseType();
    Expect(Tok::kArrow, "and the pointer's type");
    pointer_type();
  }
  op->attrs.erase(std::remove_if(op->attrs.begin(), op->attrs.end(), [](const NamedAttr& a) { return a.first == "global"; }),
                  op->attrs.end());
  op->attrs.emplace_back("global", SymbolAttr(global));
  if (stored) {
    if (stored->type != t) Fail(at, n + ": the value has type " + stored->type.ToString() + ", not " + t.ToString());
    if (num_results != 0) Fail(at, n + " defines no results");
    op->name = "ml_program.global_store";
    op->operands = {stored};
    return;
  }
  if (n != kAddress) op->name = "ml_program.global_load";
  SetResultTypes(op, {t}, num_results, at);
}

// util.global.address ops stand for their symbol only: once the indirect
// loads and stores have taken it, nothing else may read them.
void Parser::RemoveGlobalAddresses(Function* fn) {
  std::function<void(Region&)> walk = [&](Region& r) {
    for (auto& b : r.blocks) {
      for (auto& op : b->ops) {
        for (const Value* v : op->operands)
          if (v->def && v->def->name == kAddress)
            throw ParseError{op->loc, "the pointer util.global.address defines is read only by "
                                      "util.global.load.indirect and util.global.store.indirect"};
        for (auto& sub : op->regions) walk(*sub);
      }
      std::erase_if(b->ops, [](const std::unique_ptr<Operation>& op) { return op->name == kAddress; });
    }
  };
  walk(fn->body);
}

}  // namespace kiln::ir::detail

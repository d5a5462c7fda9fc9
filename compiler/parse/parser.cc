// The parser's structure: modules, functions, regions, blocks, SSA names and
// the generic op form. Types, attributes, dense literals and pretty op forms
// live in parse_*.cc.
#include "compiler/parse/parser.h"

#include "compiler/parse/bytecode/read_bytecode.h"

#include <algorithm>
#include <new>

#include "compiler/op_names.h"
#include "compiler/parse/parser_impl.h"
#include "compiler/parse/source_format.h"
#include "compiler/parse/structurize_cfg.h"

namespace kiln::ir {
namespace detail {

// ---------------------------------------------------------------- tokens ----

void Parser::Advance() {
  cur_ = lex_.Next();
  if (cur_.is(Tok::kError)) Fail(cur_, lex_.error());
}

void Parser::Fail(const Token& at, const std::string& msg) { throw ParseError{LocOf(at), msg}; }

void Parser::FailExpected(const char* what) {
  std::string got = cur_.is(Tok::kEof) ? std::string("end of input")
                                       : "'" + std::string(cur_.text.substr(0, 40)) + "'";
  Fail(cur_, std::string("expected ") + what + ", got " + got);
}

void Parser::Expect(Tok k, const char* context) {
  if (cur_.is(k)) {
    Advance();
    return;
  }
  std::string what = TokName(k);
  if (context) what += std::string(" ") + context;
  FailExpected(what.c_str());
}

void Parser::ExpectIdent(std::string_view s) {
  if (ConsumeIdent(s)) return;
  std::string what = "'" + std::string(s) + "'";
  FailExpected(what.c_str());
}

Token Parser::Peek() {
  Lexer copy = lex_;
  Token t = copy.Next();
  return t;
}

void Parser::SkipBalanced(Tok open, Tok close) {
  Nest nest(this);
  Expect(open);
  int depth = 1;
  while (depth > 0) {
    if (cur_.is(Tok::kEof)) FailExpected(TokName(close));
    if (cur_.is(open)) {
      if (++depth > kMaxNesting) Fail(cur_, "nesting too deep (more than 256 levels)");
    } else if (cur_.is(close)) {
      --depth;
    }
    Advance();
  }
}

// Source locations are accepted anywhere MLIR prints them and ignored.
void Parser::SkipLocation() {
  if (cur_.IsIdent("loc") && Peek().is(Tok::kLParen)) {
    Advance();
    SkipBalanced(Tok::kLParen, Tok::kRParen);
  }
}

std::string Parser::ParseSymbolName() {
  if (!cur_.is(Tok::kSymbolId)) FailExpected("symbol name (@name)");
  std::string name;
  if (cur_.text.size() > 1 && cur_.text[1] == '"') {
    if (!DecodeStringToken(cur_.text, &name)) Fail(cur_, "invalid escape in symbol name");
  } else {
    name = std::string(cur_.text.substr(1));
  }
  Advance();
  return name;
}

int64_t Parser::ParseIntLiteral(bool allow_negative) {
  bool neg = false;
  Token start = cur_;
  if (allow_negative && Consume(Tok::kMinus)) neg = true;
  if (!cur_.is(Tok::kInteger)) FailExpected("integer");
  uint64_t v = 0;
  std::string_view t = cur_.text;
  bool hex = t.size() > 2 && t[1] == 'x';
  for (size_t i = hex ? 2 : 0; i < t.size(); ++i) {
    char c = t[i];
    unsigned d = c <= '9' ? c - '0' : (c | 32) - 'a' + 10;
    unsigned base = hex ? 16 : 10;
    if (v > (UINT64_MAX - d) / base) Fail(cur_, "integer literal out of range");
    v = v * base + d;
  }
  if (v > uint64_t(INT64_MAX) + (neg ? 1 : 0)) Fail(start, "integer literal out of range");
  Advance();
  return neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

// ------------------------------------------------------------------- SSA ----

void Parser::Define(const Token& name, ValueDef def) {
  for (const auto& scope : scopes_)
    if (scope.count(name.text))
      Fail(name, "redefinition of SSA value '" + std::string(name.text) + "'");
  scopes_.back().emplace(name.text, def);
}

Value* Parser::ParseValueUse() {
  if (!cur_.is(Tok::kValueId)) FailExpected("SSA value");
  Token name = cur_;
  Advance();
  int index = -1;
  if (cur_.is(Tok::kHashId)) {
    std::string_view digits = cur_.text.substr(1);
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string_view::npos)
      Fail(cur_, "expected a result number after '#'");
    index = std::stoi(std::string(digits));
    Advance();
  }
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->find(name.text);
    if (f == it->end()) continue;
    const ValueDef& d = f->second;
    if (d.value) {
      if (index > 0) Fail(name, "result number out of range for '" + std::string(name.text) + "'");
      return d.value;
    }
    if (index < 0) {
      if (d.count != 1)
        Fail(name, "'" + std::string(name.text) + "' names " + std::to_string(d.count) +
                       " results; use " + std::string(name.text) + "#N");
      index = 0;
    }
    if (index >= d.count)
      Fail(name, "result number " + std::to_string(index) + " out of range for '" +
                     std::string(name.text) + "' (it has " + std::to_string(d.count) + ")");
    return d.op->result(d.base + index);
  }
  Fail(name, "use of undefined value '" + std::string(name.text) + "'");
}

std::vector<Value*> Parser::ParseValueUseList() {
  std::vector<Value*> out;
  if (!cur_.is(Tok::kValueId)) return out;
  out.push_back(ParseValueUse());
  while (cur_.is(Tok::kComma) && Peek().is(Tok::kValueId)) {
    Advance();
    out.push_back(ParseValueUse());
  }
  return out;
}

Value* Parser::AddBlockArg(Block* b, const Token& name, Type t) {
  auto v = std::make_unique<Value>();
  v->type = std::move(t);
  v->index = static_cast<int>(b->args.size());
  v->owner_block = b;
  Value* raw = v.get();
  b->args.push_back(std::move(v));
  ValueDef d;
  d.value = raw;
  Define(name, d);
  return raw;
}

// ------------------------------------------------------------- structure ----

std::unique_ptr<Module> Parser::ParseTopLevel() {
  Advance();
  auto m = std::make_unique<Module>();
  bool saw_module = false, saw_func = false;
  for (;;) {
    if (cur_.is(Tok::kEof)) break;
    if (cur_.is(Tok::kHashId) || cur_.is(Tok::kBangId)) {
      // Alias definitions: #name = attr, !name = type.
      Token name = cur_;
      Advance();
      Expect(Tok::kEqual, "in alias definition");
      if (name.is(Tok::kHashId)) {
        if (cur_.IsIdent("loc")) {
          loc_aliases_[name.text] = ParseLocation();
          attr_aliases_[name.text] = Attribute{};  // as an attribute, a location has no content
        } else {
          attr_aliases_[name.text] = ParseAttribute();
        }
      } else {
        type_aliases_[name.text] = ParseType();
      }
      continue;
    }
    if (cur_.IsIdent("module")) {
      if (saw_module || saw_func) Fail(cur_, "expected one module or bare functions, not both");
      saw_module = true;
      Advance();
      if (cur_.is(Tok::kSymbolId)) m->name = ParseSymbolName();
      if (ConsumeIdent("attributes")) m->attrs = ParseAttrDict();
      Expect(Tok::kLBrace, "to open the module body");
      while (!cur_.is(Tok::kRBrace)) {
        if (cur_.is(Tok::kEof)) FailExpected("'}' to close the module");
        if (cur_.IsIdent("func.func") || cur_.IsIdent("func")) {
          ParseFunction(m.get());
        } else if (cur_.IsIdent("ml_program.global") || cur_.IsIdent("util.global")) {
          ParseGlobal(m.get());
        } else if (cur_.IsIdent("sdy.mesh")) {
          SkipShardyMesh();
        } else {
          FailExpected("'func.func', 'ml_program.global' or 'util.global' in module body");
        }
      }
      Advance();
      SkipLocation();
      continue;
    }
    if (cur_.IsIdent("sdy.mesh")) {
      SkipShardyMesh();
      continue;
    }
    if (cur_.is(Tok::kFileMetadataBegin)) {  // dense_resource blobs (parse_resources.cc)
      ParseFileMetadata();
      resources_read_ = true;
      continue;
    }
    if (cur_.IsIdent("func.func")) {
      if (saw_module) Fail(cur_, "expected one module or bare functions, not both");
      saw_func = true;
      ParseFunction(m.get());
      continue;
    }
    if (cur_.IsIdent("ml_program.global") || cur_.IsIdent("util.global")) {
      if (saw_module) Fail(cur_, "expected one module or bare functions, not both");
      saw_func = true;
      ParseGlobal(m.get());
      continue;
    }
    FailExpected("'module', 'func.func', a global or an alias definition");
  }
  ResolveLocationAliases(m.get());
  return m;
}

void Parser::ParseFunction(Module* m) {
  Token start = cur_;
  Advance();  // func.func
  auto fn = std::make_unique<Function>();
  fn->loc = LocOf(start);
  if (cur_.IsIdent("private") || cur_.IsIdent("public") || cur_.IsIdent("nested")) {
    fn->is_public = cur_.text == "public";
    Advance();
  }
  Token name_tok = cur_;
  fn->name = ParseSymbolName();
  if (m->FindFunction(fn->name)) Fail(name_tok, "redefinition of function '@" + fn->name + "'");
  if (m->FindGlobal(fn->name)) Fail(name_tok, "symbol '@" + fn->name + "' is defined twice");

  // Functions are isolated from above: a fresh SSA scope stack.
  auto saved_scopes = std::move(scopes_);
  scopes_.clear();
  PushScope();
  auto block = std::make_unique<Block>();
  block->parent = &fn->body;
  Expect(Tok::kLParen, "to open the argument list");
  std::vector<Attribute> arg_attrs;
  bool any_arg_attrs = false, named_args = false;
  if (!cur_.is(Tok::kRParen)) {
    for (;;) {
      if (cur_.is(Tok::kValueId)) {
        if (!named_args && !fn->arg_types.empty()) Fail(cur_, "mixed named and unnamed arguments");
        named_args = true;
        Token arg = cur_;
        Advance();
        Expect(Tok::kColon, "after argument name");
        Type t = ParseType();
        fn->arg_types.push_back(t);
        AddBlockArg(block.get(), arg, t);
      } else {
        if (named_args) FailExpected("argument name");
        fn->arg_types.push_back(ParseType());
      }
      Attribute d;
      d.kind = Attribute::Kind::kDict;
      if (cur_.is(Tok::kLBrace)) {
        d.fields = ParseAttrDict();
        any_arg_attrs = any_arg_attrs || !d.fields.empty();
      }
      arg_attrs.push_back(std::move(d));
      SkipLocation();
      if (!Consume(Tok::kComma)) break;
    }
  }
  Expect(Tok::kRParen, "to close the argument list");
  std::vector<Attribute> res_attrs;
  bool any_res_attrs = false;
  if (Consume(Tok::kArrow)) {
    // Result attributes only inside parentheses: `-> T {` opens the body.
    auto one_result = [&](bool in_parens) {
      fn->result_types.push_back(ParseType());
      Attribute d;
      d.kind = Attribute::Kind::kDict;
      if (in_parens && cur_.is(Tok::kLBrace)) {
        d.fields = ParseAttrDict();
        any_res_attrs = any_res_attrs || !d.fields.empty();
      }
      res_attrs.push_back(std::move(d));
    };
    if (Consume(Tok::kLParen)) {
      if (!cur_.is(Tok::kRParen)) {
        one_result(true);
        while (Consume(Tok::kComma)) one_result(true);
      }
      Expect(Tok::kRParen, "to close the result list");
    } else {
      one_result(false);
    }
  }
  if (ConsumeIdent("attributes")) fn->attrs = ParseAttrDict();
  auto add_attr_array = [&](const char* name, std::vector<Attribute>& v) {
    Attribute a;
    a.kind = Attribute::Kind::kArray;
    a.elements = std::move(v);
    fn->attrs.emplace_back(name, std::move(a));
  };
  if (any_arg_attrs) add_attr_array("arg_attrs", arg_attrs);
  if (any_res_attrs) add_attr_array("res_attrs", res_attrs);

  if (cur_.is(Tok::kLBrace)) {
    if (!named_args && !fn->arg_types.empty()) Fail(cur_, "a function body needs named arguments");
    Region* body = &fn->body;
    fn->body.blocks.push_back(std::move(block));
    // The entry block's arguments are already in scope; parse the ops.
    Advance();
    Block* current = body->blocks.back().get();
    if (cur_.is(Tok::kBlockId)) Fail(cur_, "function entry block must not be labelled");
    // Further blocks (`^bb1(%x: T):`) are the control-flow graph of cf.br /
    // cf.cond_br that TensorFlow's importer writes; StructurizeCfg turns
    // them into one block below.
    while (!cur_.is(Tok::kRBrace)) {
      if (cur_.is(Tok::kEof)) FailExpected("'}' to close the function body");
      if (cur_.is(Tok::kBlockId)) {
        if (body->blocks.size() >= kMaxFunctionBlocks)
          Fail(cur_, "a function may have at most " + std::to_string(kMaxFunctionBlocks) + " blocks");
        auto b = std::make_unique<Block>();
        b->parent = body;
        b->label = std::string(cur_.text.substr(1));
        for (size_t k = 1; k < body->blocks.size(); ++k)
          if (body->blocks[k]->label == b->label) Fail(cur_, "block ^" + b->label + " is defined twice");
        Advance();
        body->blocks.push_back(std::move(b));
        current = body->blocks.back().get();
        ParseBlockArgs(current);
        Expect(Tok::kColon, "after block label");
        continue;
      }
      ParseOperation(current);
    }
    Token close = cur_;
    Advance();
    RemoveGlobalAddresses(fn.get());
    if (NeedsStructurizing(*fn)) {
      CfgError e;
      if (!StructurizeCfg(fn.get(), &e)) throw ParseError{e.loc.line ? e.loc : LocOf(close), e.message};
    }
  }
  SkipLocation();
  scopes_ = std::move(saved_scopes);
  m->functions.push_back(std::move(fn));
}

void Parser::ParseBlockArgs(Block* block) {
  if (!Consume(Tok::kLParen)) return;
  if (!cur_.is(Tok::kRParen)) {
    for (;;) {
      if (!cur_.is(Tok::kValueId)) FailExpected("block argument");
      Token name = cur_;
      Advance();
      Expect(Tok::kColon, "after block argument name");
      Type t = ParseType();
      SkipLocation();
      AddBlockArg(block, name, std::move(t));
      if (!Consume(Tok::kComma)) break;
    }
  }
  Expect(Tok::kRParen, "to close the block arguments");
}

// `{ [^bb0(args):] ops [^bb1: ops ...] }`. entry_args, when given, are the
// entry block's arguments declared by a pretty form outside the braces.
void Parser::ParseRegion(Region* region, const std::vector<std::pair<Token, Type>>* entry_args) {
  Nest nest(this);
  Expect(Tok::kLBrace, "to open a region");
  PushScope();
  if (cur_.is(Tok::kRBrace) && !entry_args) {  // empty region
    Advance();
    PopScope();
    return;
  }
  auto new_block = [&] {
    auto b = std::make_unique<Block>();
    b->parent = region;
    region->blocks.push_back(std::move(b));
    return region->blocks.back().get();
  };
  Block* block = nullptr;
  if (!cur_.is(Tok::kBlockId)) {
    block = new_block();
    if (entry_args)
      for (const auto& [name, type] : *entry_args) AddBlockArg(block, name, type);
  } else if (entry_args) {
    Fail(cur_, "this region's arguments are declared before it; no block label expected");
  }
  for (;;) {
    if (cur_.is(Tok::kRBrace)) break;
    if (cur_.is(Tok::kEof)) FailExpected("'}' to close the region");
    if (cur_.is(Tok::kBlockId)) {
      Advance();
      block = new_block();
      ParseBlockArgs(block);
      Expect(Tok::kColon, "after block label");
      continue;
    }
    ParseOperation(block);
  }
  Advance();
  PopScope();
}

void Parser::ParseRegionList(Operation* op) {
  Expect(Tok::kLParen);
  for (;;) {
    auto r = std::make_unique<Region>();
    r->parent = op;
    ParseRegion(r.get(), nullptr);
    op->regions.push_back(std::move(r));
    if (!Consume(Tok::kComma)) break;
  }
  Expect(Tok::kRParen, "to close the region list");
}

// MHLO, the dialect StableHLO grew from (older TensorFlow and IREE tests
// write it): an mhlo op whose name StableHLO also has is read as that op
// (`mhlo.add` as `stablehlo.add`); other mhlo ops keep their name and are
// refused as unknown.
static std::string FromMhlo(std::string name) {
  constexpr std::string_view kMhlo = "mhlo.";
  if (name.rfind(kMhlo, 0) != 0) return name;
  std::string as_stablehlo = "stablehlo." + name.substr(kMhlo.size());
  return compiler::op_names::IsKnownOp(as_stablehlo) ? as_stablehlo : name;
}

void Parser::ParseOperation(Block* block) {
  Nest nest(this);
  std::vector<ResultName> results;
  int num_results = 0;
  if (cur_.is(Tok::kValueId)) {
    for (;;) {
      if (!cur_.is(Tok::kValueId)) FailExpected("result name");
      ResultName r{cur_, 1};
      Advance();
      if (Consume(Tok::kColon)) {
        Token n = cur_;
        int64_t c = ParseIntLiteral(false);
        if (c < 1 || c > (1 << 20)) Fail(n, "invalid result count");
        r.count = static_cast<int>(c);
      }
      num_results += r.count;
      results.push_back(r);
      if (!Consume(Tok::kComma)) break;
    }
    Expect(Tok::kEqual, "after result names");
  }
  auto op = std::make_unique<Operation>();
  op->parent = block;
  Token name_tok = cur_;
  op->loc = LocOf(name_tok);
  if (cur_.is(Tok::kString)) {
    if (!DecodeStringToken(cur_.text, &op->name) || op->name.empty())
      Fail(cur_, "invalid op name");
    op->name = FromMhlo(op->name);
    // The other dialects' ops the parser reads are read in their custom
    // forms only (parse_ops_pretty.cc checks those).
    if (compiler::op_names::IsReadByParser(op->name))
      Fail(cur_, op->name + " is read in its custom form only, not the generic one");
    Advance();
    std::string_view saved = current_op_;
    current_op_ = op->name;
    ParseGenericOp(op.get(), num_results);
    current_op_ = saved;
  } else if (cur_.is(Tok::kIdent)) {
    op->name = FromMhlo(std::string(cur_.text));
    if (op->name == "return") op->name = "func.return";
    if (op->name == "call") op->name = "func.call";
    // Pretty syntax needs a dialect-qualified name (unknown bare words are
    // typos, not ops).
    if (op->name.find('.') == std::string::npos || op->name.front() == '.' ||
        op->name.back() == '.')
      Fail(cur_, "unknown operation '" + op->name + "'");
    Advance();
    std::string_view saved = current_op_;
    current_op_ = op->name;
    if (IsShardyOpName(op->name)) {
      ParseShardyPretty(op.get(), name_tok, num_results);
    } else {
      try {
        ParsePrettyOp(op.get(), name_tok, num_results);
      } catch (const ParseError&) {
        // An op outside the input language is reported as such, not by
        // what its operands' syntax happened to trip over.
        if (!compiler::op_names::IsKnownOp(op->name) && !compiler::op_names::IsReadByParser(op->name))
          Fail(name_tok, compiler::op_names::UnknownOpMessage(op->name));
        throw;
      }
    }
    current_op_ = saved;
  } else {
    FailExpected("operation");
  }
  if (static_cast<int>(op->results.size()) != num_results)
    Fail(name_tok, "operation defines " + std::to_string(op->results.size()) +
                       " results but " + std::to_string(num_results) + " names are bound");
  op->loc.origin = ParseLocation();
  if (IsShardyOpName(op->name)) {  // annotations, not computation (parse_shardy.cc)
    ForwardShardyOp(*op, results, name_tok);
    return;
  }
  if (op->name == "tensor.cast" || op->name == "tensor.extract") {  // the operand itself (parse_ops_pretty.cc)
    ValueDef d;
    d.value = op->operands[0];
    Define(results[0].tok, d);
    return;
  }
  // The results come into scope after the op (its regions cannot use them).
  int base = 0;
  for (const auto& r : results) {
    ValueDef d;
    if (r.count == 1) {
      d.value = op->result(base);
    } else {
      d.op = op.get();
      d.base = base;
      d.count = r.count;
    }
    Define(r.tok, d);
    base += r.count;
  }
  block->ops.push_back(std::move(op));
}

void Parser::SetResultTypes(Operation* op, const std::vector<Type>& types, int num_results,
                            const Token& at) {
  if (static_cast<int>(types.size()) != num_results)
    Fail(at, "'" + op->name + "' has " + std::to_string(types.size()) + " result types but " +
                 std::to_string(num_results) + " result names");
  op->results.clear();
  for (size_t i = 0; i < types.size(); ++i) {
    auto v = std::make_unique<Value>();
    v->type = types[i];
    v->def = op;
    v->index = static_cast<int>(i);
    op->results.push_back(std::move(v));
  }
}

// "name"(operands) [<{props}>] [({regions})] [{attrs}] : (ins) -> outs
void Parser::ParseGenericOp(Operation* op, int num_results) {
  Expect(Tok::kLParen, "to open the operand list");
  op->operands = ParseValueUseList();
  Expect(Tok::kRParen, "to close the operand list");
  if (cur_.is(Tok::kLSquare)) Fail(cur_, "successor blocks are not supported");
  if (cur_.is(Tok::kLess)) {
    Advance();
    if (!cur_.is(Tok::kLBrace)) FailExpected("'{' to open the properties");
    MergeAttrs(op, ParseAttrDict());
    Expect(Tok::kGreater, "to close the properties");
  }
  if (cur_.is(Tok::kLParen)) ParseRegionList(op);
  Token attrs_at = cur_;
  if (cur_.is(Tok::kLBrace)) MergeAttrs(op, ParseAttrDict());
  ReadDimensionDictionaries(op, attrs_at);
  Expect(Tok::kColon, "before the op's function type");
  std::vector<Type> ins, outs;
  Token at = cur_;
  if (!ParseFunctionType(&ins, &outs)) FailExpected("function type '(...) -> ...'");
  ApplyFunctionType(op, num_results, ins, outs, at);
}

void Parser::ApplyFunctionType(Operation* op, int num_results, const std::vector<Type>& ins,
                               const std::vector<Type>& outs, const Token& at) {
  if (ins.size() != op->operands.size())
    Fail(at, "'" + op->name + "' has " + std::to_string(op->operands.size()) +
                 " operands but its type lists " + std::to_string(ins.size()));
  for (size_t i = 0; i < ins.size(); ++i)
    if (!(ins[i] == op->operands[i]->type))
      Fail(at, "type of operand #" + std::to_string(i) + " of '" + op->name + "' is " +
                   op->operands[i]->type.ToString() + " but the op's type says " +
                   ins[i].ToString());
  SetResultTypes(op, outs, num_results, at);
}

}  // namespace detail

// ------------------------------------------------------------------ API ----

namespace {

// The echoed source line is clipped to this many bytes around the caret: a
// program printed on one line (or a long dense literal) would otherwise
// echo kilobytes for one error.
constexpr size_t kEchoWindow = 100;

bool IsUtf8Continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Appends `text` for a terminal: control bytes (a binary file's) become '?'.
void AppendPrintable(std::string* out, std::string_view text) {
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    *out += (u < 0x20 && c != '\t') || u == 0x7F ? '?' : c;
  }
}

// The source line and a caret under byte column `col` (1-based) of it.
void AppendSourceLine(std::string* out, std::string_view line, int col) {
  size_t caret = static_cast<size_t>(col < 1 ? 0 : col - 1);
  if (caret > line.size()) caret = line.size();
  size_t begin = 0, end = line.size();
  if (line.size() > kEchoWindow) {
    begin = caret > kEchoWindow / 2 ? caret - kEchoWindow / 2 : 0;
    end = std::min(line.size(), begin + kEchoWindow);
    begin = end - kEchoWindow;
    // Never cut a UTF-8 character in two.
    while (begin > 0 && begin < line.size() && IsUtf8Continuation(line[begin])) --begin;
    while (end < line.size() && IsUtf8Continuation(line[end])) ++end;
  }
  const char* kEllipsis = "...";
  std::string pad;
  if (begin > 0) {
    *out += kEllipsis;
    pad = "   ";
  }
  AppendPrintable(out, line.substr(begin, end - begin));
  if (end < line.size()) *out += kEllipsis;
  *out += '\n';
  // One column per character: tabs kept so the caret lines up, the
  // continuation bytes of a UTF-8 character skipped.
  for (size_t i = begin; i < caret; ++i)
    if (!IsUtf8Continuation(line[i])) pad += line[i] == '\t' ? '\t' : ' ';
  *out += pad;
  *out += '^';
}

}  // namespace

std::string FormatDiagnostic(std::string_view file_name, std::string_view source, int first_line,
                             Location loc, std::string_view severity, std::string_view message) {
  std::string out;
  out += file_name;
  // A diagnostic about the whole file (line 0) has no position or source line.
  if (loc.line > 0) out += ':' + std::to_string(loc.line) + ':' + std::to_string(loc.col);
  out += ": ";
  out += severity;
  out += ": ";
  out += message;
  // The producer's own location of the op, after the source line if any.
  const std::string note = loc.origin.empty() ? "" : "\nnote: the op comes from " + loc.origin;
  // Find the source line.
  int want = loc.line - first_line;
  if (loc.line <= 0 || want < 0) return out + note;
  source = StripByteOrderMark(source);  // the lexer's columns start after it
  size_t pos = 0;
  for (int l = 0; l < want; ++l) {
    size_t nl = source.find('\n', pos);
    if (nl == std::string_view::npos) return out + note;
    pos = nl + 1;
  }
  size_t end = source.find('\n', pos);
  std::string_view line = source.substr(pos, end == std::string_view::npos ? source.size() - pos
                                                                           : end - pos);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  out += '\n';
  AppendSourceLine(&out, line, loc.col);
  return out + note;
}

StatusOr<std::unique_ptr<Module>> ParseModule(std::string_view source, std::string_view file_name,
                                              int first_line) {
  // MLIR text is parsed here, MLIR bytecode (StableHLO portable artifacts)
  // by compiler/parse/bytecode; any other kind of file is refused by what it is.
  SourceKind kind = DetectSourceKind(source);
  if (kind == SourceKind::kMlirBytecode) return ReadBytecodeModule(source, file_name);
  if (kind != SourceKind::kMlirText)
    return InvalidArgument(FormatDiagnostic(file_name, source, first_line, Location{}, "error", NotTextReason(kind)));
  detail::Parser p(StripByteOrderMark(source), first_line);
  try {
    std::unique_ptr<Module> m = p.ParseTopLevel();
    m->file_name = std::string(file_name);
    return m;
  } catch (const detail::ParseError& e) {
    return InvalidArgument(
        FormatDiagnostic(file_name, source, first_line, e.loc, "error", e.message));
  } catch (const std::bad_alloc&) {
    return ResourceExhausted(FormatDiagnostic(file_name, source, first_line,
                                              Location{p.cur_.line, p.cur_.col}, "error",
                                              "out of memory while parsing"));
  } catch (const std::length_error&) {
    return ResourceExhausted(FormatDiagnostic(file_name, source, first_line,
                                              Location{p.cur_.line, p.cur_.col}, "error",
                                              "input too large"));
  }
}

std::vector<SourceChunk> SplitChunks(std::string_view source) {
  std::vector<SourceChunk> chunks;
  SourceChunk cur;
  cur.first_line = 1;
  int line_no = 1;
  size_t pos = 0;
  while (pos <= source.size()) {
    size_t nl = source.find('\n', pos);
    size_t end = nl == std::string_view::npos ? source.size() : nl;
    std::string_view line = source.substr(pos, end - pos);
    std::string_view trimmed = line;
    if (!trimmed.empty() && trimmed.back() == '\r') trimmed.remove_suffix(1);
    if (trimmed == "// -----") {
      chunks.push_back(std::move(cur));
      cur = SourceChunk{};
      cur.first_line = line_no + 1;
    } else {
      cur.text.append(line);
      if (nl != std::string_view::npos) cur.text.push_back('\n');
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
    ++line_no;
  }
  chunks.push_back(std::move(cur));
  return chunks;
}

}  // namespace kiln::ir

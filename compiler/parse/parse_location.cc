// Debug locations: MLIR's loc(...) after an op, a block argument or a
// function, and #loc aliases. Exporters write them to say where an op came
// from (JAX: the Python line and the op's name scope,
// `loc("jit(f)/add"("model.py":12:8))`); Kiln keeps, per op, the first file
// position in one (a call site's callee before its caller, a fused
// location's parts in order), else its first name, as Location::origin,
// and diagnostics name it. A location never makes a program invalid: a
// form not understood here gives no origin and is skipped.
#include "compiler/parse/parser_impl.h"

namespace kiln::ir::detail {

std::string Parser::ParseLocation() {
  if (!cur_.IsIdent("loc") || !Peek().is(Tok::kLParen)) return "";
  Advance();
  // Read ahead on a copy of the lexer, then skip the whole loc(...) as
  // before, whatever the reading made of it.
  const Lexer saved_lex = lex_;
  const Token saved_cur = cur_;
  std::string origin;
  try {
    Advance();  // (
    origin = LocationOrigin(0);
  } catch (const ParseError&) {
    origin.clear();
  }
  lex_ = saved_lex;
  cur_ = saved_cur;
  SkipBalanced(Tok::kLParen, Tok::kRParen);
  return origin;
}

// One location (without its loc( )): "file":line:col [to ...], "name",
// "name"(child), callsite(callee at caller), fused[a, b], fused<meta>[...],
// #alias or unknown. Leaves cur_ after what it read.
std::string Parser::LocationOrigin(int depth) {
  if (depth > kMaxNesting) return "";
  if (cur_.is(Tok::kHashId)) {
    // MLIR prints location aliases after the module: one not defined yet
    // stays a reference, which ResolveLocationAliases replaces.
    auto it = loc_aliases_.find(cur_.text);
    std::string origin = it == loc_aliases_.end() ? std::string(cur_.text) : it->second;
    Advance();
    return origin;
  }
  if (cur_.is(Tok::kString)) {
    std::string text;
    if (!DecodeStringToken(cur_.text, &text)) return "";
    Advance();
    if (cur_.is(Tok::kColon)) {  // a file position
      Advance();
      if (!cur_.is(Tok::kInteger)) return "";
      std::string pos = text + ":" + std::string(cur_.text);
      Advance();
      if (cur_.is(Tok::kColon) && Peek().is(Tok::kInteger)) {
        Advance();
        pos += ":" + std::string(cur_.text);
        Advance();
      }
      return pos;
    }
    std::string name = "\"" + text + "\"";
    if (!cur_.is(Tok::kLParen)) return name;  // a name alone
    Advance();
    std::string child = LocationOrigin(depth + 1);
    if (cur_.is(Tok::kRParen)) Advance();
    // The child's file position, with the name that says which op it is.
    return child.empty() || child[0] == '"' ? name : child + " (" + name + ")";
  }
  if (cur_.IsIdent("callsite") && Peek().is(Tok::kLParen)) {
    Advance();
    Advance();
    std::string callee = LocationOrigin(depth + 1);
    if (!cur_.IsIdent("at")) return callee;
    Advance();
    std::string caller = LocationOrigin(depth + 1);
    if (cur_.is(Tok::kRParen)) Advance();
    return callee.empty() || (callee[0] == '"' && !caller.empty() && caller[0] != '"') ? caller : callee;
  }
  if (cur_.IsIdent("fused")) {
    Advance();
    if (cur_.is(Tok::kLess)) SkipBalanced(Tok::kLess, Tok::kGreater);  // metadata
    if (!cur_.is(Tok::kLSquare)) return "";
    Advance();
    std::string first_name;
    for (;;) {
      std::string part = LocationOrigin(depth + 1);
      if (!part.empty() && part[0] != '"') return part;
      if (first_name.empty()) first_name = part;
      if (!cur_.is(Tok::kComma)) break;
      Advance();
    }
    return first_name;
  }
  return "";  // unknown, or a form of a later MLIR
}

void Parser::ResolveLocationAliases(Module* m) {
  auto resolve = [&](Location& loc) {
    if (loc.origin.empty() || loc.origin[0] != '#') return;
    size_t end = loc.origin.find(' ');
    auto it = loc_aliases_.find(std::string_view(loc.origin).substr(0, end));
    if (it == loc_aliases_.end() || (!it->second.empty() && it->second[0] == '#')) {
      loc.origin.clear();
    } else {
      loc.origin = it->second + (end == std::string::npos ? "" : loc.origin.substr(end));
    }
  };
  auto walk = [&](auto&& self, Block& b) -> void {
    for (auto& op : b.ops) {
      resolve(op->loc);
      for (auto& r : op->regions)
        for (auto& blk : r->blocks) self(self, *blk);
    }
  };
  for (auto& fn : m->functions)
    for (auto& b : fn->body.blocks) walk(walk, *b);
}

}  // namespace kiln::ir::detail

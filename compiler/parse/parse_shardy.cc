// Shardy's sharding annotations, as JAX prints them for a program jitted
// with shardings:
//
//   sdy.mesh @mesh = <["x"=2, "y"=4]>
//   func.func public @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) ...
//     %1 = sdy.sharding_constraint %0 <@mesh, [{"x"}]> : tensor<8xf32>
//
// They say how a partitioner should split the program across devices; the
// program's values are the same without them, and Kiln runs the program
// unpartitioned. So meshes are skipped, #sdy.* attributes are dropped from
// their dictionaries, and sdy.sharding_constraint / sdy.reshard become
// their operand (sdy.sharding_group goes away). Shardy ops that change what
// the program computes (manual_computation's per-device bodies, explicit
// collectives) are refused by name.
#include "compiler/parse/parser_impl.h"

namespace kiln::ir::detail {
namespace {

constexpr std::string_view kShardyPrefix = "sdy.";

bool IsForwardingOp(std::string_view name) { return name == "sdy.sharding_constraint" || name == "sdy.reshard"; }
bool IsDroppedOp(std::string_view name) { return name == "sdy.sharding_group"; }

std::string UnsupportedShardyOp(std::string_view name) {
  return std::string(name) +
         " is not supported: Kiln accepts Shardy's sharding annotations (sdy.mesh, sdy.sharding, "
         "sdy.sharding_constraint, sdy.reshard) and runs the program unpartitioned, but not ops that "
         "change what it computes";
}

}  // namespace

bool IsShardyOpName(std::string_view name) { return name.substr(0, kShardyPrefix.size()) == kShardyPrefix; }

bool IsShardyAnnotation(const Attribute& a) {
  return a.kind == Attribute::Kind::kStruct && a.str.rfind("#sdy.", 0) == 0;
}

// sdy.mesh @name = <["axis"=size, ...][, device_ids=[...]]> (or = #alias).
void Parser::SkipShardyMesh() {
  Advance();  // sdy.mesh
  (void)ParseSymbolName();
  Expect(Tok::kEqual, "after the mesh name");
  if (cur_.is(Tok::kLess))
    SkipBalanced(Tok::kLess, Tok::kGreater);
  else
    (void)ParseAttribute();
  SkipLocation();
}

Attribute Parser::SkipShardyAttribute(const Token& name) {
  SkipBalanced(Tok::kLess, Tok::kGreater);
  Attribute a;
  a.kind = Attribute::Kind::kStruct;
  a.str = std::string(name.text);
  return a;
}

// %x <sharding> [{attrs}] : type    (sharding_constraint, reshard)
// %x group_id=N [{attrs}] : type     (sharding_group)
// The sharding between the operand and the ':' is skipped whatever it holds.
void Parser::ParseShardyPretty(Operation* op, const Token& name_tok, int num_results) {
  if (!IsForwardingOp(op->name) && !IsDroppedOp(op->name)) Fail(name_tok, UnsupportedShardyOp(op->name));
  op->operands.push_back(ParseValueUse());
  int depth = 0;
  while (depth > 0 || !cur_.is(Tok::kColon)) {
    if (cur_.is(Tok::kEof)) FailExpected("':' and the type");
    if (cur_.is(Tok::kLess) || cur_.is(Tok::kLSquare) || cur_.is(Tok::kLBrace) || cur_.is(Tok::kLParen)) {
      if (++depth > kMaxNesting) Fail(cur_, "nesting too deep (more than 256 levels)");
    } else if (cur_.is(Tok::kGreater) || cur_.is(Tok::kRSquare) || cur_.is(Tok::kRBrace) ||
               cur_.is(Tok::kRParen)) {
      if (--depth < 0) FailExpected("':' and the type");
    }
    Advance();
  }
  Advance();  // ':'
  Token at = cur_;
  Type t = ParseType();
  if (op->operands[0]->type != t)
    Fail(at, op->name + ": the type " + t.ToString() + " differs from the operand's, " +
                 op->operands[0]->type.ToString());
  std::vector<Type> types;
  if (IsForwardingOp(op->name)) types.push_back(t);
  SetResultTypes(op, types, num_results, name_tok);
}

void Parser::ForwardShardyOp(const Operation& op, const std::vector<ResultName>& results, const Token& name_tok) {
  if (IsDroppedOp(op.name)) {
    if (!op.results.empty()) Fail(name_tok, op.name + " has no results");
    return;
  }
  if (!IsForwardingOp(op.name)) Fail(name_tok, UnsupportedShardyOp(op.name));
  if (op.operands.size() != 1 || op.results.size() != 1 || results.size() != 1)
    Fail(name_tok, op.name + " takes one operand and has one result");
  if (op.operands[0]->type != op.result()->type)
    Fail(name_tok, op.name + ": the result type " + op.result()->type.ToString() + " differs from the operand's, " +
                       op.operands[0]->type.ToString());
  ValueDef d;
  d.value = op.operands[0];
  Define(results[0].tok, d);
}

}  // namespace kiln::ir::detail

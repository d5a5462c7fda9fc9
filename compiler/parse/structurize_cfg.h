// Reads a function written as a control-flow graph -- blocks ending in
// cf.br / cf.cond_br / return, as TensorFlow's importer and IREE's tests
// write loops -- into the one-block form every later stage expects:
//
//   the entry block's ops (it runs once, first: nothing may branch to it)
//   state = (block index, every block argument, every value of a later
//            block used outside it, the function's results): placeholders,
//            then what the entry block's terminator sets
//   while (block index != exit)
//     state = case (block index) { - | block 1 | block 2 | ... }  // each
//             branch runs its block's ops, then yields the state its
//             terminator leaves (the successor's index, its arguments set)
//   return the results
//
// which computes exactly what the graph does: a value read outside its
// block is defined in a block that dominates the reader (checked), so the
// placeholder is always overwritten before it is read. Values carried
// between blocks need static shapes (the placeholders are zeros of them);
// the entry block's values are read where they are, of any shape.
#pragma once

#include <string>

#include "compiler/ir.h"

namespace kiln::ir {

// More blocks than this are refused (the dominance check grows with the
// cube of the count at worst).
inline constexpr size_t kMaxFunctionBlocks = 256;

struct CfgError {
  Location loc;  // line 0: no better place than the function's end
  std::string message;
};

// Whether `f` has several blocks, or a cf.* terminator in its one block.
bool NeedsStructurizing(const Function& f);

// Rewrites f's body into one block as above; false and *error when the
// graph is malformed (an unknown successor, arguments that do not match,
// a block without terminator, a value read where its definition does not
// dominate) or holds what the form cannot carry (dynamic shapes, tokens).
// The cf ops are pretty-parsed by the parser as:
//   cf.br       operands: the successor's arguments; attr "dest" (string)
//   cf.cond_br  operands: condition, true arguments, false arguments;
//               attrs "true_dest", "false_dest" (strings),
//               "true_operand_count" (int)
bool StructurizeCfg(Function* f, CfgError* error);

}  // namespace kiln::ir

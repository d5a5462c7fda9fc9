// An IR -> IR rewrite that compile.cc runs (with fusion on) before lowering:
// a stablehlo.transpose feeding a stablehlo.dot_general is folded into the
// dot's dimension numbers, so the GEMM reads the untransposed operand in
// place through its offset tables (kernels/cpu/contraction_dot_general.cc)
// instead of a materialised copy.
#pragma once
#include "compiler/ir.h"
#include "kernels/common/status.h"

namespace kiln::compiler {

// For each dot_general operand x = transpose(y, perm) (x dim d is y dim
// perm[d]): the operand becomes y and each batching or contracting dim d
// becomes perm[d]. Folded only where the result is unchanged: the free dims
// of x, mapped through perm, must stay in increasing order (the result lists
// an operand's free dims in operand order). A transpose left with no users
// is removed; one with other users stays for them. Also x =
// reshape(transpose(y, perm)) where the reshape merges runs of dims, each
// run of more than one dim into a contracting dim (attention's output
// projection): the dot contracts the run's dims of y and reads the other
// operand through a new reshape (a view) that splits its paired dim.
Status FoldTransposesIntoDots(ir::Module* module);

}  // namespace kiln::compiler

// JAX's LAPACK and BLAS custom calls as jaxlib emitted them before XLA's
// typed FFI (jaxlib 0.4.31 and earlier: the StableHLO repository's
// testdata, jax.export and jax2tf artifacts of those versions), rewritten
// into the FFI forms that compiler/passes/legalize_linalg_calls.cc reads.
#pragma once
#include <cstddef>

#include "compiler/diagnostics.h"
#include "compiler/ir.h"
#include "kernels/common/status.h"

namespace kiln::compiler {

// If block->ops[at] is a legacy call (@lapack_{s,d,c,z}{potrf, getrf,
// geqrf, orgqr, ungqr, syevd, heevd, gesdd} or @blas_?trsm without the
// _ffi suffix), rewrites it in place into its _ffi form: the leading rank-0
// integer operands (the problem's dims, workspace sizes and flags, which
// must be constants) are dropped, the flags becoming mhlo.backend_config
// fields (uplo, mode, side, trans_x, diag), trsm's operands reordered to
// (a, b, alpha), and a tuple result split into the tuple's elements with a
// stablehlo.tuple of them inserted after the call for the get_tuple_element
// users. *inserted is the number of ops inserted after it (0 or 1). Other
// ops, legacy calls of other routines (geev, gees, ...) among them, are left
// as they are.
Status UpgradeLegacyLinalgCall(ir::Block* block, size_t at, const ErrorFormatter& format, size_t* inserted);

}  // namespace kiln::compiler

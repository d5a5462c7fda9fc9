// The reference kernel entry points, one per kernels/kernels.def line:
// `Status ref::kernel::<Id>(const KernelCall&)`, defined in the family file
// kernels/reference/<family>[_<topic>].cc and collected by registry.cc.
// Declared from kernels.def, so a line without a definition is a link error
// and a definition without a line does not compile.
#pragma once
#include "kernels/common/kernel.h"

namespace kiln::ref::kernel {

#define KILN_KERNEL(id, name, family) Status id(const KernelCall& call);
#include "kernels/kernels.def"
#undef KILN_KERNEL

}  // namespace kiln::ref::kernel

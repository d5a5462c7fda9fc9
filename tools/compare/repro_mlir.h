// The standalone program of a repro (vm-run --compare-with): the op a
// dispatch runs, found in the module's source by its line and column, on
// arguments of the dispatch's input types. For a fused dispatch (an
// elementwise chain, a reduce with its input chain) it is the fused
// region: every op the compiler's fusion plan puts in the group rooted
// there. Needs the compiler library (the parser, the fusion plan and the
// printer), so vm-run has it only where the compiler is built.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/common/status.h"
#include "vm/host_tensor.h"

namespace kiln::tools {

struct ReproProgram {
  std::string mlir;        // one public func.func @main, in MLIR's generic form
  std::vector<std::string> ops;  // the source ops it holds, in order
  size_t num_args = 0;     // it takes the first num_args inputs of the dispatch
};

// `source`: the text of the file the module was compiled from; `function`,
// `line`, `col`: where the dispatch is in it; `inputs`: the dispatch's
// inputs (their element types and dimensions). An error says why no
// program could be made (no op there, a fused region whose inputs are not
// the dispatch's, ...).
StatusOr<ReproProgram> BuildReproMlir(std::string_view source, std::string_view file_name, std::string_view function,
                                      uint32_t line, uint32_t col, const std::vector<vm::HostTensor>& inputs);

}  // namespace kiln::tools

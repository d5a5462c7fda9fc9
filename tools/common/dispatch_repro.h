// The repro directory of vm-run --compare-with (--compare-repro-dir): the
// first differing dispatch's inputs and both of its outputs as .npy files,
// its op as a standalone program (repro.mlir, tools/compare/repro_mlir.h)
// where one could be made, and README.txt with the commands that reproduce
// the difference.
#pragma once
#include <optional>
#include <string>

#include "kernels/common/status.h"
#include "tools/common/dispatch_compare.h"

namespace kiln::tools {

struct ReproFiles {
  // repro.mlir's text, and how many of the dispatch's inputs are its
  // arguments; unset when no program could be made (`why` says why).
  std::optional<std::string> mlir;
  size_t num_args = 0;
  std::string why;
};

// Writes into `dir` (made if missing): input<i>.npy for the program's
// arguments (every input when there is no program), expected<k>.npy (the
// reference or cpu kernel's outputs), got<k>.npy (the device's), repro.mlir
// and README.txt; the command runs the program on the device compared
// (cpu for =reference, vulkan for =cpu). Returns the commands that reproduce the difference (or a note
// that no program was written), for the report.
StatusOr<std::string> WriteReproDir(const std::string& dir, const DispatchMismatch& m, const ReproFiles& files,
                                    const CompareTolerance& tolerance, CompareAgainst against);

}  // namespace kiln::tools

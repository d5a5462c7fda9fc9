// vm-run's --compare-with, --compare-repro-dir and --compare-source
// (docs/debugging.md): run every dispatch on the host's kernels too (the
// reference kernels for a cpu run, the CPU kernels for a vulkan run) and
// report the first that differs (tools/common/dispatch_compare.h), with a
// repro directory (tools/common/dispatch_repro.h).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hal/hal.h"
#include "tools/cli/cli.h"
#include "tools/common/dispatch_compare.h"
#include "tools/common/dispatch_repro.h"
#include "vm/module.h"

namespace kiln::tools {

// Makes repro.mlir's program from the source text (tools/compare/
// repro_mlir.h): source, file name, function, line, col, the dispatch's
// inputs -> the program and how many inputs it takes, or why not. Empty
// where the tool is built without the compiler.
using ReproMlirBuilder = std::function<Status(const std::string& source, const std::string& file_name,
                                              const DispatchMismatch& m, ReproFiles* files)>;

struct CompareFlags {
  std::string with;       // "" (off), "reference" or "cpu"
  std::string repro_dir;  // "" -> next to the first --output, else ./kiln-repro
  std::string source;     // the module's source, where its recorded path does not lead to it

  void Add(CommandLine& cli);
  bool on() const { return !with.empty(); }
  // What this run can compare: =reference on the cpu device, =cpu on a
  // vulkan device (which vm-run then wraps in MakeSteppingDevice), one
  // process. `device_name`: the device's name() ("cpu (inline, ...)").
  Status Check(const std::string& device_name, uint32_t processes) const;
  // The comparer, observing `device`'s dispatches (and passing them on to
  // `next`, the profiler, or null). `tolerance`: --atol/--rtol where given.
  StatusOr<std::shared_ptr<DispatchComparer>> Start(std::shared_ptr<const vm::LoadedModule> module, hal::Device* device,
                                                    CompareTolerance tolerance,
                                                    std::shared_ptr<hal::DispatchObserver> next) const;
  // Prints the report to stderr and, at a mismatch, writes the repro
  // directory. True when every compared dispatch matched.
  bool Finish(const DispatchComparer& comparer, const vm::LoadedModule& module, const std::string& module_path,
              const std::vector<std::string>& outputs, const ReproMlirBuilder& builder) const;
};

}  // namespace kiln::tools

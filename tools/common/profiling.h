// --trace=FILE and --profile of vm-run and vm-bench (vm/profiler.h).
#pragma once
#include <memory>
#include <string>

#include "hal/hal.h"
#include "kernels/common/status.h"
#include "tools/cli/cli.h"
#include "vm/profiler.h"

namespace kiln::tools {

struct ProfilingFlags {
  std::string trace_path;  // --trace: Chrome trace-event JSON
  bool profile = false;    // --profile: ops by total time on stdout

  void Add(CommandLine& cli);
  bool on() const { return profile || !trace_path.empty(); }
  // A profiler the device reports to (nullptr when both are off). A device
  // that cannot time its dispatches gets a note on stderr: its trace has the
  // calls only.
  std::shared_ptr<vm::Profiler> Start(std::shared_ptr<const vm::LoadedModule> module, hal::Device* device) const;
  // Writes the trace and prints the table; an unwritable file is an error.
  Status Finish(const vm::Profiler& profiler) const;
};

}  // namespace kiln::tools

#include "tools/common/profiling.h"

#include <cstdio>
#include <fstream>
#include <iostream>

namespace kiln::tools {

void ProfilingFlags::Add(CommandLine& cli) {
  cli.Text("--trace", &trace_path,
           "write a Chrome trace-event JSON file (Perfetto, chrome://tracing): one slice per call and per dispatch");
  cli.Flag("--profile", &profile, "print the ops by total dispatch time (count, share, mean)");
}

std::shared_ptr<vm::Profiler> ProfilingFlags::Start(std::shared_ptr<const vm::LoadedModule> module,
                                                    hal::Device* device) const {
  if (!on()) return nullptr;
  auto profiler = std::make_shared<vm::Profiler>(std::move(module), device->name());
  if (!device->SetDispatchObserver(profiler))
    std::cerr << "note: the " << device->name()
              << " device does not time its dispatches: the trace and profile have the calls only\n";
  return profiler;
}

Status ProfilingFlags::Finish(const vm::Profiler& profiler) const {
  if (!trace_path.empty()) {
    std::ofstream out(trace_path, std::ios::binary);
    out << profiler.ChromeTraceJson();
    out.close();
    if (!out) return InvalidArgument("could not write the trace to '" + trace_path + "'");
  }
  if (profile) std::fputs(profiler.ProfileTable().c_str(), stdout);
  return Status::Ok();
}

}  // namespace kiln::tools

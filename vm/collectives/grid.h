// Runs a process grid: every process (r, p) invokes its function in its own
// vm::Context on its own thread, over the same loaded module and device;
// collectives meet through the grid's transport (in-process by default).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vm/collectives/collectives.h"
#include "vm/context.h"

namespace kiln::vm {

struct GridRun {
  uint32_t num_replicas = 1, num_partitions = 1;
  // Per process, in grid order (flattened id r * num_partitions + p).
  std::vector<std::string> functions;
  std::vector<std::vector<HostTensor>> inputs;
  std::vector<HostTensor> infeed;  // shared infeed queue, oldest first
  std::chrono::milliseconds timeout{60000};
  std::function<void(const std::string&)> print;  // serialized across processes
  std::shared_ptr<CollectiveTransport> transport;   // null: in-process
  // Each process's InvokeOptions::timeout and allow_private.
  std::chrono::milliseconds call_timeout{0};
  bool allow_private = false;
};

struct GridProcessResult {
  Status status;
  std::vector<HostTensor> results;
  std::vector<std::string> check_failures;
};

struct GridResult {
  std::vector<GridProcessResult> processes;  // grid order
  std::vector<HostTensor> outfeed;
  // The first error, naming its process, or OK.
  Status FirstError(uint32_t num_partitions) const;
};

StatusOr<GridResult> RunGrid(const std::shared_ptr<const LoadedModule>& module, hal::Device* device,
                             const GridRun& run);

}  // namespace kiln::vm

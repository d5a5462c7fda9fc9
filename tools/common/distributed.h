// vm-run and vm-check under `mpirun -np N`: one grid process per MPI rank
// (rank = r * P + p). A no-op when the tool was not started by mpirun.
// Without MPI support built in (KILN_WITH_MPI, Open MPI found), a run under
// mpirun with more than one rank is refused with a clear message.
#pragma once
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hal/hal.h"
#include "vm/context.h"

namespace kiln::tools {

class Distributed {
 public:
  static StatusOr<std::unique_ptr<Distributed>> Start(int* argc, char*** argv);
  ~Distributed();
  bool active() const { return size_ > 1; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  // The transport for this rank as process `rank` of an R x P grid.
  std::shared_ptr<vm::CollectiveTransport> Transport(uint32_t replicas, uint32_t partitions);
  // For InvokeOptions::run_grid: interpreter.run_parallel across the ranks.
  std::function<Status(const std::shared_ptr<const vm::LoadedModule>&, const vm::GridRun&, vm::GridResult*)>
  GridRunner(hal::Device* device);
  // Every rank's string, in rank order.
  StatusOr<std::vector<std::string>> Gather(const std::string& mine, std::chrono::milliseconds timeout);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int rank_ = 0, size_ = 1;
};

}  // namespace kiln::tools

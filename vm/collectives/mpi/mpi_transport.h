// The MPI transport: one grid process per MPI rank (rank = r * P + p), the
// same module file on every rank. Built only when Open MPI is found
// (KILN_WITH_MPI); see docs/collectives.md.
//
// Every wait is a non-blocking MPI call polled against the collective
// timeout, so a rank that never arrives ends in an error naming the
// collective, its channel and the missing process, not a hang.
#pragma once
#include <memory>

#include "hal/hal.h"
#include "vm/collectives/collectives.h"
#include "vm/module.h"

namespace kiln::vm {

// MPI for the life of the tool. Init() is called only when the tool was
// started by mpirun (LaunchedByMpirun()).
class MpiSession {
 public:
  static bool LaunchedByMpirun();
  static StatusOr<std::unique_ptr<MpiSession>> Init(int* argc, char*** argv);
  ~MpiSession();
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Every rank's payload, in rank order (for rank 0 to gather results).
  StatusOr<std::vector<Payload>> AllGather(const Payload& mine, std::chrono::milliseconds timeout);

 private:
  MpiSession() = default;
  int rank_ = 0, size_ = 1;
};

// Grid process `rank` of a grid of MPI-world size.
std::shared_ptr<CollectiveTransport> CreateMpiTransport(uint32_t num_replicas, uint32_t num_partitions);

}  // namespace kiln::vm

namespace kiln::vm {

struct GridRun;
struct GridResult;
class Context;

// Runs `run` with this rank as grid process `rank` (the grid must have as
// many processes as the MPI world has ranks); every rank gets every
// process's results, check failures and errors.
Status RunGridOverMpi(MpiSession& session, const std::shared_ptr<const LoadedModule>& module, hal::Device* device,
                      const GridRun& run, GridResult* out);

}  // namespace kiln::vm

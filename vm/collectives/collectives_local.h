// The in-process transport: the processes of a grid are threads of one
// process, and collectives meet through shared memory (payloads are shared,
// not copied). A rendezvous is keyed by (process group, the caller's count of
// earlier exchanges in that group), so the k-th collective of each member
// meets the k-th of the others whatever function each one runs.
#pragma once
#include <condition_variable>
#include <map>

#include "vm/collectives/collectives.h"

namespace kiln::vm {

class InProcessTransport final : public CollectiveTransport {
 public:
  InProcessTransport(uint32_t num_replicas, uint32_t num_partitions);

  StatusOr<std::vector<Payload>> ExchangeAll(const Exchange& e) override;
  // collectives_local_reduce.cc
  StatusOr<bool> AllReduceBuffers(const Exchange& e, StandardReduction op, const ReduceBuffers& b) override;
  StatusOr<bool> ShareBuffers(const Exchange& e, SharedBuffers mine, std::vector<SharedBuffers>* all) override;
  Status BuffersDone(const Exchange& e) override;
  Status Send(int64_t channel, uint32_t self, int64_t target, Payload payload) override;
  StatusOr<Payload> Recv(int64_t channel, uint32_t self, int64_t source, const std::string& label,
                         std::chrono::milliseconds timeout) override;
  void ProcessDone(uint32_t self, const Status& status) override;

 private:
  struct Slot {
    std::vector<Payload> payloads;      // by position in the group
    std::vector<std::string> signatures;
    std::vector<bool> arrived;
    size_t count = 0, readers = 0;
  };
  struct Done {
    bool done = false;
    std::string error;  // empty when the process returned normally
  };
  std::string Name(uint32_t id) const { return ProcessName(id, num_partitions_); }
  // Why `id` will never arrive, or "" while it still may.
  std::string Gone(uint32_t id) const;

  uint32_t num_partitions_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::map<std::string, uint64_t>> sequence_;  // per process: group -> exchanges so far
  std::map<std::pair<std::string, uint64_t>, Slot> slots_;
  std::map<std::pair<int64_t, int64_t>, std::deque<Payload>> mailboxes_;  // (channel, target) -> messages
  std::vector<Done> done_;
};

}  // namespace kiln::vm

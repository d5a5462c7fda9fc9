// The process grid and its collectives (docs/collectives.md).
//
// A grid of num_replicas x num_partitions processes runs one module; process
// (r, p) has the flattened id r * num_partitions + p. Each process runs in its
// own vm::Context. Collectives meet through a CollectiveTransport: the
// in-process one (vm/collectives/collectives_local.cc) pairs up threads through shared
// memory; another transport (e.g. MPI) can implement the same interface.
//
// A collective instruction carries a descriptor (CollectiveDesc, serialized
// into the module's string table by the compiler): the op's name and the
// attributes that decide its process groups and its data movement.
#pragma once
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/common/status.h"
#include "vm/host_tensor.h"

namespace kiln::vm {

// What a collective instruction asks for, from the op's attributes.
struct CollectiveDesc {
  std::string op;                   // "stablehlo.all_reduce", "stablehlo.send", ...
  int64_t channel = 0;              // channel_handle.handle (<= 0: no channel)
  int64_t channel_type = 0;         // channel_handle.type
  bool use_global_device_ids = false;
  bool has_dynamic_root = false;
  bool is_host_transfer = false;
  bool has_groups = false;          // replica_groups / source_target_pairs given
  std::vector<std::vector<int64_t>> groups;  // their rows (-1 pads ragged rows)
  int64_t dim = 0;                  // all_gather_dim / scatter_dimension
  int64_t split_dimension = 0, concat_dimension = 0, split_count = 0;

  // "key=value;..." text stored in the module; Parse refuses anything else.
  // Serialize is inline: the compiler writes descriptors without linking
  // the runtime.
  std::string Serialize() const;
  static StatusOr<CollectiveDesc> Parse(std::string_view text);
  // "stablehlo.all_reduce (channel 1)" for messages.
  std::string Label() const;
};

// A reduction a transport may run natively (e.g. MPI_Iallreduce).
enum class StandardReduction { kNone, kSum, kProduct, kMax, kMin };

// A process's contribution to, or result of, an exchange: its tensors.
using Payload = std::shared_ptr<const std::vector<HostTensor>>;

inline std::string CollectiveDesc::Serialize() const {
  std::string s = "op=" + op + ";channel=" + std::to_string(channel) + ";channel_type=" + std::to_string(channel_type) +
                  ";global=" + (use_global_device_ids ? "1" : "0") + ";dynamic_root=" + (has_dynamic_root ? "1" : "0") +
                  ";host=" + (is_host_transfer ? "1" : "0") + ";dim=" + std::to_string(dim) +
                  ";split_dimension=" + std::to_string(split_dimension) +
                  ";concat_dimension=" + std::to_string(concat_dimension) +
                  ";split_count=" + std::to_string(split_count);
  if (has_groups) {
    s += ";groups=";
    for (size_t r = 0; r < groups.size(); ++r) {
      if (r) s += "|";
      for (size_t c = 0; c < groups[r].size(); ++c) s += (c ? "," : "") + std::to_string(groups[r][c]);
    }
  }
  return s;
}

std::string ProcessName(uint32_t flat_id, uint32_t num_partitions);  // "(r, p)"

// "process (0, 0) runs A, process (1, 0) runs B" for two signatures that
// differ: their readable parts (before " with ") when those differ, else
// the whole signatures.
std::string DescribeMismatch(const std::string& a, uint32_t a_id, const std::string& b, uint32_t b_id,
                             uint32_t num_partitions);

// How processes meet. Every call blocks the calling VM context's thread
// (never a kernel worker) until the peers arrive, the deadline passes, or a
// peer is known to have finished or failed without arriving.
class CollectiveTransport {
 public:
  virtual ~CollectiveTransport() = default;

  struct Exchange {
    uint32_t self = 0;                // flattened id of the caller
    std::vector<uint32_t> group;      // flattened ids, in group order; contains self
    std::string label;                // for messages: "stablehlo.all_reduce (channel 1)"
    std::string signature;            // must match across the group (op, attributes, types)
    Payload payload;
    std::chrono::milliseconds timeout{60000};
  };
  // Every member of `group` calls ExchangeAll; the k-th call of each member
  // for the same group meets the k-th call of the others. Returns every
  // member's payload, in group order.
  virtual StatusOr<std::vector<Payload>> ExchangeAll(const Exchange& e) = 0;

  // An all_reduce of `e.payload`'s one tensor with a standard reduction,
  // in place in `*inout`, if the medium does it natively; false when it does
  // not (the caller then uses ExchangeAll). Same matching rules.
  virtual StatusOr<bool> AllReduce(const Exchange& e, StandardReduction op, HostTensor* inout) {
    (void)e;
    (void)op;
    (void)inout;
    return false;
  }

  // The same between buffers in host memory, without copies: every member
  // gives its input (`in`, read) and its result (`out`, written; it may be
  // `in`) of `count` elements of `type`, valid until the call returns, and
  // the members' values are reduced straight into every member's result, in
  // group order (the reference's order, so results are bit-identical to the
  // general path's where the transport does the arithmetic itself). False
  // when the medium cannot (the caller then takes the general path); every
  // member of a group decides alike, from the signature alone.
  struct ReduceBuffers {
    ElementType type = ElementType::kInvalid;
    int64_t count = 0;
    const void* in = nullptr;
    void* out = nullptr;
  };
  virtual StatusOr<bool> AllReduceBuffers(const Exchange& e, StandardReduction op, const ReduceBuffers& b) {
    (void)e;
    (void)op;
    (void)b;
    return false;
  }

  // For collectives the host computes straight between buffers in host
  // memory (vm/collectives/context_in_place.cc): every member gives its
  // input and result addresses, and gets every member's, in group order
  // (false: the medium cannot share addresses; every member of a group
  // decides alike). The members then read each other's inputs and write
  // only their own results, and call BuffersDone, which returns once every
  // member has: until then no member may free or reuse its buffers.
  struct SharedBuffers {
    const void* in = nullptr;
    void* out = nullptr;
  };
  virtual StatusOr<bool> ShareBuffers(const Exchange& e, SharedBuffers mine, std::vector<SharedBuffers>* all) {
    (void)e;
    (void)mine;
    (void)all;
    return false;
  }
  virtual Status BuffersDone(const Exchange& e) {
    (void)e;
    return Status::Ok();
  }

  // The data-movement collectives (and reduce_scatter) run by the medium
  // itself straight between the members' buffers in host memory, where it
  // has a matching operation (MPI_Iallgather, MPI_Ialltoall, ...); false
  // when it has none for this case (the caller then tries ShareBuffers,
  // then the general path). Every member of a group decides alike, from
  // the signature alone. Member j's part of a buffer is `rows` runs of
  // `run_bytes`, the r-th at byte (r * group size + j) * run_bytes.
  struct Parts {
    int64_t rows = 1;
    int64_t run_bytes = 0;
  };
  struct MoveBuffers {
    enum class Kind { kAllGather, kAllToAll, kReduceScatter, kBroadcast, kPermute };
    Kind kind = Kind::kAllGather;
    ElementType type = ElementType::kInvalid;
    StandardReduction reduction = StandardReduction::kNone;  // reduce_scatter
    const void* in = nullptr;
    void* out = nullptr;
    int64_t in_bytes = 0, out_bytes = 0;
    Parts in_parts;   // all_to_all, reduce_scatter: block j of my input goes to member j
    Parts out_parts;  // all_gather, all_to_all: part j of my result comes from member j
    // collective_permute: the members my input goes to, and the one whose
    // input becomes my result (-1: none; my result is zeros). Flattened ids.
    std::vector<uint32_t> permute_targets;
    int64_t permute_source = -1;
  };
  virtual StatusOr<bool> MoveBuffersNatively(const Exchange& e, const MoveBuffers& m) {
    (void)e;
    (void)m;
    return false;
  }

  // Point-to-point through a channel: Send queues and returns; Recv takes the
  // oldest message queued for (channel, self) or, for messages sent to no
  // particular process (target < 0), for the channel.
  virtual Status Send(int64_t channel, uint32_t self, int64_t target, Payload payload) = 0;
  virtual StatusOr<Payload> Recv(int64_t channel, uint32_t self, int64_t source, const std::string& label,
                                 std::chrono::milliseconds timeout) = 0;

  // A process has returned (with `status`); peers waiting for it stop waiting.
  virtual void ProcessDone(uint32_t self, const Status& status) = 0;
};

// A FIFO of tensors shared by the processes of a grid (infeed data).
class FeedQueue {
 public:
  void Push(HostTensor t);
  // Pops the oldest tensor; false when the queue is empty.
  bool Pop(HostTensor* t);
  std::vector<HostTensor> Drain();

 private:
  std::mutex mu_;
  std::deque<HostTensor> q_;
};

// What the processes of one grid share.
struct GridEnvironment {
  uint32_t num_replicas = 1, num_partitions = 1;
  std::shared_ptr<CollectiveTransport> transport;
  std::chrono::milliseconds timeout{60000};
  FeedQueue infeed;   // read by stablehlo.infeed
  FeedQueue outfeed;  // written by stablehlo.outfeed
  uint32_t num_processes() const { return num_replicas * num_partitions; }
};

// The process groups of a collective in a grid (flattened ids), by the
// spec's strategies: cross_replica, cross_partition,
// cross_replica_and_partition, flattened_ids. For collective_permute (and
// send/recv with source_target_pairs) each row is a (source, target) pair.
StatusOr<std::vector<std::vector<uint32_t>>> ProcessGroups(const CollectiveDesc& d, uint32_t num_replicas,
                                                           uint32_t num_partitions);

// Host-side data movement of the collectives, on host tensors of one
// process group (`all` in group order, `index` = the caller's position).
StatusOr<HostTensor> ConcatHost(const std::vector<const HostTensor*>& parts, int64_t dim);
StatusOr<HostTensor> SliceHost(const HostTensor& t, int64_t dim, int64_t part, int64_t count);
HostTensor ZerosLike(const HostTensor& t);

// Byte encodings for transports that move bytes (MPI): tensors' headers
// (type, dims, byte counts, token/tuple flags are refused) and a whole
// payload with its data.
std::vector<uint8_t> EncodeHeaders(const std::string& signature, const std::vector<HostTensor>& tensors);
// Fills `signature` and tensors with their types, dims and data sized (not
// filled); refuses a malformed encoding.
Status DecodeHeaders(const uint8_t* data, size_t size, std::string* signature, std::vector<HostTensor>* tensors);

}  // namespace kiln::vm

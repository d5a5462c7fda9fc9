// The MPI transport (see mpi_transport.h). Wire format per exchange, from
// each member to each other member: one header message (EncodeHeaders:
// signature, types, dims, byte counts), then one message per non-empty
// tensor, received straight into the tensor. MPI keeps messages between two
// ranks with one tag in order, so the k-th exchange of a pair meets the k-th.
#include "vm/collectives/mpi/mpi_transport.h"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

namespace kiln::vm {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kExchangeTag = 1;
constexpr int kGatherTag = 2;
constexpr int kPermuteTag = 3;
constexpr int kCommTag = 4;
int DataTag(int64_t channel) { return 16 + 2 * static_cast<int>(((channel % 8192) + 8192) % 8192); }
int RequestTag(int64_t channel) { return DataTag(channel) + 1; }

std::string Seconds(std::chrono::milliseconds t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", static_cast<double>(t.count()) / 1000.0);
  return buf;
}

// Polls for a message; false when the deadline passes first.
bool Probe(int source, int tag, Clock::time_point deadline, MPI_Message* msg, MPI_Status* st) {
  for (int spin = 0;; ++spin) {
    int flag = 0;
    MPI_Improbe(source, tag, MPI_COMM_WORLD, &flag, msg, st);
    if (flag) return true;
    if (Clock::now() > deadline) return false;
    if (spin > 200) std::this_thread::sleep_for(std::chrono::microseconds(spin > 200000 ? 200 : 10));
  }
}

// Polls until every request completes; false at the deadline. A
// non-blocking collective advances only inside MPI calls, so `progress`
// polls without sleeping (yielding the core only), as a blocking MPI call
// would; message waits sleep a little between polls.
bool WaitAll(std::vector<MPI_Request>* reqs, Clock::time_point deadline, bool progress = false) {
  for (int spin = 0; !reqs->empty(); ++spin) {
    int done = 0;
    MPI_Testall(static_cast<int>(reqs->size()), reqs->data(), &done, MPI_STATUSES_IGNORE);
    if (done) {
      reqs->clear();
      return true;
    }
    if (Clock::now() > deadline) return false;
    if (progress)
      std::this_thread::yield();
    else if (spin > 200)
      std::this_thread::sleep_for(std::chrono::microseconds(spin > 200000 ? 200 : 10));
  }
  return true;
}

// The MPI type of a Kiln element type that MPI reduces natively (else
// MPI_DATATYPE_NULL).
MPI_Datatype MpiTypeOf(ElementType t) {
  switch (t) {
    case ElementType::kF32: return MPI_FLOAT;
    case ElementType::kF64: return MPI_DOUBLE;
    case ElementType::kSI32: return MPI_INT32_T;
    case ElementType::kSI64: return MPI_INT64_T;
    case ElementType::kUI32: return MPI_UINT32_T;
    case ElementType::kUI64: return MPI_UINT64_T;
    default: return MPI_DATATYPE_NULL;
  }
}

MPI_Op MpiOpOf(StandardReduction op) {
  switch (op) {
    case StandardReduction::kSum: return MPI_SUM;
    case StandardReduction::kProduct: return MPI_PROD;
    case StandardReduction::kMax: return MPI_MAX;
    case StandardReduction::kMin: return MPI_MIN;
    default: return MPI_OP_NULL;
  }
}

// Whether MPI's arithmetic is the spec's for `op` on `type`: floating
// max/min are not (MPI's NaN handling differs), nor signed integer products
// (they overflow in MPI's C arithmetic, where the spec wraps).
bool NativeReduction(MPI_Datatype type, StandardReduction op) {
  if (MpiOpOf(op) == MPI_OP_NULL) return false;
  if ((type == MPI_FLOAT || type == MPI_DOUBLE) && (op == StandardReduction::kMax || op == StandardReduction::kMin))
    return false;
  return !((type == MPI_INT32_T || type == MPI_INT64_T) && op == StandardReduction::kProduct);
}

// Member j's part of a buffer as (count, type), with the type's extent one
// run so that part j starts j extents in: `rows` runs of `run_bytes`, `n`
// runs apart. Contiguous parts (one row) stay plain bytes, which MPI moves
// without its datatype engine.
class MpiParts {
 public:
  MpiParts(const CollectiveTransport::Parts& p, int64_t n) {
    if (p.rows == 1) {
      count = static_cast<int>(p.run_bytes);
      return;
    }
    MPI_Datatype vector;
    MPI_Type_vector(static_cast<int>(p.rows), static_cast<int>(p.run_bytes), static_cast<int>(p.run_bytes * n),
                    MPI_BYTE, &vector);
    MPI_Type_create_resized(vector, 0, static_cast<MPI_Aint>(p.run_bytes), &type);
    MPI_Type_free(&vector);
    MPI_Type_commit(&type);
    made = true;
  }
  ~MpiParts() {
    if (made) MPI_Type_free(&type);
  }
  MpiParts(const MpiParts&) = delete;
  MpiParts& operator=(const MpiParts&) = delete;
  int count = 1;
  MPI_Datatype type = MPI_BYTE;

 private:
  bool made = false;
};

// Messages in flight: their buffers stay alive until the sends complete.
struct Outgoing {
  std::vector<uint8_t> header;
  Payload keep;
  std::vector<MPI_Request> reqs;
};

Status PostSend(int dest, int tag, const std::string& signature, const Payload& p, Outgoing* out) {
  out->header = EncodeHeaders(signature, *p);
  out->keep = p;
  MPI_Request r;
  MPI_Isend(out->header.data(), static_cast<int>(out->header.size()), MPI_BYTE, dest, tag, MPI_COMM_WORLD, &r);
  out->reqs.push_back(r);
  for (const auto& t : *p) {
    if (t.data.empty()) continue;
    if (t.data.size() > static_cast<size_t>(INT32_MAX))
      return Unimplemented("a tensor of more than 2 GiB in one MPI message");
    MPI_Isend(t.data.data(), static_cast<int>(t.data.size()), MPI_BYTE, dest, tag, MPI_COMM_WORLD, &r);
    out->reqs.push_back(r);
  }
  return Status::Ok();
}

// Receives one payload from `source` (MPI_ANY_SOURCE allowed; *from is set).
// Returns "" on success, else why it failed ("timeout" at the deadline).
std::string Receive(int source, int tag, Clock::time_point deadline, std::string* signature,
                    std::vector<HostTensor>* tensors, int* from) {
  MPI_Message msg;
  MPI_Status st;
  if (!Probe(source, tag, deadline, &msg, &st)) return "timeout";
  int count = 0;
  MPI_Get_count(&st, MPI_BYTE, &count);
  std::vector<uint8_t> header(static_cast<size_t>(count));
  MPI_Mrecv(header.data(), count, MPI_BYTE, &msg, &st);
  *from = st.MPI_SOURCE;
  Status s = DecodeHeaders(header.data(), header.size(), signature, tensors);
  if (!s.ok()) return s.message();
  for (auto& t : *tensors) {
    if (t.data.empty()) continue;
    if (!Probe(*from, tag, deadline, &msg, &st)) return "timeout";
    MPI_Get_count(&st, MPI_BYTE, &count);
    if (static_cast<size_t>(count) != t.data.size()) return "a tensor message of the wrong size";
    MPI_Mrecv(t.data.data(), count, MPI_BYTE, &msg, &st);
  }
  return "";
}

class MpiTransport final : public CollectiveTransport {
 public:
  MpiTransport(uint32_t r, uint32_t p) : num_replicas_(r), num_partitions_(p) {}
  ~MpiTransport() override {
    Flush(Clock::now() + std::chrono::seconds(10));
    for (auto& [group, comm] : comms_) MPI_Comm_free(&comm);
  }

  StatusOr<std::vector<Payload>> ExchangeAll(const Exchange& e) override {
    auto deadline = Clock::now() + e.timeout;
    const std::string group_text = GroupText(e.group);
    std::vector<Outgoing> out(e.group.size());
    for (size_t i = 0; i < e.group.size(); ++i)
      if (e.group[i] != e.self)
        KILN_RETURN_IF_ERROR(PostSend(static_cast<int>(e.group[i]), kExchangeTag, e.signature, e.payload, &out[i]));
    std::vector<Payload> all(e.group.size());
    for (size_t i = 0; i < e.group.size(); ++i) {
      if (e.group[i] == e.self) {
        all[i] = e.payload;
        continue;
      }
      auto tensors = std::make_shared<std::vector<HostTensor>>();
      std::string signature;
      int from = 0;
      std::string why = Receive(static_cast<int>(e.group[i]), kExchangeTag, deadline, &signature, tensors.get(), &from);
      if (why == "timeout")
        return Status(StatusCode::kDeadlineExceeded, e.label + " in process " + Name(e.self) + " timed out after " +
                                                         Seconds(e.timeout) + " waiting for process " +
                                                         Name(e.group[i]) + " of its group [" + group_text + "]");
      if (!why.empty()) return DataLoss(e.label + ": from process " + Name(e.group[i]) + ": " + why);
      if (signature != e.signature)
        return InvalidArgument("mismatched collectives in group [" + group_text + "]: " +
                               DescribeMismatch(e.signature, e.self, signature, e.group[i], num_partitions_));
      all[i] = std::move(tensors);
    }
    for (size_t i = 0; i < out.size(); ++i)
      if (!WaitAll(&out[i].reqs, deadline))
        return Status(StatusCode::kDeadlineExceeded, e.label + " in process " + Name(e.self) + " timed out after " +
                                                         Seconds(e.timeout) + " sending to process " +
                                                         Name(e.group[i]));
    return all;
  }

  // MPI_Iallreduce on MPI_COMM_WORLD when the group is every rank and the
  // type is one MPI reduces; the signatures are compared first (header-only
  // messages), so mismatched collectives are still reported.
  StatusOr<bool> AllReduce(const Exchange& e, StandardReduction op, HostTensor* inout) override {
    return AllReduceBuffers(e, op, ReduceBuffers{inout->type, inout->NumElements(), inout->data.data(),
                                                 inout->data.data()});
  }

  // Straight from the input buffer into the result buffer (MPI_IN_PLACE
  // where they are one), with no host copy.
  StatusOr<bool> AllReduceBuffers(const Exchange& e, StandardReduction op, const ReduceBuffers& b) override {
    // The group's order does not matter to a reduction.
    std::vector<uint32_t> sorted = e.group;
    std::sort(sorted.begin(), sorted.end());
    MPI_Datatype type = MpiTypeOf(b.type);
    int64_t count = b.count;
    if (type == MPI_DATATYPE_NULL || !NativeReduction(type, op) || count > INT32_MAX) return false;
    auto deadline = Clock::now() + e.timeout;
    std::vector<Outgoing> out;
    KILN_RETURN_IF_ERROR(MatchSignatures(e, deadline, &out));
    KILN_ASSIGN_OR_RETURN(MPI_Comm comm, CommOf(sorted));
    MPI_Request req;
    MPI_Iallreduce(b.in == b.out ? MPI_IN_PLACE : b.in, b.out, static_cast<int>(count), type, MpiOpOf(op), comm,
                   &req);
    std::vector<MPI_Request> reqs{req};
    KILN_RETURN_IF_ERROR(Finish(e, "MPI_Iallreduce", deadline, &reqs, &out));
    return true;
  }

  // all_gather, all_to_all and reduce_scatter as MPI_Iallgather,
  // MPI_Ialltoall and MPI_Ireduce_scatter_block on a communicator of the
  // group (in group order), collective_broadcast as MPI_Ibcast, and
  // collective_permute as point-to-point messages, all on the buffers
  // themselves: a member's strided part is an MPI vector type.
  StatusOr<bool> MoveBuffersNatively(const Exchange& e, const MoveBuffers& m) override {
    using Kind = MoveBuffers::Kind;
    const int64_t n = static_cast<int64_t>(e.group.size());
    if (m.in_bytes > INT32_MAX || m.out_bytes > INT32_MAX) return false;
    MPI_Datatype element = MpiTypeOf(m.type);
    if (m.kind == Kind::kReduceScatter &&
        (m.in_parts.rows != 1 || element == MPI_DATATYPE_NULL || !NativeReduction(element, m.reduction)))
      return false;
    auto deadline = Clock::now() + e.timeout;
    std::vector<Outgoing> out;
    KILN_RETURN_IF_ERROR(MatchSignatures(e, deadline, &out));
    std::vector<MPI_Request> reqs;
    const char* what = "";
    if (m.kind == Kind::kPermute) {
      what = "MPI_Isend/MPI_Irecv";
      for (uint32_t t : m.permute_targets) {
        MPI_Request r;
        MPI_Isend(m.in, static_cast<int>(m.in_bytes), MPI_BYTE, static_cast<int>(t), kPermuteTag, MPI_COMM_WORLD, &r);
        reqs.push_back(r);
      }
      if (m.permute_source >= 0) {
        MPI_Request r;
        MPI_Irecv(m.out, static_cast<int>(m.out_bytes), MPI_BYTE, static_cast<int>(m.permute_source), kPermuteTag,
                  MPI_COMM_WORLD, &r);
        reqs.push_back(r);
      } else {
        std::memset(m.out, 0, static_cast<size_t>(m.out_bytes));
      }
      KILN_RETURN_IF_ERROR(Finish(e, what, deadline, &reqs, &out));
      return true;
    }
    KILN_ASSIGN_OR_RETURN(MPI_Comm comm, CommOf(e.group));
    MPI_Request r;
    MpiParts send(m.in_parts, n), recv(m.out_parts, n);
    switch (m.kind) {
      case Kind::kAllGather:
        what = "MPI_Iallgather";
        MPI_Iallgather(m.in, static_cast<int>(m.in_bytes), MPI_BYTE, m.out, recv.count, recv.type, comm, &r);
        break;
      case Kind::kAllToAll:
        what = "MPI_Ialltoall";
        MPI_Ialltoall(m.in, send.count, send.type, m.out, recv.count, recv.type, comm, &r);
        break;
      case Kind::kReduceScatter:
        what = "MPI_Ireduce_scatter_block";
        MPI_Ireduce_scatter_block(m.in, m.out, static_cast<int>(m.out_bytes / StorageBytes(m.type)), element,
                                  MpiOpOf(m.reduction), comm, &r);
        break;
      default:  // collective_broadcast from the group's first member
        what = "MPI_Ibcast";
        if (e.group[0] == e.self && m.out != m.in) std::memcpy(m.out, m.in, static_cast<size_t>(m.out_bytes));
        MPI_Ibcast(m.out, static_cast<int>(m.out_bytes), MPI_BYTE, 0, comm, &r);
        break;
    }
    reqs.push_back(r);
    KILN_RETURN_IF_ERROR(Finish(e, what, deadline, &reqs, &out));
    return true;
  }

  Status Send(int64_t channel, uint32_t self, int64_t target, Payload payload) override {
    (void)self;
    if (target < 0) {
      // No pairs: the receiver is whoever asks for the channel (Recv
      // broadcasts a request); wait for that request.
      MPI_Message msg;
      MPI_Status st;
      if (!Probe(MPI_ANY_SOURCE, RequestTag(channel), Clock::now() + timeout_, &msg, &st))
        return Status(StatusCode::kDeadlineExceeded, "stablehlo.send (channel " + std::to_string(channel) +
                                                         ") in process " + Name(self) + " timed out after " +
                                                         Seconds(timeout_) + ": no process receives on it");
      uint8_t b = 0;
      MPI_Mrecv(&b, 1, MPI_BYTE, &msg, &st);
      target = st.MPI_SOURCE;
    }
    pending_.emplace_back();
    return PostSend(static_cast<int>(target), DataTag(channel), "send", payload, &pending_.back());
  }

  StatusOr<Payload> Recv(int64_t channel, uint32_t self, int64_t source, const std::string& label,
                         std::chrono::milliseconds timeout) override {
    timeout_ = timeout;
    auto deadline = Clock::now() + timeout;
    if (source < 0) {
      static uint8_t ask = 1;
      for (int r = 0; r < static_cast<int>(num_replicas_ * num_partitions_); ++r) {
        if (r == static_cast<int>(self)) continue;
        MPI_Request req;
        MPI_Isend(&ask, 1, MPI_BYTE, r, RequestTag(channel), MPI_COMM_WORLD, &req);
        MPI_Request_free(&req);
      }
    }
    auto tensors = std::make_shared<std::vector<HostTensor>>();
    std::string signature;
    int from = 0;
    std::string why = Receive(source < 0 ? MPI_ANY_SOURCE : static_cast<int>(source), DataTag(channel), deadline,
                              &signature, tensors.get(), &from);
    if (why == "timeout") {
      std::string who = source >= 0 ? "process " + Name(static_cast<uint32_t>(source)) : std::string("any process");
      return Status(StatusCode::kDeadlineExceeded, label + " in process " + Name(self) + " timed out after " +
                                                       Seconds(timeout) + " waiting for a send on channel " +
                                                       std::to_string(channel) + " from " + who);
    }
    if (!why.empty()) return DataLoss(label + ": " + why);
    return Payload(std::move(tensors));
  }

  void ProcessDone(uint32_t, const Status&) override { Flush(Clock::now() + timeout_); }

 private:
  std::string Name(uint32_t id) const { return ProcessName(id, num_partitions_); }
  std::string GroupText(const std::vector<uint32_t>& group) const {
    std::string text;
    for (uint32_t id : group) text += (text.empty() ? "" : ", ") + Name(id);
    return text;
  }

  // Signatures only (header messages, no payload) between every pair of
  // the group, so that mismatched collectives are reported before any
  // native call could pair them up. `out` holds the sends until Finish.
  Status MatchSignatures(const Exchange& e, Clock::time_point deadline, std::vector<Outgoing>* out) {
    auto signature_only = std::make_shared<std::vector<HostTensor>>();
    out->resize(e.group.size());
    for (size_t i = 0; i < e.group.size(); ++i)
      if (e.group[i] != e.self)
        KILN_RETURN_IF_ERROR(
            PostSend(static_cast<int>(e.group[i]), kExchangeTag, e.signature, signature_only, &(*out)[i]));
    for (size_t i = 0; i < e.group.size(); ++i) {
      if (e.group[i] == e.self) continue;
      std::vector<HostTensor> none;
      std::string signature;
      int from = 0;
      std::string why = Receive(static_cast<int>(e.group[i]), kExchangeTag, deadline, &signature, &none, &from);
      if (why == "timeout")
        return Status(StatusCode::kDeadlineExceeded, e.label + " in process " + Name(e.self) + " timed out after " +
                                                         Seconds(e.timeout) + " waiting for process " +
                                                         Name(e.group[i]) + " of its group [" + GroupText(e.group) +
                                                         "]");
      if (!why.empty()) return DataLoss(e.label + ": from process " + Name(e.group[i]) + ": " + why);
      if (signature != e.signature)
        return InvalidArgument("mismatched collectives in group [" + GroupText(e.group) + "]: " +
                               DescribeMismatch(e.signature, e.self, signature, e.group[i], num_partitions_));
    }
    return Status::Ok();
  }

  // Waits for a native call's requests, then for the signature sends.
  Status Finish(const Exchange& e, const char* what, Clock::time_point deadline, std::vector<MPI_Request>* reqs,
                std::vector<Outgoing>* out) {
    if (!WaitAll(reqs, deadline, /*progress=*/true))
      return Status(StatusCode::kDeadlineExceeded, e.label + " in process " + Name(e.self) + " timed out after " +
                                                       Seconds(e.timeout) + " in " + what + " over [" +
                                                       GroupText(e.group) + "]");
    for (auto& o : *out)
      if (!WaitAll(&o.reqs, deadline))
        return Status(StatusCode::kDeadlineExceeded, e.label + ": sending its signature timed out");
    return Status::Ok();
  }

  // A communicator whose ranks are `group`'s members in its order: the
  // world when it is every rank in rank order, else one made (collectively,
  // by the group's members only, after their signatures matched) on first
  // use and kept.
  StatusOr<MPI_Comm> CommOf(const std::vector<uint32_t>& group) {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bool world = static_cast<int>(group.size()) == size;
    for (size_t i = 0; world && i < group.size(); ++i) world = group[i] == i;
    if (world) return MPI_COMM_WORLD;
    auto it = comms_.find(group);
    if (it != comms_.end()) return it->second;
    MPI_Group all, members;
    MPI_Comm_group(MPI_COMM_WORLD, &all);
    std::vector<int> ranks(group.begin(), group.end());
    MPI_Group_incl(all, static_cast<int>(ranks.size()), ranks.data(), &members);
    MPI_Comm comm = MPI_COMM_NULL;
    int rc = MPI_Comm_create_group(MPI_COMM_WORLD, members, kCommTag, &comm);
    MPI_Group_free(&members);
    MPI_Group_free(&all);
    if (rc != MPI_SUCCESS || comm == MPI_COMM_NULL) return Internal("MPI_Comm_create_group failed");
    comms_[group] = comm;
    return comm;
  }

  void Flush(Clock::time_point deadline) {
    for (auto& o : pending_) WaitAll(&o.reqs, deadline);
    pending_.clear();
  }
  uint32_t num_replicas_, num_partitions_;
  std::chrono::milliseconds timeout_{60000};
  std::deque<Outgoing> pending_;
  std::map<std::vector<uint32_t>, MPI_Comm> comms_;
};

}  // namespace

bool MpiSession::LaunchedByMpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
}

StatusOr<std::unique_ptr<MpiSession>> MpiSession::Init(int* argc, char*** argv) {
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    return Internal("MPI_Init_thread failed");
  std::unique_ptr<MpiSession> s(new MpiSession());
  MPI_Comm_rank(MPI_COMM_WORLD, &s->rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &s->size_);
  return s;
}

MpiSession::~MpiSession() { MPI_Finalize(); }

StatusOr<std::vector<Payload>> MpiSession::AllGather(const Payload& mine, std::chrono::milliseconds timeout) {
  // Point-to-point like ExchangeAll, over every rank.
  auto deadline = Clock::now() + timeout;
  std::vector<Outgoing> out(size_);
  for (int r = 0; r < size_; ++r)
    if (r != rank_) KILN_RETURN_IF_ERROR(PostSend(r, kGatherTag, "gather", mine, &out[r]));
  std::vector<Payload> all(size_);
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) {
      all[r] = mine;
      continue;
    }
    auto tensors = std::make_shared<std::vector<HostTensor>>();
    std::string signature;
    int from = 0;
    std::string why = Receive(r, kGatherTag, deadline, &signature, tensors.get(), &from);
    if (why == "timeout")
      return Status(StatusCode::kDeadlineExceeded, "gathering results: timed out after " + Seconds(timeout) +
                                                       " waiting for rank " + std::to_string(r));
    if (!why.empty()) return DataLoss("gathering results from rank " + std::to_string(r) + ": " + why);
    all[r] = std::move(tensors);
  }
  for (auto& o : out)
    if (!WaitAll(&o.reqs, deadline)) return Status(StatusCode::kDeadlineExceeded, "gathering results: send timed out");
  return all;
}

std::shared_ptr<CollectiveTransport> CreateMpiTransport(uint32_t num_replicas, uint32_t num_partitions) {
  return std::make_shared<MpiTransport>(num_replicas, num_partitions);
}

}  // namespace kiln::vm

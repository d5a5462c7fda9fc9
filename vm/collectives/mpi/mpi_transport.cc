// The MPI transport (see mpi_transport.h). Wire format per exchange, from
// each member to each other member: one header message (EncodeHeaders:
// signature, types, dims, byte counts), then one message per non-empty
// tensor, received straight into the tensor. MPI keeps messages between two
// ranks with one tag in order, so the k-th exchange of a pair meets the k-th.
#include "vm/collectives/mpi/mpi_transport.h"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace kiln::vm {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kExchangeTag = 1;
constexpr int kGatherTag = 2;
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

// Polls until every request completes; false at the deadline.
bool WaitAll(std::vector<MPI_Request>* reqs, Clock::time_point deadline) {
  for (int spin = 0; !reqs->empty(); ++spin) {
    int done = 0;
    MPI_Testall(static_cast<int>(reqs->size()), reqs->data(), &done, MPI_STATUSES_IGNORE);
    if (done) {
      reqs->clear();
      return true;
    }
    if (Clock::now() > deadline) return false;
    if (spin > 200) std::this_thread::sleep_for(std::chrono::microseconds(spin > 200000 ? 200 : 10));
  }
  return true;
}

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
  ~MpiTransport() override { Flush(Clock::now() + std::chrono::seconds(10)); }

  StatusOr<std::vector<Payload>> ExchangeAll(const Exchange& e) override {
    auto deadline = Clock::now() + e.timeout;
    std::string group_text;
    for (uint32_t id : e.group) group_text += (group_text.empty() ? "" : ", ") + Name(id);
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
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<uint32_t> sorted = e.group;
    std::sort(sorted.begin(), sorted.end());
    bool everyone = static_cast<int>(sorted.size()) == size;
    for (size_t i = 0; everyone && i < sorted.size(); ++i) everyone = sorted[i] == i;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    switch (b.type) {
      case ElementType::kF32: type = MPI_FLOAT; break;
      case ElementType::kF64: type = MPI_DOUBLE; break;
      case ElementType::kSI32: type = MPI_INT32_T; break;
      case ElementType::kSI64: type = MPI_INT64_T; break;
      case ElementType::kUI32: type = MPI_UINT32_T; break;
      case ElementType::kUI64: type = MPI_UINT64_T; break;
      default: break;
    }
    MPI_Op mop = op == StandardReduction::kSum       ? MPI_SUM
                 : op == StandardReduction::kProduct ? MPI_PROD
                 : op == StandardReduction::kMax     ? MPI_MAX
                 : op == StandardReduction::kMin     ? MPI_MIN
                                                     : MPI_OP_NULL;
    // Floating max/min: MPI's NaN handling is not the spec's; exchange instead.
    bool float_minmax = (type == MPI_FLOAT || type == MPI_DOUBLE) &&
                        (op == StandardReduction::kMax || op == StandardReduction::kMin);
    // Signed integer products overflow in MPI's C arithmetic (undefined);
    // the spec wraps: exchange instead.
    bool signed_product = (type == MPI_INT32_T || type == MPI_INT64_T) && op == StandardReduction::kProduct;
    int64_t count = b.count;
    if (!everyone || type == MPI_DATATYPE_NULL || mop == MPI_OP_NULL || float_minmax || signed_product ||
        count > INT32_MAX)
      return false;
    auto deadline = Clock::now() + e.timeout;
    std::string group_text;
    for (uint32_t id : e.group) group_text += (group_text.empty() ? "" : ", ") + Name(id);
    auto signature_only = std::make_shared<std::vector<HostTensor>>();
    std::vector<Outgoing> out(e.group.size());
    for (size_t i = 0; i < e.group.size(); ++i)
      if (e.group[i] != e.self)
        KILN_RETURN_IF_ERROR(PostSend(static_cast<int>(e.group[i]), kExchangeTag, e.signature, signature_only, &out[i]));
    for (size_t i = 0; i < e.group.size(); ++i) {
      if (e.group[i] == e.self) continue;
      std::vector<HostTensor> none;
      std::string signature;
      int from = 0;
      std::string why = Receive(static_cast<int>(e.group[i]), kExchangeTag, deadline, &signature, &none, &from);
      if (why == "timeout")
        return Status(StatusCode::kDeadlineExceeded, e.label + " in process " + Name(e.self) + " timed out after " +
                                                         Seconds(e.timeout) + " waiting for process " +
                                                         Name(e.group[i]) + " of its group [" + group_text + "]");
      if (!why.empty()) return DataLoss(e.label + ": from process " + Name(e.group[i]) + ": " + why);
      if (signature != e.signature)
        return InvalidArgument("mismatched collectives in group [" + group_text + "]: " +
                               DescribeMismatch(e.signature, e.self, signature, e.group[i], num_partitions_));
    }
    MPI_Request req;
    MPI_Iallreduce(b.in == b.out ? MPI_IN_PLACE : b.in, b.out, static_cast<int>(count), type, mop, MPI_COMM_WORLD,
                   &req);
    std::vector<MPI_Request> reqs{req};
    if (!WaitAll(&reqs, deadline))
      return Status(StatusCode::kDeadlineExceeded, e.label + " in process " + Name(e.self) + " timed out after " +
                                                       Seconds(e.timeout) + " in MPI_Iallreduce over [" +
                                                       group_text + "]");
    for (auto& o : out)
      if (!WaitAll(&o.reqs, deadline))
        return Status(StatusCode::kDeadlineExceeded, e.label + ": sending its signature timed out");
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
  void Flush(Clock::time_point deadline) {
    for (auto& o : pending_) WaitAll(&o.reqs, deadline);
    pending_.clear();
  }
  uint32_t num_replicas_, num_partitions_;
  std::chrono::milliseconds timeout_{60000};
  std::deque<Outgoing> pending_;
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

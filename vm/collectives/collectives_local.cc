// The in-process transport (see collectives_local.h).
#include "vm/collectives/collectives_local.h"

#include <algorithm>

namespace kiln::vm {

namespace {

std::string Seconds(std::chrono::milliseconds t) {
  double s = static_cast<double>(t.count()) / 1000.0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return std::string(buf) + " s";
}

}  // namespace

InProcessTransport::InProcessTransport(uint32_t num_replicas, uint32_t num_partitions)
    : num_partitions_(num_partitions),
      sequence_(num_replicas * num_partitions),
      done_(num_replicas * num_partitions) {}

std::string InProcessTransport::Gone(uint32_t id) const {
  if (id >= done_.size() || !done_[id].done) return "";
  if (done_[id].error.empty()) return "process " + Name(id) + " returned without reaching it";
  return "process " + Name(id) + " failed: " + done_[id].error;
}

StatusOr<std::vector<Payload>> InProcessTransport::ExchangeAll(const Exchange& e) {
  const size_t n = e.group.size();
  auto pos = std::find(e.group.begin(), e.group.end(), e.self);
  if (pos == e.group.end() || e.self >= done_.size())
    return Internal(e.label + ": process " + Name(e.self) + " is not in its own group");
  for (uint32_t id : e.group)
    if (id >= done_.size())
      return InvalidArgument(e.label + ": its group names process " + std::to_string(id) + ", outside the grid");
  size_t me = static_cast<size_t>(pos - e.group.begin());
  std::string group_key;
  for (uint32_t id : e.group) group_key += std::to_string(id) + ",";
  auto deadline = std::chrono::steady_clock::now() + e.timeout;

  std::unique_lock<std::mutex> l(mu_);
  uint64_t seq = sequence_[e.self][group_key]++;
  Slot& slot = slots_[{group_key, seq}];
  if (slot.payloads.empty()) {
    slot.payloads.resize(n);
    slot.signatures.resize(n);
    slot.arrived.assign(n, false);
  }
  slot.payloads[me] = e.payload;
  slot.signatures[me] = e.signature;
  slot.arrived[me] = true;
  ++slot.count;
  cv_.notify_all();
  while (slot.count < n) {
    std::vector<std::string> gone, missing;
    for (size_t i = 0; i < n; ++i) {
      if (slot.arrived[i]) continue;
      missing.push_back(Name(e.group[i]));
      std::string why = Gone(e.group[i]);
      if (!why.empty()) gone.push_back(why);
    }
    if (!gone.empty())
      return FailedPrecondition(e.label + " in process " + Name(e.self) + " cannot complete: " + gone.front());
    if (cv_.wait_until(l, deadline) == std::cv_status::timeout && slot.count < n) {
      std::string who;
      for (const auto& m : missing) who += (who.empty() ? "" : ", ") + m;
      std::string all;
      for (uint32_t id : e.group) all += (all.empty() ? "" : ", ") + Name(id);
      return Status(StatusCode::kDeadlineExceeded,
                    e.label + " in process " + Name(e.self) + " timed out after " + Seconds(e.timeout) +
                        " waiting for process " + who + " of its group [" + all + "]");
    }
  }
  for (size_t i = 0; i < n; ++i)
    if (slot.signatures[i] != slot.signatures[0]) {
      std::string all;
      for (uint32_t id : e.group) all += (all.empty() ? "" : ", ") + Name(id);
      return InvalidArgument("mismatched collectives in group [" + all + "]: " +
                             DescribeMismatch(slot.signatures[0], e.group[0], slot.signatures[i], e.group[i],
                                              num_partitions_));
    }
  std::vector<Payload> out = slot.payloads;
  if (++slot.readers == n) slots_.erase({group_key, seq});
  return out;
}

Status InProcessTransport::Send(int64_t channel, uint32_t self, int64_t target, Payload payload) {
  (void)self;
  std::lock_guard<std::mutex> l(mu_);
  mailboxes_[{channel, target < 0 ? -1 : target}].push_back(std::move(payload));
  cv_.notify_all();
  return Status::Ok();
}

StatusOr<Payload> InProcessTransport::Recv(int64_t channel, uint32_t self, int64_t source, const std::string& label,
                                           std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock<std::mutex> l(mu_);
  for (;;) {
    for (int64_t key : {static_cast<int64_t>(self), int64_t{-1}}) {
      auto it = mailboxes_.find({channel, key});
      if (it != mailboxes_.end() && !it->second.empty()) {
        Payload p = std::move(it->second.front());
        it->second.pop_front();
        return p;
      }
    }
    // Nothing yet: give up when no sender is left.
    std::string why;
    if (source >= 0) {
      why = Gone(static_cast<uint32_t>(source));
    } else {
      bool any_running = false;
      for (uint32_t id = 0; id < done_.size(); ++id) any_running |= id != self && !done_[id].done;
      if (!any_running) why = "every other process returned without sending on channel " + std::to_string(channel);
    }
    if (!why.empty()) return FailedPrecondition(label + " in process " + Name(self) + " cannot complete: " + why);
    if (cv_.wait_until(l, deadline) == std::cv_status::timeout) {
      std::string from = source >= 0 ? "process " + Name(static_cast<uint32_t>(source))
                                     : std::string("any process");
      return Status(StatusCode::kDeadlineExceeded, label + " in process " + Name(self) + " timed out after " +
                                                       Seconds(timeout) + " waiting for a send on channel " +
                                                       std::to_string(channel) + " from " + from);
    }
  }
}

void InProcessTransport::ProcessDone(uint32_t self, const Status& status) {
  std::lock_guard<std::mutex> l(mu_);
  if (self >= done_.size()) return;
  done_[self].done = true;
  done_[self].error = status.ok() ? "" : status.message();
  cv_.notify_all();
}

}  // namespace kiln::vm

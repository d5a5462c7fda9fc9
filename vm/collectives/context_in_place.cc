// Collectives of one tensor computed straight between the processes'
// buffers, where the host can address them (the CPU device's buffers,
// hal::Buffer::host_address): no host copies of inputs or results and no
// allocations (docs/collectives.md, "How a collective runs").
//
//   all_reduce            the transport (AllReduceBuffers): in-process, each
//                         member reduces its slice into every result; MPI,
//                         MPI_Iallreduce on the buffers
//   all_gather            my result's part j <- member j's input
//   reduce_scatter        my result <- the fold of every member's block `me`
//   all_to_all            my result's part j <- block `me` of member j's input
//   collective_permute    my result <- my source's input, or zeros
//   collective_broadcast  my result <- the group's first member's input
//
// Every member reads the others' inputs and writes only its own result
// (all_reduce aside), then waits in BuffersDone until all have finished.
// Results are those of the general path bit for bit: data movement copies
// bytes, and folds run in group order.
#include <algorithm>
#include <cstring>

#include "vm/collectives/collective_helpers.h"
#include "vm/collectives/host_reduce.h"
#include "vm/context.h"

namespace kiln::vm {

namespace {

// A tensor of `dims` as [outer, parts, inner] along `dim`: `parts` equal
// blocks of `inner_bytes` each, repeated `outer` times.
struct Split {
  int64_t outer = 1;
  int64_t inner_bytes = 0;
};
Split SplitAt(const std::vector<int64_t>& dims, int64_t dim, int64_t parts, size_t element_bytes) {
  Split s;
  for (int64_t i = 0; i < dim; ++i) s.outer *= dims[i];
  int64_t inner = static_cast<int64_t>(element_bytes);
  for (size_t i = static_cast<size_t>(dim); i < dims.size(); ++i) inner *= dims[i];
  s.inner_bytes = inner / parts;
  return s;
}

// The collective `d` (not all_reduce) for a transport that runs it itself:
// member j's parts of my input and result, the permutation's pairs.
CollectiveTransport::MoveBuffers Describe(const CollectiveDesc& d, const hal::BufferView& iv, const uint8_t* in,
                                          uint8_t* out, int64_t n, StandardReduction standard) {
  using M = CollectiveTransport::MoveBuffers;
  M m;
  m.type = iv.type;
  m.reduction = standard;
  m.in = in;
  m.out = out;
  m.in_bytes = static_cast<int64_t>(iv.ByteSize());
  const size_t eb = StorageBytes(iv.type);
  auto parts = [](const Split& s) { return CollectiveTransport::Parts{s.outer, s.inner_bytes}; };
  if (d.op == "stablehlo.all_gather") {
    m.kind = M::Kind::kAllGather;
    m.out_parts = parts(SplitAt(iv.dims, d.dim, 1, eb));
    m.out_bytes = m.in_bytes * n;
  } else if (d.op == "stablehlo.reduce_scatter") {
    m.kind = M::Kind::kReduceScatter;
    m.in_parts = parts(SplitAt(iv.dims, d.dim, n, eb));
    m.out_bytes = m.in_bytes / n;
  } else if (d.op == "stablehlo.all_to_all") {
    m.kind = M::Kind::kAllToAll;
    m.in_parts = parts(SplitAt(iv.dims, d.split_dimension, n, eb));
    std::vector<int64_t> block = iv.dims;
    block[d.split_dimension] /= n;
    m.out_parts = parts(SplitAt(block, d.concat_dimension, 1, eb));
    m.out_bytes = m.in_bytes;
  } else if (d.op == "stablehlo.collective_permute") {
    m.kind = M::Kind::kPermute;
    m.out_bytes = m.in_bytes;
  } else {
    m.kind = M::Kind::kBroadcast;
    m.out_bytes = m.in_bytes;
  }
  return m;
}

}  // namespace

StatusOr<bool> Context::CollectiveInPlace(const CollectiveDesc& d, uint32_t exe, const RefValue& in,
                                          const RefValue& out) {
  const bool movement = d.op == "stablehlo.all_gather" || d.op == "stablehlo.all_to_all" ||
                        d.op == "stablehlo.collective_permute" ||
                        (d.op == "stablehlo.collective_broadcast" && !d.has_dynamic_root);
  const bool reduction = (d.op == "stablehlo.all_reduce" || d.op == "stablehlo.reduce_scatter") &&
                         exe < module_->executables.size();
  if (!movement && !reduction) return false;
  if (in.kind != RefValue::Kind::kView || out.kind != RefValue::Kind::kView) return false;
  const hal::BufferView& iv = *in.view;
  const hal::BufferView& ov = *out.view;
  uint8_t* in_base = iv.buffer->host_address();
  uint8_t* out_base = ov.buffer->host_address();
  if (!in_base || !out_base || iv.type != ov.type || iv.dims.empty() != ov.dims.empty()) return false;
  const StandardReduction standard =
      reduction ? StandardOf(module_->executables[exe]) : StandardReduction::kNone;
  // reduce_scatter folds here, so only what HostReduce folds; all_reduce's
  // transport decides for itself (AllReduceBuffers returns false).
  if (reduction && standard == StandardReduction::kNone) return false;
  if (d.op == "stablehlo.reduce_scatter" && !HostReduceSupported(standard, iv.type)) return false;
  const uint8_t* a = in_base + iv.offset;
  uint8_t* b = out_base + ov.offset;
  const size_t in_bytes = iv.ByteSize(), out_bytes = ov.ByteSize();
  // A result that overlaps its input other than exactly would be written
  // while still read; only all_reduce reads and writes element by element.
  if (a < b + out_bytes && b < a + in_bytes && !(d.op == "stablehlo.all_reduce" && a == b)) return false;

  GridEnvironment& env = Grid();
  const uint32_t P = env.num_partitions;
  const uint32_t self = options_.replica_id * P + options_.partition_id;
  KILN_ASSIGN_OR_RETURN(auto groups, ProcessGroups(d, env.num_replicas, P));
  std::vector<uint32_t> group;
  int64_t source = -1;             // collective_permute: whose input becomes mine
  std::vector<uint32_t> targets;  // and whom mine goes to
  if (d.op == "stablehlo.collective_permute") {
    // The members as the general path picks them (context_collectives.cc).
    for (const auto& pr : groups)
      for (uint32_t id : pr)
        if ((d.channel <= 0 ? id % P == options_.partition_id : id / P == options_.replica_id) &&
            std::find(group.begin(), group.end(), id) == group.end())
          group.push_back(id);
    std::sort(group.begin(), group.end());
    for (const auto& pr : groups)
      if (pr.size() == 2 && pr[1] == self && std::find(group.begin(), group.end(), pr[0]) != group.end())
        source = pr[0];
    for (const auto& pr : groups)
      if (pr.size() == 2 && pr[0] == self && std::find(group.begin(), group.end(), pr[1]) != group.end())
        targets.push_back(pr[1]);
  } else {
    for (auto& g : groups)
      if (std::find(g.begin(), g.end(), self) != g.end()) group = g;
  }
  if (std::find(group.begin(), group.end(), self) == group.end()) return false;  // the general path's business
  const int64_t n = static_cast<int64_t>(group.size());
  const size_t me = static_cast<size_t>(std::find(group.begin(), group.end(), self) - group.begin());
  const size_t eb = StorageBytes(iv.type);
  // Shapes the general path would refuse are left to it, for its messages.
  if (d.op == "stablehlo.all_gather" || d.op == "stablehlo.reduce_scatter") {
    if (d.dim < 0 || d.dim >= static_cast<int64_t>(iv.dims.size())) return false;
    const int64_t factor = d.op == "stablehlo.all_gather" ? n : 1;
    const int64_t divisor = d.op == "stablehlo.all_gather" ? 1 : n;
    if (iv.dims[d.dim] % divisor) return false;
    std::vector<int64_t> want = iv.dims;
    want[d.dim] = want[d.dim] * factor / divisor;
    if (want != ov.dims) return false;
  } else if (d.op == "stablehlo.all_to_all") {
    if (d.split_count != n || d.split_dimension < 0 || d.concat_dimension < 0 ||
        d.split_dimension >= static_cast<int64_t>(iv.dims.size()) ||
        d.concat_dimension >= static_cast<int64_t>(iv.dims.size()) || iv.dims[d.split_dimension] % n)
      return false;
    std::vector<int64_t> want = iv.dims;
    want[d.split_dimension] /= n;
    want[d.concat_dimension] *= n;
    if (want != ov.dims) return false;
  } else if (iv.dims != ov.dims) {
    return false;
  }

  // Wait for the work that writes the input, and for any still reading the result.
  KILN_RETURN_IF_ERROR(Sync());
  HostTensor probe;
  probe.type = iv.type;
  probe.dims = iv.dims;
  CollectiveTransport::Exchange e;
  e.self = self;
  e.group = group;
  e.label = d.Label();
  e.signature = e.label + " on (" + TypeText(probe) + ") with " + d.Serialize();
  if (reduction) e.signature += " reduction=" + std::to_string(static_cast<int>(standard));
  e.timeout = options_.collective_timeout;

  if (d.op == "stablehlo.all_reduce") {
    CollectiveTransport::ReduceBuffers buffers{iv.type, iv.NumElements(), a, b};
    return env.transport->AllReduceBuffers(e, standard, buffers);
  }
  // The medium's own collective where it has one (MPI), then shared addresses (in-process).
  CollectiveTransport::MoveBuffers move = Describe(d, iv, a, b, n, standard);
  move.permute_source = source;
  move.permute_targets = targets;
  KILN_ASSIGN_OR_RETURN(bool native, env.transport->MoveBuffersNatively(e, move));
  if (native) return true;
  std::vector<CollectiveTransport::SharedBuffers> all;
  KILN_ASSIGN_OR_RETURN(bool shared, env.transport->ShareBuffers(e, {a, b}, &all));
  if (!shared) return false;
  auto in_of = [&](size_t j) { return static_cast<const uint8_t*>(all[j].in); };

  if (d.op == "stablehlo.all_gather") {
    // The result along dim: [outer, n, inner]; member j's input: [outer, inner].
    const Split s = SplitAt(iv.dims, d.dim, 1, eb);
    for (int64_t r = 0; r < s.outer; ++r)
      for (int64_t j = 0; j < n; ++j)
        std::memcpy(b + (r * n + j) * s.inner_bytes, in_of(static_cast<size_t>(j)) + r * s.inner_bytes,
                    static_cast<size_t>(s.inner_bytes));
  } else if (d.op == "stablehlo.reduce_scatter") {
    // Block `me` of every input, [outer, n, inner] along dim, folded row by row.
    const Split s = SplitAt(iv.dims, d.dim, n, eb);
    const int64_t row = s.inner_bytes / static_cast<int64_t>(eb);
    std::vector<const void*> ins(all.size());
    for (int64_t r = 0; r < s.outer; ++r) {
      for (size_t j = 0; j < all.size(); ++j) ins[j] = in_of(j) + (r * n + static_cast<int64_t>(me)) * s.inner_bytes;
      HostReduce(standard, iv.type, ins, {b + r * s.inner_bytes}, 0, row);
    }
  } else if (d.op == "stablehlo.all_to_all") {
    // Block `me` of member j's input (split along split_dimension) becomes
    // part j of the result (along concat_dimension).
    const Split from = SplitAt(iv.dims, d.split_dimension, n, eb);
    std::vector<int64_t> block = iv.dims;
    block[d.split_dimension] /= n;
    const Split to = SplitAt(block, d.concat_dimension, 1, eb);
    std::vector<uint8_t> gathered;
    for (int64_t j = 0; j < n; ++j) {
      const uint8_t* src = in_of(static_cast<size_t>(j));
      const uint8_t* contiguous = nullptr;
      if (from.outer == 1) {
        contiguous = src + static_cast<int64_t>(me) * from.inner_bytes;
      } else {
        gathered.resize(static_cast<size_t>(from.outer * from.inner_bytes));
        for (int64_t r = 0; r < from.outer; ++r)
          std::memcpy(gathered.data() + r * from.inner_bytes, src + (r * n + static_cast<int64_t>(me)) * from.inner_bytes,
                      static_cast<size_t>(from.inner_bytes));
        contiguous = gathered.data();
      }
      for (int64_t r = 0; r < to.outer; ++r)
        std::memcpy(b + (r * n + j) * to.inner_bytes, contiguous + r * to.inner_bytes,
                    static_cast<size_t>(to.inner_bytes));
    }
  } else if (d.op == "stablehlo.collective_permute") {
    if (source >= 0) {
      const size_t j = static_cast<size_t>(std::find(group.begin(), group.end(), static_cast<uint32_t>(source)) -
                                           group.begin());
      std::memcpy(b, in_of(j), out_bytes);
    } else {
      std::memset(b, 0, out_bytes);
    }
  } else {  // collective_broadcast: the root is the group's first member
    std::memcpy(b, in_of(0), out_bytes);
  }
  KILN_RETURN_IF_ERROR(env.transport->BuffersDone(e));
  return true;
}

}  // namespace kiln::vm

// The interpreter's collective instructions and interpreter.run_parallel.
//
// A collective first waits for its inputs (submit, wait on the fence, read
// them to the host), then meets its peers through the grid's transport on
// this VM context's thread, computes this process's share on the host and
// uploads it. Reductions run on the device, as dispatches of the op's
// reduction body (a kiln.elementwise executable), in group order.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "kernels/scalar/scalar.h"
#include "vm/collectives/collective_helpers.h"
#include "vm/collectives/collectives_local.h"
#include "vm/context.h"
#include "vm/collectives/grid.h"

namespace kiln::vm {

namespace {

// The element `i` of a rank-0 or rank-1 integer tensor (dynamic roots).
StatusOr<int64_t> IntElement(const HostTensor& t, int64_t i) {
  if (!IsInteger(t.type) || i < 0 || i >= t.NumElements())
    return InvalidArgument("root operand " + TypeText(t) + " has no integer element " + std::to_string(i));
  Scalar s = ref::LoadScalar(t.type, t.data.data() + i * StorageBytes(t.type));
  return s.i;
}

}  // namespace

std::string TypeText(const HostTensor& t) {
  HostTensor probe = t;
  probe.data.clear();
  probe.tuple_elements.clear();
  return t.is_token ? std::string("!stablehlo.token") : FormatTensor(probe);
}

// The body as a standard reduction (one add/multiply/maximum/minimum of the
// two parameters), for transports that reduce natively.
StandardReduction StandardOf(const KernelParams& params) {
  const KernelAttr* body = params.Find("body");
  if (!body || !body->has_program) return StandardReduction::kNone;
  switch (body->program.AsStandardReduction()) {
    case ScalarOp::kAdd: return StandardReduction::kSum;
    case ScalarOp::kMultiply: return StandardReduction::kProduct;
    case ScalarOp::kMaximum: return StandardReduction::kMax;
    case ScalarOp::kMinimum: return StandardReduction::kMin;
    default: return StandardReduction::kNone;
  }
}

GridEnvironment& Context::Grid() {
  if (options_.grid) return *options_.grid;
  if (!local_grid_) {
    local_grid_ = std::make_shared<GridEnvironment>();
    local_grid_->transport = std::make_shared<InProcessTransport>(1, 1);
    local_grid_->timeout = options_.collective_timeout;
  }
  return *local_grid_;
}

Status Context::ReduceInto(uint32_t executable, const std::vector<const HostTensor*>& parts, size_t self,
                           const RefValue& self_value, const RefValue& out) {
  if (parts.empty()) return Internal("reduction of nothing");
  if (executable >= executables_.size()) return Internal("reduction executable out of range");
  auto on_device = [&](size_t i) -> StatusOr<RefValue> {
    if (i == self && self_value.kind == RefValue::Kind::kView) return self_value;
    return Write(*parts[i]);
  };
  if (parts.size() == 1) {
    // Nothing to combine: the value itself, copied into the result buffer.
    if (parts[0]->data.size() != out.view->ByteSize()) return InvalidArgument("reduction result of the wrong size");
    KILN_RETURN_IF_ERROR(Sync());
    return device_->Upload(*out.view->buffer, out.view->offset, parts[0]->data.data(), parts[0]->data.size());
  }
  KILN_ASSIGN_OR_RETURN(RefValue acc, on_device(0));
  if (!pending_) pending_ = device_->CreateCommandBuffer();
  for (size_t i = 1; i < parts.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(RefValue next, on_device(i));
    RefValue dst = out;
    if (i + 1 < parts.size()) {
      KILN_ASSIGN_OR_RETURN(dst, AllocateView(out.view->type, out.view->dims));
    }
    pending_->Dispatch(executables_[executable], {*acc.view, *next.view}, {*dst.view});
    acc = dst;
  }
  return Flush();
}

Status Context::RunCollective(const Instruction& ins, Frame& frame) {
  const auto& o = ins.operands;
  const bool reduce = ins.op == Opcode::kCollectiveReduce;
  const uint32_t exe = reduce ? static_cast<uint32_t>(o[1].value) : 0;
  const auto& in_regs = o[reduce ? 2 : 1].list;
  const auto& out_regs = o[reduce ? 3 : 2].list;
  auto& R = frame.refs;

  auto cached = descs_.find(static_cast<uint32_t>(o[0].value));
  if (cached == descs_.end()) {
    KILN_ASSIGN_OR_RETURN(CollectiveDesc parsed, CollectiveDesc::Parse(module_->strings[o[0].value]));
    cached = descs_.emplace(static_cast<uint32_t>(o[0].value), std::move(parsed)).first;
  }
  const CollectiveDesc& d = cached->second;
  GridEnvironment& env = Grid();
  const uint32_t P = env.num_partitions, Rn = env.num_replicas;
  if (options_.replica_id >= Rn || options_.partition_id >= P)
    return Internal("process outside its grid");
  const uint32_t self = options_.replica_id * P + options_.partition_id;
  const std::string label = d.Label();

  // One tensor between buffers the host can address (the CPU device's):
  // computed straight between the processes' buffers, with no host copy
  // (vm/collectives/context_in_place.cc).
  if (in_regs.size() == 1 && out_regs.size() == 1) {
    KILN_ASSIGN_OR_RETURN(bool done, CollectiveInPlace(d, reduce ? exe : UINT32_MAX, R[in_regs[0]], R[out_regs[0]]));
    if (done) return Status::Ok();
  }

  // Inputs: submit what produced them, wait, read them to the host.
  auto inputs = std::make_shared<std::vector<HostTensor>>();
  for (uint32_t r : in_regs) {
    KILN_ASSIGN_OR_RETURN(HostTensor t, Read(R[r]));
    inputs->push_back(std::move(t));
  }
  for (uint32_t r : out_regs)
    if (R[r].kind != RefValue::Kind::kView) return Internal(label + ": result register holds no tensor");

  std::vector<HostTensor> results;  // set unless the op wrote its results itself
  bool written = false;
  // What every member must agree on: readable part first (see
  // ReadableSignature), then every attribute.
  std::string signature = label + " on (";
  for (size_t i = 0; i < inputs->size(); ++i) signature += (i ? ", " : "") + TypeText((*inputs)[i]);
  signature += ") with " + d.Serialize();

  auto my_group = [&](bool required) -> StatusOr<std::vector<uint32_t>> {
    KILN_ASSIGN_OR_RETURN(auto groups, ProcessGroups(d, Rn, P));
    for (auto& g : groups)
      if (std::find(g.begin(), g.end(), self) != g.end()) return g;
    if (required)
      return InvalidArgument(label + ": process " + ProcessName(self, P) + " is in none of its process groups");
    return std::vector<uint32_t>{};
  };
  auto exchange = [&](const std::vector<uint32_t>& group) {
    CollectiveTransport::Exchange e;
    e.self = self;
    e.group = group;
    e.label = label;
    e.signature = signature;
    e.payload = inputs;
    e.timeout = options_.collective_timeout;
    return env.transport->ExchangeAll(e);
  };
  auto index_in = [&](const std::vector<uint32_t>& g) {
    return static_cast<int64_t>(std::find(g.begin(), g.end(), self) - g.begin());
  };

  // A reduction the transport can run natively (MPI_Iallreduce); the kind
  // joins the signature so that every member takes the same path.
  bool reduced_by_transport = false;
  if (reduce && exe < module_->executables.size()) {
    StandardReduction standard = StandardOf(module_->executables[exe]);
    signature += " reduction=" + std::to_string(static_cast<int>(standard));
    if (d.op == "stablehlo.all_reduce" && standard != StandardReduction::kNone && inputs->size() == 1) {
      KILN_ASSIGN_OR_RETURN(auto group, my_group(true));
      CollectiveTransport::Exchange e;
      e.self = self;
      e.group = group;
      e.label = label;
      e.signature = signature;
      e.payload = inputs;
      e.timeout = options_.collective_timeout;
      HostTensor value = (*inputs)[0];
      KILN_ASSIGN_OR_RETURN(reduced_by_transport, env.transport->AllReduce(e, standard, &value));
      if (reduced_by_transport) results.push_back(std::move(value));
    }
  }

  if (reduced_by_transport) {
    // results holds the reduced value.
  } else if (d.op == "stablehlo.all_gather") {
    KILN_ASSIGN_OR_RETURN(auto group, my_group(true));
    KILN_ASSIGN_OR_RETURN(auto all, exchange(group));
    for (size_t k = 0; k < inputs->size(); ++k) {
      std::vector<const HostTensor*> parts;
      for (const auto& p : all) parts.push_back(&(*p)[k]);
      KILN_ASSIGN_OR_RETURN(HostTensor t, ConcatHost(parts, d.dim));
      results.push_back(std::move(t));
    }
  } else if (d.op == "stablehlo.all_reduce" || d.op == "stablehlo.reduce_scatter") {
    if (!reduce) return InvalidArgument(label + " needs a reduction body (collective.reduce)");
    KILN_ASSIGN_OR_RETURN(auto group, my_group(true));
    KILN_ASSIGN_OR_RETURN(auto all, exchange(group));
    if (out_regs.size() != inputs->size()) return Internal(label + ": operand and result counts differ");
    for (size_t k = 0; k < inputs->size(); ++k) {
      std::vector<const HostTensor*> parts;
      for (const auto& p : all) parts.push_back(&(*p)[k]);
      size_t me = static_cast<size_t>(index_in(group));
      if (d.op == "stablehlo.all_reduce") {
        KILN_RETURN_IF_ERROR(ReduceInto(exe, parts, me, R[in_regs[k]], R[out_regs[k]]));
        continue;
      }
      KILN_ASSIGN_OR_RETURN(RefValue full, AllocateView(R[out_regs[k]].view->type, (*inputs)[k].dims));
      KILN_RETURN_IF_ERROR(ReduceInto(exe, parts, me, R[in_regs[k]], full));
      KILN_ASSIGN_OR_RETURN(HostTensor reduced, Read(full));
      KILN_ASSIGN_OR_RETURN(HostTensor mine, SliceHost(reduced, d.dim, index_in(group), static_cast<int64_t>(group.size())));
      results.push_back(std::move(mine));
    }
    written = d.op == "stablehlo.all_reduce";
  } else if (d.op == "stablehlo.all_to_all") {
    KILN_ASSIGN_OR_RETURN(auto group, my_group(true));
    if (static_cast<int64_t>(group.size()) != d.split_count)
      return InvalidArgument(label + ": a process group of " + std::to_string(group.size()) +
                             " processes, but split_count is " + std::to_string(d.split_count));
    KILN_ASSIGN_OR_RETURN(auto all, exchange(group));
    for (size_t k = 0; k < inputs->size(); ++k) {
      std::vector<HostTensor> scattered;
      for (const auto& p : all) {
        KILN_ASSIGN_OR_RETURN(HostTensor part, SliceHost((*p)[k], d.split_dimension, index_in(group), d.split_count));
        scattered.push_back(std::move(part));
      }
      std::vector<const HostTensor*> parts;
      for (const auto& t : scattered) parts.push_back(&t);
      KILN_ASSIGN_OR_RETURN(HostTensor t, ConcatHost(parts, d.concat_dimension));
      results.push_back(std::move(t));
    }
  } else if (d.op == "stablehlo.collective_broadcast" || d.op == "stablehlo.collective_reduce") {
    size_t n = inputs->size() - (d.has_dynamic_root ? 1 : 0);
    if (d.has_dynamic_root && inputs->empty()) return InvalidArgument(label + ": no root operand");
    KILN_ASSIGN_OR_RETURN(auto group, my_group(false));
    if (group.empty()) {
      // In no process group: zeros.
      for (size_t k = 0; k < n; ++k) results.push_back(ZerosLike((*inputs)[k]));
    } else {
      KILN_ASSIGN_OR_RETURN(auto all, exchange(group));
      for (size_t k = 0; k < n; ++k) {
        int64_t root = 0;
        if (d.has_dynamic_root) {
          KILN_ASSIGN_OR_RETURN(root, IntElement(inputs->back(), static_cast<int64_t>(k)));
        }
        if (root < 0 || root >= static_cast<int64_t>(group.size()))
          return InvalidArgument(label + ": root " + std::to_string(root) + " is outside its process group of " +
                                 std::to_string(group.size()));
        if (d.op == "stablehlo.collective_broadcast") {
          results.push_back((*all[root])[k]);
        } else if (root != index_in(group)) {
          results.push_back(ZerosLike((*inputs)[k]));
        } else {
          if (!reduce) return Internal(label + " without a reduction body");
          std::vector<const HostTensor*> parts;
          for (const auto& p : all) parts.push_back(&(*p)[k]);
          KILN_ASSIGN_OR_RETURN(RefValue full, AllocateView(R[out_regs[k]].view->type, (*inputs)[k].dims));
          KILN_RETURN_IF_ERROR(ReduceInto(exe, parts, static_cast<size_t>(root), R[in_regs[k]], full));
          KILN_ASSIGN_OR_RETURN(HostTensor t, Read(full));
          results.push_back(std::move(t));
        }
      }
    }
  } else if (d.op == "stablehlo.collective_permute") {
    // The processes named by the pairs (of this partition without a
    // channel, of this replica with one) meet; a process that no pair
    // names gets zeros without waiting, and so does one no pair targets.
    if (inputs->size() != 1) return Internal(label + " takes one operand");
    KILN_ASSIGN_OR_RETURN(auto pairs, ProcessGroups(d, Rn, P));
    std::vector<uint32_t> members;
    for (const auto& pr : pairs)
      for (uint32_t id : pr)
        if ((d.channel <= 0 ? id % P == options_.partition_id : id / P == options_.replica_id) &&
            std::find(members.begin(), members.end(), id) == members.end())
          members.push_back(id);
    std::sort(members.begin(), members.end());
    const HostTensor* from = nullptr;
    std::vector<Payload> all;
    if (std::find(members.begin(), members.end(), self) != members.end()) {
      KILN_ASSIGN_OR_RETURN(all, exchange(members));
      for (const auto& pr : pairs)
        if (pr.size() == 2 && pr[1] == self) {
          auto it = std::find(members.begin(), members.end(), pr[0]);
          if (it != members.end()) from = &(*all[it - members.begin()])[0];
        }
    }
    results.push_back(from ? *from : ZerosLike((*inputs)[0]));
  } else if (d.op == "stablehlo.send") {
    bool sent = false;
    if (d.has_groups) {
      KILN_ASSIGN_OR_RETURN(auto pairs, ProcessGroups(d, Rn, P));
      for (const auto& pr : pairs)
        if (pr.size() == 2 && pr[0] == self) {
          KILN_RETURN_IF_ERROR(env.transport->Send(d.channel, self, pr[1], inputs));
          sent = true;
        }
    }
    if (!sent && !d.has_groups) KILN_RETURN_IF_ERROR(env.transport->Send(d.channel, self, -1, inputs));
  } else if (d.op == "stablehlo.recv") {
    int64_t source = -1;
    bool expected = !d.has_groups;
    if (d.has_groups) {
      KILN_ASSIGN_OR_RETURN(auto pairs, ProcessGroups(d, Rn, P));
      for (const auto& pr : pairs)
        if (pr.size() == 2 && pr[1] == self) {
          source = pr[0];
          expected = true;
        }
    }
    if (!expected) {
      // No pair targets this process: nothing arrives; zeros.
      for (uint32_t r : out_regs) {
        HostTensor z;
        z.type = R[r].view->type;
        z.dims = R[r].view->dims;
        z.data.assign(R[r].view->ByteSize(), 0);
        results.push_back(std::move(z));
      }
    } else {
      KILN_ASSIGN_OR_RETURN(Payload got, env.transport->Recv(d.channel, self, source, label, options_.collective_timeout));
      results = *got;
    }
  } else if (d.op == "stablehlo.infeed") {
    for (size_t k = 0; k < out_regs.size(); ++k) {
      HostTensor t;
      if (!env.infeed.Pop(&t))
        return FailedPrecondition(label + ": the infeed queue is empty (interpreter.run_parallel's infeed "
                                          "attribute fills it)");
      results.push_back(std::move(t));
    }
  } else if (d.op == "stablehlo.outfeed") {
    for (const auto& t : *inputs) env.outfeed.Push(t);
  } else {
    return Unimplemented(d.op + " is not a collective this runtime knows");
  }

  if (written) return Status::Ok();
  if (results.size() != out_regs.size())
    return InvalidArgument(label + " produced " + std::to_string(results.size()) + " tensors for " +
                           std::to_string(out_regs.size()) + " results");
  KILN_RETURN_IF_ERROR(Sync());
  for (size_t k = 0; k < results.size(); ++k) {
    const hal::BufferView& v = *R[out_regs[k]].view;
    const HostTensor& t = results[k];
    if (t.is_token || t.is_tuple || t.type != v.type || t.dims != v.dims) {
      HostTensor want;
      want.type = v.type;
      want.dims = v.dims;
      return InvalidArgument(label + ": result " + std::to_string(k) + " must be " + TypeText(want) + ", got " +
                             TypeText(t));
    }
    KILN_RETURN_IF_ERROR(device_->Upload(*v.buffer, v.offset, t.data.data(), t.data.size()));
  }
  return Status::Ok();
}

Status Context::RunParallel(const Instruction& ins, Frame& frame, int depth) {
  // Descriptor: "grid=RxP;programs=f,g,...;infeed=q,..." (function names in
  // grid order; infeed functions are evaluated here, in order).
  const std::string& text = module_->strings[ins.operands[0].value];
  const auto& in_regs = ins.operands[1].list;
  const auto& out_regs = ins.operands[2].list;
  auto bad = [&](const std::string& why) {
    return InvalidArgument("interpreter.run_parallel: " + why + " (descriptor '" + text + "')");
  };
  uint32_t R = 0, P = 0;
  std::vector<std::string> programs, infeed;
  auto split = [](const std::string& s, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
      size_t e = s.find(sep, start);
      if (e == std::string::npos) e = s.size();
      if (e > start) out.push_back(s.substr(start, e - start));
      start = e + 1;
    }
    return out;
  };
  for (const auto& field : split(text, ';')) {
    size_t eq = field.find('=');
    if (eq == std::string::npos) return bad("a field without '='");
    std::string key = field.substr(0, eq), value = field.substr(eq + 1);
    if (key == "grid") {
      if (std::sscanf(value.c_str(), "%ux%u", &R, &P) != 2) return bad("a malformed grid");
    } else if (key == "programs") {
      programs = split(value, ',');
    } else if (key == "infeed") {
      infeed = split(value, ',');
    } else {
      return bad("unknown field '" + key + "'");
    }
  }
  if (R == 0 || P == 0 || uint64_t{R} * P > 4096 || programs.size() != uint64_t{R} * P)
    return bad("a grid that does not match its programs");

  GridRun run;
  run.num_replicas = R;
  run.num_partitions = P;
  run.functions = programs;
  run.timeout = options_.collective_timeout;
  run.print = options_.print;
  run.allow_private = true;  // the programs a grid names need not be public
  if (has_deadline_)  // the grid's processes share what is left of this call's time
    run.call_timeout = std::max(std::chrono::milliseconds(1), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                                  deadline_ - std::chrono::steady_clock::now()));
  size_t next = 0;
  for (const auto& name : programs) {
    int f = module_->FindFunction(name);
    if (f < 0) return bad("no function named '" + name + "'");
    const LoadedFunction& fn = module_->functions[f];
    std::vector<HostTensor> args;
    for (size_t a = 0; a < fn.args.size(); ++a, ++next) {
      if (next >= in_regs.size()) return bad("fewer operands than the programs take");
      KILN_ASSIGN_OR_RETURN(HostTensor t, Read(frame.refs[in_regs[next]]));
      args.push_back(std::move(t));
    }
    run.inputs.push_back(std::move(args));
  }
  if (next != in_regs.size()) return bad("more operands than the programs take");
  for (const auto& name : infeed) {
    int f = module_->FindFunction(name);
    if (f < 0) return bad("no infeed function named '" + name + "'");
    if (!module_->functions[f].args.empty()) return bad("infeed function '" + name + "' takes arguments");
    std::vector<RefValue> values;
    KILN_RETURN_IF_ERROR(Run(f, {}, &values, depth + 1));
    for (const auto& v : values) {
      KILN_ASSIGN_OR_RETURN(HostTensor t, Read(v));
      run.infeed.push_back(std::move(t));
    }
  }
  KILN_RETURN_IF_ERROR(Sync());
  GridResult grid;
  if (options_.run_grid) {
    KILN_RETURN_IF_ERROR(options_.run_grid(module_, run, &grid));
  } else {
    KILN_ASSIGN_OR_RETURN(grid, RunGrid(module_, device_, run));
  }
  for (size_t i = 0; i < grid.processes.size(); ++i)
    for (const auto& f : grid.processes[i].check_failures)
      check_failures_.push_back("process " + ProcessName(static_cast<uint32_t>(i), P) + ": " + f);
  KILN_RETURN_IF_ERROR(grid.FirstError(P));
  size_t k = 0;
  for (const auto& p : grid.processes)
    for (const auto& t : p.results) {
      if (k >= out_regs.size()) return bad("the programs return more results than it has");
      KILN_ASSIGN_OR_RETURN(RefValue v, Write(t));
      frame.refs[out_regs[k++]] = std::move(v);
    }
  if (k != out_regs.size()) return bad("the programs return fewer results than it has");
  return Status::Ok();
}

}  // namespace kiln::vm

// A process grid over MPI: this rank runs its grid process, then every
// rank's report (status, check failures, results) is gathered to all ranks.
#include <cstring>

#include "vm/context.h"
#include "vm/collectives/grid.h"
#include "vm/collectives/mpi/mpi_transport.h"

namespace kiln::vm {

namespace {

HostTensor Bytes(const std::string& s) {
  HostTensor t;
  t.type = ElementType::kUI8;
  t.dims = {static_cast<int64_t>(s.size())};
  t.data.assign(s.begin(), s.end());
  return t;
}

std::string Text(const HostTensor& t) { return std::string(t.data.begin(), t.data.end()); }

// [counts: si64 x3 (status code, results, failures)], [status message],
// failures..., results...
std::vector<HostTensor> Report(const GridProcessResult& p) {
  std::vector<HostTensor> out;
  HostTensor counts;
  counts.type = ElementType::kSI64;
  counts.dims = {3};
  int64_t c[3] = {static_cast<int64_t>(p.status.code()), static_cast<int64_t>(p.results.size()),
                  static_cast<int64_t>(p.check_failures.size())};
  counts.data.resize(sizeof c);
  std::memcpy(counts.data.data(), c, sizeof c);
  out.push_back(std::move(counts));
  out.push_back(Bytes(p.status.message()));
  for (const auto& f : p.check_failures) out.push_back(Bytes(f));
  for (const auto& r : p.results) out.push_back(r);
  return out;
}

StatusOr<GridProcessResult> FromReport(const std::vector<HostTensor>& in) {
  GridProcessResult p;
  if (in.size() < 2 || in[0].data.size() != 3 * sizeof(int64_t)) return DataLoss("a malformed process report");
  int64_t c[3];
  std::memcpy(c, in[0].data.data(), sizeof c);
  if (c[1] < 0 || c[2] < 0 || in.size() != static_cast<size_t>(2 + c[1] + c[2]))
    return DataLoss("a malformed process report");
  if (c[0] != 0) p.status = Status(static_cast<StatusCode>(c[0]), Text(in[1]));
  for (int64_t i = 0; i < c[2]; ++i) p.check_failures.push_back(Text(in[2 + i]));
  for (int64_t i = 0; i < c[1]; ++i) p.results.push_back(in[2 + c[2] + i]);
  return p;
}

}  // namespace

Status RunGridOverMpi(MpiSession& session, const std::shared_ptr<const LoadedModule>& module, hal::Device* device,
                      const GridRun& run, GridResult* out) {
  const uint32_t n = run.num_replicas * run.num_partitions;
  if (n != static_cast<uint32_t>(session.size()))
    return InvalidArgument("a process grid of " + std::to_string(run.num_replicas) + "x" +
                           std::to_string(run.num_partitions) + " needs exactly " + std::to_string(n) +
                           " MPI ranks (mpirun -np " + std::to_string(n) + "), this run has " +
                           std::to_string(session.size()));
  const uint32_t id = static_cast<uint32_t>(session.rank());
  auto env = std::make_shared<GridEnvironment>();
  env->num_replicas = run.num_replicas;
  env->num_partitions = run.num_partitions;
  env->timeout = run.timeout;
  env->transport = CreateMpiTransport(run.num_replicas, run.num_partitions);
  for (const auto& t : run.infeed) env->infeed.Push(t);

  GridProcessResult mine;
  auto context = Context::Create(module, device);
  if (!context.ok()) {
    mine.status = context.status();
  } else {
    InvokeOptions opts;
    opts.replica_id = id / run.num_partitions;
    opts.partition_id = id % run.num_partitions;
    opts.grid = env;
    opts.collective_timeout = run.timeout;
    opts.timeout = run.call_timeout;
    opts.allow_private = run.allow_private;
    opts.print = run.print;
    auto r = (*context)->Invoke(run.functions[id], run.inputs[id], opts);
    if (r.ok()) mine.results = std::move(r.value());
    else mine.status = r.status();
    mine.check_failures = (*context)->check_failures();
  }
  env->transport->ProcessDone(id, mine.status);
  for (const auto& r : mine.results)
    if (r.is_tuple) return Unimplemented("returning a tuple from a grid process under MPI is not supported yet");
  KILN_ASSIGN_OR_RETURN(auto all, session.AllGather(std::make_shared<std::vector<HostTensor>>(Report(mine)), run.timeout));
  out->processes.clear();
  for (const auto& p : all) {
    KILN_ASSIGN_OR_RETURN(GridProcessResult r, FromReport(*p));
    out->processes.push_back(std::move(r));
  }
  out->outfeed = env->outfeed.Drain();
  return Status::Ok();
}

}  // namespace kiln::vm

#include "tools/common/distributed.h"

#include <cstdlib>

#include "vm/collectives/grid.h"
#ifdef KILN_HAVE_MPI
#include "vm/collectives/mpi/mpi_transport.h"
#endif

namespace kiln::tools {

struct Distributed::Impl {
#ifdef KILN_HAVE_MPI
  std::unique_ptr<vm::MpiSession> session;
#endif
};

Distributed::~Distributed() = default;

StatusOr<std::unique_ptr<Distributed>> Distributed::Start(int* argc, char*** argv) {
  std::unique_ptr<Distributed> d(new Distributed());
  d->impl_ = std::make_unique<Impl>();
#ifdef KILN_HAVE_MPI
  if (vm::MpiSession::LaunchedByMpirun()) {
    KILN_ASSIGN_OR_RETURN(d->impl_->session, vm::MpiSession::Init(argc, argv));
    d->rank_ = d->impl_->session->rank();
    d->size_ = d->impl_->session->size();
  }
#else
  (void)argc;
  (void)argv;
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* s = std::getenv(v); s && std::atoi(s) > 1)
      return Unimplemented("started by mpirun with " + std::string(s) +
                           " ranks, but this build has no MPI support (install libopenmpi-dev and rebuild)");
#endif
  return d;
}

std::shared_ptr<vm::CollectiveTransport> Distributed::Transport(uint32_t replicas, uint32_t partitions) {
#ifdef KILN_HAVE_MPI
  return vm::CreateMpiTransport(replicas, partitions);
#else
  (void)replicas;
  (void)partitions;
  return nullptr;
#endif
}

std::function<Status(const std::shared_ptr<const vm::LoadedModule>&, const vm::GridRun&, vm::GridResult*)>
Distributed::GridRunner(hal::Device* device) {
  if (!active()) return nullptr;
#ifdef KILN_HAVE_MPI
  vm::MpiSession* s = impl_->session.get();
  return [s, device](const std::shared_ptr<const vm::LoadedModule>& m, const vm::GridRun& run, vm::GridResult* out) {
    return vm::RunGridOverMpi(*s, m, device, run, out);
  };
#else
  (void)device;
  return nullptr;
#endif
}

StatusOr<std::vector<std::string>> Distributed::Gather(const std::string& mine, std::chrono::milliseconds timeout) {
  if (!active()) return std::vector<std::string>{mine};
#ifdef KILN_HAVE_MPI
  vm::HostTensor t;
  t.type = ElementType::kUI8;
  t.dims = {static_cast<int64_t>(mine.size())};
  t.data.assign(mine.begin(), mine.end());
  KILN_ASSIGN_OR_RETURN(auto all, impl_->session->AllGather(std::make_shared<std::vector<vm::HostTensor>>(
                                                                 std::vector<vm::HostTensor>{t}),
                                                             timeout));
  std::vector<std::string> out;
  for (const auto& p : all) {
    if (p->size() != 1) return DataLoss("a malformed gathered string");
    out.emplace_back((*p)[0].data.begin(), (*p)[0].data.end());
  }
  return out;
#else
  (void)timeout;
  return Unimplemented("no MPI support");
#endif
}

}  // namespace kiln::tools

// The in-process grid runner (see grid.h).
#include "vm/collectives/grid.h"

#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>

#include "vm/collectives/collectives_local.h"

namespace kiln::vm {

Status GridResult::FirstError(uint32_t num_partitions) const {
  // Prefer a root cause over the errors of peers that only waited for it
  // (those are FailedPrecondition: "process X failed: ...").
  int first = -1;
  for (size_t k = 0; k < processes.size(); ++k) {
    const Status& s = processes[k].status;
    if (s.ok()) continue;
    if (first < 0 || (processes[first].status.code() == StatusCode::kFailedPrecondition &&
                      s.code() != StatusCode::kFailedPrecondition))
      first = static_cast<int>(k);
  }
  if (first < 0) return Status::Ok();
  const Status& s = processes[first].status;
  return Status(s.code(), "process " + ProcessName(static_cast<uint32_t>(first), num_partitions) + ": " + s.message());
}

StatusOr<GridResult> RunGrid(const std::shared_ptr<const LoadedModule>& module, hal::Device* device,
                             const GridRun& run) {
  const uint32_t n = run.num_replicas * run.num_partitions;
  if (run.num_replicas == 0 || run.num_partitions == 0 || n > 4096)
    return InvalidArgument("invalid process grid " + std::to_string(run.num_replicas) + "x" +
                           std::to_string(run.num_partitions));
  if (run.functions.size() != n || run.inputs.size() != n)
    return Internal("grid of " + std::to_string(n) + " processes with " + std::to_string(run.functions.size()) +
                    " functions and " + std::to_string(run.inputs.size()) + " input lists");
  auto env = std::make_shared<GridEnvironment>();
  env->num_replicas = run.num_replicas;
  env->num_partitions = run.num_partitions;
  env->timeout = run.timeout;
  env->transport = run.transport ? run.transport
                                 : std::make_shared<InProcessTransport>(run.num_replicas, run.num_partitions);
  for (const auto& t : run.infeed) env->infeed.Push(t);

  // Contexts are created up front (on this thread), so a module that cannot
  // be instantiated fails before any thread starts.
  std::vector<std::unique_ptr<Context>> contexts;
  for (uint32_t i = 0; i < n; ++i) {
    KILN_ASSIGN_OR_RETURN(auto c, Context::Create(module, device));
    contexts.push_back(std::move(c));
  }
  std::mutex print_mu;
  GridResult result;
  result.processes.resize(n);
  auto body = [&](uint32_t id) {
    InvokeOptions opts;
    opts.replica_id = id / run.num_partitions;
    opts.partition_id = id % run.num_partitions;
    opts.grid = env;
    opts.collective_timeout = run.timeout;
    opts.timeout = run.call_timeout;
    opts.allow_private = run.allow_private;
    opts.print = [&](const std::string& text) {
      std::lock_guard<std::mutex> l(print_mu);
      if (run.print) run.print(text);
      else std::printf("%s\n", text.c_str());
    };
    auto r = contexts[id]->Invoke(run.functions[id], run.inputs[id], opts);
    GridProcessResult& out = result.processes[id];
    if (r.ok()) out.results = std::move(r.value());
    else out.status = r.status();
    out.check_failures = contexts[id]->check_failures();
    env->transport->ProcessDone(id, out.status);
  };
  // Every process's thread is started before any process runs: a thread
  // that cannot be started (the system's thread or memory limit) then
  // fails the run with a message, instead of leaving the started processes
  // waiting on collectives with peers that never run.
  std::mutex gate_mu;
  std::condition_variable gate_cv;
  enum class Gate { kWait, kGo, kAbort } gate = Gate::kWait;
  auto gated = [&](uint32_t id) {
    {
      std::unique_lock<std::mutex> l(gate_mu);
      gate_cv.wait(l, [&] { return gate != Gate::kWait; });
      if (gate == Gate::kAbort) return;
    }
    body(id);
  };
  std::vector<std::thread> threads;
  Status started;
  try {
    threads.reserve(n - 1);
    for (uint32_t i = 1; i < n; ++i) threads.emplace_back(gated, i);
  } catch (const std::exception& e) {
    started = ResourceExhausted("could not start the thread of process " +
                                ProcessName(static_cast<uint32_t>(threads.size() + 1), run.num_partitions) + " of a " +
                                std::to_string(run.num_replicas) + "x" + std::to_string(run.num_partitions) +
                                " process grid: " + e.what());
  }
  {
    std::lock_guard<std::mutex> l(gate_mu);
    gate = started.ok() ? Gate::kGo : Gate::kAbort;
  }
  gate_cv.notify_all();
  if (started.ok()) body(0);  // process (0, 0) runs on the calling thread
  for (auto& t : threads) t.join();
  if (!started.ok()) return started;
  result.outfeed = env->outfeed.Drain();
  return result;
}

}  // namespace kiln::vm

// The CPU device: buffers in host memory, kernels from kernels/ run on the
// host. Two execution modes, so nothing above the HAL comes to rely on
// synchronous execution:
//  - inline: Submit waits for its wait points and runs the commands at once;
//  - deferred: Submit queues the work; a queue thread runs it in order once
//    its wait points are reached.
#pragma once
#include <memory>

#include "hal/cpu/thread_pool.h"
#include "hal/hal.h"

namespace kiln::hal {

enum class CpuMode { kInline, kDeferred };

// `threads`: the size of the kernel thread pool, the executing thread
// included (vm-run --threads=N); <= 0 means the default: KILN_THREADS when
// set, else one per core (ThreadPool::ResolveThreads). A thread that cannot
// be started, or an invalid KILN_THREADS, leaves the device working on the
// calling thread alone (inline); tests and benchmarks use this form.
std::unique_ptr<Device> CreateCpuDevice(CpuMode mode, int threads = 0);
// The same, but a thread count above ThreadPool::kMaxThreads (1024), an
// invalid KILN_THREADS or a thread that cannot be started is an error naming
// it. CreateDeviceByName (the tools, the C API) uses this form.
StatusOr<std::unique_ptr<Device>> CreateCheckedCpuDevice(CpuMode mode, int threads = 0);
// The same with the pool's spin policy and CPU affinity (hal/cpu/thread_pool.h).
StatusOr<std::unique_ptr<Device>> CreateCheckedCpuDevice(CpuMode mode, const ThreadPoolOptions& options);

// The mode from the environment variable KILN_CPU_MODE ("inline" or
// "deferred"); inline when unset. Tests run the whole suite in both.
CpuMode CpuModeFromEnvironment();

}  // namespace kiln::hal

// The CPU device (hal/cpu/cpu_device.h): pooled host buffers, kernels from
// the CPU and reference registries, inline or queued execution.
#include "hal/cpu/cpu_device.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <string_view>
#include <span>
#include <thread>

#include "hal/cpu/break_kernel.h"
#include "hal/cpu/buffer_pool.h"
#include "hal/cpu/thread_pool.h"
#include "hal/host_semaphore.h"
#include "hal/recorded_command_buffer.h"
#include "kernels/common/kernel_selection.h"
#include "kernels/common/user_ops.h"
#include "kernels/cpu/registry.h"
#include "kernels/common/user_ops.h"
#include "kernels/reference/registry.h"

namespace kiln::hal {
namespace {

// Blocks released by dead buffers that the device keeps for reuse.
constexpr size_t kMaxCachedBytes = size_t{512} << 20;

// KILN_CPU_POISON=1: unfilled buffers (dispatch outputs) start as 0xff
// bytes, a NaN in every float type, instead of whatever they held (a test
// mode: see BufferPool).
int PoisonFromEnvironment() {
  const char* p = std::getenv("KILN_CPU_POISON");
  return p && std::string_view(p) == "1" ? 0xff : -1;
}

// KILN_KERNEL_STATE=0: executables keep nothing between dispatches (every
// dispatch plans its kernel and packs its weights afresh), for comparing
// the two paths in benchmarks and tests (docs/kernels.md).
bool KernelStateFromEnvironment() {
  const char* p = std::getenv("KILN_KERNEL_STATE");
  return !(p && std::string_view(p) == "0");
}

class CpuBuffer final : public Buffer {
 public:
  CpuBuffer(std::shared_ptr<BufferPool> pool, size_t size, const void* init, BufferPool::Fill fill)
      : pool_(std::move(pool)), size_(size) {
    data_ = pool_->Acquire(size, &capacity_, init, fill);
  }
  // Host memory the caller owns (Device::WrapHostMemory); only ever read.
  CpuBuffer(const void* host, size_t size) : size_(size), data_(static_cast<uint8_t*>(const_cast<void*>(host))) {}
  ~CpuBuffer() override {
    if (pool_) pool_->Release(data_, capacity_);
  }
  size_t size() const override { return size_; }
  bool read_only() const override { return !pool_; }
  uint8_t* data() const { return data_; }
  uint8_t* host_address() const override { return data_; }

 private:
  std::shared_ptr<BufferPool> pool_;  // outlives the device if this buffer does; null for host memory
  size_t size_;
  size_t capacity_ = 0;
  uint8_t* data_;
};

// A prepared kernel and what it keeps between its dispatches (plans, packed
// constant operands: kernels/common/kernel_state.h).
class CpuExecutable final : public Executable {
 public:
  CpuExecutable(std::shared_ptr<const KernelParams> p, KernelFn fn, std::shared_ptr<std::atomic<int64_t>> bytes)
      : params_(std::move(p)), fn_(fn), state_(std::move(bytes)) {}
  const std::string& name() const override { return params_->kernel; }
  const KernelParams& params() const { return *params_; }
  KernelFn fn() const { return fn_; }
  KernelState* state() const { return use_state_ ? &state_ : nullptr; }
  bool broken_for_test() const { return broken_for_test_; }

 private:
  std::shared_ptr<const KernelParams> params_;
  KernelFn fn_;
  mutable KernelState state_;  // locks itself: dispatches may run on several threads
  bool use_state_ = KernelStateFromEnvironment();
  bool broken_for_test_ = KernelBrokenForTest(params_->kernel);  // KILN_TEST_BREAK_KERNEL
};

TensorRef ToTensorRef(const BufferView& v) {
  auto* b = static_cast<CpuBuffer*>(v.buffer.get());
  return TensorRef{v.type, std::span<const int64_t>(v.dims), b->data() + v.offset, v.ByteSize(), b->constant_id()};
}

Status RunCommand(const RecordedCommand& c, TaskRunner* pool) {
  KILN_RETURN_IF_ERROR(CheckCommand(c, ViewLimits{}));  // host memory: no limit beyond the buffer
  if (c.is_copy()) {
    const BufferView &s = c.inputs[0], &t = c.outputs[0];
    std::memmove(ToTensorRef(t).data, ToTensorRef(s).data, s.ByteSize());
    return Status::Ok();
  }
  // The kernel's tensors: on the stack for the common few (no allocation
  // per dispatch), else on the heap.
  constexpr size_t kInline = 8;
  TensorRef in_inline[kInline], out_inline[kInline];
  std::vector<TensorRef> in_heap, out_heap;
  auto refs = [](const std::vector<BufferView>& views, TensorRef* fixed, std::vector<TensorRef>* heap) {
    TensorRef* to = fixed;
    if (views.size() > kInline) {
      heap->resize(views.size());
      to = heap->data();
    }
    for (size_t i = 0; i < views.size(); ++i) to[i] = ToTensorRef(views[i]);
    return std::span<const TensorRef>(to, views.size());
  };
  const std::span<const TensorRef> in = refs(c.inputs, in_inline, &in_heap);
  const std::span<const TensorRef> out = refs(c.outputs, out_inline, &out_heap);
  auto* e = static_cast<CpuExecutable*>(c.executable.get());
  Status s = e->fn()(KernelCall{e->params(), in, out, pool, /*without_epilogue=*/false, e->state()});
  if (!s.ok()) {
    // Kernels name their op themselves ("stablehlo.pad: ..."); add the name
    // only to a message that lacks it, so that it never appears twice.
    const std::string& name = e->params().kernel;
    if (s.message().rfind(name + ":", 0) == 0) return s;
    return Status(s.code(), name + ": " + s.message());
  }
  if (e->broken_for_test()) BreakOutputsForTest(out);
  return Status::Ok();
}

struct Submission {
  std::unique_ptr<CommandBuffer> commands;
  std::vector<SemaphorePoint> waits;
  SemaphorePoint signal;
};

class CpuDevice final : public Device {
 public:
  CpuDevice(CpuMode mode, const ThreadPoolOptions& threads) : mode_(mode), pool_(threads) {
    start_status_ = pool_.start_status();
    buffers_->set_gate(gate_);
    if (mode_ == CpuMode::kDeferred) {
      try {
        queue_thread_ = std::thread([this] { QueueLoop(); });
      } catch (const std::exception& e) {
        // Without its queue thread the device runs submissions inline, so
        // nothing waits on a thread that does not exist.
        mode_ = CpuMode::kInline;
        if (start_status_.ok())
          start_status_ = ResourceExhausted(std::string("could not start the CPU device's queue thread: ") + e.what());
      }
    }
  }
  // Why a thread the device asked for could not be started (OK if all did).
  const Status& start_status() const { return start_status_; }
  ~CpuDevice() override {
    if (queue_thread_.joinable()) {
      {
        std::lock_guard<std::mutex> l(mu_);
        stopping_ = true;
      }
      cv_.notify_all();
      queue_thread_.join();
    }
  }
  // With the pool's size, so `vm-check --stats` and vm-bench show the
  // threads a run really had (--threads, else KILN_THREADS, else the cores).
  std::string name() const override {
    const int n = pool_.num_workers();
    return std::string(mode_ == CpuMode::kInline ? "cpu (inline, " : "cpu (deferred, ") + std::to_string(n) +
           (n == 1 ? " thread)" : " threads)");
  }
  StatusOr<std::shared_ptr<Buffer>> Allocate(size_t bytes) override { return NewBuffer(bytes, nullptr); }
  StatusOr<std::shared_ptr<Buffer>> AllocateUninitialized(size_t bytes) override {
    return NewBuffer(bytes, nullptr, BufferPool::Fill::kNone);
  }
  StatusOr<std::shared_ptr<Buffer>> AllocateCopy(const void* data, size_t bytes) override {
    if (bytes) transfers_.CountUpload(bytes);
    return NewBuffer(bytes, data);
  }
  StatusOr<std::shared_ptr<Buffer>> WrapHostMemory(const void* data, size_t bytes) override {
    if (bytes == 0) return NewBuffer(0, nullptr);  // a valid pointer even for an empty tensor
    return std::shared_ptr<Buffer>(std::make_shared<CpuBuffer>(data, bytes));
  }
  Status Upload(const Buffer& b, size_t offset, const void* data, size_t bytes) override {
    KILN_RETURN_IF_ERROR(CheckTransferRange(b, offset, bytes, "upload"));
    if (b.read_only() || b.constant_id() != 0) return InvalidArgument("upload into read-only memory (a module constant or a call's argument)");
    if (bytes) {
      transfers_.CountUpload(bytes);
      std::memcpy(static_cast<const CpuBuffer&>(b).data() + offset, data, bytes);
    }
    return Status::Ok();
  }
  Status Download(const Buffer& b, size_t offset, void* data, size_t bytes) override {
    KILN_RETURN_IF_ERROR(CheckTransferRange(b, offset, bytes, "download"));
    if (bytes) {
      transfers_.CountDownload(bytes);
      std::memcpy(data, static_cast<const CpuBuffer&>(b).data() + offset, bytes);
    }
    return Status::Ok();
  }
  StatusOr<std::shared_ptr<Executable>> PrepareExecutable(const ExecutableSpec& spec) override {
    auto kernel = spec.Find<KernelParams>(kKernelFormat);
    if (!kernel) return spec.Missing(kKernelFormat, "the CPU device");
    const KernelParams& params = *kernel;
    // A fast kernel where one applies (it falls back to the reference kernel
    // per dispatch for types and shapes it does not handle), else the reference.
    KernelFn fn = cpu::FindCpuKernel(params);
    if (!fn) fn = ref::FindReferenceKernel(params.kernel);
    if (!fn)
      return Unimplemented("the CPU device has no kernel '" + params.kernel + "'" +
                           (KILN_SELECTIVE_BUILD ? " (this runtime is a selective build without it: KILN_KERNELS)" : ""));
    // A user op's host function must be registered before a session of its
    // module is made (kernels/common/user_ops.h).
    if (params.kernel == KernelName(KernelId::kCustomCall) && !FindUserOp(UserOpTarget(params)))
      return NotFound("the module calls custom_call @" + std::string(UserOpTarget(params)) +
                      ", which no host function is registered for (kiln_register_custom_call before creating the "
                      "session)");
    // A row block runs its units through their reference kernels where the
    // fast kernel does not apply: a build lacking one is refused here, at
    // load, rather than at some later call's shape.
    if (params.kernel == KernelName(KernelId::kRowBlock)) {
      for (const KernelAttr& a : params.attrs) {
        const size_t dot = a.name.find('.');
        if (dot == std::string::npos || a.name.compare(dot, std::string::npos, ".kernel") != 0) continue;
        if (!ref::FindReferenceKernel(a.str))
          return Unimplemented("the CPU device has no kernel '" + a.str + "', which a " + params.kernel +
                               " unit needs" +
                               (KILN_SELECTIVE_BUILD ? " (this runtime is a selective build without it: KILN_KERNELS)" : ""));
      }
    }
    return std::shared_ptr<Executable>(std::make_shared<CpuExecutable>(std::move(kernel), fn, state_bytes_));
  }
  // Command buffers are reused: one that has run goes back to a small free
  // list with its storage (RecordedCommandBuffer::Reset), so a call records
  // its dispatches without allocating.
  std::unique_ptr<CommandBuffer> CreateCommandBuffer() override {
    {
      std::lock_guard<std::mutex> l(free_mu_);
      if (!free_commands_.empty()) {
        std::unique_ptr<CommandBuffer> c = std::move(free_commands_.back());
        free_commands_.pop_back();
        return c;
      }
    }
    return std::make_unique<RecordedCommandBuffer>();
  }
  std::shared_ptr<Semaphore> CreateSemaphore(uint64_t v) override {
    return std::make_shared<HostSemaphore>(v, "the device");
  }
  Status Submit(std::unique_ptr<CommandBuffer> commands, std::vector<SemaphorePoint> waits,
                SemaphorePoint signal) override {
    if (!signal.semaphore) return InvalidArgument("submission without a signal semaphore");
    Submission sub{std::move(commands), std::move(waits), std::move(signal)};
    if (mode_ == CpuMode::kInline) {
      Execute(sub);
      return Status::Ok();
    }
    {
      std::lock_guard<std::mutex> l(mu_);
      queue_.push_back(std::move(sub));
    }
    cv_.notify_all();
    return Status::Ok();
  }
  bool SetDispatchObserver(std::shared_ptr<DispatchObserver> observer) override {
    has_observer_.store(observer != nullptr, std::memory_order_relaxed);
    std::atomic_store(&observer_, std::move(observer));
    return true;
  }
  DeviceStats stats() const override {
    DeviceStats s;
    {
      std::lock_guard<std::mutex> l(stats_mu_);
      s = stats_;
    }
    s.live_bytes = buffers_->live_bytes();
    s.peak_live_bytes = buffers_->peak_live_bytes();
    s.kernel_state_bytes = static_cast<uint64_t>(std::max<int64_t>(0, state_bytes_->load()));
    return s;
  }

 private:
  // RunCommand, with an exception from a kernel (std::bad_alloc from its
  // scratch memory, rethrown here from whichever pool thread ran the tile)
  // turned into a status: the submission's semaphore then fails as for any
  // failed dispatch, instead of never being signalled (a hang) or the
  // exception ending the queue thread (std::terminate).
  Status RunCommandCaught(const RecordedCommand& c) {
    try {
      return RunCommand(c, &pool_);
    } catch (const std::bad_alloc&) {
      return ResourceExhausted((c.executable ? c.executable->name() : std::string("a copy")) +
                               ": out of host memory in the kernel");
    } catch (const std::exception& e) {
      return Internal(std::string("a kernel threw: ") + e.what());
    }
  }
  // Runs a submission and signals or fails its semaphore, whatever happens:
  // memory running out anywhere in it (a status's text, the semaphore's
  // bookkeeping) fails the submission rather than leaving it unsignalled
  // (the caller would wait forever) or ending the queue thread.
  void Execute(Submission& sub) {
    try {
      ExecuteUnguarded(sub);
    } catch (const std::exception& e) {
      const bool oom = dynamic_cast<const std::bad_alloc*>(&e) != nullptr;
      try {
        sub.signal.semaphore->Fail(oom ? ResourceExhausted("out of host memory running a submission")
                                       : Internal(std::string("a submission threw: ") + e.what()));
      } catch (...) {
      }
    }
  }
  void ExecuteUnguarded(Submission& sub) {
    if (Status s = WaitForAll(sub.waits); !s.ok()) {
      sub.signal.semaphore->Fail(s);
      return;
    }
    const auto& cmds = static_cast<const RecordedCommandBuffer&>(*sub.commands).commands();
    uint64_t dispatches = 0;
    // Off, one relaxed load per submission; on, the observer stays alive
    // for the submission even if it is replaced meanwhile.
    const std::shared_ptr<DispatchObserver> observer =
        has_observer_.load(std::memory_order_relaxed) ? std::atomic_load(&observer_) : nullptr;
    for (const auto& c : cmds) {
      DispatchSpan span;
      if (observer && !c.is_copy()) {
        // The inputs as the dispatch reads them (one that writes in place
        // overwrites them): vm-run --compare-with copies them here.
        span.executable = c.executable.get();
        span.tag = c.tag;
        span.inputs = &c.inputs;
        span.outputs = &c.outputs;
        observer->BeforeDispatch(span);
      }
      if (observer && !c.is_copy()) span.begin = std::chrono::steady_clock::now();
      Status s = RunCommandCaught(c);
      if (observer && !c.is_copy() && s.ok()) {
        span.end = std::chrono::steady_clock::now();
        span.executable = c.executable.get();
        span.tag = c.tag;
        span.inputs = &c.inputs;
        span.outputs = &c.outputs;
        observer->OnDispatch(span);
      }
      if (!s.ok()) {
        sub.signal.semaphore->Fail(s);
        return;
      }
      if (!c.is_copy()) ++dispatches;
    }
    {
      std::lock_guard<std::mutex> l(stats_mu_);
      stats_.dispatches += dispatches;
      stats_.submissions += 1;
    }
    Recycle(std::move(sub.commands));  // releases buffers before signalling
    sub.signal.semaphore->Signal(sub.signal.value);
  }
  void Recycle(std::unique_ptr<CommandBuffer> commands) {
    static_cast<RecordedCommandBuffer&>(*commands).Reset();
    std::lock_guard<std::mutex> l(free_mu_);
    if (free_commands_.size() < kMaxFreeCommandBuffers) {
      try {
        free_commands_.push_back(std::move(commands));
      } catch (const std::bad_alloc&) {  // not kept for reuse: `commands` frees it
      }
    }
  }
  void QueueLoop() {
    for (;;) {
      Submission sub;
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;
        sub = std::move(queue_.front());
        queue_.pop_front();
      }
      Execute(sub);
    }
  }

  StatusOr<std::shared_ptr<Buffer>> NewBuffer(size_t bytes, const void* init,
                                              BufferPool::Fill fill = BufferPool::Fill::kZero) {
    if (bytes > (size_t{1} << 40)) return ResourceExhausted("allocation of " + std::to_string(bytes) + " bytes refused");
    try {
      return std::shared_ptr<Buffer>(std::make_shared<CpuBuffer>(buffers_, bytes, init, fill));
    } catch (const AllocationRefused& e) {
      return ResourceExhausted(e.what());
    } catch (const std::bad_alloc&) {
      return ResourceExhausted("out of memory allocating " + std::to_string(bytes) + " bytes");
    }
  }

  CpuMode mode_;
  Status start_status_;
  // Kernels split dispatches into tiles over this pool; only the thread that
  // executes submissions (the submitter inline, the queue thread deferred)
  // hands it work.
  ThreadPool pool_;
  std::shared_ptr<BufferPool> buffers_ = std::make_shared<BufferPool>(kMaxCachedBytes, PoisonFromEnvironment());
  // Bytes the executables' kernel states hold (packed weights), shared with
  // them: an executable may outlive the device's stats.
  std::shared_ptr<std::atomic<int64_t>> state_bytes_ = std::make_shared<std::atomic<int64_t>>(0);
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Submission> queue_;
  bool stopping_ = false;
  std::thread queue_thread_;
  // Command buffers that have run, for CreateCommandBuffer to hand out
  // again (a context holds one pending; deferred mode a few in flight).
  static constexpr size_t kMaxFreeCommandBuffers = 8;
  std::mutex free_mu_;
  std::vector<std::unique_ptr<CommandBuffer>> free_commands_;
  mutable std::mutex stats_mu_;
  DeviceStats stats_;
  std::shared_ptr<DispatchObserver> observer_;  // atomic_load/atomic_store
  std::atomic<bool> has_observer_{false};
};

}  // namespace

std::unique_ptr<Device> CreateCpuDevice(CpuMode mode, int threads) {
  ThreadPoolOptions options;
  options.threads = threads < 0 ? 0 : threads;
  return std::make_unique<CpuDevice>(mode, options);
}

StatusOr<std::unique_ptr<Device>> CreateCheckedCpuDevice(CpuMode mode, int threads) {
  ThreadPoolOptions options;
  options.threads = threads;
  return CreateCheckedCpuDevice(mode, options);
}

StatusOr<std::unique_ptr<Device>> CreateCheckedCpuDevice(CpuMode mode, const ThreadPoolOptions& options) {
  const int threads = options.threads;
  if (threads < 0 || threads > ThreadPool::kMaxThreads)
    return InvalidArgument("the thread count must be 0 to " + std::to_string(ThreadPool::kMaxThreads) +
                           " (0: KILN_THREADS, else one per core), not " + std::to_string(threads));
  auto device = std::make_unique<CpuDevice>(mode, options);
  if (!device->start_status().ok()) return device->start_status();
  return std::unique_ptr<Device>(std::move(device));
}

CpuMode CpuModeFromEnvironment() {
  const char* m = std::getenv("KILN_CPU_MODE");
  return m && std::string_view(m) == "deferred" ? CpuMode::kDeferred : CpuMode::kInline;
}

}  // namespace kiln::hal

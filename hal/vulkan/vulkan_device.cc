// The Vulkan device: submission and transfers. (Instance and selection:
// vulkan_instance.cc; buffers: vulkan_buffer.cc; executables, pipelines and
// grids: vulkan_executable.cc.)
//
// Memory (Core::TensorMemory, picked in vulkan_instance.cc): tensors are
// device-local. Where the host can also map them, uploads are memcpy, and so
// are downloads where the mapping is host-cached (integrated GPUs, lavapipe)
// or small; other downloads copy on the queue into a host-cached staging
// buffer. Unmapped buffers are zero-filled on the queue ahead of the next
// submission and uploaded through a staging buffer. KILN_VULKAN_MEMORY
// forces a mode, so that every path is tested on lavapipe.
//
// Submission: a HAL command buffer records commands on the host; Submit waits
// for its wait points, records one Vulkan command buffer (descriptor sets,
// one parameter buffer holding every dispatch's dimensions, barriers between
// commands), submits it with a fence and returns. A completion thread waits
// on the fence, releases the submission's resources and signals the HAL
// semaphore, so the host never assumes that work is done before it waits.
//
// Profiling (hal/trace.h): with a dispatch observer, each dispatch is
// bracketed by two timestamp queries (where the device has them:
// timestampComputeAndGraphics), read back once the fence has signalled and
// reported from the completion thread. The durations are the device's;
// the spans are placed on the host clock by taking the first timestamp of
// a submission as the moment it was submitted (the queue may start it later,
// so a span can sit a little early, never outside its call). Off, one
// relaxed load per submission.
#include <algorithm>
#include <new>
#include <atomic>
#include <chrono>
#include <bit>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "hal/host_semaphore.h"
#include "hal/recorded_command_buffer.h"
#include "hal/vulkan/vulkan_buffer.h"
#include "hal/vulkan/vulkan_core.h"
#include "hal/vulkan/vulkan_executable.h"

namespace kiln::hal::vk {
namespace {

// Shaders index elements and bytes with 32-bit integers.
const ViewLimits kVulkanViewLimits{
    UINT32_MAX, uint64_t{1} << 31, "has more than 2^31 elements, the Vulkan device's limit",
    UINT32_MAX, "spans more than 4 GiB, the Vulkan device's addressing limit"};

// What a submission owns until its fence has signalled. The Vulkan objects
// (pool, command buffers, fence, descriptor pool, parameter buffer) are
// created on first use and recycled for later submissions (Recycle), since
// creating and freeing them per submission cost about a millisecond a call
// on a discrete GPU's driver.
struct InFlight {
  VkFence fence = VK_NULL_HANDLE;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkDescriptorPool descriptors = VK_NULL_HANDLE;
  uint32_t descriptor_sets_cap = 0, descriptors_cap = 0;  // what `descriptors` holds
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkCommandBuffer fill_cmd = VK_NULL_HANDLE;  // zero-fills, submitted before cmd when has_fills
  bool has_fills = false;
  std::vector<std::shared_ptr<VulkanBuffer>> filled;  // the buffers it fills
  std::shared_ptr<VulkanBuffer> params;               // may be larger than this submission needs
  std::unique_ptr<CommandBuffer> commands;  // keeps the buffers alive
  SemaphorePoint signal;
  uint64_t dispatches = 0;
  // Profiling: the observer this submission reports to, its timestamp
  // queries (two per dispatch: before and after; kept across recycling,
  // grown as needed), which command each pair times, and when it was
  // submitted.
  std::shared_ptr<DispatchObserver> observer;
  VkQueryPool queries = VK_NULL_HANDLE;
  uint32_t queries_cap = 0;
  std::vector<uint32_t> timed;
  std::chrono::steady_clock::time_point submitted;
};

class VulkanDevice final : public Device {
 public:
  explicit VulkanDevice(std::shared_ptr<Core> core) : core_(std::move(core)) {
    core_->gate = gate_;
    // Room for every kept frame, so that Recycle never allocates (and never
    // drops a frame's Vulkan objects on a failed allocation).
    free_frames_.reserve(kKeptFrames);
    completion_ = std::thread([this] { CompletionLoop(); });
  }
  ~VulkanDevice() override {
    {
      std::lock_guard<std::mutex> l(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    completion_.join();
    for (auto& f : free_frames_) Release(*f);
  }
  std::string name() const override { return std::string("vulkan (") + core_->props.deviceName + ")"; }

  StatusOr<std::shared_ptr<Buffer>> Allocate(size_t bytes) override {
    if (core_->faults.lost()) return DeviceLost("allocating a buffer");
    if (bytes > (size_t{1} << 40)) return ResourceExhausted("allocation of " + std::to_string(bytes) + " bytes refused");
    auto b = std::make_shared<VulkanBuffer>(core_, bytes);
    const bool mapped = core_->tensor_memory != Core::TensorMemory::kStaging;
    KILN_RETURN_IF_ERROR(b->Init(core_->device_memory_type, mapped, /*counted=*/true, /*texel_view=*/true));
    if (!mapped) {
      // Device-local memory is zero-filled on the queue, ahead of the next
      // submission (QueueSubmit), so an allocation costs no round trip.
      std::lock_guard<std::mutex> l(fills_mu_);
      pending_fills_.push_back(b);
    }
    return std::shared_ptr<Buffer>(std::move(b));
  }

  Status Upload(const Buffer& b, size_t offset, const void* data, size_t bytes) override {
    KILN_RETURN_IF_ERROR(CheckTransferRange(b, offset, bytes, "upload"));
    if (core_->faults.lost()) return DeviceLost("uploading to a buffer");
    if (!bytes) return Status::Ok();
    transfers_.CountUpload(bytes);
    auto& vb = static_cast<const VulkanBuffer&>(b);
    if (vb.mapped()) {
      std::memcpy(vb.mapped() + offset, data, bytes);
      return Status::Ok();
    }
    std::lock_guard<std::mutex> l(upload_staging_.mu);
    KILN_ASSIGN_OR_RETURN(auto staging, Staging(upload_staging_, bytes, core_->host_memory_type));
    std::memcpy(staging->mapped(), data, bytes);
    return Transfer(staging->handle(), 0, vb.handle(), offset, bytes);
  }

  Status Download(const Buffer& b, size_t offset, void* data, size_t bytes) override {
    KILN_RETURN_IF_ERROR(CheckTransferRange(b, offset, bytes, "download"));
    // A lost device's memory holds nothing to trust.
    if (core_->faults.lost()) return DeviceLost("reading a buffer");
    if (!bytes) return Status::Ok();
    transfers_.CountDownload(bytes);
    auto& vb = static_cast<const VulkanBuffer&>(b);
    if (vb.mapped() && (core_->tensor_memory == Core::TensorMemory::kUnified || bytes <= Core::kDirectReadBytes)) {
      std::memcpy(data, vb.mapped() + offset, bytes);
      return Status::Ok();
    }
    std::lock_guard<std::mutex> l(readback_staging_.mu);
    KILN_ASSIGN_OR_RETURN(auto staging, Staging(readback_staging_, bytes, core_->readback_memory_type));
    KILN_RETURN_IF_ERROR(Transfer(vb.handle(), offset, staging->handle(), 0, bytes));
    std::memcpy(data, staging->mapped(), bytes);
    return Status::Ok();
  }

  StatusOr<std::shared_ptr<Executable>> PrepareExecutable(const ExecutableSpec& spec) override {
    if (core_->faults.lost()) return DeviceLost("preparing an executable");
    return PrepareVulkanExecutable(*core_, spec);
  }

  std::unique_ptr<CommandBuffer> CreateCommandBuffer() override { return std::make_unique<RecordedCommandBuffer>(); }
  std::shared_ptr<Semaphore> CreateSemaphore(uint64_t v) override {
    return std::make_shared<HostSemaphore>(v, "the Vulkan device");
  }

  Status Submit(std::unique_ptr<CommandBuffer> commands, std::vector<SemaphorePoint> waits,
                SemaphorePoint signal) override {
    if (!signal.semaphore) return InvalidArgument("submission without a signal semaphore");
    if (Status s = WaitForAll(HostWaits(std::move(waits))); !s.ok()) {
      signal.semaphore->Fail(s);
      return Status::Ok();
    }
    auto flight = TakeFrame();
    flight->commands = std::move(commands);
    flight->signal = signal;
    Status s;
    try {
      s = Record(*flight);
    } catch (...) {  // out of host memory while recording: nothing reached the queue
      Release(*flight);
      throw;
    }
    if (!s.ok()) {
      Recycle(std::move(flight), /*reusable=*/false);
      signal.semaphore->Fail(s);
      return Status::Ok();
    }
    bool queued = false;
    {
      std::lock_guard<std::mutex> l(mu_);
      try {
        in_flight_.push_back(std::move(flight));  // on failure `flight` is left as it was
        queued = true;
      } catch (const std::bad_alloc&) {
      }
    }
    if (!queued) {
      // On the queue, but the completion thread cannot take it: wait for it
      // here, release it and fail its semaphore, so that no waiter hangs.
      vkWaitForFences(core_->device, 1, &flight->fence, VK_TRUE, UINT64_MAX);
      Release(*flight);
      signal.semaphore->Fail(ResourceExhausted("out of host memory queueing a Vulkan submission"));
      return Status::Ok();
    }
    cv_.notify_all();
    return Status::Ok();
  }

  // Dispatch timing needs timestamps on the compute queue; without them
  // the device takes no observer (the tools then record calls only).
  bool SetDispatchObserver(std::shared_ptr<DispatchObserver> observer) override {
    if (!core_->props.limits.timestampComputeAndGraphics || core_->props.limits.timestampPeriod <= 0) return false;
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
    std::lock_guard<std::mutex> l(core_->live_mu);
    s.live_bytes = core_->live_bytes;
    s.peak_live_bytes = core_->peak_live_bytes;
    return s;
  }

 private:
  // The wait points the host must wait for before submitting: a point that a
  // submission still on the queue will signal is reached in queue order
  // instead (every command buffer begins with a barrier against the work
  // before it), so a chain of submissions does not block the host.
  std::vector<SemaphorePoint> HostWaits(std::vector<SemaphorePoint> waits) {
    std::lock_guard<std::mutex> l(mu_);
    std::erase_if(waits, [&](const SemaphorePoint& w) {
      for (const auto& f : in_flight_)
        if (f->signal.semaphore == w.semaphore && f->signal.value >= w.value) return true;
      return false;
    });
    return waits;
  }

  // A staging buffer of at least `bytes`, for one blocking transfer made
  // under slot.mu. Allocating host-visible memory costs about a millisecond
  // on a discrete GPU's driver, so buffers up to kKeptStagingBytes are kept
  // for the next transfer (grown to a power of two); larger ones are not, so
  // a one-off large transfer does not hold its memory.
  static constexpr size_t kKeptStagingBytes = size_t{64} << 20;
  struct StagingSlot {
    std::mutex mu;
    std::shared_ptr<VulkanBuffer> buffer;
  };
  StatusOr<std::shared_ptr<VulkanBuffer>> Staging(StagingSlot& slot, size_t bytes, uint32_t memory_type) {
    if (slot.buffer && slot.buffer->size() >= bytes) return slot.buffer;
    size_t size = bytes;
    if (bytes <= kKeptStagingBytes) size = std::min(std::bit_ceil(std::max<size_t>(bytes, 4096)), kKeptStagingBytes);
    auto b = std::make_shared<VulkanBuffer>(core_, size);
    KILN_RETURN_IF_ERROR(b->Init(memory_type, true, /*counted=*/false));
    if (bytes <= kKeptStagingBytes) slot.buffer = b;
    return b;
  }
  StagingSlot upload_staging_, readback_staging_;
  std::mutex fills_mu_;
  std::vector<std::weak_ptr<VulkanBuffer>> pending_fills_;  // allocated, not yet zero-filled

  // A blocking buffer-to-buffer copy (the staging path of Upload/Download).
  Status Transfer(VkBuffer src, size_t src_offset, VkBuffer dst, size_t dst_offset, size_t bytes) {
    auto frame = TakeFrame();
    InFlight& f = *frame;
    Status s = [&]() -> Status {
      KILN_RETURN_IF_ERROR(BeginCommands(f));
      VkBufferCopy region{src_offset, dst_offset, bytes};
      vkCmdCopyBuffer(f.cmd, src, dst, 1, &region);
      HostBarrier(f.cmd);
      KILN_VK(vkEndCommandBuffer(f.cmd), "recording a transfer");
      KILN_RETURN_IF_ERROR(QueueSubmit(f));
      VkResult r = vkWaitForFences(core_->device, 1, &f.fence, VK_TRUE, UINT64_MAX);
      if (r == VK_ERROR_DEVICE_LOST) core_->faults.MarkLost();
      KILN_VK(r, "waiting for a transfer");
      return Status::Ok();
    }();
    Recycle(std::move(frame), s.ok());
    return s;
  }

  Status BeginCommands(InFlight& f) {
    if (!f.pool) {
      VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
      pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
      pci.queueFamilyIndex = core_->queue_family;
      KILN_VK(vkCreateCommandPool(core_->device, &pci, nullptr, &f.pool), "creating a command pool");
    }
    return BeginOneTime(f, f.cmd);
  }

  // Begins `cmd` for one submission, allocating it from f's pool the first
  // time (frames keep their command buffers across recycling).
  Status BeginOneTime(InFlight& f, VkCommandBuffer& cmd) {
    if (!cmd) {
      VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
      ai.commandPool = f.pool;
      ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
      ai.commandBufferCount = 1;
      KILN_VK(vkAllocateCommandBuffers(core_->device, &ai, &cmd), "allocating a command buffer");
    }
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    KILN_VK(vkBeginCommandBuffer(cmd, &bi), "beginning a command buffer");
    return Status::Ok();
  }

  Status QueueSubmit(InFlight& f) {
    if (!f.fence) {
      VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
      KILN_VK(vkCreateFence(core_->device, &fci, nullptr, &f.fence), "creating a fence");
    }
    std::lock_guard<std::mutex> l(core_->queue_mu);
    // The zero-fills of buffers allocated since the last submission go first,
    // taken under the queue's lock so that queue order puts them before any
    // later use of those buffers.
    KILN_RETURN_IF_ERROR(RecordPendingFills(f));
    VkCommandBuffer cmds[2];
    uint32_t n = 0;
    if (f.has_fills) cmds[n++] = f.fill_cmd;
    cmds[n++] = f.cmd;
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = n;
    si.pCommandBuffers = cmds;
    f.submitted = std::chrono::steady_clock::now();
    VkResult r = core_->faults.BeforeSubmit();
    if (r == VK_SUCCESS) r = vkQueueSubmit(core_->queue, 1, &si, f.fence);
    if (r == VK_ERROR_DEVICE_LOST) core_->faults.MarkLost();
    KILN_VK(r, "submitting to the Vulkan queue");
    return Status::Ok();
  }

  // Records vkCmdFillBuffer for every pending buffer still alive into
  // f.fill_cmd (from f's pool), keeping those buffers alive with f.
  Status RecordPendingFills(InFlight& f) {
    std::vector<std::weak_ptr<VulkanBuffer>> pending;
    {
      std::lock_guard<std::mutex> l(fills_mu_);
      pending.swap(pending_fills_);
    }
    for (auto& w : pending)
      if (auto b = w.lock()) f.filled.push_back(std::move(b));
    if (f.filled.empty()) return Status::Ok();
    Status s = [&]() -> Status {
      KILN_RETURN_IF_ERROR(BeginOneTime(f, f.fill_cmd));
      for (const auto& b : f.filled) vkCmdFillBuffer(f.fill_cmd, b->handle(), 0, VK_WHOLE_SIZE, 0);
      Barrier(f.fill_cmd);
      KILN_VK(vkEndCommandBuffer(f.fill_cmd), "recording zero-fills");
      f.has_fills = true;
      return Status::Ok();
    }();
    if (!s.ok()) {
      // Put them back for the next submission.
      std::lock_guard<std::mutex> l(fills_mu_);
      for (auto& b : f.filled) pending_fills_.push_back(b);
      f.filled.clear();
      f.has_fills = false;
    }
    return s;
  }

  // Every command sees the writes of the ones before it.
  static void Barrier(VkCommandBuffer cmd) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                       VK_ACCESS_TRANSFER_WRITE_BIT;
    VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    vkCmdPipelineBarrier(cmd, stages, stages, 0, 1, &mb, 0, nullptr, 0, nullptr);
  }
  // The host sees the results once the fence has signalled.
  static void HostBarrier(VkCommandBuffer cmd) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
  }

  struct Planned {
    const ShaderVariant* variant = nullptr;
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    size_t param_offset = 0;
    uint32_t groups[3] = {1, 1, 1};
    bool empty = false;  // nothing to compute (zero elements)
  };

  Status Record(InFlight& f) {
    const auto& cmds = static_cast<const RecordedCommandBuffer&>(*f.commands).commands();
    // Pass 1: check every command, pick its shader and pipeline, lay out the
    // parameter words of every dispatch in one buffer.
    std::vector<Planned> plan(cmds.size());
    std::vector<uint32_t> words;
    const size_t align_words =
        std::max<size_t>(1, static_cast<size_t>(core_->props.limits.minStorageBufferOffsetAlignment + 3) / 4);
    uint32_t sets = 0, descriptors = 0;
    for (size_t i = 0; i < cmds.size(); ++i) {
      const RecordedCommand& c = cmds[i];
      KILN_RETURN_IF_ERROR(CheckCommand(c, kVulkanViewLimits));
      if (c.is_copy()) continue;
      for (const auto* list : {&c.inputs, &c.outputs})
        for (const auto& v : *list)
          if (static_cast<VulkanBuffer*>(v.buffer.get())->padded() > core_->props.limits.maxStorageBufferRange)
            return Unimplemented("a tensor of " + std::to_string(v.buffer->size()) +
                                 " bytes exceeds the device's storage buffer range (" +
                                 std::to_string(core_->props.limits.maxStorageBufferRange) + " bytes)");
      auto* e = static_cast<VulkanExecutable*>(c.executable.get());
      Planned& p = plan[i];
      p.variant = e->Find(c.inputs, c.outputs);
      if (!p.variant)
        return Unimplemented(e->name() + ": the module has no Vulkan shader for " +
                             DescribeSignature(c.inputs, c.outputs));
      if (c.outputs.empty()) return InvalidArgument(e->name() + ": a dispatch without outputs");
      const BufferView& out0 = c.outputs[0];
      int64_t total = out0.NumElements();
      if (p.variant->grid_kind == ShaderGrid::kPerElement && !p.variant->grid_args.empty() &&
          p.variant->grid_args[0] == 1)
        for (const BufferView& o : c.outputs) total = std::max(total, o.NumElements());
      KILN_RETURN_IF_ERROR(GridOf(*core_, *p.variant, out0, static_cast<uint32_t>(total), p.groups, &p.empty));
      if (p.empty) continue;
      const uint32_t bindings = static_cast<uint32_t>(1 + c.inputs.size() + c.outputs.size());
      const uint32_t texels = static_cast<uint32_t>(std::popcount(p.variant->texel_inputs));
      {
        std::lock_guard<std::mutex> l(core_->pipelines_mu);
        KILN_ASSIGN_OR_RETURN(auto layout, core_->Layout(bindings, texels));
        p.set_layout = layout.first;
        p.layout = layout.second;
        KILN_ASSIGN_OR_RETURN(p.pipeline, e->Pipeline(*core_, *p.variant, p.layout));
      }
      words.resize((words.size() + align_words - 1) / align_words * align_words);
      p.param_offset = words.size() * 4;
      words.push_back(static_cast<uint32_t>(total));
      for (const auto* list : {&c.inputs, &c.outputs})
        for (const auto& v : *list) {
          words.push_back(static_cast<uint32_t>(v.offset));
          for (int64_t d : v.dims) words.push_back(static_cast<uint32_t>(d));
        }
      ++sets;
      descriptors += bindings;  // texel bindings fit in the same count: fewer than the inputs
    }
    if (sets) {
      if (!f.params || f.params->size() < words.size() * 4) {
        f.params = std::make_shared<VulkanBuffer>(core_, words.size() * 4);
      // Written once by the host, read by every dispatch: in mapped device
      // memory where tensors are mapped (host memory costs the GPU a bus
      // crossing per read and the driver a pinning per allocation).
      const bool mapped = core_->tensor_memory != Core::TensorMemory::kStaging;
        // Not counted in the live bytes: kept with the recycled frames, at most kKeptFrames.
        KILN_RETURN_IF_ERROR(f.params->Init(mapped ? core_->device_memory_type : core_->host_memory_type, true,
                                            /*counted=*/false));
      }
      std::memcpy(f.params->mapped(), words.data(), words.size() * 4);
      if (!f.descriptors || f.descriptor_sets_cap < sets || f.descriptors_cap < descriptors) {
        if (f.descriptors) vkDestroyDescriptorPool(core_->device, f.descriptors, nullptr);
        f.descriptors = VK_NULL_HANDLE;
        // Room for growth, so that a recycled pool fits most later submissions.
        const uint32_t want_sets = std::max(sets, 2 * f.descriptor_sets_cap);
        const uint32_t want_descriptors = std::max(descriptors, 2 * f.descriptors_cap);
        VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, want_descriptors},
                                         {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, want_descriptors}};
        VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        dpi.maxSets = want_sets;
        dpi.poolSizeCount = 2;
        dpi.pPoolSizes = sizes;
        KILN_VK(vkCreateDescriptorPool(core_->device, &dpi, nullptr, &f.descriptors), "creating a descriptor pool");
        f.descriptor_sets_cap = want_sets;
        f.descriptors_cap = want_descriptors;
      }
    }
    // Pass 2: descriptor sets, then the command buffer.
    std::vector<VkDescriptorSet> set_of(cmds.size(), VK_NULL_HANDLE);
    for (size_t i = 0; i < cmds.size(); ++i) {
      const Planned& p = plan[i];
      if (!p.variant || p.empty) continue;
      const RecordedCommand& c = cmds[i];
      VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
      ai.descriptorPool = f.descriptors;
      ai.descriptorSetCount = 1;
      ai.pSetLayouts = &p.set_layout;
      KILN_VK(vkAllocateDescriptorSets(core_->device, &ai, &set_of[i]), "allocating a descriptor set");
      std::vector<VkDescriptorBufferInfo> infos;
      size_t param_words = 1;
      for (const auto* list : {&c.inputs, &c.outputs})
        for (const auto& v : *list) param_words += 1 + v.dims.size();
      infos.push_back({f.params->handle(), p.param_offset, param_words * 4});
      for (const auto* list : {&c.inputs, &c.outputs})
        for (const auto& v : *list) {
          auto* b = static_cast<VulkanBuffer*>(v.buffer.get());
          infos.push_back({b->handle(), 0, VK_WHOLE_SIZE});
        }
      // Texel inputs: each buffer's view (vulkan_buffer.h), after the storage bindings.
      std::vector<VkBufferView> views;
      for (size_t j = 0; j < c.inputs.size() && j < 32; ++j)
        if (p.variant->texel_inputs & (1u << j)) {
          VkBufferView view = static_cast<VulkanBuffer*>(c.inputs[j].buffer.get())->texel_view();
          if (view == VK_NULL_HANDLE) return Internal("a Vulkan buffer without its texel view");
          views.push_back(view);
        }
      std::vector<VkWriteDescriptorSet> writes(infos.size() + views.size());
      for (size_t k = 0; k < writes.size(); ++k) {
        writes[k] = VkWriteDescriptorSet{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[k].dstSet = set_of[i];
        writes[k].dstBinding = static_cast<uint32_t>(k);
        writes[k].descriptorCount = 1;
        if (k < infos.size()) {
          writes[k].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
          writes[k].pBufferInfo = &infos[k];
        } else {
          writes[k].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
          writes[k].pTexelBufferView = &views[k - infos.size()];
        }
      }
      vkUpdateDescriptorSets(core_->device, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
    }
    f.observer = has_observer_.load(std::memory_order_relaxed) ? std::atomic_load(&observer_) : nullptr;
    f.timed.clear();
    if (f.observer) {
      uint32_t timed = 0;
      for (const auto& c : cmds) timed += c.is_copy() ? 0 : 1;
      KILN_RETURN_IF_ERROR(EnsureQueries(f, 2 * timed));
    }
    KILN_RETURN_IF_ERROR(BeginCommands(f));
    if (f.observer && f.queries_cap) vkCmdResetQueryPool(f.cmd, f.queries, 0, f.queries_cap);
    for (size_t i = 0; i < cmds.size(); ++i) {
      const RecordedCommand& c = cmds[i];
      const Planned& p = plan[i];
      Barrier(f.cmd);  // the first one orders this submission after those before it on the queue
      if (c.is_copy()) {
        size_t bytes = c.inputs[0].ByteSize();
        if (!bytes) continue;
        VkBufferCopy region{c.inputs[0].offset, c.outputs[0].offset, bytes};
        vkCmdCopyBuffer(f.cmd, static_cast<VulkanBuffer*>(c.inputs[0].buffer.get())->handle(),
                        static_cast<VulkanBuffer*>(c.outputs[0].buffer.get())->handle(), 1, &region);
        continue;
      }
      ++f.dispatches;  // a dispatch with nothing to compute still ran here
      // Both timestamps at the bottom of the pipe: the first is written once
      // everything before has finished, the second once this dispatch has,
      // so the span is this dispatch's own work.
      const uint32_t query = static_cast<uint32_t>(2 * f.timed.size());
      if (f.observer) {
        vkCmdWriteTimestamp(f.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, f.queries, query);
        f.timed.push_back(static_cast<uint32_t>(i));
      }
      if (!p.empty) {
        vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
        vkCmdBindDescriptorSets(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &set_of[i], 0, nullptr);
        vkCmdDispatch(f.cmd, p.groups[0], p.groups[1], p.groups[2]);
      }
      if (f.observer) vkCmdWriteTimestamp(f.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, f.queries, query + 1);
    }
    HostBarrier(f.cmd);
    KILN_VK(vkEndCommandBuffer(f.cmd), "recording a command buffer");
    return QueueSubmit(f);
  }

  // A query pool of at least `count` timestamps in f (kept for reuse).
  Status EnsureQueries(InFlight& f, uint32_t count) {
    if (count <= f.queries_cap) return Status::Ok();
    if (f.queries) vkDestroyQueryPool(core_->device, f.queries, nullptr);
    f.queries = VK_NULL_HANDLE;
    f.queries_cap = 0;
    VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = std::max<uint32_t>(count, 64);
    KILN_VK(vkCreateQueryPool(core_->device, &qi, nullptr, &f.queries), "creating a timestamp query pool");
    f.queries_cap = qi.queryCount;
    return Status::Ok();
  }

  // After the fence: each timed dispatch's span, to the submission's observer.
  void ReportDispatches(InFlight& f) {
    if (!f.observer || f.timed.empty()) return;
    std::vector<uint64_t> ticks(2 * f.timed.size());
    VkResult r = vkGetQueryPoolResults(core_->device, f.queries, 0, static_cast<uint32_t>(ticks.size()),
                                       ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t),
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r != VK_SUCCESS) return;  // profiling is best effort: the work itself succeeded
    const double period = core_->props.limits.timestampPeriod;  // ns per tick
    const auto& cmds = static_cast<const RecordedCommandBuffer&>(*f.commands).commands();
    const uint64_t origin = ticks[0];
    auto at = [&](uint64_t t) {
      const double ns = t >= origin ? static_cast<double>(t - origin) * period : 0.0;
      return f.submitted + std::chrono::nanoseconds(static_cast<int64_t>(ns));
    };
    for (size_t k = 0; k < f.timed.size(); ++k) {
      const RecordedCommand& c = cmds[f.timed[k]];
      DispatchSpan span;
      span.executable = c.executable.get();
      span.tag = c.tag;
      span.inputs = &c.inputs;
      span.outputs = &c.outputs;
      span.begin = at(ticks[2 * k]);
      span.end = std::max(span.begin, at(ticks[2 * k + 1]));
      f.observer->OnDispatch(span);
    }
  }

  void Release(InFlight& f) {
    if (f.queries) vkDestroyQueryPool(core_->device, f.queries, nullptr);
    f.queries = VK_NULL_HANDLE;
    f.queries_cap = 0;
    if (f.fence) vkDestroyFence(core_->device, f.fence, nullptr);
    if (f.descriptors) vkDestroyDescriptorPool(core_->device, f.descriptors, nullptr);
    if (f.pool) vkDestroyCommandPool(core_->device, f.pool, nullptr);
    f.fence = VK_NULL_HANDLE;
    f.descriptors = VK_NULL_HANDLE;
    f.descriptor_sets_cap = f.descriptors_cap = 0;
    f.pool = VK_NULL_HANDLE;
    f.cmd = f.fill_cmd = VK_NULL_HANDLE;  // freed with the pool
    f.has_fills = false;
    f.filled.clear();
    f.params.reset();
    f.commands.reset();
  }

  // A submission's objects: recycled ones where there are (reset by
  // Recycle), else empty ones that BeginCommands and the rest create.
  std::unique_ptr<InFlight> TakeFrame() {
    std::lock_guard<std::mutex> l(frames_mu_);
    if (free_frames_.empty()) return std::make_unique<InFlight>();
    auto f = std::move(free_frames_.back());
    free_frames_.pop_back();
    return f;
  }
  // After the fence has signalled (or the submission never reached the
  // queue): drops what the submission kept alive, resets its Vulkan objects
  // and keeps them for the next one. `reusable` is false after a failure
  // whose state is unknown (a wait that failed): the objects are freed.
  static constexpr size_t kKeptFrames = 8;
  void Recycle(std::unique_ptr<InFlight> f, bool reusable) {
    f->filled.clear();
    f->commands.reset();
    f->has_fills = false;
    f->signal = {};
    f->dispatches = 0;
    f->observer.reset();
    f->timed.clear();
    bool ok = reusable;
    if (ok && f->pool) ok = vkResetCommandPool(core_->device, f->pool, 0) == VK_SUCCESS;
    if (ok && f->fence) ok = vkResetFences(core_->device, 1, &f->fence) == VK_SUCCESS;
    if (ok && f->descriptors) ok = vkResetDescriptorPool(core_->device, f->descriptors, 0) == VK_SUCCESS;
    if (ok) {
      std::lock_guard<std::mutex> l(frames_mu_);
      if (free_frames_.size() < kKeptFrames) {
        free_frames_.push_back(std::move(f));
        return;
      }
    }
    Release(*f);
  }

  void CompletionLoop() {
    for (;;) {
      std::unique_ptr<InFlight> f;
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return stopping_ || !in_flight_.empty(); });
        if (in_flight_.empty()) return;
        f = std::move(in_flight_.front());
        in_flight_.pop_front();
      }
      VkResult r = vkWaitForFences(core_->device, 1, &f->fence, VK_TRUE, UINT64_MAX);
      if (r == VK_ERROR_DEVICE_LOST) core_->faults.MarkLost();
      SemaphorePoint signal = f->signal;
      uint64_t dispatches = f->dispatches;
      if (r == VK_SUCCESS) ReportDispatches(*f);  // before Recycle drops the commands the spans point into
      Recycle(std::move(f), r == VK_SUCCESS);  // buffers are released before the signal
      if (r != VK_SUCCESS) {
        signal.semaphore->Fail(VkError(r, "running a submission"));
        continue;
      }
      {
        std::lock_guard<std::mutex> l(stats_mu_);
        stats_.dispatches += dispatches;
        stats_.submissions += 1;
      }
      signal.semaphore->Signal(signal.value);
    }
  }

  std::shared_ptr<Core> core_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<InFlight>> in_flight_;
  std::mutex frames_mu_;
  std::vector<std::unique_ptr<InFlight>> free_frames_;  // recycled, at most kKeptFrames
  bool stopping_ = false;
  std::thread completion_;
  mutable std::mutex stats_mu_;
  DeviceStats stats_;
  std::shared_ptr<DispatchObserver> observer_;  // atomic_load/atomic_store
  std::atomic<bool> has_observer_{false};
};

}  // namespace

std::unique_ptr<Device> NewVulkanDevice(std::shared_ptr<Core> core) {
  return std::make_unique<VulkanDevice>(std::move(core));
}

}  // namespace kiln::hal::vk

// The Vulkan driver behind the HAL interfaces.
//
// Memory: where the device has memory that is both device-local and
// host-visible (unified memory: integrated GPUs, lavapipe), buffers live there
// and transfers are memcpy; otherwise buffers are device-local and transfers
// go through a host-visible staging buffer (KILN_VULKAN_STAGING=1 forces this
// path, so it is tested on unified devices too).
//
// Submission: a HAL command buffer records commands on the host; Submit waits
// for its wait points, records one Vulkan command buffer (descriptor sets,
// one parameter buffer holding every dispatch's dimensions, barriers between
// commands), submits it with a fence and returns. A completion thread waits
// on the fence, releases the submission's resources and signals the HAL
// semaphore, so the host never assumes that work is done before it waits.
#include "hal/vulkan/vulkan_device.h"

#include <vulkan/vulkan.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string_view>
#include <thread>

namespace kiln::hal {
namespace {

std::atomic<uint64_t> g_validation_messages{0};

Status VkError(VkResult r, std::string_view what) {
  std::string w(what);
  switch (r) {
    case VK_ERROR_OUT_OF_HOST_MEMORY: return ResourceExhausted(w + ": out of host memory (Vulkan)");
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return ResourceExhausted(w + ": out of device memory (Vulkan)");
    case VK_ERROR_DEVICE_LOST: return Internal(w + ": the Vulkan device was lost");
    case VK_ERROR_INITIALIZATION_FAILED: return Internal(w + ": Vulkan initialization failed");
    case VK_ERROR_FEATURE_NOT_PRESENT: return Unimplemented(w + ": a Vulkan feature is not present");
    case VK_ERROR_INCOMPATIBLE_DRIVER: return Unimplemented(w + ": no compatible Vulkan driver");
    case VK_TIMEOUT: return Status(StatusCode::kDeadlineExceeded, w + ": timed out waiting for the Vulkan device");
    default: return Internal(w + ": Vulkan error " + std::to_string(static_cast<int>(r)));
  }
}
#define KILN_VK(expr, what)                          \
  do {                                               \
    VkResult kiln_vk_r = (expr);                     \
    if (kiln_vk_r != VK_SUCCESS) return VkError(kiln_vk_r, what); \
  } while (0)

VKAPI_ATTR VkBool32 VKAPI_CALL OnValidationMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
  if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    ++g_validation_messages;
    std::fprintf(stderr, "kiln: Vulkan validation: %s\n", data && data->pMessage ? data->pMessage : "?");
  }
  return VK_FALSE;
}

bool EnvIs(const char* name, std::string_view value) {
  const char* v = std::getenv(name);
  return v && std::string_view(v) == value;
}

// The instance (and the validation messenger), shared by everything that
// uses it.
struct Instance {
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  ~Instance() {
    if (messenger) {
      auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
      if (destroy) destroy(instance, messenger, nullptr);
    }
    if (instance) vkDestroyInstance(instance, nullptr);
  }
};

StatusOr<std::shared_ptr<Instance>> CreateInstanceUncached() {
  auto inst = std::make_shared<Instance>();
  bool validation = EnvIs("KILN_VULKAN_VALIDATION", "1");
  std::vector<const char*> layers, extensions;
  if (validation) {
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> props(n);
    vkEnumerateInstanceLayerProperties(&n, props.data());
    bool found = std::any_of(props.begin(), props.end(), [](const VkLayerProperties& p) {
      return std::string_view(p.layerName) == "VK_LAYER_KHRONOS_validation";
    });
    if (!found)
      return FailedPrecondition("KILN_VULKAN_VALIDATION=1, but the Khronos validation layer is not installed");
    layers.push_back("VK_LAYER_KHRONOS_validation");
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "kiln";
  app.pEngineName = "kiln";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pApplicationInfo = &app;
  ci.enabledLayerCount = static_cast<uint32_t>(layers.size());
  ci.ppEnabledLayerNames = layers.data();
  ci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  ci.ppEnabledExtensionNames = extensions.data();
  KILN_VK(vkCreateInstance(&ci, nullptr, &inst->instance), "creating the Vulkan instance");
  if (validation) {
    VkDebugUtilsMessengerCreateInfoEXT mi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mi.pfnUserCallback = OnValidationMessage;
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(inst->instance, "vkCreateDebugUtilsMessengerEXT"));
    if (!create) return FailedPrecondition("the validation layer offers no VK_EXT_debug_utils");
    KILN_VK(create(inst->instance, &mi, nullptr, &inst->messenger), "creating the validation messenger");
  }
  return inst;
}

// One instance per process, never destroyed: the loader unloads the driver
// libraries with the last instance, and drivers' own one-time allocations
// would then be reported as leaks of unknown modules at exit (LSan); kept
// loaded, they are attributed to the driver (scripts/lsan_suppressions.txt).
StatusOr<std::shared_ptr<Instance>> CreateInstance() {
  static std::mutex mu;
  static std::shared_ptr<Instance>* instance = nullptr;
  std::lock_guard<std::mutex> l(mu);
  if (instance) return *instance;
  KILN_ASSIGN_OR_RETURN(auto created, CreateInstanceUncached());
  instance = new std::shared_ptr<Instance>(std::move(created));
  return *instance;
}

std::vector<VkPhysicalDevice> PhysicalDevices(VkInstance instance) {
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(instance, &n, nullptr);
  std::vector<VkPhysicalDevice> devs(n);
  vkEnumeratePhysicalDevices(instance, &n, devs.data());
  devs.resize(n);
  return devs;
}

const char* TypeName(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
  }
}

// The logical device and what everything built on it shares. Buffers and
// executables hold it, so it outlives them whatever the destruction order.
struct Core {
  std::shared_ptr<Instance> instance;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties props{};
  VkPhysicalDeviceMemoryProperties memory{};
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  std::mutex queue_mu;  // vkQueueSubmit needs external synchronization
  uint32_t features = 0;  // ShaderFeature bits the device has (and we enabled)
  bool unified = false;   // buffers are host-visible: no staging
  uint32_t device_memory_type = 0, host_memory_type = 0;
  VkPipelineCache pipeline_cache = VK_NULL_HANDLE;
  std::mutex pipelines_mu;
  // Layouts by binding count, pipelines by SPIR-V (identical shaders of
  // different modules share one pipeline).
  std::map<uint32_t, std::pair<VkDescriptorSetLayout, VkPipelineLayout>> layouts;
  std::map<std::vector<uint32_t>, VkPipeline> pipelines;

  ~Core() {
    if (!device) return;
    vkDeviceWaitIdle(device);
    for (auto& [k, p] : pipelines) vkDestroyPipeline(device, p, nullptr);
    for (auto& [k, l] : layouts) {
      vkDestroyPipelineLayout(device, l.second, nullptr);
      vkDestroyDescriptorSetLayout(device, l.first, nullptr);
    }
    if (pipeline_cache) vkDestroyPipelineCache(device, pipeline_cache, nullptr);
    vkDestroyDevice(device, nullptr);
  }

  StatusOr<std::pair<VkDescriptorSetLayout, VkPipelineLayout>> Layout(uint32_t bindings) {
    auto it = layouts.find(bindings);
    if (it != layouts.end()) return it->second;
    std::vector<VkDescriptorSetLayoutBinding> b(bindings);
    for (uint32_t i = 0; i < bindings; ++i)
      b[i] = VkDescriptorSetLayoutBinding{i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo dci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dci.bindingCount = bindings;
    dci.pBindings = b.data();
    VkDescriptorSetLayout dsl;
    KILN_VK(vkCreateDescriptorSetLayout(device, &dci, nullptr, &dsl), "creating a descriptor set layout");
    VkPipelineLayoutCreateInfo pci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pci.setLayoutCount = 1;
    pci.pSetLayouts = &dsl;
    VkPipelineLayout pl;
    VkResult r = vkCreatePipelineLayout(device, &pci, nullptr, &pl);
    if (r != VK_SUCCESS) {
      vkDestroyDescriptorSetLayout(device, dsl, nullptr);
      return VkError(r, "creating a pipeline layout");
    }
    layouts[bindings] = {dsl, pl};
    return layouts[bindings];
  }

  StatusOr<VkPipeline> Pipeline(const ShaderVariant& v, VkPipelineLayout layout) {
    auto it = pipelines.find(v.spirv);
    if (it != pipelines.end()) return it->second;
    VkShaderModuleCreateInfo sci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    sci.codeSize = v.spirv.size() * 4;
    sci.pCode = v.spirv.data();
    VkShaderModule sm;
    KILN_VK(vkCreateShaderModule(device, &sci, nullptr, &sm), "creating a shader module");
    VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    ci.stage = VkPipelineShaderStageCreateInfo{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = sm;
    ci.stage.pName = "main";
    ci.layout = layout;
    VkPipeline p;
    VkResult r = vkCreateComputePipelines(device, pipeline_cache, 1, &ci, nullptr, &p);
    vkDestroyShaderModule(device, sm, nullptr);
    if (r != VK_SUCCESS) return VkError(r, "creating a compute pipeline");
    pipelines[v.spirv] = p;
    return p;
  }
};

// A buffer and its memory. Sizes are rounded up to whole 32-bit words, since
// shaders address every buffer as an array of words.
class VulkanBuffer final : public Buffer {
 public:
  VulkanBuffer(std::shared_ptr<Core> core, size_t size) : core_(std::move(core)), size_(size) {}
  ~VulkanBuffer() override {
    if (mapped_) vkUnmapMemory(core_->device, memory_);
    if (buffer_) vkDestroyBuffer(core_->device, buffer_, nullptr);
    if (memory_) vkFreeMemory(core_->device, memory_, nullptr);
  }
  size_t size() const override { return size_; }
  VkDeviceSize padded() const { return std::max<VkDeviceSize>(4, (size_ + 3) & ~size_t{3}); }

  Status Init(uint32_t memory_type, bool map) {
    VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = padded();
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    KILN_VK(vkCreateBuffer(core_->device, &bi, nullptr, &buffer_), "creating a buffer");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(core_->device, buffer_, &req);
    if (!(req.memoryTypeBits & (1u << memory_type))) return Internal("no suitable Vulkan memory type for a buffer");
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = memory_type;
    KILN_VK(vkAllocateMemory(core_->device, &ai, nullptr, &memory_),
            "allocating " + std::to_string(size_) + " bytes of device memory");
    KILN_VK(vkBindBufferMemory(core_->device, buffer_, memory_, 0), "binding buffer memory");
    if (map) {
      KILN_VK(vkMapMemory(core_->device, memory_, 0, VK_WHOLE_SIZE, 0, &mapped_), "mapping buffer memory");
      std::memset(mapped_, 0, padded());
    }
    return Status::Ok();
  }
  VkBuffer handle() const { return buffer_; }
  uint8_t* mapped() const { return static_cast<uint8_t*>(mapped_); }

 private:
  std::shared_ptr<Core> core_;
  size_t size_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  void* mapped_ = nullptr;
};

class VulkanSemaphore final : public Semaphore {
 public:
  explicit VulkanSemaphore(uint64_t v) : value_(v) {}
  uint64_t Value() const override {
    std::lock_guard<std::mutex> l(mu_);
    return value_;
  }
  void Signal(uint64_t v) override {
    std::lock_guard<std::mutex> l(mu_);
    if (v > value_) value_ = v;
    cv_.notify_all();
  }
  void Fail(Status s) override {
    std::lock_guard<std::mutex> l(mu_);
    if (failure_.ok()) failure_ = std::move(s);
    cv_.notify_all();
  }
  Status Wait(uint64_t v, std::chrono::milliseconds timeout) override {
    std::unique_lock<std::mutex> l(mu_);
    bool reached = cv_.wait_for(l, timeout, [&] { return value_ >= v || !failure_.ok(); });
    if (!failure_.ok()) return failure_;
    if (!reached) return Status(StatusCode::kDeadlineExceeded, "timed out waiting for the Vulkan device");
    return Status::Ok();
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  uint64_t value_;
  Status failure_;
};

class VulkanExecutable final : public Executable {
 public:
  VulkanExecutable(KernelParams p, std::vector<ShaderVariant> v) : params_(std::move(p)), variants_(std::move(v)) {}
  const KernelParams& params() const override { return params_; }
  // The variant compiled for these operands' types and ranks.
  const ShaderVariant* Find(const std::vector<BufferView>& in, const std::vector<BufferView>& out) const {
    for (const auto& v : variants_) {
      if (v.input_types.size() != in.size() || v.output_types.size() != out.size()) continue;
      bool ok = true;
      for (size_t i = 0; ok && i < in.size(); ++i)
        ok = v.input_types[i] == in[i].type && v.input_ranks[i] == in[i].dims.size();
      for (size_t i = 0; ok && i < out.size(); ++i)
        ok = v.output_types[i] == out[i].type && v.output_ranks[i] == out[i].dims.size();
      if (ok) return &v;
    }
    return nullptr;
  }

 private:
  KernelParams params_;
  std::vector<ShaderVariant> variants_;
};

struct Command {
  std::shared_ptr<Executable> executable;  // null for a copy
  std::vector<BufferView> inputs, outputs;
};

class VulkanCommandBuffer final : public CommandBuffer {
 public:
  void Dispatch(std::shared_ptr<Executable> e, std::vector<BufferView> in, std::vector<BufferView> out) override {
    commands_.push_back(Command{std::move(e), std::move(in), std::move(out)});
  }
  void Copy(const BufferView& source, const BufferView& target) override {
    commands_.push_back(Command{nullptr, {source}, {target}});
  }
  bool empty() const override { return commands_.empty(); }
  std::vector<Command>& commands() { return commands_; }

 private:
  std::vector<Command> commands_;
};

Status CheckRange(const BufferView& v, std::string_view what) {
  if (!v.buffer) return InvalidArgument(std::string(what) + " has no buffer");
  uint64_t n = 1;
  for (int64_t d : v.dims) {
    if (d < 0 || d > UINT32_MAX) return InvalidArgument(std::string(what) + " has invalid dimensions");
    n *= static_cast<uint64_t>(d);
    if (n > (uint64_t{1} << 31)) return Unimplemented(std::string(what) + " has more than 2^31 elements, the Vulkan device's limit");
  }
  size_t bytes = StorageBytes(v.type);
  if (bytes == 0) return InvalidArgument(std::string(what) + " has an invalid element type");
  if (v.offset > v.buffer->size() || n * bytes > v.buffer->size() - v.offset)
    return OutOfRange(std::string(what) + " lies outside its buffer");
  // Shaders address bytes with 32-bit integers.
  if (v.offset + n * bytes > UINT32_MAX)
    return Unimplemented(std::string(what) + " spans more than 4 GiB, the Vulkan device's addressing limit");
  return Status::Ok();
}

// What a submission owns until its fence has signalled.
struct InFlight {
  VkFence fence = VK_NULL_HANDLE;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkDescriptorPool descriptors = VK_NULL_HANDLE;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  std::shared_ptr<VulkanBuffer> params;
  std::unique_ptr<CommandBuffer> commands;  // keeps the buffers alive
  SemaphorePoint signal;
  uint64_t dispatches = 0;
};

std::string DescribeSignature(const std::vector<BufferView>& in, const std::vector<BufferView>& out) {
  std::string s = "(";
  auto add = [&](const BufferView& v) {
    s += "rank-" + std::to_string(v.dims.size()) + " " + std::string(Name(v.type));
  };
  for (size_t i = 0; i < in.size(); ++i) {
    if (i) s += ", ";
    add(in[i]);
  }
  s += ") -> (";
  for (size_t i = 0; i < out.size(); ++i) {
    if (i) s += ", ";
    add(out[i]);
  }
  return s + ")";
}

class VulkanDevice final : public Device {
 public:
  explicit VulkanDevice(std::shared_ptr<Core> core) : core_(std::move(core)) {
    completion_ = std::thread([this] { CompletionLoop(); });
  }
  ~VulkanDevice() override {
    {
      std::lock_guard<std::mutex> l(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    completion_.join();
  }
  std::string name() const override { return std::string("vulkan (") + core_->props.deviceName + ")"; }

  StatusOr<std::shared_ptr<Buffer>> Allocate(size_t bytes) override {
    if (bytes > (size_t{1} << 40)) return ResourceExhausted("allocation of " + std::to_string(bytes) + " bytes refused");
    auto b = std::make_shared<VulkanBuffer>(core_, bytes);
    KILN_RETURN_IF_ERROR(b->Init(core_->unified ? core_->host_memory_type : core_->device_memory_type, core_->unified));
    return std::shared_ptr<Buffer>(std::move(b));
  }

  Status Upload(const Buffer& b, size_t offset, const void* data, size_t bytes) override {
    if (offset > b.size() || bytes > b.size() - offset) return OutOfRange("upload outside the buffer");
    if (!bytes) return Status::Ok();
    auto& vb = static_cast<const VulkanBuffer&>(b);
    if (vb.mapped()) {
      std::memcpy(vb.mapped() + offset, data, bytes);
      return Status::Ok();
    }
    KILN_ASSIGN_OR_RETURN(auto staging, Staging(bytes));
    std::memcpy(staging->mapped(), data, bytes);
    return Transfer(staging->handle(), 0, vb.handle(), offset, bytes);
  }

  Status Download(const Buffer& b, size_t offset, void* data, size_t bytes) override {
    if (offset > b.size() || bytes > b.size() - offset) return OutOfRange("download outside the buffer");
    if (!bytes) return Status::Ok();
    auto& vb = static_cast<const VulkanBuffer&>(b);
    if (vb.mapped()) {
      std::memcpy(data, vb.mapped() + offset, bytes);
      return Status::Ok();
    }
    KILN_ASSIGN_OR_RETURN(auto staging, Staging(bytes));
    KILN_RETURN_IF_ERROR(Transfer(vb.handle(), offset, staging->handle(), 0, bytes));
    std::memcpy(data, staging->mapped(), bytes);
    return Status::Ok();
  }

  StatusOr<std::shared_ptr<Executable>> PrepareExecutable(const KernelParams& params) override {
    return PrepareModuleExecutable(params, {});
  }

  StatusOr<std::shared_ptr<Executable>> PrepareModuleExecutable(const KernelParams& params,
                                                                const std::vector<ShaderVariant>& shaders) override {
    // A module may hold executables without shaders: those of functions that
    // are unavailable on this device (the VM refuses them by name). Features
    // are checked here, at load, so a missing one is named before anything runs.
    for (const auto& v : shaders) {
      uint32_t missing = v.features & ~core_->features;
      if (missing)
        return Unimplemented(params.kernel + " needs the Vulkan device feature(s) " + ShaderFeatureNames(missing) +
                             ", which " + core_->props.deviceName + " lacks");
      if (v.spirv.empty() || v.input_ranks.size() != v.input_types.size() ||
          v.output_ranks.size() != v.output_types.size() || v.workgroup_size == 0)
        return InvalidArgument(params.kernel + ": malformed Vulkan shader");
      if (v.grid_kind == ShaderGrid::kTiles && v.grid_args.size() != 4)
        return InvalidArgument(params.kernel + ": malformed Vulkan tile grid");
    }
    return std::shared_ptr<Executable>(std::make_shared<VulkanExecutable>(params, shaders));
  }

  std::unique_ptr<CommandBuffer> CreateCommandBuffer() override { return std::make_unique<VulkanCommandBuffer>(); }
  std::shared_ptr<Semaphore> CreateSemaphore(uint64_t v) override { return std::make_shared<VulkanSemaphore>(v); }

  Status Submit(std::unique_ptr<CommandBuffer> commands, std::vector<SemaphorePoint> waits,
                SemaphorePoint signal) override {
    if (!signal.semaphore) return InvalidArgument("submission without a signal semaphore");
    for (auto& w : waits) {
      Status s = w.semaphore->Wait(w.value, std::chrono::hours(24));
      if (!s.ok()) {
        signal.semaphore->Fail(s);
        return Status::Ok();
      }
    }
    auto flight = std::make_unique<InFlight>();
    flight->commands = std::move(commands);
    flight->signal = signal;
    Status s = Record(*flight);
    if (!s.ok()) {
      Release(*flight);
      signal.semaphore->Fail(s);
      return Status::Ok();
    }
    {
      std::lock_guard<std::mutex> l(mu_);
      in_flight_.push_back(std::move(flight));
    }
    cv_.notify_all();
    return Status::Ok();
  }

  DeviceStats stats() const override {
    std::lock_guard<std::mutex> l(stats_mu_);
    return stats_;
  }

 private:
  StatusOr<std::shared_ptr<VulkanBuffer>> Staging(size_t bytes) {
    auto b = std::make_shared<VulkanBuffer>(core_, bytes);
    KILN_RETURN_IF_ERROR(b->Init(core_->host_memory_type, true));
    return b;
  }

  // A blocking buffer-to-buffer copy (the staging path of Upload/Download).
  Status Transfer(VkBuffer src, size_t src_offset, VkBuffer dst, size_t dst_offset, size_t bytes) {
    InFlight f;
    Status s = [&]() -> Status {
      KILN_RETURN_IF_ERROR(BeginCommands(f));
      VkBufferCopy region{src_offset, dst_offset, bytes};
      vkCmdCopyBuffer(f.cmd, src, dst, 1, &region);
      HostBarrier(f.cmd);
      KILN_VK(vkEndCommandBuffer(f.cmd), "recording a transfer");
      KILN_RETURN_IF_ERROR(QueueSubmit(f));
      KILN_VK(vkWaitForFences(core_->device, 1, &f.fence, VK_TRUE, UINT64_MAX), "waiting for a transfer");
      return Status::Ok();
    }();
    Release(f);
    return s;
  }

  Status BeginCommands(InFlight& f) {
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pci.queueFamilyIndex = core_->queue_family;
    KILN_VK(vkCreateCommandPool(core_->device, &pci, nullptr, &f.pool), "creating a command pool");
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = f.pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    KILN_VK(vkAllocateCommandBuffers(core_->device, &ai, &f.cmd), "allocating a command buffer");
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    KILN_VK(vkBeginCommandBuffer(f.cmd, &bi), "beginning a command buffer");
    return Status::Ok();
  }

  Status QueueSubmit(InFlight& f) {
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    KILN_VK(vkCreateFence(core_->device, &fci, nullptr, &f.fence), "creating a fence");
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &f.cmd;
    std::lock_guard<std::mutex> l(core_->queue_mu);
    KILN_VK(vkQueueSubmit(core_->queue, 1, &si, f.fence), "submitting to the Vulkan queue");
    return Status::Ok();
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

  // Work-group counts for a dispatch; false when there is nothing to do.
  Status Grid(const ShaderVariant& v, const BufferView& out0, uint32_t total, Planned* p) {
    const uint32_t max_x = core_->props.limits.maxComputeWorkGroupCount[0];
    const uint32_t max_y = core_->props.limits.maxComputeWorkGroupCount[1];
    const uint32_t max_z = core_->props.limits.maxComputeWorkGroupCount[2];
    if (v.grid_kind == ShaderGrid::kPerElement || v.grid_kind == ShaderGrid::kPerGroup) {
      if (total == 0) return p->empty = true, Status::Ok();
      uint64_t per_group = v.grid_kind == ShaderGrid::kPerGroup ? 1 : v.workgroup_size;
      uint64_t groups = (uint64_t{total} + per_group - 1) / per_group;
      uint64_t gx = std::min<uint64_t>(groups, max_x);
      uint64_t gy = (groups + gx - 1) / gx;
      if (gy > max_y) return Unimplemented("a dispatch too large for the Vulkan device's work-group limits");
      p->groups[0] = static_cast<uint32_t>(gx);
      p->groups[1] = static_cast<uint32_t>(gy);
      return Status::Ok();
    }
    const uint32_t nb = v.grid_args[0], nm = v.grid_args[1], tm = v.grid_args[2], tn = v.grid_args[3];
    if (nb + nm > out0.dims.size() || tm == 0 || tn == 0) return InvalidArgument("malformed Vulkan tile grid");
    uint64_t b = 1, m = 1, n = 1;
    for (size_t d = 0; d < out0.dims.size(); ++d)
      (d < nb ? b : d < nb + nm ? m : n) *= static_cast<uint64_t>(out0.dims[d]);
    if (b * m * n == 0) return p->empty = true, Status::Ok();
    uint64_t gx = (n + tn - 1) / tn, gy = (m + tm - 1) / tm;
    if (gx > max_x || gy > max_y || b > max_z)
      return Unimplemented("a dispatch too large for the Vulkan device's work-group limits");
    p->groups[0] = static_cast<uint32_t>(gx);
    p->groups[1] = static_cast<uint32_t>(gy);
    p->groups[2] = static_cast<uint32_t>(b);
    return Status::Ok();
  }

  Status Record(InFlight& f) {
    auto& cmds = static_cast<VulkanCommandBuffer&>(*f.commands).commands();
    // Pass 1: check every command, pick its shader and pipeline, lay out the
    // parameter words of every dispatch in one buffer.
    std::vector<Planned> plan(cmds.size());
    std::vector<uint32_t> words;
    const size_t align_words =
        std::max<size_t>(1, static_cast<size_t>(core_->props.limits.minStorageBufferOffsetAlignment + 3) / 4);
    uint32_t sets = 0, descriptors = 0;
    for (size_t i = 0; i < cmds.size(); ++i) {
      const Command& c = cmds[i];
      for (const auto& v : c.inputs) KILN_RETURN_IF_ERROR(CheckRange(v, "a dispatch input"));
      for (const auto& v : c.outputs) KILN_RETURN_IF_ERROR(CheckRange(v, "a dispatch output"));
      if (c.executable)
        for (const auto* list : {&c.inputs, &c.outputs})
          for (const auto& v : *list)
            if (static_cast<VulkanBuffer*>(v.buffer.get())->padded() > core_->props.limits.maxStorageBufferRange)
              return Unimplemented("a tensor of " + std::to_string(v.buffer->size()) +
                                   " bytes exceeds the device's storage buffer range (" +
                                   std::to_string(core_->props.limits.maxStorageBufferRange) + " bytes)");
      if (!c.executable) {
        if (c.inputs[0].ByteSize() != c.outputs[0].ByteSize())
          return InvalidArgument("copy between views of different sizes");
        continue;
      }
      auto* e = static_cast<VulkanExecutable*>(c.executable.get());
      Planned& p = plan[i];
      p.variant = e->Find(c.inputs, c.outputs);
      if (!p.variant)
        return Unimplemented(e->params().kernel + ": the module has no Vulkan shader for " +
                             DescribeSignature(c.inputs, c.outputs));
      if (c.outputs.empty()) return InvalidArgument(e->params().kernel + ": a dispatch without outputs");
      const BufferView& out0 = c.outputs[0];
      KILN_RETURN_IF_ERROR(Grid(*p.variant, out0, static_cast<uint32_t>(out0.NumElements()), &p));
      if (p.empty) continue;
      const uint32_t bindings = static_cast<uint32_t>(1 + c.inputs.size() + c.outputs.size());
      {
        std::lock_guard<std::mutex> l(core_->pipelines_mu);
        KILN_ASSIGN_OR_RETURN(auto layout, core_->Layout(bindings));
        p.set_layout = layout.first;
        p.layout = layout.second;
        KILN_ASSIGN_OR_RETURN(p.pipeline, core_->Pipeline(*p.variant, p.layout));
      }
      words.resize((words.size() + align_words - 1) / align_words * align_words);
      p.param_offset = words.size() * 4;
      words.push_back(static_cast<uint32_t>(out0.NumElements()));
      for (const auto* list : {&c.inputs, &c.outputs})
        for (const auto& v : *list) {
          words.push_back(static_cast<uint32_t>(v.offset));
          for (int64_t d : v.dims) words.push_back(static_cast<uint32_t>(d));
        }
      ++sets;
      descriptors += bindings;
    }
    if (sets) {
      f.params = std::make_shared<VulkanBuffer>(core_, words.size() * 4);
      KILN_RETURN_IF_ERROR(f.params->Init(core_->host_memory_type, true));
      std::memcpy(f.params->mapped(), words.data(), words.size() * 4);
      VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptors};
      VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
      dpi.maxSets = sets;
      dpi.poolSizeCount = 1;
      dpi.pPoolSizes = &size;
      KILN_VK(vkCreateDescriptorPool(core_->device, &dpi, nullptr, &f.descriptors), "creating a descriptor pool");
    }
    // Pass 2: descriptor sets, then the command buffer.
    std::vector<VkDescriptorSet> set_of(cmds.size(), VK_NULL_HANDLE);
    for (size_t i = 0; i < cmds.size(); ++i) {
      const Planned& p = plan[i];
      if (!p.variant || p.empty) continue;
      const Command& c = cmds[i];
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
      std::vector<VkWriteDescriptorSet> writes(infos.size());
      for (size_t k = 0; k < infos.size(); ++k) {
        writes[k] = VkWriteDescriptorSet{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[k].dstSet = set_of[i];
        writes[k].dstBinding = static_cast<uint32_t>(k);
        writes[k].descriptorCount = 1;
        writes[k].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[k].pBufferInfo = &infos[k];
      }
      vkUpdateDescriptorSets(core_->device, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
    }
    KILN_RETURN_IF_ERROR(BeginCommands(f));
    for (size_t i = 0; i < cmds.size(); ++i) {
      const Command& c = cmds[i];
      const Planned& p = plan[i];
      if (i) Barrier(f.cmd);
      if (!c.executable) {
        size_t bytes = c.inputs[0].ByteSize();
        if (!bytes) continue;
        VkBufferCopy region{c.inputs[0].offset, c.outputs[0].offset, bytes};
        vkCmdCopyBuffer(f.cmd, static_cast<VulkanBuffer*>(c.inputs[0].buffer.get())->handle(),
                        static_cast<VulkanBuffer*>(c.outputs[0].buffer.get())->handle(), 1, &region);
        continue;
      }
      ++f.dispatches;  // a dispatch with nothing to compute still ran here
      if (p.empty) continue;
      vkCmdBindPipeline(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
      vkCmdBindDescriptorSets(f.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &set_of[i], 0, nullptr);
      vkCmdDispatch(f.cmd, p.groups[0], p.groups[1], p.groups[2]);
    }
    HostBarrier(f.cmd);
    KILN_VK(vkEndCommandBuffer(f.cmd), "recording a command buffer");
    return QueueSubmit(f);
  }

  void Release(InFlight& f) {
    if (f.fence) vkDestroyFence(core_->device, f.fence, nullptr);
    if (f.descriptors) vkDestroyDescriptorPool(core_->device, f.descriptors, nullptr);
    if (f.pool) vkDestroyCommandPool(core_->device, f.pool, nullptr);
    f.fence = VK_NULL_HANDLE;
    f.descriptors = VK_NULL_HANDLE;
    f.pool = VK_NULL_HANDLE;
    f.params.reset();
    f.commands.reset();
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
      SemaphorePoint signal = f->signal;
      uint64_t dispatches = f->dispatches;
      Release(*f);  // buffers are released before the signal
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
  bool stopping_ = false;
  std::thread completion_;
  mutable std::mutex stats_mu_;
  DeviceStats stats_;
};

StatusOr<std::shared_ptr<Core>> OpenCore(int index) {
  KILN_ASSIGN_OR_RETURN(auto instance, CreateInstance());
  auto devs = PhysicalDevices(instance->instance);
  if (devs.empty()) return Unimplemented("no Vulkan device found");
  if (index >= static_cast<int>(devs.size()))
    return InvalidArgument("no Vulkan device " + std::to_string(index) + " (there are " +
                           std::to_string(devs.size()) + "; see vm-run --list-devices)");
  if (index < 0) {
    auto rank = [](VkPhysicalDevice d) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(d, &p);
      return p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? 0
             : p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? 1 : 2;
    };
    index = 0;
    for (size_t i = 1; i < devs.size(); ++i)
      if (rank(devs[i]) < rank(devs[index])) index = static_cast<int>(i);
  }
  auto core = std::make_shared<Core>();
  core->instance = instance;
  core->physical = devs[index];
  vkGetPhysicalDeviceProperties(core->physical, &core->props);
  vkGetPhysicalDeviceMemoryProperties(core->physical, &core->memory);
  uint32_t nq = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(core->physical, &nq, nullptr);
  std::vector<VkQueueFamilyProperties> qf(nq);
  vkGetPhysicalDeviceQueueFamilyProperties(core->physical, &nq, qf.data());
  bool found = false;
  for (uint32_t i = 0; i < nq && !found; ++i)
    if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) core->queue_family = i, found = true;
  if (!found) return Unimplemented(std::string(core->props.deviceName) + " has no compute queue");

  // Memory types: host-visible coherent for staging and parameters; for
  // tensors, device-local (and host-visible too where the device has it).
  const auto& mem = core->memory;
  auto pick = [&](VkMemoryPropertyFlags want) -> int {
    for (uint32_t i = 0; i < mem.memoryTypeCount; ++i)
      if ((mem.memoryTypes[i].propertyFlags & want) == want) return static_cast<int>(i);
    return -1;
  };
  int host = pick(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  int unified = pick(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                     VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  int local = pick(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (host < 0) return Unimplemented(std::string(core->props.deviceName) + " has no host-visible coherent memory");
  core->host_memory_type = static_cast<uint32_t>(host);
  core->unified = unified >= 0 && !EnvIs("KILN_VULKAN_STAGING", "1");
  if (core->unified) core->host_memory_type = static_cast<uint32_t>(unified);
  core->device_memory_type = static_cast<uint32_t>(local >= 0 ? local : host);

  VkPhysicalDeviceFeatures have;
  vkGetPhysicalDeviceFeatures(core->physical, &have);
  VkPhysicalDeviceFeatures enable{};
  // Out-of-range accesses stay inside the bound buffer; the HAL checks
  // every dispatch's ranges as well.
  enable.robustBufferAccess = have.robustBufferAccess;
  enable.shaderInt64 = have.shaderInt64;
  enable.shaderFloat64 = have.shaderFloat64;
  if (have.shaderInt64) core->features |= kShaderInt64;
  if (have.shaderFloat64) core->features |= kShaderFloat64;
  float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = core->queue_family;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.pEnabledFeatures = &enable;
  KILN_VK(vkCreateDevice(core->physical, &dci, nullptr, &core->device), "creating the Vulkan device");
  vkGetDeviceQueue(core->device, core->queue_family, 0, &core->queue);
  VkPipelineCacheCreateInfo pci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  KILN_VK(vkCreatePipelineCache(core->device, &pci, nullptr, &core->pipeline_cache), "creating a pipeline cache");
  return core;
}

}  // namespace

StatusOr<std::vector<VulkanDeviceInfo>> ListVulkanDevices() {
  KILN_ASSIGN_OR_RETURN(auto instance, CreateInstance());
  std::vector<VulkanDeviceInfo> out;
  auto devs = PhysicalDevices(instance->instance);
  for (size_t i = 0; i < devs.size(); ++i) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(devs[i], &p);
    out.push_back({static_cast<int>(i), p.deviceName, TypeName(p.deviceType),
                   std::to_string(VK_API_VERSION_MAJOR(p.apiVersion)) + "." +
                       std::to_string(VK_API_VERSION_MINOR(p.apiVersion))});
  }
  return out;
}

StatusOr<std::unique_ptr<Device>> CreateVulkanDevice(int index) {
  KILN_ASSIGN_OR_RETURN(auto core, OpenCore(index));
  return std::unique_ptr<Device>(std::make_unique<VulkanDevice>(std::move(core)));
}

uint64_t VulkanValidationMessages() { return g_validation_messages.load(); }

}  // namespace kiln::hal

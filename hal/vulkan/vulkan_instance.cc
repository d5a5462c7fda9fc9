// The Vulkan driver's instance and device selection: the process-wide
// instance (with the optional validation layer), the physical devices the
// loader reports, and opening one as a Core (queue, memory types, features).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "hal/vulkan/vulkan_core.h"
#include "hal/vulkan/vulkan_device.h"

namespace kiln::hal {
namespace vk {
namespace {

std::atomic<uint64_t> g_validation_messages{0};

VKAPI_ATTR VkBool32 VKAPI_CALL OnValidationMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
  if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    ++g_validation_messages;
    std::fprintf(stderr, "kiln: Vulkan validation: %s\n", data && data->pMessage ? data->pMessage : "?");
  }
  return VK_FALSE;
}


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

}  // namespace

std::string VkResultName(VkResult r) {
  const char* name = nullptr;
  switch (r) {
#define KILN_VK_RESULT(x) \
  case x: name = #x; break;
    KILN_VK_RESULT(VK_SUCCESS)
    KILN_VK_RESULT(VK_NOT_READY)
    KILN_VK_RESULT(VK_TIMEOUT)
    KILN_VK_RESULT(VK_EVENT_SET)
    KILN_VK_RESULT(VK_EVENT_RESET)
    KILN_VK_RESULT(VK_INCOMPLETE)
    KILN_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    KILN_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    KILN_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    KILN_VK_RESULT(VK_ERROR_DEVICE_LOST)
    KILN_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    KILN_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    KILN_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    KILN_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    KILN_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    KILN_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    KILN_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    KILN_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
    KILN_VK_RESULT(VK_ERROR_UNKNOWN)
    KILN_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    KILN_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    KILN_VK_RESULT(VK_ERROR_FRAGMENTATION)
    KILN_VK_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    KILN_VK_RESULT(VK_PIPELINE_COMPILE_REQUIRED)
    KILN_VK_RESULT(VK_ERROR_INVALID_SHADER_NV)
#undef KILN_VK_RESULT
    default: break;
  }
  std::string number = std::to_string(static_cast<int>(r));
  return name ? std::string(name) + " (" + number + ")" : "VkResult " + number;
}

Status VkError(VkResult r, std::string_view what) {
  std::string w(what);
  std::string named = " (" + VkResultName(r) + ")";
  switch (r) {
    case VK_ERROR_OUT_OF_HOST_MEMORY: return ResourceExhausted(w + ": out of host memory" + named);
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return ResourceExhausted(w + ": out of device memory" + named);
    case VK_ERROR_DEVICE_LOST: return DeviceLost(w);
    case VK_ERROR_INITIALIZATION_FAILED: return Internal(w + ": Vulkan initialization failed" + named);
    case VK_ERROR_FEATURE_NOT_PRESENT: return Unimplemented(w + ": a Vulkan feature is not present" + named);
    case VK_ERROR_INCOMPATIBLE_DRIVER: return Unimplemented(w + ": no compatible Vulkan driver" + named);
    case VK_TIMEOUT: return Status(StatusCode::kDeadlineExceeded, w + ": timed out waiting for the Vulkan device" + named);
    default: return Internal(w + ": Vulkan error " + VkResultName(r));
  }
}

bool EnvIs(const char* name, std::string_view value) {
  const char* v = std::getenv(name);
  return v && std::string_view(v) == value;
}


Instance::~Instance() {
  if (messenger) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy) destroy(instance, messenger, nullptr);
  }
  if (instance) vkDestroyInstance(instance, nullptr);
}

Core::~Core() {
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

StatusOr<std::shared_ptr<Core>> OpenCore(int index) {
  KILN_ASSIGN_OR_RETURN(auto instance, CreateInstance());
  auto devs = PhysicalDevices(instance->instance);
  if (devs.empty()) return Unavailable("no Vulkan device found");
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
  KILN_RETURN_IF_ERROR(core->faults.ConfigureFromEnv());
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

  // Memory types. Parameter and upload staging buffers: host-visible
  // coherent. Download staging: host-cached too where the device has it,
  // since the host reads it back. Tensors: device-local, and mapped where the
  // device can: where the host reads that memory at memory speed (host-cached,
  // or the device is not discrete: integrated GPUs, lavapipe) every transfer
  // is memcpy; a discrete GPU's host-visible device memory (resizable BAR) is
  // uncached, read by the host at tens of MB/s, so there only uploads and
  // small downloads are memcpy. The BAR is used only where it spans most of
  // device memory (not the 256 MiB window of GPUs without resizable BAR).
  // KILN_VULKAN_MEMORY=unified|bar|staging forces a mode (for tests), where
  // the device has the memory it needs; KILN_VULKAN_STAGING=1 means staging.
  const auto& mem = core->memory;
  auto pick = [&](VkMemoryPropertyFlags want) -> int {
    for (uint32_t i = 0; i < mem.memoryTypeCount; ++i)
      if ((mem.memoryTypes[i].propertyFlags & want) == want) return static_cast<int>(i);
    return -1;
  };
  auto heap_bytes = [&](int type) -> VkDeviceSize { return mem.memoryHeaps[mem.memoryTypes[type].heapIndex].size; };
  constexpr VkMemoryPropertyFlags kHost = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  constexpr VkMemoryPropertyFlags kLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  int host = pick(kHost);
  int host_cached = pick(kHost | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  int local = pick(kLocal);
  int mapped = pick(kLocal | kHost);
  int unified = pick(kLocal | kHost | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  const bool discrete = core->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  if (unified < 0 && !discrete) unified = mapped;
  if (mapped >= 0 && local >= 0 && heap_bytes(mapped) < heap_bytes(local) / 2) mapped = -1;
  if (host < 0) return Unimplemented(std::string(core->props.deviceName) + " has no host-visible coherent memory");
  core->host_memory_type = static_cast<uint32_t>(host);
  core->readback_memory_type = static_cast<uint32_t>(host_cached >= 0 ? host_cached : host);
  using TM = Core::TensorMemory;
  TM mode = unified >= 0 ? TM::kUnified : mapped >= 0 ? TM::kMappedUncached : TM::kStaging;
  if (EnvIs("KILN_VULKAN_STAGING", "1") || EnvIs("KILN_VULKAN_MEMORY", "staging")) mode = TM::kStaging;
  if (EnvIs("KILN_VULKAN_MEMORY", "bar") && mapped >= 0) mode = TM::kMappedUncached;
  if (EnvIs("KILN_VULKAN_MEMORY", "unified") && unified >= 0) mode = TM::kUnified;
  core->tensor_memory = mode;
  core->device_memory_type = static_cast<uint32_t>(mode == TM::kUnified         ? unified
                                                   : mode == TM::kMappedUncached ? mapped
                                                   : local >= 0                  ? local
                                                                                 : host);

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
  VkFormatProperties texel_format;
  vkGetPhysicalDeviceFormatProperties(core->physical, VK_FORMAT_R32G32B32A32_SFLOAT, &texel_format);
  if (texel_format.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT) core->features |= kTexelInputs;
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


}  // namespace vk

StatusOr<std::vector<VulkanDeviceInfo>> ListVulkanDevices() {
  KILN_ASSIGN_OR_RETURN(auto instance, vk::CreateInstance());
  std::vector<VulkanDeviceInfo> out;
  auto devs = vk::PhysicalDevices(instance->instance);
  for (size_t i = 0; i < devs.size(); ++i) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(devs[i], &p);
    out.push_back({static_cast<int>(i), p.deviceName, vk::TypeName(p.deviceType),
                   std::to_string(VK_API_VERSION_MAJOR(p.apiVersion)) + "." +
                       std::to_string(VK_API_VERSION_MINOR(p.apiVersion))});
  }
  return out;
}

StatusOr<std::unique_ptr<Device>> CreateVulkanDevice(int index) {
  KILN_ASSIGN_OR_RETURN(auto core, vk::OpenCore(index));
  return vk::NewVulkanDevice(std::move(core));
}

uint64_t VulkanValidationMessages() { return vk::g_validation_messages.load(); }

}  // namespace kiln::hal

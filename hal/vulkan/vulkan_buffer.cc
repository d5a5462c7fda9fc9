// Vulkan buffers (hal/vulkan/vulkan_buffer.h).
#include "hal/vulkan/vulkan_buffer.h"

#include <cstring>
#include <string>

namespace kiln::hal::vk {

VulkanBuffer::~VulkanBuffer() {
  if (texel_view_) vkDestroyBufferView(core_->device, texel_view_, nullptr);
  if (mapped_) vkUnmapMemory(core_->device, memory_);
  if (buffer_) vkDestroyBuffer(core_->device, buffer_, nullptr);
  if (memory_) vkFreeMemory(core_->device, memory_, nullptr);
  if (memory_ && counted_) {
    std::lock_guard<std::mutex> l(core_->live_mu);
    core_->live_bytes -= padded();
  }
}

Status VulkanBuffer::Init(uint32_t memory_type, bool map, bool counted, bool texel_view) {
  counted_ = counted;
  texel_view = texel_view && (core_->features & kTexelInputs);
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = texel_view ? std::max<VkDeviceSize>(padded(), 16) : padded();
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (texel_view) bi.usage |= VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  KILN_VK(vkCreateBuffer(core_->device, &bi, nullptr, &buffer_), "creating a buffer");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(core_->device, buffer_, &req);
  if (!(req.memoryTypeBits & (1u << memory_type))) return Internal("no suitable Vulkan memory type for a buffer");
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = memory_type;
  {
    // Admitted and counted under one lock, so concurrent allocations cannot
    // pass the limit together; uncounted again if the driver then fails.
    std::lock_guard<std::mutex> l(core_->live_mu);
    if (core_->gate) KILN_RETURN_IF_ERROR(core_->gate->Admit(core_->live_bytes, padded(), counted_));
    if (counted_) {
      core_->live_bytes += padded();
      core_->peak_live_bytes = std::max(core_->peak_live_bytes, core_->live_bytes);
    }
  }
  VkResult r = core_->faults.BeforeAllocate();
  if (r == VK_SUCCESS) r = vkAllocateMemory(core_->device, &ai, nullptr, &memory_);
  if (r != VK_SUCCESS) {
    memory_ = VK_NULL_HANDLE;
    if (counted_) {
      std::lock_guard<std::mutex> l(core_->live_mu);
      core_->live_bytes -= padded();
    }
    KILN_VK(r, "allocating " + std::to_string(size_) + " bytes of device memory");
  }
  KILN_VK(vkBindBufferMemory(core_->device, buffer_, memory_, 0), "binding buffer memory");
  if (map) {
    KILN_VK(vkMapMemory(core_->device, memory_, 0, VK_WHOLE_SIZE, 0, &mapped_), "mapping buffer memory");
    std::memset(mapped_, 0, padded());
  }
  if (texel_view) {
    // The whole buffer from byte 0 in 16-byte texels, as far as the device's
    // texel limit reaches (shaders check textureSize() before using it).
    VkBufferViewCreateInfo vi{VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO};
    vi.buffer = buffer_;
    vi.format = VK_FORMAT_R32G32B32A32_SFLOAT;
    vi.offset = 0;
    vi.range = std::min<VkDeviceSize>(bi.size / 16, core_->props.limits.maxTexelBufferElements) * 16;
    KILN_VK(vkCreateBufferView(core_->device, &vi, nullptr, &texel_view_), "creating a texel buffer view");
  }
  return Status::Ok();
}

}  // namespace kiln::hal::vk

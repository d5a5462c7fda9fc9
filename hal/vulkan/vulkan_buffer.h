// Vulkan buffers: a VkBuffer and its memory, mapped where the memory is
// host-visible (unified devices, staging and parameter buffers).
#pragma once
#include <algorithm>
#include <memory>

#include "hal/vulkan/vulkan_core.h"

namespace kiln::hal::vk {

// A buffer and its memory. Sizes are rounded up to whole 32-bit words, since
// shaders address every buffer as an array of words.
class VulkanBuffer final : public Buffer {
 public:
  VulkanBuffer(std::shared_ptr<Core> core, size_t size) : core_(std::move(core)), size_(size) {}
  ~VulkanBuffer() override;
  size_t size() const override { return size_; }
  VkDeviceSize padded() const { return std::max<VkDeviceSize>(4, (size_ + 3) & ~size_t{3}); }
  // Creates the buffer in `memory_type`, mapped (and zero-filled) if `map`.
  // `counted`: whether it shows in DeviceStats' live bytes (not the staging
  // buffers the device keeps for transfers, whose size is bounded).
  // `texel_view`: also create the R32G32B32A32_SFLOAT uniform texel buffer
  // view of it that shaders with texel inputs read (ShaderVariant::
  // texel_inputs), where the device has kTexelInputs; the VkBuffer is then at
  // least 16 bytes so that the view has a texel.
  Status Init(uint32_t memory_type, bool map, bool counted = true, bool texel_view = false);
  VkBuffer handle() const { return buffer_; }
  VkBufferView texel_view() const { return texel_view_; }
  uint8_t* mapped() const { return static_cast<uint8_t*>(mapped_); }

 private:
  std::shared_ptr<Core> core_;
  size_t size_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkBufferView texel_view_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  void* mapped_ = nullptr;
  bool counted_ = true;
};

}  // namespace kiln::hal::vk

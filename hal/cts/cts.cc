// The conformance suite's fixture (hal/cts/cts.h).
#include "hal/cts/cts.h"

#include <cstring>

namespace kiln::hal::cts {

void HalCts::SetUp() {
  auto d = GetParam().create();
  ASSERT_TRUE(d.ok()) << d.status().message();
  device_ = std::move(d.value());
}

std::shared_ptr<Buffer> HalCts::Floats(const std::vector<float>& values) {
  auto b = device_->AllocateCopy(values.data(), values.size() * sizeof(float));
  EXPECT_TRUE(b.ok()) << b.status().message();
  return b.ok() ? b.value() : nullptr;
}

std::vector<float> HalCts::Read(const Buffer& buffer, size_t n, size_t first) {
  std::vector<float> out(n);
  Status s = device_->Download(buffer, first * sizeof(float), out.data(), n * sizeof(float));
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

BufferView HalCts::View(std::shared_ptr<Buffer> buffer, int64_t n, int64_t first) {
  return BufferView{ElementType::kF32, {n}, std::move(buffer), static_cast<size_t>(first) * sizeof(float)};
}

std::shared_ptr<Executable> HalCts::Add() {
  auto spec = GetParam().add_f32();
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  if (!spec.ok()) return nullptr;
  auto e = device_->PrepareExecutable(*spec);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return e.ok() ? e.value() : nullptr;
}

SemaphorePoint HalCts::SubmitSignalled(std::unique_ptr<CommandBuffer> commands, std::vector<SemaphorePoint> waits) {
  SemaphorePoint signal{device_->CreateSemaphore(0), 1};
  Status s = device_->Submit(std::move(commands), std::move(waits), signal);
  EXPECT_TRUE(s.ok()) << s.message();
  return signal;
}

}  // namespace kiln::hal::cts

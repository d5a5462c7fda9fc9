// Conformance: allocation, transfers, copies and the refusal of views and
// ranges outside their buffers.
#include "hal/cts/cts.h"

namespace kiln::hal::cts {
namespace {

TEST_P(HalCtsBuffer, AllocateIsZeroFilled) {
  auto b = device_->Allocate(6 * sizeof(float));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ((*b)->size(), 6 * sizeof(float));
  EXPECT_EQ(Read(**b, 6), std::vector<float>(6, 0.0f));
}

TEST_P(HalCtsBuffer, UploadDownloadRoundTripsAtAnOffset) {
  auto b = Floats({0, 0, 0, 0, 0, 0});
  const float part[] = {1.5f, -2.0f, 3.25f};
  ASSERT_TRUE(device_->Upload(*b, 2 * sizeof(float), part, sizeof(part)).ok());
  EXPECT_EQ(Read(*b, 6), (std::vector<float>{0, 0, 1.5f, -2.0f, 3.25f, 0}));
  EXPECT_EQ(Read(*b, 2, 3), (std::vector<float>{-2.0f, 3.25f}));
}

TEST_P(HalCtsBuffer, WrappedHostMemoryReadsTheHostValues) {
  const std::vector<float> host = {4, 5, 6};
  auto b = device_->WrapHostMemory(host.data(), host.size() * sizeof(float));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(Read(**b, 3), host);
}

TEST_P(HalCtsBuffer, TransfersOutsideTheBufferAreRefused) {
  auto b = Floats({1, 2, 3, 4});
  float data[4] = {};
  EXPECT_EQ(device_->Upload(*b, 3 * sizeof(float), data, 2 * sizeof(float)).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(device_->Download(*b, 5 * sizeof(float), data, 0).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(device_->Download(*b, 0, data, 5 * sizeof(float)).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(Read(*b, 4), (std::vector<float>{1, 2, 3, 4}));  // nothing was written
}

// transfer_stats() counts each host<->device transfer and its bytes: not a
// refused or empty one, nor a copy on the device.
TEST_P(HalCtsBuffer, TransfersAreCounted) {
  auto b = Floats({0, 0, 0, 0});
  const TransferStats t0 = device_->transfer_stats();
  const float part[3] = {1, 2, 3};
  float out[4];
  ASSERT_TRUE(device_->Upload(*b, 0, part, sizeof part).ok());
  ASSERT_TRUE(device_->Download(*b, 4, out, 8).ok());
  ASSERT_TRUE(device_->Download(*b, 0, out, 0).ok());
  EXPECT_FALSE(device_->Upload(*b, 8, part, sizeof part).ok());
  auto c = device_->Allocate(4 * sizeof(float));
  ASSERT_TRUE(c.ok());
  auto cmd = device_->CreateCommandBuffer();
  cmd->Copy(View(b, 4), View(*c, 4));
  ASSERT_TRUE(Await(SubmitSignalled(std::move(cmd))).ok());
  const TransferStats t1 = device_->transfer_stats();
  EXPECT_EQ(t1.uploads - t0.uploads, 1u);
  EXPECT_EQ(t1.upload_bytes - t0.upload_bytes, sizeof part);
  EXPECT_EQ(t1.downloads - t0.downloads, 1u);
  EXPECT_EQ(t1.download_bytes - t0.download_bytes, 8u);
}

TEST_P(HalCtsBuffer, CopyRoundTripsBetweenBuffersAndWithinOne) {
  auto a = Floats({1, 2, 3, 4, 5, 6});
  auto b = Floats({0, 0, 0, 0});
  auto cmd = device_->CreateCommandBuffer();
  EXPECT_TRUE(cmd->empty());
  cmd->Copy(View(a, 3, 2), View(b, 3, 1));  // b = 0 3 4 5
  cmd->Copy(View(b, 2, 1), View(a, 2, 0));  // sees the copy before it: a = 3 4 3 4 5 6
  EXPECT_FALSE(cmd->empty());
  ASSERT_TRUE(Await(SubmitSignalled(std::move(cmd))).ok());
  EXPECT_EQ(Read(*b, 4), (std::vector<float>{0, 3, 4, 5}));
  EXPECT_EQ(Read(*a, 6), (std::vector<float>{3, 4, 3, 4, 5, 6}));
}

TEST_P(HalCtsBuffer, CopyBetweenViewsOfDifferentSizesIsRefused) {
  auto a = Floats({1, 2, 3, 4});
  auto cmd = device_->CreateCommandBuffer();
  cmd->Copy(View(a, 2), View(a, 1, 3));
  Status s = Await(SubmitSignalled(std::move(cmd)));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
}

TEST_P(HalCtsBuffer, ViewsOutsideTheirBufferAreRefused) {
  auto a = Floats({1, 2, 3, 4});
  auto b = Floats({0, 0, 0, 0});
  struct Case {
    BufferView view;
    StatusCode code;
  };
  BufferView negative = View(a, 1);
  negative.dims = {-1};
  BufferView untyped = View(a, 1);
  untyped.type = ElementType::kInvalid;
  BufferView unbacked = View(nullptr, 1);
  const Case cases[] = {
      {View(a, 5), StatusCode::kOutOfRange},        // longer than the buffer
      {View(a, 2, 3), StatusCode::kOutOfRange},     // runs past the end
      {View(a, 0, 5), StatusCode::kOutOfRange},     // starts past the end
      {negative, StatusCode::kInvalidArgument},
      {untyped, StatusCode::kInvalidArgument},
      {unbacked, StatusCode::kInvalidArgument},
  };
  for (const Case& c : cases) {
    for (bool as_target : {false, true}) {
      BufferView other = View(b, c.view.dims[0] < 0 ? 1 : c.view.dims[0] > 4 ? 4 : c.view.dims[0]);
      auto cmd = device_->CreateCommandBuffer();
      if (as_target)
        cmd->Copy(other, c.view);
      else
        cmd->Copy(c.view, other);
      Status s = Await(SubmitSignalled(std::move(cmd)));
      EXPECT_EQ(s.code(), c.code) << s.message();
    }
  }
  EXPECT_EQ(Read(*a, 4), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(Read(*b, 4), (std::vector<float>{0, 0, 0, 0}));
}

}  // namespace
}  // namespace kiln::hal::cts

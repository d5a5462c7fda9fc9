// Conformance: dispatches, their order within a command buffer and across
// submissions chained by wait/signal points, and executables a device
// cannot take.
#include "hal/cts/cts.h"

namespace kiln::hal::cts {
namespace {

TEST_P(HalCtsDispatch, DispatchComputesItsOutput) {
  auto exe = Add();
  ASSERT_NE(exe, nullptr);
  auto a = Floats({1, 2, 3, 4, 5});
  auto b = Floats({10, 20, 30, 40, 50});
  auto out = Floats({0, 0, 0, 0, 0, 0, 0});
  auto cmd = device_->CreateCommandBuffer();
  cmd->Dispatch(exe, {View(a, 5), View(b, 5)}, {View(out, 5, 1)});
  DeviceStats before = device_->stats();
  ASSERT_TRUE(Await(SubmitSignalled(std::move(cmd))).ok());
  EXPECT_EQ(Read(*out, 7), (std::vector<float>{0, 11, 22, 33, 44, 55, 0}));
  EXPECT_EQ(device_->stats().dispatches, before.dispatches + 1);
  EXPECT_EQ(device_->stats().submissions, before.submissions + 1);
}

TEST_P(HalCtsDispatch, CommandsOfOneSubmissionSeeTheOnesBefore) {
  auto exe = Add();
  ASSERT_NE(exe, nullptr);
  auto a = Floats({1, 2, 3});
  auto t = Floats({0, 0, 0});
  auto u = Floats({0, 0, 0});
  auto cmd = device_->CreateCommandBuffer();
  cmd->Dispatch(exe, {View(a, 3), View(a, 3)}, {View(t, 3)});  // t = 2a
  cmd->Copy(View(t, 3), View(u, 3));                            // u = t
  cmd->Dispatch(exe, {View(u, 3), View(t, 3)}, {View(a, 3)});  // a = u + t = 4a
  ASSERT_TRUE(Await(SubmitSignalled(std::move(cmd))).ok());
  EXPECT_EQ(Read(*a, 3), (std::vector<float>{4, 8, 12}));
}

TEST_P(HalCtsDispatch, ChainedSubmissionsRunInOrder) {
  auto exe = Add();
  ASSERT_NE(exe, nullptr);
  const int64_t n = 1000;
  std::vector<float> start(n), ones(n, 1.0f);
  for (int64_t i = 0; i < n; ++i) start[i] = static_cast<float>(i);
  auto one = Floats(ones);
  std::shared_ptr<Buffer> ping = Floats(start), pong = Floats(std::vector<float>(n, 0.0f));
  // Each submission adds one, reading what the one before wrote (ping-pong,
  // so running out of order reads a stale or zero buffer), on one timeline.
  auto timeline = device_->CreateSemaphore(0);
  const int steps = 12;
  for (int k = 0; k < steps; ++k) {
    auto cmd = device_->CreateCommandBuffer();
    cmd->Dispatch(exe, {View(ping, n), View(one, n)}, {View(pong, n)});
    std::vector<SemaphorePoint> waits;
    if (k) waits.push_back({timeline, static_cast<uint64_t>(k)});
    ASSERT_TRUE(device_->Submit(std::move(cmd), std::move(waits), {timeline, static_cast<uint64_t>(k + 1)}).ok());
    std::swap(ping, pong);
  }
  ASSERT_TRUE(timeline->Wait(steps, std::chrono::seconds(30)).ok());
  std::vector<float> got = Read(*ping, n);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], start[i] + steps) << "element " << i;
}

TEST_P(HalCtsDispatch, WaitsOnSeveralPointsJoinBranches) {
  auto exe = Add();
  ASSERT_NE(exe, nullptr);
  auto a = Floats({1, 2});
  auto b = Floats({0, 0});
  auto c = Floats({0, 0});
  auto d = Floats({0, 0});
  auto left = device_->CreateCommandBuffer();
  left->Dispatch(exe, {View(a, 2), View(a, 2)}, {View(b, 2)});  // b = 2a
  SemaphorePoint l = SubmitSignalled(std::move(left));
  auto right = device_->CreateCommandBuffer();
  right->Copy(View(a, 2), View(c, 2));  // c = a
  SemaphorePoint r = SubmitSignalled(std::move(right));
  auto join = device_->CreateCommandBuffer();
  join->Dispatch(exe, {View(b, 2), View(c, 2)}, {View(d, 2)});  // d = 3a
  ASSERT_TRUE(Await(SubmitSignalled(std::move(join), {l, r})).ok());
  EXPECT_EQ(Read(*d, 2), (std::vector<float>{3, 6}));
}

TEST_P(HalCtsDispatch, DispatchOutsideItsBufferFailsTheSubmission) {
  auto exe = Add();
  ASSERT_NE(exe, nullptr);
  auto a = Floats({1, 2, 3});
  auto out = Floats({0, 0});
  auto cmd = device_->CreateCommandBuffer();
  cmd->Dispatch(exe, {View(a, 3), View(a, 3)}, {View(out, 3)});
  Status s = Await(SubmitSignalled(std::move(cmd)));
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange) << s.message();
  EXPECT_EQ(Read(*out, 2), (std::vector<float>{0, 0}));
}

TEST_P(HalCtsDispatch, SpecWithoutThisDevicesFormatIsRefusedByName) {
  ExecutableSpec spec{"test.kernel", {}};
  spec.Add("no-such-format", std::make_shared<const int>(0));
  auto e = device_->PrepareExecutable(spec);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("test.kernel"), std::string::npos) << e.status().message();
  EXPECT_NE(e.status().message().find("no-such-format"), std::string::npos) << e.status().message();
}

TEST_P(HalCtsDispatch, ExecutableKeepsItsName) {
  auto spec = GetParam().add_f32();
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto e = device_->PrepareExecutable(*spec);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ((*e)->name(), spec->name);
}

}  // namespace
}  // namespace kiln::hal::cts

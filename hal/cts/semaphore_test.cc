// Conformance: timeline semaphores and how failures travel through them to
// host waiters and to later submissions.
#include <thread>

#include "hal/cts/cts.h"

namespace kiln::hal::cts {
namespace {

TEST_P(HalCtsSemaphore, SignalsOnlyForward) {
  auto s = device_->CreateSemaphore(2);
  EXPECT_EQ(s->Value(), 2u);
  s->Signal(5);
  s->Signal(3);  // a timeline never goes back
  EXPECT_EQ(s->Value(), 5u);
  EXPECT_TRUE(s->Wait(5, std::chrono::milliseconds(0)).ok());
}

TEST_P(HalCtsSemaphore, WaitTimesOut) {
  auto s = device_->CreateSemaphore(0);
  auto start = std::chrono::steady_clock::now();
  Status st = s->Wait(1, std::chrono::milliseconds(20));
  EXPECT_EQ(st.code(), StatusCode::kDeadlineExceeded) << st.message();
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(20));
}

TEST_P(HalCtsSemaphore, WaiterOnAnotherThreadIsWoken) {
  auto s = device_->CreateSemaphore(0);
  std::thread signaller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    s->Signal(1);
  });
  EXPECT_TRUE(s->Wait(1, std::chrono::seconds(30)).ok());
  signaller.join();
}

TEST_P(HalCtsSemaphore, FailureReachesEveryWaiter) {
  auto s = device_->CreateSemaphore(0);
  Status seen_by_thread;
  std::thread waiter([&] { seen_by_thread = s->Wait(1, std::chrono::seconds(30)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  s->Fail(Internal("first cause"));
  s->Fail(Internal("second cause"));  // the first failure is the one kept
  waiter.join();
  EXPECT_EQ(seen_by_thread.code(), StatusCode::kInternal);
  EXPECT_EQ(seen_by_thread.message(), "first cause");
  // A failed semaphore stays failed, even for values it had reached.
  s->Signal(7);
  EXPECT_EQ(s->Wait(0, std::chrono::milliseconds(0)).message(), "first cause");
}

TEST_P(HalCtsSemaphore, FailurePropagatesToLaterSubmissions) {
  auto src = Floats({1, 2, 3, 4});
  auto dst = Floats({0, 0, 0, 0});
  auto failed = device_->CreateSemaphore(0);
  failed->Fail(Internal("upstream failure"));
  // A copy that waits on the failed point does not run; its signal fails
  // with the cause, and so does the signal of work that waits on it.
  auto first = device_->CreateCommandBuffer();
  first->Copy(View(src, 4), View(dst, 4));
  SemaphorePoint a = SubmitSignalled(std::move(first), {{failed, 1}});
  auto second = device_->CreateCommandBuffer();
  second->Copy(View(src, 4), View(dst, 4));
  SemaphorePoint b = SubmitSignalled(std::move(second), {a});
  EXPECT_EQ(Await(a).message(), "upstream failure");
  EXPECT_EQ(Await(b).message(), "upstream failure");
  EXPECT_EQ(Read(*dst, 4), (std::vector<float>{0, 0, 0, 0}));
}

TEST_P(HalCtsSemaphore, FailedSubmissionFailsItsSignalAndWhatWaits) {
  auto small = Floats({1, 2});
  auto dst = Floats({0, 0, 0, 0});
  auto bad = device_->CreateCommandBuffer();
  bad->Copy(View(small, 4), View(dst, 4));  // the source view lies outside its buffer
  SemaphorePoint a = SubmitSignalled(std::move(bad));
  auto next = device_->CreateCommandBuffer();
  next->Copy(View(dst, 2), View(dst, 2, 2));
  SemaphorePoint b = SubmitSignalled(std::move(next), {a});
  Status sa = Await(a), sb = Await(b);
  EXPECT_EQ(sa.code(), StatusCode::kOutOfRange) << sa.message();
  EXPECT_EQ(sb.code(), StatusCode::kOutOfRange) << sb.message();
  EXPECT_EQ(Read(*dst, 4), (std::vector<float>{0, 0, 0, 0}));
}

TEST_P(HalCtsSemaphore, SubmitWithoutSignalIsRefused) {
  Status s = device_->Submit(device_->CreateCommandBuffer(), {}, SemaphorePoint{});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
}

}  // namespace
}  // namespace kiln::hal::cts

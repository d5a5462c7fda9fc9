// The HAL conformance suite: tests written against the interfaces of
// hal/hal.h only, run for every driver. A driver joins by instantiating the
// suites with KILN_HAL_CTS_INSTANTIATE and a CtsDriver that opens its device
// and builds the one executable the suite dispatches (tests/hal/cts/).
#pragma once
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "hal/hal.h"

namespace kiln::hal::cts {

struct CtsDriver {
  std::string name;  // test-name safe: "cpu_inline"
  std::function<StatusOr<std::unique_ptr<Device>>()> create;
  // An executable computing out = a + b over rank-1 f32 tensors (inputs a,
  // b; output out), as `device` takes it.
  std::function<StatusOr<ExecutableSpec>()> add_f32;
};

// gtest prints a driver by its name.
inline void PrintTo(const CtsDriver& driver, std::ostream* os) { *os << driver.name; }

inline std::string CtsName(const ::testing::TestParamInfo<CtsDriver>& info) { return info.param.name; }

class HalCts : public ::testing::TestWithParam<CtsDriver> {
 protected:
  void SetUp() override;
  void TearDown() override { device_.reset(); }

  // A buffer holding `values`.
  std::shared_ptr<Buffer> Floats(const std::vector<float>& values);
  // `n` floats of `buffer` from element `first`.
  std::vector<float> Read(const Buffer& buffer, size_t n, size_t first = 0);
  // A rank-1 f32 view of `n` elements at element `first` of `buffer`.
  static BufferView View(std::shared_ptr<Buffer> buffer, int64_t n, int64_t first = 0);
  // The add executable of this driver.
  std::shared_ptr<Executable> Add();
  // Submits `commands` waiting on `waits` and signalling a new semaphore at
  // 1; returns that semaphore's point.
  SemaphorePoint SubmitSignalled(std::unique_ptr<CommandBuffer> commands, std::vector<SemaphorePoint> waits = {});
  static Status Await(const SemaphorePoint& p) { return p.semaphore->Wait(p.value, std::chrono::seconds(30)); }

  std::unique_ptr<Device> device_;
};

using HalCtsSemaphore = HalCts;
using HalCtsBuffer = HalCts;
using HalCtsDispatch = HalCts;

}  // namespace kiln::hal::cts

// Runs every suite of the conformance suite for the drivers `...`.
#define KILN_HAL_CTS_INSTANTIATE(prefix, ...)                                                                  \
  INSTANTIATE_TEST_SUITE_P(prefix, HalCtsSemaphore, ::testing::Values(__VA_ARGS__), ::kiln::hal::cts::CtsName); \
  INSTANTIATE_TEST_SUITE_P(prefix, HalCtsBuffer, ::testing::Values(__VA_ARGS__), ::kiln::hal::cts::CtsName);    \
  INSTANTIATE_TEST_SUITE_P(prefix, HalCtsDispatch, ::testing::Values(__VA_ARGS__), ::kiln::hal::cts::CtsName)

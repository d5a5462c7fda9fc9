// vm-run --compare-with: every dispatch a device runs runs a second time on
// the host, on copies of its inputs taken just before it ran, and its
// outputs are compared with the host's: =reference on the CPU device runs
// the reference kernels (kernels/reference); =cpu on the Vulkan device (run
// one dispatch at a time: tools/common/stepping_device.h) runs the kernels
// the CPU device would. The first dispatch that differs beyond tolerance is kept,
// with its op, where it is in the source, its inputs and both outputs, for
// the report and the repro directory (tools/common/dispatch_repro.h).
// Comparing stops there; the run itself goes on.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "hal/hal.h"
#include "hal/trace.h"
#include "kernels/common/kernel.h"
#include "vm/host_tensor.h"
#include "vm/module.h"

namespace kiln::tools {

// How close a fast kernel's float result must be to the reference's:
// |got - want| <= atol + rtol * |want| (complex parts separately), NaN
// matches NaN. Integers, booleans and quantized storage match exactly.
// Unset (< 0), per element type: f64 1e-9, f32 1e-4, f16/bf16 1e-2, the
// 8-bit and smaller floats 1e-1 (fast kernels sum in another order, and
// use their own polynomials for exp, tanh, ...).
struct CompareTolerance {
  double atol = -1, rtol = -1;
  double Atol(ElementType t) const;
  double Rtol(ElementType t) const;
};

// What the device's dispatches are compared with.
enum class CompareAgainst {
  kReference,  // the reference kernels
  kCpu,        // the CPU device's kernels (its fast kernel where one applies)
};

struct DispatchMismatch {
  size_t dispatch = 0;  // 1-based, in the order the device ran them
  const KernelParams* params = nullptr;
  std::string function;      // the VM function that recorded it
  std::string source_file;   // as the module records it (may be empty)
  uint32_t line = 0, col = 0;  // 0 if unknown
  std::vector<vm::HostTensor> inputs;
  std::vector<vm::HostTensor> got, want;  // the device's outputs and the host kernel's
  size_t output = 0;   // the first output that differs,
  int64_t index = 0;   // its first differing element (flat, row-major)
  int64_t differing = 0;  // elements of that output beyond tolerance
  double max_abs = 0, max_rel = 0;  // over that output's elements
};

class DispatchComparer final : public hal::DispatchObserver {
 public:
  // `device`: the CPU device that runs the dispatches (its buffers are read
  // through Download). `next`: another observer (the profiler) that sees
  // every dispatch as well, or null.
  DispatchComparer(std::shared_ptr<const vm::LoadedModule> module, hal::Device* device, CompareTolerance tolerance,
                   std::shared_ptr<hal::DispatchObserver> next, CompareAgainst against = CompareAgainst::kReference);

  void BeforeDispatch(const hal::DispatchSpan& span) override;
  void OnDispatch(const hal::DispatchSpan& span) override;

  // The first mismatch, if any.
  const std::optional<DispatchMismatch>& mismatch() const { return mismatch_; }
  // "compared N dispatches: ..." or the mismatch's description: op, fused
  // ops, function, file:line:col, first differing element with both values,
  // max abs/rel error.
  std::string Report() const;
  // An error that kept a dispatch from being compared (a failed download, a
  // reference kernel's error), or Ok.
  const Status& error() const { return error_; }
  const CompareTolerance& tolerance() const { return tolerance_; }
  CompareAgainst against() const { return against_; }

 private:
  std::string Describe(const DispatchMismatch& m) const;

  std::shared_ptr<const vm::LoadedModule> module_;
  hal::Device* device_;
  CompareTolerance tolerance_;
  std::shared_ptr<hal::DispatchObserver> next_;
  CompareAgainst against_;
  std::mutex mu_;
  std::vector<vm::HostTensor> pending_inputs_;  // of the dispatch that is running
  bool have_pending_ = false;
  size_t dispatches_ = 0, compared_ = 0, without_reference_ = 0;
  std::vector<std::string> no_reference_kernels_;
  std::optional<DispatchMismatch> mismatch_;
  Status error_;
};

// The op names a dispatch covers: its kernel, and for a fused one the ops of
// its scalar programs and row-block units ("kiln.elementwise: stablehlo.add,
// stablehlo.tanh").
std::string FusedOps(const KernelParams& params);

}  // namespace kiln::tools

// libFuzzer target: bytes -> vm::LoadModuleBorrowed over a read-only copy
// of them (the mapped path: verified and used in place, and a write to a
// constant would fault, as on a mapped file); if the module loads, a
// vm::Context on an inline CPU device invokes every function whose
// arguments are static-shape tensors, with zero-filled inputs.
//
// Nothing may crash, read out of bounds or hang. What a loaded module may
// legitimately do (loop forever, allocate terabytes, run a huge kernel) is
// kept out of reach by the harness, not by the runtime:
//  - a function is invoked only if it and everything it calls has no
//    backward jump and no call cycle, and the instructions it can execute
//    (calls expanded) stay under kMaxSteps, with at most kMaxDispatches
//    dispatches;
//  - every buffer allocation goes through a device wrapper that refuses
//    more than kMaxBufferBytes (the invocation then fails cleanly);
//  - inputs and static results are capped at kMaxElements each.
//
// Mutations alternate between libFuzzer's byte-level ones and the
// structure-aware module mutator (module_mutator.h), which changes one field
// of the FlatBuffer as the schema describes it. See docs/fuzzing.md.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hal/cpu/cpu_device.h"
#include "hal/hal.h"
#include "tests/fuzz/module_mutator.h"
#include "vm/context.h"
#include "vm/host_tensor.h"
#include "vm/module.h"

namespace {

using namespace kiln;

constexpr int64_t kMaxElements = int64_t{1} << 16;
constexpr size_t kMaxBufferBytes = size_t{1} << 20;
constexpr uint64_t kMaxSteps = 20000;
constexpr uint64_t kMaxDispatches = 256;

// Forwards to the CPU device; refuses large allocations so that a hostile
// `alloc` fails with a status instead of exhausting memory.
class CappedDevice final : public hal::Device {
 public:
  explicit CappedDevice(std::unique_ptr<hal::Device> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name(); }
  StatusOr<std::shared_ptr<hal::Buffer>> Allocate(size_t bytes) override {
    if (bytes > kMaxBufferBytes) return ResourceExhausted("fuzz harness: allocation over the cap");
    return inner_->Allocate(bytes);
  }
  // Constants and arguments in place, as on the CPU device itself.
  StatusOr<std::shared_ptr<hal::Buffer>> WrapHostMemory(const void* data, size_t bytes) override {
    return inner_->WrapHostMemory(data, bytes);
  }
  Status Upload(const hal::Buffer& b, size_t offset, const void* data, size_t bytes) override {
    return inner_->Upload(b, offset, data, bytes);
  }
  Status Download(const hal::Buffer& b, size_t offset, void* data, size_t bytes) override {
    return inner_->Download(b, offset, data, bytes);
  }
  StatusOr<std::shared_ptr<hal::Executable>> PrepareExecutable(const hal::ExecutableSpec& spec) override {
    return inner_->PrepareExecutable(spec);
  }
  std::unique_ptr<hal::CommandBuffer> CreateCommandBuffer() override { return inner_->CreateCommandBuffer(); }
  std::shared_ptr<hal::Semaphore> CreateSemaphore(uint64_t v) override { return inner_->CreateSemaphore(v); }
  Status Submit(std::unique_ptr<hal::CommandBuffer> c, std::vector<hal::SemaphorePoint> w,
                hal::SemaphorePoint s) override {
    return inner_->Submit(std::move(c), std::move(w), std::move(s));
  }
  hal::DeviceStats stats() const override { return inner_->stats(); }

 private:
  std::unique_ptr<hal::Device> inner_;
};

struct Cost {
  uint64_t steps = 0, dispatches = 0;
  bool bounded = true;
};

// Upper bound on what one invocation of function `f` can execute. Only
// loop-free, non-recursive code is bounded; anything else is `!bounded`.
Cost CostOf(const vm::LoadedModule& m, size_t f, std::vector<int>& state, std::vector<Cost>& memo) {
  if (state[f] == 2) return memo[f];
  if (state[f] == 1) return Cost{0, 0, false};  // call cycle
  state[f] = 1;
  Cost c;
  const auto& code = m.functions[f].code;
  for (size_t i = 0; i < code.size() && c.bounded; ++i) {
    const auto& ins = code[i];
    ++c.steps;
    switch (ins.op) {
      case vm::Opcode::kBr:
        if (ins.operands[0].value <= i) c.bounded = false;
        break;
      case vm::Opcode::kBrIf:
        if (ins.operands[1].value <= i) c.bounded = false;
        break;
      case vm::Opcode::kDispatch:
        ++c.dispatches;
        break;
      case vm::Opcode::kCall: {
        Cost callee = CostOf(m, ins.operands[0].value, state, memo);
        if (!callee.bounded) c.bounded = false;
        c.steps += callee.steps;
        c.dispatches += callee.dispatches;
        break;
      }
      default:
        break;
    }
    if (c.steps > kMaxSteps || c.dispatches > kMaxDispatches) c.bounded = false;
  }
  state[f] = 2;
  memo[f] = c;
  return c;
}

// Zero-filled inputs for `fn`, or false if an argument is not a static
// tensor or the sizes are over the cap.
bool MakeInputs(const vm::LoadedFunction& fn, std::vector<vm::HostTensor>* inputs) {
  for (const auto& sig : fn.results) {
    if (sig.kind != vm::ValueSig::Kind::kTensor) continue;
    int64_t n = 1;
    for (int64_t d : sig.dims) {
      if (d < 0) continue;  // dynamic result: the allocation cap bounds it
      if (d != 0 && n > kMaxElements / d) return false;
      n *= d;
    }
  }
  for (const auto& sig : fn.args) {
    if (sig.kind != vm::ValueSig::Kind::kTensor) return false;
    vm::HostTensor t;
    t.type = sig.type;
    int64_t n = 1;
    for (int64_t d : sig.dims) {
      if (d < 0) return false;
      if (d != 0 && n > kMaxElements / d) return false;
      n *= d;
      t.dims.push_back(d);
    }
    t.data.assign(static_cast<size_t>(n) * StorageBytes(t.type), 0);
    inputs->push_back(std::move(t));
  }
  return true;
}

}  // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

// Half the mutations change a field of the module (when the input is still a
// FlatBuffer of the schema), half its bytes.
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  if (seed % 2 == 0) {
    if (size_t n = fuzz::MutateModuleStructure(data, size, max_size, seed / 2)) return n;
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Checksums off: random bytes never match one, and the point is to reach
  // the structural checks behind it (docs/fuzzing.md).
  vm::LoadOptions load_options;
  load_options.verify_checksums = false;
  // The input in pages of its own, read-only, unmapped when the module goes.
  const size_t pages = size ? size : 1;
  void* copy = mmap(nullptr, pages, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (copy == MAP_FAILED) return 0;
  if (size) std::memcpy(copy, data, size);
  mprotect(copy, pages, PROT_READ);
  auto loaded = vm::LoadModuleBorrowed(std::span<const uint8_t>(static_cast<const uint8_t*>(copy), size),
                                       [copy, pages] { munmap(copy, pages); }, load_options);
  if (!loaded.ok()) return 0;
  std::shared_ptr<const vm::LoadedModule> module = *loaded;

  const size_t nf = module->functions.size();
  std::vector<int> state(nf, 0);
  std::vector<Cost> memo(nf);
  std::vector<size_t> runnable;
  for (size_t f = 0; f < nf; ++f)
    if (CostOf(*module, f, state, memo).bounded) runnable.push_back(f);
  if (runnable.empty()) return 0;

  CappedDevice device(hal::CreateCpuDevice(hal::CpuMode::kInline));
  auto context = vm::Context::Create(module, &device);
  if (!context.ok()) return 0;
  vm::InvokeOptions options;
  options.print = [](const std::string&) {};
  options.allow_private = true;  // private functions are code to exercise too
  for (size_t f : runnable) {
    const vm::LoadedFunction& fn = module->functions[f];
    std::vector<vm::HostTensor> inputs;
    if (!MakeInputs(fn, &inputs)) continue;
    (void)(*context)->Invoke(fn.name, inputs, options);
    (*context)->ClearCheckFailures();
  }
  return 0;
}

// A VM context: one module instantiated on one device, ready to invoke.
// The interpreter records dispatches into a command buffer and submits it
// when the host must see a value (a branch predicate, a check, a result),
// or when the recorded work grows past a bound (RecordDispatch: a loop whose
// condition stays in i64 registers never needs a value, and its command
// buffer would otherwise keep every iteration's buffers alive); it reads
// buffers only after waiting on the submission's semaphore.
#pragma once
#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hal/hal.h"
#include "kiln_selected_kernels.h"
#include "vm/collectives/collectives.h"
#include "vm/host_tensor.h"
#include "vm/module.h"

namespace kiln::vm {

struct GridRun;

// Whether KILN_ARENA_POISON=1 is set (vm/arena.cc).
bool ArenaPoisonRequested();
struct GridResult;

// A value in a ref register: a tensor (buffer view), a list (tuple), or a token.
struct RefValue {
  enum class Kind : uint8_t { kEmpty, kView, kList, kToken };
  Kind kind = Kind::kEmpty;
  std::shared_ptr<const hal::BufferView> view;
  std::shared_ptr<const std::vector<RefValue>> list;
};

// View objects of finished activations' registers, their buffers dropped,
// which the next views take instead of allocating: in the steady state a
// call allocates no view (a view and its dims were two heap allocations per
// tensor per call). Bounded: past kMax spare views the rest are freed. (A
// fixed array: the runtime's selective builds are held to their size.)
class ViewPool {
 public:
  std::shared_ptr<hal::BufferView> Take() {
    // (Selective builds, held to their size, keep no spare views.)
    if (KILN_SELECTIVE_BUILD || count_ == 0) return std::make_shared<hal::BufferView>();
    return std::move(spare_[--count_]);
  }
  // `v` must be held by nobody else (use_count 1).
  void Give(std::shared_ptr<hal::BufferView> v);

 private:
  static constexpr size_t kMax = 64;
  std::array<std::shared_ptr<hal::BufferView>, kMax> spare_;
  size_t count_ = 0;
};

// The object to write a register's next view into (arena.view, reshape,
// subview, alloc): its previous view when nothing else holds it -- a loop
// body sets the same registers every step, and recorded commands copy
// views, so a pending dispatch never holds one -- taken out of the
// register, else a spare one from `pool` or a new one. Every view in a
// register is made non-const (make_shared<hal::BufferView>), so writing
// through it is sound.
inline std::shared_ptr<hal::BufferView> TakeReusableView(RefValue& dst, ViewPool& pool) {
  if (dst.kind == RefValue::Kind::kView && dst.view && dst.view.use_count() == 1)
    return std::const_pointer_cast<hal::BufferView>(std::move(dst.view));
  return pool.Take();
}

class Profiler;  // vm/profiler.h

struct InvokeOptions {
  // Called for interpreter.print; defaults to stdout.
  std::function<void(const std::string&)> print;
  // This process's place in the grid, and what the grid's processes share
  // (transport, infeed, outfeed). Without a grid the function runs as the
  // one process of a 1x1 grid.
  uint32_t replica_id = 0, partition_id = 0;
  std::shared_ptr<GridEnvironment> grid;
  // How long a collective waits for its peers before it fails, naming them.
  std::chrono::milliseconds collective_timeout{60000};
  // Runs interpreter.run_parallel's grids; unset: RunGrid, in this process
  // (vm/collectives/grid.h). Under MPI, one rank per grid process (vm/collectives/mpi/).
  std::function<Status(const std::shared_ptr<const LoadedModule>&, const GridRun&, GridResult*)> run_grid;
  // The call's time limit (zero: none). Once past it the call fails with
  // DeadlineExceeded, "timed out after S s", naming where it stopped. It is
  // checked on backward jumps, calls, and after each wait for device work:
  // work already submitted to the device is not interrupted, so the call
  // returns once that has finished. Collectives keep their own timeout.
  std::chrono::milliseconds timeout{0};
  // Set from any thread to stop the call (the C API's kiln_fence_cancel):
  // it then fails with Cancelled, "cancelled", naming where it stopped. It is
  // read where the deadline is checked, so the same limits hold: a call
  // stops within microseconds of a check, but device work already submitted
  // (one long dispatch) and a collective's wait for its peers run on. Must
  // outlive the call; null: not cancellable.
  const std::atomic<bool>* cancel = nullptr;
  // Only public functions are entry points (the C API lists only those), so
  // a private one is refused; interpreter.run_parallel's grids run the
  // programs they name, public or not.
  bool allow_private = false;
  // Records the call, and tags its dispatches with their function and
  // instruction, for a profiler the device reports to (vm/profiler.h).
  Profiler* profiler = nullptr;
};

// An input the caller lends for one call: read in place where the device
// computes in host memory, so it must stay alive and unchanged until Invoke
// returns (the C API's inputs).
struct BorrowedTensor {
  ElementType type = ElementType::kInvalid;
  const int64_t* dims = nullptr;
  size_t rank = 0;
  const void* data = nullptr;
  size_t byte_size = 0;
};

// An argument of a call that may stay on the device (the C API's
// kiln_value_t): a borrowed host tensor as above, or, where `device` is set,
// a tensor already in this context's device memory, passed without a
// transfer. A device tensor given for a donated argument (LoadedFunction::
// donations) is consumed by the call: see CallOutcome.
struct CallInput {
  BorrowedTensor host;
  std::shared_ptr<const hal::BufferView> device;
};

// Where one result of a call goes: downloaded into a HostTensor, kept on the
// device (a tensor only), or downloaded straight into `size` bytes of the
// caller's memory at `data` (a tensor of exactly that many bytes; on the CPU
// the download is the one copy).
struct ResultPlacement {
  enum class Kind : uint8_t { kHost, kDevice, kInto };
  Kind kind = Kind::kHost;
  void* data = nullptr;
  size_t size = 0;
};

struct CallResult {
  HostTensor host;                               // kHost
  std::shared_ptr<const hal::BufferView> device;  // kDevice: its own whole buffer
  ElementType type = ElementType::kInvalid;      // kDevice and kInto
  std::vector<int64_t> dims;
};

struct CallOutcome {
  std::vector<CallResult> results;
  // The inputs passed on the device for donated arguments, ascending: the
  // caller must not use them again (their buffers may now hold a result).
  std::vector<uint32_t> consumed;
  // Results written into a donated input's buffer (in place of a new one).
  std::vector<uint32_t> in_place;
};

class Context {
 public:
  static StatusOr<std::unique_ptr<Context>> Create(std::shared_ptr<const LoadedModule> module,
                                                   hal::Device* device);
  ~Context();

  // Runs a function on host tensors. Check failures do not stop the run;
  // they are collected in check_failures().
  StatusOr<std::vector<HostTensor>> Invoke(const std::string& function, const std::vector<HostTensor>& inputs,
                                           const InvokeOptions& options = {});
  // The same, with the results written into *results. Tensors already there
  // (an earlier call's results) lend their storage to the results that take
  // their place: a result of the size it had is copied into memory that is
  // already allocated and touched, with no zero-fill (a repeated call of a
  // large function, vm-bench, the C API's recycled results).
  Status Invoke(const std::string& function, const std::vector<HostTensor>& inputs, const InvokeOptions& options,
                std::vector<HostTensor>* results);
  // The same on borrowed inputs (tensors only), read in place.
  Status Invoke(const std::string& function, const std::vector<BorrowedTensor>& inputs,
                const InvokeOptions& options, std::vector<HostTensor>* results);
  // The same on arguments that may be device tensors, with each result placed
  // as `placement` says (one per result, or empty: all downloaded). A donated
  // argument's device tensor whose result (ArgDonation::output, or for -1
  // the first result kept on the device of its type and shape) is kept on
  // the device, with its type and shape, receives that result: the result is
  // copied into the donated buffer on the device, after the function's own
  // work and in the same submission, and is returned as a view of it
  // (vm/context_buffers.cc).
  Status Invoke(const std::string& function, const std::vector<CallInput>& inputs,
                const std::vector<ResultPlacement>& placement, const InvokeOptions& options, CallOutcome* outcome);
  const std::vector<std::string>& check_failures() const { return check_failures_; }
  void ClearCheckFailures() { check_failures_.clear(); }
  const LoadedModule& module() const { return *module_; }
  hal::Device& device() { return *device_; }

 private:
  struct Frame {
    int function = 0;
    std::vector<int64_t> i64;
    std::vector<RefValue> refs;
    // This activation's arena (memory planning), taken at its first
    // arena.view from arena_cache_ or the device: each live activation has
    // its own, so recursion never shares one, and pending work keeps it
    // alive until it has run.
    std::shared_ptr<hal::Buffer> arena;
  };
  Context(std::shared_ptr<const LoadedModule> module, hal::Device* device);
  // A frame for an activation: a finished one's (its vectors' storage kept)
  // or a new one; and its return, every value dropped, views nobody else
  // holds to views_.
  std::unique_ptr<Frame> TakeFrame();
  void ReleaseFrame(std::unique_ptr<Frame> frame);
  Status Instantiate();
  // The interpreter (vm/interpreter.cc): Run sets up a call's frame,
  // Execute runs its instructions.
  Status Run(int function, std::vector<RefValue> args, std::vector<RefValue>* results, int depth);
  Status Execute(Frame& frame, int depth);
  // Submits the pending command buffer (ordered after the previous
  // submission); Sync also waits for it.
  Status Flush();
  Status Sync();
  // Accounts for a dispatch just recorded into pending_, writing
  // `output_bytes`; past the bound submits the pending work and, if the host
  // is more than a few submissions ahead of the device, waits for the oldest
  // (docs/architecture.md, "Submission").
  Status RecordDispatch(uint64_t output_bytes);
  // InvokeOptions::timeout and cancel: DeadlineExceeded once the call is
  // past its deadline, Cancelled once its cancel flag is set. The interpreter calls it every kDeadlineTicks backward jumps
  // (reading the clock on every jump would slow scalar loops: a loop
  // iteration takes tens of nanoseconds, so a deadline is still seen within
  // microseconds), on calls and after waits.
  Status CheckDeadline();
  static constexpr int64_t kDeadlineTicks = 1024;
  // Puts constant `index` on the device (constants_[index]) on its first
  // use: its checksum and decompression (LoadedConstant::Data), then a
  // read-only view of it in place where the device reads host memory, else
  // an upload.
  Status UseConstant(uint32_t index);
  StatusOr<HostTensor> Read(const RefValue& v);
  // Read into *t, reusing its storage (see Invoke).
  Status ReadInto(const RefValue& v, HostTensor* t);
  // Invoke's common path: the checks of the calling convention on
  // inputs[i] (one of the two lists is given), the call, the results.
  Status InvokeImpl(const std::string& name, size_t count, const HostTensor* host, const BorrowedTensor* borrowed,
                    const InvokeOptions& options, std::vector<HostTensor>* results);
  // InvokeImpl's first part: the checks and the run, leaving the results on
  // the device and the work recorded but not waited for (`values`: the
  // CallInput form). Sets *function to the function's index.
  Status RunCall(const std::string& name, size_t count, const HostTensor* host, const BorrowedTensor* borrowed,
                 const CallInput* values, const InvokeOptions& options, std::vector<RefValue>* results,
                 int* function);
  // A result kept on the device as a view of a whole buffer of its own: one
  // that shares its buffer (an arena, a constant, an argument) is copied into
  // a new one on the device (vm/context_buffers.cc).
  StatusOr<std::shared_ptr<const hal::BufferView>> OwnResult(const RefValue& v, const std::vector<CallInput>& inputs);
  StatusOr<RefValue> Write(const HostTensor& t);
  // An argument of Invoke: a view of t's own memory where the device reads
  // host memory in place (valid until Invoke returns), else a copy.
  StatusOr<RefValue> WriteArgument(const HostTensor& t);
  // A new tensor of `dims`: zero-filled, or holding init's data (which must
  // have the shape's size), copied or, with `wrap`, read in place where the
  // device can (valid while init lives).
  StatusOr<RefValue> AllocateView(ElementType type, std::vector<int64_t> dims, const HostTensor* init = nullptr,
                                  bool wrap = false);
  // dst := a tensor of the dims in registers `dims` whose contents are
  // unspecified: the `alloc` instruction's, which the dispatch after it
  // writes whole (dst's own buffer where nothing else holds it).
  Status AllocateOutput(RefValue& dst, ElementType type, const std::vector<uint32_t>& dims, const int64_t* regs);
  // A view of `bytes` bytes at `data` (checked against the shape), read in
  // place where the device can.
  StatusOr<RefValue> WrapView(ElementType type, std::vector<int64_t> dims, const void* data, size_t bytes);
  // arena.view: R[a] := a view of the frame's arena (docs/memory.md).
  Status ArenaView(const Instruction& ins, Frame& frame);
  // At an activation's end: keeps its arena for the function's next
  // activation (arena_cache_), unless one is kept already.
  void KeepArena(Frame& frame);
  Status RunCheck(const Instruction& ins, Frame& frame);
  // global.load and global.store (module globals; vm/context_buffers.cc).
  Status LoadGlobal(uint32_t global, RefValue* dst);
  Status StoreGlobal(uint32_t global, const RefValue& value);
  // Collectives and interpreter.run_parallel (vm/collectives/context_collectives.cc).
  Status RunCollective(const Instruction& ins, Frame& frame);
  Status RunParallel(const Instruction& ins, Frame& frame, int depth);
  // Folds `parts` (group order) with the reduction executable into `out`;
  // part `self` is already on the device as `self_value` (not re-uploaded).
  Status ReduceInto(uint32_t executable, const std::vector<const HostTensor*>& parts, size_t self,
                    const RefValue& self_value, const RefValue& out);
  // A collective of one tensor `in` into `out` computed straight between
  // the processes' buffers where the host addresses them
  // (vm/collectives/context_in_place.cc); `exe`: the reduction body, or
  // UINT32_MAX. False: not possible here, take the general path.
  StatusOr<bool> CollectiveInPlace(const CollectiveDesc& d, uint32_t exe, const RefValue& in, const RefValue& out);
  GridEnvironment& Grid();

  std::shared_ptr<const LoadedModule> module_;
  hal::Device* device_;
  std::vector<RefValue> constants_;  // empty until first used
  // Each module global's value (empty: its initial constant). A store
  // replaces it with a copy of the value, recorded in the call's work; a
  // failed call, whose work is discarded, puts back each global it stored
  // to from global_undo_ (each such global's value at the call's start,
  // kept once however often the call stores to it).
  std::vector<RefValue> globals_;
  std::vector<std::pair<uint32_t, RefValue>> global_undo_;
  std::vector<std::shared_ptr<hal::Executable>> executables_;
  std::unique_ptr<hal::CommandBuffer> pending_;
  std::shared_ptr<hal::Semaphore> timeline_;
  uint64_t timeline_value_ = 0;
  uint64_t pending_dispatches_ = 0, pending_bytes_ = 0;  // recorded in pending_ since the last submission
  std::vector<std::string> check_failures_;
  std::map<std::string, std::vector<HostTensor>> probes_;
  InvokeOptions options_;
  bool has_deadline_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::shared_ptr<GridEnvironment> local_grid_;  // the 1x1 grid of a plain Invoke
  std::map<uint32_t, CollectiveDesc> descs_;     // parsed descriptors, by string index
  // KILN_ARENA_POISON=1: every arena view is filled with 0xff bytes (from
  // poison_, on the device's queue) as its tensor's life begins, so a tensor
  // planned over one still live, or a kernel reading an output before
  // writing it, fails a test instead of passing by luck.
  bool arena_poison_ = ArenaPoisonRequested();
  std::shared_ptr<hal::Buffer> poison_;
  // Per function, an arena of a finished activation (vm/arena.cc): the next
  // activation takes it only if nothing else holds it (no live view, no
  // command buffer of a submission that has not signalled), else a fresh one.
  std::vector<std::shared_ptr<hal::Buffer>> arena_cache_;
  // Finished activations' frames and registers' views, reused (TakeFrame,
  // ReleaseFrame, TakeReusableView): a call allocates neither per activation.
  static constexpr size_t kKeptFrames = 8;  // (deeper activations' frames are freed)
  std::array<std::unique_ptr<Frame>, kKeptFrames> frame_pool_;
  size_t kept_frames_ = 0;
  ViewPool views_;
  std::vector<RefValue> return_values_;  // kReturn's copy of the results (storage kept)
};

// Compares two host tensors as the check ops do (see vm/checks.cc); returns
// an empty string when they match, else what differs.
std::string CompareEqual(const HostTensor& a, const HostTensor& b);
std::string CompareAlmostEqual(const HostTensor& a, const HostTensor& b, double tolerance);
std::string CompareClose(const HostTensor& a, const HostTensor& b, uint64_t max_ulp, uint64_t min_ulp);
std::string CompareNear(const HostTensor& a, const HostTensor& b, double atol, double rtol);
// Empty when every element of `a` is nonzero, else the first zero.
std::string FirstZero(const HostTensor& a);

}  // namespace kiln::vm

// A VM context's life outside the instruction loop: instantiation (the
// module's executables and constants on the device), Invoke (the calling
// convention's checks on host tensors), uploads and downloads between host
// tensors and ref values, and the submission timeline (Flush, Sync). The
// interpreter itself (Run, Execute) is vm/interpreter.cc.
#include "vm/context.h"

#include <algorithm>
#include <cstdio>

#include "hal/vulkan/shader_abi.h"
#include "kernels/common/kernel.h"
#include "vm/parameters.h"
#include "vm/profiler.h"

namespace kiln::vm {

namespace {
constexpr auto kWaitTimeout = std::chrono::hours(1);
// The submission bound: pending work is submitted once it holds this many
// dispatches or writes this many bytes, so that the buffers it references
// go back to the device when it has run. Large enough that a function of a
// few hundred dispatches still runs as one submission.
constexpr uint64_t kFlushDispatches = 256;
constexpr uint64_t kFlushBytes = uint64_t{64} << 20;
// How many bound submissions the host may run ahead of the device before it
// waits for the oldest (deferred CPU and Vulkan run submissions
// asynchronously; without a limit a fast host would queue them all).
constexpr uint64_t kMaxInFlight = 2;
}  // namespace

Context::Context(std::shared_ptr<const LoadedModule> module, hal::Device* device)
    : module_(std::move(module)), device_(device) {}

Context::~Context() {
  // Let submitted work finish before buffers and executables go away.
  if (pending_ || timeline_) (void)Sync();
}

StatusOr<std::unique_ptr<Context>> Context::Create(std::shared_ptr<const LoadedModule> module,
                                                   hal::Device* device) {
  std::unique_ptr<Context> c(new Context(std::move(module), device));
  KILN_RETURN_IF_ERROR(c->Instantiate());
  return c;
}

// What a Vulkan device refuses when a module is opened, rather than at its
// first dispatch. A module compiled with --target=cpu carries no Vulkan
// shaders: say so, and how to recompile it. Modules of format 0.2 do not record their targets; for
// them, no shader at all and no function recorded unavailable there means
// the same. A module without dispatches runs anywhere.
static Status CheckCompiledFor(const LoadedModule& m, const std::string& device_name) {
  if (device_name.rfind("vulkan", 0) != 0 || m.executables.empty()) return Status::Ok();
  bool cpu_only;
  if (!m.targets.empty()) {
    cpu_only = std::find(m.targets.begin(), m.targets.end(), "vulkan") == m.targets.end();
  } else {
    cpu_only = true;
    for (const auto& shaders : m.vulkan_shaders) cpu_only = cpu_only && shaders.empty();
    for (const auto& f : m.functions)
      for (const auto& u : f.unavailable) cpu_only = cpu_only && u.device != "vulkan";
  }
  if (cpu_only)
    return FailedPrecondition("this module was compiled with --target=cpu and has no Vulkan shaders; recompile it "
                              "with --target=all or --target=vulkan to run it on the Vulkan device");
  // A driver may crash on a damaged shader (lavapipe runs them in this
  // process); only a checksum keeps one from reaching it.
  if (m.unchecked)
    return FailedPrecondition("this module (format " + std::to_string(m.version_major) + "." +
                              std::to_string(m.version_minor) +
                              ") carries no checksum, so its Vulkan shaders cannot be checked before they reach the "
                              "driver; recompile it (format " + std::to_string(kFormatMajor) + "." +
                              std::to_string(kFormatMinor) + "), or set KILN_VERIFY_CHECKSUMS=0 if you trust it");
  return Status::Ok();
}

static Status NotBound(const LoadedConstant& c) {
  return FailedPrecondition("parameter " + ParameterName(c.parameter->scope, c.parameter->key) +
                            " is not bound: pass its file with --parameters=" +
                            (c.parameter->scope.empty() ? "" : c.parameter->scope + "=") +
                            "FILE (LoadOptions::parameters, kiln_module_load_file_with_parameters)");
}

// A module that declares more memory than the device's limit allows
// (hal/allocation_gate.h) is refused when it is opened, not at its first
// call: a function's arena, allocated whole when it is called, alone passes
// the limit.
static Status CheckMemoryLimit(const LoadedModule& m, const hal::Device& device) {
  const uint64_t limit = device.allocation_gate().limit();
  if (limit == 0) return Status::Ok();
  for (const auto& f : m.functions)
    if (f.arena_bytes > limit)
      return ResourceExhausted("function '" + f.name + "' declares an arena of " + std::to_string(f.arena_bytes) +
                               " bytes, above the memory limit of " + std::to_string(limit) + " bytes");
  return Status::Ok();
}

Status Context::Instantiate() {
  KILN_RETURN_IF_ERROR(CheckCompiledFor(*module_, device_->name()));
  KILN_RETURN_IF_ERROR(CheckMemoryLimit(*module_, *device_));
  timeline_ = device_->CreateSemaphore(0);
  for (size_t i = 0; i < module_->executables.size(); ++i) {
    // Every form the module holds, sharing the module's copy; the device
    // takes its own (always a shader list, possibly empty, for Vulkan).
    hal::ExecutableSpec spec{module_->executables[i].kernel, {}};
    spec.Add(kKernelFormat, std::shared_ptr<const KernelParams>(module_, &module_->executables[i]));
    spec.Add(hal::kVulkanShaderFormat,
             std::shared_ptr<const std::vector<hal::ShaderVariant>>(module_, &module_->vulkan_shaders[i]));
    KILN_ASSIGN_OR_RETURN(auto exe, device_->PrepareExecutable(spec));
    executables_.push_back(std::move(exe));
  }
  // External constants (format 0.4) must be bound to a parameter file; the
  // rest of the constants come to the device on first use (UseConstant).
  for (const auto& c : module_->constants)
    if (c.parameter && !c.bound) return NotBound(c);
  constants_.resize(module_->constants.size());
  globals_.resize(module_->globals.size());
  return Status::Ok();
}

Status Context::UseConstant(uint32_t index) {
  const LoadedConstant& c = module_->constants[index];
  KILN_ASSIGN_OR_RETURN(const uint8_t* data, c.Data());
  auto view = std::make_shared<hal::BufferView>();
  view->type = c.type;
  view->dims = c.dims;
  // The module (and the parameter files it keeps mapped) outlives this
  // context's buffers, so their bytes can be read in place; nothing writes
  // to them (the buffers are read-only). Stored data are 64-byte aligned in
  // the file (schema/module.fbs) and a parameter file's tensors by
  // kiln-compile; bytes at an odd address (lent by the caller, or a
  // safetensors file written elsewhere) would misalign the elements, so
  // those are copied instead.
  if (c.size == 0) {
    KILN_ASSIGN_OR_RETURN(view->buffer, device_->Allocate(0));
  } else if (reinterpret_cast<uintptr_t>(data) % 16 == 0) {
    KILN_ASSIGN_OR_RETURN(view->buffer, device_->WrapHostMemory(data, c.size));
  } else {
    KILN_ASSIGN_OR_RETURN(view->buffer, device_->AllocateCopy(data, c.size));
  }
  // Its bytes never change from here on (the interpreter refuses a dispatch
  // that would write a constant): kernels may keep packed copies of it.
  view->buffer->MarkConstant();
  constants_[index].kind = RefValue::Kind::kView;
  constants_[index].view = std::move(view);
  return Status::Ok();
}

namespace {

// The bytes of a tensor of `dims`, refusing negative and absurd dimensions.
StatusOr<size_t> TensorBytes(ElementType type, const std::vector<int64_t>& dims) {
  uint64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument("negative dimension " + std::to_string(d));
    if (d != 0 && n > (uint64_t{1} << 40) / static_cast<uint64_t>(d))
      return ResourceExhausted("tensor too large");
    n *= static_cast<uint64_t>(d);
  }
  return static_cast<size_t>(n) * StorageBytes(type);
}

}  // namespace

StatusOr<RefValue> Context::AllocateView(ElementType type, std::vector<int64_t> dims, const HostTensor* init,
                                         bool wrap) {
  KILN_ASSIGN_OR_RETURN(const size_t bytes, TensorBytes(type, dims));
  if (init != nullptr && init->data.size() != bytes)
    return InvalidArgument("tensor data holds " + std::to_string(init->data.size()) + " bytes, its shape needs " +
                           std::to_string(bytes));
  std::shared_ptr<hal::BufferView> view = views_.Take();
  view->type = type;
  view->dims = std::move(dims);
  if (init == nullptr) {
    KILN_ASSIGN_OR_RETURN(view->buffer, device_->Allocate(bytes));
  } else if (wrap) {
    KILN_ASSIGN_OR_RETURN(view->buffer, device_->WrapHostMemory(init->data.data(), bytes));
  } else {
    KILN_ASSIGN_OR_RETURN(view->buffer, device_->AllocateCopy(init->data.data(), bytes));
  }
  RefValue v;
  v.kind = RefValue::Kind::kView;
  v.view = std::move(view);
  return v;
}

Status Context::AllocateOutput(RefValue& dst, ElementType type, const std::vector<uint32_t>& dims,
                               const int64_t* regs) {
  // The register's previous view, and its buffer, are taken over where
  // nothing else holds them: the old contents are dead, and no command
  // buffer still refers to the buffer (a recorded or pending one holds a
  // reference until its submission has run). The dims are written in
  // place, not gathered into a vector first.
  std::shared_ptr<hal::BufferView> view = TakeReusableView(dst, views_);
  dst = RefValue();
  std::shared_ptr<hal::Buffer> old = std::move(view->buffer);
  view->type = type;
  view->offset = 0;
  view->dims.resize(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) view->dims[i] = regs[dims[i]];
  KILN_ASSIGN_OR_RETURN(const size_t bytes, TensorBytes(type, view->dims));
  if (old && old.use_count() == 1 && old->size() == bytes) {
    view->buffer = std::move(old);
  } else {
    old.reset();
    KILN_ASSIGN_OR_RETURN(view->buffer, device_->AllocateUninitialized(bytes));
  }
  dst.kind = RefValue::Kind::kView;
  dst.view = std::move(view);
  return Status::Ok();
}

StatusOr<RefValue> Context::WrapView(ElementType type, std::vector<int64_t> dims, const void* data, size_t bytes) {
  KILN_ASSIGN_OR_RETURN(const size_t need, TensorBytes(type, dims));
  if (bytes != need)
    return InvalidArgument("tensor data holds " + std::to_string(bytes) + " bytes, its shape needs " +
                           std::to_string(need));
  if (bytes != 0 && data == nullptr) return InvalidArgument("tensor data is missing");
  std::shared_ptr<hal::BufferView> view = views_.Take();
  view->type = type;
  view->dims = std::move(dims);
  KILN_ASSIGN_OR_RETURN(view->buffer, device_->WrapHostMemory(data, bytes));
  RefValue v;
  v.kind = RefValue::Kind::kView;
  v.view = std::move(view);
  return v;
}

StatusOr<RefValue> Context::WriteArgument(const HostTensor& t) {
  if (t.is_token || t.is_tuple) return Write(t);
  return WrapView(t.type, t.dims, t.data.data(), t.data.size());
}

StatusOr<RefValue> Context::Write(const HostTensor& t) {
  if (t.is_token) {
    RefValue v;
    v.kind = RefValue::Kind::kToken;
    return v;
  }
  if (t.is_tuple) {
    auto list = std::make_shared<std::vector<RefValue>>();
    for (const auto& e : t.tuple_elements) {
      KILN_ASSIGN_OR_RETURN(RefValue ev, Write(e));
      list->push_back(std::move(ev));
    }
    RefValue v;
    v.kind = RefValue::Kind::kList;
    v.list = std::move(list);
    return v;
  }
  return AllocateView(t.type, t.dims, &t);
}

StatusOr<HostTensor> Context::Read(const RefValue& v) {
  HostTensor t;
  KILN_RETURN_IF_ERROR(ReadInto(v, &t));
  return t;
}

Status Context::ReadInto(const RefValue& v, HostTensor* t) {
  t->is_token = v.kind == RefValue::Kind::kToken;
  t->is_tuple = v.kind == RefValue::Kind::kList;
  if (t->is_token || t->is_tuple) {
    t->type = ElementType::kInvalid;
    t->dims.clear();
    t->data.clear();
  }
  if (t->is_token) {
    t->tuple_elements.clear();
    return Status::Ok();
  }
  if (t->is_tuple) {
    t->tuple_elements.resize(v.list->size());
    for (size_t i = 0; i < v.list->size(); ++i) KILN_RETURN_IF_ERROR(ReadInto((*v.list)[i], &t->tuple_elements[i]));
    return Status::Ok();
  }
  t->tuple_elements.clear();
  if (v.kind != RefValue::Kind::kView) return Internal("read of an empty register");
  KILN_RETURN_IF_ERROR(Sync());
  t->type = v.view->type;
  t->dims = v.view->dims;
  // A vector of this size already (the same result of an earlier call)
  // neither reallocates nor zero-fills: the download is its one pass.
  t->data.resize(v.view->ByteSize());
  return device_->Download(*v.view->buffer, v.view->offset, t->data.data(), t->data.size());
}

Status Context::Flush() {
  pending_dispatches_ = pending_bytes_ = 0;
  if (!pending_ || pending_->empty()) return Status::Ok();
  // Each submission reads what the one before wrote.
  std::vector<hal::SemaphorePoint> waits;
  if (timeline_value_ > 0) waits.push_back(hal::SemaphorePoint{timeline_, timeline_value_});
  // The next value is promised only once the device has the submission: a
  // submission refused, or lost to std::bad_alloc before it was queued,
  // leaves no value that nothing will ever signal (the next Sync would wait
  // for it).
  const uint64_t value = timeline_value_ + 1;
  Status s = device_->Submit(std::move(pending_), std::move(waits), hal::SemaphorePoint{timeline_, value});
  if (s.ok()) timeline_value_ = value;
  return s;
}

Status Context::RecordDispatch(uint64_t output_bytes) {
  pending_bytes_ += output_bytes;
  if (++pending_dispatches_ < kFlushDispatches && pending_bytes_ < kFlushBytes) return Status::Ok();
  KILN_RETURN_IF_ERROR(Flush());
  if (timeline_value_ <= kMaxInFlight) return CheckDeadline();
  KILN_RETURN_IF_ERROR(timeline_->Wait(timeline_value_ - kMaxInFlight, kWaitTimeout));
  return CheckDeadline();
}

Status Context::CheckDeadline() {
  // Relaxed: the flag carries no data, and the next check sees it soon enough.
  if (options_.cancel && options_.cancel->load(std::memory_order_relaxed)) return Cancelled("cancelled");
  if (!has_deadline_ || std::chrono::steady_clock::now() < deadline_) return Status::Ok();
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", static_cast<double>(options_.timeout.count()) / 1000.0);
  return Status(StatusCode::kDeadlineExceeded, std::string("timed out after ") + seconds + " s");
}

Status Context::Sync() {
  KILN_RETURN_IF_ERROR(Flush());
  Status s = timeline_->Wait(timeline_value_, kWaitTimeout);
  if (!s.ok()) {
    // The timeline stays failed; a fresh one lets the context be reused.
    timeline_ = device_->CreateSemaphore(0);
    timeline_value_ = 0;
  }
  return s;
}

StatusOr<std::vector<HostTensor>> Context::Invoke(const std::string& name, const std::vector<HostTensor>& inputs,
                                                  const InvokeOptions& options) {
  std::vector<HostTensor> out;
  KILN_RETURN_IF_ERROR(InvokeImpl(name, inputs.size(), inputs.data(), nullptr, options, &out));
  return out;
}

Status Context::Invoke(const std::string& name, const std::vector<HostTensor>& inputs, const InvokeOptions& options,
                       std::vector<HostTensor>* results) {
  return InvokeImpl(name, inputs.size(), inputs.data(), nullptr, options, results);
}

Status Context::Invoke(const std::string& name, const std::vector<BorrowedTensor>& inputs,
                       const InvokeOptions& options, std::vector<HostTensor>* results) {
  return InvokeImpl(name, inputs.size(), nullptr, inputs.data(), options, results);
}

Status Context::InvokeImpl(const std::string& name, size_t count, const HostTensor* host,
                           const BorrowedTensor* borrowed, const InvokeOptions& options,
                           std::vector<HostTensor>* out) {
  const auto call_begin = std::chrono::steady_clock::now();
  std::vector<RefValue> results;
  int f = 0;
  KILN_RETURN_IF_ERROR(RunCall(name, count, host, borrowed, nullptr, options, &results, &f));
  // Arguments may be read in place (WriteArgument): no work may still use
  // them when this returns.
  KILN_RETURN_IF_ERROR(Sync());
  out->resize(results.size());
  for (size_t i = 0; i < results.size(); ++i) KILN_RETURN_IF_ERROR(ReadInto(results[i], &(*out)[i]));
  if (options.profiler) options.profiler->OnCall(name, call_begin, std::chrono::steady_clock::now());
  return Status::Ok();
}

Status Context::RunCall(const std::string& name, size_t count, const HostTensor* host, const BorrowedTensor* borrowed,
                        const CallInput* values, const InvokeOptions& options, std::vector<RefValue>* results,
                        int* function) {
  options_ = options;
  local_grid_.reset();
  has_deadline_ = options.timeout.count() > 0;
  if (has_deadline_) deadline_ = std::chrono::steady_clock::now() + options.timeout;
  int f = module_->FindFunction(name);
  if (f < 0) return NotFound("no function named '" + name + "' in the module");
  *function = f;
  const LoadedFunction& fn = module_->functions[f];
  if (!fn.is_public && !options.allow_private)
    return InvalidArgument("function '" + name + "' is private: only the module's public functions can be called");
  for (const auto& u : fn.unavailable)
    if (device_->name().rfind(u.device, 0) == 0)
      return Unimplemented("function '" + name + "' cannot run on the " + u.device + " device: " + u.op + " (" +
                           u.type + "): " + u.reason);
  if (count != fn.args.size()) {
    // The signature, as type and shape errors give it: "takes 3 inputs
    // (tensor<2xf32>, ...), got 0"; "takes no inputs, got 1".
    std::string sig;
    for (size_t i = 0; i < fn.args.size(); ++i) sig += (i ? ", " : "") + fn.args[i].ToString();
    const size_t n = fn.args.size();
    return InvalidArgument("function '" + name + "' takes " +
                           (n == 0 ? "no inputs" : std::to_string(n) + (n == 1 ? " input (" : " inputs (") + sig + ")") +
                           ", got " + std::to_string(count));
  }
  std::vector<RefValue> args;
  args.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const ValueSig& sig = fn.args[i];
    // A borrowed input is a tensor; its shape is read from the caller's array.
    const bool is_token = host && host[i].is_token, is_tuple = host && host[i].is_tuple;
    const hal::BufferView* on_device = values ? values[i].device.get() : nullptr;
    const BorrowedTensor* b = values ? &values[i].host : borrowed ? &borrowed[i] : nullptr;
    const ElementType type = host ? host[i].type : on_device ? on_device->type : b->type;
    const int64_t* dims = host ? host[i].dims.data() : on_device ? on_device->dims.data() : b->dims;
    const size_t rank = host ? host[i].dims.size() : on_device ? on_device->dims.size() : b->rank;
    if (rank != 0 && dims == nullptr) return InvalidArgument("input " + std::to_string(i) + " has no dimensions");
    bool shape_ok = sig.kind == ValueSig::Kind::kTensor && !is_token && !is_tuple && type == sig.type &&
                    rank == sig.dims.size();
    for (size_t d = 0; shape_ok && d < sig.dims.size(); ++d) shape_ok = sig.dims[d] < 0 || sig.dims[d] == dims[d];
    if (sig.kind != ValueSig::Kind::kTensor) shape_ok = (sig.kind == ValueSig::Kind::kToken) == is_token;
    if (!shape_ok) {
      HostTensor probe;
      if (host) {
        probe = host[i];
        probe.data.clear();
      } else {
        probe.type = type;
        probe.dims.assign(dims, dims + rank);
      }
      return InvalidArgument("input " + std::to_string(i) + " of '" + name + "' must be " + sig.ToString() +
                             ", got " + (is_token ? std::string("a token") : FormatTensor(probe)));
    }
    if (host) {
      KILN_ASSIGN_OR_RETURN(RefValue v, WriteArgument(host[i]));
      args.push_back(std::move(v));
    } else if (on_device) {
      KILN_RETURN_IF_ERROR(hal::CheckViewInBuffer(*on_device, "input " + std::to_string(i)));
      RefValue v;
      v.kind = RefValue::Kind::kView;
      v.view = values[i].device;
      args.push_back(std::move(v));
    } else {
      KILN_ASSIGN_OR_RETURN(RefValue v, WrapView(type, std::vector<int64_t>(dims, dims + rank), b->data,
                                                 b->byte_size));
      args.push_back(std::move(v));
    }
  }
  Status s;
  bool out_of_memory = false;
  global_undo_.clear();
  try {
    s = Run(f, std::move(args), results, 0);
  } catch (const std::bad_alloc&) {
    // Host memory ran out inside the interpreter (a register list, a command
    // being recorded): cleaned up like any failed call, below, so that no
    // half-recorded work reaches the next call.
    out_of_memory = true;
  }
  if (out_of_memory || !s.ok()) {
    results->clear();
    pending_.reset();
    pending_dispatches_ = pending_bytes_ = 0;
    (void)Sync();
    // The copies the call's stores recorded were discarded with its work.
    for (auto it = global_undo_.rbegin(); it != global_undo_.rend(); ++it) globals_[it->first] = std::move(it->second);
    global_undo_.clear();
    return out_of_memory ? ResourceExhausted("out of host memory during the call of '" + name + "'") : s;
  }
  return Status::Ok();
}

}  // namespace kiln::vm

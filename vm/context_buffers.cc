// Context::Invoke on arguments that may already be on the device, with
// results kept there, downloaded into the caller's memory, or into host
// tensors; and donation (docs/embedding.md, "Device-resident buffers and
// donation").
#include <algorithm>

#include "kiln_selected_kernels.h"  // KILN_WITH_GLOBALS
#include "vm/context.h"
#include "vm/profiler.h"

namespace kiln::vm {

namespace {

bool SameShape(const hal::BufferView& a, const hal::BufferView& b) { return a.type == b.type && a.dims == b.dims; }

std::shared_ptr<const hal::BufferView> WholeView(const hal::BufferView& like, std::shared_ptr<hal::Buffer> buffer) {
  auto v = std::make_shared<hal::BufferView>();
  v->type = like.type;
  v->dims = like.dims;
  v->buffer = std::move(buffer);
  return v;
}

}  // namespace

StatusOr<std::shared_ptr<const hal::BufferView>> Context::OwnResult(const RefValue& v,
                                                                    const std::vector<CallInput>& inputs) {
  const hal::BufferView& view = *v.view;
  // A view of part of a buffer (an arena) would keep the whole buffer alive;
  // a constant's or a borrowed argument's memory is not the caller's to keep
  // or to write; a device argument's buffer is still the caller's handle.
  bool shared = view.offset != 0 || view.buffer->size() != view.ByteSize() || view.buffer->read_only() ||
                view.buffer->constant_id() != 0;
  for (const CallInput& in : inputs) shared = shared || (in.device && in.device->buffer == view.buffer);
  // A global's value stays the context's: the caller could donate it back.
  for (const RefValue& g : globals_) shared = shared || (g.kind == RefValue::Kind::kView && g.view->buffer == view.buffer);
  if (!shared) return std::shared_ptr<const hal::BufferView>(v.view);
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<hal::Buffer> copy, device_->AllocateUninitialized(view.ByteSize()));
  auto target = WholeView(view, std::move(copy));
  if (!pending_) pending_ = device_->CreateCommandBuffer();
  pending_->Copy(view, *target);
  return target;
}

#if KILN_WITH_GLOBALS
Status Context::LoadGlobal(uint32_t global, RefValue* dst) {
  RefValue& value = globals_[global];
  if (value.kind == RefValue::Kind::kEmpty) {
    const uint32_t initial = module_->globals[global].initial;
    if (constants_[initial].kind == RefValue::Kind::kEmpty) KILN_RETURN_IF_ERROR(UseConstant(initial));
    value = constants_[initial];
  }
  // Shared with the register: nothing writes through a view held twice
  // (TakeReusableView, AllocateOutput).
  *dst = value;
  return Status::Ok();
}

Status Context::StoreGlobal(uint32_t global, const RefValue& value) {
  const LoadedGlobal& g = module_->globals[global];
  const LoadedConstant& like = module_->constants[g.initial];
  if (!g.is_mutable) return FailedPrecondition("global '" + g.name + "' is not mutable");
  if (value.kind != RefValue::Kind::kView || value.view->type != like.type || value.view->dims != like.dims)
    return InvalidArgument("global.store: the value is not a tensor of global '" + g.name + "''s type and shape");
  // A copy of its own: the value may be a view of this call's arena, an
  // argument or a constant, which the global must outlive.
  const hal::BufferView& view = *value.view;
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<hal::Buffer> copy, device_->AllocateUninitialized(view.ByteSize()));
  RefValue stored;
  stored.kind = RefValue::Kind::kView;
  stored.view = WholeView(view, std::move(copy));
  if (!pending_) pending_ = device_->CreateCommandBuffer();
  pending_->Copy(view, *stored.view);
  // Only the value the call began with is kept for a rollback: a loop that
  // stores every step must not hold every step's buffer until it returns.
  bool saved = false;
  for (const auto& undo : global_undo_) saved = saved || undo.first == global;
  if (!saved) global_undo_.emplace_back(global, std::move(globals_[global]));
  globals_[global] = std::move(stored);
  return Status::Ok();
}
#else
// A selective runtime built without module globals (KILN_WITH_GLOBALS=OFF)
// refuses a module that has any at load, so these never run.
Status Context::LoadGlobal(uint32_t, RefValue*) { return Unimplemented("module globals are not in this runtime"); }
Status Context::StoreGlobal(uint32_t, const RefValue&) { return Unimplemented("module globals are not in this runtime"); }
#endif

Status Context::Invoke(const std::string& name, const std::vector<CallInput>& inputs,
                       const std::vector<ResultPlacement>& placement, const InvokeOptions& options,
                       CallOutcome* outcome) {
  const auto call_begin = std::chrono::steady_clock::now();
  outcome->results.clear();
  outcome->consumed.clear();
  outcome->in_place.clear();
  std::vector<RefValue> results;
  int f = 0;
  KILN_RETURN_IF_ERROR(RunCall(name, inputs.size(), nullptr, nullptr, inputs.data(), options, &results, &f));
  const LoadedFunction& fn = module_->functions[f];
  auto fail = [&](Status s) {
    pending_.reset();
    pending_dispatches_ = pending_bytes_ = 0;
    (void)Sync();
    return s;
  };
  if (!placement.empty() && placement.size() != results.size())
    return fail(InvalidArgument("function '" + name + "' has " + std::to_string(results.size()) +
                                " results, the call places " + std::to_string(placement.size())));
  auto kind = [&](size_t i) { return placement.empty() ? ResultPlacement::Kind::kHost : placement[i].kind; };
  outcome->results.resize(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    if (kind(i) == ResultPlacement::Kind::kHost) continue;
    if (results[i].kind != RefValue::Kind::kView)
      return fail(InvalidArgument("result " + std::to_string(i) + " of '" + name +
                                  "' is not a tensor: only a tensor can stay on the device or go into a buffer"));
    CallResult& r = outcome->results[i];
    r.type = results[i].view->type;
    r.dims = results[i].view->dims;
    if (kind(i) == ResultPlacement::Kind::kInto && placement[i].size != results[i].view->ByteSize())
      return fail(InvalidArgument("result " + std::to_string(i) + " of '" + name + "' needs " +
                                  std::to_string(results[i].view->ByteSize()) + " bytes, its buffer has " +
                                  std::to_string(placement[i].size)));
    if (kind(i) == ResultPlacement::Kind::kInto && placement[i].size != 0 && placement[i].data == nullptr)
      return fail(InvalidArgument("result " + std::to_string(i) + " of '" + name + "' has no buffer"));
  }
  // Donation: each device input of a donated argument is consumed; it takes
  // the result it is donated to where that stays on the device with its shape.
  std::vector<bool> taken(results.size(), false);
  std::vector<const hal::Buffer*> written;  // one buffer passed for two donated arguments takes one result
  std::vector<std::pair<const hal::BufferView*, const hal::BufferView*>> donated_copies;
  for (const ArgDonation& d : fn.donations) {
    const CallInput& in = inputs[d.arg];
    if (!in.device) continue;
    outcome->consumed.push_back(d.arg);
    if (std::find(written.begin(), written.end(), in.device->buffer.get()) != written.end()) continue;
    int target = -1;
    for (size_t i = 0; i < results.size() && target < 0; ++i) {
      if (d.output >= 0 && static_cast<int32_t>(i) != d.output) continue;
      if (kind(i) == ResultPlacement::Kind::kDevice && !taken[i] && SameShape(*results[i].view, *in.device) &&
          !in.device->buffer->read_only() && in.device->buffer->constant_id() == 0)
        target = static_cast<int>(i);
    }
    if (target < 0) continue;
    taken[target] = true;
    written.push_back(in.device->buffer.get());
    outcome->in_place.push_back(static_cast<uint32_t>(target));
    const hal::BufferView& result = *results[target].view;
    if (result.buffer != in.device->buffer || result.offset != in.device->offset)
      donated_copies.emplace_back(&result, in.device.get());
    outcome->results[target].device = in.device;
  }
  for (size_t i = 0; i < results.size(); ++i) {
    if (kind(i) != ResultPlacement::Kind::kDevice || outcome->results[i].device) continue;
    auto own = OwnResult(results[i], inputs);
    if (!own.ok()) return fail(own.status());
    outcome->results[i].device = std::move(own).value();
  }
  // Recorded after the function's own work and the copies OwnResult made,
  // which may still read the donated buffers: the device runs a
  // submission's commands in order.
  for (const auto& [from, to] : donated_copies) {
    if (!pending_) pending_ = device_->CreateCommandBuffer();
    pending_->Copy(*from, *to);
  }
  // Borrowed arguments are read in place: no work may still use them when
  // this returns; and results go to the host only once computed.
  KILN_RETURN_IF_ERROR(Sync());
  for (size_t i = 0; i < results.size(); ++i) {
    if (kind(i) == ResultPlacement::Kind::kHost) {
      KILN_RETURN_IF_ERROR(ReadInto(results[i], &outcome->results[i].host));
    } else if (kind(i) == ResultPlacement::Kind::kInto) {
      const hal::BufferView& v = *results[i].view;
      KILN_RETURN_IF_ERROR(device_->Download(*v.buffer, v.offset, placement[i].data, placement[i].size));
    }
  }
  if (options.profiler) options.profiler->OnCall(name, call_begin, std::chrono::steady_clock::now());
  return Status::Ok();
}

}  // namespace kiln::vm

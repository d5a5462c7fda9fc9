// The C API's device-resident buffers, calls on values with placed results,
// and the devices' transfer counters (vm/kiln.h, "Device-resident buffers
// and donation").
#include <span>

#include "vm/c_api_internal.h"

struct kiln_buffer {
  std::shared_ptr<kiln::hal::Device> device;  // where the memory lives; kept alive
  // The tensor; null once a call consumed it (donation).
  std::shared_ptr<const kiln::hal::BufferView> view;
};

namespace kiln::capi {
namespace {

// `in` checked as a call's input (element type, rank, dims, byte size),
// as a BorrowedTensor over the caller's memory.
kiln_status_t CheckTensor(const kiln_tensor_t& in, const std::string& which, vm::BorrowedTensor* out) {
  auto type = in.element_type > 0 ? ElementTypeFromCode(static_cast<uint32_t>(in.element_type)) : std::nullopt;
  if (!type) return Invalid(which + "unknown element type code " + std::to_string(in.element_type));
  if (in.rank < 0 || in.rank > 64 || (in.rank > 0 && !in.dims)) return Invalid(which + "rank must be 0..64 with dims given");
  // Overflow-checked element count: sizes come from the caller.
  size_t count = 1;
  for (int64_t d : std::span<const int64_t>(in.dims, in.dims ? static_cast<size_t>(in.rank) : 0)) {
    if (d < 0 || (d > 0 && count > SIZE_MAX / static_cast<size_t>(d)))
      return Invalid(which + "invalid dimension " + std::to_string(d));
    count *= static_cast<size_t>(d);
  }
  const size_t elem = StorageBytes(*type);
  if (count > SIZE_MAX / elem || count * elem != in.byte_size)
    return Invalid(which + "byte_size " + std::to_string(in.byte_size) + " does not match its shape (" +
                   std::to_string(count) + " elements of " + std::to_string(elem) + " bytes)");
  if (in.byte_size && !in.data) return Invalid(which + "data is NULL");
  *out = vm::BorrowedTensor{*type, in.dims, static_cast<size_t>(in.rank), in.data, in.byte_size};
  return nullptr;
}

kiln_status_t Consumed(const char* entry) {
  return Error(KILN_STATUS_FAILED_PRECONDITION,
               std::string(entry) + ": the buffer was donated to an earlier call and can only be freed");
}

void ToC(const hal::TransferStats& s, kiln_transfer_stats_t* out) {
  *out = kiln_transfer_stats_t{s.uploads, s.upload_bytes, s.downloads, s.download_bytes};
}

}  // namespace
}  // namespace kiln::capi

using namespace kiln::capi;  // NOLINT: the entry points below are extern "C"

extern "C" {

kiln_status_t kiln_buffer_upload(kiln_session_t* session, const kiln_tensor_t* tensor, kiln_buffer_t** out_buffer) {
  if (!session || !tensor || !out_buffer) return Invalid("kiln_buffer_upload: session, tensor and out_buffer are required");
  *out_buffer = nullptr;
  return Guard("kiln_buffer_upload", [&]() -> kiln_status_t {
    kiln::vm::BorrowedTensor t;
    if (kiln_status_t s = CheckTensor(*tensor, "kiln_buffer_upload: ", &t)) return s;
    auto view = std::make_shared<kiln::hal::BufferView>();
    view->type = t.type;
    view->dims.assign(t.dims, t.dims + t.rank);
    auto b = t.byte_size ? session->device->AllocateCopy(t.data, t.byte_size) : session->device->Allocate(0);
    if (!b.ok()) return FromStatus(b.status());
    view->buffer = std::move(b).value();
    *out_buffer = new kiln_buffer{session->device, std::move(view)};
    return nullptr;
  });
}

kiln_status_t kiln_buffer_download(const kiln_buffer_t* buffer, void* dst, size_t size) {
  if (!buffer || (size && !dst)) return Invalid("kiln_buffer_download: buffer and dst are required");
  return Guard("kiln_buffer_download", [&]() -> kiln_status_t {
    if (!buffer->view) return Consumed("kiln_buffer_download");
    const auto& v = *buffer->view;
    if (size != v.ByteSize())
      return Invalid("kiln_buffer_download: the buffer holds " + std::to_string(v.ByteSize()) + " bytes, dst " +
                     std::to_string(size));
    return FromStatus(buffer->device->Download(*v.buffer, v.offset, dst, size));
  });
}

kiln_status_t kiln_buffer_describe(const kiln_buffer_t* buffer, kiln_tensor_t* out_tensor) {
  if (!buffer || !out_tensor) return Invalid("kiln_buffer_describe: buffer and out_tensor are required");
  if (!buffer->view) return Consumed("kiln_buffer_describe");
  const auto& v = *buffer->view;
  out_tensor->element_type = static_cast<int32_t>(v.type);
  out_tensor->rank = static_cast<int32_t>(v.dims.size());
  out_tensor->dims = v.dims.data();
  out_tensor->data = nullptr;
  out_tensor->byte_size = v.ByteSize();
  return nullptr;
}

void kiln_buffer_free(kiln_buffer_t* buffer) { delete buffer; }

kiln_status_t kiln_session_call_values(kiln_session_t* session, const char* function, const kiln_value_t* inputs,
                                       size_t input_count, const kiln_output_t* outputs, size_t output_count,
                                       kiln_results_t** out_results) {
  if (!session || !function || (input_count && !inputs) || (output_count && !outputs))
    return Invalid("kiln_session_call_values: session, function, inputs and outputs are required");
  if (out_results) *out_results = nullptr;
  return Guard("kiln_session_call_values", [&]() -> kiln_status_t {
    std::vector<kiln::vm::CallInput> values(input_count);
    for (size_t i = 0; i < input_count; ++i) {
      const kiln_value_t& in = inputs[i];
      const std::string which = "input " + std::to_string(i) + ": ";
      if ((in.tensor == nullptr) == (in.buffer == nullptr))
        return Invalid(which + "exactly one of tensor and buffer must be set");
      if (in.tensor) {
        if (kiln_status_t s = CheckTensor(*in.tensor, which, &values[i].host)) return s;
        continue;
      }
      if (!in.buffer->view) return Consumed(("kiln_session_call_values: " + which).c_str());
      if (in.buffer->device != session->device)
        return Invalid(which + "the buffer is on another device than the session's");
      values[i].device = in.buffer->view;
    }
    std::vector<kiln::vm::ResultPlacement> placement(output_count);
    bool any_host = output_count == 0;
    for (size_t i = 0; i < output_count; ++i) {
      const kiln_output_t& o = outputs[i];
      const std::string which = "output " + std::to_string(i) + ": ";
      using Kind = kiln::vm::ResultPlacement::Kind;
      switch (o.placement) {
        case KILN_RESULT_HOST: any_host = true; break;
        case KILN_RESULT_BUFFER:
          if (!o.buffer) return Invalid(which + "KILN_RESULT_BUFFER needs a place for the buffer");
          placement[i].kind = Kind::kDevice;
          break;
        case KILN_RESULT_INTO:
          placement[i] = kiln::vm::ResultPlacement{Kind::kInto, o.data, o.size};
          break;
        default: return Invalid(which + "unknown placement " + std::to_string(o.placement));
      }
    }
    if (any_host && !out_results) return Invalid("kiln_session_call_values: out_results is required for host results");
    WaitForSession(session);
    SessionHold hold(session);
    kiln::vm::InvokeOptions options;
    options.profiler = session->profiler.get();
    kiln::vm::CallOutcome outcome;
    kiln::Status s = session->context->Invoke(function, values, placement, options, &outcome);
    if (!s.ok()) return FromStatus(s);
    for (const auto& r : outcome.results)
      if (r.host.is_tuple || r.host.is_token)
        return Error(KILN_STATUS_UNIMPLEMENTED,
                     std::string("function '") + function + "' returns a tuple or token, which the C API does not carry");
    // Allocate every handle before consuming any, so a failure leaves the
    // caller's buffers as they were.
    std::vector<std::unique_ptr<kiln_buffer>> made(outcome.results.size());
    for (size_t i = 0; i < outcome.results.size(); ++i)
      if (outcome.results[i].device) made[i].reset(new kiln_buffer{session->device, outcome.results[i].device});
    std::unique_ptr<kiln_results> host;
    if (out_results) {
      host = std::make_unique<kiln_results>();
      host->store = session->store;
      host->tensors.resize(outcome.results.size());
      for (size_t i = 0; i < outcome.results.size(); ++i) {
        auto& r = outcome.results[i];
        if (any_host && (output_count == 0 || outputs[i].placement == KILN_RESULT_HOST)) {
          host->tensors[i] = std::move(r.host);
        } else {
          host->tensors[i].type = r.type;
          host->tensors[i].dims = r.dims;
        }
      }
    }
    for (uint32_t i : outcome.consumed) inputs[i].buffer->view.reset();
    for (size_t i = 0; i < made.size(); ++i)
      if (made[i]) *outputs[i].buffer = made[i].release();
    if (out_results) *out_results = host.release();
    return nullptr;
  });
}

kiln_status_t kiln_session_call_into(kiln_session_t* session, const char* function, const kiln_tensor_t* inputs,
                                     size_t input_count, void* const* result_data, const size_t* result_sizes,
                                     size_t result_count) {
  if (!session || !function || (input_count && !inputs) || (result_count && (!result_data || !result_sizes)))
    return Invalid("kiln_session_call_into: session, function, inputs, result_data and result_sizes are required");
  return Guard("kiln_session_call_into", [&]() -> kiln_status_t {
    // The function's result count, so that 0 cannot mean "all on the host" here.
    const int f = session->module->FindFunction(function);
    if (f >= 0 && session->module->functions[f].results.size() != result_count)
      return Invalid("kiln_session_call_into: function '" + std::string(function) + "' has " +
                     std::to_string(session->module->functions[f].results.size()) + " results, result_count is " +
                     std::to_string(result_count));
    std::vector<kiln_value_t> values(input_count);
    for (size_t i = 0; i < input_count; ++i) values[i] = kiln_value_t{&inputs[i], nullptr};
    std::vector<kiln_output_t> outputs(result_count);
    for (size_t i = 0; i < result_count; ++i)
      outputs[i] = kiln_output_t{KILN_RESULT_INTO, result_data[i], result_sizes[i], nullptr};
    if (result_count == 0) {  // no results: nothing to place, none to return
      kiln_results_t* none = nullptr;
      kiln_status_t s = kiln_session_call_values(session, function, values.data(), input_count, nullptr, 0, &none);
      kiln_results_free(none);
      return s;
    }
    return kiln_session_call_values(session, function, values.data(), input_count, outputs.data(), result_count,
                                    nullptr);
  });
}

kiln_status_t kiln_device_transfer_stats(const kiln_device_t* device, kiln_transfer_stats_t* out_stats) {
  if (!device || !out_stats) return Invalid("kiln_device_transfer_stats: device and out_stats are required");
  ToC(device->device->transfer_stats(), out_stats);
  return nullptr;
}

kiln_status_t kiln_session_transfer_stats(const kiln_session_t* session, kiln_transfer_stats_t* out_stats) {
  if (!session || !out_stats) return Invalid("kiln_session_transfer_stats: session and out_stats are required");
  ToC(session->device->transfer_stats(), out_stats);
  return nullptr;
}

}  // extern "C"

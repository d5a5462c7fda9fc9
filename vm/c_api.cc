// The C API (vm/kiln.h) over the C++ runtime: loader, device, vm::Context.
// Every entry point catches everything, so no exception crosses into C.
#include "vm/kiln.h"

#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "hal/devices.h"
#include "vm/context.h"
#include "vm/module.h"

struct kiln_status {
  std::string message;
};

struct kiln_module {
  std::shared_ptr<const kiln::vm::LoadedModule> loaded;
  std::vector<std::string> public_functions;
};

struct kiln_session {
  std::shared_ptr<const kiln::vm::LoadedModule> module;
  std::unique_ptr<kiln::hal::Device> device;  // outlives the context
  std::unique_ptr<kiln::vm::Context> context;
};

struct kiln_results {
  std::vector<kiln::vm::HostTensor> tensors;
};

namespace {

kiln_status_t Error(std::string message) {
  return new (std::nothrow) kiln_status{std::move(message)};
}

kiln_status_t FromStatus(const kiln::Status& s) { return s.ok() ? nullptr : Error(s.message()); }

// Runs `body`, turning an escaping exception into a status that names the
// entry point. Failures the runtime foresees (a missing file, a directory,
// a thread that cannot start) come back as a Status with their own message;
// this is the last line of defence, so no exception reaches C.
template <typename F>
kiln_status_t Guard(const char* entry, F&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Error(std::string(entry) + ": out of memory");
  } catch (const std::exception& e) {
    return Error(std::string(entry) + ": unexpected error: " + e.what());
  } catch (...) {
    return Error(std::string(entry) + ": unexpected error");
  }
}

kiln_status_t WrapModule(kiln::StatusOr<std::shared_ptr<const kiln::vm::LoadedModule>> loaded,
                         kiln_module_t** out) {
  if (!loaded.ok()) return FromStatus(loaded.status());
  auto m = std::make_unique<kiln_module>();
  m->loaded = std::move(loaded.value());
  for (const auto& f : m->loaded->functions)
    if (f.is_public) m->public_functions.push_back(f.name);
  *out = m.release();
  return nullptr;
}

}  // namespace

extern "C" {

const char* kiln_status_message(kiln_status_t status) {
  return status ? status->message.c_str() : "ok";
}

void kiln_status_free(kiln_status_t status) { delete status; }

int32_t kiln_element_type_from_name(const char* name) {
  if (!name) return 0;
  try {  // no status to carry a failure: an exception reads as "no such type"
    auto t = kiln::ElementTypeFromName(name);
    return t ? static_cast<int32_t>(*t) : 0;
  } catch (...) {
    return 0;
  }
}

size_t kiln_element_type_size(int32_t element_type) {
  if (element_type < 0) return 0;
  auto t = kiln::ElementTypeFromCode(static_cast<uint32_t>(element_type));
  return t ? kiln::StorageBytes(*t) : 0;
}

kiln_status_t kiln_module_load_file(const char* path, kiln_module_t** out_module) {
  if (!path || !out_module) return Error("kiln_module_load_file: path and out_module are required");
  *out_module = nullptr;
  return Guard("kiln_module_load_file", [&] { return WrapModule(kiln::vm::LoadModuleFromFile(path), out_module); });
}

kiln_status_t kiln_module_load_memory(const void* data, size_t size, kiln_module_t** out_module) {
  if ((!data && size) || !out_module) return Error("kiln_module_load_memory: data and out_module are required");
  *out_module = nullptr;
  return Guard("kiln_module_load_memory", [&] {
    const auto* bytes = static_cast<const uint8_t*>(data);
    return WrapModule(kiln::vm::LoadModule(std::vector<uint8_t>(bytes, bytes + size)), out_module);
  });
}

void kiln_module_free(kiln_module_t* module) { delete module; }

size_t kiln_module_function_count(const kiln_module_t* module) {
  return module ? module->public_functions.size() : 0;
}

const char* kiln_module_function_name(const kiln_module_t* module, size_t index) {
  if (!module || index >= module->public_functions.size()) return nullptr;
  return module->public_functions[index].c_str();
}

kiln_status_t kiln_session_create(kiln_module_t* module, const char* device, kiln_session_t** out_session) {
  if (!module || !out_session) return Error("kiln_session_create: module and out_session are required");
  *out_session = nullptr;
  return Guard("kiln_session_create", [&]() -> kiln_status_t {
    auto session = std::make_unique<kiln_session>();
    session->module = module->loaded;
    auto dev = kiln::hal::CreateDeviceByName(device ? device : "cpu");
    if (!dev.ok()) return FromStatus(dev.status());
    session->device = std::move(dev.value());
    auto ctx = kiln::vm::Context::Create(session->module, session->device.get());
    if (!ctx.ok()) return FromStatus(ctx.status());
    session->context = std::move(ctx.value());
    *out_session = session.release();
    return nullptr;
  });
}

void kiln_session_free(kiln_session_t* session) {
  if (!session) return;
  session->context.reset();  // before the device it runs on
  delete session;
}

kiln_status_t kiln_session_call(kiln_session_t* session, const char* function, const kiln_tensor_t* inputs,
                                size_t input_count, kiln_results_t** out_results) {
  if (!session || !function || !out_results || (input_count && !inputs))
    return Error("kiln_session_call: session, function, inputs and out_results are required");
  *out_results = nullptr;
  return Guard("kiln_session_call", [&]() -> kiln_status_t {
    std::vector<kiln::vm::HostTensor> host(input_count);
    for (size_t i = 0; i < input_count; ++i) {
      const kiln_tensor_t& in = inputs[i];
      std::string which = "input " + std::to_string(i) + ": ";
      auto type = in.element_type > 0 ? kiln::ElementTypeFromCode(static_cast<uint32_t>(in.element_type))
                                      : std::nullopt;
      if (!type) return Error(which + "unknown element type code " + std::to_string(in.element_type));
      if (in.rank < 0 || in.rank > 64 || (in.rank > 0 && !in.dims))
        return Error(which + "rank must be 0..64 with dims given");
      host[i].type = *type;
      host[i].dims.assign(in.dims, in.dims + in.rank);
      // Overflow-checked element count: sizes come from the caller.
      size_t count = 1;
      for (int64_t d : host[i].dims) {
        if (d < 0 || (d > 0 && count > SIZE_MAX / static_cast<size_t>(d)))
          return Error(which + "invalid dimension " + std::to_string(d));
        count *= static_cast<size_t>(d);
      }
      size_t elem = kiln::StorageBytes(*type);
      if (count > SIZE_MAX / elem || count * elem != in.byte_size)
        return Error(which + "byte_size " + std::to_string(in.byte_size) + " does not match its shape (" +
                     std::to_string(count) + " elements of " + std::to_string(elem) + " bytes)");
      if (in.byte_size && !in.data) return Error(which + "data is NULL");
      const auto* p = static_cast<const uint8_t*>(in.data);
      host[i].data.assign(p, p + in.byte_size);
    }
    auto results = session->context->Invoke(function, host);
    if (!results.ok()) return FromStatus(results.status());
    for (const auto& r : *results)
      if (r.is_tuple || r.is_token)
        return Error(std::string("function '") + function + "' returns a tuple or token, which the C API does not carry");
    auto out = std::make_unique<kiln_results>();
    out->tensors = std::move(results.value());
    *out_results = out.release();
    return nullptr;
  });
}

size_t kiln_results_count(const kiln_results_t* results) { return results ? results->tensors.size() : 0; }

kiln_status_t kiln_results_get(const kiln_results_t* results, size_t index, kiln_tensor_t* out_tensor) {
  if (!results || !out_tensor) return Error("kiln_results_get: results and out_tensor are required");
  return Guard("kiln_results_get", [&]() -> kiln_status_t {
    if (index >= results->tensors.size())
      return Error("kiln_results_get: index " + std::to_string(index) + " out of range (" +
                   std::to_string(results->tensors.size()) + " results)");
    const auto& t = results->tensors[index];
    out_tensor->element_type = static_cast<int32_t>(t.type);
    out_tensor->rank = static_cast<int32_t>(t.dims.size());
    out_tensor->dims = t.dims.data();
    out_tensor->data = t.data.data();
    out_tensor->byte_size = t.data.size();
    return nullptr;
  });
}

void kiln_results_free(kiln_results_t* results) { delete results; }

}  // extern "C"

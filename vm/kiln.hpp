// A thin C++17 layer over Kiln's C API (vm/kiln.h), header-only: RAII
// handles that free themselves, errors as exceptions, signatures as values.
// It adds no behaviour of its own: each method is one C call (or a few),
// and what kiln.h says of that call (ownership, thread safety, lifetimes)
// holds here. Link it as the C API (libkiln.so, or Kiln::runtime).
//
//   kiln_cpp::Module module = kiln_cpp::Module::LoadFile("mlp.kiln");
//   kiln_cpp::Session session(module, "cpu");
//   std::vector<int64_t> dims = {1, 784};
//   kiln_cpp::TensorView x(pixels.data(), dims);  // a view: nothing copied
//   kiln_cpp::Results out = session.Call("main", {x});
//   const float* probs = out[0].data<float>();
//
// Errors: every failing C call throws kiln_cpp::Error, which carries the
// status code (kiln_status_code_t) and Kiln's message; the status itself is
// freed before the throw. Destructors and moves never throw.
//
// Handles (Module, Device, Session, Results) are move-only: copying one
// would free the object twice. A moved-from handle is empty (get() is NULL)
// and may only be destroyed or assigned to.
#ifndef KILN_VM_KILN_HPP_
#define KILN_VM_KILN_HPP_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "vm/kiln.h"

namespace kiln_cpp {

// A failed C call: its code and message.
class Error : public std::runtime_error {
 public:
  Error(kiln_status_code_t code, const std::string& message) : std::runtime_error(message), code_(code) {}
  kiln_status_code_t code() const noexcept { return code_; }

 private:
  kiln_status_code_t code_;
};

// Takes `status` (frees it) and throws Error if it is a failure.
inline void Check(kiln_status_t status) {
  if (!status) return;
  const kiln_status_code_t code = kiln_status_code(status);
  std::string message;
  try {
    message = kiln_status_message(status);
  } catch (...) {  // the copy's allocation: free the status, then let it go
    kiln_status_free(status);
    throw;
  }
  kiln_status_free(status);
  throw Error(code, message);
}

inline const kiln_version_t& Version() { return *kiln_version(); }

// The element type code of an MLIR type name ("f32", "bf16"); 0 if none.
inline int32_t ElementTypeFromName(const std::string& name) { return kiln_element_type_from_name(name.c_str()); }
inline size_t ElementTypeSize(int32_t element_type) { return kiln_element_type_size(element_type); }

// The element type code of a C++ type, for TensorView's typed constructor
// and data<T>(). `bool` is i1 (one byte per element, as Kiln stores i1).
template <typename T>
struct ElementTypeOf;
static_assert(sizeof(bool) == 1, "i1 is stored one byte per element");
template <> struct ElementTypeOf<bool> { static constexpr int32_t value = KILN_TYPE_I1; };
template <> struct ElementTypeOf<int8_t> { static constexpr int32_t value = KILN_TYPE_I8; };
template <> struct ElementTypeOf<int16_t> { static constexpr int32_t value = KILN_TYPE_I16; };
template <> struct ElementTypeOf<int32_t> { static constexpr int32_t value = KILN_TYPE_I32; };
template <> struct ElementTypeOf<int64_t> { static constexpr int32_t value = KILN_TYPE_I64; };
template <> struct ElementTypeOf<uint8_t> { static constexpr int32_t value = KILN_TYPE_UI8; };
template <> struct ElementTypeOf<uint32_t> { static constexpr int32_t value = KILN_TYPE_UI32; };
template <> struct ElementTypeOf<float> { static constexpr int32_t value = KILN_TYPE_F32; };
template <> struct ElementTypeOf<double> { static constexpr int32_t value = KILN_TYPE_F64; };

// A tensor by reference: an element type, dims and bytes someone else owns
// (a kiln_tensor_t with methods). An input's data and dims must stay alive
// and unchanged until the call that reads them returns; a result's are the
// Results' and live until it is destroyed.
class TensorView {
 public:
  TensorView() : t_{0, 0, nullptr, nullptr, 0} {}
  explicit TensorView(const kiln_tensor_t& t) : t_(t) {}
  // Any element type by its code; `byte_size` bytes at `data`.
  TensorView(int32_t element_type, const void* data, size_t byte_size, const int64_t* dims, int32_t rank)
      : t_{element_type, rank, dims, data, byte_size} {}
  TensorView(int32_t element_type, const void* data, size_t byte_size, const std::vector<int64_t>& dims)
      : TensorView(element_type, data, byte_size, dims.data(), static_cast<int32_t>(dims.size())) {}
  // Typed: the element type and byte size follow from T and `dims`
  // (kept by reference: the vector must outlive the call).
  template <typename T>
  TensorView(const T* data, const std::vector<int64_t>& dims)
      : TensorView(ElementTypeOf<T>::value, data, sizeof(T) * Count(dims.data(), dims.size()), dims) {}
  // A temporary vector of dims would be gone before the call reads it.
  template <typename T>
  TensorView(const T* data, std::vector<int64_t>&& dims) = delete;
  TensorView(int32_t element_type, const void* data, size_t byte_size, std::vector<int64_t>&& dims) = delete;

  int32_t element_type() const { return t_.element_type; }
  int32_t rank() const { return t_.rank; }
  int64_t dim(int32_t i) const {
    if (i < 0 || i >= t_.rank) throw std::out_of_range("kiln_cpp::TensorView::dim: index out of range");
    return t_.dims[i];
  }
  std::vector<int64_t> dims() const { return std::vector<int64_t>(t_.dims, t_.dims + t_.rank); }
  int64_t num_elements() const { return static_cast<int64_t>(Count(t_.dims, static_cast<size_t>(t_.rank))); }
  size_t byte_size() const { return t_.byte_size; }
  const void* raw_data() const { return t_.data; }
  // The elements as T; std::invalid_argument unless T is the element type.
  template <typename T>
  const T* data() const {
    if (ElementTypeOf<T>::value != t_.element_type)
      throw std::invalid_argument("kiln_cpp::TensorView::data: the tensor's element type is code " +
                                  std::to_string(t_.element_type) + ", not code " +
                                  std::to_string(ElementTypeOf<T>::value));
    return static_cast<const T*>(t_.data);
  }
  const kiln_tensor_t& c() const { return t_; }

 private:
  static size_t Count(const int64_t* dims, size_t rank) {
    size_t n = 1;
    for (size_t i = 0; i < rank; ++i) n *= dims[i] < 0 ? 0 : static_cast<size_t>(dims[i]);
    return n;
  }
  kiln_tensor_t t_;
};

// One argument or result of a function.
struct ValueInfo {
  kiln_value_kind_t kind = KILN_VALUE_TENSOR;
  int32_t element_type = 0;    // 0 for a token or tuple
  std::vector<int64_t> dims;   // -1 where dynamic
  std::string name;            // from jax.arg_info / jax.result_info ...; "" when none
};

// A public function's signature.
struct Signature {
  std::string function;
  std::vector<ValueInfo> args, results;
};

namespace detail {
// A move-only owner of a C object freed by `Free`.
template <typename T, void (*Free)(T*)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(T* p) : p_(p) {}
  Handle(Handle&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      Free(p_);  // every kiln_*_free accepts NULL
      p_ = std::exchange(o.p_, nullptr);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { Free(p_); }
  T* get() const { return p_; }
  // Gives up ownership: the caller frees it with the kiln_*_free call.
  T* release() { return std::exchange(p_, nullptr); }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  T* p_ = nullptr;
};
}  // namespace detail

class Module {
 public:
  Module() = default;
  // Takes ownership of a module loaded through the C API.
  explicit Module(kiln_module_t* m) : h_(m) {}

  static Module LoadFile(const std::string& path, const kiln_load_options_t* options = nullptr) {
    kiln_module_t* m = nullptr;
    Check(kiln_module_load_file_with_options(path.c_str(), options, &m));
    return Module(m);
  }
  // Copies the bytes.
  static Module LoadMemory(const void* data, size_t size) {
    kiln_module_t* m = nullptr;
    Check(kiln_module_load_memory(data, size, &m));
    return Module(m);
  }
  // Uses the bytes in place until `release(user_data)` (kiln.h).
  static Module LoadMemoryBorrowed(const void* data, size_t size, kiln_release_fn release, void* user_data,
                                   const kiln_load_options_t* options = nullptr) {
    kiln_module_t* m = nullptr;
    Check(kiln_module_load_memory_borrowed(data, size, release, user_data, options, &m));
    return Module(m);
  }
  // "[scope=]FILE" safetensors files binding external weights.
  static Module LoadFileWithParameters(const std::string& path, const std::vector<std::string>& parameters) {
    std::vector<const char*> p;
    p.reserve(parameters.size());
    for (const auto& s : parameters) p.push_back(s.c_str());
    kiln_module_t* m = nullptr;
    Check(kiln_module_load_file_with_parameters(path.c_str(), p.data(), p.size(), &m));
    return Module(m);
  }

  size_t function_count() const { return kiln_module_function_count(h_.get()); }
  std::string function_name(size_t index) const {
    const char* name = kiln_module_function_name(h_.get(), index);
    if (!name) throw Error(KILN_STATUS_OUT_OF_RANGE, "kiln_cpp::Module::function_name: index " +
                                                         std::to_string(index) + " out of range");
    return name;
  }
  // The index of public function `name`; Error NOT_FOUND if there is none.
  size_t FindFunction(const std::string& name) const {
    size_t index = 0;
    Check(kiln_module_find_function(h_.get(), name.c_str(), &index));
    return index;
  }
  Signature GetSignature(size_t function) const {
    Signature sig;
    size_t args = 0, results = 0;
    Check(kiln_module_function_arity(h_.get(), function, &args, &results));
    sig.function = function_name(function);
    for (size_t i = 0; i < args; ++i) sig.args.push_back(Value(function, i, false));
    for (size_t i = 0; i < results; ++i) sig.results.push_back(Value(function, i, true));
    return sig;
  }
  Signature GetSignature(const std::string& function) const { return GetSignature(FindFunction(function)); }

  kiln_module_t* get() const { return h_.get(); }
  kiln_module_t* release() { return h_.release(); }

 private:
  ValueInfo Value(size_t function, size_t i, bool result) const {
    kiln_value_type_t t;
    const char* name = nullptr;
    if (result) {
      Check(kiln_module_function_result(h_.get(), function, i, &t));
      Check(kiln_module_function_result_name(h_.get(), function, i, &name));
    } else {
      Check(kiln_module_function_arg(h_.get(), function, i, &t));
      Check(kiln_module_function_arg_name(h_.get(), function, i, &name));
    }
    ValueInfo v;
    v.kind = static_cast<kiln_value_kind_t>(t.kind);
    v.element_type = t.element_type;
    v.dims.assign(t.dims, t.dims + t.rank);
    v.name = name ? name : "";
    return v;
  }
  detail::Handle<kiln_module_t, kiln_module_free> h_;
};

// Options for Device::Create; zero/empty fields take kiln.h's defaults.
struct DeviceOptions {
  std::string name = "cpu";            // "cpu", "vulkan", "vulkan:N"
  int32_t cpu_threads = 0;             // 0: KILN_THREADS, else one per core
  kiln_spin_policy_t spin_policy = KILN_SPIN_DEFAULT;
  std::vector<int32_t> cpu_affinity;   // empty: workers not pinned
};

// A device that several sessions share (one CPU pool, one Vulkan device).
class Device {
 public:
  Device() = default;
  explicit Device(kiln_device_t* d) : h_(d) {}
  static Device Create(const DeviceOptions& o = DeviceOptions()) {
    kiln_device_options_t c;
    kiln_device_options_init(&c);
    c.name = o.name.c_str();
    c.cpu_threads = o.cpu_threads;
    c.spin_policy = o.spin_policy;
    c.cpu_affinity = o.cpu_affinity.empty() ? nullptr : o.cpu_affinity.data();
    c.cpu_affinity_count = o.cpu_affinity.size();
    kiln_device_t* d = nullptr;
    Check(kiln_device_create(&c, &d));
    return Device(d);
  }
  kiln_device_t* get() const { return h_.get(); }
  kiln_device_t* release() { return h_.release(); }

 private:
  detail::Handle<kiln_device_t, kiln_device_free> h_;
};

// A call's results: result i is a view into memory this object owns.
class Results {
 public:
  Results() = default;
  explicit Results(kiln_results_t* r) : h_(r) {}
  size_t size() const { return kiln_results_count(h_.get()); }
  // Result `index`, valid until this object is destroyed.
  TensorView operator[](size_t index) const {
    kiln_tensor_t t;
    Check(kiln_results_get(h_.get(), index, &t));
    return TensorView(t);
  }
  TensorView at(size_t index) const { return (*this)[index]; }
  kiln_results_t* get() const { return h_.get(); }
  kiln_results_t* release() { return h_.release(); }

 private:
  detail::Handle<kiln_results_t, kiln_results_free> h_;
};

// A module opened on a device. It keeps the module and the device alive;
// one call at a time (kiln.h).
class Session {
 public:
  Session() = default;
  explicit Session(kiln_session_t* s) : h_(s) {}
  // On a device of its own: "cpu" (the default), "vulkan", "vulkan:N".
  explicit Session(const Module& module, const std::string& device = "cpu", int32_t cpu_threads = 0) {
    kiln_session_options_t o;
    kiln_session_options_init(&o);
    o.device = device.c_str();
    o.cpu_threads = cpu_threads;
    Open(module, o);
  }
  // On a shared device.
  Session(const Module& module, const Device& device) {
    kiln_session_options_t o;
    kiln_session_options_init(&o);
    o.shared_device = device.get();
    Open(module, o);
  }
  Session(const Module& module, const kiln_session_options_t& options) { Open(module, options); }

  Results Call(const std::string& function, const kiln_tensor_t* inputs, size_t count) {
    kiln_results_t* r = nullptr;
    Check(kiln_session_call(h_.get(), function.c_str(), inputs, count, &r));
    return Results(r);
  }
  Results Call(const std::string& function, const std::vector<TensorView>& inputs) {
    std::vector<kiln_tensor_t> c;
    c.reserve(inputs.size());
    for (const auto& t : inputs) c.push_back(t.c());
    return Call(function, c.data(), c.size());
  }
  Results Call(const std::string& function, std::initializer_list<TensorView> inputs) {
    return Call(function, std::vector<TensorView>(inputs));
  }

  // Profiling (kiln.h, docs/embedding.md): ProfileEnd writes Chrome trace
  // JSON to `trace_path` unless it is empty, and returns the ops table.
  void ProfileBegin() { Check(kiln_session_profile_begin(h_.get())); }
  std::string ProfileEnd(const std::string& trace_path = "") {
    char* table = nullptr;
    Check(kiln_session_profile_end(h_.get(), trace_path.empty() ? nullptr : trace_path.c_str(), &table));
    std::string out;
    try {
      out = table ? table : "";
    } catch (...) {
      kiln_string_free(table);
      throw;
    }
    kiln_string_free(table);
    return out;
  }

  kiln_session_t* get() const { return h_.get(); }
  kiln_session_t* release() { return h_.release(); }

 private:
  void Open(const Module& module, const kiln_session_options_t& options) {
    kiln_session_t* s = nullptr;
    // The C API takes a non-const module (a session shares it); the
    // wrapper's Module stays the owner.
    Check(kiln_session_create_with_options(module.get(), &options, &s));
    h_ = detail::Handle<kiln_session_t, kiln_session_free>(s);
  }
  detail::Handle<kiln_session_t, kiln_session_free> h_;
};

// A user op's call (kiln.h, "User ops"): views of the operands and of the
// results to write, valid during the call only.
struct CustomCallArgs {
  const kiln_tensor_t* inputs = nullptr;
  size_t input_count = 0;
  const kiln_mutable_tensor_t* outputs = nullptr;
  size_t output_count = 0;
  const char* backend_config = "";

  template <typename T>
  const T* input(size_t i) const {
    return static_cast<const T*>(inputs[i].data);
  }
  template <typename T>
  T* output(size_t i) const {
    return static_cast<T*>(outputs[i].data);
  }
};

// Registers `fn` under `target` for the process (kiln_register_custom_call).
// An exception `fn` throws fails the call with its what(). `fn` is
// destroyed once the registration is replaced or removed and no call runs
// it.
inline void RegisterCustomCall(const std::string& target, std::function<void(const CustomCallArgs&)> fn) {
  using Fn = std::function<void(const CustomCallArgs&)>;
  auto* kept = new Fn(std::move(fn));
  auto trampoline = [](void* user_data, const kiln_tensor_t* inputs, size_t input_count,
                       const kiln_mutable_tensor_t* outputs, size_t output_count, const char* backend_config,
                       char* error, size_t error_size) -> int32_t {
    try {
      (*static_cast<Fn*>(user_data))(CustomCallArgs{inputs, input_count, outputs, output_count, backend_config});
      return 0;
    } catch (const std::exception& e) {
      std::strncpy(error, e.what(), error_size);
    } catch (...) {
      std::strncpy(error, "an exception that is not a std::exception", error_size);
    }
    if (error_size > 0) error[error_size - 1] = '\0';
    return 1;
  };
  try {
    Check(kiln_register_custom_call(target.c_str(), trampoline, kept,
                                    [](void* user_data) { delete static_cast<Fn*>(user_data); }));
  } catch (...) {
    delete kept;
    throw;
  }
}

// Removes the registration of `target` (kiln_unregister_custom_call).
inline void UnregisterCustomCall(const std::string& target) { Check(kiln_unregister_custom_call(target.c_str())); }

}  // namespace kiln_cpp

#endif  // KILN_VM_KILN_HPP_

// The Python extension `kiln._kiln` (pybind11): compile StableHLO, load a
// module on a device, call its functions with numpy arrays. The package
// `kiln` (python/kiln/__init__.py) wraps it; docs/python.md describes the API.
//
// Inputs are read in place (Context::Invoke on BorrowedTensor, the GIL
// released meanwhile; the arrays stay referenced for the call); results
// become numpy arrays over the result's own storage, owned by a capsule, so
// neither direction copies. Element types numpy has map to its dtypes; the
// others (bf16, f8*, f4/f6, i2/i4/ui2/ui4) travel as unsigned integers of
// their storage width with the type named (kiln.RawTensor in Python).
// Device buffers (kiln.Buffer) hold a tensor in the session's device memory
// between calls: passed as arguments without a transfer, kept as results
// (Context::Invoke on CallInput), consumed where the program donates them.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "hal/cpu/thread_pool.h"
#include "hal/devices.h"
#include "vm/context.h"
#include "vm/module.h"
#include "vm/parameters.h"

namespace py = pybind11;

namespace kiln::python {
namespace {

// Kiln's errors reach Python as kiln.Error (a RuntimeError) with Kiln's message.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void Check(const Status& s) {
  if (!s.ok()) throw Error(s.message());
}
template <typename T>
T Take(StatusOr<T> v) {
  Check(v.status());
  return std::move(*v);
}

// numpy's type character ('f', 'i', 'u', 'b', 'c') and item size of an
// element type numpy has; {0, 0} for the others.
std::pair<char, size_t> NumpyKind(ElementType t) {
  switch (t) {
    case ElementType::kI1: return {'b', 1};
    case ElementType::kSI8: case ElementType::kSI16: case ElementType::kSI32: case ElementType::kSI64:
      return {'i', StorageBytes(t)};
    case ElementType::kUI8: case ElementType::kUI16: case ElementType::kUI32: case ElementType::kUI64:
      return {'u', StorageBytes(t)};
    case ElementType::kF16: case ElementType::kF32: case ElementType::kF64: return {'f', StorageBytes(t)};
    case ElementType::kC64: case ElementType::kC128: return {'c', StorageBytes(t)};
    default: return {0, 0};
  }
}

py::dtype DtypeOf(ElementType t) {
  auto [kind, size] = NumpyKind(t);
  if (kind == 0) kind = 'u', size = StorageBytes(t);  // raw bits
  return py::dtype(std::string(1, kind == 'b' ? '?' : kind) + (kind == 'b' ? "" : std::to_string(size)));
}

// The element type of an array passed without a type name.
StatusOr<ElementType> ElementTypeOfArray(const py::array& a) {
  const char kind = a.dtype().kind();
  const size_t size = static_cast<size_t>(a.itemsize());
  for (int code = 1; code <= kMaxElementTypeCode; ++code) {
    auto t = ElementTypeFromCode(static_cast<uint32_t>(code));
    if (!t) continue;
    auto [k, s] = NumpyKind(*t);
    if (k == kind && s == size) return *t;
  }
  return InvalidArgument("numpy arrays of dtype " + std::string(py::str(a.dtype())) +
                         " have no Kiln element type (pass kiln.RawTensor(bits, element_type) for types numpy lacks)");
}

py::dict Signature(const vm::ValueSig& sig) {
  py::dict d;
  d["kind"] = sig.kind == vm::ValueSig::Kind::kTensor ? "tensor" : sig.kind == vm::ValueSig::Kind::kToken ? "token" : "tuple";
  d["element_type"] = sig.kind == vm::ValueSig::Kind::kTensor ? std::string(Name(sig.type)) : std::string();
  d["shape"] = py::tuple(py::cast(sig.dims));
  d["text"] = sig.ToString();
  // The source's name (jax.arg_info, jax.result_info, ...); None when it gave none.
  d["name"] = sig.name.empty() ? py::object(py::none()) : py::object(py::str(sig.name));
  return d;
}

// A result as Python: an ndarray over the tensor's own storage, or
// (bits ndarray, type name) for a type numpy lacks; a tuple for a tuple;
// None for a token.
py::object ToPython(vm::HostTensor&& t) {
  if (t.is_token) return py::none();
  if (t.is_tuple) {
    py::tuple out(t.tuple_elements.size());
    for (size_t i = 0; i < t.tuple_elements.size(); ++i) out[i] = ToPython(std::move(t.tuple_elements[i]));
    return out;
  }
  auto* owner = new vm::HostTensor(std::move(t));
  py::capsule keep(owner, [](void* p) { delete static_cast<vm::HostTensor*>(p); });
  const py::dtype dtype = DtypeOf(owner->type);
  std::vector<py::ssize_t> shape(owner->dims.begin(), owner->dims.end()), strides(shape.size());
  py::ssize_t stride = dtype.itemsize();
  for (size_t k = shape.size(); k-- > 0;) {
    strides[k] = stride;
    stride *= shape[k];
  }
  py::array array(dtype, shape, strides, owner->data.data(), keep);
  if (NumpyKind(owner->type).first == 0) return py::make_tuple(array, std::string(Name(owner->type)));
  return array;
}

// A tensor in a session's device memory (kiln.Buffer). Keeps the device
// alive; its view is reset once a call consumes it (donation).
struct Buffer {
  std::shared_ptr<hal::Device> device;
  std::shared_ptr<const hal::BufferView> view;

  const hal::BufferView& View() const {
    if (!view) throw Error("this buffer was donated to an earlier call and can no longer be used");
    return *view;
  }
  py::object Numpy() const {
    const hal::BufferView& v = View();
    vm::HostTensor t;
    t.type = v.type;
    t.dims = v.dims;
    t.data.resize(v.ByteSize());
    Status s;
    {
      py::gil_scoped_release release;
      s = device->Download(*v.buffer, v.offset, t.data.data(), t.data.size());
    }
    Check(s);
    return ToPython(std::move(t));
  }
  py::tuple Shape() const { return py::tuple(py::cast(View().dims)); }
  std::string ElementTypeName() const { return std::string(Name(View().type)); }
  bool Valid() const { return view != nullptr; }
};

// An argument's element type: the array's dtype, or the named type whose
// storage bits the array holds.
ElementType ArgumentType(const py::array& a, const std::string& name, size_t i) {
  if (name.empty()) return Take(ElementTypeOfArray(a));
  auto t = ElementTypeFromName(name);
  if (!t) throw Error("argument " + std::to_string(i) + ": no element type named '" + name + "'");
  if (a.dtype().kind() != 'u' || static_cast<size_t>(a.itemsize()) != StorageBytes(*t))
    throw Error("argument " + std::to_string(i) + ": the bits of " + name + " are unsigned integers of " +
                std::to_string(StorageBytes(*t)) + " bytes, not " + std::string(py::str(a.dtype())));
  return *t;
}

class Session {
 public:
  Session(std::shared_ptr<const vm::LoadedModule> module, const std::string& device, int threads)
      : module_(std::move(module)) {
    if (threads < 0 || threads > hal::ThreadPool::kMaxThreads)
      throw Error("threads must be 0 to " + std::to_string(hal::ThreadPool::kMaxThreads) + " (0: one per core), not " +
                  std::to_string(threads));
    device_ = Take(hal::CreateDeviceByName(device, threads));
    context_ = Take(vm::Context::Create(module_, device_.get()));
  }

  py::list Functions() const {
    py::list out;
    for (const auto& fn : module_->functions) {
      if (!fn.is_public) continue;
      py::dict f;
      f["name"] = fn.name;
      py::list args, results;
      for (const auto& a : fn.args) args.append(Signature(a));
      for (const auto& r : fn.results) results.append(Signature(r));
      f["args"] = args;
      f["results"] = results;
      out.append(f);
    }
    return out;
  }

  // args: (C-contiguous ndarray, type name or "") per argument.
  py::tuple Call(const std::string& function, const std::vector<std::pair<py::array, std::string>>& args) {
    std::vector<vm::BorrowedTensor> inputs(args.size());
    std::vector<std::vector<int64_t>> dims(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      const py::array& a = args[i].first;
      if (!(a.flags() & py::array::c_style)) throw Error("argument " + std::to_string(i) + " is not C-contiguous");
      const ElementType type = ArgumentType(a, args[i].second, i);
      for (py::ssize_t k = 0; k < a.ndim(); ++k) dims[i].push_back(a.shape(k));
      inputs[i].type = type;
      inputs[i].dims = dims[i].data();
      inputs[i].rank = dims[i].size();
      inputs[i].data = a.data();
      inputs[i].byte_size = static_cast<size_t>(a.nbytes());
    }
    std::vector<vm::HostTensor> results;
    Status status;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);  // a context runs one call at a time
      context_->ClearCheckFailures();
      status = context_->Invoke(function, inputs, vm::InvokeOptions{}, &results);
      if (status.ok() && !context_->check_failures().empty())
        status = FailedPrecondition("check failed: " + context_->check_failures().front());
    }
    Check(status);
    py::tuple out(results.size());
    for (size_t i = 0; i < results.size(); ++i) out[i] = ToPython(std::move(results[i]));
    return out;
  }

  // A copy of the array (C-contiguous; `type`: as for call) on the device.
  Buffer Upload(const py::array& a, const std::string& type_name) {
    if (!(a.flags() & py::array::c_style)) throw Error("the array is not C-contiguous");
    auto view = std::make_shared<hal::BufferView>();
    view->type = ArgumentType(a, type_name, 0);
    for (py::ssize_t k = 0; k < a.ndim(); ++k) view->dims.push_back(a.shape(k));
    const size_t bytes = static_cast<size_t>(a.nbytes());
    StatusOr<std::shared_ptr<hal::Buffer>> b = bytes ? device_->AllocateCopy(a.data(), bytes) : device_->Allocate(0);
    view->buffer = Take(std::move(b));
    return Buffer{device_, std::move(view)};
  }

  // args: kiln Buffers or (C-contiguous ndarray, type name or ""); keep[i]:
  // result i stays on the device (a Buffer) instead of becoming an array.
  py::tuple CallValues(const std::string& function, const std::vector<py::object>& args, const std::vector<bool>& keep) {
    std::vector<vm::CallInput> inputs(args.size());
    std::vector<std::vector<int64_t>> dims(args.size());
    std::vector<Buffer*> buffers(args.size(), nullptr);
    for (size_t i = 0; i < args.size(); ++i) {
      if (py::isinstance<Buffer>(args[i])) {
        Buffer& b = args[i].cast<Buffer&>();
        (void)b.View();
        if (b.device != device_) throw Error("argument " + std::to_string(i) + " is a buffer of another module's device");
        inputs[i].device = b.view;
        buffers[i] = &b;
        continue;
      }
      auto pair = args[i].cast<std::pair<py::array, std::string>>();
      const py::array& a = pair.first;
      if (!(a.flags() & py::array::c_style)) throw Error("argument " + std::to_string(i) + " is not C-contiguous");
      for (py::ssize_t k = 0; k < a.ndim(); ++k) dims[i].push_back(a.shape(k));
      inputs[i].host = vm::BorrowedTensor{ArgumentType(a, pair.second, i), dims[i].data(), dims[i].size(), a.data(),
                                          static_cast<size_t>(a.nbytes())};
    }
    std::vector<vm::ResultPlacement> placement(keep.size());
    for (size_t i = 0; i < keep.size(); ++i)
      if (keep[i]) placement[i].kind = vm::ResultPlacement::Kind::kDevice;
    vm::CallOutcome outcome;
    Status status;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      context_->ClearCheckFailures();
      status = context_->Invoke(function, inputs, placement, vm::InvokeOptions{}, &outcome);
      if (status.ok() && !context_->check_failures().empty())
        status = FailedPrecondition("check failed: " + context_->check_failures().front());
    }
    Check(status);
    for (uint32_t i : outcome.consumed) buffers[i]->view.reset();
    py::tuple out(outcome.results.size());
    for (size_t i = 0; i < outcome.results.size(); ++i) {
      if (outcome.results[i].device) out[i] = py::cast(Buffer{device_, outcome.results[i].device});
      else out[i] = ToPython(std::move(outcome.results[i].host));
    }
    return out;
  }

  py::dict TransferStats() const {
    const hal::TransferStats t = device_->transfer_stats();
    py::dict d;
    d["uploads"] = t.uploads;
    d["upload_bytes"] = t.upload_bytes;
    d["downloads"] = t.downloads;
    d["download_bytes"] = t.download_bytes;
    return d;
  }

 private:
  std::shared_ptr<const vm::LoadedModule> module_;
  std::shared_ptr<hal::Device> device_;  // shared with the buffers
  std::unique_ptr<vm::Context> context_;
  std::mutex mu_;
};

vm::LoadOptions Options(const std::vector<std::string>& parameters) {
  vm::LoadOptions options = vm::DefaultLoadOptions();
  if (parameters.empty()) return options;
  auto set = std::make_shared<vm::ParameterSet>();
  for (const auto& spec : parameters) Check(set->AddSpec(spec));
  options.parameters = std::move(set);
  return options;
}

}  // namespace
}  // namespace kiln::python

PYBIND11_MODULE(_kiln, m) {
  using namespace kiln::python;
  m.doc() = "Kiln's native extension; use the kiln package";
  static py::exception<Error> error(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      error(e.what());
    }
  });

  m.def(
      "compile_source",
      [](const std::string& source, const std::string& file_name, const std::string& target, bool fuse,
         bool plan_memory) {
        kiln::compiler::CompileOptions options;
        options.target = target;
        options.fuse = fuse;
        options.plan_memory = plan_memory;
        std::vector<std::string> warnings;
        std::vector<uint8_t> bytes;
        kiln::Status status;
        {
          py::gil_scoped_release release;
          auto r = kiln::compiler::Compile(source, file_name, options, &warnings);
          if (r.ok()) bytes = std::move(*r);
          else status = r.status();
        }
        Check(status);
        return py::make_tuple(py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size()), warnings);
      },
      py::arg("source"), py::arg("file_name"), py::arg("target"), py::arg("fuse"), py::arg("plan_memory"));

  py::class_<Buffer>(m, "Buffer")
      .def("_numpy", &Buffer::Numpy)
      .def_property_readonly("shape", &Buffer::Shape)
      .def_property_readonly("element_type", &Buffer::ElementTypeName)
      .def_property_readonly("valid", &Buffer::Valid);

  py::class_<Session>(m, "Session")
      .def_property_readonly("functions", &Session::Functions)
      .def("call", &Session::Call)
      .def("call_values", &Session::CallValues)
      .def("upload", &Session::Upload)
      .def("transfer_stats", &Session::TransferStats);

  m.def(
      "load_bytes",
      [](py::bytes data, const std::string& device, int threads, const std::vector<std::string>& parameters) {
        std::string_view view = data;
        std::vector<uint8_t> bytes(view.begin(), view.end());
        auto module = Take(kiln::vm::LoadModule(std::move(bytes), Options(parameters)));
        return std::make_unique<Session>(std::move(module), device, threads);
      },
      py::arg("data"), py::arg("device"), py::arg("threads"), py::arg("parameters"));
  m.def(
      "load_file",
      [](const std::string& path, const std::string& device, int threads, const std::vector<std::string>& parameters) {
        auto module = Take(kiln::vm::LoadModuleFromFile(path, Options(parameters)));
        return std::make_unique<Session>(std::move(module), device, threads);
      },
      py::arg("path"), py::arg("device"), py::arg("threads"), py::arg("parameters"));
}

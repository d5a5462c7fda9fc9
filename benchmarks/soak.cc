// kiln-soak MODULE.kiln [--function=NAME] [--device=cpu|vulkan] [--calls=N] [--samples=K] [--rss-slack-kib=S]
//
// Calls one function N times (default 100,000) through the C API, as an app
// calling in a loop does (kiln_session_call, kiln_results_free), and prints
// the process's resident memory, open file descriptors and threads and the
// device's live memory at K evenly spaced points. The first point is the
// end of the warm-up (the first tenth of the calls, at least one): from
// there on nothing may grow. Exits 1, naming what grew, when the RSS rose by
// more than the slack (allocator noise: 1 MiB by default), or when the file
// descriptors, the threads or the device's live bytes differ from the
// warm-up point at all. docs/testing.md, "Soak".
//
// Inputs are made from the function's signature: floats a fixed pattern in
// [-1, 1], integers small non-negative values, booleans alternating.
#include <dirent.h>

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "tools/cli/cli.h"
#include "vm/c_api_internal.h"  // the session's device, for its live bytes (not in the public API)
#include "vm/kiln.h"

namespace {

struct Sample {
  int64_t call = 0;
  int64_t rss_kib = 0;
  int64_t fds = 0;
  int64_t threads = 0;
  uint64_t device_live_bytes = 0;
};

int64_t CountEntries(const char* dir) {
  DIR* d = opendir(dir);
  if (!d) return -1;
  int64_t n = 0;
  while (dirent* e = readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) ++n;
  closedir(d);
  return n - 1;  // the directory stream's own descriptor, for /proc/self/fd
}

int64_t RssKib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::strtoll(line.c_str() + 6, nullptr, 10);
  return -1;
}

Sample Take(int64_t call, const kiln_session_t* session) {
  Sample s;
  s.call = call;
  s.rss_kib = RssKib();
  s.fds = CountEntries("/proc/self/fd");
  s.threads = CountEntries("/proc/self/task") + 1;  // the -1 is for fds only
  s.device_live_bytes = session->device->stats().live_bytes;
  return s;
}

// One input of `type`: dense data of the signature's static shape.
struct Input {
  std::vector<int64_t> dims;
  std::vector<unsigned char> data;
};

bool MakeInput(const kiln_value_type_t& type, size_t index, Input* out, std::string* error) {
  if (type.kind != KILN_VALUE_TENSOR) {
    *error = "argument " + std::to_string(index) + " is not a tensor";
    return false;
  }
  int64_t count = 1;
  for (int32_t d = 0; d < type.rank; ++d) {
    if (type.dims[d] < 0) {
      *error = "argument " + std::to_string(index) + " has a dynamic size";
      return false;
    }
    out->dims.push_back(type.dims[d]);
    count *= type.dims[d];
  }
  const size_t width = kiln_element_type_size(type.element_type);
  if (width == 0) {
    *error = "argument " + std::to_string(index) + " has an element type kiln-soak cannot fill";
    return false;
  }
  out->data.assign(static_cast<size_t>(count) * width, 0);
  for (int64_t i = 0; i < count; ++i) {
    unsigned char* p = out->data.data() + i * width;
    const double v = static_cast<double>((i * 37) % 201) / 100.0 - 1.0;
    switch (type.element_type) {
      case KILN_TYPE_F32: {
        const float f = static_cast<float>(v);
        std::memcpy(p, &f, 4);
        break;
      }
      case KILN_TYPE_F64: std::memcpy(p, &v, 8); break;
      case KILN_TYPE_I1: *p = static_cast<unsigned char>(i & 1); break;
      default: *p = static_cast<unsigned char>(i % 7); break;  // little-endian small integer; f16/bf16 bits near 0
    }
  }
  return true;
}

void Print(const Sample& s) {
  std::printf("call %10" PRId64 ": rss %8" PRId64 " KiB, fds %3" PRId64 ", threads %3" PRId64
              ", device live %10" PRIu64 " bytes\n",
              s.call, s.rss_kib, s.fds, s.threads, s.device_live_bytes);
}

int Fail(kiln_status_t status) {
  std::fprintf(stderr, "kiln-soak: error: %s\n", kiln_status_message(status));
  kiln_status_free(status);
  return 1;
}

int Main(int argc, char** argv) {
  kiln::tools::CommandLine cli("kiln-soak", "calls a function many times and checks that nothing grows");
  std::string path, function = "main", device = "cpu";
  int calls = 100000, samples = 10, slack_kib = 1024, leak_bytes = 0;
  cli.Positional("module", &path, "module file (.kiln)", true);
  cli.Text("--function", &function, "the public function to call");
  cli.Text("--device", &device, "cpu, vulkan or vulkan:N");
  cli.Integer("--calls", &calls, "calls in all", 2, INT_MAX);
  cli.Integer("--samples", &samples, "points at which the figures are taken", 2, 1000);
  cli.Integer("--rss-slack-kib", &slack_kib, "how far the RSS may rise after warm-up", 0, INT_MAX);
  cli.Integer("--test-leak-bytes", &leak_bytes,
              "a test of this check: leak this many bytes per call, which it must report", 0, 1 << 20);
  if (auto exit = cli.Parse(argc, argv)) return *exit;

  kiln_module_t* module = nullptr;
  if (kiln_status_t s = kiln_module_load_file(path.c_str(), &module)) return Fail(s);
  kiln_session_t* session = nullptr;
  if (kiln_status_t s = kiln_session_create(module, device.c_str(), &session)) {
    kiln_module_free(module);
    return Fail(s);
  }
  int rc = 1;
  size_t index = 0, arg_count = 0, result_count = 0;
  std::vector<Input> inputs;
  std::vector<kiln_tensor_t> tensors;
  std::vector<Sample> taken;
  if (kiln_status_t s = kiln_module_find_function(module, function.c_str(), &index)) {
    rc = Fail(s);
    goto done;
  }
  if (kiln_status_t s = kiln_module_function_arity(module, index, &arg_count, &result_count)) {
    rc = Fail(s);
    goto done;
  }
  inputs.resize(arg_count);
  for (size_t a = 0; a < arg_count; ++a) {
    kiln_value_type_t type{};
    if (kiln_status_t s = kiln_module_function_arg(module, index, a, &type)) {
      rc = Fail(s);
      goto done;
    }
    std::string error;
    if (!MakeInput(type, a, &inputs[a], &error)) {
      std::fprintf(stderr, "kiln-soak: error: '%s': %s\n", function.c_str(), error.c_str());
      goto done;
    }
    tensors.push_back(kiln_tensor_t{type.element_type, type.rank, inputs[a].dims.data(), inputs[a].data.data(),
                                    inputs[a].data.size()});
  }
  {
    const int64_t warmup = std::max<int64_t>(1, calls / 10);
    // Points: the end of the warm-up, then evenly up to the last call.
    std::vector<int64_t> points;
    for (int k = 0; k < samples; ++k)
      points.push_back(warmup + (static_cast<int64_t>(calls) - warmup) * k / (samples - 1));
    size_t next = 0;
    for (int64_t call = 1; call <= calls; ++call) {
      kiln_results_t* results = nullptr;
      if (kiln_status_t s = kiln_session_call(session, function.c_str(), tensors.data(), tensors.size(), &results)) {
        std::fprintf(stderr, "kiln-soak: call %" PRId64 " failed\n", call);
        rc = Fail(s);
        goto done;
      }
      kiln_results_free(results);
      if (leak_bytes > 0) {  // touched, so that it is resident
        void* leak = std::malloc(static_cast<size_t>(leak_bytes));
        if (leak) std::memset(leak, 1, static_cast<size_t>(leak_bytes));
      }
      while (next < points.size() && points[next] == call) {
        taken.push_back(Take(call, session));
        Print(taken.back());
        ++next;
      }
    }
  }
  {
    const Sample& first = taken.front();
    const Sample& last = taken.back();
    bool grew = false;
    auto report = [&](const char* what, int64_t a, int64_t b) {
      std::printf("kiln-soak: %s grew from %" PRId64 " to %" PRId64 " after warm-up\n", what, a, b);
      grew = true;
    };
    int64_t max_rss = first.rss_kib;
    for (const Sample& s : taken) max_rss = std::max(max_rss, s.rss_kib);
    if (max_rss > first.rss_kib + slack_kib) report("RSS (KiB)", first.rss_kib, max_rss);
    for (const Sample& s : taken) {
      if (s.fds != first.fds) report("open file descriptors", first.fds, s.fds);
      if (s.threads != first.threads) report("threads", first.threads, s.threads);
      if (s.device_live_bytes != first.device_live_bytes)
        report("device live bytes", static_cast<int64_t>(first.device_live_bytes),
               static_cast<int64_t>(s.device_live_bytes));
      if (grew) break;
    }
    std::printf("kiln-soak: %d calls of '%s' on %s: %s (RSS %+" PRId64 " KiB after warm-up, slack %d KiB)\n", calls,
                function.c_str(), device.c_str(), grew ? "GREW" : "nothing grew", last.rss_kib - first.rss_kib,
                slack_kib);
    rc = grew ? 1 : 0;
  }
done:
  kiln_session_free(session);
  kiln_module_free(module);
  return rc;
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }

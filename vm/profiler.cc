#include "vm/profiler.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "kernels/common/json_quote.h"

namespace kiln::vm {
namespace {

std::string Shapes(const std::vector<hal::BufferView>* views, uint64_t* bytes) {
  std::string s;
  if (!views) return s;
  for (const auto& v : *views) {
    if (!s.empty()) s += ", ";
    for (int64_t d : v.dims) s += std::to_string(d) + "x";
    s += std::string(Name(v.type));
    *bytes += v.ByteSize();
  }
  return s;
}

std::string Micros(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1000.0);
  return buf;
}

}  // namespace

Profiler::Profiler(std::shared_ptr<const LoadedModule> module, std::string device)
    : module_(std::move(module)), device_(std::move(device)) {}

int64_t Profiler::Since(std::chrono::steady_clock::time_point t) const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t - origin_).count();
}

std::string Profiler::Location(uint64_t tag) const {
  const uint64_t f = tag >> 32;
  if (f == 0 || f > module_->functions.size()) return "";
  const LoadedFunction& fn = module_->functions[f - 1];
  const std::string loc = fn.LocationOf(static_cast<uint32_t>(tag));
  std::string where = module_->source_file.empty() ? std::string() : module_->source_file;
  if (!loc.empty()) where += (where.empty() ? "" : ":") + loc;
  return where + (where.empty() ? "@" : " @") + fn.name;
}

void Profiler::OnDispatch(const hal::DispatchSpan& span) {
  Event e;
  e.name = span.executable ? span.executable->name() : "dispatch";
  e.location = Location(span.tag);
  e.inputs = Shapes(span.inputs, &e.bytes);
  e.outputs = Shapes(span.outputs, &e.bytes);
  e.begin_ns = Since(span.begin);
  e.end_ns = Since(span.end);
  std::lock_guard<std::mutex> l(mu_);
  events_.push_back(std::move(e));
}

void Profiler::OnCall(const std::string& function, std::chrono::steady_clock::time_point begin,
                      std::chrono::steady_clock::time_point end) {
  Event e;
  e.is_call = true;
  e.name = "@" + function;
  e.begin_ns = Since(begin);
  e.end_ns = Since(end);
  std::lock_guard<std::mutex> l(mu_);
  events_.push_back(std::move(e));
}

size_t Profiler::dispatch_count() const {
  std::lock_guard<std::mutex> l(mu_);
  return static_cast<size_t>(std::count_if(events_.begin(), events_.end(), [](const Event& e) { return !e.is_call; }));
}

size_t Profiler::call_count() const {
  std::lock_guard<std::mutex> l(mu_);
  return static_cast<size_t>(std::count_if(events_.begin(), events_.end(), [](const Event& e) { return e.is_call; }));
}

void Profiler::Clear() {
  std::lock_guard<std::mutex> l(mu_);
  events_.clear();
}

std::string Profiler::ChromeTraceJson() const {
  std::lock_guard<std::mutex> l(mu_);
  std::string out = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  out += "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"vm\"}},\n";
  out += "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 2, \"args\": {\"name\": " +
         JsonQuote("device: " + device_) + "}}";
  for (const Event& e : events_) {
    out += ",\n  {\"name\": " + JsonQuote(e.name) + ", \"cat\": \"" + (e.is_call ? "call" : "dispatch") +
           "\", \"ph\": \"X\", \"pid\": 1, \"tid\": " + (e.is_call ? "1" : "2") + ", \"ts\": " + Micros(e.begin_ns) +
           ", \"dur\": " + Micros(e.end_ns - e.begin_ns) + ", \"args\": {\"device\": " + JsonQuote(device_);
    if (!e.is_call)
      out += ", \"location\": " + JsonQuote(e.location) + ", \"inputs\": " + JsonQuote(e.inputs) +
             ", \"outputs\": " + JsonQuote(e.outputs) + ", \"bytes\": " + std::to_string(e.bytes);
    out += "}}";
  }
  return out + "\n]}\n";
}

std::string Profiler::ProfileTable() const {
  std::lock_guard<std::mutex> l(mu_);
  struct Row {
    int64_t total_ns = 0;
    uint64_t count = 0;
  };
  std::map<std::pair<std::string, std::string>, Row> rows;
  int64_t dispatch_ns = 0, call_ns = 0;
  size_t calls = 0, dispatches = 0;
  for (const Event& e : events_) {
    const int64_t ns = e.end_ns - e.begin_ns;
    if (e.is_call) {
      call_ns += ns;
      ++calls;
      continue;
    }
    Row& r = rows[{e.name, e.location}];
    r.total_ns += ns;
    ++r.count;
    dispatch_ns += ns;
    ++dispatches;
  }
  std::vector<std::pair<std::pair<std::string, std::string>, Row>> sorted(rows.begin(), rows.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.total_ns > b.second.total_ns; });
  char line[512];
  std::snprintf(line, sizeof line, "profile: %zu dispatches in %zu calls: %.3f ms in dispatches, %.3f ms in calls (%.1f%%)\n",
                dispatches, calls, dispatch_ns / 1e6, call_ns / 1e6, call_ns > 0 ? 100.0 * dispatch_ns / call_ns : 0.0);
  std::string out = line;
  out += "   share   total ms    count    mean us  op (where)\n";
  for (const auto& [key, r] : sorted) {
    std::snprintf(line, sizeof line, "  %5.1f%% %10.3f %8llu %10.2f  %s%s\n",
                  dispatch_ns > 0 ? 100.0 * static_cast<double>(r.total_ns) / static_cast<double>(dispatch_ns) : 0.0,
                  r.total_ns / 1e6, static_cast<unsigned long long>(r.count),
                  r.count ? r.total_ns / 1e3 / static_cast<double>(r.count) : 0.0, key.first.c_str(),
                  key.second.empty() ? "" : (" (" + key.second + ")").c_str());
    out += line;
  }
  return out;
}

}  // namespace kiln::vm

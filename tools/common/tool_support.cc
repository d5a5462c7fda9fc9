// What the vm-* tools share (tools/common/tool_support.h): --input parsing,
// .npy reading and writing, and device creation.
#include "tools/common/tool_support.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "hal/cpu/thread_pool.h"
#include "hal/devices.h"
#include "kernels/common/file_io.h"
#include "kernels/scalar/scalar.h"

namespace kiln::tools {
namespace {

constexpr int64_t kMaxInputElements = int64_t{1} << 32;

Status BadInput(const std::string& text, const std::string& why) {
  return InvalidArgument("bad --input '" + text + "': " + why);
}

// Decimal, or hexadecimal after "0x": a leading 0 is not octal ("010" is
// ten), as a user typing --input values expects.
int NumberBase(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
}

bool ParseInt(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  std::string str(s);
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(str.c_str(), &end, NumberBase(s));
  if (errno || *end) return false;
  *out = v;
  return true;
}

bool ParseDouble(std::string_view s, double* out) {
  std::string str(s);
  if (str == "inf" || str == "+inf") { *out = INFINITY; return true; }
  if (str == "-inf") { *out = -INFINITY; return true; }
  if (str == "nan") { *out = NAN; return true; }
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(str.c_str(), &end);
  if (str.empty() || *end) return false;
  *out = v;
  return true;
}

bool ParseElement(ElementType t, std::string_view s, Scalar* out) {
  if (IsComplex(t)) {
    // (re,im)
    if (s.size() < 5 || s.front() != '(' || s.back() != ')') return false;
    s = s.substr(1, s.size() - 2);
    size_t comma = s.find(',');
    if (comma == std::string_view::npos) return false;
    ElementType part = ComplexPartType(t);
    double re, im;
    if (!ParseDouble(s.substr(0, comma), &re) || !ParseDouble(s.substr(comma + 1), &im)) return false;
    out->re = ref::RoundToFloatType(part, re);
    out->im = ref::RoundToFloatType(part, im);
    return true;
  }
  if (IsFloat(t)) {
    double v;
    if (!ParseDouble(s, &v)) return false;
    out->re = ref::RoundToFloatType(t, v);
    return true;
  }
  if (IsBool(t)) {
    if (s == "true" || s == "1") { out->i = 1; return true; }
    if (s == "false" || s == "0") { out->i = 0; return true; }
    return false;
  }
  int64_t v;
  if (!ParseInt(s, &v)) {
    // ui64 values above INT64_MAX
    std::string str(s);
    char* end = nullptr;
    errno = 0;
    unsigned long long u = std::strtoull(str.c_str(), &end, NumberBase(s));
    if (errno || *end || str.empty() || str[0] == '-' || KindOf(t) != ElementKind::kUnsigned) return false;
    v = static_cast<int64_t>(u);
  }
  if (ref::WrapInteger(t, v) != v) return false;  // out of the type's range
  out->i = v;
  return true;
}

// Splits "a,b,(c,d)" at top-level commas.
std::vector<std::string_view> SplitValues(std::string_view s) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    else if (s[i] == ')') --depth;
    else if (s[i] == ',' && depth == 0) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(s.substr(start));
  for (auto& p : parts) {
    while (!p.empty() && p.front() == ' ') p.remove_prefix(1);
    while (!p.empty() && p.back() == ' ') p.remove_suffix(1);
  }
  return parts;
}

}  // namespace

StatusOr<vm::HostTensor> ParseInput(const std::string& text) {
  if (!text.empty() && text[0] == '@') return ReadNpy(text.substr(1));
  size_t eq = text.find('=');
  std::string_view head = std::string_view(text).substr(0, eq);
  vm::HostTensor t;
  // Dimensions, then the element type: "2x3xf32". complex<f32> contains no 'x'.
  size_t start = 0;
  for (;;) {
    size_t x = head.find('x', start);
    if (x == std::string_view::npos) break;
    int64_t d;
    if (!ParseInt(head.substr(start, x - start), &d)) break;
    if (d < 0 || d > kMaxInputElements) return BadInput(text, "invalid dimension");
    t.dims.push_back(d);
    start = x + 1;
  }
  auto type = ElementTypeFromName(head.substr(start));
  if (!type) return BadInput(text, "unknown element type '" + std::string(head.substr(start)) + "'");
  t.type = *type;
  int64_t n = 1;
  for (int64_t d : t.dims) {
    if (d != 0 && n > kMaxInputElements / d) return BadInput(text, "too many elements");
    n *= d;
  }
  size_t w = StorageBytes(t.type);
  t.data.resize(static_cast<size_t>(n) * w);
  if (eq == std::string::npos) {
    if (n != 0) return BadInput(text, "missing '=' and values");
    return t;
  }
  auto values = SplitValues(std::string_view(text).substr(eq + 1));
  if (values.size() != 1 && static_cast<int64_t>(values.size()) != n)
    return BadInput(text, "has " + std::to_string(values.size()) + " values, the shape needs " + std::to_string(n));
  for (int64_t i = 0; i < n; ++i) {
    Scalar s;
    std::string_view v = values.size() == 1 ? values[0] : values[i];
    if (!ParseElement(t.type, v, &s)) return BadInput(text, "'" + std::string(v) + "' is not a valid " + std::string(Name(t.type)));
    ref::StoreScalar(t.type, s, t.data.data() + i * w);
  }
  return t;
}

namespace {
struct NpyType {
  ElementType type;
  const char* descr;
};
// numpy's names; types numpy lacks are stored as raw bits.
constexpr NpyType kNpyTypes[] = {
    {ElementType::kI1, "|b1"},   {ElementType::kSI8, "|i1"},  {ElementType::kSI16, "<i2"}, {ElementType::kSI32, "<i4"},
    {ElementType::kSI64, "<i8"}, {ElementType::kUI8, "|u1"},  {ElementType::kUI16, "<u2"}, {ElementType::kUI32, "<u4"},
    {ElementType::kUI64, "<u8"}, {ElementType::kF16, "<f2"},  {ElementType::kF32, "<f4"},  {ElementType::kF64, "<f8"},
    {ElementType::kC64, "<c8"},  {ElementType::kC128, "<c16"}};
}  // namespace

StatusOr<vm::HostTensor> ReadNpy(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  std::vector<uint8_t> bytes(text.begin(), text.end());
  auto bad = [&](const std::string& why) { return InvalidArgument("'" + path + "' is not a valid .npy file: " + why); };
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) return bad("missing magic");
  size_t header_len, header_start;
  if (bytes[6] == 1) {
    header_len = bytes[8] | (bytes[9] << 8);
    header_start = 10;
  } else {
    if (bytes.size() < 12) return bad("truncated");
    header_len = bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) | (size_t{bytes[11]} << 24);
    header_start = 12;
  }
  if (header_len > bytes.size() - header_start) return bad("truncated header");
  std::string header(bytes.begin() + header_start, bytes.begin() + header_start + header_len);
  auto field = [&](const std::string& key) -> std::string {
    size_t k = header.find("'" + key + "'");
    if (k == std::string::npos) return "";
    size_t colon = header.find(':', k);
    if (colon == std::string::npos) return "";
    size_t s = header.find_first_not_of(' ', colon + 1);
    if (s == std::string::npos) return "";
    if (header[s] == '\'') {
      size_t e = header.find('\'', s + 1);
      return e == std::string::npos ? "" : header.substr(s + 1, e - s - 1);
    }
    if (header[s] == '(') {
      size_t e = header.find(')', s);
      return e == std::string::npos ? "" : header.substr(s + 1, e - s - 1);
    }
    size_t e = header.find_first_of(",}", s);
    return header.substr(s, e == std::string::npos ? std::string::npos : e - s);
  };
  vm::HostTensor t;
  std::string descr = field("descr");
  for (const auto& nt : kNpyTypes)
    if (descr == nt.descr) t.type = nt.type;
  if (descr == "|b1") t.type = ElementType::kI1;
  if (t.type == ElementType::kInvalid) return bad("unsupported dtype '" + descr + "'");
  if (field("fortran_order") == "True") return bad("fortran_order arrays are not supported");
  std::stringstream shape(field("shape"));
  std::string dim;
  int64_t n = 1;
  while (std::getline(shape, dim, ',')) {
    size_t s = dim.find_first_not_of(' ');
    if (s == std::string::npos) continue;
    int64_t d;
    if (!ParseInt(dim.substr(s), &d) || d < 0 || d > kMaxInputElements) return bad("bad shape");
    if (d != 0 && n > kMaxInputElements / d) return bad("too many elements");
    n *= d;
    t.dims.push_back(d);
  }
  size_t need = static_cast<size_t>(n) * StorageBytes(t.type);
  size_t data_start = header_start + header_len;
  if (bytes.size() - data_start < need) return bad("truncated data");
  t.data.assign(bytes.begin() + data_start, bytes.begin() + data_start + need);
  return t;
}

Status WriteNpy(const std::string& path, const vm::HostTensor& t) {
  // A tuple or token has no array form: an empty .npy would lose it silently.
  if (t.is_tuple) return InvalidArgument("a tuple cannot be written to .npy ('" + path + "')");
  if (t.is_token) return InvalidArgument("a token cannot be written to .npy ('" + path + "')");
  std::string descr;
  for (const auto& nt : kNpyTypes)
    if (nt.type == t.type) descr = nt.descr;
  if (descr.empty()) descr = StorageBytes(t.type) == 1 ? "|u1" : (StorageBytes(t.type) == 2 ? "<u2" : "|u1");
  std::string shape;
  for (int64_t d : t.dims) shape += std::to_string(d) + ",";
  if (t.dims.size() > 1) shape.pop_back();
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }";
  size_t total = 10 + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::string file("\x93NUMPY\x01\x00", 8);
  uint16_t len = static_cast<uint16_t>(header.size());
  file += static_cast<char>(len & 0xff);
  file += static_cast<char>(len >> 8);
  file += header;
  file.append(reinterpret_cast<const char*>(t.data.data()), t.data.size());
  return WriteFile(path, file);
}

StatusOr<std::unique_ptr<hal::Device>> CreateDevice(const std::string& spec, int threads) {
  if (threads < 0 || threads > hal::ThreadPool::kMaxThreads)
    return InvalidArgument("--threads must be 0 to " + std::to_string(hal::ThreadPool::kMaxThreads) +
                           " (0: one per core), not " + std::to_string(threads));
  return hal::CreateDeviceByName(spec, threads);
}

std::vector<std::string> ListDevices() { return hal::ListDeviceNames(); }

}  // namespace kiln::tools

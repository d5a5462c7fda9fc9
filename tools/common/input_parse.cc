// --input values of the vm-* tools (tools/common/input_parse.h).
#include "tools/common/input_parse.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "kernels/scalar/scalar.h"
#include "tools/common/npy.h"

namespace kiln::tools {
namespace {

Status BadInput(const std::string& text, const std::string& why) {
  return InvalidArgument("bad --input '" + text + "': " + why);
}

// Decimal, or hexadecimal after "0x": a leading 0 is not octal ("010" is
// ten), as a user typing --input values expects.
int NumberBase(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
}

}  // namespace

bool ParseInteger(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  std::string str(s);
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(str.c_str(), &end, NumberBase(s));
  if (errno || *end) return false;
  *out = v;
  return true;
}

namespace {

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
  if (!ParseInteger(s, &v)) {
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
    if (!ParseInteger(head.substr(start, x - start), &d)) break;
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

}  // namespace kiln::tools

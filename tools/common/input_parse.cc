// --input values of the vm-* tools (tools/common/input_parse.h).
#include "tools/common/input_parse.h"

#include <cctype>
#include <cerrno>
#include <cfloat>
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

enum class Parsed { kOk, kInvalid, kOutOfRange };

// The significand's bits of a float type (the implicit one included): the
// first k for which 1 + 2^-k rounds back to 1.
int SignificandBits(ElementType type) {
  int bits = 1;
  while (bits < 64 && ref::RoundToFloatType(type, 1.0 + std::ldexp(1.0, -bits)) != 1.0) ++bits;
  return bits;
}

// Whether `v`, read from text, has no value of `type` (r: v rounded to it).
// Explicit inf and nan are values where the type has them; a finite number
// is out of range where it rounds to infinity or NaN (1e40 for f32, 70000
// for f16), or, in the types that have neither and saturate (f4E2M1FN,
// f6*), where it lies half a unit past the largest finite value or more.
bool OutOfRange(ElementType type, double v, double r) {
  if (std::isnan(v)) return !std::isnan(r);
  if (std::isinf(v)) return !std::isinf(r) || std::signbit(v) != std::signbit(r);
  if (!std::isfinite(r)) return true;
  const double largest = ref::RoundToFloatType(type, DBL_MAX);
  if (!std::isfinite(largest)) return false;
  const double half_unit = std::ldexp(1.0, std::ilogb(largest) - SignificandBits(type));
  return std::fabs(v) >= largest + half_unit;
}

// A float element rounded to `type` (or a complex part's type).
Parsed ParseFloat(ElementType type, std::string_view s, double* out) {
  std::string str(s);
  if (str.empty()) return Parsed::kInvalid;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(str.c_str(), &end);
  if (*end) return Parsed::kInvalid;
  // strtod overflows to +-HUGE_VAL with ERANGE; an explicit "inf" sets none.
  if (errno == ERANGE && std::isinf(v)) return Parsed::kOutOfRange;
  double r = ref::RoundToFloatType(type, v);
  if (OutOfRange(type, v, r)) return Parsed::kOutOfRange;
  *out = r;
  return Parsed::kOk;
}

Parsed ParseElement(ElementType t, std::string_view s, Scalar* out) {
  if (IsComplex(t)) {
    // (re,im)
    if (s.size() < 5 || s.front() != '(' || s.back() != ')') return Parsed::kInvalid;
    s = s.substr(1, s.size() - 2);
    size_t comma = s.find(',');
    if (comma == std::string_view::npos) return Parsed::kInvalid;
    ElementType part = ComplexPartType(t);
    Parsed re = ParseFloat(part, s.substr(0, comma), &out->re);
    Parsed im = ParseFloat(part, s.substr(comma + 1), &out->im);
    if (re == Parsed::kInvalid || im == Parsed::kInvalid) return Parsed::kInvalid;
    return re == Parsed::kOk ? im : re;
  }
  if (IsFloat(t)) return ParseFloat(t, s, &out->re);
  if (IsBool(t)) {
    if (s == "true" || s == "1") { out->i = 1; return Parsed::kOk; }
    if (s == "false" || s == "0") { out->i = 0; return Parsed::kOk; }
    return Parsed::kInvalid;
  }
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return Parsed::kInvalid;
  std::string str(s);
  const bool negative = str[0] == '-';
  char* end = nullptr;
  errno = 0;
  // Negative values as signed, others as unsigned (ui64 values above INT64_MAX).
  int64_t v = negative ? std::strtoll(str.c_str(), &end, NumberBase(s))
                       : static_cast<int64_t>(std::strtoull(str.c_str(), &end, NumberBase(s)));
  if (*end || end == str.c_str()) return Parsed::kInvalid;
  if (errno == ERANGE) return Parsed::kOutOfRange;
  if (!negative && v < 0 && KindOf(t) != ElementKind::kUnsigned) return Parsed::kOutOfRange;  // above INT64_MAX
  if (negative && KindOf(t) == ElementKind::kUnsigned && v != 0) return Parsed::kOutOfRange;
  if (ref::WrapInteger(t, v) != v) return Parsed::kOutOfRange;
  out->i = v;
  return Parsed::kOk;
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

// "too many elements (N; the limit is 2^32)"; `count` is the text of the
// dimension or product that passed the limit.
Status TooMany(const std::string& text, const std::string& count) {
  return BadInput(text, "too many elements (" + count + "; the limit is 2^32 = " + std::to_string(kMaxInputElements) + ")");
}

}  // namespace

ElementType ArgumentType(const vm::LoadedModule& module, const std::string& function, size_t index) {
  int f = module.FindFunction(function);
  if (f < 0 || index >= module.functions[f].args.size()) return ElementType::kInvalid;
  const vm::ValueSig& sig = module.functions[f].args[index];
  return sig.kind == vm::ValueSig::Kind::kTensor ? sig.type : ElementType::kInvalid;
}

StatusOr<vm::HostTensor> ParseInput(const std::string& text, ElementType expected) {
  if (!text.empty() && text[0] == '@') return ReadNpy(text.substr(1), expected);
  size_t eq = text.find('=');
  std::string_view head = std::string_view(text).substr(0, eq);
  vm::HostTensor t;
  // Dimensions, then the element type: "2x3xf32". No type name contains
  // an 'x' ("complex<f32>", "f8E4M3FN"), so the last 'x' ends the dimensions.
  size_t start = 0;
  for (size_t x; (x = head.find('x', start)) != std::string_view::npos; start = x + 1) {
    std::string dim(head.substr(start, x - start));
    if (dim.empty() || (!std::isdigit(static_cast<unsigned char>(dim[0])) && dim[0] != '-' && dim[0] != '+'))
      break;  // not a dimension: the element type begins here
    if (dim[0] == '-') return BadInput(text, "invalid dimension '" + dim + "' (dimensions are 0 or more)");
    char* end = nullptr;
    errno = 0;
    unsigned long long d = std::strtoull(dim.c_str(), &end, NumberBase(dim));
    if (*end) return BadInput(text, "invalid dimension '" + dim + "'");
    if (errno == ERANGE || d > static_cast<unsigned long long>(kMaxInputElements)) return TooMany(text, dim);
    t.dims.push_back(static_cast<int64_t>(d));
  }
  auto type = ElementTypeFromName(head.substr(start));
  if (!type) return BadInput(text, "unknown element type '" + std::string(head.substr(start)) + "'");
  t.type = *type;
  int64_t n = 1;
  for (int64_t d : t.dims) {
    if (d != 0 && n > kMaxInputElements / d) {
      std::string product;
      for (int64_t e : t.dims) product += (product.empty() ? "" : "*") + std::to_string(e);
      return TooMany(text, product);
    }
    n *= d;
  }
  if (eq == std::string::npos) {
    if (n != 0) return BadInput(text, "missing '=' and values");
    return t;
  }
  size_t w = StorageBytes(t.type);
  t.data.resize(static_cast<size_t>(n) * w);
  auto values = SplitValues(std::string_view(text).substr(eq + 1));
  if (values.size() != 1 && static_cast<int64_t>(values.size()) != n)
    return BadInput(text, "has " + std::to_string(values.size()) + " values, the shape needs " + std::to_string(n));
  for (int64_t i = 0; i < n; ++i) {
    Scalar s;
    std::string_view v = values.size() == 1 ? values[0] : values[i];
    switch (ParseElement(t.type, v, &s)) {
      case Parsed::kOk: break;
      case Parsed::kInvalid: return BadInput(text, "'" + std::string(v) + "' is not a valid " + std::string(Name(t.type)));
      case Parsed::kOutOfRange: return BadInput(text, "'" + std::string(v) + "' is out of range for " + std::string(Name(t.type)));
    }
    ref::StoreScalar(t.type, s, t.data.data() + i * w);
  }
  return t;
}

}  // namespace kiln::tools

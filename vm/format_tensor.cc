// The text form of tensors (vm/host_tensor.h): vm-run's results, the print
// op, and the values the check ops quote.
#include <cfloat>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <cstdlib>

#include "kernels/scalar/scalar.h"
#include "vm/host_tensor.h"

namespace kiln::vm {
namespace {

// Significant digits that print a value of a float type so that reading the
// text back (strtod, then rounding to the type, as --input does) gives the
// same value: from the digits the type always keeps to those that always
// suffice (f64 15..17, f32 6..9, f16 3..5, bf16 2..4).
struct FloatDigits {
  int least = 1, most = 17;
  // Types without infinity or NaN (f4E2M1FN, f6*) saturate, so a short text
  // past their largest value would round back to it; --input refuses text
  // from half a unit past it on (tools/common/input_parse.cc), so none may
  // print there.
  double limit = INFINITY;
};

FloatDigits DigitsOf(ElementType type) {
  // The significand's bits (the implicit one included): the first k for
  // which 1 + 2^-k rounds back to 1 in the type, less one.
  int bits = 1;
  while (bits < 64 && ref::RoundToFloatType(type, 1.0 + std::ldexp(1.0, -bits)) != 1.0) ++bits;
  const double log10_2 = 0.30102999566398120;
  FloatDigits d;
  d.most = static_cast<int>(std::ceil(1 + bits * log10_2));
  d.least = std::max(1, static_cast<int>(std::floor((bits - 1) * log10_2)));
  const double largest = ref::RoundToFloatType(type, DBL_MAX);
  if (std::isfinite(largest)) d.limit = largest + std::ldexp(1.0, std::ilogb(largest) - bits);
  return d;
}

// NaN prints as "nan" whatever its sign bit: the sign of a NaN carries no
// meaning, and printing it made equal results differ ("-nan" vs "nan").
void FormatFloat(ElementType type, const FloatDigits& digits, double v, std::string* out) {
  if (std::isnan(v)) {
    *out += "nan";
    return;
  }
  char buf[40];
  // A whole number that fits the digits prints whole ("65504", not "6.55e+04").
  if (std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < std::pow(10.0, digits.most)) {
    std::snprintf(buf, sizeof buf, "%.*g", digits.most, v);
    *out += buf;
    return;
  }
  for (int p = digits.least; p <= digits.most; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    const double back = std::strtod(buf, nullptr);
    if (!std::isfinite(v) || (ref::RoundToFloatType(type, back) == v && std::fabs(back) < digits.limit)) break;
  }
  *out += buf;
}

class ElementFormatter {
 public:
  explicit ElementFormatter(const HostTensor& t) : t_(t), width_(StorageBytes(t.type)) {
    if (IsFloat(t.type) || IsComplex(t.type)) digits_ = DigitsOf(ComplexPartType(t.type));
  }

  void Append(int64_t i, std::string* out) const {
    Scalar s = ref::LoadScalar(t_.type, t_.data.data() + i * width_);
    char buf[32];
    if (IsComplex(t_.type)) {
      ElementType part = ComplexPartType(t_.type);
      *out += '(';
      FormatFloat(part, digits_, s.re, out);
      *out += ',';
      FormatFloat(part, digits_, s.im, out);
      *out += ')';
      return;
    }
    if (IsFloat(t_.type)) return FormatFloat(t_.type, digits_, s.re, out);
    if (IsBool(t_.type)) std::snprintf(buf, sizeof buf, "%d", s.i ? 1 : 0);
    else if (KindOf(t_.type) == ElementKind::kUnsigned) std::snprintf(buf, sizeof buf, "%" PRIu64, static_cast<uint64_t>(s.i));
    else std::snprintf(buf, sizeof buf, "%" PRId64, s.i);
    *out += buf;
  }

 private:
  const HostTensor& t_;
  size_t width_;
  FloatDigits digits_;
};

}  // namespace

std::string FormatElement(const HostTensor& t, int64_t i) {
  std::string s;
  ElementFormatter(t).Append(i, &s);
  return s;
}

std::string FormatTensor(const HostTensor& t, int64_t max_elements) {
  if (t.is_token) return "!stablehlo.token";
  if (t.is_tuple) {
    std::string s = "(";
    for (size_t i = 0; i < t.tuple_elements.size(); ++i)
      s += (i ? ", " : "") + FormatTensor(t.tuple_elements[i], max_elements);
    return s + ")";
  }
  std::string s;
  for (int64_t d : t.dims) s += std::to_string(d) + "x";
  s += Name(t.type);
  if (t.data.empty()) return s;
  s += "=";
  const int64_t n = t.NumElements();
  const bool elide = max_elements >= 0 && n > max_elements;
  const int64_t shown = elide ? max_elements : n;
  ElementFormatter format(t);
  for (int64_t i = 0; i < shown; ++i) {
    if (i) s += ",";
    format.Append(i, &s);
  }
  if (elide) s += std::string(shown ? "," : "") + "... (" + std::to_string(n) + " elements)";
  return s;
}

}  // namespace kiln::vm

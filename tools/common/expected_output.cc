#include "tools/common/expected_output.h"

#include <cmath>
#include <cstdio>

#include "kernels/scalar/scalar.h"

namespace kiln::tools {
namespace {

std::string Shape(const vm::HostTensor& t) {
  std::string s;
  for (int64_t d : t.dims) s += std::to_string(d) + "x";
  return s + std::string(Name(t.type));
}

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

bool Close(double got, double want, const Tolerance& tol) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (std::isinf(got) || std::isinf(want)) return got == want;
  return std::fabs(got - want) <= tol.atol + tol.rtol * std::fabs(want);
}

bool Matches(ElementType type, const Scalar& got, const Scalar& want, const Tolerance& tol) {
  if (IsFloat(type)) return Close(got.re, want.re, tol);
  if (IsComplex(type)) return Close(got.re, want.re, tol) && Close(got.im, want.im, tol);
  return got.i == want.i;
}

std::string Index(const std::vector<int64_t>& dims, int64_t flat) {
  std::string s;
  for (size_t k = dims.size(); k-- > 0;) {
    const int64_t d = dims[k] > 0 ? dims[k] : 1;
    s = std::to_string(flat % d) + (s.empty() ? "" : ", ") + s;
    flat /= d;
  }
  return "[" + s + "]";
}

}  // namespace

Status CompareWithExpected(const vm::HostTensor& got, const vm::HostTensor& want, const Tolerance& tol, size_t index) {
  const std::string name = "result " + std::to_string(index);
  if (got.is_tuple || got.is_token)
    return FailedPrecondition(name + " is a " + std::string(got.is_tuple ? "tuple" : "token") +
                              ", which --expected-output cannot describe");
  if (got.type != want.type || got.dims != want.dims)
    return FailedPrecondition(name + " is " + Shape(got) + ", but the expected output is " + Shape(want));
  const size_t bytes = StorageBytes(got.type);
  const int64_t n = got.NumElements();
  if (got.data.size() != static_cast<size_t>(n) * bytes || want.data.size() != got.data.size())
    return Internal(name + ": its data does not match its shape");
  int64_t first = -1, mismatches = 0;
  for (int64_t i = 0; i < n; ++i) {
    const Scalar g = ref::LoadScalar(got.type, got.data.data() + i * bytes);
    const Scalar w = ref::LoadScalar(got.type, want.data.data() + i * bytes);
    if (Matches(got.type, g, w, tol)) continue;
    if (first < 0) first = i;
    ++mismatches;
  }
  if (first < 0) return Status::Ok();
  std::string where = Index(got.dims, first);
  return FailedPrecondition(name + " differs from the expected output at " + where + " (element " +
                            std::to_string(first) + "): got " + vm::FormatElement(got, first) + ", expected " +
                            vm::FormatElement(want, first) + "; " + std::to_string(mismatches) + " of " +
                            std::to_string(n) + " elements differ (atol " + Number(tol.atol) + ", rtol " + Number(tol.rtol) + ")");
}

}  // namespace kiln::tools

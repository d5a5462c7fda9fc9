// The check ops of the conformance suite (shared/conformance README): host
// comparisons of device results, after waiting for them.
#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstring>

#include "kernels/scalar/scalar.h"
#include "vm/context.h"

namespace kiln::vm {
namespace {

// One element as the check messages quote it: booleans as true/false,
// numbers as vm-run prints them.
std::string Describe(const HostTensor& t, int64_t i) {
  if (IsBool(t.type)) return t.data[i] ? "true" : "false";
  return FormatElement(t, i);
}

std::string SameShape(const HostTensor& a, const HostTensor& b) {
  if (a.type != b.type || a.dims != b.dims) {
    HostTensor x = a, y = b;
    x.data.clear();
    y.data.clear();
    return "type mismatch: " + FormatTensor(x) + " vs " + FormatTensor(y);
  }
  return "";
}

template <typename ElementOk>
std::string CompareEach(const HostTensor& a, const HostTensor& b, ElementOk ok) {
  if (auto m = SameShape(a, b); !m.empty()) return m;
  size_t w = StorageBytes(a.type);
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    Scalar x = ref::LoadScalar(a.type, a.data.data() + i * w);
    Scalar y = ref::LoadScalar(b.type, b.data.data() + i * w);
    if (!ok(x, y))
      return "element " + std::to_string(i) + ": got " + Describe(a, i) + ", expected " + Describe(b, i);
  }
  return "";
}

bool Approx(double x, double y, double t) {
  if (x == y) return true;
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (std::isinf(x) || std::isinf(y)) return false;
  return std::fabs(x - y) <= t;
}

// Distance in units in the last place of `type` (shared/conformance README).
uint64_t UlpDistance(ElementType type, double x, double y) {
  auto bits_of = [&](double v) -> uint64_t {
    uint8_t buf[8] = {};
    ref::StoreScalar(type, Scalar{0, v, 0}, buf);
    uint64_t b = 0;
    std::memcpy(&b, buf, StorageBytes(type));
    return b;
  };
  uint64_t bx = bits_of(x), by = bits_of(y);
  if (bx == by) return 0;
  if (std::isnan(x) && std::isnan(y)) return 0;
  if (!std::isfinite(x) || !std::isfinite(y)) return UINT64_MAX;
  int bits = static_cast<int>(StorageBytes(type)) * 8;
  if (type == ElementType::kF64 || type == ElementType::kF32 || type == ElementType::kF16 || type == ElementType::kBF16 ||
      StorageBytes(type) == 1) {
    bits = BitWidth(type);
  }
  uint64_t sign = uint64_t{1} << (bits - 1);
  uint64_t ax = bx & (sign - 1), ay = by & (sign - 1);
  bool sx = bx & sign, sy = by & sign;
  if (type == ElementType::kF8E8M0FNU) return ax > ay ? ax - ay : ay - ax;
  return sx != sy ? ax + ay : (ax > ay ? ax - ay : ay - ax);
}

}  // namespace

std::string CompareEqual(const HostTensor& a, const HostTensor& b) {
  ElementKind k = KindOf(a.type);
  return CompareEach(a, b, [&](const Scalar& x, const Scalar& y) {
    if (k == ElementKind::kFloat) return x.re == y.re;
    if (k == ElementKind::kComplex) return x.re == y.re && x.im == y.im;
    return x.i == y.i;
  });
}

std::string CompareAlmostEqual(const HostTensor& a, const HostTensor& b, double t) {
  if (!IsFloat(a.type) && !IsComplex(a.type)) return CompareEqual(a, b);
  return CompareEach(a, b, [&](const Scalar& x, const Scalar& y) {
    return Approx(x.re, y.re, t) && (!IsComplex(a.type) || Approx(x.im, y.im, t));
  });
}

// IREE's check.expect_almost_eq: NumPy's isclose (x == y, or y finite and
// |x - y| <= atol + rtol * |y|), where two NaNs also agree. Complex values
// per part; other types exactly.
std::string CompareNear(const HostTensor& a, const HostTensor& b, double atol, double rtol) {
  if (!IsFloat(a.type) && !IsComplex(a.type)) return CompareEqual(a, b);
  auto near = [&](double x, double y) {
    return x == y || (std::isnan(x) && std::isnan(y)) ||
           (std::isfinite(y) && std::fabs(x - y) <= atol + rtol * std::fabs(y));
  };
  return CompareEach(a, b, [&](const Scalar& x, const Scalar& y) {
    return near(x.re, y.re) && (!IsComplex(a.type) || near(x.im, y.im));
  });
}

// IREE's check.expect_all_true: every element nonzero (a NaN is nonzero).
std::string FirstZero(const HostTensor& a) {
  size_t w = StorageBytes(a.type);
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    Scalar x = ref::LoadScalar(a.type, a.data.data() + i * w);
    bool nonzero = KindOf(a.type) == ElementKind::kFloat     ? x.re != 0 || std::isnan(x.re)
                   : KindOf(a.type) == ElementKind::kComplex ? x.re != 0 || x.im != 0 || std::isnan(x.re) || std::isnan(x.im)
                                                             : x.i != 0;
    if (!nonzero) return "element " + std::to_string(i) + " is " + Describe(a, i);
  }
  return "";
}

std::string CompareClose(const HostTensor& a, const HostTensor& b, uint64_t max_ulp, uint64_t min_ulp) {
  if (!IsFloat(a.type) && !IsComplex(a.type)) return "expect_close needs a float or complex type";
  ElementType part = ComplexPartType(a.type);
  return CompareEach(a, b, [&](const Scalar& x, const Scalar& y) {
    uint64_t d = UlpDistance(part, x.re, y.re);
    if (IsComplex(a.type)) d = std::max(d, UlpDistance(part, x.im, y.im));
    return d >= min_ulp && d <= max_ulp;
  });
}

Status Context::RunCheck(const Instruction& ins, Frame& frame) {
  const auto& o = ins.operands;
  const LoadedFunction& fn = module_->functions[frame.function];
  std::string where = fn.name;
  std::string loc = fn.LocationOf(static_cast<size_t>(&ins - fn.code.data()));
  if (!loc.empty()) where += " at " + (module_->source_file.empty() ? "" : module_->source_file + ":") + loc;
  // check.eq_result writes its first operand; the others read it.
  const size_t first = ins.op == Opcode::kCheckEqResult ? 1 : 0;
  KILN_ASSIGN_OR_RETURN(HostTensor a, Read(frame.refs[o[first].value]));
  std::string mismatch;
  switch (ins.op) {
    case Opcode::kCheckEq: {
      KILN_ASSIGN_OR_RETURN(HostTensor b, Read(frame.refs[o[1].value]));
      mismatch = CompareEqual(a, b);
      if (!mismatch.empty()) check_failures_.push_back("expect_eq failed in " + where + ": " + mismatch);
      return Status::Ok();
    }
    case Opcode::kCheckAlmostEq: {
      KILN_ASSIGN_OR_RETURN(HostTensor b, Read(frame.refs[o[1].value]));
      double tol = std::bit_cast<double>(o[2].value);
      mismatch = CompareAlmostEqual(a, b, tol);
      if (!mismatch.empty()) check_failures_.push_back("expect_almost_eq failed in " + where + ": " + mismatch);
      return Status::Ok();
    }
    case Opcode::kCheckClose: {
      KILN_ASSIGN_OR_RETURN(HostTensor b, Read(frame.refs[o[1].value]));
      mismatch = CompareClose(a, b, o[2].value, o[3].value);
      if (!mismatch.empty()) check_failures_.push_back("expect_close failed in " + where + ": " + mismatch);
      return Status::Ok();
    }
    case Opcode::kCheckNear: {
      KILN_ASSIGN_OR_RETURN(HostTensor b, Read(frame.refs[o[1].value]));
      mismatch = CompareNear(a, b, std::bit_cast<double>(o[2].value), std::bit_cast<double>(o[3].value));
      if (!mismatch.empty()) check_failures_.push_back("expect_almost_eq failed in " + where + ": " + mismatch);
      return Status::Ok();
    }
    case Opcode::kCheckAllTrue:
      mismatch = FirstZero(a);
      if (!mismatch.empty()) check_failures_.push_back("expect_all_true failed in " + where + ": " + mismatch);
      return Status::Ok();
    case Opcode::kProbe:
      probes_[module_->strings[o[1].value]].push_back(std::move(a));
      return Status::Ok();
    case Opcode::kCheckSerializedEq: {
      const std::string& id = module_->strings[o[1].value];
      auto it = probes_.find(id);
      if (it == probes_.end() || o[2].value >= it->second.size()) {
        check_failures_.push_back("expect_serialized_eq failed in " + where + ": no probe '" + id + "' iteration " +
                                  std::to_string(o[2].value));
        return Status::Ok();
      }
      mismatch = CompareEqual(a, it->second[o[2].value]);
      if (!mismatch.empty()) check_failures_.push_back("expect_serialized_eq failed in " + where + ": " + mismatch);
      return Status::Ok();
    }
    case Opcode::kCheckEqResult: {
      // @check.eq: integers and booleans exactly, others within 1e-4; the
      // result says whether they matched, and a mismatch fails the function.
      KILN_ASSIGN_OR_RETURN(HostTensor b, Read(frame.refs[o[2].value]));
      mismatch = IsInteger(a.type) || IsBool(a.type) ? CompareEqual(a, b) : CompareAlmostEqual(a, b, 1e-4);
      if (!mismatch.empty()) check_failures_.push_back("check.eq failed in " + where + ": " + mismatch);
      HostTensor r;
      r.type = ElementType::kI1;
      r.data = {static_cast<uint8_t>(mismatch.empty())};
      KILN_ASSIGN_OR_RETURN(frame.refs[o[0].value], Write(r));
      return Status::Ok();
    }
    default:
      return Internal("not a check instruction");
  }
}

}  // namespace kiln::vm

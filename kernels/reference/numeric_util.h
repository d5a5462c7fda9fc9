// Helpers shared by the numeric reference kernels (contraction, reduction,
// linalg, fft, normalization, random, quantization, chlo numeric): argument
// validation, element access, and accumulation. Header-only, deliberately
// plain; owned by the numeric family (index helpers live in tensor_index.h).
#pragma once
#include <algorithm>
#include <complex>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kernels/common/kernel.h"
#include "kernels/scalar/scalar.h"
#include "kernels/reference/tensor_index.h"

namespace kiln::ref::numeric {

inline std::string KernelName(const KernelCall& c) {
  return c.params.kernel.empty() ? std::string("numeric kernel") : c.params.kernel;
}

// A tensor is usable when its type is valid, its dims are non-negative and its
// buffer holds every element.
inline Status CheckTensor(const KernelCall& c, const TensorRef& t, std::string_view what) {
  if (t.type == ElementType::kInvalid || KindOf(t.type) == ElementKind::kInvalid)
    return InvalidArgument(KernelName(c) + ": " + std::string(what) + " has an invalid element type");
  for (int64_t d : t.dims)
    if (d < 0) return InvalidArgument(KernelName(c) + ": " + std::string(what) + " has a negative dimension");
  int64_t n = t.NumElements();
  if (n > 0 && (t.data == nullptr || t.byte_size < static_cast<size_t>(n) * StorageBytes(t.type)))
    return InvalidArgument(KernelName(c) + ": " + std::string(what) + " buffer is too small");
  return Status::Ok();
}

// Checks the input/output counts and every tensor's storage.
inline Status CheckCall(const KernelCall& c, size_t num_inputs, size_t num_outputs) {
  if (c.inputs.size() != num_inputs || c.outputs.size() != num_outputs)
    return InvalidArgument(KernelName(c) + ": expected " + std::to_string(num_inputs) + " inputs and " +
                           std::to_string(num_outputs) + " outputs, got " + std::to_string(c.inputs.size()) +
                           " and " + std::to_string(c.outputs.size()));
  for (size_t i = 0; i < c.inputs.size(); ++i)
    KILN_RETURN_IF_ERROR(CheckTensor(c, c.inputs[i], "input " + std::to_string(i)));
  for (size_t i = 0; i < c.outputs.size(); ++i)
    KILN_RETURN_IF_ERROR(CheckTensor(c, c.outputs[i], "output " + std::to_string(i)));
  return Status::Ok();
}

inline std::string DimsToString(std::span<const int64_t> dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

inline Status CheckDims(const KernelCall& c, const TensorRef& t, std::span<const int64_t> expected,
                        std::string_view what) {
  if (t.dims.size() != expected.size() || !std::equal(expected.begin(), expected.end(), t.dims.begin()))
    return InvalidArgument(KernelName(c) + ": " + std::string(what) + " has dims " + DimsToString(t.dims) +
                           ", expected " + DimsToString(expected));
  return Status::Ok();
}

// Every axis in [0, rank) and no axis twice (also across `already`).
inline Status CheckAxes(const KernelCall& c, std::span<const int64_t> axes, int64_t rank, std::string_view what,
                        std::vector<bool>* seen = nullptr) {
  std::vector<bool> local(rank, false);
  std::vector<bool>& used = seen ? *seen : local;
  if (used.size() != static_cast<size_t>(rank)) used.assign(rank, false);
  for (int64_t a : axes) {
    if (a < 0 || a >= rank) return InvalidArgument(KernelName(c) + ": " + std::string(what) + " axis out of range");
    if (used[a]) return InvalidArgument(KernelName(c) + ": " + std::string(what) + " repeats an axis");
    used[a] = true;
  }
  return Status::Ok();
}

// An int-array attribute, or `n` copies of `fallback` when absent (spec
// defaults). Returns an error via `ok` when present with the wrong length.
inline bool IntsOr(const KernelParams& p, std::string_view name, size_t n, int64_t fallback,
                   std::vector<int64_t>* out) {
  if (!p.Has(name) || p.Ints(name).empty()) {
    out->assign(n, fallback);
    return true;
  }
  auto v = p.Ints(name);
  out->assign(v.begin(), v.end());
  return out->size() == n;
}

inline Scalar Load(const TensorRef& t, int64_t i) { return LoadScalar(t.type, t.At(i)); }
inline void Store(const TensorRef& t, int64_t i, const Scalar& s) { StoreScalar(t.type, s, t.At(i)); }

// One binary scalar op in type `t` with the scalar semantics (wraparound,
// rounding to the element type, bool and/or for multiply/add).
inline Scalar Eval2(ScalarOp op, ElementType t, const Scalar& a, const Scalar& b) {
  ScalarInstr in;
  in.op = op;
  in.type = t;
  in.num_operands = 2;
  in.operands[0] = 0;
  in.operands[1] = 1;
  ElementType types[2] = {t, t};
  Scalar ops[2] = {a, b};
  return EvalScalarInstr(in, types, ops);
}

// The value of a scalar as a complex double (exact for every float type up to
// f64; integers up to 2^53).
inline std::complex<double> ToComplex(ElementType t, const Scalar& s) {
  switch (KindOf(t)) {
    case ElementKind::kFloat: return {s.re, 0.0};
    case ElementKind::kComplex: return {s.re, s.im};
    case ElementKind::kUnsigned: return {static_cast<double>(static_cast<uint64_t>(s.i)), 0.0};
    default: return {static_cast<double>(s.i), 0.0};
  }
}
inline double ToDouble(ElementType t, const Scalar& s) { return ToComplex(t, s).real(); }

// Rounds a (complex) double once into element type `t` with convert semantics.
inline Scalar FromComplex(ElementType t, std::complex<double> v) {
  Scalar s;
  s.re = v.real();
  s.im = v.imag();
  if (IsComplex(t)) return ConvertScalar(ElementType::kC128, t, s);
  s.im = 0;
  return ConvertScalar(ElementType::kF64, t, s);
}
inline Scalar FromDouble(ElementType t, double v) { return FromComplex(t, {v, 0.0}); }

// Runs `body(T{})` with T the type LAPACK computes element type t in:
// float, double or their complex (f16, bf16 and f8 in float).
template <typename Body>
void ForLapackType(ElementType t, Body&& body) {
  switch (t) {
    case ElementType::kF64: body(double{}); break;
    case ElementType::kC64: body(std::complex<float>{}); break;
    case ElementType::kC128: body(std::complex<double>{}); break;
    default: body(float{}); break;
  }
}

// A run of `count` elements of t from `base` in T, and back (rounded once).
template <typename T>
void LoadMatrix(const TensorRef& t, int64_t base, int64_t count, std::vector<T>* out) {
  out->resize(static_cast<size_t>(count));
  for (int64_t e = 0; e < count; ++e) {
    const std::complex<double> v = ToComplex(t.type, Load(t, base + e));
    if constexpr (std::is_floating_point_v<T>) {
      (*out)[e] = static_cast<T>(v.real());
    } else {
      (*out)[e] = T(static_cast<typename T::value_type>(v.real()), static_cast<typename T::value_type>(v.imag()));
    }
  }
}

template <typename T>
void StoreMatrix(const TensorRef& t, int64_t base, const std::vector<T>& x) {
  for (size_t e = 0; e < x.size(); ++e)
    Store(t, base + static_cast<int64_t>(e),
          FromComplex(t.type, std::complex<double>(static_cast<double>(std::real(x[e])),
                                                   static_cast<double>(std::imag(x[e])))));
}

// Sum of products in result type `type`.
// Choice (documented for the reference): floats and complex accumulate in
// (complex) double and are rounded once to `type` at the end; integers and
// booleans accumulate step by step through EvalScalarInstr (kMultiply, kAdd)
// in `type`, i.e. with the exact wraparound / logical semantics of the spec's
// `reduce(multiply(...), add)` decomposition.
struct Accumulator {
  explicit Accumulator(ElementType t) : type(t), wide(IsFloat(t) || IsComplex(t)) {}
  void Reset() {
    w = 0;
    s = Scalar{};
  }
  // `a` and `b` are values of `type` already.
  void AddProduct(const Scalar& a, const Scalar& b) {
    if (wide) {
      w += ToComplex(type, a) * ToComplex(type, b);
    } else {
      s = Eval2(ScalarOp::kAdd, type, s, Eval2(ScalarOp::kMultiply, type, a, b));
    }
  }
  Scalar Result() const { return wide ? FromComplex(type, w) : s; }

  ElementType type;
  bool wide;
  std::complex<double> w = 0;
  Scalar s;
};

// Runs a region body; checks its arity once up front.
struct ProgramRunner {
  const ScalarProgram* program = nullptr;
  std::vector<Scalar> scratch;
  void Run(const Scalar* params, Scalar* results) {
    RunScalarProgram(*program, params, scratch.data(), results);
  }
};

inline Status MakeRunner(const KernelCall& c, std::string_view name, size_t num_params, size_t num_results,
                         ProgramRunner* r) {
  const ScalarProgram* p = c.params.Program(name);
  if (!p) return InvalidArgument(KernelName(c) + ": missing region program '" + std::string(name) + "'");
  if (p->param_types.size() != num_params || p->results.size() != num_results)
    return InvalidArgument(KernelName(c) + ": region '" + std::string(name) + "' must take " +
                           std::to_string(num_params) + " params and return " + std::to_string(num_results));
  r->program = p;
  r->scratch.assign(p->num_values(), Scalar{});
  return Status::Ok();
}

}  // namespace kiln::ref::numeric

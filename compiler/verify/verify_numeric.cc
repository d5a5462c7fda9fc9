// Verifier checks of the numeric ops outside the elementwise table:
// constant, convert, bitcast_convert, fft, rng, rng_bit_generator,
// batch_norm_*, uniform_quantize/dequantize and sort.
#include <algorithm>
#include <set>

#include "compiler/verify/verify_util.h"
#include "compiler/op_names.h"

namespace kiln::compiler::verify {
namespace {

std::string Constant(const ir::Operation& op, const Context&) {
  const ir::Attribute* v = op.GetAttr("value");
  if (!v || v->kind != ir::Attribute::Kind::kDense) return Msg(op, "needs a dense value");
  if (op.results.size() != 1) return Msg(op, "must have one result");
  const ir::Type& rt = op.result()->type;
  if (v->type.element != rt.element || !ShapesCompatible(v->type, rt) ||
      (v->type.quant == nullptr) != (rt.quant == nullptr))
    return Msg(op, "value type " + TypeStr(v->type) + " does not match result type " + TypeStr(rt), "C1");
  return "";
}

std::string Convert(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(Unary(op));
  const ir::Type& in = op.operands[0]->type;
  const ir::Type& rt = op.result()->type;
  if (!ShapesCompatible(in, rt))
    return Msg(op, "operand type " + TypeStr(in) + " and result type " + TypeStr(rt) + " must have the same shape",
               "C1");
  return "";
}

std::string BitcastConvert(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(Unary(op));
  const ir::Type& in = op.operands[0]->type;
  const ir::Type& rt = op.result()->type;
  int a = BitWidth(in.element), b = BitWidth(rt.element);
  int64_t r = in.rank();
  std::string types = " (" + TypeStr(in) + " -> " + TypeStr(rt) + ")";
  if (a == b) {
    if (!ShapesCompatible(in, rt)) return Msg(op, "operand and result must have the same shape" + types, "C1");
  } else if (b < a) {
    bool ok = rt.rank() == r + 1 && a % b == 0 && DimsCompatible(rt.dims[r], a / b);
    for (int64_t i = 0; ok && i < r; ++i) ok = DimsCompatible(in.dims[i], rt.dims[i]);
    if (!ok)
      return Msg(op, "result must have the operand's shape plus a last dimension of " + Num(a / std::max(b, 1)) +
                         types, "C1");
  } else {
    bool ok = r >= 1 && rt.rank() == r - 1 && b % a == 0 && DimsCompatible(in.dims[r - 1], b / a);
    for (int64_t i = 0; ok && i < r - 1; ++i) ok = DimsCompatible(in.dims[i], rt.dims[i]);
    if (!ok)
      return Msg(op, "operand must have the result's shape plus a last dimension of " + Num(b / std::max(a, 1)) +
                         types, "C1");
  }
  if (IsComplex(in.element) != IsComplex(rt.element))
    return Msg(op, "operand and result must both be complex or both not" + types, "C2");
  return "";
}

std::string Fft(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(Unary(op));
  const ir::Type& in = op.operands[0]->type;
  const ir::Type& rt = op.result()->type;
  auto len = Ints(op, "fft_length");
  if (!len) return Msg(op, "needs an fft_length attribute");
  int64_t n = static_cast<int64_t>(len->size());
  if (n > in.rank()) return Msg(op, "fft_length " + IntsStr(*len) + " is longer than the operand rank " + Num(in.rank()), "C1");
  if (n < 1 || n > 3) return Msg(op, "fft_length " + IntsStr(*len) + " must have 1 to 3 elements", "C3");
  std::string t = EnumStr(op, "fft_type");
  ElementType a = in.element, b = rt.element;
  std::string types = " (" + TypeStr(in) + " -> " + TypeStr(rt) + ")";
  if (t == "FFT" || t == "IFFT") {
    if (!IsComplex(a) || a != b) return Msg(op, t + " needs the same complex type for operand and result" + types, "C2");
  } else if (t == "RFFT") {
    if (!IsFloat(a) || !IsComplex(b) || ComplexPartType(b) != a)
      return Msg(op, "RFFT needs a floating-point operand and a complex result of the same precision" + types, "C2");
  } else if (t == "IRFFT") {
    if (!IsComplex(a) || !IsFloat(b) || ComplexPartType(a) != b)
      return Msg(op, "IRFFT needs a complex operand and a floating-point result of the same precision" + types, "C2");
  } else {
    return Msg(op, "fft_type '" + t + "' must be FFT, IFFT, RFFT or IRFFT");
  }
  const ir::Type* real = t == "RFFT" ? &in : t == "IRFFT" ? &rt : nullptr;
  if (real) {
    if (real->rank() < n) return Msg(op, "fft_length " + IntsStr(*len) + " is longer than the real type's rank", "C4");
    for (int64_t i = 0; i < n; ++i)
      if (!DimsCompatible(real->dims[real->rank() - n + i], (*len)[i]))
        return Msg(op, "the trailing dimensions of " + TypeStr(*real) + " must be fft_length " + IntsStr(*len), "C4");
  }
  std::vector<int64_t> shape = in.dims;
  if (t == "RFFT" && !shape.empty() && shape.back() != kDyn) shape.back() = shape.back() == 0 ? 0 : shape.back() / 2 + 1;
  if (t == "IRFFT" && !shape.empty()) shape.back() = rt.dims.empty() ? kDyn : rt.dims.back();
  if (t == "IRFFT" && !rt.dims.empty() && rt.dims.back() != kDyn && !in.dims.empty()) {
    int64_t want = rt.dims.back() == 0 ? 0 : rt.dims.back() / 2 + 1;
    if (!DimsCompatible(in.dims.back(), want))
      return Msg(op, "operand's last dimension must be " + Num(want) + types, "C5");
  }
  return CheckResultShape(op, rt, shape, "C5");
}

std::string Rng(const ir::Operation& op, const Context&) {
  if (op.operands.size() != 3 || op.results.size() != 1 || !AllTensors(op))
    return Msg(op, "expects a, b and shape operands and one result");
  const ir::Type& a = op.operands[0]->type;
  const ir::Type& b = op.operands[1]->type;
  const ir::Type& rt = op.result()->type;
  if (a.element != b.element || a.element != rt.element)
    return Msg(op, "a " + TypeStr(a) + ", b " + TypeStr(b) + " and result " + TypeStr(rt) +
                       " must have the same element type", "C1");
  if (a.rank() != 0 || b.rank() != 0) return Msg(op, "a and b must be rank-0 tensors");
  if (EnumStr(op, "rng_distribution") == "NORMAL" && !IsFloat(a.element))
    return Msg(op, "NORMAL distribution needs floating-point a, got " + TypeStr(a), "C2");
  const ir::Type& s = op.operands[2]->type;
  if (s.rank() == 1 && s.dims[0] != kDyn && s.dims[0] != rt.rank())
    return Msg(op, "shape operand " + TypeStr(s) + " must have " + Num(rt.rank()) + " elements", "C3");
  return "";
}

std::string RngBitGenerator(const ir::Operation& op, const Context&) {
  if (op.operands.size() != 1 || op.results.size() != 2 || !AllTensors(op))
    return Msg(op, "expects one initial_state and two results");
  const ir::Type& s = op.operands[0]->type;
  const ir::Type& os = op.result(0)->type;
  if (!TypesCompatible(s, os))
    return Msg(op, "initial_state " + TypeStr(s) + " and output_state " + TypeStr(os) + " must have the same type", "C1");
  std::string alg = EnumStr(op, "rng_algorithm");
  int64_t n = s.NumElements();
  // IREE's form: 4 words of 32 bits (compiler/passes/legalize_iree_rng_state.cc
  // rewrites it into the spec's).
  if (s.rank() == 1 && n == 4 && (s.element == ElementType::kSI32 || s.element == ElementType::kUI32) &&
      s.quant == nullptr)
    return "";
  if (n >= 0 && alg == "THREE_FRY" && n != 2)
    return Msg(op, "THREE_FRY needs an initial_state of 2 elements (or IREE's tensor<4xi32>), got " + TypeStr(s),
               "C2");
  if (n >= 0 && alg == "PHILOX" && n != 2 && n != 3)
    return Msg(op, "PHILOX needs an initial_state of 2 or 3 elements (or IREE's tensor<4xi32>), got " + TypeStr(s),
               "C2");
  return "";
}

// batch_norm_*: feature_index in range, one element type, per-feature sizes.
std::string BatchNorm(const ir::Operation& op, const Context&) {
  if (op.operands.empty() || !AllTensors(op)) return Msg(op, "expects tensor operands and results");
  const ir::Type& x = op.operands[0]->type;
  auto fi = Int(op, "feature_index");
  if (!fi) return Msg(op, "needs a feature_index attribute");
  if (*fi < 0 || *fi >= x.rank())
    return Msg(op, "feature_index " + Num(*fi) + " is out of range [0, " + Num(x.rank()) + ")", "C1");
  int64_t features = x.dims[*fi];
  bool grad = op.name == KernelName(KernelId::kBatchNormGrad);
  bool inference = op.name == KernelName(KernelId::kBatchNormInference);
  std::vector<const ir::Value*> all(op.operands.begin(), op.operands.end());
  for (const auto& r : op.results) all.push_back(r.get());
  for (const ir::Value* v : all)
    if (!SameBaselineElement(v->type, x))
      return Msg(op, "type " + TypeStr(v->type) + " must have the element type of operand " + TypeStr(x), "C2");
  // Per-feature values: operands 1..4 (grad: 1..3), results 1.. (training/grad).
  std::vector<const ir::Value*> per_feature, full;
  full.push_back(op.operands[0]);
  for (size_t i = 1; i < op.operands.size(); ++i) {
    if (grad && i == op.operands.size() - 1) full.push_back(op.operands[i]);  // grad_output
    else per_feature.push_back(op.operands[i]);
  }
  for (size_t i = 0; i < op.results.size(); ++i) (i == 0 ? full : per_feature).push_back(op.result(static_cast<int>(i)));
  for (const ir::Value* v : per_feature)
    if (v->type.rank() != 1 || !DimsCompatible(v->type.dims[0], features))
      return Msg(op, "type " + TypeStr(v->type) + " must be 1-D of size " + DimStr(features) +
                         " (the operand's feature dimension)", grad ? "C5" : "C3");
  for (const ir::Value* v : full)
    if (!ShapesCompatible(v->type, x))
      return Msg(op, "type " + TypeStr(v->type) + " must have the shape of operand " + TypeStr(x),
                 grad ? "C3" : "C7");
  (void)inference;
  return "";
}

std::string UniformQuantize(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(Unary(op));
  const ir::Type& in = op.operands[0]->type;
  const ir::Type& rt = op.result()->type;
  if (!ShapesCompatible(in, rt))
    return Msg(op, "operand type " + TypeStr(in) + " and result type " + TypeStr(rt) + " must have the same shape", "C1");
  if (!rt.is_quantized()) return Msg(op, "result type " + TypeStr(rt) + " must be quantized");
  ElementType want = in.is_quantized() ? in.quant->expressed : in.element;
  if (rt.quant->expressed != ElementType::kInvalid && rt.quant->expressed != want)
    return Msg(op, "result type " + TypeStr(rt) + " must express " + std::string(Name(want)), "C2");
  return "";
}

std::string UniformDequantize(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(Unary(op));
  const ir::Type& in = op.operands[0]->type;
  const ir::Type& rt = op.result()->type;
  if (!ShapesCompatible(in, rt))
    return Msg(op, "operand type " + TypeStr(in) + " and result type " + TypeStr(rt) + " must have the same shape", "C1");
  if (!in.is_quantized()) return Msg(op, "operand type " + TypeStr(in) + " must be quantized");
  if (in.quant->expressed != ElementType::kInvalid && (rt.element != in.quant->expressed || rt.is_quantized()))
    return Msg(op, "result type " + TypeStr(rt) + " must be the operand's expressed type", "C2");
  return "";
}

std::string Sort(const ir::Operation& op, const Context&) {
  if (op.operands.empty()) return Msg(op, "needs at least one input", "C1");
  if (!AllTensors(op)) return Msg(op, "operands and results must be tensors");
  if (op.results.size() != op.operands.size())
    return Msg(op, "has " + Num(op.operands.size()) + " inputs but " + Num(op.results.size()) + " results", "C2");
  const ir::Type& in0 = op.operands[0]->type;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const ir::Type& t = op.operands[i]->type;
    const ir::Type& r = op.result(static_cast<int>(i))->type;
    if (!TypesCompatible(t, r))
      return Msg(op, "input " + Num(i) + " type " + TypeStr(t) + " and result type " + TypeStr(r) + " must be the same",
                 "C2");
    if (!ShapesCompatible(t, in0))
      return Msg(op, "input " + Num(i) + " type " + TypeStr(t) + " must have the shape of input 0 " + TypeStr(in0),
                 "C3");
  }
  int64_t r = in0.rank();
  auto dim = Int(op, "dimension");
  int64_t d = dim ? *dim : -1;
  if (d < -r || d >= r) return Msg(op, "dimension " + Num(d) + " is out of range [" + Num(-r) + ", " + Num(r) + ")", "C4");
  if (op.regions.empty()) return Msg(op, "needs a comparator region", "C5");
  RegionSig s = Signature(*op.regions[0]);
  if (!s.ok) return Msg(op, "comparator must be one block ending in stablehlo.return", "C5");
  bool ok = s.inputs.size() == 2 * op.operands.size() && s.outputs.size() == 1 && s.outputs[0]->is_tensor() &&
            s.outputs[0]->rank() == 0 && s.outputs[0]->element == ElementType::kI1;
  for (size_t i = 0; ok && i < op.operands.size(); ++i)
    for (int k = 0; k < 2; ++k) {
      const ir::Type& a = *s.inputs[2 * i + k];
      if (!a.is_tensor() || a.rank() != 0 || !SameBaselineElement(a, op.operands[i]->type)) ok = false;
    }
  if (!ok)
    return Msg(op, "comparator has type " + TypesStr(s.inputs) + " -> " + TypesStr(s.outputs) +
                   ", expected two rank-0 arguments per input of its element type and one tensor<i1> result", "C5");
  return "";
}

}  // namespace

void RegisterNumeric(Registry* r) {
  (*r)["stablehlo.constant"] = &Constant;
  (*r)["stablehlo.convert"] = &Convert;
  (*r)["stablehlo.bitcast_convert"] = &BitcastConvert;
  (*r)["stablehlo.fft"] = &Fft;
  (*r)["stablehlo.rng"] = &Rng;
  (*r)["stablehlo.rng_bit_generator"] = &RngBitGenerator;
  (*r)["stablehlo.batch_norm_grad"] = &BatchNorm;
  (*r)["stablehlo.batch_norm_inference"] = &BatchNorm;
  (*r)["stablehlo.batch_norm_training"] = &BatchNorm;
  (*r)["stablehlo.uniform_quantize"] = &UniformQuantize;
  (*r)["stablehlo.uniform_dequantize"] = &UniformDequantize;
  (*r)["stablehlo.sort"] = &Sort;
}

}  // namespace kiln::compiler::verify

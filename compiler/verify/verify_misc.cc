// Verifier checks of the remaining ops: constant, convert, bitcast_convert,
// fft, rng, rng_bit_generator, triangular_solve, cholesky, batch_norm_*,
// uniform_quantize/dequantize, the collectives' attributes, tuple ops,
// optimization_barrier, tokens, custom_call, composite and func.call.
#include <set>

#include "compiler/verify/verify_util.h"

namespace kiln::compiler::verify {
namespace {

std::string Unary(const ir::Operation& op) {
  if (op.operands.size() != 1 || op.results.size() != 1 || !AllTensors(op))
    return Msg(op, "expects one tensor operand and one tensor result");
  return "";
}

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
  if (n >= 0 && alg == "THREE_FRY" && n != 2)
    return Msg(op, "THREE_FRY needs an initial_state of 2 elements, got " + TypeStr(s), "C2");
  if (n >= 0 && alg == "PHILOX" && n != 2 && n != 3)
    return Msg(op, "PHILOX needs an initial_state of 2 or 3 elements, got " + TypeStr(s), "C2");
  return "";
}

std::string Cholesky(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(Unary(op));
  const ir::Type& a = op.operands[0]->type;
  const ir::Type& rt = op.result()->type;
  if (!BaselineCompatible(a, rt))
    return Msg(op, "a " + TypeStr(a) + " and result " + TypeStr(rt) + " must have the same type", "C1");
  if (a.rank() < 2) return Msg(op, "a " + TypeStr(a) + " must have rank at least 2", "C2");
  if (!DimsCompatible(a.dims[a.rank() - 2], a.dims[a.rank() - 1]))
    return Msg(op, "a " + TypeStr(a) + " must be square in its last two dimensions", "C3");
  return "";
}

std::string TriangularSolve(const ir::Operation& op, const Context&) {
  if (op.operands.size() != 2 || op.results.size() != 1 || !AllTensors(op))
    return Msg(op, "expects a and b tensors and one tensor result");
  const ir::Type& a = op.operands[0]->type;
  const ir::Type& b = op.operands[1]->type;
  const ir::Type& rt = op.result()->type;
  if (!SameBaselineElement(a, b))
    return Msg(op, "a " + TypeStr(a) + " and b " + TypeStr(b) + " must have the same element type", "C1");
  if (a.rank() < 2 || a.rank() != b.rank())
    return Msg(op, "a " + TypeStr(a) + " and b " + TypeStr(b) + " must have the same rank, at least 2", "C2");
  int64_t r = a.rank();
  for (int64_t i = 0; i < r - 2; ++i)
    if (!DimsCompatible(a.dims[i], b.dims[i]))
      return Msg(op, "batch dimensions of a " + TypeStr(a) + " and b " + TypeStr(b) + " differ", "C3");
  bool left = Bool(op, "left_side").value_or(false);
  int64_t bd = b.dims[left ? r - 2 : r - 1];
  if (!DimsCompatible(a.dims[r - 2], a.dims[r - 1]) || !DimsCompatible(a.dims[r - 1], bd))
    return Msg(op, "a " + TypeStr(a) + " must be square and match dimension " + Num(left ? r - 2 : r - 1) + " of b " +
                       TypeStr(b), "C3");
  if (!BaselineCompatible(b, rt))
    return Msg(op, "b " + TypeStr(b) + " and result " + TypeStr(rt) + " must have the same type", "C4");
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
  bool grad = op.name == "stablehlo.batch_norm_grad";
  bool inference = op.name == "stablehlo.batch_norm_inference";
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

// --- collectives -------------------------------------------------------------

std::string ReplicaGroups(const ir::Operation& op, std::string_view c_unique, int64_t* group_size) {
  *group_size = -1;
  if (!op.GetAttr("replica_groups")) return "";
  auto m = Matrix2D(op, "replica_groups");
  if (!m) return Msg(op, "replica_groups must be a 2-D integer tensor");
  std::set<int64_t> seen;
  for (int64_t v : m->v)
    if (v >= 0 && !seen.insert(v).second)
      return Msg(op, "replica_groups repeats id " + Num(v), c_unique);
  // With a channel and without use_global_device_ids (cross_replica_and_partition)
  // a process group spans every partition too: its size is unknown here.
  bool global_ids = Bool(op, "use_global_device_ids").value_or(false);
  bool cross_partition = !global_ids && op.GetAttr("handle") && Int(op, "handle").value_or(0) > 0;
  if (m->rows > 0 && !cross_partition) *group_size = m->cols;
  return "";
}

std::string ChannelIds(const ir::Operation& op, std::string_view c) {
  if (!Bool(op, "use_global_device_ids").value_or(false)) return "";
  auto h = Int(op, "handle");
  if (!h || *h <= 0) return Msg(op, "use_global_device_ids needs a channel_id > 0", c);
  return "";
}

std::string AllGather(const ir::Operation& op, const Context&) {
  if (op.operands.empty() || op.results.size() != op.operands.size() || !AllTensors(op))
    return Msg(op, "expects N tensor operands and N tensor results");
  auto d = Int(op, "all_gather_dim");
  if (!d) return Msg(op, "needs an all_gather_dim attribute");
  int64_t g;
  KILN_VERIFY_TRY(ReplicaGroups(op, "C2", &g));
  KILN_VERIFY_TRY(ChannelIds(op, "C5"));
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const ir::Type& t = op.operands[i]->type;
    const ir::Type& r = op.result(static_cast<int>(i))->type;
    if (*d < 0 || *d >= t.rank())
      return Msg(op, "all_gather_dim " + Num(*d) + " is out of range [0, " + Num(t.rank()) + ")", "C1");
    std::vector<int64_t> shape = t.dims;
    shape[*d] = (g < 0 || shape[*d] == kDyn) ? kDyn : shape[*d] * g;
    if (!SameElement(t, r)) return Msg(op, "operand " + TypeStr(t) + " and result " + TypeStr(r) + " element types differ", "C6");
    KILN_VERIFY_TRY(CheckResultShape(op, r, shape, "C6"));
  }
  return "";
}

std::string CollectiveBody(const ir::Operation& op, size_t n_inputs, std::string_view c_body, std::string_view c_elem,
                           std::vector<ir::Type>* e) {
  if (op.regions.empty()) return "";
  std::vector<const ir::Type*> ins;
  for (size_t i = 0; i < n_inputs; ++i) ins.push_back(&op.operands[i]->type);
  // all_reduce's body is per operand: (tensor<E>, tensor<E>) -> tensor<E>.
  std::vector<const ir::Type*> one(ins.begin(), ins.begin() + std::min<size_t>(1, ins.size()));
  KILN_VERIFY_TRY(CheckReducerBody(op, *op.regions[0], "computation", one, c_body, e));
  for (size_t i = 0; i < op.results.size() && !e->empty(); ++i)
    if (!SameBaselineElement(op.result(static_cast<int>(i))->type, (*e)[0]) &&
        !op.result(static_cast<int>(i))->type.is_quantized())
      return Msg(op, "result type " + TypeStr(op.result(static_cast<int>(i))->type) +
                         " must have the computation's element type " + TypeStr((*e)[0]), c_elem);
  return "";
}

std::string AllReduce(const ir::Operation& op, const Context&) {
  if (op.operands.empty() || op.results.size() != op.operands.size() || !AllTensors(op))
    return Msg(op, "expects N tensor operands and N tensor results");
  int64_t g;
  KILN_VERIFY_TRY(ReplicaGroups(op, "C1", &g));
  KILN_VERIFY_TRY(ChannelIds(op, "C4"));
  std::vector<ir::Type> e;
  KILN_VERIFY_TRY(CollectiveBody(op, op.operands.size(), "C5", "C7", &e));
  for (size_t i = 0; i < op.operands.size(); ++i)
    if (!ShapesCompatible(op.operands[i]->type, op.result(static_cast<int>(i))->type))
      return Msg(op, "operand " + TypeStr(op.operands[i]->type) + " and result " +
                         TypeStr(op.result(static_cast<int>(i))->type) + " must have the same shape", "C6");
  return "";
}

std::string ReduceScatter(const ir::Operation& op, const Context&) {
  if (op.operands.size() != 1 || op.results.size() != 1 || !AllTensors(op))
    return Msg(op, "expects one tensor operand and one tensor result");
  const ir::Type& t = op.operands[0]->type;
  const ir::Type& r = op.result()->type;
  auto d = Int(op, "scatter_dimension");
  if (!d) return Msg(op, "needs a scatter_dimension attribute");
  if (*d < 0 || *d >= t.rank())
    return Msg(op, "scatter_dimension " + Num(*d) + " is out of range [0, " + Num(t.rank()) + ")", "C2");
  int64_t g;
  KILN_VERIFY_TRY(ReplicaGroups(op, "C3", &g));
  KILN_VERIFY_TRY(ChannelIds(op, "C6"));
  if (g > 0 && t.dims[*d] != kDyn && t.dims[*d] % g != 0)
    return Msg(op, "scatter dimension size " + Num(t.dims[*d]) + " is not divisible by the group size " + Num(g), "C1");
  std::vector<ir::Type> e;
  KILN_VERIFY_TRY(CollectiveBody(op, 1, "C7", "C9", &e));
  std::vector<int64_t> shape = t.dims;
  shape[*d] = (g <= 0 || shape[*d] == kDyn) ? kDyn : shape[*d] / g;
  return CheckResultShape(op, r, shape, "C8");
}

std::string AllToAll(const ir::Operation& op, const Context&) {
  if (op.operands.empty() || op.results.size() != op.operands.size() || !AllTensors(op))
    return Msg(op, "expects N tensor operands and N tensor results");
  auto sd = Int(op, "split_dimension"), cd = Int(op, "concat_dimension"), sc = Int(op, "split_count");
  if (!sd || !cd || !sc) return Msg(op, "needs split_dimension, concat_dimension and split_count");
  if (*sc <= 0) return Msg(op, "split_count " + Num(*sc) + " must be positive", "C4");
  int64_t g;
  KILN_VERIFY_TRY(ReplicaGroups(op, "C5", &g));
  if (g >= 0 && g != *sc) return Msg(op, "replica groups of size " + Num(g) + " must have split_count " + Num(*sc) + " ids", "C8");
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const ir::Type& t = op.operands[i]->type;
    const ir::Type& r = op.result(static_cast<int>(i))->type;
    if (*sd < 0 || *sd >= t.rank())
      return Msg(op, "split_dimension " + Num(*sd) + " is out of range [0, " + Num(t.rank()) + ")", "C1");
    if (*cd < 0 || *cd >= t.rank())
      return Msg(op, "concat_dimension " + Num(*cd) + " is out of range [0, " + Num(t.rank()) + ")", "C3");
    if (t.dims[*sd] != kDyn && t.dims[*sd] % *sc != 0)
      return Msg(op, "split dimension size " + Num(t.dims[*sd]) + " is not divisible by split_count " + Num(*sc), "C2");
    std::vector<int64_t> shape = t.dims;
    if (*sd != *cd) {
      if (shape[*sd] != kDyn) shape[*sd] /= *sc;
      if (shape[*cd] != kDyn) shape[*cd] *= *sc;
    }
    if (!SameElement(t, r)) return Msg(op, "operand " + TypeStr(t) + " and result " + TypeStr(r) + " element types differ", "C9");
    KILN_VERIFY_TRY(CheckResultShape(op, r, shape, "C9"));
  }
  return "";
}

std::string PermutePairs(const ir::Operation& op) {
  if (!op.GetAttr("source_target_pairs")) return "";
  auto m = Matrix2D(op, "source_target_pairs");
  if (!m || (m->rows > 0 && m->cols != 2))
    return Msg(op, "source_target_pairs must have shape [N, 2]", "C1");
  std::set<int64_t> src, dst;
  for (int64_t i = 0; i < m->rows; ++i) {
    if (!src.insert(m->at(i, 0)).second) return Msg(op, "source_target_pairs repeats source " + Num(m->at(i, 0)), "C2");
    if (!dst.insert(m->at(i, 1)).second) return Msg(op, "source_target_pairs repeats target " + Num(m->at(i, 1)), "C3");
    if (m->at(i, 0) < 0 || m->at(i, 1) < 0) return Msg(op, "source_target_pairs must be non-negative", "C4");
  }
  return "";
}

std::string CollectivePermute(const ir::Operation& op, const Context&) {
  KILN_VERIFY_TRY(PermutePairs(op));
  if (op.operands.size() == 1 && op.results.size() == 1 &&
      !TypesCompatible(op.operands[0]->type, op.result()->type))
    return Msg(op, "operand " + TypeStr(op.operands[0]->type) + " and result " + TypeStr(op.result()->type) +
                       " must have the same type", "C5");
  return "";
}

std::string CollectiveBroadcast(const ir::Operation& op, const Context&) {
  int64_t g;
  KILN_VERIFY_TRY(ReplicaGroups(op, "C1", &g));
  if (op.operands.size() == op.results.size())
    for (size_t i = 0; i < op.operands.size(); ++i)
      if (!TypesCompatible(op.operands[i]->type, op.result(static_cast<int>(i))->type))
        return Msg(op, "operand " + TypeStr(op.operands[i]->type) + " and result " +
                           TypeStr(op.result(static_cast<int>(i))->type) + " must have the same type", "C3");
  return "";
}

// --- tuples, tokens, barriers ------------------------------------------------

std::string Tuple(const ir::Operation& op, const Context&) {
  if (op.results.size() != 1 || !op.result()->type.is_tuple()) return Msg(op, "result must be a tuple");
  const auto& el = op.result()->type.tuple_elements;
  bool ok = el.size() == op.operands.size();
  for (size_t i = 0; ok && i < el.size(); ++i) ok = TypesCompatible(el[i], op.operands[i]->type);
  if (!ok) return Msg(op, "result type " + TypeStr(op.result()->type) + " must be the tuple of the operand types", "C1");
  return "";
}

std::string GetTupleElement(const ir::Operation& op, const Context&) {
  if (op.operands.size() != 1 || !op.operands[0]->type.is_tuple() || op.results.size() != 1)
    return Msg(op, "expects one tuple operand and one result");
  const auto& el = op.operands[0]->type.tuple_elements;
  auto idx = Int(op, "index");
  if (!idx) return Msg(op, "needs an index attribute");
  if (*idx < 0 || *idx >= static_cast<int64_t>(el.size()))
    return Msg(op, "index " + Num(*idx) + " is out of range [0, " + Num(el.size()) + ")", "C1");
  if (!TypesCompatible(el[*idx], op.result()->type))
    return Msg(op, "result type " + TypeStr(op.result()->type) + " must be tuple element " + Num(*idx) + " type " +
                       TypeStr(el[*idx]), "C2");
  return "";
}

// --- async_start / async_done ------------------------------------------------

std::string AsyncStart(const ir::Operation& op, const Context&) {
  if (op.regions.size() != 1 || op.regions[0]->blocks.size() != 1)
    return Msg(op, "body must be one region of one block", "C1");
  const auto& ops = op.regions[0]->blocks[0]->ops;
  if (ops.size() != 2 || ops[1]->name != "stablehlo.return")
    return Msg(op, "body must hold a single operation and a return", "C1");
  const ir::Operation& inner = *ops[0];
  static const std::set<std::string> kAllowed = {
      "stablehlo.all_reduce", "stablehlo.all_gather", "stablehlo.all_to_all", "stablehlo.collective_permute",
      "stablehlo.reduce_scatter", "stablehlo.collective_broadcast", "stablehlo.slice", "stablehlo.dynamic_slice",
      "stablehlo.dynamic_update_slice"};
  if (!kAllowed.count(inner.name))
    return Msg(op, "the operation in body must be a collective or a slice, not " + inner.name, "C2");
  if (inner.operands != op.operands)
    return Msg(op, "operands must be the ones passed to the operation in body", "C3");
  if (op.results.size() != 1 || !op.result()->type.is_future())
    return Msg(op, "result must be a !stablehlo.future", "C4");
  const auto& el = op.result()->type.tuple_elements;
  bool ok = el.size() == inner.results.size();
  for (size_t i = 0; ok && i < el.size(); ++i) ok = TypesCompatible(el[i], inner.results[i]->type);
  if (!ok) return Msg(op, "result " + TypeStr(op.result()->type) + " must be the future of the body's result types", "C4");
  return "";
}

std::string AsyncDone(const ir::Operation& op, const Context&) {
  if (op.operands.size() != 1 || !op.operands[0]->type.is_future())
    return Msg(op, "operand must be a !stablehlo.future", "C1");
  const auto& el = op.operands[0]->type.tuple_elements;
  bool ok = el.size() == op.results.size();
  for (size_t i = 0; ok && i < el.size(); ++i) ok = TypesCompatible(el[i], op.result(static_cast<int>(i))->type);
  if (!ok) return Msg(op, "results must be the types of its operand " + TypeStr(op.operands[0]->type), "C1");
  return "";
}

std::string OptimizationBarrier(const ir::Operation& op, const Context&) {
  bool ok = op.operands.size() == op.results.size();
  for (size_t i = 0; ok && i < op.operands.size(); ++i)
    ok = TypesCompatible(op.operands[i]->type, op.result(static_cast<int>(i))->type);
  if (!ok) return Msg(op, "result types must be the operand types", "C1");
  return "";
}

std::string AfterAll(const ir::Operation& op, const Context&) {
  for (auto* v : op.operands)
    if (!v->type.is_token()) return Msg(op, "operand type " + TypeStr(v->type) + " must be !stablehlo.token");
  if (op.results.size() != 1 || !op.result()->type.is_token()) return Msg(op, "must return one !stablehlo.token");
  return "";
}

std::string Infeed(const ir::Operation& op, const Context&) {
  if (op.results.empty()) return Msg(op, "needs at least one result", "C1");
  if (!op.results.back()->type.is_token()) return Msg(op, "last result must be !stablehlo.token", "C3");
  return "";
}

std::string TokenResult(const ir::Operation& op, const Context&) {
  if (op.results.empty() || !op.results.back()->type.is_token())
    return Msg(op, "last result must be !stablehlo.token");
  return "";
}

std::string IdOp(const ir::Operation& op, const Context&) {
  if (op.results.size() != 1 || !op.result()->type.is_tensor() || op.result()->type.rank() != 0 ||
      op.result()->type.element != ElementType::kUI32)
    return Msg(op, "must return tensor<ui32>");
  return "";
}

// --- calls -------------------------------------------------------------------

std::string CheckCallTypes(const ir::Operation& op, const ir::Function& f, std::string_view c_in,
                           std::string_view c_out) {
  if (op.operands.size() != f.arg_types.size())
    return Msg(op, "passes " + Num(op.operands.size()) + " operands, but @" + f.name + " takes " +
                       Num(f.arg_types.size()), c_in);
  for (size_t i = 0; i < op.operands.size(); ++i)
    if (!TypesCompatible(op.operands[i]->type, f.arg_types[i]))
      return Msg(op, "operand " + Num(i) + " has type " + TypeStr(op.operands[i]->type) + ", but @" + f.name +
                         " takes " + TypeStr(f.arg_types[i]), c_in);
  if (op.results.size() != f.result_types.size())
    return Msg(op, "has " + Num(op.results.size()) + " results, but @" + f.name + " returns " +
                       Num(f.result_types.size()), c_out);
  for (size_t i = 0; i < op.results.size(); ++i)
    if (!TypesCompatible(op.result(static_cast<int>(i))->type, f.result_types[i]))
      return Msg(op, "result " + Num(i) + " has type " + TypeStr(op.result(static_cast<int>(i))->type) + ", but @" +
                         f.name + " returns " + TypeStr(f.result_types[i]), c_out);
  return "";
}

std::string Call(const ir::Operation& op, const Context& ctx) {
  const ir::Attribute* callee = op.GetAttr("callee");
  if (!callee) return Msg(op, "needs a callee");
  if (!ctx.module) return "";
  const ir::Function* f = ctx.module->FindFunction(callee->str);
  if (!f) return Msg(op, "calls undefined function @" + callee->str);
  return CheckCallTypes(op, *f, "", "");
}

std::string Composite(const ir::Operation& op, const Context& ctx) {
  std::string name = EnumStr(op, "name");
  if (op.GetAttr("name") && name.find('.') == std::string::npos)
    return Msg(op, "name '" + name + "' must be namespaced (dialect.op)", "C1");
  const ir::Attribute* dec = op.GetAttr("decomposition");
  if (!dec || !ctx.module) return "";
  const ir::Function* f = ctx.module->FindFunction(dec->str);
  if (!f) return Msg(op, "decomposition @" + dec->str + " is not defined", "C2");
  return CheckCallTypes(op, *f, "C3", "C4");
}

}  // namespace

void RegisterMisc(Registry* r) {
  (*r)["stablehlo.constant"] = &Constant;
  (*r)["stablehlo.convert"] = &Convert;
  (*r)["stablehlo.bitcast_convert"] = &BitcastConvert;
  (*r)["stablehlo.fft"] = &Fft;
  (*r)["stablehlo.rng"] = &Rng;
  (*r)["stablehlo.rng_bit_generator"] = &RngBitGenerator;
  (*r)["stablehlo.cholesky"] = &Cholesky;
  (*r)["stablehlo.triangular_solve"] = &TriangularSolve;
  (*r)["stablehlo.batch_norm_grad"] = &BatchNorm;
  (*r)["stablehlo.batch_norm_inference"] = &BatchNorm;
  (*r)["stablehlo.batch_norm_training"] = &BatchNorm;
  (*r)["stablehlo.uniform_quantize"] = &UniformQuantize;
  (*r)["stablehlo.uniform_dequantize"] = &UniformDequantize;
  (*r)["stablehlo.all_gather"] = &AllGather;
  (*r)["stablehlo.all_reduce"] = &AllReduce;
  (*r)["stablehlo.reduce_scatter"] = &ReduceScatter;
  (*r)["stablehlo.all_to_all"] = &AllToAll;
  (*r)["stablehlo.collective_permute"] = &CollectivePermute;
  (*r)["stablehlo.collective_broadcast"] = &CollectiveBroadcast;
  (*r)["stablehlo.tuple"] = &Tuple;
  (*r)["stablehlo.get_tuple_element"] = &GetTupleElement;
  (*r)["stablehlo.optimization_barrier"] = &OptimizationBarrier;
  (*r)["stablehlo.async_start"] = &AsyncStart;
  (*r)["stablehlo.async_done"] = &AsyncDone;
  (*r)["stablehlo.after_all"] = &AfterAll;
  (*r)["stablehlo.infeed"] = &Infeed;
  (*r)["stablehlo.recv"] = &TokenResult;
  (*r)["stablehlo.send"] = &TokenResult;
  (*r)["stablehlo.outfeed"] = &TokenResult;
  (*r)["stablehlo.partition_id"] = &IdOp;
  (*r)["stablehlo.replica_id"] = &IdOp;
  (*r)["func.call"] = &Call;
  (*r)["stablehlo.composite"] = &Composite;
}

}  // namespace kiln::compiler::verify

#include "compiler/passes/quantized_integer_contraction.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <vector>

#include "compiler/op_names.h"
#include "compiler/passes/ir_builder.h"
#include "compiler/quantized_ops.h"
#include "kernels/scalar/scalar.h"

namespace kiln::compiler {
namespace {

bool IsContraction(const std::string& n) {
  return op_names::IsKernelOp(n, KernelId::kDotGeneral) || op_names::IsKernelOp(n, KernelId::kDot) ||
         op_names::IsKernelOp(n, KernelId::kConvolution) || op_names::IsKernelOp(n, KernelId::kDynamicConv);
}

bool IntegerStorage(const ir::Type& t, size_t max_bytes) {
  return t.is_quantized() && IsInteger(t.element) && StorageBytes(t.element) <= max_bytes;
}

// Whether the result's scales are the products of lhs and rhs scales,
// rounded as the expressed type holds them, with all zero points 0 but the
// lhs's (which the integer form subtracts).
bool ExactScales(const ir::Type& l, const ir::Type& r, const ir::Type& rt) {
  const ir::QuantType &lq = *l.quant, &rq = *r.quant, &oq = *rt.quant;
  const ElementType e = oq.expressed;
  if (!IsFloat(e) || lq.expressed != e || rq.expressed != e || !IsPerTensor(l)) return false;
  if ((rq.quantized_dimension >= 0) != (oq.quantized_dimension >= 0) || rq.scales.size() != oq.scales.size())
    return false;
  for (int64_t z : rq.zero_points)
    if (z != 0) return false;
  for (int64_t z : oq.zero_points)
    if (z != 0) return false;
  const double ls = ref::RoundToFloatType(e, lq.scales[0]);
  for (size_t k = 0; k < oq.scales.size(); ++k) {
    const double product = ref::RoundToFloatType(e, ls * ref::RoundToFloatType(e, rq.scales[k]));
    if (ref::RoundToFloatType(e, oq.scales[k]) != product) return false;
  }
  return true;
}

// A rank-0 f64 constant holding integer `v`.
ir::Value* F64(IrBuilder& b, int64_t v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kDense;
  a.type = ir::Type::Tensor(ElementType::kF64, {});
  const double x = static_cast<double>(v);
  a.dense_bytes.resize(8);
  std::memcpy(a.dense_bytes.data(), &x, 8);
  ir::Value* c = b.Op(ScalarOpName(ScalarOp::kConstant), {}, ir::Type::Tensor(ElementType::kF64, {}));
  c->def->attrs.emplace_back("value", std::move(a));
  return c;
}

// A rank-0 i32 constant holding `v`.
ir::Value* I32(IrBuilder& b, int32_t v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kDense;
  a.type = ir::Type::Tensor(ElementType::kSI32, {});
  a.dense_bytes.resize(4);
  std::memcpy(a.dense_bytes.data(), &v, 4);
  ir::Value* c = b.Op(ScalarOpName(ScalarOp::kConstant), {}, ir::Type::Tensor(ElementType::kSI32, {}));
  c->def->attrs.emplace_back("value", std::move(a));
  return c;
}

std::vector<int64_t> IntsAttr(const ir::Operation& op, const char* name) {
  const ir::Attribute* a = op.GetAttr(name);
  auto v = a ? a->AsInts() : std::nullopt;
  return v ? *v : std::vector<int64_t>{};
}

// The stored bytes of a constant operand of 8-bit storage (a constant, or a
// bitcast_convert of one from its storage type), or null.
const std::vector<uint8_t>* ConstantBytes(const ir::Value* v) {
  if (v->def != nullptr && op_names::IsKernelOp(v->def->name, KernelId::kBitcastConvert) &&
      v->def->operands.size() == 1 && StorageBytes(v->def->operands[0]->type.element) == 1 &&
      v->def->operands[0]->type.dims == v->type.dims)
    v = v->def->operands[0];
  if (v->def == nullptr || !op_names::IsConstant(v->def->name)) return nullptr;
  const ir::Attribute* a = v->def->GetAttr("value");
  if (a == nullptr || a->kind != ir::Attribute::Kind::kDense) return nullptr;
  if (a->dense_bytes.size() != static_cast<size_t>(v->type.NumElements())) return nullptr;
  return &a->dense_bytes;
}

// The 8-bit form: a dot_general or dot of i8/ui8 storage into an i32 result
// becomes an integer dot_general on the stored values, which the CPU runs on
// its int8 GEMM (kernels/cpu/gemm_int8.h). The lhs zero point z moves out of
// the sum: sum (a - z) b = sum a b - z * colsum(b), the column sums of a
// constant rhs (the weights) computed here and subtracted through a
// broadcast (which fusion takes into the product's epilogue). The sum is
// exact in i32 when it cannot pass 2^31: |a - z| and |b| are at most 255, so
// up to 32768 terms. Returns false (nothing emitted) where the form does not
// apply; the f64 form then runs.
// The stored integers of `v`: a value bitcast from its storage type is used
// as it was (a constant weight stays a constant, which the kernel packs once).
ir::Value* Stored(IrBuilder& b, ir::Value* v) {
  if (v->def != nullptr && op_names::IsKernelOp(v->def->name, KernelId::kBitcastConvert) &&
      v->def->operands.size() == 1) {
    ir::Value* from = v->def->operands[0];
    if (!from->type.is_quantized() && from->type.element == v->type.element && from->type.dims == v->type.dims)
      return from;
  }
  return b.Op(std::string(KernelName(KernelId::kBitcastConvert)), {v}, ir::Type::Tensor(v->type.element, v->type.dims));
}

// Per-element sums of a constant rhs of 8-bit storage over every dim but
// `kept` (in rhs order), each times `z`: z * colsum, exact in i32 for up to
// 32768 summed terms (|z|, |b| <= 255).
std::vector<int32_t> ScaledSums(const ir::Type& r, const std::vector<uint8_t>& bytes, const std::vector<int64_t>& kept,
                                int64_t z) {
  int64_t count = 1;
  for (int64_t d : kept) count *= r.dims[d];
  std::vector<int64_t> sums(static_cast<size_t>(count), 0);
  std::vector<int64_t> strides(r.rank(), 1);
  for (int64_t d = r.rank() - 1; d > 0; --d) strides[d - 1] = strides[d] * r.dims[d];
  const bool is_signed = r.element == ElementType::kSI8;
  std::vector<int64_t> idx(r.rank(), 0);
  for (int64_t e = 0; e < r.NumElements(); ++e) {
    int64_t rem = e, pos = 0;
    for (int64_t d = 0; d < r.rank(); ++d) {
      idx[d] = rem / strides[d];
      rem %= strides[d];
    }
    for (int64_t d : kept) pos = pos * r.dims[d] + idx[d];
    const uint8_t byte = bytes[static_cast<size_t>(e)];
    sums[static_cast<size_t>(pos)] += is_signed ? static_cast<int8_t>(byte) : byte;
  }
  std::vector<int32_t> out;
  out.reserve(sums.size());
  for (int64_t s : sums) out.push_back(static_cast<int32_t>(z * s));
  return out;
}

bool ByteStorage(ElementType e) { return e == ElementType::kSI8 || e == ElementType::kUI8; }

// An int attribute (a dimension number) of `op`, or -1.
int64_t IntAttr(const ir::Operation& op, const char* name) {
  const std::vector<int64_t> v = IntsAttr(op, name);
  return v.size() == 1 ? v[0] : -1;
}

// The 8-bit form of a convolution: an integer convolution on the stored
// values (i8/ui8 x i8/ui8 -> i32), which the CPU runs on its int8 GEMM.
// The lhs zero point z leaves the sum as for dot_general: every output
// feature o gets sum (a - z) w = sum a w - z * sum_{taps, inputs} w[.., o].
// That holds only where every window element is a stored value; padding and
// lhs dilation insert values whose dequantized value is 0, i.e. stored z,
// so with z != 0 they move into a `pad` of the stored input with z (edge
// padding, interior padding for the dilation) and the convolution keeps
// neither. With z == 0 the integer convolution's own zero padding is it.
bool Int8ConvForm(ir::Operation& op, const ir::Type& l, const ir::Type& r, const ir::Type& rt, IrBuilder& b,
                  ir::Value** lhs, ir::Value** rhs, std::vector<int64_t>* corr_dims, std::vector<int32_t>* corr,
                  std::vector<int64_t>* corr_map) {
  if (!op_names::IsKernelOp(op.name, KernelId::kConvolution) || op.operands.size() != 2) return false;
  if (!ByteStorage(l.element) || !ByteStorage(r.element) || rt.element != ElementType::kSI32) return false;
  if (!l.HasStaticShape() || !r.HasStaticShape() || !rt.HasStaticShape() || l.rank() < 2) return false;
  const int64_t kof = IntAttr(op, "kernel_output_feature_dimension"), ofd = IntAttr(op, "output_feature_dimension");
  const std::vector<int64_t> isp = IntsAttr(op, "input_spatial_dimensions");
  const size_t ns = static_cast<size_t>(l.rank() - 2);
  if (kof < 0 || kof >= r.rank() || ofd < 0 || ofd >= rt.rank() || isp.size() != ns) return false;
  const int64_t k_out = r.dims[kof];
  if (k_out <= 0 || r.NumElements() / k_out > 32768) return false;
  const int64_t z = l.quant->zero_points[0];
  if (z < l.quant->storage_min || z > l.quant->storage_max) return false;
  std::vector<int64_t> padding = IntsAttr(op, "padding"), lhs_dil = IntsAttr(op, "lhs_dilation");
  if (padding.empty()) padding.assign(2 * ns, 0);
  if (lhs_dil.empty()) lhs_dil.assign(ns, 1);
  if (padding.size() != 2 * ns || lhs_dil.size() != ns) return false;
  const bool moves = std::any_of(padding.begin(), padding.end(), [](int64_t v) { return v != 0; }) ||
                     std::any_of(lhs_dil.begin(), lhs_dil.end(), [](int64_t v) { return v != 1; });
  // The padded input's shape (checked before anything is emitted).
  std::vector<int64_t> lo(l.rank(), 0), hi(l.rank(), 0), interior(l.rank(), 0), dims = l.dims;
  for (size_t s = 0; s < ns && z != 0 && moves; ++s) {
    const int64_t d = isp[s];
    if (d < 0 || d >= l.rank() || lhs_dil[s] < 1) return false;
    lo[d] = padding[2 * s], hi[d] = padding[2 * s + 1], interior[d] = lhs_dil[s] - 1;
    dims[d] = lo[d] + hi[d] + (l.dims[d] > 0 ? l.dims[d] + (l.dims[d] - 1) * interior[d] : 0);
    if (dims[d] < 0) return false;
  }
  if (z != 0) {
    const std::vector<uint8_t>* bytes = ConstantBytes(*rhs);
    if (bytes == nullptr) return false;
    *corr = ScaledSums(r, *bytes, {kof}, z);
    *corr_dims = {k_out};
    *corr_map = {ofd};
  }
  *lhs = Stored(b, *lhs);
  *rhs = Stored(b, *rhs);
  if (z != 0 && moves) {
    ir::Attribute zv;
    zv.kind = ir::Attribute::Kind::kDense;
    zv.type = ir::Type::Tensor(l.element, {});
    zv.dense_bytes = {static_cast<uint8_t>(z)};
    ir::Value* pad_value = b.Op(ScalarOpName(ScalarOp::kConstant), {}, ir::Type::Tensor(l.element, {}));
    pad_value->def->attrs.emplace_back("value", std::move(zv));
    ir::Value* padded = b.Op(KernelName(KernelId::kPad), {*lhs, pad_value}, ir::Type::Tensor(l.element, dims));
    auto ints = [](std::vector<int64_t> v) {
      ir::Attribute a;
      a.kind = ir::Attribute::Kind::kIntArray;
      a.type.element = ElementType::kSI64;
      a.ints = std::move(v);
      return a;
    };
    padded->def->attrs.emplace_back("edge_padding_low", ints(lo));
    padded->def->attrs.emplace_back("edge_padding_high", ints(hi));
    padded->def->attrs.emplace_back("interior_padding", ints(interior));
    *lhs = padded;
    ir::Attribute zero_pad;
    zero_pad.kind = ir::Attribute::Kind::kDense;
    zero_pad.type = ir::Type::Tensor(ElementType::kSI64, {static_cast<int64_t>(ns), 2});
    zero_pad.dense_bytes.assign(ns * 2 * 8, 0);
    op.SetAttr("padding", std::move(zero_pad));
    op.SetAttr("lhs_dilation", ints(std::vector<int64_t>(ns, 1)));
  }
  return true;
}

bool Int8Form(ir::Operation& op, const ir::Type& l, const ir::Type& r, const ir::Type& rt, IrBuilder& b,
              ir::Value** lhs, ir::Value** rhs, std::vector<int64_t>* corr_dims, std::vector<int32_t>* corr,
              std::vector<int64_t>* corr_map) {
  if (op_names::IsKernelOp(op.name, KernelId::kConvolution) || op_names::IsKernelOp(op.name, KernelId::kDynamicConv))
    return Int8ConvForm(op, l, r, rt, b, lhs, rhs, corr_dims, corr, corr_map);
  if (!ByteStorage(l.element) || !ByteStorage(r.element) || rt.element != ElementType::kSI32) return false;
  if (!l.HasStaticShape() || !r.HasStaticShape() || !rt.HasStaticShape()) return false;
  std::vector<int64_t> lb, rb, lc, rc;
  if (op_names::IsKernelOp(op.name, KernelId::kDot)) {
    if (l.rank() < 1 || l.rank() > 2 || r.rank() < 1 || r.rank() > 2) return false;
    lc = {l.rank() - 1};
    rc = {0};
  } else {
    lb = IntsAttr(op, "lhs_batching_dimensions");
    rb = IntsAttr(op, "rhs_batching_dimensions");
    lc = IntsAttr(op, "lhs_contracting_dimensions");
    rc = IntsAttr(op, "rhs_contracting_dimensions");
  }
  if (lb.size() != rb.size() || lc.size() != rc.size()) return false;
  int64_t k = 1;
  for (int64_t d : rc) {
    if (d < 0 || d >= r.rank()) return false;
    k *= r.dims[d];
  }
  if (k > 32768) return false;
  const int64_t z = l.quant->zero_points[0];
  if (z != 0) {
    const std::vector<uint8_t>* bytes = ConstantBytes(*rhs);
    if (bytes == nullptr) return false;
    // colsum over the contracting dims, indexed by the other rhs dims in
    // rhs order; each maps to its place in the result (batch dims first,
    // then lhs free, then rhs free).
    const int64_t lfree = l.rank() - static_cast<int64_t>(lb.size() + lc.size());
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < r.rank(); ++d)
      if (std::find(rc.begin(), rc.end(), d) == rc.end()) kept.push_back(d);
    int64_t free_seen = 0;
    for (int64_t d : kept) {
      corr_dims->push_back(r.dims[d]);
      auto bi = std::find(rb.begin(), rb.end(), d);
      corr_map->push_back(bi != rb.end() ? bi - rb.begin()
                                         : static_cast<int64_t>(lb.size()) + lfree + free_seen++);
    }
    *corr = ScaledSums(r, *bytes, kept, z);
  }
  *lhs = Stored(b, *lhs);
  *rhs = Stored(b, *rhs);
  return true;
}

}  // namespace

size_t RewriteIntegerContraction(ir::Block* block, size_t at) {
  ir::Operation& op = *block->ops[at];
  if (!IsContraction(op.name) || op.operands.size() < 2 || op.results.size() != 1) return 0;
  const ir::Type l = op.operands[0]->type, r = op.operands[1]->type, rt = op.result()->type;
  // Operands of at most 16 bits: each product is below 2^32, so f64 sums
  // them exactly up to 2^21 terms.
  if (!IntegerStorage(l, 2) || !IntegerStorage(r, 2) || !IntegerStorage(rt, 4) || !ExactScales(l, r, rt)) return 0;
  std::vector<std::unique_ptr<ir::Operation>> before;
  IrBuilder b(op, block, &before);
  const std::string bitcast(KernelName(KernelId::kBitcastConvert));
  const std::string convert(ScalarOpName(ScalarOp::kConvert));
  ir::Value* ls = op.operands[0];
  ir::Value* rs = op.operands[1];
  std::vector<int64_t> corr_dims, corr_map;
  std::vector<int32_t> corr;
  const bool int8 = Int8Form(op, l, r, rt, b, &ls, &rs, &corr_dims, &corr, &corr_map);
  if (int8) {
    op.operands[0] = ls;
    op.operands[1] = rs;
  } else {
    auto widen = [&](ir::Value* v) {
      ir::Value* stored = b.Op(bitcast, {v}, ir::Type::Tensor(v->type.element, v->type.dims));
      return b.Op(convert, {stored}, ir::Type::Tensor(ElementType::kF64, v->type.dims));
    };
    ir::Value* lhs = widen(op.operands[0]);
    if (const int64_t zp = l.quant->zero_points[0]; zp != 0) {
      ir::Value* z = F64(b, zp);
      // Of static shape, broadcast (fusion reads it back as one constant);
      // of dynamic shape, rank 0, which the elementwise kernels broadcast.
      if (l.HasStaticShape()) z = b.Broadcast(z, {}, l.dims);
      lhs = b.Op(ScalarOpName(ScalarOp::kSubtract), {lhs, z}, lhs->type);
    }
    op.operands[0] = lhs;
    op.operands[1] = widen(op.operands[1]);
  }
  // The op now sums in f64 (or i32); the quantized result value moves to
  // the last op.
  const ElementType acc_type = int8 ? ElementType::kSI32 : ElementType::kF64;
  auto acc = std::make_unique<ir::Value>();
  acc->type = ir::Type::Tensor(acc_type, rt.dims);
  acc->def = &op;
  std::unique_ptr<ir::Value> result = std::move(op.results[0]);
  op.results[0] = std::move(acc);
  std::vector<std::unique_ptr<ir::Operation>> after;
  IrBuilder a(op, block, &after);
  ir::Value* v = op.result();
  if (int8) {
    if (!corr.empty()) {
      ir::Attribute c;
      c.kind = ir::Attribute::Kind::kDense;
      c.type = ir::Type::Tensor(ElementType::kSI32, corr_dims);
      c.dense_bytes.resize(corr.size() * 4);
      std::memcpy(c.dense_bytes.data(), corr.data(), c.dense_bytes.size());
      ir::Value* k = a.Op(ScalarOpName(ScalarOp::kConstant), {}, ir::Type::Tensor(ElementType::kSI32, corr_dims));
      k->def->attrs.emplace_back("value", std::move(c));
      v = a.Op(ScalarOpName(ScalarOp::kSubtract), {v, a.Broadcast(k, corr_map, rt.dims)}, v->type);
    }
    // The spec's quantize clamps to the storage range; the full i32 range
    // needs no clamp.
    if (rt.quant->storage_min > INT32_MIN || rt.quant->storage_max < INT32_MAX)
      v = a.Op(ScalarOpName(ScalarOp::kClamp),
               {I32(a, static_cast<int32_t>(rt.quant->storage_min)), v, I32(a, static_cast<int32_t>(rt.quant->storage_max))},
               v->type);
  } else {
    // The spec's quantize clamps to the storage range (rank-0 bounds, as
    // clamp allows); the clamped sum is an integer the storage type holds.
    v = a.Op(ScalarOpName(ScalarOp::kClamp), {F64(a, rt.quant->storage_min), v, F64(a, rt.quant->storage_max)},
             v->type);
    v = a.Op(convert, {v}, ir::Type::Tensor(rt.element, rt.dims));
  }
  auto back = std::make_unique<ir::Operation>();
  back->name = bitcast;
  back->loc = op.loc;
  back->parent = block;
  back->operands = {v};
  result->def = back.get();
  result->index = 0;
  back->results.push_back(std::move(result));
  after.push_back(std::move(back));
  const size_t n = before.size() + 1 + after.size();
  block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at) + 1, std::make_move_iterator(after.begin()),
                    std::make_move_iterator(after.end()));
  block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at), std::make_move_iterator(before.begin()),
                    std::make_move_iterator(before.end()));
  return n;
}

namespace {

// Erases `dead` from `block`; `*i`, the index of the op being looked at,
// stays on that op.
void EraseOp(ir::Block* block, const ir::Operation* dead, size_t* i) {
  for (size_t k = 0; k < block->ops.size(); ++k)
    if (block->ops[k].get() == dead) {
      block->ops.erase(block->ops.begin() + static_cast<std::ptrdiff_t>(k));
      if (k <= *i) --*i;
      return;
    }
}

// Uses of `v` in `block`'s ops and their regions, recursively.
int CountUses(const ir::Block& block, const ir::Value* v) {
  int n = 0;
  for (const auto& op : block.ops) {
    n += static_cast<int>(std::count(op->operands.begin(), op->operands.end(), v));
    for (const auto& region : op->regions)
      for (const auto& b : region->blocks) n += CountUses(*b, v);
  }
  return n;
}

}  // namespace

void FoldZeroPointCorrections(ir::Block* block) {
  // The function's top block holds every use of its values (regions nested
  // in its ops included).
  const ir::Block* top = block;
  while (top->parent != nullptr && top->parent->parent != nullptr && top->parent->parent->parent != nullptr)
    top = top->parent->parent->parent;
  for (size_t i = 0; i < block->ops.size(); ++i) {
    ir::Operation& q = *block->ops[i];
    if (!op_names::IsKernelOp(q.name, KernelId::kUniformQuantize) || q.operands.size() != 1) continue;
    ir::Value* cast = q.operands[0];
    const ir::Type& ct = cast->type;
    if (!ct.is_quantized() || ct.element != ElementType::kSI32 || cast->def == nullptr ||
        !op_names::IsKernelOp(cast->def->name, KernelId::kBitcastConvert) || cast->def->operands.size() != 1)
      continue;
    ir::Value* diff = cast->def->operands[0];
    ir::Operation* sub = diff->def;
    if (sub == nullptr || sub->name != ScalarOpName(ScalarOp::kSubtract) || sub->operands.size() != 2 ||
        diff->type.element != ElementType::kSI32 || diff->type.is_quantized())
      continue;
    ir::Value* corr = sub->operands[1];
    ir::Operation* bcast = corr->def;
    if (bcast == nullptr || !op_names::IsKernelOp(bcast->name, KernelId::kBroadcastInDim) || bcast->operands.size() != 1)
      continue;
    const std::vector<int64_t> map = IntsAttr(*bcast, "broadcast_dimensions");
    ir::Value* sums = bcast->operands[0];
    const ir::Attribute* value = sums->def != nullptr && op_names::IsConstant(sums->def->name) ? sums->def->GetAttr("value") : nullptr;
    if (map.size() != 1 || value == nullptr || value->kind != ir::Attribute::Kind::kDense || sums->type.rank() != 1 ||
        sums->type.element != ElementType::kSI32)
      continue;
    const int64_t axis = map[0], channels = sums->type.dims[0];
    const ir::QuantType& qt = *ct.quant;
    const bool zero = std::all_of(qt.zero_points.begin(), qt.zero_points.end(), [](int64_t z) { return z == 0; });
    if (!zero || axis < 0 || axis >= ct.rank() || ct.dims[axis] != channels ||
        (qt.quantized_dimension >= 0 && qt.quantized_dimension != axis) || qt.storage_min != INT32_MIN ||
        qt.storage_max != INT32_MAX || CountUses(*top, diff) != 1 || CountUses(*top, cast) != 1)
      continue;
    const std::vector<uint8_t> bytes = value->ExpandedDenseBytes();
    if (bytes.size() != static_cast<size_t>(channels) * 4) continue;
    // The accumulators with the correction as per-feature zero points.
    auto folded = std::make_shared<ir::QuantType>(qt);
    folded->quantized_dimension = static_cast<int32_t>(axis);
    if (qt.quantized_dimension < 0) folded->scales.assign(static_cast<size_t>(channels), qt.scales[0]);
    folded->zero_points.resize(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) {
      int32_t z;
      std::memcpy(&z, bytes.data() + 4 * c, 4);
      folded->zero_points[static_cast<size_t>(c)] = z;
    }
    cast->type.quant = folded;
    cast->def->operands[0] = sub->operands[0];
    // The subtract, and the broadcast and constant when nothing else reads them
    // (all before the quantize).
    EraseOp(block, sub, &i);
    if (CountUses(*top, corr) == 0) {
      EraseOp(block, bcast, &i);
      if (CountUses(*top, sums) == 0) EraseOp(block, sums->def, &i);
    }
  }
}

namespace {

bool FloatExpressed(const ir::Type& t) { return t.is_quantized() && t.quant->expressed == ElementType::kF32; }

void FuseRequantizeInBlock(ir::Block* block, const ir::Block& top) {
  for (size_t i = 0; i < block->ops.size(); ++i) {
    ir::Operation& op = *block->ops[i];
    for (auto& region : op.regions)
      for (auto& b : region->blocks) FuseRequantizeInBlock(b.get(), top);
  }
  for (size_t i = 0; i < block->ops.size(); ++i) {
    ir::Operation& q = *block->ops[i];
    if (!op_names::IsKernelOp(q.name, KernelId::kUniformQuantize) || q.operands.size() != 1 || q.results.size() != 1)
      continue;
    const ir::Type& qt = q.result()->type;
    ir::Value* cast = q.operands[0];
    ir::Operation* bitcast = cast->def;
    if (!FloatExpressed(qt) || !ByteStorage(qt.element) || !FloatExpressed(cast->type) ||
        cast->type.element != ElementType::kSI32 || bitcast == nullptr || bitcast->parent != block ||
        !op_names::IsKernelOp(bitcast->name, KernelId::kBitcastConvert) || bitcast->operands.size() != 1)
      continue;
    ir::Value* acc = bitcast->operands[0];
    ir::Operation* product = acc->def;
    if (product == nullptr || product->parent != block || product->results.size() != 1 ||
        !(op_names::IsKernelOp(product->name, KernelId::kDotGeneral) ||
          op_names::IsKernelOp(product->name, KernelId::kConvolution)) ||
        product->operands.size() != 2 || acc->type.is_quantized() || acc->type.element != ElementType::kSI32 ||
        !ByteStorage(product->operands[0]->type.element) || !ByteStorage(product->operands[1]->type.element) ||
        product->operands[0]->type.is_quantized() || product->operands[1]->type.is_quantized() ||
        product->GetAttr("product_type") != nullptr || CountUses(top, acc) != 1 || CountUses(top, cast) != 1)
      continue;
    ir::Attribute type_attr;
    type_attr.kind = ir::Attribute::Kind::kType;
    type_attr.type = cast->type;
    product->attrs.emplace_back("product_type", std::move(type_attr));
    // The requantize's result value (its uses unchanged) becomes the
    // product's; the bitcast and the uniform_quantize go.
    std::unique_ptr<ir::Value> result = std::move(q.results[0]);
    result->def = product;
    result->index = 0;
    product->results[0] = std::move(result);
    EraseOp(block, bitcast, &i);
    EraseOp(block, &q, &i);
  }
}

// The stored value of an 8-bit scalar constant, or false.
bool ScalarByteConstant(const ir::Value* v, int64_t* value) {
  const ir::Operation* def = v->def;
  if (def == nullptr || !op_names::IsConstant(def->name) || v->type.rank() != 0 || !ByteStorage(v->type.element) ||
      v->type.is_quantized())
    return false;
  const ir::Attribute* a = def->GetAttr("value");
  if (a == nullptr || a->kind != ir::Attribute::Kind::kDense) return false;
  const std::vector<uint8_t> bytes = a->ExpandedDenseBytes();
  if (bytes.size() != 1) return false;
  *value = v->type.element == ElementType::kSI8 ? static_cast<int64_t>(static_cast<int8_t>(bytes[0])) : bytes[0];
  return true;
}

void FoldPadsInBlock(ir::Block* block, const ir::Block& top) {
  for (size_t i = 0; i < block->ops.size(); ++i) {
    ir::Operation& op = *block->ops[i];
    for (auto& region : op.regions)
      for (auto& b : region->blocks) FoldPadsInBlock(b.get(), top);
  }
  for (size_t i = 0; i < block->ops.size(); ++i) {
    ir::Operation& conv = *block->ops[i];
    if (!op_names::IsKernelOp(conv.name, KernelId::kConvolution) || conv.operands.size() != 2 || conv.results.size() != 1)
      continue;
    ir::Value* padded = conv.operands[0];
    ir::Operation* pad = padded->def;
    const ir::Type& l = padded->type;
    if (pad == nullptr || pad->parent != block || !op_names::IsKernelOp(pad->name, KernelId::kPad) ||
        pad->operands.size() != 2 || l.is_quantized() || !ByteStorage(l.element) ||
        conv.operands[1]->type.is_quantized() || !ByteStorage(conv.operands[1]->type.element) ||
        (conv.result()->type.is_quantized() && conv.GetAttr("product_type") == nullptr) ||
        conv.GetAttr("padding_value") != nullptr || CountUses(top, padded) != 1)
      continue;
    int64_t z = 0;
    if (!ScalarByteConstant(pad->operands[1], &z)) continue;
    const std::vector<int64_t> lo = IntsAttr(*pad, "edge_padding_low"), hi = IntsAttr(*pad, "edge_padding_high"),
                               interior = IntsAttr(*pad, "interior_padding");
    const std::vector<int64_t> isp = IntsAttr(conv, "input_spatial_dimensions");
    const size_t rank = static_cast<size_t>(l.rank()), ns = rank >= 2 ? rank - 2 : 0;
    std::vector<int64_t> padding = IntsAttr(conv, "padding"), lhs_dil = IntsAttr(conv, "lhs_dilation");
    if (padding.empty()) padding.assign(2 * ns, 0);
    if (lhs_dil.empty()) lhs_dil.assign(ns, 1);
    if (lo.size() != rank || hi.size() != rank || interior.size() != rank || isp.size() != ns ||
        padding.size() != 2 * ns || lhs_dil.size() != ns)
      continue;
    // Only the spatial dims padded, at their edges, into a convolution
    // without padding or lhs dilation of its own.
    bool ok = std::all_of(padding.begin(), padding.end(), [](int64_t v) { return v == 0; }) &&
              std::all_of(lhs_dil.begin(), lhs_dil.end(), [](int64_t v) { return v == 1; }) &&
              std::all_of(interior.begin(), interior.end(), [](int64_t v) { return v == 0; });
    std::vector<bool> spatial(rank, false);
    for (int64_t d : isp) ok = ok && d >= 0 && d < static_cast<int64_t>(rank) && (spatial[d] = true);
    for (size_t d = 0; d < rank && ok; ++d) ok = lo[d] >= 0 && hi[d] >= 0 && (spatial[d] || (lo[d] == 0 && hi[d] == 0));
    if (!ok) continue;
    for (size_t sd = 0; sd < ns; ++sd) padding[2 * sd] = lo[isp[sd]], padding[2 * sd + 1] = hi[isp[sd]];
    ir::Attribute pa;
    pa.kind = ir::Attribute::Kind::kDense;
    pa.type = ir::Type::Tensor(ElementType::kSI64, {static_cast<int64_t>(ns), 2});
    pa.dense_bytes.resize(padding.size() * 8);
    std::memcpy(pa.dense_bytes.data(), padding.data(), pa.dense_bytes.size());
    conv.SetAttr("padding", std::move(pa));
    ir::Attribute pv;
    pv.kind = ir::Attribute::Kind::kInt;
    pv.type.element = ElementType::kSI64;
    pv.i = z;
    conv.SetAttr("padding_value", std::move(pv));
    conv.operands[0] = pad->operands[0];
    ir::Value* value = pad->operands[1];
    EraseOp(block, pad, &i);
    if (value->def != nullptr && value->def->parent == block && CountUses(top, value) == 0)
      EraseOp(block, value->def, &i);
  }
}

}  // namespace

void FuseRequantizeIntoContractions(ir::Module* module) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) FuseRequantizeInBlock(b.get(), *b);
}

void FoldZeroPointPadsIntoConvolutions(ir::Module* module) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) FoldPadsInBlock(b.get(), *b);
}

}  // namespace kiln::compiler

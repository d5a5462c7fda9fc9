// Fast stablehlo.sort for comparators that compare one key per element
// (and chlo.top_k, at the end):
// the comparator's result is compare(key(x_i), key(y_i)) for one operand i,
// where key is the same expression of x_i as of y_i (a plain `x < y`, or
// JAX's total-order key: -0 folded to +0, NaNs made one NaN, the bits
// flipped into a signed integer). The key of every element is computed
// once, by the CPU elementwise kernel over the whole operand (instead of
// twice per comparison by the scalar interpreter), then each slice's
// permutation is sorted on native keys and applied to every operand.
//
// The permutation is the reference's (kernels/reference/numeric_sort.cc):
// a strict weak ordering (integer and total-order keys, and IEEE keys
// without NaN, compared by < or >) has a single stable order, the order of
// (key, index) pairs, which std::sort finds; any other comparison (NaNs,
// <=, ==, ...) runs the reference's merge sort on the same keys. Every
// other comparator runs the reference kernel.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "kernels/common/parallel.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cpu/registry.h"
#include "kernels/reference/merge_sort.h"
#include "kernels/reference/registry.h"
#include "kernels/reference/tensor_index.h"
#include "kernels/scalar/scalar.h"

namespace kiln::cpu {
namespace {

// A comparator of the key form.
struct KeyComparator {
  size_t operand = 0;           // the operand whose elements the key is computed from
  ScalarProgram key;            // one param (that operand's element) -> the key; no instrs: the element itself
  ComparisonDirection dir = ComparisonDirection::kLT;
  ComparisonType ctype = ComparisonType::kSigned;  // resolved as the reference resolves it
  ElementType key_type = ElementType::kInvalid;
};

// The params each value depends on, as bit masks (programs of more than
// 64 params never match): one pass in value order, since an instruction
// reads only values defined before it (no recursion a long chain could
// overflow the stack with).
struct DepsMemo {
  std::vector<uint64_t> deps;
  explicit DepsMemo(const ScalarProgram& p) : deps(p.num_values(), 0) {
    const size_t np = p.param_types.size();
    for (size_t v = 0; v < np; ++v) deps[v] = uint64_t{1} << v;
    for (size_t v = np; v < p.num_values(); ++v) {
      const ScalarInstr& in = p.instrs[v - np];
      for (uint8_t k = 0; k < in.num_operands; ++k) deps[v] |= deps[in.operands[k]];
    }
  }
  uint64_t operator()(const ScalarProgram&, uint16_t v) const { return deps[v]; }
};

// Whether a (an expression of param x) and b (of param y) are the same
// expression. `budget` bounds the walk over a DAG with shared nodes.
bool SameExpression(const ScalarProgram& p, uint16_t a, uint16_t b, uint16_t x, uint16_t y, const DepsMemo& deps,
                    int& budget) {
  if (--budget < 0) return false;
  const size_t np = p.param_types.size();
  if (a == x || b == y) return a == x && b == y;
  if (a < np || b < np) return false;  // another param
  if (a == b) return deps(p, a) == 0;  // a shared constant expression
  const ScalarInstr& ia = p.instrs[a - np];
  const ScalarInstr& ib = p.instrs[b - np];
  if (ia.op != ib.op || ia.type != ib.type || ia.num_operands != ib.num_operands || ia.attr0 != ib.attr0 ||
      ia.attr1 != ib.attr1)
    return false;
  if (ia.op == ScalarOp::kConstant) {
    return std::memcmp(&ia.constant.i, &ib.constant.i, sizeof(int64_t)) == 0 &&
           std::bit_cast<uint64_t>(ia.constant.re) == std::bit_cast<uint64_t>(ib.constant.re) &&
           std::bit_cast<uint64_t>(ia.constant.im) == std::bit_cast<uint64_t>(ib.constant.im);
  }
  for (uint8_t k = 0; k < ia.num_operands; ++k)
    if (!SameExpression(p, ia.operands[k], ib.operands[k], x, y, deps, budget)) return false;
  return true;
}

// The key program: the instructions value a depends on, over one param
// (param x renumbered 0).
ScalarProgram KeyProgram(const ScalarProgram& p, uint16_t a, uint16_t x) {
  const size_t np = p.param_types.size();
  ScalarProgram key;
  key.param_types = {p.param_types[x]};
  if (a == x) {
    key.results = {0};
    return key;
  }
  std::vector<bool> need(p.num_values(), false);
  need[a] = true;
  for (size_t v = p.num_values(); v-- > np;) {
    if (!need[v]) continue;
    const ScalarInstr& in = p.instrs[v - np];
    for (uint8_t k = 0; k < in.num_operands; ++k) need[in.operands[k]] = true;
  }
  std::vector<uint16_t> map(p.num_values(), 0);
  map[x] = 0;
  for (size_t v = np; v < p.num_values(); ++v) {
    if (!need[v]) continue;
    ScalarInstr in = p.instrs[v - np];
    for (uint8_t k = 0; k < in.num_operands; ++k) in.operands[k] = map[in.operands[k]];
    map[v] = static_cast<uint16_t>(1 + key.instrs.size());
    key.instrs.push_back(in);
  }
  key.results = {map[a]};
  return key;
}

bool MatchKeyComparator(const ScalarProgram& cmp, KeyComparator* kc) {
  const size_t np = cmp.param_types.size();
  if (np == 0 || np % 2 != 0 || np > 64 || cmp.results.size() != 1 || cmp.results[0] < np ||
      !ref::VerifyScalarProgram(cmp).ok())  // operands before their uses, in range
    return false;
  const ScalarInstr& c = cmp.instrs[cmp.results[0] - np];
  if (c.op != ScalarOp::kCompare || c.num_operands != 2 || c.attr0 < 0 || c.attr0 > 5) return false;
  const DepsMemo deps(cmp);
  const uint16_t a = c.operands[0], b = c.operands[1];
  const uint64_t da = deps(cmp, a), db = deps(cmp, b);
  if (std::popcount(da) != 1 || std::popcount(db) != 1) return false;
  const uint16_t x = static_cast<uint16_t>(std::countr_zero(da)), y = static_cast<uint16_t>(std::countr_zero(db));
  if (x % 2 != 0 || y != x + 1) return false;  // lhs_i and rhs_i of one operand
  int budget = 1024;  // comparators of this form have tens of nodes
  if (!SameExpression(cmp, a, b, x, y, deps, budget)) return false;
  const ElementType t = cmp.ValueType(a);
  if (IsComplex(t) || t == ElementType::kInvalid) return false;
  kc->operand = x / 2;
  kc->key = KeyProgram(cmp, a, x);
  kc->dir = static_cast<ComparisonDirection>(c.attr0);
  kc->key_type = t;
  auto ct = static_cast<ComparisonType>(c.attr1);
  if (IsFloat(t)) {
    if (ct != ComparisonType::kTotalOrder) ct = ComparisonType::kFloat;
  } else if (ct != ComparisonType::kSigned && ct != ComparisonType::kUnsigned) {
    ct = KindOf(t) == ElementKind::kUnsigned || IsBool(t) ? ComparisonType::kUnsigned : ComparisonType::kSigned;
  }
  kc->ctype = ct;
  return true;
}

// The keys of one slice as values whose native order is the comparison's:
// IEEE doubles (FLOAT), or 64-bit integers (SIGNED, and TOTALORDER through
// the reference's total-order key), or unsigned ones.
template <typename K>
K NativeKey(const KeyComparator& kc, const Scalar& s) {
  if constexpr (std::is_same_v<K, double>) {
    return s.re;
  } else if constexpr (std::is_same_v<K, int64_t>) {
    if (kc.ctype == ComparisonType::kTotalOrder) return ref::TotalOrderKey(s.re);
    const int w = BitWidth(kc.key_type);
    if (w >= 64) return s.i;
    const int sh = 64 - w;
    return static_cast<int64_t>(static_cast<uint64_t>(s.i) << sh) >> sh;
  } else {
    const int w = BitWidth(kc.key_type);
    return static_cast<uint64_t>(s.i) & (w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1);
  }
}

struct SortScratch {
  std::vector<int64_t> perm, tmp;
  std::vector<uint8_t> slice;
  std::vector<double> fkeys;
  std::vector<int64_t> skeys;
  std::vector<uint64_t> ukeys;
};

// Sorts perm[0..len) by the keys (native order, direction d) as the
// reference's merge sort would.
template <typename K>
void SortSlice(ComparisonDirection d, const std::vector<K>& keys, SortScratch& s) {
  bool strict = d == ComparisonDirection::kLT || d == ComparisonDirection::kGT;
  if constexpr (std::is_same_v<K, double>) {
    for (double k : keys) strict = strict && !std::isnan(k);
  }
  if (strict) {
    // The stable order is the order of (key, index) pairs, which any sort
    // finds: sorted as pairs, each key next to its index.
    thread_local std::vector<std::pair<K, int64_t>> pairs;
    pairs.resize(keys.size());
    for (size_t j = 0; j < keys.size(); ++j) pairs[j] = {keys[j], static_cast<int64_t>(j)};
    if (d == ComparisonDirection::kLT) {
      std::sort(pairs.begin(), pairs.end());
    } else {
      std::sort(pairs.begin(), pairs.end(), [](const std::pair<K, int64_t>& a, const std::pair<K, int64_t>& b) {
        return a.first > b.first || (a.first == b.first && a.second < b.second);
      });
    }
    for (size_t j = 0; j < keys.size(); ++j) s.perm[j] = pairs[j].second;
    return;
  }
  ref::MergeSort(s.perm, s.tmp, [&](int64_t a, int64_t b) { return ref::ApplyDirection(d, keys[a], keys[b]); });
}

}  // namespace

bool SortApplies(const KernelParams& params) {
  const ScalarProgram* cmp = params.Program("comparator");
  KeyComparator kc;
  return cmp != nullptr && MatchKeyComparator(*cmp, &kc);
}

Status Sort(const KernelCall& call) {
  const KernelFn reference = ref::FindReferenceKernel(call.params.kernel);
  const ScalarProgram* cmp = call.params.Program("comparator");
  KeyComparator kc;
  const size_t num = call.inputs.size();
  if (cmp == nullptr || !MatchKeyComparator(*cmp, &kc) || num == 0 || call.outputs.size() != num ||
      cmp->param_types.size() != 2 * num)
    return reference(call);
  const TensorRef& in0 = call.inputs[0];
  int64_t dim = call.params.Int("dimension", -1);
  if (dim < 0) dim += in0.rank();
  bool ok = dim >= 0 && dim < in0.rank();
  for (size_t i = 0; ok && i < num; ++i) {
    const TensorRef& in = call.inputs[i];
    const TensorRef& out = call.outputs[i];
    ok = std::equal(in.dims.begin(), in.dims.end(), in0.dims.begin(), in0.dims.end()) &&
         std::equal(out.dims.begin(), out.dims.end(), in0.dims.begin(), in0.dims.end()) && out.type == in.type &&
         cmp->param_types[2 * i] == in.type && cmp->param_types[2 * i + 1] == in.type &&
         in.byte_size >= static_cast<size_t>(in.NumElements()) * StorageBytes(in.type) &&
         out.byte_size >= static_cast<size_t>(out.NumElements()) * StorageBytes(out.type);
  }
  if (!ok) return reference(call);  // its error message
  const int64_t n = in0.NumElements();
  if (n == 0) return Status::Ok();

  // The keys of the whole operand, by the elementwise kernel.
  const TensorRef& src = call.inputs[kc.operand];
  std::vector<uint8_t> key_bytes;
  TensorRef keys = src;
  if (!kc.key.instrs.empty()) {
    key_bytes.resize(static_cast<size_t>(n) * StorageBytes(kc.key_type));
    keys.type = kc.key_type;
    keys.data = key_bytes.data();
    keys.byte_size = key_bytes.size();
    keys.constant_id = 0;
    KernelAttr body;
    body.name = "body";
    body.has_program = true;
    body.program = kc.key;
    const KernelParams ep{"kiln.elementwise", {std::move(body)}};
    KernelFn fn = FindCpuKernel(ep);
    if (fn == nullptr) fn = ref::FindReferenceKernel(ep.kernel);
    if (fn == nullptr) return reference(call);
    const TensorRef ins[1] = {src};
    const TensorRef outs[1] = {keys};
    KILN_RETURN_IF_ERROR(fn(KernelCall{ep, ins, outs, call.runner}));
  }

  const int64_t len = in0.dims[dim];
  const auto strides = ref::RowMajorStrides(in0.dims);
  const int64_t stride = strides[dim];
  const int64_t slices = len == 0 ? 0 : n / len;
  const size_t kb = StorageBytes(kc.key_type);
  const bool ieee = IsFloat(kc.key_type) && kc.ctype == ComparisonType::kFloat;
  const bool is_signed = !ieee && (kc.ctype == ComparisonType::kSigned || kc.ctype == ComparisonType::kTotalOrder);
  // Slice s starts at (s / stride) * len * stride + s % stride.
  std::vector<SortScratch> scratch(static_cast<size_t>(NumWorkers(call.runner)));
  const int64_t per_task = std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(1, len));
  const int64_t tasks = (slices + per_task - 1) / per_task;
  ParallelFor(call.runner, tasks, [&](int64_t task, int worker) {
    SortScratch& s = scratch[static_cast<size_t>(worker)];
    for (int64_t sl = task * per_task; sl < std::min(slices, (task + 1) * per_task); ++sl) {
      const int64_t base = (sl / stride) * len * stride + sl % stride;
      s.perm.resize(static_cast<size_t>(len));
      for (int64_t j = 0; j < len; ++j) s.perm[j] = j;
      auto load = [&](int64_t j) { return ref::LoadScalar(kc.key_type, keys.data + (base + j * stride) * kb); };
      if (ieee) {
        s.fkeys.resize(static_cast<size_t>(len));
        for (int64_t j = 0; j < len; ++j) s.fkeys[j] = NativeKey<double>(kc, load(j));
        SortSlice(kc.dir, s.fkeys, s);
      } else if (is_signed) {
        s.skeys.resize(static_cast<size_t>(len));
        for (int64_t j = 0; j < len; ++j) s.skeys[j] = NativeKey<int64_t>(kc, load(j));
        SortSlice(kc.dir, s.skeys, s);
      } else {
        s.ukeys.resize(static_cast<size_t>(len));
        for (int64_t j = 0; j < len; ++j) s.ukeys[j] = NativeKey<uint64_t>(kc, load(j));
        SortSlice(kc.dir, s.ukeys, s);
      }
      for (size_t i = 0; i < num; ++i) {
        const TensorRef& in = call.inputs[i];
        const TensorRef& out = call.outputs[i];
        const size_t eb = StorageBytes(in.type);
        // Results may alias inputs: read the slice before writing it.
        s.slice.resize(static_cast<size_t>(len) * eb);
        for (int64_t j = 0; j < len; ++j) std::memcpy(&s.slice[j * eb], in.data + (base + j * stride) * eb, eb);
        for (int64_t j = 0; j < len; ++j) std::memcpy(out.data + (base + j * stride) * eb, &s.slice[s.perm[j] * eb], eb);
      }
    }
  });
  return Status::Ok();
}

// chlo.top_k along the last axis: per row the k largest values, largest
// first, equal ones in index order (floats in the total order: +NaN above
// +inf, -0 below +0), as the reference's merge sort by `>` leaves them:
// the first k of the (key descending, index ascending) order, found by a
// partial sort. Rows spread over the pool. Anything the reference would
// refuse runs it, for its message.
Status TopK(const KernelCall& call) {
  const KernelFn reference = ref::FindReferenceKernel(call.params.kernel);
  if (call.inputs.size() != 1 || call.outputs.size() != 2) return reference(call);
  const TensorRef& in = call.inputs[0];
  const TensorRef& values = call.outputs[0];
  const TensorRef& indices = call.outputs[1];
  const int64_t rank = in.rank();
  const int64_t k = call.params.Int("k", -1);
  if (rank < 1 || values.type != in.type || IsComplex(in.type) || !IsInteger(indices.type) || k < 0 ||
      k > in.dims[rank - 1] || in.byte_size < static_cast<size_t>(in.NumElements()) * StorageBytes(in.type))
    return reference(call);
  for (const TensorRef* out : {&values, &indices})
    if (out->rank() != rank || !std::equal(in.dims.begin(), in.dims.end() - 1, out->dims.begin()) ||
        out->dims[rank - 1] != k || out->byte_size < static_cast<size_t>(out->NumElements()) * StorageBytes(out->type))
      return reference(call);
  const int64_t n = in.dims[rank - 1];
  const int64_t rows = n == 0 ? 0 : in.NumElements() / n;
  if (rows == 0 || k == 0) return Status::Ok();
  KeyComparator kc;  // the reference's `>`: total order for floats, by signedness for integers
  kc.key_type = in.type;
  kc.ctype = IsFloat(in.type) ? ComparisonType::kTotalOrder
                              : (KindOf(in.type) == ElementKind::kSigned ? ComparisonType::kSigned
                                                                         : ComparisonType::kUnsigned);
  const bool is_signed = kc.ctype != ComparisonType::kUnsigned;
  const size_t eb = StorageBytes(in.type), ib = StorageBytes(indices.type);
  const int64_t per_task = std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(1, n));
  // f32 rows (of fewer than 2^32 elements): the order key and the index in
  // one 64-bit word, the key from the bits (a NaN quieted first, as the
  // reference's widening to f64 does, so NaNs order as there), the index
  // complemented so that the larger word is the earlier index: the k
  // largest words, sorted.
  const bool packed = in.type == ElementType::kF32 && n < (int64_t{1} << 32);
  ParallelFor(call.runner, (rows + per_task - 1) / per_task, [&](int64_t task, int) {
    thread_local std::vector<std::pair<uint64_t, int64_t>> pairs;  // (order key, index)
    thread_local std::vector<uint64_t> words;
    for (int64_t r = task * per_task; r < std::min(rows, (task + 1) * per_task); ++r) {
      const uint8_t* row = in.data + r * n * eb;
      if (packed) {
        // One pass keeps the words above a threshold (no word is 0: the
        // index complement is >= 1); when 4k + 64 have gathered, the k
        // largest stay and the smallest of them becomes the threshold, so on
        // most rows few words pass the (well predicted) test.
        const size_t cap = 4 * static_cast<size_t>(k) + 64;
        words.clear();
        uint64_t threshold = 0;
        for (int64_t j = 0; j < n; ++j) {
          uint32_t b;
          std::memcpy(&b, row + j * 4, 4);
          if ((b & 0x7fffffffu) > 0x7f800000u) b |= 0x00400000u;  // quiet a NaN
          const uint32_t key = (b >> 31) ? ~b : (b | 0x80000000u);
          const uint64_t word = (static_cast<uint64_t>(key) << 32) | (0xffffffffu - static_cast<uint32_t>(j));
          if (word <= threshold) continue;
          words.push_back(word);
          if (words.size() == cap) {
            std::nth_element(words.begin(), words.begin() + (k - 1), words.end(), std::greater<uint64_t>());
            words.resize(static_cast<size_t>(k));
            threshold = words[k - 1];
          }
        }
        std::nth_element(words.begin(), words.begin() + (k - 1), words.end(), std::greater<uint64_t>());
        std::sort(words.begin(), words.begin() + k, std::greater<uint64_t>());
        for (int64_t j = 0; j < k; ++j) {
          const int64_t src = 0xffffffffu - static_cast<uint32_t>(words[j]);
          std::memcpy(values.data + (r * k + j) * eb, row + src * eb, eb);
          Scalar idx;
          idx.i = src;
          ref::StoreScalar(indices.type, ref::ConvertScalar(ElementType::kSI64, indices.type, idx),
                           indices.data + (r * k + j) * ib);
        }
        continue;
      }
      pairs.resize(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j) {
        const Scalar v = ref::LoadScalar(in.type, row + j * eb);
        // As unsigned: a signed key with its sign bit flipped keeps its order.
        const uint64_t key = is_signed ? static_cast<uint64_t>(NativeKey<int64_t>(kc, v)) ^ (uint64_t{1} << 63)
                                       : NativeKey<uint64_t>(kc, v);
        pairs[j] = {key, j};
      }
      std::partial_sort(pairs.begin(), pairs.begin() + k, pairs.end(),
                        [](const std::pair<uint64_t, int64_t>& a, const std::pair<uint64_t, int64_t>& b) {
                          return a.first > b.first || (a.first == b.first && a.second < b.second);
                        });
      for (int64_t j = 0; j < k; ++j) {
        const int64_t src = pairs[j].second;
        std::memcpy(values.data + (r * k + j) * eb, row + src * eb, eb);
        Scalar idx;
        idx.i = src;
        ref::StoreScalar(indices.type, ref::ConvertScalar(ElementType::kSI64, indices.type, idx),
                         indices.data + (r * k + j) * ib);
      }
    }
  });
  return Status::Ok();
}

}  // namespace kiln::cpu

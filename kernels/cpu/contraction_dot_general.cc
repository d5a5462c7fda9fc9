// Fast stablehlo.dot_general / stablehlo.dot for f32 and f64 results: the adapter
// from a dot_general's dimension numbers to the GEMM engine (gemm.h, gemm.cc).
//
// Every dot_general is normalised to a batched GEMM
//   C[b][i][j] = sum_p A[b][i][p] * B[b][p][j]
// where b runs over the batching dims, i over the lhs free dims, j over the
// rhs free dims and p over the contracting dims (each group row-major in the
// order the spec gives: result dims = batch, lhs free, rhs free, so C is the
// result tensor as stored). Each group becomes a table of element offsets
// into its operand, through which the engine gathers: nothing is transposed.
//
// Accumulation is in the element type (f32 sums in f32); the reference sums
// in double and rounds once, so results differ within rounding tolerance.
// f16 and bf16 operands of an f32 result (JAX's bf16 x bf16 -> f32 with
// preferred_element_type; the reference converts operands to the result
// type first) are widened to f32, exactly, into per-thread scratch and run
// the f32 GEMM; a constant B is widened only when its panels are packed.
#include <algorithm>
#include <memory>
#include <span>
#include <vector>

#include "hwy/aligned_allocator.h"
#include "kernels/common/kernel_selection.h"
#include "kernels/cpu/aligned_scratch.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/gemm_bf16.h"
#include "kernels/cpu/gemm_int8.h"
#include "kernels/cpu/half_float.h"
#include "kernels/scalar/scalar.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cpu/requantize.h"
#include "kernels/cpu/thread_scratch.h"
#include "kernels/reference/epilogue.h"

namespace kiln::cpu {
namespace {

// Whether an operand of type `operand` in a product of type `result` is
// widened to f32 first (f16 or bf16 into an f32 result). Not in selective
// builds (kernels/common/kernel_selection.h): they keep the reference for
// 16-bit operands, as for the converts (elementwise.cc), to stay small.
bool WidensToF32(ElementType operand, ElementType result) {
  return !KILN_SELECTIVE_BUILD && result == ElementType::kF32 &&
         (operand == ElementType::kF16 || operand == ElementType::kBF16);
}

// dst[i] = t's element i as f32 (t is f16 or bf16: exact).
void WidenOperand(const TensorRef& t, float* dst, TaskRunner* runner) {
  WidenToF32Parallel(reinterpret_cast<const uint16_t*>(t.data), t.type == ElementType::kBF16, t.NumElements(), dst,
                     runner);
}

// out's elements (f16 or bf16) from n f32 sums, rounded once.
void NarrowResult(const float* sums, int64_t n, const TensorRef& out, TaskRunner* runner) {
  NarrowFromF32Parallel(sums, out.type == ElementType::kBF16, n, reinterpret_cast<uint16_t*>(out.data), runner);
}

// The widened operands' per-thread scratch (thread_scratch.h).
struct WidenedLhsScratch;
struct WidenedRhsScratch;
// The f32 sums of a 16-bit result.
struct HalfResultScratch;

// Offsets of every index of the dims `axes` of a tensor (row-major over the
// axes in the given order).
std::vector<int64_t> Offsets(std::span<const int64_t> dims, const std::vector<int64_t>& strides,
                             std::span<const int64_t> axes) {
  int64_t count = 1;
  for (int64_t ax : axes) count *= dims[ax];
  std::vector<int64_t> out(static_cast<size_t>(count), 0);
  if (count == 0) return out;
  // Build by extending one axis at a time: out = sum over axes of idx * stride.
  int64_t filled = 1;
  for (int64_t ax : axes) {
    const int64_t d = dims[ax], s = strides[ax];
    // Expand: new[i*d + t] = old[i] + t*s, done back to front in place.
    for (int64_t i = filled; i-- > 0;) {
      const int64_t base = out[i];
      for (int64_t t = d; t-- > 0;) out[i * d + t] = base + t * s;
    }
    filled *= d;
  }
  return out;
}

int64_t Count(std::span<const int64_t> dims, std::span<const int64_t> axes) {
  int64_t count = 1;
  for (int64_t ax : axes) count *= dims[ax];
  return count;
}

// The step s where Offsets(dims, strides, axes)[q] == q * s for every q, or 0
// if there is none (or fewer than two offsets): the axes of size above 1,
// in order, each span exactly one step of the one before.
int64_t UniformStepOf(std::span<const int64_t> dims, const std::vector<int64_t>& strides,
                      std::span<const int64_t> axes) {
  int64_t step = 0, count = 1;
  for (int64_t ax : axes) {
    if (dims[ax] == 1) continue;
    if (count > 1 && step != strides[ax] * dims[ax]) return 0;
    step = strides[ax];
    count *= dims[ax];
  }
  return count > 1 ? step : 0;
}

bool Contiguous(const std::vector<int64_t>& off) {
  for (size_t i = 0; i < off.size(); ++i)
    if (off[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// Checks the axes are in range and distinct across both lists.
bool ValidAxes(std::span<const int64_t> x, std::span<const int64_t> y, int64_t rank, std::vector<bool>* seen) {
  seen->assign(static_cast<size_t>(rank), false);
  for (auto list : {x, y})
    for (int64_t ax : list) {
      if (ax < 0 || ax >= rank || (*seen)[ax]) return false;
      (*seen)[ax] = true;
    }
  return true;
}

// The GEMM problem of a call's shapes (offset tables, flags; no pointers),
// or false where the fast path does not take them. Reads no tensor data.
bool PlanDot(const KernelCall& call, std::span<const int64_t> lb, std::span<const int64_t> rb,
             std::span<const int64_t> lc, std::span<const int64_t> rc, GemmProblem* plan) {
  if (call.inputs.size() != 2 || call.outputs.size() != 1) return false;
  const TensorRef& lhs = call.inputs[0];
  const TensorRef& rhs = call.inputs[1];
  const TensorRef& out = call.outputs[0];
  const ElementType t = out.type;
  // i8/ui8 operands into an i32 result: the int8 GEMM (gemm_int8.h).
  const bool int8 = Int8GemmTypes(lhs.type, rhs.type, t);
  if (!int8 && t != ElementType::kF32 && t != ElementType::kF64) return false;
  auto operand_ok = [t](const TensorRef& x) { return StorageOk(x, t) || (WidensToF32(x.type, t) && StorageOk(x)); };
  if (int8 ? !StorageOk(lhs) || !StorageOk(rhs) || !StorageOk(out)
           : !operand_ok(lhs) || !operand_ok(rhs) || !StorageOk(out, t))
    return false;
  if (lb.size() != rb.size() || lc.size() != rc.size()) return false;
  std::vector<bool> lseen, rseen;
  if (!ValidAxes(lb, lc, lhs.rank(), &lseen) || !ValidAxes(rb, rc, rhs.rank(), &rseen)) return false;
  for (size_t i = 0; i < lb.size(); ++i)
    if (lhs.dims[lb[i]] != rhs.dims[rb[i]]) return false;
  for (size_t i = 0; i < lc.size(); ++i)
    if (lhs.dims[lc[i]] != rhs.dims[rc[i]]) return false;
  std::vector<int64_t> lfree, rfree, expected;
  for (int64_t d = 0; d < lhs.rank(); ++d)
    if (!lseen[d]) lfree.push_back(d);
  for (int64_t d = 0; d < rhs.rank(); ++d)
    if (!rseen[d]) rfree.push_back(d);
  for (int64_t d : lb) expected.push_back(lhs.dims[d]);
  for (int64_t d : lfree) expected.push_back(lhs.dims[d]);
  for (int64_t d : rfree) expected.push_back(rhs.dims[d]);
  if (!std::equal(expected.begin(), expected.end(), out.dims.begin(), out.dims.end())) return false;

  const auto ls = Strides(lhs.dims), rs = Strides(rhs.dims);
  GemmProblem& p = *plan;
  p.a_batch = Offsets(lhs.dims, ls, lb);
  p.a_m = Offsets(lhs.dims, ls, lfree);
  p.b_batch = Offsets(rhs.dims, rs, rb);
  p.b_n = Offsets(rhs.dims, rs, rfree);
  p.batch = static_cast<int64_t>(p.a_batch.size());
  p.m = static_cast<int64_t>(p.a_m.size());
  p.n = static_cast<int64_t>(p.b_n.size());
  p.k = Count(lhs.dims, lc);
  p.a_k_contiguous = UniformStepOf(lhs.dims, ls, lc) == 1 || p.k <= 1;
  p.b_k_step = UniformStepOf(rhs.dims, rs, rc);
  p.b_n_contiguous = Contiguous(p.b_n);
  // The row-streaming product of row-major operands reads neither
  // contraction table (GemvRows<true>); a small product skips building them
  // (they were a sixth of examples/mlp.mlir @main's time).
  // The int8 GEMM always packs through both tables.
  const bool tables_unused = !int8 && p.m <= kGemvRows && p.b_n_contiguous && p.a_k_contiguous && p.b_k_step != 0;
  if (!tables_unused) {
    p.a_k = Offsets(lhs.dims, ls, lc);
    p.b_k = Offsets(rhs.dims, rs, rc);
  }
  return true;
}

// A dot's plan for one signature of shapes (KernelState).
struct DotPlan : KernelPlan {
  bool fast = false;  // false: the reference runs these shapes
  bool empty = false; // an output without elements: nothing to do
  GemmProblem problem;
};

// A constant B packed whole (PackWholeB), kept across calls.
struct PackedBPlan : KernelPlan {
  hwy::AlignedFreeUniquePtr<uint8_t[]> data;
};

// The int8 GEMM of a planned problem (pointers set), with a constant B
// packed once into the current target's layout and kept, as for f32.
Status Int8Dot(const KernelCall& call, GemmProblem& p) {
  const TensorRef& lhs = call.inputs[0];
  const TensorRef& rhs = call.inputs[1];
  if (rhs.constant_id != 0 && call.state != nullptr) {
    PlanKey bkey(kPlanPackedBInt8);
    bkey.Add(static_cast<int64_t>(rhs.constant_id)).AddPointer(rhs.data).Add(Int8PackedLayout());
    AddShape(bkey, rhs);
    PlanLease<PackedBPlan> packed(call.state, bkey);
    if (packed.get() == nullptr) {
      auto b = std::make_unique<PackedBPlan>();
      b->bytes = PackedBBytesInt8(p);
      b->data = AllocateAlignedOrThrow<uint8_t>(std::max<size_t>(b->bytes, 64));
      PackWholeBInt8(p, rhs.type, b->data.get());
      packed.Set(std::move(b));
    }
    p.b_packed = packed.get()->data.get();
    RunGemmInt8(p, lhs.type, rhs.type);
    p.b_packed = nullptr;
    return Status::Ok();
  }
  RunGemmInt8(p, lhs.type, rhs.type);
  return Status::Ok();
}

// A constant bf16 B packed for the bf16 GEMM, or found to hold
// subnormals (then the f32 GEMM runs: gemm_bf16.h).
struct PackedBBf16Plan : KernelPlan {
  hwy::AlignedFreeUniquePtr<uint8_t[]> data;
  bool subnormals = false;
};

// Rows below which a bf16 product widens to f32 instead (the row-streaming
// products of a few rows read B once; the bf16 panels would repack it).
constexpr int64_t kBf16MinRows = 16;

// The bf16 GEMM of a planned problem whose operands are both bf16, into
// f32; false where it does not run (no AVX-512 BF16, few rows, an operand
// with subnormals, which vdpbf16ps would read as zero).
bool Bf16Dot(const KernelCall& call, GemmProblem& p) {
  const TensorRef& lhs = call.inputs[0];
  const TensorRef& rhs = call.inputs[1];
  if (!GemmBf16Available() || p.m < kBf16MinRows || p.k < 2 ||
      Bf16HasSubnormals(reinterpret_cast<const uint16_t*>(lhs.data), lhs.NumElements(), p.runner))
    return false;
  if (rhs.constant_id != 0 && call.state != nullptr) {
    PlanKey bkey(kPlanPackedBBf16);
    bkey.Add(static_cast<int64_t>(rhs.constant_id)).AddPointer(rhs.data);
    AddShape(bkey, rhs);
    PlanLease<PackedBBf16Plan> packed(call.state, bkey);
    if (packed.get() == nullptr) {
      auto b = std::make_unique<PackedBBf16Plan>();
      b->subnormals = Bf16HasSubnormals(reinterpret_cast<const uint16_t*>(rhs.data), rhs.NumElements());
      if (!b->subnormals) {
        b->bytes = PackedBBytesBf16(p);
        b->data = AllocateAlignedOrThrow<uint8_t>(std::max<size_t>(b->bytes, 64));
        PackWholeBBf16(p, b->data.get());
      }
      packed.Set(std::move(b));
    }
    if (packed.get()->subnormals) return false;
    p.b_packed = packed.get()->data.get();
    RunGemmBf16(p);
    p.b_packed = nullptr;
    return true;
  }
  if (Bf16HasSubnormals(reinterpret_cast<const uint16_t*>(rhs.data), rhs.NumElements(), p.runner)) return false;
  RunGemmBf16(p);
  return true;
}

// The f32/f64 product of a planned problem (pointers set). Weights packed
// once: B in a constant buffer (a module constant or a bound parameter,
// TensorRef::constant_id) is packed on the first call that needs it packed
// and the panels are reused by every later call, keyed on the buffer's id,
// its address and shape. prepare_b() runs before anything reads p.b (it
// widens a 16-bit B; a constant B already packed is not read at all).
template <class PrepareB>
Status RunFloatDot(const KernelCall& call, GemmProblem& p, ElementType t, const PrepareB& prepare_b) {
  const TensorRef& rhs = call.inputs[1];
  if (rhs.constant_id != 0 && call.state != nullptr && GemmPacksB(p)) {
    PlanKey bkey(kPlanPackedB);
    bkey.Add(static_cast<int64_t>(rhs.constant_id)).AddPointer(rhs.data).Add(static_cast<int64_t>(GemmPanelWidth(t)));
    AddShape(bkey, rhs);
    PlanLease<PackedBPlan> packed(call.state, bkey);
    if (packed.get() == nullptr) {
      prepare_b();
      auto b = std::make_unique<PackedBPlan>();
      b->bytes = PackedBElements(p, t) * StorageBytes(t);
      b->data = AllocateAlignedOrThrow<uint8_t>(std::max<size_t>(b->bytes, 64));
      PackWholeB(p, t, b->data.get());
      packed.Set(std::move(b));
    }
    p.b_packed = packed.get()->data.get();
    RunGemm(p, t);
    p.b_packed = nullptr;
    return Status::Ok();
  }
  prepare_b();
  RunGemm(p, t);
  return Status::Ok();
}

// The product of a planned problem (pointers set) into p.c, an f32 (or
// f64, integer) result of type t: int8, then the bf16 GEMM (`try_bf16`),
// then f32 with 16-bit operands widened.
Status RunProduct(const KernelCall& call, GemmProblem& p, ElementType t, bool try_bf16) {
  const TensorRef& lhs = call.inputs[0];
  const TensorRef& rhs = call.inputs[1];
  if (Int8GemmTypes(lhs.type, rhs.type, t)) return Int8Dot(call, p);
  if constexpr (!KILN_SELECTIVE_BUILD) {
    if (try_bf16 && lhs.type == ElementType::kBF16 && rhs.type == ElementType::kBF16 && t == ElementType::kF32 &&
        Bf16Dot(call, p))
      return Status::Ok();
    const bool widen_a = WidensToF32(lhs.type, t), widen_b = WidensToF32(rhs.type, t);
    if (widen_a || widen_b) {
      ScratchLease<WidenedLhsScratch, float> wide_a(widen_a ? static_cast<size_t>(lhs.NumElements()) : 0);
      if (widen_a) {
        WidenOperand(lhs, wide_a.get(), call.runner);
        p.a = wide_a.get();
      }
      // Batch-1 layers over 16-bit weights: the weights are read in place,
      // widened as they stream (half the bytes of f32 weights).
      if (widen_b && RunGemvHalfB(p, rhs.type)) return Status::Ok();
      ScratchLease<WidenedRhsScratch, float> wide_b(widen_b ? static_cast<size_t>(rhs.NumElements()) : 0);
      return RunFloatDot(call, p, t, [&] {
        if (!widen_b) return;
        WidenOperand(rhs, wide_b.get(), call.runner);
        p.b = wide_b.get();
      });
    }
  }
  return RunFloatDot(call, p, t, [] {});
}

// An f16/bf16 result (JAX's bf16 matmul), `half`, planned as an f32 one:
// the bf16 GEMM rounds its sums into it as the tiles finish; every other
// path sums into f32 scratch (f16/bf16 operands widened exactly, as for an
// f32 result), leased only then, and rounds to nearest even after. The
// reference sums in f64 and rounds once: the two differ by the f32 sum's
// error, within the bound the tests state.
Status RunHalfResult(const KernelCall& call, GemmProblem& p, const TensorRef& half) {
  if constexpr (!KILN_SELECTIVE_BUILD) {
    if (call.inputs[0].type == ElementType::kBF16 && call.inputs[1].type == ElementType::kBF16) {
      p.c = half.data;
      p.c_type = half.type;
      const bool ran = Bf16Dot(call, p);
      p.c_type = ElementType::kF32;  // (the problem is kept for later calls)
      if (ran) return Status::Ok();
    }
  }
  const int64_t n = half.NumElements();
  ScratchLease<HalfResultScratch, float> sums(static_cast<size_t>(n));
  p.c = sums.get();
  KILN_RETURN_IF_ERROR(RunProduct(call, p, ElementType::kF32, /*try_bf16=*/false));
  NarrowResult(sums.get(), n, half, call.runner);
  return Status::Ok();
}

// `half_out`: the 16-bit result an f32 `call.outputs[0]` stands for, or
// null (RunHalfResult).
Status FastDot(const KernelCall& call, std::span<const int64_t> lb, std::span<const int64_t> rb,
               std::span<const int64_t> lc, std::span<const int64_t> rc, const TensorRef* half_out = nullptr) {
  if (call.inputs.size() != 2 || call.outputs.size() != 1) return RunReference(call);
  if constexpr (!KILN_SELECTIVE_BUILD) {
    // A 16-bit result is planned as an f32 one, `o`, whose data pointer is
    // the 16-bit result's: nothing writes through it (RunHalfResult points
    // the product at the 16-bit result or at f32 scratch, and the
    // reference runs on the 16-bit result).
    const TensorRef& out = call.outputs[0];
    if ((out.type == ElementType::kF16 || out.type == ElementType::kBF16) && StorageOk(out)) {
      TensorRef o = out;
      o.type = ElementType::kF32;
      o.byte_size = static_cast<size_t>(out.NumElements()) * sizeof(float);
      return FastDot(KernelCall{call.params, call.inputs, std::span<const TensorRef>(&o, 1), call.runner,
                                call.without_epilogue, call.state},
                     lb, rb, lc, rc, &out);
    }
  }
  // The checks and offset tables depend on the shapes only: built on the
  // executable's first dispatch of these shapes, then reused.
  PlanKey key(kPlanDotGeneral);
  for (const TensorRef& t : call.inputs) AddShape(key, t);
  AddShape(key, call.outputs[0]);
  PlanLease<DotPlan> lease(call.state, key);
  if (lease.get() == nullptr) {
    auto plan = std::make_unique<DotPlan>();
    plan->fast = PlanDot(call, lb, rb, lc, rc, &plan->problem);
    plan->empty = plan->fast && call.outputs[0].NumElements() == 0;
    lease.Set(std::move(plan));
  }
  DotPlan& plan = *lease.get();
  if (!plan.fast) {
    if (half_out == nullptr) return RunReference(call);
    KernelCall ref = call;
    ref.outputs = std::span<const TensorRef>(half_out, 1);
    return RunReference(ref);
  }
  if (plan.empty) return Status::Ok();
  GemmProblem& p = plan.problem;
  p.a = call.inputs[0].data;
  p.b = call.inputs[1].data;
  p.c = call.outputs[0].data;
  p.runner = call.runner;
  p.b_packed = nullptr;
  if (half_out != nullptr) return RunHalfResult(call, p, *half_out);
  return RunProduct(call, p, call.outputs[0].type, /*try_bf16=*/true);
}

Status PlainDotGeneralProduct(const KernelCall& call) {
  const auto& p = call.params;
  return FastDot(call, p.Ints("lhs_batching_dimensions"), p.Ints("rhs_batching_dimensions"),
                 p.Ints("lhs_contracting_dimensions"), p.Ints("rhs_contracting_dimensions"));
}

// With a requantize fused into it (kernels/reference/epilogue.h), the
// product into scratch, then the fast requantize.
Status PlainDotGeneral(const KernelCall& call) {
  if (!ref::HasRequantize(call.params)) return PlainDotGeneralProduct(call);
  // A selective build (a deployment's minimal runtime) keeps the fast
  // requantize out: the preprocessor, so that nothing references it.
#if KILN_SELECTIVE_BUILD
  return ref::RunWithRequantize(call, &PlainDotGeneralProduct);
#else
  return RunRequantizing(call, &PlainDotGeneralProduct);
#endif
}

Status PlainDot(const KernelCall& call) {
  if (call.inputs.size() != 2) return RunReference(call);
  const TensorRef& lhs = call.inputs[0];
  const TensorRef& rhs = call.inputs[1];
  if (lhs.rank() < 1 || lhs.rank() > 2 || rhs.rank() < 1 || rhs.rank() > 2) return RunReference(call);
  const int64_t lc[1] = {lhs.rank() - 1};
  const int64_t rc[1] = {0};
  return FastDot(call, {}, {}, lc, rc);
}

}  // namespace

bool DotGeneralApplies(const KernelParams& params) {
  return params.Ints("lhs_batching_dimensions").size() == params.Ints("rhs_batching_dimensions").size() &&
         params.Ints("lhs_contracting_dimensions").size() == params.Ints("rhs_contracting_dimensions").size();
}

// With a fused epilogue (kernels/reference/epilogue.h), the bias and
// activation run over the product right after it, while it is in cache.
Status DotGeneral(const KernelCall& call) {
  return ref::RunWithEpilogue(call, 2, &PlainDotGeneral, &RunElementwiseProgram);
}
Status Dot(const KernelCall& call) { return ref::RunWithEpilogue(call, 2, &PlainDot, &RunElementwiseProgram); }

}  // namespace kiln::cpu
